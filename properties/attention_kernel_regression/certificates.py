"""Certificates of paper 004's falsified claims and of their repairs' worst examples.

Each evaluator takes the statement's objects exactly (``fmpq``, ``fmpq_mat``, flags, labels, integers)
and returns the :class:`~properties.evidence.Evidence` that the claim fails there (or that its repair
holds strictly), with the statement's premises decided exactly (ranks and LDLᵀ pivots in rationals).
Quantities that involve an SVD are written through rational functions of the Gram matrix where the
SVD's factors cancel (thmL.3.eq86, thmL.3.gd), so the enclosure is of an exact rational.  Claims about
the implementation's output (Theorem K.1, the running-time sweeps) record that output: the first
certification calls the project's implementation (``solvers.adapter``), and the certificate keeps its
float64 result (``hints``) or counts (the instance), which ``--check`` re-verifies with python-flint
alone; the typo-corrected reading of Theorem K.1 (A(AᵀA)^j x' against b) needs no output, since
OPT = min_x ‖A(AᵀA)^j x − b‖, exact, bounds every output's error from below.  The sketch-based and
statistical claims of Section L are certified in :mod:`.certificates_sketch` and
:mod:`.certificates_statistics`, each with its own ``CERTIFIERS``; the paper's record
(:data:`properties.attention_kernel_regression.PAPER`) declares all three.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from flint import arb, arb_mat, fmpq, fmpq_mat

from oracle import ball
from oracle.precision import UndecidableError

from ..contract import default_implementation
from ..evidence import Certifiers, Evidence, Fact

__all__ = ["CERTIFIERS", "counts_instance", "nonzero_eigenvalues", "psd_fact"]

CERTIFIERS = Certifiers("attention_kernel_regression")


def psd_fact(S: fmpq_mat, what: str) -> Fact:
    """The premise ``what``: the rational symmetric ``S`` is positive semidefinite, decided exactly."""
    return Fact(what, "exact rational LDLᵀ", ball.positive_semidefinite_exact(S))


# -- helpers: exact ranks, Gram eigenvalues, κ, witnesses ----------------------------------------------

def _num(q) -> arb:
    """A rational (or integer) as a ball at the current precision."""
    return arb(q) if isinstance(q, (fmpq, int)) else ball.matrix(q)[0, 0]


def _eye(n: int) -> fmpq_mat:
    return fmpq_mat(n, n, [1 if i == j else 0 for i in range(n) for j in range(n)])


def _gram(M: fmpq_mat) -> fmpq_mat:
    return M.transpose() * M


def nonzero_eigenvalues(S: fmpq_mat, rank: int) -> list[arb]:
    """The ``rank`` nonzero eigenvalues of the rational symmetric PSD matrix ``S`` (exact rank given):
    the balls of :func:`oracle.ball.eigvalsh` that exclude 0 must be exactly ``rank`` many (else the
    precision does not separate them from the zero eigenvalues: :class:`UndecidableError`)."""
    values = ball.eigvalsh(S)
    positive = [v for v in values if v > 0]
    if len(positive) != rank or sum(1 for v in values if v.contains(0)) != S.nrows() - rank:
        raise UndecidableError(f"{rank} nonzero eigenvalues not isolated at this precision")
    return positive


def _sigma_extremes(M: fmpq_mat) -> tuple[arb, arb]:
    """(σ_max(M), σ_min(M)) with the paper's σ_min = min_{‖x‖=1}‖Mx‖ (0 for a wide or rank-deficient M,
    decided exactly)."""
    r = M.rank()
    if r == 0:
        return arb(0), arb(0)
    G = _gram(M)
    values = nonzero_eigenvalues(G, r)
    top = ball.greatest(values).sqrt()
    if M.nrows() < M.ncols() or r < M.ncols():
        return top, arb(0)
    return top, ball.least(values).sqrt()


def _kappa(M: fmpq_mat) -> arb:
    """κ(M) = σ_max/σ_min of a tall full-column-rank M (the caller proves the rank exactly)."""
    top, low = _sigma_extremes(M)
    return top / low


def _full_column_rank(M: fmpq_mat, name: str) -> Fact:
    return Fact(f"{name} ({M.nrows()}×{M.ncols()}) has full column rank", "exact rank over the rationals",
                M.nrows() >= M.ncols() and M.rank() == M.ncols())


def _hint_vector(hints, key: str, compute) -> tuple[fmpq_mat, dict]:
    """A rational witness column: the recorded one on re-checking, else ``compute()`` (a float64
    numpy vector) taken exactly; returned with the hints to record."""
    if hints and key in hints:
        values = [ball.from_fraction(t) for t in hints[key]]
    else:
        values = [ball.exact(float(x)) for x in np.asarray(compute(), dtype=np.float64).ravel()]
    return ball.rational_vector(values), {key: [str(ball.to_fraction(q)) for q in values]}


def _floats(M: fmpq_mat) -> np.ndarray:
    return np.array([[float(Fraction(int(M[i, j].p), int(M[i, j].q))) for j in range(M.ncols())]
                     for i in range(M.nrows())])


def _norm(v) -> arb:
    """‖v‖₂: of a rational column through its exact squared norm (an exact 0 stays exact), of balls by
    :func:`oracle.ball.norm2`."""
    return _num(ball.frobenius_squared(v)).sqrt() if isinstance(v, fmpq_mat) else ball.norm2(v)


# -- Fact A.4 ------------------------------------------------------------------------------------------

@CERTIFIERS.violation("attention_kernel_regression.factA.4.b1",
                      method="exact rank (σ_min = 0); ball eigenvalues of AᵀA for ‖(AᵀA)†‖")
def _factA_4_b1(inst, hints):
    A = inst["A"]
    r = A.rank()
    pinv = arb(0) if r == 0 else 1 / ball.least(nonzero_eigenvalues(_gram(A), r))
    _, smin = _sigma_extremes(A)
    premise = Fact(f"σ_min(A) = 0 (paper's min_{{‖x‖=1}}‖Ax‖: rank {r}, shape {A.nrows()}×{A.ncols()}), so "
                   "σ_min(A)^{-2} = ∞", "exact rank over the rationals", A.nrows() < A.ncols() or r < A.ncols())
    return Evidence("=", pinv * smin * smin, arb(1), premises=[premise],
                    what="‖(AᵀA)†‖·σ_min(A)² against 1 (the claim multiplied by σ_min(A)²: no finite ‖(AᵀA)†‖ "
                         "equals σ_min(A)^{-2} = ∞)")


@CERTIFIERS.violation("attention_kernel_regression.factA.4.b7",
                      method="exact A† = (AᵀA)⁻¹Aᵀ and ranks; ball eigenvalues for σ_max, σ_min")
def _factA_4_b7(inst, hints):
    A = inst["A"]
    full = _full_column_rank(A, "A")
    if not full.proven:
        raise ValueError("A must have full column rank (the claim's premise), A† = (AᵀA)⁻¹Aᵀ")
    P = _gram(A).solve(A.transpose())  # A† exactly
    top, low = _sigma_extremes(P)
    return Evidence("=", _kappa(A) * low, top, premises=[full],
                    what="κ(A)·σ_min(A†) against σ_max(A†) (the claim κ(A) = σ_max(A†)/σ_min(A†) multiplied "
                         "out; A† wide, so σ_min(A†) = 0 in the paper's convention)")


def _kappa_pair(inst):
    A, B = inst["A"], inst["B"]
    AB = A * B
    premises = [Fact("A square", "shape", A.nrows() == A.ncols()), _full_column_rank(A, "A"),
                _full_column_rank(B, "B"), _full_column_rank(AB, "AB")]
    if not all(p.proven for p in premises):
        raise ValueError("A square of full rank, B and AB of full column rank are needed (κ finite)")
    return _kappa(A), _kappa(AB) * _kappa(B), premises


@CERTIFIERS.violation("attention_kernel_regression.factA.4.b8",
                      method="exact ranks and AB; ball eigenvalues of the Gram matrices for κ")
def _factA_4_b8(inst, hints):
    lhs, rhs, premises = _kappa_pair(inst)
    return Evidence("≤", lhs, rhs, what="κ(A) against κ(AB)·κ(B)", premises=premises)


@CERTIFIERS.repair("attention_kernel_regression.factA.4.b8",
                   method="exact ranks and AB; ball eigenvalues of the Gram matrices for κ")
def _factA_4_b8_repair(inst, hints):
    lhs, rhs, premises = _kappa_pair(inst)
    square = Fact("B square", "shape", inst["B"].nrows() == inst["B"].ncols())
    return Evidence("≤", lhs, rhs, what="κ(A) against κ(AB)·κ(B)", premises=premises + [square])


CERTIFIERS.cannot(
    "attention_kernel_regression.factA.4.b1", target="repair",
    reason="an identity (‖(AᵀA)†‖ = σ_r(A)^{-2}): ball arithmetic proves separations, never the equality of two "
           "irrational quantities; it holds by algebra (the nonzero eigenvalues of AᵀA are the σ_i(A)²)")
CERTIFIERS.cannot(
    "attention_kernel_regression.factA.4.b7", target="repair",
    reason="an identity (κ(A) = κ(A†), singular-value convention): ball arithmetic proves separations, never the "
           "equality of two irrational quantities; it holds by algebra (A† = VΣ⁻¹Uᵀ)")


# -- Lemma D.2 -----------------------------------------------------------------------------------------

def _d2(inst, hints):
    """(G, N, x', b, premises, hints) of Lemma D.2: G = AᵀA, N = AᵀSᵀSA, b the worst direction (the top
    right singular vector of GN⁻¹ − I, rounded to float64: any b is admissible) and x' = N⁻¹b exactly."""
    A, e, StS = inst["A"], inst["ε"], inst["SᵀS"]
    G, N = _gram(A), A.transpose() * StS * A

    def worst():
        M = _floats(G) @ np.linalg.inv(_floats(N)) - np.eye(G.nrows())
        return np.linalg.svd(M)[2][0]

    b, rec = _hint_vector(hints, "b", worst)
    premises = [psd_fact(N - G * (1 - e), "(1−ε)AᵀA ⪯ AᵀSᵀSA"), psd_fact(G * (1 + e) - N, "AᵀSᵀSA ⪯ (1+ε)AᵀA"),
                Fact("AᵀSᵀSA positive definite (x' = (AᵀSᵀSA)⁻¹b is the argmin)", "exact rational LDLᵀ",
                     ball.positive_definite_exact(N)),
                Fact("b ≠ 0", "exact", any(b[i, 0] != 0 for i in range(b.nrows())))]
    if not all(p.proven for p in premises):
        raise ValueError("the instance must meet Lemma D.2's hypotheses (sandwich, N ≻ 0, b ≠ 0)")
    return G, N.solve(b), b, premises, rec


