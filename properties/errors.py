"""The harness's exceptions, in one module (as Hypothesis's ``errors.py``), under one root.

The hierarchy::

    BaseException
    └── HarnessError                   every exception class defined in properties/ (but NotPlain, below)
        ├── AdapterAbort               BaseException only: Hypothesis and ``except Exception`` let it through
        │   ├── TimedOut
        │   └── ImplementationDied
        └── (each also an Exception)   HypothesisUnmet, ImplementationError, UnplainOutput, UnusableModule,
                                       and the engine's private search signal ``_Found``

``HarnessError`` derives from ``BaseException`` alone so that :class:`AdapterAbort` can stay outside
``Exception``; every other class derives from ``HarnessError`` *and* ``Exception`` (so ``except
Exception`` and ``except HarnessError`` both catch it), and the engine's private ``_Stop``, which ends
a search without Hypothesis shrinking it, is a ``HarnessError`` that is not an ``Exception``, like
:class:`AdapterAbort`.  ``except HarnessError`` catches every exception the harness raises of its
own.  Two exceptions stand outside, by design:

- :class:`UndecidableError` is the oracle's (:mod:`oracle.precision`, an ``ArithmeticError``),
  re-exported here: the oracle cannot import the harness.
- ``properties.worker.NotPlain`` (a ``ValueError``): the worker runs in the child process from its
  file path, importing the standard library and numpy only, so it cannot import this module.

What each means:

- :class:`UndecidableError`: the precision ladder ended without a stable verdict.  The engine counts
  such an example as undecided and goes on.
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

__all__ = ["AdapterAbort", "HarnessError", "HypothesisUnmet", "ImplementationDied", "ImplementationError", "TimedOut",
           "UndecidableError", "UnplainOutput", "UnusableModule"]


class HarnessError(BaseException):
    """The root of the harness's own exceptions (the hierarchy is in the module docstring): derive an
    ordinary error from ``(HarnessError, Exception)``, a signal that must pass ``except Exception``
    from ``HarnessError`` alone."""


class HypothesisUnmet(HarnessError, Exception):
    """A drawn instance does not meet the claim's hypotheses (exactly, as the oracle sees it).

    Raised by :func:`properties.toolkit.require`.  The engine's search rejects such an instance (as
    Hypothesis's ``assume`` does); outside a search (an explicit example, a corner, a re-check) it is
    skipped as undecided.
    """


class AdapterAbort(HarnessError):
    """An implementation's call that ends the judging of its function at once, without shrinking:
    it ran past the validator's time limit, raised a ``BaseException`` (``SystemExit``,
    ``KeyboardInterrupt`` raised by the function itself, ...) or was not deterministic for one seed.

    It is no ``Exception`` (a ``HarnessError`` alone) so that neither Hypothesis (which would replay
    and shrink a hang) nor a compare function's ``except Exception`` swallows it; the validator and the
    ledger catch it and report a FAIL / an error naming the function.
    """


class TimedOut(AdapterAbort):
    """The call ran past the validator's time limit (``--timeout``)."""


class ImplementationDied(AdapterAbort):
    """The implementation's process ended during a call (any exit code, ``os._exit(0)`` included, or a
    signal)."""


class ImplementationError(HarnessError, Exception):
    """The implementation raised, in its process, an exception with no builtin base class to re-raise
    (its message starts with the class's name)."""


class UnplainOutput(HarnessError, Exception):
    """A call returned what does not convert to plain values: the conversion raised (even
    ``SystemExit``), gave no numbers, or gave two different arrays for one object."""


class UnusableModule(HarnessError, Exception):
    """The module under judgement cannot be imported in its process; the message is the one line the
    command line prints before it exits with code 2."""
