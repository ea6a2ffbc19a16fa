"""Exact arithmetic of the sketches defined by their random bits: one home for every paper and adapter.

The bits formats are those of ``solvers/sketches.py`` (read, never imported; spec §2 of
``shared/spec/attention_kernel_regression.md``: ``def.hadamard``, ``def.srht``, ``def.tensorsrht``,
``def.osnap``, ``def.countsketch``):

- SRHT ``{"n", "signs" (n_pad,), "rows" (m,)}``, ``n_pad = 2^{⌈log₂ n⌉}``:
  ``S[k, i] = signs[i]·(−1)^{popcount(rows[k] & i)}/√m`` for ``i < n``.
- TensorSRHT ``{"d1", "d2", "signs1", "signs2", "rows1", "rows2"}``:
  ``S[k, a·d2 + b] = H[rows1[k], a]·signs1[a]·H[rows2[k], b]·signs2[b]/√m``.
- OSNAP ``{"m", "rows" (s, n), "signs" (s, n)}``: ``S[rows[t, j], j] += signs[t, j]/√s``.
- CountSketch ``{"m", "rows" (n,), "signs" (n,)}``: ``S[rows[j], j] = signs[j]``.
- Gaussian ``{"g" (m, n)}``: ``S = g/√m``.

Here, once each: the parsers of those formats (:func:`srht_parts`, :func:`tensor_srht_parts`,
:func:`sparse_parts`: ValueError naming the field and the rule), the Walsh–Hadamard transform on Python
integers (:func:`fwht_int`, :func:`hadamard_signed`: every butterfly exact), the schedule of Algorithm 8
(:func:`algorithm8`: ``w₀ = Tx``, ``w_l = S(w_{l−1} ⊗ w_{l−1})``, then the set bits of p), float64 data as
exact integers (:func:`int_scaled`) and the sketch applied exactly (:func:`sketch_int_matrix`,
:func:`sketch_times_int`, :func:`sketch_grams`, :func:`distortion_from_grams`).  Pure numpy integers and
mpmath; nothing here imports JAX or ``solvers``.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np
from mpmath import mp

from . import linalg
from .precision import as_float_array

__all__ = ["algorithm8", "bits_array", "bits_int", "distortion_from_grams", "fwht_int", "hadamard_signed",
           "int_scaled", "next_pow2", "sketch_grams", "sketch_int_matrix", "sketch_times_int", "sparse_parts",
           "srht_parts", "tensor_srht_parts"]


# ----------------------------------------------------------------------------- the bits formats


def _field(bits, key: str, name: str):
    if not isinstance(bits, dict) or key not in bits:
        raise ValueError(f"{name} must be a dict with key {key!r} (as returned by the *_bits function)")
    return np.asarray(bits[key])


def bits_int(bits, key: str, name: str = "bits", minimum: int = 1) -> int:
    """The 0-d integer field ``bits[key]`` (a size), at least ``minimum``, or ValueError."""
    arr = _field(bits, key, name)
    if arr.ndim != 0 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name}[{key!r}]={bits[key]!r} must be a 0-d integer")
    v = int(arr)
    if v < minimum:
        raise ValueError(f"{name}[{key!r}]={v} must be >= {minimum}")
    return v


def bits_array(bits, key: str, ndim: int, name: str = "bits", signs: bool = False) -> np.ndarray:
    """The ``ndim``-d integer field ``bits[key]`` as int64 (``signs=True``: every entry ±1), or ValueError."""
    arr = _field(bits, key, name)
    if arr.ndim != ndim or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name}[{key!r}] must be a {ndim}-d integer array (got dtype {arr.dtype}, ndim {arr.ndim})")
    arr = arr.astype(np.int64)
    if signs and arr.size and not np.all(np.abs(arr) == 1):
        raise ValueError(f"{name}[{key!r}] must hold only -1 and +1")
    return arr


def next_pow2(n: int) -> int:
    """The least power of two ≥ n (n ≥ 1): the order of the Hadamard matrix a length-n input is padded to."""
    return 1 << (n - 1).bit_length()


def _signs_rows(signs, rows, pad: int, label: str, name: str, suffix: str = ""):
    """The signs (one per padded input entry) and the sampled rows (in [0, pad)) of one SRHT factor."""
    if signs.shape[0] != pad:
        raise ValueError(f"{name}['signs{suffix}'] has length {signs.shape[0]}, must be {label}={pad}")
    if rows.size == 0:
        raise ValueError(f"{name}['rows{suffix}'] must not be empty (m >= 1)")
    if rows.min() < 0 or rows.max() >= pad:
        raise ValueError(f"{name}['rows{suffix}'] must lie in [0, {label}={pad})")


def srht_parts(bits, name: str = "bits") -> tuple[int, np.ndarray, np.ndarray]:
    """``(n, signs, rows)`` of SRHT bits, validated (signs ±1 of length next_pow2(n), rows in range)."""
    n = bits_int(bits, "n", name)
    signs, rows = bits_array(bits, "signs", 1, name, signs=True), bits_array(bits, "rows", 1, name)
    _signs_rows(signs, rows, next_pow2(n), "n_pad", name)
    return n, signs, rows


def tensor_srht_parts(bits, name: str = "bits") -> tuple[int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(d1, d2, signs1, signs2, rows1, rows2)`` of TensorSRHT bits, validated (rows of one length m)."""
    d1, d2 = bits_int(bits, "d1", name), bits_int(bits, "d2", name)
    s1, s2 = bits_array(bits, "signs1", 1, name, signs=True), bits_array(bits, "signs2", 1, name, signs=True)
    r1, r2 = bits_array(bits, "rows1", 1, name), bits_array(bits, "rows2", 1, name)
    if r1.shape != r2.shape:
        raise ValueError(f"{name}['rows1'] and {name}['rows2'] must be of one length m")
    _signs_rows(s1, r1, next_pow2(d1), "next_pow2(d1)", name, "1")
    _signs_rows(s2, r2, next_pow2(d2), "next_pow2(d2)", name, "2")
    return d1, d2, s1, s2, r1, r2


