"""The ``stmviz`` command.

``stmviz lab``
    Start JupyterLab on the tutorial notebooks, opening the start page ``start.ipynb`` (the course in English and in Russian).
``stmviz demo`` (also plain ``python -m stmviz``)
    Run a small built-in demo and print its trace as a table.
``stmviz scenarios``
    List the bundled scenarios.
``stmviz replay FILE --mechanism fifo [--v-max 2048] [--oversize truncate]``
    Replay a bundled scenario, a scenario file or a transcript through a
    mechanism. V_max is the scenario's own, else the largest context the
    transcript records (a recorded compaction's size), else one the transcript
    fits (twice its largest step with Q, rounded up to a power of two, at least
    1,024); ``--v-max`` sets it, and ``--oversize`` (FIFO's policy: ``error``,
    ``skip``, ``truncate``) says what to do with a message larger than V_max.
    For a transcript, replay prints what reading it kept, left out and guessed
    (:class:`~stmviz.scenarios.TranscriptReport`), and where the recorded system
    compacted beside what the mechanism removed. A transcript — a Claude Code session, an Anthropic Messages
    request or response, OpenAI chat messages or Responses / Agents SDK items,
    OpenTelemetry GenAI spans, LangChain messages, an AgentFold log — is
    recognised from its records (``--format`` names it instead) and read with
    :func:`stmviz.scenarios.load_transcript`, in the conversation's order: each
    step holds an assistant turn (the model's output, produced from π(ω_t)) and
    then the user or tool messages that follow it.
``stmviz course student OUTDIR [--lang en|ru]``
    Write an nbgrader course folder from the notebooks' sources: the student
    version of every notebook (solutions removed, TODOs and checkers kept, a
    grade cell after each checker) and the instructor's version.
``stmviz course grade SUBMISSION.ipynb [--course OUTDIR] [--student ID]``
    Grade a submitted student version with nbgrader's autograder: a score per
    exercise, one point for each criterion its checker reports met.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:  # pragma: no cover - the command imports the package on use, for a fast --help
    from .core.mechanism import Mechanism
    from .scenarios import Scenario

START_NOTEBOOK = "start.ipynb"  # links to 00_start_here in each language

MECHANISMS = ("fifo", "scm", "hiagent", "agentfold")
DEFAULT_V_MAX = 1024  # for chat logs, which carry no capacity of their own


def _mechanism(kind: str, v_max: float, oversize: str | None = None) -> Mechanism:
    from . import StateSpace, sizes
    from . import mechanisms

    space = StateSpace(sizes.tokens(), v_max)
    if kind == "fifo":
        return mechanisms.FIFOWindow(space, oversize=oversize or "error")
    factory = {
        "scm": mechanisms.SCM,
        "hiagent": mechanisms.HiAgent,
        "agentfold": mechanisms.AgentFold,
    }[kind]
    return factory(space)


def _load(source: str, format: str | None = None) -> Scenario:
    """A bundled scenario by name, or a file: a scenario, or a transcript in any format load_transcript reads.

    A transcript's :class:`~stmviz.scenarios.TranscriptWarning` is not shown:
    replay prints the whole report instead.
    """
    import warnings

    from .scenarios import (
        TranscriptWarning,
        bundled_names,
        detect_format,
        load_scenario,
        load_transcript,
    )

    path = Path(source)
    if format is None and (source in bundled_names() or not os.path.lexists(path)):
        return load_scenario(source)  # a bundled name, or the error naming the bundled scenarios
    if format is None and path.is_file():
        format = detect_format(path)  # read as every file is: bounded, never from a pipe or a device
    if format in (None, "scenario"):
        return load_scenario(path)  # a folder, a pipe: load_scenario's own clear error
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        return load_transcript(path, format)


def default_v_max(scenario: Scenario) -> tuple[float, str]:
    """The V_max replay uses without ``--v-max``, and why.

    The scenario's own; else the largest context size at which the recorded
    system compacted (the capacity the transcript records), if the transcript
    fits it; else one the transcript fits: twice the tokens of its largest
    step with Q, rounded up to a power of two, and at least 1,024.
    """
    from .core.tokenizer import count_tokens
    from .scenarios import recorded_compactions

    if scenario.v_max is not None:
        return scenario.v_max, "the scenario's"
    largest = max((count_tokens(step.text) for step in scenario.steps), default=0) + count_tokens(scenario.query)
    fits = float(max(DEFAULT_V_MAX, 1 << max(0, (2 * largest - 1).bit_length())))
    recorded = [c.pre_tokens for c in recorded_compactions(scenario) if c.pre_tokens]
    if recorded and max(recorded) >= 2 * largest:
        return max(recorded), "the context size at which the recorded system compacted"
    return fits, f"one the transcript fits: its largest step with Q is {largest:,} tokens"


def demo(args: argparse.Namespace) -> int:
    """Replay the bundled tool-using chat through a small FIFO context window and print the trace."""
    from . import run
    from .core.formatting import plural

    scenario = _load(args.scenario, getattr(args, "format", None))
    if args.v_max is not None:
        v_max, why = args.v_max, "--v-max"
    else:
        v_max, why = default_v_max(scenario)
    oversize = getattr(args, "oversize", None)
    if oversize is not None and args.mechanism != "fifo":
        from .core.errors import InvalidArgumentError

        raise InvalidArgumentError(f"--oversize is FIFO's policy for a message larger than V_max; "
                                   f"drop it for --mechanism {args.mechanism}, or use --mechanism fifo")
    mechanism = _mechanism(args.mechanism, v_max, oversize)
    trace = run(mechanism, scenario)
    # agent text may hold lone surrogates ("cut \\ud83d"): _say shows them as U+FFFD, as an HTML export does
    _say(f"stmviz {args.command or 'demo'} — scenario {scenario.name!r} ({len(scenario.steps)} steps) through {mechanism}")
    if scenario.report is not None:
        for line in scenario.report.lines():
            _say(line)
        _say("")
    if why not in ("--v-max", "the scenario's"):
        _say(f"V_max = {v_max:g}: {why} (--v-max sets another).")
    _say(f"Ω_STM: μ = {trace.size_name}, V_max = {v_max:g}.  Each row is one pass of the Figure 1 loop:")
    _say("x_t = π(ω_t) → model output, then the input that arrives after it → c_t, o_t → ω_{t+1} = U(ω_t, o_t, c_t)\n")
    _say(trace.table(limit=args.limit))
    if args.limit is not None and len(trace) > args.limit:
        _say(f"… {len(trace) - args.limit} more steps (use --limit)")
    evicted = sum(len(step.removed) for step in trace)
    peak = max((step.size_after for step in trace), default=0)
    _say(f"\n{len(trace)} steps; peak Σμ = {peak:g} of V_max = {v_max:g}; {plural(evicted, 'element')} removed; "
          f"final |ω| = {len(trace.final)}.")
    for line in _compactions_beside(scenario, trace):
        _say(line)
    _say("Next: `stmviz lab` opens the notebooks that explain and animate this.")
    return 0


def _compactions_beside(scenario: Scenario, trace: Any) -> list[str]:
    """Where the recorded system compacted, beside the steps at which the mechanism removed elements."""
    from .scenarios import recorded_compactions

    recorded = recorded_compactions(scenario)
    if not recorded:
        return []
    removed = [t for t, step in enumerate(trace) if step.removed]
    shown = ", ".join(f"t={t}" for t in removed[:12]) + (f", … ({len(removed)} in all)" if len(removed) > 12 else "")
    lines = [f"The recorded system compacted {len(recorded)} time(s):"]
    lines += [f"  before the output of step t={c.t}: {c.label} [{c.where}]" for c in recorded]
    lines.append(f"  the mechanism removed elements at {shown}." if removed else "  the mechanism removed no element.")
    return lines


def _say(*parts: object, **kwargs: Any) -> None:
    """print(), with the encoding policy for people (stmviz.io.files.html_text) applied to the text."""
    from .io.files import html_text

    print(*(html_text(p if isinstance(p, str) else str(p)) for p in parts), **kwargs)


def replay(args: argparse.Namespace) -> int:
    """Replay a scenario or a chat log through a mechanism and print the trace: one row per step t."""
    return demo(args)


def list_scenarios_cmd(args: argparse.Namespace) -> int:
    """Print the bundled scenarios, one per line: name and title."""
    from .scenarios import list_scenarios

    for info in list_scenarios():
        print(f"{info.name:16} {info.title}")
    return 0


# ----------------------------------------------------------------- lab


def notebooks_source() -> Path | None:
    """Where the tutorial notebooks are: a source checkout's ``notebooks/``, or the installed copy."""
    here = Path(__file__).resolve().parent
    candidates = [here.parent / "notebooks", Path(sys.prefix) / "share" / "stmviz" / "notebooks"]
    for candidate in candidates:
        if (candidate / START_NOTEBOOK).is_file():
            return candidate
    return None


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK)


