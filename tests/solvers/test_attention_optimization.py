"""solvers.attention_optimization against the oracle at small sizes (float64 vs 50-digit mpmath),
bad input, the implicit TensorSRHT rows, Newton to the oracle's z*, FLOP counts."""

import numpy as np
import pytest

import solvers.attention_optimization as S
from oracle import attention_optimization as O
from oracle import linalg, to_mp
from solvers import sketches
from solvers.newton import Status


def _data(n=4, d=2, seed=2):
    rng = np.random.default_rng(seed)
    A1, A2, A3, B = (rng.standard_normal((n, d)) for _ in range(4))
    X, Y = (rng.standard_normal((d, d)) for _ in range(2))
    return A1, A2, A3, B, X, Y


def _mp(A1, A2, A3, B, X, Y):
    mA1, mA2, mA3, mB, mX, mY = O.instance(A1, A2, A3, B, X, Y)
    return mA1, mA2, mA3, mB, linalg.vec(mX), O.vec_cols(mY)


def _f(M):
    return np.array(M.tolist(), dtype=float)


@pytest.mark.parametrize("n, d", [(1, 1), (3, 1), (4, 2), (2, 3)])
def test_loss_gradients_hessian_match_oracle(n, d):
    data = _data(n, d, seed=n + d)
    A1, A2, A3, B, X, Y = data
    mA1, mA2, mA3, mB, x, y = _mp(*data)
    assert abs(S.loss(*data) - float(O.L_half(mA1, mA2, mA3, mB, x, y))) < 1e-13
    Hxx, Hxy, Hyy = O.hessian_blocks(mA1, mA2, mA3, mB, x, y)
    w = np.linspace(0.5, 2.0, n)
    z = np.concatenate([X.reshape(-1), Y.T.reshape(-1)])
    gt = _f(O.gradient_tot(mA1, mA2, mA3, mB, to_mp(w), x, y))[:, 0]
    np.testing.assert_allclose(np.asarray(S.gradient_tot(A1, A2, A3, B, w, z)), gt, atol=1e-12, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(S.grad_x(*data)).reshape(-1), _f(O.grad_x_matrix_form(
        mA1, mA2, mA3, mB, *O.instance(A1, A2, A3, B, X, Y)[4:]))[:, :].reshape(-1), atol=1e-12)
    for got, want, name in zip(S.hessian_blocks(*data), (Hxx, Hxy, Hyy), ("H_xx", "H_xy", "H_yy")):
        np.testing.assert_allclose(np.asarray(got), _f(want), atol=1e-11, err_msg=name)
    Ht = _f(O.hessian_tot(mA1, mA2, mA3, mB, to_mp(w), x, y))
    np.testing.assert_allclose(np.asarray(S.hessian_tot(A1, A2, A3, B, w, z)), Ht, atol=1e-11)


def test_sketch_rows_are_the_tensor_srht_of_the_kronecker_columns():
    A1, A2, *_ = _data(5, 2)
    bits = sketches.tensor_srht_bits(3, 5, 5, 40)
    got = np.asarray(S.sketch_rows(bits, A1, A2))
    want = np.asarray(sketches.tensor_srht_apply(bits, np.repeat(A1, 2, axis=1), np.tile(A2, (1, 2))))
    np.testing.assert_allclose(got, want, atol=1e-13)


def test_newton_reaches_the_oracle_minimiser():
    A1, A2, A3, B, X, Y = _data(3, 1, seed=5)
    w = np.full(3, 2.0)
    res = S.newton(A1, A2, A3, B, w, np.zeros(2), tol=1e-12)
    mA1, mA2, mA3, mB, x, y = _mp(A1, A2, A3, B, np.zeros((1, 1)), np.zeros((1, 1)))
    xs, ys = O.minimiser(mA1, mA2, mA3, mB, to_mp(w), x, y)
    assert res.converged, res.status
    np.testing.assert_allclose(res.x, [float(xs[0]), float(ys[0])], atol=1e-10)
    sk = S.newton(A1, A2, A3, B, w, np.zeros(2), m=64, key=1, tol=1e-12)
    assert sk.converged and np.allclose(sk.x, res.x, atol=1e-10), (sk.status, sk.x, res.x)


