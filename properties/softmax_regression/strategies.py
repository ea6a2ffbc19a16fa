"""Instance strategies of paper 001 (softmax regression; spec/softmax_regression.md).

Cheap float64 draws only; everything derived (the simplex point f = p/Σp, w with w_i² ≥ 4 + l/σ_min²,
x*, an admissible H̃) is formed by the checks in mpmath, so the hypotheses hold exactly.  b always
satisfies b ≥ 0 and ‖b‖₁ ≤ 1 exactly in float64 (including b = 0, vertices and ‖b‖₁ = 1).  Small-integer
draws (:func:`ints`) shrink in a few steps where the oracle check is expensive.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from oracle.ball import exact, rational_matrix

from ..toolkit.strategies import conditioned_matrices, dims, matrices, scalars, scaled_arrays, vectors

__all__ = [
    "ON_SIMPLEX",
    "b_vectors",
    "close_pairs",
    "derivative_problems",
    "exact_le_one",
    "f_instances",
    "fb_pairs",
    "ill_matrices",
    "int_b",
    "ints",
    "lipschitz_instances",
    "loewner_pair_objects",
    "loewner_pairs",
    "newton_instances",
    "nonneg",
    "problem_corners",
    "problems",
    "simplex_objects",
    "simplex_pair_objects",
    "simplex_pairs",
    "solve_instances",
    "strongly_convex",
    "vector_pairs",
    "vector_triples",
]


def vector_triples():
    """u, v, w ∈ Rⁿ of one length n ≤ 8, entries up to 10 in magnitude (spec: scales 0.01–10)."""
    return dims(1, 8).flatmap(lambda n: st.tuples(vectors(st.just(n)), vectors(st.just(n)), vectors(st.just(n))))


def vector_pairs(max_abs=10.0):
    return dims(1, 8).flatmap(lambda n: st.tuples(vectors(st.just(n), max_abs=max_abs), vectors(st.just(n), max_abs=max_abs)))


def close_pairs():
    """u, v with ‖u − v‖_∞ ≤ 0.01 exactly (v = u + t, |t_i| ≤ 0.01; an entry whose difference rounded
    above 0.01 is reset to u_i, so the hypothesis survives rounding)."""

    def fix(pair):
        u, t = pair
        v = u + t
        bad = np.abs(v - u) > 0.01
        v[bad] = u[bad]
        return u, v

    return dims(1, 8).flatmap(lambda n: st.tuples(vectors(st.just(n), max_abs=10.0), vectors(st.just(n), max_abs=0.01))).map(fix)


def ints(shape, lo=-3, hi=3):
    """Small-integer float64 arrays: searches over them reach the same structures as float draws
    but shrink in a few steps (for expensive oracle checks)."""
    return hnp.arrays(np.float64, shape, elements=st.integers(lo, hi).map(float))


def exact_le_one(p):
    """Scale a nonnegative float64 vector so that its exact sum is ≤ 1 (rounding never breaks it)."""
    p = np.array(p, dtype=np.float64)
    while sum(Fraction(float(v)) for v in p) > 1:
        p = p * (1 - 2.0**-52)
    return p


def nonneg(n, *, zeros=True):
    """Nonnegative float64 vectors of length n, some entries exactly 0 (simplex faces)."""
    el = st.one_of(st.just(0.0), scalars(0.0, 1.0), scalars(1e-8, 1e-3)) if zeros else scalars(1e-3, 1.0)
    return hnp.arrays(np.float64, (n,), elements=el)


def b_vectors(n):
    """b ≥ 0, ‖b‖₁ ≤ 1 exactly in float64: t·p/Σp, including b = 0, vertices and the boundary t = 1."""

    def build(pt):
        p, t = pt
        if p.sum() == 0:
            return np.zeros_like(p) if t < 0.5 else np.eye(1, p.size, 0)[0]
        return exact_le_one(t * p / p.sum())

    return st.tuples(nonneg(n), st.one_of(st.just(1.0), st.just(0.0), scalars(0.0, 1.0))).map(build)


@st.composite
def int_b(draw, n):
    """b = t·p/Σp (exactly ‖b‖₁ ≤ 1 in float64) from small-integer weights p ≥ 0, t ∈ {1, ½, 0}."""
    p = draw(ints((n,), 0, 3), label="b weights")
    t = draw(st.sampled_from([1.0, 0.5, 0.0]), label="‖b‖₁")
    if p.sum() == 0:
        return np.zeros(n)
    return exact_le_one(t * p / p.sum())


def fb_pairs(n_lo=1, n_hi=7):
    """(p, b) for claims over the simplex: f = p/Σp (vertices, faces, interior; see
    :func:`~properties.softmax_regression.common.on_simplex`), b as in :func:`b_vectors`."""
    return dims(n_lo, n_hi).flatmap(lambda n: st.tuples(nonneg(n), b_vectors(n)))


@st.composite
def problems(draw, *, n_lo=1, n_hi=6, d_hi=4, a_hi=0.5, x_hi=0.5):
    """(A, b, w, x): A n×d, b ≥ 0 with ‖b‖₁ ≤ 1, w and x arbitrary (derivative identities)."""
    n = draw(dims(n_lo, n_hi), label="n")
    d = draw(dims(1, d_hi), label="d")
    A = draw(scaled_arrays((n, d), min_exponent=-1.5, max_exponent=a_hi), label="A")
    b = draw(b_vectors(n), label="b")
    w = draw(vectors(st.just(n), max_abs=20.0), label="w")
    x = draw(scaled_arrays((d,), min_exponent=-1.5, max_exponent=x_hi), label="x")
    return A, b, w, x


def problem_corners():
    """(A, b, w, x) at float64's corners of the softmax: ‖Ax‖∞ from 10^2.5 to 10^3.5 (past 709, where
    exp overflows without the max-shift, and past 745, where exp(−u) underflows to 0), ties in Ax (A of
    small integers, equal rows), exact zeros, n = 1 and d = 1."""

    @st.composite
    def build(draw):
        n = draw(dims(1, 4), label="n")
        d = draw(dims(1, 2), label="d")
        A = draw(ints((n, d), -1, 2), label="A (small integers: ties, zeros)")
        if not A.any():
            A[0, 0] = 1.0
        x = draw(ints((d,), -2, 2).map(lambda v: v if v.any() else np.eye(1, v.size, 0)[0]), label="x direction")
        top = float(np.abs(A @ x).max())
        mag = draw(scalars(2.5, 3.5), label="log10 ‖Ax‖∞")
        x = x * (10.0**mag / top) if top > 0 else x * 10.0**mag
        b = draw(b_vectors(n), label="b")
        w = draw(st.one_of(st.just(np.zeros(n)), vectors(st.just(n), max_abs=2.0)), label="w")
        return A, b, w, x

    return build()


def derivative_problems():
    """:func:`problems` with n ≤ 5, d ≤ 3 and ‖A‖, ‖x‖ up to ~2 (numerical differentiation is costly)."""
    return problems(n_hi=5, d_hi=3, a_hi=0.3, x_hi=0.3)


@st.composite
def lipschitz_instances(draw, *, n_lo=1, n_hi=6, d_hi=4, r_hi=0.5):
    """(A, b, x, y) for the §7 Lipschitz claims: near pairs (‖x − y‖ down to 1e-7‖x‖) and far pairs,
    radii from 0.03 to ~10 (R is then the tightest admissible max(‖A‖, ‖x‖, ‖y‖)).  The draw order
    (A, x, y, then b) is today's, so the search meets the same instances."""
    n = draw(dims(n_lo, n_hi), label="n")
    d = draw(dims(1, d_hi), label="d")
    A = draw(scaled_arrays((n, d), min_exponent=-1.5, max_exponent=r_hi), label="A")
    x = draw(scaled_arrays((d,), min_exponent=-1.5, max_exponent=r_hi), label="x")
    if draw(st.booleans(), label="near pair"):
        h = draw(hnp.arrays(np.float64, (d,), elements=scalars(-1.0, 1.0)), label="direction")
        k = draw(scalars(1.0, 7.0), label="-log10 distance")
        y = x + h * 10.0**-k * max(1.0, float(np.abs(x).max()))
    else:
        y = draw(scaled_arrays((d,), min_exponent=-1.5, max_exponent=r_hi), label="y")
    b = draw(b_vectors(n), label="b")
    return A, b, x, y


