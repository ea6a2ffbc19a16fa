"""Kernel ridge regression with the attention kernel, side by side in one run on the same data:
``(K + λI)α = y``, ``K = exp(XᵀX)`` (Section L of paper 004), at equal relative residual
``‖(K + λI)α − y‖/‖y‖ ≤ τ`` measured against the exact kernel (blocked, never formed for large n).

Routes:
- ``dense``: numpy kernel + ``scipy.linalg.cho_factor``/``cho_solve`` (n ≤ --dense-max);
- ``nystroem``: scikit-learn ``Nystroem(kernel="rbf", gamma=1/2)`` scaled by ``e^{‖x‖²/2}`` (exp⟨x,y⟩ =
  e^{‖x‖²/2} e^{‖y‖²/2} e^{−‖x−y‖²/2}) + ridge in feature space, α = (y − Φw)/λ;
- ``polysketch``: scikit-learn ``PolynomialCountSketch`` per Taylor degree l ≤ q (weights 1/√l!) + ridge;
- ``ours``: ``solvers.kernel_ridge.kernel_ridge_solve`` (Algorithm 8 features, Algorithm 7R).
The feature routes sweep their number of components (doubling) until the residual reaches τ and report
the first that does (time of that run alone), or the best residual they reached.

s_λ(K) is reported for every instance: exactly (eigenvalues) for n ≤ --exact-statdim-max, else the
feature estimate of :func:`solvers.kernel_ridge.estimate_statistical_dimension` (marked "≈").

Run: ``python -m benchmarks.kernel_regression --n 4096 8192 --d 2 --lam 1 10 --tol 1e-6``
(add ``--large 131072`` for ours alone at n = 2^17: time and peak RSS).
"""

from __future__ import annotations

import argparse
import math
import resource
import time

import jax
import numpy as np

jax.config.update("jax_enable_x64", True)

import scipy.linalg  # noqa: E402
from sklearn.kernel_approximation import Nystroem, PolynomialCountSketch  # noqa: E402

from benchmarks.machine import machine_info  # noqa: E402
from solvers import kernel_ridge as kr  # noqa: E402


