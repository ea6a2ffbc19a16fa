""":mod:`loose_solve` with its accuracy declared: ``SOLVE_TOLERANCE = 1e-3`` (relative), which
L-BFGS-B at default tolerances meets, so the validator passes it; a declared value outside [0, 0.01]
is refused by name."""

from tests.properties.meta.toy.loose_solve import softmax_solve

__all__ = ["SOLVE_TOLERANCE", "softmax_solve"]

SOLVE_TOLERANCE = 1e-3
