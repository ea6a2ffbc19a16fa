"""Adapter functions of paper 001 for the validator (``python -m properties validate MODULE``).

u = 2⁻⁵³ (float64 unit roundoff), N = n + d, |A| the entrywise absolute value, a = |A||x| (so a_i
bounds |(Ax)_i| and its rounding error is ≤ d·u·a_i), m = max_i a_i.  The exact side is the
oracle's, from the float64 inputs (held exactly); derivatives by numerical differentiation.  Each
tolerance is c·u times the magnitude of the terms the quantity is computed from (a backward-error
argument), so it neither excuses a wrong formula (errors are then O(1) relative) nor condemns a
correct float64 evaluation.  c = 32·N leaves room for any summation order.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from mpmath import mp

from oracle import linalg, to_float_array, to_mp
from oracle import softmax_regression as S
from oracle.linalg import diag, dot, entrywise

from ..contract import AdapterSet, U, output, within
from ..toolkit import require, to_oracle
from ..toolkit.strategies import (
    PATH_SIZES,
    conditioned_matrices,
    dims,
    fixed_matrix,
    kappa_corner_matrices,
    log10_cond,
    scalars,
    with_corners,
)
from .newton import NewtonProblem
from .strategies import newton_instances, problem_corners, problems, solve_instances

__all__ = ["ADAPTERS"]

ADAPTERS = AdapterSet()


def _magnitudes(A, b, w, x):
    """(|A|, a = |A||x|, m, c = f − b, r = f∘c − ⟨c,f⟩f + w²∘Ax) for the tolerance rules."""
    absA = mp.matrix([[abs(A[i, j]) for j in range(A.cols)] for i in range(A.rows)])
    a = absA * mp.matrix([abs(v) for v in x])
    f = S.f(A, x)
    c = f - b
    r = entrywise(f, c) - f * dot(c, f) + entrywise(entrywise(w, w), A * x)
    return absA, a, max(a), f, c, r


def _gradient_tolerance(A, b, w, x):
    """τ_g = 32N·u·‖|A|ᵀ t‖₂, t_i = 4(1 + m) f_i + w_i² a_i + |r_i| (the softmax_gradient rule)."""
    absA, a, m, f, _, r = _magnitudes(A, b, w, x)
    t = mp.matrix([4 * (1 + m) * f[i] + w[i] ** 2 * a[i] + abs(r[i]) for i in range(A.rows)])
    return 32 * (A.rows + A.cols) * U * linalg.norm2(absA.T * t)


def _problems():
    return with_corners(problems(n_hi=8, d_hi=4, a_hi=1.0, x_hi=1.0), problem_corners(), weight=0.25)


def _scaled_problems():
    """(A·10^e, b, w, x·10^-e), e ∈ [−145, 145]: Ax, f and L unchanged, the Hessian AᵀB(x)A + AᵀW²A scaled by
    10^(2e), its entries from near float64's smallest normal to ~1e300, while L and the softmax stay O(1)."""
    return st.tuples(problems(n_hi=8, d_hi=4, a_hi=1.0, x_hi=1.0), scalars(-145.0, 145.0)).map(
        lambda t: (t[0][0] * 10.0 ** t[1], t[0][1], t[0][2], t[0][3] * 10.0 ** -t[1]))


def _hessian_problems():
    """:func:`_problems`' draws mixed with weight 0.3 with the softmax corners and :func:`_scaled_problems`."""
    return with_corners(problems(n_hi=8, d_hi=4, a_hi=1.0, x_hi=1.0), st.one_of(problem_corners(), _scaled_problems()),
                        weight=0.3)