@CERTIFIERS.violation("attention_kernel_regression.lemD.2",
                      method="exact LDLᵀ for the sandwich; x' = N⁻¹b exactly; ball norms; witness b")
def _lemD_2(inst, hints):
    G, x, b, premises, rec = _d2(inst, hints)
    return Evidence("≤", _norm(G * x - b), _num(inst["ε"]) * _norm(b), premises=premises, hints=rec,
                    what="‖AᵀAx' − b‖ against ε‖b‖")


@CERTIFIERS.violation("attention_kernel_regression.lemD.2", reading="b ∈ Rⁿ as printed (n = d)",
                      method="as the claim's certificate, at a square A (b ∈ Rⁿ = R^d): exact LDLᵀ for the sandwich; "
                             "x' = N⁻¹b exactly; ball norms; witness b")
def _lemD_2_as_printed(inst, hints):
    ev = _lemD_2(inst, hints)
    A = inst["A"]
    ev.premises.insert(0, Fact("A square, n = d (AᵀAx' − b with b ∈ Rⁿ type-checks as printed)", "exact",
                               A.nrows() == A.ncols()))
    return ev


@CERTIFIERS.repair("attention_kernel_regression.lemD.2",
                   method="exact LDLᵀ for the sandwich; x' = N⁻¹b exactly; ball norms and κ (exact squares for "
                          "d = 1); witness b")
