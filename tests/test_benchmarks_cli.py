import json
import warnings

import numpy as np
import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("cleanlab")

from benchmarks import review
from benchmarks.__main__ import main, worker_restarts_unannounced
from benchmarks.tables import NOISE_CELLS, QUICK


def test_tables_cli_writes_markdown_json_and_a_plot_for_a_tiny_grid(tmp_path, capsys):
    main(
        [
            "tables",
            "--datasets",
            "blobs-2d",
            "wine",
            "--noises",
            "I-35",
            "II+U30",
            "--seeds",
            "0",
            "1",
            "--jobs",
            "2",
            "--output",
            str(tmp_path),
        ]
    )
    folder = tmp_path / "tables"
    results = json.loads((folder / "tables.json").read_text())
    cells = [run for run in results["runs"] if run["kind"] == "cell"]
    assert len(cells) == 2 * 2 * 2
    for run in cells:
        for method in ("Standard", "PLC", "cleanlab"):
            assert 0 <= run[method]["accuracy"] <= 1
        assert 0 <= run["PLC"]["purity_after"] <= 1
    assert {run["dataset"] for run in results["runs"] if run["kind"] == "clean"} == {
        "blobs-2d",
        "wine",
    }
    table = (folder / "tables.md").read_text()
    assert "| Type-I (35%) |" in table
    assert "| Type-II + 30% Uniform |" in table
    assert "PLC ≥ cleanlab in" in table
    assert "### Review lists" in table and "- Review lists: PLC's" in table
    for run in cells:
        for method in ("PLC", "cleanlab"):
            assert 0 <= run[method]["precision_at_50"] <= 1
        for method in ("Standard", "PLC", "cleanlab"):
            assert 0 <= run[method]["balanced_accuracy"] <= 1
    assert "- Balanced accuracy, mean gain over Standard on" in table
    # blobs-2d keeps its labels: no precision to report, a dash rather than "nan"
    assert "| nan |" not in table
    assert (folder / "gains.png").read_bytes()[:4] == b"\x89PNG"
    assert "Standard" in capsys.readouterr().out


def test_unreachable_noise_level_is_reported_not_lowered(tmp_path):
    from benchmarks.tables import _data, format_tables, run_cell

    _, _, y_train, _ = _data("wine")
    # Half the samples are not labelled with their most likely class, so PMD can
    # flip at most half of the labels.
    most_likely = np.where(np.arange(y_train.size) % 2 == 0, y_train, (y_train + 1) % 3)
    posterior = (most_likely[:, None] == [0, 1, 2]).astype(float)
    row = run_cell("wine", "I-70", 0, posterior, methods=("Standard",))
    assert "Standard" not in row
    assert row["unreachable"].startswith("largest reachable level is 0.5")
    meta = {
        "command": "c",
        "machine": "m",
        "python": "3",
        "jobs": 1,
        "date": "d",
        "wall_s": 0.0,
        "seeds": [0],
        "datasets": {"wine": "wine"},
        "noises": ["I-70"],
        "methods": ["Standard"],
    }
    assert "not reachable" in format_tables([row], meta)


def test_quick_subset_is_representative_and_names_known_cells():
    assert set(QUICK["noises"]) <= set(NOISE_CELLS)
    kinds = {NOISE_CELLS[noise].iid is None for noise in QUICK["noises"]}
    assert kinds == {True, False}  # one PMD row and one hybrid row


def _cell(dataset, noise, seed, standard, plc, cleanlab):
    row = {"kind": "cell", "dataset": dataset, "noise": noise, "seed": seed}
    row.update(noise_rate=0.35, pmd_above_half=0.3)
    for method, accuracy in (
        ("Standard", standard),
        ("PLC", plc),
        ("cleanlab", cleanlab),
    ):
        row[method] = {"accuracy": accuracy, "fit_s": 1.0}
    for key in ("purity_before", "purity_after", "precision", "recall", "damage"):
        row["PLC"][key] = 0.5
    row["cleanlab"].update(n_flagged=1, flagged_precision=1.0, flagged_recall=0.5)
    return row


