"""Randomized Cholesky QR least squares (solvers.cholesky_qr): backward stability on the
regime grid, corners, failure reporting, the sparse sketch, and the ``least_squares`` contract.

The stability rules are the mathematics of a backward-stable solver, with constants stated here and
not tied to one BLAS's rounding (u = 2⁻⁵³; instances of :func:`benchmarks.least_squares.make_instance`:
‖A‖₂ = 1, ‖x*‖ = 1, ρ = ‖r*‖/(‖A‖‖x*‖)):

- forward error ``‖x̂ − x*‖/‖x*‖ ≤ C·u·κ·(1 + κρ)`` — the perturbation bound of a backward error of
  ``O(u)`` (Higham, *Accuracy and Stability*, Thm 20.1, with its constants absorbed);
- backward error (the Karlson–Waldén estimate η̃/‖A‖₂ with the construction's exact factors, within
  √2 of the optimum) ``≤ C·u``;

with ``C = 16``.  Householder QR itself (LAPACK ``geqrf``) measures up to 2.4 on the forward and 3.3
on the backward rule on this grid, and this solver up to 3.2 and 4.3: a factor ≥ 3.7 of room, for
rounding that differs between BLAS kernels (checked with ``OPENBLAS_CORETYPE=Haswell`` and
``=Prescott``).
"""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import least_squares as bench
from properties.validate import validate
from solvers import sketches as sk
from solvers.cholesky_qr import bucket_table, cholqr_lstsq, rand_cholesky_qr, sparse_sketch
from solvers.results import Status

U = 2.0**-53
C = 16.0


def _x(res):
    return np.asarray(res.x)


def _errors(inst, x, kappa):
    rho = inst.opt  # ‖A‖₂ = ‖x*‖ = 1
    fwd = np.linalg.norm(x - inst.x) / (U * kappa * (1 + kappa * rho))
    bwd = bench.karlson_walden(inst, x) / U
    return fwd, bwd


@pytest.mark.parametrize("kappa", [1.0, 1e4, 1e8, 1e12])
@pytest.mark.parametrize("residual", [1e-10, 1e-3, 1.0])
@pytest.mark.parametrize("n, d", [(2048, 16), (300, 40)])
def test_cholqr_is_backward_stable(n, d, kappa, residual):
    inst = bench.make_instance(n, d, kappa, residual, seed=2)
    res = cholqr_lstsq(inst.A, inst.b, key=5)
    fwd, bwd = _errors(inst, _x(res), kappa)
    where = f"[n={n}, d={d}, kappa={kappa:g}, residual={residual:g}, {res.iterations}]"
    assert fwd <= C, f"forward error = {fwd:.3g}·u·κ(1 + κρ), should be <= {C:g} {where}"
    assert bwd <= C, f"backward error η̃/‖A‖ = {bwd:.3g}·u, should be <= {C:g}·u {where}"
    assert res.status is Status.CONVERGED, f"CGLS did not meet its stopping rule {where}"
    assert res.route == _route(res.kappa_sketched), res


def _route(kappa_sketched, gram_cond=1e2, solve_cond=2e12):
    return "gram" if kappa_sketched <= gram_cond else "product" if kappa_sketched <= solve_cond else "solve"


@pytest.mark.parametrize("kappa", [1e13, 1e15])
@pytest.mark.parametrize("residual", [1e-10, 1.0])
def test_near_one_over_u_takes_the_solve_route(kappa, residual):
    """Beyond ``solve_cond`` (2e12) the Gram pass solves with ``R_s`` row by row; as κ nears 1/u it
    keeps the backward error of Householder QR (the product route need not: module docstring)."""
    inst = bench.make_instance(2048, 16, kappa, residual, seed=2)
    res = cholqr_lstsq(inst.A, inst.b, key=5)
    assert res.route == "solve", res
    fwd, bwd = _errors(inst, _x(res), kappa)
    assert fwd <= C, f"forward error = {fwd:.3g}·u·κ(1 + κρ), should be <= {C:g} [κ={kappa:g}, {res}]"
    assert bwd <= C, f"backward error η̃/‖A‖ = {bwd:.3g}·u, should be <= {C:g}·u [κ={kappa:g}, {res}]"


