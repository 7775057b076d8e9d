"""Dev protocol log: a held-out harm check for nets, inside their one training run.

Nets correct their labels during one training run, so the scikit-learn path's
judge (refit on the given labels, compare on set-aside samples) would double
their cost. What a single run can afford: set a fraction of the training samples
aside (never trained on, labels as given), score the net on them after every
epoch (one small inference pass), and keep the module of the epoch the rule
picks. This log records, per epoch, the clean-test accuracy and the set-aside
agreement with the given labels, for four runs per cell:

- ``std``: Standard on all training samples (the tables' competitor);
- ``plc``: PLC's defaults on all training samples (the shipped net path);
- ``std_kept`` and ``plc_kept``: the same on the samples not set aside.

Selection rules are then evaluated offline (``summary``) on the recorded
curves: e.g. PLC's final epoch against its warm-up epoch (the last epoch trained
on the given labels only) by set-aside agreement.

    PYTHONPATH=. python benchmarks/studies/net_judge.py run OUT.json [FRACTION]
    python benchmarks/studies/net_judge.py summary OUT.json
    PYTHONPATH=. python benchmarks/studies/net_judge.py variant OUT.json theta=0.2
    python benchmarks/studies/net_judge.py summary-variant RUN.json OUT.json
    PYTHONPATH=. python benchmarks/studies/net_judge.py nets-dev OUT.json

``variant`` runs PLC alone, with other settings, on all training samples; its
summary compares it with the ``std`` curves of a ``run``. The logged figures:
``summary benchmarks/studies/net_judge.json`` and ``summary-variant
benchmarks/studies/net_judge.json benchmarks/studies/net_judge_variants.json``
(one line per variant in that file). ``nets-dev`` runs the nets benchmark's
small and wide CNN at θ = 0.3 and 0.2 on a dev draw of mnist1d
(``net_judge_nets_dev.json``).

mnist1d dev split 1, seeds 100-102 (``validation_fraction.noisy_cell``) only.
"""

import json
import sys
import warnings

import numpy as np
from joblib import Parallel, delayed

from benchmarks.studies.common import dump_rows, load_rows, noisy_cell

SEEDS = (100, 101, 102)
N_TRAIN = 3500  # mnist1d's training samples in the tables (n = 5,000, 30% test)


def _probe(X_test, y_test, X_aside, y_aside_given, y_aside_clean):
    """A skorch callback recording, per epoch, test accuracy and set-aside agreement."""
    from skorch.callbacks import Callback

    class Probe(Callback):
        def initialize(self):
            self.curve_ = []
            return self

        def on_epoch_end(self, net, **kwargs):
            record = {"test": float(np.mean(net.predict(X_test) == y_test))}
            if X_aside is not None:
                proba = net.predict_proba(X_aside)
                picked = proba.argmax(axis=1)
                given = proba[np.arange(len(y_aside_given)), y_aside_given]
                record.update(
                    aside_given=float(np.mean(picked == y_aside_given)),
                    aside_clean=float(np.mean(picked == y_aside_clean)),
                    aside_nll=float(-np.mean(np.log(np.clip(given, 1e-12, 1)))),
                )
            self.curve_.append(record)

    return Probe()


def _fit(make, X, y, probe, seed, plc, params=None):
    import torch

    from sklearn_plc import PLCClassifier

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    net = make()
    net.set_params(callbacks=[("probe", probe)])
    if not plc:
        net.fit(X, y)
        return dict(net.callbacks_)["probe"].curve_, {}
    model = PLCClassifier(net, random_state=seed, **(params or {})).fit(X, y)
    curve = dict(model.estimator_.callbacks_)["probe"].curve_
    info = dict(
        warm_up=model.warm_up_ or len(curve),
        n_changed=int(np.sum(model.labels_ != y)),
    )
    return curve, info


def _cell(noise, seed):
    """The mnist1d dev cell (``validation_fraction.noisy_cell``), warnings off."""
    warnings.simplefilter("ignore")

    return noisy_cell("mnist1d", "base", noise, seed)


