"""Keep stmviz's translations in step with its code: extract the marked sentences, update the catalogs, compile them.

    python scripts/i18n.py update     # the marked sentences of the code → each area's .po (new ones untranslated)
    python scripts/i18n.py compile    # every area's .po → stmviz/locale/<lang>/LC_MESSAGES/stmviz.mo
    python scripts/i18n.py check      # exit 1 if the .mo is stale or a sentence is untranslated (lists them)

A sentence is marked in the code with ``_("…")``, ``N_("…")``, ``gettext("…")`` or
``ngettext("…", "…", n)`` (see ``stmviz/core/i18n.py`` and ``docs/translating.md``).
The Russian catalog is kept in one ``.po`` file per area of the package (``AREAS``), so
that the translator of the exercises and the translator of the figures edit different
files; ``compile`` merges them into the one ``stmviz.mo`` that gettext reads at run time.
Babel (in the ``test`` extra) extracts and compiles; nothing here runs when stmviz is used.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "stmviz"
LOCALE = PACKAGE / "locale"
TRANSLATED = ("ru",)

#: area → the package paths whose sentences its .po holds (a sentence in two areas stays in the first)
AREAS: dict[str, tuple[str, ...]] = {
    # the checkers of notebooks 00–04, the report they share, the contract check, the course tools
    "checkers_a": ("exercises/checking.py", "exercises/predicting.py", "exercises/start.py",
                   "exercises/state_space.py", "exercises/mechanism.py", "exercises/fifo.py", "exercises/scm.py",
                   "contract.py", "course.py"),
    # the checkers of notebooks 05–11
    "checkers_b": ("exercises",),
    # what is drawn and tabled: figures, players, a trace's words and tables
    "figures": ("viz", "widgets", "core/formatting.py", "tables.py"),
    # what the mechanisms and managers record (their reasons), and the rest of the package
    "mechanisms": ("mechanisms", "managers", "text", "forgetting.py", "metrics.py", "scenarios", "core",
                   "protocol.py", "sweep.py", "cli.py", "locomo_eval.py"),
}
HEADER = """\
# stmviz in Russian: the sentences of the area '{area}' (stmviz/{paths}).
# Write each msgstr with the paper's terms (notebooks/ru/GLOSSARY.md); keep every {{placeholder}} as it is.
# docs/translating.md says how; then: python scripts/i18n.py compile"""
KEYWORDS = {"_": None, "N_": None, "gettext": None, "ngettext": (1, 2)}
#: fixed dates, so that compiling the same catalogs writes the same bytes
STAMP = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _area_of(relative: str) -> str | None:
    for area, paths in AREAS.items():
        if any(relative == p or relative.startswith(p + "/") for p in paths):
            return area
    return None


def extracted() -> dict[str, Catalog]:
    """Each area's template: the sentences marked in its files, with where they stand."""
    templates = {area: Catalog(project="stmviz", domain="stmviz", creation_date=STAMP) for area in AREAS}
    seen: set[object] = set()
    found = extract_from_dir(str(PACKAGE), method_map=[("**.py", "python")], keywords=KEYWORDS,
                             comment_tags=("Translators:",), strip_comment_tags=True)
    for filename, lineno, message, comments, context in sorted(found, key=lambda f: (_area_key(f[0]), f[0], f[1])):
        area = _area_of(filename)
        if area is None:
            raise SystemExit(f"stmviz/{filename} marks a sentence for translation but is in no area: add it to AREAS")
        key = message[0] if isinstance(message, tuple) else message
        if not key:
            continue
        if key in seen and key not in templates[area]:
            continue  # kept in the first area that uses it
        seen.add(key)
        templates[area].add(message, locations=[(f"stmviz/{filename}", lineno)], auto_comments=comments,
                            context=context)
    return templates


def _area_key(filename: str) -> int:
    area = _area_of(filename)
    return list(AREAS).index(area) if area else len(AREAS)


