"""Facts A.1–A.6, E.1–E.2, F.1 and F.3 of paper 000 (spec §5.1, §5.5, §5.6): identities and
inequalities of linear algebra and calculus the proofs cite, judged at 50+ digits from the exact
float64 instance.  Calculus facts (A.3, E.1) are judged against derivation-independent derivatives
(:mod:`oracle.derivatives`) of concrete functions, never against a formula.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from mpmath import mp

from oracle import derivatives, linalg
from oracle.attention_pruning import causal_mask, frob_inner, masked_softmax_attention, trace
from oracle.ball import exact, rational_matrix
from oracle.linalg import entrywise, exact_rank

from ..toolkit import ClaimSet, le, to_oracle, worst_pair
from ..toolkit.strategies import dims, matrices, scalars, vectors
from .strategies import any_matrices, same_shape_pairs, sparse_matrices, vecs

__all__ = ["claims"]

claims = ClaimSet("attention_pruning")
dot, diag, ones, stack, frob = linalg.dot, linalg.diag, linalg.ones, linalg.stack, linalg.norm2


def _pairs_or_parallel(*, nonneg):
    """(X, Y, t): t is None for an independent pair, else Y := t·X is formed in the check (exactly)."""
    t = scalars(0.0, 5.0) if nonneg else scalars(-5.0, 5.0)
    return st.tuples(dims(1, 5), dims(1, 5)).flatmap(
        lambda rc: st.tuples(any_matrices(*rc), any_matrices(*rc), st.one_of(st.none(), t)))


def _second(X, Y, t):
    return X * t if t is not None else Y


def _pair_objects(X, Y, t) -> dict:
    """The statement's X and Y of a :func:`_pairs_or_parallel` instance, exactly (Y = t·X when t is drawn)."""
    Xq = rational_matrix(X)
    return {"X": Xq, "Y": Xq * exact(t) if t is not None else rational_matrix(Y)}


# -- Fact A.1 (vector identities) -------------------------------------------------------------

claims.identity("attention_pruning.factA1.a", "u∘v = diag(u)v = diag(v)u", hypotheses="u, v ∈ Rⁿ",
                instances=lambda: vecs(2), fields=("u", "v"),
                sides=lambda u, v: (stack(entrywise(u, v), entrywise(u, v)),
                                    stack(diag(u) * v, diag(v) * u)))
claims.identity("attention_pruning.factA1.b", "⟨u,v⟩ = ⟨v,u⟩ = uᵀv = vᵀu", hypotheses="u, v ∈ Rⁿ",
                instances=lambda: vecs(2), fields=("u", "v"),
                sides=lambda u, v: (mp.matrix([dot(u, v)] * 3), mp.matrix([dot(v, u), (u.T * v)[0], (v.T * u)[0]])))
claims.identity("attention_pruning.factA1.c", "⟨u,v⟩ = ⟨u∘v, 1_n⟩", hypotheses="u, v ∈ Rⁿ",
                instances=lambda: vecs(2), fields=("u", "v"),
                sides=lambda u, v: (dot(u, v), dot(entrywise(u, v), ones(u.rows))))
claims.identity("attention_pruning.factA1.d", "⟨u∘v,w⟩ = ⟨u∘w,v⟩ = ⟨w∘v,u⟩", hypotheses="u, v, w ∈ Rⁿ",
                instances=lambda: vecs(3), fields=("u", "v", "w"),
                sides=lambda u, v, w: (mp.matrix([dot(entrywise(u, v), w)] * 2),
                                       mp.matrix([dot(entrywise(u, w), v), dot(entrywise(w, v), u)])))
claims.identity("attention_pruning.factA1.e", "uᵀ(v∘w) = uᵀdiag(v)w", hypotheses="u, v, w ∈ Rⁿ",
                instances=lambda: vecs(3), fields=("u", "v", "w"),
                sides=lambda u, v, w: ((u.T * entrywise(v, w))[0], (u.T * diag(v) * w)[0]))

# -- Fact A.2 (matrix identities) -------------------------------------------------------------

