"""scipy.optimize.minimize(method="L-BFGS-B") as ``softmax_solve``, at tight tolerances (ftol, gtol
at the float64 floor); same loss and gradient as :mod:`scipy_minimize`."""

from .scipy_minimize import solve


def softmax_solve(A, b, w):
    return solve(A, b, w, "L-BFGS-B", ftol=1e-16, gtol=1e-15, maxiter=15000, maxcor=20)
