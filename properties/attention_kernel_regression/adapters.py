"""Adapter checks of paper 004 (attention-kernel regression).

Sketches: ``<kind>_bits(..., seed) -> dict`` (the random bits, format of solvers/sketches.py) and
``<kind>_apply(bits, M) -> S @ M``.  ``*_bits`` are checked for format (and, by the validator, for
determinism in the seed), the oracle rebuilds the matrix from them, and their statistical checks
(:mod:`properties.sketch_statistics`: sign balance and independence, uniform rows, Gaussian law,
subspace embedding on coherent inputs) judge their distribution over seeds; ``*_apply`` is fed bits drawn
here (independent of the implementation) and compared entrywise with the oracle's exact S·M.
Algorithms: ``name(A, b, [j,] eps, delta, seed) -> x`` judged on the paper's guarantee, exactly, plus
the rounding allowance 16·N·u·(scale of the computed residual) (N = max(n, d)).
Operation counts (``*_ops``, ``even_powers_iterations``), on which the running-time claims are
judged: integers, reproducible, and no smaller than the work the result cannot avoid.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st
from mpmath import mp

from oracle import attention_kernel_regression as O
from oracle import linalg, to_mp
from oracle.sketch_bits import int_scaled, sketch_int_matrix

from ..contract import AdapterSet, TrialRule, U, output, within
from ..sketch_statistics import bits_distribution, bits_embedding
from ..toolkit import Outcome, le
from ..toolkit.strategies import (
    PATH_SIZES,
    dims,
    fixed_matrix,
    kappa_corner_matrices,
    matrices,
    scalars,
    vectors,
    walsh_hadamard_columns,
    with_corners,
)
from .common import fraction, odd_residual_and_opt, power_residual
from .strategies import alg_instances

__all__ = ["ADAPTERS"]

ADAPTERS = AdapterSet()
_SEEDS = st.integers(0, 2**31 - 1)


def _verdict(ok: bool, note: str) -> Outcome:
    return Outcome(bool(ok), 0.0 if ok else math.inf, 0.0, 0.0, None, note)


def _np2(n):
    return 1 << (n - 1).bit_length()


def _same_bits(b1, b2):
    return set(b1) == set(b2) and all(np.array_equal(np.asarray(b1[k]), np.asarray(b2[k])) for k in b1)


def _bits_check(fn, args, rebuild, expect):
    """``fn(*args)`` (its last argument the seed) is the same dict on two calls, with the keys, shapes
    and integer dtypes of ``expect``; the oracle's rebuild of the matrix (``rebuild``) refuses
    out-of-range values with ValueError."""
    bits = fn(*args)
    if not isinstance(bits, dict):
        return _verdict(False, f"returned {type(bits).__name__}, must be a dict")
    for key, (shape, dtype_kind) in expect.items():
        if key not in bits:
            return _verdict(False, f"bits lack key {key!r}")
        arr = np.asarray(bits[key])
        if arr.shape != shape:
            return _verdict(False, f"bits[{key!r}].shape={arr.shape}, must be {shape}")
        if dtype_kind == "i" and not np.issubdtype(arr.dtype, np.integer):
            return _verdict(False, f"bits[{key!r}].dtype={arr.dtype} must be an integer dtype")
        if arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):  # NaN ≠ NaN: not a determinism failure
            return _verdict(False, f"bits[{key!r}] holds NaN or inf (must be finite)")
    again = fn(*args)
    if not (isinstance(again, dict) and _same_bits(bits, again)):
        return _verdict(False, f"seed={args[-1]} gave different bits on two calls (must be deterministic)")
    rebuild(bits)
    return _verdict(True, "format, determinism and oracle rebuild ok")


_BITS_TOL = "exact: deterministic in seed, shapes/dtypes/ranges as documented"


def _bits_sizes(*rest):
    """(n, m, …, seed) for n crossing :data:`~properties.toolkit.strategies.PATH_SIZES` (an SRHT pads 9 to 16,
    17 to 32, 33 to 64, 65 to 128), m = 5 rows."""
    return lambda: [(n, 5, *rest, 3) for n in PATH_SIZES]


def _bits_magnitudes(*rest):
    """n = 2¹⁰ + 1 (an SRHT padded to 2048) with m = 8 (the oracle rebuilds S entry by entry), and the largest
    seed of the contract, 2³¹ − 1."""
    return lambda: [(2**10 + 1, 8, *rest, 12345), (20, 5, *rest, 2**31 - 1)]


@ADAPTERS("srht_bits", signature="srht_bits(n: int, m: int, seed: int) -> dict",
          doc="random bits of an m×n SRHT: {'n': 0-d int, 'signs': (n_pad,) ±1 ints, 'rows': (m,) ints in "
              "[0, n_pad)}, n_pad = 2^⌈log2 n⌉; S[k,i] = signs[i]·(−1)^{popcount(rows[k]&i)}/√m",
          tolerance=_BITS_TOL, strategy=lambda: st.tuples(dims(1, 40), dims(1, 20), _SEEDS),
          statistical=(bits_distribution("srht"), bits_embedding("srht")), size_corners=_bits_sizes(),
          magnitude_corners=_bits_magnitudes(),
          not_judged="the scale of S: bits fix its rows and signs, not the 1/√m of its entries (the √(n_pad/m) "
                     "rescale of the orthonormal Hadamard transform); define srht_apply to have it judged")
def _srht_bits(inst, fn):
    n, m, seed = inst
    return _bits_check(fn, (n, m, seed), O.srht_matrix,
                       {"n": ((), "i"), "signs": ((_np2(n),), "i"), "rows": ((m,), "i")})


@ADAPTERS("tensor_srht_bits", signature="tensor_srht_bits(d1: int, d2: int, m: int, seed: int) -> dict",
          doc="random bits of a TensorSRHT R^{d1}×R^{d2} → R^m: {'d1','d2': 0-d ints, 'signs1': (d1p,), "
              "'signs2': (d2p,) ±1, 'rows1': (m,) in [0,d1p), 'rows2': (m,) in [0,d2p)}",
          tolerance=_BITS_TOL, strategy=lambda: st.tuples(dims(1, 9), dims(1, 9), dims(1, 20), _SEEDS),
          statistical=(bits_distribution("tensor_srht"),),
          size_corners=lambda: [(n, 2, 5, 3) for n in PATH_SIZES] + [(2, n, 5, 3) for n in (9, 17, 33, 65)],
          magnitude_corners=lambda: [(2**10 + 1, 2, 8, 12345), (5, 7, 5, 2**31 - 1)],
          not_judged="the scale of S: bits fix its rows and signs, not the 1/√m of its entries; define "
                     "tensor_srht_apply to have it judged")
def _tensor_srht_bits(inst, fn):
    d1, d2, m, seed = inst
    return _bits_check(fn, (d1, d2, m, seed), O.tensor_srht_matrix,
                       {"d1": ((), "i"), "d2": ((), "i"), "signs1": ((_np2(d1),), "i"), "signs2": ((_np2(d2),), "i"),
                        "rows1": ((m,), "i"), "rows2": ((m,), "i")})


@ADAPTERS("osnap_bits", signature="osnap_bits(n: int, m: int, s: int, seed: int) -> dict",
          doc="random bits of an m×n OSNAP with column sparsity s: {'m': 0-d int, 'rows': (s, n) ints in [0, m), "
              "'signs': (s, n) ±1}; S[rows[t,j], j] += signs[t,j]/√s; each column's s rows distinct",
          tolerance="exact: deterministic in seed, shapes/ranges as documented, distinct rows per column",
          strategy=lambda: dims(1, 12).flatmap(lambda m: st.tuples(dims(1, 30), st.just(m), dims(1, m), _SEEDS)),
          statistical=(bits_distribution("osnap"), bits_embedding("osnap")), size_corners=_bits_sizes(2),
          magnitude_corners=_bits_magnitudes(4),
          not_judged="the scale of S: bits fix its nonzero rows and signs, not their value ±1/√s (an OSNAP scaled "
                     "1/s has the same bits); define osnap_apply to have it judged")
def _osnap_bits(inst, fn):
    n, m, s, seed = inst
    out = _bits_check(fn, (n, m, s, seed), O.osnap_matrix, {"m": ((), "i"), "rows": ((s, n), "i"), "signs": ((s, n), "i")})
    rows = np.asarray(fn(n, m, s, seed)["rows"]) if out.holds else None
    if out.holds and any(len(set(rows[:, j].tolist())) != s for j in range(n)):
        return _verdict(False, "a column's s nonzero rows are not distinct (def.osnap)")
    return out


@ADAPTERS("countsketch_bits", signature="countsketch_bits(n: int, m: int, seed: int) -> dict",
          doc="random bits of an m×n CountSketch: {'m': 0-d int, 'rows': (n,) ints in [0, m), 'signs': (n,) ±1}",
          tolerance=_BITS_TOL, strategy=lambda: st.tuples(dims(1, 30), dims(1, 12), _SEEDS),
          statistical=(bits_distribution("countsketch"), bits_embedding("countsketch")), size_corners=_bits_sizes(),
          magnitude_corners=_bits_magnitudes())
def _countsketch_bits(inst, fn):
    n, m, seed = inst
    return _bits_check(fn, (n, m, seed), O.countsketch_matrix, {"m": ((), "i"), "rows": ((n,), "i"), "signs": ((n,), "i")})


@ADAPTERS("gaussian_bits", signature="gaussian_bits(n: int, m: int, seed: int) -> dict",
          doc="random bits of an m×n Gaussian sketch: {'g': (m, n) float64}; S = g/√m",
          tolerance="exact: deterministic in seed, shape (m, n), finite",
          strategy=lambda: st.tuples(dims(1, 20), dims(1, 12), _SEEDS),
          statistical=(bits_distribution("gaussian"), bits_embedding("gaussian")), size_corners=_bits_sizes(),
          magnitude_corners=lambda: [(2**10 + 1, 8, 12345), (20, 5, 2**31 - 1)],
          not_judged="the scale of S = g/√m: bits fix g, not the 1/√m; define gaussian_apply to have it judged")
def _gaussian_bits(inst, fn):
    n, m, seed = inst
    return _bits_check(fn, (n, m, seed), O.gaussian_matrix, {"g": ((m, n), "f")})


def _draw_bits(kind, rng, n, m, s=1, d2=None):
    """Bits drawn here with numpy (independent of the implementation under test)."""
    signs = lambda shape: rng.choice(np.array([-1, 1], np.int8), shape)  # noqa: E731
    if kind == "srht":
        p = _np2(n)
        return {"n": np.int64(n), "signs": signs(p), "rows": rng.integers(0, p, m).astype(np.int64)}
    if kind == "tensor":
        p1, p2 = _np2(n), _np2(d2)
        return {"d1": np.int64(n), "d2": np.int64(d2), "signs1": signs(p1), "signs2": signs(p2),
                "rows1": rng.integers(0, p1, m).astype(np.int64), "rows2": rng.integers(0, p2, m).astype(np.int64)}
    if kind == "osnap":
        rows = np.stack([rng.choice(m, s, replace=False) for _ in range(n)], axis=1).astype(np.int64)
        return {"m": np.int64(m), "rows": rows, "signs": signs((s, n))}
    if kind == "countsketch":
        return {"m": np.int64(m), "rows": rng.integers(0, m, n).astype(np.int64), "signs": signs(n)}
    return {"g": rng.standard_normal((m, n))}


def _apply_strategy(kind):
    def build(t):
        n, m, k, seed, vec = t
        return st.tuples(st.just((kind, n, m, 1 + seed % m, seed)),
                         matrices(st.just(n), st.just(k), max_abs=1e3).map(lambda M: M[:, 0] if vec else M))
    return st.tuples(dims(1, 20), dims(1, 10), dims(1, 3), _SEEDS, st.booleans()).flatmap(build)


def _apply_check(inst, fn):
    (kind, n, m, s, seed), M = inst
    bits = _draw_bits(kind, np.random.default_rng(seed), n, m, s)
    M2 = M[:, None] if M.ndim == 1 else M
    got = output(fn({k: np.copy(v) for k, v in bits.items()}, M.copy()), f"{kind}_apply",
                 shape=(m,) if M.ndim == 1 else (m, M2.shape[1]))
    got2 = got[:, None] if M.ndim == 1 else got
    T, q, ks = sketch_int_matrix(kind, bits)
    NM, km = int_scaled(M2)
    TM = T.dot(NM)
    absT = np.abs(np.asarray(T, dtype=np.float64))
    mag = absT @ np.abs(M2) * 2.0**-ks  # Σ|T||M| per entry
    gamma = np.full((TM.shape[0], 1), math.log2(_np2(n)) + 3) if kind == "srht" else (absT != 0).sum(axis=1)[:, None] + 3
    worst = mp.mpf(0)
    with mp.workdps(40):
        sq = mp.sqrt(q)
        for i in range(TM.shape[0]):
            for j in range(TM.shape[1]):
                exact = mp.mpf(int(TM[i, j])) / 2 ** (km + ks) / sq
                tol = float(gamma[i, 0]) * U * float(mag[i, j]) / math.sqrt(q) + 2 * U * abs(exact)
                err = abs(mp.mpf(got2[i, j]) - exact)
                worst = max(worst, err / tol if tol else (mp.inf if err else mp.mpf(0)))
    return within(worst, mp.mpf(1), f"{kind}: worst entrywise error/tolerance {mp.nstr(worst, 4)}")


_APPLY_TOL = ("|(SM)^ − SM| ≤ γ·u·(Σ|S||M|) + 2u|SM| entrywise, γ = log₂ n_pad + 3 (SRHT, FWHT depth) or "
              "(nonzeros in the row + 3) (sparse / Gaussian sums)")


def _apply_corners(kind):
    """(bits parameters, M) at float64's magnitude corners: entries near 1e154 and 1e-162 (whose squares
    overflow and underflow), Walsh–Hadamard columns (coherent for an SRHT), spikes e_i."""
    ramp = np.linspace(1.0, -1.0, 16).reshape(8, 2) + 0.125
    spikes = np.zeros((8, 2))
    spikes[0, 0], spikes[5, 1] = 1.0, 1e3
    return [((kind, 8, 4, 4, 3), M) for M in (ramp * 1e154, ramp * 1e-162, walsh_hadamard_columns(8, 2), spikes)]


def _apply_magnitudes(kind):
    """:func:`_apply_corners`' entries near 1e154 and 1e-162, and entries above 10 (12 + a fixed matrix)."""
    return _apply_corners(kind)[:2] + [((kind, 8, 4, 4, 3), fixed_matrix(8, 2) + 12.0)]