def prepare_notebooks(target: Path | None = None, *, dry_run: bool = False) -> Path:
    """The folder JupyterLab should open: the notebooks in place if writable, else a fresh user copy.

    Files already in the folder are never overwritten (a student's edits); each
    copy is written atomically. With ``dry_run`` nothing is created or copied:
    only what would be copied is printed.
    """
    from .core import guards
    from .io.files import as_path

    dry_run = guards.flag(dry_run, "dry_run", where="prepare_notebooks")
    target = None if target is None else as_path(target, "notebooks folder")
    source = notebooks_source()
    if source is None:
        raise SystemExit(
            "stmviz: the tutorial notebooks are not installed next to this stmviz "
            f"({Path(__file__).resolve().parent}); reinstall stmviz, or clone the repository and run "
            "`stmviz lab` from it"
        )
    if target is None and _writable(source) and (source.parent / "pyproject.toml").is_file():
        return source  # a source checkout: work on the notebooks in place
    target = target or Path.home() / "stmviz-notebooks"
    if target.exists() and not target.is_dir():  # what the disk holds at the path: the file system's rule
        from .core.errors import InvalidArgumentError

        raise InvalidArgumentError(f"{target}: is a file, not a folder; pass --dir a folder for the notebooks")
    if not dry_run:
        target.mkdir(parents=True, exist_ok=True)
    copied = _copy_missing(source, target, dry_run)
    verb = "would be copied" if dry_run else "copied"
    print(f"stmviz: notebooks are in {target}" + (f" ({copied} files {verb} from {source})" if copied else ""))
    return target


