"""load_transcript's cost on a large Claude Code session, as a ratio to decoding its JSON Lines alone.

A long Claude Code session file holds tens of thousands of records. Reading one
with :func:`stmviz.scenarios.load_transcript` decodes every line (the lower
bound: ``decode_json_lines`` of the same bytes), follows the parentUuid chain,
joins replies written one record per block, and cuts the messages into steps
by the chat-log rules. The stream: the bundled ``claude_code_session``
repeated ``--copies`` times into one chain (fresh uuids, call ids and message
ids per copy; its compaction, sidechain and abandoned branch repeated too).

Usage: python benchmarks/transcripts.py [--copies 200] [--repeat 3]
Prints records, megabytes, the best time of each and the ratio; writes
``benchmarks/results/transcripts.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.append(str(Path(__file__).resolve().parent.parent))

import _common as common  # noqa: E402
from stmviz.core.errors import FormatError  # noqa: E402
from stmviz.io.jsonio import decode_json_lines  # noqa: E402
from stmviz.scenarios import example_transcript, load_transcript  # noqa: E402


def long_session(copies: int) -> str:
    """The bundled session repeated ``copies`` times as one chain, every id made unique per copy."""
    records = [json.loads(line) for line in example_transcript("claude_code_session").read_text(encoding="utf-8").splitlines()]
    lines: list[str] = []
    last: str | None = None
    for k in range(copies):
        text = json.dumps(records)
        for old in {r["uuid"] for r in records if "uuid" in r}:
            text = text.replace(old, f"{old}-{k}")
        for word in ("toolu_", "msg_01", "req_01"):
            text = text.replace(word, f"{word}{k}x")
        copy = json.loads(text)
        first = next(r for r in copy if r.get("type") == "user")
        first["parentUuid"] = last  # the copies form one chain
        last = next(r["uuid"] for r in reversed(copy) if r.get("type") == "assistant" and not r.get("isSidechain"))
        lines.extend(json.dumps(r, ensure_ascii=False) for r in copy)
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    text = long_session(args.copies)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "session.jsonl"
        path.write_text(text, encoding="utf-8")
        raw = path.read_bytes()
        decode = common.timed(lambda: decode_json_lines(raw, path.name, FormatError), args.repeat)
        load = common.timed(lambda: load_transcript(path), args.repeat)
    scenario = load.result
    row = {"records": text.count("\n"), "MB": len(raw) / 1e6, "steps": len(scenario.steps),
           "decode_s": min(decode.runs), "load_s": min(load.runs), "ratio": min(load.runs) / min(decode.runs)}
    print(common.machine_line())
    print(common.table([row], list(row), "load_transcript against decoding the JSON Lines alone"))
    print(f"results: {common.write_json('transcripts', {'rows': [row]})}")


if __name__ == "__main__":
    main()
