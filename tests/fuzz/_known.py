"""Fuzz entry points and hostile-input tests that fail in files other helpers own (issue 33): one named list, here.

Each key is an :class:`~_harness.Entry` name (or a name ``test_hostile_classes.known()`` is given); the value says
whose file fails and how. Its test is marked ``xfail(strict=True)``, so it passes while the failure is there and
fails (XPASS) as soon as the owner's fix lands: the lead removes the entry then (or the whole list, after merging).
Not a test module.
"""

from __future__ import annotations

#: name -> "owner: the entry point, the argument, the exception"
KNOWN_FAILURES: dict[str, str] = {
    # empty: every failure the issue-33 helpers recorded here was fixed when their branches were merged
}
