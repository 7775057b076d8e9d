import gzip, json, sys, numpy as np, collections


def _read(p):
    return json.load(gzip.open(p, 'rt') if p.endswith('.gz') else open(p))

KEPT = {"not_memorising", "too_weak_to_judge"}
def load(paths, seeds):
    runs = {}
    for p in paths:
        d = _read(p)
        for r in d['runs']:
            if r['seed'] in seeds: runs[(r['dataset'], r['model'], r['noise'], r['seed'])] = r
    return runs
def cells(runs):
    c = collections.defaultdict(list)
    for (ds, m, nz, s), r in runs.items(): c[(ds, m, nz)].append(r)
    return c
def stats(runs, label, keys=None, metric=''):
    c = cells(runs)
    if keys is not None: c = {k: v for k, v in c.items() if k in keys}
    cl, no = [], []; ahead = 0; cost = []; clc = []
    for k, rs in c.items():
        g = np.mean([r['plc' + metric] - r['standard' + metric] for r in rs]) * 100
        cg = np.mean([r['cleanlab' + metric] - r['standard' + metric] for r in rs]) * 100
        (cl if k[2] == 'clean' else no).append((k, g, cg))
        if k[2] != 'clean' and cg - g > 1: ahead += 1
        for r in rs:
            if r['termination'] not in KEPT and r.get('confidence') != 'eval_pass' and r['standard_s'] >= 0.05:
                cost.append(r['plc_s'] / r['standard_s']); clc.append(r['cleanlab_s'] / r['standard_s'])
    def s(x):
        if not x: return 'none'
        g = np.array([v[1] for v in x]); c = np.array([v[2] for v in x])
        return f"{g.mean():+.2f} (cleanlab {c.mean():+.2f}), within0.5 {np.sum(g >= -0.5)}/{len(g)}, worst {g.min():+.2f}"
    print(f"{label}: clean {s(cl)} | noisy {s(no)}, cleanlab ahead>1 {ahead} | cost {np.median(cost) if cost else float('nan'):.1f}x vs {np.median(clc) if clc else float('nan'):.1f}x (n={len(cost)})")
    return c
if __name__ == "__main__":
    # compare_unseen.py NEW.json OLD.json... [--rare]: seeds 100-102 (--rare: 100-104,
    # accuracy and balanced accuracy)
    args = [a for a in sys.argv[1:] if a != "--rare"]
    if "--rare" in sys.argv:
        seeds = {100, 101, 102, 103, 104}
        new, old = load([args[0]], seeds), load(args[1:], seeds)
        for metric in ("", "_balanced"):
            stats(old, f"library{metric}", metric=metric)
            stats(new, f"crossfit{metric}", metric=metric)
        sys.exit()
    new = load([args[0]], {100, 101, 102})
    old = load(args[1:], {100, 101, 102})
    keys = set(cells(new))
    oc = stats(old, 'library', keys); nc = stats(new, 'crossfit', keys)
    by_model = collections.defaultdict(lambda: [[], []])
    for k in keys:
        if k not in oc: continue
        go = np.mean([r['plc'] - r['standard'] for r in oc[k]]) * 100; gn = np.mean([r['plc'] - r['standard'] for r in nc[k]]) * 100
        by_model[(k[1], k[2] == 'clean')][0].append(go); by_model[(k[1], k[2] == 'clean')][1].append(gn)
    for k, (a, b) in sorted(by_model.items()):
        print(f"  {k[0]:18s} {'clean' if k[1] else 'noisy'}: lib {np.mean(a):+.2f} cf {np.mean(b):+.2f} ({len(a)} cells)")
