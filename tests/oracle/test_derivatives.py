"""oracle.derivatives against closed forms at every float64 magnitude ("the judge must be
right or refuse").

The guarantee under test is the one :mod:`oracle.derivatives` states: every entry ``D`` of a
derivative has ``|D − ∂f| ≤ 2^-T·|∂f| + 2^-Z·F`` (T = mp.prec, F = max |f| near x, Z = 2T + 256 + 2R
with R the spread of the exponents of 1 and of the point's coordinates), i.e.
``mp.dps`` significant digits unless the exact derivative is below the zero floor.  References are
the closed forms evaluated at three times the working precision.  Magnitudes run from 1e-300 to
1e300, with mixed scales inside one vector, drawn by Hypothesis as scale factors 2^k.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp

from oracle import UndecidableError, derivatives, to_mp
from oracle import softmax_regression as S

MAGNITUDES = [10.0**k for k in range(-300, 301, 50)] + [1e-308, 2.0**-1074 * 3, 1.7e308]


def _reference(fn):
    """The closed form at three times the working precision."""
    with mp.workprec(3 * mp.prec):
        return fn()


def _zero_bits(*points):
    """Z = 2T + ZERO_BITS + 2R, R the spread of the exponents of 1 and of the nonzero coordinates."""
    exps = [0] + [v._mpf_[2] + v._mpf_[3] for p in points for v in p if v]
    return 2 * mp.prec + derivatives.ZERO_BITS + 2 * (max(exps) - min(exps))


def _check_entry(D, exact, F, what, zero_bits=None):
    T = mp.prec
    err = abs(D - exact)
    Z = 2 * T + derivatives.ZERO_BITS if zero_bits is None else zero_bits
    bound = mp.ldexp(abs(exact), -T) + mp.ldexp(abs(F), -Z)
    assert err <= bound, (f"{what}: got {mp.nstr(D, 20)}, exact {mp.nstr(exact, 20)} "
                          f"(error {mp.nstr(err, 3)} > {mp.nstr(bound, 3)})")


def _check_matrix(D, exact, F, what, zero_bits=None):
    assert (D.rows, D.cols) == (exact.rows, exact.cols), f"{what}: shape {D.rows}x{D.cols} vs {exact.rows}x{exact.cols}"
    for i in range(D.rows):
        for j in range(D.cols):
            _check_entry(D[i, j], exact[i, j], F, f"{what}[{i},{j}]", zero_bits)


# --------------------------------------------------------------------------- the reported cases


def test_square_at_1e60_and_1e50():
    """A regression: gradient of x² at 1e60 was 0.0 (true 2e60); at 1e50 its relative error was 2e-11."""
    for x in (1e60, 1e50):
        g = derivatives.gradient(lambda v: v[0] ** 2, to_mp([x]))
        _check_entry(g[0], 2 * mp.mpf(x), mp.mpf(x) ** 2, f"d/dx x² at {x}", _zero_bits(to_mp([x])))


def test_softmax_true_gradient_at_mixed_scales_matches_closed_form():
    """A regression: true_gradient(eye(2), [.5, .5], [1, 1], [1e45, 1]) gave [1e45, 0]; the closed form
    (def.grad_L) gives [1e45, 1]."""
    A, b, w, x = np.eye(2), np.array([0.5, 0.5]), np.array([1.0, 1.0]), np.array([1e45, 1.0])
    g = S.true_gradient(A, b, w, x)
    exact = _reference(lambda: S.grad_closed(A, b, w, x))
    _check_matrix(g, exact, S.L(A, b, w, x), "true_gradient", _zero_bits(to_mp(x)))
    assert abs(g[1] - 1) < mp.mpf(10) ** -40, f"∂L/∂x₂ = {g[1]}, must be 1 (L_exp is saturated, L_reg gives x₂)"


# --------------------------------------------------------------------------- one variable, every magnitude


@pytest.mark.parametrize("x", MAGNITUDES + [-v for v in MAGNITUDES[::3]])
def test_polynomial_derivatives_at_every_magnitude(x):
    """p(x) = x³ − 2x² + 5: p' = 3x² − 4x, p'' = 6x − 4, at |x| from the smallest subnormal to 1.7e308."""
    p = lambda v: v[0] ** 3 - 2 * v[0] ** 2 + 5  # noqa: E731
    xm = to_mp([x])
    F = 2 * abs(_reference(lambda: p(xm))) + 5
    g = derivatives.gradient(p, xm)
    Z = _zero_bits(xm)
    _check_entry(g[0], _reference(lambda: 3 * xm[0] ** 2 - 4 * xm[0]), F, f"p'({x})", Z)
    H = derivatives.hessian(p, xm)
    _check_entry(H[0, 0], _reference(lambda: 6 * xm[0] - 4), F, f"p''({x})", Z)