def _corners():
    """Fixed corners judged after every search: A = [[1]], x = [710] (exp overflows without the max-shift),
    ties at ‖Ax‖∞ = 800, a spread past exp's underflow (‖Ax‖∞ = 10⁴), u = Ax = 0 with b a vertex."""
    e1, half = np.array([1.0]), np.array([0.5, 0.5])
    return [(np.array([[1.0]]), e1, np.zeros(1), np.array([710.0])),
            (np.array([[1.0], [0.0]]), np.array([0.0, 1.0]), np.zeros(2), np.array([710.0])),
            (np.array([[1.0], [1.0]]), half, np.array([0.5, 1.0]), np.array([800.0])),
            (np.array([[1.0], [-0.5]]), half, np.zeros(2), np.array([-1e4])),
            (np.array([[2.0, 1.0], [0.0, 3.0], [1.0, 1.0]]), np.array([0.0, 0.0, 1.0]), np.ones(3), np.array([400.0, 300.0])),
            (np.zeros((2, 2)), np.array([1.0, 0.0]), np.zeros(2), np.zeros(2))]


def _hessian_corners():
    """:func:`_corners` and two scaled ones (:func:`_scaled_problems`): A of entries ~1e-120 and ~1e140 with
    x scaled inversely (Ax, f and L of order 1, the Hessian of order 1e-240 and 1e280)."""
    A = np.array([[2.0, 1.0], [0.0, 3.0], [1.0, -1.0]])
    b, w, x = np.array([0.2, 0.3, 0.5]), np.array([1.0, 0.5, 2.0]), np.array([0.4, -0.1])
    return _corners() + [(A * 1e-120, b, w, x * 1e120), (A * 1e140, b, w, x * 1e-140)]


def _magnitude_corners():
    """Entries above 10 (A ~ 12, x ~ 3: ‖Ax‖∞ ~ 90, exp(90) ~ 1e39), A at 1e150 with x at 1e-150 (Ax of order 1,
    ‖A‖_F² overflowing), w at 1e100 (the regulariser ½‖diag(w)Ax‖² ~ 1e200 dominating L), ‖Ax‖∞ = 700 beside 0."""
    A = fixed_matrix(3, 2)
    b, w, x = np.array([0.2, 0.3, 0.5]), np.array([1.0, 0.5, 2.0]), np.array([0.4, -0.1])
    return [(A + 11.0, b, w, np.array([3.0, 2.5])), (A * 1e150, b, w, x * 1e-150), (A, b, w * 1e100, x),
            (A, b, np.zeros(3), np.array([700.0 / 3, 0.0]))]


def _size_corners():
    """n = 7 … 65 rows (:data:`~properties.toolkit.strategies.PATH_SIZES`), d = 2: every row's softmax entry
    counts, so a blocked softmax or sum that drops a remainder is wrong."""
    return [(fixed_matrix(n, 2), np.full(n, 1.0 / n), np.linspace(0.5, 1.5, n), np.array([0.7, -0.4]))
            for n in PATH_SIZES]


def _targets(inst):
    """‖Ax‖∞, where exp overflows (709) and the max-shift matters."""
    A, _, _, x = inst
    return {"‖Ax‖∞": float(np.abs(A @ x).max())}


def _problem_adapter(name, *, returns, shape, doc, tolerance, strategy=_problems, corners=_corners):
    """Register the adapter ``name(A, b, w, x)`` of a function of L at x (spec def.L: the loss, its gradient
    or Hessian), drawn by :func:`_problems` with the overflow targets and corners.  The decorated
    ``judge(got, A, b, w, x)`` gets the implementation's output (checked by :func:`output`, of shape
    ``shape(d)``) and the instance in mpmath, and runs at 50 digits."""
    def declare(judge):
        def compare(inst, fn):
            A, b, w, x = inst
            got = output(fn(A.copy(), b.copy(), w.copy(), x.copy()), name, shape=shape(A.shape[1]))
            with mp.workdps(50):
                return judge(got, *to_oracle(inst))

        compare.__name__ = compare.__qualname__ = judge.__name__
        return ADAPTERS(name, signature=f"{name}(A: (n, d), b: (n,), w: (n,), x: (d,)) -> {returns}", doc=doc,
                        tolerance=tolerance, strategy=strategy, targets=_targets, corners=corners,
                        magnitude_corners=_magnitude_corners, size_corners=_size_corners)(compare)

    return declare


