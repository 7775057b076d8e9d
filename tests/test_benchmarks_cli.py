import json

import pytest

pytest.importorskip("matplotlib")

from benchmarks.__main__ import main


def test_quick_benchmark_writes_a_table_results_and_a_plot(tmp_path, capsys):
    # The README's main job: guard it against regressions.
    main(["quick", "--output", str(tmp_path)])
    folder = tmp_path / "quick"
    table = (folder / "quick.md").read_text()
    assert "| blobs-2d |" in table and "| digits |" in table
    runs = json.loads((folder / "quick.json").read_text())
    assert {run["dataset"] for run in runs} == {"blobs-2d", "digits"}
    assert all(0 <= run["PLC_acc"] <= 1 for run in runs)
    assert (folder / "blobs.png").read_bytes()[:4] == b"\x89PNG"
    assert "Standard" in capsys.readouterr().out
