"""Single-layer attention optimisation in matrix-multiplication time (paper 003, Gao–Song–Wang–Yin;
spec ``shared/spec/attention_optimization.md``), in JAX (float64, jit, device-agnostic).

Objective (spec def.loss, the body's normalisation): L_half(X, Y) = ½‖S(X)A3Y − B‖_F² with
S(X) = D(X)⁻¹exp(A1XA2ᵀ), plus the regulariser L_reg (spec def.reg_x reading (b) by default,
def.reg_y): L_tot = L_half + (d/2)‖A1XA2ᵀW^{p/2}‖_F² + ½‖WA3Y‖_F², W = diag(w), p = 1 (reading b)
or 2 (reading a).  Conventions: x = vec_row(X) (``X.reshape(-1)``), y stacks the columns of Y
(``Y.T.reshape(-1)``), z = (x, y) ∈ R^{2d²}.

- :func:`forward` (alg.forward): S, H = A3Y, C = SH − B in O(T_mat(n,n,d) + T_mat(n,d,d)).
- :func:`grad_x`, :func:`grad_y` (alg.grad_x_matrix, alg.grad_y; Lemmas 5.4, 5.5): ∇_X L_half =
  A1ᵀQA2 with Q = S∘P − diag((S∘P)1)S, P = CHᵀ; ∇_Y L_half = A3ᵀSᵀC.  A1 ⊗ A2 (n² × d²) is never formed.
- :func:`hessian_blocks`: H_xx = Σ_{j0} (a_{j0}ᵀa_{j0}) ⊗ (A2ᵀ𝔅_{j0}A2) (spec def.H_xx, efficient exact
  form), H_xy (spec def.B_xy_true through the Kronecker structure), H_yy = I_d ⊗ A3ᵀSᵀSA3, in
  O(n²d² + nd⁴) time and O(n² + nd²) memory.
- :func:`sketched_gram` (alg.tensorsrht_hessian): (SÂ)ᵀ(SÂ) for Â = A1 ⊗ Wd^{1/2}A2 with a TensorSRHT S
  (``solvers.sketches``), ≈ Σ_{j0} 𝖠_{j0}ᵀWd𝖠_{j0}, without forming Â's rows.
- :func:`newton` (alg.newton): z ← z − H̃⁻¹∇L_tot(z), one compiled step per update, run by the shared
  driver :func:`solvers.newton.iterate`; H̃ exact or with the x-regulariser block replaced by d·(its
  TensorSRHT sketch) (``model="full"``), or blockdiag(x-regulariser block, I_d ⊗ K_y) with that block
  Kronecker-exact or sketched once (``model="block"``, the spec's intended use of the sketch).
- :func:`flops`: XLA cost analysis of each kernel (for the running-time claims).

Bad input raises ``ValueError`` naming the argument (shape mismatch between A1, A2, A3, B; X, Y
not d × d; NaN/inf; w negative under reading (b); d > n where σ_min(A3) > 0 is needed; sizes whose
arrays exceed this machine's memory, checked before allocating).  No result is NaN or inf: L_half
and its derivatives are homogeneous in (A3, B) and in (Y, B) (degree 2 each for L_half, ∇_X, H_xx;
∇_Y and H_xy degree 1 in (Y, B); H_yy degree 0 in it), so a result whose computation overflowed in an
intermediate step is recomputed on A3·2^−a, Y·2^−b, B·2^−(a+b) (a, b the exponents of max|A3|,
max|Y|; exact) and scaled back; a result beyond float64, overflowing logits A1XA2ᵀ, or a regularised
quantity (L_tot and its derivatives, not homogeneous) that overflows raise ``ValueError`` naming the
overflow.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from . import sketches
from ._validation import check_array, check_int, is_finite
from .memory import check_fits
from .newton import Result, Step, iterate
from .results import Status

__all__ = [
    "KERNELS", "MODELS", "READINGS", "Problem", "flops", "forward", "grad_x", "grad_y", "gradient_tot", "hessian_blocks",
    "hessian_tot", "loss", "loss_tot", "newton", "newton_step", "problem", "sketched_gram", "sketch_rows",
    "softmax_jvp",
]

READINGS = ("a", "b")


class Problem(NamedTuple):
    """Validated data: A1, A2, A3, B (n, d) and w (n,) or None (no regulariser)."""

    A1: jax.Array
    A2: jax.Array
    A3: jax.Array
    B: jax.Array
    w: jax.Array | None


def problem(A1, A2, A3, B, w=None, *, reading: str = "b", need_n_ge_d: bool = False) -> Problem:
    """Validate the data (``ValueError`` naming the argument and the rule)."""
    A1 = check_array("A1", A1, ndim=2)
    n, d = A1.shape
    arrs = [A1]
    for name, M in (("A2", A2), ("A3", A3), ("B", B)):
        M = check_array(name, M, ndim=2)
        if M.shape != (n, d):
            raise ValueError(f"{name}.shape={M.shape} must equal A1.shape={(n, d)}")
        arrs.append(M)
    if reading not in READINGS:
        raise ValueError(f"reading={reading!r} must be one of {READINGS}")
    if w is not None:
        w = check_array("w", w, ndim=1)
        if w.shape != (n,):
            raise ValueError(f"w.shape={w.shape} must be (n,)={(n,)}")
        if reading == "b" and bool(jnp.any(w < 0)):
            raise ValueError("w must be >= 0 under reading (b) (the regulariser uses W^{1/2})")
    if need_n_ge_d and d > n:
        raise ValueError(f"A1.shape={(n, d)}: d={d} must be <= n={n}")
    check_fits(8 * 4 * n * n, "the n × n attention matrices (S, CHᵀ and their products)", n=n)
    return Problem(*arrs, w)


def _fits_hessian(n, d):
    """The Hessian blocks' arrays: three d² × d² blocks and the n × d × d tensors of their exact form."""
    check_fits(8 * (7 * d ** 4 + 8 * n * d * d), "the Hessian blocks (7 d⁴ and 8 n d² entries)", n=n, d=d)


