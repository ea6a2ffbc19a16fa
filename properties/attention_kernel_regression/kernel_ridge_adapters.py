"""Adapter checks of Section L of paper 004: Algorithm 8's sketch and the features W_g from given random
bits, the feature bits' format, Algorithm 7R's guarantee, Algorithm 7's first step, and the operation
counts the running-time claims read.

Tolerance rules (u = 2⁻⁵³; first-order rounding analysis of the algorithm as specified):
- ``tensor_sketch``, ``attention_features``: entry (k, i) of a degree-p block satisfies
  |ẑ − z| ≤ (γ_p + 2)·u·a_p(x_i), where a_p is the entry's magnitude computed with absolute values
  (:func:`oracle.attention_kernel_ridge.sketch_magnitude`) and
  γ_p = p·(log₂d' + 2) + (p − 1)·(2 log₂m' + 3): each leaf Tx costs log₂d' butterfly levels plus the scaling,
  each TensorSRHT node adds the two FWHTs' log₂m' levels, one product and the scaling, and the errors of a
  product of p leaves add up (p leaves, p − 1 internal nodes counted with multiplicity); W_g's division by
  √l! adds 2u.  The exact side is built by the oracle from the same bits.
- ``kernel_ridge_solve``, ``taylor_ridge_solve``: the guarantee ‖(K+λI)x̂ − y‖ ≤ ε‖y‖ plus the rounding of the residual the solver
  measures, 4(n + d + 4)·u·(‖K‖ + λ)·‖x̂‖ (one exp and a d-term inner product per entry, an n-term sum).
- ``preconditioned_gd`` (one step, ``max_iter = 1``): x̂₁ = SᵀRΦᵀRᵀSy exactly as stated; relative error
  ≤ 64·(m + s + n)·u·κ(SWᵀ)² (backward-stable SVD: first order κ(SWᵀ); the explicitly formed
  Φ = (WSᵀR)ᵀ(WSᵀR) and R = UΣ^{-2} add a second factor); instances with κ(SWᵀ) > 1e4 are skipped.
- ``attention_feature_bits``: the format of :mod:`solvers.sketches` for every degree (T_l an SRHT R^d → R^{m_l},
  S_l a TensorSRHT R^{m_l} × R^{m_l} → R^{m_l}); exact.
- ``*_ops``: a positive integer at least the number of output entries written (a count below that cannot be
  the work of computing them).
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st
from mpmath import mp

from oracle import attention_kernel_regression as O
from oracle import attention_kernel_ridge as R
from oracle import linalg, to_mp

from ..contract import AdapterSet, U, output, within
from ..sketch_statistics import bits_distribution
from ..toolkit import require
from ..toolkit.strategies import KAPPA_CORNERS, PATH_SIZES, dims, matrices, scalars, vectors, with_corners

__all__ = ["ADAPTERS", "EXP_RANGE"]

ADAPTERS = AdapterSet()


def _pow2(n):
    return 1 << (int(n) - 1).bit_length()


def _srht_bits_data(d, m):
    """Valid SRHT bits ``R^d → R^m`` drawn as data (format of solvers.sketches.srht_bits)."""
    p = _pow2(d)
    return st.builds(lambda s, r: {"n": np.int64(d), "signs": np.asarray(s, np.int8), "rows": np.asarray(r, np.int64)},
                     st.lists(st.sampled_from([-1, 1]), min_size=p, max_size=p),
                     st.lists(st.integers(0, p - 1), min_size=m, max_size=m))


def _tensor_bits_data(m):
    p = _pow2(m)
    signs = st.lists(st.sampled_from([-1, 1]), min_size=p, max_size=p)
    rows = st.lists(st.integers(0, p - 1), min_size=m, max_size=m)
    return st.builds(lambda s1, s2, r1, r2: {"d1": np.int64(m), "d2": np.int64(m), "signs1": np.asarray(s1, np.int8),
                                             "signs2": np.asarray(s2, np.int8), "rows1": np.asarray(r1, np.int64),
                                             "rows2": np.asarray(r2, np.int64)}, signs, signs, rows, rows)


def _gamma(p, d, m):
    return p * (math.log2(_pow2(d)) + 2) + (p - 1) * (2 * math.log2(_pow2(m)) + 3)


def _block_error(got, exact, X, p, m, scale=1):
    """max over entries of |ẑ − z| / ((γ_p + 2)·u·a_p) for one degree-p block (scaled by 1/scale)."""
    mag = R.sketch_magnitude(X, p, m)
    tol_unit = (_gamma(p, X.rows, m) + 2) * U
    worst = mp.mpf(0)
    for k in range(exact.rows):
        for i in range(exact.cols):
            err = abs(mp.mpf(float(got[k, i])) - exact[k, i] / scale)
            worst = max(worst, err / (tol_unit * mag[0, i] / scale) if mag[0, i] else (mp.inf if err else mp.mpf(0)))
    return worst


def _sketch_instances():
    return dims(1, 4).flatmap(lambda d: dims(1, 4).flatmap(lambda n: dims(1, 8).flatmap(lambda m: st.tuples(
        matrices(st.just(d), st.just(n), max_abs=2.0), st.integers(1, 6), _srht_bits_data(d, m), _tensor_bits_data(m)))))


def _fixed_bits(d, m, seed=3):
    """(T_bits, S_bits) of an SRHT R^d → R^m and a TensorSRHT R^m × R^m → R^m drawn from a fixed numpy seed."""
    rng, pd, pm = np.random.default_rng(seed), _pow2(d), _pow2(m)
    signs = lambda k: rng.choice(np.array([-1, 1], np.int8), k)  # noqa: E731
    T = {"n": np.int64(d), "signs": signs(pd), "rows": rng.integers(0, pd, m)}
    S = {"d1": np.int64(m), "d2": np.int64(m), "signs1": signs(pm), "signs2": signs(pm), "rows1": rng.integers(0, pm, m),
         "rows2": rng.integers(0, pm, m)}
    return T, S


def _sketch_magnitudes():
    """(X, p, T, S) with entries near float64's overflow threshold for the degree (|x|^p ≈ 1e300: 1e150 at p = 2,
    1e50 at p = 6), near 1e-45 at p = 6 (products near 1e-270, still normal), and above 10 (12 + a ramp, p = 3)."""
    X = np.array([[1.0, -0.5], [0.25, 2.0]])
    return [(X * 1e150, 2, *_fixed_bits(2, 4)), (X * 1e50, 6, *_fixed_bits(2, 4)), (X * 1e-45, 6, *_fixed_bits(2, 4)),
            (X + 12.0, 3, *_fixed_bits(2, 4))]


def _sketch_sizes():
    """d = 7 … 65 (:data:`~properties.toolkit.strategies.PATH_SIZES`: T pads 9 to 16, …, 65 to 128) at m = 5, p = 2,
    then m = 9, 17, 33 (S pads m to 16, 32, 64) at d = 3; m stops at 33: the 50-digit oracle's cost grows as m²."""
    return ([(np.cos(np.arange(2.0 * d)).reshape(d, 2), 2, *_fixed_bits(d, 5)) for d in PATH_SIZES]
            + [(np.cos(np.arange(6.0)).reshape(3, 2), 3, *_fixed_bits(3, m)) for m in (9, 17, 33)])


