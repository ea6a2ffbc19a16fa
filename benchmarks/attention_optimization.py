"""Benchmark of paper 003 (single-layer attention optimisation), side by side in one run on the same data.

(a) Gradient ∇_X L_half: the matrix form A1ᵀQA2 (solvers.attention_optimization.grad_x) against the
    naive tensor form, which forms 𝖠 = A1 ⊗ A2 (n² × d²) and evaluates Σ_{j0,i0} c·𝖠_{j0}ᵀ(diag f − ffᵀ)h
    as 𝖠ᵀvec(Q); time (best of ``--repeats`` warm calls) and XLA's peak memory (arguments + temporaries
    of the compiled kernel), up to the largest size whose 𝖠 fits in ``--naive-gib``.
(b) Newton on L_tot (reading b): alg.newton with the exact Hessian and with the TensorSRHT-sketched
    x-regulariser block, against scipy.optimize.minimize(method="trust-exact") given the same
    gradient and exact Hessian, from the same start, to ‖z − z*‖₂ ≤ 1e-8 (z* from a long exact Newton
    run).  optimistix is not installed in this environment, so it is not compared.

Run: ``python -m benchmarks.attention_optimization`` (``--quick`` for a short sweep).
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np
import scipy.optimize

import solvers.attention_optimization as S

from .machine import machine_info


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


def _time(fn, *args, repeats=3):
    jax.block_until_ready(fn(*args))
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(fn(*args))
        best = min(best, time.perf_counter() - t0)
    return best


def _peak_bytes(fn, *args):
    mem = fn.lower(*args).compile().memory_analysis()
    return int(mem.argument_size_in_bytes + mem.temp_size_in_bytes + mem.output_size_in_bytes)


def _data(n, d, seed):
    rng = np.random.default_rng(seed)
    A1, A2, A3 = (rng.standard_normal((n, d)) / np.sqrt(d) for _ in range(3))
    B = rng.standard_normal((n, d))
    X, Y = (rng.standard_normal((d, d)) / d for _ in range(2))
    return A1, A2, A3, B, X, Y


def gradient_table(ns, ds, naive_gib, repeats):
    rows = ["| n | d | matrix form (s) | naive form (s) | speed-up | peak memory matrix / naive (MiB) |",
            "|---|---|---|---|---|---|"]
    fast = S._grad_x  # the jitted kernel of solvers.grad_x, without the host-side validation
    for d in ds:
        for n in ns:
            args = tuple(jnp.asarray(a) for a in _data(n, d, n + d))
            tm = _time(fast, *args, repeats=repeats)
            pm = _peak_bytes(fast, *args) / 2**20
            if n * n * d * d * 8 > naive_gib * 2**30:
                rows.append(f"| {n} | {d} | {tm:.2e} | does not fit ({n * n * d * d * 8 / 2**30:.1f} GiB for 𝖠) | – | "
                            f"{pm:.2f} / – |")
                continue
            tn = _time(naive_grad_x, *args, repeats=repeats)
            pn = _peak_bytes(naive_grad_x, *args) / 2**20
            err = float(jnp.max(jnp.abs(fast(*args) - naive_grad_x(*args))))
            rows.append(f"| {n} | {d} | {tm:.2e} | {tn:.2e} | {tn / tm:.1f}× | {pm:.2f} / {pn:.1f} (max diff {err:.1e}) |")
    return "\n".join(rows)


def _newton_row(n, d, repeats):
    A1, A2, A3, B, _, _ = _data(n, d, 7 * n + d)
    w = np.full(n, 2.0)
    z0 = np.zeros(2 * d * d)
    zs = S.newton(A1, A2, A3, B, w, z0, tol=1e-13, max_iter=100).x

    def ours(m):
        res = S.newton(A1, A2, A3, B, w, z0, m=m, key=1, tol=1e-11, max_iter=100)
        return res.x, res.iterations

    def trust():
        r = scipy.optimize.minimize(lambda z: S.loss_tot(A1, A2, A3, B, w, z), z0,
                                    jac=lambda z: np.asarray(S.gradient_tot(A1, A2, A3, B, w, z)),
                                    hess=lambda z: np.asarray(S.hessian_tot(A1, A2, A3, B, w, z)),
                                    method="trust-exact", options={"gtol": 1e-11})
        return r.x, r.nit

    out = []
    for f in (lambda: ours(0), lambda: ours(32 * d * d), trust):
        f()  # warm-up (compilation)
        best, it, err = float("inf"), 0, 0.0
        for _ in range(repeats):
            t0 = time.perf_counter()
            z, it = f()
            best = min(best, time.perf_counter() - t0)
            err = float(np.linalg.norm(z - zs))
        out.append((best, it, err))
    ok = ["" if e <= 1e-8 else f" (‖z − z*‖ = {e:.1e})" for _, _, e in out]
    return (f"| {n} | {d} | {out[0][0]:.3f}, {out[0][1]}{ok[0]} | {out[1][0]:.3f}, {out[1][1]}{ok[1]} | "
            f"{out[2][0]:.3f}, {out[2][1]}{ok[2]} | {out[2][0] / out[0][0]:.1f}× / {out[2][0] / out[1][0]:.1f}× |")


def newton_table(sizes, repeats):
    rows = ["| n | d | exact Newton (s, it) | TensorSRHT Newton m = 32d² (s, it) | scipy trust-exact (s, it) | "
            "speed-up vs trust-exact (exact / sketched) |", "|---|---|---|---|---|---|"]
    rows += [_newton_row(n, d, repeats) for n, d in sizes]
    return "\n".join(rows)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a short sweep")
    p.add_argument("--naive-gib", type=float, default=1.0, help="largest 𝖠 = A1 ⊗ A2 the naive form may form")
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)
    ns = (64, 128, 256) if args.quick else (64, 128, 256, 512, 1024)
    ds = (8,) if args.quick else (8, 16)
    sizes = ((64, 2), (256, 4)) if args.quick else ((64, 2), (256, 4), (512, 6))
    print(machine_info())
    print("\n(a) ∇_X L_half, matrix form vs naive tensor form\n")
    print(gradient_table(ns, ds, args.naive_gib, args.repeats))
    print("\n(b) Newton to ‖z − z*‖₂ ≤ 1e-8 from z0 = 0 (w = 2)\n")
    print(newton_table(sizes, args.repeats))


if __name__ == "__main__":
    main()
