"""``fast_linear_regression`` that misses the guarantee on about three seeds in four (far more often
than its δ ≤ 0.09): the validator must FAIL it by the binomial rule (30 trials at δ = 0.05 allow at
most 10 failures at the false-alarm rate 1e-6)."""

from tests.properties.meta.toy.unlucky_regression import _solve


def fast_linear_regression(A, b, eps, delta, seed):
    return _solve(A, b, eps, delta, seed, 0.75)
