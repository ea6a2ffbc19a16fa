"""Certificates of paper 003's repairs whose worst example attains its bound (ledger ratio 1):
an enclosure cannot lie strictly inside a bound it equals, so these are proven by exact arithmetic —
both sides as rationals (``fmpq``/``fmpq_mat``) and the Evidence on exact points, which
``properties.certify`` accepts as a proof of the tight inequality.  A Loewner statement X ⪯ Y is proven
by the exact LDLᵀ of Y − X (``oracle.ball.positive_semidefinite_exact``); the evidence is its smallest
pivot against 0.  Where an instance's sides are not rational (a softmax at unequal logits, an irrational
radius or singular value), the evaluators fall back to balls, which decide only with room."""

from __future__ import annotations

from flint import arb, arb_mat, fmpq, fmpq_mat
from flint.utils.flint_exceptions import DomainError

from oracle import ball
from oracle.precision import UndecidableError

from ..evidence import Evidence, Fact
from . import certificates_loss as L

__all__ = ["fact4_3_repair", "fact4_4_p6_repair", "lem9_1_p3_repair",
           "lem9_1_p5_repair", "lem12_10_repair"]


# -- generic: exact PSD evidence, Kronecker products, eigenvalues -----------------------------------------

def _psd_exact(D: fmpq_mat, what: str, premises=()) -> Evidence:
    """D ⪰ 0 proven exactly: the smallest LDLᵀ pivot against 0, with the exact PSD decision as premise."""
    return _gap(min(ball.symmetric_pivots(D)[0]), f"smallest LDLᵀ pivot of {what}",
                [*premises, Fact(f"{what} ⪰ 0", "exact rational LDLᵀ", ball.positive_semidefinite_exact(D))])


def _psd(D: arb_mat, what: str, premises=()) -> Evidence:
    """D ⪰ 0 for a ball matrix: by the exact LDLᵀ when every entry came out exact (radius 0; a rational
    then), else λ_min(D) in balls against 0."""
    n = D.nrows()
    if all(D[i, j].is_exact() for i in range(n) for j in range(n)):
        exact = fmpq_mat(n, n, [ball.exact(ball.midpoint_fraction(D[i, j])) for i in range(n) for j in range(n)])
        return _psd_exact(exact, what, premises)
    return Evidence("≥", ball.least_eigenvalue(D), arb(0), what=f"λ_min({what}) (ball eigenvalues)", premises=list(premises))


def _gap(value: fmpq, what: str, premises=()) -> Evidence:
    """``bound − measured ≥ 0`` on the exact rational difference: an exact 0 where the bound is attained (a
    tight worst example), else a ball excluding 0 (arb of a nonzero rational has its sign)."""
    return Evidence("≥", arb(value), arb(0), what=f"{what} (exact rationals)", premises=list(premises))


def _trace(M: fmpq_mat) -> fmpq:
    return sum((M[i, i] for i in range(M.nrows())), fmpq(0))


# -- Facts 4.3 and 4.4 --------------------------------------------------------------------------------------

def fact4_3_repair(inst, _hints):
    """fact4.3.loewner_norm's repair on the search's reparametrisation (S, α, G): Y = SSᵀ, X =
    α·S(GGᵀ/‖GGᵀ‖)Sᵀ (X = 0 when G = 0), so 0 ⪯ X ⪯ αY by construction once α ≥ 0.  With rank S ≤ 1 and
    rank G ≤ 1 (n = 1, the worst example) every quantity is rational: ‖GGᵀ‖ = tr GGᵀ, and X, Y are PSD of
    rank ≤ 1, so ‖X‖ = tr X, ‖Y‖ = tr Y; otherwise the norms are enclosed in balls."""
    S, a, G = inst["S"], inst["α"], inst["G"]
    premises = [Fact("0 ⪯ X ⪯ αY: Y = SSᵀ, X = α·S(GGᵀ/‖GGᵀ‖)Sᵀ (0 ⪯ GGᵀ/‖GGᵀ‖ ⪯ I) with α > 0",
                     "exact rational sign", a > 0)]
    Y, K = S * S.transpose(), G * G.transpose()
    zero = _trace(K) == 0  # GGᵀ ⪰ 0: zero iff its trace is
    low_rank = S.rank() <= 1 and G.rank() <= 1
    if low_rank:
        X = fmpq_mat(S.nrows(), S.nrows()) if zero else S * K * S.transpose() * (a / _trace(K))
        premises.append(Fact("rank S, rank G ≤ 1: ‖GGᵀ‖ = tr GGᵀ, ‖X‖ = tr X, ‖Y‖ = tr Y", "exact rank", low_rank))
        return _gap(a * _trace(Y) - _trace(X), "α‖Y‖₂ − ‖X‖₂", premises)
    if zero:
        norm_x = arb(0)
    else:
        X = ball.matrix(S) * (ball.matrix(K) * (arb(a) / ball.spectral_norm(K))) * ball.matrix(S.transpose())
        norm_x = ball.spectral_norm(X)
    return Evidence("≤", norm_x, ball.spectral_norm(Y) * arb(a), what="‖X‖₂ against α‖Y‖₂ (ball eigenvalues)",
                    premises=premises)