@pytest.mark.parametrize("x", MAGNITUDES)
def test_exp_and_log_at_every_magnitude(x):
    """d/dx exp(x/c) = exp(x/c)/c with c = x itself (a feature on the point's own scale), and
    d/dx log x = 1/x, d²/dx² log x = −1/x²."""
    xm = to_mp([x])
    c = xm[0]
    g = derivatives.gradient(lambda v: mp.exp(v[0] / c), xm)
    Z = _zero_bits(xm)
    _check_entry(g[0], _reference(lambda: mp.e / c), mp.e * 2, f"d/dx exp(x/{x})", Z)
    g = derivatives.gradient(lambda v: mp.log(v[0]), xm)
    F = abs(mp.log(c)) + 1
    _check_entry(g[0], _reference(lambda: 1 / c), F, f"d/dx log x at {x}", Z)
    H = derivatives.hessian(lambda v: mp.log(v[0]), xm)
    _check_entry(H[0, 0], _reference(lambda: -1 / c**2), F, f"d²/dx² log x at {x}", Z)


def test_feature_of_scale_one_at_a_large_point():
    """exp(x − 10⁴⁵) at x = 10⁴⁵ + 1 (float64 1e45 rounds; the shift is taken exactly): a step relative
    to the point (≈10⁻¹¹) would smear the exponential; the step is absolute above 1."""
    x0 = mp.mpf(1e45)
    g = derivatives.gradient(lambda v: mp.exp(v[0] - x0), mp.matrix([x0 + 1]))
    _check_entry(g[0], _reference(lambda: mp.e), mp.e * 2, "d/dx exp(x − 1e45)", _zero_bits([x0 + 1]))


# --------------------------------------------------------------------------- mixed scales in one vector

scale_exponents = st.integers(-1000, 1000)
mantissas = st.floats(0.5, 2.0).flatmap(lambda m: st.sampled_from([m, -m]))


@st.composite
def mixed_points(draw, n):
    """n coordinates m_i·2^{k_i}, each k_i drawn independently from the whole float64 range."""
    return np.array([draw(mantissas) * 2.0 ** draw(scale_exponents) for _ in range(n)])


@settings(max_examples=25, deadline=None)
@given(x=mixed_points(3), w=st.lists(st.floats(0.25, 4.0), min_size=3, max_size=3))
def test_quadratic_plus_product_at_mixed_scales(x, w):
    """f = ½Σ w_i x_i² + x₀x₁x₂: ∂_i f = w_i x_i + Π_{j≠i} x_j; ∂²f: diag(w) + the products x_k."""
    xm, wm = to_mp(x), to_mp(np.array(w))
    f = lambda v: mp.fsum(wm[i] * v[i] ** 2 for i in range(3)) / 2 + v[0] * v[1] * v[2]  # noqa: E731
    F = 2 * _reference(lambda: mp.fsum(wm[i] * xm[i] ** 2 for i in range(3)) + abs(xm[0] * xm[1] * xm[2]))
    g = derivatives.gradient(f, xm)
    exact_g = _reference(lambda: mp.matrix([wm[i] * xm[i] + xm[(i + 1) % 3] * xm[(i + 2) % 3] for i in range(3)]))
    _check_matrix(g, exact_g, F, f"∇f at {x.tolist()}", _zero_bits(xm))
    H = derivatives.hessian(f, xm)
    exact_H = _reference(lambda: mp.matrix([[wm[i] if i == j else xm[3 - i - j] for j in range(3)] for i in range(3)]))
    _check_matrix(H, exact_H, F, f"∇²f at {x.tolist()}", _zero_bits(xm))


@settings(max_examples=15, deadline=None)
@given(v=st.lists(st.floats(-3.0, 3.0), min_size=3, max_size=3), k=scale_exponents)
def test_log_sum_exp_at_every_scale(v, k):
    """∇ lse(x) = softmax(x), ∇² lse(x) = diag(p) − ppᵀ, for x = 2^k·v: from a uniform softmax
    (2^-1000) to a saturated one (2^1000, where the small entries are below the zero floor)."""
    x = np.array(v) * 2.0**k
    xm = to_mp(x)
    lse = lambda z: mp.log(mp.fsum(mp.exp(t) for t in z))  # noqa: E731

    def p():
        m = max(xm)
        e = [mp.exp(t - m) for t in xm]
        return mp.matrix([t / mp.fsum(e) for t in e])

    F = 2 * (abs(_reference(lambda: lse(xm))) + 1)
    Z = _zero_bits(xm)
    _check_matrix(derivatives.gradient(lse, xm), _reference(p), F, f"∇lse at 2^{k}·{v}", Z)
    exact_H = _reference(lambda: mp.diag(list(p())) - p() * p().T)
    _check_matrix(derivatives.hessian(lse, xm), exact_H, F, f"∇²lse at 2^{k}·{v}", Z)


