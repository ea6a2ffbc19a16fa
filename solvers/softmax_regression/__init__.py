"""Solvers for regularised softmax regression (Deng, Li, Song 2023, arXiv:2304.10411).

Spec: ``spec/softmax_regression.md`` §2 (definitions ``def.*``) and §3 (``alg.sparsify``,
``alg.newton``, ``alg.exact_newton``).  All claim ids carry the prefix ``softmax_regression.``.

The objective (``def.L``) is, with ``u = A x``, ``f = softmax(u)`` and ``W = diag(w)``,
``L(x) = 0.5 ‖f − b‖² + 0.5 ‖W A x‖²``.

Modules (the implementation; the public names are re-exported here):

- :mod:`.objective`: validation, the jitted kernels, :func:`loss`, :func:`gradient`,
  :func:`hessian`, :func:`hessian_kernel_B`.
- :mod:`.exact`: the shared Newton step (safeguarded direction, Armijo search), :func:`exact_newton`,
  :class:`NewtonResult`.
- :mod:`.approximate`: the paper's Algorithm 1, :func:`approximate_newton`, :func:`sparsify`,
  :func:`sample_size`, :func:`iteration_flops`.
- :mod:`.split`: :func:`split_newton` (one pass over A per iteration).

Every Newton method runs on the driver :func:`solvers.newton.iterate` and reports why it stopped
in ``NewtonResult.status`` (:class:`solvers.newton.Status`).  Randomised solvers take ``key``: a
``jax.random`` key or an int seed.  Public functions validate their arguments up front and raise
``ValueError`` in the form ``name=... must be ...``, and ``ValueError`` naming the overflow where a
result would not be finite in float64.  Everything is float64 (``jax_enable_x64``).  ``solvers``
never imports ``oracle``.
"""

from ..results import Status as Status
from .approximate import approximate_newton as approximate_newton
from .approximate import iteration_flops as iteration_flops
from .approximate import sample_size as sample_size
from .approximate import sparsify as sparsify
from .exact import NewtonResult as NewtonResult
from .exact import exact_newton as exact_newton
from .objective import gradient as gradient
from .objective import hessian as hessian
from .objective import hessian_kernel_B as hessian_kernel_B
from .objective import loss as loss
from .split import split_newton as split_newton

__all__ = [
    "NewtonResult",
    "Status",
    "approximate_newton",
    "exact_newton",
    "gradient",
    "hessian",
    "hessian_kernel_B",
    "iteration_flops",
    "loss",
    "sample_size",
    "sparsify",
    "split_newton",
]