@ADAPTERS("tensor_sketch", signature="tensor_sketch(X: (d, n) array, p: int, T_bits: dict, S_bits: dict) -> (m, n) array",
          doc="𝒵(S, T, X): Algorithm 8 (one SRHT T: R^d → R^m, one TensorSRHT S: R^m × R^m → R^m for every level) "
              "on each column x_i, sketching x_i^{⊗p}",
          tolerance="|ẑ − z| ≤ (γ_p + 2)·u·a_p(x_i), γ_p = p(log₂d' + 2) + (p − 1)(2log₂m' + 3), a_p the "
                    "absolute-value magnitude",
          strategy=_sketch_instances, max_examples=25, magnitude_corners=_sketch_magnitudes, size_corners=_sketch_sizes)
def _tensor_sketch(inst, fn):
    X, p, T, S = inst
    m = T["rows"].shape[0]
    got = output(fn(X.copy(), p, T, S), "tensor_sketch", shape=(m, X.shape[1]))
    with mp.workdps(50):
        Xm = to_mp(X)
        err = _block_error(got, R.tensor_sketch(Xm, p, T, S), Xm, p, m)
        return within(err, 1, f"p={p}, m={m}: worst |ẑ − z|/tolerance {mp.nstr(err, 4)}")


EXP_RANGE = ("valid range: max_i ‖x_i‖² ≤ 700 (K = exp(XᵀX): e^⟨x_i, x_j⟩ ≤ e^700 stays finite in float64; X beyond "
             "it may be refused with a ValueError)")