@_problem_adapter("softmax_loss", returns="float", shape=lambda d: (),
                  doc="L(x) = ½‖softmax(Ax) − b‖₂² + ½‖diag(w)Ax‖₂² (spec def.L)",
                  tolerance="|L̂ − L| ≤ 32(n+d)·u·(½Σ w_i² a_i² + (1 + m)(‖c‖₂ + 1)); the first term bounds the "
                            "rounding of L_reg, the second that of f (exp amplifies the absolute error d·u·a_i of "
                            "(Ax)_i into a relative one) propagated through ½‖c‖²")
def _softmax_loss(got, A, b, w, x):
    got = float(got)
    _, a, m, _, c, _ = _magnitudes(A, b, w, x)
    true = S.L(A, b, w, x)
    tol = 32 * (A.rows + A.cols) * U * (mp.fsum(w[i] ** 2 * a[i] ** 2 for i in range(a.rows)) / 2
                                        + (1 + m) * (linalg.norm2(c) + 1))
    return within(abs(got - true), tol, f"got {got!r}, oracle {mp.nstr(true, 17)}", expected=float(true),
                  symbols=(("n", A.rows), ("d", A.cols), ("m", m), ("‖c‖₂", linalg.norm2(c))))


@_problem_adapter("softmax_gradient", returns="(d,) array", shape=lambda d: (d,),
                  doc="∇L(x), judged against numerical differentiation of L (not the closed form)",
                  tolerance="‖ĝ − ∇L‖₂ ≤ 32(n+d)·u·‖|A|ᵀ t‖₂, t_i = 4(1 + m) f_i + w_i² a_i + |r_i|, r = f∘c − ⟨c,f⟩f + "
                            "w²∘Ax (∇L = Aᵀr): rounding of r's terms (f's relative error (1 + m)·u), then of Aᵀr")
def _softmax_gradient(got, A, b, w, x):
    true = S.true_gradient(A, b, w, x)
    return within(linalg.norm2(to_mp(got) - true), _gradient_tolerance(A, b, w, x), f"got {got.tolist()}",
                  expected=to_float_array(true), symbols=(("n", A.rows), ("d", A.cols), ("m", _magnitudes(A, b, w, x)[2])))


@_problem_adapter("softmax_hessian", returns="(d, d) array", shape=lambda d: (d, d),
                  doc="∇²L(x), judged against numerical differentiation of L_exp plus AᵀW²A", strategy=_hessian_problems,
                  corners=_hessian_corners,
                  tolerance="‖Ĥ − ∇²L‖₂ ≤ 32(n+d)·u·‖|A|ᵀ diag(w² + 8(1 + m)) |A|‖₂ + 32(n+d)²·2⁻¹⁰²²: B(x)'s entries "
                            "are ≤ 8 in magnitude with relative error (1 + m)·u, W² exact; then the products with A, "
                            "each of which may lose 2⁻¹⁰²² absolutely where it underflows (subnormals flushed to zero, "
                            "as XLA's CPU backend does, included)")
def _softmax_hessian(got, A, b, w, x):
    absA, _, m, _, _, _ = _magnitudes(A, b, w, x)
    weights = diag(mp.matrix([w[i] ** 2 + 8 * (1 + m) for i in range(w.rows)]))
    N = A.rows + A.cols
    tol = 32 * N * (U * linalg.spectral_norm(absA.T * weights * absA) + N * mp.ldexp(1, -1022))
    true = S.true_hessian(A, b, w, x, accuracy=mp.ldexp(tol, -20))
    err = linalg.spectral_norm(to_mp(got) - true)
    return within(err, tol, f"‖Ĥ − H‖ = {mp.nstr(err, 5)}", expected=to_float_array(true),
                  symbols=(("n", A.rows), ("d", A.cols), ("m", m)))