def _copy_missing(source: Path, target: Path, dry_run: bool) -> int:
    """Copy each file of ``source`` that ``target`` lacks (recursively), atomically; the number of files copied."""
    from .io.files import copy_file

    copied = 0
    for item in sorted(source.iterdir()):
        destination = target / item.name
        if item.is_dir():
            if destination.exists() and not destination.is_dir():
                continue
            if not dry_run:
                destination.mkdir(exist_ok=True)
            copied += _copy_missing(item, destination, dry_run)
        elif item.is_file() and not os.path.lexists(destination):  # never overwrite a student's edits
            if not dry_run:
                copy_file(item, destination, what="notebook")
            copied += 1
    return copied


def lab(args: argparse.Namespace, extra: Sequence[str]) -> int:
    """Start JupyterLab on the notebooks, opening the start page (links to the course in English and in Russian)."""
    try:
        import jupyterlab  # noqa: F401
    except ImportError:
        print(
            "stmviz: JupyterLab is not installed. Install it with\n"
            "    pip install 'stmviz[lab]'\n"
            "(or `pip install jupyterlab`), then run `stmviz lab` again.",
            file=sys.stderr,
        )
        return 1
    folder = prepare_notebooks(Path(args.dir) if args.dir else None, dry_run=args.dry_run)
    command = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={folder}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    if args.no_browser:
        command.append("--no-browser")
    if args.port:
        command.append(f"--port={args.port}")
    command.extend(extra)
    command.append(str(folder / START_NOTEBOOK))
    print("stmviz: starting", " ".join(command))
    if args.dry_run:
        return 0
    sys.stdout.flush()
    if os.name == "posix":
        # become JupyterLab: Ctrl-C and signals reach it directly, and no orphan server outlives us
        os.execv(sys.executable, command)
    try:  # pragma: no cover - Windows
        return subprocess.call(command)
    except KeyboardInterrupt:  # pragma: no cover - interactive
        return 0


