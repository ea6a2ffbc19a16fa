"""The validator of outside implementations (DESIGN principle 7).

An implementation is a module defining some of the adapter functions of the contract (numpy arrays
in, numpy arrays or floats out; names, signatures and tolerance rules are listed by
``python -m properties adapters`` and in README).  ``validate(module)`` searches inputs with
Hypothesis for each function it defines, compares the output with the oracle, shrinks any failure
to a minimal input, and then runs every registered claim whose ``uses`` it defines.  ``solvers``
ships ``solvers.adapter`` and is validated through this same path.
"""

from __future__ import annotations

import importlib
import math
import sys
from dataclasses import dataclass

from hypothesis import given, settings, target

from oracle import UndecidableError

from . import profiles
from .contract import Adapter
from .ledger import jsonable, run_claim
from .registry import adapters, claims
from .toolkit import Outcome

__all__ = ["FunctionReport", "find_adapters", "validate"]


def find_adapters(module) -> list[str]:
    """Names of the contract's adapter functions that ``module`` defines."""
    return [name for name in adapters() if callable(getattr(module, name, None))]


@dataclass
class FunctionReport:
    name: str
    passed: bool
    examples: int
    worst: float | None
    minimal_input: object = None
    outcome: Outcome | None = None
    error: str = ""


def _check_function(ad: Adapter, fn, profile: str) -> FunctionReport:
    state = {"n": 0, "worst": None, "fail": None}

    class _Fail(Exception):
        pass

    def prop(inst):
        try:
            out = ad.compare(inst, fn)
        except UndecidableError:
            return
        except Exception as exc:  # the implementation crashed or returned garbage on valid input
            state["fail"] = (inst, None, f"{type(exc).__name__}: {exc}")
            raise _Fail() from exc
        state["n"] += 1
        state["worst"] = out.ratio if state["worst"] is None else max(state["worst"], out.ratio)
        target(max(-1e300, min(1e300, out.ratio)) if not math.isnan(out.ratio) else 1e300, label="error/tolerance")
        if not out.holds:
            state["fail"] = (inst, out, out.note)
            raise _Fail()

    n = profiles.examples_for(profile, ad.max_examples)
    test = settings(profiles.load(profile), max_examples=n)(given(ad.strategy())(prop))
    try:
        test()
    except _Fail:
        pass
    if state["fail"] is None:
        return FunctionReport(ad.name, True, state["n"], state["worst"])
    inst, out, note = state["fail"]
    return FunctionReport(ad.name, False, state["n"], state["worst"], inst, out, note)


def validate(module_name: str, *, profile: str = "ci", functions=None, include_claims: bool = True,
             stream=None) -> int:
    """Validate ``module_name``; print a report; return the exit code (0 pass, 1 fail, 2 usage).

    ``functions`` restricts the adapter checks to those names (default: every adapter function the
    module defines); ``include_claims=False`` skips the claims that use them.
    """
    stream = sys.stdout if stream is None else stream
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        print(f"error: cannot import module {module_name!r}: {exc}", file=sys.stderr)
        return 2
    names = find_adapters(module)
    if functions is not None:
        missing = sorted(set(functions) - set(names))
        if missing:
            print(f"error: module {module_name!r} does not define adapter functions {missing}", file=sys.stderr)
            return 2
        names = [n for n in names if n in set(functions)]
    if not names:
        print(f"error: module {module_name!r} defines none of the adapter functions "
              f"(list them with: python -m properties adapters)", file=sys.stderr)
        return 2
    print(f"validating {module_name}: {len(names)} adapter functions ({', '.join(names)})", file=stream)
    failed = 0
    for name in names:
        rep = _check_function(adapters()[name], getattr(module, name), profile)
        if rep.passed:
            worst = "-" if rep.worst is None else f"{rep.worst:.3g}"
            print(f"  PASS {name:<28} {rep.examples:>4} examples, worst error/tolerance {worst}", file=stream)
        else:
            failed += 1
            print(f"  FAIL {name:<28} minimal failing input: {jsonable(rep.minimal_input)}", file=stream)
            detail = rep.error or (rep.outcome and rep.outcome.note) or ""
            if rep.outcome is not None:
                detail = f"error/tolerance {rep.outcome.ratio:.3g}; {detail}"
            print(f"       {detail}", file=stream)
    applicable = [c for c in claims() if include_claims and c.uses and set(c.uses) <= set(names)]
    if applicable:
        print(f"claims that use these functions ({len(applicable)}):", file=stream)
    for c in applicable:
        r = run_claim(c, profile=profile, impl=module)
        ok = r.verdict == c.expected
        failed += not ok
        cex = f"; counterexample {jsonable(r.counterexample)}" if (r.counterexample is not None and not ok) else ""
        print(f"  {'PASS' if ok else 'FAIL'} {c.id:<56} {r.verdict} (recorded finding: {c.expected}){cex}"
              + (f" {r.reason}" if not ok and r.reason else ""), file=stream)
    total = len(names) + len(applicable)
    print(f"{total - failed} passed, {failed} failed", file=stream)
    return 1 if failed else 0
