"""Certificates of paper 003's falsified claims and of their repairs' worst examples: each
evaluator takes the statement's objects exactly (``fmpq``/``fmpq_mat``, ints for indices) and returns the
:class:`~properties.evidence.Evidence` that the claim fails there (or that its repair holds: strictly, or
with equality proven in exact rationals where the worst example attains the bound, :mod:`.certificates_tight`).

Loewner statements X ⪯ Y are refuted by a witness z with zᵀXz > zᵀYz (found numerically from the
midpoints, rounded to float64, recorded as "p/q" in the hints' ``witness`` and then exact; named z,
not after a symbol of the statements); Hessians of the loss are
enclosed by Taylor series (:mod:`.certificates_loss`), never by a closed form.  Where a statement
bounds by the H8/H12 radius R, R is the upper end R̄ of the enclosure of the smallest admissible radius
(a dyadic, so every hypothesis "quantity ≤ R̄" is proven in balls) — a bound increasing in R is then
refuted for an admissible R.  Lemmas 7.4 and 11.4 read with Def 1.2's loss c², without the ½
(reading "no ½"), are refuted by the same witnesses on twice the Hessians of ½c².
"""

from __future__ import annotations

import numpy as np
from flint import arb, arb_mat, fmpq, fmpq_mat

from oracle import ball

from ..evidence import Certifiers, Evidence, Fact
from . import certificates_loss as L
from . import certificates_tight as tight

__all__ = ["CERTIFIERS"]

CERTIFIERS = Certifiers("attention_optimization")


# -- witnesses -------------------------------------------------------------------------------------

def _floats(M: arb_mat) -> np.ndarray:
    return np.array([[float(M[i, j].mid()) for j in range(M.ncols())] for i in range(M.nrows())])


def _witness(hints, key: str, find) -> tuple[fmpq_mat, dict]:
    """The witness column recorded in ``hints[key]`` (re-checking), else ``find()`` (a float vector found
    numerically) rounded to float64 and taken exactly; with the hints to record."""
    if hints:
        values = [ball.from_fraction(t) for t in hints[key]]
    else:
        values = [ball.exact(float(x)) for x in find()]
    return ball.rational_vector(values), {key: [str(ball.to_fraction(q)) for q in values]}


def _lowest_eigenvector(S: arb_mat) -> np.ndarray:
    """The eigenvector of the least eigenvalue of the midpoint of a symmetric ball matrix (a witness
    candidate for ``S ⪰ 0`` being false)."""
    M = _floats(S)
    _, vecs = np.linalg.eigh((M + M.T) / 2)
    v = vecs[:, 0]
    return v / np.abs(v).max()


def _loewner_at(X: arb_mat, Y: arb_mat, hints, what: str, premises=()) -> Evidence:
    """``X ⪯ Y`` judged at a witness z: Evidence that zᵀXz ≤ zᵀYz (violated: z proves X ⪯ Y false)."""
    z, rec = _witness(hints, "witness", lambda: _lowest_eigenvector(Y - X))
    return Evidence("≤", ball.quadratic_form(z, X), ball.quadratic_form(z, Y), what=f"zᵀ({what})z at the witness z",
                    premises=list(premises), hints=rec)


# -- Facts 4.3, 4.4 -----------------------------------------------------------------------------------

@CERTIFIERS.violation("attention_optimization.fact4.3.loewner_norm",
                      method="exact LDLᵀ of αY − X for the premise; ball eigenvalues for the norms")
def _fact4_3(inst, hints):
    X, Y, a = inst["X"], inst["Y"], inst["α"]
    premises = [Fact("α > 0", "exact rational comparison", a > 0),
                Fact("X ⪯ αY (αY − X positive semidefinite)", "exact rational LDLᵀ",
                     ball.positive_semidefinite_exact(Y * a - X))]
    return Evidence("≤", ball.spectral_norm(X), ball.spectral_norm(Y) * arb(a), what="‖X‖₂ against α‖Y‖₂",
                    premises=premises)