def test_targets_count_pmd_cells_against_standard_and_all_cells_against_cleanlab():
    from benchmarks.tables import summarise, target_figures

    rows = [
        _cell("d", "I-35", 0, standard=0.80, plc=0.90, cleanlab=0.84),
        _cell("d", "I-35", 1, standard=0.80, plc=0.80, cleanlab=0.84),  # PLC mean 0.85
        _cell("d", "II-70", 0, standard=0.50, plc=0.40, cleanlab=0.30),
        _cell("d", "I+U30", 0, standard=0.60, plc=0.70, cleanlab=0.75),
    ]
    figures = target_figures(summarise(rows))
    assert figures["pmd_cells"] == 2
    assert figures["pmd_plc_ge_standard"] == 1
    assert figures["pmd_mean_gain"] == pytest.approx((0.05 - 0.10) / 2)
    assert figures["all_cells"] == 3
    assert figures["plc_ge_cleanlab"] == 2  # I-35 and II-70; not I+U30


def test_targets_count_cells_ahead_of_cleanlab_per_dataset():
    from benchmarks.tables import summarise, target_figures

    rows = [
        _cell("a", "I-35", 0, standard=0.80, plc=0.85, cleanlab=0.84),
        _cell("a", "III-35", 0, standard=0.80, plc=0.80, cleanlab=0.84),
        _cell("b", "I-35", 0, standard=0.80, plc=0.84, cleanlab=0.84),  # a tie
        _cell("b", "I-35-flip", 0, standard=0.80, plc=0.70, cleanlab=0.84),
    ]
    figures = target_figures(summarise(rows))
    assert figures["ahead_by_dataset"] == {"a": (1, 2), "b": (1, 1)}  # no stress


def test_targets_count_a_tie_with_cleanlab_as_ahead_whatever_the_float_order():
    from benchmarks.tables import summarise, target_figures

    scores = (29 / 54, 40 / 54, 36 / 54)  # the same scores in reverse order ...
    rows = [
        _cell("a", "I-35", seed, standard=0.5, plc=plc, cleanlab=cleanlab)
        for seed, (plc, cleanlab) in enumerate(zip(scores, scores[::-1], strict=True))
    ]
    assert np.mean(scores) < np.mean(scores[::-1])  # ... whose means differ by an ulp
    assert target_figures(summarise(rows))["plc_ge_cleanlab"] == 1


def _unseen_run(dataset, seed, plc, cleanlab, standard=0.5):
    """One logged run of ``benchmarks unseen`` (model "m", U30)."""
    return {
        "model": "m",
        "dataset": dataset,
        "noise": "U30",
        "seed": seed,
        "standard": standard,
        "plc": plc,
        "cleanlab": cleanlab,
        "purity_before": 0.7,
        "purity_after": 0.7,
        "standard_s": 1.0,
        "plc_s": 2.0,
        "cleanlab_s": 2.0,
        "termination": "converged",
        "undone": False,
    }


def test_unseen_counts_a_tie_with_cleanlab_as_ahead_whatever_the_float_order():
    from benchmarks.unseen import at_least, format_unseen, summarise

    standard = (0.6851851851851852, 0.6481481481481481, 0.4444444444444444)
    plc = (20 / 54, 20 / 54, 25 / 54)
    cleanlab = (  # the same gains over Standard, in another order
        plc[1] - standard[1] + standard[0],
        plc[2] - standard[2] + standard[1],
        plc[0] - standard[0] + standard[2],
    )
    rows = [
        _unseen_run("a", seed, plc[seed], cleanlab[seed], standard[seed])
        for seed in range(3)
    ]
    summary = summarise(rows)
    (cell,) = summary.values()
    assert cell["gain"] < cell["cleanlab_gain"]  # by float rounding alone
    assert at_least(cell["gain"], cell["cleanlab_gain"])
    report = format_unseen(
        summary, {"command": "unseen", "seeds": [0, 1, 2], "wall_s": 60}
    )
    assert "| all | 1 |" in report and "| 1 of 1 |" in report


