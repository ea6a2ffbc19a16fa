"""Certificates of paper 000's falsified claims and of their repairs' worst examples.

Each evaluator takes the statement's objects exactly (``fmpq``/``fmpq_mat``, flags, labels; the names
are the claims' ``fields``) and returns the :class:`~properties.evidence.Evidence` that the claim fails
there (or that its repair holds strictly), with the statement's hypotheses proven as premises: exactly
(:class:`~properties.evidence.Fact`: rational comparisons, an LDLᵀ of XXᵀ) or by balls.  The paper's
objects in balls are :mod:`.certificates_model`'s; the experiment's claims (``emp.*``) are certified in
:mod:`.certificates_experiment`, with its own ``CERTIFIERS`` (the paper's record declares both).
"""

from __future__ import annotations

import functools
import re

from flint import arb, fmpq

from oracle import ball
from oracle.precision import UndecidableError

from ..evidence import Certifiers, Evidence, Fact
from . import certificates_model as B

__all__ = ["CERTIFIERS"]

CERTIFIERS = Certifiers("attention_pruning")


# -- shared pieces ------------------------------------------------------------------------------------

def _sq(x: arb) -> arb:
    """x² as x·x (``arb`` powers go through exp∘log, which is nan on a ball around 0)."""
    return x * x


def _unit_box(M) -> Fact:
    return Fact("M ∈ [0,1]^{d×d}", "exact rational comparison", all(0 <= x <= 1 for x in ball.entries(M)))


def _lam_star(A, M) -> arb:
    """λ* = max(0, −⟨A, M⟩/‖M‖_F²), the λ ≥ 0 minimising ‖A + λM‖_F (0 for M = 0, decided exactly); the
    enclosure is cut to [0, ∞) (``arb.max`` may return a ball reaching below 0)."""
    mm = ball.frobenius_squared(M)
    if mm == 0:
        return arb(0)
    return ball.greatest([arb(0), -B.inner(A, M) / arb(mm)]).nonnegative_part()


def _alpha1(X, W, lam) -> arb:
    """α1 = 6√n·max|W|·‖X‖_F²·λd (Lemma F.2, spec def.mu_xi)."""
    n, d = X.nrows(), X.ncols()
    return 6 * arb(n).sqrt() * arb(B.max_abs(W) * ball.frobenius_squared(X) * d) * lam


def _pl_premises(X, W, M, t) -> list:
    """The PL hypotheses of Lemma 5.5 / Theorem 4.1 that are exact decisions at the instance."""
    return [Fact("n ≤ d", "integer comparison", X.nrows() <= X.ncols()),
            Fact("XXᵀ ⪰ βI with β = λ_min(XXᵀ) > 0", "exact rational LDLᵀ of XXᵀ",
                 ball.positive_definite_exact(X * X.transpose())),
            Fact("min|W| > 0", "exact rational comparison", B.min_abs(W) > 0),
            _unit_box(M),
            Fact("λ ≥ 0 (t ≥ 0)", "exact rational comparison", t >= 0)]


