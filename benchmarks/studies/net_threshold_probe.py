"""Does a skorch net at a constant learning rate drift like the partial_fit run did?

Question (after "The threshold waits for the learner to settle"): the skorch path
relaxed the threshold after any quiet pass (the paper's rule). A one-hidden-layer
net (64 units, Adam at lr 1e-3, 100 epochs, batches of 200) on the second check's
quantiles-3 with 30% uniform noise is the case that drifted for the
``MLPClassifier``. This probe fits Standard and PLC under RULE: ``settled`` (the
library: relax only once the loss on the current labels has stopped improving),
``paper`` (after any quiet pass; ``sklearn_plc.skorch.RAISE_WHEN_SETTLED = False``)
or ``held`` (the paper's rule with ``theta_end`` equal to ``theta``), and prints
accuracy, the labels changed, the label purity and the threshold every 10 epochs.

Usage (from the repository root, ``PYTHONPATH=.``; needs the torch extra)::

    python benchmarks/studies/net_threshold_probe.py DATASET NOISE SEED [RULE]
"""

import sys
import warnings

import numpy as np

sys.path.insert(0, ".")
from benchmarks.studies.common import unseen_cell


def _net(n_features, n_classes, seed):
    import torch
    from skorch import NeuralNetClassifier

    torch.manual_seed(seed)
    module = torch.nn.Sequential(
        torch.nn.Linear(n_features, 64), torch.nn.ReLU(), torch.nn.Linear(64, n_classes)
    )
    return NeuralNetClassifier(
        module,
        criterion=torch.nn.CrossEntropyLoss,
        optimizer=torch.optim.Adam,
        lr=1e-3,
        max_epochs=100,
        batch_size=200,
        iterator_train__shuffle=True,
        train_split=None,
        verbose=0,
    )


def main(dataset, noise, seed, rule="settled"):
    import torch
    from sklearn.preprocessing import StandardScaler

    import sklearn_plc.skorch as plc_skorch
    from sklearn_plc import PLCClassifier

    plc_skorch.RAISE_WHEN_SETTLED = rule == "settled"

    warnings.simplefilter("ignore")
    torch.set_num_threads(1)
    X_train, X_test, y_train, y_test, y_noisy, _ = unseen_cell(
        dataset, "mlp", noise, seed
    )
    scaler = StandardScaler().fit(X_train)
    X_fit = scaler.transform(X_train).astype(np.float32)
    X_eval = scaler.transform(X_test).astype(np.float32)
    n_classes = np.unique(y_train).shape[0]
    labels = y_noisy.astype(np.int64)
    standard = _net(X_fit.shape[1], n_classes, seed).fit(X_fit, labels)
    print("Standard", float(np.mean(standard.predict(X_eval) == y_test)))
    params = {"theta_end": 0.3} if rule == "held" else {}
    plc = PLCClassifier(
        _net(X_fit.shape[1], n_classes, seed), random_state=seed, **params
    ).fit(X_fit, labels)
    print(
        "PLC",
        float(np.mean(plc.predict(X_eval) == y_test)),
        plc.termination_condition_,
        f"warm-up {plc.warm_up_}",
        f"changed {int(np.sum(plc.labels_ != y_noisy))}",
        f"purity {np.mean(y_noisy == y_train):.3f} -> "
        f"{np.mean(plc.labels_ == y_train):.3f}",
        "threshold every 10 epochs",
        [record["threshold"] for record in plc.history_][::10],
    )


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), *sys.argv[4:])