@pytest.mark.parametrize("kappa", [1.0, 1e6, 1e12])
def test_square_systems(kappa):
    """n = d: the sketch is the identity (m ≥ n); x* solves Ax = b exactly (ρ = 0)."""
    inst = bench.make_instance(24, 24, kappa, 0.0, seed=1)
    res = cholqr_lstsq(inst.A, inst.b, key=0)
    assert res.sketch == "identity" and res.sketch_rows == 24, res
    fwd, bwd = _errors(inst, _x(res), kappa)
    assert fwd <= C and bwd <= C, f"square κ={kappa:g}: forward {fwd:.3g}, backward {bwd:.3g} (units of the rules)"


def test_one_row_and_one_column():
    one = cholqr_lstsq(np.array([[-3.0]]), np.array([6.0]), key=0)
    assert _x(one).tolist() == [-2.0], one
    rng = np.random.default_rng(0)
    a = rng.standard_normal(1000)
    b = 2.5 * a + 1e-3 * rng.standard_normal(1000)
    res = cholqr_lstsq(a[:, None], b, key=0)
    expect = (a @ b) / (a @ a)
    assert res.sketch == "countsketch" and res.sketch_rows == 4, res
    assert abs(_x(res)[0] - expect) <= 4 * U * abs(expect), (_x(res), expect)


def test_scaling_is_exact_and_overflow_free():
    inst = bench.make_instance(512, 6, 1e3, 1e-3, seed=4)
    x = _x(cholqr_lstsq(inst.A, inst.b, key=0))
    for e in (600, -600):
        xs = _x(cholqr_lstsq(inst.A * 2.0**e, inst.b, key=0))
        np.testing.assert_allclose(xs * 2.0**e, x, rtol=1e-12, err_msg=f"A·2^{e}")
    np.testing.assert_allclose(_x(cholqr_lstsq(inst.A, inst.b * 2.0**700, key=0)), x * 2.0**700, rtol=1e-12)


def test_reports_passes_and_is_reproducible():
    inst = bench.make_instance(4096, 8, 1e8, 1e-3, seed=1)
    r1, r2 = cholqr_lstsq(inst.A, inst.b, key=7), cholqr_lstsq(inst.A, inst.b, key=7)
    assert np.array_equal(_x(r1), _x(r2)), "same key, different x"
    assert r1.sketch == "countsketch" and r1.sketch_rows == 32 and r1.route == "product", r1
    # sketch (also the finiteness check), Gram pass, one per CGLS iteration and per refinement
    assert r1.passes == 2 + sum(r1.iterations) + len(r1.iterations), r1
    assert 1e7 <= r1.kappa_sketched <= 1e9, r1
    # a near-orthogonalising R: each refinement converges in a few passes (SPIR needs tens)
    assert all(k <= 6 for k in r1.iterations), r1


@pytest.mark.parametrize("route, bounds", [("gram", (1e300, 1e300)), ("product", (0.0, 1e300)), ("solve", (0.0, 0.0))])
@pytest.mark.parametrize("kappa", [1e2, 1e4])
def test_every_route_solves_a_moderate_problem(route, bounds, kappa):
    """Each route of the Gram pass, forced by ``gram_cond``/``solve_cond``: the ``"gram"`` route's float32
    ``AᵀA`` (error ``κ²u₃₂``: 6·10⁻⁴ at κ = 10², 6 at 10⁴, where its ``R`` is a poor preconditioner and
    the refinement takes more iterations) still ends at QR's accuracy."""
    inst = bench.make_instance(2048, 16, kappa, 1e-3, seed=6)
    res = cholqr_lstsq(inst.A, inst.b, key=1, gram_cond=bounds[0], solve_cond=bounds[1])
    assert res.route == route, res
    fwd, bwd = _errors(inst, _x(res), kappa)
    assert fwd <= C and bwd <= C, f"{route}: forward {fwd:.3g}, backward {bwd:.3g} {res}"


def test_osnap_sketch():
    inst = bench.make_instance(2048, 16, 1e8, 1.0, seed=3)
    res = cholqr_lstsq(inst.A, inst.b, key=2, sketch="osnap", sparsity=3)
    assert res.passes == 4 + sum(res.iterations) + len(res.iterations), res
    fwd, bwd = _errors(inst, _x(res), 1e8)
    assert fwd <= C and bwd <= C, f"osnap: forward {fwd:.3g}, backward {bwd:.3g}"


