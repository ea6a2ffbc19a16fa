"""Paper 000's objects in ball arithmetic, for its certificates: the masked softmax attention
f̃(M) (Defs 3.2, B.1–B.3), c = f̃ − f (Def B.4), p (Def C.1), A = W∘(Xᵀp(M)X) (Lemma F.2), the loss
(Def 1.2/3.2) and its gradient by forward-mode differentiation (``arb_series``: no formula of the
paper, docs/development.md#independence), the constants of spec def.mu_xi and def.lipschitz_L, Algorithm 1 (spec
alg.gd) and the relative attention error (spec def.rel_error).

Inputs are exact (``fmpq_mat``/``fmpq`` from :mod:`oracle.ball`); every result is an ``arb`` enclosure
at the current ``flint.ctx.prec``.  The mpmath oracle (:mod:`oracle.attention_pruning`) is not used:
the formulas are written again here on :mod:`oracle.ball`'s primitives.
"""

from __future__ import annotations

from flint import arb, arb_mat, arb_series, fmpq, fmpq_mat

from oracle import ball

__all__ = ["attention", "beta", "data_gradient", "gd_steps", "inner", "loss_gradient", "max_abs",
           "min_abs", "parts", "radius", "relative_error", "scores", "smoothness_L", "to_arb"]


def to_arb(q) -> arb:
    """An exact number (``fmpq``, int) as a ball (exact when dyadic within the precision)."""
    return arb(ball.exact(q)) if not isinstance(q, arb) else q


def _rows(a) -> list[list]:
    if isinstance(a, (fmpq_mat, arb_mat)):
        return [[a[i, j] for j in range(a.ncols())] for i in range(a.nrows())]
    return a


def inner(a, b) -> arb:
    """⟨a, b⟩ = Σ_ij a_ij b_ij."""
    return sum((x * y for ra, rb in zip(_rows(a), _rows(b)) for x, y in zip(ra, rb)), arb(0))


def max_abs(q: fmpq_mat) -> fmpq:
    """max_ij |q_ij| of an exact matrix, exactly."""
    return max(abs(x) for row in _rows(q) for x in row)


def min_abs(q: fmpq_mat) -> fmpq:
    """min_ij |q_ij| of an exact matrix, exactly (μ of Lemma 5.5 is proportional to it)."""
    return min(abs(x) for row in _rows(q) for x in row)


# -- f̃, c, p and A (Defs 3.2, B.1–B.4, C.1; Lemma F.2) ------------------------------------------------

def _softmax_rows(S: list[list], causal: bool) -> list[list]:
    """Row softmax of the logits S over the entries j ≤ i (``causal``, Def 3.1) or all; a masked entry is
    exactly 0 (exp(S)∘M_c).  Works on ``arb`` and on ``arb_series`` entries alike."""
    out = []
    for i, row in enumerate(S):
        e = [s.exp() if not causal or j <= i else 0 * s for j, s in enumerate(row)]
        alpha = sum(e[1:], e[0])
        out.append([v / alpha for v in e])
    return out


def scores(X: fmpq_mat, H) -> list[list[arb]]:
    """S = X H Xᵀ (H = M∘W), as rows of balls."""
    Xa = arb_mat(X)
    return _rows(Xa * ball.matrix(H) * Xa.transpose())


def attention(X: fmpq_mat, H, causal: bool) -> list[list[arb]]:
    """softmax(X H Xᵀ) row by row (masked when ``causal``): f̃(M) for H = M∘W, f for H = W."""
    return _softmax_rows(scores(X, H), causal)


def parts(X: fmpq_mat, W: fmpq_mat, M, causal: bool) -> dict:
    """f̃(M), f = f̃(1), c = f̃ − f, p1 = f̃∘c, p2 = diag(p1 1_n) f̃ and p = p1 − p2 (Defs B.3, B.4, C.1)."""
    ft = attention(X, ball.entrywise(M, W), causal)
    f = attention(X, W, causal)
    c = [[a - b for a, b in zip(ra, rb)] for ra, rb in zip(ft, f)]
    p1 = [[a * b for a, b in zip(ra, rb)] for ra, rb in zip(ft, c)]
    s = [sum(row, arb(0)) for row in p1]
    p2 = [[s[i] * v for v in ft[i]] for i in range(len(ft))]
    p = [[a - b for a, b in zip(ra, rb)] for ra, rb in zip(p1, p2)]
    return {"ft": ft, "f": f, "c": c, "p1": p1, "p2": p2, "p": p}


