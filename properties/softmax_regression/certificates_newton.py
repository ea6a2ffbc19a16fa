"""Certificates of paper 001's claims about approximate Newton (Lemmas 8.7, 8.8, Theorem 9.1) and of their
repairs: the iteration x_{t+1} = x_t − H̃_t⁻¹∇L(x_t) repeated in balls on the instance's exact
x_0 and H̃_t, x* enclosed by a Krawczyk test, ∇L and ∇²L by forward differentiation
(:mod:`.certificates_calculus`), and every hypothesis of the statement proven at the instance:
b ≥ 0 and ‖b‖₁ ≤ 1 and ε0 exactly, w_i² ≥ 100 + l/σ_min(A)² (def8.1 with lem6.3), M r_0 ≤ 0.1l with
M = 22‖A‖³ (derived.M22) and each H̃_t an ε0-approximation of ∇²L(x_t) (def8.4) in balls.

The evaluators take the statement's objects (see ``newton_objects`` in :mod:`.newton`): A, b, w, l, ε0,
x_0 and the approximate Hessians H̃_0, …, H̃_{T−1} stacked (d rows each); Theorem 9.1 adds ε/r_0 and T."""

from __future__ import annotations

from flint import arb, arb_mat, fmpq

from oracle import ball

from ..evidence import Evidence, Fact
from .certificates_calculus import loss, minimiser, newton_step

__all__ = ["lem8_7", "lem8_7_repair", "lem8_8", "lem8_8_repair", "thm9_1_accuracy", "thm9_1_accuracy_repair"]


class _Run:
    """The exact problem of one instance, the iterates in balls and the premises proven on the way."""

    def __init__(self, inst, steps: int):
        self.A, self.b, self.w = inst["A"], inst["b"], inst["w"]
        self.l, self.e0 = arb(inst["l"]), inst["ε0"]
        self.d = self.A.ncols()
        stack = inst["H̃"]
        if stack.nrows() != steps * self.d or stack.ncols() != self.d:
            raise ValueError(f"H̃ must stack {steps} matrices of {self.d}×{self.d}, got {stack.nrows()}×{stack.ncols()}")
        self.H_tilde = [arb_mat([[stack[t * self.d + i, j] for j in range(self.d)] for i in range(self.d)])
                        for t in range(steps)]
        self.M = ball.spectral_norm(self.A) ** 3 * 22
        self.xs = minimiser(self.A, self.b, self.w, ball.entries(ball.matrix(inst["x_0"])))
        self.x = [ball.entries(ball.matrix(inst["x_0"]))]
        self.premises = self._problem_premises()
        for t in range(steps):
            self.premises += self._approximation(t)
            self.x.append(newton_step(self.A, self.b, self.w, self.x[t], self.H_tilde[t]))

    def _problem_premises(self) -> list:
        bq = [self.b[i, 0] for i in range(self.b.nrows())]
        AtA = ball.matrix(self.A).transpose() * ball.matrix(self.A)
        w2 = [v * v for v in ball.entries(ball.matrix(self.w))]
        low = min((v.lower() for v in w2), key=lambda t: t.mid())
        return [
            Fact("b ≥ 0 and ‖b‖₁ ≤ 1", "exact rationals", all(v >= 0 for v in bq) and sum(bq, fmpq(0)) <= 1),
            Fact("0 < ε0 < 0.1", "exact rationals", 0 < self.e0 < fmpq(1, 10)),
            Evidence("≥", low, 100 + self.l / ball.least_eigenvalue(AtA),
                     what="min_i w_i² against 100 + l/σ_min(A)² (def8.1 through lem6.3)"),
            Evidence("≤", self.M * self.r(0), self.l * arb("0.1"), what="M r_0 against 0.1 l, M = 22‖A‖³ (def8.1)"),
        ]

    def hessian(self, t: int) -> arb_mat:
        return loss(self.A, self.b, self.w, self.x[t]).hessian()

    def _approximation(self, t: int) -> list:
        """(1 − ε0)∇²L(x_t) ⪯ H̃_t ⪯ (1 + ε0)∇²L(x_t) (def8.4), each by λ_min ≥ 0 in balls."""
        H, Ht, e0 = self.hessian(t), self.H_tilde[t], arb(self.e0)
        return [Evidence("≥", ball.least_eigenvalue(Ht - H * (1 - e0)), arb(0), what=f"λ_min(H̃_{t} − (1 − ε0)∇²L(x_{t}))"),
                Evidence("≥", ball.least_eigenvalue(H * (1 + e0) - Ht), arb(0), what=f"λ_min((1 + ε0)∇²L(x_{t}) − H̃_{t})")]

    def error(self, t: int) -> arb_mat:
        return arb_mat([[a - b] for a, b in zip(self.x[t], self.xs)])

    def r(self, t: int) -> arb:
        """r_t = ‖x_t − x*‖₂."""
        return ball.norm2(self.error(t))

    def local(self, H: arb_mat, t: int) -> arb:
        """‖x_t − x*‖_H = √((x_t − x*)ᵀH(x_t − x*))."""
        e = self.error(t)
        return (e.transpose() * H * e)[0, 0].sqrt()