@pytest.mark.parametrize("kind, s", [("countsketch", None), ("osnap", 3)])
def test_sparse_sketch_is_the_sketch_of_solvers_sketches(kind, s):
    rng = np.random.default_rng(0)
    n, m = 1000, 37
    A = rng.standard_normal((n, 5))
    bits = sk.sketch_bits(kind, 11, n, m, s=s)
    I, W = bucket_table(kind, bits, n)
    assert I.shape[1] == m and W.shape == I.shape, I.shape
    got = np.asarray(sparse_sketch(A, I, W))
    want = np.asarray(sk.sketch_apply(kind, bits, A))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-13 * np.abs(A).sum(axis=0).max())


def test_r_factor_orthogonalises_an_ill_conditioned_matrix():
    inst = bench.make_instance(4096, 24, 1e12, 0.0, seed=0)
    R, info = rand_cholesky_qr(inst.A, key=3)
    Q = np.linalg.solve(np.asarray(R).T, inst.A.T).T
    sv = np.linalg.svd(Q, compute_uv=False)
    # AR⁻¹ = Q(I + E) with ‖E‖ of the order of u·κ(A) = 1e-4
    assert sv[0] - 1 <= 1e-2 and 1 - sv[-1] <= 1e-2, (sv[0], sv[-1], info)
    assert np.all(np.diag(np.asarray(R)) > 0) and np.allclose(np.tril(np.asarray(R), -1), 0), R


def test_rank_deficient_input_is_reported_not_nan():
    """Rank test on (default): ValueError.  Rank test off (rank_rtol=0): no NaN, and the result's
    status says the refinement failed (CGLS on a singular preconditioned matrix)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((600, 3))
    A = np.c_[a, a[:, :1] * 3.0]  # column 4 = 3·column 1
    b = rng.standard_normal(600)
    with pytest.raises(ValueError, match="A must have full column rank"):
        cholqr_lstsq(A, b, key=0)
    res = cholqr_lstsq(A, b, key=0, rank_rtol=0.0)
    assert np.all(np.isfinite(_x(res))) and res.status is Status.MAX_ITERATIONS, res
    assert res.iterations == (50, 50), res  # every refinement ran to the cap: none met its rule


@pytest.mark.parametrize("kwargs, match", [
    (dict(A=np.ones(3)), r"A\.ndim=1"),
    (dict(A=np.ones((2, 3)), b=np.ones(2)), r"A\.shape=\(2, 3\) must have n >= d"),
    (dict(b=np.ones(7)), r"b\.shape\[0\]=7 must equal A\.shape\[0\]=8"),
    (dict(A=np.full((8, 2), np.nan)), "A must be finite"),
    (dict(b=np.full(8, np.inf)), "b must be finite"),
    (dict(A=np.c_[np.ones(8), np.zeros(8)]), "A must have full column rank"),
    (dict(sketch="srht"), "sketch='srht' must be one of"),
    (dict(oversampling=0.5), r"oversampling=0\.5 must be in \[1\.0"),
    (dict(sparsity=0), "sparsity=0 must be >= 1"),
    (dict(refinements=0), "refinements=0 must be >= 1"),
    (dict(refinements=True), "refinements=True must be an int"),
    (dict(tol=1.5), r"tol=1\.5 must be in"),
    (dict(max_iterations=-1), "max_iterations=-1 must be >= 0"),
    (dict(rank_rtol=float("nan")), "rank_rtol=nan must be in"),
    (dict(gram_cond=-1.0), r"gram_cond=-1\.0 must be a finite number >= 0"),
    (dict(solve_cond=float("nan")), r"solve_cond=nan must be a finite number >= 0"),
    (dict(A=np.r_[np.ones((7, 2)), [[1.0, np.inf]]]), "A must be finite"),
    (dict(A=np.r_[[[np.nan, 1.0]], np.ones((7, 2))]), "A must be finite"),
    (dict(key=-1), "key=-1 must be"),
])
def test_bad_input(kwargs, match):
    rng = np.random.default_rng(0)
    args = dict(A=rng.standard_normal((8, 2)), b=rng.standard_normal(8), key=0)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        cholqr_lstsq(args.pop("A"), args.pop("b"), **args)


def test_passes_the_least_squares_contract(capsys):
    """The validator (``python -m properties validate solvers.adapter._cholesky_qr``): forward error
    within Higham Thm 20.1's bound for ε = 16·max(n,d)·u and exact Waldén–Karlson–Sun backward error
    ≤ ε‖A‖_F against the mpmath oracle, κ up to 1e12, square and 1 × 1 corners (ci profile)."""
    code = validate("solvers.adapter._cholesky_qr", profile="ci", functions=["least_squares"], include_claims=False)
    out = capsys.readouterr().out
    assert code == 0 and "1 passed, 0 failed" in out, out
