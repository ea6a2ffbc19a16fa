"""mpmath oracle of "Beyond Linear Approximations: A Novel Pruning Approach for Attention Matrix"
(Liang, Long, Shi, Song, Zhou; ICLR 2025; paper 000, spec ``shared/spec/attention_pruning.md``).

Pure mpmath on ``mp.matrix`` inputs (convert float64 data exactly with :func:`oracle.to_mp`); the
entrywise product ∘ and exact ranks are :mod:`oracle.linalg`'s.  Objects (spec §2): S(M) = X(M∘W)Xᵀ;
f̃(M) = D̃⁻¹Ã with Ã = exp(S(M))∘M_c (Defs 3.2, B.1–B.3); f = f̃(1_{d×d}); c = f̃ − f (Def B.4); the loss
L(M) = ½‖c(M)‖_F² + (λ/2)‖M‖_F² (Defs 1.2/3.2, B.5–B.7); p = p1 − p2 (Def C.1).
The causal mask ``Mc`` is optional everywhere (``None`` = 1_{n×n}, the non-causal loss of Def 1.2).

The paper's closed-form gradient (:func:`gradient_closed_form`, Thm 5.3) is never trusted: the
derivation-independent gradient is :func:`gradient_numerical` (50-digit numerical differentiation of
:func:`loss`).  Constants: :func:`lipschitz_constants` (Thm 5.4 chain, spec def.lipschitz_L),
:func:`pl_constants` (μ, both ξ, α1, κ; spec def.mu_xi).
"""

from __future__ import annotations

from mpmath import mp

from .linalg import eigvalsh, entrywise, norm2
from .precision import check_int, check_mp

__all__ = [
    "MAX_MASK_N",
    "attention",
    "causal_mask",
    "check_lambda",
    "check_ratio",
    "f_tilde",
    "frob_inner",
    "gd_trajectory",
    "gradient_closed_form",
    "gradient_numerical",
    "lipschitz_constants",
    "loss",
    "masked_softmax_attention",
    "max_abs",
    "min_abs",
    "p_parts",
    "pl_constants",
    "radius",
    "relative_error",
    "scores_S",
    "trace",
    "unit_c",
]


# -- validation --------------------------------------------------------------------------------

def _same_shape(A, B, na, nb):
    check_mp(A, na, ndim=2)
    check_mp(B, nb, ndim=2)
    if (A.rows, A.cols) != (B.rows, B.cols):
        raise ValueError(f"{na} ({A.rows}x{A.cols}) and {nb} ({B.rows}x{B.cols}) must have the same shape")


def check_lambda(lam):
    """λ as an mpf; ``ValueError`` unless it is a finite real λ ≥ 0 (the regulariser of Def 1.2)."""
    try:
        v = mp.mpf(lam)
    except (TypeError, ValueError):
        raise ValueError(f"lam={lam!r} must be a real number >= 0") from None
    if not mp.isfinite(v) or v < 0:
        raise ValueError(f"lam={lam!r} must be a finite real number >= 0")
    return v


def check_ratio(rho) -> float:
    """The pruning ratio ρ as a float; ``ValueError`` unless ρ ∈ [0, 1] (spec def.binarize)."""
    try:
        v = float(rho)
    except (TypeError, ValueError):
        raise ValueError(f"rho={rho!r} must be a real number in [0, 1]") from None
    if not (0.0 <= v <= 1.0):
        raise ValueError(f"rho={rho!r} must be in [0, 1]")
    return v


def _check_problem(X, W, M, Mc):
    check_mp(X, "X", ndim=2)
    _same_shape(W, M, "W", "M")
    if W.rows != W.cols or W.rows != X.cols:
        raise ValueError(f"W and M must be d×d with d = X.cols = {X.cols}, got {W.rows}x{W.cols}")
    if Mc is not None:
        check_mp(Mc, "Mc", ndim=2)
        if (Mc.rows, Mc.cols) != (X.rows, X.rows):
            raise ValueError(f"Mc must be {X.rows}x{X.rows}, got {Mc.rows}x{Mc.cols}")
        if any(v not in (0, 1) for v in Mc):
            raise ValueError("Mc must be a 0/1 matrix")


# -- elementary --------------------------------------------------------------------------------

