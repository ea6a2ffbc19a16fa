"""The GPU run: the solver tests and the headline benchmarks on a JAX GPU device, float64,
one script under ten minutes, results written to one JSON file.

Run: ``python -m benchmarks.gpu`` (or ``tox -e gpu``) on a machine with a GPU and ``jax[cuda12]``;
``--tiny`` (and automatically when JAX finds no GPU) runs tiny sizes, so the same script runs on CPU
in CI (``tests/benchmarks/test_gpu.py``).  Phases, each inside what is left of ``--budget`` seconds
(a phase that would start with too little left is recorded as skipped, with the reason):

1. ``tests``: pytest on the solver test files (:data:`TESTS`; ``--tests`` to choose), in a child
   process, on the default device (the GPU: ``jax.devices()[0]``).
2. ``least_squares``: :func:`benchmarks.least_squares.run_map` at n = 2^19, d = 256, κ ∈ {1, 1e12},
   residual 1e-3 — the LAPACK routes (numpy/scipy, on the host) beside SPIR and randomized Cholesky
   QR on the device — and its goal table.
3. ``softmax_regression``: :func:`benchmarks.softmax_regression.bench_instance` on the paper's
   family (a) at n = 2^18, d = 128 (our Newton solvers on the device, scipy on the host).
4. ``attention_optimization``: :func:`benchmarks.attention_optimization.newton_table` at
   (n, d) = (4096, 16), (8192, 32) (it needs optimistix, the ``bench`` extra; without it our
   Newton solver alone is timed and the skip recorded).

The results file (``--out``, default ``gpu_results.json``) holds the device, the options, each
phase's status (``ok``, ``failed`` with the error, ``skipped`` with the reason), wall time and
output (rows, tables, the pytest summary).  Exit status 0 when no phase failed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import time
import traceback

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks.machine import machine_info  # noqa: E402

__all__ = ["PHASES", "TESTS", "main", "sizes"]

TESTS = ("tests/solvers/test_cholesky_qr.py", "tests/solvers/test_stable_least_squares.py", "tests/solvers/test_sketches.py",
         "tests/solvers/test_newton.py", "tests/solvers/test_softmax_regression.py",
         "tests/solvers/test_attention_optimization.py")
"""The solver test files of the ``tests`` phase (``--tests`` replaces them)."""

PHASES = ("tests", "least_squares", "softmax_regression", "attention_optimization")


def sizes(tiny: bool) -> dict:
    """The problem sizes of each phase: GPU-sized, or tiny (CPU smoke run, seconds)."""
    if tiny:
        return dict(ls_n=256, ls_d=8, ls_kappas=(1.0, 1e8), sm_n=2**9, sm_d=8, sm_budget=5.0, ao_sizes=((64, 4),),
                    test_args=("-k", "one_row_and_one_column"), test_files=("tests/solvers/test_cholesky_qr.py",))
    return dict(ls_n=2**19, ls_d=256, ls_kappas=(1.0, 1e12), sm_n=2**18, sm_d=128, sm_budget=30.0,
                ao_sizes=((4096, 16), (8192, 32)), test_args=(), test_files=TESTS)


def _tests(sz, args):
    files = tuple(args.tests) if args.tests is not None else sz["test_files"]
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--hypothesis-profile=ci", "-q", *files,
           *sz["test_args"]]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=max(1.0, args.left() - 30.0), check=False)
    tail = proc.stdout.strip().splitlines()[-1:] or [""]
    out = dict(command=" ".join(cmd), returncode=proc.returncode, summary=tail[0],
               output_tail=(proc.stdout + proc.stderr)[-4000:])
    if proc.returncode != 0:
        raise RuntimeError(f"pytest exit status {proc.returncode}: {tail[0]}")
    return out


def _least_squares(sz, args):
    from benchmarks import least_squares as ls

    rows = ls.run_map(lambda d: sz["ls_n"], [sz["ls_d"]], sz["ls_kappas"], lambda d: [1e-3], lambda d: 1,
                      log=lambda s: print(s, flush=True), methods=["spir", "cholqr"])
    return dict(rows=rows, goal=ls.goal(rows))


def _softmax_regression(sz, args):
    from benchmarks import softmax_regression as smb

    A, b, w, x0, desc = smb.paper_instance(sz["sm_n"], sz["sm_d"], seed=0)
    lines, info, ratios = smb.bench_instance(f"(a) n={sz['sm_n']}", A, b, w, x0, 1, sz["sm_budget"], seed=0)
    return dict(instance=desc, info=info, table=lines, speedup_vs_best_scipy=ratios)


def _attention_optimization(sz, args):
    from benchmarks import attention_optimization as aob

    try:
        import optimistix  # noqa: F401  (newton_table's competitors)
    except ImportError:
        return dict(skipped_competitors="optimistix (the bench extra) is not installed: our Newton solver "
                                        "alone is timed", ours=_attention_ours(sz["ao_sizes"]))
    return dict(table=aob.newton_table(sz["ao_sizes"], 1, 4.0, 30.0))


def _attention_ours(size_list):
    from solvers import attention_optimization as S

    out = []
    for n, d in size_list:
        rng = np.random.default_rng(n + d)
        A1, A2, A3 = (jnp.asarray(rng.standard_normal((n, d)) / np.sqrt(d)) for _ in range(3))
        B = jnp.asarray(rng.standard_normal((n, d)))
        w, z0 = jnp.full(n, 2.0), jnp.zeros(2 * d * d)
        for model in ("full", "block"):
            S.newton(A1, A2, A3, B, w, z0, tol=1e-11, max_iter=200, model=model)  # compile
            t0 = time.perf_counter()
            r = S.newton(A1, A2, A3, B, w, z0, tol=1e-11, max_iter=200, model=model)
            jax.block_until_ready(r.x)
            out.append(dict(n=n, d=d, model=model, time_s=time.perf_counter() - t0, iterations=int(r.iterations),
                            status=str(r.status)))
    return out


_RUN = {"tests": _tests, "least_squares": _least_squares, "softmax_regression": _softmax_regression,
        "attention_optimization": _attention_optimization}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tiny", action="store_true", help="tiny sizes (also chosen when JAX finds no GPU)")
    p.add_argument("--out", default="gpu_results.json", help="the results file (JSON)")
    p.add_argument("--budget", type=float, default=570.0, help="seconds for the whole run (default 570)")
    p.add_argument("--phases", nargs="+", choices=PHASES, default=list(PHASES))
    p.add_argument("--tests", nargs="*", default=None, help="test files of the tests phase (default TESTS)")
    args = p.parse_args(argv)
    if not args.budget > 0:
        p.error(f"--budget={args.budget} must be > 0")
    start = time.perf_counter()
    args.left = lambda: args.budget - (time.perf_counter() - start)
    device = jax.devices()[0]
    gpu = device.platform == "gpu"
    tiny = args.tiny or not gpu
    result = dict(machine=machine_info(), device=str(device), platform=device.platform, tiny=tiny,
                  x64=bool(jax.config.jax_enable_x64), budget_s=args.budget, phases={})
    print(result["machine"], f"device {device}, {'tiny sizes' if tiny else 'GPU sizes'}", flush=True)
    if not gpu and not args.tiny:
        print("no GPU found: running tiny sizes", flush=True)
    sz = sizes(tiny)
    failed = False
    for name in args.phases:
        if args.left() < (5.0 if tiny else 60.0):
            result["phases"][name] = dict(status="skipped", reason=f"{args.left():.0f} s of the budget left")
            continue
        t0 = time.perf_counter()
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(Tee(buf, sys.stdout)):
                out = _RUN[name](sz, args)
            entry = dict(status="ok", output=out)
        except Exception as exc:  # a failed phase is recorded; the others still run
            failed = True
            entry = dict(status="failed", error=f"{type(exc).__name__}: {exc}", traceback=traceback.format_exc()[-3000:])
        entry.update(seconds=time.perf_counter() - t0, log_tail=buf.getvalue()[-4000:])
        result["phases"][name] = entry
        print(f"[{name}] {entry['status']} in {entry['seconds']:.1f} s", flush=True)
        with open(args.out, "w") as f:  # after every phase, so a run stopped from outside keeps them
            json.dump(result, f, indent=1, default=str)
    result["seconds"] = time.perf_counter() - start
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1, default=str)
    print(f"results: {os.path.abspath(args.out)} ({result['seconds']:.0f} s)", flush=True)
    return 1 if failed else 0


class Tee(io.TextIOBase):
    """Writes to several text streams (a phase's log kept and shown)."""

    def __init__(self, *streams):
        self.streams = streams

    def write(self, s):
        for st in self.streams:
            st.write(s)
        return len(s)

    def flush(self):
        for st in self.streams:
            st.flush()


if __name__ == "__main__":
    sys.exit(main())
