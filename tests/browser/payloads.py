"""HTML / JavaScript injection payloads that agent content may carry, and a chat log that carries them.

Agent content (user messages, model replies, tool calls and results, the query)
is untrusted. Every view of stmviz must show these strings as text: no dialog
may open, no script may run, and ``window.__pwned`` must stay undefined.
"""

from __future__ import annotations

import json
from typing import Any

#: Payloads that would open a dialog, set ``window.__pwned`` or break the markup if inserted as HTML.
PAYLOADS: tuple[str, ...] = (
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    '<a href="javascript:alert(3)">x</a>',
    "<svg onload=alert(4)>",
    '<div style="background:url(javascript:alert(5))">',
    '"><script>alert(6)</script>',
    '<iframe src="javascript:alert(7)">',
    "<b><i>unclosed",
    "{{7*7}}",
    "%{x}",
    "</textarea><script>alert(8)</script>",
    '<img src=x onerror="window.__pwned=1">',
    "<svg><script>window.__pwned=2</script></svg>",
    "'><img src=x onerror=window.__pwned=3>",
    '<details open ontoggle="window.__pwned=4">',
    "</script><script>window.__pwned=5</script>",
    '<a href="javascript:window.__pwned=6">click me</a>',
    '<input autofocus onfocus="window.__pwned=7">',
    "<body onload=alert(9)>",
    "<style>*{display:none!important}</style>",
    "${alert(10)} `${window.__pwned=8}`",
    "<!-- comment --> --><script>alert(11)</script>",
    "javascript:alert(12)",
    '<math><mtext><table><mglyph><style><img src=x onerror="window.__pwned=9">',
    "&lt;b&gt;already escaped&lt;/b&gt; &amp; <b>&#x3C;script&#x3E;</b>",
    "<object data=\"javascript:alert(13)\"></object><embed src=javascript:alert(14)>",
    "\u202eRTL override <marquee onstart=alert(15)>",
    "\\u003cscript\\u003ealert(16)\\u003c/script\\u003e",
)

#: The query Q (also untrusted: a chat's system prompt).
QUERY = 'Summarise the page. <script>alert("query")</script><img src=x onerror="window.__pwned=10">'


def payload_messages() -> list[dict[str, Any]]:
    """An OpenAI-style chat whose every message carries payloads: user, assistant, tool call and tool result.

    Each payload appears in full in at least one user message or tool result
    (so the latest interaction shown in π(ω_t) holds it verbatim).
    """
    messages: list[dict[str, Any]] = [{"role": "system", "content": QUERY}]
    for k, payload in enumerate(PAYLOADS):
        if k % 4 == 3:
            call = f"call_{k}"
            messages.append(
                {
                    "role": "assistant",
                    "content": f"Looking it up {PAYLOADS[(k + 1) % len(PAYLOADS)]}",
                    "tool_calls": [
                        {"id": call, "type": "function",
                         "function": {"name": "search", "arguments": json.dumps({"q": payload})}}
                    ],
                }
            )
            messages.append({"role": "tool", "tool_call_id": call, "content": f"result {k}: {payload}"})
        else:
            messages.append({"role": "user", "content": f"message {k}: {payload}"})
            messages.append({"role": "assistant", "content": f"reply {k}: {PAYLOADS[k - 1]} ok"})
    return messages


def payload_scenario():
    """The payload chat as a :class:`stmviz.Scenario`."""
    from stmviz.scenarios import from_openai_messages

    return from_openai_messages(payload_messages(), name="payloads", title="<b>payloads</b> <script>alert(0)</script>")


def payload_trace(v_max: int = 260):
    """A run of AgentFold over the payload chat: small enough a V_max that it folds (summaries carry payloads too)."""
    from stmviz import AgentFold, StateSpace, run, sizes

    mechanism = AgentFold(StateSpace(sizes.tokens(), v_max=v_max), block_budget=40)
    return run(mechanism, payload_scenario())


def normalize(text: str) -> str:
    """Text without any whitespace (the browser's innerText may re-flow spaces and line breaks)."""
    return "".join(text.split())
