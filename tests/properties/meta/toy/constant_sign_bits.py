"""Planted bug: sketch bits with every sign +1 (the project's own bits, signs overwritten).  Well formed
and deterministic, so only the statistical checks of ``*_bits`` can fail them: sign balance, and the
subspace embedding on Walsh–Hadamard columns (SRHT) or on repeated rows (CountSketch, OSNAP)."""

import numpy as np

import solvers.adapter as _ok


def _plus(bits):
    return {k: (np.ones_like(v) if k.startswith("signs") else v) for k, v in bits.items()}


def srht_bits(n, m, seed):
    return _plus(_ok.srht_bits(n, m, seed))


def countsketch_bits(n, m, seed):
    return _plus(_ok.countsketch_bits(n, m, seed))


def osnap_bits(n, m, s, seed):
    return _plus(_ok.osnap_bits(n, m, s, seed))