def _fits_sketch(n, d, m):
    """The TensorSRHT Gram's arrays: the two transforms (N × d), the m × d² rows and the d² × d² Gram."""
    check_fits(8 * (2 * sketches.next_pow2(n) * d + m * d * d + d ** 4), "the sketched Gram (m d² + d⁴ entries)",
               n=n, d=d, m=m)


def _square(M, name, d):
    M = check_array(name, M, ndim=2)
    if M.shape != (d, d):
        raise ValueError(f"{name}.shape={M.shape} must be (d, d)={(d, d)}")
    return M


def _xy(p: Problem, X, Y):
    d = p.A1.shape[1]
    return _square(X, "X", d), _square(Y, "Y", d)


# ----------------------------------------------------------------------------- kernels (jitted)

@jax.jit
def _forward(A1, A2, A3, B, X, Y):
    Z = (A1 @ X) @ A2.T
    S = jax.nn.softmax(Z, axis=1)  # subtracts the row max (alg.forward step 2)
    H = A3 @ Y
    C = S @ H - B
    return S, H, C


@jax.jit
def _loss(A1, A2, A3, B, X, Y):
    _, _, C = _forward(A1, A2, A3, B, X, Y)
    return 0.5 * jnp.sum(C * C)


@jax.jit
def _grad_x(A1, A2, A3, B, X, Y):
    S, H, C = _forward(A1, A2, A3, B, X, Y)
    SP = S * (C @ H.T)  # S ∘ P, P = CHᵀ
    Q = SP - jnp.sum(SP, axis=1, keepdims=True) * S
    return (A1.T @ Q) @ A2


@jax.jit
def _grad_y(A1, A2, A3, B, X, Y):
    S, _, C = _forward(A1, A2, A3, B, X, Y)
    return A3.T @ (S.T @ C)


@jax.jit
def _softmax_jvp(f, h):
    """(diag f − ffᵀ)h = f∘h − ⟨f,h⟩f in O(n) (Lemma 5.4's sub-cost)."""
    return f * h - jnp.dot(f, h) * f


@jax.jit
def _hessian_blocks(A1, A2, A3, B, X, Y):
    S, H, C = _forward(A1, A2, A3, B, X, Y)
    n, d = A1.shape
    G = S @ H  # rows g_{j0} = Hᵀf_{j0}
    Sa2 = S @ A2  # rows A2ᵀf_{j0}
    Sa3 = S @ A3  # rows A3ᵀf_{j0}
    P = jnp.einsum("jk,kb,ki->jbi", S, A2, H)  # A2ᵀ D_f H per row j0 (d × d)
    gc = G + C
    u = jnp.einsum("jbi,ji->jb", P, gc)
    coef = jnp.sum(G * G, axis=1) + 2 * jnp.sum(G * C, axis=1)
    W4 = S * (C @ H.T)  # f ∘ (H c) per row
    T4 = jnp.einsum("jk,kb,kc->jbc", W4, A2, A2)
    T5 = jnp.einsum("jk,kb,kc->jbc", S, A2, A2) * jnp.sum(G * C, axis=1)[:, None, None]
    M = (jnp.einsum("jbi,jci->jbc", P, P) - u[:, :, None] * Sa2[:, None, :] - Sa2[:, :, None] * u[:, None, :]
         + coef[:, None, None] * Sa2[:, :, None] * Sa2[:, None, :] + T4 - T5)  # A2ᵀ𝔅_{j0}A2
    Hxx = jnp.einsum("ja,jc,jbe->abce", A1, A1, M).reshape(d * d, d * d)
    Q = P - Sa2[:, :, None] * G[:, None, :]  # A2ᵀ(diag f − ffᵀ)h_{i0}, [j, b, i0]
    N = jnp.einsum("jk,kb,ke->jbe", S, A2, A3) - Sa2[:, :, None] * Sa3[:, None, :]  # A2ᵀ(diag f − ffᵀ)A3
    blocks = jnp.einsum("jbi,je->jbie", Q, Sa3) + C[:, None, :, None] * N[:, :, None, :]
    Hxy = jnp.einsum("ja,jbie->abie", A1, blocks).reshape(d * d, d * d)
    Hyy = jnp.kron(jnp.eye(d, dtype=A1.dtype), Sa3.T @ Sa3)
    return Hxx, Hxy, Hyy


