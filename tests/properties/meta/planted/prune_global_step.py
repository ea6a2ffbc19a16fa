"""``attention_pruning_prune`` stepping with η = 1/L, L = 16n^{2.5}dR⁶ + λ of Thm 5.4, instead of the
contract's η = 1/L_loc: the masks are those of a mask that has hardly moved from 1_{d×d}."""

from solvers import attention_pruning as P


def attention_pruning_prune(X, W, lam, rho, causal, score="M", steps=300):
    eta = 1.0 / P.theorem_lipschitz(X, W, lam)
    return P.prune(X, W, lam, rho, causal=bool(causal), score=score, steps=int(steps), eta=eta)[1]
