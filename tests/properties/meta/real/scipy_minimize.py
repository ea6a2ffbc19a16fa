"""scipy.optimize.minimize as ``softmax_solve``: the loss, its gradient and Hessian written with numpy
(max-shifted softmax), minimised by ``trust-exact`` (``METHOD``) at a tight gradient tolerance.
:mod:`scipy_lbfgsb` is the same with L-BFGS-B."""

import numpy as np
from scipy.optimize import minimize

METHOD = "trust-exact"


def _parts(A, b, w, x):
    u = A @ x
    e = np.exp(u - u.max())
    f = e / e.sum()
    return u, f, f - b


def loss(x, A, b, w):
    u, f, c = _parts(A, b, w, x)
    return 0.5 * c @ c + 0.5 * np.sum((w * u) ** 2)


def gradient(x, A, b, w):
    u, f, c = _parts(A, b, w, x)
    return A.T @ (f * c - (c @ f) * f + w**2 * u)


def hessian(x, A, b, w):
    _, f, c = _parts(A, b, w, x)
    J = np.diag(f) - np.outer(f, f)
    dr = np.diag(c + f) @ J - np.outer(f, f + c) @ J - (c @ f) * J + np.diag(w**2)
    H = A.T @ dr @ A
    return (H + H.T) / 2


def solve(A, b, w, method, **options):
    x0 = np.zeros(A.shape[1])
    args = (A, b, w)
    if method == "L-BFGS-B":
        res = minimize(loss, x0, args=args, jac=gradient, method=method, options=options)
    else:
        res = minimize(loss, x0, args=args, jac=gradient, hess=hessian, method=method, options=options)
    return res.x


def softmax_solve(A, b, w):
    return solve(A, b, w, METHOD, gtol=1e-15, maxiter=1000)