@settings(max_examples=15, deadline=None)
@given(x=mixed_points(2), y=mixed_points(2))
def test_cross_hessian_at_mixed_scales(x, y):
    """f(x, y) = (xᵀy)²: ∂²f/∂x_a∂y_b = 2 y_a x_b + 2(xᵀy)δ_ab."""
    xm, ym = to_mp(x), to_mp(y)
    f = lambda a, b: (a[0] * b[0] + a[1] * b[1]) ** 2  # noqa: E731
    F = 4 * _reference(lambda: (abs(xm[0] * ym[0]) + abs(xm[1] * ym[1])) ** 2)
    exact = _reference(lambda: mp.matrix([[2 * ym[a] * xm[b] + (2 * (xm[0] * ym[0] + xm[1] * ym[1]) if a == b else 0)
                                           for b in range(2)] for a in range(2)]))
    _check_matrix(derivatives.cross_hessian(f, xm, ym), exact, F, f"cross Hessian at x={x.tolist()}, y={y.tolist()}",
                  _zero_bits(xm, ym))


@settings(max_examples=15, deadline=None)
@given(x=mixed_points(2))
def test_jacobian_at_mixed_scales(x):
    """F(v) = (v₀v₁, v₁², exp(v₀/x₀)): J = [[v₁, v₀], [0, 2v₁], [exp(v₀/x₀)/x₀, 0]]."""
    xm = to_mp(x)
    c = xm[0]
    F = lambda v: mp.matrix([v[0] * v[1], v[1] ** 2, mp.exp(v[0] / c)])  # noqa: E731
    mag = 2 * _reference(lambda: abs(xm[0] * xm[1]) + xm[1] ** 2 + mp.e)
    exact = _reference(lambda: mp.matrix([[xm[1], xm[0]], [0, 2 * xm[1]], [mp.e / c, 0]]))
    _check_matrix(derivatives.jacobian(F, xm), exact, mag, f"J at {x.tolist()}", _zero_bits(xm))


@settings(max_examples=15, deadline=None)
@given(k=st.integers(-300, 300), v=st.lists(st.floats(-2.0, 2.0), min_size=2, max_size=2))
def test_softmax_loss_gradient_and_hessian_at_every_scale(k, v):
    """The softmax-regression loss L = ½‖softmax(Ax) − b‖² + ½‖WAx‖² (def.L): the numerical gradient
    and Hessian (:func:`true_gradient`, :func:`true_hessian`) equal the closed forms def.grad_L and
    def.hessian_L entry by entry, for x = 2^k·v (a second coordinate at scale 1 keeps mixed scales)."""
    A = np.array([[1.0, 0.5], [-0.5, 1.0], [0.25, -1.0]])
    b, w = np.array([0.2, 0.3, 0.5]), np.array([1.0, 0.5, 2.0])
    x = np.array([v[0] * 2.0**k, v[1]])
    F = 2 * _reference(lambda: S.L(A, b, w, x)) + 1
    Z = _zero_bits(to_mp(x))
    _check_matrix(S.true_gradient(A, b, w, x), _reference(lambda: S.grad_closed(A, b, w, x)), F, f"∇L at {x.tolist()}", Z)
    _check_matrix(S.true_hessian(A, b, w, x), _reference(lambda: S.hessian_closed(A, b, w, x)), F,
                  f"∇²L at {x.tolist()}", Z)


# --------------------------------------------------------------------------- precision, zeros, refusal


@pytest.mark.parametrize("dps", [16, 50, 200])
def test_stated_digits_at_each_precision(dps):
    """The guarantee scales with the caller's precision: at 16, 50 and 200 digits."""
    with mp.workdps(dps):
        f = lambda v: mp.exp(v[0] * v[1]) + mp.sin(v[0]) * v[2] ** 3 + mp.log(1 + v[1] ** 2)  # noqa: E731
        x = mp.matrix([mp.mpf("0.3"), mp.mpf(-1.2e20), mp.mpf("0.7e-30")])
        exact = _reference(lambda: mp.matrix([
            x[1] * mp.exp(x[0] * x[1]) + mp.cos(x[0]) * x[2] ** 3,
            x[0] * mp.exp(x[0] * x[1]) + 2 * x[1] / (1 + x[1] ** 2),
            3 * mp.sin(x[0]) * x[2] ** 2]))
        _check_matrix(derivatives.gradient(f, x), exact, 2 * _reference(lambda: abs(f(x))) + 2, f"∇f at {dps} digits",
                      _zero_bits(x))


