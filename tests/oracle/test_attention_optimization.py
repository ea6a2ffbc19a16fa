"""The oracle of paper 003: the numerically differentiated Hessian blocks against the spec's derived
closed forms, the stated terms against their sums, the regulariser, the validated entry, z*."""

import numpy as np
import pytest
from mpmath import mp

from oracle import UndecidableError, derivatives, linalg, to_mp
from oracle import attention_optimization as O
from oracle import attention_optimization_bounds as OB


def _inst(n=3, d=2, seed=1):
    rng = np.random.default_rng(seed)
    A1, A2, A3, B = (rng.standard_normal((n, d)) for _ in range(4))
    X, Y = (rng.standard_normal((d, d)) for _ in range(2))
    A1, A2, A3, B, X, Y = O.instance(A1, A2, A3, B, X, Y)
    return A1, A2, A3, B, linalg.vec(X), O.vec_cols(Y), X


def test_hessian_blocks_match_derived_closed_forms():
    A1, A2, A3, B, x, y, X = _inst()
    n, d = A1.rows, A1.cols
    Hxx, Hxy, Hyy = O.hessian_blocks(A1, A2, A3, B, x, y)
    Txx, Txy = mp.zeros(d * d, d * d), mp.zeros(d * d, d * d)
    for j0 in range(n):
        K, f = O.kron_block(A1, A2, j0), O.f_row(A1, A2, x, j0)
        for i0 in range(d):
            h, c = O.h_col(A3, y, i0), O.c_entry(A1, A2, A3, B, x, y, j0, i0)
            Txx += K.T * O.B_x_true(f, h, c) * K
            Txy[:, i0 * d:(i0 + 1) * d] += K.T * O.B_xy_true(f, h, c) * A3
    S = O.softmax_matrix(A1, A2, X)
    assert linalg.norm2(Hxx - Txx) < 1e-40 * linalg.norm2(Hxx), "H_xx (numerical) ≠ Σ 𝖠ᵀB_true𝖠"
    assert linalg.norm2(Hxy - Txy) < 1e-40 * linalg.norm2(Hxy), "H_xy (numerical) ≠ Σ 𝖠ᵀB_xy,true A3"
    assert linalg.norm2(Hyy - linalg.kron(mp.eye(d), A3.T * S.T * S * A3)) < 1e-40, "H_yy ≠ I ⊗ A3ᵀSᵀSA3"
    # the paper's kernels differ from the true Hessian (lem7.4, lem11.4)
    assert linalg.norm2(O.hessian_xx_paper(A1, A2, A3, B, x, y) - Hxx) > 1e-3
    assert linalg.norm2(O.hessian_xy_paper(A1, A2, A3, B, x, y) - Hxy) > 1e-3



@pytest.mark.parametrize("log10_B", [100, 150, 154])
def test_hessian_blocks_are_resolved_at_a_loss_near_overflow(log10_B):
    """B of 1e100 … 1e154 makes L_half up to ~1e308 while H_yy = I ⊗ A3ᵀSᵀSA3 stays O(1) (L_half is quadratic in
    y): the 50-digit oracle returned H_yy = 0 there (its zero floor was relative to L_half), now every block has
    its 50 digits relative to its own largest entry; the single-block functions agree."""
    A1, A2, A3, _, x, y, X = _inst(n=2, d=1, seed=3)
    B = to_mp(np.array([[10.0 ** log10_B], [-3.0 * 10.0 ** (log10_B - 1)]]))
    with mp.workdps(50):
        Hxx, Hxy, Hyy = O.hessian_blocks(A1, A2, A3, B, x, y)
        S = O.softmax_matrix(A1, A2, X)
        want = A3.T * S.T * S * A3
        assert abs(Hyy[0, 0] - want[0, 0]) < 1e-45 * abs(want[0, 0]), (Hyy, want)
        assert abs(O.hessian_yy(A1, A2, A3, B, x, y)[0, 0] - want[0, 0]) < 1e-45 * abs(want[0, 0])
        assert abs(Hxy[0, 0] - O.hessian_xy(A1, A2, A3, B, x, y)[0, 0]) < 1e-45 * abs(Hxy[0, 0])
        assert abs(Hxx[0, 0] - O.hessian_xx(A1, A2, A3, B, x, y)[0, 0]) < 1e-45 * abs(Hxx[0, 0])



def test_a_small_gradient_entry_beside_a_huge_one_is_resolved_to_the_asked_accuracy():
    """B = [[0, 0], [0, 1e87]]: ∇_Y L_half has the entries 0.0169… and −1.3e86; the 50-digit derivative's zero floor,
    relative to L_half ≈ 5e173, was ~1e-5 (the validator then failed a correct float64 gradient at error/tolerance
    1.6); with an absolute accuracy asked, the small entry has it."""
    z, one = np.zeros((2, 2)), np.array([[0.0, 0.0], [0.0, 0.2601876366239302]])
    A1, A2, A3, B, X, Y = O.instance(z, z, one, np.array([[0.0, 0.0], [0.0, 1e87]]), z, np.array([[0.0, 0.0], [0.5, 0.0]]))
    with mp.workdps(50):
        want = O.grad_y_matrix_form(A1, A2, A3, B, X, Y)
        got = O.gradient_y(A1, A2, A3, B, linalg.vec(X), O.vec_cols(Y), accuracy=mp.mpf(10) ** -30)
        assert abs(got[1] - want[1, 0]) < 1e-30 and abs(want[1, 0] - mp.mpf("0.0169244015629865")) < 1e-15, (got, want)

