"""Hypothesis profiles shared by the ledger, the validator and the tests (``conftest.py`` loads them).

- ``ci``: the test command's profile and the ledger's default (:data:`DEFAULT_PROFILE`); 25
  examples a claim.
- ``dev``: 100 examples a claim; deeper searches at about 3× the cost.
- ``thorough``: deep searches; 1000 examples a claim, so ``target()`` has room to push.

Claims with an expensive oracle cap their examples (``max_examples``, scaled with the profile, see
:func:`examples_for`); statistical claims run their registered trial count (4× under ``thorough``)
and single claims run once under every profile, so a profile's cost is not proportional to its
example count.

Reproducibility: every search of the ledger and the validator is derandomised with an explicit seed
(:func:`seeded`; their ``--seed``, default :data:`DEFAULT_SEED`), under every profile, so one
command gives the same examples every run.  Plain ``@given`` tests run by pytest are derandomised
under ``ci`` (no flaky CI) and random under ``dev`` and ``thorough`` (each run explores anew).
Importing this module also stops Hypothesis from drawing
"local constants": by default Hypothesis harvests the literals of every loaded module outside
site-packages and offers them as examples, so a search would depend on whether the package is
installed or run from a checkout and on which modules earlier claims happened to import
(:func:`ignore_local_constants`).

Cost, measured as process CPU time (``/usr/bin/time``, ``--jobs 1``) on the development machine
(2 cores shared with other jobs, so wall clock there was 5-9× the CPU time; the ledger's
``seconds`` are wall clock and inherit that load):

- start-up (imports, two trivial claims): 1.7 s CPU per process (each ``--jobs`` worker pays it once).
- a sample of 18 claims (every 8th registered claim from softmax_regression.fact4.2.p1 to
  attention_optimization.lem8.11, without the slow fact4.4.p6): ``ci`` 6.4 s CPU for 420 examples,
  ``dev`` 18.9 s CPU for 1678 examples, so ``dev`` costs 2.9× ``ci`` (single and statistical claims
  and capped ``max_examples`` do not scale with the profile).
- the whole ledger at ``ci``: 329 s of claim time for the 197 claims registered before harness v2
  (the baseline ledger's ``seconds`` summed); at that mean, 330 claims take about 9-10 min on one
  core, plus the slow new claims (attention_optimization.lem9.1.p3 took 308 s wall at ~11% of a
  core, about 35 s CPU), so about 5-6 min wall with ``--jobs 2``.  The longest claims
  (attention_optimization.lem7.4, 81 s; lem11.4, 57 s) bound the tail.  This is an extrapolation,
  not a measured full run.
- ``dev``: about 2.9× that, 25-30 min on one core, about 15 min with ``--jobs 2`` (extrapolated):
  at the limit of the 15-minute budget, which is why ``ci`` is the default.
- ``thorough``: 10× ``dev``'s examples; hours.

Every profile has ``deadline=None``: JIT compilation and precision escalation make first calls
slow, and timing is never a verdict (docs/development.md#speed).
"""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, settings
from hypothesis import seed as _hypothesis_seed
from hypothesis.internal.conjecture import providers as _providers

__all__ = ["DEFAULT_PROFILE", "DEFAULT_SEED", "PROFILES", "examples_for", "ignore_local_constants", "load", "seeded"]

_COMMON = dict(
    deadline=None,
    # no "explain" phase: after shrinking it re-runs the test many times only to comment on which
    # parts of a failing example matter (35-60 s for a validator search); the minimal example is kept
    phases=tuple(p for p in Phase if p is not Phase.explain),
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
    strategy and the seed alone (tested in ``tests/properties/meta/test_ledger.py``).  Hypothesis's own
    global constants (0, ±inf, boundary floats, ...) are kept.
    """
    if not hasattr(_providers, "_get_local_constants"):
        raise RuntimeError("this Hypothesis version has no providers._get_local_constants: check how it "
                           "collects local constants and update properties.profiles.ignore_local_constants")
    _providers._get_local_constants = lambda: _NO_CONSTANTS
    _providers.CONSTANTS_CACHE.cache.clear()


ignore_local_constants()
