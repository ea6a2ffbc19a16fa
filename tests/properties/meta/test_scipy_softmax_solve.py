"""What README promises about scipy's optimisers as ``softmax_solve``, measured: which
methods and settings pass the validator with which declared ``SOLVE_TOLERANCE``.  scipy's ``gtol`` is an
absolute threshold on the gradient, while the contract's rule is relative (τ times the magnitudes of
x* and of L's terms), so an optimiser passes once its own tolerance is well inside τ's: BFGS with
gtol = 1e-10 passes at the default τ = 1e-8; BFGS at its default gtol = 1e-5 fails even with
τ = 1e-6 declared (trust-exact at gtol = 1e-15 passes in test_real_libraries; L-BFGS-B at ftol = 1e-16,
gtol = 1e-15 passes up to κ(A) = 1e4 and fails the κ(A) = 1e6 corner there)."""

import warnings

import pytest

from properties.registry import adapters
from properties.validate import check_function
from tests.properties.meta.real.scipy_minimize import solve


def _bfgs(**options):
    def softmax_solve(A, b, w):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # BFGS ignores the Hessian it is handed
            return solve(A, b, w, "BFGS", **options)
    return softmax_solve


@pytest.mark.parametrize("options, tau, passes", [
    ({"gtol": 1e-10}, 1e-8, True),
    ({}, 1e-8, False),
    ({}, 1e-6, False),
])
def test_bfgs_passes_softmax_solve_only_with_a_gradient_tolerance_inside_the_declared_one(options, tau, passes):
    rep = check_function(adapters()["softmax_solve"], _bfgs(**options), options={"SOLVE_TOLERANCE": tau})
    assert rep.passed is passes, (options, tau, rep)
    if not passes:
        assert rep.outcome is not None and rep.outcome.ratio > 1, rep
