"""Random sketching matrices of the attention-kernel-regression paper (JAX, float64).

Spec: ``spec/attention_kernel_regression.md`` §2 (``def.hadamard``, ``def.srht``,
``def.tensorsrht``, ``def.osnap``, ``def.countsketch``) and the Gaussian sketch.

Every sketch is split in two steps so that an independent (mpmath) oracle can rebuild the very
same matrix:

* ``<name>_bits(key, ...)`` draws the random bits with ``jax.random`` from an explicit key (a
  ``jax.random.key``/``PRNGKey`` or an ``int`` seed) and returns them as a ``dict`` of numpy
  arrays. Integers that fix the shape are stored as 0-d ``int64`` arrays. Signs are ``int8``
  arrays of ±1, indices are ``int64`` arrays (0-indexed).
* ``<name>_apply(bits, M)`` applies the matrix those bits define to ``M`` (a vector or the
  columns of a matrix) without forming it. The exact matrix is documented in each docstring.
* ``<name>(M, m, *, key)`` does both.

Bad input: ``*_apply`` validates the bits it is given (integer dtypes, rows in range, signs ±1,
sizes ≥ 1, a real finite Gaussian ``g``) and the data (real, finite).  A result whose computation
overflowed in an intermediate step is recomputed on columns scaled by exact powers of two; a result
that is itself beyond float64 raises ``ValueError`` naming the overflow.  Keys: :func:`as_key`.

All conventions are 0-indexed. ``H_N`` is the unnormalised Sylvester–Hadamard matrix of order
``N = 2^k``: ``H_N[a, b] = (−1)^{popcount(a & b)}`` (spec ``def.hadamard``).
"""

from __future__ import annotations

import math
from functools import partial
from numbers import Integral

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ._validation import all_finite, check_array, check_int
from .memory import check_fits

__all__ = [
    "SKETCHES",
    "as_key",
    "countsketch",
    "countsketch_apply",
    "countsketch_bits",
    "fwht",
    "gaussian",
    "gaussian_apply",
    "gaussian_bits",
    "next_pow2",
    "osnap",
    "osnap_apply",
    "osnap_bits",
    "sketch_apply",
    "sketch_bits",
    "sketch_work",
    "srht",
    "srht_apply",
    "srht_bits",
    "tensor_srht",
    "tensor_srht_apply",
    "tensor_srht_apply_flat",
    "tensor_srht_bits",
]


# ----------------------------------------------------------------------------- validation


def as_key(key, name: str = "key") -> jax.Array:
    """A JAX PRNG key from ``key``: a typed ``jax.random.key``, a raw ``PRNGKey`` (uint32, shape
    (2,)) or an int seed in ``[0, 2^64)``.

    The convention of every randomised function of ``solvers`` (argument ``key``).  An int seed
    ``s`` gives the key with data ``[s >> 32, s & 0xffffffff]``, so ``s < 2^32`` equals
    ``jax.random.key(s)`` and distinct seeds give distinct keys (``jax.random.key`` itself
    aliases seeds that differ above bit 32 and overflows at 2^63).
    """
    if isinstance(key, (bool, np.bool_)):
        raise ValueError(f"{name}={key!r} must be a jax.random key or an int seed, not a bool")
    if isinstance(key, Integral):
        seed = int(key)
        if not 0 <= seed < 2**64:
            raise ValueError(f"{name}={key!r} must be an int seed in [0, 2**64)")
        return jax.random.wrap_key_data(jnp.asarray([seed >> 32, seed & 0xFFFFFFFF], dtype=jnp.uint32))
    if isinstance(key, jax.Array):
        if jnp.issubdtype(key.dtype, jax.dtypes.prng_key) and key.shape == ():
            return key
        if key.dtype == jnp.uint32 and key.shape == (2,):
            return jax.random.wrap_key_data(key)
    raise ValueError(
        f"{name}={key!r} must be a scalar jax.random key, a raw PRNGKey (uint32, shape (2,)) "
        "or an int seed in [0, 2**64)"
    )