claims.identity("attention_pruning.factA2.a", "(X∘Y)ᵀ = Xᵀ∘Yᵀ", hypotheses="X, Y ∈ R^{n×d}",
                instances=same_shape_pairs, fields=("X", "Y"),
                sides=lambda X, Y: (entrywise(X, Y).T, entrywise(X.T, Y.T)))


def _basis_product(X, i, j):
    ei = mp.matrix([mp.mpf(k == i) for k in range(X.rows)])
    ej = mp.matrix([mp.mpf(k == j) for k in range(X.cols)])
    E = ei * ej.T
    return entrywise(X, E), E * X[i, j]


claims.identity("attention_pruning.factA2.b", "X∘e_ie_jᵀ = X_{ij}e_ie_jᵀ",
                hypotheses="X ∈ R^{n×d}, i ∈ [n], j ∈ [d]; e_i ∈ Rⁿ, e_j ∈ R^d standard basis vectors",
                instances=lambda: st.tuples(dims(1, 5), dims(1, 5)).flatmap(
                    lambda rc: st.tuples(matrices(st.just(rc[0]), st.just(rc[1])), st.integers(0, rc[0] - 1),
                                         st.integers(0, rc[1] - 1))),
                fields=("X", "i", "j"), sides=_basis_product)
claims.identity("attention_pruning.factA2.c", "diag(u)Z diag(v) = (uvᵀ)∘Z",
                hypotheses="u ∈ Rⁿ, v ∈ Rᵐ, Z ∈ R^{n×m} (the spec's u, v ∈ Rⁿ is the square case m = n)",
                instances=lambda: st.tuples(dims(1, 5), dims(1, 5)).flatmap(
                    lambda rc: st.tuples(vectors(st.just(rc[0])), matrices(st.just(rc[0]), st.just(rc[1])),
                                         vectors(st.just(rc[1])))),
                fields=("u", "Z", "v"), sides=lambda u, Z, v: (diag(u) * Z * diag(v), entrywise(u * v.T, Z)))


def _outer_sum(X, Y):
    total = mp.matrix(X.rows, Y.rows)
    for i in range(X.cols):
        total += X[:, i] * Y[:, i].T
    return X * Y.T, total


claims.identity("attention_pruning.factA2.d", "XYᵀ = Σ_{i∈[d]} X_{*,i}(Y_{*,i})ᵀ", hypotheses="X, Y ∈ R^{n×d}",
                instances=same_shape_pairs, fields=("X", "Y"),
                sides=_outer_sum)


def _column_sum(u, A):
    lhs, colsum = mp.matrix(A.rows, 1), mp.matrix(A.rows, 1)
    for j in range(A.cols):
        lhs += entrywise(u, A[:, j])
        colsum += A[:, j]
    return lhs, entrywise(u, colsum)


claims.identity("attention_pruning.factA2.e", "Σ_j u∘A_{*,j} = u∘Σ_j A_{*,j}", hypotheses="u ∈ Rⁿ, A ∈ R^{n×m}",
                instances=lambda: st.tuples(dims(1, 5), dims(1, 5)).flatmap(
                    lambda rc: st.tuples(vectors(st.just(rc[0])), matrices(st.just(rc[0]), st.just(rc[1])))),
                fields=("u", "A"), sides=_column_sum)

# -- Fact A.3 (calculus rules), on concrete smooth functions, against numerical derivatives ---------


def _calculus_instances():
    """Parameters of f(t) = P sin(Q t + r), g(t) = P' cos(Q' t) + r' (Rᵏ → Rⁿ) and a point t₀."""

    def build(nmk):
        n, m, k = map(st.just, nmk)
        small = dict(max_abs=2.0)
        return st.tuples(matrices(n, m, **small), matrices(m, k, **small), vectors(m, **small),
                         matrices(n, m, **small), matrices(m, k, **small), vectors(n, **small),
                         vectors(k, **small))

    return st.tuples(dims(1, 3), dims(1, 3), dims(1, 2)).flatmap(build)


