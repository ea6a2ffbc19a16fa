"""Benchmark: Newton solvers for regularised softmax regression vs scipy.optimize (issue 4).

Run ``python -m benchmarks.softmax_regression`` (full, a few minutes, ~6 GiB of memory) or
``python -m benchmarks.softmax_regression --quick`` (n = 2^12, seconds).

Methods, all on the same data and stopped at the same point ‖x − x*‖₂ ≤ 1e-8 (x* from a tight
reference solve, ‖∇L(x*)‖ at rounding level):

- ``exact``: :func:`solvers.softmax_regression.exact_newton` (JAX, jitted, O(n d²) Hessian).
- ``approx``: :func:`solvers.softmax_regression.approximate_newton` (Algorithm 1, ε0 = 0.01,
  δ = 0.01).
- ``trust-exact``: ``scipy.optimize.minimize(method='trust-exact')`` with the exact numpy
  gradient and Hessian.
- ``L-BFGS-B``: ``scipy.optimize.minimize(method='L-BFGS-B', jac=True)`` with the exact numpy
  gradient.

Every method starts at x0 = 0 and is stopped by a callback as soon as ‖x − x*‖ ≤ 1e-8 (scipy's
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

from solvers import softmax_regression as sr  # noqa: E402

STOP = 1e-8


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
    simplex."""
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.standard_normal((n, d)))
    V, _ = np.linalg.qr(rng.standard_normal((d, d)))
    s = np.geomspace(1.0, 0.1, d)
    A = (U * s) @ V.T
    del U
    b = 0.9 * rng.dirichlet(np.ones(n))
    w = np.full(n, math.sqrt(100.0 + 1.0 / 0.1 ** 2))
    return A, b, w, "paper: ‖A‖=1, σ_min=0.1, w²=200, b=0.9·Dir(1)"