def test_targets_without_plc_count_no_cell_ahead_of_cleanlab():
    from benchmarks.tables import summarise, target_figures

    row = _cell("a", "I-35", 0, standard=0.80, plc=0.85, cleanlab=0.84)
    del row["PLC"]  # --methods Standard cleanlab
    figures = target_figures(summarise([row]))
    assert figures["ahead_by_dataset"] == {}


def test_targets_give_cleanlabs_mean_gain_on_the_pmd_cells():
    from benchmarks.tables import summarise, target_figures

    rows = [
        _cell("d", "I-35", 0, standard=0.80, plc=0.90, cleanlab=0.84),
        _cell("d", "III-35", 0, standard=0.80, plc=0.80, cleanlab=0.78),
        _cell("d", "I+U30", 0, standard=0.60, plc=0.70, cleanlab=0.90),  # hybrid
    ]
    figures = target_figures(summarise(rows))
    assert figures["pmd_cleanlab_mean_gain"] == pytest.approx((0.04 - 0.02) / 2)


def test_corrected_cost_compares_the_runs_plc_corrects_with_cleanlab_on_them():
    from benchmarks.tables import corrected_cost

    def timed(dataset, termination, plc_s, cleanlab_s):
        row = _cell(dataset, "I-35", 0, standard=0.8, plc=0.8, cleanlab=0.8)
        row["PLC"].update(termination=termination, fit_s=plc_s)
        row["cleanlab"]["fit_s"] = cleanlab_s
        return row

    rows = [
        timed("d", "converged", 10.0, 6.0),
        timed("d", "corrections_contested", 14.0, 5.0),
        timed("d", "too_weak_to_judge", 2.0, 7.0),  # labels kept: not counted
        timed("digits", "converged", 1.0, 5.0),  # a net: not counted
    ]
    cost = corrected_cost(rows)
    assert cost["runs"] == 2
    assert cost["plc"] == pytest.approx(12.0)
    assert cost["cleanlab"] == pytest.approx(5.5)
    assert cost["every_run"] == pytest.approx(6.0)  # 1, 2, 10, 14


def test_cost_target_counts_only_runs_whose_plain_fit_takes_50_ms():
    from benchmarks.unseen import cost_against_cleanlab

    cost = cost_against_cleanlab(
        [
            (0.8, 0.5, 0.1),  # 8x against 5x
            (1.2, 0.5, 0.1),  # 12x against 5x
            (0.4, 0.1, 0.01),  # a 10 ms fit: 40x against 10x, not the target's
        ]
    )
    assert cost["runs"] == 3
    assert cost["plc"] == pytest.approx(12.0)
    assert cost["timed_runs"] == 2
    assert cost["timed_plc"] == pytest.approx(10.0)
    assert cost["timed_cleanlab"] == pytest.approx(5.0)


def test_cost_against_cleanlab_says_when_no_plain_fit_took_50_ms():
    from benchmarks.unseen import cost_against_cleanlab, cost_line

    cost = cost_against_cleanlab([(0.04, 0.02, 0.004)])
    assert cost["timed_runs"] == 0 and cost["timed_plc"] is None
    assert "no plain fit took 50 ms" in cost_line(cost)


def test_unseen_cost_leaves_out_kept_and_one_run_runs():
    from benchmarks.unseen import corrected_cost

    def run(termination, confidence, plc_s):
        return {
            "termination": termination,
            "confidence": confidence,
            "plc_s": plc_s,
            "cleanlab_s": 0.5,
            "standard_s": 0.1,
        }

    cost = corrected_cost(
        [
            run("converged", "cv", 0.7),
            run("not_memorising", "cv", 0.2),  # labels kept
            run("max_epochs", "eval_pass", 0.3),  # one run: its own target
        ]
    )
    assert cost["runs"] == 1
    assert cost["plc"] == pytest.approx(7.0)


