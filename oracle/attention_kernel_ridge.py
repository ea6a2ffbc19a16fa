"""Oracle of Section L of paper 004 (attention-kernel regression): the attention kernel, its Taylor
truncation, the statistical dimension, the polynomial sketch 𝒵(S, T, X) of Algorithm 8 and the
exact kernel ridge solution.

Spec: ``shared/spec/attention_kernel_regression.md`` (``def.attn_kernel``, ``def.Q``,
``def.statdim``, ``def.Z``, ``alg.8``, ``alg.Wg``, ``alg.7R``; the stable rank of ``def.srank`` is
:func:`oracle.linalg.stable_rank`).  Pure mpmath (numpy only to read float64 instances and integer
random bits); nothing here imports JAX or ``solvers``.

Conventions (Section L): the data is ``X ∈ R^{d×n}`` with **columns** ``x_i``; the kernel is
``K = exp(XᵀX)`` entrywise, ``K_ij = e^{⟨x_i, x_j⟩}``.  The random bits of the base sketches are
those documented in ``solvers/sketches.py`` (read, never imported): SRHT
``{"n", "signs" (n_pad,), "rows" (m,)}`` and TensorSRHT
``{"d1", "d2", "signs1", "signs2", "rows1", "rows2"}``, parsed, transformed (exact integer Hadamard
butterflies) and scheduled (Algorithm 8) by :mod:`oracle.sketch_bits`.  Bad input raises ``ValueError`` naming the
argument and the rule.
"""

from __future__ import annotations

from mpmath import mp

from . import linalg, sketch_bits
from .precision import check_int, check_mp, to_mp

__all__ = [
    "MAX_DEGREE",
    "attention_kernel",
    "kernel_features",
    "plain_distortion",
    "ridge_distortion",
    "ridge_solution",
    "richardson_residuals",
    "sketch_magnitude",
    "statistical_dimension",
    "taylor_degree",
    "taylor_kernel",
    "taylor_remainder",
    "taylor_tail",
    "tensor_gram",
    "tensor_sketch",
]

MAX_DEGREE = 200
"""The largest Taylor degree q the oracle accepts (q! then has ~375 digits)."""


# ----------------------------------------------------------------------------- input checks


def _data(X, name="X"):
    """``X`` (d×n, columns are the points) as an ``mp.matrix``."""
    return to_mp(X, name, ndim=2)


def _square(K, name="K"):
    K = _data(K, name)
    if K.rows != K.cols:
        raise ValueError(f"{name} is {K.rows}x{K.cols}; it must be square")
    return K


def _positive(lam, name="lam"):
    lam = mp.mpf(check_mp(lam, name, ndim=0))
    if not mp.isfinite(lam) or lam <= 0:
        raise ValueError(f"{name}={mp.nstr(lam, 5)} must be a finite number > 0")
    return lam


def _column(y, n, name="y"):
    v = to_mp(y, name, ndim=1)
    if v.rows != n:
        raise ValueError(f"{name} has shape {v.rows}x{v.cols}; it must be a vector of length n={n}")
    return v


# ----------------------------------------------------------------------------- kernels


def attention_kernel(X):
    """``K = exp(XᵀX)`` entrywise for ``X ∈ R^{d×n}`` (def.attn_kernel, Section L convention)."""
    G = linalg.gram(_data(X))
    n = G.rows
    K = mp.matrix(n, n)
    for i in range(n):
        for j in range(i, n):
            K[i, j] = K[j, i] = mp.exp(G[i, j])  # G is exactly symmetric
    return K


def tensor_gram(X, p: int):
    """``(X^{⊗p})ᵀX^{⊗p} = (XᵀX)^{∘p}`` (id.tensor_gram), the Gram of the degree-p tensors."""
    p = check_int(p, "p", minimum=0, maximum=MAX_DEGREE)
    G = linalg.gram(_data(X))
    return mp.matrix([[G[i, j] ** p for j in range(G.cols)] for i in range(G.rows)])


def taylor_kernel(X, q: int):
    """``Q_q = Σ_{l=0}^{q} (XᵀX)^{∘l}/l!`` (def.Q: q + 1 terms)."""
    q = check_int(q, "q", minimum=0, maximum=MAX_DEGREE)
    G = linalg.gram(_data(X))
    return mp.matrix([[mp.fsum(G[i, j] ** l / mp.factorial(l) for l in range(q + 1)) for j in range(G.cols)]
                      for i in range(G.rows)])


