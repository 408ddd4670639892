"""Fuzz entry points and hostile-input tests that fail in files other helpers own (issue 33): one named list, here.

Each key is an :class:`~_harness.Entry` name (or a name ``test_hostile_classes.known()`` is given); the value says
whose file fails and how. Its test is marked ``xfail(strict=True)``, so it passes while the failure is there and
fails (XPASS) as soon as the owner's fix lands: the lead removes the entry then (or the whole list, after merging).
Not a test module.
"""

from __future__ import annotations

#: name -> "owner: the entry point, the argument, the exception"
KNOWN_FAILURES: dict[str, str] = {
    # G1: stmviz/scenarios/agentfold_log.py
    "from_infer_trajectory": "G1: from_infer_trajectory(full_traj=None / a list / a dict / bytes …) → AttributeError "
                             "'… has no attribute startswith' (no str check); full_traj with JSON 5,000 deep inside "
                             "<tool_call> → RecursionError",
    # G1: stmviz/scenarios/transcripts/otel.py
    "from_transcript(otel, deep string)": "G1: from_transcript(otel) with gen_ai.input.messages = JSON 5,000 deep "
                                          "inside its stringValue → RecursionError",
    "load_transcript(special files)": "G1: load_transcript(a file of OTel JSON 5,000 deep inside a string attribute) "
                                      "→ RecursionError",
    # G1: stmviz/scenarios/transcripts/__init__.py
    "detect_format": "G1: detect_format(path='\\udc00\\ud800', a lone surrogate) → UnicodeEncodeError",
    "recorded_compactions(meta)": "G1: recorded_compactions with hand-edited meta['recorded_compaction']: no 't' → "
                                  "KeyError; t='three' / NaN → ValueError; an event that is no dict → TypeError",
    "mark_recorded_compactions(meta)": "G1: the same events through recorded_compactions (KeyError, ValueError, "
                                       "TypeError) before mark_recorded_compactions can check them",
    # G1: stmviz/scenarios/transcripts/anthropic.py
    "G1: is_error as text": "G1: a Claude Code tool_result with is_error: \"true\" (text) is read as a success",
    # no helper owns them: stmviz/scenarios/scenario.py and schema.py (the lead's)
    "lead: Scenario v_max": "lead: Scenario(v_max=NaN / inf / 10**400) and from_transcript(…, v_max=NaN) are accepted "
                            "(the JSON schema's exclusiveMinimum passes NaN and ∞); guards.capacity says the rule",
    # G3: stmviz/managers/**
    "G3: a summarizer ignoring its budget": "G3: Compaction with a summarizer returning 5,000 words → CapacityError "
                                            "'Compaction.update … left Ω_STM' that never names the summarizer",
}