@CERTIFIERS.violation("attention_optimization.fact4.4.p6", method="witness vector, exact quadratic forms")
def _fact4_4_p6(inst, hints):
    u, v = inst["u"], inst["v"]
    vu = fmpq_mat([[v[i, 0] * u[i, 0]] for i in range(u.nrows())])
    top = max(abs(v[i, 0]) for i in range(v.nrows()))
    X, Y = ball.matrix(vu * vu.transpose()), ball.matrix(u * u.transpose() * (top * top))
    return _loewner_at(X, Y, hints, "(v∘u)(v∘u)ᵀ) against zᵀ(‖v‖_∞²uuᵀ")


# -- Lemmas 7.4, 11.4: the paper's kernels against the true Hessians --------------------------------

def _attention(inst):
    A1, A2, A3, B = inst["A1"], inst["A2"], inst["A3"], inst["B"]
    return A1, A2, A3, B, L.vec_row(inst["X"]), L.vec_cols(inst["Y"]), inst["j0"], inst["i0"]


def _fvc(A1, A2, A3, B, x, y, j0, i0):
    return (ball.matrix(L.f_row(A1, A2, x, j0)), ball.matrix(L.h_col(A3, y, i0)), L.c_entry(A1, A2, A3, B, x, y, j0, i0))


def _x_hessian_witness(inst, hints, kernel, scale: int = 1):
    """u with uᵀ∇²_x(scale·L_{j0,i0})u (Taylor series) against uᵀ𝖠ᵀ kernel 𝖠 u, u from the largest discrepancy
    (``scale`` 2: the loss c² of Def 1.2, without the ½ of L_{j0,i0} = ½c²)."""
    A1, A2, A3, B, x, y, j0, i0 = _attention(inst)
    K = ball.matrix(L.kron_block(A1, A2, j0))
    paper = K.transpose() * kernel(*_fvc(A1, A2, A3, B, x, y, j0, i0)) * K
    loss = lambda z: L.L_entry(A1, A2, A3, B, z, y, j0, i0)  # noqa: E731

    def find():
        D = _floats(L.hessian(loss, x) * scale - paper)
        w, vecs = np.linalg.eigh((D + D.T) / 2)
        v = vecs[:, int(np.argmax(np.abs(w)))]
        return v / np.abs(v).max()

    u, rec = _witness(hints, "u", find)
    return (L.second_derivative(loss, x, [u[k, 0] for k in range(u.nrows())]) * scale, ball.quadratic_form(u, paper),
            rec)


@CERTIFIERS.violation("attention_optimization.lem7.4",
                      method="witness direction u; uᵀ∇²L u by Taylor series in balls, no closed form")
def _lem7_4(inst, hints):
    true, paper, rec = _x_hessian_witness(inst, hints, L.B_x_paper)
    return Evidence("=", true, paper, what="uᵀ∇²_x L_{j0,i0}u (Taylor series) against uᵀ𝖠_{j0}ᵀB_paper𝖠_{j0}u",
                    hints=rec)


@CERTIFIERS.violation("attention_optimization.lem7.4", reading="no ½",
                      method="witness direction u; uᵀ∇²(c²)u = 2uᵀ∇²L u by Taylor series in balls, no closed form")
def _lem7_4_no_half(inst, hints):
    true, paper, rec = _x_hessian_witness(inst, hints, L.B_x_paper, scale=2)
    return Evidence("=", true, paper, what="uᵀ∇²_x(c²_{j0,i0})u (Def 1.2, no ½; Taylor series) against "
                                           "uᵀ𝖠_{j0}ᵀB_paper𝖠_{j0}u", hints=rec)