def lem8_7(inst, _hints) -> Evidence:
    """lem8.7: r_1 ≤ 2(ε0 + r̄_0/(l − r̄_0))·r_0, r̄_0 = M r_0, fails at the instance."""
    run = _Run(inst, 1)
    rb = run.M * run.r(0)
    return Evidence("≤", run.r(1), 2 * (arb(run.e0) + rb / (run.l - rb)) * run.r(0),
                    what="r_1 = ‖x_1 − x*‖₂ against 2(ε0 + r̄_0/(l − r̄_0))·r_0", premises=run.premises)


def _local_factor(run: _Run) -> tuple[arb, arb_mat]:
    H = run.hessian(0)
    e0 = arb(run.e0)
    return e0 / (1 - e0) + run.M * run.r(0) / (2 * (1 - e0) * ball.least_eigenvalue(H)), H


def lem8_7_repair(inst, _hints) -> Evidence:
    """lem8.7's repair: ‖x_1 − x*‖_{H_0} ≤ [ε0/(1 − ε0) + M r_0/(2(1 − ε0)λ_min(H_0))]·‖x_0 − x*‖_{H_0}."""
    run = _Run(inst, 1)
    q, H = _local_factor(run)
    return Evidence("≤", run.local(H, 1), q * run.local(H, 0),
                    what="‖x_1 − x*‖_{H_0} against [ε0/(1 − ε0) + M r_0/(2(1 − ε0)λ_min(H_0))]·‖x_0 − x*‖_{H_0}",
                    premises=run.premises)


def _eps_fixed(run: _Run) -> Fact:
    return Fact("ε0 = 0.01", "exact rational", run.e0 == fmpq(1, 100))


def lem8_8(inst, _hints) -> Evidence:
    """lem8.8 at t = 0 (its premises over i ∈ [0] are empty; M r_0 ≤ 0.1l is def8.1's): the conclusion
    r_1 ≤ 0.4 r_0 and M r_1 ≤ 0.1 l fails; the conjunct that fails is the evidence."""
    run = _Run(inst, 1)
    premises = [*run.premises, _eps_fixed(run)]
    first = Evidence("≤", run.r(1), arb("0.4") * run.r(0), what="r_1 against 0.4 r_0", premises=premises)
    if first.violated():
        return first
    return Evidence("≤", run.M * run.r(1), arb("0.1") * run.l, what="M r_1 against 0.1 l", premises=premises)


def lem8_8_repair(inst, _hints) -> Evidence:
    """lem8.8's repair at t = 0: ‖x_1 − x*‖_{H_0} ≤ 0.4‖x_0 − x*‖_{H_0} (the evidence) and r_1 ≤ 0.4√κ(H_0)·r_0
    (proven too, listed with the premises)."""
    run = _Run(inst, 1)
    H = run.hessian(0)
    values = ball.eigvalsh(H)
    top = max((v.upper() for v in values), key=lambda t: t.mid()).union(
        max((v.lower() for v in values), key=lambda t: t.mid()))
    kappa = top / ball.least_eigenvalue(H)
    second = Evidence("≤", run.r(1), arb("0.4") * kappa.sqrt() * run.r(0),
                      what="(second conjunct) r_1 against 0.4√κ(H_0)·r_0")
    return Evidence("≤", run.local(H, 1), arb("0.4") * run.local(H, 0),
                    what="‖x_1 − x*‖_{H_0} against 0.4‖x_0 − x*‖_{H_0}",
                    premises=[*run.premises, _eps_fixed(run), second])