def _calculus_sides(P, Q, r, P2, Q2, r2, t0):
    def f(t):
        z = Q * t + r
        return P * mp.matrix([mp.sin(z[i]) for i in range(z.rows)])

    def g(t):
        z = Q2 * t
        return P2 * mp.matrix([mp.cos(z[i]) for i in range(z.rows)]) + r2

    def expf(t):
        v = f(t)
        return mp.matrix([mp.exp(v[i]) for i in range(v.rows)])

    def alpha(t):
        return mp.fsum(expf(t))

    Jf, Jg = derivatives.jacobian(f, t0), derivatives.jacobian(g, t0)
    f0, g0 = f(t0), g(t0)
    lhs = stack(derivatives.gradient(lambda t: dot(f(t), g(t)), t0).T,
                derivatives.jacobian(lambda t: entrywise(f(t), g(t)), t0),
                derivatives.jacobian(expf, t0),
                derivatives.gradient(lambda t: 1 / alpha(t), t0).T)
    rhs = stack(g0.T * Jf + f0.T * Jg, diag(g0) * Jf + diag(f0) * Jg, diag(expf(t0)) * Jf,
                derivatives.gradient(alpha, t0).T * (-1 / alpha(t0) ** 2))
    return lhs, rhs


claims.identity("attention_pruning.factA3",
                "d⟨f,g⟩ = ⟨df,g⟩ + ⟨f,dg⟩; d(f∘g) = df∘g + f∘dg; d exp(f) = exp(f)∘df; d(1/α) = −α⁻²dα",
                hypotheses="f, g: Rᵏ → Rⁿ and α: Rᵏ → R differentiable, α ≠ 0 (here concrete: "
                           "f = P sin(Qt + r), g = P' cos(Q't) + r', α = ⟨exp(f), 1_n⟩ > 0)",
                instances=_calculus_instances, fields=("P", "Q", "r", "P'", "Q'", "r'", "t₀"), sides=_calculus_sides,
                max_examples=10,
                notes="Every derivative on both sides is a numerical derivative (oracle.derivatives) of the "
                      "concrete functions: the rules are judged as relations between measured derivatives.")

# -- Fact A.4 (trace and norm identities) -------------------------------------------------------

claims.identity("attention_pruning.factA4.a", "‖X‖_F² = tr[XXᵀ]", hypotheses="X ∈ R^{n×d}",
                instances=lambda: matrices(dims(1, 5), dims(1, 5)), fields=("X",),
                sides=lambda X: (mp.fsum(s ** 2 for s in linalg.singular_values(X)), trace(X * X.T)),
                notes="‖X‖_F from the singular values, not from the entries")
claims.identity("attention_pruning.factA4.b", "tr[XYᵀ] = tr[YᵀX]", hypotheses="X, Y ∈ R^{n×d}",
                instances=same_shape_pairs, fields=("X", "Y"),
                sides=lambda X, Y: (trace(X * Y.T), trace(Y.T * X)))
claims.identity("attention_pruning.factA4.c", "‖diag(u)‖_F = ‖u‖₂", hypotheses="u ∈ Rⁿ",
                instances=lambda: vecs(1), fields=("u",),
                sides=lambda u: (frob(diag(u)), linalg.norm2(u)))

# -- Fact A.5 (norm facts) ----------------------------------------------------------------------

claims.identity("attention_pruning.factA5.a", "‖aX‖_F = |a|‖X‖_F", hypotheses="a ∈ R, X ∈ R^{n×d}",
                instances=lambda: st.tuples(scalars(-10.0, 10.0), matrices(dims(1, 5), dims(1, 5))), fields=("a", "X"),
                sides=lambda a, X: (frob(X * a), abs(a) * frob(X)))
claims.inequality("attention_pruning.factA5.b", "‖X + Y‖ ≤ ‖X‖ + ‖Y‖ (triangle inequality)",
                  hypotheses="X, Y ∈ R^{n×d}; judged for both the Frobenius and the spectral norm",
                  instances=lambda: _pairs_or_parallel(nonneg=True), fields=("X", "Y", "t"), to_statement=_pair_objects,
                  sides=lambda X, Y, t: (lambda X, Y, sn: worst_pair(
                      (frob(X + Y), frob(X) + frob(Y)), (sn(X + Y), sn(X) + sn(Y))))(
                      X, _second(X, Y, t), linalg.spectral_norm))
