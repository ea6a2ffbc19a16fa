"""A seeded adapter that ignores its seed: ``attention_sketched_gram`` returns c·ÂᵀÂ (symmetric, PSD,
zero on the rows of a zero column of A1, so within the contract's tolerance) with c drawn from the
global numpy generator, so two calls with the same seed differ.  The validator must FAIL it as
non-deterministic (its twin ``fixed_gram`` with a constant c passes)."""

import numpy as np


def attention_sketched_gram(A1, A2, wd, m, seed):
    G = np.kron(A1, np.sqrt(wd)[:, None] * A2)
    return (1.0 + np.random.random()) * (G.T @ G)