def _apply_adapter(kind, signature, doc):
    ADAPTERS(f"{kind}_apply", signature=signature, doc=doc, tolerance=_APPLY_TOL,
             strategy=lambda: with_corners(_apply_strategy(kind), st.sampled_from(_apply_corners(kind)), weight=0.1),
             corners=lambda: _apply_corners(kind)[2:], magnitude_corners=lambda: _apply_magnitudes(kind),
             size_corners=lambda: [((kind, n, 4, 2, 3), fixed_matrix(n, 2)) for n in PATH_SIZES],
             instance_fields=(("sketch kind", "n", "m", "s", "seed of the bits"), "M"))(_apply_check)


_apply_adapter("srht", "srht_apply(bits: dict, M: (n,) or (n, k) array) -> (m,) or (m, k) array",
               "S @ M for the SRHT of bits")
_apply_adapter("osnap", "osnap_apply(bits: dict, M) -> S @ M", "S @ M for the OSNAP of bits")
_apply_adapter("countsketch", "countsketch_apply(bits: dict, M) -> S @ M", "S @ M for the CountSketch of bits")
_apply_adapter("gaussian", "gaussian_apply(bits: dict, M) -> S @ M", "S @ M = (g @ M)/√m for the Gaussian sketch of bits")


def _tensor_apply_magnitudes():
    """(d1, d2, m, seed), x, y with x near 1e150 and y near 1e-150 (each x_a·y_b of order 1, ‖x‖² overflowing), x
    near 1e-160 (products of order 1e-160, still normal), and entries above 10 (12 + a ramp)."""
    x, y = np.linspace(1.0, -1.0, 5) + 0.125, np.array([0.5, -2.0, 1.5])
    return [((5, 3, 4, 3), x * 1e150, y * 1e-150), ((5, 3, 4, 3), x * 1e-160, y), ((5, 3, 4, 3), x + 12.0, y - 12.0)]