def _bit(bits: dict, name: str, field: str, ndim: int, kind: str) -> np.ndarray:
    if not isinstance(bits, dict) or field not in bits:
        raise ValueError(f"{name} must be a dict with key {field!r} (as returned by the *_bits function)")
    arr = np.asarray(bits[field])
    if arr.ndim != ndim:
        raise ValueError(f"{name}[{field!r}].ndim={arr.ndim} must be {ndim}")
    if kind == "int" and not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name}[{field!r}].dtype={arr.dtype} must be an integer dtype")
    return arr


def _signs(bits: dict, field: str, ndim: int) -> np.ndarray:
    """bits[field]: an integer array of ±1 entries, or ValueError."""
    arr = _bit(bits, "bits", field, ndim, "int")
    if arr.size and not np.all(np.abs(arr) == 1):
        raise ValueError(f"bits[{field!r}] must hold only -1 and +1 (found {sorted(set(arr.ravel().tolist()))[:5]})")
    return arr


def _rows(bits: dict, field: str, ndim: int, bound: int, what: str) -> np.ndarray:
    """bits[field]: an integer array of row indices in [0, bound), or ValueError."""
    arr = _bit(bits, "bits", field, ndim, "int")
    if arr.size and (arr.min() < 0 or arr.max() >= bound):
        raise ValueError(f"bits[{field!r}] must lie in [0, {what}={bound}) "
                         f"(found min {int(arr.min())}, max {int(arr.max())})")
    return arr


def _size(bits: dict, field: str) -> int:
    """bits[field]: a 0-d integer ≥ 1 (a dimension of the sketch), or ValueError."""
    value = int(_bit(bits, "bits", field, 0, "int"))
    if value < 1:
        raise ValueError(f"bits[{field!r}]={value} must be >= 1")
    return value


def _overflow_safe(apply, Ms: tuple, what: str):
    """``apply(*Ms)`` for a map linear in the columns of each input (the column j of the output
    depends on the columns j of the inputs only).  If the result is not finite (an intermediate
    overflowed), ``apply`` runs again on the columns scaled by exact powers of two to a largest
    entry in [1/2, 1) and the output is scaled back (in numpy, so subnormal results survive).
    ValueError when the result itself is not representable in float64.  A result that was finite
    is returned as it was."""
    out = apply(*Ms)
    if bool(all_finite(out)):
        return out
    scaled, exps, top = [], 0, 0.0
    for M in Ms:
        host = np.asarray(M)
        cols = host.reshape(host.shape[0], -1)
        big = np.max(np.abs(cols), axis=0)
        e = np.where(big > 0, np.frexp(big)[1], 0)
        scaled.append(jnp.asarray(np.ldexp(cols, -e).reshape(host.shape)))
        exps, top = exps + e, max(top, float(big.max()))
    Y = np.asarray(apply(*scaled))
    with np.errstate(over="ignore"):
        Y = np.ldexp(Y.reshape(Y.shape[0], -1), exps).reshape(Y.shape)
    if not np.all(np.isfinite(Y)):
        raise ValueError(f"{what} is not representable in float64: an entry overflows (largest input "
                         f"entry {top:.3g})")
    return jnp.asarray(Y)


def next_pow2(n: int) -> int:
    """``2^{⌈log2 n⌉}`` (``n ≥ 1``): the zero-padded length of an SRHT input (spec def.srht)."""
    n = check_int("n", n, lo=1)
    return 1 << (n - 1).bit_length()


def _draws(sampler, key, shape: tuple) -> np.ndarray:
    """``sampler(key, shape)``, drawn at every dimension rounded up to a power of two (at least 16)
    and cut to ``shape``.  Eager ``jax.random`` compiles once per shape (about 0.5 s of CPU each)
    and sketch sizes change from call to call; a leading block of iid draws is iid, so the bits
    keep their distribution and stay a function of the key and the shape alone."""
    big = tuple(max(16, next_pow2(k)) for k in shape)
    return np.asarray(sampler(key, big))[tuple(slice(0, k) for k in shape)]


# ----------------------------------------------------------------------------- FWHT