def _reg_parts(A1, A2, A3, w, p):
    d = A1.shape[1]
    wp = w ** p
    Gx = d * jnp.kron(A1.T @ A1, (A2.T * wp[None, :]) @ A2)
    Gy = jnp.kron(jnp.eye(d, dtype=A1.dtype), (A3.T * (w ** 2)[None, :]) @ A3)
    return Gx, Gy


@partial(jax.jit, static_argnames=("p",))
def _loss_tot(A1, A2, A3, B, w, X, Y, p):
    d = A1.shape[1]
    Z = (A1 @ X) @ A2.T
    H = A3 @ Y
    return _loss(A1, A2, A3, B, X, Y) + 0.5 * d * jnp.sum(Z * Z * w[None, :] ** p) + 0.5 * jnp.sum((w[:, None] * H) ** 2)


def _gradient_parts(A1, A2, A3, B, w, X, Y, p):
    """(∇L_tot, SA3) from one forward pass: ∇_X = A1ᵀ(Q + d·Z∘w^p)A2 (loss and regulariser through one
    n × n product) and ∇_Y = A3ᵀ(SᵀC + W²H): five T_mat(n, n, d) products (SA3 a sixth, where used)."""
    d = A1.shape[1]
    Z = (A1 @ X) @ A2.T
    S = jax.nn.softmax(Z, axis=1)
    H = A3 @ Y
    C = S @ H - B
    SP = S * (C @ H.T)
    Q = SP - jnp.sum(SP, axis=1, keepdims=True) * S + d * Z * w[None, :] ** p
    gx = (A1.T @ Q) @ A2
    gy = A3.T @ (S.T @ C + (w ** 2)[:, None] * H)
    return jnp.concatenate([gx.reshape(-1), gy.T.reshape(-1)]), S @ A3


@partial(jax.jit, static_argnames=("p",))
def _gradient_tot(A1, A2, A3, B, w, X, Y, p):
    return _gradient_parts(A1, A2, A3, B, w, X, Y, p)[0]


@partial(jax.jit, static_argnames=("p",))
def _hessian_tot(A1, A2, A3, B, w, X, Y, p):
    Hxx, Hxy, Hyy = _hessian_blocks(A1, A2, A3, B, X, Y)
    Gx, Gy = _reg_parts(A1, A2, A3, w, p)
    return jnp.block([[Hxx + Gx, Hxy], [Hxy.T, Hyy + Gy]])


def _split(z, d):
    k = d * d
    return z[:k].reshape(d, d), z[k:].reshape(d, d).T


# ----------------------------------------------------------------------------- no silent inf/NaN

def _exponent(M) -> int:
    """e with max|M| in [2^(e−1), 2^e) (0 for M = 0)."""
    top = float(np.max(np.abs(M)))
    return int(np.frexp(top)[1]) if top > 0 else 0


def _overflow(what, p, X, Y, w=None):
    tops = ", ".join(f"max |{k}| = {float(np.max(np.abs(np.asarray(v)))):.3g}"
                     for k, v in (("A1", p.A1), ("A2", p.A2), ("A3", p.A3), ("B", p.B), ("X", X), ("Y", Y), ("w", w))
                     if v is not None)
    Z = (np.asarray(p.A1) @ np.asarray(X)) @ np.asarray(p.A2).T
    if not np.all(np.isfinite(Z)):
        return ValueError(f"{what} is not finite in float64: the logits A1XA2ᵀ overflow ({tops})")
    return ValueError(f"{what} is not finite in float64: it overflows ({tops})")