def run(noise, seed, fraction):
    from sklearn.model_selection import train_test_split

    cell = _cell(noise, seed)
    if cell is None:
        return None
    X_train, X_test, y_train, y_test, y_noisy, make = cell
    row = dict(dataset="mnist1d", noise=noise, seed=seed, fraction=fraction)
    everything = _probe(X_test, y_test, None, None, None)
    row["std"], _ = _fit(make, X_train, y_noisy, everything, seed, plc=False)
    row["plc"], info = _fit(make, X_train, y_noisy, everything, seed, plc=True)
    row["plc_info"] = info
    kept, aside = train_test_split(
        np.arange(len(y_noisy)), test_size=fraction, random_state=seed, stratify=y_noisy
    )
    probe = _probe(X_test, y_test, X_train[aside], y_noisy[aside], y_train[aside])
    X_kept, y_kept = X_train[kept], y_noisy[kept]
    row["std_kept"], _ = _fit(make, X_kept, y_kept, probe, seed, plc=False)
    row["plc_kept"], info = _fit(make, X_kept, y_kept, probe, seed, plc=True)
    row["plc_kept_info"] = info
    return row


def run_variant(noise, seed, params):
    """PLC with `params` on all training samples (compare with a run's ``std``)."""
    cell = _cell(noise, seed)
    if cell is None:
        return None
    X_train, X_test, _, y_test, y_noisy, make = cell
    probe = _probe(X_test, y_test, None, None, None)
    curve, info = _fit(make, X_train, y_noisy, probe, seed, plc=True, params=params)
    return dict(noise=noise, seed=seed, params=params, plc=curve, plc_info=info)


def summary_variant(base_path, path):
    """Mean Δ against the base run's Standard, per noise cell and variant."""
    std = {
        (r["noise"], r["seed"]): r["std"][-1]["test"]
        for r in load_rows(base_path)
        if r is not None
    }
    rows = [r for r in load_rows(path) if r is not None]
    for params in sorted({json.dumps(r["params"], sort_keys=True) for r in rows}):
        _summary_one(
            std, [r for r in rows if json.dumps(r["params"], sort_keys=True) == params]
        )


def _summary_one(std, rows):
    by_noise = {}
    for r in rows:
        by_noise.setdefault(r["noise"], []).append(
            100 * (r["plc"][-1]["test"] - std[r["noise"], r["seed"]])
        )
    deltas = {n: np.mean(d) for n, d in sorted(by_noise.items())}
    values = np.array(list(deltas.values()))
    print(
        f"{rows[0]['params']}: mean {values.mean():+.2f} ok "
        f"{np.sum(values >= -0.5)}/{len(values)} worst {values.min():+.1f}"
    )
    print("  " + ", ".join(f"{n} {d:+.1f}" for n, d in deltas.items()))


def cells():
    from benchmarks.tables import NOISE_CELLS

    return [(n, s) for n in NOISE_CELLS for s in SEEDS]


def _pick(curve, start, key="aside_given", bar=0.0, n_aside=1):
    """Final epoch unless the start epoch's set-aside agreement beats it by > bar SE."""
    final, first = curve[-1], curve[start - 1]
    se = _standard_error(final[key], n_aside)
    return first if first[key] - final[key] > bar * se else final


def _standard_error(agreement, n_aside):
    return np.sqrt(max(agreement * (1 - agreement), 1e-6) / n_aside)


def summary(path):
    rows = [r for r in load_rows(path) if r is not None]
    n_aside = N_TRAIN * rows[0]["fraction"]
    rules = {
        "plc (all)": lambda r: r["plc"][-1]["test"],
        "std_kept": lambda r: r["std_kept"][-1]["test"],
        "plc_kept": lambda r: r["plc_kept"][-1]["test"],
        "plc_kept at warm-up": lambda r: r["plc_kept"][
            r["plc_kept_info"]["warm_up"] - 1
        ]["test"],
        "plc_kept, any loss": lambda r: _pick(
            r["plc_kept"], r["plc_kept_info"]["warm_up"], n_aside=n_aside
        )["test"],
        "plc_kept, 1 SE": lambda r: _pick(
            r["plc_kept"], r["plc_kept_info"]["warm_up"], bar=1, n_aside=n_aside
        )["test"],
        "plc_kept, best epoch >= warm-up": lambda r: max(
            r["plc_kept"][r["plc_kept_info"]["warm_up"] - 1 :],
            key=lambda e: e["aside_given"],
        )["test"],
        "plc_kept, oracle (clean set-aside)": lambda r: _pick(
            r["plc_kept"], r["plc_kept_info"]["warm_up"], key="aside_clean"
        )["test"],
        # two runs (beyond the nets' cost target): Standard or PLC, both on the
        # samples kept, whichever the set-aside's given labels prefer
        "two runs, any loss": lambda r: _two_runs(r, 0.0, n_aside),
        "two runs, 1 SE": lambda r: _two_runs(r, 1.0, n_aside),
    }
    print(f"{len(rows)} runs, set-aside {rows[0]['fraction']:.0%}")
    gains = np.array(
        [
            [
                r["plc_kept"][-1][key] - r["std_kept"][-1][key]
                for key in ("aside_given", "test")
            ]
            for r in rows
        ]
    )
    print(
        f"PLC - Standard (both on the samples kept), set-aside agreement gain "
        f"against test gain: correlation {np.corrcoef(gains.T)[0, 1]:.2f}, same "
        f"sign in {np.mean(np.sign(gains[:, 0]) == np.sign(gains[:, 1])):.0%} of runs"
    )
    by_noise = sorted({r["noise"] for r in rows})
    for name, rule in rules.items():
        deltas = {
            n: np.mean(
                [
                    100 * (rule(r) - r["std"][-1]["test"])
                    for r in rows
                    if r["noise"] == n
                ]
            )
            for n in by_noise
        }
        values = np.array(list(deltas.values()))
        losing = [n for n, d in deltas.items() if d < -0.5]
        print(
            f"{name:38s} mean {values.mean():+.2f} ok {np.sum(values >= -0.5)}/"
            f"{len(values)} worst {values.min():+.1f}  losing {losing}"
        )


