"""The hypothesis profile of the fuzz suite: deterministic (derandomize, no example database), no per-example deadline.

No shrinking either (see below). The harness has its own hang limit (a thread join with a timeout), which, unlike
hypothesis' deadline, also catches a call that never returns. Each entry point sets
its own ``max_examples`` (see ``count_cases.py`` for the counts).
"""

from hypothesis import HealthCheck, Phase, settings

settings.register_profile(
    "stmviz-fuzz",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=False,
    # no shrinking: a failing case is reported as drawn (the harness shows its arguments), which keeps a
    # failing run as fast as a passing one
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
