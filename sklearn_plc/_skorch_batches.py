"""Which training sample each recorded output belongs to, on one process or several.

PLC records a skorch net's outputs during its training passes. To match the
outputs of a batch to samples without a loop over samples,
:class:`EpochOrderSampler` feeds the training DataLoader and remembers each
epoch's order. With Hugging Face accelerate, :class:`ProcessShard` replays how
accelerate deals that order out to the processes, and
:class:`TrainableOnlyAccelerateMixin` lets a net whose criterion has no
parameters run on several processes at all.

This module imports torch; import it only when torch is installed.
"""

import numpy as np
import torch


class EpochOrderSampler(torch.utils.data.Sampler):
    """Yield the samples in a DataLoader's order and remember that order.

    Parameters
    ----------
    n_samples : int
        Size of the dataset (set again at every epoch).
    shuffle : bool
        As ``DataLoader(shuffle=...)``: a fresh permutation every epoch, drawn
        from ``generator``, or the data's own order.

    Attributes
    ----------
    generator : torch.Generator or None
        None: torch's global generator (so ``torch.manual_seed`` makes runs
        repeatable). Hugging Face accelerate sets its own here and keeps it in
        step across processes, so that every process draws the same order and
        takes its own batches of it.
    """

    def __init__(self, n_samples=0, shuffle=False):
        self.n_samples = n_samples
        self.shuffle = shuffle
        self.generator = None
        self.order = torch.arange(0)
        self.replaced_params = {}  # the net's iterator settings it stands in for

    def __len__(self):
        return self.n_samples

    def __iter__(self):
        if self.shuffle:
            self.order = torch.randperm(self.n_samples, generator=self.generator)
        else:
            self.order = torch.arange(self.n_samples)
        return iter(self.order.tolist())


class ProcessShard:
    """This process's share of a net's training samples, on several processes.

    With Hugging Face accelerate (skorch's ``AccelerateMixin``) each process
    trains on its own batches of every epoch. PLC records each process's
    outputs, sums the epoch's records over the processes (every sample is
    seen by one process, or two where accelerate repeats samples to even out
    the batches), and keeps in its window only this process's contiguous
    block of rows: the window is split over the processes, not copied. Each
    pass corrects the block, then the blocks' new labels are gathered, so
    every process continues from the same labels.

    Parameters
    ----------
    accelerator : accelerate.Accelerator
        The net's accelerator, whose process group is up.
    n_samples : int
        Number of training samples.
    """

    def __init__(self, accelerator, n_samples):
        if accelerator.dispatch_batches:
            raise ValueError(
                "PLC records the outputs of the batches each process loads itself, "
                "but this Accelerator dispatches batches from the main process "
                "(dispatch_batches=True). Create it with DataLoaderConfiguration("
                "dispatch_batches=False)."
            )
        self.accelerator = accelerator
        self.n_processes = accelerator.num_processes
        self.index = accelerator.process_index
        self.bounds = [
            process * n_samples // self.n_processes
            for process in range(self.n_processes + 1)
        ]
        self.rows = slice(self.bounds[self.index], self.bounds[self.index + 1])

    @classmethod
    def of(cls, net, n_samples):
        """The shard of `net`'s process, or None when it trains on one process."""
        accelerator = getattr(net, "accelerator", None)
        if accelerator is None or accelerator.num_processes == 1:
            return None
        return cls(accelerator, n_samples)

    def batches(self, order, batch_size, drop_last):
        """This process's batches of an epoch in `order`, as accelerate deals them."""
        from accelerate.data_loader import BatchSamplerShard

        return [
            torch.as_tensor(batch)
            for batch in BatchSamplerShard(
                torch.utils.data.BatchSampler(order.tolist(), batch_size, drop_last),
                num_processes=self.n_processes,
                process_index=self.index,
                split_batches=self.accelerator.split_batches,
                even_batches=self.accelerator.even_batches,
            )
        ]

    def sum(self, tensor):
        """Sum `tensor` over the processes, in place."""
        torch.distributed.all_reduce(tensor)
        return tensor

    def gather_labels(self, block_labels):
        """Every process's block of labels, concatenated in order."""
        sizes = np.diff(self.bounds)
        padded = torch.zeros(
            int(sizes.max()), dtype=torch.int64, device=self.accelerator.device
        )
        padded[: len(block_labels)] = torch.as_tensor(block_labels)
        blocks = [torch.empty_like(padded) for _ in range(self.n_processes)]
        torch.distributed.all_gather(blocks, padded)
        return np.concatenate(
            [
                block[:size].cpu().numpy()
                for block, size in zip(blocks, sizes, strict=True)
            ]
        ).astype(block_labels.dtype, copy=False)


def _has_trainable_parameters(component):
    return isinstance(component, torch.nn.Module) and any(
        parameter.requires_grad for parameter in component.parameters()
    )


class TrainableOnlyAccelerateMixin:
    """skorch's ``AccelerateMixin``, preparing only what has trainable parameters.

    skorch hands every module and criterion to ``accelerator.prepare``. On
    several processes that wraps each in ``DistributedDataParallel``, which
    rejects a criterion such as ``CrossEntropyLoss`` ("DistributedDataParallel
    is not needed when a module doesn't have any parameter that requires a
    gradient"). This mixin leaves such components out; they still run on the
    accelerator's device, where the tensors they receive already are.

    Put it before skorch's mixin::

        from skorch import NeuralNetClassifier
        from skorch.hf import AccelerateMixin

        class AcceleratedNet(
            TrainableOnlyAccelerateMixin, AccelerateMixin, NeuralNetClassifier
        ):
            pass

    See "Scaling out" in the documentation for a run with ``torchrun``.
    """

    def _initialize_accelerator(self):
        criteria, modules = self._criteria, self._modules
        self._criteria = [
            name
            for name in criteria
            if _has_trainable_parameters(getattr(self, name + "_"))
        ]
        self._modules = [
            name
            for name in modules
            if _has_trainable_parameters(getattr(self, name + "_"))
        ]
        try:
            return super()._initialize_accelerator()
        finally:
            self._criteria, self._modules = criteria, modules
