"""Hypothesis profiles shared by the ledger, the validator and the tests (``conftest.py`` loads them).

- ``ci``: the test command's profile and the ledger's default; 25 examples a claim.
- ``dev``: 100 examples a claim.
- ``thorough``: deep searches; 1000 examples a claim, so ``target()`` has room to push.

Claims with an expensive oracle cap their examples (``max_examples``, scaled with the profile, see
:func:`examples_for`); statistical claims run their registered trial count (4× under ``thorough``)
and single claims run once under every profile, so a profile's cost is not proportional to its
example count.

Reproducibility: every search is derandomised with an explicit seed (:func:`seeded`; the ledger's
and the validator's ``--seed``, default :data:`DEFAULT_SEED`), under every profile, so one command
gives the same examples every run.  Importing this module also stops Hypothesis from drawing
"local constants": by default Hypothesis harvests the literals of every loaded module outside
site-packages and offers them as examples, so a search would depend on whether the package is
installed or run from a checkout and on which modules earlier claims happened to import
(:func:`ignore_local_constants`).

Cost (CPU time of the claims alone, on one core of the development machine, 2 shared cores):
the whole ledger at ``ci`` took 329 s of claim time for the 197 claims registered before harness
v2 (``seconds`` summed over the ci ledger; two claims, attention_optimization.lem7.4 and
lem11.4, take 138 s of it); extrapolated to the 330 claim ids at the same mean, about 9 min on one
core, so ``--jobs 2`` finishes in about 5-6 min wall clock (the longest claim, about 80 s, bounds
the tail).  ``dev`` measured 2.9× the ci claim time on the selection
``softmax_regression.*`` / ``attention_kernel_regression.*`` (single and statistical claims do
not scale): about 26 min on one core, 14 min with ``--jobs 2``, for 330 claims.  ``thorough`` is
hours.  The test command uses ``ci``; README's ledger command uses the default profile.

Every profile has ``deadline=None``: JIT compilation and precision escalation make first calls
slow, and timing is never a verdict (DESIGN principle 9).
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import seed as _hypothesis_seed
from hypothesis.internal.conjecture import providers as _providers

__all__ = ["DEFAULT_PROFILE", "DEFAULT_SEED", "PROFILES", "examples_for", "ignore_local_constants", "load", "seeded"]

_COMMON = dict(
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors],
    report_multiple_bugs=False,
    print_blob=False,
)

PROFILES = {
    "ci": settings(max_examples=25, **_COMMON),
    "dev": settings(max_examples=100, **_COMMON),
    "thorough": settings(max_examples=1000, **_COMMON),
}

DEFAULT_PROFILE = "ci"
"""The ledger's default profile: the whole ledger in well under 15 minutes on 2 cores (see above)."""

DEFAULT_SEED = 0
"""The seed of every search unless ``--seed`` says otherwise."""

for _name, _settings in PROFILES.items():
    settings.register_profile(_name, _settings)


def load(name: str) -> settings:
    if name not in PROFILES:
        raise ValueError(f"profile={name!r} must be one of {sorted(PROFILES)}")
    return PROFILES[name]


def examples_for(profile: str, claim_max: int | None) -> int:
    """Examples for one claim: the profile's count, capped by the claim's own ``max_examples``
    (expensive oracle checks) scaled with the profile."""
    base = load(profile).max_examples
    if claim_max is None:
        return base
    return max(5, min(base, claim_max * base // 25))


def seeded(test, seed: int):
    """``test`` (a ``@given`` test) derandomised with ``seed``: its examples depend on the seed
    alone, not on the test function's source or on earlier tests."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed={seed!r} must be a non-negative integer")
    return _hypothesis_seed(seed)(test)


_NO_CONSTANTS = _providers.Constants()


def ignore_local_constants() -> None:
    """Make Hypothesis draw no literals harvested from loaded local modules (its "local constants",
    ``hypothesis.internal.conjecture.providers._get_local_constants`` in Hypothesis 6.13x-6.15x).

    Which modules count as local depends on where the package is installed and which modules are
    loaded when a search starts, so the harvest made a claim's examples depend on how the harness
    was installed and on the claims that ran before it.  With it off, examples depend on the
    strategy and the seed alone (tested in ``tests/meta/test_ledger.py``).  Hypothesis's own
    global constants (0, ±inf, boundary floats, ...) are kept.
    """
    if not hasattr(_providers, "_get_local_constants"):
        raise RuntimeError("this Hypothesis version has no providers._get_local_constants: check how it "
                           "collects local constants and update properties.profiles.ignore_local_constants")
    _providers._get_local_constants = lambda: _NO_CONSTANTS
    _providers.CONSTANTS_CACHE.cache.clear()


ignore_local_constants()
