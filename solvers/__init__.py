"""JAX implementations of the papers' algorithms and of the baselines (float64, jit).

Importing ``solvers`` enables float64 in JAX.  ``solvers`` never imports ``oracle``.
The adapter functions the validator checks live in :mod:`solvers.adapter`.
"""

import jax

jax.config.update("jax_enable_x64", True)

# The package namespace defines nothing itself: import the modules (``solvers.regression``,
# ``solvers.softmax_regression``, ``solvers.newton``, ``solvers.adapter``, …) by name.
__all__: list[str] = []