def _half(kernel, degrees, what, p: Problem, X, Y):
    """``kernel(A1, A2, A3, B, X, Y)`` of L_half, each output finite: when the direct computation is not,
    it runs on (A3·2^−a, Y·2^−b, B·2^−(a+b)) and output i is scaled back by 2^(ka·a + kb·b) with
    ``degrees[i] = (ka, kb)`` (the degrees in (A3, B) and in (Y, B)); ValueError naming the overflow when
    that rescaling is not exact or the result is beyond float64."""
    out = kernel(*p[:4], X, Y)
    if is_finite(out):
        return out
    A3, B, Yh = np.asarray(p.A3), np.asarray(p.B), np.asarray(Y)
    a, b = _exponent(A3), _exponent(Yh)
    scaled = (np.ldexp(A3, -a), np.ldexp(Yh, -b), np.ldexp(B, -(a + b)))
    if not all(np.array_equal(np.ldexp(s, e), t) for s, e, t in zip(scaled, (a, b, a + b), (A3, Yh, B))):
        raise _overflow(what, p, X, Y)  # a scaled entry would leave the normal range: not exact
    out = kernel(p.A1, p.A2, jnp.asarray(scaled[0]), jnp.asarray(scaled[2]), X, jnp.asarray(scaled[1]))
    single = not isinstance(out, tuple)
    with np.errstate(over="ignore"):
        back = tuple(np.ldexp(np.asarray(o), ka * a + kb * b)
                     for o, (ka, kb) in zip((out,) if single else out, degrees))
    if not all(np.all(np.isfinite(o)) for o in back):
        raise _overflow(what, p, X, Y)
    back = tuple(jnp.asarray(o) for o in back)
    return back[0] if single else back


def _tot(kernel, what, p: Problem, X, Y, pw):
    """``kernel(A1, A2, A3, B, w, X, Y, p)`` of L_tot (not homogeneous), finite or ValueError naming the overflow."""
    out = kernel(*p[:4], p.w, X, Y, pw)
    if not is_finite(out):
        raise _overflow(what, p, X, Y, p.w)
    return out


# ----------------------------------------------------------------------------- public functions

def forward(A1, A2, A3, B, X, Y):
    """alg.forward (Lemma 5.3): ``(S, H, C)`` with S = softmax rows of A1XA2ᵀ, H = A3Y, C = SH − B."""
    p = problem(A1, A2, A3, B)
    return _half(_forward, ((0, 0), (1, 1), (1, 1)), "S, H or C of alg.forward", p, *_xy(p, X, Y))


def loss(A1, A2, A3, B, X, Y) -> float:
    """L_half(X, Y) = ½‖S(X)A3Y − B‖_F² (spec def.loss; Def 1.2's L is twice this)."""
    p = problem(A1, A2, A3, B)
    return float(_half(_loss, ((2, 2),), "L_half(X, Y)", p, *_xy(p, X, Y)))


def grad_x(A1, A2, A3, B, X, Y) -> jax.Array:
    """∇_X L_half = A1ᵀQA2 (d × d; Lemma 5.4, alg.grad_x_matrix), in O(T_mat(n,n,d) + T_mat(n,d,d))."""
    p = problem(A1, A2, A3, B)
    return _half(_grad_x, ((2, 2),), "∇_X L_half", p, *_xy(p, X, Y))


def grad_y(A1, A2, A3, B, X, Y) -> jax.Array:
    """∇_Y L_half = A3ᵀSᵀ(SA3Y − B) (d × d; Lemma 5.5, alg.grad_y)."""
    p = problem(A1, A2, A3, B)
    return _half(_grad_y, ((2, 1),), "∇_Y L_half", p, *_xy(p, X, Y))


def softmax_jvp(f, h) -> jax.Array:
    """(diag f − ffᵀ)h as f∘h − ⟨f,h⟩f (Lemma 5.4 sub-cost, O(n))."""
    f = check_array("f", f, ndim=1)
    h = check_array("h", h, ndim=1)
    if f.shape != h.shape:
        raise ValueError(f"h.shape={h.shape} must equal f.shape={f.shape}")
    return _softmax_jvp(f, h)


def hessian_blocks(A1, A2, A3, B, X, Y):
    """``(H_xx, H_xy, H_yy)`` of L_half at (X, Y), each d² × d², in the z = (vec_row X, vec_cols Y)
    ordering (spec def.H_xx efficient form, def.B_xy_true, def.H_yy)."""
    p = problem(A1, A2, A3, B)
    _fits_hessian(*p.A1.shape)
    return _half(_hessian_blocks, ((2, 2), (2, 1), (2, 0)), "∇²L_half", p, *_xy(p, X, Y))


