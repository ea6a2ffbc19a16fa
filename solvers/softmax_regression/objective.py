"""The objective of regularised softmax regression: validation, jitted kernels, L, ∇L, ∇²L, B(x).

Spec ``spec/softmax_regression.md`` §2 (``def.*``; claim ids carry the prefix
``softmax_regression.``).  With ``u = A x``, ``f = softmax(u)`` (``def.f``), ``c = f − b``
(``def.c``), ``W = diag(w)``, ``v = f ∘ (2f − b)`` and ``κ₁ = 3‖f‖² − 2⟨b, f⟩``::

    L(x)   = 0.5 ‖f − b‖² + 0.5 ‖W A x‖²                                  (def.L)
    ∇L(x)  = Aᵀ( f∘c − ⟨c,f⟩ f + w²∘u )                                    (def.grad_L)
    B(x)   = diag(v − ⟨c,f⟩ f) + κ₁ f fᵀ − v fᵀ − f vᵀ   (B_diag + B_rank, def.B_rank_diag)
    ∇²L(x) = Aᵀ diag(w² + v − ⟨c,f⟩ f) A + κ₁ (Aᵀf)(Aᵀf)ᵀ − (Aᵀv)(Aᵀf)ᵀ − (Aᵀf)(Aᵀv)ᵀ

so the Hessian costs one weighted Gram matrix, ``O(n d²)``, and never forms an ``n × n`` matrix.

The kernels (``u = A x`` throughout) are public for the other modules of this package (Newton
methods); the public functions of the paper are :func:`loss`, :func:`gradient`, :func:`hessian`
and :func:`hessian_kernel_B`.  Every public function validates its arguments (``ValueError`` in
the form ``name=... must be ...``) and raises ``ValueError`` naming the overflow when a result is
not representable in float64 (for example ``L(x)`` at ``‖W A x‖ ≳ 1e154``): it never returns NaN
or inf for finite input.  XLA on CPU computes ``Aᵀ r`` much faster written as ``r @ A`` than as
``A.T @ r``, so the kernels use that form.
"""

from __future__ import annotations

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from .._validation import all_finite, check_array, require_finite  # noqa: E402

__all__ = [
    "gradient",
    "grad_residual",
    "hessian",
    "hessian_from_u",
    "hessian_kernel_B",
    "kernel_parts",
    "loss",
    "loss_u",
    "newton_state",
    "newton_state_fused",
    "rank2_from",
    "rank2_term",
    "softmax",
    "squared_weights",
    "symmetrize",
    "validate_problem",
    "validate_x",
    "weighted_gram",
]

# Rows per chunk of the weighted Gram matrix Aᵀ diag(D) A (bounds the temporary D∘A).
_GRAM_CHUNK = 8192
# Dense B(x) is n × n; refuse absurd sizes.
_MAX_DENSE_N = 8192


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------


def validate_problem(A, b, w, check_A_finite: bool = True):
    """Shapes, dtypes, non-emptiness and finiteness.  ``check_A_finite=False`` skips the
    finiteness pass over A for a caller that checks it in its own first pass."""
    A = check_array("A", A, ndim=2, finite=check_A_finite)
    n, d = A.shape
    b = check_array("b", b, ndim=1)
    if b.shape != (n,):
        raise ValueError(f"b (shape={tuple(b.shape)}) must have shape (n,)=({n},) to match A")
    w = check_array("w", w, ndim=1)
    if w.shape != (n,):
        raise ValueError(f"w (shape={tuple(w.shape)}) must have shape (n,)=({n},) to match A")
    return A, b, w


def validate_x(x, d: int, name: str = "x"):
    x = check_array(name, x, ndim=1)
    if x.shape != (d,):
        raise ValueError(f"{name} (shape={tuple(x.shape)}) must have shape (d,)=({d},) to match A")
    return x


def squared_weights(w) -> jax.Array:
    """w∘w, or ValueError when some w_i² overflows float64."""
    w2 = w * w
    if not bool(all_finite(w2)):
        raise ValueError(f"w (max |w_i| = {float(jnp.max(jnp.abs(w))):.3g}) must have every w_i² finite "
                         "in float64 (w_i² overflows)")
    return w2


