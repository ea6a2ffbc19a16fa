"""Tests of solvers.sketches: FWHT, SRHT, TensorSRHT, OSNAP, CountSketch, Gaussian.

Spec: attention_kernel_regression.md §2 (def.hadamard, def.srht, def.tensorsrht, def.osnap,
def.countsketch). Each apply function is compared with the dense matrix rebuilt here, in numpy,
from the same bits, following the matrix documented in the bits function's docstring.
"""

import jax
import numpy as np
import pytest
import scipy.linalg

from solvers import sketches as sk

# ----------------------------------------------------------------------------- dense rebuilds


def srht_dense(bits):
    n, signs, rows = int(bits["n"]), bits["signs"].astype(float), bits["rows"]
    H = scipy.linalg.hadamard(signs.shape[0])
    return (H[rows] * signs[None, :])[:, :n] / np.sqrt(rows.shape[0])


def tensor_dense(bits):
    d1, d2 = int(bits["d1"]), int(bits["d2"])
    H1 = scipy.linalg.hadamard(bits["signs1"].shape[0]) * bits["signs1"][None, :]
    H2 = scipy.linalg.hadamard(bits["signs2"].shape[0]) * bits["signs2"][None, :]
    m = bits["rows1"].shape[0]
    L, Rr = H1[bits["rows1"]][:, :d1], H2[bits["rows2"]][:, :d2]
    return np.einsum("ka,kb->kab", L, Rr).reshape(m, d1 * d2) / np.sqrt(m)


def osnap_dense(bits):
    m, rows, signs = int(bits["m"]), bits["rows"], bits["signs"].astype(float)
    s, n = rows.shape
    S = np.zeros((m, n))
    np.add.at(S, (rows, np.broadcast_to(np.arange(n), rows.shape)), signs / np.sqrt(s))
    return S


def countsketch_dense(bits):
    m, rows, signs = int(bits["m"]), bits["rows"], bits["signs"].astype(float)
    S = np.zeros((m, rows.shape[0]))
    S[rows, np.arange(rows.shape[0])] = signs
    return S


def gaussian_dense(bits):
    return bits["g"] / np.sqrt(bits["g"].shape[0])


def close(a, b, tol=1e-12):
    a, b = np.asarray(a), np.asarray(b)
    return np.max(np.abs(a - b)) <= tol * max(1.0, np.max(np.abs(b)))


# ----------------------------------------------------------------------------- FWHT


@pytest.mark.parametrize("N", [1, 2, 4, 8, 64, 256])
def test_fwht(N):
    """fwht(X) = H_N X with H_N = scipy.linalg.hadamard(N) (Sylvester, unnormalised)."""
    X = np.random.default_rng(N).standard_normal((N, 3))
    H = scipy.linalg.hadamard(N)
    got = np.asarray(sk.fwht(X))
    assert close(got, H @ X), f"fwht(X) != hadamard({N}) @ X: max err {np.abs(got - H @ X).max():.2e}"
    got1 = np.asarray(sk.fwht(X[:, 0]))
    assert close(got1, H @ X[:, 0]), f"fwht(x) (vector) != hadamard({N}) @ x"


def test_fwht_rejects_non_power_of_two():
    """fwht needs a power-of-two length."""
    with pytest.raises(ValueError, match="power of two"):
        sk.fwht(np.ones(6))


# ----------------------------------------------------------------------------- apply == dense


@pytest.mark.parametrize("n,m", [(1, 1), (5, 3), (13, 40)])
def test_srht_apply(n, m):
    """srht_apply(bits, M) = S M with S = (1/√m) P H D [I; 0] built from the bits (Def C.1)."""
    bits = sk.srht_bits(7 + n, n, m)
    assert bits["signs"].shape == (sk.next_pow2(n),), f"signs shape {bits['signs'].shape} for n={n}"
    assert set(np.unique(bits["signs"])) <= {-1, 1}, "signs must be ±1"
    assert bits["rows"].min() >= 0 and bits["rows"].max() < sk.next_pow2(n), "rows out of [0, n_pad)"
    M = np.random.default_rng(n).standard_normal((n, 4))
    S = srht_dense(bits)
    assert close(sk.srht_apply(bits, M), S @ M), f"srht_apply != dense S @ M (n={n}, m={m})"
    assert close(sk.srht_apply(bits, M[:, 1]), S @ M[:, 1]), f"srht_apply(vector) != S @ v (n={n})"


def test_srht_norm_on_average():
    """E‖Sx‖² = ‖x‖² (def.srht): the mean over 100 draws is within 15% (std ≈ 3.5%)."""
    x = np.random.default_rng(0).standard_normal(37)
    vals = [float(np.sum(np.asarray(sk.srht(x, 16, key=k)) ** 2)) for k in range(100)]
    ratio = np.mean(vals) / np.sum(x**2)
    assert abs(ratio - 1) < 0.15, f"mean ‖Sx‖²/‖x‖² = {ratio:.3f}, expected ≈ 1"


