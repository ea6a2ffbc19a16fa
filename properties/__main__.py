"""Command line: ``python -m properties`` runs the claims ledger; ``validate MODULE`` validates an
implementation; ``adapters`` lists the adapter contract; ``report`` writes the errata and
tightness report of each paper.

    python -m properties [--claims PATTERN ...] [--profile ci|dev|thorough] [--seed N]
                         [--jobs N | --scheduler ADDRESS] [--json PATH [--resume]] [--list]
    python -m properties validate MODULE [--profile ci|dev|thorough] [--seed N] [--timeout SECONDS]
                                  [--scheduler ADDRESS]
    python -m properties adapters [--markdown]
    python -m properties report [--paper P ...] [--out DIR] [--from LEDGER.json] [--profile ...] [--seed N]
                                [--scheduler ADDRESS]
    python -m properties experiment PAPER [--out DIR] [--quick] ...   (the paper's experiment runner)

``--scheduler ADDRESS`` runs the claims (for ``validate``: functions and claims) as tasks on the
dask.distributed cluster whose scheduler is at ADDRESS (:mod:`properties.distributed`) instead of
``--jobs`` processes here; the output and the JSON are the same.

Exit codes: 0 the ledger ran (falsified claims are findings, not errors) / the module passed;
1 validation failed, or the ledger could not finish (a worker process died, a cluster's task failed
on every try: the JSON ledger holds the claims that finished); 2 bad usage (a pattern matching no
claim, a JSON path that cannot be written or resumed from, a module that cannot be imported or
defines no adapter function, ``--jobs`` with ``--scheduler``, a scheduler that does not answer);
130 interrupted (the JSON ledger then holds the claims that finished: rerun with ``--resume``).
"""

from __future__ import annotations

import argparse
import os
import sys

from . import profiles