def _overflow_hint(A, x) -> str:
    u = np.asarray(A @ x)
    return f"max|(A x)_i| = {float(np.max(np.abs(u))):.3g}, max|x_i| = {float(jnp.max(jnp.abs(x))):.3g}"


# --------------------------------------------------------------------------------------------
# Jitted kernels (u = A x throughout)
# --------------------------------------------------------------------------------------------


def softmax(u):
    e = jnp.exp(u - jnp.max(u))
    return e / jnp.sum(e)


def loss_u(u, b, w2):
    c = softmax(u) - b
    return 0.5 * jnp.dot(c, c) + 0.5 * jnp.dot(w2 * u, u)  # (w²u)·u: no spurious u² overflow


def grad_residual(u, b, w2):
    """r with ∇L = Aᵀ r: r = f∘c − ⟨c,f⟩ f + w²∘u (def.g, def.grad_L)."""
    f = softmax(u)
    c = f - b
    return f * c - jnp.dot(c, f) * f + w2 * u


def kernel_parts(u, b):
    """(B_diag vector, f, v, κ₁) of def.B_rank_diag."""
    f = softmax(u)
    c = f - b
    v = f * (2.0 * f - b)
    bdiag = v - jnp.dot(c, f) * f
    kappa1 = 3.0 * jnp.dot(f, f) - 2.0 * jnp.dot(b, f)
    return bdiag, f, v, kappa1


def weighted_gram(A, D):
    """Aᵀ diag(D) A, in row chunks so that no n × d temporary is formed for large n."""
    n, d = A.shape
    nfull = n // _GRAM_CHUNK
    if nfull < 2:
        return (D[:, None] * A).T @ A
    split = nfull * _GRAM_CHUNK
    Ac = A[:split].reshape(nfull, _GRAM_CHUNK, d)
    Dc = D[:split].reshape(nfull, _GRAM_CHUNK)

    def body(H, xs):
        a, dd = xs
        return H + (dd[:, None] * a).T @ a, None

    H, _ = jax.lax.scan(body, jnp.zeros((d, d), A.dtype), (Ac, Dc))
    if split < n:
        H = H + (D[split:, None] * A[split:]).T @ A[split:]
    return H


def rank2_term(A, f, v, kappa1):
    """κ₁ (Aᵀf)(Aᵀf)ᵀ − (Aᵀv)(Aᵀf)ᵀ − (Aᵀf)(Aᵀv)ᵀ (Aᵀ B_rank A, def.B_rank_diag)."""
    FV = jnp.stack([f, v]) @ A
    af, av = FV[0], FV[1]
    return kappa1 * jnp.outer(af, af) - jnp.outer(av, af) - jnp.outer(af, av)


def symmetrize(H):
    return 0.5 * (H + H.T)


@jax.jit
def _loss_kernel(A, b, w2, x):
    return loss_u(A @ x, b, w2)


@jax.jit
def _gradient_kernel(A, b, w2, x):
    return grad_residual(A @ x, b, w2) @ A


@jax.jit
def hessian_from_u(A, b, w2, u):
    bdiag, f, v, kappa1 = kernel_parts(u, b)
    H = weighted_gram(A, w2 + bdiag) + rank2_term(A, f, v, kappa1)
    return symmetrize(H)


@jax.jit
def _hessian_kernel(A, b, w2, x):
    return hessian_from_u(A, b, w2, A @ x)


@jax.jit
def _dense_B(A, b, x):
    bdiag, f, v, kappa1 = kernel_parts(A @ x, b)
    return jnp.diag(bdiag) + kappa1 * jnp.outer(f, f) - jnp.outer(v, f) - jnp.outer(f, v)


@jax.jit
def newton_state(A, b, w2, x):
    """u = A x, L(x), ∇L(x), ‖∇L(x)‖."""
    u = A @ x
    g = grad_residual(u, b, w2) @ A
    return u, loss_u(u, b, w2), g, jnp.linalg.norm(g)