def test_targets_count_stress_cells_on_their_own():
    from benchmarks.tables import summarise, target_figures

    rows = [
        _cell("d", "I-35", 0, standard=0.80, plc=0.796, cleanlab=0.7),
        _cell("d", "I-35-flip", 0, standard=0.80, plc=0.785, cleanlab=0.7),
        _cell("d", "II-35-flip", 0, standard=0.80, plc=0.795, cleanlab=0.7),
    ]
    figures = target_figures(summarise(rows))
    assert figures["pmd_cells"] == 1
    assert figures["all_within_half_point"] == 1
    assert figures["stress_cells"] == 2
    assert figures["stress_within_one_point"] == 1


def test_a_class_given_another_label_more_often_than_its_own_is_majority_wrong():
    from benchmarks.tables import majority_wrong_classes, noisy_confusion

    y_true = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 2])
    y_noisy = np.array([0, 1, 1, 1, 1, 0, 2, 2, 0, 1])  # class 0: 1 own, 2 as 1
    confusion = noisy_confusion(y_true, y_noisy, 3)
    assert confusion[0].tolist() == [1, 2, 0]
    assert majority_wrong_classes(confusion) == [0]  # class 2: 2 own, 1 and 1


def test_within_half_a_point_leaves_out_the_rows_where_a_noisy_majority_is_wrong():
    from benchmarks.tables import summarise, target_figures

    right = [[3, 1], [1, 3]]
    wrong = [[1, 3], [1, 3]]  # class 0 is mostly given label 1
    rows = [
        _cell("d", "I-35", 0, standard=0.80, plc=0.70, cleanlab=0.7),
        _cell("d", "I+U30", 0, standard=0.80, plc=0.70, cleanlab=0.7),
        _cell("d", "III-35", 0, standard=0.80, plc=0.80, cleanlab=0.7),
    ]
    for row, confusion in zip(rows, (right, wrong, right), strict=True):
        row["noisy_confusion"] = confusion
    figures = target_figures(summarise(rows))
    assert figures["all_within_half_point"] == 1
    assert figures["majority_right_cells"] == 2
    assert figures["majority_right_within_half_point"] == 1


def test_stress_cells_use_the_literal_scaling():
    from benchmarks.tables import NOISE_CELLS, STRESS_TABLE

    stress = [cell for cell in NOISE_CELLS.values() if cell.table == STRESS_TABLE]
    assert {cell.pmd_type for cell in stress} == {"I", "II", "III"}
    assert all(c.scaling == "flip" and c.pmd_level == 0.35 for c in stress)
    assert all(
        c.scaling == "keep" for c in NOISE_CELLS.values() if c.table != STRESS_TABLE
    )


def test_dev_split_is_another_split_of_the_same_data():
    from benchmarks.tables import DEV_SPLIT, _data

    reported, dev = _data("wine"), _data("wine", DEV_SPLIT)
    assert reported[0].shape == dev[0].shape
    assert not np.array_equal(reported[2], dev[2])


def test_unseen_cli_writes_a_table_of_standard_and_plc_per_cell(tmp_path):
    main(
        [
            "unseen",
            "--models",
            "naive-bayes",
            "--datasets",
            "breast_cancer",
            "--noises",
            "U30",
            "--seeds",
            "100",
            "--output",
            str(tmp_path),
        ]
    )
    results = json.loads((tmp_path / "unseen" / "unseen.json").read_text())
    (run,) = results["runs"]
    assert run["model"] == "naive-bayes" and run["seed"] == 100
    assert 0.6 < run["purity_before"] < 0.8  # 30% uniform noise
    table = (tmp_path / "unseen" / "unseen.md").read_text()
    assert "| naive-bayes | breast_cancer | U30 |" in table
    assert 0 <= run["plc_balanced"] <= 1 and 0 <= run["cleanlab_balanced"] <= 1
    assert "Balanced accuracy, mean Δ over 1 cells: PLC" in table


def test_unseen_runs_its_second_check_when_named(tmp_path):
    main(
        [
            "unseen",
            "--models",
            "naive-bayes",
            "--datasets",
            "hastie-2",
            "--noises",
            "I-25",
            "--seeds",
            "100",
            "--output",
            str(tmp_path),
        ]
    )
    (run,) = json.loads((tmp_path / "unseen" / "unseen.json").read_text())["runs"]
    assert run["dataset"] == "hastie-2" and run["noise"] == "I-25"
    assert "judge_margin" in run["memorisation"]