def test_a_hessian_block_it_cannot_resolve_is_refused(monkeypatch):
    """With the precision allowed no higher than 2T, B = 1e150 (L_half ≈ 5e299, H_yy = 1) cannot be resolved:
    UndecidableError, never a silently wrong block."""
    one = to_mp(np.ones((1, 1)))
    monkeypatch.setattr(derivatives, "MAX_PREC_FACTOR", 2)
    with mp.workdps(50), pytest.raises(UndecidableError, match="not resolved"):
        O.hessian_blocks(one, one, one, to_mp(np.array([[1e150]])), one, one)

@pytest.mark.parametrize("reading", ["a", "b"])
def test_regulariser_hessian_is_the_stated_one(reading):
    A1, A2, A3, B, x, y, _ = _inst()
    w = to_mp(np.array([0.5, 2.0, 3.0]))
    gap = O.hessian_tot(A1, A2, A3, B, w, x, y, reading) - O.hessian_tot(A1, A2, A3, B, None, x, y)
    assert linalg.norm2(gap - O.reg_hessian(A1, A2, A3, w, reading)) < 1e-40


def test_stated_terms_sum_to_the_stated_kernels():
    A1, A2, A3, B, x, y, _ = _inst()
    f, h, c = O.f_row(A1, A2, x, 1), O.h_col(A3, y, 0), O.c_entry(A1, A2, A3, B, x, y, 1, 0)
    n = A1.rows
    assert linalg.norm2(sum(O.G_nine(f, h, c), mp.zeros(n, n)) - O.B_x_paper(f, h, c)) < 1e-45
    assert linalg.norm2(sum(O.G_xy_four(f, h, c), mp.zeros(n, n)) - O.B_xy_paper(f, h, c)) < 1e-45


def test_minimiser_is_stationary_and_bounds_are_positive():
    A1, A2, A3, B, x, y, _ = _inst(n=3, d=1)
    w = to_mp(np.full(3, 2.0))
    xs, ys = O.minimiser(A1, A2, A3, B, w, x, y)
    assert linalg.norm2(O.gradient_tot(A1, A2, A3, B, w, xs, ys)) < 1e-35
    R = OB.h12_radius(A1, A2, A3, B, xs, ys)
    assert R > 0 and OB.C0(R) == 30 * R ** 8 and OB.R0(3, R) > 0
    assert OB.lem12_8_repair(3, 1, mp.mpf(5)) > OB.lem12_8_paper(3, 1, mp.mpf(5)) / 2


@pytest.mark.parametrize("kwargs, needle", [
    (dict(A1=np.ones((3, 2)), A2=np.ones((3, 2)), A3=np.ones((2, 2)), B=np.ones((3, 2))), "A3.shape"),
    (dict(A1=np.ones((3, 2)), A2=np.ones((3, 2)), A3=np.ones((3, 2)), B=np.full((3, 2), np.nan)), "B must be finite"),
    (dict(A1=np.ones((3, 2)), A2=np.ones((3, 2)), A3=np.ones((3, 2)), B=np.ones((3, 2)), X=np.ones((3, 3))), "X.shape"),
    (dict(A1=np.ones((1, 2)), A2=np.ones((1, 2)), A3=np.ones((1, 2)), B=np.ones((1, 2)), need_n_ge_d=True), "d=2"),
])
def test_bad_input_names_the_argument(kwargs, needle):
    with pytest.raises(ValueError, match=needle.replace("(", r"\(")):
        O.instance(**kwargs)


def test_L_half_is_the_sum_of_the_per_row_terms_exactly():
    """L_half's list route performs exactly the operations of Σ ½(⟨f(x)_{j0}, h(y)_{i0}⟩ − B[j0, i0])² built
    from f_row and h_col (Defs 4.10–4.12): equal to the last bit at 15 to 300 digits, with zero entries."""
    rng = np.random.default_rng(5)
    for n, d in ((1, 1), (2, 2), (3, 2), (3, 1)):
        A1, A2, A3, B = (to_mp(rng.uniform(-2, 2, (n, d)) * (rng.uniform(size=(n, d)) < 0.8)) for _ in range(4))
        x, y = (to_mp(rng.uniform(-1, 1, d * d)) for _ in range(2))
        for dps in (15, 50, 300):
            with mp.workdps(dps):
                f = [O.f_row(A1, A2, x, j0) for j0 in range(n)]
                h = [O.h_col(A3, y, i0) for i0 in range(d)]
                terms = mp.fsum((linalg.dot(f[j0], h[i0]) - B[j0, i0]) ** 2 / 2 for j0 in range(n) for i0 in range(d))
                assert O.L_half(A1, A2, A3, B, x, y)._mpf_ == terms._mpf_