SOLVE_TOLERANCE = 1e-8
"""The documented default of a module's ``SOLVE_TOLERANCE`` (relative accuracy τ of ``softmax_solve``):
about √u, the float64 resolution of a minimiser located by loss decrease: L(x* + δ) − L(x*) ≈ ½λ‖δ‖²
drops below L's own rounding u·Λ (Λ the magnitude of L's terms) once ‖δ‖ ≲ √u·ℓ, ℓ = √(2Λ/λ), so an
optimiser that accepts steps by loss decrease (trust region, L-BFGS-B) is not condemned for stalling
there."""


@st.composite
def _kappa_solve_instances(draw):
    """:func:`~properties.softmax_regression.strategies.solve_instances` with A replaced by a κ corner
    (:data:`~properties.toolkit.strategies.KAPPA_CORNERS`: 1, 1e4, 1e8, 1e12) of 2 ≤ d ≤ min(n, 3) columns."""
    _, b, l, extra = draw(solve_instances(), label="b, l, extra w²")
    n = b.size
    d = draw(dims(min(2, n), min(n, 3)), label="d")
    return draw(kappa_corner_matrices(n, d), label="A (κ corner)"), b, l, extra


def _solve_instances():
    """The solve search (κ(A) up to 1e4) mixed with the κ corners (up to 1e12) with weight 0.3."""
    return with_corners(solve_instances(), _kappa_solve_instances(), weight=0.3)


def _solve_corners():
    """Fixed κ corners judged after every search: A with κ = 1e6, 1e8, 1e12 (rows mixing the singular
    directions), where a Newton iteration that squares κ(∇²L) (normal equations HᵀH of the Newton system)
    stalls or breaks down, and the correct one still meets the rule; and a small-scale A with small l (entries
    ~0.01, l = 0.014: small curvature), where an absolute gradient stop such as scipy's default gtol = 1e-5
    leaves x̂ outside the relative rule by ~50 even at τ = 1e-6."""
    small = np.array([[0.012, -0.005, 0.004], [0.008, -0.001, 0.003], [0.01, -0.001, -0.01], [-0.003, -0.014, -0.001]])
    out = [(small, np.array([0.186, 0.219, 0.19, 0.129]), 0.014, np.zeros(4))]
    for n, d, log_kappa, seed in ((4, 3, 6.0, 1), (2, 2, 8.0, 2), (4, 3, 12.0, 3)):
        rng = np.random.default_rng(seed)
        U_ = np.linalg.qr(rng.uniform(-1.0, 1.0, (n, d)) + np.eye(n, d))[0]
        V = np.linalg.qr(rng.uniform(-1.0, 1.0, (d, d)) + 2 * np.eye(d))[0]
        b = np.linspace(1.0, 2.0, n) / (2.0 * n)
        out.append(((U_ * 10.0 ** (-log_kappa * np.linspace(0.0, 1.0, d))) @ V.T, b, 0.01, np.zeros(n)))
    return out


def _solve_tolerance(value):
    if isinstance(value, bool) or not (isinstance(value, (int, float)) and 0 <= value <= 1e-2):
        raise ValueError(f"SOLVE_TOLERANCE={value!r} must be a number in [0, 0.01] (a relative accuracy)")
    return float(value)


