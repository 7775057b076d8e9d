"""Dev protocol log: do the ratio rule's probabilities need calibrating first?

The ratio rule reads the averaged probabilities as an estimate of the noisy
labels' posterior. An over-confident model breaks that: Gaussian naive Bayes on
64 features gives every disagreement with a label a ratio near 0, so the rule
relabels every sample it disagrees with (on a 30% uniform-noise dev draw of
digits: about half the labels, at 37-41% precision, purity down 1-5 points),
whatever θ is. This log measures, on dev splits only, a temperature fitted to
the labels before each pass (one scalar ``T``, the probabilities raised to
``1/T`` and renormalised, ``T`` minimising the labels' log loss):

- ``shipped``: the library's defaults;
- ``temp-given``: the temperature fitted to the labels as given;
- ``temp-current``: fitted to the current labels (those the model trained on).

Both are a subclass of the library's ``LabelCorrector`` patched into the
scikit-learn path; distribution alignment then runs as shipped.

    PYTHONPATH=. python benchmarks/studies/calibration.py run OUT.json SET VARIANT...
    PYTHONPATH=. python benchmarks/studies/calibration.py summary LOG.json...

SET: as in ``class_balance.py`` (``small``, ``memorising``, ``lr``, ``hard``,
``hard4``), and ``overconfident``: Gaussian naive Bayes and a random forest on
``digits-dev`` (sklearn digits as 64 features, 70/30 splits drawn with
``random_state=1000 + seed``, never the unseen check's, seeds 100-104), Gaussian
naive Bayes and the MLP on the hard-dev and hard4-dev sets, seeds 100-102.
"""

import warnings

import numpy as np
from joblib import Parallel, delayed

from benchmarks.studies import class_balance
from benchmarks.studies.common import (
    dump_rows,
    load_rows,
    noisy_cell,
    run_or_summarise,
    with_standard,
)

VARIANTS = ("shipped", "temp-given", "temp-current")


def fit_temperature(proba, labels, *, floor=1e-12):
    """The temperature minimising the labels' log loss under ``proba ** (1/T)``."""
    from scipy.optimize import minimize_scalar

    log_p = np.log(np.clip(np.asarray(proba, dtype=np.float64), floor, None))
    rows = np.arange(labels.shape[0])

    def log_loss(log_t):
        z = log_p / np.exp(log_t)
        z -= z.max(axis=1, keepdims=True)
        return np.mean(np.log(np.exp(z).sum(axis=1)) - z[rows, labels])

    found = minimize_scalar(
        log_loss, bounds=(np.log(0.05), np.log(50)), method="bounded"
    )
    return float(np.exp(found.x))


def tempered(proba, temperature, *, floor=1e-12):
    """``proba ** (1/T)``, rows renormalised."""
    z = np.log(np.clip(np.asarray(proba, dtype=np.float64), floor, None)) / temperature
    z -= z.max(axis=1, keepdims=True)
    out = np.exp(z)
    return out / out.sum(axis=1, keepdims=True)


TEMPERATURES = []  # per pass, (variant, T): read by run_one


def _tempered_corrector(towards):
    from sklearn_plc._corrector import LabelCorrector

    class Tempered(LabelCorrector):
        def averaged_proba(self):
            proba = np.asarray(self.to_numpy(super().averaged_proba()))
            labels = self.initial_labels if towards == "given" else self.labels
            temperature = fit_temperature(proba, labels)
            TEMPERATURES.append(temperature)
            return tempered(proba, temperature)

    return Tempered


def cells(which):
    if which != "overconfident":
        return class_balance.cells(which)
    dev = [(1, s) for s in (100, 101, 102)]
    hard = [
        (d, m, n, *r)
        for d in ("hard-dev", "hard4-dev")
        for m in ("naive-bayes", "mlp")
        for n in ("I-35", "III-35", "U30")
        for r in dev
    ]
    digits = [
        ("digits-dev", m, n, 1, s)
        for m in ("naive-bayes", "random-forest")
        for n in ("I-35", "III-35", "U30")
        for s in range(100, 105)
    ]
    return digits + hard


def _dev_cell(dataset, model, noise, seed, split):
    if dataset != "digits-dev":
        return noisy_cell(dataset, model, noise, seed, split)
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    from benchmarks.unseen import _model, _noise

    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=1000 + seed, stratify=y
    )
    _, y_noisy = _noise(noise, seed).fit_resample(X_train, y_train)
    return X_train, X_test, y_train, y_test, y_noisy, lambda: _model(model)


def run_one(dataset, model, noise, split, seed, variants):
    warnings.simplefilter("ignore")
    import sklearn_plc._refit_run as C
    from sklearn_plc import PLCClassifier
    from sklearn_plc._corrector import LabelCorrector

    found = with_standard(
        dataset, model, noise, seed, make_cell=lambda *c: _dev_cell(*c, split)
    )
    if found is None:
        return None
    (X_train, X_test, y_train, y_test, y_noisy, make), row = found
    row.update(split=split, purity=float(np.mean(y_noisy == y_train)))
    for variant in variants:
        # set for every task: a worker process keeps the class of its last task
        C.LabelCorrector = (
            _tempered_corrector(variant.split("-")[1])
            if variant.startswith("temp")
            else LabelCorrector
        )
        TEMPERATURES.clear()
        plc = PLCClassifier(make(), random_state=seed).fit(X_train, y_noisy)
        changed = plc.labels_ != y_noisy
        row[variant] = dict(
            acc=float(np.mean(plc.predict(X_test) == y_test)),
            purity=float(np.mean(plc.labels_ == y_train)),
            changed=int(changed.sum()),
            precision=float(np.mean(plc.labels_[changed] == y_train[changed]))
            if changed.any()
            else None,
            term=plc.termination_condition_,
            undone=bool((plc.selection_ or {}).get("undone", False)),
            temperatures=list(TEMPERATURES),
        )
    C.LabelCorrector = LabelCorrector
    return row


def run(path, which, variants):
    rows = Parallel(n_jobs=2)(delayed(run_one)(*c, variants) for c in cells(which))
    dump_rows([r for r in rows if r is not None], path)


def summary(*paths):
    rows = [r for p in paths for r in load_rows(p)]
    for key, v, mine, deltas, purity in class_balance.variant_figures(rows, VARIANTS):
        temps = [t for r in mine for t in r[v]["temperatures"][:1]]
        print(
            f"{key:28s} {v:12s} mean {deltas.mean():+6.2f} "
            f"ok {np.sum(deltas >= -0.5):2d}/{len(deltas)} "
            f"worst {deltas.min():+6.1f}  purity {purity:+5.1f}  "
            f"changed {np.mean([r[v]['changed'] for r in mine]):6.1f}  "
            f"undone {sum(r[v]['undone'] for r in mine)}/{len(mine)}"
            + (f"  first T {np.median(temps):.2f}" if temps else "")
        )


if __name__ == "__main__":
    run_or_summarise(__doc__, run, summary)