"""The valid range of X of every function of Section L that sketches or solves with K = exp(XᵀX), as the
solvers enforce it (``solvers.kernel_taylor.EXP_LIMIT``); stated in each such contract row."""


def _feature_instances():
    return dims(1, 3).flatmap(lambda d: dims(1, 3).flatmap(lambda n: st.lists(dims(1, 5), min_size=1, max_size=4).flatmap(
        lambda rows: st.tuples(matrices(st.just(d), st.just(n), max_abs=1.5),
                               st.tuples(*[st.tuples(_srht_bits_data(d, m), _tensor_bits_data(m)) for m in rows])))))


def _feature_magnitudes():
    """(X, bits) at q = 2 with columns of ‖x_i‖² = 685, near the solvers' limit of 700 for W_g (e^⟨x_i, x_j⟩
    stays finite, solvers.kernel_taylor.EXP_LIMIT), entries 12 + a ramp, and entries near 1e-150 (degree-2
    entries near 1e-300, still normal)."""
    X = np.array([[1.0, -0.5], [0.25, 2.0]])
    return [(M, (_fixed_bits(2, 3), _fixed_bits(2, 2, 4)))
            for M in (np.array([[18.0, -26.0], [19.0, 3.0]]), X + 12.0, X * 1e-150)]


@ADAPTERS("attention_features",
          signature="attention_features(bits: list of [T_bits, S_bits] per degree, X: (d, n) array) -> (1 + Σm_l, n) array",
          doc="W_g(X) = [1ᵀ; Z₁/√1!; …; Z_q/√q!], Z_l = 𝒵(S_l, T_l, X) with degree l (alg.Wg)",
          tolerance=f"per degree-l block as tensor_sketch, plus 2u for the division by √l!; row 0 exactly 1; {EXP_RANGE}",
          strategy=_feature_instances, max_examples=25,
          magnitude_corners=_feature_magnitudes,
          size_corners=lambda: [(np.cos(np.arange(2.0 * d)).reshape(d, 2), (_fixed_bits(d, 5), _fixed_bits(d, 3, 4)))
                                for d in PATH_SIZES])
def _attention_features(inst, fn):
    X, bits = inst
    rows = [T["rows"].shape[0] for T, _ in bits]
    got = output(fn([list(pair) for pair in bits], X.copy()), "attention_features", shape=(1 + sum(rows), X.shape[1]))
    with mp.workdps(50):
        Xm = to_mp(X)
        worst = mp.mpf(0) if np.all(got[0] == 1.0) else mp.inf
        r = 1
        for l, ((T, S), m) in enumerate(zip(bits, rows), start=1):
            block = R.tensor_sketch(Xm, l, T, S)
            worst = max(worst, _block_error(got[r:r + m], block, Xm, l, m, scale=mp.sqrt(mp.factorial(l))))
            r += m
        return within(worst, 1, f"rows {rows}: worst |ŵ − w|/tolerance {mp.nstr(worst, 4)}")


@ADAPTERS("attention_feature_bits", signature="attention_feature_bits(d: int, rows: list of int, seed: int) -> "
                                               "list of [T_bits, S_bits]",
          doc="independent random bits per degree l = 1..q of W_g: T_l = SRHT bits R^d → R^{m_l}, S_l = TensorSRHT "
              "bits R^{m_l} × R^{m_l} → R^{m_l} (formats of srht_bits / tensor_srht_bits)",
          tolerance="exact format: lengths next_pow2, signs ±1, rows in range",
          strategy=lambda: st.tuples(dims(1, 9), st.lists(dims(1, 9), min_size=1, max_size=4), st.integers(0, 2**16)),
          max_examples=25, seeded="seed", statistical=(bits_distribution("feature"),),
          magnitude_corners=lambda: [(2**10 + 1, [2**10 + 1, 1], 12345), (3, [5, 2], 2**31 - 1)],
          size_corners=lambda: [(n, [n, 2], 3) for n in PATH_SIZES])