def test_exact_zero_derivative_is_zero():
    """A coordinate f does not depend on: its derivative is returned below the zero floor (here 0),
    even when f is huge (the precision is raised to the floor, never a wrong nonzero)."""
    f = lambda v: mp.mpf(10) ** 200 * v[0] ** 2  # noqa: E731
    g = derivatives.gradient(f, mp.matrix([mp.mpf(3), mp.mpf(1e-200)]))
    _check_entry(g[0], mp.mpf(6) * mp.mpf(10) ** 200, mp.mpf(9e200), "∂f/∂x₀", _zero_bits([mp.mpf(3), mp.mpf(1e-200)]))
    assert g[1] == 0, f"∂f/∂x₁ = {g[1]}, must be 0 (f does not depend on x₁)"


def test_hessian_is_symmetric():
    f = lambda v: mp.exp(v[0] * v[1]) * v[2] ** 2  # noqa: E731
    H = derivatives.hessian(f, mp.matrix([mp.mpf("0.5"), mp.mpf("-1e10"), mp.mpf("3e-200")]))
    assert all(H[i, j] == H[j, i] for i in range(3) for j in range(3)), f"H is not symmetric: {H}"


def test_erratic_function_is_refused():
    """f carries a rounding error of 2^300 that no working precision removes (far above its
    magnitude's share): the passes at raised precision never agree, so the derivative is refused,
    not guessed."""
    rng = np.random.default_rng(1)

    def f(v):
        return mp.ldexp(1, 600) + v[0] + mp.ldexp(mp.mpf(rng.random()), 300)

    with pytest.raises(UndecidableError, match="could not be resolved"):
        derivatives.gradient(f, mp.matrix([mp.mpf(1)]))


def test_function_losing_half_its_precision_is_still_right():
    """f's rounding error shrinks only like 2^(600 − wp/2), slower than the noise model assumes: the
    passes at raised precision must agree before a value is returned, so it is right to mp.dps digits."""
    rng = np.random.default_rng(2)

    def f(v):
        return mp.ldexp(1, 600) + v[0] + mp.ldexp(mp.mpf(rng.random()), 600 - mp.prec // 2)

    g = derivatives.gradient(f, mp.matrix([mp.mpf(1)]))
    assert abs(g[0] - 1) <= mp.ldexp(1, -mp.prec), f"d/dx = {g[0]}, must be 1 to {mp.dps} digits"


def test_cached_at_point_computes_once_per_exact_point_and_precision():
    """cached_at_point: the same exact arguments at the same precision call the function once and give an
    equal copy (mutating it does not reach the cache); another point, value kind or precision recomputes."""
    calls = []

    @derivatives.cached_at_point
    def hess(A, x, *, scale=None):
        calls.append((mp.prec, scale))
        return derivatives.hessian(lambda z: mp.fsum(mp.exp((A * z)[i]) for i in range(A.rows)), x) * (scale or 1)

    A, x = to_mp(np.array([[0.5, -1.0], [2.0, 0.25]])), to_mp(np.array([0.1, -0.3]))
    first = hess(A, x)
    again = hess(A, to_mp(np.array([0.1, -0.3])))
    assert len(calls) == 1 and again == first and again is not first
    again[0, 0] = 7
    assert hess(A, x) == first and len(calls) == 1
    hess(A, to_mp(np.array([0.1, -0.29999999999999993])))
    hess(A, x, scale=2.0)
    with mp.workdps(mp.dps + 10):
        hess(A, x)
    assert len(calls) == 4
    assert hess.__wrapped__(A, x) == first  # the cached value is the uncached one


def test_softmax_losses_are_the_composed_definitions_exactly():
    """L_exp and L_reg (validated once, then on lists of mpf) perform exactly the operations of
    ½‖f_from_u(Ax) − b‖² and ½‖w ∘ Ax‖² (def.L_exp, def.L_reg): equal to the last bit, with zero entries."""
    from oracle import linalg

    rng = np.random.default_rng(3)
    for n, d in ((1, 1), (4, 2), (5, 3)):
        A = to_mp(rng.uniform(-3, 3, (n, d)) * (rng.uniform(size=(n, d)) < 0.8))
        b, w, x = to_mp(rng.uniform(0, 1, n)), to_mp(rng.uniform(-2, 2, n)), to_mp(rng.uniform(-1, 1, d))
        for dps in (15, 50, 300):
            with mp.workdps(dps):
                r = S.f_from_u(A * x) - b
                assert S.L_exp(A, b, x)._mpf_ == (linalg.dot(r, r) / 2)._mpf_
                r = linalg.entrywise(w, A * x)
                assert S.L_reg(A, w, x)._mpf_ == (linalg.dot(r, r) / 2)._mpf_