def _lemD_2_repair(inst, hints):
    G, x, b, premises, rec = _d2(inst, hints)
    if G.nrows() == 1:  # κ(A) = 1: the squared sides are rationals, compared exactly (tight examples)
        e = inst["ε"]
        gap = ball.frobenius_squared(G * x - b) - (e / (1 - e)) ** 2 * ball.frobenius_squared(b)
        return Evidence("≤", arb(gap), arb(0), premises=premises, hints=rec,
                        what="‖AᵀAx' − b‖² − ((ε/(1−ε))·κ(A)·‖b‖)² against 0 (part (a); d = 1, κ(A) = 1, exact)")
    e = _num(inst["ε"])
    return Evidence("≤", _norm(G * x - b), e / (1 - e) * _kappa(inst["A"]) * _norm(b), premises=premises,
                    hints=rec, what="‖AᵀAx' − b‖ against (ε/(1−ε))·κ(A)·‖b‖ (part (a))")


# -- Lemma J.1, Theorem J.2: the tolerances and the chain of stages ----------------------------------------

def _tolerances(inst):
    j, e = inst["j"], inst["ε_final"]
    if j < 2:
        raise ValueError(f"j={j} must be ≥ 2 (the claim compares consecutive stages)")
    return [e * fmpq(1, 2 ** (j - k)) for k in range(1, j + 1)]