def frob_inner(A, B):
    """⟨A, B⟩ = tr(AᵀB) = Σ_ij A_ij B_ij (an exactly rounded sum)."""
    _same_shape(A, B, "A", "B")
    return mp.fsum(A[i, j] * B[i, j] for i in range(A.rows) for j in range(A.cols))


def trace(A):
    """tr(A) of a square matrix."""
    check_mp(A, "A", ndim=2)
    if A.rows != A.cols:
        raise ValueError(f"A must be square, got {A.rows}x{A.cols}")
    return mp.fsum(A[i, i] for i in range(A.rows))


def max_abs(A):
    """max|A| := max_ij |A_ij| (spec §1)."""
    check_mp(A, "A", ndim=2)
    return max(abs(v) for v in A)


def min_abs(A):
    """min|A| := min_ij |A_ij| (spec §1; μ of Lemma 5.5 is proportional to it)."""
    check_mp(A, "A", ndim=2)
    return min(abs(v) for v in A)


#: the largest n of :func:`causal_mask`: an n × n mp.matrix holds n² Python numbers (16.8 million at 4096,
#: minutes to build); beyond, the mask would hang the judge or exhaust its memory.
MAX_MASK_N = 4096


def causal_mask(n: int):
    """M_c ∈ {0,1}^{n×n} with (M_c)_{ij} = 1 iff i ≥ j (Def 3.1); n an int in [1, MAX_MASK_N]."""
    n = check_int(n, "n", minimum=1, maximum=MAX_MASK_N)
    return mp.matrix([[mp.mpf(1) if i >= j else mp.mpf(0) for j in range(n)] for i in range(n)])


def radius(X, W):
    """R := max(‖X‖_F, ‖W‖_F, 1)·(1 + 10⁻⁹), the smallest admissible R > 1 of Assumption D.1 (spec)."""
    check_mp(X, "X", ndim=2)
    check_mp(W, "W", ndim=2)
    return max(norm2(X), norm2(W), mp.mpf(1)) * (1 + mp.mpf(10) ** -9)


# -- the attention matrix and the loss (Defs 1.1, 1.2, 3.2, B.1–B.7, C.1) -----------------------

def scores_S(X, W, M):
    """S(M) = X(M∘W)Xᵀ ∈ R^{n×n} (spec §1)."""
    return X * entrywise(M, W) * X.T


def _row_softmax(S, Mc):
    n = S.rows
    out = mp.matrix(n, S.cols)
    for i in range(n):
        row = [mp.exp(S[i, j]) * (1 if Mc is None else Mc[i, j]) for j in range(S.cols)]
        alpha = mp.fsum(row)
        if alpha == 0:
            raise ValueError(f"Mc must leave at least one entry of row {i} unmasked")
        for j in range(S.cols):
            out[i, j] = row[j] / alpha
    return out


def masked_softmax_attention(X, W, M, Mc=None):
    """f̃(M) = D̃⁻¹Ã with Ã = exp(X(M∘W)Xᵀ) ∘ M_c and D̃ = diag(Ã 1_n) (Defs 3.2, B.1–B.3).

    **Arguments:** X (n×d), W (d×d), M (d×d), optional causal mask ``Mc`` (n×n, default 1_{n×n}).
    **Returns:** the n×n row-stochastic matrix f̃(M) (each row a softmax over its unmasked entries).
    """
    _check_problem(X, W, M, Mc)
    return _row_softmax(scores_S(X, W, M), Mc)


f_tilde = masked_softmax_attention


def attention(X, W, Mc=None):
    """Attn(X) = D⁻¹exp(XWXᵀ) (Def 1.1; with ``Mc``, A = exp(XWXᵀ)∘M_c of Def 3.2): f = f̃(1_{d×d})."""
    check_mp(W, "W", ndim=2)
    return masked_softmax_attention(X, W, mp.ones(W.rows, W.cols), Mc)


def unit_c(X, W, M, Mc=None):
    """c(M) = f̃(M) − f (Def B.4, "one unit loss")."""
    return masked_softmax_attention(X, W, M, Mc) - attention(X, W, Mc)


