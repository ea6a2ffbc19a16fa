"""Self-consistency tests of ``solvers.softmax_regression`` (spec ``spec/softmax_regression.md``).

The closed-form gradient and Hessian are compared with JAX autodiff of an independently written
loss; the oracle comparison (mpmath) lives elsewhere.  Claim ids carry the prefix
``softmax_regression.``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from solvers import softmax_regression as sr
from solvers.softmax_regression import approximate as approx
from solvers.softmax_regression import objective, split

jax.config.update("jax_enable_x64", True)


def _instance(n, d, *, seed, w_scale=1.0, x_scale=1.0, peaked=False):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, d)) / np.sqrt(d)
    if peaked:
        b = np.zeros(n)
        b[rng.choice(n, size=min(3, n), replace=False)] = [0.5, 0.3, 0.1][: min(3, n)]
    else:
        b = rng.dirichlet(np.ones(n)) * rng.uniform(0.2, 1.0)
    w = w_scale * rng.uniform(0.5, 2.0, size=n)
    x = x_scale * rng.standard_normal(d)
    return A, b, w, x


def _autodiff_loss(A, b, w):
    """L(x) written independently of the solver (jax.nn.softmax, no shared helpers)."""
    A, b, w = (jnp.asarray(t, dtype=jnp.float64) for t in (A, b, w))

    def L(x):
        u = A @ x
        return 0.5 * jnp.sum((jax.nn.softmax(u) - b) ** 2) + 0.5 * jnp.sum((w * u) ** 2)

    return L


SHAPES = [(7, 3), (30, 5)]


@pytest.mark.parametrize("n,d", SHAPES)
@pytest.mark.parametrize("seed", [0, 1])
def test_loss_matches_definition(n, d, seed):
    """def.L: L(x) = 0.5‖softmax(Ax) − b‖² + 0.5‖diag(w)Ax‖²."""
    A, b, w, x = _instance(n, d, seed=seed)
    got = float(sr.loss(A, b, w, x))
    u = A @ x
    f = np.exp(u - u.max()) / np.exp(u - u.max()).sum()
    want = 0.5 * np.sum((f - b) ** 2) + 0.5 * np.sum((w * u) ** 2)
    assert abs(got - want) <= 1e-13 * max(1.0, abs(want)), \
        f"loss={got!r}, but should be {want!r} [loss(A, b, w, x), n={n}, d={d}, seed={seed}]"


@pytest.mark.parametrize("n,d", SHAPES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradient_matches_autodiff(n, d, seed):
    """def.g, def.grad_L: closed-form gradient equals jax.grad of L."""
    A, b, w, x = _instance(n, d, seed=seed, x_scale=2.0, peaked=seed == 2)
    got = np.asarray(sr.gradient(A, b, w, x))
    want = np.asarray(jax.grad(_autodiff_loss(A, b, w))(jnp.asarray(x)))
    err = np.max(np.abs(got - want))
    assert got.shape == (d,), f"gradient shape={got.shape}, but should be ({d},)"
    assert err <= 1e-12 * max(1.0, np.max(np.abs(want))), \
        f"max|gradient − jax.grad|={err:.3e} too large [n={n}, d={d}, seed={seed}]"


@pytest.mark.parametrize("n,d", SHAPES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hessian_matches_autodiff(n, d, seed):
    """def.B, def.hessian_L: Aᵀ(B + W²)A (built from B_diag + rank 2) equals jax.hessian of L."""
    A, b, w, x = _instance(n, d, seed=seed, x_scale=2.0, peaked=seed == 2)
    got = np.asarray(sr.hessian(A, b, w, x))
    want = np.asarray(jax.hessian(_autodiff_loss(A, b, w))(jnp.asarray(x)))
    err = np.max(np.abs(got - want))
    assert got.shape == (d, d), f"hessian shape={got.shape}, but should be ({d}, {d})"
    assert err <= 1e-12 * max(1.0, np.max(np.abs(want))), \
        f"max|hessian − jax.hessian|={err:.3e} too large [n={n}, d={d}, seed={seed}]"
    assert np.array_equal(got, got.T), f"hessian not exactly symmetric [n={n}, d={d}, seed={seed}]"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hessian_kernel_B(seed):
    """def.B and prop.B_shift: Aᵀ(B + W²)A = hessian and B 1_n = 0."""
    A, b, w, x = _instance(7, 3, seed=seed, x_scale=3.0, peaked=seed == 2)
    B = np.asarray(sr.hessian_kernel_B(A, b, x))
    H = np.asarray(sr.hessian(A, b, w, x))
    err = np.max(np.abs(A.T @ (B + np.diag(w * w)) @ A - H))
    assert err <= 1e-12 * max(1.0, np.max(np.abs(H))), \
        f"max|Aᵀ(B+W²)A − hessian|={err:.3e} [seed={seed}]"
    shift = np.max(np.abs(B @ np.ones(7)))
    assert shift <= 1e-15, f"max|B 1_n|={shift:.3e}, but should be 0 [prop.B_shift, seed={seed}]"


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_finite_for_large_logits(sign):
    """def.f: stable softmax; loss, gradient, Hessian finite for ‖Ax‖∞ = 500."""
    A, b, w, x = _instance(30, 5, seed=3)
    u = A @ x
    x = sign * x * 500.0 / np.max(np.abs(u))
    assert abs(np.max(np.abs(A @ x)) - 500.0) < 1e-9, "test setup: ‖Ax‖∞ should be 500"
    L = float(sr.loss(A, b, w, x))
    g = np.asarray(sr.gradient(A, b, w, x))
    H = np.asarray(sr.hessian(A, b, w, x))
    assert np.isfinite(L), f"loss={L} not finite at ‖Ax‖∞=500"
    assert np.all(np.isfinite(g)), f"gradient={g} not finite at ‖Ax‖∞=500"
    assert np.all(np.isfinite(H)), "hessian not finite at ‖Ax‖∞=500"
    want = np.asarray(jax.grad(_autodiff_loss(A, b, w))(jnp.asarray(x)))
    assert np.allclose(g, want, rtol=1e-10, atol=1e-10 * np.max(np.abs(want))), \
        f"gradient={g} differs from jax.grad={want} at ‖Ax‖∞=500"


def _theory_instance(n, d, seed):
    """§3.4: A with σ_min known, w_i² = 4 + l/σ_min² (lem6.3.part1, so ∇²L ⪰ l I)."""
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.standard_normal((n, d)))
    V, _ = np.linalg.qr(rng.standard_normal((d, d)))
    s = np.linspace(1.0, 0.2, d)
    A = (U * s) @ V.T
    b = rng.dirichlet(np.ones(n) * 0.1)
    l = 1.0
    w = np.full(n, np.sqrt(4.0 + l / s[-1] ** 2))
    return A, b, w


@pytest.mark.parametrize("seed", [0, 2, 4])
def test_exact_newton_quadratic_convergence(seed):
    """alg.exact_newton: near x* the plain Newton errors satisfy e_{k+1} ≤ C e_k².

    Weak regularisation (w = 0.1, n = 10) so that the softmax curvature matters and the
    quadratic phase spans several iterations; x* from a tight safeguarded solve.
    """
    rng = np.random.default_rng(seed)
    n, d = 10, 3
    A = rng.standard_normal((n, d))
    b = np.zeros(n)
    b[:3] = [0.5, 0.3, 0.1]
    w = np.full(n, 0.1)
    ref = sr.exact_newton(A, b, w, tol=1e-15, max_iter=80)
    xstar = ref.x
    assert ref.grad_norm_history[-1] <= 1e-14, \
        f"reference solve ‖∇L‖={ref.grad_norm_history[-1]:.3e} should be ≤ 1e-14 [seed={seed}]"
    direction = rng.standard_normal(d)
    x0 = xstar + 0.3 * direction / np.linalg.norm(direction)
    errors = []

    def record(x):  # called on x0, then after every update
        errors.append(np.linalg.norm(x - xstar))
        return False

    res = sr.exact_newton(A, b, w, x0=x0, tol=0.0, max_iter=6, safeguard=False, callback=record)
    assert res.iterations == 6, f"iterations={res.iterations}, should run 6 plain Newton steps"
    assert errors[-1] <= 1e-12, f"final error={errors[-1]:.3e}, should be ≤ 1e-12; errors={errors}"
    ratios = [e1 / e0 ** 2 for e0, e1 in zip(errors, errors[1:]) if e0 > 1e-7]
    assert len(ratios) >= 3, f"need ≥ 3 ratios in the quadratic regime, errors={errors}"
    assert max(ratios) <= 10.0, \
        f"e_(k+1)/e_k² = {ratios}, should be bounded (≤ 10) for quadratic convergence [seed={seed}]"


@pytest.mark.parametrize("exponent", [330, -330])
def test_exact_newton_is_invariant_under_scaling_A(exponent):
    """L depends on x through Ax only, so x*(sA) = x*(A)/s: exact Newton from x0 = 0 at A·2^±330 (≈ 1e±99; s a
    power of two, so sA is exact) returns x̂(A)/s to 1e-13 relatively (κ(∇²L(x*)) = 4, w² ≈ 4: the validator's
    magnitude corner), with its gradient near 1e±99 and its Hessian near 1e±198."""
    A = np.sin(1.0 + 0.37 * np.outer(np.arange(1, 4), np.arange(1, 3))) + 2.0 * np.eye(3, 2)
    b, w = np.array([0.2, 0.3, 0.5]), np.full(3, np.nextafter(2.0, 3.0))
    scale = 2.0**exponent
    x_unit = sr.exact_newton(A, b, w, tol=0.0, max_iter=60).x
    x_scaled = sr.exact_newton(A * scale, b, w, tol=0.0, max_iter=60).x
    assert np.linalg.norm(x_scaled * scale - x_unit) <= 1e-13 * np.linalg.norm(x_unit), (
        f"x̂(2^{exponent}·A)·2^{exponent} = {x_scaled * scale} ≠ x̂(A) = {x_unit}")


def test_exact_newton_weak_regularisation_safeguard():
    """Outside the theory (w_i = 0.01, peaked b, ‖A‖ large): the safeguard still converges."""
    A, b, _, _ = _instance(300, 5, seed=7, peaked=True)
    A = 8.0 * A
    w = np.full(300, 0.01)
    res = sr.exact_newton(A, b, w, tol=1e-10, max_iter=200)
    assert res.converged, f"not converged: ‖∇L‖ history tail={res.grad_norm_history[-3:]}"
    L_hist = float(sr.loss(A, b, w, res.x))
    L0 = float(sr.loss(A, b, w, np.zeros(5)))
    assert L_hist < L0, f"loss at solution={L_hist} should be < loss at 0={L0}"
    lam = np.linalg.eigvalsh(np.asarray(sr.hessian(A, b, w, res.x)))[0]
    assert lam > -1e-10, f"λ_min(∇²L(x))={lam:.3e} at the returned point: not a local minimum"


def test_approximate_newton_converges_and_samples():
    """alg.newton: the sampled Hessian (sample < n) still converges to x*."""
    A, b, w = _theory_instance(n=4000, d=3, seed=1)
    xstar = sr.exact_newton(A, b, w, tol=1e-14).x
    res = sr.approximate_newton(A, b, w, key=11, eps0=0.9, delta=0.1, tol=1e-12, max_iter=60)
    err = np.linalg.norm(res.x - xstar)
    assert res.converged, f"not converged: ‖∇L‖ history={res.grad_norm_history}"
    assert err <= 1e-9, f"‖x − x*‖={err:.3e}, should be ≤ 1e-9"
    assert res.sample_sizes.size == res.iterations, \
        f"sample_sizes has {res.sample_sizes.size} entries for {res.iterations} iterations"
    assert np.all(res.sample_sizes < 4000), \
        f"sample_sizes={res.sample_sizes}: with eps0=0.9 rows should be dropped (n=4000)"
    bound = sr.sample_size(3, eps0=0.9, delta=0.1 / 60) * 3
    assert np.all(res.sample_sizes <= 2 * bound), \
        f"sample_sizes={res.sample_sizes} exceed 2·s·d={2 * bound:.0f}"


def test_approximate_newton_paper_eps0_equals_exact():
    """With ε0 = 0.01 and small n every p_i = 1: H̃ = H, so approximate = exact Newton."""
    A, b, w = _theory_instance(n=300, d=5, seed=2)
    ex = sr.exact_newton(A, b, w)
    ap = sr.approximate_newton(A, b, w, key=0)
    assert np.all(ap.sample_sizes == 300), f"sample_sizes={ap.sample_sizes}, should all be n=300"
    assert np.allclose(ap.x, ex.x, rtol=0, atol=1e-12), \
        f"approximate x={ap.x} differs from exact x={ex.x}"


def test_approximate_newton_weak_regularisation():
    """Outside the theory (some D_i ≤ 0): all rows kept, safeguarded steps converge."""
    A, b, _, _ = _instance(300, 5, seed=8, peaked=True)
    A = 8.0 * A
    w = np.geomspace(0.01, 1.0, 300)
    res = sr.approximate_newton(A, b, w, key=3, tol=1e-10, max_iter=200)
    assert res.converged, f"not converged: ‖∇L‖ history tail={res.grad_norm_history[-3:]}"


def test_approximate_newton_reproducible():
    """Same seed (or same key) ⇒ identical iterates and samples; another seed ⇒ other samples."""
    A, b, w = _theory_instance(n=4000, d=3, seed=4)
    kw = dict(eps0=0.9, delta=0.1, tol=0.0, max_iter=3)
    r1 = sr.approximate_newton(A, b, w, key=42, **kw)
    r2 = sr.approximate_newton(A, b, w, key=42, **kw)
    r3 = sr.approximate_newton(A, b, w, key=jax.random.PRNGKey(42), **kw)
    r4 = sr.approximate_newton(A, b, w, key=43, **kw)
    assert np.array_equal(r1.x, r2.x), f"key=42 twice gave x={r1.x} and {r2.x}"
    assert np.array_equal(r1.sample_sizes, r2.sample_sizes), "key=42 twice gave different samples"
    assert np.array_equal(r1.x, r3.x), "key=42 and key=PRNGKey(42) should give the same run"
    assert not np.array_equal(r1.sample_sizes, r4.sample_sizes), \
        f"seeds 42 and 43 gave identical sample sizes {r1.sample_sizes} (expected different)"


def test_approximate_newton_sketch_leverage_converges_and_reproducible():
    """leverage="sketch": sampled Hessian from sketched leverage scores still reaches x*,
    drops rows, and the same seed gives the identical run."""
    A, b, w = _theory_instance(n=4000, d=3, seed=1)
    xstar = sr.exact_newton(A, b, w, tol=1e-14).x
    kw = dict(eps0=0.9, delta=0.1, tol=1e-12, max_iter=60, leverage="sketch")
    r1 = sr.approximate_newton(A, b, w, key=11, **kw)
    r2 = sr.approximate_newton(A, b, w, key=11, **kw)
    err = np.linalg.norm(r1.x - xstar)
    assert r1.converged, f"not converged: ‖∇L‖ history={r1.grad_norm_history}"
    assert err <= 1e-9, f"‖x − x*‖={err:.3e}, should be ≤ 1e-9"
    assert np.all(r1.sample_sizes < 4000), \
        f"sample_sizes={r1.sample_sizes}: with eps0=0.9 rows should be dropped (n=4000)"
    assert np.array_equal(r1.x, r2.x) and np.array_equal(r1.sample_sizes, r2.sample_sizes), \
        "seed=11 twice gave different runs with leverage='sketch'"


def test_approximate_newton_sketch_weak_regularisation():
    """leverage="sketch" outside the theory (some D_i ≤ 0): those rows kept exactly, others
    sampled; safeguarded steps still converge to the exact-Newton minimiser."""
    A, b, _, _ = _instance(3000, 5, seed=8, peaked=True)
    A = 8.0 * A
    w = np.geomspace(0.01, 1.0, 3000)
    ex = sr.exact_newton(A, b, w, tol=1e-13, max_iter=200)
    res = sr.approximate_newton(A, b, w, key=3, eps0=0.5, tol=1e-12, max_iter=300,
                                leverage="sketch")
    assert res.converged, f"not converged: ‖∇L‖ history tail={res.grad_norm_history[-3:]}"
    assert np.linalg.norm(res.x - ex.x) <= 1e-8, f"x={res.x} vs exact-Newton x*={ex.x}"


def test_sketched_leverage_within_factor_two():
    """The sketched estimate τ̃(WA) (CountSketch + JL, before the safety factor) is within a
    factor 2 of the exact leverage scores on a small instance (seeded)."""
    A, _, w, _ = _instance(512, 6, seed=5)
    w2 = jnp.asarray(w * w)
    A = jnp.asarray(A)
    exact, ok = approx.reference_leverage(A, w2)
    assert bool(ok)
    est, ok2 = approx.sketched_leverage_raw(A, w2, jax.random.PRNGKey(0), m=8 * 6, k=256)
    assert bool(ok2)
    ratio = np.asarray(est) / np.asarray(exact)
    assert 0.5 <= ratio.min() and ratio.max() <= 2.0, \
        f"τ̃/τ ∈ [{ratio.min():.3f}, {ratio.max():.3f}], should be within [0.5, 2]"
    scaled, _ = approx.sketched_leverage(A, w2, jax.random.PRNGKey(0))
    assert np.all(np.asarray(scaled) <= 1.0), "scaled τ̂ must be capped at 1"


def test_approximate_newton_leverage_option_validated():
    A, b, w = _theory_instance(n=50, d=3, seed=1)
    with pytest.raises(ValueError, match="leverage"):
        sr.approximate_newton(A, b, w, key=0, leverage="fast")


# ------------------------------------------------------------------------ split-Hessian Newton

@pytest.mark.parametrize("n,shift_row", [(7, 3), (2048, 2047), (5000, 4321)])
def test_one_pass_state_matches_two_pass_formulas(n, shift_row):
    """The one-pass kernel (online softmax over row blocks; n = 5000 has a remainder block and
    its largest logit in a late block, so the running maximum is rescaled) gives the same L,
    ∇L, Aᵀf, Aᵀv, κ₁ and E = B_diag as the two-pass closed forms, to rounding."""
    A, b, w, x = _instance(n, 4, seed=3, peaked=True)
    A[shift_row] = 40.0 * x / np.linalg.norm(x) ** 2  # logit 40 at a late row
    w2 = w * w
    u, L, g, gn, af, av, kappa1, E = split.one_pass_state(*(jnp.asarray(t) for t in (A, b, w2, x)))
    bdiag, f, v, k1 = objective.kernel_parts(jnp.asarray(A @ x), jnp.asarray(b))
    scale = 1.0 + np.abs(A).sum(axis=0).max()
    checks = {
        "u": (u, A @ x),
        "L": (L, sr.loss(A, b, w, x)),
        "grad": (g, sr.gradient(A, b, w, x)),
        "A^T f": (af, np.asarray(f) @ A),
        "A^T v": (av, np.asarray(v) @ A),
        "kappa1": (kappa1, k1),
        "E": (E, bdiag),
    }
    for name, (got, want) in checks.items():
        err = np.max(np.abs(np.asarray(got) - np.asarray(want)))
        assert err <= 1e-13 * scale, f"{name}: one-pass vs two-pass differ by {err:.3e} (n={n})"
    assert float(gn) == pytest.approx(float(np.linalg.norm(np.asarray(g))), rel=1e-15)


@pytest.mark.parametrize("gram_dtype", ["float64", "float32"])
def test_split_newton_theory_instance(gram_dtype):
    """Inside the theory (∇²L ⪰ l I): split Newton reaches the exact-Newton minimiser."""
    A, b, w = _theory_instance(n=3000, d=4, seed=6)
    ex = sr.exact_newton(A, b, w, tol=1e-14)
    res = sr.split_newton(A, b, w, key=0, tol=1e-13, gram_dtype=gram_dtype)
    assert res.converged, f"not converged: ‖∇L‖ history={res.grad_norm_history}"
    assert np.linalg.norm(res.x - ex.x) <= 1e-10, f"x={res.x} vs exact-Newton x*={ex.x}"
    assert res.iterations <= ex.iterations + 3, \
        f"{res.iterations} iterations vs exact Newton's {ex.iterations}: Hessian model too poor"


@pytest.mark.parametrize("gram_dtype", ["float64", "float32"])
def test_split_newton_weak_regularisation_samples(gram_dtype):
    """Outside the theory (peaked b, weak w, indefinite ∇²L on the way): the E part is
    sampled (fewer rows than n) and the safeguarded iteration still reaches the minimiser
    exact Newton finds from the same start."""
    A, b, _, _ = _instance(3000, 5, seed=8, peaked=True)
    A = 8.0 * A
    w = np.geomspace(0.01, 1.0, 3000)
    ex = sr.exact_newton(A, b, w, tol=1e-13, max_iter=200)
    res = sr.split_newton(A, b, w, key=3, samples=40, tol=1e-12, max_iter=300,
                          gram_dtype=gram_dtype)
    assert res.converged, f"not converged: ‖∇L‖ history tail={res.grad_norm_history[-3:]}"
    assert np.linalg.norm(res.x - ex.x) <= 1e-8, f"x={res.x} vs exact-Newton x*={ex.x}"
    assert res.sample_sizes.size == res.iterations
    assert np.all(res.sample_sizes < 3000), f"sample_sizes={res.sample_sizes}: nothing was sampled"


def test_split_newton_reproducible():
    """Same seed ⇒ identical run; another seed ⇒ other samples (sampling active: n > samples)."""
    A, b, _, _ = _instance(3000, 5, seed=9)
    w = np.geomspace(0.01, 1.0, 3000)
    kw = dict(samples=40, tol=0.0, max_iter=4, x0=np.full(5, 0.5))
    r1 = sr.split_newton(A, b, w, key=5, **kw)
    r2 = sr.split_newton(A, b, w, key=5, **kw)
    r3 = sr.split_newton(A, b, w, key=6, **kw)
    assert np.array_equal(r1.x, r2.x) and np.array_equal(r1.sample_sizes, r2.sample_sizes), \
        "seed=5 twice gave different runs"
    assert not np.array_equal(r1.x, r3.x), "seeds 5 and 6 gave identical iterates"


@pytest.mark.parametrize("kwargs,name,rule", [
    (dict(key=-1), "key", "int seed"),
    (dict(key=1.5), "key", "int seed"),
    (dict(key=0, samples=0), "samples", "must be >= 1"),
    (dict(key=0, gram_dtype="float16"), "gram_dtype", "float64"),
])
def test_split_newton_options_validated(kwargs, name, rule):
    g = _good()
    with pytest.raises(ValueError) as info:
        sr.split_newton(g["A"], g["b"], g["w"], **kwargs)
    msg = str(info.value)
    assert msg.startswith(name) and rule in msg, f"message {msg!r} should name {name!r} and {rule!r}"


def test_split_newton_requires_key():
    """The key is a required keyword (randomised code takes an explicit key or seed)."""
    g = _good()
    with pytest.raises(TypeError, match="key"):
        sr.split_newton(g["A"], g["b"], g["w"])


@pytest.mark.parametrize("gram_dtype", ["float64", "float32"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_split_newton_nonfinite_A(gram_dtype, bad):
    """split_newton checks A's finiteness in its set-up pass, not separately: still a
    ValueError naming A and the rule."""
    g = _good()
    A = g["A"].copy()
    A[4, 1] = bad
    with pytest.raises(ValueError, match=r"^A must be finite"):
        sr.split_newton(A, g["b"], g["w"], key=0, gram_dtype=gram_dtype)


def test_split_newton_float32_overflow_explained():
    """Finite but huge A overflows a float32 Gram: the error says so (not 'not finite')."""
    g = _good()
    A = g["A"] * 1e30
    with pytest.raises(ValueError, match=r"^A \(max \|A_ij\|.*gram_dtype='float32'"):
        sr.split_newton(A, g["b"], g["w"], key=0, gram_dtype="float32")


# ---------------------------------------------------------------------------------- validation

def _good():
    A, b, w, x = _instance(6, 2, seed=0)
    return dict(A=A, b=b, w=w, x=x)


BAD_INPUTS = [
    ("A", lambda g: np.where(np.eye(6, 2) > 0, np.nan, g["A"]), "finite"),
    ("A", lambda g: np.where(np.eye(6, 2) > 0, np.inf, g["A"]), "finite"),
    ("b", lambda g: np.r_[g["b"][:-1], np.nan], "finite"),
    ("w", lambda g: np.r_[g["w"][:-1], -np.inf], "finite"),
    ("x", lambda g: np.array([np.nan, 0.0]), "finite"),
    ("A", lambda g: g["A"][:, 0], "ndim=1 must be 2"),
    ("A", lambda g: np.zeros((0, 2)), "must not be empty"),
    ("A", lambda g: np.zeros((6, 0)), "must not be empty"),
    ("b", lambda g: g["b"][:-1], "shape"),
    ("w", lambda g: np.ones((6, 1)), "ndim=2 must be 1"),
    ("x", lambda g: np.ones(3), "shape"),
    ("A", lambda g: g["A"] + 1j, "real"),
]


@pytest.mark.parametrize("fn", ["loss", "gradient", "hessian"])
@pytest.mark.parametrize("name,make,rule", BAD_INPUTS)
def test_bad_input_raises(fn, name, make, rule):
    """docs/development.md#bad-input: bad input raises ValueError naming the argument and the rule."""
    args = _good()
    args[name] = make(args)
    with pytest.raises(ValueError) as info:
        getattr(sr, fn)(args["A"], args["b"], args["w"], args["x"])
    msg = str(info.value)
    assert msg.startswith(name), f"message {msg!r} should start with the argument name {name!r}"
    assert rule in msg, f"message {msg!r} should state the rule ({rule!r}) [{fn}]"


