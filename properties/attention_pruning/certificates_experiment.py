"""Certificates of the empirical claims of paper 000 (Section 6.1, Figure 2; ``emp.*``).

The claims are judged on the QUICK grid of :mod:`.experiments` (means over its seeds of the causal
relative attention error).  A certificate picks, from the float64 figure, the comparison that fails
(the worst point), recomputes the pruned weight matrices of that point with the default implementation
(``solvers.adapter``, the experiment command's default) and encloses in balls the relative errors of
those very float64 matrices (:func:`.certificates_model.relative_error`); the instance holds X, W and
every pruned W of each seed, so ``--check`` needs no implementation.  What is certified is therefore
the implementation's outputs' errors, exactly; that the implementation's pruning is the paper's is
what the adapters' own claims judge.

Instance fields: ``variant`` (the logit scaling (a) or (b)), the point (``n``, ``ρ``, ``λ``), ``seeds``
(how many), and per seed s ``X (seed s)``, ``W (seed s)``, ``W_pruned <method> (seed s)``; the sweeps
along n and λ name the axis value in each matrix's name.
"""

from __future__ import annotations

import numpy as np
from flint import arb

from oracle import ball

from ..contract import default_implementation
from ..evidence import Certifiers, Evidence
from . import certificates_model as B
from . import experiments as E

__all__ = ["CERTIFIERS"]

CERTIFIERS = Certifiers("attention_pruning")

_OURS, _WANDA, _SGPT = "ours (M)", "Wanda", "SparseGPT"


def _figure():
    return E.figure2(default_implementation(), E.QUICK)


def _point(variant: str, *, n=None, rho=None, lam=None) -> dict:
    g = E.QUICK
    return {"n": g.n0 if n is None else n, "ρ": g.rho0 if rho is None else rho, "λ": g.lam0 if lam is None else lam}


def _matrices(variant: str, point: dict, methods, tag: str = "") -> dict:
    """X, W and the methods' pruned W at ``point`` for every seed of the QUICK grid, by name."""
    out, impl = {}, default_implementation()
    for s in E.QUICK.seeds:
        X, W, pruned = E.pruned_weights(impl, s, point["n"], E.QUICK.d, point["ρ"], point["λ"], variant, E.QUICK.steps)
        out[f"X{tag} (seed {s})"], out[f"W{tag} (seed {s})"] = X, W
        for m in methods:
            out[f"W_pruned {m}{tag} (seed {s})"] = pruned[m]
    return out


def _mean_error(inst: dict, method: str, tag: str = "") -> arb:
    """The mean over the instance's seeds of the causal relative error of ``method``'s pruned W."""
    errs = [B.relative_error(inst[f"X{tag} (seed {s})"], inst[f"W{tag} (seed {s})"],
                             inst[f"W_pruned {method}{tag} (seed {s})"]) for s in range(inst["seeds"])]
    return sum(errs, arb(0)) / len(errs)


def _header(variant: str, point: dict) -> dict:
    return {"variant": variant, **point, "seeds": len(E.QUICK.seeds)}


def _check_seeds():
    if tuple(E.QUICK.seeds) != tuple(range(len(E.QUICK.seeds))):
        raise ValueError(f"QUICK.seeds={E.QUICK.seeds} must be 0..k-1 (the instance names seeds by index)")


# -- beats_baselines and rho_growth: ours lowest at a point --------------------------------------------------

def _worst_ratio_point(axes=("lambda", "n", "rho")) -> tuple[str, dict]:
    """The point of the figure (along ``axes``) with the largest err(ours)/min(err(Wanda), err(SparseGPT))."""
    _check_seeds()
    fig = _figure()
    best = max(((r[_OURS][0] / min(r[_WANDA][0], r[_SGPT][0]), variant, axis, value)
                for variant, by_axis in fig.items() for axis, rows in by_axis.items() if axis in axes
                for value, r in rows), key=lambda x: x[0])
    _, variant, axis, value = best
    key = {"lambda": "lam", "n": "n", "rho": "rho"}[axis]
    return variant, _point(variant, **{key: value})


def _lowest_instance(axes):
    def build(entry):
        variant, point = _worst_ratio_point(axes)
        return _header(variant, point) | _matrices(variant, point, (_OURS, _WANDA, _SGPT))
    return build


def _ours_lowest(inst, hints):
    """err(ours) < min(err(Wanda), err(SparseGPT)) at the instance's point (means over seeds)."""
    return Evidence("<", _mean_error(inst, _OURS), _mean_error(inst, _WANDA).min(_mean_error(inst, _SGPT)),
                    what="mean relative error of ours (M) against the smaller of Wanda's and SparseGPT's")


_METHOD = "relative errors of the implementation's pruned matrices enclosed in balls (causal softmax)"
CERTIFIERS.violation("attention_pruning.emp.beats_baselines", method=_METHOD,
                   instance=_lowest_instance(("lambda", "n", "rho")))(_ours_lowest)