@st.composite
def loewner_pairs(draw):
    """(G, H, t, α) for fact4.4.p1: V = GGᵀ ⪰ 0, α > 0 and U = αV − t·HHᵀ ⪯ αV exactly (formed in the
    check); t ≥ 0.5 gives indefinite U (where the fact fails), t = 0 or tiny t PSD U (where the
    corrected fact holds)."""
    n = draw(dims(1, 5), label="n")
    G = draw(st.one_of(ints((n, n)), matrices(st.just(n), st.just(n), max_abs=3.0)), label="G (V = GGᵀ)")
    H = draw(st.one_of(ints((n, n)), matrices(st.just(n), st.just(n), max_abs=3.0)), label="H (P = t·HHᵀ)")
    t = draw(st.one_of(scalars(0.5, 10.0), st.just(0.0), scalars(0.0, 1e-3)), label="t")
    a = draw(st.one_of(st.sampled_from([1.0, 0.5, 2.0]), scalars(1e-3, 10.0)), label="alpha")
    return G, H, t, a


def loewner_pair_objects(G, H, t, a) -> dict:
    """The statement's objects of a :func:`loewner_pairs` instance, exactly (rationals): U = αGGᵀ − t·HHᵀ,
    V = GGᵀ and α."""
    G, H = rational_matrix(G), rational_matrix(H)
    return {"U": G * G.transpose() * exact(a) - H * H.transpose() * exact(t), "V": G * G.transpose(), "α": exact(a)}


