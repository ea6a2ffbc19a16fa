"""Benchmark: a regime map of least-squares solvers — the LAPACK routes a careful user
picks, Algorithm 1 of the attention-kernel-regression paper, and the backward-stable sketch solver.

Run: ``python -m benchmarks.least_squares`` (the map; wrap it in ``flock /tmp/bench.lock``),
``--quick`` (a smoke run at tiny sizes, seconds), ``--n`` / ``--n-large`` for other sizes.

Instances: ``A = U diag(σ) Vᵀ`` with ``U`` the orthonormal factor of an ``n × d`` Gaussian (a Haar
random orthonormal ``n × d``), ``V`` Haar ``d × d``, ``σ`` log-spaced from 1 to ``1/κ``;
``x*`` a random unit vector; ``b = Ax* + r*`` with ``r* ⟂ range(A)`` and
``‖r*‖ = residual·‖Ax*‖``.  ``U``, ``V``, ``x*`` are drawn once per ``d`` and shared by all κ and
residual sizes; ``x*`` and ``OPT = ‖r*‖`` are exact for the exact ``UΣVᵀ`` (the float64 ``A`` and
``b`` are its rounding, a relative perturbation ~u, the same order as a backward-stable solver's).

Methods, timed side by side on the same ``A``, ``b`` (interleaved repeats, medians; the JAX
methods are compiled on the first instance of each ``d``, untimed):

- ``cholesky``: normal equations, ``scipy.linalg.cho_factor(AᵀA)`` / ``cho_solve(Aᵀb)``;
- ``qr``: Householder QR without forming Q — LAPACK ``geqrf``, ``ormqr`` applies Qᵀ to b, ``trtrs``;
- ``gelsy`` (complete orthogonal factorisation) and ``gelsd`` (SVD, = ``numpy.linalg.lstsq``)
  through ``scipy.linalg.lstsq``;
- ``alg1 gd``: Algorithm 1 as the paper states it (``solvers.least_squares.fast_linear_regression``,
  method "gd", its sketch size ``m₁ = ⌈100 (d+1) ln(n/δ)⌉`` — which exceeds ``n`` here, so
  ``S = I``), ε = 1e-10, δ = 0.01;
- ``alg1 cg``: the project's CG variant (CountSketch, m = 16d, ε_ose = 0.5, ε = 1e-10);
- ``sap``: plain sketch-and-precondition, one preconditioned CGLS run from the sketch-and-solve
  start (``spir(..., refinements=1)``), to show what the refinement buys;
- ``spir``: the backward-stable solver (``solvers.stable_least_squares.spir``: CountSketch,
  m = 4d, two refinements; Epperly, Meier, Nakatsukasa 2024);
- ``spir m=24d``: the same with m = 24d CountSketch rows: a larger QR of ``SA`` for fewer CGLS passes
  over ``A`` (about 35 against 81 at d = 256, κ = 1e12);
- ``tsqr``: Householder QR of ``[A b]`` by a one-level TSQR over row blocks of 2048 rows (numpy/LAPACK,
  :func:`_tsqr`): not one LAPACK call, but the stronger anchor for a tall ``A`` (the bar the method must
  clear is the three LAPACK routes above; this one is reported beside it);
- ``cholqr``: randomized Cholesky QR and two CGLS refinements preconditioned with its R
  (``solvers.cholesky_qr.cholqr_lstsq``: CountSketch, m = 4d).  Its details column gives
  the passes over ``A`` and the Gram pass's route, chosen by the sketch's estimate of κ: ``gram``
  (float32 ``AᵀA``, κ ≤ 1e2), ``product`` (``A R_s⁻¹`` as a product, κ ≤ 2e12) or ``solve``
  (triangular solves).

Metrics: median time; forward error ``‖x − x*‖/‖x*‖``; residual excess ``‖Ax − b‖/OPT − 1``;
backward error ``η̃/‖A‖₂`` by the Karlson–Waldén estimate
``η̃ = ‖diag(σ/√(σ² + μ²)) Uᵀr‖/‖x‖``, ``r = b − Ax``, ``μ = ‖r‖/‖x‖`` (within a factor √2 of the
optimal backward error; evaluated with the construction's ``U``, ``σ`` — the exact factors of
``UΣVᵀ`` —, so its floor is the rounding of ``A`` itself, about ``u·√(d/n)``).  A method that
raises (Cholesky of a numerically indefinite ``AᵀA``, a rank check) is reported as failed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
import scipy.linalg as sl

from benchmarks.machine import machine_info
from solvers import least_squares as ls
from solvers.cholesky_qr import cholqr_lstsq
from solvers.stable_least_squares import spir

__all__ = ["COLUMNS", "Instance", "karlson_walden", "main", "make_factors", "make_instance", "run_map"]

COLUMNS = ("d", "n", "kappa", "residual", "method", "time_s", "forward", "forward_vs_qr", "residual_excess",
           "backward", "backward_vs_qr", "info")
"""The columns of the table (``--json`` rows carry the same keys)."""


class Instance:
    """One problem of the map: ``A``, ``b`` (float64), the exact ``x*``, ``OPT`` and the factors."""

    def __init__(self, U, sigma, V, x, residual, g):
        self.U, self.sigma = U, sigma
        self.A = np.ascontiguousarray((U * sigma) @ V.T)
        Ax = (U * sigma) @ (V.T @ x)
        r = g - U @ (U.T @ g)
        r -= U @ (U.T @ r)  # reorthogonalised: r ⟂ range(U) to rounding
        self.r = residual * np.linalg.norm(Ax) * r / np.linalg.norm(r)
        self.b = Ax + self.r
        self.x = x
        self.opt = float(np.linalg.norm(self.r))


def make_factors(n: int, d: int, seed: int):
    """``(U, V, x*, g)``: Haar orthonormal ``n × d`` and ``d × d``, a unit ``x*``, a Gaussian ``g``."""
    rng = np.random.default_rng(seed)
    U = np.linalg.qr(rng.standard_normal((n, d)))[0]
    V = np.linalg.qr(rng.standard_normal((d, d)))[0]
    x = rng.standard_normal(d)
    return U, V, x / np.linalg.norm(x), rng.standard_normal(n)


def make_instance(n: int, d: int, kappa: float, residual: float, seed: int = 0) -> Instance:
    """One instance of the map (see the module docstring)."""
    U, V, x, g = make_factors(n, d, seed)
    return Instance(U, np.logspace(0.0, -np.log10(kappa), d), V, x, residual, g)


def karlson_walden(inst: Instance, x) -> float:
    """The Karlson–Waldén estimate ``η̃/‖A‖₂`` of the backward error of ``x`` (module docstring)."""
    r = inst.b - inst.A @ x
    nx = np.linalg.norm(x)
    if nx == 0:
        return float(np.linalg.norm(inst.A.T @ inst.b) / np.linalg.norm(inst.b))
    mu = np.linalg.norm(r) / nx
    s = inst.sigma
    return float(np.linalg.norm(s / np.sqrt(s**2 + mu**2) * (inst.U.T @ r)) / nx / s[0])


def _qr(A, b):
    # scipy's dgeqrf wrapper defaults to lwork = 3d, which caps LAPACK's block size at 3 and runs
    # the unblocked Householder loop (3.5× slower at 16384 × 1024); ask LAPACK for its optimal size.
    work, info = sl.lapack.dgeqrf_lwork(*A.shape)
    if info != 0:
        raise RuntimeError(f"dgeqrf_lwork info={info}")
    qr, tau, _, info = sl.lapack.dgeqrf(A, lwork=int(work))
    if info != 0:
        raise RuntimeError(f"dgeqrf info={info}")
    c, _, info = sl.lapack.dormqr("L", "T", qr, tau, b[:, None], max(1, A.shape[1]))
    if info != 0:
        raise RuntimeError(f"dormqr info={info}")
    d = A.shape[1]
    return sl.solve_triangular(qr[:d, :d], c[:d, 0], lower=False)


def _tsqr(A, b, rows: int = 2048):
    """Least squares by a one-level TSQR of ``[A b]`` (Demmel, Grigori, Hoemmen, Langou 2012): LAPACK
    Householder QR (``numpy.linalg.qr``, mode ``"r"``) of row blocks of ``rows`` rows, each in cache,
    then of the stacked R factors; ``R[:d, :d] x = R[:d, d]``.  Householder QR of ``[A b]``, so as
    backward stable as ``_qr``; what a careful user writes for a tall ``A`` when ``geqrf`` on the whole
    matrix is bound by its panel factorisation (3.6× faster at 2^19 × 256 on one core, measured)."""
    d = A.shape[1]
    blocks = [np.linalg.qr(np.c_[A[i:i + rows], b[i:i + rows]], mode="r") for i in range(0, A.shape[0], rows)]
    R = np.linalg.qr(np.vstack(blocks), mode="r") if len(blocks) > 1 else blocks[0]
    return sl.solve_triangular(R[:d, :d], R[:d, d], lower=False)


def _cholesky(A, b):
    return sl.cho_solve(sl.cho_factor(A.T @ A), A.T @ b)


def _methods(d: int):
    """name -> fn(A, b, Aj, bj, seed) returning (x, info)."""
    eps = 1e-10

    def alg1(method, **kw):
        def run(A, b, Aj, bj, seed):
            res = ls.fast_linear_regression(Aj, bj, eps, 0.01, key=seed, method=method, rank_rtol=1e-15, **kw)
            return res.x, f"{res.sketch} m={res.sketch_rows}, iters={res.iterations}"
        return run

    def stable(refinements, **kw):
        def run(A, b, Aj, bj, seed):
            res = spir(Aj, bj, key=seed, refinements=refinements, **kw)
            return res.x, f"{res.sketch} m={res.sketch_rows}, iters={'+'.join(map(str, res.iterations))}"
        return run

    return {
        "cholesky": lambda A, b, Aj, bj, seed: (_cholesky(A, b), ""),
        "qr": lambda A, b, Aj, bj, seed: (_qr(A, b), ""),
        "gelsy": lambda A, b, Aj, bj, seed: (sl.lstsq(A, b, lapack_driver="gelsy")[0], ""),
        "gelsd": lambda A, b, Aj, bj, seed: (sl.lstsq(A, b, lapack_driver="gelsd")[0], ""),
        "tsqr": lambda A, b, Aj, bj, seed: (_tsqr(A, b), ""),
        "alg1 gd": alg1("gd"),
        "alg1 cg": alg1("cg", sketch="countsketch", sketch_rows=16 * d, eps_ose=0.5),
        "sap": stable(1),
        "spir": stable(2),
        "spir m=24d": stable(2, oversampling=24.0),
        "cholqr": _cholqr,
    }


def _cholqr(A, b, Aj, bj, seed):
    res = cholqr_lstsq(Aj, bj, key=seed)
    return res.x, (f"{res.sketch} m={res.sketch_rows}, {res.route}, iters={'+'.join(map(str, res.iterations))}, "
                   f"passes={res.passes}")


_JAX = ("alg1 gd", "alg1 cg", "sap", "spir", "spir m=24d", "cholqr")


def _call(fn, inst, Aj, bj, seed):
    t0 = time.perf_counter()
    try:
        x, info = fn(inst.A, inst.b, Aj, bj, seed)
        x = np.asarray(jax.block_until_ready(x))
    except (ValueError, np.linalg.LinAlgError, RuntimeError) as exc:
        return time.perf_counter() - t0, None, f"failed: {type(exc).__name__}: {str(exc)[:60]}"
    return time.perf_counter() - t0, x, info


def run_map(n_of, dims, kappas, residuals_of, repeats_of, seed: int = 0, log=print, on_cell=None, methods=None):
    """The rows of the map (dicts with :data:`COLUMNS`); ``n_of(d)``, ``residuals_of(d)``,
    ``repeats_of(d)``: the row count, residual sizes and repeats for ``d``; ``on_cell(rows)`` is
    called with the rows so far after every instance (the CLI saves them, so a stopped run keeps them);
    ``methods``: the names to run (default all; the LAPACK routes :data:`LAPACK` always run)."""
    rows, methods_run = [], methods
    for d in dims:
        n = n_of(d)
        U, V, x, g = make_factors(n, d, seed)
        methods = {k: v for k, v in _methods(d).items() if methods_run is None or k in methods_run or k in LAPACK}
        compiled = False
        for kappa in kappas:
            sigma = np.logspace(0.0, -np.log10(kappa), d)
            for residual in residuals_of(d):
                inst = Instance(U, sigma, V, x, residual, g)
                Aj, bj = jnp.asarray(inst.A), jnp.asarray(inst.b)
                if not compiled:  # JIT warm-up on these shapes, untimed
                    for name in (m for m in _JAX if m in methods):
                        _call(methods[name], inst, Aj, bj, 0)
                    if "cholqr" in methods:  # each route of its Gram pass (chosen by κ at run time), forced on a
                        # well-conditioned instance of the same shapes: the float32 Gram route fails beyond its κ
                        easy = Instance(U, np.ones(d), V, x, residual, g)
                        Ae, be = jnp.asarray(easy.A), jnp.asarray(easy.b)
                        for bounds in ((1e300, 1e300), (0.0, 1e300), (0.0, 0.0)):
                            cholqr_lstsq(Ae, be, key=0, gram_cond=bounds[0], solve_cond=bounds[1])
                    compiled = True
                times = {name: [] for name in methods}
                outs = {}
                for rep in range(repeats_of(d)):  # interleaved: every method sees the same load on average
                    for name, fn in methods.items():
                        t, xx, info = _call(fn, inst, Aj, bj, rep + 1)
                        times[name].append(t)
                        outs[name] = (xx, info)
                cell = []
                for name in methods:
                    xx, info = outs[name]
                    row = dict(d=d, n=n, kappa=kappa, residual=residual, method=name,
                               time_s=statistics.median(times[name]), info=info)
                    if xx is None:
                        row.update(forward=None, residual_excess=None, backward=None)
                    else:
                        row.update(forward=float(np.linalg.norm(xx - inst.x)),  # ‖x*‖ = 1
                                   residual_excess=float(np.linalg.norm(inst.b - inst.A @ xx) / inst.opt - 1.0),
                                   backward=karlson_walden(inst, xx))
                    cell.append(row)
                qr = next(r for r in cell if r["method"] == "qr")
                for row in cell:
                    for key in ("forward", "backward"):
                        ok = row[key] is not None and qr[key]
                        row[f"{key}_vs_qr"] = row[key] / qr[key] if ok else None
                rows.extend(cell)
                if on_cell is not None:
                    on_cell(rows)
                log(f"  d={d} n={n} kappa={kappa:.0e} residual={residual:.0e}: " + ", ".join(
                    f"{r['method']} {r['time_s']:.3f}s" for r in cell) + f"  (load {os.getloadavg()[0]:.1f})")
                del inst, Aj, bj
    return rows


def _fmt(v, spec=".2e"):
    return "—" if v is None else format(v, spec)


def table(rows) -> str:
    """The map as a markdown table."""
    out = ["| d | n | κ | residual | method | time [s] | forward err | ÷ QR's | ‖Ax−b‖/OPT − 1 | backward err "
           "(KW) | ÷ QR's | details |", "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        out.append(f"| {r['d']} | {r['n']} | {r['kappa']:.0e} | {r['residual']:.0e} | {r['method']} | "
                   f"{r['time_s']:.3f} | {_fmt(r['forward'])} | {_fmt(r['forward_vs_qr'], '.2g')} | "
                   f"{_fmt(r['residual_excess'], '.1e')} | {_fmt(r['backward'])} | {_fmt(r['backward_vs_qr'], '.2g')} | "
                   f"{r['info']} |")
    return "\n".join(out)


LAPACK = ("cholesky", "qr", "gelsy", "gelsd")


STABLE = ("spir", "spir m=24d", "cholqr")


def goal(rows) -> str:
    """Per instance and stable sketch solver (:data:`STABLE`, those the rows have): its errors relative
    to QR's (goal ≤ 10×) and its speed-up over the fastest LAPACK route whose forward error is within
    10× of QR's (goal ≥ 3× where sketching can win)."""
    out = ["| d | n | κ | residual | solver | fwd ÷ QR | bwd ÷ QR | within 10× | fastest LAPACK route at QR's "
           "accuracy (≤ 10× QR fwd) | its time [s] | solver [s] | speed-up |",
           "|---:|---:|---:|---:|---|---:|---:|---|---|---:|---:|---:|"]
    cells = {}
    for r in rows:
        cells.setdefault((r["d"], r["n"], r["kappa"], r["residual"]), {})[r["method"]] = r
    for (d, n, kappa, res), c in cells.items():
        q = c["qr"]
        ok = [c[m] for m in LAPACK if c[m]["forward"] is not None and c[m]["forward"] <= 10 * q["forward"]]
        best = min(ok, key=lambda r: r["time_s"])
        for name in (m for m in STABLE if m in c):
            s = c[name]
            within = (s["forward_vs_qr"] is not None and s["forward_vs_qr"] <= 10 and s["backward_vs_qr"] is not None
                      and s["backward_vs_qr"] <= 10)
            out.append(f"| {d} | {n} | {kappa:.0e} | {res:.0e} | {name} | {_fmt(s['forward_vs_qr'], '.2g')} | "
                       f"{_fmt(s['backward_vs_qr'], '.2g')} | {'yes' if within else 'NO'} | {best['method']} | "
                       f"{best['time_s']:.3f} | {s['time_s']:.3f} | {best['time_s'] / s['time_s']:.2f}× |")
    return "\n".join(out)


