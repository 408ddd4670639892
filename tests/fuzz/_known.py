"""Fuzz entry points that fail in files other helpers own (issue 33): one named list, in one place.

Each key is an :class:`~_harness.Entry` name; the value says whose file fails and how. Its test is
marked ``xfail(strict=True)``, so it passes while the failure is there and fails (XPASS) as soon as
the owner's fix lands: the lead removes the entry then (or the whole list, after merging).
Not a test module.
"""

from __future__ import annotations

#: entry name -> "owner: the entry point, the argument, the exception"
KNOWN_FAILURES: dict[str, str] = {
}
