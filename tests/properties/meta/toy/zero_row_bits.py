"""Planted bug: sketch bits that hash every coordinate to row 0 (CountSketch), sample Walsh row 0 for
every row (SRHT), or draw a Gaussian sketch whose rows after the first are 0.  Well formed and
deterministic; the statistical checks of ``*_bits`` must fail them (uniform rows, the Gaussian law,
the subspace embedding on spikes)."""

import numpy as np

import solvers.adapter as _ok


def countsketch_bits(n, m, seed):
    return dict(_ok.countsketch_bits(n, m, seed), rows=np.zeros(n, dtype=np.int64))


def srht_bits(n, m, seed):
    return dict(_ok.srht_bits(n, m, seed), rows=np.zeros(m, dtype=np.int64))


def gaussian_bits(n, m, seed):
    g = np.array(_ok.gaussian_bits(n, m, seed)["g"])
    g[1:] = 0.0
    return {"g": g}