def _p(reading):
    if reading not in READINGS:
        raise ValueError(f"reading={reading!r} must be one of {READINGS}")
    return 1 if reading == "b" else 2


def _z(z, d):
    z = check_array("z", z, ndim=1)
    if z.shape != (2 * d * d,):
        raise ValueError(f"z.shape={z.shape} must be (2d²,)={(2 * d * d,)}")
    return z


def loss_tot(A1, A2, A3, B, w, z, *, reading: str = "b") -> float:
    """L_tot(z) = L_half + L_reg at z = (vec_row X, vec_cols Y)."""
    p = problem(A1, A2, A3, B, w, reading=reading)
    X, Y = _split(_z(z, p.A1.shape[1]), p.A1.shape[1])
    return float(_tot(_loss_tot, "L_tot(z)", p, X, Y, _p(reading)))


def gradient_tot(A1, A2, A3, B, w, z, *, reading: str = "b") -> jax.Array:
    """∇L_tot(z) (2d²) in matrix-multiplication time."""
    p = problem(A1, A2, A3, B, w, reading=reading)
    X, Y = _split(_z(z, p.A1.shape[1]), p.A1.shape[1])
    return _tot(_gradient_tot, "∇L_tot(z)", p, X, Y, _p(reading))


def hessian_tot(A1, A2, A3, B, w, z, *, reading: str = "b") -> jax.Array:
    """∇²L_tot(z) (2d² × 2d²): the loss blocks plus blockdiag(H_reg,x, H_reg,y)."""
    p = problem(A1, A2, A3, B, w, reading=reading)
    X, Y = _split(_z(z, p.A1.shape[1]), p.A1.shape[1])
    _fits_hessian(*p.A1.shape)
    return _tot(_hessian_tot, "∇²L_tot(z)", p, X, Y, _p(reading))


def _bits(bits, n):
    try:
        d1, d2 = int(bits["d1"]), int(bits["d2"])
        s1, s2 = np.asarray(bits["signs1"], np.float64), np.asarray(bits["signs2"], np.float64)
        r1, r2 = np.asarray(bits["rows1"], np.int64), np.asarray(bits["rows2"], np.int64)
    except (KeyError, TypeError) as exc:
        raise ValueError(f"bits must be a dict from sketches.tensor_srht_bits ({exc})") from None
    N = sketches.next_pow2(n)
    if (d1, d2) != (n, n) or s1.shape != (N,) or s2.shape != (N,) or r1.shape != r2.shape or r1.ndim != 1:
        raise ValueError(f"bits must be tensor_srht_bits(key, n, n, m) with n={n} (got d1={d1}, d2={d2})")
    return s1, s2, r1, r2


@jax.jit
def _rows(U, V, r1, r2):
    m, d = r1.shape[0], U.shape[1]
    return (U[r1][:, :, None] * V[r2][:, None, :]).reshape(m, d * d) / jnp.sqrt(jnp.asarray(m, U.dtype))


@jax.jit
def _rows_gram(U, V, r1, r2):
    R = _rows(U, V, r1, r2)
    return R.T @ R


def _transformed(bits, A1, C2):
    n = A1.shape[0]
    s1, s2, r1, r2 = _bits(bits, n)
    N = s1.shape[0]
    U = sketches.fwht(jnp.pad(A1, [(0, N - n), (0, 0)]) * s1[:, None])
    V = sketches.fwht(jnp.pad(C2, [(0, N - n), (0, 0)]) * s2[:, None])
    return U, V, jnp.asarray(r1), jnp.asarray(r2)


def sketch_rows(bits: dict, A1, C2) -> jax.Array:
    """S(A1 ⊗ C2) (m × d²) for the TensorSRHT S of ``bits`` (``sketches.tensor_srht_bits(key, n, n, m)``,
    whose matrix is (1/√m)P(H_N D1 ⊗ H_N D2)): row k is (1/√m)(H_N D1 A1)[p_k,:] ⊗ (H_N D2 C2)[q_k,:]
    (spec sec13.implicit_apply): two FWHTs of n × d matrices, O(N log N·d + m d²); A1 ⊗ C2 is never formed."""
    A1 = check_array("A1", A1, ndim=2)
    C2 = check_array("C2", C2, ndim=2)
    if C2.shape != A1.shape:
        raise ValueError(f"C2.shape={C2.shape} must equal A1.shape={A1.shape}")
    (n, d), m = A1.shape, int(np.asarray(bits.get("rows1", ())).shape[0]) if isinstance(bits, dict) else 0
    check_fits(8 * (2 * sketches.next_pow2(n) * d + m * d * d), "the sketched rows (m × d²)", n=n, d=d, m=m)
    return _rows(*_transformed(bits, A1, C2))