@CERTIFIERS.violation("attention_kernel_regression.lemJ.1.p3", method="exact rational arithmetic")
def _lemJ_1_p3(inst, hints):
    ek = _tolerances(inst)
    return Evidence("≤", arb(ek[1]), arb(ek[0] / 2),
                    what="ε₂ against 0.5·ε₁ (k = 1) for alg.5's ε_k = ε_final·0.5^{j−k}")


@CERTIFIERS.repair("attention_kernel_regression.lemJ.1.p3", method="exact rational arithmetic")
def _lemJ_1_p3_repair(inst, hints):
    ek = _tolerances(inst)
    return Evidence("≤", arb(ek[0]), arb(ek[1] / 2),
                    what="ε₁ against 0.5·ε₂ (k = 1) for alg.5's ε_k = ε_final·0.5^{j−k} (equal: the bound is tight)")


def _chain(inst, hints, schedule: str):
    """The chain b_0..b_j of Theorem J.2 in balls: stage k solves AᵀAb_k = b_{k−1} + u_k·tol_k·‖b_{k−1}‖
    (its residual meets the tolerance with equality), u_k = b_{k−1}/‖b_{k−1}‖ ("aligned") or the recorded
    rational witness direction normalised in balls ("top", "bottom": the eigenvector of AᵀA rounded to
    float64; the claim is for every sub-solver meeting its tolerance, so any unit u_k is admissible)."""
    A, b, j, e, mode = inst["A"], inst["b"], inst["j"], inst["ε_final"], inst["mode"]
    full = _full_column_rank(A, "A")
    if not full.proven or j < 1:
        raise ValueError("A must have full column rank and j ≥ 1")
    G = _gram(A)
    rec = {}
    u_fixed = None
    if mode in ("top", "bottom"):
        def eigvec():
            w, Q = np.linalg.eigh(_floats(G))
            return Q[:, int(np.argmax(w) if mode == "top" else np.argmin(w))]
        u_fixed, rec = _hint_vector(hints, "u", eigvec)
    elif mode != "aligned":
        raise ValueError(f"mode={mode!r} must be 'aligned', 'top' or 'bottom' (the certified chains)")
    kappa = _kappa(A)
    Gb = ball.matrix(G)
    bs = [ball.matrix(b)]
    for k in range(1, j + 1):
        ek = _num(e) * arb(fmpq(1, 2 ** (j - k)))
        if schedule == "paper":
            tol = ek / kappa ** (2 * k)
        else:
            tol = _num(e) / arb(2) ** (j - k + 2) / kappa ** (2 * (k - 1))
        prev = bs[-1]
        u = prev if u_fixed is None else ball.matrix(u_fixed)
        step = prev + u * (tol * _norm(prev) / _norm(u))
        bs.append(Gb.solve(step))
    Gj = arb_mat(_eye(G.nrows()))
    for _ in range(j):
        Gj = Gj * Gb
    construction = Fact("every stage meets its tolerance with equality: AᵀAb_k − b_{k−1} = tol_k‖b_{k−1}‖·u_k, "
                        "‖u_k‖ = 1 (b_k solved from it)", "construction", True)
    return _norm(Gj * bs[-1] - bs[0]), _num(e) * _norm(bs[0]), [full, construction], rec