def taylor_remainder(X, q: int):
    """``K − Q_q = Σ_{l>q} (XᵀX)^{∘l}/l!`` summed as its own series (no cancellation against K):
    entry g gives ``Σ_{l>q} g^l/l!``, summed until the terms fall below the working precision."""
    q = check_int(q, "q", minimum=0, maximum=MAX_DEGREE)
    G = linalg.gram(_data(X))
    eps = mp.mpf(10) ** (-(mp.dps + 5))

    def tail(g):
        term = g ** (q + 1) / mp.factorial(q + 1)
        total, l = mp.mpf(0), q + 1
        while True:
            total += term
            l += 1
            term = term * g / l
            if l > abs(g) + 1 and abs(term) <= eps * abs(total):
                return total

    return mp.matrix([[tail(G[i, j]) if G[i, j] != 0 else mp.mpf(0) for j in range(G.cols)] for i in range(G.rows)])


def taylor_tail(r, n: int, q: int):
    """``n · Σ_{l>q} r^{2l}/l! = n · e^{r²} · P(q+1, r²)`` (def.Q), P the regularized lower
    incomplete gamma: the Frobenius bound on ``‖K − Q_q‖`` when every ``‖x_i‖ ≤ r``."""
    r = mp.mpf(check_mp(r, "r", ndim=0))
    if not mp.isfinite(r) or r < 0:
        raise ValueError(f"r={mp.nstr(r, 5)} must be a finite number >= 0")
    n = check_int(n, "n", minimum=1)
    q = check_int(q, "q", minimum=0, maximum=MAX_DEGREE)
    mu = r * r
    if mu == 0:
        return mp.mpf(0)
    return n * mp.exp(mu) * mp.gammainc(q + 1, 0, mu, regularized=True)


def taylor_degree(r, n: int, tau):
    """The smallest q with ``n · Σ_{l>q} r^{2l}/l! ≤ τ`` (alg.Wg step 2)."""
    tau = _positive(tau, "tau")
    for q in range(MAX_DEGREE + 1):
        if taylor_tail(r, n, q) <= tau:
            return q
    raise ValueError(f"tau={mp.nstr(tau, 5)} needs a degree above MAX_DEGREE={MAX_DEGREE} for r={r}, n={n}")


def statistical_dimension(K, lam):
    """``s_λ(K) = tr(K(K + λI)^{-1}) = Σ_i λ_i/(λ_i + λ)`` for symmetric PSD K (def.statdim)."""
    K = _square(K)
    lam = _positive(lam)
    ev = linalg.eigvalsh(K)
    if ev[0] < -mp.mpf(10) ** (-(mp.dps - 10)) * max(abs(ev[-1]), 1):
        raise ValueError(f"K must be PSD (its smallest eigenvalue is {mp.nstr(ev[0], 5)})")
    return mp.fsum(max(v, 0) / (max(v, 0) + lam) for v in ev)


def ridge_solution(K, y, lam):
    """The exact kernel ridge solution ``x* = (K + λI)^{-1} y`` (alg.7R's target)."""
    K = _square(K)
    lam = _positive(lam)
    return linalg.solve(K + lam * mp.eye(K.rows), _column(y, K.rows))


# ----------------------------------------------------------------------------- Algorithm 8


def _hadamard_integers(v, signs):
    """``H D v̄`` (unnormalised Sylvester H of order len(signs), v zero-padded) as ``(k, E)``: the
    exact integers ``k`` (a list) with ``H D v̄ ≈ k·2^E``.

    The butterflies run on integers: every entry of ``D v̄`` is written as an integer multiple of
    one power of two 2^E, E = ``mp.prec + 2⌈log₂N⌉ + 16`` bits below the largest entry's leading
    bit (read from the mpf's own mantissa and exponent and shifted: exact up to truncation toward
    zero by less than 2^E), so every sum and difference is exact.  The error is at most N·2^E,
    below the rounding of one mpf butterfly of the largest entry; the integer sums are also about
    20× faster.  The callers gather rows from ``k`` and round once, to mpf, only the entries they use.
    """
    N = len(signs)
    parts = [mp.mpf(x)._mpf_ for x in v[:N]]  # (sign, mantissa, exponent, bit count): x = ±man·2^exp
    top = max((ex + bc for _, man, ex, bc in parts if man), default=None)  # frexp's exponent of max|x|
    if top is None:
        return [0] * N, 0
    E = top - (mp.prec + 2 * max(1, (N - 1).bit_length()) + 16)
    ints = []
    for neg, man, ex, _ in parts:
        k = int(man) << (ex - E) if ex >= E else int(man) >> (E - ex)  # Python ints: faster sums than mpz
        ints.append(-k if neg else k)
    return sketch_bits.hadamard_signed(ints, signs), E


