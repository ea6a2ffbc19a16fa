"""Bad input to the public entry points of ``solvers`` (docs/development.md#bad-input).

- A table of (entry point, input, expected error): each bad input raises ``ValueError`` whose
  message names the argument or the overflowing quantity and the rule; ``OverflowError``,
  ``ZeroDivisionError`` or a silent NaN/inf never come out.
- Hypothesis draws scale factors 2^k across the float64 range: where the problem is homogeneous
  (least squares, PSD regression, sketches, singular values) the output is exactly the scaled
  output or ``ValueError`` naming the overflow; elsewhere (softmax regression) it is finite or
  ``ValueError``, never NaN or inf.
- One key convention: ``key=5``, ``jax.random.key(5)`` and ``jax.random.PRNGKey(5)`` give the same run.
"""

from __future__ import annotations

import functools
import math

import jax
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solvers.adapter as ad
from solvers import linalg, sketches
from solvers import regression as rg
from solvers import softmax_regression as sr
from solvers.newton import Status


def _unit(X):
    """X scaled by a power of two to a largest entry in [1/2, 1), so that 2^k·X is finite for k ≤ 1023."""
    return np.ldexp(X, -math.frexp(float(np.max(np.abs(X))))[1])


_RNG = np.random.default_rng(0)
A = _unit(_RNG.standard_normal((64, 3)) + 0.5)
B_N = _unit(_RNG.standard_normal(64))
B_D = _unit(_RNG.standard_normal(3))
M = _unit(_RNG.standard_normal((64, 2)))
SM_A = _unit(_RNG.standard_normal((40, 3)))
SM_B = np.full(40, 1.0 / 40)
SM_W = np.full(40, 3.0)


def _with(bits: dict, **changes) -> dict:
    out = dict(bits)
    out.update(changes)
    return out


_DRAWS = {"srht": lambda: sketches.srht_bits(0, 64, 8), "tsrht": lambda: sketches.tensor_srht_bits(0, 3, 5, 4),
          "cs": lambda: sketches.countsketch_bits(0, 64, 8), "osnap": lambda: sketches.osnap_bits(0, 64, 8, 2),
          "gauss": lambda: sketches.gaussian_bits(0, 64, 8)}


@functools.cache
def _bits(name: str) -> dict:
    """The sketch bits of the table, drawn on first use: each xdist worker collects every module, and
    drawing them at import compiled fifteen jax.random programs per worker before any test ran."""
    return _DRAWS[name]()

