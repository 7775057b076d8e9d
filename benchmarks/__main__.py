"""Command line: ``python -m benchmarks COMMAND [options]``.

Commands: tables, quick, speed, nets, unseen, review, compare.
"""

import argparse
import json
import shlex
import sys
import time
import warnings
from contextlib import contextmanager
from pathlib import Path

COMMANDS = {
    "tables": "the paper's Tables 1–2 layout on offline data: Standard, PLC, cleanlab "
    "and clean labels over datasets × noise × seeds (the full grid takes "
    "16 to 45 minutes with --jobs 2, by the machine's load)",
    "quick": "a representative subset of `tables` (3 datasets × clean labels, PMD and "
    "PMD + uniform noise × 3 seeds) in a few minutes with --jobs 2 on 2 cores: the "
    "same as `tables --quick`",
    "speed": "the library's speed ratios",
    "nets": "a skorch 1-D CNN on mnist1d, plain vs PLC, in three regimes, with "
    "per-epoch correction precision",
    "unseen": "Standard vs PLC vs cleanlab on datasets and models the tables never "
    "use (9 model families × 4 datasets × clean labels and 3 noises × seeds 100–102; "
    "about 20 minutes with --jobs 2 for all of them): a check that the defaults carry "
    "over, not a place to choose them",
    "compare": "two .json logs of one tables, quick or unseen command, run by "
    "run: PLC's paired change (mean ± standard error, runs moved) and each side's "
    "cell figures, to read a change on the development protocol",
    "review": "what reviewing labels buys: test accuracy after 25 to 400 labels "
    "reviewed by a simulated reviewer in batches, each from the last refit's order "
    "(PLC's, cleanlab's) or a random one "
    "(8 datasets × forest, boosting, MLP × 2 noises × 3 seeds: several hours with "
    "--jobs 2; choose a subset with --datasets, --models, --noises, --seeds)",
}


# The options each command reads (its --help lists these only)
_GRID = ("--datasets", "--noises", "--seeds", "--plc", "--jobs")
COMMAND_OPTIONS = {
    "tables": (*_GRID, "--quick", "--methods", "--dev"),
    "quick": (*_GRID, "--methods", "--dev"),
    "speed": (),
    "nets": (),
    "unseen": (*_GRID, "--models", "--dev"),
    "compare": (),
    "review": (
        "--datasets",
        "--noises",
        "--seeds",
        "--jobs",
        "--models",
        "--dev",
        "--orders",
    ),
}