@ADAPTERS("tensor_srht_apply",
          signature="tensor_srht_apply(bits: dict, x: (d1,) or (d1, k), y: (d2,) or (d2, k)) -> (m,) or (m, k)",
          doc="S(x ⊗ y) for the TensorSRHT of bits (column-wise for matrices), kron convention (x⊗y)[a·d2+b]",
          tolerance="|ẑ − z| ≤ (log₂d1p + log₂d2p + 4)·u·‖x‖₁‖y‖₁/√m entrywise",
          strategy=lambda: st.tuples(dims(1, 9), dims(1, 9), dims(1, 10), _SEEDS).flatmap(
              lambda t: st.tuples(st.just(t), vectors(st.just(t[0]), max_abs=1e3), vectors(st.just(t[1]), max_abs=1e3))),
          magnitude_corners=_tensor_apply_magnitudes,
          size_corners=lambda: [((n, 2, 5, 3), np.sin(np.arange(1.0, n + 1)), np.array([0.7, -1.3])) for n in PATH_SIZES]
          + [((3, n, 5, 3), np.array([0.7, -1.3, 0.4]), np.cos(np.arange(1.0, n + 1))) for n in (9, 17, 33, 65)],
          instance_fields=(("d1", "d2", "m", "seed of the bits"), "x", "y"))
