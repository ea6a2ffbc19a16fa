"""Kernel ridge regression with the attention kernel, side by side in one run on the same data:
``(K + λI)α = y``, ``K = exp(XᵀX)`` (Section L of paper 004), at equal relative residual
``‖(K + λI)α − y‖/‖y‖ ≤ τ`` measured against the exact kernel.

Routes:
- ``dense``: numpy kernel + ``scipy.linalg.cho_factor``/``cho_solve`` (n ≤ --dense-max);
- ``nystroem``: scikit-learn ``Nystroem(kernel="rbf", gamma=1/2)`` scaled by ``e^{‖x‖²/2}`` (exp⟨x,y⟩ =
  e^{‖x‖²/2} e^{‖y‖²/2} e^{−‖x−y‖²/2}) + ridge in feature space, α = (y − Φw)/λ;
- ``polysketch``: scikit-learn ``PolynomialCountSketch`` per Taylor degree l ≤ q (weights 1/√l!) + ridge;
- ``ours-taylor``: :func:`solvers.kernel_ridge.taylor_ridge_solve` (exact Taylor features of Q_q with
  ‖K − Q_q‖ ≤ τλ/2, ridge in feature space by Woodbury + refinement; never forms K);
- ``ours-alg8``: :func:`solvers.kernel_ridge.feature_ridge_solve` on Algorithm 8's features W_g (the
  system Algorithm 7 solves, ridge form), m_l rows per degree swept like the scikit-learn routes;
- ``ours-7R`` (``--with-7r``): Algorithm 7R (Algorithm 8 preconditioner, Richardson) with the Taylor
  K-matvec, ``kernel_ridge_solve(kernel="taylor")``.
The feature routes (nystroem, polysketch, ours-alg8) double their number of components until the
residual reaches τ; the first that does (or the last tried) is then timed.  Every route is timed
``--repeats`` times, interleaved (one call of each route per round), after one untimed warm-up call
(JIT compilation: the call that measured the residual); the median is reported, and its ratio to
ours-taylor.

Residual: for n ≤ --exact-residual-max the exact ``‖(K+λI)α − y‖`` by the blocked kernel product
(K never formed, O(n²d)); above it, estimated on ``--residual-rows`` rows drawn uniformly without
replacement (``√(n/k)·‖r_S‖``, marked "≈").
s_λ: exact (eigenvalues of K) for n ≤ --exact-statdim-max, else ``s_λ(Q_q)`` from the M×M Gram of the
Taylor features with ``s_λ(Q_q) ≤ s_λ(K) ≤ s_λ(Q_q) + n‖K − Q_q‖/λ`` (the upper end is printed).

Run: ``python -m benchmarks.kernel_regression --n 4096 8192 --d 2 --lam 1 10 --tol 1e-6``
(``--large 131072`` adds ours-taylor alone at n = 2^17: time and peak RSS).
"""

from __future__ import annotations

import argparse
import math
import resource
import statistics
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


def residual(X, y, lam, alpha, exact_max, rows, seed=0):
    """``‖(K+λI)α − y‖/‖y‖``: exact (blocked) for n ≤ exact_max, else on ``rows`` random rows."""
    n = X.shape[1]
    if n <= exact_max:
        Ka = np.asarray(kr.kernel_matvec(X, alpha, block=512))
        return float(np.linalg.norm(Ka + lam * alpha - y) / np.linalg.norm(y)), ""
    idx = np.sort(np.random.default_rng(seed).choice(n, size=rows, replace=False))
    r = np.zeros(rows)
    for s in range(0, rows, 256):
        block = idx[s:s + 256]
        r[s:s + 256] = np.exp(X[:, block].T @ X) @ alpha + lam * alpha[block] - y[block]
    return float(math.sqrt(n / rows) * np.linalg.norm(r) / np.linalg.norm(y)), "≈"


def statdim(X, lam, tol, exact_max):
    """s_λ(K) exactly for small n, else the bracket [s_λ(Q_q), s_λ(Q_q) + n‖K − Q_q‖/λ]."""
    n = X.shape[1]
    if n <= exact_max:
        ev = np.clip(np.linalg.eigvalsh(np.exp(X.T @ X)), 0, None)
        s = float(np.sum(ev / (ev + lam)))
        return s, s
    r = float(np.max(np.linalg.norm(X, axis=0)))
    q = kr.taylor_degree(r, n, tol * lam / 2)
    Phi = np.asarray(kr.taylor_features(X, q))
    ev = np.clip(np.linalg.eigvalsh(Phi @ Phi.T), 0, None)
    s = float(np.sum(ev / (ev + lam)))
    return s, s + n * kr.taylor_tail(r, n, q) / lam


