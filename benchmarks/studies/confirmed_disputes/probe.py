# ruff: noqa
"""Probe: the review loop's order boosted by confirmed disputes (model errors a reviewer witnessed)."""
import os, sys, json, time, warnings
import numpy as np
from joblib import Parallel, delayed
K_NN = int(os.environ.get("KNN", "10")); MIN_W = int(os.environ.get("MINW", "2"))

def cell(dataset, model, noise, seed):
    warnings.simplefilter("ignore")
    from sklearn.base import clone
    from sklearn.neighbors import NearestNeighbors
    from sklearn.preprocessing import StandardScaler
    from sklearn_plc import PLCClassifier
    from benchmarks import review
    from benchmarks.tables import plc_ranking
    from benchmarks.unseen import _model
    X_train, X_test, y_train, y_test = review.load(dataset, review.DEV_SPLIT)
    y_noisy = review._noisy_labels(noise, X_train, y_train, seed)
    n = y_train.shape[0]; base = _model(model)
    nn = NearestNeighbors(n_neighbors=K_NN + 1).fit(StandardScaler().fit_transform(X_train))
    neigh = nn.kneighbors(return_distance=False)
    def fit_plc(labels, trusted=None):
        return PLCClassifier(clone(base), random_state=seed).fit(X_train, labels, trusted=trusted)
    def acc(f): return float(np.mean(f.predict(X_test) == y_test))
    before = fit_plc(y_noisy)
    def order_of(fitted, reviewed, y_rev):
        base_order = plc_ranking(fitted, "change")
        if len(reviewed) == 0: return base_order, 0
        sug = fitted.label_evidence_["suggested"]
        sug = np.asarray(sug)
        is_rev = np.zeros(n, bool); is_rev[reviewed] = True
        score = np.zeros(n, int)
        for i in reviewed:
            if sug[i] != y_rev[i]:  # the model errs where a reviewer looked
                for j in neigh[i]:
                    if not is_rev[j] and fitted.labels_[j] == sug[i]:
                        score[j] += 1
        rank_pos = np.empty(n, int); rank_pos[base_order] = np.arange(n)
        sus = np.flatnonzero(score >= MIN_W)
        sus = sus[np.lexsort((rank_pos[sus], -score[sus]))]
        rest = base_order[~np.isin(base_order, sus)]
        return np.concatenate([sus, rest]), len(sus)
    order, _ = order_of(before, np.zeros(0, int), y_noisy)
    reviewed = np.zeros(0, dtype=np.intp); accs = []; wrong = []; nsus = []
    for k in review.KS:
        reviewed = review.reviewed_next(reviewed, order, k)
        y_rev = y_noisy.copy(); y_rev[reviewed] = y_train[reviewed]
        wrong.append(int(np.count_nonzero(y_noisy[reviewed] != y_train[reviewed])))
        trusted = np.zeros(n, bool); trusted[reviewed] = True
        fitted = fit_plc(y_rev, trusted)
        accs.append(acc(fitted))
        order, s = order_of(fitted, reviewed, y_rev); nsus.append(s)
    return {"dataset": dataset, "model": model, "noise": noise, "seed": seed, "before": acc(before), "after": {"PLC": accs}, "wrong": {"PLC": wrong}, "suspects": nsus}

datasets = sys.argv[1].split(","); models = sys.argv[2].split(","); noises = sys.argv[3].split(","); seeds = [int(s) for s in sys.argv[4].split(",")]
cells = [(d, m, nz, s) for d in datasets for m in models for nz in noises for s in seeds]
t = time.time()
rows = Parallel(n_jobs=int(os.environ.get("JOBS", "1")))(delayed(cell)(*c) for c in cells)
for r in rows: print(json.dumps(r), flush=True)
print("wall", round(time.time() - t), file=sys.stderr)
