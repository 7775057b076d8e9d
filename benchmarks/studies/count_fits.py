# ruff: noqa  (a study probe, removed in the commit after the one that adds it)
import sys, time, traceback, numpy as np, warnings, collections

warnings.simplefilter("ignore")
from sklearn.base import clone
from sklearn_plc import PLCClassifier
from benchmarks import review, unseen
from benchmarks.unseen import _model

ds, model, noise, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
Xtr, Xte, ytr, yte = review.load(ds, 0)
yn = review._noisy_labels(noise, Xtr, ytr, seed)
base = _model(model)
est = base[-1] if hasattr(base, "steps") else base
cls = type(est)
orig = cls.fit
log = []


def fit(self, X, y, *a, **k):
    t = time.perf_counter()
    r = orig(self, X, y, *a, **k)
    dt = time.perf_counter() - t
    st = traceback.extract_stack()
    names = [f.name for f in st]
    tag = "halves" if "fit_halves" in names else "main"
    where = next(
        (
            f.name
            for f in reversed(st[:-1])
            if f.filename.endswith(".py") and "sklearn_plc" in f.filename
        ),
        "?",
    )
    log.append((tag, where, len(y), dt))
    return r


cls.fit = fit
t = time.perf_counter()
p = PLCClassifier(clone(base), random_state=seed).fit(Xtr, yn)
tot = time.perf_counter() - t
print(p.termination_condition_, "total %.2fs" % tot, "n", len(yn))
c = collections.defaultdict(lambda: [0, 0.0])
for tag, where, n, dt in log:
    c[(tag, where, n)][0] += 1
    c[(tag, where, n)][1] += dt
for k, v in sorted(c.items()):
    print(k, v[0], "%.2fs" % v[1])
t = time.perf_counter()
clone(base).fit(Xtr, yn)
print("plain %.2fs" % (time.perf_counter() - t))