def sparse_parts(bits, kind: str, name: str = "bits") -> tuple[int, np.ndarray, np.ndarray]:
    """``(m, rows, signs)`` of OSNAP (``kind="osnap"``) or CountSketch bits, validated, rows and signs as
    (s, n) arrays (s = 1 for CountSketch)."""
    m = bits_int(bits, "m", name)
    rows = bits_array(bits, "rows", 2 if kind == "osnap" else 1, name)
    signs = bits_array(bits, "signs", rows.ndim, name, signs=True)
    if rows.ndim == 1:
        rows, signs = rows[None], signs[None]
    if rows.shape != signs.shape or rows.size == 0:
        raise ValueError(f"{name}['rows'] {rows.shape} and {name}['signs'] {signs.shape} must share one non-empty shape")
    if rows.min() < 0 or rows.max() >= m:
        raise ValueError(f"{name}['rows'] must lie in [0, m={m})")
    return m, rows, signs


# ----------------------------------------------------------------------------- exact Walsh–Hadamard


def fwht_int(X: np.ndarray) -> np.ndarray:
    """``H_N X`` for an object array of Python ints (a vector, or columns), N = X.shape[0] a power of two:
    the unnormalised Sylvester matrix of def.hadamard, applied by exact integer butterflies."""
    N = X.shape[0]
    h = 1
    while h < N:
        Y = X.reshape((N // (2 * h), 2, h) + X.shape[1:])
        a, b = Y[:, 0], Y[:, 1]
        X = np.stack([a + b, a - b], axis=1).reshape(X.shape)
        h *= 2
    return X


def hadamard_signed(ints, signs) -> list[int]:
    """``H D v̄`` over the integers: D = diag(signs), v̄ the integers ``ints`` zero-padded to len(signs)
    (a power of two), H the Sylvester matrix of that order."""
    v = np.zeros(len(signs), dtype=object)
    v[:len(ints)] = [int(s) * int(x) for s, x in zip(signs, ints)]
    return fwht_int(v).tolist()


def algorithm8(p: int, w0, combine: Callable):
    """Algorithm 8's schedule (TensorSketchViaLimRand, def.Z) for degree p ≥ 1 on any arithmetic:
    ``w₀``, ``w_l = combine(w_{l−1}, w_{l−1})`` for l = 1..⌊log₂ p⌋, then ``z = w_{i₀}`` and
    ``z = combine(z, w_i)`` for the other set bits i of p in increasing order; returns z."""
    w = [w0]
    for _ in range(p.bit_length() - 1):
        w.append(combine(w[-1], w[-1]))
    bits = [i for i in range(p.bit_length()) if (p >> i) & 1]
    z = w[bits[0]]
    for i in bits[1:]:
        z = combine(z, w[i])
    return z


# ----------------------------------------------------------------------------- sketches applied exactly


def int_scaled(arr):
    """``arr`` (float64) as an object array of Python ints ``N`` and a shift ``k ≥ 0`` with
    ``arr = N · 2^{−k}`` exactly (every float64 is a dyadic rational; k = 0, not negative, when every
    entry is at least 2⁵³ in magnitude, so callers may divide by ``1 << k``)."""
    a = as_float_array(arr, "arr", allow_empty=False)
    mant, expo = np.frexp(a)  # a = mant · 2^expo, 0.5 ≤ |mant| < 1
    ints = (mant * 2.0**53).astype(np.int64)  # exact
    e = expo.astype(np.int64) - 53  # a = ints · 2^e
    nz = ints != 0
    emin = min(int(e[nz].min()), 0) if nz.any() else 0
    e = np.where(nz, e, emin)
    out = np.left_shift(ints.astype(object), (e - emin).astype(object))
    return out, -emin


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


def _parity(x: np.ndarray) -> np.ndarray:
    x = x.copy()
    for sh in (32, 16, 8, 4, 2, 1):
        x ^= x >> sh
    return x & 1


def _gaussian_ints(bits):
    if not isinstance(bits, dict) or "g" not in bits:
        raise ValueError("bits must be a dict with key 'g'")
    return int_scaled(as_float_array(bits["g"], "bits['g']", ndim=2))


def sketch_int_matrix(kind: str, bits):
    """The sketch as ``S = T/√q`` with ``T`` an integer (or, for Gaussian, dyadic) numpy object matrix.

    Returns ``(T, q, shift)``: ``S = T·2^{−shift}/√q`` exactly.  ``kind`` is ``"srht"``, ``"osnap"``,
    ``"countsketch"`` or ``"gaussian"``; ``bits`` as documented in the module docstring.
    """
    if kind == "srht":
        n, signs, rows = srht_parts(bits)
        par = _parity(np.bitwise_and(rows[:, None], np.arange(n, dtype=np.int64)[None, :]))
        return ((1 - 2 * par) * signs[None, :n]).astype(object), rows.shape[0], 0
    if kind in ("osnap", "countsketch"):
        m, rows, signs = sparse_parts(bits, kind)
        s, ncols = rows.shape
        T = np.zeros((m, ncols), dtype=np.int64)
        for t in range(s):
            np.add.at(T, (rows[t], np.arange(ncols)), signs[t])
        return T.astype(object), s, 0
    if kind == "gaussian":
        N, k = _gaussian_ints(bits)
        return N, N.shape[0], k
    raise ValueError(f"kind={kind!r} must be 'srht', 'osnap', 'countsketch' or 'gaussian'")


def sketch_times_int(kind: str, bits, NA):
    """``T·NA`` exactly for an integer matrix ``NA`` (object array), with ``S = T·2^{−shift}/√q``.

    Returns ``(T·NA, q, shift)``.  SRHT uses exact integer butterflies (H_{n_pad} of the sign-flipped,
    zero-padded input, then the sampled rows); sparse sketches a scatter-add; Gaussian a dense product.
    The result equals ``sketch_int_matrix(kind, bits)[0].dot(NA)`` (tested).
    """
    NA = _int_matrix(NA, "NA")
    if kind == "srht":
        n, signs, rows = srht_parts(bits)
        inputs = n
    elif kind in ("osnap", "countsketch"):
        m, rows, signs = sparse_parts(bits, kind)
        inputs = rows.shape[1]
    else:
        T, q, ks = sketch_int_matrix(kind, bits)
        inputs = T.shape[1]
    if NA.shape[0] != inputs:
        raise ValueError(f"the sketch has input dimension {inputs}, must match A's {NA.shape[0]} rows")
    if kind == "srht":
        X = np.zeros((signs.shape[0], NA.shape[1]), dtype=object)
        X[:n] = NA * signs[:n, None].astype(object)
        return fwht_int(X)[rows], rows.shape[0], 0
    if kind in ("osnap", "countsketch"):
        out = np.zeros((m, NA.shape[1]), dtype=object)
        for t in range(rows.shape[0]):
            np.add.at(out, rows[t], NA * signs[t][:, None].astype(object))
        return out, rows.shape[0], 0
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


def _fraction_square(M, name):
    """A square list of lists of Fractions/ints (an exact Gram matrix), validated."""
    if not isinstance(M, (list, tuple)) or not M or not all(isinstance(r, (list, tuple)) and len(r) == len(M) for r in M):
        raise ValueError(f"{name} must be a non-empty square list of rows")
    for row in M:
        for v in row:
            if isinstance(v, bool) or not isinstance(v, (Fraction, int)):
                raise ValueError(f"{name} must hold exact rationals (Fraction or int), got {type(v).__name__}")
    return M


def _mpf(q) -> mp.mpf:
    """An exact rational (Fraction or int) as an mpf at the current precision."""
    q = Fraction(q)
    return mp.mpf(q.numerator) / q.denominator


def distortion_from_grams(SG, G):
    """max_i |σ_i(SQ) − 1| (Q an orthonormal basis of range(A)) from the exact Grams ``(SA)ᵀSA`` and ``AᵀA``
    of :func:`sketch_grams`: the square roots of the extreme eigenvalues of L⁻¹(SA)ᵀSA L⁻ᵀ, AᵀA = LLᵀ."""
    SG, G = _fraction_square(SG, "SG"), _fraction_square(G, "G")
    if len(SG) != len(G):
        raise ValueError(f"SG is {len(SG)}x{len(SG)} and G is {len(G)}x{len(G)}; they must match")
    SGm, Gm = (mp.matrix([[_mpf(v) for v in row] for row in M]) for M in (SG, G))
    try:
        L = mp.cholesky(Gm)
    except ValueError:
        raise ValueError("A must have full column rank (AᵀA is not positive definite)") from None
    Li = mp.inverse(L)
    ev = linalg.eigvalsh(linalg.symmetric_part(Li * SGm * Li.T))
    lo, hi = mp.sqrt(max(ev[0], mp.mpf(0))), mp.sqrt(max(ev[-1], mp.mpf(0)))
    return max(hi - 1, 1 - lo)