claims.inequality("attention_pruning.factA5.c", "|⟨X,Y⟩| ≤ ‖X‖_F‖Y‖_F", hypotheses="X, Y ∈ R^{n×d}",
                  instances=lambda: _pairs_or_parallel(nonneg=False), fields=("X", "Y", "t"), to_statement=_pair_objects,
                  sides=lambda X, Y, t: (abs(frob_inner(X, _second(X, Y, t))), frob(X) * frob(_second(X, Y, t))))
claims.inequality("attention_pruning.factA5.d", "‖X∘Y‖_F ≤ ‖X‖_F‖Y‖_F", hypotheses="X, Y ∈ R^{n×d}",
                  instances=same_shape_pairs, fields=("X", "Y"),
                  sides=lambda X, Y: (frob(entrywise(X, Y)), frob(X) * frob(Y)))
claims.inequality("attention_pruning.factA5.e", "|X_{ij}| ≤ ‖X‖_F", hypotheses="X ∈ R^{n×d}, i ∈ [n], j ∈ [d]",
                  instances=lambda: st.tuples(dims(1, 5), dims(1, 5)).flatmap(lambda rc: any_matrices(*rc)), fields=("X",),
                  sides=lambda X: (max(abs(x) for x in X), frob(X)),
                  notes="the largest |X_ij| over all i, j is judged")


@st.composite
def _ranked_matrices(draw):
    """Dense, sparse, or exactly rank-deficient X = 2^e·G H with small-integer G (n×r), H (r×d): the
    float64 product is exact, so rank X ≤ r exactly."""
    kind = draw(st.sampled_from(["dense", "sparse", "lowrank"]), label="kind")
    n, d = draw(dims(1, 5), label="n"), draw(dims(1, 5), label="d")
    if kind == "dense":
        return draw(matrices(st.just(n), st.just(d)))
    if kind == "sparse":
        return draw(sparse_matrices(n, d))
    r = draw(dims(1, min(n, d)), label="r")
    ints = st.integers(-4, 4).map(float)
    G = draw(hnp.arrays(np.float64, (n, r), elements=ints), label="G")
    H = draw(hnp.arrays(np.float64, (r, d), elements=ints), label="H")
    return (G @ H) * 2.0 ** draw(st.integers(-3, 3), label="e")


@claims.check("attention_pruning.factA5.f", "‖X‖ ≤ ‖X‖_F ≤ √k‖X‖, with k = rank X",
              hypotheses="X ∈ R^{n×d}; k its exact rank (Gaussian elimination over Q on the float64 entries)",
              instances=_ranked_matrices, fields=("X",))
def factA5_f(inst):
    k = exact_rank(inst)
    X = to_oracle(inst)
    sn = linalg.spectral_norm
    return le(lambda: worst_pair((sn(X), frob(X)), (frob(X), mp.sqrt(k) * sn(X))), note=f"rank {k}")


claims.inequality("attention_pruning.factA5.g", "‖YZ‖_F ≤ ‖Y‖_F‖Z‖_F", hypotheses="Y ∈ R^{n×d}, Z ∈ R^{d×m}",
                  instances=lambda: st.tuples(dims(1, 4), dims(1, 4), dims(1, 4)).flatmap(
                      lambda ndm: st.tuples(any_matrices(ndm[0], ndm[1]), any_matrices(ndm[1], ndm[2]))),
                  fields=("Y", "Z"), sides=lambda Y, Z: (frob(Y * Z), frob(Y) * frob(Z)))

# -- Fact A.6 -----------------------------------------------------------------------------------


def _fro2(A):
    return mp.fsum(s ** 2 for s in linalg.singular_values(A))


