"""Command line: ``python -m benchmarks {quick,speed,nets} [--output DIR]``."""

import argparse
import time
from pathlib import Path


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="sklearn-plc benchmarks (offline).",
    )
    parser.add_argument(
        "command",
        choices=["quick", "speed", "nets"],
        help="quick: Standard vs PLC vs clean labels under PMD noise, a table and a "
        "plot in about a minute; speed: the library's speed ratios; nets: a skorch "
        "1-D CNN on mnist1d, plain vs PLC, with per-epoch correction precision.",
    )
    parser.add_argument(
        "--output",
        default="results",
        help="folder for the Markdown, JSON and PNG outputs (default: results)",
    )
    args = parser.parse_args(argv)
    output = Path(args.output)
    start = time.perf_counter()
    if args.command == "quick":
        from .quick import run_quick

        print(run_quick(output / "quick"))
        print(f"\nWrote {output / 'quick'}/quick.md, quick.json and blobs.png")
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