def _simplex_point(p):
    """f = p/Σp exactly (rationals), e_1 when p = 0: common.on_simplex on the exact float64 p."""
    p = rational_matrix(p)
    total = sum((p[i, 0] for i in range(p.nrows())), exact(0))
    if total == 0:
        return rational_matrix([1.0] + [0.0] * (p.nrows() - 1))
    return p * (1 / total)


def simplex_objects(p, b) -> dict:
    """The statement's objects of an (p, b) draw (:func:`fb_pairs`), exactly: f = p/Σp and b."""
    return {"f": _simplex_point(p), "b": rational_matrix(b)}


ON_SIMPLEX = {"fields": ("p", "b"), "to_statement": simplex_objects}
"""The naming options of a claim drawn by :func:`fb_pairs`: the draw is (p, b), the statement's objects f = p/Σp
and b (:func:`simplex_objects`)."""


def simplex_pair_objects(p, q, b) -> dict:
    """The statement's objects of a :func:`simplex_pairs` draw, exactly: f_x = p/Σp, f_y = q/Σq and b."""
    return {"f_x": _simplex_point(p), "f_y": _simplex_point(q), "b": rational_matrix(b)}


@st.composite
def f_instances(draw):
    """(A, x, b): f = f(x) for A, x with ‖Ax‖ from 1e-3 (f ≈ uniform) to ~100 (f near a vertex)."""
    n = draw(dims(1, 7), label="n")
    d = draw(dims(1, 3), label="d")
    A = draw(scaled_arrays((n, d), min_exponent=-1.5, max_exponent=1.0), label="A")
    x = draw(scaled_arrays((d,), min_exponent=-1.5, max_exponent=1.0), label="x")
    b = draw(b_vectors(n), label="b")
    return A, x, b


@st.composite
def simplex_pairs(draw):
    """(p, q, b): f_x = p/Σp, f_y = q/Σq on the simplex (vertices, faces, near pairs), b as in b_vectors."""
    n = draw(dims(1, 7), label="n")
    p = draw(nonneg(n), label="p")
    if draw(st.booleans(), label="near"):
        h = draw(hnp.arrays(np.float64, (n,), elements=scalars(0.0, 1.0)), label="dir")
        k = draw(scalars(1.0, 7.0), label="-log10 dist")
        q = p + h * 10.0**-k
    else:
        q = draw(nonneg(n), label="q")
    return p, q, draw(b_vectors(n), label="b")


@st.composite
def strongly_convex(draw, *, cond=6.0):
    """(A, b, l, extra, x, y, t): A of full column rank (κ up to 10**cond), l > 0; the check forms
    w_i² = base + l/σ_min(A)² + extra_i exactly (base = 4 or 100 as the claim says; extra_i = 0 is
    the boundary); x, y with entries up to ~30; t ∈ [0, 1]."""
    n = draw(dims(1, 6), label="n")
    d = draw(dims(1, min(n, 4)), label="d")
    A = draw(conditioned_matrices(st.just(n), st.just(d), max_log10_cond=cond), label="A")
    b = draw(b_vectors(n), label="b")
    l = draw(st.one_of(st.just(1.0), scalars(-3.0, 2.0).map(lambda e: 10.0**e)), label="l")
    extra = draw(hnp.arrays(np.float64, (n,), elements=st.one_of(st.just(0.0), scalars(0.0, 100.0))),
                 label="extra w²")
    x = draw(scaled_arrays((d,), min_exponent=-2.0, max_exponent=1.5), label="x")
    y = draw(scaled_arrays((d,), min_exponent=-2.0, max_exponent=1.5), label="y")
    t = draw(scalars(0.0, 1.0), label="t")
    return A, b, l, extra, x, y, t