def _attention_feature_bits(inst, fn):
    d, rows, seed = inst
    bits = fn(d, list(rows), seed)
    problems = []
    if len(bits) != len(rows):
        problems.append(f"{len(bits)} degrees, should be {len(rows)}")
    for l, (pair, m) in enumerate(zip(bits, rows), start=1):
        T, S = pair
        pd, pm = _pow2(d), _pow2(m)
        checks = [
            (int(T["n"]) == d, "T n"), (np.asarray(T["signs"]).shape == (pd,), "T signs length"),
            (np.all(np.abs(T["signs"]) == 1), "T signs ±1"), (np.asarray(T["rows"]).shape == (m,), "T rows length"),
            (np.all((0 <= T["rows"]) & (T["rows"] < pd)), "T rows range"),
            (int(S["d1"]) == m and int(S["d2"]) == m, "S d1 = d2 = m_l"),
            (np.asarray(S["signs1"]).shape == (pm,) and np.asarray(S["signs2"]).shape == (pm,), "S signs length"),
            (np.all(np.abs(S["signs1"]) == 1) and np.all(np.abs(S["signs2"]) == 1), "S signs ±1"),
            (np.asarray(S["rows1"]).shape == (m,) and np.asarray(S["rows2"]).shape == (m,), "S rows length"),
            (np.all((0 <= S["rows1"]) & (S["rows1"] < pm) & (0 <= S["rows2"]) & (S["rows2"] < pm)), "S rows range"),
        ]
        problems += [f"degree {l}: {what}" for ok, what in checks if not ok]
    return within(len(problems), 0, "; ".join(problems) or f"rows {list(rows)}: format as specified")


def _plain_ridge_instances():
    return dims(1, 3).flatmap(lambda d: dims(2, 6).flatmap(lambda n: st.tuples(
        matrices(st.just(d), st.just(n), max_abs=0.7), vectors(st.just(n), max_abs=2.0), scalars(0.1, 5.0), scalars(-10.0, -3.0),
        st.integers(0, 2**16))))


@st.composite
def _spike_ridge_instances(draw):
    """One nonzero point x_n = ±s·e_j, s = 10^[−1.5, −0.3], and y = e_n: K − Q_q is then the tail
    Σ_{l>q} s^{2l}/l! on one entry, met by α_n ≈ 1/λ, so a kernel approximated one Taylor degree short
    (or a loop stopped short) shows its full error; small s makes the gap between consecutive degrees
    ((q + 1)/s²) wide."""
    d, n = draw(dims(1, 3), label="d"), draw(dims(2, 6), label="n")
    X = np.zeros((d, n))
    X[draw(st.integers(0, d - 1), label="row"), n - 1] = draw(st.sampled_from([1.0, -1.0]), label="sign") * 10.0 ** draw(
        scalars(-1.5, -0.3), label="log10 s")
    y = np.zeros(n)
    y[n - 1] = 1.0
    return X, y, draw(scalars(0.1, 5.0), label="lam"), draw(scalars(-10.0, -3.0), label="log10 eps"), draw(
        st.integers(0, 2**16), label="seed")


KAPPA_RIDGE = {"taylor_ridge_solve": KAPPA_CORNERS, "kernel_ridge_solve": tuple(c for c in KAPPA_CORNERS if c <= 8.0)}
"""log10 κ(K + λI) of each ridge solver's condition corners.  ``taylor_ridge_solve`` (one Cholesky and
refinement) reaches κ = 1e12 as every solve does.  ``kernel_ridge_solve`` stops at 1e8, a limit of
Algorithm 7R in float64, not of the rule (a Cholesky solve of K + λI meets the rule at 1e10 and 1e12): its
residual map r_{t+1} = T·r_t, T = I − (K + λI)P, P = (WᵀW + λI)⁻¹, contracts (spectral radius ≤ ε₀/(1 − ε₀), the
sandwich of alg7R.conv) but is not normal, and ‖T‖₂ grows in proportion to κ; the rounding of each float64
residual, about u·‖K‖·‖x̂‖ and fresh every step, is amplified by ‖T‖₂ before it decays.  On the fixed corner
(seed 7): ‖T‖₂ = 0.37 at κ = 1e8, 36 at 1e10, 3.1e3 at 1e12 with spectral radius 0.057 throughout; the solve meets
the rule up to 1e10 and stalls at error/tolerance 9.2 at 1e12 (drawn corners: 1.2–20 from κ ≈ 5e9).  The rule is
not widened for it; a method minimising the Euclidean residual (e.g. right-preconditioned GMRES with the same P)
would not have this floor, but it is not alg.7R.  tests/solvers/test_kernel_ridge.py asserts both sides."""

_RIDGE_KAPPA_WEIGHT = 0.5


