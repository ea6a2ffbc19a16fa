"""Benchmark of paper 003 (single-layer attention optimisation), side by side in one run on the same data.

(a) Gradient ∇_X L_half: the matrix form A1ᵀQA2 (solvers.attention_optimization.grad_x) against the
    naive tensor form, which forms 𝖠 = A1 ⊗ A2 (n² × d²) and evaluates Σ_{j0,i0} c·𝖠_{j0}ᵀ(diag f − ffᵀ)h
    as 𝖠ᵀvec(Q); time (median of ``--repeats`` warm calls, the two forms interleaved) and peak memory:
    the peak resident set (``resource.getrusage(RUSAGE_SELF).ru_maxrss``) of a fresh subprocess that builds
    the data and runs one form once, minus that of a subprocess that only builds the data, and XLA's
    compiled argument + temporary + output bytes.  The naive form runs up to the largest size whose 𝖠
    fits in ``--naive-gib``.
(b) Newton on L_tot (reading b, w = 2), from z0 = 0, to ‖z − z*‖₂ ≤ 1e-8 (z* from exact Newton at
    ‖∇L_tot‖₂ ≤ 1e-13): alg.newton (``model="full"`` exact; ``model="block"`` with the Kronecker-exact
    x-regulariser block and with TensorSRHT sketches of m = 32d², 128d² rows) against
    scipy.optimize.minimize(method="trust-exact") given our jitted L_tot, gradient and exact Hessian,
    optimistix's Newton root-find on ∇L_tot (Jacobian by autodiff, Cholesky via PSD tags) and optimistix's
    LevenbergMarquardt on the least-squares form r(z) = (C, √d·Z·W^{1/2}, W·A3Y) (½‖r‖² = L_tot).
    Every method stops by its own gradient / step rule set to 1e-11 (optimistix: rtol = atol = 1e-11 in the
    max norm); the table marks any final ‖z − z*‖₂ > 1e-8.  Time: median of ``--repeats`` interleaved runs
    after a warm-up run (compilation).  An optimistix method is skipped, with the reason, where its dense
    autodiff Jacobian (batch × n² for the Newton root-find, (n² + 2nd) × 2d² for LM) exceeds ``--naive-gib``
    or its estimated work exceeds ``--optx-gflop`` (the shared machine's time budget).

OPENBLAS_NUM_THREADS defaults to 1 here: on the shared, oversubscribed 2-core machine, multithreaded
OpenBLAS made a 128 × 128 Cholesky (jax's and scipy's LAPACK alike) take 0.3 s instead of 0.3 ms.

Run: ``python -m benchmarks.attention_optimization`` (``--quick`` for a short sweep; ``--part a`` or ``b``).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from functools import partial  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import scipy.optimize  # noqa: E402

import solvers.attention_optimization as S  # noqa: E402

from .machine import machine_info  # noqa: E402

GIB = 2**30


@jax.jit
def naive_grad_x(A1, A2, A3, B, X, Y):
    """∇_x L_half through the explicit Kronecker matrix 𝖠 = A1 ⊗ A2 (n² × d²): exp(𝖠x) per block row,
    the softmax Jacobian product per (j0, i0), then 𝖠ᵀ of the stacked n² vector (spec alg.grad_x_naive)."""
    n, d = A1.shape
    K = jnp.kron(A1, A2)  # (n², d²)
    F = jax.nn.softmax((K @ X.reshape(-1)).reshape(n, n), axis=1)
    H = A3 @ Y
    C = F @ H - B
    V = H @ C.T  # column j0: Σ_{i0} c_{j0,i0} h_{i0}
    Q = F * V.T - jnp.sum(F * V.T, axis=1, keepdims=True) * F  # rows (diag f − ffᵀ)Σ c h
    return (K.T @ Q.reshape(-1)).reshape(d, d)


FORMS = {"matrix": S._grad_x, "naive": naive_grad_x}  # S._grad_x: solvers.grad_x's kernel, no host checks


def _interleaved(fns, repeats, warm=False):
    """Median wall time of each zero-argument fn (results blocked on), the fns interleaved per repeat
    (after one warm-up call each unless ``warm``: already run, compiled)."""
    for f in () if warm else fns:
        jax.block_until_ready(f())  # warm-up: compilation
    times = [[] for _ in fns]
    for _ in range(repeats):
        for i, f in enumerate(fns):
            t0 = time.perf_counter()
            jax.block_until_ready(f())
            times[i].append(time.perf_counter() - t0)
    return [float(np.median(t)) for t in times]


def _xla_bytes(fn, *args):
    mem = fn.lower(*args).compile().memory_analysis()
    return int(mem.argument_size_in_bytes + mem.temp_size_in_bytes + mem.output_size_in_bytes)


def _data(n, d, seed):
    rng = np.random.default_rng(seed)
    A1, A2, A3 = (rng.standard_normal((n, d)) / np.sqrt(d) for _ in range(3))
    B = rng.standard_normal((n, d))
    X, Y = (rng.standard_normal((d, d)) / d for _ in range(2))
    return A1, A2, A3, B, X, Y


def _child(form, n, d):
    """Subprocess body: build the data, run ``form`` once (or nothing for ``none``), print the peak RSS (bytes)."""
    args = tuple(jnp.asarray(a) for a in _data(n, d, n + d))
    if form != "none":
        jax.block_until_ready(FORMS[form](*args))
    print(json.dumps({"maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))


def _peak_rss(form, n, d):
    proc = subprocess.run([sys.executable, "-m", "benchmarks.attention_optimization", "--child", form, str(n), str(d)],
                          capture_output=True, text=True, check=False, timeout=1800)
    if proc.returncode != 0:
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])["maxrss"]


def _gradient_row(n, d, naive_gib, repeats):
    args = tuple(jnp.asarray(a) for a in _data(n, d, n + d))
    base = _peak_rss("none", n, d)
    rss_m = (_peak_rss("matrix", n, d) - base) / 2**20
    xm = _xla_bytes(S._grad_x, *args) / 2**20
    kron = 8 * n * n * d * d
    if kron > naive_gib * GIB:
        (tm,) = _interleaved([lambda: S._grad_x(*args)], repeats)
        return (f"| {n} | {d} | {tm:.2e} | does not fit (𝖠 alone {kron / GIB:.0f} GiB > {naive_gib:g} GiB) | – "
                f"| {rss_m:.1f} / – | {xm:.2f} / – | – |")
    tm, tn = _interleaved([lambda: S._grad_x(*args), lambda: naive_grad_x(*args)], repeats)
    rss_n = _peak_rss("naive", n, d)
    rn = "failed" if rss_n is None else f"{(rss_n - base) / 2**20:.0f}"
    xn = _xla_bytes(naive_grad_x, *args) / 2**20
    err = float(jnp.max(jnp.abs(S._grad_x(*args) - naive_grad_x(*args))))
    return f"| {n} | {d} | {tm:.2e} | {tn:.2e} | {tn / tm:.0f}× | {rss_m:.1f} / {rn} | {xm:.2f} / {xn:.0f} | {err:.1e} |"


def gradient_table(ns, ds, naive_gib, repeats):
    print("| n | d | matrix form (s) | naive form (s) | speed-up | peak RSS over data, matrix / naive (MiB) | "
          "XLA bytes matrix / naive (MiB) | max diff |\n|---|---|---|---|---|---|---|---|", flush=True)
    for d in ds:
        for n in ns:
            print(_gradient_row(n, d, naive_gib, repeats), flush=True)


# ----------------------------------------------------------------------------- (b) Newton

def _competitors(n, d, A1, A2, A3, B, w, z0, tol, budget, gflop):
    """name → zero-argument run returning (z, iterations), or the reason it is skipped."""
    import lineax as lx  # optimistix's linear solvers (the bench extra)
    import optimistix as optx

    data = tuple(jnp.asarray(a) for a in (A1, A2, A3, B, w))

    def split(z):
        return S._split(z, d)

    def trust():
        r = scipy.optimize.minimize(lambda z: float(S._loss_tot(*data, *split(jnp.asarray(z)), 1)), z0,
                                    jac=lambda z: np.asarray(S._gradient_tot(*data, *split(jnp.asarray(z)), 1)),
                                    hess=lambda z: np.asarray(S._hessian_tot(*data, *split(jnp.asarray(z)), 1)),
                                    method="trust-exact", options={"gtol": tol, "maxiter": 200})
        return r.x, r.nit

    out = {"scipy trust-exact": trust}
    tags = frozenset({lx.symmetric_tag, lx.positive_semidefinite_tag})  # ∇²L_tot: Cholesky in lineax

    @jax.jit
    def optx_newton(data, z0):
        sol = optx.root_find(lambda z, a: S._gradient_tot(*a, *split(z), 1), optx.Newton(rtol=tol, atol=tol), z0,
                             args=data, max_steps=200, throw=False, tags=tags)
        return sol.value, sol.stats["num_steps"]

    def residual(z, a):
        A1_, A2_, A3_, B_, w_ = a
        X, Y = split(z)
        Z = (A1_ @ X) @ A2_.T
        H = A3_ @ Y
        C = jax.nn.softmax(Z, axis=1) @ H - B_
        return (C, np.sqrt(d) * Z * jnp.sqrt(w_)[None, :], w_[:, None] * H)

    @jax.jit
    def optx_lm(data, z0):
        sol = optx.least_squares(residual, optx.LevenbergMarquardt(rtol=tol, atol=tol), z0, args=data,
                                 max_steps=200, throw=False)
        return sol.value, sol.stats["num_steps"]

    k = 2 * d * d
    jz0 = jnp.asarray(z0)
    rows = n * n + 2 * n * d
    # (bytes of the dense autodiff Jacobian, estimated FLOPs of one run): the root-find's jacfwd of ∇L is a
    # batch of k tangents through the n × n intermediates (≈ 30·k·n²·d per step, 3 steps measured at
    # n = 256); LM's QR of the rows × k Jacobian costs 2·rows·k² per step (≈ 20 steps measured at n = 256).
    cost = {"optimistix Newton (root of ∇L)": (8 * k * n * n * 3, 3 * 30 * k * n * n * d, optx_newton),
            "optimistix LM (least squares)": (8 * k * rows, 20 * 2 * rows * k * k, optx_lm)}
    for name, (nbytes, work, fn) in cost.items():
        if nbytes > budget:
            out[name] = f"Jacobian ≈ {nbytes / GIB:.1f} GiB > {budget / GIB:g} GiB"
        elif work > gflop * 1e9:
            out[name] = f"≈ {work / 1e9:.0f} GFLOP per run > {gflop:g}"
        else:
            out[name] = partial(fn, data, jz0)
    return out


def _ours(A1, A2, A3, B, w, z0, tol, d):
    def run(model, m):
        def f():
            r = S.newton(A1, A2, A3, B, w, z0, m=m, key=1, tol=tol, max_iter=200, model=model)
            return r.x, r.iterations
        return f
    return {"exact Newton (full)": run("full", 0), "block, Kronecker-exact H_x": run("block", 0),
            "TensorSRHT Newton (block, m = 32d²)": run("block", 32 * d * d),
            "TensorSRHT Newton (block, m = 128d²)": run("block", 128 * d * d)}


def newton_table(sizes, repeats, budget_gib, gflop, tol=1e-11):
    lines = []
    for n, d in sizes:
        A1, A2, A3, B, _, _ = _data(n, d, 7 * n + d)
        w = np.full(n, 2.0)
        z0 = np.zeros(2 * d * d)
        zs = S.newton(A1, A2, A3, B, w, z0, tol=1e-13, max_iter=100)
        runs = {**_ours(A1, A2, A3, B, w, z0, tol, d), **_competitors(n, d, A1, A2, A3, B, w, z0, tol, budget_gib * GIB, gflop)}
        live = {k: v for k, v in runs.items() if callable(v)}
        results = {}
        for name, f in live.items():  # warm-up (compilation) and the result
            z, it = f()
            results[name] = (int(it), float(np.linalg.norm(np.asarray(z) - zs.x)))

        def blocked(f):
            return lambda: jax.block_until_ready(f()[0])
        times = dict(zip(live, _interleaved([blocked(f) for f in live.values()], repeats, warm=True)))
        ok = [k for k in live if "trust" in k or "optimistix" in k if results[k][1] <= 1e-8]
        best = min(ok, key=times.get) if ok else None
        lines.append(f"\nn = {n}, d = {d} (z* by exact Newton, {zs.iterations} iterations, ‖∇L_tot(z*)‖ = "
                     f"{zs.history[-1]:.1e}); fastest competitor reaching 1e-8: {best}\n")
        lines.append("| method | time (s) | iterations | ‖z − z*‖₂ | speed-up vs fastest competitor |")
        lines.append("|---|---|---|---|---|")
        for name, v in runs.items():
            if not callable(v):
                lines.append(f"| {name} | skipped: {v} | – | – | – |")
                continue
            it, err = results[name]
            mark = "" if err <= 1e-8 else " (> 1e-8)"
            ratio = f"{times[best] / times[name]:.1f}×" if best else "–"
            lines.append(f"| {name} | {times[name]:.3g} | {it} | {err:.1e}{mark} | {ratio} |")
        print("\n".join(lines[-len(runs) - 3:]), flush=True)
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a short sweep")
    p.add_argument("--part", choices=("a", "b", "ab"), default="ab")
    p.add_argument("--naive-gib", type=float, default=4.0,
                   help="largest 𝖠 = A1 ⊗ A2 (a) or autodiff Jacobian (b) a method may form, GiB")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--optx-gflop", type=float, default=30.0,
                   help="(b) skip an optimistix method whose estimated work per run exceeds this many GFLOP")
    p.add_argument("--sizes", nargs="+", metavar="N,D", help="(b) the (n, d) instances, e.g. 4096,16 8192,16")
    p.add_argument("--child", nargs=3, metavar=("FORM", "N", "D"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        _child(args.child[0], int(args.child[1]), int(args.child[2]))
        return
    ns = (256, 512) if args.quick else (256, 512, 1024, 2048, 4096)
    ds = (16,) if args.quick else (16, 32, 64)
    sizes = ((256, 4),) if args.quick else ((256, 4), (512, 8), (1024, 16), (2048, 16))
    if args.sizes:
        sizes = tuple(tuple(int(v) for v in s.split(",")) for s in args.sizes)
        if any(len(s) != 2 or min(s) < 1 for s in sizes):
            p.error("--sizes takes N,D pairs of positive integers")
    print(machine_info(), f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}")
    if "b" in args.part:
        print("\n(b) Newton on L_tot (reading b, w = 2·1) from z0 = 0 to ‖z − z*‖₂ ≤ 1e-8")
        newton_table(sizes, args.repeats, args.naive_gib, args.optx_gflop)
    if "a" in args.part:
        print("\n(a) ∇_X L_half, matrix form vs naive tensor form\n")
        gradient_table(ns, ds, args.naive_gib, args.repeats)


if __name__ == "__main__":
    main()
