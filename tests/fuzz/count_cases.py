"""Run the fuzz suite once in record mode and count its cases and verdicts by entry point.

Usage (from the repository root)::

    PYTHONPATH=$PWD python tests/fuzz/count_cases.py            # the table
    PYTHONPATH=$PWD python tests/fuzz/count_cases.py --details  # and every distinct failure
    PYTHONPATH=$PWD python tests/fuzz/count_cases.py tests/fuzz/test_fuzz_viz.py   # one module

In record mode (``STMVIZ_FUZZ_RECORD``) no case fails and hypothesis does not
shrink, so every entry point runs exactly its ``max_examples`` cases; each
verdict (returned / STMError / user error / other / hang / mutated, see ``_harness.py``) is
counted as it happened, nothing here is typed in by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

KINDS = ("returned", "STMError", "user error", "other", "hang", "mutated")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[str(Path(__file__).parent)])
    parser.add_argument("--details", action="store_true", help="list each distinct non-STMError failure")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        record = Path(folder) / "verdicts.jsonl"
        env = {**os.environ, "STMVIZ_FUZZ_RECORD": str(record)}
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                        "--continue-on-collection-errors", *args.paths],
                       env=env, check=False, stdout=subprocess.DEVNULL)
        rows = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()] if record.exists() else []
    counts: dict[str, Counter] = defaultdict(Counter)
    failures: dict[str, Counter] = defaultdict(Counter)
    examples: dict[tuple[str, str], dict] = {}
    for row in rows:
        counts[row["entry"]][row["verdict"]] += 1
        if row["verdict"] not in ("returned", "STMError", "user error"):
            key = f'{row["verdict"]}: {row["detail"]}'
            failures[row["entry"]][key] += 1
            examples.setdefault((row["entry"], key), row["arguments"])
    header = ["entry point", "cases", *KINDS]
    table = [[name, sum(c.values()), *(c[k] for k in KINDS)] for name, c in counts.items()]
    total = Counter()
    for c in counts.values():
        total.update(c)
    table.append(["TOTAL", sum(total.values()), *(total[k] for k in KINDS)])
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for line in table:
            print("| " + " | ".join(str(v) for v in line) + " |")
    else:
        width = max(len(str(line[0])) for line in [header, *table])
        print(f"{header[0]:<{width}}  " + "  ".join(f"{h:>10}" for h in header[1:]))
        for line in table:
            print(f"{line[0]:<{width}}  " + "  ".join(f"{v:>10}" for v in line[1:]))
    if args.details:
        for name, found in failures.items():
            print(f"\n{name}:")
            for key, n in found.most_common():
                print(f"  {n:>3} × {key}\n        e.g. {examples[(name, key)]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