def _grid(a, b):
    return [[x + y for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]


def _scaled(q, s: arb):
    return [[arb(q[i, j]) * s for j in range(q.ncols())] for i in range(q.nrows())]


# -- Lemma F.2 part 2 ---------------------------------------------------------------------------------

def _f2_terms(inst):
    X, W, M, causal, mode, t = (inst[k] for k in ("X", "W", "M", "causal", "λ mode", "t"))
    A = B.data_gradient(X, W, B.parts(X, W, M, causal)["p"])
    lam = arb(t) * _lam_star(A, M) if mode == "star" else arb(t)
    return X, W, M, t, A, lam


@CERTIFIERS.violation("attention_pruning.lemF2.p2", method="ball evaluation of A = W∘(Xᵀp(M)X), λ and α1")
def _lemF2_p2(inst, hints):
    """lemF2.p2: ‖A + B‖_F < ‖A‖_F − α1 at the instance (B = λM, λ = t·λ* or t)."""
    X, W, M, t, A, lam = _f2_terms(inst)
    return Evidence("≥", ball.frobenius(_grid(A, _scaled(M, lam))), ball.frobenius(A) - _alpha1(X, W, lam),
                    what="‖A + B‖_F against ‖A‖_F − α1", premises=[_unit_box(M), Fact(
                        "λ ≥ 0 (t ≥ 0, λ* ≥ 0)", "exact rational comparison", t >= 0)])


@CERTIFIERS.repair("attention_pruning.lemF2.p2", method="ball evaluation; exact equality where λ = 0 exactly")
def _lemF2_p2_repair(inst, hints):
    """lemF2.p2 repaired: ‖A + B‖_F ≥ ‖A‖_F − λ‖M‖_F, and ‖A + B‖_F ≥ ‖A‖_F − √α1 when ‖A‖_F² ≥ α1; the
    smaller slack ≥ 0.  Where λ = 0 exactly (B = 0: the repair's tight case, ratio 1) the difference
    ‖A + B‖_F − ‖A‖_F is exactly 0 by A + 0 = A, so the slack is an exact 0 (equality, proven exactly)."""
    X, W, M, t, A, lam = _f2_terms(inst)
    gap = arb(0) if lam.is_zero() else ball.frobenius(_grid(A, _scaled(M, lam))) - ball.frobenius(A)
    alpha1, nA2 = _alpha1(X, W, lam), _sq(ball.frobenius(A))
    slacks = [gap + lam * ball.frobenius(M)]
    if nA2 >= alpha1:
        slacks.append(gap + alpha1.sqrt())
    elif not nA2 < alpha1:
        raise UndecidableError("‖A‖_F² against α1 not decided")
    return Evidence("≥", ball.least(slacks), arb(0), premises=[_unit_box(M), Fact(
        "λ ≥ 0 (t ≥ 0, λ* ≥ 0)", "exact rational comparison", t >= 0)],
        what="the smaller slack of ‖A + B‖_F ≥ ‖A‖_F − λ‖M‖_F and (where ‖A‖_F² ≥ α1) ‖A + B‖_F ≥ ‖A‖_F − √α1")


# -- Lemma 5.5 (PL inequality) and its correction ---------------------------------------------------------

def _pl_terms(inst):
    """λ, ‖∇L‖_F (forward-mode derivative), ‖c‖_F and the constants of spec def.mu_xi at the instance."""
    X, W, M, mode, t = (inst[k] for k in ("X", "W", "M", "λ mode", "t"))
    pr = B.parts(X, W, M, False)
    A = B.data_gradient(X, W, pr["p"])
    lam = arb(t) * (_lam_star(A, M) if mode == "star" else arb(fmpq(1, 100)))
    delta = ball.least(v for row in pr["ft"] for v in row)
    kappa = arb(B.min_abs(W)) * B.beta(X) * delta
    terms = {"λ": lam, "grad": ball.frobenius(B.loss_gradient(X, W, M, lam, False)), "c": ball.frobenius(pr["c"]),
             "δ": delta, "κ": kappa, "α1": _alpha1(X, W, lam), "‖M‖": ball.frobenius(M)}
    premises = _pl_premises(X, W, M, t) + [Evidence(">", delta, arb(0), what="δ = min f̃(M) > 0")]
    return terms, premises


def _of_reading(inst, letter: str) -> Fact:
    """The premise that the instance is of the reading (spec def.g_proxy: A or B) its certificate proves."""
    return Fact(f"the instance is of reading {letter}", "exact comparison", inst["reading"] == letter)


def _lem5_5(inst, hints, letter="A"):
    """lem5.5: ‖∇L(M)‖_F^α < ½μ(g(M) − ξ_lem) in reading ``letter`` (A: α = 2, g = ‖c‖²; B: α = 1)."""
    k, premises = _pl_terms(inst)
    premises = premises + [_of_reading(inst, letter)]
    mu = 2 * k["κ"]
    xi = 2 * k["α1"] / mu
    if inst["reading"] == "A":
        return Evidence("≥", _sq(k["grad"]), mu / 2 * (_sq(k["c"]) - xi), premises=premises,
                        what="‖∇L(M)‖_F² against ½μ(‖c(M)‖_F² − ξ_lem) (reading A)")
    return Evidence("≥", k["grad"], mu / 2 * (k["c"] - xi), premises=premises,
                    what="‖∇L(M)‖_F against ½μ(‖c(M)‖_F − ξ_lem) (reading B)")


_PL_METHOD = "ball evaluation; ∇L by forward-mode arb_series; β by rigorous eigenvalues"
CERTIFIERS.violation("attention_pruning.lem5.5", method=_PL_METHOD)(_lem5_5)
CERTIFIERS.violation("attention_pruning.lem5.5", reading="B: g = ‖c‖_F, α = 1",
                     method=_PL_METHOD)(functools.partial(_lem5_5, letter="B"))


@CERTIFIERS.repair("attention_pruning.lem5.5", method=_PL_METHOD)
def _lem5_5_repair(inst, hints):
    """lem5.5 corrected: (sq) ‖∇L‖² ≥ κ²‖c‖² − α1 and (lin) ‖∇L‖ ≥ κ‖c‖ − λ‖M‖_F; the smaller slack > 0."""
    k, premises = _pl_terms(inst)
    sq = _sq(k["grad"]) - (_sq(k["κ"] * k["c"]) - k["α1"])
    lin = k["grad"] - (k["κ"] * k["c"] - k["λ"] * k["‖M‖"])
    return Evidence("≥", ball.least([sq, lin]), arb(0), premises=premises,
                    what="min of the slacks ‖∇L‖_F² − (κ²‖c‖_F² − α1) (sq) and ‖∇L‖_F − (κ‖c‖_F − λ‖M‖_F) (lin)")


# -- Theorem 4.1: Algorithm 1 in balls ------------------------------------------------------------------

_STEP_CAP = 200_000


def _run_setup(inst):
    X, W, M0, lam, t_eta, theta = (inst[k] for k in ("X", "W", "M0", "λ", "η·L", "θ"))
    n, d = X.nrows(), X.ncols()
    L = B.smoothness_L(n, d, B.radius(X, W), lam)
    eta = arb(t_eta) / L
    premises = _pl_premises(X, W, M0, lam)[:3] + [
        Fact("η < 1/L (η = (η·L)/L with 0 < η·L < 1)", "exact rational comparison", 0 < t_eta < 1),
        Fact("λ ≥ 0", "exact rational comparison", lam >= 0)]
    return X, W, M0, lam, theta, n, eta, premises


def _thm4_1(inst, hints, letter="A"):
    """thm4.1 in reading ``letter``: min_{t ≤ T} g(M_t)/n² > ξ_thm + ε, T = ⌈4L(M0)/(ημεn²)⌉ with δ the
    trajectory's min of f̃."""
    X, W, M0, lam, theta, n, eta, premises = _run_setup(inst)
    premises = premises + [_of_reading(inst, letter)]
    squared = inst["reading"] == "A"
    kappa1 = arb(B.min_abs(W)) * B.beta(X)  # κ/δ
    xi_mu = 12 * arb(n) ** -1.5 * arb(B.max_abs(W) * ball.frobenius_squared(X) * X.ncols() * lam)  # ξ_thm·μ
    delta = best = eps = L0 = None
    for t, _M, ft, c in B.gd_steps(X, W, M0, lam, eta):
        c2 = _sq(ball.frobenius(c))
        g = c2 if squared else c2.sqrt()
        if t == 0:
            L0 = c2 / 2 + arb(lam * ball.frobenius_squared(M0)) / 2
            eps = arb(theta) * g / n ** 2
            delta, best = ball.least(v for row in ft for v in row), g / n ** 2
        else:
            delta, best = delta.min(ball.least(v for row in ft for v in row)), best.min(g / n ** 2)
        mu = 2 * kappa1 * delta
        steps = 4 * L0 / (eta * mu * eps * n ** 2)  # T = ⌈steps⌉; the run stops at the first t ≥ T
        if steps <= t:
            premises = premises + [Evidence(">", delta, arb(0), what="δ = min f̃(M_t) over t ≤ T, > 0"),
                                   Evidence(">", eps, arb(0), what="ε = θ·g(M0)/n² > 0")]
            return Evidence("≤", best, xi_mu / mu + eps, premises=premises,
                            what=f"min over t ≤ T = {t} of g(M_t)/n² against ξ_thm + ε "
                                 f"(reading {inst['reading']}: g = ‖c‖_F{'²' if squared else ''})")
        if not steps > t:
            raise UndecidableError(f"T = ⌈{steps.str(8, radius=True)}⌉ against t = {t} not decided")
        if t >= _STEP_CAP:
            raise ValueError(f"T exceeds {_STEP_CAP} steps")


_RUN_METHOD = "Algorithm 1 repeated in ball arithmetic (exact η = (η·L)/L)"
CERTIFIERS.violation("attention_pruning.thm4.1", method=_RUN_METHOD)(_thm4_1)
CERTIFIERS.violation("attention_pruning.thm4.1", reading="B: g = ‖c‖_F",
                     method=_RUN_METHOD)(functools.partial(_thm4_1, letter="B"))


@CERTIFIERS.repair("attention_pruning.thm4.1",
                   method="Algorithm 1 repeated in ball arithmetic (exact η = (η·L)/L) up to a witness step")
def _thm4_1_repair(inst, hints):
    """thm4.1 corrected: a step t ≤ T'(δ_t) with ‖c(M_t)‖_F²/n² < ξ'(δ_t)/n² + ε.  Since δ over [0, T'] is at
    most δ_t, T' ≥ T'(δ_t) ≥ t and ξ' ≥ ξ'(δ_t): the min over t ≤ T' is below the bound, whatever follows."""
    X, W, M0, lam, theta, n, eta, premises = _run_setup(inst)
    kappa1 = arb(B.min_abs(W)) * B.beta(X)
    alpha1 = _alpha1(X, W, arb(lam))
    delta = eps = L0 = None
    for t, _M, ft, c in B.gd_steps(X, W, M0, lam, eta):
        g = _sq(ball.frobenius(c)) / n ** 2
        low = ball.least(v for row in ft for v in row)
        if t == 0:
            L0 = g * n ** 2 / 2 + arb(lam * ball.frobenius_squared(M0)) / 2
            eps, delta = arb(theta) * g, low
        delta = delta.min(low)
        kappa2 = _sq(kappa1 * delta)
        bound = alpha1 / kappa2 / n ** 2 + eps
        horizon = 4 * L0 / (eta * 2 * kappa2 * eps * n ** 2)  # T'(δ_t)
        if g < bound or horizon < t or t >= _STEP_CAP:
            premises = premises + [Evidence(">", delta, arb(0), what="δ_t = min f̃(M_s) over s ≤ t, > 0"),
                                   Evidence(">", eps, arb(0), what="ε = θ·‖c(M0)‖_F²/n² > 0"),
                                   Evidence("≤", arb(t), horizon, what="the witness step t ≤ T'(δ_t) ≤ T'")]
            return Evidence("≤", g, bound, premises=premises,
                            what=f"‖c(M_t)‖_F²/n² at t = {t} (≥ the min over t ≤ T') against ξ'/n² + ε")


# -- the running-time claim -------------------------------------------------------------------------------

_COUNTS = re.compile(r"counts \[([^\]]*)\] over sizes \[([^\]]*)\]")


def _sweep(entry: dict, exponent: int) -> dict:
    """The size sweep the ledger judged (its recorded counts, exact as float64) and the claimed exponent."""
    text = " ".join(str(entry.get(k) or "") for k in ("reason", "counterexample"))
    found = _COUNTS.search(text)
    if found is None:
        raise ValueError(f"the ledger entry of {entry.get('id')} records no counts over sizes")
    counts, sizes = ([float(v) for v in part.split(",")] for part in found.groups())
    return {"d": sizes, "count": counts, "claimed exponent": exponent, "slack": 0.2}


def _fitted_exponent(inst) -> Evidence:
    """The least-squares slope of log count against log d, in balls, against the claimed exponent + slack."""
    xs = [arb(v).log() for v in ball.entries(inst["d"])]
    ys = [arb(v).log() for v in ball.entries(inst["count"])]
    mx, my = sum(xs, arb(0)) / len(xs), sum(ys, arb(0)) / len(ys)
    slope = sum(((x - mx) * (y - my) for x, y in zip(xs, ys)), arb(0)) / sum((_sq(x - mx) for x in xs), arb(0))
    return Evidence("≤", slope, arb(inst["claimed exponent"]) + arb(inst["slack"]),
                    what="fitted exponent of the counts against the claimed exponent + slack",
                    premises=[Fact("counts and sizes positive", "exact rational comparison",
                                   all(v > 0 for v in ball.entries(inst["d"]) + ball.entries(inst["count"])))])


CERTIFIERS.violation("attention_pruning.claim.runtime", method="least-squares slope of the logs in balls",
                     instance=lambda entry: _sweep(entry, 1))(lambda inst, hints: _fitted_exponent(inst))
CERTIFIERS.repair("attention_pruning.claim.runtime", method="least-squares slope of the logs in balls",
                  instance=lambda entry: _sweep(entry, 3))(lambda inst, hints: _fitted_exponent(inst))


# -- δ > 0 (the remark of the paper) ---------------------------------------------------------------------

def _min_attention(inst) -> arb:
    X, W, M, causal = (inst[k] for k in ("X", "W", "M", "causal"))
    return ball.least(v for row in B.attention(X, ball.entrywise(M, W), causal) for v in row)


@CERTIFIERS.violation("attention_pruning.claim.assumptions_practical", method="ball evaluation of f̃(M)")
def _assumptions_practical(inst, hints):
    """assumptions_practical: min_ij f̃(M)_ij = 0 under the causal mask (a masked entry is exactly 0)."""
    return Evidence(">", _min_attention(inst), arb(0), what="min_ij f̃(M)_ij against 0",
                    premises=[Fact("the loss of Def 3.2 (causal mask M_c: Appendix B and the experiments)",
                                   "the instance's flag", inst["causal"] is True)])


@CERTIFIERS.repair("attention_pruning.claim.assumptions_practical", method="ball evaluation of f̃(M)")
def _assumptions_practical_repair(inst, hints):
    """assumptions_practical repaired: min_ij f̃(M)_ij > 0 for the non-causal loss."""
    return Evidence(">", _min_attention(inst), arb(0), what="min_ij f̃(M)_ij against 0",
                    premises=[Fact("the non-causal loss (Def 1.2, M_c = 1)", "flag", inst["causal"] is False)])

