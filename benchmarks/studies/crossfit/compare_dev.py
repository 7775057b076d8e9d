import gzip, json, sys, numpy as np, collections


def _read(p):
    return json.load(gzip.open(p, 'rt') if p.endswith('.gz') else open(p))

def load(p):
    d = _read(p); cells = collections.defaultdict(list)
    for r in d['runs']:
        if r['kind'] == 'cell': cells[(r['dataset'], r['noise'])].append(r)
    return cells
def stats(cells, label):
    clean, noisy = [], []
    ahead = 0; per_ds = collections.defaultdict(list); cost = []; cl_cost = []
    for (ds, nz), rs in cells.items():
        rs = [r for r in rs if 'PLC' in r]
        if not rs: continue
        g = np.mean([r['PLC']['accuracy'] - r['Standard']['accuracy'] for r in rs]) * 100
        c = np.mean([r['cleanlab']['accuracy'] - r['Standard']['accuracy'] for r in rs]) * 100
        (clean if nz == 'clean' else noisy).append((ds, nz, g, c))
        if nz != 'clean':
            per_ds[ds].append(g)
            if c - g > 1: ahead += 1
        for r in rs:
            if r['PLC'].get('n_changed', 0) > 0 or r['PLC'].get('n_set_aside', 0) > 0:
                cost.append(r['PLC']['fit_s'] / r['Standard']['fit_s']); cl_cost.append(r['cleanlab']['fit_s'] / r['Standard']['fit_s'])
    cg = np.array([x[2] for x in clean]); ng = np.array([x[2] for x in noisy])
    print(f"{label}: clean {cg.mean():+.2f} within0.5 {np.sum(cg >= -0.5)}/{len(cg)} worst {cg.min():+.2f} | noisy {ng.mean():+.2f} within0.5 {np.sum(ng>=-0.5)}/{len(ng)} cleanlab {np.mean([x[3] for x in noisy]):+.2f} ahead>1 {ahead} | cost median {np.median(cost):.1f}x plain, cleanlab {np.median(cl_cost):.1f}x, ratio {np.median(cost)/np.median(cl_cost):.2f} (n={len(cost)})")
    print('   clean:', ' '.join(f"{d}:{g:+.2f}" for d, _, g, _ in sorted(clean)))
    print('   noisy by dataset:', ' '.join(f"{d}:{np.mean(v):+.2f}" for d, v in sorted(per_ds.items())))
for p, l in zip(sys.argv[1::2], sys.argv[2::2]):
    stats(load(p), l)