def data_gradient(X: fmpq_mat, W: fmpq_mat, p: list[list[arb]]) -> list[list[arb]]:
    """A = W∘(Xᵀ p X), the data part of Theorem 5.3's closed form (Lemma F.2's A)."""
    Xa = arb_mat(X)
    n = len(p)
    core = Xa.transpose() * arb_mat(n, n, [v for row in p for v in row]) * Xa
    return _rows(ball.entrywise(W, core))


def loss_gradient(X: fmpq_mat, W: fmpq_mat, M: fmpq_mat, lam, causal: bool) -> list[list[arb]]:
    """∇_M L(M) for L(M) = ½‖f̃(M) − f‖_F² + (λ/2)‖M‖_F² (Def 1.2; Def 3.2 when ``causal``), each entry the
    exact derivative of L along M_ab enclosed by first-order ``arb_series`` arithmetic (forward mode):
    derivation-independent, no formula of the paper (Thm 5.3) is used."""
    Xr, Wr, Mr = _rows(X), _rows(W), _rows(M)
    n, d = len(Xr), len(Wr)
    lam = to_arb(lam)
    f = attention(X, W, causal)
    S = scores(X, ball.entrywise(M, W))
    grad = [[arb(0)] * d for _ in range(d)]
    for a in range(d):
        for b in range(d):
            dS = [[arb(Xr[i][a] * Wr[a][b] * Xr[j][b]) for j in range(n)] for i in range(n)]
            ser = [[arb_series([S[i][j], dS[i][j]], prec=2) for j in range(n)] for i in range(n)]
            ft = _softmax_rows(ser, causal)
            rec = sum(((ft[i][j] - f[i][j]) * (ft[i][j] - f[i][j]) for i in range(n) for j in range(n)),
                      arb_series([0], prec=2))
            m_ab = arb_series([arb(Mr[a][b]), 1], prec=2)
            total = rec / 2 + (m_ab * m_ab) * (lam / 2)
            grad[a][b] = total[1]  # the terms of ‖M‖² other than M_ab do not vary along M_ab
    return grad


# -- constants (spec def.mu_xi, def.lipschitz_L) -----------------------------------------------------

def beta(X: fmpq_mat) -> arb:
    """β = λ_min(XXᵀ), enclosed by :func:`oracle.ball.eigvalsh` (raises UndecidableError when the
    eigenvalues are not isolated at this precision)."""
    return ball.least(ball.eigvalsh(X * X.transpose()))


def radius(X: fmpq_mat, W: fmpq_mat) -> arb:
    """R = max(‖X‖_F, ‖W‖_F, 1)·(1 + 10⁻⁹), the smallest admissible R > 1 of Assumption D.1 (spec)."""
    return ball.greatest([ball.frobenius(X), ball.frobenius(W), arb(1)]) * (1 + arb(fmpq(1, 10 ** 9)))


def smoothness_L(n: int, d: int, R: arb, lam) -> arb:
    """L = 16 n^{2.5} d R⁶ + λ (Theorem 5.4, spec def.lipschitz_L)."""
    return 16 * arb(n) ** 2 * arb(n).sqrt() * d * R ** 6 + to_arb(lam)


# -- Algorithm 1 (spec alg.gd) -------------------------------------------------------------------------

def gd_steps(X: fmpq_mat, W: fmpq_mat, M0: fmpq_mat, lam, eta: arb, causal: bool = False):
    """Algorithm 1 in balls: yields (t, M_t, f̃(M_t), c(M_t)) for t = 0, 1, … (the caller stops), with
    M_{t+1} = M_t − η(W∘(Xᵀp(M_t)X) + λM_t) (lines 7–15 of spec alg.gd, no projection)."""
    lam = to_arb(lam)
    d = W.nrows()
    M = arb_mat(M0)
    t = 0
    while True:
        pr = parts(X, W, M, causal)
        yield t, M, pr["ft"], pr["c"]
        A = data_gradient(X, W, pr["p"])
        M = M - arb_mat(d, d, [A[a][b] + lam * M[a, b] for a in range(d) for b in range(d)]) * eta
        t += 1


# -- the experiment's metric (spec def.rel_error) -------------------------------------------------------

def relative_error(X: fmpq_mat, W: fmpq_mat, W_pruned: fmpq_mat, causal: bool = True) -> arb:
    """‖f̃ − f‖_F/‖f‖_F with f = softmax(XWXᵀ) and f̃ = softmax(X W_pruned Xᵀ) under the same mask."""
    f = attention(X, W, causal)
    g = attention(X, W_pruned, causal)
    return ball.frobenius([[a - b for a, b in zip(ra, rb)] for ra, rb in zip(g, f)]) / ball.frobenius(f)