@jax.jit
def newton_state_fused(A, b, w2, u):
    """From u = A x: L(x), ∇L(x), ‖∇L(x)‖ and Aᵀf, Aᵀv (the rank-2 part of the Hessian), with
    one pass over A ([r; f; v] A)."""
    r = grad_residual(u, b, w2)
    _, f, v, _ = kernel_parts(u, b)
    P = jnp.stack([r, f, v]) @ A
    g = P[0]
    return loss_u(u, b, w2), g, jnp.linalg.norm(g), P[1], P[2]


@jax.jit
def rank2_from(af, av, kappa1):
    return kappa1 * jnp.outer(af, af) - jnp.outer(av, af) - jnp.outer(af, av)


# --------------------------------------------------------------------------------------------
# Public functions of the paper
# --------------------------------------------------------------------------------------------


def loss(A, b, w, x) -> jax.Array:
    """Regularised softmax-regression loss L(x) (spec ``def.L``).

    L(x) = 0.5‖softmax(Ax) − b‖₂² + 0.5‖diag(w) A x‖₂², with the overflow-safe softmax of
    ``def.f`` (finite for any finite ``Ax``).  ValueError when L(x) itself overflows float64
    (e.g. ‖W A x‖ ≳ 1.9e154) or ``A x`` does.

    **Arguments:** ``A`` (n, d); ``b`` (n,); ``w`` (n,); ``x`` (d,). Real, finite, non-empty.

    **Returns:** a float64 scalar (0-d JAX array).
    """
    A, b, w = validate_problem(A, b, w)
    x = validate_x(x, A.shape[1])
    return require_finite("L(x)", _loss_kernel(A, b, squared_weights(w), x), hint=lambda: _overflow_hint(A, x))


def gradient(A, b, w, x) -> jax.Array:
    """Gradient ∇L(x) = Aᵀ(f∘c − ⟨c,f⟩f) + AᵀW²Ax (spec ``def.g``, ``def.grad_L``).

    **Arguments:** as :func:`loss`.

    **Returns:** float64 array of shape (d,).
    """
    A, b, w = validate_problem(A, b, w)
    x = validate_x(x, A.shape[1])
    return require_finite("∇L(x)", _gradient_kernel(A, b, squared_weights(w), x), hint=lambda: _overflow_hint(A, x))


def hessian(A, b, w, x) -> jax.Array:
    """Hessian ∇²L(x) = Aᵀ(B(x) + W²)A (spec ``def.B``, ``def.hessian_L``).

    Built from the structure B = B_diag + B_rank (``def.B_rank_diag``): one weighted Gram
    matrix Aᵀ diag(w² + B_diag) A plus a rank-2 correction from Aᵀf and Aᵀv, cost O(n d²),
    memory O(n + d²) beyond A.  Never forms an n × n matrix.

    **Arguments:** as :func:`loss`.

    **Returns:** float64 symmetric array of shape (d, d).
    """
    A, b, w = validate_problem(A, b, w)
    x = validate_x(x, A.shape[1])
    return require_finite("∇²L(x)", _hessian_kernel(A, b, squared_weights(w), x), hint=lambda: _overflow_hint(A, x))


def hessian_kernel_B(A, b, x) -> jax.Array:
    """The n × n Hessian kernel B(x) of ``def.B`` (so that ∇²L_exp(x) = Aᵀ B(x) A).

    B(x) = ⟨3f − 2b, f⟩ f fᵀ − v fᵀ − f vᵀ + diag(v) − ⟨c, f⟩ diag(f), v = f∘(2f − b).
    Dense, O(n²) memory: for tests and small n only.

    **Arguments:** ``A`` (n, d) with n ≤ 8192; ``b`` (n,); ``x`` (d,).

    **Returns:** float64 array of shape (n, n).
    """
    A = check_array("A", A, ndim=2)
    n, d = A.shape
    if n > _MAX_DENSE_N:
        raise ValueError(f"A (n={n} rows) must have n <= {_MAX_DENSE_N} for the dense kernel B; "
                         "use hessian() for large n")
    b = check_array("b", b, ndim=1)
    if b.shape != (n,):
        raise ValueError(f"b (shape={tuple(b.shape)}) must have shape (n,)=({n},) to match A")
    x = validate_x(x, d)
    return require_finite("B(x)", _dense_B(A, b, x), hint=lambda: _overflow_hint(A, x))