def _mixed_witness(inst, hints, kernel, scale: int = 1):
    """p, q with pᵀH_{x,y_{i0}}q (H = ∂²(scale·L_half)/∂x∂y_{i0}ᵀ by Taylor series) against pᵀΣ_{j0}𝖠ᵀ kernel A3 q
    (``scale`` 2: the loss L = Σc² of Def 1.2, without the ½ of L_half)."""
    A1, A2, A3, B, x, y, _, i0 = _attention(inst)
    n, d = A1.nrows(), A1.ncols()
    paper = arb_mat(d * d, d)
    for j0 in range(n):
        K = ball.matrix(L.kron_block(A1, A2, j0))
        paper += K.transpose() * kernel(*_fvc(A1, A2, A3, B, x, y, j0, i0)) * ball.matrix(A3)
    loss = lambda xs, ys: L.L_half(A1, A2, A3, B, xs, ys)  # noqa: E731
    block = slice(i0 * d, (i0 + 1) * d)

    def find():
        H = scale * _floats(L.cross_hessian(loss, x, y))[:, block]
        U, _, Vt = np.linalg.svd(H - _floats(paper))
        return np.concatenate([U[:, 0] / np.abs(U[:, 0]).max(), Vt[0] / np.abs(Vt[0]).max()])

    pq, rec = _witness(hints, "(p, q)", find)
    p = [pq[k, 0] for k in range(d * d)]
    q_block = [pq[d * d + k, 0] for k in range(d)]
    q = [fmpq(0)] * (i0 * d) + q_block + [fmpq(0)] * ((d - i0 - 1) * d)
    true = L.cross_hessian(loss, x, y, p, q) * scale
    return true, ball.quadratic_form(pq, _bilinear(paper, d * d)), rec


def _bilinear(M: arb_mat, k: int) -> arb_mat:
    """The symmetric matrix S of size k + m with (p, q)ᵀS(p, q) = pᵀMq (M is k×m)."""
    m = M.ncols()
    S = arb_mat(k + m, k + m)
    for a in range(k):
        for b in range(m):
            S[a, k + b] = S[k + b, a] = M[a, b] / 2
    return S


@CERTIFIERS.violation("attention_optimization.lem11.4",
                      method="witness pair (p, q); pᵀH_xy q by Taylor series in balls (polarisation), no closed form")
def _lem11_4(inst, hints):
    true, paper, rec = _mixed_witness(inst, hints, L.B_xy_paper)
    return Evidence("=", true, paper, what="pᵀH_{x,y_{i0}}q (Taylor series) against pᵀΣ_{j0}𝖠_{j0}ᵀB_xy,paper A3 q",
                    hints=rec)


@CERTIFIERS.violation("attention_optimization.lem11.4", reading="no ½",
                      method="witness pair (p, q); pᵀ(∂²L/∂x∂y_{i0}ᵀ)q of L = Σc² (twice L_half's) by Taylor series "
                             "in balls (polarisation), no closed form")
def _lem11_4_no_half(inst, hints):
    true, paper, rec = _mixed_witness(inst, hints, L.B_xy_paper, scale=2)
    return Evidence("=", true, paper, what="pᵀ(∂²L/∂x∂y_{i0}ᵀ)q (L = Σc², Def 1.2, no ½; Taylor series) against "
                                           "pᵀΣ_{j0}𝖠_{j0}ᵀB_xy,paper A3 q", hints=rec)


# -- H12 radius -----------------------------------------------------------------------------------------

def _radius(A1, A2, A3, B, x, y) -> tuple[arb, list]:
    """R̄, the upper end of the enclosure of max(4, the H12 quantities), and the premises "quantity ≤ R̄"."""
    quantities = L.h12_quantities(A1, A2, A3, B, x, y)
    top = ball.norm_inf(arb_mat([[q] for _, q in quantities]))
    R = top.upper()
    return R, [Evidence("≤", q, R, what=f"H12: {name} ≤ R") for name, q in quantities]


def _h_xy(A1, A2, A3, B, x, y) -> arb_mat:
    return L.cross_hessian(lambda xs, ys: L.L_half(A1, A2, A3, B, xs, ys), x, y)


