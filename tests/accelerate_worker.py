"""One PLC fit of a small MLP with Hugging Face accelerate, on CPU (or CUDA).

Run by ``tests/test_accelerate.py``, alone (one process) or under ``torchrun``
(one per process), with the outputs of the training pass or of an
evaluation pass. Each process writes its corrected labels and the size of its
recorded outputs to ``<out>/rank<index>.npz``, waits for the other processes,
shuts its process group down and leaves without the interpreter's finalization:
gloo's worker threads can abort a process while the interpreter tears down
(``terminate called without an active exception``; seen once in CI), a
failure of torch's teardown, not of the fit.
"""

import os
import sys
from pathlib import Path

import numpy as np
import torch
from accelerate import Accelerator
from sklearn.datasets import make_classification
from skorch import NeuralNetClassifier
from skorch.hf import AccelerateMixin

from sklearn_plc import PLCClassifier
from sklearn_plc.skorch import TrainableOnlyAccelerateMixin

N_CLASSES = 4


class AcceleratedNet(
    TrainableOnlyAccelerateMixin, AccelerateMixin, NeuralNetClassifier
):
    pass


def noisy_problem():
    X, y = make_classification(
        1000, 20, n_informative=10, n_classes=N_CLASSES, class_sep=2.0, random_state=0
    )
    rng = np.random.RandomState(0)
    noisy = y.copy()
    flip = rng.rand(len(y)) < 0.4
    noisy[flip] = (y[flip] + rng.randint(1, N_CLASSES, flip.sum())) % N_CLASSES
    return X.astype(np.float32), y, noisy


def main(out, device, proba_source="training_pass"):
    accelerator = Accelerator(cpu=device == "cpu")
    X, y, noisy = noisy_problem()
    torch.manual_seed(0)
    module = torch.nn.Sequential(
        torch.nn.Linear(20, 128), torch.nn.ReLU(), torch.nn.Linear(128, N_CLASSES)
    )
    net = AcceleratedNet(
        module,
        criterion=torch.nn.CrossEntropyLoss,
        accelerator=accelerator,
        max_epochs=20,
        lr=0.1,
        batch_size=64,
        iterator_train__shuffle=True,
        train_split=None,
        verbose=0,
    )
    plc = PLCClassifier(net, confidence=proba_source, random_state=0).fit(X, noisy)
    np.savez(
        Path(out) / f"rank{accelerator.process_index}.npz",
        labels=plc.labels_,
        clean=y,
        noisy=noisy,
        recorded_bytes=plc.recorded_bytes_,
        n_processes=accelerator.num_processes,
        distributed_type=str(accelerator.distributed_type),
    )
    accelerator.wait_for_everyone()
    if torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main(*sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
