"""Hostile module: a ``kron`` off by one in every entry that patches ``mpmath`` at import so that every
difference is 0 and every comparison holds: an in-process oracle would pass it.  Isolated, the
patch stays in the module's process: FAIL, exit 1."""

import mpmath
import numpy as np

_zero = mpmath.mpf(0)
mpmath.mpf.__sub__ = lambda a, b: _zero
mpmath.mpf.__rsub__ = lambda a, b: _zero
mpmath.mpf.__abs__ = lambda a: _zero
mpmath.mpf.__le__ = lambda a, b: True
mpmath.mpf.__lt__ = lambda a, b: True
mpmath.mpf.__ge__ = lambda a, b: True
mpmath.mpf.__gt__ = lambda a, b: False


def kron(x, y):
    return np.kron(x, y) + 1.0