def _lem12_8(inst, hints):
    A1, A2, A3, B, x, y, _, _ = _attention(inst)
    R, premises = _radius(A1, A2, A3, B, x, y)
    n, d = A1.nrows(), A1.ncols()
    return Evidence("≤", ball.spectral_norm(_h_xy(A1, A2, A3, B, x, y)), R * R * (10 * n * d),
                    what="‖H_xy‖₂ (Taylor series) against nd·10R²", premises=premises)


CERTIFIERS.violation("attention_optimization.lem12.8",
                     method="H_xy by Taylor series in balls, ball eigenvalues; R̄ the upper end of the H12 radius")(
    _lem12_8)
CERTIFIERS.violation("attention_optimization.sec3.psd_chain",
                     method="the chain's link ‖H_xy‖ ≤ nd·10R² refuted as lem12.8 (Taylor series, ball eigenvalues)")(
    _lem12_8)


@CERTIFIERS.violation("attention_optimization.lem12.10", method="ball evaluation of f, h, c; ball eigenvalues")
def _lem12_10(inst, hints):
    A1, A2, A3, B, x, y, j0, i0 = _attention(inst)
    R, premises = _radius(A1, A2, A3, B, x, y)
    norms = [ball.spectral_norm(G) for G in L.G_xy_four(*_fvc(A1, A2, A3, B, x, y, j0, i0))]
    return Evidence("≤", ball.norm_inf(arb_mat([[g] for g in norms])), R * R,
                    what="max_i ‖G_i‖₂ against R²", premises=premises)


@CERTIFIERS.repair("attention_optimization.lem12.8",
                   method="H_xy by Taylor series in balls, ball eigenvalues; R the enclosure of the least H12 radius")
def _lem12_8_repair(inst, hints):
    A1, A2, A3, B, x, y, _, _ = _attention(inst)
    quantities = L.h12_quantities(A1, A2, A3, B, x, y)
    R = ball.norm_inf(arb_mat([[q] for _, q in quantities]))  # the least admissible R: the bound is tightest there
    n, d = A1.nrows(), A1.ncols()
    return Evidence("≤", ball.spectral_norm(_h_xy(A1, A2, A3, B, x, y)), n * arb(d).sqrt() * R * R * (2 * R * R + R) / 2,
                    what="‖H_xy‖₂ (Taylor series) against n√d·R²(2R² + R)/2 at the least admissible R")


# -- Lemma 9.1 Parts 3 and 5 --------------------------------------------------------------------------

def _regularised(inst):
    A1, A2, A3, B, x, y, j0, i0 = _attention(inst)
    R, premises = _radius(A1, A2, A3, B, x, y)
    s = [inst["s"][k, 0] for k in range(A1.nrows())]
    premises.append(Fact("s ≥ 0, so w_k = (l/σ_+² + C_0)(1 + s_k) meets min w ≥ l/σ_+² + C_0", "exact rational sign",
                         all(v >= 0 for v in s)))
    return (A1, A2, A3, B, x, y, j0, i0), R, s, premises


@CERTIFIERS.violation("attention_optimization.lem9.1.p3",
                      method="witness vector; W with σ_+ from ball eigenvalues and the exact rank; R̄ the H12 radius")
def _lem9_1_p3(inst, hints):
    (A1, A2, A3, B, x, y, j0, i0), R, s, premises = _regularised(inst)
    l = arb(inst["l"])
    K = L.kron_block(A1, A2, j0)
    premises.append(Fact("𝖠_{j0} ≠ 0 (σ_+ exists)", "exact rank", K.rank() > 0))
    base = l / L.sigma_plus_squared(K) + 30 * R ** 8
    W = ball.diag([base * (1 + v) for v in s])
    Kb = ball.matrix(K)
    H = Kb.transpose() * (L.B_x_paper(*_fvc(A1, A2, A3, B, x, y, j0, i0)) + W) * Kb
    k = Kb.ncols()
    return _loewner_at(ball.diag([l] * k), H, hints, "l·I) against zᵀ(𝖠ᵀ(B_paper + W)𝖠", premises)


