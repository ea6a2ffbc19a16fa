"""Command line: ``python -m properties`` runs the claims ledger; ``validate MODULE`` validates an
implementation; ``adapters`` lists the adapter contract.

    python -m properties [--claims PATTERN ...] [--profile ci|dev|thorough] [--json PATH]
    python -m properties validate MODULE [--profile ci|dev|thorough]
    python -m properties adapters [--markdown]

Exit codes: 0 the ledger ran (falsified claims are findings, not errors) / the module passed;
1 validation failed; 2 bad usage (a pattern matching no claim, a module that cannot be imported or
defines no adapter function).
"""

from __future__ import annotations

import argparse
import sys

from . import profiles


def _ledger(argv) -> int:
    p = argparse.ArgumentParser(prog="python -m properties", description="Run the claims ledger.")
    p.add_argument("--claims", action="append", metavar="PATTERN",
                   help="glob over claim ids, e.g. 'softmax_regression.*' (repeatable; default: all)")
    p.add_argument("--profile", default="dev", choices=sorted(profiles.PROFILES),
                   help="Hypothesis profile: examples per claim (default: dev)")
    p.add_argument("--json", metavar="PATH", help="write the machine-readable ledger to PATH")
    p.add_argument("--list", action="store_true", help="list the selected claims and exit")
    args = p.parse_args(argv)

    from .ledger import run_ledger, summary_table
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
    total = len(canonical_ids())
    registered = len(claims())
    print(f"ledger: {len(selected)} claims, profile {args.profile} "
          f"({registered} of the {total} claim ids of claims.tsv are registered)", file=sys.stderr)
    results = run_ledger(selected, profile=args.profile, json_path=args.json)
    print(summary_table(results))
    if args.json:
        print(f"wrote {args.json}", file=sys.stderr)
    return 0


def _validate(argv) -> int:
    p = argparse.ArgumentParser(prog="python -m properties validate",
                                description="Validate an implementation module through the adapter contract.")
    p.add_argument("module", help="importable module name, e.g. solvers.adapter or mypkg.impl")
    p.add_argument("--profile", default="ci", choices=sorted(profiles.PROFILES))
    args = p.parse_args(argv)
    from .validate import validate

    return validate(args.module, profile=args.profile)


def _adapters(argv) -> int:
    p = argparse.ArgumentParser(prog="python -m properties adapters", description="List the adapter contract.")
    p.add_argument("--markdown", action="store_true", help="print README's adapter table")
    args = p.parse_args(argv)
    from .contract import table
    from .registry import adapters

    print(table(adapters().values(), markdown=args.markdown))
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "validate":
        return _validate(argv[1:])
    if argv and argv[0] == "adapters":
        return _adapters(argv[1:])
    return _ledger(argv)


if __name__ == "__main__":
    sys.exit(main())
