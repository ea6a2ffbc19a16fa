"""Planted bug: SRHT bits that ignore their seed (each call draws from fresh, unseeded randomness; the
project's own bits otherwise).  Two calls with the same seed disagree, except by chance on tiny inputs,
so a search replaying a failure may see it pass: the validator must FAIL ``srht_bits`` naming the
non-determinism on every run, never end in Hypothesis's ``FlakyFailure`` traceback."""

import numpy as np

import solvers.adapter as _ok


def srht_bits(n, m, seed):
    return _ok.srht_bits(n, m, int(np.random.default_rng().integers(2**31)))
