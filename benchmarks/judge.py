"""Benchmark of the judge: the ``dev``-profile ledger on a fixed set of claims from all four papers, for two
commits side by side in one run on one machine, with the ratio of their costs.

Each side is a ``git worktree`` of its commit in a temporary directory (``.`` names the current working
tree instead), run as ``python -m properties --profile dev --jobs 1 --claims …`` with the same interpreter
and that worktree first on ``sys.path`` (the child prints where it imported ``oracle`` and ``properties``
from, and the script refuses a side that imported another tree's code).  The sides alternate (A B, B A,
A B, …) for ``--repeats`` repetitions, so slow drift of the machine's load hits both alike.  Per run the
child's CPU time (user + system, from ``resource.getrusage(RUSAGE_CHILDREN)``) and wall time are recorded;
the table gives their medians and the ratio baseline / new.  On a loaded machine CPU time is the figure to
trust: wall time then measures the other work as well.

Every run writes its ledger JSON; the script compares each claim's ``verdict``, ``examples``,
``counterexample`` and ``worst_ratio`` between the two sides (the ``seconds`` differ by design) and lists
every difference: a faster judge must reach the same verdicts.

With ``--validator`` it also times ``python -m properties validate solvers.adapter`` (every applicable
claim: the validator has no claim selection, so this is long) once per side and repetition.

Run: ``python -m benchmarks.judge`` (defaults: baseline 68a5461, new ``HEAD``, 3 repetitions);
``--quick`` runs one repetition of a smaller claim set under the ``ci`` profile.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["CLAIMS", "COMPARED", "QUICK_CLAIMS", "compare_ledgers", "main", "run_side"]

#: a few claims of each paper: derivative-heavy claims of papers 003 and 001 (numerical Hessians and
#: gradients: an identity, Lipschitz and inequality claims), inequalities of papers 000 and 004 and a
#: statistical claim of paper 004.  ``attention_optimization.lem10.1.p3`` (a Loewner claim on numerical
#: Hessians) is left out of the default: under ``dev`` it alone costs minutes, too long to repeat on a
#: 2-core machine (name it with ``--claims`` to time it).
CLAIMS = (
    "attention_optimization.lem7.1",
    "attention_optimization.lem11.4",
    "attention_optimization.lem12.1",
    "softmax_regression.lem7.3",
    "softmax_regression.lem8.10",
    "softmax_regression.lem5.2.bf_ff",
    "attention_pruning.lemF2.p2",
    "attention_pruning.aux.grad_bound",
    "attention_kernel_regression.factA.4.b8",
    "attention_kernel_regression.thmJ.2",
)
QUICK_CLAIMS = ("attention_optimization.lem7.1", "softmax_regression.lem7.3", "attention_pruning.aux.grad_bound",
                "attention_kernel_regression.thmJ.2")
#: the fields of a ledger entry a faster judge must reproduce exactly.
COMPARED = ("verdict", "examples", "counterexample", "worst_ratio")

_PROBE = ("import sys, runpy; sys.path.insert(0, {root!r}); import oracle, properties; "
          "print('IMPORTED', oracle.__file__, properties.__file__, file=sys.stderr); "
          "sys.argv = ['properties'] + {args!r}; runpy.run_module('properties', run_name='__main__')")


def _git(*args, cwd) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def _worktree(repo: Path, rev: str, into: Path) -> tuple[Path, str]:
    """A detached worktree of ``rev`` at ``into`` (``.``: the working tree itself) and its label."""
    if rev == ".":
        return repo, f"working tree ({_git('rev-parse', '--short', 'HEAD', cwd=repo)} + local changes)"
    sha = _git("rev-parse", "--verify", f"{rev}^{{commit}}", cwd=repo)
    _git("worktree", "add", "--detach", str(into), sha, cwd=repo)
    return into, sha[:12]


def run_side(root: Path, args: list[str], log: Path) -> tuple[float, float]:
    """Run ``python -m properties ARGS`` with ``root`` first on ``sys.path``; returns (CPU s, wall s) of the
    child.  Raises ``RuntimeError`` when it fails or imported ``oracle`` / ``properties`` from elsewhere."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.run([sys.executable, "-c", _PROBE.format(root=str(root), args=args)], cwd=root,
                              env=dict(os.environ, PYTHONHASHSEED="0"), stdout=out, stderr=subprocess.STDOUT,
                              check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    text = log.read_text()
    if proc.returncode != 0:
        raise RuntimeError(f"{args} in {root} exited with {proc.returncode}; log {log}:\n{text[-2000:]}")
    imported = next((line.split()[1:] for line in text.splitlines() if line.startswith("IMPORTED")), [])
    if not imported or not all(Path(p).resolve().is_relative_to(root.resolve()) for p in imported):
        raise RuntimeError(f"the run in {root} imported {imported}, not its own tree")
    return cpu, wall


