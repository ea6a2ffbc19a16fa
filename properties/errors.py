"""The harness's exceptions, in one module (as Hypothesis's ``errors.py``; issue 21, item 6).

- :class:`UndecidableError` (defined in :mod:`oracle.precision`, re-exported here: the oracle cannot
  import the harness): the precision ladder ended without a stable verdict.  The engine counts such an
  example as undecided and goes on.
- :class:`HypothesisUnmet`: a drawn instance does not meet the claim's hypotheses.  It is *not* an
  ``UndecidableError``: the engine rejects the instance inside a search (as ``assume`` does) and
  skips it outside one; every other handler names it explicitly.
- :class:`AdapterAbort` and its subclasses (:class:`TimedOut`, :class:`ImplementationDied`): a call of
  the implementation under judgement that ends the judging of its function at once, without shrinking.
- :class:`ImplementationError`, :class:`UnplainOutput`: a call that raised an exception of the
  module's own class, or returned what does not convert to plain arrays: a failure like any other.
- :class:`UnusableModule`: the module cannot be imported in its process (exit code 2).
"""

from __future__ import annotations

from oracle import UndecidableError as UndecidableError

__all__ = ["AdapterAbort", "HypothesisUnmet", "ImplementationDied", "ImplementationError", "TimedOut", "UndecidableError",
           "UnplainOutput", "UnusableModule"]


class HypothesisUnmet(Exception):
    """A drawn instance does not meet the claim's hypotheses (exactly, as the oracle sees it).

    Raised by :func:`properties.toolkit.require`.  The engine's search rejects such an instance (as
    Hypothesis's ``assume`` does); outside a search (an explicit example, a corner, a re-check) it is
    skipped as undecided.
    """


class AdapterAbort(BaseException):
    """An implementation's call that ends the judging of its function at once, without shrinking:
    it ran past the validator's time limit, raised a ``BaseException`` (``SystemExit``,
    ``KeyboardInterrupt`` raised by the function itself, ...) or was not deterministic for one seed.

    It derives from ``BaseException`` so that neither Hypothesis (which would replay and shrink a
    hang) nor a compare function's ``except Exception`` swallows it; the validator and the ledger
    catch it and report a FAIL / an error naming the function.
    """


class TimedOut(AdapterAbort):
    """The call ran past the validator's time limit (``--timeout``)."""


class ImplementationDied(AdapterAbort):
    """The implementation's process ended during a call (any exit code, ``os._exit(0)`` included, or a
    signal)."""


class ImplementationError(Exception):
    """The implementation raised, in its process, an exception with no builtin base class to re-raise
    (its message starts with the class's name)."""


class UnplainOutput(Exception):
    """A call returned what does not convert to plain values: the conversion raised (even
    ``SystemExit``), gave no numbers, or gave two different arrays for one object."""


class UnusableModule(Exception):
    """The module under judgement cannot be imported in its process; the message is the one line the
    command line prints before it exits with code 2."""
