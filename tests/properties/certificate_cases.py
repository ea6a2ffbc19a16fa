"""The certificate test's cases: each paper's ledger instances as the certifiers receive them.

A case is ``(claim id, target, entry fields)``: the fields a ledger entry adds to its id and verdict
(``counterexample`` of a falsified claim, ``worst_example`` of a verified repair, ``extra`` of a
statistical claim's trial design, ``reason`` of a measured repair), or ``(claim id, target, entry
fields, named instance)`` where the named instance replaces what the certifier would build by running
the implementation (the running-time claims' counts, the experiment's matrices).
"""

from __future__ import annotations

import numpy as np

__all__ = ["CASES", "SLOW_CASES", "TIGHT"]


def _raw(claim_id: str, target: str, raw) -> tuple:
    """A case from a drawn instance as the ledger records it (a dict: a statistical claim's trial design)."""
    if isinstance(raw, dict):
        return (claim_id, target, {"extra": raw})
    return (claim_id, target, {"counterexample" if target == "violation" else "worst_example": raw})


# -- softmax_regression ------------------------------------------------------------------------------

_NEWTON_BAD = [[[-0.9805806756909203, -0.000196116135138184], [-0.19611613513818402, 0.00098058067569092]],
               [0.0, 0.0], 1.0, [1.0, 0.0], 0.999]

# The ledger's instances (errata/ledger-ci.json counterexamples; the repairs' worst examples of a local run of
# python -m properties --claims 'softmax_regression.*'), as drawn: (claim id, target, raw instance).
_SOFTMAX_REGRESSION = [
    ("softmax_regression.fact4.4.p1", "violation", [[[0.0]], [[1.0]], 1.0, 1.0]),
    ("softmax_regression.fact4.4.p1", "repair", [[[2.206868253804682]], [[-0.7997720613691945]], 0.0, 1.0]),
    ("softmax_regression.fact4.5.p5", "violation", [[1.0, 1.0], [0.0, 1.0]]),
    ("softmax_regression.fact4.5.p5", "repair", [[0.0], [0.0]]),
    ("softmax_regression.fact4.5.p5", "repair", [[3.0, -1.0, 0.5], [0.25, 2.0, -4.0]]),
    ("softmax_regression.lem5.2.bf_ff", "violation", [[1.0, 1.0], [0.0, 1.0]]),
    ("softmax_regression.lem5.2.bf_ff", "repair", [[0.0], [0.0]]),
    ("softmax_regression.lem5.2.bf_ff", "repair", [[1.0, 2.0, 0.0], [0.5, 0.25, 0.0]]),
    ("softmax_regression.lem5.15.paperB", "violation", [[[0.5]], [0.0], [1.0], [0.0]]),
    ("softmax_regression.lem8.7", "violation", _NEWTON_BAD + [["general", [[0.0, 0.0], [0.0, 0.0]]], 0.99, 0.01, None]),
    ("softmax_regression.lem8.7", "repair", [[[1.0], [0.0]], [0.16666666666666666, 0.3333333333333333], 0.1, [-3.0],
                                             0.5, ["general", [[3.0]]], 0.99, 0.001, None]),
    ("softmax_regression.lem8.8", "violation", _NEWTON_BAD + [["general", [[0.0, 0.0], [0.0, 0.0]]], 0.99, 0.01, None]),
    ("softmax_regression.lem8.8", "repair", [[[-0.948683298050514], [-0.31622776601683794]], [0.0, 0.5], 1.0, [3.0],
                                             0.5, ["general", [[-2.0]]], 0.99, 0.01, None]),
    ("softmax_regression.thm9.1.accuracy", "violation", _NEWTON_BAD + [["diagonal", None], 0.99, 0.01, 0.6]),
    ("softmax_regression.thm9.1.accuracy", "repair", [[[-0.44721359549995787], [-0.8944271909999157]], [0.0, 0.0],
                                                      0.01, [-1.0], 0.999, ["diagonal", None], 0.99, 0.01, 0.3]),
]


# -- attention_kernel_regression ---------------------------------------------------------------------