@st.composite
def _kappa_ridge_instances(draw, log10_conds):
    """Ill-conditioned kernels: point x_j (j ≥ 1) a copy of x_0 moved by 10^−e, e ∈ [3, 9] (or not at all, K
    singular), and λ = ‖K‖·10^−c with c from ``log10_conds`` (κ(K + λI) ≈ 10^c once λ_min(K) ≪ λ); ε ≥ 1e-6: the
    rounding term u·(‖K‖ + λ)·‖x̂‖ dominates ε‖y‖ there, and a smaller ε·λ only raises the Taylor degree (and the
    validator's time) without separating solvers."""
    d, n = draw(dims(1, 3), label="d"), draw(dims(2, 6), label="n")
    X = draw(matrices(st.just(d), st.just(n), max_abs=0.7), label="X")
    j = draw(st.integers(1, n - 1), label="repeated point")
    move = draw(st.one_of(st.just(0.0), scalars(-9.0, -3.0).map(lambda e: 10.0**e)), label="distance")
    X[:, j] = X[:, 0] + move * draw(vectors(st.just(d), max_abs=1.0), label="direction")
    c = draw(st.sampled_from(tuple(c for c in log10_conds if c > 0)), label="log10 κ")
    lam = float(np.linalg.norm(np.exp(X.T @ X), 2)) * 10.0**-c
    return X, draw(vectors(st.just(n), max_abs=2.0), label="y"), lam, draw(scalars(-6.0, -3.0), label="log10 eps"), \
        draw(st.integers(0, 2**16), label="seed")


def _ridge_instances(name):
    """(X, y, λ, log10 ε, seed): with weight 0.4 one-spike instances (:func:`_spike_ridge_instances`), else plain
    draws mixed with weight 0.5 with the condition corners of :data:`KAPPA_RIDGE` (:func:`_kappa_ridge_instances`;
    0.3 of all fresh draws)."""
    plain = with_corners(_plain_ridge_instances(), _kappa_ridge_instances(KAPPA_RIDGE[name]), weight=_RIDGE_KAPPA_WEIGHT)
    return with_corners(plain, _spike_ridge_instances(), weight=0.4)


def _ridge_corners(name):
    """Fixed condition corners judged after every search: three points in R², the second 1e-6 from the first,
    λ = ‖K‖·10^−c for c = 4 and the largest c of :data:`KAPPA_RIDGE` (κ(K + λI) ≈ 10^c), ε = 1e-6."""
    X = np.array([[0.5, 0.5 + 1e-6, -0.3], [0.2, 0.2 - 1e-6, 0.6]])
    norm = float(np.linalg.norm(np.exp(X.T @ X), 2))
    return [(X, np.array([1.0, -0.5, 2.0]), norm * 10.0**-c, -6.0, 7) for c in (4.0, max(KAPPA_RIDGE[name]))]


def _ridge_rule(X, y, lam, eps, x, name):
    """The kernel ridge guarantee ‖(K+λI)x̂ − y‖ ≤ ε‖y‖ plus the rounding of the residual a float64 solver
    measures (module docstring), judged at 50 digits."""
    d, n = X.shape
    x = output(x, name, shape=(n,))
    with mp.workdps(50):
        Xm, ym, xm = to_mp(X), to_mp(y), to_mp(x)
        K = R.attention_kernel(Xm)
        res = linalg.norm2((K + mp.mpf(lam) * mp.eye(n)) * xm - ym)
        tol = eps * linalg.norm2(ym) + 4 * (n + d + 4) * U * (linalg.spectral_norm(K) + lam) * linalg.norm2(xm)
        return within(res, tol, f"n={n}, λ={lam:.3g}, ε={eps:.2g}: residual {mp.nstr(res, 4)}")


_RIDGE_TOLERANCE = f"‖(K+λI)x̂ − y‖ ≤ ε‖y‖ + 4(n + d + 4)·u·(‖K‖ + λ)·‖x̂‖; {EXP_RANGE}"
_RIDGE_SOLVERS = {  # name → (extra signature argument, what the solver is)
    "kernel_ridge_solve": (", seed: int", "Algorithm 7R: W_g-preconditioned Richardson"),
    "taylor_ridge_solve": ("", "deterministic: the exact Taylor features of Q_q, def.Q, solved in feature space"),
}


def _taylor_tail(r2: float, n: int, q: int) -> float:
    """n·Σ_{l>q} r^{2l}/l! (def.Q) in float64, for search targets only."""
    return n * math.fsum(r2**l / math.factorial(l) for l in range(q + 1, q + 80))