def _parser():
    from . import review, unseen
    from .tables import DATASETS, NOISE_CELLS

    # the options every command takes; each command's --help describes it
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--output",
        default="results",
        help="folder for the Markdown, JSON and PNG outputs (default: results)",
    )

    def add_options(subparser, names, command):
        """The grid options that `names` lists, in one group of `subparser`."""
        grid = subparser.add_argument_group("what to run")
        if "--quick" in names:
            grid.add_argument(
                "--quick",
                action="store_true",
                help="the representative subset (the README's main job)",
            )
        if "--datasets" in names:
            grid.add_argument(
                "--datasets",
                nargs="+",
                choices=list(
                    dict.fromkeys(
                        (
                            *DATASETS,
                            *unseen.DATASETS,
                            *unseen.FRESH_DATASETS,
                            *unseen.RARE_DATASETS,
                            *unseen.DEV_DATASETS,
                            *unseen.RARE_DEV_DATASETS,
                            *review.DATASETS,
                        )
                    )
                ),
                help="datasets to run (default: all of the command's own; unseen's "
                "second check, run only when named: "
                f"{' '.join(unseen.FRESH_DATASETS)}, whose noises default to "
                f"{' '.join(unseen.FRESH_NOISES)}; its rare-class check: "
                f"{' '.join(unseen.RARE_DATASETS)}, whose noises default to "
                f"{' '.join(unseen.RARE_NOISES)}; its development sets (--dev): "
                f"{' '.join(unseen.DEV_DATASETS)} ({' '.join(unseen.DEV_NOISES)}) "
                f"and {' '.join(unseen.RARE_DEV_DATASETS)} "
                f"({' '.join(unseen.RARE_DEV_NOISES)}))",
            )
        if "--noises" in names:
            grid.add_argument(
                "--noises",
                nargs="+",
                choices=list(
                    dict.fromkeys(
                        (
                            *NOISE_CELLS,
                            *unseen.NOISES,
                            *unseen.FRESH_NOISES,
                            *unseen.RARE_NOISES,
                            *unseen.RARE_DEV_NOISES,
                            *review.NOISES,
                        )
                    )
                ),
                help="noise cells: PMD type and level (I-35, …, III-70) or PMD 35%% + "
                "uniform 30/60%% or asymmetric 30%% (I+U30, …, III+A30); default: all. "
                "clean: no noise (the labels as drawn); "
                "unseen: clean, I-35, III-35 and U30 (uniform 30%%); P30: 30%% of "
                "class 1 labelled 0; U20: uniform 20%%",
            )
        if "--seeds" in names:
            grid.add_argument(
                "--seeds",
                nargs="+",
                type=int,
                help="seeds (default: 0 1 2; unseen: 100 101 102; --dev: 100 101 102)",
            )
        if "--models" in names:
            grid.add_argument(
                "--models",
                nargs="+",
                choices=list(unseen.MODELS),
                help="model families to run (default: unseen's all; review's "
                f"{' '.join(review.MODELS)})",
            )
        if "--orders" in names:
            grid.add_argument(
                "--orders",
                nargs="+",
                choices=[*review.ORDERS, *review.EXTRA_ORDERS],
                help="review orders to compare (default: "
                f"{' '.join(review.ORDERS)}; PLC and cleanlab's are needed for the "
                "target lines)",
            )
        if "--methods" in names:
            grid.add_argument(
                "--methods",
                nargs="+",
                choices=["Standard", "PLC", "cleanlab"],
                help="methods besides the clean-label bound (default: all three)",
            )
        if "--dev" in names:
            grid.add_argument(
                "--dev",
                action="store_true",
                help=(
                    "the development sets, two-class and rare-class (default "
                    f"datasets {' '.join(unseen.DEV_DATASETS)} "
                    f"{' '.join(unseen.RARE_DEV_DATASETS)}"
                    f", seeds {' '.join(map(str, unseen.DEV_SEEDS))}): choose settings "
                    "here and on `tables --dev`, never on the check's own datasets"
                    if command == "unseen"
                    else "the development protocol: split 1 and seeds 100 101 102 "
                    "(choose settings here, never on the reported split 0 and seeds "
                    "0 1 2)"
                ),
            )
        if "--plc" in names:
            grid.add_argument(
                "--plc",
                nargs="+",
                default=[],
                metavar="NAME=VALUE",
                help="override PLCClassifier parameters, e.g. --plc theta=0.2 "
                "confidence=in_sample (values parsed as JSON, else kept as text)",
            )
        if "--jobs" in names:
            grid.add_argument(
                "--jobs",
                type=int,
                default=1,
                help="runs in parallel (processes; torch threads are split "
                "between them)",
            )

    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="sklearn-plc benchmarks (offline). Commands: "
        + "; ".join(f"{name}: {text}" for name, text in COMMANDS.items())
        + ". `python -m benchmarks COMMAND --help` describes one command.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, text in COMMANDS.items():
        subparser = commands.add_parser(
            name,
            parents=[] if name == "compare" else [common],
            help=text,
            description=f"python -m benchmarks {name}: {text}.",
        )
        add_options(subparser, COMMAND_OPTIONS[name], name)
        if name == "compare":
            subparser.add_argument("before", help="the log before the change")
            subparser.add_argument("after", help="the log after it")
    return parser


def _parse_plc_params(pairs):
    params = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"--plc takes NAME=VALUE pairs; got {pair!r}.")
        try:
            params[name] = json.loads(value)
        except json.JSONDecodeError:
            params[name] = value
    return params


def _check_known(args, datasets, noises):
    """Exit with a clear message for a dataset or noise the command does not have."""
    for name, chosen, known in (
        ("--datasets", args.datasets, datasets),
        ("--noises", args.noises, noises),
    ):
        unknown = sorted(set(chosen or ()) - set(known))
        if unknown:
            raise SystemExit(
                f"{args.command}: {name} {' '.join(unknown)} not known to this "
                f"command; choose from {' '.join(known)}."
            )