def _argument(kind, what: str, ok, rule: str):
    """An argparse type: ``kind(text)`` (an int or a float) that must satisfy ``ok``."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not ok(value):
            raise argparse.ArgumentTypeError(f"{text!r} must be {rule}")
        return value

    return parse


_positive_int = _argument(int, "an integer", lambda v: v >= 1, "at least 1")
_seed = _argument(int, "an integer", lambda v: v >= 0, "a non-negative integer")
_seconds = _argument(float, "a number", lambda v: 0 < v < float("inf"), "a positive number of seconds")


def _add_search_options(p: argparse.ArgumentParser, default_profile: str) -> None:
    p.add_argument("--profile", default=default_profile, choices=sorted(profiles.PROFILES),
                   help=f"Hypothesis profile: examples per claim (default: {default_profile})")
    p.add_argument("--seed", type=_seed, default=profiles.DEFAULT_SEED,
                   help=f"seed of every search, under every profile (default: {profiles.DEFAULT_SEED})")


def _add_scheduler_option(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help=f"run {what} as tasks on the dask.distributed cluster whose scheduler is at ADDRESS, "
                        "e.g. tcp://10.0.0.5:8786 (needs pip install 'attention-claims[distributed]')")


def _ledger(argv) -> int:
    from .ledger import default_jobs

    p = argparse.ArgumentParser(prog="python -m properties", description="Run the claims ledger.")
    p.add_argument("--claims", action="append", metavar="PATTERN",
                   help="glob over claim ids, e.g. 'softmax_regression.*' (repeatable; default: all)")
    _add_search_options(p, profiles.DEFAULT_PROFILE)
    p.add_argument("--jobs", type=_positive_int,
                   help=f"worker processes judging claims in parallel (default: all cores, here {default_jobs()})")
    _add_scheduler_option(p, "the claims")
    p.add_argument("--json", metavar="PATH", help="write the machine-readable ledger to PATH, after every claim")
    p.add_argument("--resume", action="store_true",
                   help="keep the claims already in the --json ledger and run only the missing ones")
    p.add_argument("--list", action="store_true", help="list the selected claims and exit")
    args = p.parse_args(argv)

    from .ledger import run_ledger, summary_table
    from .ledgerfile import check_writable

    if args.resume and not args.json:
        print("error: --resume needs --json PATH (the ledger to resume)", file=sys.stderr)
        return 2
    if args.jobs is not None and args.scheduler is not None:
        print("error: --jobs and --scheduler exclude each other: with --scheduler the cluster's workers judge "
              "the claims (start them with --nthreads 1)", file=sys.stderr)
        return 2
    jobs = default_jobs() if args.jobs is None else args.jobs
    if args.json and not args.list:
        try:
            check_writable(args.json)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2

    from .registry import canonical_ids, claims, select

    selected = select(args.claims)
    if not selected:
        print(f"error: no registered claim matches {args.claims} "
              f"({len(claims())} claims are registered; see --list)", file=sys.stderr)
        return 2
    if args.list:
        for c in selected:
            print(f"{c.id}\t{c.kind}\t{c.mode}")
        return 0
    engine = f"{jobs} jobs" if args.scheduler is None else f"scheduler {args.scheduler}"
    print(f"ledger: {len(selected)} claims, profile {args.profile}, seed {args.seed}, {engine} "
          f"({len(claims()) if not args.claims else 'a selection'} of the {len(canonical_ids())} claim ids "
          f"of claims.tsv)", file=sys.stderr)
    try:
        entries = run_ledger(selected, profile=args.profile, seed=args.seed, json_path=args.json, jobs=jobs,
                             resume=args.resume, scheduler=args.scheduler)
    except (ValueError, ConnectionError) as exc:  # a ledger that cannot be resumed from, an unusable scheduler
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:  # a dead worker process, a failed cluster task: the JSON keeps what finished
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        where = f"; {args.json} holds the claims that finished: rerun with --resume" if args.json else ""
        print(f"interrupted{where}", file=sys.stderr)
        return 130
    print(summary_table(entries))
    if args.json:
        print(f"wrote {args.json}", file=sys.stderr)
    return 0


def _validate(argv) -> int:
    from .validate import DEFAULT_TIMEOUT

    p = argparse.ArgumentParser(prog="python -m properties validate",
                                description="Validate an implementation module through the adapter contract.")
    p.add_argument("module", help="importable module name, e.g. solvers.adapter or mypkg.impl")
    _add_search_options(p, "ci")
    p.add_argument("--timeout", type=_seconds, default=DEFAULT_TIMEOUT,
                   help="seconds one call of the module's functions may take before it is a FAIL (default: %(default)g)")
    _add_scheduler_option(p, "the function checks and the claims")
    args = p.parse_args(argv)
    from .validate import validate

    return validate(args.module, profile=args.profile, seed=args.seed, timeout=args.timeout, scheduler=args.scheduler)


def _adapters(argv) -> int:
    p = argparse.ArgumentParser(prog="python -m properties adapters", description="List the adapter contract.")
    p.add_argument("--markdown", action="store_true", help="print README's adapter table")
    args = p.parse_args(argv)
    from .contract import table
    from .registry import adapters

    print(table(adapters().values(), markdown=args.markdown))
    return 0


def _report(argv) -> int:
    from .registry import paper_names

    p = argparse.ArgumentParser(prog="python -m properties report",
                                description="Write ERRATA-<paper>.md and TIGHTNESS-<paper>.png from a ledger.")
    p.add_argument("--paper", action="append", choices=paper_names(), help="a paper's short name (repeatable; default: all)")
    p.add_argument("--out", default="report", metavar="DIR", help="directory to write to (default: %(default)s)")
    p.add_argument("--from", dest="source", metavar="LEDGER.json",
                   help="an existing JSON ledger (default: run the ledger now, into DIR/ledger.json)")
    p.add_argument("--tightness-from", dest="tightness", metavar="LEDGER.json",
                   help="a deeper ledger (e.g. errata/ledger-deep.json) whose verified bounds make the tightness "
                        "table and figure (default: the --from ledger)")
    _add_search_options(p, profiles.DEFAULT_PROFILE)
    _add_scheduler_option(p, "the claims (unless --from)")
    args = p.parse_args(argv)
    from .ledgerfile import check_writable, read_ledger
    from .report import check_matplotlib, write_reports

    papers = args.paper or list(paper_names())
    try:
        check_matplotlib()  # before anything is run or written
        os.makedirs(args.out, exist_ok=True)
        check_writable(os.path.join(args.out, "ERRATA.md"))
        if args.source:
            ledger = read_ledger(args.source)
        else:
            path = os.path.join(args.out, "ledger.json")
            check_writable(path)
            code = _ledger(["--json", path, "--profile", args.profile, "--seed", str(args.seed),
                            *(["--scheduler", args.scheduler] if args.scheduler else []),
                            *[a for paper in papers for a in ("--claims", f"{paper}.*")]])
            if code:
                return code
            ledger = read_ledger(path)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    command = ("python -m properties report" + (f" --from {args.source}" if args.source else
                                                 f" --profile {ledger.get('profile', args.profile)} "
                                                 f"--seed {ledger.get('seed', args.seed)}")
               + (f" --tightness-from {args.tightness}" if args.tightness else "") + f" --out {args.out}"
               + "".join(f" --paper {paper}" for paper in (args.paper or ())))
    from .certify import certify_ledger

    try:
        tightness = read_ledger(args.tightness) if args.tightness else None
        entries = [c for c in ledger["claims"] if c.get("paper") in papers]
        # the certify step (issue 22, item 5): each falsified claim and verified repair proven in ball arithmetic
        certificates = certify_ledger(entries, os.path.join(args.out, "certificates"),
                                      progress=lambda line: print(line, file=sys.stderr))
        written = write_reports(ledger, args.out, papers=papers, command=command, certificates=certificates,
                                tightness=tightness, tightness_source=args.tightness or "",
                                source=args.source or os.path.join(args.out, "ledger.json"))
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path}", file=sys.stderr)
    return 0


def _experiment(argv) -> int:
    from .registry import paper, paper_names

    if not argv or argv[0] not in paper_names() or not paper(argv[0]).experiment:
        runnable = [name for name in paper_names() if paper(name).experiment]
        print(f"usage: python -m properties experiment {{{','.join(runnable)}}} [options]", file=sys.stderr)
        return 2
    import importlib

    runner = importlib.import_module(paper(argv[0]).experiment)
    return runner.main(argv[1:], prog=f"python -m properties experiment {argv[0]}")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "experiment":
        return _experiment(argv[1:])
    if argv and argv[0] == "report":
        return _report(argv[1:])
    if argv and argv[0] == "validate":
        return _validate(argv[1:])
    if argv and argv[0] == "adapters":
        return _adapters(argv[1:])
    if argv and argv[0] == "certify":
        from .certify import main as certify

        return certify(argv[1:])
    return _ledger(argv)


if __name__ == "__main__":
    sys.exit(main())