@ADAPTERS("softmax_solve", signature="softmax_solve(A: (n, d), b: (n,), w: (n,)) -> (d,) array",
          doc="the minimiser x* of L (unique when w_i² ≥ 4 + l/σ_min(A)²), compared with the oracle's "
              "exact Newton solution at 50 digits; the module may declare SOLVE_TOLERANCE = τ (default 1e-8, "
              "≈ √u); valid range: entries of A of magnitude at most 1e6 (x* shrinks as 1/‖A‖, and from about 1e10 "
              "general-purpose optimisers taking unit first steps from x0 = 0, such as scipy's trust-exact, BFGS "
              "and L-BFGS-B, stop short of it: no rule is promised there)",
          tolerance="both ‖x̂ − x*‖₂ ≤ ρ + τ(‖x*‖₂ + ℓ) and ‖∇L(x̂)‖₂ ≤ 4τ_g(x̂) + τ·max(G(x̂), Λ₁(‖x*‖₂ + ℓ)), with ρ = "
                    "4·τ_g(x*)/λ + 4u‖x*‖₂ (no float64 method places the zero of ∇L more precisely than its gradient "
                    "can be evaluated, divided by the curvature λ = λ_min(∇²L(x*))), ℓ = √(2Λ/λ) the length over which "
                    "L changes by the magnitude Λ = ½Σw_i²a_i² + (1 + m)(‖c‖₂ + 1) of its terms (the softmax_loss "
                    "rule's), τ_g the softmax_gradient tolerance, G = τ_g/(32(n+d)u) the magnitude of the gradient's "
                    "terms and Λ₁ = λ_max(∇²L(x*)) (the gradient of a point at the allowed distance): a relative "
                    "accuracy an honest optimiser meets, never only an exact root-finder",
          strategy=_solve_instances, max_examples=15, options=(("SOLVE_TOLERANCE", SOLVE_TOLERANCE),),
          targets=lambda inst: {"log10 cond(A)": log10_cond(inst[0])}, corners=_solve_corners,
          magnitude_corners=lambda: [(fixed_matrix(3, 2) * s, np.array([0.2, 0.3, 0.5]), 0.1, np.zeros(3))
                                     for s in (1e-100, 1e6)] + [
                                         (fixed_matrix(3, 2) + 11.0, np.array([0.2, 0.3, 0.5]), 0.1, np.zeros(3))],
          size_corners=lambda: [(fixed_matrix(n, 2), np.full(n, 1.0 / n), 0.1, np.zeros(n)) for n in (9, 17)],
          instance_fields=("A", "b", "l (w² ≥ 4 + l/σ_min(A)² + extra)", "extra"))
def _softmax_solve(inst, fn, *, SOLVE_TOLERANCE):  # noqa: N803  (the module attribute's name)
    tau = _solve_tolerance(SOLVE_TOLERANCE)
    A, b, l, extra = inst
    require(float(np.max(np.abs(A))) <= 1e6, "entries of A of magnitude at most 1e6 (the valid range)")
    with mp.workdps(50):
        Am, lm, em = to_mp(A), to_mp(l), to_mp(extra)
        smin = linalg.sigma_min(Am)
        require(smin > 0, "A must have full column rank")
        w = np.array([float(mp.sqrt(4 + lm / smin**2 + em[i])) for i in range(A.shape[0])])
        w = np.nextafter(w, np.inf)
    got = output(fn(A.copy(), b.copy(), w.copy()), "softmax_solve", shape=(A.shape[1],))
    with mp.workdps(50):
        bm, wm, xg = to_mp(b), to_mp(w), to_mp(got)
        xs = S.exact_newton(Am, bm, wm)
        ev = linalg.eigvalsh(S.true_hessian(Am, bm, wm, xs))
        lam = ev[0]
        nx = linalg.norm2(xs)
        _, a, m, _, c, _ = _magnitudes(Am, bm, wm, xs)
        big_l = mp.fsum(wm[i] ** 2 * a[i] ** 2 for i in range(a.rows)) / 2 + (1 + m) * (linalg.norm2(c) + 1)
        tol_x = 4 * _gradient_tolerance(Am, bm, wm, xs) / lam + 4 * U * nx + tau * (nx + mp.sqrt(2 * big_l / lam))
        tau_g = _gradient_tolerance(Am, bm, wm, xg)
        reach = nx + mp.sqrt(2 * big_l / lam)
        tol_g = 4 * tau_g + tau * max(tau_g / (32 * sum(A.shape) * U), ev[-1] * reach)
        dist, grad = linalg.norm2(xg - xs), linalg.norm2(S.true_gradient(Am, bm, wm, xg))
        note = (f"got {got.tolist()}, oracle {to_float_array(xs).tolist()}: ‖x̂ − x*‖ = {mp.nstr(dist, 3)} "
                f"(tolerance {mp.nstr(tol_x, 3)}), ‖∇L(x̂)‖ = {mp.nstr(grad, 3)} (tolerance {mp.nstr(tol_g, 3)}), "
                f"SOLVE_TOLERANCE = {tau:g}")
        a, g = within(dist, tol_x, note), within(grad, tol_g, note)
        return a if a.ratio >= g.ratio else g


