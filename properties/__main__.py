"""Command line: ``python -m properties`` runs the claims ledger; ``validate MODULE`` validates an
implementation; ``adapters`` lists the adapter contract; ``report`` writes the errata and
tightness report of each paper.

    python -m properties [--claims PATTERN ...] [--profile ci|dev|thorough] [--seed N]
                         [--jobs N | --scheduler ADDRESS] [--json PATH [--resume]] [--list]
    python -m properties validate MODULE [--profile ci|dev|thorough] [--seed N] [--timeout SECONDS]
                                  [--only FUNCTION ...] [--memory MIB] [--scheduler ADDRESS]
    python -m properties adapters [--markdown]
    python -m properties report [--paper P ...] [--claims PATTERN ...] [--out DIR] [--from LEDGER.json]
                                [--tightness-from LEDGER.json] [--profile ...] [--seed N] [--scheduler ADDRESS]
    python -m properties experiment PAPER [--out DIR] [--quick] ...   (the paper's experiment runner)
    python -m properties certify [--from LEDGER.json] [--claims PATTERN ...] [--out DIR] | --check FILE ...

``--scheduler ADDRESS`` runs the claims (for ``validate``: functions and claims) as tasks on the
dask.distributed cluster whose scheduler is at ADDRESS (:mod:`properties.distributed`) instead of
``--jobs`` processes here; the output and the JSON are the same.

Exit codes: 0 the ledger ran (falsified claims are findings, not errors) / the module passed;
1 validation failed, or the ledger could not finish (a worker process died, a cluster's task failed
on every try: the JSON ledger holds the claims that finished); 2 bad usage (a pattern matching no
claim, a JSON path that cannot be written or resumed from, a module that cannot be imported or
defines no adapter function, ``--jobs`` with ``--scheduler``, a scheduler that does not answer);
130 interrupted (the JSON ledger then holds the claims that finished: rerun with ``--resume``);
141 standard output was closed early (``--list | head``): quietly, with no traceback.
"""

from __future__ import annotations

import argparse
import os
import sys

from .own_imports import judge_imports_first

judge_imports_first()  # before numpy, mpmath, Hypothesis, the oracle: the judge's own, not the current directory's

from . import profiles  # noqa: E402


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


def _add_search_options(p: argparse.ArgumentParser, default_profile: str) -> None:
    p.add_argument("--profile", default=default_profile, choices=sorted(profiles.PROFILES),
                   help=f"Hypothesis profile: examples per claim (default: {default_profile})")
    p.add_argument("--seed", type=_seed, default=profiles.DEFAULT_SEED,
                   help=f"seed of every search, under every profile (default: {profiles.DEFAULT_SEED})")


def _add_scheduler_option(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help=f"run {what} as tasks on the dask.distributed cluster whose scheduler is at ADDRESS, "
                        "e.g. tcp://10.0.0.5:8786 (needs pip install 'attention-claims[distributed]')")


def _add_claims_option(p: argparse.ArgumentParser, default: str) -> None:
    p.add_argument("--claims", action="extend", nargs="+", metavar="PATTERN",
                   help=f"globs over claim ids, e.g. --claims 'softmax_regression.*' 'attention_pruning.fact*' "
                        f"(the flag may be repeated; {default})")


