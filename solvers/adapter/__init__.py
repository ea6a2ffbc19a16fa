"""The adapter of ``solvers`` for the validator: numpy arrays in, numpy arrays or floats out.

``python -m properties validate solvers.adapter`` checks every function here against the oracle,
through the same path as any outside implementation (DESIGN principle 7).  Names and signatures are
the public contract (``python -m properties adapters``, README).  One private module per paper;
this file only re-exports their public names.
"""

from ._attention_kernel_regression import *  # noqa: F403
from ._attention_kernel_regression import __all__ as _kr
from ._attention_optimization import *  # noqa: F403
from ._attention_optimization import __all__ as _ao
from ._attention_pruning import *  # noqa: F403
from ._attention_pruning import __all__ as _ap
from ._kernel_ridge import *  # noqa: F403
from ._kernel_ridge import __all__ as _klr
from ._least_squares import *  # noqa: F403
from ._least_squares import __all__ as _ls
from ._linear_algebra import *  # noqa: F403
from ._linear_algebra import __all__ as _la
from ._softmax_regression import *  # noqa: F403
from ._softmax_regression import __all__ as _sm

__all__ = sorted([*_la, *_ls, *_kr, *_sm, *_ap, *_ao, *_klr])