def test_unseen_second_check_and_rare_class_get_their_own_default_noises():
    from benchmarks.unseen import (
        FRESH_NOISES,
        NOISES,
        RARE_NOISES,
        default_noises,
    )

    assert default_noises(["hastie-2", "many-15"]) == FRESH_NOISES
    assert default_noises(["digits-rare"]) == RARE_NOISES
    assert default_noises(["hastie-2", "hard-4"]) == NOISES
    assert default_noises(None) == NOISES


def test_unseen_dev_sets_get_their_group_noises_each_in_one_grid():
    from benchmarks.unseen import DEV_NOISES, RARE_DEV_NOISES, grid

    runs = grid(("m",), ("moons-dev", "rare6-dev"), None, (100,))
    noises = {
        dataset: [n for d, _, n, _ in runs if d == dataset]
        for dataset in ("moons-dev", "rare6-dev")
    }
    assert noises == {"moons-dev": list(DEV_NOISES), "rare6-dev": list(RARE_DEV_NOISES)}


@pytest.mark.parametrize(
    ("name", "n_samples", "positives"),
    [
        ("binary-dev", 1500, 0.5),
        ("clusters-dev", 800, 0.5),
        ("moons-dev", 1200, 0.5),
        ("rare15-dev", 3000, 0.15),
        ("rare6-dev", 4000, 0.06),
    ],
)
def test_unseen_dev_sets_are_two_class_draws_of_their_stated_size(
    name, n_samples, positives
):
    from benchmarks.unseen import _load

    X, y = _load(name)
    assert X.shape[0] == n_samples
    assert set(np.unique(y)) == {0, 1}
    assert abs(np.mean(y) - positives) < 0.01


def test_unseen_dev_runs_three_seeds_of_a_named_dev_set(tmp_path):
    main(
        [
            "unseen",
            "--dev",
            "--models",
            "naive-bayes",
            "--datasets",
            "rare6-dev",
            "--noises",
            "U20",
            "--seeds",
            "100",
            "--output",
            str(tmp_path),
        ]
    )
    log = json.loads((tmp_path / "unseen-dev" / "unseen.json").read_text())
    (run,) = log["runs"]
    assert (run["dataset"], run["noise"]) == ("rare6-dev", "U20")
    assert run["purity_before"] == pytest.approx(0.8, abs=0.02)
    assert (
        "Rare class, balanced accuracy"
        in (tmp_path / "unseen-dev" / "unseen.md").read_text()
    )


def _write_log(path, runs):
    path.write_text(json.dumps({"meta": {}, "runs": runs}))
    return path


def test_compare_pairs_runs_by_cell_and_seed(tmp_path, capsys):
    before = _write_log(
        tmp_path / "before.json",
        [_unseen_run("a", seed, plc=0.70, cleanlab=0.71) for seed in range(4)],
    )
    moved = [_unseen_run("a", seed, plc=0.70, cleanlab=0.71) for seed in range(3)]
    moved.append(_unseen_run("a", 3, plc=0.74, cleanlab=0.71))
    moved.append(_unseen_run("b", 0, plc=0.90, cleanlab=0.71))  # not in before
    after = _write_log(tmp_path / "after.json", moved)
    main(["compare", str(before), str(after)])
    text = capsys.readouterr().out
    assert "Runs in both logs: 4" in text
    assert "+1.000 ± 1.000 (1 of 4 runs moved)" in text
    assert "after, noisy cells (1): PLC − Standard +21.00 a cell" in text


def test_compare_refuses_logs_that_share_no_run(tmp_path):
    before = _write_log(tmp_path / "before.json", [_unseen_run("a", 0, 0.7, 0.7)])
    after = _write_log(tmp_path / "after.json", [_unseen_run("b", 0, 0.7, 0.7)])
    with pytest.raises(SystemExit, match="share no run"):
        main(["compare", str(before), str(after)])


