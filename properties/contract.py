"""The adapter contract (DESIGN principle 7): the functions an implementation may define, what each
returns, and the tolerance rule its output is judged by.

An implementation is a module defining some adapter functions (numpy arrays in, numpy arrays or
floats out).  Each :class:`Adapter` pairs a function name with a strategy of inputs and a
``compare(instance, fn) -> Outcome`` that calls ``fn`` and judges its output against the oracle
(``ratio`` = error/tolerance).  Each paper package collects its adapters in an :class:`AdapterSet`;
the registry gathers them, the validator and the ledger consume them, and
``python -m properties adapters`` prints :func:`table` of them.  This module imports nothing of the
harness but the Outcome record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .toolkit.outcome import Outcome

__all__ = ["Adapter", "AdapterSet", "Comparison", "TrialRule", "U", "output", "table", "within"]

U = 2.0**-53
"""The float64 unit roundoff, the unit of every tolerance rule."""


@dataclass(frozen=True)
class Adapter:
    """One function of the contract.

    ``seeded`` names the argument that carries a random seed or key (``None`` for a deterministic
    function): the validator then also checks that two calls with the same seed agree.

    ``targets(instance) -> {label: value}`` (optional) names the quantities that make implementations
    fail (‖Ax‖∞ of a softmax, κ(A) of a solve): the validator hands each to Hypothesis's ``target()``
    besides the error ratio, so the search climbs towards them.  ``trials`` (optional, a
    :class:`TrialRule`) marks a probabilistic guarantee: the search draws instances without the seed,
    and each drawn instance is judged over the seeds 0 … k−1 by the binomial rule, never by a search
    over the seed.  ``corners()`` (optional) returns fixed corner instances (A = [[1]], x = [710] for a
    softmax, ...) that every validation runs after a passed search (a failure the search finds is
    shrunk first; a corner is minimal by construction).  ``options`` maps module
    attributes the implementation may declare (e.g. ``SOLVE_TOLERANCE``) to their documented
    defaults; ``compare`` then receives them as keywords.
    ``statistical`` holds checks of the function's distribution that no search makes (sign balance,
    uniform rows of a sketch): each ``check(fn) -> Outcome`` calls ``fn`` on fixed instances with seeds
    0, 1, … and judges the results by tests whose false-alarm rate it states; the validator runs them
    once, after the search.
    """

    name: str
    signature: str
    doc: str
    tolerance: str
    strategy: Callable
    compare: Callable  # compare(instance, fn) -> Outcome (ratio = error / tolerance)
    max_examples: int | None = None
    seeded: str | None = None
    targets: Callable | None = None  # targets(instance) -> {label: float}
    trials: TrialRule | None = None
    options: tuple = ()  # ((module attribute, default), ...)
    statistical: tuple = ()  # (check(fn) -> Outcome, ...)
    corners: Callable | None = None  # corners() -> list of instances, judged after the search


@dataclass(frozen=True)
class TrialRule:
    """How a probabilistic guarantee of an adapter is judged (DESIGN principle 5): ``with_seed(instance,
    seed)`` is the instance of the trial with that seed, ``delta(instance)`` the failure probability the
    guarantee allows; ``trials`` seeded trials per instance, judged by the ledger's binomial rule."""

    with_seed: Callable
    delta: Callable
    trials: int = 40


class AdapterSet:
    """The adapters of one module, in the order they are declared; used as a decorator factory::

        adapters = AdapterSet()

        @adapters("kron", signature=..., doc=..., tolerance=..., strategy=...)
        def _kron(inst, fn): ...
    """

    def __init__(self):
        self.adapters: list[Adapter] = []

    def __iter__(self):
        return iter(self.adapters)

    def __len__(self):
        return len(self.adapters)

    def __call__(self, name: str, *, signature: str, doc: str, tolerance: str, strategy: Callable,
                 max_examples: int | None = None, seeded: str | None = None, targets: Callable | None = None,
                 trials: TrialRule | None = None, options: tuple = (), statistical: tuple = (),
                 corners: Callable | None = None):
        if any(a.name == name for a in self.adapters):
            raise ValueError(f"adapter name={name!r} is declared twice")

        def decorate(compare):
            self.adapters.append(Adapter(name, signature, doc, tolerance, strategy, compare, max_examples, seeded,
                                         targets, trials, tuple(options), tuple(statistical), corners))
            return compare

        return decorate


def output(value, name: str, *, shape: tuple | None = None) -> np.ndarray:
    """The one output check of every adapter: ``value`` as a finite real float64 array of ``shape``.

    Raises ``ValueError`` with a message naming the function, e.g.
    ``out.shape=(2,), but should be (3,) [kron]``.
    """
    try:
        arr = np.asarray(value)
    except Exception as exc:  # an object numpy cannot hold
        raise ValueError(f"out={value!r} is not an array [{name}]: {exc}") from None
    if np.iscomplexobj(arr):
        raise ValueError(f"out.dtype={arr.dtype}, but should be real [{name}]")
    try:
        arr = arr.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"out.dtype={arr.dtype}, but should be real numbers [{name}]: {exc}") from None
    if shape is not None and arr.shape != tuple(shape):
        raise ValueError(f"out.shape={arr.shape}, but should be {tuple(shape)} [{name}]")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"out holds a non-finite value {arr!r}, but should be finite [{name}]")
    return arr


@dataclass(frozen=True)
class Comparison(Outcome):
    """The outcome of an adapter's tolerance rule that also states what the module's output was compared
    with, for a FAIL report a user can act on (issue 25, item 6): ``expected`` is the oracle's value
    (float64, shaped as the output), ``symbols`` the ((symbol, value), ...) of the rule at this input, e.g.
    (("m", 710.0), ("n", 1), ("d", 1))."""

    expected: object = None
    symbols: tuple = ()


def within(err, tol, note: str, *, expected=None, symbols=()) -> Outcome:
    """The outcome of a tolerance rule: holds when ``err ≤ tol``; ratio = err/tol.  ``expected`` and
    ``symbols`` (optional) are carried to the report (:class:`Comparison`)."""
    ratio = float(err / tol) if tol else (0.0 if err == 0 else float("inf"))
    return Comparison(bool(err <= tol), ratio, float(err), float(tol), None, note, expected, tuple(symbols))


def table(adapters, *, markdown: bool = False) -> str:
    """The contract as text (``python -m properties adapters``) or as README's markdown table."""
    if not markdown:
        return "\n".join(f"{ad.signature}\n    {ad.doc}\n    tolerance: {ad.tolerance}" for ad in adapters)
    lines = ["| function | what it returns | tolerance rule |", "|---|---|---|"]
    for ad in adapters:
        cells = (f"`{ad.signature}`", ad.doc, ad.tolerance)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)
