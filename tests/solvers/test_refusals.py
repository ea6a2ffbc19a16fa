"""The refusals of ``solvers``: sizes refused before allocating, no silent inf/NaN from the
attention solvers, and the argument checks of every entry point.

- Every size argument whose arrays no machine holds (m = 10¹², 2⁴⁰, n = m = 10⁶, …) raises ``ValueError``
  naming the argument and this machine's memory, instead of aborting the interpreter in XLA (SIGABRT):
  the sizes are beyond any machine, so the rows hold everywhere.
- ``solvers.attention_optimization``: L_half and its derivatives are homogeneous in (A3, B) and in (Y, B);
  Hypothesis draws 2^k across the float64 range and the result is exactly 2^(deg·k) times the unscaled one,
  or ``ValueError`` naming the overflow exactly when that is beyond float64.  The regularised functions and
  ``solvers.attention_pruning`` (X enters the logits) give finite results or ``ValueError``, never NaN or inf.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import solvers.adapter
from solvers import attention_optimization as AO
from solvers import attention_pruning as AP
from solvers import kernel_ridge, kernel_taylor, memory, sketches
from solvers import regression as rg
from solvers import softmax_regression as sr
from solvers.softmax_regression import approximate as softmax_approximate

_RNG = np.random.default_rng(7)
N, D = 6, 2
A1, A2, A3, B = (_RNG.standard_normal((N, D)) for _ in range(4))
X, Y = _RNG.standard_normal((D, D)), _RNG.standard_normal((D, D))
W = np.abs(_RNG.standard_normal(N)) + 0.1
Z = np.concatenate([X.reshape(-1), Y.T.reshape(-1)])
PX, PW, PM = _RNG.standard_normal((6, 3)), _RNG.standard_normal((3, 3)), np.ones((3, 3))
BIG = r"must fit in this machine's memory \([0-9.e+]+ bytes\): .* would take [0-9.e+]+ bytes"

SIZE_CASES = [
    ("srht_bits m=10**12", lambda: sketches.srht_bits(0, 64, 10**12), r"^n=64, m=1000000000000 " + BIG),
    ("srht_bits m=2**40", lambda: sketches.srht_bits(0, 64, 2**40), r"^n=64, m=1099511627776 " + BIG),
    ("srht_bits n=10**12", lambda: sketches.srht_bits(0, 10**12, 8), r"^n=1000000000000, m=8 " + BIG),
    ("tensor_srht_bits m=2**40", lambda: sketches.tensor_srht_bits(0, 3, 5, 2**40), r"^d1=3, d2=5, m=1099511627776 "),
    ("osnap_bits n=10**12", lambda: sketches.osnap_bits(0, 10**12, 8, 2), r"^n=1000000000000, s=2 " + BIG),
    ("countsketch_bits n=10**12", lambda: sketches.countsketch_bits(0, 10**12, 8), r"^n=1000000000000 " + BIG),
    ("gaussian_bits n=m=10**6", lambda: sketches.gaussian_bits(0, 10**6, 10**6), r"^n=1000000, m=1000000 " + BIG),
    ("countsketch_apply bits m=10**12",
     lambda: sketches.countsketch_apply({"m": np.int64(10**12), "rows": np.zeros(4, np.int64),
                                         "signs": np.ones(4, np.int8)}, np.ones(4)), r"^m=1000000000000, k=1 " + BIG),
    ("sketched_gram m=10**12", lambda: AO.sketched_gram(A1, A2, W, 10**12, key=0), r"^n=6, d=2, m=1000000000000 " + BIG),
    ("sketched_gram m=2**40", lambda: AO.sketched_gram(A1, A2, W, 2**40, key=0), r"^n=6, d=2, m=1099511627776 "),
    ("newton (attention_solve) m=10**12", lambda: AO.newton(A1, A2, A3, B, W, Z, m=10**12, max_iter=1),
     r"^n=6, d=2, m=1000000000000 " + BIG),
    ("loss n=10**6 (n × n attention)", lambda: AO.loss(*(np.ones((10**6, 1)),) * 4, np.ones((1, 1)), np.ones((1, 1))),
     r"^n=1000000 " + BIG),
    ("hessian_blocks d=1000", lambda: AO.hessian_blocks(*(np.ones((1000, 1000)),) * 6), r"^n=1000, d=1000 " + BIG),
    ("flops forward n=10**12 d=10**6", lambda: AO.flops("forward", 10**12, 10**6), r"^n=1000000000000, d=1000000 "),
    ("flops sketch n=10**12 d=10**6", lambda: AO.flops("sketch", 10**12, 10**6), r"^n=1000000000000, d=1000000, m="),
    ("flops softmax_jvp n=2**62", lambda: AO.flops("softmax_jvp", 2**62, 1), r"^n=4611686018427387904 " + BIG),
    ("kernel feature_bits rows=(10**12,)", lambda: kernel_ridge.feature_bits(0, 3, (10**12,)),
     r"^d=3, rows=\(1000000000000,\) " + BIG),
    ("kernel feature_bits d=10**12", lambda: kernel_ridge.feature_bits(0, 10**12, (4,)), r"^d=1000000000000, rows=\(4,\) "),
    ("taylor_features M·n beyond memory",
     lambda: kernel_taylor.taylor_features(np.full((200, 4000), 0.01), 4, max_features=10**9), r"^q=4, d=200, n=4000 " + BIG),
    ("gd_trace steps=2**40", lambda: AP.gd_trace(PX, PW, 0.1, 0.1, 2**40, PM), r"^steps=1099511627776 " + BIG),
    ("run_gd steps=2**40", lambda: AP.run_gd(PX, PW, 0.1, 0.1, 2**40), r"^steps=1099511627776 " + BIG),
    ("pruning iteration_flops n=10**12", lambda: AP.iteration_flops(10**12, 10**6), r"^n=1000000000000, d=1000000 "),
    ("prune_batch steps=2**40", lambda: AP.prune_batch(PX[None], np.ones((1, 6), bool), PW, 0.1, (0.5,), steps=2**40),
     r"^steps=1099511627776 " + BIG),
    ("softmax iteration_flops n=10**12", lambda: softmax_approximate.iteration_flops(10**12, 4), r"^n=1000000000000, d=4 "),
    ("sketch_rows m=10**6 rows, d=1000",
     lambda: AO.sketch_rows({"d1": 4, "d2": 4, "signs1": np.ones(4), "signs2": np.ones(4), "rows1": np.zeros(10**6, np.int64),
                             "rows2": np.zeros(10**6, np.int64)}, np.ones((4, 1000)), np.ones((4, 1000))),
     r"^n=4, d=1000, m=1000000 " + BIG),
]

ARGUMENT_CASES = [
    ("sketch_size delta=0", lambda: rg.sketch_size(10, 4, 0.0), r"^delta=0.0 must be in the open interval \(0, 1\)"),
    ("sketch_size dim=-4", lambda: rg.sketch_size(10, -4, 0.1), r"^dim=-4 must be >= 1"),
    ("sketch_size n=0", lambda: rg.sketch_size(0, 4, 0.1), r"^n=0 must be >= 1"),
    ("even_power_schedule kappa=0", lambda: rg.even_power_schedule(2, 0.1, 0.1, 0.0), r"^kappa=0.0 must be a finite number > 0"),
    ("even_power_schedule kappa=0.5", lambda: rg.even_power_schedule(2, 0.1, 0.1, 0.5), r"^kappa=0.5 must be >= 1"),
    ("even_power_schedule delta=0", lambda: rg.even_power_schedule(2, 0.1, 0.0, 2.0), r"^delta=0.0 must be in"),
    ("even_power_schedule j=0", lambda: rg.even_power_schedule(0, 0.1, 0.1, 2.0), r"^j=0 must be >= 1"),
    ("pruning loss causal='yes'", lambda: AP.loss(PX, PW, PM, 0.1, causal="yes"), r"^causal='yes' must be True or False"),
    ("pruning gd_trace causal=1", lambda: AP.gd_trace(PX, PW, 0.1, 0.1, 3, PM, causal=1), r"^causal=1 must be True or False"),
    ("pruning adapter causal='yes'", lambda: solvers.adapter.attention_pruning_gradient(PX, PW, PM, 0.1, "yes"),
     r"^causal='yes' must be True or False"),
    ("pruning loss masked X", lambda: AP.loss(np.ma.masked_array(PX, mask=PX > 1), PW, PM, 0.1),
     r"^X must not be a masked array with masked entries"),
    ("attention loss masked A3", lambda: AO.loss(A1, A2, np.ma.masked_array(A3, mask=A3 > 1), B, X, Y),
     r"^A3 must not be a masked array with masked entries"),
    ("srht masked M", lambda: sketches.srht(np.ma.masked_array(np.ones((8, 2)), mask=np.eye(8, 2, dtype=bool)), 4, key=0),
     r"^M must not be a masked array with masked entries"),
    ("fast_linear_regression masked A", lambda: rg.fast_linear_regression(np.ma.masked_array(A1, mask=A1 > 1), B[:, 0], 0.1,
                                                                          0.1, key=0), r"^A must not be a masked array"),
    ("softmax loss masked A", lambda: sr.loss(np.ma.masked_array(A1, mask=A1 > 1), np.full(N, 1 / N), W, np.zeros(D)),
     r"^A must not be a masked array"),
    ("pruning theorem_lipschitz X·1e160", lambda: AP.theorem_lipschitz(PX * 1e160, PW, 0.1),
     r"^L = 16 n\^2.5 d R⁶ \+ λ is not finite in float64: it overflows \(R = "),
]

OVERFLOW = r"is not finite in float64: (it overflows|the logits A1XA2ᵀ overflow) \(max \|A1\| = "
OVERFLOW_CASES = [
    (f"{fn.__name__} {name}·{scale:g}", (lambda fn=fn, args=args: fn(*args)),
     r"^(L_half\(X, Y\)|∇_X L_half|∇_Y L_half|∇²L_half) " + OVERFLOW)
    for scale in (1e200, 1e300)
    for name, args in (("A3", (A1, A2, A3 * scale, B, X, Y)), ("Y", (A1, A2, A3, B, X, Y * scale)))
    for fn in (AO.loss, AO.grad_x, AO.hessian_blocks)
] + [
    ("loss B·1e200", lambda: AO.loss(A1, A2, A3, B * 1e200, X, Y), r"^L_half\(X, Y\) " + OVERFLOW),
    ("grad_y A3·1e300", lambda: AO.grad_y(A1, A2, A3 * 1e300, B, X, Y), r"^∇_Y L_half " + OVERFLOW),
    ("forward A3·1e300 Y·1e300", lambda: AO.forward(A1, A2, A3 * 1e300, B, X, Y * 1e300), r"^S, H or C of alg.forward "),
] + [
    (f"{fn.__name__} {name}", (lambda fn=fn, args=args: fn(*args)), r"^(L_tot\(z\)|∇L_tot\(z\)|∇²L_tot\(z\)) " + OVERFLOW)
    for name, args in (("w·1e200", (A1, A2, A3, B, W * 1e200, Z)), ("w·1e300", (A1, A2, A3, B, W * 1e300, Z)),
                       ("z·1e200", (A1, A2, A3, B, W, Z * 1e200)), ("A3·1e300", (A1, A2, A3 * 1e300, B, W, Z)))
    for fn in (AO.loss_tot, AO.gradient_tot, AO.hessian_tot)
] + [
    (f"pruning {fn.__name__} X·{scale:g}", (lambda fn=fn, scale=scale: fn(PX * scale, PW, PM, 0.1)),
     r"^f = softmax\(XWXᵀ\) is not finite in float64: it overflows")
    for fn in (AP.loss, AP.gradient) for scale in (1e200, 1e300)
] + [
    ("prune_batch X·1e200", lambda: AP.prune_batch(PX[None] * 1e200, np.ones((1, 6), bool), PW, 0.1, (0.5,), steps=3),
     r"^f = softmax\(X_b W X_bᵀ\) is not finite in float64|^a GD iterate \(steps=3\) is not finite in float64"),
    ("batch_relative_error X·1e200", lambda: AP.batch_relative_error(PX[None] * 1e200, np.ones((1, 6), bool), PW, PW / 2),
     r"^f = softmax\(X_b W X_bᵀ\) is not finite in float64: it overflows"),
]


@pytest.mark.parametrize("call, match", [c[1:] for c in SIZE_CASES + ARGUMENT_CASES + OVERFLOW_CASES],
                         ids=[c[0] for c in SIZE_CASES + ARGUMENT_CASES + OVERFLOW_CASES])
def test_refused_with_value_error(call, match):
    """Each input raises ValueError naming the argument (or the overflowing quantity) and the rule: never a
    SIGABRT from XLA, ZeroDivisionError, OverflowError, a silent NaN/inf or a negative size."""
    with pytest.raises(ValueError, match=match):
        call()


def test_memory_limit_is_this_machines():
    """The limit is positive and at most the physical memory; check_fits passes what fits."""
    limit = memory.memory_bytes()
    assert 0 < limit <= (1 << 60), f"memory_bytes() = {limit}"
    memory.check_fits(limit, "all of it", n=1)
    with pytest.raises(ValueError, match=r"^n=2, m=3 must fit in this machine's memory"):
        memory.check_fits(limit + 1, "one byte more", n=2, m=3)


def test_sizes_that_fit_still_run():
    """The checks refuse only sizes beyond the machine: the sizes the claims use run as before."""
    assert sketches.srht_bits(0, 64, 8)["rows"].shape == (8,)
    assert AO.flops("softmax_jvp", 65536, 1) > 0 and AO.flops("forward", 2048, 8) > 0
    assert AP.iteration_flops(8, 16) > 0
    assert rg.sketch_size(10, 4, 0.1) == 1843


# ----------------------------------------------------------------------------- exact rescaling in (A3, B), (Y, B)

_HALF = {  # name: (function, degrees of each output in (A3, B) and in (Y, B))
    "loss": (AO.loss, ((2, 2),)),
    "grad_x": (AO.grad_x, ((2, 2),)),
    "grad_y": (AO.grad_y, ((2, 1),)),
    "hessian_blocks": (AO.hessian_blocks, ((2, 2), (2, 1), (2, 0))),
}


def _outputs(fn, *args):
    out = fn(*args)
    return [np.asarray(o, dtype=np.float64) for o in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("name", sorted(_HALF))
@pytest.mark.parametrize("which", ["A3", "Y"])
@settings(max_examples=25, deadline=None)
@given(k=st.integers(-200, 1023))
@example(k=512)  # CHᵀ overflows while ∇_X L_half (and H_xx) do not: the rescaled recomputation is needed
@example(k=513)
def test_attention_half_loss_rescales_exactly(name, which, k):
    """f(…, 2^k·A3, 2^k·B) = 2^(ka·k)·f and f(…, 2^k·B, X, 2^k·Y) = 2^(kb·k)·f exactly, or ValueError naming
    the overflow exactly when some entry of that scaled result is beyond float64 (the exponent of its
    largest entry above 1024): an intermediate that overflows while the result does not is recomputed."""
    fn, degrees = _HALF[name]
    base = _outputs(fn, A1, A2, A3, B, X, Y)
    args = (A1, A2, np.ldexp(A3, k), np.ldexp(B, k), X, Y) if which == "A3" else \
        (A1, A2, A3, np.ldexp(B, k), X, np.ldexp(Y, k))
    assume(all(np.all(np.isfinite(a)) for a in args))  # the scaled inputs themselves are float64
    deg = [d[0] if which == "A3" else d[1] for d in degrees]
    beyond = any(np.max(np.abs(b)) > 0 and math.frexp(float(np.max(np.abs(b))))[1] + g * k > 1024
                 for b, g in zip(base, deg))
    try:
        got = _outputs(fn, *args)
    except ValueError as exc:
        assert "overflow" in str(exc), str(exc)
        assert beyond, f"ValueError although 2^({deg}·{k}) {name} is representable [{which}, k={k}]: {exc}"
        return
    assert not beyond, f"{name} returned although its scaled result overflows [{which}, k={k}]"
    for g, b, o in zip(deg, base, got):
        assert np.array_equal(o, np.ldexp(b, g * k)), f"{name}(2^{k}·{which}, 2^{k}·B) ≠ 2^({g}·{k})·{name} [{which}]"


@settings(max_examples=30, deadline=None)
@given(k=st.integers(-1074, 1023), target=st.sampled_from(["A1", "A3", "B", "w", "z"]))
def test_attention_regularised_finite_or_value_error(k, target):
    """L_tot, ∇L_tot, ∇²L_tot with one argument scaled by 2^k: finite, or ValueError naming the overflow."""
    s = math.ldexp(1.0, k)
    args = {"A1": A1, "A2": A2, "A3": A3, "B": B, "w": W, "z": Z}
    args[target] = args[target] * s
    for fn in (AO.loss_tot, AO.gradient_tot, AO.hessian_tot):
        try:
            out = np.asarray(fn(*args.values()))
        except ValueError as exc:
            assert "overflow" in str(exc), str(exc)
            continue
        assert np.all(np.isfinite(out)), f"{fn.__name__} is not finite with {target}·2^{k}"


@settings(max_examples=30, deadline=None)
@given(k=st.integers(-1074, 1023), causal=st.booleans())
def test_pruning_finite_or_value_error(k, causal):
    """loss, gradient, relative_error at X·2^k: finite, or ValueError naming the overflow (never NaN)."""
    Xk = np.ldexp(PX, k)
    for call in (lambda: AP.loss(Xk, PW, PM, 0.1, causal=causal), lambda: AP.gradient(Xk, PW, PM, 0.1, causal=causal),
                 lambda: AP.relative_error(Xk, PW, PW * 0.5, causal=causal)):
        try:
            out = np.asarray(call())
        except ValueError as exc:
            assert "overflow" in str(exc), str(exc)
            continue
        assert np.all(np.isfinite(out)), f"non-finite result at X·2^{k} (causal={causal})"
