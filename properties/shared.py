"""The adapter functions every paper relies on, declared as one unit: basic linear algebra
(:mod:`properties.linear_algebra`), black-box structure recovery (:mod:`properties.blackbox`) and
backward-stable least squares (:mod:`properties.least_squares`).  The registry reads ``ADAPTERS``
here beside each paper's ``PAPER.adapters``; a new shared adapter module is one more entry.
"""

from . import blackbox, least_squares, linear_algebra

__all__ = ["ADAPTERS"]

ADAPTERS = (linear_algebra.ADAPTERS, blackbox.ADAPTERS, least_squares.ADAPTERS)