def sketched_gram(A1, A2, wd, m: int, *, key) -> jax.Array:
    """alg.tensorsrht_hessian: M̃ = (SÂ)ᵀ(SÂ) ≈ Σ_{j0} 𝖠_{j0}ᵀ diag(wd) 𝖠_{j0}, Â = A1 ⊗ diag(wd)^{1/2}A2,
    S a TensorSRHT with ``m`` rows drawn from ``key`` (d² × d²)."""
    A1 = check_array("A1", A1, ndim=2)
    A2 = check_array("A2", A2, ndim=2)
    if A2.shape != A1.shape:
        raise ValueError(f"A2.shape={A2.shape} must equal A1.shape={A1.shape}")
    wd = check_array("wd", wd, ndim=1)
    if wd.shape != (A1.shape[0],) or bool(jnp.any(wd < 0)):
        raise ValueError(f"wd (shape {wd.shape}) must be a nonnegative vector of length n={A1.shape[0]}")
    n = A1.shape[0]
    _fits_sketch(n, A1.shape[1], check_int("m", m, lo=1))
    bits = sketches.tensor_srht_bits(key, n, n, m)
    return _rows_gram(*_transformed(bits, A1, jnp.sqrt(wd)[:, None] * A2))


def newton_step(A1, A2, A3, B, w, z, H_tilde, *, reading: str = "b") -> jax.Array:
    """One update z − H̃⁻¹∇L_tot(z) with a given H̃ (2d² × 2d²); ValueError if H̃ is singular."""
    g = gradient_tot(A1, A2, A3, B, w, z, reading=reading)
    k = g.shape[0]
    H = check_array("H_tilde", H_tilde, ndim=2)
    if H.shape != (k, k):
        raise ValueError(f"H_tilde.shape={H.shape} must be {(k, k)}")
    step = jnp.linalg.solve(H, g)
    if not bool(jnp.all(jnp.isfinite(step))):
        raise ValueError("H_tilde must be nonsingular")
    return jnp.asarray(z, dtype=jnp.float64) - step


@jax.jit
def _cholesky_solve(H, g):
    L = jnp.linalg.cholesky(H)
    return jax.scipy.linalg.cho_solve((L, True), g)


MODELS = ("full", "block")


class _State(NamedTuple):
    """A Newton iterate z with g = ∇L_tot(z), ‖g‖₂ and K = A3ᵀSᵀSA3 + A3ᵀW²A3 (H_yy + H_reg,y = I_d ⊗ K,
    spec def.H_yy), all from the same forward pass of one compiled step."""

    z: jax.Array
    g: jax.Array
    gnorm: jax.Array
    K: jax.Array


@partial(jax.jit, static_argnames=("p",))
def _start(A1, A2, A3, B, w, z, p):
    d = A1.shape[1]
    g, SA3 = _gradient_parts(A1, A2, A3, B, w, *_split(z, d), p)
    return _State(z, g, jnp.linalg.norm(g), SA3.T @ SA3 + (A3.T * (w ** 2)[None, :]) @ A3)


def _advance(A1, A2, A3, B, w, z, delta, p):
    """(state at z − δ, whether δ is finite): the gradient of the next iterate inside the same compiled step."""
    nxt = _start(A1, A2, A3, B, w, z - delta, p)
    return nxt, jnp.all(jnp.isfinite(delta))


@partial(jax.jit, static_argnames=("p",))
def _full_step(A1, A2, A3, B, w, state, Mx, Gy, p):
    """One alg.newton update with H̃ = [[H_xx + Mx, H_xy], [H_xyᵀ, H_yy + Gy]] (Mx the x-regulariser block,
    exact or d·M̃), Cholesky-solved; the loss blocks by the Kronecker structure (:func:`hessian_blocks`)."""
    d = A1.shape[1]
    Hxx, Hxy, Hyy = _hessian_blocks(A1, A2, A3, B, *_split(state.z, d))
    H = jnp.block([[Hxx + Mx, Hxy], [Hxy.T, Hyy + Gy]])
    return _advance(A1, A2, A3, B, w, state.z, _cholesky_solve(H, state.g), p)


def _y_solve(K, gy):
    """(I_d ⊗ K)⁻¹gy: one d × d Cholesky, since y stacks the columns of Y and (I_d ⊗ K)vec_cols(Y) = vec_cols(KY)."""
    d = K.shape[0]
    return _cholesky_solve(K, gy.reshape(d, d).T).T.reshape(-1)


