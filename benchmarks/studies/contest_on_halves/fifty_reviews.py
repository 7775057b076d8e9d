import numpy as np
from sklearn.datasets import load_digits

from sklearn_plc import PLCClassifier
from sklearn_plc.noise import PMDNoise

X, y = load_digits(return_X_y=True)
_, yn = PMDNoise("I", 0.35, random_state=0).fit_resample(X, y)
for seed in range(6):
    f = PLCClassifier(random_state=seed).fit(X, yn)
    c = f.review_list()["position"].to_numpy()[:50]
    yr = yn.copy()
    yr[c] = y[c]
    tr = np.isin(np.arange(len(y)), c)
    g = PLCClassifier(random_state=seed).fit(X, yr, trusted=tr)
    ch = (g.halves_check_ or {}).get("contest")
    print(
        seed,
        f.termination_condition_,
        round(np.mean(f.labels_ == y), 3),
        "->",
        g.termination_condition_,
        round(np.mean(g.labels_ == y), 3),
        ch,
        flush=True,
    )
