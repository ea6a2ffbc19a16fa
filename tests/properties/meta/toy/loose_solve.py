"""``softmax_solve`` by L-BFGS-B at scipy's default tolerances (gtol = 1e-5): it stops far from x*
(relative error ~1e-6), so the validator must FAIL it at the default SOLVE_TOLERANCE = 1e-8;
:mod:`loose_solve_declared` declares the accuracy it does reach and passes."""

from tests.properties.meta.real.scipy_minimize import solve


def softmax_solve(A, b, w):
    return solve(A, b, w, "L-BFGS-B")