def _apply_T(parts, x):
    _, signs, rows = parts
    k, E = _hadamard_integers(x, [int(s) for s in signs])
    c = 1 / mp.sqrt(len(rows))
    return [c * mp.mpf((k[i], E)) for i in rows.tolist()]


def _apply_S(parts, u, v):
    """``(1/√m)·(H D₁ū)[r₁]·(H D₂v̄)[r₂]``: each product of two gathered integers is exact, so every
    output is rounded twice (the product to mpf, then 1/√m)."""
    _, _, s1, s2, r1, r2 = parts
    a, Ea = _hadamard_integers(u, [int(s) for s in s1])
    b, Eb = _hadamard_integers(v, [int(s) for s in s2])
    c = 1 / mp.sqrt(len(r1))
    return [c * mp.mpf((a[i] * b[j], Ea + Eb)) for i, j in zip(r1.tolist(), r2.tolist())]


def tensor_sketch(X, p: int, T_bits, S_bits):
    """``𝒵(S, T, X) ∈ R^{m×n}`` (def.Z): column i is Algorithm 8 (TensorSketchViaLimRand) applied to
    ``x_i`` with degree p, the SRHT ``T: R^d → R^m`` and the TensorSRHT ``S: R^m × R^m → R^m``
    defined by their bits (one S and one T for every level: limited randomness).

    ``w₀ = Tx``, ``w_l = S(w_{l−1} ⊗ w_{l−1})`` for l = 1..⌊log₂p⌋, then ``z = w_{i₀}`` and
    ``z = S(z ⊗ w_i)`` for the other set bits i of p in increasing order; ``z`` sketches ``x^{⊗p}``.
    """
    X = _data(X)
    columns = _sketch_columns(X, p, T_bits, S_bits)
    Z = mp.matrix(len(columns[0]), X.cols)
    for col, z in enumerate(columns):
        for k, value in enumerate(z):
            Z[k, col] = value
    return Z


def _sketch_columns(X, p, T_bits, S_bits) -> list:
    """The columns of :func:`tensor_sketch` (``X`` an mp.matrix), each a list of m mpf."""
    p = check_int(p, "p", minimum=1, maximum=MAX_DEGREE)
    T = sketch_bits.srht_parts(T_bits, "T_bits")
    if T[0] != X.rows:
        raise ValueError(f"T_bits['n']={T[0]} must equal the data dimension d=X.rows={X.rows}")
    m = len(T[2])
    S = None
    if p > 1:  # Algorithm 8 applies S only from degree 2 on
        S = sketch_bits.tensor_srht_parts(S_bits, "S_bits")
        if (S[0], S[1], len(S[4])) != (m, m, m):
            raise ValueError(f"S_bits must define a TensorSRHT R^{m} × R^{m} → R^{m} (got d1={S[0]}, d2={S[1]}, "
                             f"m={len(S[4])})")
    return [sketch_bits.algorithm8(p, _apply_T(T, [X[a, col] for a in range(X.rows)]), lambda u, v: _apply_S(S, u, v))
            for col in range(X.cols)]


def sketch_magnitude(X, p: int, m: int):
    """The magnitude of every entry of column i of ``𝒵(S, T, X)`` computed with absolute values
    (|x|, every sign and Hadamard entry +1): ``a₀ = ‖x_i‖₁/√m`` and ``a(S(u ⊗ v)) = m^{3/2}·a_u·a_v``
    (each gathered entry of ``H D ū`` sums m terms of size a_u).  Returns the 1×n row of these
    magnitudes: the scale of the rounding error of a float64 evaluation of Algorithm 8."""
    X = _data(X)
    p = check_int(p, "p", minimum=1, maximum=MAX_DEGREE)
    m = check_int(m, "m", minimum=1)
    out = mp.matrix(1, X.cols)
    for col in range(X.cols):
        a0 = mp.fsum(abs(X[k, col]) for k in range(X.rows)) / mp.sqrt(m)
        out[0, col] = sketch_bits.algorithm8(p, a0, lambda u, v: mp.mpf(m) ** 1.5 * u * v)
    return out