def compare_ledgers(old: dict, new: dict) -> list[str]:
    """One line per claim whose :data:`COMPARED` fields differ between two ledger JSONs (or that one lacks)."""
    a = {e["id"]: e for e in old["claims"]}
    b = {e["id"]: e for e in new["claims"]}
    lines = []
    for cid in sorted(set(a) | set(b)):
        if cid not in a or cid not in b:
            lines.append(f"{cid}: only in the {'new' if cid in b else 'baseline'} ledger")
            continue
        for field in COMPARED:
            if a[cid].get(field) != b[cid].get(field):
                lines.append(f"{cid}: {field} {a[cid].get(field)!r} (baseline) != {b[cid].get(field)!r} (new)")
    return lines


def _table(rows: dict[str, dict[str, list[tuple[float, float]]]], labels: dict[str, str]) -> str:
    out = ["| job | side | runs | CPU median [s] | wall median [s] |", "|---|---|---:|---:|---:|"]
    for job, sides in rows.items():
        med = {}
        for side, runs in sides.items():
            med[side] = (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs))
            out.append(f"| {job} | {side}: {labels[side]} | {len(runs)} | {med[side][0]:.1f} | {med[side][1]:.1f} |")
        (c0, w0), (c1, w1) = med["baseline"], med["new"]
        out.append(f"| {job} | **ratio baseline/new** | | **{c0 / c1:.2f}×** | {w0 / w1:.2f}× |")
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.judge", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", default="68a5461", help="baseline commit (default: 68a5461; '.': the working tree)")
    parser.add_argument("--new", default="HEAD", help="new commit (default: HEAD; '.': the working tree with its changes)")
    parser.add_argument("--repeats", type=int, default=3, help="repetitions of each side, alternating (default: 3)")
    parser.add_argument("--profile", default="dev", choices=("ci", "dev", "thorough"), help="profile (default: dev)")
    parser.add_argument("--claims", nargs="+", default=None,
                        help=f"claim ids or globs (default: the {len(CLAIMS)} claims of CLAIMS)")
    parser.add_argument("--validator", action="store_true", help="also time `validate solvers.adapter` (all its claims; long)")
    parser.add_argument("--quick", action="store_true", help="one repetition of 4 claims under the ci profile")
    parser.add_argument("--keep", metavar="DIR", help="keep the logs and ledger JSONs in DIR")
    opts = parser.parse_args(argv)
    if opts.repeats < 1:
        parser.error(f"--repeats={opts.repeats} must be >= 1")
    claims = list(opts.claims or (QUICK_CLAIMS if opts.quick else CLAIMS))
    profile, repeats = ("ci", 1) if opts.quick else (opts.profile, opts.repeats)
    repo = Path(_git("rev-parse", "--show-toplevel", cwd=Path(__file__).resolve().parent))
    with tempfile.TemporaryDirectory(prefix="judge-bench-") as tmp:
        tmp = Path(tmp)
        work = Path(opts.keep) if opts.keep else tmp
        work.mkdir(parents=True, exist_ok=True)
        created, roots, labels = [], {}, {}
        try:
            for side, rev in (("baseline", opts.baseline), ("new", opts.new)):
                roots[side], labels[side] = _worktree(repo, rev, tmp / side)
                if roots[side] != repo:
                    created.append(roots[side])
            print(f"baseline: {labels['baseline']}\nnew:      {labels['new']}\nclaims ({profile}): {' '.join(claims)}\n"
                  f"load average at start: {os.getloadavg()}", flush=True)
            jobs = {"ledger": lambda side, k: ["--profile", profile, "--jobs", "1", "--seed", "0", "--claims", *claims,
                                               "--json", str(work / f"{side}-{k}.json")]}
            if opts.validator:
                jobs["validate solvers.adapter"] = lambda side, k: ["validate", "solvers.adapter", "--profile", profile,
                                                                    "--seed", "0"]
            rows = {job: {"baseline": [], "new": []} for job in jobs}
            for k in range(repeats):
                order = ("baseline", "new") if k % 2 == 0 else ("new", "baseline")
                for job, make in jobs.items():
                    for side in order:
                        cpu, wall = run_side(roots[side], make(side, k), work / f"{side}-{job.split()[0]}-{k}.log")
                        rows[job][side].append((cpu, wall))
                        print(f"  rep {k + 1} {job:>26} {side:>8}: CPU {cpu:7.1f} s, wall {wall:7.1f} s", flush=True)
            print(f"load average at end: {os.getloadavg()}\n\n{_table(rows, labels)}\n")
            diffs = compare_ledgers(*(json.loads((work / f"{side}-0.json").read_text()) for side in ("baseline", "new")))
            print("ledger fields " + ", ".join(COMPARED) + ": " + ("identical on every claim" if not diffs else
                  f"{len(diffs)} differences:\n  " + "\n  ".join(diffs)))
        finally:
            for path in created:
                subprocess.run(["git", "worktree", "remove", "--force", str(path)], cwd=repo, check=False,
                               capture_output=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