def _tensor_srht_apply(inst, fn):
    (d1, d2, m, seed), x, y = inst
    bits = _draw_bits("tensor", np.random.default_rng(seed), d1, m, d2=d2)
    got = output(fn({k: np.copy(v) for k, v in bits.items()}, x.copy(), y.copy()), "tensor_srht_apply", shape=(m,))
    with mp.workdps(40):
        z = O.tensor_srht_matrix(bits) * linalg.kron(to_mp(x), to_mp(y))  # x ⊗ y formed exactly
        tol = (math.log2(_np2(d1)) + math.log2(_np2(d2)) + 4) * U * float(np.abs(x).sum() * np.abs(y).sum()) / math.sqrt(m)
        worst = max(abs(mp.mpf(got[i]) - z[i]) for i in range(m))
        return within(worst, tol, f"worst error {mp.nstr(worst, 4)}")


# ----------------------------------------------------------------------------- algorithms


def _alg_out(sides, note):
    """measured ≤ bound + rounding allowance, from ``sides() -> (measured, bound, allowance)``."""
    def with_allowance():
        m, b, slack = sides()
        return m, b + slack
    return le(with_allowance, note=note)


def _allowance(N, *terms):
    return 16 * N * mp.mpf(U) * mp.fsum(terms)


_ALG_SIG = "(A: (n, d), b: ({b},), {j}eps: float, delta: float, seed: int) -> (d,) array"

