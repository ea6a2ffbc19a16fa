"""Benchmark: Newton solvers for regularised softmax regression vs scipy.optimize.

Run ``python -m benchmarks.softmax_regression`` (full, a few minutes, ~6 GiB of memory) or
``python -m benchmarks.softmax_regression --quick`` (n = 2^12, seconds).

Methods, all on the same data and stopped at the same point ‖x − x*‖₂ ≤ 1e-8 (x* from a tight
reference solve, ‖∇L(x*)‖ at rounding level):

- ``exact``: :func:`solvers.softmax_regression.exact_newton` (JAX, jitted, O(n d²) Hessian).
- ``approx``: :func:`solvers.softmax_regression.approximate_newton` (Algorithm 1, ε0 = 0.01,
  δ = 0.01).
- ``approx (sketch leverage)``: the same with ``leverage="sketch"`` (CountSketch + JL
  leverage-score estimates, O(nnz(A)·k + d³) once per solve) and the larger ε0 = SKETCH_EPS0,
  so that the sampler drops most rows: more iterations, each far cheaper.
- ``split``: :func:`solvers.softmax_regression.split_newton` (approximate Newton whose Hessian
  is the constant AᵀW²A, formed once in float64 or float32, plus a sampled x-dependent diagonal
  part and the exact rank-2 part; one pass over A per accepted step).
- ``trust-exact``: ``scipy.optimize.minimize(method='trust-exact')`` with the exact numpy
  gradient and Hessian.
- ``L-BFGS-B``: ``scipy.optimize.minimize(method='L-BFGS-B', jac=True)`` with the exact numpy
  gradient.

Every method starts at the same x0 (family (a): x* + r0·u, the theorem's initialisation;
family (b): ln(n) − 4 on the peaks' logits, see the instance docstrings) and is stopped by a
callback as soon as ‖x − x*‖ ≤ 1e-8 (scipy's
own tolerances are set to 0 so they do not stop earlier); a method that does not get there
within its time budget is reported as ``>budget``.  Times are wall-clock (time.perf_counter),
median of ``--repeats`` runs (one run when a run exceeds 20 s); JIT compilation is warmed up
before timing.  The ratio column is (faster scipy time)/(method time): > 1 means faster than
the best scipy method.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import scipy.optimize  # noqa: E402
import threadpoolctl  # noqa: E402

from benchmarks.machine import machine_info  # noqa: E402
from solvers import softmax_regression as sr  # noqa: E402


def split_newton(*args, **kwargs):
    """:func:`solvers.softmax_regression.split_newton` with one BLAS thread.

    Its host work per iteration is d × d (or k × d for the k sampled rows).  A multi-threaded
    OpenBLAS pool left spinning competes with XLA's threads for the cores during the passes over
    A (measured: 0.95-1.16 s instead of 0.77 s per solve at n = 2^18)."""
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        return sr.split_newton(*args, **kwargs)


STOP = 1e-8
SKETCH_EPS0 = 0.5  # ε0 of the sketched-leverage approximate Newton (more, cheaper iterations)
BULK_MIN_SCALE = 0.3  # bulk column scales 1 … 0.3 (κ(∇²L(x*)) ≈ 60), e-column 0.01


# ---------------------------------------------------------------------------- numpy objective

def np_fun_grad(x, A, b, w2):
    u = A @ x
    e = np.exp(u - u.max())
    f = e / e.sum()
    c = f - b
    L = 0.5 * c @ c + 0.5 * (w2 * u) @ u
    r = f * c - (c @ f) * f + w2 * u
    return L, r @ A


def np_fun(x, A, b, w2):
    return np_fun_grad(x, A, b, w2)[0]


def np_grad(x, A, b, w2):
    return np_fun_grad(x, A, b, w2)[1]


def np_hess(x, A, b, w2):
    u = A @ x
    e = np.exp(u - u.max())
    f = e / e.sum()
    c = f - b
    v = f * (2 * f - b)
    D = w2 + v - (c @ f) * f
    af, av = np.stack([f, v]) @ A
    k1 = 3 * f @ f - 2 * b @ f
    H = (A * D[:, None]).T @ A + k1 * np.outer(af, af) - np.outer(av, af) - np.outer(af, av)
    return 0.5 * (H + H.T)


# -------------------------------------------------------------------------------- instances

def paper_instance(n, d, seed):
    """Family (a), the paper's regime (spec §3.4): A = U diag(s) Vᵀ, s from R = 1 down to
    σ_min = 0.1, l = 1, w_i² = 100 + l/σ_min² (thm9.1 / lem6.3.part2 hypothesis), b = t·p on the
    simplex.  The start is fixed later from x* (see :func:`paper_start`)."""
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.standard_normal((n, d)))
    V, _ = np.linalg.qr(rng.standard_normal((d, d)))
    s = np.geomspace(1.0, 0.1, d)
    A = (U * s) @ V.T
    del U
    b = 0.9 * rng.dirichlet(np.ones(n))
    w = np.full(n, math.sqrt(100.0 + 1.0 / 0.1 ** 2))
    return A, b, w, None, ("paper: ‖A‖=R=1, σ_min=0.1, l=1, w²=200, b=0.9·Dir(1); "
                           "x0 = x* + r0·u, r0 = min(0.1·l/M, R − ‖x*‖), M = 22R³ (spec §3.4.5-6)")


def paper_start(xstar, seed, R=1.0, l=1.0):
    """x0 = x* + r0 u, ‖u‖ = 1 fixed random, r0 = min(0.1 l/M, R − ‖x*‖) with M = 22R³
    (spec §3.4 steps 5-6: the theorem's good-initialisation hypothesis M r0 ≤ 0.1 l)."""
    u = np.random.default_rng(seed + 12345).standard_normal(xstar.shape[0])
    u /= np.linalg.norm(u)
    r0 = min(0.1 * l / (22.0 * R ** 3), R - np.linalg.norm(xstar))
    return xstar + r0 * u


def hard_instance(n, d, seed, k=5, u0=None):
    """Family (b), outside the theory (weak regularisation, non-convex L, Newton needs its
    safeguard): bulk Gaussian rows with column scales log-spaced 1 … 0.3, except the last column e
    (scale 0.01, so the regulariser is weak along e), bulk ‖·‖ ≈ 1;
    the k = 5 rows under the peaks of b (mass 0.9) are aligned, a_j = (10/√k)(0.8 e + 0.6 g_j)
    with e the weakest bulk column's direction and g_j ⟂ e random unit vectors, so ‖A‖ ≤ 10;
    w_i log-uniform in [0.01, 1] (0.01 on the peaks).  Start x0 = t e with ‖Ax0‖∞ = u0 =
    ln(n) − 4 (the peaks' logits; the peaks then hold a few per cent of the softmax mass): from
    x0 = 0, or from a start with the peaks' logits O(1) at n ≥ 2^18, every method stops at a
    poor local minimiser near 0; from this x0 they reach the good one (‖x*‖ of order 1) where the softmax
    is far from uniform, through a region where ∇²L is indefinite (λ_min(∇²L(x0)) < 0) and
    moderately conditioned at x* (λ_min(∇²L(x*)) ≈ 0.01, so ‖x − x*‖ ≤ 1e-8 is resolvable)."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, d))
    scales = np.geomspace(1.0, BULK_MIN_SCALE, d)
    scales[-1] = 0.01
    A *= (scales / math.sqrt(n))[None, :]
    e = np.zeros(d)
    e[-1] = 1.0
    support = rng.choice(n, k, replace=False)
    g = rng.standard_normal((k, d))
    g -= np.outer(g @ e, e)
    g /= np.linalg.norm(g, axis=1, keepdims=True)
    A[support] = (10.0 / math.sqrt(k)) * (0.8 * e[None, :] + 0.6 * g)
    b = np.zeros(n)
    b[support] = 0.9 * rng.dirichlet(np.ones(k))
    w = np.exp(rng.uniform(math.log(0.01), 0.0, n))
    w[support] = 0.01
    if u0 is None:
        u0 = math.log(n) - 4.0
    x0 = e * (u0 / (0.8 * 10.0 / math.sqrt(k)))
    return A, b, w, x0, (f"hard: bulk ‖·‖≈1, column scales 1…0.3 (e-column 0.01) + {k} aligned rows "
                         f"of norm {10 / math.sqrt(k):.2f} "
                         f"under the peaks of b (mass 0.9), w∈[0.01,1] (0.01 on the peaks), "
                         f"x0 along the aligned direction with ‖Ax0‖∞ = ln(n) − 4 = {u0:.3g}")


# ---------------------------------------------------------------------------------- runners

def run_scipy(method, A, b, w2, x0, xstar, budget):
    t0 = time.perf_counter()
    state = {"reached": False, "iters": 0, "x": np.array(x0)}

    def cb(intermediate_result):
        state["iters"] += 1
        state["x"] = intermediate_result.x
        if np.linalg.norm(intermediate_result.x - xstar) <= STOP:
            state["reached"] = True
            raise StopIteration
        if time.perf_counter() - t0 > budget:
            raise StopIteration

    if method == "trust-exact":
        res = scipy.optimize.minimize(np_fun_grad, x0, args=(A, b, w2), jac=True,
                                      hess=np_hess, method="trust-exact", callback=cb,
                                      options=dict(gtol=0.0, maxiter=100000))
    else:
        res = scipy.optimize.minimize(np_fun_grad, x0, args=(A, b, w2), jac=True,
                                      method="L-BFGS-B", callback=cb,
                                      options=dict(ftol=0.0, gtol=0.0, maxiter=10 ** 7,
                                                   maxfun=10 ** 7))
    t = time.perf_counter() - t0
    x = state["x"] if state["reached"] else res.x
    return t, state["reached"], state["iters"], float(np.linalg.norm(x - xstar))


def run_ours(method, Aj, bj, wj, x0, xstar, budget, **kw):
    t0 = time.perf_counter()
    state = {"reached": False, "x": x0}

    def cb(x):
        state["x"] = x
        if np.linalg.norm(x - xstar) <= STOP:
            state["reached"] = True
            return True
        return time.perf_counter() - t0 > budget

    if method == "exact":
        res = sr.exact_newton(Aj, bj, wj, x0=x0, tol=0.0, max_iter=500, callback=cb)
    elif method == "split":
        res = split_newton(Aj, bj, wj, x0=x0, key=0, tol=0.0, max_iter=500, callback=cb, **kw)
    else:
        res = sr.approximate_newton(Aj, bj, wj, x0=x0, key=0, tol=0.0, max_iter=500,
                                    callback=cb, **kw)
    t = time.perf_counter() - t0
    if method != "exact":
        ROWS_KEPT[method, tuple(sorted(kw.items()))] = res.sample_sizes
    return t, state["reached"], res.iterations, float(np.linalg.norm(res.x - xstar))


ROWS_KEPT = {}


def timed(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        t, reached, iters, dist = fn()
        times.append(t)
        out = (reached, iters, dist)
        if t > 20.0 or not reached:
            break
    return (statistics.median(times),) + out


def reference_solution(Aj, bj, wj, x0):
    """x* by safeguarded exact Newton from x0, run until the iterates stop moving (rounding
    level)."""
    prev = {"x": None, "still": 0}

    def cb(x):
        if prev["x"] is not None and np.linalg.norm(x - prev["x"]) <= 1e-15 * (1 + np.linalg.norm(x)):
            prev["still"] += 1
        prev["x"] = x
        return prev["still"] >= 2

    res = sr.exact_newton(Aj, bj, wj, x0=x0, tol=0.0, max_iter=200, callback=cb)
    return res.x, res.grad_norm_history[-1], res.iterations


def bench_instance(label, A, b, w, x0, repeats, budget, seed):
    Aj, bj, wj = jnp.asarray(A), jnp.asarray(b), jnp.asarray(w)
    w2 = w * w
    d = A.shape[1]
    # warm up every jitted kernel on this shape
    sr.exact_newton(Aj, bj, wj, tol=0.0, max_iter=1)
    sr.approximate_newton(Aj, bj, wj, key=0, tol=0.0, max_iter=1)
    sr.approximate_newton(Aj, bj, wj, key=0, tol=0.0, max_iter=1, leverage="sketch",
                          eps0=SKETCH_EPS0)
    for gram in ("float64", "float32"):
        split_newton(Aj, bj, wj, key=0, tol=0.0, max_iter=1, gram_dtype=gram)
    t0 = time.perf_counter()
    if x0 is None:  # family (a): x* first (it does not depend on the start), then x0 from x*
        xstar, _, _ = reference_solution(Aj, bj, wj, np.zeros(d))
        x0 = paper_start(xstar, seed)
    xstar, gref, ref_iters = reference_solution(Aj, bj, wj, x0)
    t_ref = time.perf_counter() - t0
    # warm up the sampled-Hessian buffer size the sketched run uses from this x0
    # (max_iter=500 as in run_ours, since it sets s = 3 ln(2d·max_iter/δ)/ε0²)
    calls = []
    sr.approximate_newton(Aj, bj, wj, x0=x0, key=0, tol=0.0, max_iter=500, leverage="sketch",
                          eps0=SKETCH_EPS0, callback=lambda x: calls.append(0) or len(calls) > 2)
    for gram in ("float64", "float32"):  # and split Newton's line-search kernel, if it is used
        split_newton(Aj, bj, wj, x0=x0, key=0, tol=0.0, max_iter=3, gram_dtype=gram)
    H = np.linalg.eigvalsh(np.asarray(sr.hessian(Aj, bj, wj, xstar)))
    H0 = np.linalg.eigvalsh(np.asarray(sr.hessian(Aj, bj, wj, x0)))
    info = (f"‖x*‖={np.linalg.norm(xstar):.3g}, ‖x0−x*‖={np.linalg.norm(x0 - xstar):.3g}, "
            f"‖Ax0‖∞={np.abs(A @ x0).max():.3g}, L(x0)={float(sr.loss(Aj, bj, wj, x0)):.4g}, "
            f"L(x*)={float(sr.loss(Aj, bj, wj, xstar)):.4g}, ‖∇L(x*)‖={gref:.1e}, "
            f"λ(∇²L(x0))∈[{H0[0]:.2g}, {H0[-1]:.2g}], λ(∇²L(x*))∈[{H[0]:.2g}, {H[-1]:.2g}]")
    print(f"  reference: {ref_iters} Newton iterations, {t_ref:.1f} s; {info}", flush=True)
    rows = {}
    for name, fn in [
        ("exact Newton (ours)", lambda: run_ours("exact", Aj, bj, wj, x0, xstar, budget)),
        ("approx Newton (ours, ε0=0.01)",
         lambda: run_ours("approx", Aj, bj, wj, x0, xstar, budget)),
        (f"approx Newton (ours, sketch leverage, ε0={SKETCH_EPS0})",
         lambda: run_ours("approx", Aj, bj, wj, x0, xstar, budget, leverage="sketch",
                          eps0=SKETCH_EPS0)),
        ("split Newton (ours, float64 Gram)",
         lambda: run_ours("split", Aj, bj, wj, x0, xstar, budget, gram_dtype="float64")),
        ("split Newton (ours, float32 Gram)",
         lambda: run_ours("split", Aj, bj, wj, x0, xstar, budget, gram_dtype="float32")),
        ("scipy trust-exact", lambda: run_scipy("trust-exact", A, b, w2, x0, xstar, budget)),
        ("scipy L-BFGS-B", lambda: run_scipy("L-BFGS-B", A, b, w2, x0, xstar, budget)),
    ]:
        rows[name] = timed(fn, repeats)
        t, reached, iters, dist = rows[name]
        print(f"  {name}: {t:.3f} s, reached={reached}, iterations={iters}, "
              f"final ‖x−x*‖={dist:.1e}", flush=True)
        if name.startswith(("approx", "split")):
            sizes = ROWS_KEPT.popitem()[1] if ROWS_KEPT else np.zeros(0, int)
            what = "rows drawn for the E part" if name.startswith("split") else "rows kept"
            print(f"    {what} per iteration (of n={A.shape[0]}): {sizes.tolist()}", flush=True)
    scipy_times = [rows[k][0] for k in ("scipy trust-exact", "scipy L-BFGS-B") if rows[k][1]]
    best_scipy = min(scipy_times) if scipy_times else float("nan")
    lines = []
    ratios = {}
    for name, (t, reached, iters, dist) in rows.items():
        tt = f"{t:.3f}" if reached else f">{t:.1f} (stopped)"
        if name.startswith("scipy"):
            ratio = "—"
        elif reached and scipy_times:
            ratio = f"{best_scipy / t:.2f}"
            ratios[name] = best_scipy / t
        elif reached:
            ratio = f">{min(rows[k][0] for k in rows if k.startswith('scipy')) / t:.1f}"
        else:
            ratio = "n/a"
        lines.append(f"| {label} | {name} | {iters} | {dist:.1e} | {tt} | {ratio} |")
    return lines, info, ratios


def per_iteration(Aj, bj, wj, x0, repeats):
    """Per-iteration cost: exact vs approximate Newton (ε0 = 0.01 and 0.09) on the given
    instance, and on the same A with the paper's w² = 200 (where the sampler can drop rows)."""
    n = Aj.shape[0]
    out = []

    def _t(f):
        t0 = time.perf_counter()
        f()
        return time.perf_counter() - t0

    def cost(fn):
        fn(1)
        fn(3)  # warm-up (and capacity compilations)
        t1 = statistics.median(_t(lambda: fn(1)) for _ in range(repeats))
        t3 = statistics.median(_t(lambda: fn(3)) for _ in range(repeats))
        return (t3 - t1) / 2.0, t1

    def measure(tag, w_, z):
        for name, fn in [
            ("exact Newton", lambda k: sr.exact_newton(Aj, bj, w_, x0=z, tol=0.0, max_iter=k)),
            ("approx Newton ε0=0.01", lambda k: sr.approximate_newton(
                Aj, bj, w_, x0=z, key=0, tol=0.0, max_iter=k)),
            ("approx Newton ε0=0.09", lambda k: sr.approximate_newton(
                Aj, bj, w_, x0=z, key=0, eps0=0.09, tol=0.0, max_iter=k)),
            (f"approx Newton sketch leverage ε0={SKETCH_EPS0}", lambda k: sr.approximate_newton(
                Aj, bj, w_, x0=z, key=0, eps0=SKETCH_EPS0, tol=0.0, max_iter=k,
                leverage="sketch")),
            ("split Newton float32 Gram", lambda k: split_newton(
                Aj, bj, w_, x0=z, key=0, tol=0.0, max_iter=k, gram_dtype="float32")),
        ]:
            per, first = cost(fn)
            sizes = fn(3).sample_sizes
            out.append(f"| {name} ({tag}) | {per:.3f} | {first:.3f} | "
                       f"{int(np.median(sizes))} / {n} |")
            print(f"  {name} ({tag}): {per:.3f} s/iteration (first call incl. setup "
                  f"{first:.3f} s), rows used {sizes}", flush=True)

    measure("family (b) w", wj, x0)
    measure("w²=200", jnp.full((n,), math.sqrt(200.0)), np.zeros(Aj.shape[1]))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small smoke run (n = 2^12, d = 32)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--budget", type=float, default=60.0,
                        help="seconds per solver run before giving up")
    parser.add_argument("--no-per-iteration", action="store_true")
    parser.add_argument("--instances", nargs="+", choices=["a16", "b18", "b20"],
                        default=["a16", "b18", "b20"],
                        help="which instances of the full run (default: all three)")
    args = parser.parse_args(argv)
    d = 128
    if args.quick:
        cases = [("(a) n=2^12", paper_instance, 1 << 12), ("(b) n=2^12", hard_instance, 1 << 12)]
        d, args.budget, args.repeats = 32, min(args.budget, 5.0), 1
        args.no_per_iteration = True
    else:
        all_cases = {"a16": ("(a) n=2^16", paper_instance, 1 << 16),
                     "b18": ("(b) n=2^18", hard_instance, 1 << 18),
                     "b20": ("(b) n=2^20", hard_instance, 1 << 20)}
        cases = [all_cases[k] for k in args.instances]
    print(machine_info(), flush=True)
    print(f"d={d}, stop at ‖x − x*‖ ≤ {STOP:g}, budget {args.budget:g} s, repeats {args.repeats}",
          flush=True)
    table = ["| instance | method | iterations | final ‖x−x*‖ | time (s) | speed-up vs best scipy |",
             "|---|---|---|---|---|---|"]
    descs = []
    for label, make, n in cases:
        A, b, w, x0, desc = make(n, d, seed=0)
        print(f"{label}, d={d}: {desc}", flush=True)
        lines, info, _ = bench_instance(label, A, b, w, x0, args.repeats, args.budget, seed=0)
        descs.append(f"- {label}: {desc}\n  ({info})")
        table += lines
        del A
    print()
    print("\n".join(descs))
    print()
    print("\n".join(table))
    if not args.no_per_iteration:
        n = 1 << 20
        A, b, w, x0, _ = hard_instance(n, d, seed=0)
        Aj, bj, wj = jnp.asarray(A), jnp.asarray(b), jnp.asarray(w)
        del A
        print(f"\nPer-iteration cost at n=2^20, d={d}, family (b) instance (from x0) and the same "
              "A with w²=200 (from 0):", flush=True)
        periter = per_iteration(Aj, bj, wj, x0, max(1, args.repeats - 1))
        print()
        print("| solver | s / iteration | first iteration incl. setup (s) | rows in Hessian |")
        print("|---|---|---|---|")
        print("\n".join(periter))
    print(f"\nload average at end {__import__('os').getloadavg()}")


if __name__ == "__main__":
    main()