@CERTIFIERS.violation("attention_kernel_regression.thmJ.2",
                      method="the chain of stages in balls (arb_mat solves), κ by ball eigenvalues")
def _thmJ_2(inst, hints):
    measured, bound, premises, rec = _chain(inst, hints, "paper")
    return Evidence("≤", measured, bound, premises=premises, hints=rec,
                    what="‖(AᵀA)^j b_j − b‖ against ε_final‖b‖ (alg.5's stage tolerance ε_k/κ^{2k})")


@CERTIFIERS.repair("attention_kernel_regression.thmJ.2",
                   method="the chain of stages in balls (arb_mat solves), κ by ball eigenvalues")
def _thmJ_2_repair(inst, hints):
    measured, bound, premises, rec = _chain(inst, hints, "corrected")
    return Evidence("≤", measured, bound, premises=premises, hints=rec,
                    what="‖(AᵀA)^j b_j − b‖ against ε_final‖b‖ (corrected tolerance ε·2^{−(j−k+2)}/κ^{2(k−1)})")


# -- running time: the fitted exponent of the iteration counts ---------------------------------------------

def counts_instance(entry: dict) -> dict:
    """The named instance of lemJ.1.p4 and thmJ.2.time: the sizes j and Algorithm 5's worst-case iteration
    counts there, reported by the project's implementation (``solvers.adapter.even_powers_iterations``)."""
    from .powers import SWEEP_STAGES, iteration_bound

    impl = default_implementation()
    counts = [int(round(float(iteration_bound(impl, j)))) for j in SWEEP_STAGES]
    return {"j": list(SWEEP_STAGES), "count": counts}


def _fitted_exponent(xs: list[arb], ys: list[arb]) -> arb:
    """The least-squares slope of log ys against log xs, in balls (toolkit.judge.slope's formula)."""
    lx, ly = [x.log() for x in xs], [y.log() for y in ys]
    n = arb(len(lx))
    mx, my = sum(lx, arb(0)) / n, sum(ly, arb(0)) / n
    return (sum(((a - mx) * (b - my) for a, b in zip(lx, ly)), arb(0)) /
            sum(((a - mx) ** 2 for a in lx), arb(0)))


def _sweep(inst):
    js, counts = inst["j"], inst["count"]
    xs = [arb(js[i, 0]) for i in range(js.nrows())]
    ys = [arb(counts[i, 0]) for i in range(counts.nrows())]
    if any(not (y > 0) for y in ys):
        raise ValueError("the counts must be positive")
    return xs, _fitted_exponent(xs, ys)


