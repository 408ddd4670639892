"""Fingerprints of traces: a refactoring or a speed change must not change what a mechanism does.

Prints the golden fingerprints that ``tests/golden/test_golden.py`` checks: every mechanism on
every bundled scenario (at its V_max) and on two seeded agent streams, each the SHA-256 of the
canonical results of the run (operations, added and removed elements with μ, reasons, Σμ,
|π(ω_t)| and π(ω_t) at every step), independent of the trace file's layout.

    python benchmarks/fingerprint.py > before.txt   # … change the code …
    python benchmarks/fingerprint.py | diff before.txt -
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import _common as common  # noqa: E402

common.offline_tiktoken()
common.forbid_network()

from golden.canonical import all_fingerprints  # noqa: E402


def main() -> int:
    for key, value in all_fingerprints().items():
        print(f"{key:<28} {value}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
