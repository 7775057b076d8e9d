"""Compare probe.py's rows with the library's (``compare.py NEW.jsonl BASE.jsonl``).

BASE: ``git show 3b42d3a:benchmarks/studies/stable_draws/dev_review_after.jsonl``
(the library at df04c0f, which c3de735 does not change).
"""
import json, sys, numpy as np
base = {}
for l in open(sys.argv[2]):
    r = json.loads(l); base[(r['dataset'], r['model'], r['noise'], r['seed'])] = r
new = [json.loads(l) for l in open(sys.argv[1])]
d = {'PLC': [], 'random': []}
for r in new:
    b = base[(r['dataset'], r['model'], r['noise'], r['seed'])]
    print(r['dataset'], r['model'], r['noise'], r['seed'], 'before', round(r['before'],3), round(b['before'],3))
    for o in ('PLC', 'random'):
        diff = np.array(r['after'][o]) - np.array(b['after'][o])
        d[o].append(diff)
        print('   ', o, 'new', np.round(r['after'][o], 3), 'diff', np.round(diff*100, 1))
for o in d:
    print(o, 'mean diff per k', np.round(np.mean(d[o], 0)*100, 2), 'runs moved', int(np.sum(np.any(np.abs(d[o])>1e-9, axis=1))), 'of', len(d[o]))