# The algorithms' guarantees hold with probability ≥ 1 − δ: the search draws (A, b, [j,] ε, δ) without
# the seed, and each drawn instance is judged over the seeds 0 … k−1 by the ledger's binomial rule
# (validate's TrialRule), so a correct randomised method that fails on a few seeds (rate ≤ δ) passes and
# one that fails more often than δ is caught; fixed coherent corners (Walsh–Hadamard columns, spikes,
# repeated rows) are judged after the search.
_ALG_TRIALS = 30


def _alg_corners(tall_b, j=None):
    """(A, b, ε, δ) on coherent inputs: Walsh–Hadamard columns, spikes e_i, repeated rows."""
    spikes = np.zeros((8, 2))
    spikes[0, 0], spikes[5, 1] = 1.0, 2.0
    repeated = np.repeat(np.array([[1.0, 2.0, -1.0]]), 6, axis=0) + np.eye(6, 3)
    out = []
    for A in (walsh_hadamard_columns(8, 3), spikes, repeated):
        n, d = A.shape
        b = np.linspace(1.0, -1.0, n if tall_b else d) + 0.25
        out.append((A, b, 0.05, 0.05) if j is None else ((A, b, 0.05, 0.05), j))
    return out


def _square_corners():
    """(A, b, ε, δ) square with κ(A) = 10³, 10⁶, 10¹²: OPT = 0, so the rule asks for a backward-stable
    residual; a solver that squares κ (the normal equations) misses it by about κ."""
    out = []
    for n, log_kappa, seed in ((3, 3, 0), (4, 6, 1), (4, 12, 2)):
        rng = np.random.default_rng(seed)
        U_ = np.linalg.qr(rng.standard_normal((n, n)))[0]
        V = np.linalg.qr(rng.standard_normal((n, n)))[0]
        A = (U_ * np.logspace(0.0, -log_kappa, n)) @ V.T
        out.append((A, A @ np.linspace(1.0, -1.0, n), 0.05, 0.05))
    return out


@st.composite
def _kappa_regression_instances(draw):
    """(A, b, ε, δ) with A a κ corner (:data:`~properties.toolkit.strategies.KAPPA_CORNERS`: 1, 1e4, 1e8, 1e12),
    square half the time (OPT = 0: the rule then asks for a backward-stable residual, which a solver that
    squares κ misses by about κ), 2 ≤ d ≤ 3, n ≤ 8; ε and δ as :func:`~.strategies.alg_instances` draws them."""
    d = draw(dims(2, 3), label="d")
    n = draw(st.one_of(st.just(d), dims(d, 8)), label="n (square half the time)")
    A = draw(kappa_corner_matrices(n, d), label="A (κ corner)")
    b = draw(vectors(st.just(n)), label="b")
    if not b.any():
        b[0] = 1.0
    eps = 10.0 ** draw(scalars(-6.0, -1.05), label="log10 eps")
    return A, b, eps, draw(scalars(0.01, 0.09), label="delta")


def _alg_rule(j=False):
    if j:
        return TrialRule(with_seed=lambda inst, s: ((*inst[0], s), inst[1]), delta=lambda inst: inst[0][3],
                         trials=_ALG_TRIALS)
    return TrialRule(with_seed=lambda inst, s: (*inst, s), delta=lambda inst: inst[3], trials=_ALG_TRIALS)


def _unseeded(tall_b, kappa_exp):
    return alg_instances(tall_b, kappa_exp).map(lambda t: t[:4])