def loss(X, W, M, lam, Mc=None):
    """L(M) = ½‖D̃⁻¹Ã − D⁻¹A‖_F² + (λ/2)‖M‖_F² (Def 1.2; Def 3.2 with ``Mc``; = L_rec + L_reg, B.5–B.7)."""
    lam = check_lambda(lam)
    c = unit_c(X, W, M, Mc)
    return mp.fsum(v * v for v in c) / 2 + lam / 2 * mp.fsum(v * v for v in M)


def p_parts(X, W, M, Mc=None):
    """(p1, p2, p) of Def C.1: p1 = f̃∘c, p2 = diag((f̃∘c)1_n) f̃, p = p1 − p2."""
    ft = masked_softmax_attention(X, W, M, Mc)
    c = ft - attention(X, W, Mc)
    p1 = entrywise(ft, c)
    n = ft.rows
    p2 = mp.matrix(n, n)
    for i in range(n):
        s = mp.fsum(p1[i, j] for j in range(n))
        for j in range(n):
            p2[i, j] = s * ft[i, j]
    return p1, p2, p1 - p2


def gradient_closed_form(X, W, M, lam, Mc=None):
    """The paper's closed form ∇_M L(M) = W ∘ (Xᵀp(M)X) + λM (Thm 5.3 = Thm C.5).  Judged against
    :func:`gradient_numerical`, never used as the truth."""
    lam = check_lambda(lam)
    _check_problem(X, W, M, Mc)
    return entrywise(W, X.T * p_parts(X, W, M, Mc)[2] * X) + M * lam


def gradient_numerical(X, W, M, lam, Mc=None):
    """∇_M L(M) by high-precision numerical differentiation of :func:`loss` along each entry of M
    (derivation-independent: no formula of the paper is used)."""
    lam = check_lambda(lam)
    _check_problem(X, W, M, Mc)
    d = M.rows
    G = mp.matrix(d, d)
    for a in range(d):
        for b in range(d):
            def along(t, a=a, b=b):
                Mt = M.copy()
                Mt[a, b] += t
                return loss(X, W, Mt, lam, Mc)

            G[a, b] = mp.diff(along, 0)
    return G


def relative_error(X, W, W_pruned, Mc=None):
    """rel_err := ‖f̃ − f‖_F/‖f‖_F with f = softmax(XWXᵀ) and f̃ = softmax(X W_pruned Xᵀ), both under
    the same mask ``Mc`` (spec def.rel_error; W_pruned = M_bin∘W for ours, W̃_Q W̃_Kᵀ for baselines)."""
    _same_shape(W, W_pruned, "W", "W_pruned")
    f = attention(X, W, Mc)
    g = attention(X, W_pruned, Mc)
    return norm2(g - f) / norm2(f)


# -- constants (spec def.lipschitz_L, def.mu_xi) ------------------------------------------------

def lipschitz_constants(n: int, d: int, R, lam) -> dict:
    """The constants of the proof chain E.3 → E.8 (spec def.lipschitz_L): L_f = 2ndR³, L_p1 = 3√n L_f,
    L_diag = 3n L_f, L_p2 = (3n^{1.5} + 2n) L_f, the chain's R³(L_p1 + L_p2) + λ, and the stated
    L = 16 n^{2.5} d R⁶ + λ of Theorem 5.4."""
    lam = check_lambda(lam)
    R = mp.mpf(R)
    if not R > 1:
        raise ValueError(f"R={R!r} must be > 1 (Assumption D.1)")
    n, d = mp.mpf(n), mp.mpf(d)
    L_f = 2 * n * d * R ** 3
    L_p1 = 3 * mp.sqrt(n) * L_f
    L_p2 = (3 * n ** mp.mpf(1.5) + 2 * n) * L_f
    return {"L_f": L_f, "L_p1": L_p1, "L_diag": 3 * n * L_f, "L_p2": L_p2,
            "L_chain": R ** 3 * (L_p1 + L_p2) + lam, "L": 16 * n ** mp.mpf(2.5) * d * R ** 6 + lam}


