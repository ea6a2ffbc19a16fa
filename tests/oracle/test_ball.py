"""oracle.ball: rigorous enclosures.  Each enclosure must contain the exact value, which is
checked against values computed independently (closed forms of small integer matrices, numpy at
float64 with its own error bound, exact rationals)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from flint import arb, arb_mat, ctx, fmpq, fmpq_mat
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle import ball
from oracle.precision import UndecidableError

SMALL = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)


def test_exact_is_the_float_itself():
    q = ball.exact(0.1)
    assert Fraction(int(q.p), int(q.q)) == Fraction(0.1)
    assert ball.exact(3) == fmpq(3)
    assert ball.to_fraction(ball.from_fraction("-7/3")) == Fraction(-7, 3)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), True, "1", None])
def test_exact_refuses(bad):
    with pytest.raises(ValueError):
        ball.exact(bad)


def test_rational_matrix_shapes_and_refusals():
    assert (ball.rational_matrix([1.0, 2.0]).nrows(), ball.rational_matrix([1.0, 2.0]).ncols()) == (2, 1)
    assert ball.rational_matrix(2.5).nrows() == 1
    with pytest.raises(ValueError, match="rectangular"):
        ball.rational_matrix([[1.0], [1.0, 2.0]])
    with pytest.raises(ValueError, match="empty"):
        ball.rational_matrix([])
    with pytest.raises(ValueError, match="exact"):
        ball.rational_matrix(ball.matrix([[1.0]]))


def test_at_bits_sets_and_restores():
    before = ctx.prec
    with ball.at_bits(200):
        assert ctx.prec == 200
    assert ctx.prec == before
    with pytest.raises(ValueError, match="bits"):
        with ball.at_bits(30):
            pass


@settings(max_examples=30, deadline=None)
@given(st.lists(SMALL, min_size=4, max_size=4))
def test_spectral_norm_encloses_the_2x2_closed_form(entries):
    """‖A‖₂² = (s + √(s² − 4 det²))/2 with s = ‖A‖_F², evaluated independently in high-precision arb."""
    a = np.array(entries).reshape(2, 2)
    with ball.at_bits(128):
        enc = ball.spectral_norm(a)
        q = [arb(ball.exact(x)) for x in entries]
        s = sum(x * x for x in q)
        det = q[0] * q[3] - q[1] * q[2]
        closed = ((s + (s * s - 4 * det * det).sqrt()) / 2).sqrt() if s != 0 else arb(0)
    assert enc.overlaps(closed)
    assert enc.rad() < 1e-20 * (1 + abs(float(enc.mid())))


def test_eigvalsh_repeated_and_refusals():
    with ball.at_bits(128):
        vals = ball.eigvalsh([[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, -1.0]])
        assert sorted(float(v.mid()) for v in vals) == [-1.0, 2.0, 2.0]
        assert all(v.contains(2) or v.contains(-1) for v in vals)
        with pytest.raises(ValueError, match="symmetric"):
            ball.eigvalsh([[1.0, 2.0], [0.0, 1.0]])
        with pytest.raises(ValueError, match="square"):
            ball.eigvalsh([[1.0, 2.0]])


def test_eigvalsh_separates_eigenvalues_no_float_can():
    """diag(1, 1 + 2⁻⁶⁰) (exact rationals; 1 + 2⁻⁶⁰ is no float64): two disjoint enclosures, each holding
    its eigenvalue, or a refusal — never one ball claiming both."""
    s = fmpq_mat(2, 2, [1, 0, 0, 1 + fmpq(1, 2**60)])
    for bits in (64, 256):
        with ball.at_bits(bits):
            try:
                vals = ball.eigvalsh(s)
            except UndecidableError:
                continue
            top = arb(1) + arb(2) ** -60
            assert sorted(v.contains(1) for v in vals) == [False, True]
            assert any(v.contains(top) and not v.contains(1) for v in vals)


def test_softmax_far_past_float64_overflow():
    """softmax(0, 800) = (e⁻⁸⁰⁰, 1)/(1 + e⁻⁸⁰⁰): the small entry is resolved, not flushed to 0."""
    with ball.at_bits(128):
        p = ball.softmax([0.0, 800.0])
        small = arb(-800).exp() / (1 + arb(-800).exp())
        assert p[0, 0].overlaps(small) and p[0, 0] > 0 and p[0, 0] < arb("1e-340")
        assert p[1, 0] > arb("0.999999")


def test_norms():
    with ball.at_bits(64):
        assert ball.norm2([3.0, 4.0]).contains(5)
        assert ball.norm_inf([-3.0, 2.0]).contains(3) and not ball.norm_inf([-3.0, 2.0]).contains(2)
        assert ball.frobenius([[1.0, 2.0], [2.0, 4.0]]).contains(5)
        assert ball.quadratic_form([1.0, -1.0], [[2.0, 1.0], [1.0, 2.0]]).contains(2)
        assert ball.entrywise([[1.0, 2.0]], [[3.0, 4.0]])[0, 1].contains(8)
    with pytest.raises(ValueError, match="shape"):
        ball.entrywise([[1.0, 2.0]], [[1.0]])


@pytest.mark.parametrize(("matrix", "pd", "psd"), [
    ([[2.0, 1.0], [1.0, 2.0]], True, True),
    ([[1.0, 1.0], [1.0, 1.0]], False, True),
    ([[0.0, 0.0], [0.0, 0.0]], False, True),
    ([[0.0, 1.0], [1.0, 0.0]], False, False),
    ([[1.0, 0.0], [0.0, -2.0 ** -1000]], False, False),
])
def test_exact_definiteness(matrix, pd, psd):
    assert ball.positive_definite_exact(matrix) is pd
    assert ball.positive_semidefinite_exact(matrix) is psd


def test_exact_definiteness_of_a_rational_matrix_no_float_can_decide():
    """[[1, 1], [1, 1 + 2⁻²⁰⁰]] is PD (det = 2⁻²⁰⁰) though its float64 Cholesky sees a zero pivot."""
    tiny = fmpq(1, 2**200)
    s = fmpq_mat(2, 2, [1, 1, 1, 1 + tiny])
    assert ball.positive_definite_exact(s) is True
    assert ball.positive_definite_exact(fmpq_mat(2, 2, [1, 1, 1, 1 - tiny])) is False


def test_recorded_balls_round_trip():
    with ball.at_bits(128):
        x = arb(2).sqrt()
        again = ball.ball(ball.midpoint_fraction(x), ball.radius_fraction(x))
    assert again.contains(x)


def test_norms_enclosing_zero_are_balls_not_nan():
    """A difference known only to ±2⁻¹⁰⁰ has norm in [0, 2⁻¹⁰⁰·√n]: a ball around 0, never NaN."""
    tiny = arb(0, arb(2) ** -100)
    with ball.at_bits(128):
        for norm in (ball.frobenius(arb_mat([[tiny, tiny]])), ball.norm2(arb_mat([[tiny], [tiny]])),
                     ball.spectral_norm(arb_mat([[tiny, 0], [0, tiny]]))):
            assert norm.is_finite() and norm.contains(0) and norm < arb(2) ** -98


@given(st.lists(st.tuples(SMALL, st.floats(min_value=0.0, max_value=10.0)), min_size=1, max_size=6))
@settings(max_examples=50, deadline=None)
def test_least_and_greatest_enclose_every_possible_extreme(pairs):
    """ball.least / ball.greatest enclose min / max of any reals drawn from the balls: here the extreme
    choices (every ball at its lower end, every ball at its upper end) and the midpoints."""
    balls = [arb(m, r) for m, r in pairs]
    low, high = ball.least(balls), ball.greatest(balls)
    for pick in (lambda b: b.lower(), lambda b: b.upper(), lambda b: b.mid()):
        values = [pick(b) for b in balls]
        assert low.contains(min(values, key=lambda v: v.mid())), f"{low} must contain the least of {values}"
        assert high.contains(max(values, key=lambda v: v.mid())), f"{high} must contain the greatest of {values}"


def test_least_eigenvalue_of_a_closed_form():
    """[[2, 1], [1, 2]] has eigenvalues 1 and 3."""
    low = ball.least_eigenvalue(fmpq_mat([[2, 1], [1, 2]]))
    assert low.contains(1) and not low.contains(3), f"λ_min enclosure {low} must hold 1 only"
    with pytest.raises(ValueError, match="must not be empty"):
        ball.least([])


def test_diag_kron_entries_frobenius_squared_exactly():
    P, Q = fmpq_mat([[1, 2], [3, 4]]), fmpq_mat([[0, fmpq(1, 3)], [5, -1]])
    K = ball.kron(P, Q)
    want = np.kron(np.array([[1, 2], [3, 4]], dtype=object), np.array([[0, Fraction(1, 3)], [5, -1]], dtype=object))
    assert [[ball.to_fraction(K[i, j]) for j in range(4)] for i in range(4)] == want.tolist()
    assert ball.entries(P) == [1, 2, 3, 4]
    assert ball.frobenius_squared(Q) == fmpq(1, 9) + 25 + 1
    D = ball.diag([arb(2), fmpq(1, 2), 3.0])
    assert [D[i, j] == (arb([2, 0.5, 3][i]) if i == j else 0) for i in range(3) for j in range(3)] == [True] * 9
