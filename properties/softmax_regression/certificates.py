"""Certificates of paper 001's falsified claims and of their repairs' worst examples: each
evaluator takes the statement's objects exactly (``fmpq``/``fmpq_mat``) and returns the
:class:`~properties.evidence.Evidence` that the claim fails there (or that its repair holds).

Loewner statements X ⪯ Y between exact rational matrices are refuted by a witness: a rational z with
zᵀ(Y − X)z < 0 (found in float64, rounded, recorded in the hints' ``witness`` as "p/q" and reused by
``--check``; named z, not after a symbol of the statements), and
proven by the exact LDLᵀ of Y − X: the evidence is its smallest pivot against 0 (an exact rational), the
premise the full decision (every pivot ≥ 0, a zero pivot only with a zero row).  Identities of the
Hessian (lem5.15.paperB) are judged on ∇²L_exp by forward differentiation in balls
(:mod:`.certificates_calculus`); the claims about approximate Newton are in :mod:`.certificates_newton`.
Theorem 9.1's iteration count read with the natural log (thm9.1.iters, reading "natural log") is
certified with the ceiling ⌈ln(r_0/ε)⌉ decided by enclosures of the logarithm."""

from __future__ import annotations

import numpy as np
from flint import arb, arb_mat, fmpq, fmpq_mat

from oracle import ball

from ..evidence import Certifiers, Evidence, Fact
from . import certificates_newton as newton
from .certificates_calculus import loss_exp

__all__ = ["CERTIFIERS"]

CERTIFIERS = Certifiers("softmax_regression")


# -- exact Loewner order: witnesses and LDLᵀ ---------------------------------------------------------------

def _loewner_holds(X: fmpq_mat, Y: fmpq_mat, what: str, premises=()) -> Evidence:
    """X ⪯ Y proven exactly: the smallest LDLᵀ pivot of Y − X against 0, with the exact PSD decision."""
    D = Y - X
    return Evidence("≥", arb(min(ball.symmetric_pivots(D)[0])), arb(0), what=f"smallest LDLᵀ pivot of {what}",
                    premises=[*premises, Fact(f"{what} ⪰ 0", "exact rational LDLᵀ", ball.positive_semidefinite_exact(D))])


def _witness(D: fmpq_mat, hints) -> fmpq_mat:
    """The recorded witness, or an eigenvector of D's smallest eigenvalue rounded to float64 (exact then)."""
    if hints:
        return ball.rational_vector([ball.from_fraction(t) for t in hints["witness"]])
    n = D.nrows()
    dense = np.array([[float(D[i, j]) for j in range(n)] for i in range(n)])
    _, vectors = np.linalg.eigh((dense + dense.T) / 2)
    v = vectors[:, 0] / np.max(np.abs(vectors[:, 0]))
    return ball.rational_vector([float(t) for t in v])


def _loewner_fails(X: fmpq_mat, Y: fmpq_mat, what: str, hints, premises=()) -> Evidence:
    """X ⪯ Y refuted by a witness: zᵀ(Y − X)z < 0, exactly (z rational)."""
    D = Y - X
    z = _witness(D, hints)
    value = (z.transpose() * D * z)[0, 0]
    return Evidence("≥", arb(value), arb(0), what=f"zᵀ({what})z for the witness z", premises=list(premises),
                    hints={"witness": [str(ball.to_fraction(z[i, 0])) for i in range(z.nrows())]})


def _outer(u: fmpq_mat) -> fmpq_mat:
    return u * u.transpose()


def _hadamard(u: fmpq_mat, v: fmpq_mat) -> fmpq_mat:
    return fmpq_mat(u.nrows(), 1, [u[i, 0] * v[i, 0] for i in range(u.nrows())])


def _norm_inf(v: fmpq_mat) -> fmpq:
    return max(abs(v[i, 0]) for i in range(v.nrows()))