def _ridge_targets(inst):
    """Where wrong solvers differ from right ones: the factor by which the Taylor degree one below the
    smallest admissible one (def.Q: n·Σ_{l>q} r^{2l}/l! ≤ ελ/2) misses its bound, and log10 of
    (‖K‖ + λ)/λ, the condition that slows an iteration stopped early (float64 estimates)."""
    X, y, lam, log_eps, _ = inst
    n = X.shape[1]
    r2 = float(np.max(np.sum(X * X, axis=0)))
    bound = 10.0**log_eps * lam / 2
    q = next((q for q in range(1, 60) if _taylor_tail(r2, n, q) <= bound), 60)
    K = np.exp(X.T @ X)
    return {"log10 margin of degree q − 1": math.log10(max(_taylor_tail(r2, n, q - 1) / bound, 1e-300)),
            "log10 (‖K‖ + λ)/λ": math.log10((np.linalg.norm(K, 2) + lam) / lam)}


def _ridge_magnitudes():
    """(X, y, λ, log10 ε, seed) with y near 1e150 and 1e-150 (‖y‖² overflows and underflows; the rule scales with
    y) and λ = 1e10 (x̂ ≈ y/λ).  X stays of order 1: the Taylor degree grows with max‖x_i‖², so entries near
    the solvers' limit ‖x_i‖² ≤ 700 cost far more than a second.  A solver whose residual norm squares y stops
    early at y ≈ 1e-150 (the squares of a residual ε‖y‖ flush to zero) and fails here."""
    X, y = np.array([[0.5, -0.3, 0.1], [0.2, 0.6, -0.4]]), np.array([1.0, -0.5, 2.0])
    return [(X, y * 1e150, 1.0, -6.0, 7), (X, y * 1e-150, 1.0, -6.0, 7), (X, y, 1e10, -6.0, 7)]


def _ridge_sizes():
    """n = 7 … 17 points in R² of norm below 1; stops at 17: the 50-digit n × n kernel and its norm cost about
    2 s from n = 32."""
    return [(0.6 * np.sin(1.0 + 0.37 * np.outer(np.arange(1, 3), np.arange(1, n + 1))), np.cos(np.arange(float(n))),
             1.0, -6.0, 7) for n in (7, 8, 9, 16, 17)]


def _ridge_adapter(name):
    """Both kernel ridge solvers are judged by one rule (:func:`_ridge_rule`); ``kernel_ridge_solve``
    also takes the seed of its sketch."""
    extra, what = _RIDGE_SOLVERS[name]
    seeded = bool(extra)

    def compare(inst, fn):
        X, y, lam, log_eps, seed = inst
        y = y if np.any(y) else np.ones(X.shape[1])
        eps = 10.0**log_eps
        x = fn(X.copy(), y.copy(), lam, eps, seed) if seeded else fn(X.copy(), y.copy(), lam, eps)
        return _ridge_rule(X, y, lam, eps, x, name)

    ADAPTERS(name, signature=f"{name}(X: (d, n) array, y: (n,) array, lam: float, eps: float{extra}) -> (n,) array",
             doc=f"x̂ with ‖(K + λI)x̂ − y‖ ≤ ε‖y‖, K = exp(XᵀX) ({what})", tolerance=_RIDGE_TOLERANCE,
             strategy=lambda: _ridge_instances(name), max_examples=25, seeded="seed" if seeded else None,
             targets=_ridge_targets, corners=lambda: _ridge_corners(name),
             magnitude_corners=_ridge_magnitudes, size_corners=_ridge_sizes,
             instance_fields=("X", "y as drawn (all zero: replaced by ones)", "lam", "log10 eps", "seed"))(compare)


for _name in _RIDGE_SOLVERS:
    _ridge_adapter(_name)


def _gd_instances():
    return dims(1, 2).flatmap(lambda d: dims(4, 7).flatmap(lambda n: st.lists(dims(1, 2), min_size=1, max_size=2).flatmap(
        lambda rows: st.tuples(
            matrices(st.just(d), st.just(n), max_abs=1.0), vectors(st.just(n), max_abs=2.0),
            st.tuples(*[st.tuples(_srht_bits_data(d, m), _tensor_bits_data(m)) for m in rows]),
            st.one_of(st.none(), _srht_bits_data(n, min(n - 1, 1 + sum(rows) + 1)))))))


