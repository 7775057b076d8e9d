"""PLC around a skorch 1-D CNN on mnist1d under PMD noise: accuracy and precision.

Three regimes, because PLC behaves differently in them:

- a small CNN trained for 30 epochs, which does not memorise its noisy labels
  (plain training then sits near the noisy data's own best classifier);
- the same CNN trained for 60 epochs, which starts to;
- a wide CNN trained for 60 epochs, which memorises them (the regime of the
  paper's deep networks).

The clean posterior η is estimated once, out of fold, by the small CNN trained on
the clean labels (an in-sample η is so confident that 35% Type-I noise is not
reachable); each seed then draws its own noise and trains its own nets. Test
labels are clean. For PLC, every epoch's corrections are scored against the
clean labels: how many labels they fixed, broke (a right label made wrong) and
moved between wrong classes. In the small-CNN regime a ceiling is also measured:
a fresh plain net trained on the noisy labels with only PLC's right corrections
applied (an oracle that drops every wrong one), which bounds what any choice
among PLC's corrections could gain there.
"""

import json
import time
from pathlib import Path

import numpy as np
import torch
from tqdm.auto import tqdm

from sklearn_plc import PLCClassifier
from sklearn_plc.metrics import label_recovery_report
from sklearn_plc.noise import PMDNoise, estimate_posterior

from .nets import make_mnist1d, make_mnist1d_net

SEEDS = (0, 1, 2)


REGIMES = {
    # name: the net's settings (make_mnist1d_net), and whether to also train on
    # the clean labels and on the oracle's labels
    "small CNN, 30 epochs": dict(
        net=dict(max_epochs=30, channels=32, lr=2e-3), extras=True
    ),
    "small CNN, 60 epochs": dict(
        net=dict(max_epochs=60, channels=32, lr=2e-3), extras=False
    ),
    "wide CNN, 60 epochs": dict(
        net=dict(max_epochs=60, channels=128, lr=1e-3), extras=False
    ),
}


def correction_precision(corrections, y_clean):
    """Per round: labels fixed, broken, and moved between wrong classes."""
    right_after = corrections["to"] == y_clean[corrections["sample"]]
    right_before = corrections["from"] == y_clean[corrections["sample"]]
    rows = []
    for round_index in np.unique(corrections["round"]):
        sel = corrections["round"] == round_index
        rows.append(
            {
                "epoch": int(round_index) + 1,
                "corrected": int(sel.sum()),
                "fixed": int(np.sum(right_after[sel] & ~right_before[sel])),
                "broke": int(np.sum(right_before[sel])),
                "wrong_to_wrong": int(np.sum(~right_after[sel] & ~right_before[sel])),
            }
        )
    return rows