def dense(X, y, lam):
    K = np.exp(X.T @ X)
    K[np.diag_indices_from(K)] += lam
    return scipy.linalg.cho_solve(scipy.linalg.cho_factor(K, lower=True, check_finite=False), y, check_finite=False)


def feature_ridge(Phi, y, lam):
    """α = (ΦΦᵀ + λI)^{-1}y for Φ (n × c): through the c×c system when c < n, else the n×n one."""
    n, c = Phi.shape
    if c < n:
        w = scipy.linalg.solve(Phi.T @ Phi + lam * np.eye(c), Phi.T @ y, assume_a="pos")
        return (y - Phi @ w) / lam
    return scipy.linalg.solve(Phi @ Phi.T + lam * np.eye(n), y, assume_a="pos")


def nystroem(X, y, lam, c):
    A = X.T
    Phi = Nystroem(kernel="rbf", gamma=0.5, n_components=min(c, A.shape[0]), random_state=0).fit_transform(A)
    Phi *= np.exp(0.5 * np.sum(A * A, axis=1))[:, None]
    return feature_ridge(Phi, y, lam)


def polysketch(X, y, lam, c, q):
    A = X.T
    blocks = [np.ones((A.shape[0], 1))]
    for l in range(1, q + 1):
        f = PolynomialCountSketch(degree=l, gamma=1.0, coef0=0, n_components=c, random_state=l).fit_transform(A)
        blocks.append(f / math.sqrt(math.factorial(l)))
    return feature_ridge(np.hstack(blocks), y, lam)


def ours_taylor(X, y, lam, tol):
    res = kr.taylor_ridge_solve(X, y, lam, eps=tol)
    return np.asarray(res.x), res


def ours_alg8(X, y, lam, c, q):
    W = kr.attention_features(X, kr.feature_bits(0, X.shape[0], (c,) * q)).W
    return np.asarray(kr.feature_ridge_solve(W, y, lam, eps=1e-12).x)


def ours_7r(X, y, lam, tol, c_w, eps0):
    res = kr.kernel_ridge_solve(X, y, lam, key=0, eps=tol, eps0=eps0, c_w=c_w, kernel="taylor")
    return np.asarray(res.x), res


def sweep(route, resid, tol, start, limit):
    """Double the components until the residual reaches tol; (components, residual, reached)."""
    c, best = start, None
    while c <= limit:
        r = resid(route(c))
        best = (c, r, r <= tol)
        if r <= tol:
            return best
        c *= 2
    return best


def timed(routes, repeats):
    """Median seconds per route over ``repeats`` interleaved rounds (each route was called once before,
    for its residual: that call is the warm-up, JIT compilation included)."""
    times = {name: [] for name in routes}
    for _ in range(repeats):
        for name, fn in routes.items():
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    return {name: statistics.median(v) for name, v in times.items()}