@pytest.mark.parametrize("solver", ["exact_newton", "approximate_newton", "split_newton"])
@pytest.mark.parametrize("kwargs,name", [
    (dict(tol=-1.0), "tol"),
    (dict(tol=float("nan")), "tol"),
    (dict(max_iter=-1), "max_iter"),
    (dict(max_iter=2.5), "max_iter"),
    (dict(x0=np.ones(5)), "x0"),
    (dict(x0=np.array([np.nan, 1.0])), "x0"),
])
def test_solver_bad_options_raise(solver, kwargs, name):
    """Solver options are validated up front."""
    g = _good()
    extra = dict(key=0) if solver != "exact_newton" else {}
    with pytest.raises(ValueError) as info:
        getattr(sr, solver)(g["A"], g["b"], g["w"], **kwargs, **extra)
    assert name in str(info.value), f"message {str(info.value)!r} should name {name!r}"


@pytest.mark.parametrize("kwargs,name", [
    (dict(key=-1), "key"),
    (dict(key=2**64), "key"),
    (dict(key=True), "key"),
    (dict(key="abc"), "key"),
    (dict(key=0, eps0=0.0), "eps0"),
    (dict(key=0, eps0=1.5), "eps0"),
    (dict(key=0, delta=0.0), "delta"),
])
def test_approximate_newton_randomness_options(kwargs, name):
    """``key``: an int seed in [0, 2**64) or a jax key (the project's one convention); eps0, delta in (0, 1)."""
    g = _good()
    with pytest.raises(ValueError) as info:
        sr.approximate_newton(g["A"], g["b"], g["w"], **kwargs)
    assert name in str(info.value), f"message {str(info.value)!r} should name {name!r}"