def _two_runs(row, bar, n_aside):
    plc, std = row["plc_kept"][-1], row["std_kept"][-1]
    se = _standard_error(plc["aside_given"], n_aside)
    return (std if std["aside_given"] - plc["aside_given"] > bar * se else plc)["test"]


def run_nets_dev(path, thetas=(0.3, 0.2), seeds=(100, 101)):
    """The nets benchmark's wide and 30-epoch small CNN on a dev draw of mnist1d.

    mnist1d seed 1 (the benchmark uses 0), n = 10,000, 35% Type-I; plain and
    PLC at each of `thetas`, clean-test accuracy.
    """
    import torch

    from benchmarks.nets import make_mnist1d, make_mnist1d_net
    from benchmarks.nets_accuracy import REGIMES
    from sklearn_plc import PLCClassifier
    from sklearn_plc.noise import PMDNoise, estimate_posterior

    warnings.simplefilter("ignore")
    torch.set_num_threads(1)
    X, X_test, y, y_test = make_mnist1d(10_000, seed=1)
    posterior = estimate_posterior(
        X, y, estimator=make_mnist1d_net(20), cv=5, random_state=0
    )
    rows = []
    for regime in ("small CNN, 30 epochs", "wide CNN, 60 epochs"):
        settings = REGIMES[regime]["net"]
        for seed in seeds:
            y_noisy = PMDNoise("I", 0.35, random_state=seed).corrupt(y, posterior)
            torch.manual_seed(seed)
            plain = make_mnist1d_net(**settings).fit(X, y_noisy)
            row = dict(regime=regime, seed=seed)
            row["plain"] = float(np.mean(plain.predict(X_test) == y_test))
            for theta in thetas:
                torch.manual_seed(seed)
                plc = PLCClassifier(
                    make_mnist1d_net(**settings), theta=theta, random_state=seed
                ).fit(X, y_noisy)
                row[f"plc_{theta}"] = float(np.mean(plc.predict(X_test) == y_test))
                row[f"precision_{theta}"] = float(
                    np.mean(
                        plc.labels_[plc.labels_ != y_noisy] == y[plc.labels_ != y_noisy]
                    )
                )
            print(row, flush=True)
            rows.append(row)
    dump_rows(rows, path)


if __name__ == "__main__":
    if sys.argv[1] == "summary":
        summary(sys.argv[2])
    elif sys.argv[1] == "nets-dev":
        run_nets_dev(sys.argv[2])
    elif sys.argv[1] == "summary-variant":
        summary_variant(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "variant":
        params = {
            key: float(value)
            for key, value in (item.split("=") for item in sys.argv[3].split(","))
        }
        rows = Parallel(n_jobs=2)(
            delayed(run_variant)(n, s, params) for n, s in cells()
        )
        dump_rows(rows, sys.argv[2])
        print("done", len(rows))
    else:
        fraction = float(sys.argv[3]) if len(sys.argv) > 3 else 0.1
        rows = Parallel(n_jobs=2)(delayed(run)(n, s, fraction) for n, s in cells())
        dump_rows(rows, sys.argv[2])
        print("done", len(rows))