@CERTIFIERS.violation("attention_optimization.lem9.1.p5",
                      method="witness vector; W with σ_+ from ball eigenvalues and the exact rank; R̄ the H12 radius")
def _lem9_1_p5(inst, hints):
    (A1, A2, A3, B, x, y, _, _), R, s, premises = _regularised(inst)
    l = arb(inst["l"])
    n, d = A1.nrows(), A1.ncols()
    blocks = [L.kron_block(A1, A2, j0) for j0 in range(n)]
    premises.append(Fact("some 𝖠_{j0} ≠ 0 (σ_+ exists)", "exact rank", any(K.rank() > 0 for K in blocks)))
    sigma2 = min((L.sigma_plus_squared(K) for K in blocks if K.rank() > 0), key=lambda b: b.mid())
    base = l / (n * d * sigma2) + 30 * R ** 8
    w = [base * (1 + v) for v in s]
    H = arb_mat(d * d, d * d)
    for j0, K in enumerate(blocks):
        Kb = ball.matrix(K)
        for i0 in range(d):
            H += Kb.transpose() * L.B_x_paper(*_fvc(A1, A2, A3, B, x, y, j0, i0)) * Kb
    A1b, A2b = ball.matrix(A1), ball.matrix(A2)
    H += ball.kron(A1b.transpose() * A1b, A2b.transpose() * ball.diag(w) * A2b) * d
    return _loewner_at(ball.diag([l] * (d * d)), H, hints, "l·I) against zᵀ(H + H_reg", premises)


# -- Section 14 on quadratics ---------------------------------------------------------------------------

def _newton_step(inst):
    """H = diag(10^t), H̃ = H^{1/2}(I + ε0Ê)H^{1/2} with Ê = E_s/‖E_s‖₂ (E_s = (E + Eᵀ)/2; Ê = E_s when
    E_s = 0), z_{t+1} = z_t − H̃⁻¹Hz_t; and the premise that H̃ is ε̄-approximate, ε̄ the upper end of the
    enclosure of ε0‖Ê‖₂ (= ε0 exactly unless E_s = 0)."""
    t, E, eps0, z = inst["t"], inst["E"], arb(inst["ε0"]), ball.matrix(inst["z_t"])
    k = t.nrows()
    h = [arb(10) ** arb(t[i, 0]) for i in range(k)]
    Es = (E + E.transpose()) * fmpq(1, 2)
    nE = ball.spectral_norm(Es) if any(Es[i, j] != 0 for i in range(k) for j in range(k)) else arb(1)
    Ehat = ball.matrix(Es) * (1 / nE)
    root = ball.diag([v.sqrt() for v in h])
    H = ball.diag(h)
    Ht = root * (ball.diag([arb(1)] * k) + Ehat * eps0) * root
    z1 = z - Ht.solve(H * z)
    eps_bar = (eps0 * ball.spectral_norm(Ehat)).upper()
    premises = [Evidence("≤", eps0 * ball.spectral_norm(Ehat), eps_bar,
                         what="H̃ is ε̄-approximate: ‖H^{−1/2}H̃H^{−1/2} − I‖₂ = ε0‖Ê‖₂ ≤ ε̄"),
                Evidence(">", min(h, key=lambda b: b.mid()), arb(0), what="l = λ_min(H) > 0, M = 0 (L_tot quadratic)")]
    return H, z, z1, eps_bar, premises


def _h_norm(H: arb_mat, v: arb_mat) -> arb:
    return ball.quadratic_form(v, H).sqrt()


@CERTIFIERS.violation("attention_optimization.lem14.shrink",
                      method="the Newton step repeated in balls (arb_mat.solve); ε̄ ≥ ε0 the proven approximation factor")
def _lem14_shrink(inst, hints):
    _, z, z1, eps_bar, premises = _newton_step(inst)
    return Evidence("≤", ball.norm2(z1), 2 * eps_bar * ball.norm2(z), what="r_{t+1} against 2ε̄·r_t (M = 0)",
                    premises=premises)


