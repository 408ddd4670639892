"""Gone: the mechanisms' shared helpers moved to :mod:`stmviz._fast` (``Memo`` to :mod:`stmviz._fast.memo`, the views to
:mod:`stmviz._fast.views`, ``LineTokens``/``Tally`` to :mod:`stmviz._fast.lines`). ``Memo`` still resolves here, with a
DeprecationWarning, until every module imports it from :mod:`stmviz._fast.memo`; then this stub goes."""

from .._moved import moved_to

__getattr__ = moved_to("stmviz._fast.memo", __name__)