def _run_corners(tall_b, j=None, seeded=True):
    """(magnitude_corners, size_corners) of Algorithms 1-6 and their counts, instances (A, b, ε, δ[, seed])
    [with j]: A = 12·F, 10²⁰·F and 10⁻²⁰·F for F = fixed_matrix(4, 2) (κ unchanged; ‖A‖^{2j+1} stays finite
    for j ≤ 3), then n = 7 … 65 rows (:data:`~properties.toolkit.strategies.PATH_SIZES`) at d = 2."""
    def inst(A):
        base = (A, np.linspace(1.0, -1.0, A.shape[0] if tall_b else A.shape[1]) + 0.25, 0.05, 0.05) + (3,) * seeded
        return base if j is None else (base, j)
    return (lambda: [inst(fixed_matrix(4, 2) * c) for c in (12.0, 1e20, 1e-20)],
            lambda: [inst(fixed_matrix(n, 2)) for n in PATH_SIZES])


@ADAPTERS("fast_linear_regression", signature="fast_linear_regression" + _ALG_SIG.format(b="n", j=""),
          doc="Algorithm 1: x' with ‖Ax' − b‖ ≤ (1+ε)·min_x‖Ax − b‖ (w.p. ≥ 1 − δ)",
          tolerance="‖Ax̂ − b‖ ≤ (1+ε)·OPT + 16·N·u·(‖A‖‖x̂‖ + ‖b‖)",
          strategy=lambda: with_corners(_unseeded(True, 1), _kappa_regression_instances(), weight=0.3), max_examples=5,
          seeded="seed", trials=_alg_rule(),
          corners=lambda: _alg_corners(True) + _square_corners(), magnitude_corners=_run_corners(True, seeded=False)[0],
          size_corners=_run_corners(True, seeded=False)[1])
def _fast_linear_regression(inst, fn):
    A, b, eps, delta, seed = inst
    x = output(fn(A.copy(), b.copy(), eps, delta, seed), "fast_linear_regression", shape=(A.shape[1],))
    g = O.ExactGram(A, b)

    def sides():
        G, c, bb = g.mp()
        opt = mp.sqrt(max(bb - (linalg.solve(G, c).T * c)[0], mp.mpf(0)))
        nA = mp.sqrt(linalg.eigvalsh(G)[-1])
        return (mp.sqrt(fraction(g.residual_sq(x))), (1 + mp.mpf(eps)) * opt,
                _allowance(max(A.shape), nA * linalg.norm2(to_mp(x)), mp.sqrt(bb)))

    return _alg_out(sides, f"x̂ = {x.tolist()}")


def _psd_check(fn, inst, j, name, extra=()):
    A, b, eps, delta, seed = inst
    x = output(fn(A.copy(), b.copy(), *extra, eps, delta, seed), name, shape=(A.shape[1],))
    g, bm = O.ExactGram(A, np.zeros(A.shape[0])), to_mp(b)

    def sides():
        nA2 = linalg.eigvalsh(g.mp()[0])[-1]
        return (power_residual(g, x, j, bm), mp.mpf(eps) * linalg.norm2(bm),
                _allowance(max(A.shape) * j, nA2**j * linalg.norm2(to_mp(x)), linalg.norm2(bm)))

    return _alg_out(sides, f"x̂ = {x.tolist()}")


def _odd_check(fn, inst, j, name, extra=()):
    A, b, eps, delta, seed = inst
    x = output(fn(A.copy(), b.copy(), *extra, eps, delta, seed), name, shape=(A.shape[1],))
    g, e = O.ExactGram(A, b), mp.mpf(eps)

    def sides():
        res, opt = odd_residual_and_opt(g, x, j)
        G, _, bb = g.mp()
        nA = mp.sqrt(linalg.eigvalsh(G)[-1])
        return (res, (1 + e) * opt + e * mp.sqrt(bb),
                _allowance(max(A.shape) * (j + 1), nA ** (2 * j + 1) * linalg.norm2(to_mp(x)), mp.sqrt(bb)))

    return _alg_out(sides, f"x̂ = {x.tolist()}")