def _first_step(W, S, y):
    """x̂₁ = SᵀRΦᵀRᵀSy of Algorithm 7 (one loop step from z₀ = 0)."""
    U_, sig, _ = mp.svd_r(S * W.T, full_matrices=False)
    s = [sig[i] for i in range(len(sig))]
    require(min(s) > 0 and max(s) / min(s) <= 1e4, "κ(SWᵀ) must be ≤ 1e4 for the stated tolerance")
    Rm = U_ * mp.diag([1 / v**2 for v in s])
    phi = Rm.T * S * W.T * W * S.T * Rm
    return S.T * Rm * (phi.T * (Rm.T * S * y)), max(s) / min(s)


def _gd_corner(n, *, scale=1.0, y_scale=1.0, s=5, rows=(2, 1), seed=3):
    """(X, y, feature_bits, s_bits) of n points of R² of norm ``scale``, ``rows`` per degree and an SRHT of s rows
    (None: S = I_n), drawn from a fixed numpy seed; every sketch draws distinct rows (a repeated row leaves SWᵀ
    rank-deficient, and the instance would be refused)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((2, n))
    X *= scale / np.linalg.norm(X, axis=0)
    signs = lambda k: rng.choice(np.array([-1, 1], np.int8), _pow2(k))  # noqa: E731
    srht = lambda d, m: {"n": np.int64(d), "signs": signs(d),  # noqa: E731
                         "rows": rng.choice(_pow2(d), m, replace=False).astype(np.int64)}

    def tensor(m):
        pairs = rng.choice(_pow2(m) ** 2, m, replace=False)
        return {"d1": np.int64(m), "d2": np.int64(m), "signs1": signs(m), "signs2": signs(m),
                "rows1": (pairs // _pow2(m)).astype(np.int64), "rows2": (pairs % _pow2(m)).astype(np.int64)}

    fbits = tuple((srht(2, m), tensor(m)) for m in rows)
    return X, np.cos(np.arange(float(n))) * y_scale, fbits, None if s is None else srht(n, s)


def _gd_magnitudes():
    """y near 1e150 and 1e-150 (‖y‖² overflows and underflows; x̂₁ is linear in y), ‖x_i‖ = 26 (‖x_i‖² = 676, near
    the valid range's 700; κ(SWᵀ) ≈ 3e3), with S = I_n too, and ‖x_i‖ of 26 and 0.05 with degree-1 features only."""
    return [_gd_corner(6, y_scale=1e150), _gd_corner(6, y_scale=1e-150), _gd_corner(6, scale=26.0),
            _gd_corner(6, scale=26.0, s=None), _gd_corner(6, scale=26.0, rows=(2,)), _gd_corner(6, scale=0.05, rows=(2,))]


@ADAPTERS("preconditioned_gd",
          signature="preconditioned_gd(X: (d, n) array, y: (n,) array, feature_bits, s_bits: dict | None, eps: float, "
                    "max_iter: int) -> (n,) array",
          doc="Algorithm 7 as stated: W = W_g(X) from feature_bits, S the SRHT of s_bits (None: S = I_n), SWᵀ = UΣVᵀ, "
              "R = UΣ^{-2}, z_{t+1} = z_t − Φᵀ(Φz_t − RᵀSy) while ‖WᵀWSᵀRz_t − y‖ ≥ eps, return SᵀRz_t",
          tolerance="one step (max_iter = 1): ‖x̂₁ − SᵀRΦᵀRᵀSy‖ ≤ 64(m + s + n)·u·κ(SWᵀ)²·‖SᵀRΦᵀRᵀSy‖",
          strategy=_gd_instances, max_examples=15, magnitude_corners=_gd_magnitudes,
          # n = 7 … 65 points (the SRHT of s_bits pads 9 to 16, 17 to 32, 33 to 64, 65 to 128), and S = I_n at n = 7, 9,
          # 17; the oracle's first step costs little at any n
          size_corners=lambda: [_gd_corner(n) for n in PATH_SIZES] + [_gd_corner(n, s=None) for n in (7, 9, 17)])
def _preconditioned_gd(inst, fn):
    X, y, fbits, sbits = inst
    n = X.shape[1]
    require(np.any(y), "y must be nonzero")
    with mp.workdps(50):
        Xm = to_mp(X)
        W = R.kernel_features(Xm, fbits)
        require(sbits is None or sbits["rows"].shape[0] >= W.rows, "s ≥ m rows")
        S = mp.eye(n) if sbits is None else O.srht_matrix(sbits)
        exact, kappa = _first_step(W, S, to_mp(y))
    try:
        got = fn(X.copy(), y.copy(), [list(p) for p in fbits], sbits, 1e-300, 1)
    except ValueError as exc:  # a numerically rank-deficient SWᵀ is refused by name; exactly, κ ≤ 1e4 here
        return within(mp.inf, 1, f"refused an instance with κ(SWᵀ) = {mp.nstr(kappa, 4)}: {exc}")
    x = output(got, "preconditioned_gd", shape=(n,))
    with mp.workdps(50):
        s_rows = n if sbits is None else sbits["rows"].shape[0]
        err = linalg.norm2(to_mp(x) - exact)
        tol = 64 * (W.rows + s_rows + n) * U * kappa**2 * linalg.norm2(exact)
        return within(err, tol, f"m={W.rows}, s={s_rows}, n={n}, κ(SWᵀ)={mp.nstr(kappa, 4)}")


def _ops_check(name, count, outputs):
    if isinstance(count, (bool, np.bool_)) or not isinstance(count, (int, np.integer)):
        return within(mp.inf, 1, f"{name} returned {count!r}, should be an int")
    return within(outputs, int(count), f"{name} = {int(count)} for {outputs} output entries")


@ADAPTERS("tensor_sketch_ops", signature="tensor_sketch_ops(d: int, n: int, m: int, p: int, seed: int) -> int",
          doc="the operation count of Algorithm 8 on n random points of R^d (m rows, degree p), as the implementation "
              "counts its own work", tolerance="an int ≥ m·n (the outputs)",
          strategy=lambda: st.tuples(dims(1, 8), dims(1, 64), dims(1, 32), dims(1, 6), st.integers(0, 99)),
          max_examples=10, seeded="seed", magnitude_corners=lambda: [(64, 4096, 64, 6, 12345)],
          size_corners=lambda: [(n, n, n, 2, 3) for n in PATH_SIZES])
def _tensor_sketch_ops(inst, fn):
    d, n, m, p, seed = inst
    return _ops_check("tensor_sketch_ops", fn(d, n, m, p, seed), m * n)


@ADAPTERS("attention_features_ops", signature="attention_features_ops(d: int, n: int, rows: list of int, seed: int) -> int",
          doc="the operation count of computing W_g on n random points of R^d with the given rows per degree",
          tolerance="an int ≥ (Σ rows)·n (the outputs)",
          strategy=lambda: st.tuples(dims(1, 8), dims(1, 64), st.lists(dims(1, 16), min_size=1, max_size=3),
                                     st.integers(0, 99)),
          max_examples=10, seeded="seed", magnitude_corners=lambda: [(64, 4096, [64, 64, 64], 12345)],
          size_corners=lambda: [(n, n, [n], 3) for n in PATH_SIZES])
def _attention_features_ops(inst, fn):
    d, n, rows, seed = inst
    return _ops_check("attention_features_ops", fn(d, n, list(rows), seed), sum(rows) * n)


# Size corners from n = 16 (the search's smallest n), rows [2, 1] at seed 3, whose sketches draw distinct rows (a
# repeated row leaves SWᵀ rank-deficient and the instance is refused, so nothing would be judged).
@ADAPTERS("preconditioned_gd_ops", signature="preconditioned_gd_ops(d: int, n: int, rows: list of int, s: int, "
                                              "max_iter: int, seed: int) -> int",
          doc="the operation count of Algorithm 7 on n random points (features, SRHT, SVD, loop of ≤ max_iter steps)",
          tolerance="an int ≥ m·n (the features W alone)",
          strategy=lambda: st.tuples(dims(2, 4), dims(16, 64), st.lists(dims(1, 3), min_size=1, max_size=2),
                                     dims(1, 3), st.integers(0, 99)),
          max_examples=10, seeded="seed", magnitude_corners=lambda: [(4, 4096, [2, 1], 3, 3)],
          size_corners=lambda: [(4, n, [2, 1], 2, 3) for n in PATH_SIZES if n >= 16])
def _preconditioned_gd_ops(inst, fn):
    d, n, rows, it, seed = inst
    m = 1 + sum(rows)
    try:
        count = fn(d, n, list(rows), n, it, seed)
    except ValueError:  # a rank-deficient SWᵀ is refused by name (alg.7 defect (v)): no count to judge
        require(False, "S Wᵀ rank-deficient")
    return _ops_check("preconditioned_gd_ops", count, m * n)