def _newton_instance(A, b, l, mode="general"):
    """A :func:`~.strategies.newton_instances` draw with start direction (1, 2, …), ρ = 0.999, φ = 0.99, ε0 = 0.01
    and H̃ general (S = [[1, −2], [0, 3]]) or of the sparsifier's form."""
    d = A.shape[1]
    S_ = np.array([[1, -2], [0, 3]])[:d, :d] if mode == "general" else None
    return A, b, l, np.arange(1.0, d + 1.0), 0.999, (mode, S_), 0.99, 0.01, None


def _newton_step_magnitudes():
    """Entries above 10 (A + 11), l = 1e7 (r0 = ρ·0.1l/M puts ‖Ax0‖∞ in the thousands, past exp's overflow: the
    softmax needs its max-shift), l = 1e-8, b near 1e-150, A near 1e-30 and 1e-75 (w ≈ √l/σ_min(A) near 1e75 and
    x near 1e218: w²∘Ax near 1e295).  The valid range ends where the terms w_i²(Ax)_i of ∇L (those of the
    gradient's rule) overflow float64: A near 1e-100 gives x near 1e296 and w²∘Ax near 1e396.  The
    size corners are n = 7 … 65 rows at d = 2 (each under 2 s)."""
    A, b = fixed_matrix(3, 2), np.array([0.2, 0.3, 0.4])
    return [_newton_instance(A + 11.0, b, 1.0), _newton_instance(A + 11.0, b, 1.0, "diagonal"),
            _newton_instance(A, b, 1e7), _newton_instance(A, b, 1e7, "diagonal"), _newton_instance(A, b, 1e-8),
            _newton_instance(A, b * 1e-150, 1.0), _newton_instance(A * 1e-30, b, 1.0),
            _newton_instance(A * 1e-75, b, 1.0), _newton_instance(A * 1e-75, b, 1.0, "diagonal")]


@ADAPTERS("softmax_newton_step",
          signature="softmax_newton_step(A: (n, d), b: (n,), w: (n,), x: (d,), H_tilde: (d, d)) -> (d,) array",
          doc="one approximate-Newton update x − H̃⁻¹∇L(x) with the given approximate Hessian (def8.4)",
          tolerance="‖x̂₊ − x₊‖₂ ≤ ‖H̃⁻¹‖(τ_g + 16d·u·‖H̃‖‖H̃⁻¹∇L‖) + 4u‖x₊‖: the gradient's tolerance τ_g "
                    "mapped through H̃⁻¹, a backward-stable solve, and the final subtraction",
          strategy=newton_instances, max_examples=10,
          instance_fields=("A", "b", "l", "start direction u", "rho = M·r0/(0.1·l)", "form of H̃ (mode, S)",
                           "phi = ‖E‖/eps0", "eps0", "eps/r0"), magnitude_corners=_newton_step_magnitudes,
          size_corners=lambda: [_newton_instance(fixed_matrix(n, 2), np.full(n, 0.5 / n), 1.0,
                                                 "general" if n % 2 else "diagonal") for n in PATH_SIZES])