def _dot(u: fmpq_mat, v: fmpq_mat) -> fmpq:
    return (u.transpose() * v)[0, 0]


def _identity(n: int, c) -> fmpq_mat:
    return fmpq_mat(n, n, [c if i == j else 0 for i in range(n) for j in range(n)])


# -- Fact 4.4: ‖U‖ ≤ α‖V‖ under 0 ⪯ U ⪯ αV -----------------------------------------------------------------

@CERTIFIERS.violation("softmax_regression.fact4.4.p1",
                      method="exact LDLᵀ of αV − U for the premise; ball eigenvalues for the norms")
def _fact4_4_p1(inst, hints):
    U, V, a = inst["U"], inst["V"], inst["α"]
    premise = Fact("U ⪯ αV (αV − U positive semidefinite)", "exact rational LDLᵀ",
                   ball.positive_semidefinite_exact(V * a - U))
    return Evidence("≤", ball.spectral_norm(U), ball.spectral_norm(V) * ball.matrix([[a]])[0, 0],
                    what="‖U‖₂ against α‖V‖₂", premises=[premise])


@CERTIFIERS.repair("softmax_regression.fact4.4.p1", method="ball eigenvalues for the norms; premises by construction")
def _fact4_4_p1_repair(inst, _hints):
    """The search's reparametrisation (the repair's U involves ‖HHᵀ‖, irrational in general, so the instance
    is (G, H, t, α)): V = GGᵀ, U = α·G(HHᵀ/((1 + t)‖HHᵀ‖))Gᵀ; 0 ⪯ U ⪯ αV holds by construction
    (0 ⪯ HHᵀ/‖HHᵀ‖ ⪯ I, 1/(1 + t) ∈ (0, 1]) once t ≥ 0 and α ≥ 0, decided exactly."""
    G, H, t, a = inst["G"], inst["H"], inst["t"], inst["α"]
    V, K = G * G.transpose(), H * H.transpose()
    premise = Fact("0 ⪯ U ⪯ αV: U = α·G(HHᵀ/((1 + t)‖HHᵀ‖))Gᵀ, V = GGᵀ with t ≥ 0, α ≥ 0", "exact rationals",
                   t >= 0 and a >= 0)
    if all(K[i, j] == 0 for i in range(K.nrows()) for j in range(K.ncols())):
        norm_u = arb(0)
    else:
        U = ball.matrix(G) * (ball.matrix(K) / (ball.spectral_norm(K) * (1 + arb(t)))) * ball.matrix(G.transpose())
        norm_u = ball.spectral_norm(U * arb(a))
    return Evidence("≤", norm_u, ball.spectral_norm(V) * arb(a), what="‖U‖₂ against α‖V‖₂", premises=[premise])


# -- Fact 4.5 part 5 and Lemma 5.2: (v∘u)(v∘u)ᵀ against rank one and against the identity ---------------------

@CERTIFIERS.violation("softmax_regression.fact4.5.p5", method="witness vector, exact rationals")
def _fact4_5_p5(inst, hints):
    u, v = inst["u"], inst["v"]
    return _loewner_fails(_outer(_hadamard(v, u)), _outer(u) * _norm_inf(v) ** 2,
                          "‖v‖_∞²uuᵀ − (v∘u)(v∘u)ᵀ", hints)


@CERTIFIERS.repair("softmax_regression.fact4.5.p5", method="exact rational LDLᵀ")
def _fact4_5_p5_repair(inst, _hints):
    u, v = inst["u"], inst["v"]
    c = _norm_inf(v) ** 2 * _dot(u, u)
    return _loewner_holds(_outer(_hadamard(v, u)), _identity(u.nrows(), c), "‖v‖_∞²‖u‖₂² I_n − (v∘u)(v∘u)ᵀ")


