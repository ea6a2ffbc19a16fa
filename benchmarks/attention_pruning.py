"""Pruning speed of paper 000's method against its baselines, side by side in one run.

    python -m benchmarks.attention_pruning [--d 384] [--n 128] [--rho 0.5] [--lam 0.0625] [--steps 1000]

Problem: the synthetic protocol of ``properties/attention_pruning/experiments.py`` (variant (a):
W = W_QW_Kᵀ/√d, causal loss).  Reported, jit compile time excluded (each function is warmed up on the
same shapes first), median of 3 runs:
- GD (momentum 0.9, η = 1/L_loc): seconds per iteration, iterations per second, and the time to reach
  within 1% of its final loss (iterations needed × seconds per iteration; the L_loc estimate counted);
- Wanda and SparseGPT: seconds to prune W_Q and W_K (both, shared statistics computed per call);
- the ratio GD-to-1% / baseline.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np

from benchmarks.machine import machine_info
from solvers import attention_pruning as S


def _time(fn, repeats=3):
    fn()  # warm-up (compilation)
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--d", type=int, default=384)
    p.add_argument("--n", type=int, default=128)
    p.add_argument("--rho", type=float, default=0.5)
    p.add_argument("--lam", type=float, default=2.0 ** -4)
    p.add_argument("--steps", type=int, default=1000)
    a = p.parse_args(argv)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((a.n, a.d))
    WQ, WK = rng.standard_normal((a.d, a.d)) / math.sqrt(a.d), rng.standard_normal((a.d, a.d)) / math.sqrt(a.d)
    W = WQ @ WK.T / math.sqrt(a.d)
    print(machine_info(), flush=True)
    t_lloc = _time(lambda: S.local_lipschitz(X, W, a.lam))
    eta = 1.0 / S.local_lipschitz(X, W, a.lam)
    t_gd = _time(lambda: S.run_gd(X, W, a.lam, eta, a.steps, causal=True, momentum=0.9))
    res = S.run_gd(X, W, a.lam, eta, a.steps, causal=True, momentum=0.9)
    final = res.losses[-1]
    within = np.nonzero(np.abs(res.losses - final) <= 0.01 * abs(final))[0]
    k = int(within[0]) if within.size else a.steps
    per_iter = t_gd / a.steps
    t_to_1 = t_lloc + k * per_iter
    t_wanda = _time(lambda: (S.wanda(WQ, X, a.rho), S.wanda(WK, X, a.rho)))
    t_sgpt = _time(lambda: (S.sparsegpt(WQ, X, a.rho), S.sparsegpt(WK, X, a.rho)))
    print(f"d = {a.d}, n = {a.n}, rho = {a.rho}, lambda = {a.lam:g}, {a.steps} momentum steps")
    print(f"GD: {per_iter * 1e3:.3f} ms/iteration ({1 / per_iter:.0f} it/s); L_loc {t_lloc * 1e3:.1f} ms; "
          f"within 1% of the final loss after {k} iterations: {t_to_1 * 1e3:.1f} ms")
    print(f"Wanda (W_Q and W_K): {t_wanda * 1e3:.2f} ms   ratio GD-to-1% / Wanda = {t_to_1 / t_wanda:.1f}")
    print(f"SparseGPT (W_Q and W_K): {t_sgpt * 1e3:.2f} ms   ratio GD-to-1% / SparseGPT = {t_to_1 / t_sgpt:.1f}")


if __name__ == "__main__":
    main()