_KAPPA, _EPS, _DELTA, _N = arb(100), arb(fmpq(*(1e-2).as_integer_ratio())), arb(fmpq(*(0.05).as_integer_ratio())), 64
_SLACK = arb(fmpq(*(0.2).as_integer_ratio()))


def _stated_j1(j: arb) -> arb:
    return j * (_KAPPA / _EPS).log() * (j / _DELTA).log()


def _stated_j2(j: arb) -> arb:
    return j * (_KAPPA / _EPS).log() * (j * _N / _DELTA).log() ** 2


def _corrected(j: arb) -> arb:
    return j * j * _KAPPA.log() + j * j + j * (1 / _EPS).log()


def _time_evidence(inst, claimed, what):
    xs, got = _sweep(inst)
    want = _fitted_exponent(xs, [claimed(x) for x in xs])
    return Evidence("≤", got, want + _SLACK, what=what)


@CERTIFIERS.violation("attention_kernel_regression.lemJ.1.p4", instance=counts_instance,
                      method="fitted exponent of the integer counts with arb logarithms")
def _lemJ_1_p4(inst, hints):
    return _time_evidence(inst, _stated_j1, "fitted exponent of the counts against that of "
                                            "j·log(κ/ε)·log(j/δ) + 0.2")


@CERTIFIERS.violation("attention_kernel_regression.thmJ.2.time", instance=counts_instance,
                      method="fitted exponent of the integer counts with arb logarithms")
def _thmJ_2_time(inst, hints):
    return _time_evidence(inst, _stated_j2, "fitted exponent of the counts against that of "
                                            "j·log(κ/ε)·log²(jn/δ) + 0.2")


for _cid in ("attention_kernel_regression.lemJ.1.p4", "attention_kernel_regression.thmJ.2.time"):
    CERTIFIERS.repair(_cid, instance=counts_instance,
                      method="fitted exponent of the integer counts with arb logarithms")(
        lambda inst, hints: _time_evidence(inst, _corrected, "fitted exponent of the counts against that of "
                                                             "j²·log κ + j² + j·log(1/ε) + 0.2"))


# -- Theorem K.1 / 1.5: the implementation's Algorithm 6 output -------------------------------------------

def _k1(inst, hints):
    A, b, j, e, seed = inst["A"], inst["b"], inst["j"], inst["ε_final"], inst["seed"]

    def run():
        eps = float(Fraction(int(e.p), int(e.q)))
        return default_implementation().odd_powers(_floats(A), _floats(b).ravel(), j, eps, 0.05, seed)

    x, rec = _hint_vector(hints, "x'", run)
    Gj = _eye(A.ncols())
    for _ in range(j):
        Gj = Gj * _gram(A)
    return A, b, Gj * x, rec


_K1_METHOD = ("x' = the shipped Algorithm 6 output (solvers.adapter.odd_powers, δ = 0.05, the seed) recorded "
              "exactly; (AᵀA)^j x' exactly; ball norms")


def _opt(A: fmpq_mat, b: fmpq_mat) -> tuple[arb, Fact]:
    """OPT = min_x ‖A(AᵀA)^j x − b‖ = ‖(I − A(AᵀA)⁻¹Aᵀ)b‖ for A of full column rank (range(A(AᵀA)^j) =
    range(A)), from OPT² = ‖b‖² − bᵀA(AᵀA)⁻¹Aᵀb exactly; with the premise that A has full column rank
    (``ValueError`` where it has not)."""
    full = _full_column_rank(A, "A")
    if not full.proven:
        raise ValueError("A must have full column rank")
    Atb = A.transpose() * b
    return _num(ball.frobenius_squared(b) - (Atb.transpose() * _gram(A).solve(Atb))[0, 0]).sqrt(), full