def _iterations(ratio: fmpq, T: int) -> Fact:
    """T = max(1, ⌈log₂(r_0/ε)⌉) exactly (r_0/ε = 1/ratio is rational): 2^{T−1} < 1/ratio ≤ 2^T, or T = 1."""
    inv = 1 / ratio
    exact_t = (inv <= 2 and T == 1) or (fmpq(2) ** (T - 1) < inv <= fmpq(2) ** T)
    return Fact(f"T = {T} = max(1, ⌈log₂(r_0/ε)⌉)", "exact rationals", exact_t)


def thm9_1_accuracy(inst, _hints) -> Evidence:
    """thm9.1.accuracy: after T = ⌈log₂(r_0/ε)⌉ steps with admissible H̃_t, ‖x_T − x*‖₂ ≤ ε fails."""
    T, ratio = inst["T"], inst["ε/r_0"]
    run = _Run(inst, T)
    eps = arb(ratio) * run.r(0)
    premises = [*run.premises, _eps_fixed(run), _iterations(ratio, T), Fact("ε/r_0 > 0", "exact", ratio > 0),
                Evidence("<", eps, arb("0.1"), what="ε = (ε/r_0)·r_0 against 0.1")]
    return Evidence("≤", run.r(T), eps, what=f"r_T = ‖x_{T} − x*‖₂ against ε", premises=premises)


def thm9_1_accuracy_repair(inst, _hints) -> Evidence:
    """thm9.1.accuracy's repair: with η̄ = M‖x_0 − x*‖_{H*}/λ_min(H*)^{3/2}, q = (1 + η̄/2)/((1 − ε0)(1 − η̄)) − 1
    < 1 and T = ⌈log_{1/q}(√κ(H*)·r_0/ε)⌉, ‖x_T − x*‖₂ ≤ ε (strictly, at the worst example)."""
    T, ratio = inst["T"], inst["ε/r_0"]
    run = _Run(inst, T)
    Hs = loss(run.A, run.b, run.w, run.xs).hessian()
    values = ball.eigvalsh(Hs)
    lam = ball.least_eigenvalue(Hs)
    top = max((v.upper() for v in values), key=lambda t: t.mid()).union(
        max((v.lower() for v in values), key=lambda t: t.mid()))
    e0 = arb(run.e0)
    eta = run.M * run.local(Hs, 0) / (lam * lam.sqrt())
    q = (1 + eta / 2) / ((1 - e0) * (1 - eta)) - 1
    need = ((top / lam).sqrt() / arb(ratio)).log() / (1 / q).log()
    eps = arb(ratio) * run.r(0)
    premises = [*run.premises, _eps_fixed(run), Fact("ε/r_0 > 0", "exact", ratio > 0),
                Evidence("<", eps, arb("0.1"), what="ε = (ε/r_0)·r_0 against 0.1"),
                Evidence("<", eta, arb(1), what="η̄ against 1"),
                Evidence("<", q, arb(1), what="q against 1"), Evidence(">", q, arb(0), what="q against 0"),
                Evidence("≤", need, arb(T), what=f"log_{{1/q}}(√κ(H*)·r_0/ε) against T = {T}")]
    if T > 1:  # T = max(1, ⌈log_{1/q}(√κ(H*)·r_0/ε)⌉)
        premises.append(Evidence(">", need, arb(T - 1), what=f"log_{{1/q}}(√κ(H*)·r_0/ε) against T − 1 = {T - 1}"))
    return Evidence("≤", run.r(T), eps, what=f"r_T = ‖x_{T} − x*‖₂ against ε", premises=premises)