def _simplex_premises(f: fmpq_mat, b: fmpq_mat) -> list:
    n = f.nrows()
    fs, bs = [f[i, 0] for i in range(n)], [b[i, 0] for i in range(n)]
    return [Fact("f on the probability simplex (f ≥ 0, ⟨f, 1⟩ = 1)", "exact rationals",
                 all(x >= 0 for x in fs) and sum(fs, fmpq(0)) == 1),
            Fact("b ≥ 0, ‖b‖₁ ≤ 1", "exact rationals", all(x >= 0 for x in bs) and sum(bs, fmpq(0)) <= 1)]


def _bf_links(f: fmpq_mat, b: fmpq_mat, middle: fmpq_mat) -> list[tuple[fmpq_mat, fmpq_mat, str]]:
    n = f.nrows()
    bf, binf2 = _outer(_hadamard(b, f)), _norm_inf(b) ** 2
    return [(fmpq_mat(n, n), bf, "(b∘f)(b∘f)ᵀ − 0"), (bf, middle, "middle − (b∘f)(b∘f)ᵀ"),
            (middle, _identity(n, binf2), "‖b‖_∞² I_n − middle")]


@CERTIFIERS.violation("softmax_regression.lem5.2.bf_ff", method="witness vector on the failing link, exact rationals")
def _lem5_2_bf_ff(inst, hints):
    f, b = inst["f"], inst["b"]
    links = _bf_links(f, b, _outer(f) * _norm_inf(b) ** 2)
    failing = [(X, Y, what) for X, Y, what in links if not ball.positive_semidefinite_exact(Y - X)]
    X, Y, what = (failing or links)[0]
    return _loewner_fails(X, Y, what.replace("middle", "‖b‖_∞² ffᵀ"), hints, premises=_simplex_premises(f, b))


@CERTIFIERS.repair("softmax_regression.lem5.2.bf_ff", method="exact rational LDLᵀ of every link")
def _lem5_2_bf_ff_repair(inst, _hints):
    f, b = inst["f"], inst["b"]
    links = _bf_links(f, b, _identity(f.nrows(), _norm_inf(b) ** 2 * _dot(f, f)))
    evidence = [_loewner_holds(X, Y, what.replace("middle", "‖b‖_∞²‖f‖₂² I_n")) for X, Y, what in links]
    tightest = min(evidence, key=lambda e: e.measured.mid())
    others = [p for e in evidence if e is not tightest for p in [e, *e.premises]]
    tightest.premises = [*_simplex_premises(f, b), *tightest.premises, *others]
    return tightest


# -- Lemma 5.15: the paper's B(x) against ∇²L_exp ---------------------------------------------------------------

def _B_paper(f: list[arb], b: list[arb]) -> list[list[arb]]:
    """lem5.15.paperB: ⟨3f − 2b, f⟩ffᵀ + (b∘f)fᵀ + f(b∘f)ᵀ − ⟨f − b, f⟩diag(f) + diag((2f − b)∘f)."""
    n = len(f)
    c1 = sum(((3 * fi - 2 * bi) * fi for fi, bi in zip(f, b)), arb(0))
    c2 = sum(((fi - bi) * fi for fi, bi in zip(f, b)), arb(0))
    return [[c1 * f[i] * f[j] + b[i] * f[i] * f[j] + f[i] * b[j] * f[j]
             + ((-c2 * f[i] + (2 * f[i] - b[i]) * f[i]) if i == j else 0) for j in range(n)] for i in range(n)]


def _softmax_at(A, x) -> list[arb]:
    return ball.entries(ball.softmax(ball.matrix(A) * ball.matrix(x)))