_K1_TYPO_CORRECTED = "typo-corrected: A(AᵀA)^j x' against b (type-checks for every n)"
"""The alternative reading of Theorems K.1 and 1.5 whose bound has the A the printed one lacks."""

for _cid in ("attention_kernel_regression.thmK.1", "attention_kernel_regression.thm1.5"):
    @CERTIFIERS.violation(_cid, method=_K1_METHOD)
    def _thmK_1(inst, hints):
        A, b, y, rec = _k1(inst, hints)
        return Evidence("≤", _norm(y - b), _num(inst["ε_final"]) * _norm(b), hints=rec,
                        what="‖(AᵀA)^j x' − b‖ against ε_final‖b‖")

    @CERTIFIERS.repair(_cid, method=_K1_METHOD + "; OPT² = ‖b‖² − bᵀA(AᵀA)⁻¹Aᵀb exactly")
    def _thmK_1_repair(inst, hints):
        A, b, y, rec = _k1(inst, hints)
        opt, full = _opt(A, b)
        e = _num(inst["ε_final"])
        return Evidence("≤", _norm(A * y - b), (1 + e) * opt + e * _norm(b), hints=rec, premises=[full],
                        what="‖A(AᵀA)^j x' − b‖ against (1+ε_final)·OPT + ε_final‖b‖")

    @CERTIFIERS.violation(_cid, reading=_K1_TYPO_CORRECTED,
                          method="OPT² = ‖b‖² − bᵀA(AᵀA)⁻¹Aᵀb exactly (a lower bound on every output's error, so no "
                                 "implementation is run); exact rank; ball norms")
    def _thmK_1_typo_corrected(inst, hints):
        opt, full = _opt(inst["A"], inst["b"])
        return Evidence("≤", opt, _num(inst["ε_final"]) * _norm(inst["b"]), premises=[full],
                        what="OPT = min_x ‖A(AᵀA)^j x − b‖ (at most ‖A(AᵀA)^j x' − b‖ for every output x') "
                             "against ε_final‖b‖")


# -- Theorem L.3's steps: eq. (86) and the loop -------------------------------------------------------------

def _svd_free(W: fmpq_mat, S: fmpq_mat):
    """M = SWᵀ and G = MᵀM with the statement's premise (M of full column rank) decided exactly."""
    M = S * W.transpose()
    full = _full_column_rank(M, "SWᵀ")
    if not full.proven:
        raise ValueError("SWᵀ must have full column rank (alg.7 divides by Σ)")
    return M, _gram(M), full


@CERTIFIERS.violation("attention_kernel_regression.thmL.3.eq86",
                      method="exact rationals: RRᵀ = M(MᵀM)⁻³Mᵀ (M = SWᵀ = UΣVᵀ, R = UΣ⁻²); ball eigenvalues "
                             "for σ_min(RᵀS)")
def _thmL_3_eq86(inst, hints):
    W, S, v = inst["W"], inst["S"], inst["v"]
    M, G, full = _svd_free(W, S)
    Gi = G.inv()
    C = S.transpose() * M * Gi * Gi * Gi * M.transpose() * S  # (RᵀS)ᵀ(RᵀS), exactly
    m = W.nrows()
    smin = ball.least(nonzero_eigenvalues(C, m)).sqrt()  # σ_m(RᵀS) = σ_min(m, n) (RᵀS has rank m)
    measured = _num((v.transpose() * C * v)[0, 0]).sqrt()
    return Evidence("≥", measured, smin * _norm(v), premises=[full],
                    what="‖RᵀSv‖ = (vᵀSᵀM(MᵀM)⁻³MᵀSv)^{1/2} against σ_min(RᵀS)‖v‖ (σ_{min(m,n)})")