@st.composite
def ill_matrices(draw, n, d):
    """A = U diag(σ) Vᵀ with σ from 1 down to 10^{−c}, c ∈ {0, …, 4}: ill-conditioned A of full
    column rank is always reachable (U, V orthonormal factors of small-integer draws).  U is the
    orthonormal factor of g + 4I + 𝟙𝟙ᵀ: even for the simplest draw g = 0 its columns overlap, so the
    rows of A mix the stiff and the soft directions (the coupling approximate Newton suffers from)."""
    g1 = draw(ints((n, d)), label="U factor")
    g2 = draw(ints((d, d)), label="V factor")
    c = draw(st.sampled_from([3.0, 4.0, 2.0, 1.0, 0.0]), label="log10 cond")
    u, _ = np.linalg.qr(g1 + 4 * np.eye(n, d) + 1)
    v, _ = np.linalg.qr(g2 + 4 * np.eye(d))
    return (u * 10.0 ** (-c * np.linspace(0.0, 1.0, d))) @ v.T


@st.composite
def newton_instances(draw, *, eps0=None, accuracy=False):
    """Instances of def8.1 (l, M)-good problems with an admissible approximate Hessian (def8.4).

    Drawn: A of full column rank (κ up to 1e4), b ≥ 0 with ‖b‖₁ ≤ 1, l > 0, a start direction u ≠ 0
    (an all-zero draw becomes e_1, so the simplest draws meet x_0 ≠ x* instead of being rejected) and
    fraction ρ (r_0 = ρ·0.1l/M with M = 22‖A‖³, a valid Hessian Lipschitz constant by derived.M22),
    the form of H̃ ("general": H^{1/2}(I + E)H^{1/2} with E = φε0·S/‖S‖, S a drawn symmetric matrix in
    H's eigenbasis; "diagonal": the sparsifier form AᵀD̃A + Aᵀ B_rank A with D̃ = D∘(1 + ηs),
    D = W² + B_diag(x_t), s the signs coupling H's stiffest and softest directions), φ, ε0 and (for
    thm9.1.accuracy) ε/r_0.  The simplest draws (those Hypothesis tries first and shrinks towards) are
    the hard ones: d = min(n, 3) (one direction cannot couple a stiff and a soft one), κ(A) = 10³ with
    rows mixing the singular directions (:func:`ill_matrices`), b = 0.
    :class:`~properties.softmax_regression.newton.NewtonProblem` forms w (w_i² ≥ 100 + l/σ_min²
    exactly, in float64), x*, x_0 and H̃ so that every hypothesis holds.
    """
    n = draw(dims(2, 6), label="n")
    d = draw(st.sampled_from([k for k in (3, 2, 1) if k <= n]), label="d (simplest: the largest)")
    A = draw(ill_matrices(n, d), label="A")
    b = draw(int_b(n), label="b")
    l = draw(st.sampled_from([1.0, 0.1, 0.01, 10.0]), label="l")
    u = draw(ints((d,)).map(lambda v: v if v.any() else np.eye(1, v.size, 0)[0]), label="direction u (nonzero)")
    rho = draw(st.sampled_from([0.999, 0.5, 0.1]), label="rho = M r0/(0.1 l)")
    mode = "diagonal" if accuracy else draw(st.sampled_from(["general", "diagonal"]), label="form of H~")
    S_ = draw(ints((d, d)), label="S") if mode == "general" else None
    phi = draw(st.sampled_from([0.99, 0.5]), label="phi = |E|/eps0")
    e0 = eps0 if eps0 is not None else draw(st.sampled_from([0.01, 0.099, 0.001]), label="eps0")
    ratio = draw(st.sampled_from([0.6, 0.3, 0.9]), label="eps/r0") if accuracy else None
    return A, b, l, u, rho, (mode, S_), phi, e0, ratio


@st.composite
def solve_instances(draw):
    """(A, b, l, extra): strongly convex instances for softmax_solve, κ(A) up to 1e4 (the adapter
    rounds w up so that w_i² ≥ 4 + l/σ_min² + extra_i holds in float64)."""
    n = draw(dims(1, 6), label="n")
    d = draw(dims(1, min(n, 3)), label="d")
    A = draw(conditioned_matrices(st.just(n), st.just(d), max_log10_cond=4.0), label="A")
    b = draw(b_vectors(n), label="b")
    l = draw(scalars(-2.0, 1.0).map(lambda e: 10.0**e), label="l")
    extra = draw(hnp.arrays(np.float64, (n,), elements=st.one_of(st.just(0.0), scalars(0.0, 100.0))),
                 label="extra w²")
    return A, b, l, extra