def _ledger(argv) -> int:
    from .ledger import default_jobs

    p = argparse.ArgumentParser(prog="python -m properties", usage="python -m properties [SUBCOMMAND] [options]",
                                description="Without a subcommand: run the claims ledger, with the options below. "
                                            "With one: the subcommands listed after them.",
                                epilog=_subcommands_help(), formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_claims_option(p, "default: all")
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

    if args.resume and args.json is None:
        print("error: --resume needs --json PATH (the ledger to resume)", file=sys.stderr)
        return 2
    if args.jobs is not None and args.scheduler is not None:
        print("error: --jobs and --scheduler exclude each other: with --scheduler the cluster's workers judge "
              "the claims (start them with --nthreads 1)", file=sys.stderr)
        return 2
    jobs = default_jobs() if args.jobs is None else args.jobs
    if args.json is not None and not args.list:
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
    from .isolation import MAX_TIMEOUT
    from .validate import DEFAULT_TIMEOUT

    seconds = _argument(float, "a number", lambda v: 0 < v <= MAX_TIMEOUT,
                        f"a positive number of seconds, at most {MAX_TIMEOUT:g} (one day)")
    p = argparse.ArgumentParser(prog="python -m properties validate",
                                description="Validate an implementation module through the adapter contract.")
    p.add_argument("module", help="importable module name, e.g. solvers.adapter or mypkg.impl")
    _add_search_options(p, "ci")
    p.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT,
                   help=f"seconds one call of the module's functions may take before it is a FAIL (default: "
                        f"%(default)g, at most {MAX_TIMEOUT:g})")
    p.add_argument("--only", action="extend", nargs="+", metavar="FUNCTION",
                   help="check only these adapter functions of the module (and the claims that use only them)")
    p.add_argument("--memory", type=_positive_int, metavar="MIB",
                   help="mebibytes the module's process may address (RLIMIT_AS, Linux; default: this machine's "
                        "memory): an allocation beyond it is a MemoryError in the call")
    _add_scheduler_option(p, "the function checks and the claims")
    args = p.parse_args(argv)
    from .validate import validate

    try:
        return validate(args.module, profile=args.profile, seed=args.seed, timeout=args.timeout,
                        scheduler=args.scheduler, functions=args.only,
                        memory=None if args.memory is None else args.memory << 20)
    except KeyboardInterrupt:  # a Ctrl-C, or a SIGINT the module sent to the judge: one line, no traceback
        print("interrupted: no verdict", file=sys.stderr)
        return 130


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
                                description="Write ERRATA-<paper>.md and TIGHTNESS-<paper>.png for each paper of a ledger.")
    p.add_argument("--paper", action="extend", nargs="+", choices=paper_names(), metavar="PAPER",
                   help=f"papers' short names, of {', '.join(paper_names())} (the flag may be repeated; default: "
                        "every paper the ledger holds)")
    _add_claims_option(p, "default: every claim of the ledger")
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
    from .report import FIGURES_NEED, has_matplotlib, reproduce_command, select_entries, write_reports

    try:
        os.makedirs(args.out, exist_ok=True)
        check_writable(os.path.join(args.out, "ERRATA.md"))
        if args.source:
            ledger = read_ledger(args.source)
        else:
            path = os.path.join(args.out, "ledger.json")
            check_writable(path)
            patterns = args.claims or [f"{paper}.*" for paper in args.paper or ()]
            code = _ledger(["--json", path, "--profile", args.profile, "--seed", str(args.seed),
                            *(["--scheduler", args.scheduler] if args.scheduler else []),
                            *(["--claims", *patterns] if patterns else [])])
            if code:
                return code
            ledger = read_ledger(path)
        # only the papers and claims selected, and only papers the ledger holds
        ledger, papers = select_entries(ledger, papers=args.paper, patterns=args.claims,
                                        source=args.source or os.path.join(args.out, "ledger.json"))
        tightness = read_ledger(args.tightness) if args.tightness else None
        if tightness is not None:
            tightness, _ = select_entries(tightness, papers=papers, patterns=args.claims, source=args.tightness,
                                          empty_ok=True)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    command = reproduce_command(source=args.source, profile=ledger.get("profile", args.profile),
                                seed=ledger.get("seed", args.seed), tightness=args.tightness, out=args.out,
                                papers=args.paper, patterns=args.claims)
    from .certify import certify_ledger

    try:
        # the certify step: each falsified claim and verified repair proven in ball arithmetic
        certificates = certify_ledger(ledger["claims"], os.path.join(args.out, "certificates"),
                                      progress=lambda line: print(line, file=sys.stderr))
        written = write_reports(ledger, args.out, papers=papers, command=command, certificates=certificates,
                                tightness=tightness, tightness_source=args.tightness or "",
                                source=args.source or os.path.join(args.out, "ledger.json"))
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path}", file=sys.stderr)
    if not has_matplotlib():
        print(f"the TIGHTNESS figures were not drawn: matplotlib is not installed; {FIGURES_NEED} draws them",
              file=sys.stderr)
    return 0