claims.identity("attention_pruning.factA6", "‖X+Y‖_F² = ‖X‖_F² + 2⟨X,Y⟩ + ‖Y‖_F²", hypotheses="X, Y ∈ R^{n×d}",
                instances=same_shape_pairs, fields=("X", "Y"),
                sides=lambda X, Y: (_fro2(X + Y), _fro2(X) + 2 * frob_inner(X, Y) + _fro2(Y)),
                scale=lambda X, Y: _fro2(X) + _fro2(Y),
                notes="An algebraic expansion (no derivative in it): judged directly, with ‖·‖_F² taken from "
                      "the singular values so that the two sides are computed differently.")

# -- Fact E.1 (mean value theorem) with g = f̃, the masked softmax attention as a function of M ----


def _mvt_instances():
    """X (n×d), W (d×d), M, M' ∈ [0,1]^{d×d} (M' independent, or M plus a perturbation ≤ 1e-3 kept
    in [0,1]), and whether the causal mask is used.  n ≤ 3, d ≤ 2: the check takes Jacobians
    (n²×d²) by numerical differentiation."""

    def build(nd):
        n, d = nd
        unit = hnp.arrays(np.float64, (d, d), elements=scalars(0.0, 1.0))
        near = st.tuples(unit, matrices(st.just(d), st.just(d), max_abs=1e-3)).map(
            lambda p: (p[0], np.clip(p[0] + p[1], 0.0, 1.0)))
        return st.tuples(matrices(st.just(n), st.just(d), max_abs=2.0), matrices(st.just(d), st.just(d), max_abs=2.0),
                         st.one_of(st.tuples(unit, unit), near), st.booleans())

    return st.tuples(dims(2, 3), dims(1, 2)).flatmap(build)


def _mvt_objects(X, W, pair, causal) -> dict:
    """Fact E.1's objects, exactly: the points X = M, Y = M' of g = f̃ (whose data are X_data, W)."""
    return {"X_data": rational_matrix(X), "W": rational_matrix(W), "X": rational_matrix(pair[0]),
            "Y": rational_matrix(pair[1]), "causal": causal}


@claims.check("attention_pruning.factE1", "‖g(Y) − g(X)‖_F ≤ sup_{t∈[0,1]} ‖J_g(X + t(Y − X))‖ · ‖Y − X‖_F",
              hypotheses="g: R^{d×d} → R^{n×n} continuously differentiable (here g = f̃, Def B.3, causal or "
                         "not); X, Y ∈ [0,1]^{d×d}",
              instances=_mvt_instances, fields=("X_data", "W", "(X, Y)", "causal"), to_statement=_mvt_objects,
              max_examples=8,
              notes="J_g is the numerical Jacobian (oracle.derivatives) of M ↦ vec f̃(M).  The sup is bounded "
                    "below by the largest ‖J_g‖ at t ∈ {0, 1, t*}, t* the point of a 9-point grid where the "
                    "derivative of t ↦ ⟨g(Y) − g(X), g(X + t(Y − X))⟩ is largest; so a verdict 'holds' "
                    "implies the stated inequality.")
def factE1(inst):
    Xa, Wa, (Ma, Mb), causal = inst
    X, W, M0, M1 = (to_oracle(a) for a in (Xa, Wa, Ma, Mb))
    n, d = X.rows, X.cols
    Mc = causal_mask(n) if causal else None

    def g(m):
        return linalg.vec(masked_softmax_attention(X, W, linalg.unvec(m, d, d), Mc))

    m0, m1 = linalg.vec(M0), linalg.vec(M1)
    delta = m1 - m0
    # where to look for the sup (a choice of points only, so made once at the default precision)
    w = g(m1) - g(m0)
    grid = [mp.mpf(k) / 8 for k in range(9)]
    slopes = [mp.diff(lambda t: dot(w, g(m0 + delta * t)), t) for t in grid]
    t_star = grid[max(range(9), key=lambda k: slopes[k])]
    points = sorted({mp.mpf(0), mp.mpf(1), t_star})

    def sides():
        sup = max(linalg.spectral_norm(derivatives.jacobian(g, m0 + delta * t)) for t in points)
        return linalg.norm2(g(m1) - g(m0)), sup * linalg.norm2(delta)

    return le(sides, note=f"sup over t in {[mp.nstr(t, 3) for t in points]}")


