"""The result of judging one instance of a claim (or one adapter comparison)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Outcome"]


@dataclass(frozen=True)
class Outcome:
    """What one check measured.

    ``ratio`` follows the spec: measured/bound for inequalities (≤ 1 means it held; near 1 means
    tight), the relative discrepancy for identities, 1 − λ_min(Y − X)/scale for Loewner orders,
    error/tolerance for adapter comparisons.  ``digits`` is how many decimal digits support
    ``holds`` (None for float64-only checks).
    """

    holds: bool
    ratio: float
    measured: float
    bound: float
    digits: int | None = None
    note: str = ""
