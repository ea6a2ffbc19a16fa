"""The derived identities of paper 004 the oracle relies on (spec §4 end): the tensor-power Gram
matrix, the Taylor series of the exponential kernel, the Gaussian kernel as D K D, the optimal
values of the regression problems, and the statistical dimension."""

from __future__ import annotations

from hypothesis import strategies as st
from mpmath import mp

from oracle import attention_kernel_regression as O
from oracle import linalg, to_mp

from ..toolkit import ClaimSet, eq
from ..toolkit.strategies import dims, matrices, scalars, vectors
from .common import boost, cond_digits, trivially_true
from .strategies import points, tall

__all__ = ["claims", "id_statdim"]

claims = ClaimSet("attention_kernel_regression")


def _tensor_power_columns(X, l):
    """X^{⊗l} ∈ R^{d^l × n} (column i = x_i^{⊗l}, x^{⊗0} = 1), kron convention of def.tensor."""
    cols = []
    for i in range(X.cols):
        v = mp.matrix([1])
        for _ in range(l):
            v = linalg.kron(v, X[:, i])
        cols.append(v)
    return mp.matrix([[v[r] for v in cols] for r in range(cols[0].rows)])


def _hadamard_power(M, l):
    return mp.matrix([[M[i, j] ** l for j in range(M.cols)] for i in range(M.rows)])


def _tensor_gram(X, l):
    T = _tensor_power_columns(X, l)
    return T.T * T, _hadamard_power(X.T * X, l)


claims.identity("attention_kernel_regression.id.tensor_gram",
                "(X^{⊗l})ᵀX^{⊗l} = (XᵀX)^{∘l}", hypotheses="X ∈ R^{d×n} (d ≤ 3, n ≤ 4), l ∈ {0..3}",
                instances=lambda: st.tuples(points(), dims(0, 3)), sides=_tensor_gram, fields=("X", "l"),
                provenance="D", source="spec §4 'Derived identities used by the oracle' (never stated by the paper)")


def _taylor(X):
    G = X.T * X
    n = G.rows
    S = mp.matrix(n, n)
    gmax = max(abs(G[i, j]) for i in range(n) for j in range(n))
    l = 0
    while True:
        S += _hadamard_power(G, l) / mp.factorial(l)
        if l + 2 > 2 * gmax and gmax ** (l + 1) / mp.factorial(l + 1) < mp.mpf(10) ** (-mp.dps - 5):
            break
        l += 1
    return mp.matrix([[mp.exp(G[i, j]) for j in range(n)] for i in range(n)]), S


claims.identity("attention_kernel_regression.id.taylor", "exp(XᵀX) = Σ_{l≥0} (XᵀX)^{∘l}/l! (entrywise exp)",
                hypotheses="X ∈ R^{d×n}, entries ≤ 2 in magnitude; the series summed until its tail is below the "
                           "working precision (tail bounded by the next term times 2, terms decreasing)",
                instances=points, sides=_taylor, fields=("X",),
                provenance="D", source="spec §4 'Derived identities used by the oracle' (never stated by the paper)")


def _gauss_dkd(X):
    col = [X[:, i] for i in range(X.cols)]
    idx = range(X.cols)
    G = mp.matrix([[mp.exp(-linalg.norm2(col[i] - col[j]) ** 2 / 2) for j in idx] for i in idx])
    K = mp.matrix([[mp.exp(linalg.dot(col[i], col[j])) for j in idx] for i in idx])
    D = mp.diag([mp.exp(-linalg.norm2(col[i]) ** 2 / 2) for i in idx])
    return G, D * K * D


claims.identity("attention_kernel_regression.id.gauss_dkd",
                "G = DKD, G_ij = exp(−‖x_i − x_j‖²/2), K = exp(XᵀX), D = diag(exp(−‖x_i‖²/2))",
                hypotheses="X ∈ R^{d×n}", instances=points, sides=_gauss_dkd, fields=("X",),
                provenance="D", source="spec §4 'Derived identities used by the oracle' (never stated by the paper)")


def _opt_sides(A, y, b, j):
    with boost((2 * j + 3) * cond_digits(A)):
        P = O.projector(A)
        ref = linalg.norm2(y - P * y)
        Gj = O.psd_power(A, j)
        r0 = linalg.norm2(Gj * linalg.solve(Gj, b) - b) if j else mp.mpf(0)
        return mp.matrix([O.opt_attention(A, y, 1), O.opt_attention(A, y, j), r0]), mp.matrix([ref, ref, 0])


claims.identity("attention_kernel_regression.id.opt", "under G0: min_x‖AAᵀAx − y‖ = min_x‖A(AᵀA)^j x − y‖ = ‖(I − P_A)y‖; "
                               "min_x‖(AᵀA)^j x − b‖ = 0 at x = (AᵀA)^{-j}b",
                hypotheses="A full column rank, y ∈ R^n, b ∈ R^d, j ∈ {0..3}",
                instances=lambda: tall(cond=3.0).flatmap(lambda A: st.tuples(
                    st.just(A), vectors(st.just(A.shape[0])), vectors(st.just(A.shape[1])), dims(0, 3))),
                sides=_opt_sides, scale=lambda A, y, b, j: linalg.norm2(y) + linalg.norm2(b), fields=("A", "y", "b", "j"),
                provenance="D", source="spec §4 'Derived identities used by the oracle' (never stated by the paper)")


@claims.check("attention_kernel_regression.id.statdim", "s_λ(K) = tr(K(K + λI)^{-1}) = Σ_i λ_i/(λ_i + λ); s_λ → rank(K) as λ → 0",
              hypotheses="K = GGᵀ PSD (n ≤ 5, rank ≤ n), λ = 10^U(−3, 2); judged: the trace identity, and "
                         "0 ≤ rank(K) − s_λ(K) ≤ λ·Σ_{λ_i>0} 1/λ_i (which → 0 as λ → 0)",
              instances=lambda: st.tuples(dims(1, 5).flatmap(lambda n: matrices(st.just(n), dims(1, n))), scalars(-3.0, 2.0)),
              fields=("G", "log₁₀λ"),
              provenance="D", source="spec §4 'Derived identities used by the oracle' (never stated by the paper)")
def id_statdim(inst):
    Gf, ll = inst
    r = linalg.exact_rank(Gf)
    if r == 0:
        return trivially_true("K = 0: s_λ = 0 = rank")
    Gm = to_mp(Gf)

    def sides():
        lam = mp.mpf(10) ** ll
        K = Gm * Gm.T
        tr = sum((K * mp.inverse(K + lam * mp.eye(K.rows)))[i, i] for i in range(K.rows))
        ev = sorted(linalg.eigvalsh(K), reverse=True)[:r]
        s = mp.fsum(e / (e + lam) for e in ev)
        gap, bound = r - s, lam * mp.fsum(1 / e for e in ev)
        # the trace identity |tr − s| and the limit as max(0, gap − bound), max(0, −gap): all must vanish
        return mp.matrix([tr - s, max(gap - bound, 0), max(-gap, 0)]), mp.matrix([0, 0, 0])

    return eq(sides, scale=lambda: mp.mpf(r))
