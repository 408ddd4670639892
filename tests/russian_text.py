"""Is a text Russian? English sentences found in the prose of a Russian notebook, or in what it shows a student.

Not a language model: a sentence is English when it has two or more distinct English function words
("the", "is", "of", …), or a run of six Latin words in a row. What is not prose is taken out first:
code blocks and spans, math, links' targets, HTML tags, quoted strings (a student's value, an element's
content, a name in code). Proper names (FIFO, AgentFold, Claude Code, V_max) pass: they have no
function words and are short.

>>> english_sentences("Механизм добавляет элемент, и $\\\\Sigma\\\\mu \\\\le V_{max}$ остаётся верным.")
[]
>>> english_sentences("Механизм: the state is a set of elements.")
['the state is a set of elements.']
>>> english_sentences("Вызовите `run(mechanism, steps)`: это цикл рисунка 1 из статьи.")
[]
>>> english_sentences("Это цикл рис. 1 (Figure 1 in the paper).")
['1 (Figure 1 in the paper).']
"""

from __future__ import annotations

import re

FUNCTION_WORDS = frozenset("""
the a an is are was were be been being of to in on at by for from with without into onto about than then
and or but not no nor so if as that this these those it its they their them we our you your he she his her
which what when where who whom whose why how can could will would shall should must may might has have had
do does did each every all any some there here only also just very more most such one
""".split())

_NOT_PROSE = [
    re.compile(r"```.*?```", re.S),               # code blocks
    re.compile(r"\$\$.*?\$\$", re.S),             # display math
    re.compile(r"\$[^$\n]+\$"),                   # inline math
    re.compile(r"`[^`\n]+`"),                     # code spans
    re.compile(r"\]\([^)]*\)"),                   # a link's target (its text stays)
    re.compile(r"<[^>\n]+>"),                     # HTML tags
    re.compile(r"https?://\S+"),                  # addresses
    re.compile(r"'[^'\n]*'"),                     # quoted values: a student's answer, an element's content
    re.compile(r'"[^"\n]*"'),
]
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+|\n+")


def prose(text: str) -> str:
    """``text`` without what is not prose (code, math, links' targets, tags, quoted strings)."""
    for pattern in _NOT_PROSE:
        text = pattern.sub(" ", text)
    return text


def is_english(sentence: str) -> bool:
    """Whether a sentence (already without code and math) reads as English."""
    words = re.findall(r"[^\s,()«»\[\]{}—–/|*_#>]+", sentence)
    function_words = {w.lower() for w in words if w.lower() in FUNCTION_WORDS}
    if len(function_words) >= 2:
        return True
    run = longest = 0
    for word in words:
        run = run + 1 if _LATIN_WORD.fullmatch(word.strip(".,!?;:")) else 0
        longest = max(longest, run)
    return longest >= 6


def english_sentences(text: str) -> list[str]:
    """The sentences of ``text`` that read as English, as they stand in the text (code and math taken out)."""
    return [s.strip() for s in _SENTENCE_END.split(prose(text)) if s.strip() and is_english(s)]