@CERTIFIERS.violation("attention_optimization.lem14.induction",
                      method="the Newton step repeated in balls (arb_mat.solve); ε̄ ≥ ε0 the proven approximation factor")
def _lem14_induction(inst, hints):
    _, z, z1, eps_bar, premises = _newton_step(inst)
    premises.append(Evidence("≤", eps_bar, arb(fmpq(1, 10)), what="ε̄ ≤ 0.1 (the Newton framework's ε0)"))
    return Evidence("≤", ball.norm2(z1), ball.norm2(z) * fmpq(2, 5), what="r_1 against 0.4·r_0 (t = 0, M = 0)",
                    premises=premises)


@CERTIFIERS.repair("attention_optimization.lem14.shrink",
                   method="the Newton step repeated in balls (arb_mat.solve); the H-norm by ball quadratic forms")
def _lem14_shrink_repair(inst, hints):
    H, z, z1, _, _ = _newton_step(inst)
    eps0 = arb(inst["ε0"])
    return Evidence("≤", _h_norm(H, z1), eps0 / (1 - eps0) * _h_norm(H, z),
                    what="‖z_{t+1}‖_H against ε0/(1 − ε0)·‖z_t‖_H")


@CERTIFIERS.repair("attention_optimization.lem14.induction",
                   method="the Newton step repeated in balls (arb_mat.solve); the H-norm by ball quadratic forms")
def _lem14_induction_repair(inst, hints):
    H, z, z1, _, _ = _newton_step(inst)
    return Evidence("≤", _h_norm(H, z1), _h_norm(H, z) * fmpq(2, 5), what="‖z_{t+1}‖_H against 0.4·‖z_t‖_H")


# -- the repairs of Lemmas 7.4 and 11.4 (identities) and of the Section 3 chain --------------------------

_AGREEMENT = fmpq(1, 10 ** 30)
"""An identity between transcendental numbers cannot be proven equal by balls; its repair's certificate proves
the two sides agree to 10⁻³⁰ relative to the Hessian's size (an enclosure of the difference inside that)."""


@CERTIFIERS.repair("attention_optimization.lem7.4",
                   method="∇²_x L_{j0,i0} by Taylor series in balls (polarisation) against 𝖠ᵀB_true𝖠: agreement to 1e-30")
def _lem7_4_repair(inst, hints):
    A1, A2, A3, B, x, y, j0, i0 = _attention(inst)
    K = ball.matrix(L.kron_block(A1, A2, j0))
    true = L.hessian(lambda z: L.L_entry(A1, A2, A3, B, z, y, j0, i0), x)
    kernel = K.transpose() * L.B_x_true(*_fvc(A1, A2, A3, B, x, y, j0, i0)) * K
    return Evidence("≤", ball.frobenius(true - kernel), (1 + ball.frobenius(true)) * arb(_AGREEMENT),
                    what="‖∇²_x L_{j0,i0} − 𝖠ᵀB_true𝖠‖_F against 10⁻³⁰(1 + ‖∇²_x L_{j0,i0}‖_F) (equality to 30 digits)")


@CERTIFIERS.repair("attention_optimization.lem11.4",
                   method="H_{x,y_{i0}} by Taylor series in balls (polarisation) against Σ𝖠ᵀB_xy,true A3: agreement to 1e-30")
def _lem11_4_repair(inst, hints):
    A1, A2, A3, B, x, y, _, i0 = _attention(inst)
    n, d = A1.nrows(), A1.ncols()
    H = _h_xy(A1, A2, A3, B, x, y)
    true = arb_mat([[H[a, i0 * d + b] for b in range(d)] for a in range(d * d)])
    kernel = arb_mat(d * d, d)
    for j0 in range(n):
        K = ball.matrix(L.kron_block(A1, A2, j0))
        kernel += K.transpose() * L.B_xy_true(*_fvc(A1, A2, A3, B, x, y, j0, i0)) * ball.matrix(A3)
    return Evidence("≤", ball.frobenius(true - kernel), (1 + ball.frobenius(true)) * arb(_AGREEMENT),
                    what="‖H_{x,y_{i0}} − Σ𝖠ᵀB_xy,true A3‖_F against 10⁻³⁰(1 + ‖H_{x,y_{i0}}‖_F) (equality to 30 digits)")


