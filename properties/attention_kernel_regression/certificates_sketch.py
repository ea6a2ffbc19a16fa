"""Section L claims of paper 004 that rest on the implementation's sketches (Algorithm 8's SRHT and
TensorSRHT, the features W_g): the sketches rebuilt exactly from their random bits.

Every entry of an SRHT or TensorSRHT is ±1/√m, and X is float64 (dyadic rationals), so a column of
𝒵(S, T, X) of degree p is m^{−k/2} times an exact dyadic vector, with k = 1 + the number of TensorSRHT
applications of Algorithm 8's schedule (the same for every column): ZᵀZ = m^{−k}Z̃ᵀZ̃ and
W_gᵀW_g = 11ᵀ + Σ_l Z̃_lᵀZ̃_l/(l!·m_l^{k_l}) are exact rationals, and the null space of Z (of W_g) is that
of the rational Z̃ (of the stacked W̃).  The Hadamard butterflies run on Python integers
(:func:`oracle.sketch_bits.hadamard_signed`).
The bits come from the implementation (``solvers.adapter``) when certifying and are recorded in the
certificate's hints, which ``--check`` re-verifies with python-flint alone (as Theorem K.1's output)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import acb_mat, arb, arb_mat, fmpq, fmpq_mat

from oracle import ball, sketch_bits
from oracle.precision import UndecidableError

from ..contract import default_implementation
from ..evidence import Certifiers, Evidence, Fact
from .certificates import psd_fact

__all__ = ["CERTIFIERS", "exact_features", "exact_sketch", "features_gram", "gram_eigen_ratio", "kernel_ball", "null_vector",
           "record_bits", "restore_bits"]

CERTIFIERS = Certifiers("attention_kernel_regression")


# -- the sketches, exactly ----------------------------------------------------------------------------------

def record_bits(bits):
    """Sketch bits (dicts of numpy integers, possibly nested in lists) as JSON (plain ints and lists)."""
    if isinstance(bits, dict):
        return {k: np.asarray(v).tolist() for k, v in bits.items()}
    return [record_bits(b) for b in bits]


def restore_bits(data):
    """The inverse of :func:`record_bits` (integer numpy arrays)."""
    if isinstance(data, dict):
        return {k: np.asarray(v, dtype=np.int64) for k, v in data.items()}
    return [restore_bits(b) for b in data]


def _dyadic(values) -> tuple[list[int], int]:
    """Dyadic rationals (floats or Fractions) as (integers a_i, e) with value_i = a_i·2^e exactly."""
    qs = [Fraction(v) for v in values]
    if any(q.denominator & (q.denominator - 1) for q in qs):
        raise ValueError("the data must be dyadic rationals (float64)")
    e = -max(q.denominator.bit_length() - 1 for q in qs)
    return [int(q * Fraction(2) ** (-e)) for q in qs], e


def _apply_T(T, col):
    ints, e = _dyadic(col)
    if len(ints) != int(T["n"]):
        raise ValueError(f"T_bits['n']={int(T['n'])} must equal the data dimension {len(ints)}")
    h = sketch_bits.hadamard_signed(ints, T["signs"])
    return [h[int(r)] for r in T["rows"]], e, 1


def _apply_S(S, u, v):
    a, b = sketch_bits.hadamard_signed(u[0], S["signs1"]), sketch_bits.hadamard_signed(v[0], S["signs2"])
    return [a[int(i)] * b[int(j)] for i, j in zip(S["rows1"], S["rows2"])], u[1] + v[1], 1 + u[2] + v[2]


def exact_sketch(X, p: int, T_bits, S_bits) -> tuple[fmpq_mat, int, int]:
    """𝒵(S, T, X) of Algorithm 8 (def.Z) for float64 X ∈ R^{d×n} (numpy) as (Z̃, k, m) with
    Z = m^{−k/2}·Z̃ exactly (Z̃ dyadic rational); the schedule of :func:`oracle.sketch_bits.algorithm8`."""
    if isinstance(p, bool) or not isinstance(p, int) or p < 1:
        raise ValueError(f"p={p!r} must be an integer ≥ 1")
    m = len(T_bits["rows"])
    cols = [sketch_bits.algorithm8(p, _apply_T(T_bits, X[:, c].tolist()), lambda u, v: _apply_S(S_bits, u, v))
            for c in range(X.shape[1])]
    k = cols[0][2]
    rows = len(cols[0][0])
    scale = [fmpq(2) ** e if e >= 0 else fmpq(1, 2 ** -e) for _, e, _ in cols]
    Zt = fmpq_mat(rows, len(cols), [cols[j][0][i] * scale[j] for i in range(rows) for j in range(len(cols))])
    return Zt, k, m


def exact_features(X, bits) -> tuple[fmpq_mat, list[tuple[fmpq_mat, fmpq]]]:
    """W_g(X) = [1ᵀ; Z₁/√1!; …; Z_q/√q!] (alg.Wg) of the per-degree bits as (W̃, blocks): W̃ the stacked
    rational rows (W = diag(positive scalings)·W̃, so null(W) = null(W̃)) and blocks (Z̃_l, s_l) with
    W_gᵀW_g = 11ᵀ + Σ_l s_l·Z̃_lᵀZ̃_l, s_l = 1/(l!·m_l^{k_l})."""
    n = X.shape[1]
    blocks, rows = [], [fmpq(1)] * n
    for l, (T, S) in enumerate(bits, start=1):
        Zt, k, m = exact_sketch(X, l, T, S)
        blocks.append((Zt, fmpq(1, math.factorial(l) * m ** k)))
        rows += [Zt[i, j] for i in range(Zt.nrows()) for j in range(n)]
    return fmpq_mat(len(rows) // n, n, rows), blocks


def features_gram(n: int, blocks) -> fmpq_mat:
    """W_gᵀW_g exactly from :func:`exact_features`' blocks."""
    G = fmpq_mat(n, n, [1] * (n * n))
    for Zt, s in blocks:
        G += Zt.transpose() * Zt * s
    return G