def fact4_4_p6_repair(inst, _hints):
    """fact4.4.p6's repair (v∘u)(v∘u)ᵀ ⪯ ‖v‖_∞²‖u‖₂² I, exactly."""
    u, v = inst["u"], inst["v"]
    n = u.nrows()
    vu = fmpq_mat(n, 1, [v[i, 0] * u[i, 0] for i in range(n)])
    c = max(abs(v[i, 0]) for i in range(n)) ** 2 * (u.transpose() * u)[0, 0]
    I_c = fmpq_mat(n, n, [c if i == j else 0 for i in range(n) for j in range(n)])
    return _psd_exact(I_c - vu * vu.transpose(), "‖v‖_∞²‖u‖₂² I − (v∘u)(v∘u)ᵀ")


# -- Lemma 9.1 Parts 3 and 5 ------------------------------------------------------------------------------

def _data(inst):
    A1, A2, A3, B = inst["A1"], inst["A2"], inst["A3"], inst["B"]
    return A1, A2, A3, B, L.vec_row(inst["X"]), L.vec_cols(inst["Y"])


def _least_radius(A1, A2, A3, B, x, y) -> arb:
    """An enclosure of the least H12 radius R (the largest of the H12 quantities)."""
    return ball.norm_inf(arb_mat([[q] for _, q in L.h12_quantities(A1, A2, A3, B, x, y)]))


def _fvc(A1, A2, A3, B, x, y, j0, i0):
    return (ball.matrix(L.f_row(A1, A2, x, j0)), ball.matrix(L.h_col(A3, y, i0)), L.c_entry(A1, A2, A3, B, x, y, j0, i0))


def lem9_1_p3_repair(inst, _hints):
    """lem9.1.p3's repair H + H_reg ⪰ (l/σ_+²)𝖠ᵀ𝖠 ⪰ l·Π at one block 𝖠 = 𝖠_{j0}, W = ball.diag((l/σ_+² + C_0)(1 + s)).
    The second link is tight on σ_+'s singular direction at every instance: proven exactly when 𝖠 has rank 1
    (σ_+² = ‖𝖠‖_F², Π = 𝖠ᵀ𝖠/‖𝖠‖_F², the difference the zero matrix); the first (for B_paper and B_true) as
    𝖠ᵀ(B + W − (l/σ_+²)I)𝖠 with B + W − (l/σ_+²)I ⪰ 0 in balls (W − (l/σ_+²)I ⪰ C_0·I ⪰ −B, room ≈ C_0)."""
    A1, A2, A3, B, x, y = _data(inst)
    j0, i0, l = inst["j0"], inst["i0"], inst["l"]
    s = [inst["s"][k, 0] for k in range(A1.nrows())]
    K = L.kron_block(A1, A2, j0)
    if K.rank() != 1:
        raise UndecidableError(f"𝖠_{{j0}} has rank {K.rank()}: σ_+² is then an algebraic number in general, and "
                               "the tight link l·Π ⪯ (l/σ_+²)𝖠ᵀ𝖠 is decided exactly only for rank 1")
    sigma2 = ball.frobenius_squared(K)  # rank 1: the one nonzero singular value squared
    r = next(fmpq_mat([[K[i, j] for j in range(K.ncols())]]) for i in range(K.nrows())
             if any(K[i, j] != 0 for j in range(K.ncols())))
    Pi = r.transpose() * r * (1 / (r * r.transpose())[0, 0])  # the projector onto the row space (spanned by r)
    tight = K.transpose() * K * (l / sigma2) - Pi * l
    C0 = 30 * _least_radius(A1, A2, A3, B, x, y) ** 8
    n = A1.nrows()
    W_minus = ball.diag([(arb(l / sigma2) + C0) * (1 + arb(v)) - arb(l / sigma2) for v in s])
    f, v, c = _fvc(A1, A2, A3, B, x, y, j0, i0)
    premises = [Fact("s ≥ 0, so w_k = (l/σ_+² + C_0)(1 + s_k) meets min w ≥ l/σ_+² + C_0", "exact rational sign",
                     all(t >= 0 for t in s)),
                Fact("rank 𝖠_{j0} = 1: σ_+² = ‖𝖠_{j0}‖_F², Π = rrᵀ/rᵀr for a nonzero row r of 𝖠_{j0}, and Π is "
                     "that projector (Π = Πᵀ = Π², Π𝖠ᵀ = 𝖠ᵀ)", "exact rank and rationals",
                     Pi == Pi.transpose() and Pi * Pi == Pi and Pi * K.transpose() == K.transpose())]
    for name, kernel in (("B_paper", L.B_x_paper), ("B_true", L.B_x_true)):
        M = kernel(f, v, c) + W_minus
        premises.append(Evidence("≥", ball.least_eigenvalue((M + M.transpose()) * fmpq(1, 2)), arb(0),
                                 what=f"λ_min({name} + W − (l/σ_+²)I_{n}) ≥ 0, so 𝖠ᵀ({name} + W)𝖠 ⪰ (l/σ_+²)𝖠ᵀ𝖠"))
    return _psd_exact(tight, "(l/σ_+²)𝖠ᵀ𝖠 − l·Π", premises)