@partial(jax.jit, static_argnames=("p",))
def _block_step_kron(A1, A2, A3, B, w, state, LP, LQ, p):
    """Block model, exact x-regulariser block d·(P ⊗ Q), P = A1ᵀA1, Q = A2ᵀW^pA2 (LP, LQ their Cholesky
    factors): (P ⊗ Q)⁻¹vec_row(G) = vec_row(P⁻¹GQ⁻¹), O(d³) per solve."""
    d = A1.shape[1]
    k = d * d
    GX = state.g[:k].reshape(d, d)
    DX = jax.scipy.linalg.cho_solve((LQ, True), jax.scipy.linalg.cho_solve((LP, True), GX).T).T / d
    delta = jnp.concatenate([DX.reshape(-1), _y_solve(state.K, state.g[k:])])
    return _advance(A1, A2, A3, B, w, state.z, delta, p)


@partial(jax.jit, static_argnames=("p",))
def _block_step_sketch(A1, A2, A3, B, w, state, Lx, p):
    """Block model, x-regulariser block d·M̃ (TensorSRHT Gram, Lx its Cholesky factor, drawn once)."""
    k = A1.shape[1] ** 2
    dx = jax.scipy.linalg.cho_solve((Lx, True), state.g[:k])
    delta = jnp.concatenate([dx, _y_solve(state.K, state.g[k:])])
    return _advance(A1, A2, A3, B, w, state.z, delta, p)


def _sketch_block(p: Problem, pw, m, key):
    """d·M̃: d times the TensorSRHT Gram of A1 ⊗ W^{p/2}A2 with m rows (alg.tensorsrht_hessian)."""
    bits = sketches.tensor_srht_bits(key, p.A1.shape[0], p.A1.shape[0], m)
    return p.A1.shape[1] * _rows_gram(*_transformed(bits, p.A1, jnp.sqrt(p.w ** pw)[:, None] * p.A2))


def newton(A1, A2, A3, B, w, z0, *, reading: str = "b", m: int = 0, key=0, tol: float = 1e-10,
           max_iter: int = 50, model: str = "full") -> Result:
    """alg.newton: z_{t+1} = z_t − H̃_t⁻¹∇L_tot(z_t) from z0 (2d²), each update one compiled step (the
    Cholesky solve and the gradient at z_{t+1}).  Stops by the shared driver's rule on ‖∇L_tot‖₂ ≤ tol
    (the gradient of the iterate itself, never of a model); a non-positive-definite H̃ ends it with
    ``Status.NOT_POSITIVE_DEFINITE``.

    ``model``:

    - ``"full"`` (default): H̃_t = ∇²L_tot(z_t) exactly (``m = 0``), or with the x-regulariser block
      replaced by d·(its TensorSRHT sketch with ``m`` rows), fresh bits each iteration from
      ``fold_in(key, t)`` (per-iteration failure probability δ/T).  Quadratic convergence for ``m = 0``.
    - ``"block"``: H̃ = blockdiag(H_x, I_d ⊗ (A3ᵀSᵀSA3 + A3ᵀW²A3)), the spec's intended use of
      alg.tensorsrht_hessian when W dominates the loss Hessian: H_x = d·(A1ᵀA1) ⊗ (A2ᵀW^pA2) solved through
      its Kronecker factors in O(d³) (``m = 0``), or d·M̃ from one TensorSRHT of ``m`` rows drawn from
      ``key`` and factored once (H_x does not depend on z).  H_xx of the loss and H_xy are left out, so
      the convergence is linear, with rate ‖I − H̃⁻¹∇²L_tot‖ near z*; where W does not dominate the
      iteration may not converge, and the status says so.  Per update: the gradient (O(T_mat(n,n,d))),
      a d × d Cholesky and O(d⁴) solves, no n × n × d or d²-by-n work.

    **Returns:** :class:`solvers.newton.Result` (``x`` is the final z).
    """
    p = problem(A1, A2, A3, B, w, reading=reading)
    if p.w is None:
        raise ValueError("w must be given (alg.newton minimises the regularised loss)")
    d = p.A1.shape[1]
    z0 = _z(z0, d)
    m = check_int("m", m, lo=0)  # 0: the exact Hessian
    if model not in MODELS:
        raise ValueError(f"model={model!r} must be one of {MODELS}")
    if model == "full":
        _fits_hessian(*p.A1.shape)
    if m:
        _fits_sketch(*p.A1.shape, m)
    base = sketches.as_key(key)
    pw = _p(reading)
    data = (*p[:4], p.w)

    if model == "full":
        Gx, Gy = _reg_parts(p.A1, p.A2, p.A3, p.w, pw)

        def update(t, state):
            Mx = Gx if m == 0 else _sketch_block(p, pw, m, jax.random.fold_in(base, t))
            return _full_step(*data, state, Mx, Gy, pw)
    elif m == 0:
        LP = jnp.linalg.cholesky(p.A1.T @ p.A1)
        LQ = jnp.linalg.cholesky((p.A2.T * (p.w ** pw)[None, :]) @ p.A2)

        def update(t, state):
            return _block_step_kron(*data, state, LP, LQ, pw)
    else:
        Lx = jnp.linalg.cholesky(_sketch_block(p, pw, m, base))

        def update(t, state):
            return _block_step_sketch(*data, state, Lx, pw)

    def step(t, state):
        nxt, finite = update(t, state)
        if not bool(finite):
            return Status.NOT_POSITIVE_DEFINITE
        return Step(nxt)

    return iterate(step, _start(*data, z0, pw), measure=lambda s: float(s.gnorm), point=lambda s: np.asarray(s.z),
                   tol=tol, max_iter=max_iter)