def null_vector(M: fmpq_mat) -> fmpq_mat | None:
    """A nonzero rational column v with Mv = 0 (exact), or None when M has full column rank."""
    num, _ = M.numer_denom()
    basis, nullity = num.nullspace()
    if nullity == 0:
        return None
    return fmpq_mat(M.ncols(), 1, [basis[i, 0] for i in range(M.ncols())])


def kernel_ball(X) -> arb_mat:
    """K = exp(XᵀX) entrywise (def.attn_kernel) of float64 X, in balls."""
    G = ball.rational_matrix(X).transpose() * ball.rational_matrix(X)
    return ball.exp_entrywise(G)


def gram_eigen_ratio(K: arb_mat, G: fmpq_mat) -> tuple[arb, arb]:
    """(μ_min, μ_max): the extreme eigenvalues of K^{-1}G (similar to K^{-1/2}GK^{-1/2}: real, the
    sandwich's ratios), enclosed by ``acb_mat.eig`` (raises :class:`UndecidableError` if not isolated)."""
    try:
        values = [z.real for z in acb_mat(K.solve(arb_mat(G))).eig(multiple=True)]
    except (ValueError, ZeroDivisionError) as exc:
        raise UndecidableError(f"eigenvalues of K⁻¹G not isolated ({exc})") from None
    return ball.least(values), ball.greatest(values)


def _bits_hint(hints, key, compute):
    """Recorded bits on re-checking, else ``compute()`` (the implementation's); with the hints to record."""
    data = hints[key] if hints and key in hints else record_bits(compute())
    return restore_bits(data), {key: data}


# -- Theorem L.5 ------------------------------------------------------------------------------------------

def _l5_data(inst, hints):
    from .tensor_sketch import L5_D, L5_M, L5_N, L5_P, sketch_bits

    X = np.random.default_rng(inst["data_seed"]).standard_normal((L5_D, L5_N))
    (T, S), rec = _bits_hint(hints, "bits", lambda: sketch_bits(default_implementation(), L5_D, L5_M, inst["seed"]))
    return X, T, S, L5_P, rec


@CERTIFIERS.violation("attention_kernel_regression.thmL.5",
                      method="the sketch rebuilt exactly from the implementation's bits (integer Hadamard "
                             "butterflies; ZᵀZ = m^{−k}Z̃ᵀZ̃ rational); exact null vector of Z̃; exact LDLᵀ for T's "
                             "embedding; exact rationals")
