"""Content of the bundled transcript ``claude_code_session.jsonl``: a Claude Code session, written for the notebooks.

A made-up coding task (no real user's data): fix invoice totals that are off
by a cent. It has what a real session file has — replies written one record
per content block (thinking, text, tool_use) sharing ``message.id``, tool
results as user records, two parallel tool calls, a sub-agent's sidechain, a
message the user rewound and sent again (an abandoned branch), and one
automatic compaction (``compact_boundary`` with ``compactMetadata`` and the
``isCompactSummary`` user record). ``preTokens`` is the size of the context
before it in cl100k tokens, as stmviz counts (the session is small: a real one
compacts near 95 % of a 200,000-token window).

Run ``python scripts/make_scenarios.py`` (or this file) to write it.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "stmviz" / "scenarios" / "data" / "transcripts" / "claude_code_session.jsonl"
SESSION = "5b0e2c7a-31f4-4d2e-9a57-0c6f1d8e2b90"
NS = uuid.UUID("6f1c0f3e-8a51-4a8e-bf7e-2f3d4c5b6a79")

TOTALS_PY = '''from decimal import Decimal

from .money import to_cents
from .settings import load_settings


def line_total(unit_price: Decimal, quantity: int) -> Decimal:
    return unit_price * quantity


def invoice_total(lines, discount_rate: Decimal = Decimal("0")) -> int:
    """The invoice total in cents: lines, tax, then the discount."""
    settings = load_settings()
    subtotal = sum(line_total(l.unit_price, l.quantity) for l in lines)
    taxed = subtotal * (1 + settings.tax_rate)
    discounted = taxed * (1 - discount_rate)
    return to_cents(discounted)
'''

MONEY_PY = '''from decimal import Decimal


def to_cents(amount: Decimal) -> int:
    """An amount in euros as whole cents."""
    return int(round(float(amount) * 100))
'''

SETTINGS_TOML = '''[billing]
currency = "EUR"
TAX_RATE = 0.0725          # regional sales tax, set by finance
rounding = "half_even"     # accounting policy since 2025, see docs/billing.md
invoice_prefix = "LDG"
'''

PYTEST_FAIL_1 = '''............F.F.                                                   [100%]
=================================== FAILURES ===================================
_________________ test_total_with_discount_rounds_half_even ____________________
    def test_total_with_discount_rounds_half_even():
        lines = [Line(Decimal("19.99"), 3), Line(Decimal("0.35"), 1)]
>       assert invoice_total(lines, Decimal("0.10")) == 5823
E       assert 5824 == 5823
tests/test_totals.py:41: AssertionError
_______________________ test_half_cent_goes_to_even ____________________________
    def test_half_cent_goes_to_even():
>       assert to_cents(Decimal("2.675")) == 268
E       assert 267 == 268
tests/test_totals.py:52: AssertionError
=========================== short test summary info ============================
FAILED tests/test_totals.py::test_total_with_discount_rounds_half_even - assert 5824 == 5823
FAILED tests/test_totals.py::test_half_cent_goes_to_even - assert 267 == 268
2 failed, 14 passed in 0.31s
'''

PYTEST_FAIL_2 = '''..............F.                                                   [100%]
=================================== FAILURES ===================================
_________________ test_total_with_discount_rounds_half_even ____________________
>       assert invoice_total(lines, Decimal("0.10")) == 5823
E       assert 5824 == 5823
tests/test_totals.py:41: AssertionError
FAILED tests/test_totals.py::test_total_with_discount_rounds_half_even - assert 5824 == 5823
1 failed, 15 passed in 0.29s
'''

TEST_TOTALS = '''from decimal import Decimal

from ledger.money import to_cents
from ledger.totals import Line, invoice_total


def test_total_without_discount():
    assert invoice_total([Line(Decimal("10.00"), 2)]) == 2145


def test_total_with_discount_rounds_half_even():
    # FIN-2291: the discount is applied to the net amount, before tax,
    # and the total is rounded half-to-even once, at the end.
    lines = [Line(Decimal("19.99"), 3), Line(Decimal("0.35"), 1)]
    assert invoice_total(lines, Decimal("0.10")) == 5823


def test_half_cent_goes_to_even():
    assert to_cents(Decimal("2.675")) == 268
    assert to_cents(Decimal("2.665")) == 266
'''

BILLING_MD = '''# Billing rules

1. Prices are stored as `Decimal` euros; never as floats.
2. A discount applies to the net amount (before tax). Tax is computed on the
   discounted net amount at `TAX_RATE`.
3. Round once, at the end, to whole cents, half-to-even (banker's rounding):
   2.675 becomes 2.68 and 2.665 becomes 2.66.
4. Invoice numbers are `LDG-<year>-<sequence>`; credit notes `LDG-CN-<year>-<sequence>`.
5. Every change to these rules needs a finance ticket (FIN-…) in the commit message.
'''

SUMMARY = '''This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:
Analysis:
The user asked to fix invoice totals that are off by one cent; two tests in tests/test_totals.py failed.

Summary:
1. Primary Request and Intent: fix the cent errors in invoice totals without changing public function signatures; rounding must be half-to-even (finance ticket FIN-2291).
2. Key Technical Concepts: Decimal money, half-to-even rounding, discount before tax.
3. Files and Code Sections:
   - src/ledger/money.py: to_cents now quantizes with ROUND_HALF_EVEN instead of round(float(...)).
   - src/ledger/totals.py: invoice_total applied the discount after tax; being changed to apply it to the net amount.
   - docs/billing.md: the billing rules (discount before tax; round once at the end).
4. Errors and fixes: float rounding in to_cents gave 267 for 2.675; fixed.
5. Pending Tasks: rerun the tests after the totals.py edit; commit.
6. Current Work: editing invoice_total so that the discount comes before tax.'''


class Writer:
    def __init__(self) -> None:
        self.records: list[dict] = []
        self.count = 0
        self.parent: str | None = None
        self.messages = 0
        self.clock = 0

    def _uuid(self) -> str:
        self.count += 1
        return str(uuid.uuid5(NS, str(self.count)))

    def _time(self) -> str:
        self.clock += 7
        return f"2026-11-30T14:{self.clock // 60:02d}:{self.clock % 60:02d}.000Z"

    def _base(self, kind: str, parent: str | None, sidechain: bool = False) -> dict:
        return {"parentUuid": parent, "isSidechain": sidechain, "userType": "external", "cwd": "/home/dev/ledger",
                "sessionId": SESSION, "version": "2.1.3", "gitBranch": "fix/cent-rounding", "type": kind}

    def add(self, record: dict, *, advance: bool = True) -> str:
        record["uuid"] = self._uuid()
        record["timestamp"] = self._time()
        self.records.append(record)
        if advance:
            self.parent = record["uuid"]
        return record["uuid"]

    def user(self, text: str, parent: str | None = None, **extra) -> str:
        record = self._base("user", parent if parent is not None else self.parent)
        record["message"] = {"role": "user", "content": text}
        record.update(extra)
        return self.add(record)

    def reply(self, *blocks: dict, sidechain: bool = False) -> None:
        """One assistant reply, one record per block, sharing message.id."""
        self.messages += 1
        message_id = f"msg_01{self.messages:022d}"
        for block in blocks:
            record = self._base("assistant", self.parent, sidechain)
            record["message"] = {"id": message_id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                                 "content": [block], "stop_reason": None,
                                 "usage": {"input_tokens": 4, "output_tokens": 120}}
            record["requestId"] = f"req_01{self.messages:022d}"
            self.add(record)

    def results(self, *pairs: tuple[str, str], sidechain: bool = False) -> None:
        for call_id, text in pairs:
            record = self._base("user", self.parent, sidechain)
            record["message"] = {"role": "user", "content": [{"tool_use_id": call_id, "type": "tool_result", "content": text}]}
            self.add(record)


def tool(call_id: str, name: str, **arguments) -> dict:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def thinking(value: str) -> dict:
    return {"type": "thinking", "thinking": value, "signature": "c2lnbmF0dXJl"}


def records() -> list[dict]:
    w = Writer()
    w.add({"type": "summary", "summary": "Fix cent rounding in invoice totals", "leafUuid": "pending"}, advance=False)
    w.user("Invoice totals are sometimes off by one cent and two tests in tests/test_totals.py fail. Please fix it "
           "without changing the public function signatures. Finance wants half-to-even rounding; the ticket is FIN-2291.")
    w.reply(thinking("Look at the layout first, then the totals code and the failing tests."),
            text("I'll start with the project layout."),
            tool("toolu_01", "Bash", command="ls -R src tests docs", description="List project files"))
    w.results(("toolu_01", "docs:\nbilling.md\n\nsrc/ledger:\n__init__.py\nmoney.py\nsettings.py\nsettings.toml\n"
                           "totals.py\ninvoice.py\n\ntests:\nconftest.py\ntest_money.py\ntest_totals.py"))
    w.reply(tool("toolu_02", "Read", file_path="/home/dev/ledger/src/ledger/totals.py"))
    w.results(("toolu_02", TOTALS_PY))
    w.reply(text("Now the money helper and the settings, together."),
            tool("toolu_03", "Read", file_path="/home/dev/ledger/src/ledger/money.py"),
            tool("toolu_04", "Read", file_path="/home/dev/ledger/src/ledger/settings.toml"))
    w.results(("toolu_03", MONEY_PY), ("toolu_04", SETTINGS_TOML))
    w.reply(tool("toolu_05", "Bash", command="python -m pytest -q tests/test_totals.py", description="Run the totals tests"))
    w.results(("toolu_05", PYTEST_FAIL_1))
    # a sub-agent searches the call sites: its records are a sidechain
    w.reply(tool("toolu_06", "Task", description="Find to_cents callers",
                 prompt="List every call of to_cents in src/ and what it is given.", subagent_type="general-purpose"))
    task_parent = w.parent
    w.user("List every call of to_cents in src/ and what it is given.")
    w.records[-1]["isSidechain"] = True
    w.reply(tool("toolu_s1", "Grep", pattern="to_cents\\(", path="src"), sidechain=True)
    w.results(("toolu_s1", "src/ledger/totals.py:17:    return to_cents(discounted)\n"
                           "src/ledger/invoice.py:33:        cents = to_cents(credit.amount)"), sidechain=True)
    w.reply(text("Two callers: totals.invoice_total (a Decimal) and invoice.credit_note (a Decimal)."), sidechain=True)
    w.parent = task_parent
    w.results(("toolu_06", "Two callers of to_cents: src/ledger/totals.py:17 (invoice_total, a Decimal) and "
                           "src/ledger/invoice.py:33 (credit_note, a Decimal). Both pass Decimal amounts."))
    w.reply(thinking("round(float(x) * 100) is binary floating point and rounds half to even on the float, "
                     "which is not the decimal value: 2.675 is 2.67499999… as a float. Quantize the Decimal instead."),
            text("The cent error comes from to_cents: it converts to float, so 2.675 becomes 2.67499… and rounds to "
                 "267. I'll quantize the Decimal with ROUND_HALF_EVEN instead; the signature stays the same."),
            tool("toolu_07", "Edit", file_path="/home/dev/ledger/src/ledger/money.py",
                 old_string="    return int(round(float(amount) * 100))",
                 new_string="    cents = (amount * 100).quantize(Decimal(\"1\"), rounding=ROUND_HALF_EVEN)\n    return int(cents)"))
    w.results(("toolu_07", "The file /home/dev/ledger/src/ledger/money.py has been updated. Here's the result of running "
                           "`cat -n` on a snippet of the edited file:\n     1\tfrom decimal import ROUND_HALF_EVEN, Decimal\n"
                           "     4\tdef to_cents(amount: Decimal) -> int:\n     6\t    cents = (amount * 100).quantize("
                           "Decimal(\"1\"), rounding=ROUND_HALF_EVEN)\n     7\t    return int(cents)"))
    w.reply(tool("toolu_08", "Bash", command="python -m pytest -q tests/test_totals.py", description="Run the totals tests"))
    w.results(("toolu_08", PYTEST_FAIL_2))
    w.reply(tool("toolu_09", "Read", file_path="/home/dev/ledger/tests/test_totals.py"))
    w.results(("toolu_09", TEST_TOTALS))
    w.reply(text("One test still fails: it expects the discount on the net amount, before tax. invoice_total applies "
                 "it after tax. Let me check the written rules before changing the order."))
    w.user("Yes — discounts always apply before tax. It's in docs/billing.md.")
    w.reply(tool("toolu_10", "Read", file_path="/home/dev/ledger/docs/billing.md"))
    w.results(("toolu_10", BILLING_MD))
    w.reply(text("The rules agree: discount on the net amount, tax on the discounted amount, round once at the end."),
            tool("toolu_11", "Edit", file_path="/home/dev/ledger/src/ledger/totals.py",
                 old_string="    taxed = subtotal * (1 + settings.tax_rate)\n    discounted = taxed * (1 - discount_rate)\n"
                            "    return to_cents(discounted)",
                 new_string="    discounted = subtotal * (1 - discount_rate)\n    taxed = discounted * (1 + settings.tax_rate)\n"
                            "    return to_cents(taxed)"))
    w.results(("toolu_11", "The file /home/dev/ledger/src/ledger/totals.py has been updated."))
    before = pre_tokens(w.records)
    boundary = w._base("system", None)
    boundary.update({"subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": False, "level": "info",
                     "logicalParentUuid": w.parent, "compactMetadata": {"trigger": "auto", "preTokens": before}})
    w.add(boundary)
    w.user(SUMMARY, isCompactSummary=True, isVisibleInTranscriptOnly=True)
    w.reply(tool("toolu_12", "Bash", command="python -m pytest -q", description="Run all tests"))
    w.results(("toolu_12", "................                                                   [100%]\n16 passed in 0.33s"))
    w.reply(text("All 16 tests pass. to_cents rounds half-to-even on the Decimal, and invoice_total applies the discount "
                 "before tax, as docs/billing.md says."))
    fork = w.parent
    # the user sends a message, gets a reply, then rewinds and sends another: the first pair is an abandoned branch
    w.user("Commit it.")
    w.reply(text("Committing with the message \"Fix rounding\"."))
    w.parent = fork
    w.user("Great. Commit it, and put the finance ticket number in the commit message.")
    w.reply(tool("toolu_13", "Bash", command="git commit -am \"Round invoice totals half-to-even; discount before tax (FIN-2291)\"",
                 description="Commit the fix"))
    w.results(("toolu_13", "[fix/cent-rounding 3f9c2a1] Round invoice totals half-to-even; discount before tax (FIN-2291)\n"
                           " 2 files changed, 5 insertions(+), 4 deletions(-)"))
    w.reply(text("Committed as 3f9c2a1: \"Round invoice totals half-to-even; discount before tax (FIN-2291)\"."))
    w.records[0]["leafUuid"] = w.parent
    return w.records


def pre_tokens(records: list[dict]) -> int:
    """The cl100k size of the text of the main chain's messages so far (what the context held)."""
    from stmviz.core.sizes import count_tokens

    total = 0
    for record in records:
        if record.get("isSidechain") or record.get("type") not in ("user", "assistant"):
            continue
        content = record["message"]["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks:
            value = block.get("text") or block.get("content") or (json.dumps(block["input"]) if "input" in block else "")
            total += count_tokens(value if isinstance(value, str) else json.dumps(value))
    return total


def write() -> Path:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records()), encoding="utf-8")
    return OUT


if __name__ == "__main__":
    print(write())
