"""JAX with 64-bit floats as the linear-algebra adapters and the softmax-regression loss, gradient
and Hessian (jax.nn.softmax, which shifts by the max, differentiated by jax.grad / jax.hessian)."""

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402


def spectral_norm(A):
    return float(jnp.linalg.norm(jnp.asarray(A), 2))


def sigma_min(A):
    return float(jnp.linalg.svd(jnp.asarray(A), compute_uv=False)[-1])


def condition_number(A):
    return float(jnp.linalg.cond(jnp.asarray(A)))


def lstsq(A, b):
    return np.asarray(jnp.linalg.lstsq(jnp.asarray(A), jnp.asarray(b))[0])


def kron(x, y):
    return np.asarray(jnp.kron(jnp.asarray(x), jnp.asarray(y)))


@jax.jit
def _loss(A, b, w, x):
    u = A @ x
    return 0.5 * jnp.sum((jax.nn.softmax(u) - b) ** 2) + 0.5 * jnp.sum((w * u) ** 2)


_grad = jax.jit(jax.grad(_loss, argnums=3))
_hess = jax.jit(jax.hessian(_loss, argnums=3))


def softmax_loss(A, b, w, x):
    return float(_loss(A, b, w, x))


def softmax_gradient(A, b, w, x):
    return np.asarray(_grad(A, b, w, x))


def softmax_hessian(A, b, w, x):
    return np.asarray(_hess(A, b, w, x))