# ----------------------------------------------------------------------------- FLOP counts

KERNELS = ("forward", "grad_x", "grad_y", "softmax_jvp", "hessian", "sketch", "newton_step")


def flops(kernel: str, n: int, d: int, *, m: int | None = None) -> float:
    """XLA cost analysis (FLOPs) of one compiled kernel on an n × d problem (never clocks).

    ``kernel``: ``forward``, ``grad_x``, ``grad_y`` (Lemmas 5.3–5.5), ``softmax_jvp`` ((diag f − ffᵀ)h
    on length-n vectors), ``hessian`` (the three blocks), ``sketch`` (M̃ with m rows, default 8d², after
    the two FWHTs, whose N·log₂N butterflies per column are added to XLA's count),
    ``newton_step`` (gradient, exact Hessian and the dense solve of one iteration of alg.newton).
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel={kernel!r} must be one of {KERNELS}")
    n, d = check_int("n", n, lo=1), check_int("d", d, lo=1)
    if kernel == "sketch":
        _fits_sketch(n, d, 8 * d * d if m is None else check_int("m", m, lo=1))
    elif kernel in ("hessian", "newton_step"):
        _fits_hessian(n, d)
    if kernel == "softmax_jvp":
        check_fits(8 * 3 * n, "the softmax_jvp kernel's three vectors", n=n)
    elif kernel != "sketch":
        check_fits(8 * (5 * n * d + 4 * n * n), f"the {kernel} kernel's n × n and n × d arrays", n=n, d=d)
    nd = jax.ShapeDtypeStruct((n, d), jnp.float64)
    dd = jax.ShapeDtypeStruct((d, d), jnp.float64)
    vn = jax.ShapeDtypeStruct((n,), jnp.float64)
    if kernel == "forward":
        lowered = _forward.lower(nd, nd, nd, nd, dd, dd)
    elif kernel == "grad_x":
        lowered = _grad_x.lower(nd, nd, nd, nd, dd, dd)
    elif kernel == "grad_y":
        lowered = _grad_y.lower(nd, nd, nd, nd, dd, dd)
    elif kernel == "softmax_jvp":
        lowered = _softmax_jvp.lower(vn, vn)
    elif kernel == "hessian":
        lowered = _hessian_blocks.lower(nd, nd, nd, nd, dd, dd)
    elif kernel == "sketch":
        mm = 8 * d * d if m is None else m
        N = sketches.next_pow2(n)
        Nd = jax.ShapeDtypeStruct((N, d), jnp.float64)
        im = jax.ShapeDtypeStruct((mm,), jnp.int64)
        # XLA counts a loop body once, so the FWHT's butterflies (N·log₂N add/sub per column, two
        # transforms of d columns, plus the sign flips) are counted here; gather, products, Gram by XLA.
        butterflies = 2 * d * (N * max(N.bit_length() - 1, 0) + N)
        return float(_cost(_rows_gram.lower(Nd, Nd, im, im))) + butterflies
    else:
        lowered = _newton_kernel.lower(nd, nd, nd, nd, vn, dd, dd)
    return _cost(lowered)


def _cost(lowered) -> float:
    cost = lowered.compile().cost_analysis()
    if isinstance(cost, (list, tuple)):
        cost = cost[0]
    return float(cost["flops"])


@jax.jit
def _newton_kernel(A1, A2, A3, B, w, X, Y):
    g = _gradient_tot(A1, A2, A3, B, w, X, Y, 1)
    H = _hessian_tot(A1, A2, A3, B, w, X, Y, 1)
    return _cholesky_solve(H, g)
