"""Claims of the attention-optimization paper judged at fixed instances (properties.attention_optimization)."""

from __future__ import annotations

import numpy as np

import solvers.adapter as impl
from properties.registry import load_all


def test_thm1_3_judged_where_the_hessian_is_constant():
    """A regression: the deep run's instance A1 = A2 = A3 = [[3]], B = [[0]], w = [2], z0 = [0, 1], ε = 1e-3,
    seed 0 raised ZeroDivisionError in thm1.3's check: with n = 1 softmax is identically 1, the loss is
    quadratic and the estimate M of the Hessian's Lipschitz constant is exactly 0, so r_0 = 0.1·l/M was
    undefined.  M‖z_0 − z*‖ ≤ 0.1·l then allows every z_0: the check takes r_0 = 1/20 (the radius at
    which the Hessian was sampled), and Newton meets ε."""
    one = np.array([[3.0]])
    inst = ((one, one, one, np.array([[0.0]]), np.array([2.0]), np.array([0.0, 1.0])), 1e-3, 0)
    out = load_all()["attention_optimization.thm1.3"].check(inst, impl)
    assert out.holds and out.bound == 1e-3 and "r_0 = 0.05" in out.note and "M ≈ 0.0" in out.note, out