def instance(n, d, lam, args):
    X, y = data(n, d)
    r = float(np.max(np.linalg.norm(X, axis=0)))
    q = kr.taylor_degree(r, n, args.tol * lam / 2)
    M = math.comb(d + q, q)
    s_lo, s_hi = statdim(X, lam, args.tol, args.exact_statdim_max) if M <= 4096 or n <= args.exact_statdim_max \
        else (float("nan"), float("nan"))

    def resid(alpha):
        return residual(X, y, lam, alpha, args.exact_residual_max, args.residual_rows)[0]

    routes, rows = {}, {}
    if M <= 4096:
        alpha, res = ours_taylor(X, y, lam, args.tol)
        routes["ours-taylor"] = lambda: ours_taylor(X, y, lam, args.tol)
        rows["ours-taylor"] = (M, resid(alpha), f"q={res.q}, refinement steps={res.iterations}")
    if n <= args.dense_max:
        routes["dense"] = lambda: dense(X, y, lam)
        rows["dense"] = (n, resid(dense(X, y, lam)), "")
    c, rr, _ = sweep(lambda c: nystroem(X, y, lam, c), resid, args.tol, 16, min(n, args.max_components))
    routes["nystroem"] = lambda c=c: nystroem(X, y, lam, c)
    rows["nystroem"] = (c, rr, "")
    qs = min(q, args.max_sketch_degree)
    c, rr, _ = sweep(lambda c: polysketch(X, y, lam, c, qs), resid, args.tol, 16, args.max_components // qs)
    routes["polysketch"] = lambda c=c: polysketch(X, y, lam, c, qs)
    rows["polysketch"] = (1 + qs * c, rr, f"q={qs}, {c}/degree")
    c, rr, _ = sweep(lambda c: ours_alg8(X, y, lam, c, qs), resid, args.tol, 16, args.alg8_max_rows)
    routes["ours-alg8"] = lambda c=c: ours_alg8(X, y, lam, c, qs)
    rows["ours-alg8"] = (1 + qs * c, rr, f"q={qs}, {c}/degree")
    if args.with_7r and M <= 4096:
        alpha, res = ours_7r(X, y, lam, args.tol, args.c_w, args.eps0)
        routes["ours-7R"] = lambda: ours_7r(X, y, lam, args.tol, args.c_w, args.eps0)
        rows["ours-7R"] = (1 + sum(res.rows), resid(alpha), f"c_w={args.c_w}, ε₀={args.eps0}, q={res.q}, "
                           f"{res.iterations} steps, {res.status.value}")
    secs = timed(routes, args.repeats)
    ref = "ours-taylor" if "ours-taylor" in secs else "dense"
    base = secs.get(ref)
    s_txt = f"{s_lo:.1f}" if s_lo == s_hi else f"[{s_lo:.1f}, {s_hi:.1f}]"
    print(f"\nn = {n}, d = {d}, λ = {lam:g}, s_λ = {s_txt}, Taylor degree q = {q}, M = C(d+q, q) = {M}"
          + ("" if M <= 4096 else " > 4096: ours-taylor infeasible"))
    for name, (size, rr, note) in rows.items():
        ratio = "" if base is None else f"{secs[name] / base:8.1f}× {ref}"
        print(f"  {name:<12} {secs[name]:>9.3f} s {ratio:>21} size {size:>6}  residual {rr:9.2e} "
              f"{'yes' if rr <= args.tol else 'NO '}  {note}", flush=True)


def large(n, d, lam, args):
    X, y = data(n, d)
    t = time.perf_counter()
    alpha, res = ours_taylor(X, y, lam, args.tol)
    first = time.perf_counter() - t
    t = time.perf_counter()
    alpha, res = ours_taylor(X, y, lam, args.tol)
    secs = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    rr, how = residual(X, y, lam, alpha, args.exact_residual_max, args.residual_rows)
    s_lo, s_hi = statdim(X, lam, args.tol, args.exact_statdim_max)
    print(f"\nn = {n}, d = {d}, λ = {lam:g}, s_λ ∈ [{s_lo:.1f}, {s_hi:.1f}]: ours-taylor {secs:.3f} s (first call with "
          f"compilation {first:.3f} s), M = {res.features}, q = {res.q}, residual {how}{rr:.2e} "
          f"({'exact, blocked' if not how else f'on {args.residual_rows} random rows'}), peak RSS of the process "
          f"{peak:.2f} GiB (dense would need {8 * n * n / 2**30:.0f} GiB for K)", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, nargs="*", default=[4096, 8192])
    ap.add_argument("--d", type=int, nargs="+", default=[2])
    ap.add_argument("--lam", type=float, nargs="+", default=[1.0, 10.0])
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--dense-max", type=int, default=8192)
    ap.add_argument("--exact-statdim-max", type=int, default=4096)
    ap.add_argument("--exact-residual-max", type=int, default=16384)
    ap.add_argument("--residual-rows", type=int, default=8192)
    ap.add_argument("--max-components", type=int, default=4096)
    ap.add_argument("--max-sketch-degree", type=int, default=20, help="cap on q for polysketch and ours-alg8")
    ap.add_argument("--alg8-max-rows", type=int, default=128, help="ours-alg8: most rows per degree in the sweep")
    ap.add_argument("--with-7r", action="store_true")
    ap.add_argument("--c-w", type=float, default=0.25, help="ours-7R: rows constant (spec: 4)")
    ap.add_argument("--eps0", type=float, default=0.45, help="ours-7R: design sandwich accuracy (< 1/2)")
    ap.add_argument("--large", type=int, nargs="*", default=[])
    args = ap.parse_args(argv)
    print(machine_info())
    print(f"τ = {args.tol:g} (relative residual of (K + λI)α = y against the exact kernel); medians of "
          f"{args.repeats} interleaved runs after a warm-up; ratio = route / ours-taylor "
          "(/ dense where ours-taylor is infeasible)")
    for d in args.d:
        for n in args.n:
            for lam in args.lam:
                instance(n, d, lam, args)
        for n in args.large:
            for lam in args.lam:
                large(n, d, lam, args)


if __name__ == "__main__":
    main()
