"""The oracle core: exact conversion, precision escalation, high-precision linear algebra and
derivation-independent derivatives."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mpmath import mp

from oracle import UndecidableError, decide_sign, derivatives, linalg, to_float, to_float_array, to_mp
from properties.toolkit.strategies import matrices


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float64_roundtrip_is_exact(x):
    assert to_float(to_mp(x)) == x, f"to_float(to_mp({x!r})) != {x!r}"


@given(matrices(st.integers(1, 4), st.integers(1, 4), max_abs=1e300))
def test_matrix_roundtrip_is_exact(A):
    assert np.array_equal(to_float_array(to_mp(A), ndim=2), A), f"round trip changed {A!r}"


def test_to_float_is_correctly_rounded():
    with mp.workdps(60):
        third = mp.mpf(1) / 3
        assert to_float(third) == 1 / 3, "1/3 must round to the nearest float64"
        halfway = mp.mpf(1) + mp.mpf(2) ** -53  # exactly between 1 and 1 + 2^-52: ties to even
        assert to_float(halfway) == 1.0, "a tie must round to even"
        above = halfway + mp.mpf(2) ** -100
        assert to_float(above) == 1.0 + 2.0**-52, "just above the tie must round up (no double rounding)"


@pytest.mark.parametrize("bad, rule", [
    (np.array([1.0, np.nan]), "finite"),
    (np.array([np.inf]), "finite"),
    (np.zeros((0, 3)), "empty"),
    (np.zeros((2, 2, 2)), "ndim"),
    ("abc", "real numbers"),
])
def test_to_mp_rejects_bad_input(bad, rule):
    with pytest.raises(ValueError, match=rule):
        to_mp(bad, "A")


def test_linalg_rejects_bad_shapes():
    with pytest.raises(ValueError, match="square"):
        linalg.eigvalsh(to_mp(np.ones((2, 3))))
    with pytest.raises(ValueError, match="symmetric"):
        linalg.eigvalsh(to_mp(np.array([[1.0, 2.0], [0.0, 1.0]])))
    with pytest.raises(ValueError, match="rows"):
        linalg.lstsq(to_mp(np.ones((3, 2))), to_mp(np.ones(2)))
    with pytest.raises(ValueError, match="nonsingular"):
        linalg.solve(to_mp(np.ones((2, 2))), to_mp(np.ones(2)))


def test_sign_needing_more_than_50_digits_is_decided():
    """(1 + 10⁻⁷⁰) − 1 rounds to 0 at 50 digits; the ladder must go on and decide it is positive."""
    d = decide_sign(lambda: mp.mpf(1) + mp.mpf(10) ** -70 - 1)
    assert d.sign == 1 and d.dps > 50, f"decided {d}"
    assert mp.almosteq(d.value, mp.mpf(10) ** -70, rel_eps=mp.mpf(10) ** -20), f"value {d.value}"


def test_negative_sign_needing_more_than_50_digits():
    """e^{π√163} is within 10⁻¹² of an integer: the sign of its difference from 640320³ + 744 is
    negative, and the 60-digit gap to the next test needs over 50 digits."""
    d = decide_sign(lambda: (mp.exp(mp.pi * mp.sqrt(163)) - (640320**3 + 744) + mp.mpf("7.49927e-13")
                             + mp.mpf(10) ** -60, mp.mpf(640320) ** 3))
    assert d.dps > 50, f"decided at {d.dps} digits only: {d}"


def test_exact_zero_is_zero():
    d = decide_sign(lambda: (mp.sqrt(2) ** 2 - 2, 2))
    assert d.sign == 0 and d.digits >= 40, f"decided {d}"


def test_undecidable_sign_is_refused():
    """sin(10¹⁰⁰⁰): 10¹⁰⁰⁰ is rounded differently at every precision below 1000 digits, so the values
    never agree and the helper must refuse rather than guess."""
    with pytest.raises(UndecidableError, match="not stable"):
        decide_sign(lambda: mp.sin(mp.mpf(10) ** 1000))


def test_decide_sign_rejects_non_finite():
    with pytest.raises(ValueError, match="finite"):
        decide_sign(lambda: mp.inf)


def _digits_agree(a, b):
    err = abs(a - b)
    return mp.inf if err == 0 else -mp.log10(err / max(abs(b), mp.mpf(10) ** -300))


def test_gradient_matches_closed_form_to_40_digits():
    with mp.workdps(50):
        f = lambda v: mp.exp(v[0] * v[1]) + mp.sin(v[0]) * v[2] ** 3 + mp.log(1 + v[1] ** 2)  # noqa: E731
        x = mp.matrix([mp.mpf("0.3"), mp.mpf("-1.2"), mp.mpf("0.7")])
        g = derivatives.gradient(f, x)
        exact = [x[1] * mp.exp(x[0] * x[1]) + mp.cos(x[0]) * x[2] ** 3,
                 x[0] * mp.exp(x[0] * x[1]) + 2 * x[1] / (1 + x[1] ** 2),
                 3 * mp.sin(x[0]) * x[2] ** 2]
        for i in range(3):
            assert _digits_agree(g[i], exact[i]) >= 40, f"∂f/∂x{i}: {g[i]} vs {exact[i]}"


def test_hessian_matches_closed_form_to_40_digits():
    with mp.workdps(50):
        # softmax-style log-sum-exp, whose Hessian is diag(p) − p pᵀ
        f = lambda v: mp.log(mp.fsum(mp.exp(t) for t in v))  # noqa: E731
        x = mp.matrix([mp.mpf("0.5"), mp.mpf("-2"), mp.mpf("1.25")])
        H = derivatives.hessian(f, x)
        z = mp.fsum(mp.exp(t) for t in x)
        p = [mp.exp(t) / z for t in x]
        for i in range(3):
            for j in range(3):
                exact = (p[i] if i == j else 0) - p[i] * p[j]
                assert _digits_agree(H[i, j], exact) >= 40, f"H[{i},{j}] = {H[i, j]} vs {exact}"


def test_jacobian_matches_closed_form_to_40_digits():
    with mp.workdps(50):
        F = lambda v: mp.matrix([v[0] * v[1], mp.exp(v[1])])  # noqa: E731
        x = mp.matrix([mp.mpf(2), mp.mpf("0.5")])
        J = derivatives.jacobian(F, x)
        exact = [[x[1], x[0]], [0, mp.exp(x[1])]]
        for i in range(2):
            for j in range(2):
                assert abs(J[i, j] - exact[i][j]) <= mp.mpf(10) ** -40 * max(1, abs(exact[i][j])), f"J[{i},{j}]"


def test_linalg_on_known_matrices():
    with mp.workdps(50):
        A = to_mp(np.array([[3.0, 0.0], [4.0, 5.0]]))  # singular values 3√5, √5
        assert mp.almosteq(linalg.spectral_norm(A), 3 * mp.sqrt(5), rel_eps=mp.mpf(10) ** -45)
        assert mp.almosteq(linalg.sigma_min(A), mp.sqrt(5), rel_eps=mp.mpf(10) ** -45)
        assert mp.almosteq(linalg.cond(A), mp.mpf(3), rel_eps=mp.mpf(10) ** -45)
        assert mp.almosteq(linalg.frobenius(A), mp.sqrt(50), rel_eps=mp.mpf(10) ** -45)
        wide = to_mp(np.array([[1.0, 0.0]]))
        assert linalg.sigma_min(wide, convention="paper") == 0, "paper's σ_min of a wide matrix is 0"
        assert linalg.sigma_min(wide) == 1, "σ_{min(r,c)} of [1 0] is 1"
        S = to_mp(np.array([[2.0, 1.0], [1.0, 2.0]]))
        ev = linalg.eigvalsh(S)
        assert mp.almosteq(ev[0], 1) and mp.almosteq(ev[1], 3), f"eigenvalues {ev}"
        assert mp.almosteq(linalg.loewner_margin(mp.eye(2), S), 0), "λ_min(S − I) = 0"
        x = linalg.lstsq(to_mp(np.array([[1.0], [1.0]])), to_mp(np.array([1.0, 3.0])))
        assert mp.almosteq(x[0], 2), "least squares of [1;1]x ≈ [1;3] is 2"
        k = linalg.kron(to_mp(np.array([1.0, 2.0])), to_mp(np.array([3.0, 4.0, 5.0])))
        assert [float(v) for v in k] == [3, 4, 5, 6, 8, 10], "kron(x, y)[a*len(y)+b] = x[a] y[b]"
        X = to_mp(np.arange(6.0).reshape(2, 3))
        assert [float(v) for v in linalg.vec(X)] == list(range(6)), "vec is row-major"
        assert linalg.unvec(linalg.vec(X), 2, 3) == X


def test_lstsq_rank_deficient_gives_minimum_norm():
    with mp.workdps(50):
        A = to_mp(np.array([[1.0, 1.0], [1.0, 1.0]]))
        x = linalg.lstsq(A, to_mp(np.array([2.0, 2.0])))
        assert mp.almosteq(x[0], 1) and mp.almosteq(x[1], 1), f"minimum-norm solution is (1, 1), got {x}"


def test_ill_conditioned_solve_and_lstsq_are_decided():
    """A regression: solve(diag(1, 1e-60)) said "must be nonsingular" and lstsq(diag(1, 1e-60), 1) returned
    (1, 0); both are exact now: (1, 1e60) correctly rounded."""
    A, b = to_mp(np.diag([1.0, 1e-60])), to_mp(np.ones(2))
    exact = 1 / mp.mpf(1e-60)
    for name, x in (("solve", linalg.solve(A, b)), ("lstsq", linalg.lstsq(A, b))):
        assert x[0] == 1 and x[1] == exact, f"{name}(diag(1, 1e-60), 1) = {x.T}, expected (1, {exact})"


def test_lstsq_of_wide_and_rank_deficient_matrices_is_the_minimum_norm_solution():
    """A = [[1, 2, 3], [2, 4, 6]] (rank 1), b = (1, 2): A⁺b = (1, 2, 3)/14 exactly."""
    x = linalg.lstsq(to_mp(np.array([[1.0, 2, 3], [2, 4, 6]])), to_mp(np.array([1.0, 2])))
    assert [x[i] for i in range(3)] == [mp.mpf(k) / 14 for k in (1, 2, 3)], f"A⁺b = {x.T}"
    z = linalg.lstsq(to_mp(np.zeros((2, 2))), to_mp(np.array([1.0, 2])))
    assert z == mp.matrix(2, 1), f"lstsq(0, b) must be 0, got {z.T}"


@pytest.mark.parametrize("ladder", [(400, 800), (16, 32), (16, 17, 18), (1000, 2000)])
def test_decide_sign_at_any_valid_ladder(ladder):
    """A regression: ladder (400, 800) failed with "math domain error"; every valid ladder decides 1 > 0,
    −1 < 0 and 0 = 0."""
    assert decide_sign(lambda: mp.mpf(1), ladder=ladder).sign == 1, f"sign of 1 at {ladder}"
    assert decide_sign(lambda: mp.mpf(-3), ladder=ladder).sign == -1, f"sign of -3 at {ladder}"
    assert decide_sign(lambda: (mp.sqrt(2) ** 2 - 2, 2), ladder=ladder).sign == 0, f"sign of √2² − 2 at {ladder}"


@given(st.integers(0, 10), st.lists(st.integers(0, 3000), min_size=2, max_size=4, unique=True))
def test_decide_sign_decides_a_tiny_positive_at_any_ladder(guard, offsets):
    """10⁻⁸ (scale 1) is positive at every valid ladder whose rungs resolve it (dps − guard > 8)."""
    low = max(16, guard + 9)
    ladder = tuple(sorted(low + k for k in offsets))
    d = decide_sign(lambda: mp.mpf(10) ** -8, ladder=ladder, guard=guard)
    assert d.sign == 1 and d.digits >= 1, f"decided {d} at ladder {ladder}, guard {guard}"


@pytest.mark.parametrize("d", [1, 3, 8, 13])
def test_srht_sketch_of_the_oracle_is_the_explicit_hadamard_product(d):
    """Algorithm 8 with p = 1 is T x = (1/√m)·rows of H D x̄; the oracle's integer butterflies must give
    the explicit Sylvester product to the last bits, for entries spread over 60 orders of magnitude:
    each side is rounded three times (the sum, 1/√m, the product), so they agree within 8 units of
    2^-prec relative (one mpf butterfly pass would lose up to log₂N more)."""
    from scipy.linalg import hadamard

    from oracle import attention_kernel_ridge as R

    rng = np.random.default_rng(d)
    N = 1 << (d - 1).bit_length()
    X = rng.standard_normal((d, 2)) * 10.0 ** rng.integers(-30, 30, (d, 2))
    signs, rows = rng.choice([-1, 1], N), rng.integers(0, N, 5)
    Z = R.tensor_sketch(to_mp(X), 1, {"n": d, "signs": signs, "rows": rows}, None)
    H = hadamard(N)
    for col in range(2):
        Dx = [int(signs[i]) * to_mp(float(X[i, col])) if i < d else mp.mpf(0) for i in range(N)]
        for k, r in enumerate(rows):
            want = mp.fsum(int(H[r, c]) * Dx[c] for c in range(N)) / mp.sqrt(len(rows))
            assert abs(Z[k, col] - want) <= 8 * mp.mpf(2) ** (-mp.prec) * abs(want), (d, col, k, Z[k, col], want)


@given(st.integers(1, 9), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_gram_is_the_exact_dot_product_rounded_once(rows, cols, seed):
    """linalg.gram(M)[i, j] is ⟨M[:, i], M[:, j]⟩ computed in rationals and rounded once: equal to
    the correctly rounded Fraction sum even when the terms span 120 orders of magnitude and cancel."""
    from fractions import Fraction

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((rows, cols)) * 10.0 ** rng.integers(-60, 60, (rows, cols))
    X[rng.random((rows, cols)) < 0.2] = 0.0
    M = to_mp(X)
    G = linalg.gram(M)
    for i in range(cols):
        for j in range(cols):
            exact = sum(Fraction(float(X[k, i])) * Fraction(float(X[k, j])) for k in range(rows))
            want = mp.mpf(exact.numerator) / exact.denominator if exact else mp.mpf(0)
            assert G[i, j] == G[j, i]
            assert abs(G[i, j] - want) <= mp.mpf(2) ** (1 - mp.prec) * abs(want), (i, j, G[i, j], want)