def _hessian_gap(inst) -> arb:
    """max_ij |∇²L_exp(x) − AᵀB_paper(x)A|_ij, ∇²L_exp by forward differentiation."""
    A, b, x = inst["A"], inst["b"], inst["x"]
    Am = ball.matrix(A)
    closed = Am.transpose() * arb_mat(_B_paper(_softmax_at(A, x), ball.entries(ball.matrix(b)))) * Am
    true = loss_exp(A, b, ball.entries(ball.matrix(x))).hessian()
    d = Am.ncols()
    gap = [abs(true[i, j] - closed[i, j]) for i in range(d) for j in range(d)]
    return max((g.upper() for g in gap), key=lambda t: t.mid()).union(max((g.lower() for g in gap),
                                                                          key=lambda t: t.mid()))


@CERTIFIERS.violation("softmax_regression.lem5.15.paperB",
                      method="ball arithmetic; ∇²L_exp by forward differentiation (no closed form)")
def _lem5_15_paper_b(inst, _hints):
    return Evidence("=", _hessian_gap(inst), arb(0), what="max_ij |∇²L_exp(x) − Aᵀ B_paper(x) A|_ij against 0")


CERTIFIERS.cannot(
    "softmax_regression.lem5.15.paperB", target="repair",
    reason="an identity at a transcendental point (f = softmax(Ax)) cannot be proven by enclosures, which only "
           "show that the two sides agree within their radii (the completed B_paper and ∇²L_exp by forward "
           "differentiation agree within 1.7·10⁻³⁶ ≈ 2⁻¹¹⁹ at 128 bits at the worst example); an exact proof "
           "needs the derivatives as rational functions of the exponentials E = exp(Ax) (python-flint fmpq_mpoly), not built")


# -- Lemmas 8.7, 8.8 and Theorem 9.1: approximate Newton -------------------------------------------------------

_NEWTON = ("iteration repeated in balls; x* by a Krawczyk test; ∇L, ∇²L by forward differentiation; "
           "def8.1/def8.4 premises in balls")

CERTIFIERS.violation("softmax_regression.lem8.7", method=_NEWTON)(newton.lem8_7)
CERTIFIERS.repair("softmax_regression.lem8.7", method=_NEWTON)(newton.lem8_7_repair)
CERTIFIERS.violation("softmax_regression.lem8.8", method=_NEWTON)(newton.lem8_8)
CERTIFIERS.repair("softmax_regression.lem8.8", method=_NEWTON)(newton.lem8_8_repair)
CERTIFIERS.violation("softmax_regression.thm9.1.accuracy", method=_NEWTON)(newton.thm9_1_accuracy)


@CERTIFIERS.violation("softmax_regression.thm9.1.iters", reading="natural log",
                      method="T = ⌈ln(r_0/ε)⌉ decided by ball enclosures of ln(r_0/ε); 0.4^T·r_0/ε an exact rational")
def _thm9_1_iters_natural_log(inst, _hints):
    """Theorem 9.1's iteration count read with the natural log: T = max(1, ⌈ln(r_0/ε)⌉) steps of the proof's
    0.4 contraction leave r_T ≤ 0.4^T·r_0, which must be ≤ ε."""
    ratio = inst["r_0/ε"]
    log_ratio = arb(ratio).log()
    T = max(1, int(log_ratio.mid().ceil().unique_fmpz()))
    premises = [Fact("r_0/ε > 1", "exact rational comparison", ratio > 1),
                Evidence("≤", log_ratio, arb(T), what=f"ln(r_0/ε) against T = {T} (T ≥ ⌈ln(r_0/ε)⌉)")]
    if T > 1:
        premises.append(Evidence(">", log_ratio, arb(T - 1), what=f"ln(r_0/ε) against T − 1 = {T - 1} (T ≤ ⌈ln(r_0/ε)⌉)"))
    return Evidence("≤", arb(fmpq(2, 5) ** T * ratio), arb(1), premises=premises,
                    what=f"0.4^T·r_0/ε (the proof's bound on r_T/ε after T = {T} contractions) against 1 (r_T ≤ ε)")
CERTIFIERS.repair("softmax_regression.thm9.1.accuracy", method=_NEWTON)(newton.thm9_1_accuracy_repair)
