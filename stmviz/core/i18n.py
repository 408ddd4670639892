"""The language of what a student reads beside the prose: English (the default) or Russian.

One setting per process (a notebook's kernel): ``stmviz.set_language("ru")``
turns Russian on for every text stmviz writes for a person from then on —
the checkers' criteria and hints, the players' step text and the reasons a
mechanism records, figure titles, axis and legend labels, the trace tables'
headers. ``with stmviz.language("ru"): ...`` does it for a block only.
Error messages (:class:`~stmviz.errors.STMError`) stay English, as do the
names of operations, element types and everything a program reads.

The translations are standard gettext catalogs: the Russian ones are edited in
``stmviz/locale/ru/LC_MESSAGES/<area>.po`` and compiled into one
``stmviz.mo`` by ``python scripts/i18n.py compile`` (``docs/translating.md``
says how). In code a translatable sentence is written whole, in English, with
named placeholders, and looked up where it is shown::

    from ..core.i18n import N_, ngettext
    from ..core.i18n import gettext as _   # gettext's own name for it, so that tools find the sentences

    _("{n} of {m} criteria not met").format(n=2, m=5)
    ngettext("{n} element", "{n} elements", n).format(n=n)   # Russian has three plural forms
    HINT = N_("add up μ(e) of every element")                # a constant, looked up later: _(HINT)

In English ``_`` returns its argument unchanged, so English output is exactly
what the code says; a sentence the catalog does not know stays English.

>>> from stmviz.core.i18n import gettext, language
>>> gettext("hint: {hint}").format(hint="Σμ ≤ V_max")
'hint: Σμ ≤ V_max'
>>> with language("ru"):
...     gettext("hint: {hint}").format(hint="Σμ ≤ V_max")
'подсказка: Σμ ≤ V_max'
"""

from __future__ import annotations

import gettext as _gettext
import reprlib
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

from .errors import InvalidArgumentError

__all__ = ["LANGUAGES", "set_language", "get_language", "language", "gettext", "ngettext", "N_"]

#: The languages stmviz speaks; English is the default and needs no catalog.
LANGUAGES = ("en", "ru")

#: Where the compiled catalogs are: ``<LOCALE_DIR>/<language>/LC_MESSAGES/stmviz.mo``.
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"

_current = "en"  # a module global, not a ContextVar: ipykernel runs each cell in its own context copy


def set_language(lang: str) -> None:
    """Write what a student reads in ``lang`` ("en" or "ru") from now on, in this process.

    >>> set_language("fr")
    Traceback (most recent call last):
    ...
    stmviz.core.errors.InvalidArgumentError: set_language: lang must be one of 'en', 'ru', got str 'fr': the languages stmviz has catalogs for
    """
    global _current
    # checked here, not with guards.choice: the guards' messages are written with core.formatting, which is
    # written with this module, so this module sits below both and imports only the errors
    if not (isinstance(lang, str) and lang in LANGUAGES):
        raise InvalidArgumentError(f"set_language: lang must be one of {', '.join(map(repr, LANGUAGES))}, got "
                                   f"{type(lang).__name__} {reprlib.repr(lang)}: the languages stmviz has catalogs for")
    _current = lang


def get_language() -> str:
    """The language set by :func:`set_language` ("en" unless changed)."""
    return _current


@contextmanager
def language(lang: str) -> Iterator[str]:
    """Within the ``with`` block, write in ``lang``; the previous language is back after it, even on an error."""
    previous = _current
    set_language(lang)
    try:
        yield lang
    finally:
        set_language(previous)


@cache
def _catalog(lang: str) -> _gettext.NullTranslations:
    """The compiled catalog of ``lang``, read on first use (importing stmviz reads none)."""
    if lang == "en":
        return _gettext.NullTranslations()
    return _gettext.translation("stmviz", localedir=str(LOCALE_DIR), languages=[lang])


def gettext(message: str) -> str:
    """``message`` in the current language: its translation, or itself in English or when the catalog lacks it."""
    return message if _current == "en" else _catalog(_current).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a sentence about ``n`` things, in the current language (English: ``singular`` when n == 1)."""
    if _current == "en":
        return singular if n == 1 else plural
    return _catalog(_current).ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Mark a constant for translation without translating it now: it is looked up where it is shown."""
    return message