def _experiment(argv) -> int:
    from .registry import paper, paper_names

    runnable = [name for name in paper_names() if paper(name).experiment]
    usage = (f"usage: python -m properties experiment {{{','.join(runnable)}}} [options]\n"
             f"(python -m properties experiment PAPER --help lists the options of PAPER's experiment)")
    if argv and argv[0] in ("-h", "--help"):
        print(usage)
        return 0
    if not argv or argv[0] not in runnable:
        print(usage, file=sys.stderr)
        if argv:
            print(f"error: paper={argv[0]!r} must be one of {', '.join(runnable)} (the papers with an experiment)",
                  file=sys.stderr)
        return 2
    import importlib

    runner = importlib.import_module(paper(argv[0]).experiment)
    return runner.main(argv[1:], prog=f"python -m properties experiment {argv[0]}")


def _certify(argv) -> int:
    from .certify import main as certify

    return certify(argv)


def _docs(argv) -> int:
    """Run the checkout's generator ``docs/generate.py`` (it reads ``docs/source/`` and ``errata/`` and writes
    ``docs/``, so it is no part of the installed package).  Where there is no checkout, ``--help`` is still
    answered and a bad ``--out`` refused as by every command; then one line and exit 2."""
    import importlib.util

    script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "generate.py")
    if os.path.isfile(script):
        spec = importlib.util.spec_from_file_location("docs_generate", script)
        generator = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(generator)
        return generator.main(argv)
    import argparse

    p = argparse.ArgumentParser(prog="python -m properties docs", description=(
        "Write the generated pages of docs/ from the registry, the committed ledgers and docs/source/ of a "
        "checkout (runs the checkout's docs/generate.py)."))
    p.add_argument("--out", default=None, help="directory to write into (default: the checkout's docs/)")
    out = p.parse_args(argv).out
    if out is not None and os.path.exists(out) and not os.path.isdir(out):  # refused without making anything
        print(f"error: --out={out!r} is a file, not a directory to write into", file=sys.stderr)
        return 2
    print("error: python -m properties docs writes the docs/ of a checkout and runs its docs/generate.py; "
          "this package is installed, not a checkout's (clone the repository and pip install -e .)", file=sys.stderr)
    return 2


SUBCOMMANDS = {
    "validate": (_validate, "validate an implementation module (MODULE) against every applicable claim, in a child process"),
    "adapters": (_adapters, "list the adapter contract: the functions an implementation may define, their tolerances"),
    "report": (_report, "write ERRATA-<paper>.md and TIGHTNESS-<paper>.png for each paper of a ledger"),
    "certify": (_certify, "prove each falsified claim false in ball arithmetic, or re-check certificates (--check)"),
    "experiment": (_experiment, "run a paper's experiment (attention_pruning: Figure 2 and the MiniLM-L6 model)"),
    "docs": (_docs, "write the generated pages of docs/ (paper references, contract, oracle API) from the registry"),
}
"""The subcommands, each with the one line ``python -m properties --help`` shows; no subcommand runs the ledger."""


def _subcommands_help() -> str:
    width = max(map(len, SUBCOMMANDS))
    rows = "\n".join(f"  {name:<{width}}  {line}" for name, (_, line) in SUBCOMMANDS.items())
    return (f"subcommands (python -m properties SUBCOMMAND --help for the options of each):\n{rows}\n\n"
            "exit codes: 0 done (falsified claims are findings, not errors); 1 validation failed or the ledger could "
            "not finish;\n2 bad usage; 130 interrupted; 141 standard output closed early (e.g. piped into head)")


def _quietly_on_a_closed_pipe(run, argv) -> int:
    """``run(argv)``, flushing standard output before returning; when the reader of a pipe has gone
    (``--list | head``), exit code 141 (128 + SIGPIPE, as a shell reports a tool the pipe ended) with no
    traceback, standard output and error pointed at the null device so the interpreter's last flush is quiet."""
    try:
        try:
            return run(argv)
        finally:
            sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        for stream in (sys.stdout, sys.stderr):
            try:
                os.dup2(devnull, stream.fileno())
            except (OSError, ValueError, AttributeError):  # a stream without a file descriptor (captured)
                pass
        return 141


def _dispatch(argv) -> int:
    if argv and argv[0] in SUBCOMMANDS:
        return SUBCOMMANDS[argv[0]][0](argv[1:])
    return _ledger(argv)


def main(argv=None) -> int:
    """``python -m properties [SUBCOMMAND] ...``: the exit code (module docstring)."""
    return _quietly_on_a_closed_pipe(_dispatch, sys.argv[1:] if argv is None else list(argv))


if __name__ == "__main__":
    sys.exit(main())
