"""Oracle of "Solving Attention Kernel Regression Problem via Pre-conditioner" (paper 004).

Spec: ``shared/spec/attention_kernel_regression.md``.  Pure mpmath (numpy only to read the float64
instances and the integer random bits).  Nothing here imports JAX or ``solvers``: the sketch
matrices are rebuilt from the random bits alone, following the definitions of spec §2
(``def.srht``, ``def.tensorsrht``, ``def.osnap``, ``def.countsketch``), as mp matrices; the bits formats,
their parsers and the exact integer arithmetic of the sketches (what the shared sketch adapters use too)
live in :mod:`oracle.sketch_bits`.

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

from . import linalg, sketch_bits
from .precision import as_float_array, check_int, to_mp
from .sketch_bits import int_scaled

__all__ = [
    "ExactGram",
    "backward_error_lstsq",
    "countsketch_matrix",
    "exact_residual_sq",
    "exp_kernel",
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


def _popcount_sign(a: int, b: int) -> int:
    """H[a, b] = (−1)^{popcount(a & b)}: an entry of the Sylvester Hadamard matrix (def.hadamard)."""
    return -1 if bin(a & b).count("1") % 2 else 1


# ----------------------------------------------------------------------------- sketches


def srht_matrix(bits):
    """The m×n SRHT of spec def.srht defined by ``bits`` (``S = P H D [I; 0]/√m``)."""
    n, signs, rows = sketch_bits.srht_parts(bits)
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
    d1, d2, s1, s2, r1, r2 = sketch_bits.tensor_srht_parts(bits)
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
    m, rows, signs = sketch_bits.sparse_parts(bits, "osnap")
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
    m, rows, signs = sketch_bits.sparse_parts(bits, "countsketch")
    S = mp.matrix(m, rows.shape[1])
    for j in range(rows.shape[1]):
        S[int(rows[0, j]), j] = int(signs[0, j])
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