def data(n, d, seed=0):
    """Points uniform in the unit ball of R^d (columns), targets a smooth function plus noise."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((d, n))
    X = X / np.linalg.norm(X, axis=0) * rng.uniform(0, 1, n) ** (1 / d)
    y = np.sin(3 * X[0]) + 0.1 * rng.standard_normal(n)
    return X, y


def residual(X, y, lam, alpha):
    Ka = np.asarray(kr.kernel_matvec(X, alpha, block=512))
    return float(np.linalg.norm(Ka + lam * alpha - y) / np.linalg.norm(y))


def statdim(X, lam, exact_max):
    n = X.shape[1]
    if n <= exact_max:
        ev = np.linalg.eigvalsh(np.exp(X.T @ X))
        return float(np.sum(np.clip(ev, 0, None) / (np.clip(ev, 0, None) + lam))), "exact"
    return kr.estimate_statistical_dimension(X, lam, key=1), "≈"


def dense(X, y, lam):
    t = time.perf_counter()
    K = np.exp(X.T @ X)
    K[np.diag_indices_from(K)] += lam
    alpha = scipy.linalg.cho_solve(scipy.linalg.cho_factor(K, lower=True, check_finite=False), y, check_finite=False)
    return time.perf_counter() - t, alpha


def feature_ridge(Phi, y, lam):
    w = np.linalg.solve(Phi.T @ Phi + lam * np.eye(Phi.shape[1]), Phi.T @ y)
    return (y - Phi @ w) / lam


def nystroem(X, y, lam, c):
    t = time.perf_counter()
    A = X.T
    Phi = Nystroem(kernel="rbf", gamma=0.5, n_components=c, random_state=0).fit_transform(A)
    Phi *= np.exp(0.5 * np.sum(A * A, axis=1))[:, None]
    return time.perf_counter() - t, feature_ridge(Phi, y, lam)


def polysketch(X, y, lam, c, q):
    t = time.perf_counter()
    A = X.T
    blocks = [np.ones((A.shape[0], 1))]
    for l in range(1, q + 1):
        f = PolynomialCountSketch(degree=l, gamma=1.0, coef0=0, n_components=c, random_state=l).fit_transform(A)
        blocks.append(f / math.sqrt(math.factorial(l)))
    Phi = np.hstack(blocks)
    return time.perf_counter() - t, feature_ridge(Phi, y, lam)


def ours(X, y, lam, tol, c_w, eps0):
    t = time.perf_counter()
    res = kr.kernel_ridge_solve(X, y, lam, key=0, eps=tol, eps0=eps0, c_w=c_w)
    np.asarray(res.x)
    return time.perf_counter() - t, np.asarray(res.x), res


def sweep(route, X, y, lam, tol, start, limit):
    """Double the components until the residual reaches tol; (seconds, components, residual, reached)."""
    c, best = start, None
    while c <= limit:
        secs, alpha = route(c)
        r = residual(X, y, lam, alpha)
        best = (secs, c, r, r <= tol)
        if r <= tol:
            return best
        c *= 2
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, nargs="+", default=[4096, 8192])
    ap.add_argument("--d", type=int, default=2)
    ap.add_argument("--lam", type=float, nargs="+", default=[1.0, 10.0])
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--dense-max", type=int, default=8192)
    ap.add_argument("--exact-statdim-max", type=int, default=4096)
    ap.add_argument("--c-w", type=float, default=0.25, help="ours: rows constant (spec: 4)")
    ap.add_argument("--eps0", type=float, default=0.45, help="ours: design sandwich accuracy (< 1/2)")
    ap.add_argument("--max-components", type=int, default=4096)
    ap.add_argument("--large", type=int, nargs="*", default=[])
    args = ap.parse_args(argv)
    print(machine_info())
    print(f"d = {args.d}, τ = {args.tol:g} (relative residual of (K + λI)α = y against the exact kernel)")
    hdr = f"{'n':>7} {'λ':>6} {'s_λ':>10} | {'route':<10} {'seconds':>8} {'size':>7} {'residual':>9} reached"
    print(hdr)
    for n in args.n:
        X, y = data(n, args.d)
        r = float(np.max(np.linalg.norm(X, axis=0)))
        for lam in args.lam:
            s, how = statdim(X, lam, args.exact_statdim_max)
            tag = f"{n:>7} {lam:>6g} {('' if how == 'exact' else '≈') + f'{s:.1f}':>10} |"
            rows = []
            if n <= args.dense_max:
                secs, alpha = dense(X, y, lam)
                rows.append(("dense", secs, n, residual(X, y, lam, alpha), True))
            secs, alpha, res = ours(X, y, lam, args.tol, args.c_w, args.eps0)
            rr = residual(X, y, lam, alpha)
            rows.append(("ours", secs, 1 + sum(res.rows), rr, rr <= args.tol))
            out = sweep(lambda c, X=X, y=y, lam=lam: nystroem(X, y, lam, c), X, y, lam, args.tol, 64, args.max_components)
            rows.append(("nystroem", out[0], out[1], out[2], out[3]))
            q = kr.taylor_degree(r, n, args.tol * lam / 2)
            out = sweep(lambda c, X=X, y=y, lam=lam, q=q: polysketch(X, y, lam, c, q), X, y, lam, args.tol, 64,
                        args.max_components)
            rows.append((f"polysk q={q}", out[0], out[1], out[2], out[3]))
            for name, secs, size, rr, ok in rows:
                print(f"{tag} {name:<10} {secs:>8.2f} {size:>7} {rr:>9.2e} {'yes' if ok else 'NO'}", flush=True)
            print(f"{'':>26}   ours: q={res.q}, iterations={res.iterations}, status={res.status.value}")
    for n in args.large:
        X, y = data(n, args.d)
        for lam in args.lam:
            secs, alpha, res = ours(X, y, lam, args.tol, args.c_w, args.eps0)
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
            print(f"{n:>7} {lam:>6g} {'≈' + format(res.s_lambda, '.1f'):>10} | ours       {secs:>8.2f} "
                  f"{1 + sum(res.rows):>7} {res.residuals[-1]:>9.2e} {res.status.value}  peak RSS {peak:.2f} GiB "
                  f"(dense would need {8 * n * n / 2**30:.0f} GiB for K)", flush=True)


if __name__ == "__main__":
    main()