def pl_constants(X, W, lam, delta) -> dict:
    """μ = 2·min|W|·β·δ, ξ_thm = 12 n^{-1.5} max|W| ‖X‖_F² λd/μ (Thm 4.1), ξ_lem = 12√n max|W| ‖X‖_F²
    λd/μ (Lemma 5.5), α1 = 6√n max|W| ‖X‖_F² λd, κ = μ/2, β = λ_min(XXᵀ) (spec def.mu_xi).  ``delta``
    is the δ of the hypothesis min f̃ ≥ δ (the caller's choice: at one point or over a trajectory)."""
    lam = check_lambda(lam)
    check_mp(X, "X", ndim=2)
    check_mp(W, "W", ndim=2)
    delta = check_mp(delta, "delta", ndim=0)
    n, d = X.rows, X.cols
    beta = min(eigvalsh(X * X.T))
    kappa = min_abs(W) * beta * mp.mpf(delta)
    mu = 2 * kappa
    fx2 = mp.fsum(v * v for v in X)
    alpha1 = 6 * mp.sqrt(n) * max_abs(W) * fx2 * lam * d
    xi_lem = 2 * alpha1 / mu if mu > 0 else mp.inf
    return {"beta": beta, "kappa": kappa, "mu": mu, "alpha1": alpha1, "xi_lem": xi_lem,
            "xi_thm": xi_lem / mp.mpf(n) ** 2}


# -- Algorithm 1 in exact arithmetic -------------------------------------------------------------

def gd_trajectory(X, W, lam, eta, T: int, M0, Mc=None, *, observe=None):
    """Algorithm 1 (spec alg.gd): M_{t+1} = M_t − η(W∘(Xᵀp(M_t)X) + λM_t), T steps from M0, at the
    working precision.  The step uses the closed form, which :func:`gradient_numerical` judges
    separately (thm5.3); a caller judging convergence relies on that verdict.

    ``observe(t, M_t, f̃(M_t), c(M_t))`` is called for t = 0..T with the three as lists of rows of mpf
    (the trajectory is never stored); it may return True to stop early.  Returns the last iterate
    (an ``mp.matrix``).
    """
    lam = check_lambda(lam)
    eta = mp.mpf(eta)
    if not eta > 0:
        raise ValueError(f"eta={eta!r} must be > 0")
    if int(T) != T or T < 0:
        raise ValueError(f"T={T!r} must be an integer >= 0")
    _check_problem(X, W, M0, Mc)
    n, d = X.rows, X.cols
    # plain lists of mpf (mp.matrix arithmetic costs ~10x more per entry in a loop of thousands of steps)
    Xl = [[X[i, a] for a in range(d)] for i in range(n)]
    Wl = [[W[a, b] for b in range(d)] for a in range(d)]
    allowed = [[Mc is None or Mc[i, j] == 1 for j in range(n)] for i in range(n)]

    def softmax(Ml):
        H = [[Ml[a][b] * Wl[a][b] for b in range(d)] for a in range(d)]
        XH = [[mp.fsum(Xl[i][a] * H[a][b] for a in range(d)) for b in range(d)] for i in range(n)]
        out = []
        for i in range(n):
            row = [mp.exp(mp.fsum(XH[i][b] * Xl[j][b] for b in range(d))) if allowed[i][j] else mp.mpf(0)
                   for j in range(n)]
            alpha = mp.fsum(row)
            if alpha == 0:
                raise ValueError(f"Mc must leave at least one entry of row {i} unmasked")
            out.append([v / alpha for v in row])
        return out

    f = softmax([[mp.mpf(1)] * d for _ in range(d)])
    Ml = [[M0[a, b] for b in range(d)] for a in range(d)]
    for t in range(int(T) + 1):
        ft = softmax(Ml)
        c = [[ft[i][j] - f[i][j] for j in range(n)] for i in range(n)]
        if observe is not None and observe(t, Ml, ft, c):
            break
        if t == T:
            break
        p = []
        for i in range(n):
            p1 = [ft[i][j] * c[i][j] for j in range(n)]
            s = mp.fsum(p1)
            p.append([p1[j] - s * ft[i][j] for j in range(n)])
        pX = [[mp.fsum(p[i][j] * Xl[j][b] for j in range(n)) for b in range(d)] for i in range(n)]
        Ml = [[Ml[a][b] - eta * (Wl[a][b] * mp.fsum(Xl[i][a] * pX[i][b] for i in range(n)) + lam * Ml[a][b])
               for b in range(d)] for a in range(d)]
    return mp.matrix(Ml)