def po_path(lang: str, area: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / f"{area}.po"


def mo_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / "stmviz.mo"


def read_catalog(path: Path, lang: str) -> Catalog:
    if not path.exists():
        return Catalog(locale=lang, project="stmviz", domain="stmviz", creation_date=STAMP, revision_date=STAMP)
    with path.open("rb") as f:
        return read_po(f, locale=lang, domain="stmviz")


def update(lang: str) -> None:
    """Bring each area's .po in step with the code: new sentences added untranslated, gone ones dropped."""
    for area, template in extracted().items():
        path = po_path(lang, area)
        catalog = read_catalog(path, lang)
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        catalog.creation_date = STAMP
        catalog.revision_date = STAMP
        catalog.header_comment = HEADER.format(area=area, paths=", ".join(AREAS[area]))
        catalog.version, catalog.msgid_bugs_address = "", ""
        catalog.last_translator = catalog.language_team = "stmviz contributors"
        catalog.fuzzy = False
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            write_po(f, catalog, width=116, omit_header=False, sort_by_file=True, include_previous=False)
        print(f"{path.relative_to(ROOT)}: {len(catalog)} sentences, {len(untranslated_in(catalog))} untranslated")


def merged(lang: str) -> Catalog:
    """Every area's translations of ``lang`` in one catalog; a sentence two areas translate differently is an error."""
    catalog = Catalog(locale=lang, project="stmviz", domain="stmviz", creation_date=STAMP, revision_date=STAMP,
                      fuzzy=False)
    for area in AREAS:
        for message in read_catalog(po_path(lang, area), lang):
            if not message.id or message.fuzzy or not _translated(message):
                continue
            key = message.id[0] if isinstance(message.id, tuple) else message.id
            if key in catalog and catalog[key].string != message.string:
                raise SystemExit(f"{lang}: {key!r} is translated differently in two areas")
            catalog[message.id] = Message(message.id, message.string, context=message.context)
    return catalog


def compiled(lang: str) -> bytes:
    """The bytes of ``stmviz.mo`` for ``lang``, as ``compile`` writes them."""
    buffer = io.BytesIO()
    write_mo(buffer, merged(lang), use_fuzzy=False)
    return buffer.getvalue()


def compile_catalogs(lang: str) -> None:
    path = mo_path(lang)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(compiled(lang))
    print(f"{path.relative_to(ROOT)}: {len(merged(lang))} sentences")


def _translated(message: Message) -> bool:
    strings = message.string if isinstance(message.string, (tuple, list)) else (message.string,)
    return all(s for s in strings)


def untranslated_in(catalog: Catalog) -> list[str]:
    return [m.id[0] if isinstance(m.id, tuple) else m.id for m in catalog if m.id and not _translated(m)]


def missing(lang: str) -> Iterator[tuple[str, str, str]]:
    """(area, where, sentence) for each sentence marked in the code that ``lang``'s catalogs do not translate."""
    have = merged(lang)
    for area, template in extracted().items():
        for message in template:
            if not message.id:
                continue
            key = message.id[0] if isinstance(message.id, tuple) else message.id
            if key not in have:
                where = ", ".join(f"{f}:{n}" for f, n in message.locations[:1])
                yield area, where, key


def check(lang: str) -> int:
    problems = 0
    path = mo_path(lang)
    if not path.exists() or path.read_bytes() != compiled(lang):
        print(f"{path.relative_to(ROOT)} is not what its .po files compile to: python scripts/i18n.py compile")
        problems += 1
    for area, where, sentence in missing(lang):
        print(f"{lang} {area}: untranslated ({where}): {sentence!r}")
        problems += 1
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["update", "compile", "check"])
    args = parser.parse_args(argv)
    status = 0
    for lang in TRANSLATED:
        if args.command == "update":
            update(lang)
        elif args.command == "compile":
            compile_catalogs(lang)
        else:
            status |= check(lang)
    return status


if __name__ == "__main__":
    sys.exit(main())
