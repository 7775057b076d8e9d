# ruff: noqa  (a study probe, removed in the commit after the one that adds it)
import numpy as np, warnings, sys

warnings.simplefilter("ignore")
from sklearn.model_selection import train_test_split
from sklearn.ensemble import ExtraTreesClassifier
from sklearn_plc import PLCClassifier
from benchmarks import unseen

X, y = unseen._load("many-20")
seed = 101
Xtr, Xte, ytr, yte = train_test_split(
    X, y, test_size=0.3, random_state=seed, stratify=y
)
accs = [
    np.mean(ExtraTreesClassifier(50, random_state=r).fit(Xtr, ytr).predict(Xte) == yte)
    for r in range(10)
]
print("ET clean random_state spread", np.round(accs, 3), "sd %.3f" % np.std(accs))
p = PLCClassifier(ExtraTreesClassifier(50, random_state=0), random_state=seed).fit(
    Xtr, ytr
)
print("plc", np.mean(p.predict(Xte) == yte), "est rs", p.estimator_.random_state)
hard = [
    np.mean(
        ExtraTreesClassifier(50, random_state=r).fit(Xtr, p.labels_).predict(Xte) == yte
    )
    for r in range(10)
]
print(
    "ET on plc labels_",
    np.round(hard, 3),
    "mean %.3f" % np.mean(hard),
    "clean mean %.3f" % np.mean(accs),
)