# (id, call, regex the ValueError message must match)
CASES = [
    # --- least squares / PSD regression / composites (solvers.regression)
    ("flr A·1e-310 (solution overflows)", lambda: rg.fast_linear_regression(A * 1e-310, B_N, 0.1, 0.1, key=0),
     r"^the solution x of min ‖Ax − b‖ is not representable in float64"),
    ("psd A·1e-160 (solution overflows)", lambda: rg.fast_psd_regression(A * 1e-160, B_D, 0.1, 0.1, key=0),
     r"^the solution x of AᵀAx = b is not representable in float64"),
    ("four_matrices kappa=1e160", lambda: rg.four_matrices(A, B_D, 0.1, 0.1, key=0, kappa=1e160),
     r"^kappa=1e\+160, eps=0.1: the stage tolerance ε₂ = 0.1·ε/κ² = 0.0 underflows float64"),
    ("attention_regression kappa=1e300", lambda: rg.attention_regression(A, B_N, 1e-10, 0.1, key=0, kappa=1e300),
     r"^kappa=1e\+300, eps=1e-10: the stage tolerance ε₂ = ε/κ"),
    ("even_powers j=30 kappa=1e6", lambda: rg.even_powers(A, B_D, 30, 0.1, 0.1, key=0, kappa=1e6),
     r"^j=30, kappa=1000000.0, eps=0.1: the stage tolerance η_\d+ .* underflows float64"),
    ("odd_powers j=30 kappa=1e6", lambda: rg.odd_powers(A, B_N, 30, 0.1, 0.1, key=0, kappa=1e6),
     r"^j=30, kappa=1000000.0, .*underflows float64"),
    ("even_powers j=2000", lambda: rg.even_powers(A, B_D, 2000, 0.1, 0.1, key=0), r"^j=2000, .*underflows float64"),
    ("flr eps=1e-320", lambda: rg.fast_linear_regression(A, B_N, 1e-320, 0.1, key=0), r"^eps = 1e-320 underflows float64"),
    ("psd eps=1e-320", lambda: rg.fast_psd_regression(A, B_D, 1e-320, 0.1, key=0), r"^eps = 1e-320 underflows float64"),
    ("flr key=2**64", lambda: rg.fast_linear_regression(A, B_N, 0.1, 0.1, key=2**64), r"^key=18446744073709551616 must be"),
    ("flr key=-1", lambda: rg.fast_linear_regression(A, B_N, 0.1, 0.1, key=-1), r"^key=-1 must be an int seed"),
    ("flr eps_ose=1e-20", lambda: rg.fast_linear_regression(A, B_N, 0.1, 0.1, key=0, eps_ose=1e-20), r"^eps_ose=1e-20"),
    ("flr c_se=1e308", lambda: rg.fast_linear_regression(A, B_N, 0.1, 0.1, key=0, c_se=1e308), r"^c_se=1e\+308"),
    ("flr max_iterations=2**40", lambda: rg.fast_linear_regression(A, B_N, 0.1, 0.1, key=0, max_iterations=2**40),
     r"^max_iterations=1099511627776 must be"),
    ("flr complex A", lambda: rg.fast_linear_regression(A + 1j, B_N, 0.1, 0.1, key=0), r"^A.dtype=complex128 must be a real"),
    ("psd complex b", lambda: rg.fast_psd_regression(A, B_D * 1j, 0.1, 0.1, key=0), r"^b.dtype=complex128 must be a real"),
    ("flr object A", lambda: rg.fast_linear_regression(A.astype(object), B_N, 0.1, 0.1, key=0), r"^A.dtype=object"),
    ("even_powers j=2.0", lambda: rg.even_powers(A, B_D, 2.0, 0.1, 0.1, key=0), r"^j=2.0 must be an int"),
    # --- sketches
    ("srht of entries 1e308", lambda: sketches.srht(np.full((64, 2), 1e308), 8, key=0),
     r"^S @ M is not representable in float64"),
    ("gaussian of entries 1e308", lambda: sketches.gaussian(np.full((64, 2), 1e308), 8, key=0),
     r"^S @ M is not representable in float64"),
    ("srht_bits seed=2**64", lambda: sketches.srht_bits(2**64, 8, 4), r"^key=18446744073709551616 must be"),
    ("srht_apply rows out of range", lambda: sketches.srht_apply(_with(_bits("srht"), rows=_bits("srht")["rows"] + 64), M),
     r"^bits\['rows'\] must lie in \[0, n_pad=64\)"),
    ("srht_apply rows negative", lambda: sketches.srht_apply(_with(_bits("srht"), rows=_bits("srht")["rows"] - 100), M),
     r"^bits\['rows'\] must lie in"),
    ("srht_apply signs=5", lambda: sketches.srht_apply(_with(_bits("srht"), signs=_bits("srht")["signs"] * 5), M),
     r"^bits\['signs'\] must hold only -1 and \+1"),
    ("srht_apply NaN rows", lambda: sketches.srht_apply(_with(_bits("srht"), rows=np.full(8, np.nan)), M),
     r"^bits\['rows'\].dtype=float64 must be an integer dtype"),
    ("srht_apply n=0", lambda: sketches.srht_apply(_with(_bits("srht"), n=np.int64(0)), M), r"^bits\['n'\]=0 must be >= 1"),
    ("srht_apply complex M", lambda: sketches.srht_apply(_bits("srht"), M + 1j), r"^M.dtype=complex128 must be a real"),
    ("tensor_srht_apply rows1 out of range",
     lambda: sketches.tensor_srht_apply(_with(_bits("tsrht"), rows1=_bits("tsrht")["rows1"] + 4), np.ones(3), np.ones(5)),
     r"^bits\['rows1'\] must lie in \[0, next_pow2\(d1\)=4\)"),
    ("tensor_srht_apply signs2=0",
     lambda: sketches.tensor_srht_apply(_with(_bits("tsrht"), signs2=_bits("tsrht")["signs2"] * 0), np.ones(3), np.ones(5)),
     r"^bits\['signs2'\] must hold only -1 and \+1"),
    ("countsketch_apply signs=2", lambda: sketches.countsketch_apply(_with(_bits("cs"), signs=_bits("cs")["signs"] * 2), M),
     r"^bits\['signs'\] must hold only -1 and \+1"),
    ("countsketch_apply rows out of range",
     lambda: sketches.countsketch_apply(_with(_bits("cs"), rows=_bits("cs")["rows"] + 8), M),
     r"^bits\['rows'\] must lie in \[0, m=8\)"),
    ("osnap_apply rows out of range", lambda: sketches.osnap_apply(_with(_bits("osnap"), rows=_bits("osnap")["rows"] + 8), M),
     r"^bits\['rows'\] must lie in \[0, m=8\)"),
    ("gaussian_apply complex g", lambda: sketches.gaussian_apply({"g": _bits("gauss")["g"] + 1j}, M),
     r"^bits\['g'\].dtype=complex128 must be a real"),
    ("gaussian_apply NaN g",
     lambda: sketches.gaussian_apply({"g": np.where(_bits("gauss")["g"] > 1, np.nan, _bits("gauss")["g"])}, M),
     r"^bits\['g'\] must be finite"),
    ("gaussian_apply complex M", lambda: sketches.gaussian_apply(_bits("gauss"), M * 1j), r"^M.dtype=complex128"),
    ("fwht complex X", lambda: sketches.fwht(np.ones(4) * 1j), r"^X.dtype=complex128"),
    # --- linear algebra
    ("lstsq complex A", lambda: linalg.lstsq(A + 1j, B_N), r"^A.dtype=complex128 must be a real"),
    ("spectral_norm complex A", lambda: linalg.spectral_norm(A * 1j), r"^A.dtype=complex128"),
    ("kron complex y", lambda: linalg.kron(np.ones(2), np.ones(2) + 1j), r"^y.dtype=complex128"),
    ("kron overflow", lambda: linalg.kron(np.array([1e200]), np.array([1e200])), r"^x ⊗ y is not representable"),
    ("lstsq solution overflow", lambda: linalg.lstsq(A * 1e-300, B_N * 1e300),
     r"^the least-squares solution x is not representable"),
    # --- softmax regression
    ("loss at ‖Ax‖ ≈ 1e154", lambda: sr.loss(SM_A, SM_B, SM_W, np.full(3, 1e154)), r"^L\(x\) is not finite in float64"),
    ("gradient at x = 1e308", lambda: sr.gradient(SM_A, SM_B, SM_W, np.full(3, 1e308)), r"^∇L\(x\) is not finite"),
    ("hessian at w = 1e160", lambda: sr.hessian(SM_A, SM_B, np.full(40, 1e160), np.zeros(3)), r"^w \(max \|w_i\| = 1e\+160\)"),
    ("exact_newton x0=1e300", lambda: sr.exact_newton(SM_A, SM_B, SM_W, x0=np.full(3, 1e300)),
     r"^x0 \(max \|x0_i\| = 1e\+300\) must give a finite L\(x0\)"),
    ("approximate_newton x0=1e300", lambda: sr.approximate_newton(SM_A, SM_B, SM_W, key=0, x0=np.full(3, 1e300)),
     r"^x0 \(max \|x0_i\| = 1e\+300\)"),
    ("split_newton x0=1e300", lambda: sr.split_newton(SM_A, SM_B, SM_W, key=0, x0=np.full(3, 1e300)),
     r"^x0 \(max \|x0_i\| = 1e\+300\)"),
    ("approximate_newton key=2**64", lambda: sr.approximate_newton(SM_A, SM_B, SM_W, key=2**64),
     r"^key=18446744073709551616 must be"),
    ("approximate_newton key=True", lambda: sr.approximate_newton(SM_A, SM_B, SM_W, key=True), r"^key=True must be"),
    ("approximate_newton eps0=1e-200", lambda: sr.approximate_newton(SM_A, SM_B, SM_W, key=0, eps0=1e-200),
     r"^eps0=1e-200 must be large enough"),
    ("sample_size eps0=1e-160", lambda: sr.sample_size(3, eps0=1e-160, delta=0.1), r"^eps0=1e-160"),
    ("sparsify complex A", lambda: sr.sparsify(SM_A + 0j, SM_W, eps0=0.5, delta=0.1, key=0),
     r"^A.dtype=complex128 must be a real"),
    ("sparsify complex D", lambda: sr.sparsify(SM_A, SM_W * 1j, eps0=0.5, delta=0.1, key=0),
     r"^D.dtype=complex128 must be a real"),
    ("sparsify key=2**64", lambda: sr.sparsify(SM_A, SM_W, eps0=0.5, delta=0.1, key=2**64), r"^key=18446744073709551616"),
    ("hessian_kernel_B complex b", lambda: sr.hessian_kernel_B(SM_A, SM_B * 1j, np.zeros(3)),
     r"^b.dtype=complex128 must be a real"),
    # --- adapter functions (the contract's argument names)
    ("adapter fast_linear_regression complex A", lambda: ad.fast_linear_regression(A + 1j, B_N, 0.1, 0.1, 0),
     r"^A.dtype=complex128"),
    ("adapter srht_bits seed=2.5", lambda: ad.srht_bits(64, 8, 2.5), r"^seed=2.5 must be"),
    ("adapter srht_bits n=2.5", lambda: ad.srht_bits(2.5, 8, 0), r"^n=2.5 must be an int"),
    ("adapter srht_bits seed=2**64", lambda: ad.srht_bits(64, 8, 2**64), r"^seed=18446744073709551616"),
    ("adapter even_powers j=1.5", lambda: ad.even_powers(A, B_D, 1.5, 0.1, 0.1, 0), r"^j=1.5 must be an int"),
    ("adapter gaussian_apply complex M", lambda: ad.gaussian_apply(_bits("gauss"), M * 1j), r"^M.dtype=complex128"),
    ("adapter softmax_newton_step complex H", lambda: ad.softmax_newton_step(SM_A, SM_B, SM_W, np.zeros(3), np.eye(3) + 1j),
     r"^H_tilde \(shape=\(3, 3\), dtype=complex128\) must be a finite real"),
    ("adapter softmax_newton_step singular H", lambda: ad.softmax_newton_step(SM_A, SM_B, SM_W, np.zeros(3), np.zeros((3, 3))),
     r"^H_tilde must be nonsingular"),
    ("adapter softmax_sparsify seed=2**64", lambda: ad.softmax_sparsify(SM_A, SM_W, 0.5, 0.1, 2**64),
     r"^seed=18446744073709551616"),
    ("adapter softmax_loss complex x", lambda: ad.softmax_loss(SM_A, SM_B, SM_W, np.zeros(3) + 1j),
     r"^x.dtype=complex128 must be a real"),
    ("adapter srht_apply_ops k=0", lambda: ad.srht_apply_ops(64, 0, 8), r"^k=0 must be >= 1"),
]