def _least_gram_eigenvalue(A: fmpq_mat) -> arb:
    """σ_min(A)² = λ_min(AᵀA): exact when AᵀA is diagonal (d = 1, or A = 0), else in balls."""
    G = A.transpose() * A
    d = G.nrows()
    if all(G[i, j] == 0 for i in range(d) for j in range(d) if i != j):
        return arb(min(G[i, i] for i in range(d)))
    return ball.least_eigenvalue(ball.matrix(G))


def lem9_1_p5_repair(inst, _hints):
    """lem9.1.p5's repair H + H_reg ⪰ d(w_min − C_0)σ_min(A1)²σ_min(A2)²·I, w = C_0(1 + s), for the paper's H =
    Σ𝖠ᵀB_paper𝖠 and the true H_xx (Taylor series in balls).  Both differences are computed in balls; where
    every entry comes out exact (all-zero data, the worst example: then H, H_xx, H_reg and the bound are 0)
    the exact LDLᵀ decides, else λ_min in balls."""
    A1, A2, A3, B, x, y = _data(inst)
    n, d = A1.nrows(), A1.ncols()
    s = [inst["s"][k, 0] for k in range(n)]
    C0 = 30 * _least_radius(A1, A2, A3, B, x, y) ** 8
    w = [C0 * (1 + arb(v)) for v in s]
    bound = C0 * arb(min(s)) * d * _least_gram_eigenvalue(A1) * _least_gram_eigenvalue(A2)  # w_min − C_0 = C_0·min s
    k = d * d
    paper = arb_mat(k, k)
    for j0 in range(n):
        Kb = ball.matrix(L.kron_block(A1, A2, j0))
        for i0 in range(d):
            paper += Kb.transpose() * L.B_x_paper(*_fvc(A1, A2, A3, B, x, y, j0, i0)) * Kb
    true = L.hessian(lambda z: L.L_half(A1, A2, A3, B, z, y), x)
    A1b, A2b = ball.matrix(A1), ball.matrix(A2)
    reg = ball.kron(A1b.transpose() * A1b, A2b.transpose() * ball.diag(w) * A2b) * d
    shift = ball.diag([bound] * k)
    premises = [Fact("n ≥ d and s ≥ 0 (w = C_0(1 + s), w_min ≥ C_0)", "exact integers and signs",
                     n >= d and all(v >= 0 for v in s))]
    evidence = [_psd(H + reg - shift, f"{name} + H_reg − d(w_min − C_0)σ_min(A1)²σ_min(A2)²I")
                for name, H in (("H_paper", paper), ("H_xx", true))]
    main = min(evidence, key=lambda e: e.measured.mid())
    other = next(e for e in evidence if e is not main)
    main.premises = [*premises, *main.premises, other, *other.premises]
    return main


# -- Lemma 12.10 -------------------------------------------------------------------------------------------