# ----------------------------------------------------------------- course


def course_cmd(args: argparse.Namespace) -> int:
    """``stmviz course student|grade``: hand out the notebooks and grade them, through nbgrader (stmviz.course)."""
    from . import course

    if args.course_command == "student":
        released = course.make_course(args.outdir, args.lang, args.notebook or ())
        outdir = Path(args.outdir)
        print(f"stmviz: the course is in {outdir} (nbgrader's course folder, {len(released)} notebooks, lang={args.lang}):")
        print(f"  {outdir / 'release'}/NAME/NAME.ipynb  the student versions to hand out (TODOs, checkers, locked grade cells)")
        print(f"  {outdir / 'source'}/NAME/NAME.ipynb   the instructor's versions (reference solutions in ### BEGIN SOLUTION regions)")
        print(f"Grade a submission: stmviz course grade SUBMISSION.ipynb --course {outdir} --student ID")
        return 0
    from .core.i18n import language

    grades = course.grade(args.submission, args.course, student=args.student, lang=args.lang)
    where = f"in the course {args.course}" if args.course else "in a temporary course"
    _say(f"stmviz: {args.submission} graded by nbgrader {where} (student {args.student}); "
         "one point per criterion of each exercise's checker:")
    with language(args.lang):  # the score table in the course's language, as the checkers' reports above it
        _say(course.summary(grades) if grades else "(this notebook has no exercise)")
    return 0


def _v_max(text: str) -> float:
    """``--v-max``: a positive finite number of tokens (argparse says what is wrong otherwise)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; give the capacity in tokens, e.g. --v-max 2048") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"V_max must be a positive finite number of tokens, got {text}; e.g. --v-max 2048")
    return value


def _limit(text: str) -> int:
    """``--limit``: a whole number of steps ≥ 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of steps; e.g. --limit 20") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"the number of steps to print must be ≥ 0, got {value}; e.g. --limit 20")
    return value