def _gd(inst, rate: fmpq, steps: int = 8):
    """‖Φz_t − RᵀSy‖² and ‖RᵀSy‖² of alg.7's loop from z₀ = 0 with S = I, exactly: Φ = Σ⁻² (thmL.3.phi),
    so the residual is −(I − Φ²)^t RᵀSy and its squared norm yᵀM G⁻³(I − G⁻²)^{2t}Mᵀy, M = Wᵀ, G = MᵀM."""
    W, y = inst["W"], inst["y"]
    M, G, full = _svd_free(W, _eye(W.ncols()))
    Gi = G.inv()
    G3 = Gi * Gi * Gi
    step = _eye(G.nrows()) - Gi * Gi
    P = _eye(G.nrows())
    for _ in range(2 * steps):
        P = P * step
    r2 = (y.transpose() * M * G3 * P * M.transpose() * y)[0, 0]
    b2 = (y.transpose() * M * G3 * M.transpose() * y)[0, 0]
    if b2 == 0:
        raise ValueError("RᵀSy must be nonzero")
    return _num(r2).sqrt(), arb(rate) ** steps * _num(b2).sqrt(), G, full


@CERTIFIERS.violation("attention_kernel_regression.thmL.3.gd",
                      method="exact rationals: the loop's residual in closed form through G = WWᵀ; ball square roots")
def _thmL_3_gd(inst, hints):
    measured, bound, _, full = _gd(inst, fmpq(9, 10))
    return Evidence("≤", measured, bound, premises=[full],
                    what="‖Φz₈ − RᵀSy‖ against 0.9⁸‖RᵀSy‖ (S = I, z₀ = 0)")


@CERTIFIERS.repair("attention_kernel_regression.thmL.3.gd",
                   method="exact rationals: the loop's residual in closed form through G = WWᵀ; exact LDLᵀ for "
                          "the window")
def _thmL_3_gd_repair(inst, hints):
    measured, bound, G, full = _gd(inst, fmpq(9, 16))
    n = G.nrows()
    window = [psd_fact(G - _eye(n) * fmpq(4, 5), "σ_i(SWᵀ)² ≥ 4/5"), psd_fact(_eye(n) * fmpq(4, 3) - G, "σ_i(SWᵀ)² ≤ 4/3")]
    return Evidence("≤", measured, bound, premises=[full] + window,
                    what="‖Φz₈ − RᵀSy‖ against (9/16)⁸‖RᵀSy‖ (S = I, z₀ = 0)")


def _eq86_repair(inst, hints):
    W, S, v = inst["W"], inst["S"], inst["v"]
    M, G, full = _svd_free(W, S)
    Gi = G.inv()
    C = S.transpose() * M * Gi * Gi * Gi * M.transpose() * S
    B = S.transpose() * M  # range(SᵀU) = range(SᵀM): the row space of RᵀS
    Pi = B * (B.transpose() * B).inv() * B.transpose()
    lhs, proj = (v.transpose() * C * v)[0, 0], (v.transpose() * Pi * v)[0, 0]
    if W.nrows() == 1:  # rank one: σ_1(RᵀS)² = tr C, and the squared sides are rationals (exact at equality)
        trace = sum((C[i, i] for i in range(C.nrows())), fmpq(0))
        return Evidence("≥", arb(lhs - trace * proj), arb(0), premises=[full],
                        what="‖RᵀSv‖² − σ_1(RᵀS)²‖Πv‖² against 0 (m = 1: σ_1² = tr((RᵀS)ᵀRᵀS); exact)")
    smin = ball.least(nonzero_eigenvalues(C, W.nrows())).sqrt()
    return Evidence("≥", _num(lhs).sqrt(), smin * _num(proj).sqrt(),
                    premises=[full], what="‖RᵀSv‖ against σ_m(RᵀS)·‖Πv‖ (Π = B(BᵀB)⁻¹Bᵀ, B = SᵀSWᵀ)")


CERTIFIERS.repair("attention_kernel_regression.thmL.3.eq86",
                  method="exact rationals: RRᵀ = M(MᵀM)⁻³Mᵀ and the projector; ball eigenvalues")(_eq86_repair)
