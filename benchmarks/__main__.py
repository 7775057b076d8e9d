"""Command line: ``python -m benchmarks {quick,speed} [--output DIR]``."""

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
        choices=["quick", "speed"],
        help="quick: Standard vs PLC vs clean labels under PMD noise, a table and a "
        "plot in about a minute; speed: the library's speed ratios.",
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