def kernel_features(X, bits):
    """``W_g(X) = [1ᵀ; Z₁/√1!; …; Z_q/√q!]`` (alg.Wg step 5), ``Z_l = 𝒵(S_l, T_l, X)`` with degree
    l; ``bits`` is a sequence of q pairs ``(T_bits, S_bits)`` (independent sketches per degree).
    ``W_gᵀW_g = Σ_{l=0}^{q} Z_lᵀZ_l/l!`` sketches ``Q_q``."""
    X = _data(X)
    if not isinstance(bits, (list, tuple)):
        raise ValueError("bits must be a sequence of (T_bits, S_bits) pairs, one per degree l = 1..q")
    blocks = [[[mp.one] for _ in range(X.cols)]]  # per block, its columns: the row of ones, then Z_l/√l!
    for l, pair in enumerate(bits, start=1):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ValueError(f"bits[{l - 1}] must be a pair (T_bits, S_bits)")
        scale = mp.sqrt(mp.factorial(l))
        blocks.append([[x / scale for x in z] for z in _sketch_columns(X, l, pair[0], pair[1])])
    W = mp.matrix(sum(len(B[0]) for B in blocks), X.cols)
    for j in range(X.cols):
        column = [x for B in blocks for x in B[j]]
        for i, value in enumerate(column):
            W[i, j] = value
    return W


# ----------------------------------------------------------------------------- sandwiches, Algorithm 7R


def _inverse_sqrt(A, name):
    lam, Q = linalg.converged(lambda: mp.eigsy(linalg.symmetric_part(A)), "eigsy")
    if min(lam[i] for i in range(A.rows)) <= 0:
        raise ValueError(f"{name} must be positive definite")
    return Q * mp.diag([1 / mp.sqrt(lam[i]) for i in range(A.rows)]) * Q.T


def ridge_distortion(W, K, lam):
    """The smallest ε with ``(1−ε)(K+λI) ⪯ WᵀW + λI ⪯ (1+ε)(K+λI)`` (thmL.8 ridge form):
    ``max(1 − μ_min, μ_max − 1)``, μ the eigenvalues of ``(K+λI)^{-1/2}(WᵀW+λI)(K+λI)^{-1/2}``."""
    K = _square(K)
    W = _data(W, "W")
    lam = _positive(lam)
    if W.cols != K.rows:
        raise ValueError(f"W has {W.cols} columns; it must have n={K.rows} (one per point)")
    I = mp.eye(K.rows)
    R = _inverse_sqrt(K + lam * I, "K + λI")
    mu = linalg.eigvalsh(linalg.symmetric_part(R * (linalg.gram(W) + lam * I) * R))
    return max(1 - mu[0], mu[-1] - 1)


def plain_distortion(Z, M):
    """The smallest ε with ``(1−ε)M ⪯ ZᵀZ ⪯ (1+ε)M`` for positive definite M (thmL.6):
    ``max |μ − 1|`` over the eigenvalues μ of ``M^{-1/2} ZᵀZ M^{-1/2}``."""
    M = _square(M, "M")
    Z = _data(Z, "Z")
    if Z.cols != M.rows:
        raise ValueError(f"Z has {Z.cols} columns; it must have n={M.rows}")
    R = _inverse_sqrt(M, "M")
    mu = linalg.eigvalsh(linalg.symmetric_part(R * linalg.gram(Z) * R))
    return max(1 - mu[0], mu[-1] - 1)


def richardson_residuals(K, W, y, lam, steps: int):
    """Residuals ``r_t = y − (K+λI)x_t``, t = 0..steps, of Algorithm 7R run exactly:
    ``x₀ = 0``, ``x_{t+1} = x_t + P r_t`` with ``P = (WᵀW + λI)^{-1}``.  Returns the list of
    ``(‖r_t‖, ‖P^{1/2} r_t‖)``."""
    K = _square(K)
    W = _data(W, "W")
    lam = _positive(lam)
    steps = check_int(steps, "steps", minimum=0, maximum=10_000)
    if W.cols != K.rows:
        raise ValueError(f"W has {W.cols} columns; it must have n={K.rows}")
    y = _column(y, K.rows)
    I = mp.eye(K.rows)
    B = linalg.gram(W) + lam * I
    A = K + lam * I
    Ph = _inverse_sqrt(B, "WᵀW + λI")
    x = mp.matrix(K.rows, 1)
    out = []
    for t in range(steps + 1):
        r = y - A * x
        out.append((linalg.norm2(r), linalg.norm2(Ph * r)))
        if t < steps:
            x = x + linalg.solve(B, r)
    return out
