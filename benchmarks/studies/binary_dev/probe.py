"""Binary dev probe: Standard, PLC (+ overrides), cleanlab on a binary dev set."""

import json
import sys
import time

import numpy as np
from joblib import Parallel, delayed

sys.path.insert(0, ".")
from benchmarks import unseen

# make_classification's draws (no label flipped), by name: two classes unless
# `n_classes` says otherwise (`multi-a`, `multi-b`: gold_probe.py's)
DEV_SETS = {
    "hard-2-dev": dict(
        n_samples=1500, n_features=20, n_informative=6, class_sep=0.8, random_state=211
    ),
    "bin-a": dict(
        n_samples=1500, n_features=20, n_informative=6, class_sep=1.2, random_state=211
    ),
    "bin-b": dict(
        n_samples=800,
        n_features=30,
        n_informative=10,
        class_sep=1.5,
        n_clusters_per_class=3,
        random_state=223,
    ),
    "easy-2-dev": dict(
        n_samples=800, n_features=30, n_informative=10, class_sep=1.5, random_state=223
    ),
    # candidates.py's rare sets at b52249c: 15% and 6% positives
    "rare15-dev": dict(
        n_samples=3000, n_features=20, n_informative=6, weights=[0.85], random_state=61
    ),
    "rare6-dev": dict(
        n_samples=4000,
        n_features=15,
        n_informative=5,
        weights=[0.94],
        class_sep=1.2,
        random_state=67,
    ),
    "multi-a": dict(
        n_samples=1500,
        n_features=20,
        n_informative=6,
        n_classes=3,
        class_sep=1.0,
        random_state=311,
    ),
    "multi-b": dict(
        n_samples=2000,
        n_features=30,
        n_informative=8,
        n_classes=4,
        class_sep=1.2,
        random_state=313,
    ),
}


def load_dev(name):
    from sklearn.datasets import make_classification, make_moons

    if name in DEV_SETS:
        return make_classification(**{"n_classes": 2, "flip_y": 0, **DEV_SETS[name]})
    if name == "bin-c":
        X, y = make_moons(1200, noise=0.35, random_state=227)
        rng = np.random.RandomState(227)
        return np.hstack([X, rng.normal(size=(1200, 6))]), y
    return ORIG(name)


ORIG = unseen._load
ORIG_NOISE = unseen._noise


def noise_dev(name, seed):
    if name == "U20":
        from sklearn_plc.noise import UniformNoise

        return UniformNoise(0.2, random_state=seed)
    return ORIG_NOISE(name, seed)


def cell(dataset, model, noise, seed, params):
    unseen._load = load_dev
    unseen._noise = noise_dev
    return unseen.run_cell(dataset, model, noise, seed, params)


if __name__ == "__main__":
    out = sys.argv[1]
    datasets = sys.argv[2].split(",")
    models = sys.argv[3].split(",")
    params = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
    noises = (
        sys.argv[5].split(",")
        if len(sys.argv) > 5
        else ["clean", "I-25", "III-25", "U30"]
    )
    seeds = [100, 101, 102, 103, 104]
    grid = [
        (d, m, n, s) for d in datasets for m in models for n in noises for s in seeds
    ]
    t = time.time()
    rows = Parallel(n_jobs=2)(delayed(cell)(*g, params) for g in grid)
    with open(out, "w") as log:
        json.dump({"params": params, "runs": rows, "wall_s": time.time() - t}, log)
    print("wall", time.time() - t)
