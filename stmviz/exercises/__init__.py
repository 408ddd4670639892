"""The notebooks' exercises: a checker per exercise; the reference solutions on request.

Each notebook from 01 to 11 has exercises, one module each here (notebook 01's in
:mod:`~stmviz.exercises.state_space`, …; how a checker reports is :mod:`~stmviz.exercises.checking`). The student writes code in
the exercise cell (its default is a TODO that raises ``NotImplementedError``)
and runs the checker, which reports ✓ or ✗ for each criterion, with a hint
for every ✗. A checker never raises on a student's mistake: what went wrong
is a ✗ line. ``solution(key)`` prints the reference solution — for after
trying, not before. The solutions live in :mod:`stmviz.exercise_solutions`,
which this module loads only when ``solution`` is called: importing the
checkers (as every notebook does) does not bring the answers along.

========================  ===================================  =====================================
key                       checker                              what the student writes
========================  ===================================  =====================================
(00, a worked example)    :func:`check_room_left`              ``room_left(sizes, v_max)``, not graded
``01-which-fit``          :func:`check_which_fit`              a prediction: which sets fit V_max = 20
``01-membership``         :func:`check_membership`             ``in_omega(elements, mu, v_max)``
``02-predict-window``     :func:`check_window_prediction`      a prediction: which steps ω_5 of a window holds
``02-keep-first``         :func:`check_keep_first`             a mechanism that never forgets step 0
``03-which-leave``        :func:`check_eviction_prediction`    a prediction: which messages a window evicts
``03-fifo-push``          :func:`check_fifo_push`              FIFO's U on a list of messages
``04-joke``               :func:`check_joke_prediction`        predict: memories SCM activates for a joke
``04-judge``              :func:`check_judge`                  SCM's judgement of one memory
``05-retrieve``           :func:`check_retrieval_prediction`   predict: the steps retrieve(1, 3) brings back
``05-subgoal``            :func:`check_subgoal_switch`         HiAgent's U when a subgoal starts
``06-blocks``             :func:`check_blocks_prediction`      predict: the blocks after a deep consolidation
``06-fold``               :func:`check_fold`                   AgentFold's fold of blocks s_{x,y}
``07-keepers``            :func:`check_keepers_prediction`     predict: which mechanisms keep a probe
``07-fifo-match``         :func:`check_fifo_match`             the V_max a FIFO window needs to match SCM
``08-predict-eviction``   :func:`check_priority_prediction`    a prediction: the first eviction by priority
``08-priority``           :func:`check_priority_memory`        a mechanism using the priority D_1
``09-predict-steps``      :func:`check_steps_prediction`       a prediction of how notebook 09's chat is cut
``09-chat-steps``         :func:`check_chat_steps`             a chat cut into steps (output, input)
``10-predict-capacity``   :func:`check_capacity_prediction`    a prediction: what more V_max buys FIFO and SCM
``10-word-overlap``       :func:`check_word_overlap`           the evidence word overlap computed by hand
``11-predict-clearing``   :func:`check_clear_prediction`       a prediction: is the tax rate in ω_11, in π(ω_11)?
``11-clear-results``      :func:`check_clear_tool_results`     π of tool-result clearing (the history untouched)
========================  ===================================  =====================================
"""

from __future__ import annotations

from ..core import guards
from .agentfold import check_blocks_prediction, check_fold
from .build_your_own import PRIORITY_STEPS, check_priority_memory, check_priority_prediction
from .checking import Criterion, ExerciseReport
from .compare import check_fifo_match, check_keepers_prediction
from .fifo import check_eviction_prediction, check_fifo_push
from .hiagent import check_retrieval_prediction, check_subgoal_switch
from .managers import check_clear_prediction, check_clear_tool_results
from .measuring import check_capacity_prediction, check_evidence_recall, check_word_overlap
from .mechanism import KEEP_FIRST_STEPS, check_keep_first, check_window_prediction
from .scm import check_joke_prediction, check_judge
from .start import check_room_left
from .state_space import check_membership, check_which_fit
from .your_own_logs import LISBON_CHAT, check_chat_steps, check_steps_prediction

__all__ = [
    "Criterion",
    "ExerciseReport",
    "solution",
    "check_room_left",
    "check_which_fit",
    "check_membership",
    "check_window_prediction",
    "check_keep_first",
    "KEEP_FIRST_STEPS",
    "check_eviction_prediction",
    "check_fifo_push",
    "check_joke_prediction",
    "check_judge",
    "check_retrieval_prediction",
    "check_subgoal_switch",
    "check_blocks_prediction",
    "check_fold",
    "check_keepers_prediction",
    "check_fifo_match",
    "check_priority_prediction",
    "check_priority_memory",
    "PRIORITY_STEPS",
    "check_chat_steps",
    "check_steps_prediction",
    "LISBON_CHAT",
    "check_word_overlap",
    "check_evidence_recall",
    "check_capacity_prediction",
    "check_clear_prediction",
    "check_clear_tool_results",
]


def solution(key: str) -> None:
    """Print the reference solution of an exercise — after trying it yourself.

    >>> solution("06-fold")  # doctest: +ELLIPSIS
    def fold(blocks, latest, x, sigma):
    ...
    """
    from ..exercise_solutions import SOLUTIONS  # loaded on request only: the notebooks' import never brings it

    guards.choice(key, "key", sorted(SOLUTIONS), "the exercises with a reference solution", where="solution")
    print(SOLUTIONS[key].strip("\n"))