_AKR = "attention_kernel_regression"
_K1 = [[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.5]], [0.0, 0.0, 1.0], 0, 0.0625, 0]
_K1_WORST = [[[3.9955654550007584, 0.0, 0.0], [0.0, 7.261961071199738, 0.0], [0.0, 0.0, 1.1]],
             [1.216044810882158, 6.1732147105400585, -7.035929226394714], 1, 0.009695961852261188, 24148254]
_COUNTS = {"j": [2, 4, 8, 16], "count": [73, 208, 662, 2304]}  # Algorithm 5's iteration counts (the ledger's)

# The ledger's instances (errata/ledger-ci.json counterexamples; the repairs' worst examples of a local run of
# python -m properties --claims 'attention_kernel_regression.*'), as drawn: (claim id, target, raw instance);
# the running-time claims take the counts (None: the fixed sweep _COUNTS).
_ATTENTION_KERNEL_REGRESSION = [
    (f"{_AKR}.factA.4.b1", "violation", [[0.0, 0.0]]),
    (f"{_AKR}.factA.4.b7", "violation", [[1.0], [0.0]]),
    (f"{_AKR}.factA.4.b8", "violation", [[[1.0, 0.0], [0.0, 0.1]], [[0.0], [1.0]]]),
    (f"{_AKR}.factA.4.b8", "repair", [[[1.0]], [[1.0]]]),
    (f"{_AKR}.lemD.2", "violation", [[[1.0], [0.0]], 0.5, [False, False]]),
    (f"{_AKR}.lemD.2", "repair", [[[1.0], [0.0]], 0.001, [False, False]]),
    (f"{_AKR}.lemJ.1.p3", "violation", [2, 0.0625]),
    (f"{_AKR}.lemJ.1.p3", "repair", [2, 1e-06]),
    (f"{_AKR}.lemJ.1.p4", "violation", None),
    (f"{_AKR}.lemJ.1.p4", "repair", None),
    (f"{_AKR}.thmJ.2", "violation", [[[1.0]], [1.0], 2, 0.0625, "aligned", [[0.0]] * 5]),
    (f"{_AKR}.thmJ.2", "repair", [[[-0.26368183759752495], [-0.04280142463875793], [0.04935688193451682]],
                                   [3.082244182568557], 5, 0.04444839466065122, "bottom", [[0.0]] * 5]),
    (f"{_AKR}.thmJ.2.time", "violation", None),
    (f"{_AKR}.thmJ.2.time", "repair", None),
    (f"{_AKR}.thmK.1", "violation", _K1),
    (f"{_AKR}.thmK.1", "repair", _K1_WORST),
    (f"{_AKR}.thm1.5", "violation", _K1),
    (f"{_AKR}.thm1.5", "repair", _K1_WORST),
    (f"{_AKR}.thmL.3.eq86", "violation", [[[1.0, 0.0, 0.0, 0.0]], [[0.0] * 4, [0.0] * 4, [0.0] * 4, [1.0, 0.0, 0.0, 0.0]],
                                           [0.0, 0.0, 0.0, 1.0]]),
    (f"{_AKR}.thmL.3.eq86", "repair", [[[1.0, 0.5, 0.0]], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                                        [0.25, 1.0, -2.0]]),
    (f"{_AKR}.thmL.3.gd", "violation", [[[-7.559289460184544, -3.779644730092272, -3.779644730092272,
                                           -3.779644730092272]], [0.0, 0.0, 0.0, 1.0]]),
    (f"{_AKR}.thmL.3.gd", "repair", [[[-0.8315400388498633, 0.3713061618091059, -0.044435804171783555,
                                        -0.1519411074126699],
                                       [-0.2289142937049063, -0.5263664744620902, -0.7585666190831244,
                                        0.188334832931465],
                                       [0.24682829585053748, 0.2017226480887155, -0.39851566561476304,
                                        -0.7413292317690021]], [-0.33948414204120414, -0.7161896856378431, 1.0, 1.0]]),
]