def _power_adapter(name, *, doc, tolerance, tall_b, kappa_exp, power=1, powers=None):
    """Register the adapter of one of Algorithms 2–6 (§G–K): ``fn(A, b, [j,] ε, δ, seed) -> x'`` judged by
    :func:`_odd_check` (b ∈ Rⁿ, ‖A(AᵀA)^j x' − b‖ ≤ (1+ε)OPT + ε‖b‖) when ``tall_b``, else by
    :func:`_psd_check` (b ∈ R^d, ‖(AᵀA)^j x' − b‖ ≤ ε‖b‖); A drawn with κ up to 10^kappa_exp.  Either the
    power is fixed (``power``) or j is an argument drawn from ``powers = (lowest, highest, corner j)``."""
    check = _odd_check if tall_b else _psd_check
    magnitudes, sizes = _run_corners(tall_b, None if powers is None else powers[2], seeded=False)
    if powers is None:
        def compare(inst, fn):
            return check(fn, inst, power, name)

        def strategy():
            return _unseeded(tall_b, kappa_exp)

        def corners():
            return _alg_corners(tall_b)
    else:
        lowest, highest, corner_j = powers

        def compare(inst, fn):
            base, j = inst
            return check(fn, base, j, name, extra=(j,))

        def strategy():
            return st.tuples(_unseeded(tall_b, kappa_exp), dims(lowest, highest))

        def corners():
            return _alg_corners(tall_b, corner_j)

    ADAPTERS(name, signature=name + _ALG_SIG.format(b="n" if tall_b else "d", j="" if powers is None else "j: int, "),
             doc=doc, tolerance=tolerance, strategy=strategy, max_examples=5, seeded="seed",
             trials=_alg_rule(j=powers is not None), corners=corners,
             magnitude_corners=magnitudes, size_corners=sizes)(compare)


_power_adapter("fast_psd_regression", tall_b=False, kappa_exp=2,
               doc="Algorithm 2: x' with ‖AᵀAx' − b‖ ≤ ε‖b‖ (w.p. ≥ 1 − δ)",
               tolerance="‖AᵀAx̂ − b‖ ≤ ε‖b‖ + 16·N·u·(‖A‖²‖x̂‖ + ‖b‖)")
_power_adapter("four_matrices", tall_b=False, kappa_exp=5, power=2,
               doc="Algorithm 4: x' with ‖(AᵀA)²x' − b‖ ≤ ε‖b‖ (w.p. ≥ 1 − δ)",
               tolerance="‖(AᵀA)²x̂ − b‖ ≤ ε‖b‖ + 16·2N·u·(‖A‖⁴‖x̂‖ + ‖b‖)")
_power_adapter("even_powers", tall_b=False, kappa_exp=7, powers=(1, 3, 2),
               doc="Algorithm 5: x' with ‖(AᵀA)^j x' − b‖ ≤ ε‖b‖ (w.p. ≥ 1 − δ), j ≥ 1",
               tolerance="‖(AᵀA)^j x̂ − b‖ ≤ ε‖b‖ + 16·jN·u·(‖A‖^{2j}‖x̂‖ + ‖b‖)")
_power_adapter("attention_regression", tall_b=True, kappa_exp=3,
               doc="Algorithm 3: x' with ‖AAᵀAx' − b‖ ≤ (1+ε)·OPT + ε‖b‖ (w.p. ≥ 1 − δ)",
               tolerance="‖AAᵀAx̂ − b‖ ≤ (1+ε)OPT + ε‖b‖ + 16·2N·u·(‖A‖³‖x̂‖ + ‖b‖)")
_power_adapter("odd_powers", tall_b=True, kappa_exp=7, powers=(0, 3, 1),
               doc="Algorithm 6, judged on the sensible reading of Thm K.1: ‖A(AᵀA)^j x' − b‖ ≤ (1+ε)OPT + ε‖b‖, j ≥ 0",
               tolerance="‖A(AᵀA)^j x̂ − b‖ ≤ (1+ε)OPT + ε‖b‖ + 16·(j+1)N·u·(‖A‖^{2j+1}‖x̂‖ + ‖b‖)")


# ----------------------------------------------------------------------------- operation counts


def _counts(value, name, shape=()):
    """The count(s) ``value`` as int64: finite nonnegative integers of ``shape``, or ValueError."""
    arr = output(value, name, shape=shape)
    if np.any(arr < 0) or np.any(arr != np.round(arr)) or np.any(arr > 2.0**62):
        raise ValueError(f"out={arr.tolist()} must be nonnegative integers below 2**62 [{name}]")
    return arr.astype(np.int64)


def _at_least(count, floor, name, what):
    return within(floor / max(int(count), 1) if count >= floor else math.inf, 1.0,
                  f"{name} = {int(count)}; the result cannot cost less than {what} = {floor}")


_OPS_TOL = "exact: a nonnegative integer, the same on two calls with the same arguments, ≥ {floor}"


