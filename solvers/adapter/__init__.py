"""The adapter of ``solvers`` for the validator: numpy arrays in, numpy arrays or floats out.

``python -m properties validate solvers.adapter`` checks every function here against the oracle,
through the same path as any outside implementation (docs/development.md#one-contract).  Names and signatures are
the public contract (``python -m properties adapters``, README).  One private module per paper;
this file only re-exports their public names (each module's ``__all__``), one line per module.
"""

from ._attention_kernel_regression import *  # noqa: F403
from ._attention_optimization import *  # noqa: F403
from ._attention_pruning import *  # noqa: F403
from ._kernel_ridge import *  # noqa: F403
from ._least_squares import *  # noqa: F403
from ._linear_algebra import *  # noqa: F403
from ._softmax_regression import *  # noqa: F403

__all__ = sorted(name for name in dir() if not name.startswith("_"))  # exactly the names re-exported above