# -- Fact E.2 (Lipschitz of products) -----------------------------------------------------------


@st.composite
def _product_chains(draw):
    """k ∈ {1,2,3} affine maps f_i(x) = unvec(G_i x) + C_i: Rᵐ → R^{p_i×p_{i+1}} (matrix chain) or
    all of one shape (Hadamard), and two points x, y (y sometimes a tiny perturbation of x)."""
    k = draw(st.integers(1, 3), label="k")
    hadamard_mode = draw(st.booleans(), label="hadamard")
    m = draw(dims(1, 3), label="m")
    if hadamard_mode:
        p, q = draw(dims(1, 3)), draw(dims(1, 3))
        shapes = [(p, q)] * k
    else:
        ps = [draw(dims(1, 3)) for _ in range(k + 1)]
        shapes = [(ps[i], ps[i + 1]) for i in range(k)]
    scale = draw(st.sampled_from([0.25, 1.0, 3.0]), label="scale")
    maps = [(draw(matrices(st.just(a * b), st.just(m), max_abs=scale)), draw(matrices(st.just(a), st.just(b), max_abs=scale)))
            for a, b in shapes]
    x = draw(vectors(st.just(m), max_abs=2.0), label="x")
    y = draw(st.one_of(vectors(st.just(m), max_abs=2.0), vectors(st.just(m), max_abs=1e-3).map(lambda e: x + e)), label="y")
    return hadamard_mode, tuple(shapes), tuple(maps), x, y


@claims.check("attention_pruning.factE2",
              "‖∏_i f_i(x) − ∏_i f_i(y)‖_F ≤ (∏_i R_i)(Σ_i L_i)‖x − y‖_F (matrix or Hadamard products)",
              hypotheses="f_i L_i-Lipschitz (‖·‖_F), ‖f_i(z)‖_F ≤ R_i with R_i ≥ 1 on the segment [x, y]; here "
                         "f_i(x) = unvec(G_i x) + C_i with L_i := ‖G_i‖ (its exact Lipschitz constant) and "
                         "R_i := max(1, ‖f_i(x)‖_F, ‖f_i(y)‖_F) (the max over the segment, by convexity)",
              instances=_product_chains, fields=("hadamard", "shapes", "(G_i, C_i)", "x", "y"))
def factE2(inst):
    hadamard_mode, shapes, maps, xa, ya = inst
    x, y = to_oracle(xa), to_oracle(ya)
    Gs = [to_oracle(gc) for gc in maps]

    def f(i, z):
        G, C = Gs[i]
        a, b = shapes[i]
        return linalg.unvec(G * z, a, b) + C

    def prod(z):
        out = f(0, z)
        for i in range(1, len(Gs)):
            out = entrywise(out, f(i, z)) if hadamard_mode else out * f(i, z)
        return out

    def sides():
        R = mp.fprod(max(mp.mpf(1), frob(f(i, x)), frob(f(i, y))) for i in range(len(Gs)))
        L = mp.fsum(linalg.spectral_norm(G) for G, _ in Gs)
        return frob(prod(x) - prod(y)), R * L * linalg.norm2(x - y)

    return le(sides)


# -- Fact F.1 (square-root inequalities) and Fact F.3 (sandwich trace) ---------------------------


def _sqrt_pairs():
    """a, b ≥ 0 (zeros and equal values included: the tight cases)."""
    nonneg = st.one_of(st.just(0.0), st.just(1.0), scalars(0.0, 100.0))
    return st.tuples(nonneg, nonneg, st.booleans())


def _factF1_p1(s, t, equal):
    a1 = 1 + s  # exact: a float64 plus 1 at ≥ 50 digits
    a, b = (max(s, t), min(s, t)) if not equal else (s, s)
    return worst_pair((mp.sqrt(a1), a1), (mp.sqrt(a) - mp.sqrt(b), mp.sqrt(a - b)))


