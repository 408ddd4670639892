"""The reference solutions of the notebooks' exercises, printed by :func:`stmviz.exercises.solution`.

Kept out of :mod:`stmviz.exercises`, which every notebook imports for its
checker: this module is loaded only when a student asks for a solution, after
trying the exercise.
"""

from __future__ import annotations

__all__ = ["SOLUTIONS"]

#: Exercise key → the reference solution's source code.
SOLUTIONS: dict[str, str] = {
    "01-which-fit": '''
fits = {"B", "C", "E"}  # A: 7 + 14 = 21 > 20; C is the set {weather}: 14; D: the image alone is 771; E: ∅, 0
''',
    "01-membership": '''
def in_omega(elements, mu, v_max):
    omega = set(elements)                      # ω ∈ 2^E: a set, each element once
    return sum(mu(e) for e in omega) <= v_max  # Definition 1: Σμ(e) ≤ V_max
''',
    "02-predict-window": '''
kept = {2, 3, 4}  # μ = 7, 8, 6, 11, 11 tokens: from the newest, 11 + 11 + 6 = 28 ≤ 30; with step 1's 8 it is 36
''',
    "02-keep-first": '''
from stmviz import Element, Mechanism, Transition

class KeepFirst(Mechanism):
    operations = {"append": "add the output and the input; on overflow drop the oldest, never the task"}

    def update(self, state, operation, context):
        halves = (context.step.output, context.step.observation)
        state = state | {Element(text, {"t": context.t + k / 2}) for k, text in enumerate(halves) if text}
        reasons = {}
        for oldest in list(state):              # canonical order: by time
            if state in self.space:
                break
            if int(oldest.meta["t"]) == 0:      # step 0's message, the task: never evicted
                continue
            state = state - {oldest}
            reasons[oldest] = "oldest after the task; Σμ > V_max"
        return Transition(state, reasons)

    def project(self, state):
        return "\\n".join(e.text for e in state)
''',
    "03-which-leave": '''
# 2 + 7 + 5 + 5 = 19 words; the 10-word reply makes 29 > 20: the oldest unpinned messages leave until Σμ ≤ 20
leaves = {"My parcel 1234 has not arrived yet.", "Let me check the tracking."}  # 29 − 7 − 5 = 17
''',
    "03-fifo-push": '''
def push(window, new, mu, v_max):
    window = window + [new]                     # append at the end
    while sum(mu(m) for m in window) > v_max:   # only while Σμ > V_max
        oldest = next(m for m in window if not m.meta.get("pinned"))
        window.remove(oldest)                   # cut off the beginning, pinned messages stay
    return window
''',
    "04-joke": '''
# released: is_history_need is never called, so the top k = 3 are activated for every message;
# paper: the controller first asks whether memory is needed, and a joke needs none
joke_prediction = (3, 0)
''',
    "04-judge": '''
from stmviz.text.scm_judges import content_words

def judge(memory_text, summary_text, message):
    shared = content_words(message) & content_words(memory_text)
    if not shared:
        return "drop"                           # even the full memory cannot answer the message
    if shared <= content_words(summary_text):
        return "summary"                        # the summary keeps every word the message asks about
    return "full"
''',
    "05-retrieve": '''
# subgoal 3's five pairs (steps 6-10) all fit; of subgoal 1's three (steps 0-2) the overflow rule
# drops the oldest, steps 0 and 1, in the same update: only step 2 comes back
retrieved_steps = {2, 6, 7, 8, 9, 10}
''',
    "05-subgoal": '''
from stmviz import Element

def start_subgoal(state, new_id, new_goal, summarize):
    goal = next(e for e in state if e.meta.get("current"))
    done = goal.meta["subgoal"]
    pairs = [e.text for e in state if e.meta.get("type") == "pair" and e.meta.get("subgoal") == done]
    finished = {e for e in state if e.meta.get("subgoal") == done and e.meta.get("type") in ("pair", "subgoal")}
    summary = Element(summarize(goal.text, pairs), {"type": "summary", "subgoal": done})
    new = Element(new_goal, {"type": "subgoal", "subgoal": new_id, "current": True})
    return (state - finished) | {summary, new}
''',
    "06-blocks": '''
# the directive [0, 6] is a deep consolidation: the blocks s_{0,0} ... s_{5,5} and I_6 become one block
blocks_after = [(0, 6)]
''',
    "06-fold": '''
def fold(blocks, latest, x, sigma):
    t_1 = latest[0]                                    # the latest interaction is step t-1
    kept = [(r, text) for r, text in blocks if r[1] < x]  # blocks that end before x stay
    return kept + [((x, t_1), sigma)]                  # x = t-1: condensation; x < t-1: consolidation
''',
    "07-keepers": '''
# only SCM retrieves the turn a question asks about; FIFO and HiAgent (no subgoals: a window) keep the newest
# turns, and AgentFold's fallback summaries keep sentences, not the names and dates the probes ask for
keepers = {"SCM"}
''',
    "07-fifo-match": '''
from stmviz import SCM, FIFOWindow, load_scenario, metrics, run

scenario = load_scenario("long_dialogue")

def kept(mechanism):
    return sum(r.retained for r in metrics.retention(run(mechanism, scenario), scenario.probes))

target = kept(SCM(scenario.space()))
low, high = scenario.v_max, scenario.token_count()   # the whole dialogue surely keeps every probe
while low < high:                                     # binary search: the smallest V_max that is enough
    middle = (low + high) // 2
    if kept(FIFOWindow(scenario.space(v_max=middle))) >= target:
        high = middle
    else:
        low = middle + 1
fifo_v_max = low
''',
    "08-predict-eviction": '''
# words: 6, 7, 6, 5, 6, ... → Σμ = 24 after step 3, 30 > 26 at step 4;
# the lowest priority held is low (observations 1 and 3): the oldest, observation 1, leaves
prediction = (4, 1)
''',
    "08-priority": '''
from stmviz import Element, Mechanism, Transition

RANK = {"low": 0, "medium": 1, "high": 2}

class PriorityMemory(Mechanism):
    operations = {"append": "add the observation; on overflow drop the lowest priority, oldest first"}

    def update(self, state, operation, context):
        new = Element(context.observation, {"t": context.t, **context.step.meta})
        state = state | {new}
        reasons = {}
        for victim in sorted(state, key=lambda e: (RANK[e.meta["priority"]], e.meta["t"])):
            if state in self.space:
                break
            state = state - {victim}
            reasons[victim] = f"priority {victim.meta['priority']}, oldest of its priority"
        return Transition(state, reasons)

    def project(self, state):
        ranked = sorted(state, key=lambda e: (-RANK[e.meta["priority"]], e.meta["t"]))
        return "\\n".join(f"[{e.meta['priority']}/{e.meta['source']}] {e.text}" for e in ranked)
''',
    "09-chat-steps": '''
def chat_steps(messages):
    steps, output = [], None
    for m in messages:
        if m["role"] == "assistant":
            if output is not None:              # two replies in a row: the first has no input after it
                steps.append((output, None))
            output = m["content"]               # a reply opens a step...
        else:
            steps.append((output, m["content"]))  # ...and the next message closes it
            output = None
    if output is not None:
        steps.append((output, None))            # the last reply, with nothing after it
    return steps
''',
    "09-predict-steps": '''
# step 0: Ada's request alone; step 1: "Let me search." then the tool's result;
# step 2: the reply about Casa Azul then "Book Casa Azul..."; step 3: the last reply, no input
prediction = (4, 2, 1)
''',
    "10-predict-capacity": '''
# FIFO keeps the latest turns that fit: more room reaches back towards the evidence.
# SCM answers from its flash memory and k = 3 activated memories, whatever the room.
prediction = {"FIFOWindow": "rises", "SCM": "stays"}
''',
    "10-word-overlap": '''
from stmviz import metrics

def my_word_overlap(trace, probe):
    # C(T(S_p)): the content words of the evidence steps' texts
    evidence = metrics.content_tokens("\\n".join(trace[s].context.step.text for s in probe.evidence_steps))
    # C(X_t): the content words of the model input the answer was produced from
    seen = metrics.content_tokens(trace.project(probe.t).text())
    return len(evidence & seen) / len(evidence) if evidence else None
''',
    "11-predict-clearing": '''
# ClearToolUses is a π-manager: U only adds, so ω_11 still holds the file read of step 3;
# past the trigger, π shows it as a placeholder (it is older than the 3 newest results)
prediction = (True, False)
''',
    "11-clear-results": '''
def project(messages, keep, placeholder):
    results = [k for k, m in enumerate(messages) if m["role"] == "tool"]
    cleared = set(results[:max(len(results) - keep, 0)])   # all but the keep newest
    # a new list of new dicts: π shows a copy, the history ω stays whole
    return [{**m, "content": placeholder} if k in cleared else dict(m) for k, m in enumerate(messages)]
''',
}