@ADAPTERS("srht_apply_ops", signature="srht_apply_ops(n: int, k: int, m: int) -> int",
          doc="operations srht_apply performs on an n×k matrix with an m-row SRHT (Lemma C.5's running time)",
          tolerance=_OPS_TOL.format(floor="n·k (every entry of M enters every output entry of its column)"),
          strategy=lambda: st.tuples(dims(1, 5000), dims(1, 8), dims(1, 500)),
          magnitude_corners=lambda: [(2**30 + 1, 8, 500)], size_corners=lambda: [(n, 1, 8) for n in PATH_SIZES])
def _srht_apply_ops(inst, fn):
    n, k, m = inst
    count = _counts(fn(n, k, m), "srht_apply_ops")
    if _counts(fn(n, k, m), "srht_apply_ops") != count:
        return _verdict(False, "two calls with the same arguments gave different counts")
    return _at_least(count, n * k, "srht_apply_ops", "n·k")


@ADAPTERS("osnap_apply_ops", signature="osnap_apply_ops(n: int, k: int, m: int, s: int) -> int",
          doc="operations osnap_apply performs on an n×k matrix with an m-row OSNAP of column sparsity s "
              "(Lemma C.5's running time)",
          tolerance=_OPS_TOL.format(floor="s·n·k (the nonzero products of S·M)"),
          strategy=lambda: dims(1, 50).flatmap(lambda m: st.tuples(dims(1, 5000), dims(1, 8), st.just(m), dims(1, m))),
          magnitude_corners=lambda: [(2**30 + 1, 8, 50, 4)], size_corners=lambda: [(n, 1, 8, 2) for n in PATH_SIZES])
def _osnap_apply_ops(inst, fn):
    n, k, m, s = inst
    count = _counts(fn(n, k, m, s), "osnap_apply_ops")
    if _counts(fn(n, k, m, s), "osnap_apply_ops") != count:
        return _verdict(False, "two calls with the same arguments gave different counts")
    return _at_least(count, s * n * k, "osnap_apply_ops", "s·n·k")


def _ops_adapter(alg, tall_b, kappa_exp, j=False):
    name = alg + "_ops"
    base = lambda: alg_instances(tall_b, kappa_exp)  # noqa: E731
    magnitudes, sizes = _run_corners(tall_b, 1 + (not tall_b) if j else None)

    def compare(inst, fn):
        (A, b, eps, delta, seed), extra = (inst[0], (inst[1],)) if j else (inst, ())
        count = _counts(fn(A.copy(), b.copy(), *extra, eps, delta, seed), name)
        return _at_least(count, A.size, name, "reading A once, n·d")

    ADAPTERS(name, signature=f"{name}" + _ALG_SIG.format(b="n" if tall_b else "d", j="j: int, " if j else "")
             .replace("(d,) array", "int"),
             doc=f"operations the run of {alg} with these arguments performed (matvecs with A, Aᵀ times n·d, "
                 f"sketch work, QR of the sketched matrix), on which its running-time claim is judged",
             tolerance=_OPS_TOL.format(floor="n·d (A read once)"), seeded="seed", max_examples=10,
             strategy=(lambda: st.tuples(base(), dims(0 if tall_b else 1, 3))) if j else base,
             magnitude_corners=magnitudes, size_corners=sizes)(compare)


_ops_adapter("fast_linear_regression", True, 1)
_ops_adapter("fast_psd_regression", False, 2)
_ops_adapter("attention_regression", True, 3)
_ops_adapter("four_matrices", False, 5)
_ops_adapter("even_powers", False, 7, j=True)
_ops_adapter("odd_powers", True, 7, j=True)


@ADAPTERS("even_powers_iterations", signature="even_powers_iterations" + _ALG_SIG.format(b="d", j="j: int, ")
          .replace("(d,) array", "(2,) int array"),
          doc="Algorithm 5's iteration counts for these arguments: (iterations run, its own worst-case bound "
              "Σ_k T₂(k) over the j stages), on which Lemma J.1 part 4 and Theorem J.2's time are judged",
          tolerance="exact: nonnegative integers, reproducible in seed, run ≤ bound, bound ≥ j (each stage "
                    "iterates at least once)",
          strategy=lambda: st.tuples(alg_instances(False, 7), dims(1, 3)), max_examples=10, seeded="seed",
          magnitude_corners=_run_corners(False, 3)[0], size_corners=_run_corners(False, 3)[1])
def _even_powers_iterations(inst, fn):
    (A, b, eps, delta, seed), j = inst
    run, bound = _counts(fn(A.copy(), b.copy(), j, eps, delta, seed), "even_powers_iterations", shape=(2,))
    ok = run <= bound and bound >= j
    return _verdict(ok, f"iterations run {run}, bound {bound}, j = {j}" + ("" if ok else ": need run ≤ bound, bound ≥ j"))