# Section L's sketch claims (the ledger's instances: a local run of python -m properties --claims
# 'attention_kernel_regression.thmL*'), and its statistical claims as the ledger records them (extra: the
# trial design); the Algorithm 7/7R trials run the implementation's JAX solvers (compiled once: slow).
_ATTENTION_KERNEL_REGRESSION += [
    (f"{_AKR}.thmL.5", "violation", [0, 0]),
    (f"{_AKR}.thmL.3.allxy", "violation", [1, 2, 136, 1.0, 0]),
    (f"{_AKR}.thmL.3.allxy", "repair", [1, 2, 0, 0.0, 1]),
    (f"{_AKR}.thmL.5", "repair", {"trials": 10, "delta": 0.1}),
    (f"{_AKR}.thmL.1.p1", "violation", {"trials": 10, "delta": 0.05}),
    (f"{_AKR}.thmL.8", "violation", {"trials": 10, "delta": 0.05}),
]
_ATTENTION_KERNEL_REGRESSION_SLOW = [
    (f"{_AKR}.thmL.3", "violation", {"trials": 20, "delta": 0.1}),
    (f"{_AKR}.thmL.3", "repair", {"trials": 10, "delta": 0.1}),
    (f"{_AKR}.thm1.6", "violation", {"trials": 20, "delta": 0.1}),
    (f"{_AKR}.thm1.6", "repair", {"trials": 10, "delta": 0.1}),
]


def _kernel_regression(claim_id: str, target: str, raw) -> tuple:
    """A running-time claim (``raw`` None) takes the fixed counts instead of a run of the implementation."""
    if raw is None:
        return _raw(claim_id, target, raw) + (dict(_COUNTS),)
    return _raw(claim_id, target, raw)


# -- attention_optimization --------------------------------------------------------------------------

_LEM12_8 = [[[1.0], [1.0]], [[3.5355339059327373], [-3.5355339059327373]], [[5.0], [0.0]], [[0.0]], [[5.0]],
            [[-5.0], [-5.0]], 0, 0]
_LEM9_1 = [[[[0.7071067811865475, 0.7071067811865475]], [[4.0, 0.0]], [[4.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]],
            [[4.0, 4.0], [0.0, 0.0]], [[-4.0, -4.0]], 0, 0], 1.0, [0.0]]

# the counterexamples of errata/ledger-ci.json (the search's, shrunk; the same in a fresh ledger)
_OPTIMIZATION_VIOLATIONS = {
    "attention_optimization.fact4.3.loewner_norm": [[[0.0] * 4] * 4, 1.0, [[0.0], [0.0], [0.0], [1.0]]],
    "attention_optimization.fact4.4.p6": [[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0]],
    "attention_optimization.lem7.4": [[[0.0, 1.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [1.0, 0.0]],
                                      [[0.0, 0.0], [0.0, 0.0]], [[1.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]],
                                      0, 0, 0, 0, 0],
    "attention_optimization.lem9.1.p3": _LEM9_1,
    "attention_optimization.lem9.1.p5": _LEM9_1,
    "attention_optimization.lem11.4": [[[1.0], [0.0]], [[0.0], [1.0]], [[0.0], [1.0]], [[0.0]], [[0.0]],
                                       [[1.0], [0.0]], 0, 0, 0, 0, 0],
    "attention_optimization.lem12.8": _LEM12_8,
    "attention_optimization.lem12.10": [[[1.0]], [[4.0]], [[4.0]], [[0.0]], [[4.0]], [[-4.0]], 0, 0],
    "attention_optimization.sec3.psd_chain": _LEM12_8,
    "attention_optimization.lem14.shrink": [[0.0, 1.0, 1.0], [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
                                            0.0625, [0.0, 1.0, 0.0]],
    "attention_optimization.lem14.induction": [[0.0, 2.0, 2.0], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]],
                                               0.0625, [0.0, 0.0, 1.0]],
}

