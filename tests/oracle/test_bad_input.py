"""Bad input to the oracle (docs/development.md#bad-input): every entry point raises ``ValueError`` naming
the argument for NaN, ±inf, complex (Python, numpy or ``mpc``), objects that are not numbers, and mp
NaN — nothing is cut to its real part, rounded silently or propagated as NaN.

One table of (entry point, call, expected message); the README's "Bad input" section and
``/work/briefs/bad_input_oracle.md`` summarise it.  Hypothesis then draws scale factors 2^k across
the whole float64 range where the oracle must answer exactly (conversion, solves, derivatives).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp

from oracle import (
    as_float_array,
    check_int,
    check_mp,
    decide_sign,
    derivatives,
    linalg,
    to_float,
    to_float_array,
    to_mp,
)
from oracle import attention_kernel_regression as K
from oracle import softmax_regression as S
from oracle.sketch_bits import distortion_from_grams, int_scaled, sketch_times_int

M2 = mp.matrix([[2, 1], [1, 3]])
V2 = mp.matrix([1, 2])
NAN_M = mp.matrix([[1, mp.nan], [0, 1]])
INF_M = mp.matrix([[1, 0], [mp.inf, 1]])
MPC_M = mp.matrix([[1, 0], [0, mp.mpc(1, 1)]])
NAN_V = mp.matrix([1, mp.nan])
MPC_V = mp.matrix([1, mp.mpc(0, 1)])
A32 = np.array([[1.0, 0.5], [-0.5, 1.0], [0.25, -1.0]])
B3, W3, X2 = np.array([0.2, 0.3, 0.5]), np.array([1.0, 0.5, 2.0]), np.array([0.1, -0.2])
SQ = lambda v: v[0] ** 2  # noqa: E731

# (label, thunk, regex the ValueError message must match)
CASES = [
    # --- conversion and validation (oracle.precision)
    ("to_mp complex", lambda: to_mp(1 + 2j, "A"), r"A=.*must be real"),
    ("to_mp complex array", lambda: to_mp(np.array([1 + 2j, 1]), "A"), r"A must be .*not complex"),
    ("to_mp mpc", lambda: to_mp(mp.mpc(1, 2), "A"), r"A=.*must be real"),
    ("to_mp mp.nan", lambda: to_mp(mp.nan, "A"), r"A=nan must be finite"),
    ("to_mp mp.inf", lambda: to_mp(mp.inf, "A"), r"A=\+?inf must be finite"),
    ("to_mp NaN", lambda: to_mp(np.array([1.0, np.nan]), "A"), r"A must be finite: A\[1\] is nan"),
    ("to_mp inf", lambda: to_mp([[1.0, np.inf]], "A"), r"A must be finite: A\[0, 1\] is inf"),
    ("to_mp object", lambda: to_mp(object(), "A"), r"A must be a real number"),
    ("to_mp object array", lambda: to_mp(np.array([1.0, object()], dtype=object), "A"), r"A\[1\] must be a real number"),
    ("to_mp string", lambda: to_mp("abc", "A"), r"A must be an array of real numbers"),
    ("to_mp bool", lambda: to_mp(np.array([True]), "A"), r"A must be .*not bool"),
    ("to_mp ragged", lambda: to_mp([[1.0], [1.0, 2.0]], "A"), r"A must be an array of real numbers"),
    ("to_mp inexact int", lambda: to_mp(2**60 + 1, "A"), r"A=1152921504606846977 must be exactly representable"),
    ("to_mp inexact mpf entry", lambda: to_mp(np.array([mp.mpf(1) / 3], dtype=object), "A"), r"A\[0\]=.*exactly"),
    ("to_mp mp.matrix NaN", lambda: to_mp(NAN_M, "A"), r"A must be finite: entry \(0,1\) is nan"),
    ("to_mp mp.matrix mpc", lambda: to_mp(MPC_M, "A"), r"A must be real: entry \(1,1\)"),
    ("to_mp ndim 3", lambda: to_mp(np.zeros((1, 1, 1)), "A"), r"A.ndim=3 must be 0, 1 or 2"),
    ("as_float_array long double", lambda: as_float_array(np.array([np.longdouble(1) / 3]), "x"), r"x .*exactly"),
    ("as_float_array ndim", lambda: as_float_array([1.0], "x", ndim=2), r"x.ndim=1 must be 2"),
    ("as_float_array empty", lambda: as_float_array([], "x"), r"x must not be empty"),
    ("check_mp bool", lambda: check_mp(True, "t"), r"t=True must be a real number, not a bool"),
    ("check_mp string", lambda: check_mp("1.5", "t"), r"t must be a real number or mp.matrix"),
    ("check_mp numpy complex", lambda: check_mp(np.complex128(1), "t"), r"t=.*must be real"),
    ("check_int float", lambda: check_int(2.0, "n"), r"n=2.0 must be an int"),
    ("check_int minimum", lambda: check_int(0, "n", minimum=1), r"n=0 must be >= 1"),
    ("to_float mp.nan", lambda: to_float(mp.nan), r"x=nan must be finite"),
    ("to_float mpc", lambda: to_float(mp.mpc(1, 1)), r"x=.*must be real"),
    ("to_float matrix", lambda: to_float(M2), r"x must be a number"),
    ("to_float_array mpc", lambda: to_float_array(MPC_M), r"m must be real and not NaN"),
    ("to_float_array NaN", lambda: to_float_array(NAN_M), r"m must be real and not NaN"),
    ("to_float_array ndarray", lambda: to_float_array(np.ones(2)), r"m must be an mp.matrix"),
    # --- decide_sign: ladder, guard, the quantity
    ("decide_sign ladder (5, 10)", lambda: decide_sign(lambda: mp.mpf(1), ladder=(5, 10)), r"ladder=\(5, 10\) must start"),
    ("decide_sign one rung", lambda: decide_sign(lambda: mp.mpf(1), ladder=(50,)), r"at least two"),
    ("decide_sign decreasing", lambda: decide_sign(lambda: mp.mpf(1), ladder=(100, 50)), r"strictly increasing"),
    ("decide_sign float rung", lambda: decide_sign(lambda: mp.mpf(1), ladder=(50.0, 100)), r"ladder\[0\]=50.0 must be an int"),
    ("decide_sign ladder not a sequence", lambda: decide_sign(lambda: mp.mpf(1), ladder=50), r"ladder=50 must be a sequence"),
    ("decide_sign guard < 0", lambda: decide_sign(lambda: mp.mpf(1), guard=-1), r"guard=-1 must be >= 0"),
    ("decide_sign guard bool", lambda: decide_sign(lambda: mp.mpf(1), guard=True), r"guard=True must be an int"),
    ("decide_sign guard too large", lambda: decide_sign(lambda: mp.mpf(1), guard=46), r"guard=46 \+ 5"),
    ("decide_sign fn", lambda: decide_sign(3), r"fn=3 must be callable"),
    ("decide_sign NaN quantity", lambda: decide_sign(lambda: mp.nan), r"the quantity=nan must be finite"),
    ("decide_sign inf quantity", lambda: decide_sign(lambda: mp.inf), r"the quantity=\+?inf must be finite"),
    ("decide_sign mpc quantity", lambda: decide_sign(lambda: mp.mpc(1, 1)), r"the quantity=.*must be real"),
    ("decide_sign NaN scale", lambda: decide_sign(lambda: (mp.mpf(1), mp.nan)), r"the scale=nan must be finite"),
    ("decide_sign matrix quantity", lambda: decide_sign(lambda: M2), r"must be numbers, not matrices"),
    # --- linalg
    *[(f"linalg.{name} {kind}", (lambda fn=fn, bad=bad: fn(bad)), rx)
      for name, fn in [("norm2", linalg.norm2), ("frobenius", linalg.frobenius),
                       ("singular_values", linalg.singular_values), ("spectral_norm", linalg.spectral_norm),
                       ("sigma_min", linalg.sigma_min), ("cond", linalg.cond), ("symmetric_part", linalg.symmetric_part),
                       ("eigvalsh", linalg.eigvalsh), ("vec", linalg.vec), ("sym", linalg.sym), ("norm", linalg.norm),
                       ("exact_rank", linalg.exact_rank), ("gram", linalg.gram)]
      for kind, bad, rx in [("NaN", NAN_M, r"must be finite: entry \(0,1\) is nan"),
                            ("inf", INF_M, r"must be finite: entry \(1,0\) is \+?inf"),
                            ("mpc", MPC_M, r"must be real: entry \(1,1\)")]],
    ("linalg.norm2 ndarray", lambda: linalg.norm2(np.ones(2)), r"v must be an mp.matrix"),
    ("linalg.loewner_margin NaN Y", lambda: linalg.loewner_margin(M2, NAN_M), r"Y must be finite"),
    ("linalg.solve NaN A", lambda: linalg.solve(NAN_M, V2), r"A must be finite"),
    ("linalg.solve NaN b", lambda: linalg.solve(M2, NAN_V), r"b must be finite: entry \(1,0\) is nan"),
    ("linalg.solve mpc b", lambda: linalg.solve(M2, MPC_V), r"b must be real"),
    ("linalg.solve b rows", lambda: linalg.solve(M2, mp.matrix([1, 2, 3])), r"b has 3 rows, must match A's 2"),
    ("linalg.solve not square", lambda: linalg.solve(mp.matrix([[1, 2]]), mp.matrix([1])), r"A must be square"),
    ("linalg.solve singular", lambda: linalg.solve(mp.matrix([[1, 2], [2, 4]]), V2), r"A must be nonsingular .*rank 1 < 2"),
    ("linalg.lstsq NaN b", lambda: linalg.lstsq(M2, NAN_V), r"b must be finite"),
    ("linalg.lstsq mpc A", lambda: linalg.lstsq(MPC_M, V2), r"A must be real"),
    ("linalg.lstsq b ndarray", lambda: linalg.lstsq(M2, np.ones(2)), r"b must be an mp.matrix"),
    ("linalg.kron NaN B", lambda: linalg.kron(M2, NAN_M), r"B must be finite"),
    ("linalg.unvec rows", lambda: linalg.unvec(V2, 2.0, 1), r"rows=2.0 must be an int"),
    ("linalg.identity n", lambda: linalg.identity(0), r"n=0 must be >= 1"),
    ("linalg.dot NaN v", lambda: linalg.dot(V2, NAN_V), r"v must be finite"),
    ("linalg.dot mpc u", lambda: linalg.dot(MPC_V, V2), r"u must be real"),
    ("linalg.dot rows", lambda: linalg.dot(V2, mp.matrix([1, 2, 3])), r"u has 2 rows and v has 3"),
    ("linalg.entrywise shapes", lambda: linalg.entrywise(M2, V2), r"A \(2x2\) and B \(2x1\) must have the same shape"),
    ("linalg.entrywise ndarray", lambda: linalg.entrywise(np.ones(2), V2), r"A must be an mp.matrix"),
    ("linalg.exp_entrywise mpc", lambda: linalg.exp_entrywise(MPC_V), r"M must be real"),
    ("linalg.norm_inf ndarray", lambda: linalg.norm_inf(np.ones(2)), r"u must be an mp.matrix"),
    ("linalg.walsh_hadamard N", lambda: linalg.walsh_hadamard(6), r"N=6 must be a power of two"),
    ("linalg.stable_rank inf", lambda: linalg.stable_rank(INF_M), r"K must be finite"),
    ("linalg.stable_rank zero", lambda: linalg.stable_rank(mp.zeros(2, 2)), r"K must be nonzero"),
    ("linalg.diag NaN", lambda: linalg.diag(NAN_V), r"u must be finite"),
    ("linalg.ones n", lambda: linalg.ones(2.5), r"n=2.5 must be an int"),
    ("linalg.stack mpc", lambda: linalg.stack(V2, MPC_V), r"vs\[1\] must be real"),
    ("linalg.stack nothing", lambda: linalg.stack(), r"at least one"),
    ("linalg.converged thunk", lambda: linalg.converged(3, "svd"), r"thunk=3 must be callable"),
    # --- derivatives
    ("gradient NaN x", lambda: derivatives.gradient(SQ, NAN_V), r"x must be finite"),
    ("gradient mpc x", lambda: derivatives.gradient(SQ, MPC_V), r"x must be real"),
    ("gradient inf x", lambda: derivatives.gradient(SQ, [mp.inf]), r"x\[0\]=\+?inf must be finite"),
    ("gradient complex x", lambda: derivatives.gradient(SQ, [1j]), r"x\[0\]=1j must be real"),
    ("gradient empty x", lambda: derivatives.gradient(SQ, []), r"x must not be empty"),
    ("gradient matrix x", lambda: derivatives.gradient(SQ, M2), r"x must be a non-empty column vector"),
    ("gradient object x", lambda: derivatives.gradient(SQ, 3), r"x must be an n×1 mp.matrix"),
    ("gradient f", lambda: derivatives.gradient(5, V2), r"f=5 must be callable"),
    ("gradient f returns NaN", lambda: derivatives.gradient(lambda v: mp.nan, V2), r"f\(x.*\)=nan must be finite"),
    ("gradient f returns mpc", lambda: derivatives.gradient(lambda v: mp.mpc(1, v[0]), V2), r"f\(x.*must be real"),
    ("gradient f returns vector", lambda: derivatives.gradient(lambda v: v, V2), r"f must return a real number"),
    ("jacobian f returns NaN", lambda: derivatives.jacobian(lambda v: NAN_V, V2), r"F\(x.*\) must be finite"),
    ("jacobian f returns number", lambda: derivatives.jacobian(SQ, V2), r"F must return a column mp.matrix"),
    ("hessian mpc x", lambda: derivatives.hessian(SQ, MPC_V), r"x must be real"),
    ("cross_hessian NaN y", lambda: derivatives.cross_hessian(lambda a, b: a[0] * b[0], V2, NAN_V), r"y must be finite"),
    # --- softmax_regression
    ("S.L complex A", lambda: S.L(A32.astype(complex), B3, W3, X2), r"A must be .*not complex"),
    ("S.L NaN b", lambda: S.L(A32, np.array([0.2, np.nan, 0.5]), W3, X2), r"b must be finite: b\[1\] is nan"),
    ("S.L mpc x", lambda: S.L(A32, B3, W3, MPC_V), r"x must be real"),
    ("S.L mp.nan in w", lambda: S.L(A32, B3, mp.matrix([1, mp.nan, 2]), X2), r"w must be finite"),
    ("S.L object x", lambda: S.L(A32, B3, W3, [object(), 1.0]), r"x\[0\] must be a real number"),
    ("S.true_gradient inf x", lambda: S.true_gradient(A32, B3, W3, np.array([np.inf, 0.0])), r"x must be finite"),
    ("S.true_hessian mpc w", lambda: S.true_hessian(A32, B3, mp.matrix([1, 1, mp.mpc(0, 1)]), X2), r"w must be real"),
    ("S.f_from_u NaN", lambda: S.f_from_u(NAN_V), r"u must be finite"),
    ("S.softmax_jacobian mpc", lambda: S.softmax_jacobian(MPC_V), r"f must be real"),
    ("S.B NaN b", lambda: S.B(V2, NAN_V), r"b must be finite"),
    ("S.G_terms mpc fy", lambda: S.G_terms(V2, MPC_V, V2), r"f must be real"),
    ("S.beta_paper NaN", lambda: S.beta_paper(mp.nan), r"R=nan must be finite"),
    ("S.R_f beta <= 0", lambda: S.R_f(0, 3, 1), r"beta=0.0 must be > 0"),
    ("S.M_lem810 complex n", lambda: S.M_lem810(1j, 1), r"n=1j must be real"),
    ("S.lem58_bound mpc Rf", lambda: S.lem58_bound(2, 1, mp.mpc(1, 1)), r"Rf=.*must be real"),
    ("S.generalized_eigs NaN Y", lambda: S.generalized_eigs(M2, NAN_M), r"Y must be finite"),
    ("S.exact_newton max_iter", lambda: S.exact_newton(A32, B3, W3, max_iter=True), r"max_iter=True must be an int"),
    ("S.exact_newton NaN x0", lambda: S.exact_newton(A32, B3, W3, x0=[np.nan, 0.0]), r"x must be finite"),
    # --- attention_kernel_regression
    ("K.psd_sqrt complex", lambda: K.psd_sqrt(np.ones((2, 2), dtype=complex)), r"A must be .*not complex"),
    ("K.projector 1-d", lambda: K.projector(np.ones(2)), r"A.ndim=1 must be 2"),
    ("K.pinv_norm rank", lambda: K.pinv_norm(M2, 1.0), r"rank=1.0 must be an int"),
    ("K.psd_power j", lambda: K.psd_power(M2, -1), r"j=-1 must be an int >= 0"),
    ("K.exp_kernel mpc", lambda: K.exp_kernel(MPC_M), r"X must be real"),
    ("K.lstsq_full_rank NaN b", lambda: K.lstsq_full_rank(M2, NAN_V), r"b must be finite"),
    ("K.opt_lstsq complex b", lambda: K.opt_lstsq(np.eye(2), np.array([1j, 1])), r"b must be .*not complex"),
    ("K.backward_error_lstsq mpc x", lambda: K.backward_error_lstsq(M2, V2, MPC_V), r"x must be real"),
    ("sketch_bits.int_scaled NaN", lambda: int_scaled(np.array([1.0, np.nan])), r"arr must be finite"),
    ("K.ExactGram complex b", lambda: K.ExactGram(np.eye(2), np.array([1 + 1j, 0])), r"b must be .*not complex"),
    ("K.exact_residual_sq NaN x", lambda: K.exact_residual_sq(np.eye(2), [np.nan, 0.0], [1.0, 1.0]), r"x must be finite"),
    ("sketch_bits.distortion_from_grams floats", lambda: distortion_from_grams([[1.0]], [[1]]), r"SG must hold exact rationals"),
    ("sketch_bits.sketch_times_int float NA", lambda: sketch_times_int("countsketch", {"m": 1, "rows": np.array([0]),
                                                                          "signs": np.array([1])}, np.ones((1, 1))),
     r"NA must be an integer array"),
    ("K.gaussian_matrix NaN g", lambda: K.gaussian_matrix({"g": np.array([[np.nan]])}), r"bits\['g'\] must be finite"),
    ("K.srht_matrix float signs", lambda: K.srht_matrix({"n": 2, "signs": np.array([1.0, 1.0]), "rows": np.array([0])}),
     r"bits\['signs'\] must be a 1-d integer array"),
]


@pytest.mark.parametrize("label, thunk, pattern", CASES, ids=[c[0] for c in CASES])
def test_bad_input_raises_value_error_naming_the_argument(label, thunk, pattern):
    with pytest.raises(ValueError, match=pattern):
        thunk()


def test_every_public_linalg_function_is_in_the_table():
    """Each oracle.linalg entry point appears in CASES (a new function must say what it rejects)."""
    covered = {c[0].split()[0].removeprefix("linalg.") for c in CASES if c[0].startswith("linalg.")}
    missing = set(linalg.__all__) - covered - {"sigma_max"}  # sigma_max is spectral_norm
    assert not missing, f"linalg entry points without a bad-input case: {sorted(missing)}"


# --------------------------------------------------------------------------- scale factors 2^k

scale = st.integers(-1074, 1023)


@settings(max_examples=40, deadline=None)
@given(k=scale, m=st.floats(0.5, 2.0))
def test_to_mp_is_exact_at_every_scale(k, m):
    """Every finite float64 m·2^k converts exactly and back."""
    x = np.ldexp(m, k)
    if not np.isfinite(x):
        with pytest.raises(ValueError, match="finite"):
            to_mp(np.array([x]), "x")
        return
    assert to_float(to_mp(x)) == x, f"to_float(to_mp({x!r})) != {x!r}"


@settings(max_examples=30, deadline=None)
@given(k=st.integers(-1000, 1000), j=st.integers(-1000, 1000))
def test_solve_and_lstsq_are_exact_at_every_scale(k, j):
    """diag(2^k, 2^j) x = (1, 3): x = (2^-k, 3·2^-j) exactly, however ill-conditioned (κ = 2^|k−j|)."""
    A = mp.matrix([[mp.ldexp(1, k), 0], [0, mp.ldexp(1, j)]])
    b = mp.matrix([1, 3])
    expect = [mp.ldexp(1, -k), 3 * mp.ldexp(1, -j)]
    for name, x in (("solve", linalg.solve(A, b)), ("lstsq", linalg.lstsq(A, b))):
        assert [x[0], x[1]] == expect, f"{name}(diag(2^{k}, 2^{j}), (1, 3)) = {x.T}, expected {expect}"


@settings(max_examples=30, deadline=None)
@given(k=st.integers(-1000, 1000), m=st.floats(0.5, 2.0))
def test_gradient_of_square_is_right_at_every_scale(k, m):
    """d/dx x² = 2x at x = m·2^k, to mp.dps digits."""
    x = mp.ldexp(mp.mpf(m), k)
    g = derivatives.gradient(SQ, mp.matrix([x]))
    assert abs(g[0] - 2 * x) <= mp.ldexp(abs(x), 1 - mp.prec), f"d/dx x² at {x} = {g[0]}"
