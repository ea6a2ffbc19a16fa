"""Paper 001's loss and its derivatives in balls, for the certificates: L(x) = ½‖f(x) − b‖₂² +
½‖w∘(Ax)‖₂² (def.L) with its gradient and Hessian by second-order forward differentiation (:class:`Jet`),
never the paper's closed forms (which are claims themselves: lem5.6.part5, lem5.13, lem5.15.paperB), and
the minimiser x* enclosed by a Krawczyk test (:func:`minimiser`).

Every value is an ``arb`` enclosure of the exact quantity for the exact (rational) inputs; a point may be a
wide ball, and then the enclosures hold for every point of it (what the Krawczyk test needs)."""

from __future__ import annotations

from flint import arb, arb_mat, ctx

from oracle import ball
from oracle.precision import UndecidableError

__all__ = ["Jet", "loss", "loss_exp", "minimiser", "newton_step"]


class Jet:
    """A value with its gradient and Hessian in d variables (second-order forward differentiation):
    sums, products, reciprocals and exp follow the chain rule exactly, so the derivatives of a formula
    are those of the function it computes, whatever closed form a paper gives for them."""

    __slots__ = ("g", "h", "v")

    def __init__(self, v, g, h):
        self.v, self.g, self.h = v, g, h

    @staticmethod
    def linear(coefficients, x) -> Jet:
        """⟨a, x⟩ for a row a of exact coefficients and the point x (a list of balls)."""
        a = [arb(c) for c in coefficients]
        d = len(a)
        return Jet(sum((ai * xi for ai, xi in zip(a, x)), arb(0)), a, [[arb(0)] * d for _ in range(d)])

    def _lift(self, other) -> Jet:
        if isinstance(other, Jet):
            return other
        d = len(self.g)
        return Jet(arb(other), [arb(0)] * d, [[arb(0)] * d for _ in range(d)])

    def __add__(self, other):
        o = self._lift(other)
        return Jet(self.v + o.v, [a + b for a, b in zip(self.g, o.g)],
                   [[a + b for a, b in zip(r, s)] for r, s in zip(self.h, o.h)])

    __radd__ = __add__

    def __neg__(self):
        return Jet(-self.v, [-a for a in self.g], [[-a for a in r] for r in self.h])

    def __sub__(self, other):
        return self + (-self._lift(other))

    def __mul__(self, other):
        o = self._lift(other)
        d = len(self.g)
        return Jet(self.v * o.v, [self.v * o.g[i] + o.v * self.g[i] for i in range(d)],
                   [[self.v * o.h[i][j] + o.v * self.h[i][j] + self.g[i] * o.g[j] + o.g[i] * self.g[j]
                     for j in range(d)] for i in range(d)])

    __rmul__ = __mul__

    def _apply(self, f0, f1, f2) -> Jet:
        """φ∘self for φ with φ(v) = f0, φ'(v) = f1, φ''(v) = f2."""
        d = len(self.g)
        return Jet(f0, [f1 * a for a in self.g],
                   [[f1 * self.h[i][j] + f2 * self.g[i] * self.g[j] for j in range(d)] for i in range(d)])

    def exp(self) -> Jet:
        e = self.v.exp()
        return self._apply(e, e, e)

    def reciprocal(self) -> Jet:
        r = 1 / self.v
        return self._apply(r, -r * r, 2 * r * r * r)

    def gradient(self) -> arb_mat:
        return arb_mat([[a] for a in self.g])

    def hessian(self) -> arb_mat:
        return arb_mat(self.h)


def loss_exp(A, b, x) -> Jet:
    """L_exp(x) = ½‖f(x) − b‖₂², f(x) = exp(Ax)/⟨exp(Ax), 1_n⟩ (def.L_exp), with its derivatives at x."""
    A, b = ball.rational_matrix(A), ball.entries(ball.matrix(b))
    rows = [[A[i, j] for j in range(A.ncols())] for i in range(A.nrows())]
    e = [Jet.linear(r, x).exp() for r in rows]
    inv = sum(e[1:], e[0]).reciprocal()
    residual = [ei * inv - bi for ei, bi in zip(e, b)]
    return sum((r * r for r in residual[1:]), residual[0] * residual[0]) * arb(0.5)


def loss(A, b, w, x) -> Jet:
    """L(x) = L_exp(x) + ½‖w∘(Ax)‖₂² (def.L), with its derivatives at x."""
    Aq, w = ball.rational_matrix(A), ball.entries(ball.matrix(w))
    reg = [Jet.linear([Aq[i, j] for j in range(Aq.ncols())], x) * wi for i, wi in enumerate(w)]
    return loss_exp(A, b, x) + sum((r * r for r in reg[1:]), reg[0] * reg[0]) * arb(0.5)


def newton_step(A, b, w, x, H_tilde) -> list[arb]:
    """x − H̃⁻¹∇L(x) (Algorithm 1's step), enclosed."""
    g = loss(A, b, w, x).gradient()
    step = ball.matrix(H_tilde).solve(g)
    return [xi - step[i, 0] for i, xi in enumerate(x)]


def _mid(x: arb) -> arb:
    return arb(x.mid())


def minimiser(A, b, w, start) -> list[arb]:
    """An enclosure of x* = argmin L: Newton's iteration in balls from ``start`` (midpoints kept) finds x̂,
    then the Krawczyk operator K(X) = x̂ − Y∇L(x̂) + (I − Y∇²L(X))(X − x̂), Y ≈ ∇²L(x̂)⁻¹, maps a box X
    around x̂ into its interior, which proves a unique zero of ∇L in X, inside K(X).  It is x*: L is
    strictly convex (∇²L = Aᵀ(B + W²)A with ‖B(x)‖ < 100 ≤ w_i² on the simplex, lem6.3), so its one
    stationary point is its minimiser.  Raises :class:`UndecidableError` when the box cannot be verified."""
    x = [_mid(v) for v in start]
    d = len(x)
    for _ in range(100):
        jet = loss(A, b, w, x)
        step = jet.hessian().solve(jet.gradient())
        x = [_mid(xi - step[i, 0]) for i, xi in enumerate(x)]
        if all(abs(step[i, 0].mid()) <= abs(x[i].mid()) * arb(2) ** (-ctx.prec + 8) + arb(2) ** -1000
               for i in range(d)):
            break
    jet = loss(A, b, w, x)
    Y = arb_mat([[_mid(v) for v in row] for row in jet.hessian().mid().inv().tolist()])
    shift = Y * jet.gradient()
    radii = [abs(shift[i, 0]).upper() * 4 + abs(x[i]).upper() * arb(2) ** (-ctx.prec + 16) + arb(2) ** -900
             for i in range(d)]
    for _ in range(8):
        X = [arb(x[i].mid(), radii[i].mid()) for i in range(d)]
        HX = loss(A, b, w, X).hessian()
        delta = arb_mat([[X[i] - x[i]] for i in range(d)])
        K = arb_mat([[x[i]] for i in range(d)]) - shift + (arb_mat(d, d, [1 if i == j else 0 for i in range(d)
                                                                         for j in range(d)]) - Y * HX) * delta
        if all(X[i].contains_interior(K[i, 0]) for i in range(d)):
            return [K[i, 0] for i in range(d)]
        radii = [r * 4 for r in radii]
    raise UndecidableError(f"the Krawczyk test did not verify a box around x* at {ctx.prec} bits")