# the repairs' worst examples of a fresh ledger (python -m properties --claims 'attention_optimization.*')
_OPTIMIZATION_REPAIRS = {
    "attention_optimization.lem7.4": [
        [[0.0, -1.3260711465651056], [0.7316206279733275, 1.1]], [[0.0, 0.0], [-0.8299349047831928, 0.5324247319485678]],
        [[0.0, 0.0], [-0.8299349047831928, 0.5324247319485678]],
        [[-0.8299349047831928, 0.0], [-0.8299349047831928, 0.5324247319485678]],
        [[0.0, 0.0], [-0.8299349047831928, 0.5324247319485678]], [[-1.0, -1.0], [0.9784915065428916, 0.0]], 1, 1, 3, 1, 0],
    "attention_optimization.lem11.4": [
        [[0.0], [0.0], [-1.573207134433547]], [[0.0], [-1.4653508089565523], [0.0]],
        [[-1.2278086998111728], [-0.7280087690260169], [-0.11069138158838987]], [[0.0]], [[-1.6781120256698]],
        [[-1.9629414269651608], [-1.9504172480055124], [-0.5583169255304552]], 0, 0, 0, 0, 0],
    "attention_optimization.lem12.8": [
        [[0.7071067811865475, 0.7071067811865475]] * 3,
        [[3.4743290056744947, 0.0], [-3.4743290056744947, -0.0], [3.4743290056744947, 0.0]],
        [[6.017714360038482, 0.0], [0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]],
        [[6.017714360038482, 6.017714360038482], [0.0, 0.0]], [[-6.017714360038482, -6.017714360038482]] * 3, 1, 0],
    "attention_optimization.sec3.psd_chain": [
        [[[0.0, -0.2386933044123657], [-0.3363292219686721, 0.40200684368035394],
          [-0.7412231947246454, 0.6712586502997115]],
         [[0.0, 0.0], [-7.922195469046076, 0.0], [0.125508740752448, -9.197469454072786]],
         [[-6.623561243744671, -5.895516665685473], [-3.6202627732056163, 2.94800492396116],
          [-1.830582563616104, 5.139609795568328]],
         [[-0.3510928500783121, -0.22130882418900555], [0.2662193641642719, -0.37799382231258705]],
         [[2.4889553002143185, 4.405925547703194], [8.85773423978118, 8.077262804759613]],
         [[-0.2635545419419977, 0.0], [4.412040955435367, 0.0], [0.0, 0.0]], 1, 0],
        2.7041624038064773, [0.6460859713860051, 0.9022779453892482, 1.192092896e-07]],
    "attention_optimization.lem14.shrink": [
        [4.218424919843455, 1.192092896e-07, 5.0827309079928185],
        [[0.0, -0.7342876717885627, 0.3333333333333333], [0.752973647994859, -0.3401998766167815, 0.8948289111448329],
         [0.5785095017406348, -0.984875033964236, 0.9160418622572228]],
        0.0010000000000000002, [-0.4553956048130664, 0.08735031544232141, -0.40173632204358867]],
    "attention_optimization.lem14.induction": [
        [0.3333333333333333, 2.6470059517973556], [[-0.9999999999999999, -0.8470149521216115], [1.0, 0.4589598876552554]],
        0.0852064336504269, [-0.8511963889957934, 0.0]],
    # worst examples attaining their bound (ratio 1): certified in exact rationals (certificates_tight)
    "attention_optimization.fact4.3.loewner_norm": [[[-0.3333333333333333]], 8.928354645759889, [[6.317451380229059]]],
    "attention_optimization.fact4.4.p6": [[0.0], [0.0]],
    "attention_optimization.lem9.1.p3": [
        [[[0.7071067811865475, 0.7071067811865475]] * 3,
         [[2.3094010767585034, 0.0], [-2.3094010767585034, -0.0], [2.3094010767585034, 0.0]],
         [[4.0, 0.0], [0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]], [[4.0, 4.0], [0.0, 0.0]],
         [[-4.0, -4.0]] * 3, 0, 0], 0.1, [0.0, 0.0, 0.0]],
    "attention_optimization.lem9.1.p5": [[[[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], 0, 0], 0.1, [0.0]],
    "attention_optimization.lem12.10": [
        [[0.7071067811865475, 0.7071067811865475]], [[5.933514257450035, 0.0]], [[5.933514257450035, 0.0]],
        [[0.0, 0.0], [0.0, 0.0]], [[5.933514257450035, 5.933514257450035], [0.0, 0.0]],
        [[-5.933514257450035, -5.933514257450035]], 0, 0],
}
TIGHT = ("attention_optimization.fact4.3.loewner_norm", "attention_optimization.fact4.4.p6",
         "attention_optimization.lem9.1.p3", "attention_optimization.lem9.1.p5", "attention_optimization.lem12.10")
"""Repairs whose worst example attains its bound: proven with equality in exact rationals."""


# -- attention_pruning -------------------------------------------------------------------------------

_Q = [[-0.08944271909999157, -0.044721359549995794], [-0.044721359549995794, 0.08944271909999159]]
_RUNTIME = ("fitted exponent 2.829 of the counts [681119283.2740476, 4446692199.336271, 32050513210.98992, "
            "243284055920.5668] over sizes [16, 32, 64, 128]; claimed form's {} (+0.2 allowed)")

# errata/ledger-ci.json's counterexamples; the repairs' worst examples of a local run of
# python -m properties --claims 'attention_pruning.*' (worst_example): (claim id, target, ledger entry fields).
_ATTENTION_PRUNING = [
    ("attention_pruning.lemF2.p2", "violation",
     {"counterexample": [[[0.1, 0.0], [0.0, 0.0]], [[-1.0, -1.0], [-1.0, -1.0]], [[0.5, 0.5], [0.5, 0.5]], False,
                         "star", 1.0]}),
    ("attention_pruning.lemF2.p2", "repair",
     {"worst_example": [[[0.3875766281908329, 0.2803622010364473, -0.048402682864384386], [0.0, 0.7143408688266455, 0.0]],
                        [[0.0, 1.4151728203038505, 0.0], [0.692654267736487, 0.17209307739397048, 0.8736253034786543],
                         [-0.995715537832908, -0.3772756673193623, -0.5644862087788163]],
                        [[0.0, 1.0, 0.3484005897624614], [0.0, 0.0, 0.7371203084203172], [0.04935762798683686, 1.0, 0.0]],
                        False, "free", 0.0]}),
    ("attention_pruning.lem5.5", "violation",
     {"counterexample": [_Q, [[-1.0, -1.0], [-1.0, -1.0]], [[0.0, 0.0], [0.0, 0.0]], "star", 1.0, "A"]}),
    ("attention_pruning.lem5.5", "repair",
     {"worst_example": [[[-0.021842252743618642, -0.0022875807931716243], [-0.0022875807931716243, 0.02184225274361864]],
                        [[-1.9134853568392853, -1.9134853568392853], [1.9134853568392853, 1.9134853568392853]],
                        [[0.0, 0.18283353794424098], [0.18283353794424098, 0.19895589206952696]], "star",
                        8.679689205378224e-228, "A"]}),
    ("attention_pruning.thm4.1", "violation",
     {"counterexample": [[[0.7, -0.0], [0.0, 0.7]], [[0.35, -0.35], [-0.35, -0.35]], [[0.0, 0.0], [0.0, 0.0]], 0.0, 0.99,
                         0.8, "A"]}),
    ("attention_pruning.thm4.1", "repair",
     {"worst_example": [[[-0.4806861693281602, -0.3590832864623739], [0.3590832864623739, -0.4806861693281602]],
                        [[-0.35, 0.35], [-0.35, -0.35]], [[0.0, 0.0], [0.0, 0.0]], 0.0, 0.95, 0.8, "A"]}),
    ("attention_pruning.claim.runtime", "violation", {"counterexample": {"construction": _RUNTIME.format("1.000")}}),
    ("attention_pruning.claim.runtime", "repair", {"reason": _RUNTIME.format("3.000")}),
    ("attention_pruning.claim.assumptions_practical", "violation",
     {"counterexample": [[[0.0], [0.0]], [[0.0]], [[0.0]], 0.0, True]}),
    ("attention_pruning.claim.assumptions_practical", "repair",
     {"worst_example": [[[-0.7866035672167735], [0.0], [-0.7326754044782762], [0.0]], [[-0.6139043499055864]], [[1.0]],
                        0.0, False]}),
]


# The emp.* certifiers build their instance by running the experiment (half a minute); their evaluators are
# tested on small fixed instances of the same layout (X, W and the methods' pruned W per seed), one seed.
_X = [[1.0, 0.5], [-0.5, 1.0], [0.25, -1.0]]
_W = [[1.0, -0.5], [0.75, 0.5]]
_ZERO = [[0.0, 0.0], [0.0, 0.0]]
_HALF = [[0.5, -0.25], [0.375, 0.25]]


def _emp(tag=""):
    return {f"X{tag} (seed 0)": np.array(_X), f"W{tag} (seed 0)": np.array(_W)}


_PRUNING_EXPERIMENTS = [  # ours (M) prunes everything (error largest), Wanda nothing (error 0)
    ("attention_pruning.emp.beats_baselines",
     {"variant": "a", "n": 3, "ρ": 0.5, "λ": 0.0625, "seeds": 1} | _emp()
     | {"W_pruned ours (M) (seed 0)": np.array(_ZERO), "W_pruned Wanda (seed 0)": np.array(_W),
        "W_pruned SparseGPT (seed 0)": np.array(_HALF)}),
    ("attention_pruning.emp.rho_growth",
     {"variant": "b", "n": 3, "ρ": 0.25, "λ": 0.0625, "seeds": 1} | _emp()
     | {"W_pruned ours (M) (seed 0)": np.array(_ZERO), "W_pruned Wanda (seed 0)": np.array(_HALF),
        "W_pruned SparseGPT (seed 0)": np.array(_W)}),
    ("attention_pruning.emp.wanda_vs_sparsegpt_n",
     {"variant": "b", "n": 3, "ρ": 0.5, "λ": 0.0625, "seeds": 1} | _emp()
     | {"W_pruned Wanda (seed 0)": np.array(_ZERO), "W_pruned SparseGPT (seed 0)": np.array(_HALF)}),
    ("attention_pruning.emp.n_growth",
     {"variant": "a", "method": "Wanda", "n": 3, "n'": 4, "ρ": 0.5, "λ": 0.0625, "seeds": 1} | _emp(" n=3")
     | {"W_pruned Wanda n=3 (seed 0)": np.array(_ZERO), "X n=4 (seed 0)": np.array(_X + [[0.5, 0.5]]),
        "W n=4 (seed 0)": np.array(_W), "W_pruned Wanda n=4 (seed 0)": np.array(_W)}),
    ("attention_pruning.emp.lambda_ushape",
     {"variant": "a", "n": 3, "ρ": 0.5, "λ grid": np.array([2.0 ** -12, 2.0 ** -8, 2.0 ** -4, 1.0]), "end": 0, "seeds": 1}
     | {k: v for i, Wp in enumerate([_W, _HALF, _ZERO, _ZERO])
        for k, v in (_emp(f" λ[{i}]") | {f"W_pruned ours (M) λ[{i}] (seed 0)": np.array(Wp)}).items()}),
]


CASES = ([_raw(*case) for case in _SOFTMAX_REGRESSION]
         + [_kernel_regression(*case) for case in _ATTENTION_KERNEL_REGRESSION]
         + [_raw(cid, "violation", raw) for cid, raw in sorted(_OPTIMIZATION_VIOLATIONS.items())]
         + [_raw(cid, "repair", raw) for cid, raw in sorted(_OPTIMIZATION_REPAIRS.items())]
         + _ATTENTION_PRUNING
         + [(cid, "violation", {}, named) for cid, named in _PRUNING_EXPERIMENTS])
"""Every paper's cases, certified and re-checked by tests/properties/test_certify.py."""

SLOW_CASES = [_raw(*case) for case in _ATTENTION_KERNEL_REGRESSION_SLOW]
"""Algorithm 7/7R's trials: they run the implementation's JAX solvers (compiled once: slow)."""
