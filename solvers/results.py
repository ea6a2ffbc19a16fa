"""The one status vocabulary of the solvers' results (as lineax's ``RESULTS``).

**The one result shape.** Every solver that returns a ``*Result`` (a ``NamedTuple``) gives:

- the solution, first (``x``, ``W``, ``M`` — what the algorithm computes);
- ``status``, second: a :class:`Status` naming why the solver stopped.  ``Status.CONVERGED`` is the one
  success; every other member is a stop the caller must look at.  Numerical breakdown inside a
  solver (a factorisation that fails, an iterate that is not finite, no descent step) is reported
  here, never raised; bad arguments raise ``ValueError`` naming the argument and the rule before
  any work is done;
- for an iterative solver, its iteration count(s) (``iterations``, or ``steps`` for a fixed count),
  next to the bound it ran under where it has one (``max_iterations``).

Further fields are each solver's own (work counts, sketch sizes, histories) and are documented on
its result type.
"""

from __future__ import annotations

import enum

__all__ = ["Status", "stopping_status"]


class Status(enum.Enum):
    """Why a solver stopped (as lineax's ``RESULTS``)."""

    #: success: the stopping rule was met (the termination measure reached its tolerance, a
    #: fixed-count method took all its steps, or a direct method's factorisations succeeded).
    CONVERGED = "converged"
    #: ``max_iter`` updates were taken without reaching ``tol``.
    MAX_ITERATIONS = "max_iterations"
    #: the callback returned a true value.
    CALLBACK = "callback"
    #: the (unsafeguarded) model Hessian is not numerically positive definite: no Newton step.
    NOT_POSITIVE_DEFINITE = "not_positive_definite"
    #: no update could decrease the objective: the direction is not a descent direction, or no
    #: step length satisfies the line search (the iterate is optimal to rounding, or the model
    #: is useless there).
    STALLED = "stalled"
    #: the step or the termination measure is NaN or inf.
    NONFINITE = "nonfinite"


def stopping_status(met: bool) -> Status:
    """``Status.CONVERGED`` when an iteration met its stopping rule, else ``Status.MAX_ITERATIONS``
    (it stopped at its cap)."""
    return Status.CONVERGED if met else Status.MAX_ITERATIONS