def _softmax_newton_step(inst, fn):
    P = NewtonProblem(inst)
    Ht = P.h_tilde(P.x0)
    got = output(fn(P.A.copy(), P.b.copy(), P.w.copy(), P.x0.copy(), Ht.copy()), "softmax_newton_step",
                 shape=P.x0.shape)
    with mp.workdps(50):
        Am, bm, wm, xm, Hm = to_mp(P.A), to_mp(P.b), to_mp(P.w), to_mp(P.x0), to_mp(Ht)
        step = linalg.solve(Hm, S.true_gradient(Am, bm, wm, xm))
        xp = xm - step
        Hinv = 1 / linalg.eigvalsh(Hm)[0]
        tol = Hinv * (_gradient_tolerance(Am, bm, wm, xm) + 16 * Hm.rows * U * linalg.spectral_norm(Hm)
                      * linalg.norm2(step)) + 4 * U * linalg.norm2(xp)
        return within(linalg.norm2(to_mp(got) - xp), tol, f"got {got.tolist()}")


def _sparsify_magnitudes():
    """((A, D), ε0, δ, seed) with D near 1e150 and 1e-150 (AᵀDA of order 1e150 and 1e-150; squares of D overflow and
    underflow) and entries of A above 10 (12 times a fixed matrix)."""
    A, D = fixed_matrix(6, 2), np.linspace(0.5, 3.0, 6)
    return [((A, D * 1e150), 0.5, 0.1, 3), ((A, D * 1e-150), 0.5, 0.1, 3), ((A * 12.0, D), 0.5, 0.1, 3)]


@ADAPTERS("softmax_sparsify",
          signature="softmax_sparsify(A: (n, d), D: (n,) positive, eps0: float, delta: float, seed: int) -> (n,) array",
          doc="alg.sparsify: a diagonal D̃ (as a vector) with (1 − ε0)AᵀDA ⪯ AᵀD̃A ⪯ (1 + ε0)AᵀDA w.p. ≥ 1 − δ "
              "(the guarantee itself is the statistical claim lem8.5)",
          tolerance="structure, exactly: D̃_i ≥ 0, and D̃_i = 0 or D̃_i ≥ D_i(1 − 4u) (a kept row is reweighted "
                    "by 1/p_i ≥ 1); the same seed gives the same D̃",
          strategy=lambda: st.tuples(dims(3, 40).flatmap(lambda n: st.tuples(
              conditioned_matrices(st.just(n), st.just(2), max_log10_cond=3.0),
              hnp.arrays(np.float64, (n,), elements=scalars(0.1, 100.0)))),
              scalars(0.05, 0.9), scalars(0.01, 0.5), st.integers(0, 2**31 - 1)),
          max_examples=10, magnitude_corners=_sparsify_magnitudes,
          size_corners=lambda: [((fixed_matrix(n, 2), np.linspace(0.5, 3.0, n)), 0.5, 0.1, 3) for n in PATH_SIZES])
def _softmax_sparsify(inst, fn):
    (A, D), eps0, delta, seed = inst
    Dt = output(fn(A.copy(), D.copy(), eps0, delta, seed), "softmax_sparsify", shape=D.shape)
    again = output(fn(A.copy(), D.copy(), eps0, delta, seed), "softmax_sparsify", shape=D.shape)
    if not np.array_equal(Dt, again):
        return within(1.0, 0.0, "two calls with the same seed gave different D̃")
    bad = (Dt < 0) | ((Dt != 0) & (Dt < D * (1 - 4 * U)))
    return within(float(bad.sum()), 0.0, f"{int(bad.sum())} entries violate D̃_i ∈ {{0}} ∪ [D_i, ∞)")


@ADAPTERS("softmax_iteration_flops", signature="softmax_iteration_flops(n: int, d: int) -> float",
          doc="FLOPs of one approximate-Newton iteration on a dense n × d problem (for thm9.1.time)",
          tolerance="positive and finite (the scaling is judged by the claim thm9.1.time)",
          strategy=lambda: st.tuples(st.sampled_from([64, 256]), st.sampled_from([2, 4])), max_examples=5,
          magnitude_corners=lambda: [(4096, 8)], size_corners=lambda: [(9, 2), (17, 3), (65, 2)])
def _softmax_iteration_flops(inst, fn):
    n, d = inst
    v = float(output(fn(n, d), "softmax_iteration_flops", shape=()))
    return within(0.0 if v > 0 else 1.0, 0.0, f"FLOPs {v}")