def _sigma_min(A: fmpq_mat) -> arb:
    """σ_min(A) of an n×d A with n ≥ d: √λ_min(AᵀA)."""
    return ball.least_eigenvalue(ball.matrix(A.transpose() * A)).sqrt()


@CERTIFIERS.repair("attention_optimization.sec3.psd_chain",
                   method="∇²L_half by Taylor series in balls (polarisation) plus the stated H_reg; ball eigenvalues")
def _psd_chain_repair(inst, hints):
    (A1, A2, A3, B, x, y, _, _), _, s, _ = _regularised(inst)
    n, d = A1.nrows(), A1.ncols()
    k = d * d
    R = ball.norm_inf(arb_mat([[q] for _, q in L.h12_quantities(A1, A2, A3, B, x, y)]))
    s1, s2, s3 = _sigma_min(A1), _sigma_min(A2), _sigma_min(A3)
    a3 = n * arb(d).sqrt() * R * R * (2 * R * R + R) / 2
    candidates = [30 * R ** 8 + a3 / (d * s1 ** 2 * s2 ** 2), a3.sqrt() / s3]
    wmin = ball.norm_inf(arb_mat([[c] for c in candidates]))
    w = [wmin * (1 + v) for v in s]
    H = L.hessian(lambda z: L.L_half(A1, A2, A3, B, z[:k], z[k:]), x + y)
    A1b, A2b, A3b = ball.matrix(A1), ball.matrix(A2), ball.matrix(A3)
    Hx = ball.kron(A1b.transpose() * A1b, A2b.transpose() * ball.diag(w) * A2b) * d
    Hy = ball.kron(ball.diag([arb(1)] * d), A3b.transpose() * ball.diag([v * v for v in w]) * A3b)
    for a in range(k):
        for b in range(k):
            H[a, b] += Hx[a, b]
            H[k + a, k + b] += Hy[a, b]
    return Evidence("≥", ball.least_eigenvalue(H), arb(0), what="λ_min(H_tot + H_reg) against 0")


# -- repairs whose worst example attains the bound (ledger ratio 1): exact rationals, certificates_tight -------

_TIGHT = "exact rationals at the tight worst example (Evidence on exact points: {how}); balls elsewhere"
CERTIFIERS.repair("attention_optimization.fact4.3.loewner_norm", method=_TIGHT.format(
    how="α‖Y‖ − ‖X‖ = 0 with rank S, rank G ≤ 1, so every norm a trace"))(tight.fact4_3_repair)
CERTIFIERS.repair("attention_optimization.fact4.4.p6", method=_TIGHT.format(
    how="exact LDLᵀ, smallest pivot"))(tight.fact4_4_p6_repair)
CERTIFIERS.repair("attention_optimization.lem9.1.p3", method=_TIGHT.format(
    how="exact LDLᵀ of (l/σ_+²)𝖠ᵀ𝖠 − l·Π for rank-1 𝖠, σ_+² = ‖𝖠‖_F²; B + W − (l/σ_+²)I ⪰ 0 in balls"))(
    tight.lem9_1_p3_repair)
CERTIFIERS.repair("attention_optimization.lem9.1.p5", method=_TIGHT.format(
    how="exact LDLᵀ where H + H_reg − bound·I comes out exact in balls (Taylor series for H_xx)"))(
    tight.lem9_1_p5_repair)
CERTIFIERS.repair("attention_optimization.lem12.10", method=_TIGHT.format(
    how="(R² + R)² − max‖G_i‖² = 0 with f = 1/n at equal logits and R a rational H12 quantity"))(
    tight.lem12_10_repair)
