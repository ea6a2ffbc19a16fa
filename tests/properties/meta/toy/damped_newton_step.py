"""``softmax_newton_step`` with a damping factor left at ½ (x − ½H̃⁻¹∇L(x)): the step contracts by
about ½ instead of ε0, so lem8.7/lem8.8/thm9.1.accuracy (false in general) stay "falsified" as
recorded, but their repaired statements (the H-norm contraction, H15) are falsified too: the validator
must FAIL the repairs and the adapter check."""

import numpy as np

from solvers.adapter import softmax_gradient


def softmax_newton_step(A, b, w, x, H_tilde):
    return np.asarray(x) - 0.5 * np.linalg.solve(H_tilde, softmax_gradient(A, b, w, x))