def plot(rows, path: str, residual: float) -> None:
    """Time and forward error against κ, one line per method, one panel per d (at one residual size)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dims = sorted({r["d"] for r in rows})
    fig, axes = plt.subplots(2, len(dims), figsize=(4.5 * len(dims), 7), squeeze=False)
    methods = list(dict.fromkeys(r["method"] for r in rows))
    for j, d in enumerate(dims):
        sub = [r for r in rows if r["d"] == d and r["residual"] == residual]
        for name in methods:
            pts = sorted((r["kappa"], r["time_s"], r["forward"]) for r in sub if r["method"] == name)
            ks = [p[0] for p in pts]
            axes[0, j].loglog(ks, [p[1] for p in pts], marker="o", label=name)
            fe = [(k, f) for k, _, f in pts if f is not None]
            axes[1, j].loglog([k for k, _ in fe], [max(f, 1e-17) for _, f in fe], marker="o", label=name)
        n = sub[0]["n"] if sub else "?"
        axes[0, j].set_title(f"d = {d}, n = {n}, residual = {residual:g}")
        axes[0, j].set_ylabel("median time [s]")
        axes[1, j].set_ylabel("forward error ‖x − x*‖/‖x*‖")
        for i in range(2):
            axes[i, j].set_xlabel("κ(A)")
            axes[i, j].grid(True, which="both", alpha=0.3)
    axes[0, 0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="tiny sizes, one repeat (a smoke run, seconds)")
    p.add_argument("--n", type=int, default=2**14, help="rows for d <= 256 (default 2^14)")
    p.add_argument("--n-large", type=int, default=2**14, help="rows for d = 1024 (default 2^14)")
    p.add_argument("--dims", type=int, nargs="+", default=[64, 256, 1024])
    p.add_argument("--kappas", type=float, nargs="+", default=[1e0, 1e4, 1e8, 1e12])
    p.add_argument("--residuals", type=float, nargs="+", default=[1e-10, 1e-3, 1.0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--repeats-large", type=int, default=None, help="repeats for d > 256 (default --repeats)")
    p.add_argument("--residuals-large", type=float, nargs="+", default=None,
                   help="residual sizes for d > 256 (default --residuals)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--methods", nargs="+", default=None, help="methods to run besides the LAPACK routes (default all)")
    p.add_argument("--plot", default="benchmarks/least_squares.png", help="PNG path ('' for none)")
    p.add_argument("--json", default="", help="write the rows to this JSON file (after every instance)")
    p.add_argument("--render", nargs="+", default=None, metavar="JSON",
                   help="no run: print the table and the goal table and draw the plot from saved rows")
    args = p.parse_args(argv)
    if args.render:
        rows = [r for path in args.render for r in json.load(open(path))]
        print(f"{table(rows)}\n\n{goal(rows)}\n")
        if args.plot:
            plot(rows, args.plot, sorted(args.residuals)[len(args.residuals) // 2])
            print(f"plot: {args.plot}")
        return 0
    known = set(_methods(1))
    if args.methods is not None and not set(args.methods) <= known:
        raise SystemExit(f"--methods={args.methods} must be among {sorted(known)}")
    if args.quick:
        args.n, args.n_large, args.dims, args.repeats = 512, 512, [8, 32], 1
        args.kappas, args.residuals = [1e0, 1e8], [1e-10, 1.0]
    for name in ("n", "n_large", "repeats", "repeats_large"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise SystemExit(f"--{name.replace('_', '-')}={getattr(args, name)} must be >= 1")
    if any(d < 1 or d > (args.n_large if d > 256 else args.n) for d in args.dims):
        raise SystemExit(f"--dims={args.dims} must lie in [1, n] for their n")
    print(machine_info())

    def save(rows):
        if args.json:
            with open(args.json, "w") as f:
                json.dump(rows, f, indent=1)

    t0 = time.perf_counter()
    large = {"n": args.n_large, "res": args.residuals_large or args.residuals, "rep": args.repeats_large or args.repeats}
    print(f"threads: OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}, "
          f"XLA_FLAGS={os.environ.get('XLA_FLAGS')}")
    rows = run_map(lambda d: large["n"] if d > 256 else args.n, args.dims, args.kappas,
                   lambda d: large["res"] if d > 256 else args.residuals,
                   lambda d: large["rep"] if d > 256 else args.repeats, args.seed, on_cell=save, methods=args.methods)
    print(f"\n{table(rows)}\n\n{goal(rows)}\n")
    print(f"total {time.perf_counter() - t0:.0f} s; load average at end {os.getloadavg()}")
    if args.plot:
        plot(rows, args.plot, sorted(args.residuals)[len(args.residuals) // 2])
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