def test_unseen_counts_cleanlab_leads_beyond_the_seeds_spread():
    from benchmarks.unseen import paired_with_cleanlab, summarise

    rows = [
        # cleanlab ahead by 2 points in every seed: clearly
        *(
            _unseen_run("a", seed, 0.70 + seed / 100, 0.72 + seed / 100)
            for seed in range(3)
        ),
        # ahead on the mean, within the seeds' spread
        _unseen_run("b", 0, 0.70, 0.75),
        _unseen_run("b", 1, 0.70, 0.66),
        _unseen_run("b", 2, 0.70, 0.70),
        # PLC ahead
        *(_unseen_run("c", seed, 0.80, 0.70) for seed in range(3)),
    ]
    paired = paired_with_cleanlab(summarise(rows))
    assert paired == {
        "runs": 9,
        "ahead": 4,
        "level": 1,
        "behind": 4,
        "cells_behind": 2,
        "clearly_behind": 1,
    }


def test_a_dataset_of_another_command_is_rejected_with_its_choices(tmp_path):
    with pytest.raises(SystemExit, match="--datasets hard-4 not known to this command"):
        main(["tables", "--datasets", "hard-4", "--output", str(tmp_path)])


def test_the_cost_row_compares_plc_with_cleanlab_over_standard():
    from benchmarks.speed import _cost_ratio_row, format_speed_table

    runs = [
        {"standard_s": 1.0, "plc_s": 6.0, "cleanlab_s": 4.0},
        {"standard_s": 2.0, "plc_s": 10.0, "cleanlab_s": 10.0},
        {"standard_s": 1.0, "plc_s": 8.0, "cleanlab_s": 5.0},
    ]
    row = _cost_ratio_row("family", runs)
    assert row["ratio"] == 6.0 / 5.0 and row["met"]
    no_run = {**row, "ratio": float("nan"), "met": None}
    assert "| – |" in format_speed_table([no_run])


def test_a_table_whose_cells_a_dataset_does_not_run_is_left_out(tmp_path):
    # the forests run no Type-III + 30% Uniform cell: no empty "Table 2" for them
    grid = ["--datasets", "wine-rf", "--noises", "I-35", "III+U30", "--seeds", "0"]
    main(["tables", *grid, "--methods", "Standard", "--output", str(tmp_path)])
    table = (tmp_path / "tables" / "tables.md").read_text()
    assert "**Table 1: PMD noise**" in table
    assert "**Table 2: hybrid noise**" not in table


