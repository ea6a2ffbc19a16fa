"""Judging one instance: turn mpmath quantities into an :class:`~properties.toolkit.Outcome`.

Each helper takes a thunk that recomputes the two sides under the current mpmath precision, so the
oracle's :func:`~oracle.decide_sign` can escalate precision until the verdict is stable (DESIGN
principle 4).  The starting precision is :func:`start_dps` (50 digits; the ledger re-checks a shrunk
counterexample with it doubled).
"""

from __future__ import annotations

import contextlib
import contextvars
import math

import numpy as np
from mpmath import mp

from oracle import LADDER, decide_sign, linalg

from ..errors import HypothesisUnmet, UndecidableError
from .outcome import Outcome

__all__ = [
    "HypothesisUnmet",
    "UndecidableError",
    "at_precision",
    "eq",
    "float_outcome",
    "le",
    "loewner",
    "require",
    "slope",
    "start_dps",
    "worst",
    "worst_pair",
]

_START = contextvars.ContextVar("start_dps", default=LADDER[0])


def start_dps() -> int:
    return _START.get()


@contextlib.contextmanager
def at_precision(dps: int):
    """Run checks with the precision ladder starting at ``dps`` digits (dps, 2dps, 4dps, 8dps)."""
    token = _START.set(dps)
    try:
        yield
    finally:
        _START.reset(token)


def _ladder():
    d = _START.get()
    return (d, 2 * d, 4 * d, 8 * d)


def _f(x) -> float:
    try:
        return float(x)
    except OverflowError:
        return math.copysign(math.inf, x)


def _ratio(measured, bound) -> float:
    scale = max(abs(measured), abs(bound))
    if scale == 0:
        return 0.0  # 0 ≤ 0: holds, but says nothing about tightness
    if bound > 0:
        return _f(measured / bound)
    return _f(1 + (measured - bound) / scale)


def le(sides, *, scale=None, note: str = "") -> Outcome:
    """Judge ``measured ≤ bound``; ``sides()`` returns ``(measured, bound)`` as mpmath numbers.

    ``scale`` (a thunk, optional) is the magnitude of the terms the difference came from, when it is
    larger than both sides (cancellation); by default max(|measured|, |bound|).
    """

    def diff():
        m, b = sides()
        s = scale() if scale is not None else max(abs(m), abs(b))
        return b - m, s

    decision = decide_sign(diff, ladder=_ladder())
    with mp.workdps(decision.dps):
        m, b = sides()
    return Outcome(decision.sign >= 0, _ratio(m, b), _f(m), _f(b), decision.digits, note)


def eq(sides, *, scale=None, note: str = "") -> Outcome:
    """Judge the identity ``lhs = rhs`` (exactly, to within the resolution of the precision used).

    ``sides()`` returns ``(lhs, rhs)`` (numbers or ``mp.matrix``); ``ratio`` is the relative
    discrepancy ‖lhs − rhs‖ / max(‖lhs‖, ‖rhs‖).
    """

    def diff():
        lhs, rhs = sides()
        if isinstance(lhs, mp.matrix) or isinstance(rhs, mp.matrix):
            if (lhs.rows, lhs.cols) != (rhs.rows, rhs.cols):
                raise ValueError(f"sides have shapes {lhs.rows}x{lhs.cols} and {rhs.rows}x{rhs.cols}")
            d = linalg.norm2(lhs - rhs)
            s = max(linalg.norm2(lhs), linalg.norm2(rhs))
        else:
            d = abs(lhs - rhs)
            s = max(abs(lhs), abs(rhs))
        if scale is not None:
            s = max(s, scale())
        return d, s

    decision = decide_sign(diff, ladder=_ladder())
    d, s = decision.value, decision.scale
    ratio = _f(d / s) if s else 0.0
    return Outcome(decision.sign == 0, ratio, _f(d), 0.0, decision.digits, note)


def loewner(X, Y, *, note: str = "") -> Outcome:
    """Judge ``X ⪯ Y``; the thunks ``X()``, ``Y()`` return symmetric ``mp.matrix``.

    measured = −λ_min(Y − X), bound = 0; ratio = 1 − λ_min(Y − X)/max(‖X‖, ‖Y‖) (1 = tight).
    """

    def margin():
        x, y = X(), Y()
        s = max(linalg.spectral_norm(x), linalg.spectral_norm(y))
        return linalg.loewner_margin(x, y), s

    decision = decide_sign(margin, ladder=_ladder())
    lam, s = decision.value, decision.scale
    ratio = _f(1 - lam / s) if s else 1.0
    return Outcome(decision.sign >= 0, ratio, _f(-lam), 0.0, decision.digits, note)


def float_outcome(measured: float, bound: float, *, note: str = "") -> Outcome:
    """Judge ``measured ≤ bound`` for quantities that are float64 by nature (counts, fitted
    exponents, statistical rates): no precision escalation, ``digits`` is None."""
    return Outcome(bool(measured <= bound), _ratio(measured, bound), float(measured), float(bound), None, note)


def worst(*outcomes: Outcome) -> Outcome:
    """Several judged parts of one claim: the first failing part, else the tightest one."""
    for o in outcomes:
        if not o.holds:
            return o
    return max(outcomes, key=lambda o: o.ratio)


def worst_pair(*pairs):
    """Of several (measured, bound) pairs, the one with the largest measured − bound (a chain of
    inequalities judged by its weakest link)."""
    return max(pairs, key=lambda mb: mb[0] - mb[1])


def require(cond, why: str) -> None:
    """A hypothesis the instance must meet: raise :class:`HypothesisUnmet` when ``cond`` is false."""
    if not cond:
        raise HypothesisUnmet(f"instance does not meet the hypotheses: {why}")


def slope(xs, ys) -> float:
    """The least-squares slope of log ys against log xs: the fitted exponent of a size sweep
    (running-time claims, docs/development.md#counts-not-clocks)."""
    lx, ly = np.log(np.asarray(xs, dtype=np.float64)), np.log(np.asarray(ys, dtype=np.float64))
    if lx.size < 2 or not (np.all(np.isfinite(lx)) and np.all(np.isfinite(ly))):
        raise ValueError(f"slope needs at least two positive finite points, got xs={xs!r}, ys={ys!r}")
    return float(np.polyfit(lx, ly, 1)[0])
