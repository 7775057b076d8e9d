import json

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("skorch")
pytest.importorskip("mnist1d")

from benchmarks.nets_accuracy import correction_precision, run_nets


def test_nets_benchmark_reports_every_regime_and_the_oracle_ceiling(tmp_path):
    regimes = {
        "tiny, with extras": dict(
            net=dict(max_epochs=4, channels=4, lr=3e-3), extras=True
        ),
        "tiny": dict(net=dict(max_epochs=4, channels=4, lr=3e-3), extras=False),
    }
    table = run_nets(
        tmp_path,
        noise_level=0.15,  # reachable with the weak posterior of a 3-epoch net
        n_samples=1_000,
        regimes=regimes,
        seeds=(0,),
        posterior_epochs=3,
    )
    rows = json.loads((tmp_path / "nets.json").read_text())
    assert [row["regime"] for row in rows] == list(regimes)
    assert "fixes_only_acc" in rows[0] and "fixes_only_acc" not in rows[1]
    # the oracle applies only right corrections, so its purity is at least PLC's
    assert rows[0]["fixes_only_purity"] >= rows[0]["purity_after"]
    assert all(f"| {name} |" in table for name in regimes)
    assert (tmp_path / "nets.md").read_text().strip() == table.strip()


def test_correction_precision_counts_fixed_broken_and_wrong_to_wrong():
    corrections = {
        "round": np.array([3, 3, 3, 4]),
        "sample": np.array([0, 1, 2, 3]),
        "from": np.array([1, 0, 2, 1]),
        "to": np.array([0, 1, 1, 0]),
    }
    y_clean = np.array([0, 0, 0, 0])  # fixed, broke, wrong → wrong; fixed
    assert correction_precision(corrections, y_clean) == [
        {"epoch": 4, "corrected": 3, "fixed": 1, "broke": 1, "wrong_to_wrong": 1},
        {"epoch": 5, "corrected": 1, "fixed": 1, "broke": 0, "wrong_to_wrong": 0},
    ]
