# ruff: noqa  (a study probe, removed in the commit after the one that adds it)
import sys, numpy as np, warnings

warnings.simplefilter("ignore")
from sklearn.base import clone
from sklearn_plc import PLCClassifier
from benchmarks import review
from benchmarks.tables import plc_ranking
from benchmarks.unseen import _model

ds, model, noise, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
Xtr, Xte, ytr, yte = review.load(ds, 0)
yn = review._noisy_labels(noise, Xtr, ytr, seed)
base = _model(model)


def show(tag, p):
    s = p.selection_ or {}
    h = p.halves_check_
    rep = s.get("replaced") or {}
    print(
        tag,
        p.termination_condition_,
        "acc %.3f" % np.mean(p.predict(Xte) == yte),
        "purity %.3f" % np.mean(p.labels_ == ytr),
        "changed",
        int((p.labels_ != yn).sum()),
        "aside",
        int(p.set_aside_.sum()),
        "sel",
        s.get("compared"),
        None
        if not s.get("standard_error")
        else round(s["gain"] / s["standard_error"], 2),
        "replaced",
        rep.get("compared"),
        None
        if not rep.get("standard_error")
        else round(rep["gain"] / rep["standard_error"], 2),
        "halves",
        None
        if h is None
        else (round(h["gain"] / max(h["standard_error"], 1e-12), 2), h["undone"]),
    )


before = PLCClassifier(clone(base), random_state=seed).fit(Xtr, yn)
show("before", before)
order = plc_ranking(before, "change")
for k in [25]:
    rev = order[:k]
    y2 = yn.copy()
    y2[rev] = ytr[rev]
    t = np.zeros(len(yn), bool)
    t[rev] = True
    print("wrong reviewed", int((yn[rev] != ytr[rev]).sum()))
    show("k=25", PLCClassifier(clone(base), random_state=seed).fit(Xtr, y2, trusted=t))
    # same trusted, labels unchanged
    show(
        "k=25 trusted-only",
        PLCClassifier(clone(base), random_state=seed).fit(Xtr, yn, trusted=t),
    )
    show(
        "k=25 relabel-only", PLCClassifier(clone(base), random_state=seed).fit(Xtr, y2)
    )
for rs in [1, 2, 3]:
    show(f"before rs={rs}", PLCClassifier(clone(base), random_state=rs).fit(Xtr, yn))