def hard_instance(n, d, seed):
    """Family (b), outside the theory: w_i log-uniform in [0.01, 1]; b peaked (mass 0.9 on 5
    entries); A = bulk Gaussian rows (column scales log-spaced over 10², bulk ‖·‖ ≈ 1) plus the
    5 rows under the peaks of b with norm 10 (so ‖A‖ ≈ 10 and x* is O(1): the softmax is far
    from uniform at x*, B(x*) matters and L is not convex everywhere)."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, d))
    A *= (np.geomspace(1.0, 0.01, d) / math.sqrt(n))[None, :]
    support = rng.choice(n, 5, replace=False)
    heavy = rng.standard_normal((5, d))
    A[support] = 10.0 * heavy / np.linalg.norm(heavy, axis=1, keepdims=True)
    b = np.zeros(n)
    b[support] = 0.9 * rng.dirichlet(np.ones(5))
    w = np.exp(rng.uniform(math.log(0.01), 0.0, n))
    w[support] = 0.01
    return A, b, w, "hard: bulk ‖·‖≈1 κ≈100 + 5 rows of norm 10 under the peaks of b (mass 0.9), w∈[0.01,1] (0.01 on the peaks)"


# ---------------------------------------------------------------------------------- runners

class _Reached(Exception):
    pass


def run_scipy(method, A, b, w2, xstar, budget):
    d = A.shape[1]
    t0 = time.perf_counter()
    state = {"reached": False, "iters": 0}

    def cb(intermediate_result):
        state["iters"] += 1
        if np.linalg.norm(intermediate_result.x - xstar) <= STOP:
            state["reached"] = True
            raise StopIteration
        if time.perf_counter() - t0 > budget:
            raise StopIteration

    if method == "trust-exact":
        scipy.optimize.minimize(np_fun_grad, np.zeros(d), args=(A, b, w2), jac=True,
                                hess=np_hess, method="trust-exact", callback=cb,
                                options=dict(gtol=0.0, maxiter=100000))
    else:
        scipy.optimize.minimize(np_fun_grad, np.zeros(d), args=(A, b, w2), jac=True,
                                method="L-BFGS-B", callback=cb,
                                options=dict(ftol=0.0, gtol=0.0, maxiter=10 ** 7,
                                             maxfun=10 ** 7))
    return time.perf_counter() - t0, state["reached"], state["iters"]


def run_ours(method, Aj, bj, wj, xstar, budget, **kw):
    t0 = time.perf_counter()
    state = {"reached": False}

    def cb(x):
        if np.linalg.norm(x - xstar) <= STOP:
            state["reached"] = True
            return True
        return time.perf_counter() - t0 > budget

    if method == "exact":
        res = sr.exact_newton(Aj, bj, wj, tol=0.0, max_iter=500, callback=cb)
    else:
        res = sr.approximate_newton(Aj, bj, wj, seed=0, tol=0.0, max_iter=500, callback=cb, **kw)
    return time.perf_counter() - t0, state["reached"], res.iterations


def timed(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        t, reached, iters = fn()
        times.append(t)
        out = (reached, iters)
        if t > 20.0 or not reached:
            break
    return statistics.median(times), out[0], out[1]


def reference_solution(Aj, bj, wj):
    """x* by safeguarded exact Newton, run until the iterates stop moving (rounding level)."""
    prev = {"x": None, "still": 0}

    def cb(x):
        if prev["x"] is not None and np.linalg.norm(x - prev["x"]) <= 1e-15 * (1 + np.linalg.norm(x)):
            prev["still"] += 1
        prev["x"] = x
        return prev["still"] >= 2

    res = sr.exact_newton(Aj, bj, wj, tol=0.0, max_iter=200, callback=cb)
    return res.x, res.grad_norm_history[-1], res.iterations


def bench_instance(label, A, b, w, repeats, budget):
    Aj, bj, wj = jnp.asarray(A), jnp.asarray(b), jnp.asarray(w)
    w2 = w * w
    # warm up every jitted kernel on this shape
    sr.exact_newton(Aj, bj, wj, tol=0.0, max_iter=1)
    sr.approximate_newton(Aj, bj, wj, seed=0, tol=0.0, max_iter=1)
    t0 = time.perf_counter()
    xstar, gref, ref_iters = reference_solution(Aj, bj, wj)
    t_ref = time.perf_counter() - t0
    print(f"  reference: {ref_iters} Newton iterations, ‖∇L(x*)‖={gref:.2e}, ‖x*‖="
          f"{np.linalg.norm(xstar):.3g}, {t_ref:.1f} s", flush=True)
    rows = {}
    for name, fn in [
        ("exact Newton (ours)", lambda: run_ours("exact", Aj, bj, wj, xstar, budget)),
        ("approx Newton (ours, ε0=0.01)", lambda: run_ours("approx", Aj, bj, wj, xstar, budget)),
        ("scipy trust-exact", lambda: run_scipy("trust-exact", A, b, w2, xstar, budget)),
        ("scipy L-BFGS-B", lambda: run_scipy("L-BFGS-B", A, b, w2, xstar, budget)),
    ]:
        rows[name] = timed(fn, repeats)
        t, reached, iters = rows[name]
        print(f"  {name}: {t:.3f} s, reached={reached}, iterations={iters}", flush=True)
    scipy_times = [rows[k][0] for k in ("scipy trust-exact", "scipy L-BFGS-B") if rows[k][1]]
    best_scipy = min(scipy_times) if scipy_times else float("nan")
    lines = []
    for name, (t, reached, iters) in rows.items():
        tt = f"{t:.3f}" if reached else f">{t:.0f} (not reached)"
        if name.startswith("scipy"):
            ratio = "—"
        elif reached and scipy_times:
            ratio = f"{best_scipy / t:.2f}"
        elif reached:
            ratio = f">{budget / t:.1f}"
        else:
            ratio = "n/a"
        lines.append(f"| {label} | {name} | {iters} | {tt} | {ratio} |")
    return lines


def per_iteration(n, d, seed, repeats):
    """Per-iteration cost at n: exact vs approximate Newton (ε0 = 0.01 and ε0 = 0.09)."""
    A, b, w, desc = hard_instance(n, d, seed)
    Aj, bj, wj = jnp.asarray(A), jnp.asarray(b), jnp.asarray(w)
    del A
    out = []

    def cost(fn):
        fn(1)
        fn(3)  # warm-up (and capacity compilations)
        t1 = statistics.median(_t(lambda: fn(1)) for _ in range(repeats))
        t3 = statistics.median(_t(lambda: fn(3)) for _ in range(repeats))
        return (t3 - t1) / 2.0, t1

    def _t(f):
        t0 = time.perf_counter()
        f()
        return time.perf_counter() - t0

    for name, fn in [
        ("exact Newton", lambda k: sr.exact_newton(Aj, bj, wj, tol=0.0, max_iter=k)),
        ("approx Newton ε0=0.01", lambda k: sr.approximate_newton(
            Aj, bj, wj, seed=0, tol=0.0, max_iter=k)),
        ("approx Newton ε0=0.09", lambda k: sr.approximate_newton(
            Aj, bj, wj, seed=0, eps0=0.09, tol=0.0, max_iter=k)),
    ]:
        per, first = cost(fn)
        sizes = fn(3).sample_sizes
        out.append(f"| {name} | {per:.3f} | {first:.3f} | {int(np.median(sizes))} / {n} |")
        print(f"  {name}: {per:.3f} s/iteration (first call incl. setup {first:.3f} s), "
              f"rows used {sizes}", flush=True)
    # the weak-regularisation instance has D_i ≤ 0 entries, so the sampler keeps every row;
    # measure the sampler also on a paper-regime instance of the same size
    A, b, w, _ = hard_instance(n, d, seed)
    w = np.full(n, math.sqrt(200.0))
    Aj, bj, wj = jnp.asarray(A), jnp.asarray(b), jnp.asarray(w)
    del A
    for name, fn in [
        ("exact Newton (w²=200)", lambda k: sr.exact_newton(Aj, bj, wj, tol=0.0, max_iter=k)),
        ("approx Newton ε0=0.09 (w²=200)", lambda k: sr.approximate_newton(
            Aj, bj, wj, seed=0, eps0=0.09, tol=0.0, max_iter=k)),
    ]:
        per, first = cost(fn)
        sizes = fn(3).sample_sizes
        out.append(f"| {name} | {per:.3f} | {first:.3f} | {int(np.median(sizes))} / {n} |")
        print(f"  {name}: {per:.3f} s/iteration (first call incl. setup {first:.3f} s), "
              f"rows used {sizes}", flush=True)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small smoke run (n = 2^12)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--budget", type=float, default=180.0,
                        help="seconds per solver run before giving up")
    args = parser.parse_args(argv)
    d = 128
    if args.quick:
        cases = [("(a) n=2^12", paper_instance, 1 << 12), ("(b) n=2^12", hard_instance, 1 << 12)]
        d, periter_n = 32, None
    else:
        cases = [("(a) n=2^16", paper_instance, 1 << 16),
                 ("(b) n=2^18", hard_instance, 1 << 18),
                 ("(b) n=2^20", hard_instance, 1 << 20)]
        periter_n = 1 << 20
    print(f"jax {jax.__version__}, numpy {np.__version__}, scipy {scipy.__version__}, "
          f"d={d}, stop at ‖x − x*‖ ≤ {STOP:g}", flush=True)
    table = ["| instance | method | iterations | time (s) | speed-up vs best scipy |",
             "|---|---|---|---|---|"]
    descs = []
    for label, make, n in cases:
        A, b, w, desc = make(n, d, seed=0)
        descs.append(f"- {label}: {desc}")
        print(f"{label}, d={d}: {desc}", flush=True)
        table += bench_instance(label, A, b, w, args.repeats, args.budget)
        del A
    print()
    print("\n".join(descs))
    print()
    print("\n".join(table))
    if periter_n is not None:
        print(f"\nPer-iteration cost at n=2^20, d={d}:", flush=True)
        rows = per_iteration(periter_n, d, 1, max(1, args.repeats - 1))
        print()
        print("| solver | s / iteration | first iteration incl. setup (s) | rows in Hessian |")
        print("|---|---|---|---|")
        print("\n".join(rows))


if __name__ == "__main__":
    main()
