# ruff: noqa  (a study probe, removed in the commit after the one that adds it)
"""Probe: the halves check on hard agreement vs on the probability of the given label."""

import sys, numpy as np, warnings

warnings.simplefilter("ignore")
from sklearn.model_selection import train_test_split
from sklearn.utils import _safe_indexing
import sklearn_plc._paths.refit as refit_mod
import sklearn_plc._paths.partial_fit as pf_mod
from sklearn_plc import _halves
from sklearn_plc._held_out import proba_per_class
from sklearn_plc import PLCClassifier
from benchmarks import unseen

orig = _halves.check_on_halves
record = {}


def patched(X, given, classes, rng, groups, fit_halves, ending, weights=None):
    n = given.shape[0]
    pg = np.empty(n)
    pp = np.empty(n)
    models = {}
    state = rng.get_state()

    def fit_and_keep(part):
        model, plain = fit_halves(part)
        other = np.setdiff1d(np.arange(n), part)
        Xo = _safe_indexing(X, other)
        pr = proba_per_class(model, Xo, classes)
        pl = proba_per_class(plain, Xo, classes)
        pg[other] = pr[np.arange(len(other)), given[other]]
        pp[other] = pl[np.arange(len(other)), given[other]]
        return model, plain

    out = orig(X, given, classes, rng, groups, fit_and_keep, ending, weights)
    d = pg - pp
    record["p_gain"] = d.mean()
    record["p_se"] = d.std(ddof=1) / np.sqrt(n)
    record["hard"] = (out["gain"], out["standard_error"]) if out else None
    return out


refit_mod.check_on_halves = patched
pf_mod.check_on_halves = patched


def run(ds, model, noise, seed):
    X, y = unseen._load(ds)
    Xtr, Xte, ytr, yte = train_test_split(
        X, y, test_size=0.3, random_state=seed, stratify=y
    )
    yn = (
        ytr.copy()
        if noise == "clean"
        else unseen._noise(noise, seed).fit_resample(Xtr, ytr)[1]
    )
    std = unseen._model(model).fit(Xtr, yn)
    s = np.mean(std.predict(Xte) == yte)
    record.clear()
    p = PLCClassifier(unseen._model(model), random_state=seed).fit(Xtr, yn)
    a = np.mean(p.predict(Xte) == yte)
    h = record.get("hard")
    print(
        f"{ds:14s} {model:18s} {noise:7s} {seed} {p.termination_condition_:22s} test {100 * (a - s):+5.1f}",
        "hard z %+.2f" % (h[0] / h[1]) if h and h[1] else "hard -",
        "p z %+.2f (gain %+.4f)" % (record["p_gain"] / record["p_se"], record["p_gain"])
        if "p_gain" in record
        else "",
        flush=True,
    )


cases = [c.split(",") for c in sys.argv[1:]]
for ds, model, noise, seed in cases:
    run(ds, model, noise, int(seed))