@pytest.mark.parametrize("d1,d2,m", [(3, 5, 6), (1, 7, 2)])
def test_tensor_srht_apply(d1, d2, m):
    """TensorSRHT(x⊗y) = S kron(x, y) (spec kron convention), for vectors and columns."""
    bits = sk.tensor_srht_bits(d1 * 10 + d2, d1, d2, m)
    S = tensor_dense(bits)
    rng = np.random.default_rng(m)
    X, Y = rng.standard_normal((d1, 3)), rng.standard_normal((d2, 3))
    want = np.stack([S @ np.kron(X[:, i], Y[:, i]) for i in range(3)], axis=1)
    assert close(sk.tensor_srht_apply(bits, X, Y), want), f"tensor_srht_apply != S kron(x, y) ({d1},{d2},{m})"
    assert close(sk.tensor_srht_apply(bits, X[:, 0], Y[:, 0]), want[:, 0]), "vector form mismatch"
    V = rng.standard_normal((d1 * d2, 2))
    assert close(sk.tensor_srht_apply_flat(bits, V), S @ V), "tensor_srht_apply_flat != S @ V"
    assert close(sk.tensor_srht_apply_flat(bits, np.kron(X[:, 1], Y[:, 1])), want[:, 1]), (
        "apply_flat(kron(x, y)) != apply(x, y)")


@pytest.mark.parametrize("n,m,s", [(9, 6, 3), (20, 7, 1)])
def test_osnap_apply(n, m, s):
    """osnap_apply = dense S; every column has exactly s nonzeros ±1/√s in distinct blocks."""
    bits = sk.osnap_bits(n + m + s, n, m, s)
    S = osnap_dense(bits)
    M = np.random.default_rng(s).standard_normal((n, 3))
    assert close(sk.osnap_apply(bits, M), S @ M), f"osnap_apply != S @ M (n={n}, m={m}, s={s})"
    nnz = (S != 0).sum(axis=0)
    assert np.all(nnz == s), f"column sparsity {nnz.tolist()} must all equal s={s}"
    assert np.allclose(np.abs(S[S != 0]), 1 / np.sqrt(s)), "nonzeros must be ±1/√s"
    starts = (np.arange(s) * m) // s
    block = np.searchsorted(starts, bits["rows"], side="right") - 1
    assert np.all(block == np.arange(s)[:, None]), "row t of a column must lie in block t"


def test_countsketch_apply():
    """countsketch_apply = dense S with one ±1 per column."""
    bits = sk.countsketch_bits(3, 30, 7)
    S = countsketch_dense(bits)
    M = np.random.default_rng(0).standard_normal((30, 2))
    assert close(sk.countsketch_apply(bits, M), S @ M), "countsketch_apply != S @ M"
    assert np.all((S != 0).sum(axis=0) == 1), "CountSketch must have one nonzero per column"


def test_gaussian_apply():
    """gaussian_apply = (g/√m) M."""
    bits = sk.gaussian_bits(4, 11, 5)
    M = np.random.default_rng(0).standard_normal((11, 2))
    assert close(sk.gaussian_apply(bits, M), gaussian_dense(bits) @ M), "gaussian_apply != g M/√m"


# ----------------------------------------------------------------------------- reproducibility


@pytest.mark.parametrize("name,args", [("srht", (10, 4)), ("osnap", (10, 6, 2)),
                                       ("countsketch", (10, 4)), ("gaussian", (10, 4)),
                                       ("tensor_srht", (3, 5, 4))])
def test_bits_reproducible(name, args):
    """Same key (int seed or jax key) → same bits; another key → different bits."""
    f = getattr(sk, f"{name}_bits")
    a, b = f(5, *args), f(jax.random.key(5), *args)
    c = f(6, *args)
    for k in a:
        assert np.array_equal(a[k], b[k]), f"{name}_bits(5) and (key(5)) differ in {k!r}"
    assert any(not np.array_equal(a[k], c[k]) for k in a), f"{name}_bits(5) == {name}_bits(6)"
    legacy = f(jax.random.PRNGKey(5), *args)
    assert all(np.array_equal(a[k], legacy[k]) for k in a), (
        f"{name}_bits(PRNGKey(5)) must equal {name}_bits(key(5))")


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("call,match", [
    (lambda: sk.srht(np.ones(4), 0, key=0), "m=0 must be >= 1"),
    (lambda: sk.srht(np.array([1.0, np.nan]), 2, key=0), "M must be finite"),
    (lambda: sk.srht(np.ones((0, 2)), 2, key=0), "M must not be empty"),
    (lambda: sk.srht(np.ones((2, 2, 2)), 2, key=0), "M.ndim=3"),
    (lambda: sk.srht_apply(sk.srht_bits(0, 5, 2), np.ones(6)), "M.shape\\[0\\]=6 must equal"),
    (lambda: sk.srht(np.ones(4), 2, key="seed"), "key='seed' must be"),
    (lambda: sk.srht(np.ones(4), 2, key=-1), "int seed in \\[0, 2\\*\\*64\\)"),
    (lambda: sk.osnap(np.ones(4), 2, 3, key=0), "s=3 must be <= m=2"),
    (lambda: sk.countsketch(np.array([np.inf, 1.0]), 2, key=0), "M must be finite"),
    (lambda: sk.gaussian(np.ones(3), 2.5, key=0), "m=2.5 must be an int"),
    (lambda: sk.tensor_srht(np.ones(3), np.ones((3, 2)), 4, key=0), "x.ndim=1 must equal y.ndim=2"),
    (lambda: sk.tensor_srht_apply_flat(sk.tensor_srht_bits(0, 2, 3, 4), np.ones(5)), "d1\\*d2=6"),
])
def test_bad_input(call, match):
    """Bad arguments raise ValueError naming the argument and the rule."""
    with pytest.raises(ValueError, match=match):
        call()