@pytest.mark.parametrize("m", [0, 128 * 4])
def test_block_model_reaches_the_full_newton_minimiser(m):
    """model="block" (H̃ = blockdiag(H_x, I_d ⊗ K), H_x Kronecker-exact or d·M̃) where W dominates: the same z*
    as exact Newton, by the same ‖∇L_tot‖₂ rule, in more (linear-rate) iterations."""
    rng = np.random.default_rng(11)
    n, d = 32, 2
    A1, A2, A3 = (rng.standard_normal((n, d)) / np.sqrt(d) for _ in range(3))
    B = rng.standard_normal((n, d))
    w, z0 = np.full(n, 2.0), np.zeros(2 * d * d)
    full = S.newton(A1, A2, A3, B, w, z0, tol=1e-12)
    res = S.newton(A1, A2, A3, B, w, z0, m=m, key=4, tol=1e-12, max_iter=200, model="block")
    assert full.converged and res.converged, (full.status, res.status)
    assert res.history[-1] <= 1e-12 < res.history[0]
    np.testing.assert_allclose(res.x, full.x, atol=1e-11)
    g = np.asarray(S.gradient_tot(A1, A2, A3, B, w, res.x))
    assert np.linalg.norm(g) <= 1e-12, "the stopping rule is the gradient of the returned iterate itself"


def test_block_model_reports_failure_where_the_regulariser_does_not_dominate():
    rng = np.random.default_rng(5)
    A1, A2, A3, B = (rng.standard_normal((6, 2)) for _ in range(4))
    res = S.newton(A1, A2, A3, B, np.full(6, 0.1), np.zeros(8), tol=1e-12, max_iter=60, model="block")
    assert res.status is Status.MAX_ITERATIONS and res.history[-1] > 1e-6, (res.status, res.history[-1])
    with pytest.raises(ValueError, match="model="):
        S.newton(A1, A2, A3, B, np.full(6, 0.1), np.zeros(8), model="nope")


@pytest.mark.parametrize("args, needle", [
    ((np.ones((3, 2)), np.ones((3, 2)), np.ones((2, 2)), np.ones((3, 2)), np.eye(2), np.eye(2)), "A3.shape"),
    ((np.ones((3, 2)), np.ones((3, 1)), np.ones((3, 2)), np.ones((3, 2)), np.eye(2), np.eye(2)), "A2.shape"),
    ((np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 2)), np.full((3, 2), np.nan), np.eye(2), np.eye(2)),
     "B must be finite"),
    ((np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 2)), np.eye(3), np.eye(2)), "X.shape"),
])
def test_bad_input_names_the_argument(args, needle):
    with pytest.raises(ValueError, match=needle.replace("(", r"\(")):
        S.grad_x(*args)


def test_bad_regulariser_and_size_rules():
    A = np.ones((1, 2))
    with pytest.raises(ValueError, match="d=2 must be <= n=1"):
        S.problem(A, A, A, A, need_n_ge_d=True)
    with pytest.raises(ValueError, match="w must be >= 0"):
        S.newton(*_data(3, 1)[:4], -np.ones(3), np.zeros(2))
    with pytest.raises(ValueError, match="kernel="):
        S.flops("nope", 4, 2)


def test_gradient_flops_scale_like_n_squared():
    counts = [S.flops("grad_x", n, 8) for n in (256, 512, 1024)]
    slope = np.polyfit(np.log([256, 512, 1024]), np.log(counts), 1)[0]
    assert 1.8 < slope < 2.2, f"grad_x FLOPs {counts}: fitted exponent {slope}"
