"""Oracle of "Solving Attention Kernel Regression Problem via Pre-conditioner" (paper 004).

Spec: ``shared/spec/attention_kernel_regression.md``.  Pure mpmath (numpy only to read the float64
instances and the integer random bits).  Nothing here imports JAX or ``solvers``: the sketch
matrices are rebuilt from the random bits alone, following the definitions of spec §2
(``def.srht``, ``def.tensorsrht``, ``def.osnap``, ``def.countsketch``) and the
bits format documented in ``solvers/sketches.py`` (read, never imported):

- SRHT ``{"n", "signs" (n_pad,), "rows" (m,)}``:
  ``S[k, i] = signs[i]·(−1)^{popcount(rows[k] & i)}/√m`` for ``i < n`` (zero padding to
  ``n_pad = 2^{⌈log2 n⌉}``).
- TensorSRHT ``{"d1", "d2", "signs1", "signs2", "rows1", "rows2"}``:
  ``S[k, a·d2 + b] = H[rows1[k], a]·signs1[a]·H[rows2[k], b]·signs2[b]/√m``.
- OSNAP ``{"m", "rows" (s, n), "signs" (s, n)}``: ``S[rows[t, j], j] += signs[t, j]/√s``.
- CountSketch ``{"m", "rows" (n,), "signs" (n,)}``: ``S[rows[j], j] = signs[j]``.
- Gaussian ``{"g" (m, n)}``: ``S = g/√m``.

Conventions: vectors are n×1 ``mp.matrix``.  The primitives this paper shares with the others live
in :mod:`oracle.linalg`, once: the Walsh–Hadamard matrix of def.hadamard (``walsh_hadamard``),
AᵀA (``gram``), the stable rank of def.srank (``stable_rank``), exact ranks over the rationals
(``exact_rank``), and σ_min/κ, whose paper convention is ``convention="paper"``
(``min_{‖x‖=1}‖Mx‖``, 0 for a wide matrix; ``linalg.sigma_min``'s default is ``σ_{min(r,c)}``).
Bad input raises ``ValueError`` naming the argument and the rule.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from mpmath import mp

from . import linalg
from .precision import as_float_array, check_int, to_mp

__all__ = [
    "ExactGram",
    "backward_error_lstsq",
    "distortion_from_grams",
    "sketch_grams",
    "sketch_int_matrix",
    "sketch_times_int",
    "countsketch_matrix",
    "exact_residual_sq",
    "exp_kernel",
    "int_scaled",
    "gaussian_matrix",
    "lstsq_full_rank",
    "opt_attention",
    "opt_lstsq",
    "osnap_matrix",
    "pinv_norm",
    "projector",
    "psd_power",
    "psd_sqrt",
    "srht_matrix",
    "subspace_distortion",
    "tensor_srht_matrix",
]


# ----------------------------------------------------------------------------- input checks


def _int_matrix(N, name):
    """A 2-D numpy array of exact integers (integer dtype, or object dtype holding Python ints)."""
    if not isinstance(N, np.ndarray) or N.ndim != 2 or N.size == 0:
        raise ValueError(f"{name} must be a non-empty 2-d numpy array of integers")
    if N.dtype == object:
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in N.flat):
            raise ValueError(f"{name} must hold only integers")
    elif not np.issubdtype(N.dtype, np.integer):
        raise ValueError(f"{name} must be an integer array, got dtype {N.dtype}")
    return N


def _fraction_square(M, name):
    """A square list of lists of Fractions/ints (an exact Gram matrix), validated."""
    if not isinstance(M, (list, tuple)) or not M or not all(isinstance(r, (list, tuple)) and len(r) == len(M) for r in M):
        raise ValueError(f"{name} must be a non-empty square list of rows")
    for row in M:
        for v in row:
            if isinstance(v, bool) or not isinstance(v, (Fraction, int)):
                raise ValueError(f"{name} must hold exact rationals (Fraction or int), got {type(v).__name__}")
    return M


def _int0(bits, key, name="bits", minimum=1):
    if not isinstance(bits, dict) or key not in bits:
        raise ValueError(f"{name} must be a dict with key {key!r}")
    arr = np.asarray(bits[key])
    if arr.ndim != 0 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name}[{key!r}]={bits[key]!r} must be a 0-d integer")
    v = int(arr)
    if v < minimum:
        raise ValueError(f"{name}[{key!r}]={v} must be >= {minimum}")
    return v


def _ints(bits, key, ndim, name="bits"):
    if not isinstance(bits, dict) or key not in bits:
        raise ValueError(f"{name} must be a dict with key {key!r}")
    arr = np.asarray(bits[key])
    if arr.ndim != ndim or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name}[{key!r}] must be a {ndim}-d integer array (got dtype {arr.dtype}, "
                         f"ndim {arr.ndim})")
    return arr.astype(np.int64)


def _signs(arr, name):
    if arr.size and not np.all(np.abs(arr) == 1):
        raise ValueError(f"{name} must hold only -1 and +1")
    return arr


def _next_pow2(n: int) -> int:
    return 1 << (n - 1).bit_length()


def _popcount_sign(a: int, b: int) -> int:
    return -1 if bin(a & b).count("1") % 2 else 1


# ----------------------------------------------------------------------------- sketches


def srht_matrix(bits):
    """The m×n SRHT of spec def.srht defined by ``bits`` (``S = P H D [I; 0]/√m``)."""
    n = _int0(bits, "n")
    signs = _signs(_ints(bits, "signs", 1), "bits['signs']")
    rows = _ints(bits, "rows", 1)
    n_pad = _next_pow2(n)
    if signs.shape[0] != n_pad:
        raise ValueError(f"bits['signs'] has length {signs.shape[0]}, must be n_pad={n_pad} (next power of two >= n)")
    if rows.size == 0:
        raise ValueError("bits['rows'] must not be empty (m >= 1)")
    if rows.min() < 0 or rows.max() >= n_pad:
        raise ValueError(f"bits['rows'] must lie in [0, n_pad={n_pad})")
    m = rows.shape[0]
    c = 1 / mp.sqrt(m)
    S = mp.matrix(m, n)
    for k in range(m):
        r = int(rows[k])
        for i in range(n):
            S[k, i] = c * (int(signs[i]) * _popcount_sign(r, i))
    return S


def tensor_srht_matrix(bits):
    """The m×(d1·d2) TensorSRHT of spec def.tensorsrht (kron convention ``[a·d2 + b]``)."""
    d1, d2 = _int0(bits, "d1"), _int0(bits, "d2")
    s1 = _signs(_ints(bits, "signs1", 1), "bits['signs1']")
    s2 = _signs(_ints(bits, "signs2", 1), "bits['signs2']")
    r1, r2 = _ints(bits, "rows1", 1), _ints(bits, "rows2", 1)
    p1, p2 = _next_pow2(d1), _next_pow2(d2)
    if s1.shape[0] != p1 or s2.shape[0] != p2:
        raise ValueError(f"bits['signs1'], bits['signs2'] must have lengths {p1}, {p2} (next powers of two)")
    if r1.shape != r2.shape or r1.size == 0:
        raise ValueError("bits['rows1'] and bits['rows2'] must be non-empty and of one length m")
    if r1.min() < 0 or r1.max() >= p1 or r2.min() < 0 or r2.max() >= p2:
        raise ValueError(f"bits['rows1'] must lie in [0, {p1}) and bits['rows2'] in [0, {p2})")
    m = r1.shape[0]
    c = 1 / mp.sqrt(m)
    S = mp.matrix(m, d1 * d2)
    for k in range(m):
        for a in range(d1):
            ha = int(s1[a]) * _popcount_sign(int(r1[k]), a)
            for b in range(d2):
                S[k, a * d2 + b] = c * (ha * int(s2[b]) * _popcount_sign(int(r2[k]), b))
    return S


def osnap_matrix(bits, n: int | None = None):
    """The m×n OSNAP of spec def.osnap: ``S[rows[t, j], j] += signs[t, j]/√s``."""
    m = _int0(bits, "m")
    rows = _ints(bits, "rows", 2)
    signs = _signs(_ints(bits, "signs", 2), "bits['signs']")
    if rows.shape != signs.shape or rows.shape[0] < 1 or rows.shape[1] < 1:
        raise ValueError(f"bits['rows'] {rows.shape} and bits['signs'] {signs.shape} must have one non-empty shape (s, n)")
    if rows.min() < 0 or rows.max() >= m:
        raise ValueError(f"bits['rows'] must lie in [0, m={m})")
    s, ncols = rows.shape
    if n is not None and n != ncols:
        raise ValueError(f"n={n} must equal bits['rows'].shape[1]={ncols}")
    c = 1 / mp.sqrt(s)
    S = mp.matrix(m, ncols)
    for t in range(s):
        for j in range(ncols):
            S[int(rows[t, j]), j] += c * int(signs[t, j])
    return S


def countsketch_matrix(bits):
    """The m×n CountSketch (def.countsketch): ``S[rows[j], j] = signs[j]``."""
    m = _int0(bits, "m")
    rows = _ints(bits, "rows", 1)
    signs = _signs(_ints(bits, "signs", 1), "bits['signs']")
    if rows.shape != signs.shape or rows.size == 0:
        raise ValueError("bits['rows'] and bits['signs'] must be non-empty and of one length n")
    if rows.min() < 0 or rows.max() >= m:
        raise ValueError(f"bits['rows'] must lie in [0, m={m})")
    S = mp.matrix(m, rows.shape[0])
    for j in range(rows.shape[0]):
        S[int(rows[j]), j] = int(signs[j])
    return S


def gaussian_matrix(bits):
    """The m×n Gaussian sketch ``g/√m`` (entries of ``g`` held exactly)."""
    if not isinstance(bits, dict) or "g" not in bits:
        raise ValueError("bits must be a dict with key 'g'")
    g = to_mp(as_float_array(bits["g"], "bits['g']", ndim=2), "bits['g']")
    return g / mp.sqrt(g.rows)


# ----------------------------------------------------------------------------- linear algebra


def pinv_norm(M, rank: int):
    """‖M†‖ = 1/σ_rank(M) for a matrix of (exactly known) rank ``rank`` (0 when rank = 0)."""
    M = to_mp(M, "M", ndim=2)
    rank = check_int(rank, "rank")
    if rank < 0 or rank > min(M.rows, M.cols):
        raise ValueError(f"rank={rank} must be in [0, min(rows, cols)={min(M.rows, M.cols)}]")
    if rank == 0:
        return mp.mpf(0)
    return 1 / linalg.singular_values(M)[rank - 1]


def psd_power(A, j: int):
    """(AᵀA)^j for an integer j ≥ 0."""
    if isinstance(j, bool) or not isinstance(j, (int, np.integer)) or j < 0:
        raise ValueError(f"j={j!r} must be an int >= 0")
    A = to_mp(A, "A", ndim=2)
    G = A.T * A
    out = mp.eye(G.rows)
    for _ in range(int(j)):
        out = out * G
    return out


def exp_kernel(X):
    """The attention kernel A = exp(XXᵀ), entrywise (lemB.4); PSD by the Schur product theorem."""
    X = to_mp(X, "X", ndim=2)
    G = X * X.T
    return mp.matrix([[mp.exp(G[i, j]) for j in range(G.cols)] for i in range(G.rows)])


def psd_sqrt(A):
    """The PSD square root Q diag(√max(λ, 0)) Qᵀ of a symmetric PSD A (eigenvalues below 0 can
    only come from rounding of a PSD matrix and are clamped)."""
    A = to_mp(A, "A", ndim=2)
    lam, Q = linalg.converged(lambda: mp.eigsy(linalg.symmetric_part(A)), "eigsy")
    return Q * mp.diag([mp.sqrt(max(v, 0)) for v in lam]) * Q.T


def _full_column_rank(A, name="A"):
    if A.rows < A.cols:
        raise ValueError(f"{name} is {A.rows}x{A.cols}; it must be tall (rows >= cols) with full column rank")


def projector(A):
    """P = A(AᵀA)^{-1}Aᵀ (Fact A.1); A must have full column rank (checked exactly: ValueError otherwise)."""
    A = to_mp(A, "A", ndim=2)
    _full_column_rank(A)
    rank = linalg.exact_rank(A)
    if rank < A.cols:
        raise ValueError(f"A must have full column rank (its exact rank is {rank} < {A.cols} columns): AᵀA is singular")
    return A * (mp.inverse(A.T * A) * A.T)


def lstsq_full_rank(A, b):
    """x* = (AᵀA)^{-1}Aᵀb, the unique least-squares solution when A has full column rank."""
    A, b = to_mp(A, "A", ndim=2), to_mp(b, "b", ndim=1)
    _full_column_rank(A)
    if b.rows != A.rows:
        raise ValueError(f"b has {b.rows} entries, must match A's {A.rows} rows")
    return linalg.solve(A.T * A, A.T * b)


def opt_lstsq(A, b):
    """OPT = min_x ‖Ax − b‖ = ‖(I − P_A)b‖ (spec id.opt), through x* of the normal equations."""
    A, b = to_mp(A, "A", ndim=2), to_mp(b, "b", ndim=1)
    x = lstsq_full_rank(A, b)
    return linalg.norm2(A * x - b)


def opt_attention(A, b, j: int = 1):
    """min_x ‖A(AᵀA)^j x − b‖ computed from the matrix M = A(AᵀA)^j itself (not from P_A)."""
    A, b = to_mp(A, "A", ndim=2), to_mp(b, "b", ndim=1)
    M = A * psd_power(A, j)
    return opt_lstsq(M, b)


def subspace_distortion(SA, A):
    """max_i |σ_i(SQ) − 1|, Q an orthonormal basis of range(A) (spec def.se check).

    Computed from the generalized eigenvalues of ((SA)ᵀSA, AᵀA): with AᵀA = LLᵀ,
    σ_i(SQ)² are the eigenvalues of L^{-1}(SA)ᵀ(SA)L^{-T}.  A must have full column rank.
    """
    SA, A = to_mp(SA, "SA", ndim=2), to_mp(A, "A", ndim=2)
    _full_column_rank(A)
    if SA.cols != A.cols:
        raise ValueError(f"SA has {SA.cols} columns, must match A's {A.cols}")
    L = mp.cholesky(A.T * A)
    Li = mp.inverse(L)
    M = Li * (SA.T * SA) * Li.T
    ev = linalg.eigvalsh(linalg.symmetric_part(M))
    lo, hi = mp.sqrt(max(ev[0], mp.mpf(0))), mp.sqrt(max(ev[-1], mp.mpf(0)))
    return max(hi - 1, 1 - lo)


def backward_error_lstsq(A, b, x):
    """Karlson–Waldén estimate of the normwise backward error of ``x`` for min ‖Ax − b‖.

    ``η̃(x) = ‖(AᵀA + ω² I)^{-1/2} Aᵀ r‖ / ‖x‖`` with ``r = b − Ax``, ``ω = ‖r‖/‖x‖``; the true
    backward error (perturbations of A, Frobenius norm) lies in ``[η̃, √2·η̃]`` up to higher
    order terms (Gratton 1996; Grcar 2003).  Judged relative to ‖A‖: a backward-stable solver
    gives ``η̃/‖A‖ = O(u)``.
    """
    A, b, x = to_mp(A, "A", ndim=2), to_mp(b, "b", ndim=1), to_mp(x, "x", ndim=1)
    nx = linalg.norm2(x)
    if nx == 0:
        raise ValueError("x must be nonzero")
    r = b - A * x
    w2 = (linalg.norm2(r) / nx) ** 2
    G = A.T * A + w2 * mp.eye(A.cols)
    E, V = linalg.converged(lambda: mp.eigsy(linalg.symmetric_part(G)), "eigsy")
    g = V.T * (A.T * r)
    return mp.sqrt(mp.fsum(g[i] ** 2 / E[i] for i in range(A.cols))) / nx


# ----------------------------------------------------------------------------- exact tall data


def int_scaled(arr):
    """``arr`` (float64) as an object array of Python ints ``N`` and a shift ``k`` with
    ``arr = N · 2^{−k}`` exactly (every float64 is a dyadic rational)."""
    a = as_float_array(arr, "arr", allow_empty=False)
    mant, expo = np.frexp(a)  # a = mant · 2^expo, 0.5 ≤ |mant| < 1
    ints = (mant * 2.0**53).astype(np.int64)  # exact
    e = expo.astype(np.int64) - 53  # a = ints · 2^e
    nz = ints != 0
    emin = int(e[nz].min()) if nz.any() else 0
    e = np.where(nz, e, emin)
    out = np.left_shift(ints.astype(object), (e - emin).astype(object))
    return out, -emin


class ExactGram:
    """Exact Gram data of a tall instance (A ∈ R^{n×d}, b ∈ R^n): AᵀA, Aᵀb, bᵀb as rationals.

    Computed once in exact integer arithmetic (no precision involved); :meth:`mp` returns them
    as mpmath numbers at the current working precision (correctly rounded), so a check can judge
    ‖Ax − b‖ = sqrt(xᵀ(AᵀA)x − 2xᵀAᵀb + bᵀb) for tall data with n in the thousands cheaply.
    """

    def __init__(self, A, b):
        A = as_float_array(A, "A", ndim=2)
        b = as_float_array(b, "b", ndim=1)
        if b.shape[0] != A.shape[0]:
            raise ValueError(f"b has {b.shape[0]} entries, must match A's {A.shape[0]} rows")
        NA, ka = int_scaled(A)
        Nb, kb = int_scaled(b)
        self.n, self.d = A.shape
        self.G = [[Fraction(int(NA[:, i].dot(NA[:, j])), 1 << (2 * ka)) for j in range(self.d)]
                  for i in range(self.d)]
        self.c = [Fraction(int(NA[:, i].dot(Nb)), 1 << (ka + kb)) for i in range(self.d)]
        self.bb = Fraction(int(Nb.dot(Nb)), 1 << (2 * kb))
        self._NA, self._ka, self._Nb, self._kb = NA, ka, Nb, kb

    @staticmethod
    def _f(q: Fraction):
        return mp.mpf(q.numerator) / q.denominator

    def mp(self):
        """(AᵀA, Aᵀb, bᵀb) at the current precision: d×d and d×1 ``mp.matrix`` and an ``mpf``."""
        G = mp.matrix([[self._f(v) for v in row] for row in self.G])
        c = mp.matrix([self._f(v) for v in self.c])
        return G, c, self._f(self.bb)

    def backward_error(self, x):
        """Karlson–Waldén estimate η̃(x) (see :func:`backward_error_lstsq`) from the exact Gram data,
        and ‖A‖, at the current precision: ``(η̃, ‖A‖)``."""
        G, c, _ = self.mp()
        xm = to_mp(x, "x", ndim=1)
        nx = linalg.norm2(xm)
        if nx == 0:
            raise ValueError("x must be nonzero")
        rr = self.residual_sq(x)
        w2 = self._f(rr) / nx**2
        g = c - G * xm
        E, V = linalg.converged(lambda: mp.eigsy(linalg.symmetric_part(G) + w2 * mp.eye(self.d)), "eigsy")
        h = V.T * g
        eta = mp.sqrt(mp.fsum(h[i] ** 2 / E[i] for i in range(self.d))) / nx
        nA = mp.sqrt(max(linalg.eigvalsh(linalg.symmetric_part(G))[-1], mp.mpf(0)))
        return eta, nA

    def residual_sq(self, x) -> Fraction:
        """‖Ax − b‖² exactly, for a float64 vector x."""
        return exact_residual_sq((self._NA, self._ka), x, (self._Nb, self._kb))


def exact_residual_sq(A, x, b) -> Fraction:
    """‖Ax − b‖² as an exact rational (A, x, b float64, or ``(ints, shift)`` from :func:`int_scaled`)."""
    NA, ka = A if isinstance(A, tuple) else int_scaled(as_float_array(A, "A", ndim=2))
    Nb, kb = b if isinstance(b, tuple) else int_scaled(as_float_array(b, "b", ndim=1))
    Nx, kx = int_scaled(as_float_array(x, "x", ndim=1))
    if NA.shape[1] != Nx.shape[0] or NA.shape[0] != Nb.shape[0]:
        raise ValueError(f"shapes A {NA.shape}, x {Nx.shape}, b {Nb.shape} do not match")
    # common scale 2^-(ka+kx) for Ax and 2^-kb for b
    K = max(ka + kx, kb)
    sa, sb = K - (ka + kx), K - kb
    r = NA.dot(Nx) * (1 << sa) - Nb * (1 << sb)
    return Fraction(int(r.dot(r)), 1 << (2 * K))


# ----------------------------------------------------------------------------- exact sketch Grams


def _parity(x: np.ndarray) -> np.ndarray:
    x = x.copy()
    for sh in (32, 16, 8, 4, 2, 1):
        x ^= x >> sh
    return x & 1


def _sparse_bits(bits, kind):
    """(m, rows, signs) of OSNAP / CountSketch bits, rows and signs as (s, n) arrays, validated."""
    m = _int0(bits, "m")
    rows = _ints(bits, "rows", 2 if kind == "osnap" else 1)
    signs = _signs(_ints(bits, "signs", rows.ndim), "bits['signs']")
    if rows.ndim == 1:
        rows, signs = rows[None], signs[None]
    if rows.shape != signs.shape or rows.size == 0 or rows.min() < 0 or rows.max() >= m:
        raise ValueError(f"bits['rows'] and bits['signs'] must share a non-empty shape, rows in [0, m={m})")
    return m, rows, signs


def sketch_int_matrix(kind: str, bits):
    """The sketch as ``S = T/√q`` with ``T`` an integer (or, for Gaussian, dyadic) numpy object matrix.

    Returns ``(T, q, shift)``: ``S = T·2^{−shift}/√q`` exactly.  ``kind`` is ``"srht"``, ``"osnap"``,
    ``"countsketch"`` or ``"gaussian"``; ``bits`` as documented in the module docstring.
    """
    if kind == "srht":
        nn = _int0(bits, "n")
        signs = _signs(_ints(bits, "signs", 1), "bits['signs']")
        rows = _ints(bits, "rows", 1)
        n_pad = _next_pow2(nn)
        if signs.shape[0] != n_pad or rows.size == 0 or rows.min() < 0 or rows.max() >= n_pad:
            raise ValueError(f"bits must hold signs of length n_pad={n_pad} and rows in [0, {n_pad})")
        par = _parity(np.bitwise_and(rows[:, None], np.arange(nn, dtype=np.int64)[None, :]))
        T = (1 - 2 * par) * signs[None, :nn]
        return T.astype(object), rows.shape[0], 0
    if kind in ("osnap", "countsketch"):
        m, rows, signs = _sparse_bits(bits, kind)
        s, ncols = rows.shape
        T = np.zeros((m, ncols), dtype=np.int64)
        for t in range(s):
            np.add.at(T, (rows[t], np.arange(ncols)), signs[t])
        return T.astype(object), s, 0
    if kind == "gaussian":
        if not isinstance(bits, dict) or "g" not in bits:
            raise ValueError("bits must be a dict with key 'g'")
        N, k = int_scaled(as_float_array(bits["g"], "bits['g']", ndim=2))
        return N, N.shape[0], k
    raise ValueError(f"kind={kind!r} must be 'srht', 'osnap', 'countsketch' or 'gaussian'")


def _fwht_exact(X):
    """H_N X for an object (Python int) array, N = X.shape[0] a power of two (exact butterflies)."""
    N = X.shape[0]
    h = 1
    while h < N:
        Y = X.reshape((N // (2 * h), 2, h) + X.shape[1:])
        a, b = Y[:, 0], Y[:, 1]
        X = np.stack([a + b, a - b], axis=1).reshape(X.shape)
        h *= 2
    return X


def sketch_times_int(kind: str, bits, NA):
    """``T·NA`` exactly for an integer matrix ``NA`` (object array), with ``S = T·2^{−shift}/√q``.

    Returns ``(T·NA, q, shift)``.  SRHT uses exact integer butterflies (H_{n_pad} of the sign-flipped,
    zero-padded input, then the sampled rows); sparse sketches a scatter-add; Gaussian a dense product.
    The result equals ``sketch_int_matrix(kind, bits)[0].dot(NA)`` (tested).
    """
    NA = _int_matrix(NA, "NA")
    if kind == "srht":
        nn = _int0(bits, "n")
        signs = _signs(_ints(bits, "signs", 1), "bits['signs']")
        rows = _ints(bits, "rows", 1)
        n_pad = _next_pow2(nn)
        if signs.shape[0] != n_pad or rows.size == 0 or rows.min() < 0 or rows.max() >= n_pad:
            raise ValueError(f"bits must hold signs of length n_pad={n_pad} and rows in [0, {n_pad})")
        if NA.shape[0] != nn:
            raise ValueError(f"the sketch has input dimension {nn}, must match A's {NA.shape[0]} rows")
        X = np.zeros((n_pad, NA.shape[1]), dtype=object)
        X[:nn] = NA * signs[:nn, None].astype(object)
        return _fwht_exact(X)[rows], rows.shape[0], 0
    if kind in ("osnap", "countsketch"):
        m, rows, signs = _sparse_bits(bits, kind)
        if NA.shape[0] != rows.shape[1]:
            raise ValueError(f"the sketch has input dimension {rows.shape[1]}, must match A's {NA.shape[0]} rows")
        out = np.zeros((m, NA.shape[1]), dtype=object)
        for t in range(rows.shape[0]):
            np.add.at(out, rows[t], NA * signs[t][:, None].astype(object))
        return out, rows.shape[0], 0
    T, q, ks = sketch_int_matrix(kind, bits)
    if T.shape[1] != NA.shape[0]:
        raise ValueError(f"the sketch has input dimension {T.shape[1]}, must match A's {NA.shape[0]} rows")
    return T.dot(NA), q, ks


def sketch_grams(kind: str, bits, A):
    """Exact rationals ``((SA)ᵀ(SA), AᵀA)`` (d×d lists of Fractions) for the sketch defined by ``bits``."""
    A = as_float_array(A, "A", ndim=2)
    NA, ka = int_scaled(A)
    SA, q, ks = sketch_times_int(kind, bits, NA)
    d = A.shape[1]
    den_s = q * (1 << (2 * (ka + ks)))
    den = 1 << (2 * ka)
    SG = [[Fraction(int(sum(SA[:, i] * SA[:, j])), den_s) for j in range(d)] for i in range(d)]
    G = [[Fraction(int(sum(NA[:, i] * NA[:, j])), den) for j in range(d)] for i in range(d)]
    return SG, G


def distortion_from_grams(SG, G):
    """max_i |σ_i(SQ) − 1| from exact Grams ``(SA)ᵀSA`` and ``AᵀA`` (see :func:`subspace_distortion`)."""
    SG, G = _fraction_square(SG, "SG"), _fraction_square(G, "G")
    if len(SG) != len(G):
        raise ValueError(f"SG is {len(SG)}x{len(SG)} and G is {len(G)}x{len(G)}; they must match")
    f = ExactGram._f
    SGm = mp.matrix([[f(v) for v in row] for row in SG])
    Gm = mp.matrix([[f(v) for v in row] for row in G])
    try:
        L = mp.cholesky(Gm)
    except ValueError:
        raise ValueError("A must have full column rank (AᵀA is not positive definite)") from None
    Li = mp.inverse(L)
    ev = linalg.eigvalsh(linalg.symmetric_part(Li * SGm * Li.T))
    lo, hi = mp.sqrt(max(ev[0], mp.mpf(0))), mp.sqrt(max(ev[-1], mp.mpf(0)))
    return max(hi - 1, 1 - lo)