@contextmanager
def worker_restarts_unannounced():
    """Within the block, loky's notice of a restarted worker is not shown.

    joblib's process pool (loky) restarts a worker whose memory has grown by
    more than 300 MB since its first task, taking that for a leak; a net's
    cell loads torch's libraries and grows a worker by as much. The pool
    then warns that "a worker stopped while some jobs were given to the
    executor" and gives the next task to a new worker: no run is lost, and
    the warning would be the only text of a benchmark's output that asks for
    something to be fixed.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore",
            message="A worker stopped while some jobs were given to the executor",
            category=UserWarning,
        )
        yield


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser().parse_args(argv)
    with worker_restarts_unannounced():
        _run(args, argv)


def _run(args, argv):
    """Run the command `args` parsed from `argv`."""
    if args.command == "compare":
        from .compare import compare_logs

        print(compare_logs(args.before, args.after))
        return
    output = Path(args.output)
    start = time.perf_counter()
    if args.command in ("tables", "quick"):
        from .tables import (
            DATASETS,
            DEV_SEEDS,
            DEV_SPLIT,
            METHODS,
            NOISE_CELLS,
            QUICK,
            SEEDS,
            run_tables,
        )

        _check_known(args, DATASETS, NOISE_CELLS)
        quick = args.command == "quick" or args.quick
        folder = output / (
            ("quick" if quick else "tables") + ("-dev" if args.dev else "")
        )
        defaults = QUICK if quick else {}
        markdown = run_tables(
            folder,
            datasets=args.datasets or defaults.get("datasets"),
            noises=tuple(args.noises or defaults.get("noises", NOISE_CELLS)),
            seeds=tuple(args.seeds or (DEV_SEEDS if args.dev else SEEDS)),
            methods=tuple(args.methods or METHODS),
            jobs=args.jobs,
            command="python -m benchmarks " + shlex.join(argv),
            split=DEV_SPLIT if args.dev else 0,
            plc_params=_parse_plc_params(args.plc),
        )
        print(markdown)
        print(f"\nWrote {folder}/tables.md, tables.json and gains.png")
    elif args.command == "unseen":
        from .unseen import (
            DATASETS,
            DEV_DATASETS,
            DEV_NOISES,
            DEV_SEEDS,
            FRESH_DATASETS,
            FRESH_NOISES,
            MODELS,
            NOISES,
            RARE_DATASETS,
            RARE_DEV_DATASETS,
            RARE_DEV_NOISES,
            RARE_NOISES,
            SEEDS,
            default_noises,
            run_unseen,
        )

        _check_known(
            args,
            {
                **DATASETS,
                **FRESH_DATASETS,
                **RARE_DATASETS,
                **DEV_DATASETS,
                **RARE_DEV_DATASETS,
            },
            (*NOISES, *FRESH_NOISES, *RARE_NOISES, *DEV_NOISES, *RARE_DEV_NOISES),
        )
        folder = output / ("unseen-dev" if args.dev else "unseen")
        if args.noises:
            noises = tuple(args.noises)
        elif args.dev:
            noises = None  # each development set its own group's
        else:
            noises = default_noises(args.datasets)
        datasets = args.datasets or (
            (*DEV_DATASETS, *RARE_DEV_DATASETS) if args.dev else DATASETS
        )
        print(
            run_unseen(
                folder,
                models=tuple(args.models or MODELS),
                datasets=tuple(datasets),
                noises=noises,
                seeds=tuple(args.seeds or (DEV_SEEDS if args.dev else SEEDS)),
                plc_params=_parse_plc_params(args.plc),
                jobs=args.jobs,
                command="python -m benchmarks " + shlex.join(argv),
            )
        )
        print(f"\nWrote {folder}/unseen.md and unseen.json")
    elif args.command == "review":
        from . import review

        _check_known(args, review.DATASETS, review.NOISES)
        folder = output / ("review-dev" if args.dev else "review")
        orders = tuple(args.orders or review.ORDERS)
        missing = {"PLC", "cleanlab", "random"} - set(orders)
        if missing:
            raise SystemExit(
                f"review: --orders needs {' '.join(sorted(missing))} for the target "
                "lines; add them."
            )
        print(
            review.run_review(
                folder,
                datasets=tuple(args.datasets or review.DATASETS),
                models=tuple(args.models or review.MODELS),
                noises=tuple(args.noises or review.NOISES),
                seeds=tuple(
                    args.seeds or (review.DEV_SEEDS if args.dev else review.SEEDS)
                ),
                split=review.DEV_SPLIT if args.dev else 0,
                orders=orders,
                jobs=args.jobs,
                command="python -m benchmarks " + shlex.join(argv),
            )
        )
        print(f"\nWrote {folder}/review.md, review.json and review.png")
    elif args.command == "nets":
        from .nets_accuracy import run_nets

        print(run_nets(output / "nets"))
        print(f"\nWrote {output / 'nets'}/nets.md and nets.json")
    else:
        from .speed import format_speed_table, run_speed

        table = format_speed_table(run_speed())
        output.mkdir(parents=True, exist_ok=True)
        (output / "speed.md").write_text(table + "\n")
        print(table)
        print(f"\nWrote {output / 'speed.md'}")
    print(f"Done in {time.perf_counter() - start:.0f} s.")


if __name__ == "__main__":
    main()
