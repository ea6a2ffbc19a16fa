"""Adapter checks of paper 003 (single-layer attention optimisation): each function of the contract
with its oracle comparison and tolerance rule (u = 2⁻⁵³).

Conventions (spec §1, def.loss): L_half = ½‖S(X)A3Y − B‖_F²; x = vec_row X, y stacks Y's columns,
z = (x, y); regulariser reading (b) with W = diag(w).  The exact side is the oracle's: loss by
first-principles sums, every derivative by 50-digit numerical differentiation (never a closed form).

Rounding model of every rule: a float64 evaluation of S = softmax(A1XA2ᵀ) carries a relative error
per entry of at most η = 16·(n + d + 4)·u·(1 + ζ), ζ = max(|A1||X||A2|ᵀ) (the error of the exponent
is absolute, so exp turns it into a relative one); each quantity built from S, H = A3Y and B is then
off by at most η times the same expression evaluated in absolute values (its *magnitude*, below).
Magnitudes of the Hessians use Σ_k f_k = 1: for a row j0 the n×n kernels sum in absolute value to at
most 4h² + 6hê (x–x) and 2(h + ê) (x–y), h = max|A3||Y|, ê = max(|C| + |S||H| + |B|).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from mpmath import mp

from oracle import attention_optimization as O
from oracle import linalg, to_mp

from ..contract import AdapterSet, TrialRule, U, output, within
from ..toolkit import require
from ..toolkit.strategies import (
    KAPPA_CORNERS,
    PATH_SIZES,
    dims,
    fixed_matrix,
    kappa_corner_matrices,
    matrices,
    scalars,
    vectors,
    with_corners,
)
from .corner_instances import gram_magnitudes, gram_sizes, step_magnitudes, step_sizes
from .strategies import problems, regularised_problems

__all__ = ["ADAPTERS", "magnitudes"]

ADAPTERS = AdapterSet()

_PROBLEM = "(A1, A2, A3, B: (n, d) arrays, X, Y: (d, d) arrays)"


def magnitudes(A1, A2, A3, B, X, Y):
    """η and the float64 magnitudes (|S|, |H|, Ê = |C| + |S||H| + |B|) of the rounding model above."""
    n, d = A1.shape
    Z = A1 @ X @ A2.T
    S = np.exp(Z - Z.max(axis=1, keepdims=True))
    S /= S.sum(axis=1, keepdims=True)
    Habs = np.abs(A3) @ np.abs(Y)
    E = np.abs(S @ (A3 @ Y) - B) + S @ Habs + np.abs(B)
    eta = 16 * (n + d + 4) * U * (1 + float((np.abs(A1) @ np.abs(X) @ np.abs(A2).T).max()))
    return eta, S, Habs, E


def _corners():
    """Fixed corners judged after every search: exponents A1XA2ᵀ past exp's overflow (710, 800, −1e4:
    a softmax without the row max-shift gives NaN), ties within a row, n = d = 1, all zeros.  They are
    also mixed into the searches (:func:`_with_corners`)."""
    one, e1 = np.ones((1, 1)), np.array([[1.0], [0.0]])
    ones2, twos = np.ones((2, 1)), np.array([[0.5], [1.0]])
    return [(one, one, one, np.zeros((1, 1)), np.array([[710.0]]), one),
            (ones2, e1, twos, np.array([[1.0], [0.0]]), np.array([[710.0]]), np.array([[1.0]])),
            (ones2, ones2, twos, np.zeros((2, 1)), np.array([[800.0]]), np.array([[-1.0]])),
            (e1, np.array([[1.0], [-0.5]]), ones2, twos, np.array([[-1e4]]), np.array([[2.0]])),
            (np.zeros((2, 2)), np.zeros((2, 2)), np.eye(2), np.ones((2, 2)), np.zeros((2, 2)), np.eye(2))]


def _magnitude_corners():
    """Fixed corners of magnitude, judged after every search with the softmax corners: losses from O(1)
    to near float64's overflow (B = 100: L_half = 4900; B = 1e5; B = 1e150: L_half ≈ 5e299, whose
    ‖C‖² is still finite), targets and exponents with entries near 1e154 and 1e-162 (whose squares
    overflow and underflow) and an A3Y of 1e-162."""
    one = np.ones((1, 1))
    ones2, twos = np.ones((2, 1)), np.array([[0.5], [1.0]])
    return [(one, one, one, np.array([[100.0]]), one, one),
            (ones2, twos, twos, np.array([[1e5], [-3e4]]), np.array([[2.0]]), np.array([[-1.0]])),
            (one, one, one, np.array([[1e150]]), one, one),
            (ones2, twos, np.array([[1e154], [1.0]]), np.zeros((2, 1)), np.array([[1.0]]), np.array([[1e-154]])),
            (np.array([[1e-162], [1.0]]), twos, ones2, twos, np.array([[1e154]]), np.array([[1e-162]])),
            (one, one, one, np.array([[1.0]]), one, np.array([[1e-162]]))]


def _all_corners():
    return _corners() + _magnitude_corners()


def _derivative_corners():
    """The corners of :func:`_all_corners` and targets of 3e154, whose squared residuals overflow float64 (the
    loss does too, so only its derivatives, of size |c| ≈ 3e154, are judged there)."""
    ones2, twos = np.ones((2, 1)), np.array([[0.5], [1.0]])
    return _all_corners() + [(ones2, twos, twos, np.array([[3e154], [-1e154]]), np.array([[2.0]]), np.array([[-1.0]]))]


def _overflowing_residual():
    """The corner of :func:`_derivative_corners` beyond :func:`_all_corners`: targets of 3e154."""
    return _derivative_corners()[len(_all_corners()):]


def _size_corners(sizes=(7, 8, 9, 16, 17, 32, 33)):
    """n = 7 … 33 rows at d = 2 (the Hessians' 50-digit numerical derivatives, 4-8 s each from n = 9 on, stop
    at 8 and 9): every row of the softmax counts, so a blocked kernel dropping a remainder is wrong."""
    X, Y = np.array([[0.5, -0.2], [0.1, 0.3]]), np.array([[1.0, 0.5], [-0.5, 1.0]])
    return [(fixed_matrix(n, 2) * 0.5, fixed_matrix(n, 2) * 0.3, fixed_matrix(n, 2), fixed_matrix(n, 2) * 0.1, X, Y)
            for n in sizes]


_CORNER_WEIGHT = 0.2


def _with_corners(corners):
    """:func:`~.strategies.problems` mixed with weight 0.2 with the fixed ``corners()`` and with drawn problems
    whose B is scaled by 10^e, e ∈ [0, 150] (losses from O(1) to ~1e300, where a residual squared or a loss
    formed on the way overflows).  A failure among them is not shrunk far (a fixed corner is minimal already;
    the scale shrinks towards 1)."""
    scaled = st.tuples(problems(), scalars(0.0, 150.0)).map(lambda t: (*t[0][:3], t[0][3] * 10.0 ** t[1], *t[0][4:]))
    return with_corners(problems(), st.one_of(st.sampled_from(corners()), scaled), weight=_CORNER_WEIGHT)


def _targets(inst):
    """max |A1XA2ᵀ|, where exp overflows (709) and the max-shift matters."""
    A1, A2, _, _, X, _ = inst
    return {"max|A1 X A2ᵀ|": float(np.abs(A1 @ X @ A2.T).max())}


def _mp_point(A1, A2, A3, B, X, Y):
    mA1, mA2, mA3, mB, mX, mY = O.instance(A1, A2, A3, B, X, Y)
    return mA1, mA2, mA3, mB, linalg.vec(mX), O.vec_cols(mY)


def _entrywise(got, exact, tol, what):
    """max_i |got_i − exact_i| / tol_i as an Outcome (tol an array of the same shape)."""
    err = np.array([[float(abs(mp.mpf(float(got[i, j])) - exact[i, j])) for j in range(got.shape[1])]
                    for i in range(got.shape[0])])
    with np.errstate(over="ignore"):  # a ratio past float64's range is inf, still a failure
        ratio = err / np.maximum(tol, 1e-300)
    k = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    expected = np.array([[float(exact[i, j]) for j in range(got.shape[1])] for i in range(got.shape[0])])
    return within(float(err[k]), float(tol[k]), f"{what}: entry {tuple(int(i) for i in k)} has the largest "
                  "error/tolerance", expected=expected)


def _accuracy(tol):
    """The absolute accuracy the oracle's derivatives must reach for an entrywise tolerance array: 2^-20 of
    its smallest positive entry (None when every entry is 0: the oracle's own resolution rule then)."""
    positive = tol[(tol > 0) & np.isfinite(tol)]
    return mp.ldexp(mp.mpf(float(positive.min())), -20) if positive.size else None


def _cols(M, d):
    return mp.matrix([[M[i1 + d * i0, 0] for i0 in range(d)] for i1 in range(d)])


@ADAPTERS("attention_loss", signature=f"attention_loss{_PROBLEM} -> float",
          doc="L_half(X, Y) = ½‖D(X)⁻¹exp(A1XA2ᵀ)A3Y − B‖_F² (spec def.loss; Def 1.2's L is twice this)",
          tolerance="|L̂ − L| ≤ η·Σ Ê∘(|C| + Ê)", strategy=lambda: _with_corners(_all_corners), targets=_targets,
          corners=_corners, magnitude_corners=_magnitude_corners, size_corners=_size_corners)
def _loss(inst, fn):
    got = float(output(fn(*(a.copy() for a in inst)), "attention_loss", shape=()))
    eta, S, Habs, E = magnitudes(*inst)
    C = np.abs(S @ (inst[2] @ inst[5]) - inst[3])
    tol = eta * float(np.sum(E * (C + E)))
    with mp.workdps(50):
        true = O.L_half(*_mp_point(*inst))
        return within(float(abs(mp.mpf(got) - true)), tol, f"got {got!r}, oracle {mp.nstr(true, 17)}")


@ADAPTERS("attention_grad_x", signature=f"attention_grad_x{_PROBLEM} -> (d, d) array",
          doc="∇_X L_half (Lemma 5.4: A1ᵀQA2, Q = S∘P − diag((S∘P)1)S, P = CHᵀ)",
          tolerance="|ĝ − g| ≤ 2η·|A1|ᵀ(S∘(ÊHᵀ_abs) + diag((S∘ÊHᵀ_abs)1)S)|A2| entrywise",
          strategy=lambda: _with_corners(_derivative_corners), targets=_targets,
          corners=lambda: _corners() + _overflowing_residual(), magnitude_corners=_magnitude_corners,
          size_corners=_size_corners)
def _grad_x(inst, fn):
    A1, A2, A3, B, X, Y = inst
    d = A1.shape[1]
    got = output(fn(*(a.copy() for a in inst)), "attention_grad_x", shape=(d, d))
    eta, S, Habs, E = magnitudes(*inst)
    SP = S * (E @ Habs.T)
    tol = 2 * eta * (np.abs(A1).T @ (SP + SP.sum(axis=1, keepdims=True) * S) @ np.abs(A2))
    with mp.workdps(50):
        mA1, mA2, mA3, mB, x, y = _mp_point(*inst)
        g = O.gradient_x(mA1, mA2, mA3, mB, x, y, accuracy=_accuracy(tol))
        exact = mp.matrix([[g[a * d + b] for b in range(d)] for a in range(d)])
        return _entrywise(got, exact, tol, "∇_X L_half")


@ADAPTERS("attention_grad_y", signature=f"attention_grad_y{_PROBLEM} -> (d, d) array",
          doc="∇_Y L_half (Lemma 5.5: A3ᵀSᵀ(SA3Y − B))",
          tolerance="|ĝ − g| ≤ 2η·|A3|ᵀSᵀÊ entrywise", strategy=lambda: _with_corners(_derivative_corners),
          targets=_targets, corners=lambda: _corners() + _overflowing_residual(),
          magnitude_corners=_magnitude_corners, size_corners=_size_corners)
def _grad_y(inst, fn):
    A1, A2, A3, B, X, Y = inst
    d = A1.shape[1]
    got = output(fn(*(a.copy() for a in inst)), "attention_grad_y", shape=(d, d))
    eta, S, Habs, E = magnitudes(*inst)
    tol = 2 * eta * (np.abs(A3).T @ S.T @ E)
    with mp.workdps(50):
        mA1, mA2, mA3, mB, x, y = _mp_point(*inst)
        exact = _cols(O.gradient_y(mA1, mA2, mA3, mB, x, y, accuracy=_accuracy(tol)), d)
        return _entrywise(got, exact, tol, "∇_Y L_half")


def _hessian_adapter(name, block, what):
    def scale(inst, eta, Habs, E):
        """The rule's bound, its products taken in mpmath (h² and |A3|² overflow float64 at entries near 1e154,
        the bound itself does not)."""
        A1, A2, A3 = np.abs(inst[0]), np.abs(inst[1]), np.abs(inst[2])
        n, d = A1.shape
        h, e = mp.mpf(float(Habs.max())), mp.mpf(float(E.max()))
        if block == 0:
            s = mp.mpf(float((A1.T @ A1).max())) * mp.mpf(float(A2.max())) ** 2 * n ** 2 * d * (4 * h * h + 6 * h * e)
        elif block == 1:
            s = mp.mpf(float(A1.sum(axis=0).max())) * float(A2.max()) * mp.mpf(float(A3.max())) * n ** 2 * 2 * (h + e)
        else:
            s = n * mp.mpf(float(A3.max())) ** 2
        return float(4 * eta * s)

    @ADAPTERS(name, signature=f"{name}{_PROBLEM} -> (d², d²) array",
              doc=f"{what} of L_half in the z = (vec_row X, vec_cols Y) ordering (spec def.H_xx, def.H_xy, def.H_yy)",
              tolerance="max entry error ≤ 4η·(magnitude bound of the module docstring, times n² for the sums)",
              strategy=lambda: _with_corners(_derivative_corners), targets=_targets,
              corners=lambda: _corners() + _overflowing_residual(), magnitude_corners=_magnitude_corners,
              size_corners=lambda: _size_corners((8, 9)))
    def compare(inst, fn):
        d = inst[0].shape[1]
        got = output(fn(*(a.copy() for a in inst)), name, shape=(d * d, d * d))
        eta, S, Habs, E = magnitudes(*inst)
        tol = np.full(got.shape, scale(inst, eta, Habs, E))
        with mp.workdps(50):
            exact = O.hessian_blocks(*_mp_point(*inst), accuracy=_accuracy(tol))[block]
            return _entrywise(got, exact, tol, what)

    return compare


_hessian_adapter("attention_hessian_xx", 0, "H_xx = ∂²L_half/∂x∂xᵀ")
_hessian_adapter("attention_hessian_xy", 1, "H_xy = ∂²L_half/∂x∂yᵀ")
_hessian_adapter("attention_hessian_yy", 2, "H_yy = ∂²L_half/∂y∂yᵀ")


def _sketch_rows_instances():
    def build(nd):
        n, d = nd
        N = 1 << (n - 1).bit_length()
        signs = st.lists(st.sampled_from([-1, 1]), min_size=N, max_size=N).map(lambda v: np.array(v, np.int8))
        rows = st.lists(st.integers(0, N - 1), min_size=1, max_size=6).map(lambda v: np.array(v, np.int64))
        return st.tuples(matrices(st.just(n), st.just(d)), matrices(st.just(n), st.just(d)), signs, signs, rows).flatmap(
            lambda t: st.tuples(st.just(t[0]), st.just(t[1]), st.just(t[2]), st.just(t[3]), st.just(t[4]),
                                st.lists(st.integers(0, N - 1), min_size=t[4].size, max_size=t[4].size)
                                .map(lambda v: np.array(v, np.int64))))
    return st.tuples(dims(1, 5), dims(1, 2)).flatmap(build)


def _sketch_rows_search():
    """:func:`_sketch_rows_instances` mixed with weight 0.3 with scaled ones, A1·10^e and C2·10^−e, e ∈ [−162, 162]:
    S(A1 ⊗ C2) and the rule unchanged, the factors' entries near 1e162 and 1e-162 (an implementation that drops
    tiny entries or forms squares on the way fails there)."""
    scaled = st.tuples(_sketch_rows_instances(), scalars(-162.0, 162.0)).map(
        lambda t: (t[0][0] * 10.0 ** t[1], t[0][1] * 10.0 ** -t[1], *t[0][2:]))
    return with_corners(_sketch_rows_instances(), scaled, weight=0.3)


def _sketch_rows_corners():
    """Fixed scaled corners judged after every search: 3 × 2 factors at 10^∓150 and 10^±160 (N = 4, m = 3)."""
    A1 = np.array([[1.0, -0.5], [0.25, 2.0], [-1.0, 0.75]])
    C2 = np.array([[0.5, 1.0], [-1.0, 0.25], [2.0, -0.5]])
    bits = (np.array([1, -1, 1, 1], np.int8), np.array([-1, 1, 1, -1], np.int8), np.array([0, 2, 3], np.int64),
            np.array([1, 0, 3], np.int64))
    return [(A1 * 10.0 ** -e, C2 * 10.0 ** e, *bits) for e in (150.0, -160.0)]


def _sketch_rows_bits(n, m=3, seed=3):
    """(signs1, signs2, rows1, rows2) for n rows (N = 2^⌈log₂n⌉) drawn from a fixed numpy seed."""
    rng, N = np.random.default_rng(seed), 1 << (n - 1).bit_length()
    return (rng.choice(np.array([-1, 1], np.int8), N), rng.choice(np.array([-1, 1], np.int8), N),
            rng.integers(0, N, m), rng.integers(0, N, m))


def _sketch_rows_magnitudes():
    """Both factors near 1e150 (entries of A1 ⊗ C2 near 1e300, below float64's overflow), and entries above 10."""
    A1, C2 = fixed_matrix(3, 2), fixed_matrix(3, 2)[::-1]
    return [(A1 * 1e150, C2 * 1e150, *_sketch_rows_bits(3)), (A1 + 12.0, C2 - 11.0, *_sketch_rows_bits(3))]


def _sketch_rows_sizes():
    """n = 7 … 64 rows at d = 2 (N pads 9 to 16, 17 to 32, 33 to 64); stops at 64: the 50-digit Walsh–Hadamard
    product of order 128 that n = 65 needs costs about 3 s."""
    return [(fixed_matrix(n, 2), np.cos(np.arange(2.0 * n)).reshape(n, 2), *_sketch_rows_bits(n))
            for n in PATH_SIZES if n <= 64]


@ADAPTERS("attention_sketch_rows",
          signature="attention_sketch_rows(A1: (n, d), C2: (n, d), signs1: (N,), signs2: (N,), rows1: (m,), "
                    "rows2: (m,)) -> (m, d²) array",
          doc="S(A1 ⊗ C2) for S = (1/√m)·P·(H_N D1 ⊗ H_N D2) (spec def.tensorsrht; N = 2^⌈log₂n⌉, rows of A1, C2 "
              "zero-padded, P selects row rows1[k]·N + rows2[k]), without forming A1 ⊗ C2",
          tolerance="|ŝ − s| ≤ 4(log₂N + 2)·u·(Σ_k|A1[k,a]|)(Σ_k|C2[k,b]|)/√m entrywise",
          strategy=_sketch_rows_search, corners=_sketch_rows_corners, magnitude_corners=_sketch_rows_magnitudes,
          size_corners=_sketch_rows_sizes)
def _sketch_rows(inst, fn):
    A1, C2, s1, s2, r1, r2 = inst
    n, d = A1.shape
    N, m = s1.size, r1.size
    got = output(fn(A1.copy(), C2.copy(), s1.copy(), s2.copy(), r1.copy(), r2.copy()), "attention_sketch_rows",
                 shape=(m, d * d))
    tol = 4 * (np.log2(N) + 2) * U * np.kron(np.abs(A1).sum(axis=0), np.abs(C2).sum(axis=0))[None, :] / np.sqrt(m)
    tol = np.repeat(tol, m, axis=0)
    with mp.workdps(50):
        Hn = linalg.walsh_hadamard(N)
        pad = lambda M: mp.matrix([[M[i, j] if i < n else 0 for j in range(d)] for i in range(N)])
        left = Hn * mp.diag([int(v) for v in s1]) * pad(to_mp(A1))
        right = Hn * mp.diag([int(v) for v in s2]) * pad(to_mp(C2))
        exact = mp.matrix([[left[int(r1[k]), a] * right[int(r2[k]), b] / mp.sqrt(m) for a in range(d)
                            for b in range(d)] for k in range(m)])
        return _entrywise(got, exact, tol, "S(A1 ⊗ C2)")


_GRAM_DELTA = 0.1
_GRAM_TRIALS = 16


def _gram_instances():
    """(A1, A2, wd, m) without the seed: n ≤ 5, d ≤ 2, m of 1 … 64 rows or, half the time, 4096 or 16384 (where
    the Chebyshev rule of :func:`_sketched_gram` separates a wrong scaling of S from sampling noise)."""
    return dims(1, 5).flatmap(lambda n: st.tuples(
        matrices(st.just(n), dims(1, 2)).flatmap(lambda A: st.tuples(st.just(A), matrices(st.just(n), st.just(A.shape[1])))),
        vectors(st.just(n)).map(np.abs), st.one_of(st.integers(1, 64), st.sampled_from([4096, 16384])))).map(
        lambda t: (t[0][0], t[0][1], t[1], t[2]))


def _gram_corners():
    """Dense 4 × 2 factors (rows of similar size, so ‖u‖²‖v‖² is within a small factor of ‖M‖_F) at m = 16384,
    and a coherent one (one nonzero row of A1) at m = 4096."""
    A1 = np.array([[1.0, 0.5], [-0.5, 1.0], [1.0, -1.0], [0.25, 1.0]])
    A2 = np.array([[0.5, 1.0], [1.0, -0.25], [-1.0, 0.5], [1.0, 1.0]])
    e1 = np.array([[1.0, 0.5], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    return [(A1, A2, np.array([1.0, 0.5, 2.0, 1.0]), 16384), (e1, A2, np.ones(4), 4096)]


@ADAPTERS("attention_sketched_gram",
          signature="attention_sketched_gram(A1: (n, d), A2: (n, d), wd: (n,) ≥ 0, m: int, seed: int) -> (d², d²)",
          doc="M̃ = (SÂ)ᵀ(SÂ), Â = A1 ⊗ diag(wd)^{1/2}A2, S a TensorSRHT of m rows (alg.tensorsrht_hessian); "
              "E[M̃] = Σ_{j0}𝖠_{j0}ᵀdiag(wd)𝖠_{j0}; its accuracy is judged by sec13.ose and sec13.hessian_approx",
          tolerance=f"each seed: symmetric and PSD (‖M̃ − M̃ᵀ‖_max and −λ_min(M̃) ≤ 16·d²·u·‖M̃‖_max·m), M̃ = 0 on the rows "
                    f"of a zero column of A1, and ‖M̃ − M‖_F ≤ U·V/√(mδ) + 16(m + d²)·u·U·V, M = (A1ᵀA1) ⊗ (C2ᵀC2), "
                    f"C2 = diag(wd)^{{1/2}}A2, U = Σ_a ‖A1[:, a]‖₁², V = Σ_b ‖C2[:, b]‖₁², δ = {_GRAM_DELTA} (Chebyshev: "
                    f"the rows of SÂ are m i.i.d. u ⊗ v/√m with E[(u ⊗ v)(u ⊗ v)ᵀ] = M and ‖u‖² ≤ U, ‖v‖² ≤ V); "
                    f"{_GRAM_TRIALS} seeds per instance, judged by the binomial rule at δ",
          strategy=_gram_instances, max_examples=10, seeded="seed", corners=_gram_corners,
          magnitude_corners=gram_magnitudes, size_corners=gram_sizes,
          trials=TrialRule(with_seed=lambda inst, s: (*inst, s), delta=lambda inst: _GRAM_DELTA, trials=_GRAM_TRIALS))
def _sketched_gram(inst, fn):
    A1, A2, wd, m, seed = inst
    d = A1.shape[1]
    M = output(fn(A1.copy(), A2.copy(), wd.copy(), m, seed), "attention_sketched_gram", shape=(d * d, d * d))
    scale = 16 * d * d * U * max(float(np.abs(M).max()), 1e-300) * m
    asym = float(np.abs(M - M.T).max())
    lam = float(np.linalg.eigvalsh((M + M.T) / 2)[0])
    zero_rows = [a * d + b for a in range(d) if not A1[:, a].any() for b in range(d)]
    leak = float(np.abs(M[zero_rows]).max()) if zero_rows else 0.0
    err = max(asym, -lam, leak)
    structure = within(err, scale, f"asymmetry {asym:.3g}, λ_min {lam:.3g}, rows of zero columns {leak:.3g}")
    if not structure.holds:
        return structure
    with mp.workdps(50):
        mA1, mC2 = to_mp(A1), to_mp(A2)
        for i in range(mC2.rows):
            for j in range(mC2.cols):
                mC2[i, j] *= mp.sqrt(mp.mpf(float(wd[i])))
        exact = linalg.kron(mA1.T * mA1, mC2.T * mC2)
        uv = mp.fsum(mp.fsum(abs(v) for v in mA1.column(a)) ** 2 for a in range(d)) * \
            mp.fsum(mp.fsum(abs(v) for v in mC2.column(b)) ** 2 for b in range(d))
        dist = linalg.norm2(to_mp(M) - exact)
        tol = uv / mp.sqrt(m * mp.mpf(_GRAM_DELTA)) + 16 * (m + d * d) * U * uv
        return within(dist, tol, f"‖M̃ − M‖_F = {mp.nstr(dist, 3)}, Chebyshev bound at δ = {_GRAM_DELTA}: "
                                 f"{mp.nstr(tol, 3)} (m = {m}, ‖M‖_F = {mp.nstr(linalg.norm2(exact), 3)})")


def _grad_scale(A1, A2, A3, B, w, X, Y):
    eta, S, Habs, E = magnitudes(A1, A2, A3, B, X, Y)
    SP = S * (E @ Habs.T)
    gx = np.abs(A1).T @ (SP + SP.sum(axis=1, keepdims=True) * S) @ np.abs(A2)
    d = A1.shape[1]
    gx = gx + d * np.abs(A1).T @ ((np.abs(A1) @ np.abs(X) @ np.abs(A2).T) * w[None, :]) @ np.abs(A2)
    gy = np.abs(A3).T @ S.T @ E + np.abs(A3).T @ ((w ** 2)[:, None] * Habs)
    return eta, float(np.linalg.norm(np.concatenate([gx.reshape(-1), gy.reshape(-1)])))


def _split(z, d):
    return z[:d * d].reshape(d, d), z[d * d:].reshape(d, d).T


def _newton_step_plain():
    return regularised_problems().flatmap(lambda t: st.tuples(
        st.just(t), matrices(st.just(t[5].size), st.just(t[5].size), max_abs=2.0), scalars(0.5, 5.0)))


def _newton_step_corners():
    """H̃ = GGᵀ with κ(H̃) = κ(G)² ∈ {1, 1e4, 1e8, 1e12} (:func:`kappa_corner_matrices` at the halved
    :data:`KAPPA_CORNERS`; s = 0, so H̃ is exactly the drawn SPD matrix), where a step through the normal
    equations H̃ᵀH̃ loses every digit; or B scaled by 10^e, e ∈ [0, 150] (gradients up to ~1e150)."""
    kappa = regularised_problems().flatmap(lambda t: st.tuples(
        st.just(t), kappa_corner_matrices(t[5].size, t[5].size, log10_conds=tuple(c / 2 for c in KAPPA_CORNERS)),
        st.just(0.0)))
    scaled = st.tuples(_newton_step_plain(), scalars(0.0, 150.0)).map(
        lambda t: ((*t[0][0][:3], t[0][0][3] * 10.0 ** t[1], *t[0][0][4:]), *t[0][1:]))
    return st.one_of(kappa, scaled)


def _newton_step_instances():
    """((A1, A2, A3, B, w, z), G, s), H̃ = GGᵀ + sI: plain draws (κ(H̃) ≲ 1e3) mixed with weight 0.3 with
    :func:`_newton_step_corners`."""
    return with_corners(_newton_step_plain(), _newton_step_corners(), weight=0.3)


@ADAPTERS("attention_newton_step",
          signature="attention_newton_step(A1, A2, A3, B: (n, d), w: (n,) ≥ 0, z: (2d²,), H_tilde: (2d², 2d²)) "
                    "-> (2d²,)",
          doc="one update z − H̃⁻¹∇L_tot(z) of alg.newton, L_tot = L_half + L_reg with the regulariser "
              "L_reg = (d/2)‖A1·X·A2ᵀ·W^{1/2}‖_F² + ½‖W·A3·Y‖_F², W = diag(w) (spec def.reg_x reading b, def.reg_y)",
          tolerance="‖ẑ' − z'‖₂ ≤ ‖H̃⁻¹‖·(2η·‖g‖_mag + 16k·u·‖H̃‖·‖H̃⁻¹g‖) + 4u‖z‖, k = 2d², ‖g‖_mag the "
                    "magnitude of ∇L_tot",
          strategy=_newton_step_instances, max_examples=15, magnitude_corners=step_magnitudes,
          size_corners=step_sizes, instance_fields=("problem", "G (H̃ = GGᵀ + sI)", "s"))
def _newton_step(inst, fn):
    (A1, A2, A3, B, w, z), G, s = inst
    k = z.size
    d = A1.shape[1]
    Ht = G @ G.T + s * np.eye(k)
    Ht = (Ht + Ht.T) / 2
    got = output(fn(A1.copy(), A2.copy(), A3.copy(), B.copy(), w.copy(), z.copy(), Ht.copy()),
                 "attention_newton_step", shape=(k,))
    X, Y = _split(z, d)
    eta, gmag = _grad_scale(A1, A2, A3, B, w, X, Y)
    with mp.workdps(50):
        mA1, mA2, mA3, mB, x, y = _mp_point(A1, A2, A3, B, X, Y)
        g = O.gradient_tot(mA1, mA2, mA3, mB, to_mp(w), x, y)
        mH = to_mp(Ht)
        delta = linalg.solve(mH, g)
        exact = to_mp(z) - delta
        err = linalg.norm2(to_mp(got) - exact)
        inv = 1 / linalg.eigvalsh(mH)[0]
        tol = inv * (2 * eta * gmag + 16 * k * U * linalg.eigvalsh(mH)[-1] * linalg.norm2(delta)) \
            + 4 * U * linalg.norm2(to_mp(z))
        return within(float(err), float(tol), f"‖ẑ' − z'‖ = {mp.nstr(err, 5)}")


def _rotation(t):
    return np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])


def _conditioned(inst, side, log10_s, t1, t2):
    """The same problem in other coordinates: A1 ← A1P, X ← P⁻¹X (``side`` "x") or A3 ← A3P, Y ← P⁻¹Y (``side``
    "y"), P = R(t1)·diag(10^s, 1)·R(t2) (d = 2; s = log10_s).  A1XA2ᵀ and A3Y are unchanged, so L_tot is the
    same function of the new z, whose Hessian is Mᵀ∇²L_tot M (M = P⊗I on x, I⊗P on y): σ_min(P) = 1 keeps
    λ_min ≥ that of the drawn problem and κ grows by up to 10^2s along directions that are not coordinate axes
    (a diagonal scaling alone is undone by pivoting; this is not)."""
    (A1, A2, A3, B, w, z0), msk, seed = inst
    d = A1.shape[1]
    P = _rotation(t1) @ np.diag([10.0 ** log10_s, 1.0]) @ _rotation(t2)
    X, Y = _split(z0, d)
    if side == "x":
        A1, X = A1 @ P, np.linalg.solve(P, X)
    else:
        A3, Y = A3 @ P, np.linalg.solve(P, Y)
    return (A1, A2, A3, B, w, np.concatenate([X.reshape(-1), Y.T.reshape(-1)])), msk, seed


def _magnified(inst, e):
    """The same problem scaled: A1, A2 by 10^(e/2), A3 by 10^e, X and Y by 10^−e (A1XA2ᵀ, A3Y and L_tot unchanged up
    to rounding, ∇²L_tot times 10^2e, so λ_min does not drop for e ≥ 0): entries from ~1e150 down to ~1e-150 and
    below, a Hessian near 1e300, where anything squared on the way overflows."""
    (A1, A2, A3, B, w, z0), msk, seed = inst
    c = 10.0 ** e
    return (A1 * np.sqrt(c), A2 * np.sqrt(c), A3 * c, B, w, z0 / c), msk, seed


def _solve_plain():
    return st.tuples(regularised_problems(w_lo=1.0, full_rank=True), st.sampled_from([0, 64]), st.integers(0, 2**31 - 1))


def _solve_corners():
    """:func:`_conditioned` problems with s = c/2 for c in :data:`KAPPA_CORNERS` past 0 (κ(∇²L_tot) ≈ 10^c times the
    drawn one's, up to ~1e12 and beyond; d = 2), or :func:`_magnified` ones with e ∈ [0, 150]."""
    angle = scalars(0.0, 3.0)
    kappa = st.tuples(_solve_plain().filter(lambda t: t[0][0].shape[1] == 2), st.sampled_from(("x", "y")),
                      st.sampled_from(tuple(c / 2 for c in KAPPA_CORNERS if c > 0)), angle, angle).map(
        lambda t: _conditioned(*t))
    scaled = st.tuples(_solve_plain(), scalars(0.0, 150.0)).map(lambda t: _magnified(*t))
    return st.one_of(kappa, scaled)


_SOLVE_CORNER_WEIGHT = 0.3


def _solve_instances():
    """((A1, A2, A3, B, w, z0), m/d², seed): plain draws (κ(∇²L_tot) ≲ 1e3) mixed with weight 0.3 with
    :func:`_solve_corners`."""
    return with_corners(_solve_plain(), _solve_corners(), weight=_SOLVE_CORNER_WEIGHT)


def _solve_base():
    """A 3 × 2 problem of :func:`_solve_plain` (exact Hessian, seed 3), the start of :func:`_solve_fixed_corners`."""
    A1 = np.array([[3.5, -0.25], [0.5, 2.75], [-0.75, 0.25]])
    A2 = np.array([[2.5, 0.5], [-0.25, 3.25], [0.75, -0.5]])
    A3 = np.array([[3.25, 0.75], [-0.5, 2.5], [0.25, 1.0]])
    B = np.array([[0.5, -1.0], [0.25, 0.75], [-0.5, 0.5]])
    z0 = np.array([0.5, -0.25, 0.75, 0.1, -0.5, 0.25, 1.0, -0.75])
    return (A1, A2, A3, B, np.array([1.5, 3.0, 2.0]), z0), 0, 3


def _solve_fixed_corners():
    """Fixed corners judged after every search: :func:`_solve_base` in coordinates with κ(∇²L_tot) ≈ 1e12 (P on Y,
    s = 6) and ≈ 1e9 (P on X, s = 4), with the sketched Hessian (m = 64·d²) at ≈ 1e10, and magnified by 1e150."""
    base = _solve_base()
    sketched = (base[0], 64, base[2])
    return [_conditioned(base, "y", 6.0, 0.6, 0.3), _conditioned(base, "x", 4.0, 1.1, -0.7),
            _conditioned(sketched, "y", 5.0, 0.6, 0.3), _magnified(base, 150.0)]


def _solve_magnitudes():
    """:func:`_solve_base` with B near 1e-150 (its squares underflow; z* near 0), entries above 10 (B + 10, or A1,
    A2, A3 times 4, each with w times 10 so that the minimum stays strict), z0 times 100 (exponents A1X0A2ᵀ near
    1e3, past exp's overflow) and magnified by 1e75."""
    base = _solve_base()
    (A1, A2, A3, B, w, z0), m, seed = base
    return [((A1, A2, A3, B * 1e-150, w, z0), m, seed), ((A1, A2, A3, B + 10.0, w * 10.0, z0), m, seed),
            ((A1 * 4.0, A2 * 4.0, A3 * 4.0, B, w * 10.0, z0), m, seed), ((A1, A2, A3, B, w, z0 * 100.0), m, seed),
            _magnified(base, 75.0)]


def _solve_sizes():
    """One size: n = 9 rows at d = 2 with the sketched Hessian (m = 64·d²; the TensorSRHT pads 9 rows to 16).  The
    oracle's 50-digit Newton minimiser (Hessians by numerical differentiation) costs about 5 s there and 4 s
    already at n = 7, so the sizes stop at this one."""
    F, shift = fixed_matrix(9, 2), 3.0 * np.eye(9, 2)  # full column rank, as _solve_plain's problems
    return [((F + shift, F[::-1] * 0.5 + shift, F * 0.3 + shift, F * 0.2, np.linspace(1.5, 3.0, 9), _solve_base()[0][5]),
             64, 3)]


@ADAPTERS("attention_solve",
          signature="attention_solve(A1, A2, A3, B: (n, d), w: (n,) ≥ 0, z0: (2d²,), iterations: int, m: int, "
                    "seed: int) -> (2d²,)",
          doc="z after `iterations` updates of alg.newton from z0 on L_tot (exact Hessian if m = 0, else the "
              "x-regulariser block by a TensorSRHT of m rows, seeded)",
          tolerance="‖ẑ − z*‖₂ ≤ 16·‖∇²L_tot(z*)⁻¹‖·2η·‖g‖_mag(z*) + 4u(‖z*‖ + u‖z0 − z*‖) after 40 updates from z0 "
                    "(the last term: a solver stopping once its step is below u times the distance it travelled, "
                    "past Newton's quadratic convergence; 0 only where z0 = z* and every term of the gradient vanishes, "
                    "where each update is exactly 0 and a correct solver returns z0 unchanged; z* the "
                    "oracle's minimiser by 50-digit Newton from z0; instances where λ_min(∇²L_tot(z*)) ≤ 1e-3 or no "
                    "strict minimum is near z0 are outside the rule and skipped)",
          strategy=_solve_instances, corners=_solve_fixed_corners, max_examples=5, seeded="seed",
          magnitude_corners=_solve_magnitudes, size_corners=_solve_sizes, instance_fields=("problem", "m/d²", "seed"))
def _solve(inst, fn):
    (A1, A2, A3, B, w, z0), msk, seed = inst
    d = A1.shape[1]
    k = z0.size
    m = msk * d * d
    got = output(fn(A1.copy(), A2.copy(), A3.copy(), B.copy(), w.copy(), z0.copy(), 40, m, seed),
                 "attention_solve", shape=(k,))
    with mp.workdps(50):
        mA1, mA2, mA3, mB, x0, y0 = _mp_point(A1, A2, A3, B, *_split(z0, d))
        mw = to_mp(w)
        _, g0 = _grad_scale(A1, A2, A3, B, w, *_split(z0, d))  # the gradient's magnitude: Newton's stop scales with it
        try:
            xs, ys = O.minimiser(mA1, mA2, mA3, mB, mw, x0, y0, tol=mp.mpf(10) ** -(mp.dps - 10) * max(1.0, g0))
        except ValueError as exc:  # no strict local minimum near z0: outside the rule's hypothesis
            require(False, str(exc))
        zs = mp.matrix(list(xs) + list(ys))
        lam = linalg.eigvalsh(O.hessian_tot(mA1, mA2, mA3, mB, mw, xs, ys))[0]
        require(lam > mp.mpf(10) ** -3, f"λ_min(∇²L_tot(z*)) = {mp.nstr(lam, 3)} is not bounded away from 0")
        zsf = np.array([float(v) for v in zs])
        eta, gmag = _grad_scale(A1, A2, A3, B, w, *_split(zsf, d))
        err = linalg.norm2(to_mp(got) - zs)
        tol = 16 / lam * 2 * eta * gmag + 4 * U * (linalg.norm2(zs) + U * linalg.norm2(to_mp(z0) - zs))
        return within(float(err), float(tol), f"‖ẑ − z*‖ = {mp.nstr(err, 5)} (m = {m})")


_KERNELS = ("forward", "grad_x", "grad_y", "softmax_jvp", "hessian", "sketch", "newton_step")


@ADAPTERS("attention_flops", signature="attention_flops(kernel: str, n: int, d: int) -> float",
          doc=f"FLOPs (XLA cost analysis or operation counts, never clocks) of one kernel on an n × d problem, "
              f"kernel ∈ {_KERNELS} (for lem5.3.time, lem5.4.subcost, sec13.hessian_approx, alg.time)",
          tolerance="a positive finite count (the scaling is judged by the running-time claims)",
          strategy=lambda: st.tuples(st.sampled_from(_KERNELS), st.sampled_from([16, 64]), st.sampled_from([2, 4])),
          max_examples=5, magnitude_corners=lambda: [(_KERNELS[0], 1024, 8)],
          size_corners=lambda: [(_KERNELS[0], 9, 2), (_KERNELS[0], 17, 3), (_KERNELS[0], 65, 2)])
def _flops(inst, fn):
    kernel, n, d = inst
    v = float(output(fn(kernel, n, d), "attention_flops", shape=()))
    return within(0.0 if v > 0 else 1.0, 0.0, f"FLOPs {v} of {kernel} at n = {n}, d = {d}")