def _factF1_p1_objects(s, t, equal) -> dict:
    """The statement's numbers, exactly: a = 1 + s in (i); a ≥ b ≥ 0 (the drawn pair, sorted) in (ii)."""
    s, t = exact(s), exact(t)
    a, b = (max(s, t), min(s, t)) if not equal else (s, s)
    return {"a (i)": 1 + s, "a (ii)": a, "b (ii)": b}


claims.inequality("attention_pruning.factF1.p1", "(i) a ≥ 1 ⇒ √a ≤ a; (ii) a ≥ b ≥ 0 ⇒ √(a − b) ≥ √a − √b",
                  hypotheses="(i) a ≥ 1 (a := 1 + s, s ≥ 0); (ii) a ≥ b ≥ 0 (the drawn pair, sorted)",
                  instances=_sqrt_pairs, fields=("s", "t", "equal"), to_statement=_factF1_p1_objects,
                  sides=_factF1_p1,
                  notes="Both candidate readings of the unrecovered display are judged; the worse one counts.")


def _factF1_p2(s, t, equal):
    if equal:
        a, b = s, -s
    else:
        a, b = (s, t) if abs(s) >= abs(t) else (t, s)
    return abs(a) - abs(b), mp.sqrt(a * a - b * b)


def _factF1_p2_objects(s, t, equal) -> dict:
    """The statement's a and b, exactly (|a| ≥ |b|: the drawn pair ordered by magnitude, or b = −a)."""
    s, t = exact(s), exact(t)
    if equal:
        return {"a": s, "b": -s}
    a, b = (s, t) if abs(s) >= abs(t) else (t, s)
    return {"a": a, "b": b}


claims.inequality("attention_pruning.factF1.p2", "|a| ≥ |b| ⇒ √(a² − b²) ≥ |a| − |b|",
                  hypotheses="a, b ∈ R with |a| ≥ |b| (the drawn pair, ordered by magnitude; sometimes |b| = |a|)",
                  instances=lambda: st.tuples(*[st.one_of(st.just(0.0), scalars(-100.0, 100.0))] * 2, st.booleans()),
                  fields=("s", "t", "equal"), to_statement=_factF1_p2_objects, sides=_factF1_p2)


def _sandwich_instances():
    def build(nm):
        n, m = nm
        return st.tuples(scalars(-10.0, 10.0), dims(0, n).flatmap(lambda r: matrices(st.just(n), st.just(r))), any_matrices(n, m))

    return st.tuples(dims(1, 5), dims(1, 4)).flatmap(build)


def _sandwich_objects(beta, G, B) -> dict:
    """Fact F.3's objects, exactly: A = βI + GGᵀ (G may have no column: A = βI), β and B."""
    n = B.shape[0]
    A = rational_matrix(np.eye(n)) * exact(beta)
    if G.size:
        Gq = rational_matrix(G)
        A += Gq * Gq.transpose()
    return {"A": A, "β": exact(beta), "B": rational_matrix(B)}


@claims.check("attention_pruning.factF3", "A ⪰ βI ⇒ tr[BᵀAB] ≥ β·tr[BᵀB]",
              hypotheses="A ∈ Rⁿˣⁿ symmetric with A ⪰ βI (A := βI + GGᵀ, G ∈ R^{n×r}, r ≤ n, formed exactly), "
                         "β ∈ R (the paper's β > 0 is a special case), B ∈ R^{n×m}",
              instances=_sandwich_instances, fields=("β", "G", "B"), to_statement=_sandwich_objects)
def factF3(inst):
    beta_f, G_f, B_f = inst
    beta, B = to_oracle(beta_f), to_oracle(B_f)
    n = B.rows
    G = to_oracle(G_f) if G_f.size else mp.matrix(n, 1)

    def sides():
        A = mp.eye(n) * beta + G * G.T  # A ⪰ βI exactly
        return beta * trace(B.T * B), trace(B.T * A * B)

    return le(sides, scale=lambda: (abs(beta) + linalg.norm2(G * G.T)) * trace(B.T * B))