def _port(text: str) -> int:
    """``--port``: a TCP port, 1 … 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number; e.g. --port 8888") from None
    if not 0 < value < 65536:
        raise argparse.ArgumentTypeError(f"a port is a number from 1 to 65535, got {value}")
    return value


def _formats() -> tuple[str, ...]:
    """The formats ``--format`` takes: those of stmviz.scenarios.load_transcript (kept in step by a test)."""
    return ("claude_code", "anthropic", "openai_chat", "openai_responses", "otel", "langchain", "swe_agent", "agentfold",
            "scenario")


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``stmviz`` command: ``lab``, ``demo``, ``replay``, ``scenarios`` and ``course``."""
    parser = argparse.ArgumentParser(prog="stmviz", description="See how an LLM agent's short-term memory works.")
    sub = parser.add_subparsers(dest="command")

    p_lab = sub.add_parser("lab", help="start JupyterLab on the tutorial notebooks (opens the start page: English and Russian)")
    p_lab.add_argument("--dir", help="copy the notebooks here and open them (default: in place, or ~/stmviz-notebooks)")
    p_lab.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p_lab.add_argument("--port", type=_port, default=None)
    p_lab.add_argument("--dry-run", action="store_true", help="print the command instead of starting JupyterLab (copies nothing)")

    for name, helptext in (("demo", "run the built-in demo and print its trace"),
                           ("replay", ("replay a scenario or a transcript (Claude Code, Anthropic, OpenAI, OpenTelemetry, "
                                       "LangChain, SWE-agent, AgentFold) through a mechanism"))):
        p = sub.add_parser(name, help=helptext)
        if name == "replay":
            p.add_argument("scenario", help="a bundled scenario name, a scenario file, or a transcript file")
            p.add_argument("--format", choices=_formats(), default=None,
                           help="the transcript's format (default: recognised from its records)")
        else:
            p.add_argument("--scenario", default="tool_chat", help="bundled scenario (default: tool_chat)")
        p.add_argument("--mechanism", choices=MECHANISMS, default="fifo")
        p.add_argument("--v-max", type=_v_max, default=None,
                       help="capacity V_max in tokens, > 0 (default: the scenario's, else the context the transcript "
                            f"records, else one it fits, at least {DEFAULT_V_MAX})")
        p.add_argument("--oversize", choices=("error", "skip", "truncate"), default=None,
                       help="FIFO's policy for a message larger than V_max (default: error)")
        p.add_argument("--limit", type=_limit, default=None, help="print at most this many steps (≥ 0)")

    sub.add_parser("scenarios", help="list the bundled scenarios")

    p_course = sub.add_parser("course", help="hand out the notebooks to students and grade them (nbgrader)")
    course_sub = p_course.add_subparsers(dest="course_command", required=True)
    p_student = course_sub.add_parser(
        "student", help="write an nbgrader course folder: the student and the instructor's version of every notebook")
    p_student.add_argument("outdir", help="the course folder (created if missing)")
    p_student.add_argument("--lang", choices=("en", "ru"), default="en", help="the notebooks' language (default: en)")
    p_student.add_argument("--notebook", action="append", metavar="NAME",
                           help="only this notebook (its number, e.g. 01, or a name); repeat for more (default: all)")
    p_grade = course_sub.add_parser("grade", help="grade a submitted student version: a score per exercise")
    p_grade.add_argument("submission", help="the notebook a student handed in")
    p_grade.add_argument("--course", default=None,
                         help="the course folder made by `stmviz course student`, whose gradebook records the grades "
                              "(default: a temporary course, forgotten afterwards)")
    p_grade.add_argument("--student", default="student", help="the student's id in the gradebook (default: student)")
    p_grade.add_argument("--lang", choices=("en", "ru"), default="en",
                         help="the language of the temporary course (without --course) and of the score table (default: en)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``stmviz`` command with ``argv`` (default: the process's arguments); return the exit status.

    Every error is one line on stderr, never a traceback: a deliberate error of
    stmviz (an :class:`~stmviz.core.errors.STMError`, such as a malformed
    scenario file), an error of the operating system (a file that cannot be
    read or written) or anything unexpected gives status 2; Ctrl-C gives 130.
    Set ``STMVIZ_DEBUG=1`` to see the traceback of an unexpected error.
    Bad options are argparse's: a usage line and status 2.
    """
    from .core.errors import STMError

    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help")):
        argv.insert(0, "demo")  # plain `python -m stmviz [options]` runs the demo
    args, extra = parser.parse_known_args(argv)
    if extra and args.command != "lab":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        if args.command == "lab":
            return lab(args, extra)
        if args.command == "scenarios":
            return list_scenarios_cmd(args)
        if args.command == "replay":
            return replay(args)
        if args.command == "course":
            return course_cmd(args)
        return demo(args)
    except KeyboardInterrupt:
        print("stmviz: interrupted", file=sys.stderr)
        return 130
    except STMError as exc:
        return _fail(str(exc))
    except OSError as exc:
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        return _fail(f"{where}{exc.strerror or exc}")
    except Exception as exc:  # a bug of stmviz: still one line (STMVIZ_DEBUG=1 shows the traceback)
        if os.environ.get("STMVIZ_DEBUG"):
            raise
        return _fail(f"unexpected error {type(exc).__name__}: {exc} (run with STMVIZ_DEBUG=1 for the traceback, and please report it)")


def _fail(message: str) -> int:
    """Print one error line (the first line of ``message`` and an indented rest) and return status 2."""
    try:
        print(f"stmviz: {message}", file=sys.stderr)
    except UnicodeEncodeError:  # a terminal that cannot show a character of the message
        print(f"stmviz: {message}".encode("ascii", "backslashreplace").decode("ascii"), file=sys.stderr)
    return 2
