"""Hypothesis profiles shared by the ledger and the tests (``conftest.py`` loads them too).

- ``ci``: the test command; derandomised (same examples every run, no flakiness), 25 examples a
  claim, statistical claims at their registered trial count.
- ``dev``: the default of ``python -m properties``; 100 examples a claim.
- ``thorough``: deep searches; 1000 examples a claim, so ``target()`` has room to push.

Every profile has ``deadline=None``: JIT compilation and precision escalation make first calls
slow, and timing is never a verdict (DESIGN principle 9).
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

__all__ = ["PROFILES", "load", "examples_for"]

_COMMON = dict(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors],
    report_multiple_bugs=False,
    print_blob=False,
)

PROFILES = {
    "ci": settings(max_examples=25, derandomize=True, **_COMMON),
    "dev": settings(max_examples=100, **_COMMON),
    "thorough": settings(max_examples=1000, **_COMMON),
}

for _name, _settings in PROFILES.items():
    settings.register_profile(_name, _settings)


def load(name: str) -> settings:
    if name not in PROFILES:
        raise ValueError(f"profile={name!r} must be one of {sorted(PROFILES)}")
    return PROFILES[name]


def examples_for(profile: str, claim_max: int | None) -> int:
    """Examples for one claim: the profile's count, capped by the claim's own ``max_examples``
    (expensive oracle checks) scaled with the profile."""
    base = PROFILES[profile].max_examples
    if claim_max is None:
        return base
    return max(5, min(base, claim_max * base // 25))