def _thmL_5(inst, hints):
    X, T, S, p, rec = _l5_data(inst, hints)
    eps = fmpq(1, 2)
    Tt, _, m = exact_sketch(np.eye(X.shape[0]), 1, T, S)  # T itself: T = Tt/√m
    TtT = Tt.transpose() * Tt / m
    eye = fmpq_mat(X.shape[0], X.shape[0], [int(i == j) for i in range(X.shape[0]) for j in range(X.shape[0])])
    premises = [psd_fact(TtT - eye * (1 - eps) ** 2, "T an ε-SE for span(X) = R^d: σ_min(T)² ≥ (1−ε)²"),
                psd_fact(eye * (1 + eps) ** 2 - TtT, "T an ε-SE for span(X) = R^d: σ_max(T)² ≤ (1+ε)²"),
                Fact("S an (n, d, ε, δ, 0)-SSE: vacuous (srank(AᵀA) ≤ 0 holds for no A)", "definition", True)]
    Zt, k, m = exact_sketch(X, p, T, S)
    v = null_vector(Zt)
    if v is None:
        raise ValueError("Z has full column rank at this instance (no m < n witness)")
    Xq = ball.rational_matrix(X)
    G = Xq.transpose() * Xq
    M = fmpq_mat(G.nrows(), G.ncols(), [G[i, j] ** p for i in range(G.nrows()) for j in range(G.ncols())])
    c = (1 - eps) ** (6 * p)
    Zv = Zt * v
    quad = sum((Zv[i, 0] ** 2 for i in range(Zv.nrows())), fmpq(0)) / fmpq(m) ** k - c * (v.transpose() * M * v)[0, 0]
    return Evidence("≥", arb(quad / (v.transpose() * v)[0, 0]), arb(0), premises=premises, hints=rec,
                    what=f"(‖Zv‖² − (1−ε)^{{6p}}‖X^{{⊗p}}v‖²)/‖v‖² against 0 at v ≠ 0 with Zv = 0 (Z is "
                         f"{Zt.nrows()}×{Zt.ncols()}; ‖X^{{⊗p}}v‖² = vᵀ(XᵀX)^{{∘p}}v; exact)")


# -- Theorem L.3's ∀x, y step -------------------------------------------------------------------------------

def _allxy_data(inst, hints):
    from .kernel_ridge import ALLXY_ROWS

    rng = np.random.default_rng(inst["data_seed"])
    d, n = inst["d"], inst["n"]
    X, x, y0 = 0.5 * rng.standard_normal((d, n)), rng.standard_normal(n), rng.standard_normal(n)
    bits, rec = _bits_hint(hints, "bits",
                           lambda: default_implementation().attention_feature_bits(d, ALLXY_ROWS, inst["seed"]))
    _, blocks = exact_features(X, bits)
    G = features_gram(n, blocks)
    K = kernel_ball(X)
    kk = inst["k"]
    scale = arb(fmpq(1, 10 ** int(kk))) if kk.q == 1 and kk >= 0 else arb(10) ** (-arb(kk))
    xq, y0q = ball.rational_vector(x.tolist()), ball.rational_vector(y0.tolist())
    y = K * arb_mat(xq) + arb_mat(y0q) * scale  # y = Kx + 10^{−k}y₀
    return K, G, xq, y0q, y, scale, rec


@CERTIFIERS.violation("attention_kernel_regression.thmL.3.allxy",
                      method="W_g rebuilt exactly from the implementation's bits (W_gᵀW_g rational); K = exp(XᵀX) "
                             "in balls; ball norms")
def _thmL_3_allxy(inst, hints):
    K, G, xq, y0q, y, scale, rec = _allxy_data(inst, hints)
    lhs = ball.norm2(arb_mat(G * xq) - y)
    rhs = arb(fmpq(3, 2)) * scale * ball.norm2(y0q)  # (1+ε̂)‖Kx − y‖ = (3/2)·10^{−k}‖y₀‖
    return Evidence("≤", lhs, rhs, hints=rec, what="‖WᵀWx − y‖ against (1+ε̂)‖Kx − y‖ = (3/2)·10^{−k}‖y₀‖ "
                                                    "(y = Kx + 10^{−k}y₀, ε̂ = 1/2)")


@CERTIFIERS.repair("attention_kernel_regression.thmL.3.allxy",
                   method="W_g rebuilt exactly from the implementation's bits; K in balls; ε_W from the ball "
                          "eigenvalues of K⁻¹WᵀW (acb_mat.eig); ‖K‖ and ‖K^{1/2}x‖ in balls")
def _thmL_3_allxy_repair(inst, hints):
    K, G, xq, y0q, y, scale, rec = _allxy_data(inst, hints)
    lo, hi = gram_eigen_ratio(K, G)
    eps_w = ball.greatest([1 - lo, hi - 1])
    top = ball.greatest(ball.eigvalsh(K))
    lhs = ball.norm2(arb_mat(G * xq) - y)
    rhs = scale * ball.norm2(y0q) + eps_w * top.sqrt() * ball.quadratic_form(arb_mat(xq), K).sqrt()
    return Evidence("≤", lhs, rhs, hints=rec, what="‖WᵀWx − y‖ against ‖Kx − y‖ + ε_W·‖K‖^{1/2}·‖K^{1/2}x‖ "
                                                    "(ε_W the exact sandwich accuracy of W)")