@pytest.mark.parametrize("call, match", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_raises_value_error(call, match):
    """Each bad input raises ValueError (not OverflowError, ZeroDivisionError, TypeError) whose message
    names the argument or the overflowing quantity, and the rule."""
    with pytest.raises(ValueError, match=match):
        call()


# ----------------------------------------------------------------------------- one key convention


def test_approximate_newton_one_key_convention():
    """key=5, jax.random.key(5) and jax.random.PRNGKey(5) are the same key (the regression solvers' rule)."""
    runs = [sr.approximate_newton(SM_A, SM_B, SM_W, key=k, eps0=0.9, max_iter=3)
            for k in (5, jax.random.key(5), jax.random.PRNGKey(5))]
    for r in runs[1:]:
        assert np.array_equal(runs[0].x, r.x), f"key=5 gave {runs[0].x}, the jax key gave {r.x} [approximate_newton]"


def test_split_newton_and_sparsify_one_key_convention():
    s1 = sr.split_newton(SM_A, SM_B, SM_W, key=5, samples=4, max_iter=3)
    s2 = sr.split_newton(SM_A, SM_B, SM_W, key=jax.random.key(5), samples=4, max_iter=3)
    assert np.array_equal(s1.x, s2.x) and np.array_equal(s1.sample_sizes, s2.sample_sizes), "split_newton key=5 ≠ key(5)"
    d1 = sr.sparsify(SM_A, SM_W, eps0=0.9, delta=0.5, key=5)
    d2 = sr.sparsify(SM_A, SM_W, eps0=0.9, delta=0.5, key=jax.random.PRNGKey(5))
    assert np.array_equal(d1, d2), "sparsify key=5 ≠ PRNGKey(5)"


def test_large_seeds_are_distinct_keys():
    """Seeds that differ above bit 32 give different bits (jax.random.key itself would alias them)."""
    a, b = sketches.srht_bits(1, 64, 16), sketches.srht_bits(1 + 2**32, 64, 16)
    assert not np.array_equal(a["rows"], b["rows"]), "seeds 1 and 1 + 2**32 gave the same SRHT rows"
    assert np.array_equal(sketches.srht_bits(2**64 - 1, 64, 16)["rows"], sketches.srht_bits(2**64 - 1, 64, 16)["rows"])


# ----------------------------------------------------------------------------- scale factors 2^k

EXPONENTS = st.integers(-1074, 1023)
NORMAL_EXPONENTS = st.integers(-900, 900)  # A·2^k, b·2^k stay normal numbers: exactness expected


@settings(max_examples=40, deadline=None)
@given(k=NORMAL_EXPONENTS, l=NORMAL_EXPONENTS)
def test_fast_linear_regression_scales_exactly(k, l):
    """x(2^k A, 2^l b) = 2^{l−k}·x(A, b) exactly, or ValueError naming the overflow when that is
    beyond float64 (alg.1 is homogeneous; the solver runs on the unit-scaled problem)."""
    x0 = np.asarray(rg.fast_linear_regression(A, B_N, 0.1, 0.1, key=3).x)
    try:
        x = np.asarray(rg.fast_linear_regression(np.ldexp(A, k), np.ldexp(B_N, l), 0.1, 0.1, key=3).x)
    except ValueError as exc:
        assert "not representable" in str(exc), str(exc)
        assert math.log2(np.max(np.abs(x0))) + l - k > 1020, f"ValueError although 2^(l-k)·x is representable [k={k}, l={l}]"
        return
    assert np.array_equal(x, np.ldexp(x0, l - k)), f"x(2^k A, 2^l b) ≠ 2^(l-k) x(A, b) [k={k}, l={l}]"


@settings(max_examples=40, deadline=None)
@given(k=NORMAL_EXPONENTS, l=NORMAL_EXPONENTS)
def test_fast_psd_regression_scales_exactly(k, l):
    """x(2^k A, 2^l b) = 2^{l−2k}·x(A, b) exactly for AᵀAx = b, or ValueError naming the overflow."""
    x0 = np.asarray(rg.fast_psd_regression(A, B_D, 0.1, 0.1, key=3).x)
    try:
        x = np.asarray(rg.fast_psd_regression(np.ldexp(A, k), np.ldexp(B_D, l), 0.1, 0.1, key=3).x)
    except ValueError as exc:
        assert "not representable" in str(exc), str(exc)
        assert math.log2(np.max(np.abs(x0))) + l - 2 * k > 1020, f"ValueError although representable [k={k}, l={l}]"
        return
    want = np.ldexp(x0, l - 2 * k)
    if np.min(np.abs(want)) >= np.finfo(np.float64).tiny:
        assert np.array_equal(x, want), f"x(2^k A, 2^l b) ≠ 2^(l-2k) x(A, b) [k={k}, l={l}]"
    else:  # a subnormal result is rounded once more
        assert np.all(np.isfinite(x)) and np.allclose(x, want, rtol=0, atol=2 * 2.0**-1074), f"[k={k}, l={l}]"


@settings(max_examples=30, deadline=None)
@given(k=EXPONENTS)
def test_composites_finite_or_value_error(k):
    """Algorithms 3–6 on 2^k·A: a finite solution or ValueError, never NaN, inf, or another error."""
    Ak = np.ldexp(A, k)
    for call in (lambda: rg.attention_regression(Ak, B_N, 0.1, 0.1, key=1),
                 lambda: rg.four_matrices(Ak, B_D, 0.1, 0.1, key=1),
                 lambda: rg.even_powers(Ak, B_D, 2, 0.1, 0.1, key=1),
                 lambda: rg.odd_powers(Ak, B_N, 1, 0.1, 0.1, key=1)):
        try:
            x = np.asarray(call().x)
        except ValueError:
            continue
        assert np.all(np.isfinite(x)), f"non-finite solution {x} [A·2^{k}]"


_SKETCH_APPLIES = {
    "srht": lambda Mk: sketches.srht_apply(_bits("srht"), Mk),
    "countsketch": lambda Mk: sketches.countsketch_apply(_bits("cs"), Mk),
    "osnap": lambda Mk: sketches.osnap_apply(_bits("osnap"), Mk),
    "gaussian": lambda Mk: sketches.gaussian_apply(_bits("gauss"), Mk),
}


@pytest.mark.parametrize("kind", sorted(_SKETCH_APPLIES))
@settings(max_examples=30, deadline=None)
@given(k=EXPONENTS)
def test_sketch_apply_scales(kind, k):
    """S(2^k M) = 2^k·S M exactly while the entries stay normal (k ≤ 900 and no subnormal output),
    and for every k a finite result or ValueError naming the overflow."""
    apply = _SKETCH_APPLIES[kind]
    base = np.asarray(apply(M))
    try:
        got = np.asarray(apply(np.ldexp(M, k)))
    except ValueError as exc:
        assert "not representable" in str(exc), str(exc)
        assert k > 1000, f"ValueError at 2^{k}·M although S M·2^{k} is representable [{kind}]"
        return
    assert np.all(np.isfinite(got)), f"non-finite S(2^{k} M) [{kind}]"
    if -900 <= k <= 900:
        assert np.array_equal(got, np.ldexp(base, k)), f"S(2^{k} M) ≠ 2^{k} S M [{kind}]"


def test_sketch_apply_cancelling_overflow_is_finite():
    """An intermediate that overflows while the result does not: S M is still computed (column rescaling)."""
    bits = {"n": np.int64(2), "signs": np.array([1, 1], np.int8), "rows": np.array([0, 0], np.int64)}
    got = np.asarray(sketches.srht_apply(bits, np.array([1e308, 1e308])))
    assert np.all(np.isfinite(got)) and np.allclose(got, 1e308 * np.sqrt(2), rtol=1e-15), f"got {got}, want 1e308·√2"


@settings(max_examples=40, deadline=None)
@given(k=EXPONENTS)
def test_singular_values_scale(k):
    """‖2^k A‖₂ = 2^k ‖A‖₂ and κ(2^k A) = κ(A) (exactly while normal), or ValueError naming the overflow."""
    Ak = np.ldexp(A, k)
    assert linalg.condition_number(Ak) == linalg.condition_number(A) or k < -1000, f"κ changed at 2^{k}"
    try:
        got = linalg.spectral_norm(Ak)
    except ValueError as exc:
        assert "not representable" in str(exc) and k > 1000, f"{exc} [k={k}]"
        return
    assert math.isfinite(got), f"‖2^{k} A‖ = {got}"
    if -900 <= k <= 900:
        assert got == math.ldexp(linalg.spectral_norm(A), k), f"‖2^{k} A‖₂ ≠ 2^{k} ‖A‖₂"


@settings(max_examples=30, deadline=None)
@given(k=EXPONENTS)
def test_softmax_functions_finite_or_value_error(k):
    """L, ∇L, ∇²L at x = 2^k·1 and exact Newton from there: finite, or ValueError naming the overflow."""
    x = np.full(3, math.ldexp(1.0, k))
    for fn in (sr.loss, sr.gradient, sr.hessian):
        try:
            out = np.asarray(fn(SM_A, SM_B, SM_W, x))
        except ValueError as exc:
            assert "overflow" in str(exc), str(exc)
            continue
        assert np.all(np.isfinite(out)), f"{fn.__name__} non-finite at x = 2^{k}·1"
    try:
        res = sr.exact_newton(SM_A, SM_B, SM_W, x0=x, max_iter=5)
    except ValueError as exc:
        assert str(exc).startswith("x0") and "overflow" in str(exc), str(exc)
        return
    assert np.all(np.isfinite(res.x)) and np.all(np.isfinite(res.grad_norm_history)), f"[x0 = 2^{k}·1]"
    assert isinstance(res.status, Status)


@settings(max_examples=25, deadline=None)
@given(k=st.integers(-1074, 1023))
def test_softmax_solvers_at_any_data_scale(k):
    """Newton on 2^k·A: finite iterates and a named status, or ValueError (never NaN or an escape)."""
    Ak = np.ldexp(SM_A, k)
    for call in (lambda: sr.exact_newton(Ak, SM_B, SM_W, max_iter=4),
                 lambda: sr.approximate_newton(Ak, SM_B, SM_W, key=0, max_iter=4),
                 lambda: sr.split_newton(Ak, SM_B, SM_W, key=0, max_iter=4)):
        try:
            res = call()
        except ValueError as exc:
            assert "overflow" in str(exc) or "finite" in str(exc), str(exc)
            continue
        assert np.all(np.isfinite(res.x)) and np.all(np.isfinite(res.grad_norm_history)), f"[A·2^{k}]"
        assert isinstance(res.status, Status), f"status={res.status!r}"


@settings(max_examples=30, deadline=None)
@given(k=EXPONENTS)
def test_sparsify_is_scale_invariant(k):
    """alg.sparsify's leverage scores do not depend on the scale of A: same D̃ for 2^k·A while its
    entries are normal numbers; finite D̃ or ValueError (rank lost to subnormal rounding) beyond."""
    D0 = sr.sparsify(SM_A, SM_W, eps0=0.9, delta=0.5, key=2)
    try:
        Dk = sr.sparsify(np.ldexp(SM_A, k), SM_W, eps0=0.9, delta=0.5, key=2)
    except ValueError as exc:  # 2^k·A rounded to a few subnormal values can lose its rank
        assert k < -1000 and "full column rank" in str(exc), f"{exc} [k={k}]"
        return
    if -900 <= k <= 900:
        assert np.array_equal(D0, Dk), f"sparsify(2^{k} A) differs from sparsify(A)"
    else:
        assert np.all(np.isfinite(Dk)), f"non-finite D̃ at 2^{k}"