def run_nets(
    output_dir,
    noise_type="I",
    noise_level=0.35,
    n_samples=10_000,
    *,
    regimes=None,
    seeds=SEEDS,
    posterior_epochs=20,
):
    """Run the comparison; write Markdown and JSON; return the Markdown.

    `regimes` (default :data:`REGIMES`), `seeds` and `posterior_epochs` (of the
    net that estimates η) exist so that a smoke test can run a tiny version.
    """
    regimes = REGIMES if regimes is None else regimes
    output = Path(output_dir)
    output.mkdir(parents=True, exist_ok=True)
    X, X_test, y, y_test = make_mnist1d(n_samples, seed=0)
    posterior = estimate_posterior(
        X,
        y,
        estimator=make_mnist1d_net(posterior_epochs),
        cv=5,
        random_state=np.random.RandomState(0),
    )
    results = []
    runs = [(regime, seed) for regime in regimes for seed in seeds]
    for regime, seed in tqdm(runs, desc="nets benchmark"):
        settings = regimes[regime]

        def fit_plain(labels, settings=settings, seed=seed):
            torch.manual_seed(seed)
            start = time.perf_counter()
            net = make_mnist1d_net(**settings["net"]).fit(X, labels)
            return net, time.perf_counter() - start

        noise = PMDNoise(noise_type, noise_level, random_state=seed)
        y_noisy = noise.corrupt(y, posterior)
        row = {"regime": regime, "seed": seed, "noise_rate": noise.noise_rate_}
        net, row["plain_fit_s"] = fit_plain(y_noisy)
        row["plain_acc"] = float(np.mean(net.predict(X_test) == y_test))
        row["plain_train_agreement"] = float(np.mean(net.predict(X) == y_noisy))
        start = time.perf_counter()
        plc = PLCClassifier(make_mnist1d_net(**settings["net"]), random_state=seed)
        plc.fit(X, y_noisy)
        row["PLC_fit_s"] = time.perf_counter() - start
        row["PLC_acc"] = float(np.mean(plc.predict(X_test) == y_test))
        row["PLC_warm_up"] = plc.warm_up_
        recovery = label_recovery_report(y, y_noisy, plc)
        row["purity_before"] = recovery["purity_before"]
        row["purity_after"] = recovery["purity_after"]
        row["precision"] = recovery["precision"] if recovery["n_changed"] else None
        row["per_epoch"] = correction_precision(plc.corrections_, y)
        if settings["extras"]:
            net, _ = fit_plain(y)
            row["clean_acc"] = float(np.mean(net.predict(X_test) == y_test))
            fixes_only = np.where(plc.labels_ == y, y, y_noisy)
            net, _ = fit_plain(fixes_only)
            row["fixes_only_acc"] = float(np.mean(net.predict(X_test) == y_test))
            row["fixes_only_purity"] = float(np.mean(fixes_only == y))
        results.append(row)

    def mean_std(rows, key):
        values = [r[key] for r in rows if r.get(key) is not None]
        if not values:
            return "–"
        values = 100 * np.array(values)
        return f"{values.mean():.1f} ± {values.std():.1f}"

    lines = [
        f"mnist1d (n_train={len(y)}), PMD Type-{noise_type} {int(100 * noise_level)}% "
        f"(η out of fold from the small CNN on clean labels), seeds {list(seeds)}; "
        "clean test accuracy (%). PLC with its defaults (warm-up chosen from the "
        "data). Plain train agreement: the plain net's training accuracy on the "
        "noisy labels (above their purity = memorising). Fixes only: a fresh plain "
        "net on the noisy labels with only PLC's right corrections applied (oracle).",
        "",
        "| regime | plain | PLC | Δ | fixes only (oracle) | clean labels "
        "| plain train agreement | PLC warm-up (epochs) | purity before → after "
        "| precision | PLC / plain fit time |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for regime in regimes:
        rows = [r for r in results if r["regime"] == regime]
        gain = 100 * np.mean([r["PLC_acc"] - r["plain_acc"] for r in rows])
        lines.append(
            f"| {regime} | {mean_std(rows, 'plain_acc')} | {mean_std(rows, 'PLC_acc')} "
            f"| {gain:+.1f} | {mean_std(rows, 'fixes_only_acc')} "
            f"| {mean_std(rows, 'clean_acc')} "
            f"| {mean_std(rows, 'plain_train_agreement')} "
            f"| {[r['PLC_warm_up'] for r in rows]} "
            f"| {100 * np.mean([r['purity_before'] for r in rows]):.1f}% → "
            f"{100 * np.mean([r['purity_after'] for r in rows]):.1f}% "
            f"| {mean_std(rows, 'precision')} "
            f"| {np.mean([r['PLC_fit_s'] / r['plain_fit_s'] for r in rows]):.2f} |"
        )
    lines += [
        "",
        f"Corrections per epoch, {next(iter(regimes))}, seed {seeds[0]} (fixed: "
        "wrong → right; broke: right → wrong):",
        "",
        "| epoch | corrected | fixed | broke | wrong → wrong |",
        "|---:|---:|---:|---:|---:|",
    ]
    for r in results[0]["per_epoch"]:
        lines.append(
            f"| {r['epoch']} | {r['corrected']} | {r['fixed']} | {r['broke']} "
            f"| {r['wrong_to_wrong']} |"
        )
    table = "\n".join(lines)
    (output / "nets.md").write_text(table + "\n")
    (output / "nets.json").write_text(json.dumps(results, indent=2) + "\n")
    return table