def _fwht(x: jax.Array) -> jax.Array:
    """Unnormalised Walsh–Hadamard transform along axis 0 (length a power of two): H_N @ x.

    Each of the log2 N identical passes applies H_2 to the top index bit and rotates that bit to
    the bottom (x.reshape(2, N/2) -> stack([a+b, a−b], axis=1)); after log2 N passes every bit
    has been transformed and the bit order is restored. One loop body: compiles once.
    """
    N = x.shape[0]
    rest = x.shape[1:]
    p = N.bit_length() - 1
    if p == 0:
        return x

    def step(_, y):
        y = y.reshape((2, N // 2) + rest)
        a, b = y[0], y[1]
        return jnp.stack([a + b, a - b], axis=1).reshape((N,) + rest)

    return lax.fori_loop(0, p, step, x)


_fwht_jit = jax.jit(_fwht)


def fwht(X) -> jax.Array:
    """Fast Walsh–Hadamard transform: ``H_N @ X`` along axis 0 in ``O(N log N)`` per column.

    **Arguments:** ``X``: vector ``(N,)`` or matrix ``(N, k)``, ``N`` a power of two.

    **Returns:** ``H_N @ X`` with ``H_N[a, b] = (−1)^{popcount(a & b)}`` (unnormalised Sylvester
    matrix, ``H Hᵀ = N I``; equals ``scipy.linalg.hadamard(N)``). Implemented with ``log2 N``
    butterfly passes (reshape, add, subtract); no ``N×N`` matrix is formed.
    """
    X = check_array("X", X)
    N = X.shape[0]
    if N & (N - 1):
        raise ValueError(f"X.shape[0]={N} must be a power of two")
    return _overflow_safe(_fwht_jit, (X,), "H_N @ X")


# ----------------------------------------------------------------------------- SRHT


def srht_bits(key, n: int, m: int) -> dict:
    """Random bits of an SRHT ``S ∈ R^{m×n}`` (spec def.srht = paper Def C.1).

    **Arguments:** ``key`` (jax key or int seed); ``n ≥ 1`` input dimension; ``m ≥ 1`` rows.

    **Returns:** ``{"n": int64 0-d, "signs": int8 (n_pad,), "rows": int64 (m,)}`` with
    ``n_pad = 2^{⌈log2 n⌉}``, ``signs`` iid uniform on {−1, +1} and ``rows`` iid uniform on
    ``{0, …, n_pad−1}`` (sampling **with** replacement; m may exceed n_pad).

    **Matrix:** ``S = (1/√m) · P · H · D · [I_n; 0_{(n_pad−n)×n}]``, i.e.
    ``S[k, i] = signs[i] · (−1)^{popcount(rows[k] & i)} / √m`` for ``i < n``, where ``H`` is the
    unnormalised Sylvester–Hadamard matrix of order ``n_pad``, ``D = diag(signs)`` and
    ``P[k] = e_{rows[k]}ᵀ``. Equivalently ``sqrt(n_pad/m) · P · (H/√n_pad) · D · [I; 0]``.
    """
    n = check_int("n", n, lo=1)
    m = check_int("m", m, lo=1)
    n_pad = next_pow2(n)
    check_fits(n_pad + 16 * max(16, next_pow2(m)), "the SRHT bits", n=n, m=m)
    k1, k2 = jax.random.split(as_key(key))
    signs = np.asarray(jax.random.rademacher(k1, (n_pad,), dtype=jnp.int8))
    rows = _draws(lambda k, shape: jax.random.randint(k, shape, 0, n_pad, dtype=jnp.int64), k2, (m,))
    return {"n": np.int64(n), "signs": signs.astype(np.int8), "rows": rows.astype(np.int64)}


@partial(jax.jit, static_argnames=("n_pad",))
def _srht_core(signs, rows, M, n_pad):
    n = M.shape[0]
    pad = [(0, n_pad - n)] + [(0, 0)] * (M.ndim - 1)
    Mp = jnp.pad(M, pad)
    s = signs.astype(M.dtype).reshape((n_pad,) + (1,) * (M.ndim - 1))
    Y = _fwht(s * Mp)
    return Y[rows] / jnp.sqrt(jnp.asarray(rows.shape[0], M.dtype))


def srht_apply(bits: dict, M) -> jax.Array:
    """``S @ M`` for the SRHT defined by ``bits`` (see :func:`srht_bits`), via one FWHT per column.

    **Arguments:** ``bits`` from :func:`srht_bits`; ``M`` of shape ``(n,)`` or ``(n, k)``.

    **Returns:** ``(m,)`` or ``(m, k)``. Cost ``O(k · n_pad log n_pad)``.
    """
    n = _size(bits, "n")
    signs = _signs(bits, "signs", 1)
    n_pad = signs.shape[0]
    if n_pad != next_pow2(n):
        raise ValueError(f"bits['signs'].shape[0]={n_pad} must be next_pow2(n)={next_pow2(n)}")
    rows = _rows(bits, "rows", 1, n_pad, "n_pad")
    if rows.size == 0:
        raise ValueError("bits['rows'] must not be empty (m >= 1)")
    M = check_array("M", M)
    if M.shape[0] != n:
        raise ValueError(f"M.shape[0]={M.shape[0]} must equal the sketch input dimension n={n}")
    signs, rows = jnp.asarray(signs), jnp.asarray(rows)
    return _overflow_safe(lambda X: _srht_core(signs, rows, X, n_pad), (M,), "S @ M")


def srht(M, m: int, *, key) -> jax.Array:
    """``S @ M`` for a fresh SRHT with ``m`` rows drawn from ``key`` (bits: :func:`srht_bits`)."""
    M = check_array("M", M)
    return srht_apply(srht_bits(key, M.shape[0], m), M)


# ----------------------------------------------------------------------------- TensorSRHT


def tensor_srht_bits(key, d1: int, d2: int, m: int) -> dict:
    """Random bits of a TensorSRHT ``S: R^{d1} × R^{d2} → R^m`` (spec def.tensorsrht, Def C.2).

    **Returns:** ``{"d1", "d2": int64 0-d, "signs1": int8 (d1p,), "signs2": int8 (d2p,),
    "rows1": int64 (m,), "rows2": int64 (m,)}`` with ``d1p = next_pow2(d1)``,
    ``d2p = next_pow2(d2)``; independent Rademacher signs; ``(rows1[k], rows2[k])`` iid uniform
    on ``[d1p] × [d2p]`` (with replacement).

    **Matrix** (spec kron convention ``(x⊗y)[a·d2 + b] = x[a]·y[b]``): ``S ∈ R^{m × d1·d2}``,
    ``S[k, a·d2 + b] = (1/√m) · H1[rows1[k], a]·signs1[a] · H2[rows2[k], b]·signs2[b]`` for
    ``a < d1``, ``b < d2``, where ``H1``, ``H2`` are the unnormalised Sylvester matrices of orders
    ``d1p``, ``d2p``. I.e. ``S = (1/√m) P (H1 D1 ⊗ H2 D2)`` restricted to the columns of the
    un-padded coordinates, ``P`` selecting row ``rows1[k]·d2p + rows2[k]``. Hence
    ``S(x⊗y)[k] = (1/√m) (H1 D1 x̄)[rows1[k]] · (H2 D2 ȳ)[rows2[k]]``.
    """
    d1 = check_int("d1", d1, lo=1)
    d2 = check_int("d2", d2, lo=1)
    m = check_int("m", m, lo=1)
    d1p, d2p = next_pow2(d1), next_pow2(d2)
    check_fits(d1p + d2p + 32 * max(16, next_pow2(m)), "the TensorSRHT bits", d1=d1, d2=d2, m=m)
    k1, k2, k3, k4 = jax.random.split(as_key(key), 4)
    return {
        "d1": np.int64(d1),
        "d2": np.int64(d2),
        "signs1": np.asarray(jax.random.rademacher(k1, (d1p,), dtype=jnp.int8)).astype(np.int8),
        "signs2": np.asarray(jax.random.rademacher(k2, (d2p,), dtype=jnp.int8)).astype(np.int8),
        "rows1": _draws(lambda k, shape: jax.random.randint(k, shape, 0, d1p, dtype=jnp.int64), k3, (m,)).astype(np.int64),
        "rows2": _draws(lambda k, shape: jax.random.randint(k, shape, 0, d2p, dtype=jnp.int64), k4, (m,)).astype(np.int64),
    }


def _tensor_parts(bits):
    d1, d2 = _size(bits, "d1"), _size(bits, "d2")
    s1, s2 = _signs(bits, "signs1", 1), _signs(bits, "signs2", 1)
    if s1.shape[0] != next_pow2(d1) or s2.shape[0] != next_pow2(d2):
        raise ValueError("bits['signs1'/'signs2'] lengths must be next_pow2(d1), next_pow2(d2)")
    r1 = _rows(bits, "rows1", 1, s1.shape[0], "next_pow2(d1)")
    r2 = _rows(bits, "rows2", 1, s2.shape[0], "next_pow2(d2)")
    if r1.size == 0:
        raise ValueError("bits['rows1'] must not be empty (m >= 1)")
    if r1.shape != r2.shape:
        raise ValueError(f"bits['rows1'].shape={r1.shape} must equal bits['rows2'].shape={r2.shape}")
    return d1, d2, s1, s2, r1, r2


@partial(jax.jit, static_argnames=("d1p", "d2p"))
def _tensor_core(s1, s2, r1, r2, X, Y, d1p, d2p):
    # X: (d1, k), Y: (d2, k)
    Xp = jnp.pad(X, [(0, d1p - X.shape[0]), (0, 0)]) * s1.astype(X.dtype)[:, None]
    Yp = jnp.pad(Y, [(0, d2p - Y.shape[0]), (0, 0)]) * s2.astype(Y.dtype)[:, None]
    HX = _fwht(Xp)
    HY = _fwht(Yp)
    return HX[r1] * HY[r2] / jnp.sqrt(jnp.asarray(r1.shape[0], X.dtype))


@partial(jax.jit, static_argnames=("d1p", "d2p"))
def _tensor_flat_core(s1, s2, r1, r2, V, d1p, d2p):
    # V: (d1, d2, k) -> (H1 D1 V D2 H2ᵀ)[r1, r2, :]
    d1, d2 = V.shape[0], V.shape[1]
    Vp = jnp.pad(V, [(0, d1p - d1), (0, d2p - d2), (0, 0)])
    Vp = Vp * s1.astype(V.dtype)[:, None, None] * s2.astype(V.dtype)[None, :, None]
    W = _fwht(Vp)  # along axis 0
    W = jnp.moveaxis(_fwht(jnp.moveaxis(W, 1, 0)), 0, 1)  # along axis 1
    return W[r1, r2] / jnp.sqrt(jnp.asarray(r1.shape[0], V.dtype))


def tensor_srht_apply(bits: dict, x, y) -> jax.Array:
    """``S(x ⊗ y)`` for the TensorSRHT defined by ``bits``, without forming ``x ⊗ y``.

    **Arguments:** ``x`` of shape ``(d1,)`` or ``(d1, k)``; ``y`` of shape ``(d2,)`` or
    ``(d2, k)`` (same ndim; for matrices, column i of the output sketches ``x_i ⊗ y_i``).

    **Returns:** ``(m,)`` or ``(m, k)``. Two FWHTs, a gather and a product:
    ``O(d1p log d1p + d2p log d2p + m)`` per column.
    """
    d1, d2, s1, s2, r1, r2 = _tensor_parts(bits)
    x = check_array("x", x)
    y = check_array("y", y)
    if x.ndim != y.ndim:
        raise ValueError(f"x.ndim={x.ndim} must equal y.ndim={y.ndim}")
    if x.shape[0] != d1 or y.shape[0] != d2:
        raise ValueError(f"x.shape[0]={x.shape[0]}, y.shape[0]={y.shape[0]} must be d1={d1}, d2={d2}")
    if x.ndim == 2 and x.shape[1] != y.shape[1]:
        raise ValueError(f"x.shape[1]={x.shape[1]} must equal y.shape[1]={y.shape[1]}")
    vec = x.ndim == 1
    X = x[:, None] if vec else x
    Y = y[:, None] if vec else y
    s1, s2, r1, r2 = (jnp.asarray(t) for t in (s1, s2, r1, r2))
    out = _overflow_safe(lambda X, Y: _tensor_core(s1, s2, r1, r2, X, Y, s1.shape[0], s2.shape[0]), (X, Y),
                         "S(x ⊗ y)")
    return out[:, 0] if vec else out


def tensor_srht_apply_flat(bits: dict, v) -> jax.Array:
    """``S @ v`` for a general ``v ∈ R^{d1·d2}`` (or columns of ``(d1·d2, k)``).

    Uses ``V = reshape(v, d1, d2)`` (row-major, the spec's kron convention) and
    ``S v[k] = (1/√m) (H1 D1 V D2 H2ᵀ)[rows1[k], rows2[k]]``.
    """
    d1, d2, s1, s2, r1, r2 = _tensor_parts(bits)
    v = check_array("v", v)
    if v.shape[0] != d1 * d2:
        raise ValueError(f"v.shape[0]={v.shape[0]} must equal d1*d2={d1 * d2}")
    vec = v.ndim == 1
    s1, s2, r1, r2 = (jnp.asarray(t) for t in (s1, s2, r1, r2))

    def apply(flat):  # linear in the columns of flat (d1·d2, k)
        return _tensor_flat_core(s1, s2, r1, r2, flat.reshape(d1, d2, -1), s1.shape[0], s2.shape[0])

    out = _overflow_safe(apply, (v[:, None] if vec else v,), "S @ v")
    return out[:, 0] if vec else out


def tensor_srht(x, y, m: int, *, key) -> jax.Array:
    """``S(x ⊗ y)`` for a fresh TensorSRHT with ``m`` rows drawn from ``key``."""
    x = check_array("x", x)
    y = check_array("y", y)
    return tensor_srht_apply(tensor_srht_bits(key, x.shape[0], y.shape[0], m), x, y)


# ----------------------------------------------------------------------------- OSNAP / CountSketch


def osnap_bits(key, n: int, m: int, s: int) -> dict:
    """Random bits of an OSNAP ``S ∈ R^{m×n}`` with column sparsity ``s`` (spec def.osnap).

    **Block variant** (spec: "either is acceptable; state which"): the rows are split into ``s``
    contiguous blocks, block ``t`` being rows ``⌊t·m/s⌋ … ⌊(t+1)·m/s⌋ − 1``; each column has
    exactly one nonzero per block at a uniformly random row of that block (so its ``s`` rows are
    distinct), with an independent uniform sign. Needs ``1 ≤ s ≤ m``.

    **Returns:** ``{"m": int64 0-d, "rows": int64 (s, n), "signs": int8 (s, n)}``.

    **Matrix:** ``S = Σ_t Σ_j (signs[t, j]/√s) · e_{rows[t, j]} e_jᵀ``, i.e.
    ``S[rows[t, j], j] += signs[t, j]/√s`` (a sum, so the definition stays valid for any rows).
    ``S @ M`` costs ``s · nnz(M)`` multiply-adds (scatter-add).
    """
    n = check_int("n", n, lo=1)
    m = check_int("m", m, lo=1)
    s = check_int("s", s, lo=1)
    if s > m:
        raise ValueError(f"s={s} must be <= m={m}")
    check_fits(17 * s * max(16, next_pow2(n)), "the OSNAP bits", n=n, s=s)
    k1, k2 = jax.random.split(as_key(key))
    starts = (np.arange(s, dtype=np.int64) * m) // s
    stops = (np.arange(1, s + 1, dtype=np.int64) * m) // s
    N = max(16, next_pow2(n))  # drawn at a power-of-two n and cut (see _draws)
    rows = np.asarray(jax.random.randint(k1, (s, N), jnp.asarray(starts)[:, None], jnp.asarray(stops)[:, None],
                                         dtype=jnp.int64))[:, :n]
    signs = np.asarray(jax.random.rademacher(k2, (s, N), dtype=jnp.int8))[:, :n]
    return {"m": np.int64(m), "rows": np.asarray(rows).astype(np.int64),
            "signs": np.asarray(signs).astype(np.int8)}


@partial(jax.jit, static_argnames=("m",))
def _scatter_core(rows, signs, M, m):
    # rows, signs: (s, n); M: (n, k). Y = Σ_t segment_sum(signs[t] * M, rows[t]) / sqrt(s)
    s = rows.shape[0]

    def body(out, rs):
        r, g = rs
        return out + jax.ops.segment_sum(g.astype(M.dtype)[:, None] * M, r, num_segments=m), None

    if s == 1:
        out = body(jnp.zeros((m, M.shape[1]), M.dtype), (rows[0], signs[0]))[0]
    else:
        out = lax.scan(body, jnp.zeros((m, M.shape[1]), M.dtype), (rows, signs))[0]
    return out / jnp.sqrt(jnp.asarray(s, M.dtype))


def _scatter_apply(m, rows, signs, M):
    M = check_array("M", M)
    n = rows.shape[1]
    if M.shape[0] != n:
        raise ValueError(f"M.shape[0]={M.shape[0]} must equal the sketch input dimension n={n}")
    vec = M.ndim == 1
    check_fits(8 * m * (1 if vec else M.shape[1]), "S @ M", m=m, k=1 if vec else M.shape[1])
    rows, signs = jnp.asarray(rows), jnp.asarray(signs)
    out = _overflow_safe(lambda X: _scatter_core(rows, signs, X, m), (M[:, None] if vec else M,), "S @ M")
    return out[:, 0] if vec else out


def _scatter_bits(bits: dict, ndim: int):
    """``(m, rows, signs)`` of OSNAP (``ndim=2``) or CountSketch (``ndim=1``) bits: rows in [0, m), signs ±1,
    of one shape."""
    m = _size(bits, "m")
    rows = _rows(bits, "rows", ndim, m, "m")
    signs = _signs(bits, "signs", ndim)
    if rows.shape != signs.shape:
        raise ValueError(f"bits['rows'].shape={rows.shape} must equal bits['signs'].shape={signs.shape}")
    return m, rows, signs


def osnap_apply(bits: dict, M) -> jax.Array:
    """``S @ M`` for the OSNAP defined by ``bits`` (:func:`osnap_bits`): ``s`` scatter-adds."""
    m, rows, signs = _scatter_bits(bits, 2)
    if rows.shape[0] == 0:
        raise ValueError("bits['rows'] must have s >= 1 rows (column sparsity)")
    return _scatter_apply(m, rows, signs, M)


def osnap(M, m: int, s: int, *, key) -> jax.Array:
    """``S @ M`` for a fresh OSNAP (``m`` rows, column sparsity ``s``) drawn from ``key``."""
    M = check_array("M", M)
    return osnap_apply(osnap_bits(key, M.shape[0], m, s), M)


def countsketch_bits(key, n: int, m: int) -> dict:
    """Random bits of a CountSketch ``S ∈ R^{m×n}`` (spec def.countsketch: OSNAP with s = 1).

    **Returns:** ``{"m": int64 0-d, "rows": int64 (n,), "signs": int8 (n,)}``, rows iid uniform
    on ``{0, …, m−1}``, signs iid uniform on {−1, +1}.

    **Matrix:** ``S[rows[j], j] = signs[j]``, all other entries 0. ``S @ M`` costs ``nnz(M)``.
    """
    n = check_int("n", n, lo=1)
    m = check_int("m", m, lo=1)
    check_fits(17 * max(16, next_pow2(n)), "the CountSketch bits", n=n)
    k1, k2 = jax.random.split(as_key(key))
    rows = _draws(lambda k, shape: jax.random.randint(k, shape, 0, m, dtype=jnp.int64), k1, (n,)).astype(np.int64)
    signs = _draws(lambda k, shape: jax.random.rademacher(k, shape, dtype=jnp.int8), k2, (n,)).astype(np.int8)
    return {"m": np.int64(m), "rows": rows, "signs": signs}


def countsketch_apply(bits: dict, M) -> jax.Array:
    """``S @ M`` for the CountSketch defined by ``bits`` (:func:`countsketch_bits`): one scatter-add."""
    m, rows, signs = _scatter_bits(bits, 1)
    return _scatter_apply(m, rows[None], signs[None], M)


def countsketch(M, m: int, *, key) -> jax.Array:
    """``S @ M`` for a fresh CountSketch with ``m`` rows drawn from ``key``."""
    M = check_array("M", M)
    return countsketch_apply(countsketch_bits(key, M.shape[0], m), M)


# ----------------------------------------------------------------------------- Gaussian


def gaussian_bits(key, n: int, m: int) -> dict:
    """Random bits of a Gaussian sketch ``S ∈ R^{m×n}``.

    **Returns:** ``{"g": float64 (m, n)}`` with iid standard normal entries.

    **Matrix:** ``S = g / √m`` (so ``E‖Sx‖² = ‖x‖²``).
    """
    n = check_int("n", n, lo=1)
    m = check_int("m", m, lo=1)
    check_fits(8 * max(16, next_pow2(m)) * max(16, next_pow2(n)), "the Gaussian sketch", n=n, m=m)
    return {"g": _draws(lambda k, shape: jax.random.normal(k, shape, dtype=jnp.float64), as_key(key), (m, n))}


@jax.jit
def _gaussian_core(g, M):
    return (g @ M) / jnp.sqrt(jnp.asarray(g.shape[0], M.dtype))


def gaussian_apply(bits: dict, M) -> jax.Array:
    """``S @ M = (g @ M)/√m`` for the Gaussian sketch defined by ``bits``."""
    _bit(bits, "bits", "g", 2, "float")
    g = check_array("bits['g']", bits["g"], ndim=2)
    M = check_array("M", M)
    if M.shape[0] != g.shape[1]:
        raise ValueError(f"M.shape[0]={M.shape[0]} must equal the sketch input dimension n={g.shape[1]}")
    return _overflow_safe(lambda X: _gaussian_core(g, X), (M,), "S @ M")


def gaussian(M, m: int, *, key) -> jax.Array:
    """``S @ M`` for a fresh Gaussian sketch with ``m`` rows drawn from ``key``."""
    M = check_array("M", M)
    return gaussian_apply(gaussian_bits(key, M.shape[0], m), M)


# ----------------------------------------------------------------------------- dispatch

SKETCHES = ("srht", "osnap", "countsketch", "gaussian")


def sketch_bits(kind: str, key, n: int, m: int, *, s: int | None = None) -> dict:
    """Bits of the sketch ``kind`` (one of ``SKETCHES``); ``s`` is OSNAP's column sparsity."""
    if kind == "srht":
        return srht_bits(key, n, m)
    if kind == "osnap":
        if s is None:
            raise ValueError("s=None must be an int for kind='osnap'")
        return osnap_bits(key, n, m, min(s, m))
    if kind == "countsketch":
        return countsketch_bits(key, n, m)
    if kind == "gaussian":
        return gaussian_bits(key, n, m)
    raise ValueError(f"kind={kind!r} must be one of {SKETCHES}")


def sketch_apply(kind: str, bits: dict, M) -> jax.Array:
    """Apply the sketch ``kind`` defined by ``bits`` to ``M``."""
    fn = {"srht": srht_apply, "osnap": osnap_apply, "countsketch": countsketch_apply,
          "gaussian": gaussian_apply}.get(kind)
    if fn is None:
        raise ValueError(f"kind={kind!r} must be one of {SKETCHES}")
    return fn(bits, M)


def sketch_work(kind: str, n: int, k: int, m: int, s: int | None = None) -> int:
    """Operation count of applying the sketch to an ``n×k`` dense matrix (spec T3).

    SRHT: ``k · n_pad · log2 n_pad`` butterfly additions; OSNAP: ``s · n · k``; CountSketch:
    ``n · k``; Gaussian: ``m · n · k`` multiply-adds.
    """
    if kind == "srht":
        n_pad = next_pow2(n)
        return k * n_pad * max(1, int(math.log2(n_pad)))
    if kind == "osnap":
        return int(s) * n * k
    if kind == "countsketch":
        return n * k
    if kind == "gaussian":
        return m * n * k
    if kind == "identity":
        return 0
    raise ValueError(f"kind={kind!r} must be one of {SKETCHES + ('identity',)}")