def _root(q: fmpq | None, power: int) -> fmpq | None:
    """q^(1/power) (power 2 or 4) when it is a rational, else None."""
    for _ in range(power // 2):
        try:
            q = None if q is None else q.sqrt()
        except DomainError:  # not a square
            return None
    return q


def _rank1_norm2(M: fmpq_mat) -> fmpq | None:
    """‖M‖₂² = ‖M‖_F² when rank M ≤ 1, else None (irrational in general)."""
    return ball.frobenius_squared(M) if M.rank() <= 1 else None


def _exact_radius(A1, A2, A3, B, x, y) -> tuple[fmpq, list] | None:
    """The least H12 radius R as a rational, with the premises that it is: each H12 quantity q
    (``certificates_loss.h12_quantities``) has a rational power q^p (p = 2; p = 4 for √max‖h‖₂) where its matrix
    has rank ≤ 1, R is the largest q that is itself rational, every rational q^p is ≤ R^p exactly and every
    other q (a spectral norm of rank ≥ 2) ≤ R in balls.  None when no quantity is rational."""
    n, d = A1.nrows(), A1.ncols()
    rows = max(sum((A1[j, a] ** 2 for a in range(d)), fmpq(0)) for j in range(n))
    nA2 = _rank1_norm2(A2)
    powers = [(2, fmpq(16)), (2, _rank1_norm2(A1)), (2, nA2), (2, _rank1_norm2(A3)),
              (2, None if nA2 is None else rows * nA2), (2, sum((t * t for t in x), fmpq(0))),
              (2, max(B[i, j] ** 2 for i in range(B.nrows()) for j in range(B.ncols()))),
              (4, max(sum((t * t for t in L.h_col(A3, y, i0)), fmpq(0)) for i0 in range(d))),
              (2, max(sum((t * t for t in y[i0 * d:(i0 + 1) * d]), fmpq(0)) for i0 in range(d)))]
    roots = [_root(q, p) for p, q in powers]
    R = max((r for r in roots if r is not None), default=None)
    if R is None:
        return None
    premises = []
    for (name, q), (p, qp) in zip(L.h12_quantities(A1, A2, A3, B, x, y), powers):
        if qp is None:
            premises.append(Evidence("≤", q, arb(R), what=f"H12: {name} ≤ R = {R} (balls)"))
        else:
            premises.append(Fact(f"H12: ({name})^{p} ≤ R^{p}, R = {R}", "exact rationals", qp <= R ** p))
    return R, premises


def lem12_10_repair(inst, _hints):
    """lem12.10's repair max_i ‖G_i‖₂ ≤ R² + R at the least H12 radius R.  Exact when f is (the logits 𝖠_{j0}x
    all equal, so f = 1/n: n = 1 at the worst example) and R is a rational attained by an H12 quantity:
    ‖(f∘h)fᵀ‖² = ‖f∘h‖²‖f‖², ‖⟨f,h⟩ffᵀ‖² = ⟨f,h⟩²‖f‖⁴, ‖c·diag f‖² = c²max f², ‖c·ffᵀ‖² = c²‖f‖⁴ are rationals,
    judged against (R² + R)² (both sides ≥ 0); otherwise the norms and R are enclosed in balls."""
    A1, A2, A3, B, x, y = _data(inst)
    j0, i0 = inst["j0"], inst["i0"]
    K = L.kron_block(A1, A2, j0)
    logits = [sum((K[r, k] * x[k] for k in range(K.ncols())), fmpq(0)) for r in range(K.nrows())]
    radius = _exact_radius(A1, A2, A3, B, x, y)
    if all(t == logits[0] for t in logits) and radius is not None:
        n = len(logits)
        f = [fmpq(1, n)] * n
        h = L.h_col(A3, y, i0)
        fh = sum((a * b for a, b in zip(f, h)), fmpq(0))
        c = fh - B[j0, i0]
        ff = sum((a * a for a in f), fmpq(0))
        squares = [sum(((a * b) ** 2 for a, b in zip(f, h)), fmpq(0)) * ff, fh ** 2 * ff ** 2,
                   c ** 2 * max(a * a for a in f), c ** 2 * ff ** 2]
        R, premises = radius
        premises.insert(0, Fact("𝖠_{j0}x has equal entries, so f = softmax(𝖠_{j0}x) = 1/n", "exact rationals", True))
        return _gap((R * R + R) ** 2 - max(squares), "(R² + R)² − max_i ‖G_i‖₂² (both sides ≥ 0)", premises)
    R = _least_radius(A1, A2, A3, B, x, y)
    norms = [ball.spectral_norm(G) for G in L.G_xy_four(*_fvc(A1, A2, A3, B, x, y, j0, i0))]
    return Evidence("≤", ball.norm_inf(arb_mat([[g] for g in norms])), R * R + R,
                    what="max_i ‖G_i‖₂ against R² + R at the least H12 radius (balls)")