CERTIFIERS.violation("attention_pruning.emp.rho_growth", method=_METHOD,
                   instance=_lowest_instance(("rho",)))(_ours_lowest)


# -- wanda_vs_sparsegpt_n: Wanda below SparseGPT at the largest n ------------------------------------------------

def _wanda_instance(entry):
    _check_seeds()
    fig = _figure()
    n = E.QUICK.ns[-1]
    variant = max(fig, key=lambda v: fig[v]["n"][-1][1][_WANDA][0] / fig[v]["n"][-1][1][_SGPT][0])
    point = _point(variant, n=n)
    return _header(variant, point) | _matrices(variant, point, (_WANDA, _SGPT))


@CERTIFIERS.violation("attention_pruning.emp.wanda_vs_sparsegpt_n", method=_METHOD, instance=_wanda_instance)
def _wanda_below(inst, hints):
    """err(Wanda) < err(SparseGPT) at the largest n of the sweep (means over seeds)."""
    return Evidence("<", _mean_error(inst, _WANDA), _mean_error(inst, _SGPT),
                    what=f"mean relative error of Wanda against SparseGPT's at n = {inst['n']}")


# -- n_growth: a method's error non-decreasing in n ------------------------------------------------------------

def _n_growth_instance(entry):
    """The largest relative drop err(n_k) → err(n_{k+1}) of ours, Wanda or SparseGPT along n."""
    _check_seeds()
    fig = _figure()
    drops = [((rows[k][1][m][0] - rows[k + 1][1][m][0]) / rows[k][1][m][0], variant, m, rows[k][0], rows[k + 1][0])
             for variant, by_axis in fig.items() for rows in [by_axis["n"]] for m in (_OURS, _WANDA, _SGPT)
             for k in range(len(rows) - 1)]
    _, variant, method, n0, n1 = max(drops, key=lambda x: x[0])
    return ({"variant": variant, "method": method, "n": n0, "n'": n1, "ρ": E.QUICK.rho0, "λ": E.QUICK.lam0,
             "seeds": len(E.QUICK.seeds)}
            | _matrices(variant, _point(variant, n=n0), (method,), tag=f" n={n0}")
            | _matrices(variant, _point(variant, n=n1), (method,), tag=f" n={n1}"))


@CERTIFIERS.violation("attention_pruning.emp.n_growth", method=_METHOD, instance=_n_growth_instance)
def _grows_in_n(inst, hints):
    """err(n') ≥ err(n) for n < n' consecutive on the sweep, for the instance's method (means over seeds)."""
    n0, n1, m = inst["n"], inst["n'"], inst["method"]
    if not n0 < n1:
        raise ValueError(f"n={n0} must be below n'={n1}")
    return Evidence("≥", _mean_error(inst, m, f" n={n1}"), _mean_error(inst, m, f" n={n0}"),
                    what=f"mean relative error of {m} at n' = {n1} against that at n = {n0}")


# -- lambda_ushape: both ends above the minimum --------------------------------------------------------------------

def _lambda_instance(entry):
    """The scaling whose minimum over the λ grid is at an end (the one with the larger margin)."""
    _check_seeds()
    fig = _figure()
    cands = []
    for variant, by_axis in fig.items():
        errs = [r[_OURS][0] for _, r in by_axis["lambda"]]
        k = int(np.argmin(errs))
        if k in (0, len(errs) - 1):
            cands.append((min(e for i, e in enumerate(errs) if i != k) / errs[k], variant, k))
    if not cands:
        raise ValueError("no scaling has its minimum over the λ grid at an end: nothing to certify this way")
    _, variant, k = max(cands)
    lams = list(E.QUICK.lams)
    out = {"variant": variant, "n": E.QUICK.n0, "ρ": E.QUICK.rho0, "λ grid": np.array(lams), "end": k,
           "seeds": len(E.QUICK.seeds)}
    for i, lam in enumerate(lams):
        out |= _matrices(variant, _point(variant, lam=lam), (_OURS,), tag=f" λ[{i}]")
    return out


@CERTIFIERS.violation("attention_pruning.emp.lambda_ushape", method=_METHOD, instance=_lambda_instance)
def _ushape(inst, hints):
    """U-shaped: the error at the grid's end ``end`` exceeds the minimum over the other λ (means over seeds)."""
    k, size = inst["end"], inst["λ grid"].nrows()
    if k not in (0, size - 1):
        raise ValueError(f"end={k} must be 0 or {size - 1} (an end of the λ grid)")
    errs = [_mean_error(inst, _OURS, f" λ[{i}]") for i in range(size)]
    return Evidence(">", errs[k], ball.least(e for i, e in enumerate(errs) if i != k),
                    what=f"mean relative error of ours (M) at the end λ[{k}] against the least at the other λ")