def test_a_commands_help_describes_that_command(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["quick", "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m benchmarks quick")
    assert "a representative subset of `tables`" in out


def test_the_noise_choices_name_each_cell_once():
    from benchmarks.__main__ import _parser

    subparsers = _parser()._subparsers._group_actions[0].choices
    (noises,) = [a for a in subparsers["unseen"]._actions if a.dest == "noises"]
    assert len(noises.choices) == len(set(noises.choices))


def test_review_figures_count_cells_where_plcs_list_is_at_least_as_precise():
    from benchmarks.tables import review_figures

    def cell(plc, cleanlab):
        return {
            **{f"PLC_precision_at_{k}": plc for k in (50, 100, 200)},
            **{f"cleanlab_precision_at_{k}": cleanlab for k in (50, 100, 200)},
        }

    summary = {("a", "I-35"): cell(0.9, 0.8), ("b", "I-35"): cell(0.5, 0.7)}
    summary[("c", "I-35")] = {"PLC_precision_at_50": 1.0}  # no cleanlab: not counted
    figures = review_figures(summary)
    assert figures["cells"] == 2 and figures[50] == figures[200] == 1


def test_the_clean_cell_trains_on_the_labels_as_drawn():
    from benchmarks.tables import CLEAN, CLEAN_TABLE

    y = np.array([0, 1, 2, 1])
    labels, rate, above_half = NOISE_CELLS[CLEAN].corrupt(y, None, 0)
    assert NOISE_CELLS[CLEAN].table == CLEAN_TABLE
    assert (labels == y).all() and labels is not y
    assert (rate, above_half) == (0.0, 0.0)


def test_targets_count_clean_cells_on_their_own():
    from benchmarks.tables import CLEAN, summarise, target_figures

    rows = [
        _cell("d", CLEAN, 0, standard=0.80, plc=0.78, cleanlab=0.79),
        _cell("e", CLEAN, 0, standard=0.80, plc=0.80, cleanlab=0.80),
        _cell("d", "I-35", 0, standard=0.60, plc=0.70, cleanlab=0.65),
    ]
    figures = target_figures(summarise(rows))
    assert figures["clean_cells"] == 2
    assert figures["clean_within_half_point"] == 1
    assert figures["clean_mean_gain"] == pytest.approx(-0.01)
    assert figures["clean_cleanlab_mean_gain"] == pytest.approx(-0.005)
    assert figures["all_cells"] == 1  # the clean cells are no Table 1-2 cell


def test_targets_count_noisy_cells_where_cleanlab_leads_by_more_than_a_point():
    from benchmarks.tables import summarise, target_figures

    rows = [
        _cell("d", "I-35", 0, standard=0.60, plc=0.70, cleanlab=0.72),
        _cell("d", "III-35", 0, standard=0.60, plc=0.70, cleanlab=0.705),
    ]
    figures = target_figures(summarise(rows))
    assert figures["cleanlab_ahead_by_a_point"] == 1
    assert figures["all_cleanlab_mean_gain"] == pytest.approx(0.1125)


def test_the_dev_sets_run_by_default_only_on_the_dev_split():
    from benchmarks.tables import DATASETS, DEV_SPLIT, default_datasets

    dev_only = {name for name, d in DATASETS.items() if d.dev_only}
    assert dev_only and not dev_only & set(default_datasets(0))
    assert dev_only <= set(default_datasets(DEV_SPLIT))


def test_unseen_counts_clean_cells_on_their_own():
    from benchmarks.unseen import CLEAN, clean_figures, format_unseen, summarise

    def run(noise, plc, cleanlab):
        return {
            "dataset": "d",
            "model": "m",
            "noise": noise,
            "seed": 0,
            "standard": 0.8,
            "plc": plc,
            "cleanlab": cleanlab,
            "standard_s": 1.0,
            "plc_s": 2.0,
            "cleanlab_s": 2.0,
            "purity_before": 1.0 if noise == CLEAN else 0.7,
            "purity_after": 0.9 if noise == CLEAN else 0.8,
            "termination": "converged",
            "undone": False,
        }

    clean_only = format_unseen(
        summarise([run(CLEAN, 0.79, 0.8)]), {"command": "c", "seeds": [0], "wall_s": 1}
    )
    assert "in 0 of 1 cells" in clean_only  # a clean-only run has no noisy rows
    summary = summarise([run(CLEAN, 0.79, 0.8), run("I-35", 0.9, 0.85)])
    figures = clean_figures(summary)
    assert figures["cells"] == 1 and figures["within_half_point"] == 0
    assert figures["mean_gain"] == pytest.approx(-1.0)
    assert figures["labels_changed"] == pytest.approx(10.0)
    markdown = format_unseen(summary, {"command": "c", "seeds": [0], "wall_s": 1})
    assert "Clean labels (no noise): PLC ≥ Standard − 0.5 in 0 of 1" in markdown
    assert "| all | 1 | +10.00 |" in markdown  # the noisy cell alone


@pytest.mark.parametrize("argv", [[], ["--help"], ["compare", "one.json"]])
def test_same_labels_explains_its_usage_instead_of_failing(argv, capsys):
    from benchmarks.same_labels import main as same_labels

    with pytest.raises(SystemExit) as exit_info:
        same_labels(argv)
    assert exit_info.value.code == (0 if argv == ["--help"] else 2)
    captured = capsys.readouterr()
    assert "usage: python -m benchmarks.same_labels" in captured.out + captured.err


@pytest.mark.parametrize(
    ("command", "absent"),
    [
        ("quick", "--quick"),
        ("speed", "--methods"),
        ("nets", "--seeds"),
        ("unseen", "--methods"),
        ("compare", "--seeds"),
        ("review", "--methods"),
    ],
)
def test_a_commands_help_lists_only_the_options_it_reads(command, absent, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert f"[{absent}" not in out and f"\n  {absent}" not in out  # usage, options


def test_the_tables_count_the_runs_the_check_on_halves_ran_and_undid():
    from benchmarks.tables import _halves_lines

    rows = [
        {"kind": "cell", "PLC": {"halves_undone": True}},
        {"kind": "cell", "PLC": {"halves_undone": False}},
        {"kind": "cell", "PLC": {}},
        {"kind": "clean"},
    ]
    assert _halves_lines(rows) == [
        "- Check on halves: run in 2 of 3 PLC runs (those whose result differs "
        "from a plain fit), undid 1."
    ]


def test_review_cli_writes_accuracy_after_each_k_per_order(tmp_path):
    main(
        [
            "review",
            "--models",
            "naive-bayes",
            "--datasets",
            "breast_cancer",
            "--noises",
            "U30",
            "--seeds",
            "100",
            "--output",
            str(tmp_path),
        ]
    )
    results = json.loads((tmp_path / "review" / "review.json").read_text())
    (run,) = results["runs"]
    assert set(run["after"]) == {"PLC", "cleanlab", "random"}
    assert all(
        len(values) == len(results["meta"]["ks"]) for values in run["after"].values()
    )
    # 398 training samples: reviewing 400 checks them all, so no wrong label is left
    assert run["wrong_reviewed"]["random"][-1] == round(398 * (1 - run["purity_given"]))
    table = (tmp_path / "review" / "review.md").read_text()
    assert "| breast_cancer | naive-bayes | U30 | PLC |" in table
    assert "Median reviews to reach clean-label accuracy" in table
    assert (tmp_path / "review" / "review.png").exists()
    cells = (tmp_path / "review" / "review_cells.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in cells] == results["runs"]


def test_the_review_loop_keeps_what_was_reviewed_and_takes_the_next_new_samples():
    reviewed = np.array([4, 1])
    order = np.array([1, 0, 4, 3, 2, 5])  # a refit's order, reviewed samples in it
    np.testing.assert_array_equal(
        review.reviewed_next(reviewed, order, 4), [4, 1, 0, 3]
    )


def review_entry(before, plc, cleanlab, random, clean=0.9):
    ks = (25, 50)
    after = {"PLC": plc, "cleanlab": cleanlab, "random": random}
    return {
        "before": before,
        "clean": clean,
        "after": after,
        "to_reach": {
            order: review._reviews_to_reach(values, ks, clean)
            for order, values in after.items()
        },
    }


def test_review_targets_count_pairs_where_plcs_order_leads_both():
    summary = {
        ("a", "m", "n"): review_entry(0.8, [0.85, 0.9], [0.85, 0.88], [0.86, 0.87]),
        ("b", "m", "n"): review_entry(0.8, [0.79, 0.82], [0.80, 0.81], [0.78, 0.8]),
    }
    figures = review.target_figures(summary, (25, 50))
    assert figures["pairs"] == 4
    assert figures["at_least_both"] == 2  # a at 50, b at 50
    assert figures["cells_without_loss"] == 1  # b falls 1 point below before
    assert figures["worst_loss"] == pytest.approx(-0.01)


def test_reviews_to_reach_clean_accuracy_is_the_first_k_within_a_point():
    assert review._reviews_to_reach([0.85, 0.895, 0.91], (25, 50, 100), 0.9) == 50
    assert review._reviews_to_reach([0.85, 0.86], (25, 50), 0.9) == np.inf


def test_a_pool_worker_restarted_for_its_memory_is_not_announced():
    loky_notice = (
        "A worker stopped while some jobs were given to the executor. This can be "
        "caused by a too short worker timeout or by a memory leak."
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with worker_restarts_unannounced():
            warnings.warn(loky_notice, UserWarning, stacklevel=1)
            warnings.warn("any other warning", UserWarning, stacklevel=1)
    assert [str(warning.message) for warning in caught] == ["any other warning"]
