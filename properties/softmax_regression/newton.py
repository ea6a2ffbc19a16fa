"""§8–9 of paper 001: the sparsifier's guarantee (Lemma 8.5), approximate Newton's contraction
(Lemmas 8.7, 8.8) and Theorem 9.1.

The claims about the algorithm judge the implementation under judgement through its adapter
functions (``softmax_newton_step``, ``softmax_sparsify``, ``softmax_iteration_flops``); x*, ∇²L and
the admissible approximate Hessians H̃ come from the oracle (:class:`NewtonProblem`).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from mpmath import mp

from oracle import derivatives, linalg, to_float_array, to_mp
from oracle import softmax_regression as S
from oracle.ball import from_fraction
from oracle.linalg import diag, entrywise

from ..contract import output
from ..toolkit import ClaimSet, Outcome, float_outcome, le, require, slope, worst, worst_pair
from ..toolkit.strategies import scalars
from .strategies import newton_instances

__all__ = ["NewtonProblem", "claims", "lem8_5", "lem8_7", "lem8_7_repair", "lem8_8", "lem8_8_repair", "thm9_1_accuracy",
           "thm9_1_accuracy_repair", "thm9_1_time"]

claims = ClaimSet("softmax_regression")


class NewtonProblem:
    """The exact objects of one :func:`~properties.softmax_regression.strategies.newton_instances`
    draw: w (rounded up in float64 until w_i² ≥ 100 + l/σ_min² holds exactly), M = 22‖A‖³, x* (memoised
    per precision) and x_0 at distance ρ·0.1l/M from x*.  Every float64 object handed to the
    implementation is checked against the hypotheses (:func:`~properties.toolkit.require`)."""

    def __init__(self, inst):
        A, b, l, u, rho, s, phi, e0, ratio = inst
        self.A, self.b, self.l_f, self.s, self.phi, self.e0, self.ratio = A, b, l, s, phi, e0, ratio
        self.rho = rho
        self._xstar = {}
        with mp.workdps(50):
            Am, lm = to_mp(A), to_mp(l)
            smin = linalg.sigma_min(Am)
            require(smin > 0, "A must have full column rank")
            need = [100 + lm / smin**2] * A.shape[0]
            w = np.array([float(mp.sqrt(v)) for v in need])
            for i in range(w.size):  # round up until w_i² ≥ 100 + l/σ_min² holds exactly
                while mp.mpf(w[i]) ** 2 < need[i]:
                    w[i] = np.nextafter(w[i], np.inf)
            self.w = w
            self.M = S.M22(linalg.spectral_norm(Am))
            xs = self.xstar()
            un = to_mp(u)
            nu = linalg.norm2(un)
            require(nu > 0, "the start direction must be nonzero")
            r0 = rho * mp.mpf("0.1") * lm / self.M
            self.x0 = to_float_array(xs + un * (r0 / nu))
            require(self.M * linalg.norm2(to_mp(self.x0) - xs) <= mp.mpf("0.1") * lm, "M r0 <= 0.1 l")  # def8.1 (iii)
            require(linalg.norm2(to_mp(self.x0) - xs) > 0, "x0 != x*")

    def xstar(self):
        """x* at the working precision (exact Newton from the best x* known so far)."""
        dps = mp.dps
        if dps not in self._xstar:
            start = self._xstar.get(max(self._xstar)) if self._xstar else None
            self._xstar[dps] = S.exact_newton(to_mp(self.A), to_mp(self.b), to_mp(self.w), start)
        return self._xstar[dps]

    def r(self, x):
        """r = ‖x − x*‖₂ at the working precision."""
        return linalg.norm2(to_mp(x) - self.xstar())

    def h_tilde(self, x):
        """An ε0-approximation H̃ of ∇²L(x) (def8.4) in the drawn form (see newton_instances);
        def8.4 is checked again on the float64 matrix handed over."""
        mode, S_ = self.s
        with mp.workdps(50):
            Am, bm, wm, xm = to_mp(self.A), to_mp(self.b), to_mp(self.w), to_mp(x)
            H = S.true_hessian(Am, bm, wm, xm)
            d = H.rows
            lam, V = mp.eigsy(linalg.sym(H))
            if mode == "general":
                Sm = linalg.sym(to_mp(S_))
                if linalg.frobenius(Sm) == 0:
                    Sm = mp.zeros(d, d)
                    Sm[0, d - 1] = Sm[d - 1, 0] = 1
                    Sm[0, 0] += 1 if d == 1 else 0
                E = Sm * (self.phi * self.e0 / linalg.spectral_norm(Sm))
                Lh = V * mp.diag([mp.sqrt(lam[i]) for i in range(d)])
                Hm = Lh * (mp.eye(d) + E) * Lh.T
            else:
                fv = S.f(Am, xm)
                D = entrywise(wm, wm) + mp.matrix([S.B_diag(fv, bm)[i, i] for i in range(fv.rows)])
                i_top = max(range(d), key=lambda i: lam[i])
                i_bot = min(range(d), key=lambda i: lam[i])
                at, ab = Am * V[:, i_top], Am * V[:, i_bot]
                sg = mp.matrix([1 if at[i] * ab[i] >= 0 else -1 for i in range(Am.rows)])
                P = Am.T * diag(entrywise(D, sg)) * Am
                ev = S.generalized_eigs(P, H)
                top = max(abs(ev[0]), abs(ev[-1]))
                require(top > 0, "the perturbation must be nonzero")
                Hm = H + P * (self.phi * self.e0 / top)
            Ht = to_float_array(Hm).reshape(d, d)
            Ht = (Ht + Ht.T) / 2
            ev = S.generalized_eigs(to_mp(Ht), H)
            require(1 - self.e0 <= ev[0] and ev[-1] <= 1 + self.e0, "def8.4 on the float64 H~")
            return Ht

    def hessian(self, x):
        """∇²L(x) at the working precision (oracle)."""
        return S.true_hessian(to_mp(self.A), to_mp(self.b), to_mp(self.w), to_mp(x))

    def iterate(self, impl, x, T):
        """x_T after T steps of :meth:`step` from x (Algorithm 1's loop, thm9.1.accuracy)."""
        for _ in range(T):
            x = self.step(impl, x)
        return x

    def step(self, impl, x):
        """x − H̃⁻¹∇L(x) as the implementation's ``softmax_newton_step`` computes it."""
        out = impl.softmax_newton_step(self.A.copy(), self.b.copy(), self.w.copy(), x.copy(), self.h_tilde(x))
        return output(out, "softmax_newton_step", shape=x.shape)


def _run_objects(P, x0, T) -> dict:
    """The statement's objects of T approximate Newton steps from x0 on problem P: A, b, w, l, ε0, x_0 and
    H̃_0, …, H̃_{T−1} stacked (each formed by :meth:`NewtonProblem.h_tilde` at the iterate x_t, the steps
    taken in mpmath with the exact gradient and rounded to float64; all objects are float64, exact)."""
    x, stack = x0, []
    for _ in range(T):
        Ht = P.h_tilde(x)
        stack.append(Ht)
        with mp.workdps(50):
            g = derivatives.gradient(lambda z: S.L(to_mp(P.A), to_mp(P.b), to_mp(P.w), z), to_mp(x))
            x = to_float_array(to_mp(x) - mp.lu_solve(to_mp(Ht), g))
    # ε0 as the decimal drawn (0.01 is the statement's 1/100, not its float64 neighbour; H̃ keeps a margin of 1%)
    return {"A": P.A, "b": P.b, "w": P.w, "l": P.l_f, "ε0": from_fraction(repr(P.e0)), "x_0": x0, "H̃": np.vstack(stack)}


_NEWTON_FIELDS = ("A", "b", "l", "u", "ρ", "H̃ form", "φ", "ε0", "ε/r_0")
"""The fields of a :func:`~.strategies.newton_instances` draw (u: the direction of x_0 − x*, ρ = M r_0/(0.1l),
φ = ‖E‖/ε0; "H̃ form": ("general", S) or ("diagonal", None))."""


def _step_objects(*inst) -> dict:
    """lem8.7/lem8.8 at t = 0: the objects of one step from the drawn x_0."""
    P = NewtonProblem(inst)
    return _run_objects(P, P.x0, 1)


def _accuracy_objects(*inst) -> dict:
    """thm9.1.accuracy: T = ⌈log₂(r_0/ε)⌉ steps from the drawn x_0, with ε/r_0 and T."""
    P = NewtonProblem(inst)
    with mp.workdps(50):
        T = _T_log2(1 / mp.mpf(P.ratio))
    return _run_objects(P, P.x0, T) | {"ε/r_0": P.ratio, "T": T}


def _accuracy_repair_objects(*inst) -> dict:
    """thm9.1.accuracy's repair: T steps from the pulled x_0 (:func:`_repaired_start`), with ε/r_0 and T."""
    P = NewtonProblem(inst)
    x0, T, _ = _repaired_start(P)
    return _run_objects(P, x0, T) | {"ε/r_0": P.ratio, "T": T}


_NEWTON_HYP = ("L (l, M)-good (def8.1): w_i² ≥ 100 + l/σ_min(A)² (so ∇²L ⪰ lI), M = 22‖A‖³ (derived.M22), "
               "M‖x_0 − x*‖₂ ≤ 0.1l; b ≥ 0, ‖b‖₁ ≤ 1; H̃ an ε0-approximation (def8.4), either general "
               "(H^{1/2}(I + E)H^{1/2}, ‖E‖ ≤ ε0) or of the sparsifier's form AᵀD̃A + Aᵀ B_rank A with "
               "D̃ = D∘(1 + ηs) diagonal, D = W² + B_diag(x_t)")


def _newton_check(claim_id, statement, *, conditions, eps0=None, accuracy=False, **kwargs):
    """``claims.check`` for a claim about the approximate Newton iteration (Lemmas 8.7, 8.8, Theorem 9.1):
    judged on :func:`newton_instances` (ε0 fixed when ``eps0`` is given, ``accuracy`` draws ε too) through
    the implementation's ``softmax_newton_step``, 10 examples, hypotheses :data:`_NEWTON_HYP` plus the
    claim's own ``conditions``."""
    return claims.check(claim_id, statement, hypotheses=f"{_NEWTON_HYP}; {conditions}",
                        instances=lambda: newton_instances(eps0=eps0, accuracy=accuracy),
                        uses=("softmax_newton_step",), max_examples=10, **kwargs)


def _first_step_check(claim_id, statement, **kwargs):
    """:func:`_newton_check` for a claim about one step (Lemmas 8.7, 8.8 at t = 0): the decorated
    ``judge(P, x1) -> Outcome`` gets the exact problem P of the instance and x_1 = x_0 − H̃⁻¹∇L(x_0) as
    the implementation's ``softmax_newton_step`` computes it; the registered check is ``fn(inst, impl)``."""
    def declare(judge):
        def check(inst, impl):
            P = NewtonProblem(inst)
            return judge(P, P.step(impl, P.x0))

        check.__name__, check.__qualname__, check.__doc__ = judge.__name__, judge.__qualname__, judge.__doc__
        return _newton_check(claim_id, statement, **kwargs)(check)

    return declare


@_first_step_check("softmax_regression.lem8.7",
                   "r_{t+1} ≤ 2(ε0 + r̄_t/(l − r̄_t))·r_t, r_t = ‖x_t − x*‖₂, r̄_t = M r_t",
                   conditions="ε0 ∈ (0, 0.1)", expected="falsified", fields=_NEWTON_FIELDS,
                   to_statement=_step_objects,
                   notes="FAILS (spec (ii): n = 6, d = 2, σ_min = 1e-3, ratio 40.9). The Euclidean contraction needs "
                         "a factor √κ(H): an admissible H̃ that couples the stiff and soft directions moves x_{t+1} "
                         "far along the soft one. The step x_t − H̃⁻¹∇L(x_t) is the implementation's (adapter "
                         "softmax_newton_step); x* and ∇²L come from the oracle.",
                   conventions=("sigma_min", "norms", "constants"),
                   source=("spec §4.7 lem8.7: the statement is lost (§8.2 keeps “to apply Lemma 8.7, we will need the following "
                           "induction hypothesis lemma”); the inequality is the standard one-step bound of the "
                           "approximate-Newton framework the paper cites, the form that gives Lemma 8.8's constants "
                           "(2(0.01 + 0.1/0.9) ≤ 0.4)"))
def lem8_7(P, x1):
    def sides():
        r0, rb = P.r(P.x0), P.M * P.r(P.x0)
        return P.r(x1), 2 * (P.e0 + rb / (P.l_f - rb)) * r0

    return le(sides)


def _h_norm(H, v):
    """‖v‖_H = √(vᵀHv)."""
    return mp.sqrt((v.T * H * v)[0])


@_first_step_check("softmax_regression.lem8.7",
                   "in the local norm of H_t = ∇²L(x_t): ‖x_{t+1} − x*‖_{H_t} ≤ [ε0/(1 − ε0) + M r_t/(2(1 − ε0)"
                   "λ_min(H_t))]·‖x_t − x*‖_{H_t}",
                   conditions="ε0 ∈ (0, 0.1)", repair=True, fields=_NEWTON_FIELDS,
                   to_statement=_step_objects,
                   notes="The spec's correct version (§8.2, κ-free in the local norm). Derivation: with e = x_t − x*, "
                         "∇L(x_t) = Ge, G = ∫₀¹∇²L(x* + se)ds, ‖H_t − G‖ ≤ Mr_t/2; H_t^{1/2}e' = (I − "
                         "H_t^{1/2}H̃⁻¹H_t^{1/2})H_t^{1/2}e + H_t^{1/2}H̃⁻¹(H_t − G)e, the first factor of norm "
                         "≤ ε0/(1 − ε0) by def8.4, the second ≤ (1 − ε0)⁻¹λ_min^{-1/2}(Mr_t/2)r_t and r_t ≤ "
                         "λ_min^{-1/2}‖e‖_{H_t}.")
def lem8_7_repair(P, x1):
    def sides():
        H = P.hessian(P.x0)
        lam = min(mp.eigsy(linalg.sym(H), eigvals_only=True))
        xs = P.xstar()
        e0, e1 = to_mp(P.x0) - xs, to_mp(x1) - xs
        q = P.e0 / (1 - P.e0) + P.M * P.r(P.x0) / (2 * (1 - P.e0) * lam)
        return _h_norm(H, e1), q * _h_norm(H, e0)

    return le(sides)


@_first_step_check("softmax_regression.lem8.8",
                   "ε0 = 0.01, r_i ≤ 0.4 r_{i−1} and M r_i ≤ 0.1 l for i ∈ [t] ⇒ r_{t+1} ≤ 0.4 r_t and "
                   "M r_{t+1} ≤ 0.1 l",
                   conditions="ε0 = 0.01; judged at t = 0 (premises: the good initialisation)", eps0=0.01,
                   expected="falsified", fields=_NEWTON_FIELDS, to_statement=_step_objects,
                   notes="FAILS (spec: r_2/r_1 = 1.0 on the quadratic, and the lem8.7 (ii) softmax instance at t = 0→1). "
                         "This is also the ledger's verdict on the approximate Newton's per-step contraction vs the "
                         "paper's 0.4: with an admissible but adversarial H̃ the contraction factor exceeds 0.4 (by "
                         "up to ~√κ(H)·ε0).",
                   conventions=("sigma_min", "norms", "constants"),
                   source=("§8.2, Lemma 8.8: the hypotheses ε0 = 0.01, r_i ≤ 0.4·r_{i−1} and M·r_i ≤ 0.1l for i ∈ [t] are "
                           "the paper's text; the conclusion r_{t+1} ≤ 0.4·r_t and M·r_{t+1} ≤ 0.1l is restored (spec "
                           "lem8.8, conclusion [I]), and it is the failing part"))
def lem8_8(P, x1):
    return worst(le(lambda: (P.r(x1), mp.mpf("0.4") * P.r(P.x0))),
                 le(lambda: (P.M * P.r(x1), mp.mpf("0.1") * P.l_f)))


@_first_step_check("softmax_regression.lem8.8",
                   "ε0 = 0.01, M r_t ≤ 0.1 l ⇒ ‖x_{t+1} − x*‖_{H_t} ≤ 0.4‖x_t − x*‖_{H_t} (H_t = ∇²L(x_t)) and "
                   "r_{t+1} ≤ 0.4·√κ(H_t)·r_t",
                   conditions="ε0 = 0.01; judged at t = 0", eps0=0.01, repair=True, fields=_NEWTON_FIELDS,
                   to_statement=_step_objects,
                   notes="Derived from lem8.7's repair: λ_min(H_t) ≥ l (def8.1) and M r_t ≤ 0.1l give the factor "
                         "0.01/0.99 + 0.1/1.98 ≤ 0.061 ≤ 0.4 in the H_t-norm; the Euclidean radius then obeys "
                         "r_{t+1} ≤ λ_min^{-1/2}‖e'‖_{H_t} ≤ 0.4√κ(H_t)·r_t, so M r_{t+1} ≤ 0.1l is kept only when "
                         "0.4√κ(H_t) ≤ 1: the Euclidean induction of the paper has no κ-free repair (lem8.7).")
def lem8_8_repair(P, x1):
    xs = P.xstar
    H = P.hessian

    def kappa():
        ev = mp.eigsy(linalg.sym(H(P.x0)), eigvals_only=True)
        return max(ev) / min(ev)

    return worst(le(lambda: (_h_norm(H(P.x0), to_mp(x1) - xs()), mp.mpf("0.4") * _h_norm(H(P.x0), to_mp(P.x0) - xs()))),
                 le(lambda: (P.r(x1), mp.mpf("0.4") * mp.sqrt(kappa()) * P.r(P.x0))))


def _T_log2(ratio):
    """T = ⌈log₂(r_0/ε)⌉ (the sensible reading of thm9.1.iters), at least 1."""
    return max(1, int(mp.ceil(mp.log(mp.mpf(ratio), 2))))


@_newton_check("softmax_regression.thm9.1.accuracy",
               "Algorithm 1 outputs x̃ with ‖x̃ − x*‖₂ ≤ ε with probability ≥ 1 − δ",
               conditions="ε0 = 0.01; ε ∈ (0, 0.1); T = ⌈log₂(r_0/ε)⌉ iterations; the sparsifier "
                          "(H̃ of the diagonal form only) meets Lemma 8.5's guarantee with probability 1 "
                          "(a deterministic admissible D̃)",
               eps0=0.01, accuracy=True, expected="falsified", fields=_NEWTON_FIELDS,
               to_statement=_accuracy_objects,
               notes="FAILS (spec (i): r_1 = 16.5ε with T = 1). The theorem's proof uses the sparsifier only "
                     "through its guarantee, so a sparsifier that always meets it (here: D̃ = D∘(1 + ηs), "
                     "def8.4 checked exactly on every H̃_t) is an admissible instantiation for which the "
                     "output misses ε with probability 1 > δ. The spec's randomized witness (ii) needs "
                     "n = 2·10⁶ rows, beyond what the mpmath oracle can judge; on small n the real sampler "
                     "keeps every row at ε0 = 0.01 (s·d > n) and is exact.",
               conventions=("probability", "log_base", "sigma_min", "constants"),
               source=("spec §4.8 thm9.1.accuracy: Theorem 9.1's hypotheses (b ≥ 0, ‖b‖₁ ≤ 1, w_i² ≥ 100 + l/σ_min(A)², "
                       "M‖x_0 − x*‖₂ ≤ 0.1l) and “the failure probability is following from union bound over T iterations” "
                       "are the text; the conclusion ‖x̃ − x*‖₂ ≤ ε with probability ≥ 1 − δ is inferred"),
               basis="proof step",
               basis_note=("Every step's H̃ is chosen deterministically and adversarially among the ε0-approximations of "
                           "Definition 8.4 (D̃ = D∘(1 + ηs), Definition 8.4 checked exactly), not drawn by the sparsifier; "
                           "the theorem speaks of the randomised sparsifier's H̃. What is refuted is the proof's step that "
                           "uses the sparsifier only through Lemma 8.5's guarantee together with Lemma 8.7; the theorem "
                           "itself is not (the spec's randomised witness at n = 2·10⁶ suggests it fails too, but that is "
                           "not what is judged here)."))
def thm9_1_accuracy(inst, impl):
    P = NewtonProblem(inst)
    with mp.workdps(50):
        require(0 < P.r(P.x0) * P.ratio < mp.mpf("0.1"), "eps in (0, 0.1)")
        T = _T_log2(1 / mp.mpf(P.ratio))
    x = P.iterate(impl, P.x0, T)
    return le(lambda: (P.r(x), P.r(P.x0) * P.ratio), note=f"T = {T} iterations")


def _repaired_start(P):
    """(x_0, T, q) of thm9.1.accuracy's repair: x_0 pulled towards x* (never pushed away) until
    η̄ = M‖x_0 − x*‖_{H*}/λ_min(H*)^{3/2} ≤ 0.2ρ, T = ⌈log_{1/q}(√κ(H*)·r_0/ε)⌉ with
    q = (1 + η̄/2)/((1 − ε0)(1 − η̄)) − 1, everything exact on the float64 x_0 handed over."""
    rho = P.rho
    with mp.workdps(50):
        xs = P.xstar()
        Hs = P.hessian(xs)
        ev = mp.eigsy(linalg.sym(Hs), eigvals_only=True)
        lam, kap = min(ev), max(ev) / min(ev)
        eta = lambda x: P.M * _h_norm(Hs, to_mp(x) - xs) / lam ** mp.mpf(1.5)  # noqa: E731
        shrink = min(mp.mpf(1), mp.mpf(0.2) * rho / eta(P.x0))
        x0 = to_float_array(xs + (to_mp(P.x0) - xs) * shrink)
        require(P.r(x0) > 0, "x0 != x*")
        e = eta(x0)
        q = (1 + e / 2) / ((1 - P.e0) * (1 - e)) - 1
        require(e < 1 and 0 < q < 1, "eta < 1 and q < 1")
        r0 = P.r(x0)
        require(0 < r0 * P.ratio < mp.mpf("0.1"), "eps in (0, 0.1)")
        T = max(1, int(mp.ceil(mp.log(mp.sqrt(kap) / P.ratio) / mp.log(1 / q))))
    return x0, T, q


@_newton_check("softmax_regression.thm9.1.accuracy",
               "with M‖x_0 − x*‖_{H*} ≤ η̄·λ_min(H*)^{3/2}, q = (1 + η̄/2)/((1 − ε0)(1 − η̄)) − 1 < 1 (H* = ∇²L(x*)) "
               "and T = ⌈log_{1/q}(√κ(H*)·r_0/ε)⌉ iterations, Algorithm 1 outputs x̃ with ‖x̃ − x*‖₂ ≤ ε "
               "whenever every H̃_t meets def8.4 (so with probability ≥ 1 − δ under thm9.1.union)",
               conditions="ε0 = 0.01; ε ∈ (0, 0.1); x_0 drawn as for the claim, then pulled "
                          "towards x* until η̄ ≤ 0.2ρ; the sparsifier meets Lemma 8.5's guarantee (a "
                          "deterministic admissible D̃)",
               eps0=0.01, accuracy=True, repair=True, fields=_NEWTON_FIELDS,
               to_statement=_accuracy_repair_objects,
               notes="Derived here, in the fixed norm of H* (the spec's repair [D, sketch] has T = "
                     "⌈log_{1/q}(√κ(H*)r_0/ε)⌉ too but ignores the change of the local norm). With η_t = "
                     "M r_t/λ_min(H*): (1 − ε0)(1 − η_t)H* ⪯ H̃_t ⪯ (1 + ε0)(1 + η_t)H* (def8.4 and ‖H_t − H*‖ ≤ "
                     "M r_t), so H*^{1/2}e_{t+1} = (I − H*^{1/2}H̃⁻¹H*^{1/2})H*^{1/2}e_t + H*^{1/2}H̃⁻¹(H* − G)e_t "
                     "has norm ≤ q_t‖e_t‖_{H*}, q_t = (1 + η_t/2)/((1 − ε0)(1 − η_t)) − 1; η_t ≤ "
                     "M‖e_t‖_{H*}/λ_min^{3/2} ≤ η̄ by induction, so ‖e_T‖_{H*} ≤ q^T‖e_0‖_{H*} and r_T ≤ "
                     "q^T√κ(H*)·r_0 ≤ ε. The start condition is stronger than the paper's M r_0 ≤ 0.1l by "
                     "about √κ(H*).")
def thm9_1_accuracy_repair(inst, impl):
    P = NewtonProblem(inst)
    x0, T, q = _repaired_start(P)
    x = P.iterate(impl, x0, T)
    return le(lambda: (P.r(x), P.r(x0) * P.ratio), note=f"T = {T} iterations, q = {float(q):.3g}")


claims.inequality(
    "softmax_regression.thm9.1.iters", "Algorithm 1 runs T = log(‖x_0 − x*‖₂/ε) iterations",
    hypotheses="r_T ≤ 0.4^T r_0 (the proof's per-step contraction); r_0/ε ≥ 1; reading T = ⌈log₂(r_0/ε)⌉",
    instances=lambda: st.one_of(scalars(0.0, 12.0).map(lambda e: 10.0**e), st.just(100.0), st.just(1e8)),
    fields=("r_0/ε",),
    sides=lambda ratio: (mp.mpf("0.4") ** (_T_log2(ratio) if ratio > 1 else 0) * ratio, mp.mpf(1)),
    notes="AMBIGUOUS log base. Judged: 0.4^T·(r_0/ε) ≤ 1 with T = ⌈log₂(r_0/ε)⌉ (holds for any base ≤ 2.5). "
          "With the natural log it fails (spec: r_0/ε = 100 gives 0.4⁵·100 = 1.024). Whether the 0.4 "
          "contraction itself holds is lem8.8 (it does not).", conventions=("log_base",), reading="log₂")

claims.inequality(
    "softmax_regression.thm9.1.iters", "Algorithm 1 runs T = log(‖x_0 − x*‖₂/ε) iterations",
    hypotheses="r_T ≤ 0.4^T r_0 (the proof's per-step contraction); r_0/ε ≥ 1; reading T = ⌈ln(r_0/ε)⌉",
    instances=lambda: st.one_of(scalars(0.0, 12.0).map(lambda e: 10.0**e), st.just(100.0), st.just(1e8)),
    fields=("r_0/ε",), expected="falsified", alternative=True, reading="natural log", conventions=("log_base",),
    conventions_used={"log_base": "natural log"},
    sides=lambda ratio: (mp.mpf("0.4") ** (max(1, int(mp.ceil(mp.log(mp.mpf(ratio))))) if ratio > 1 else 0) * ratio,
                         mp.mpf(1)),
    notes="With the natural log T is too small for the proof's 0.4 contraction (r_0/ε = 100: T = 5, 0.4⁵·100 = 1.024).")

claims.inequality(
    "softmax_regression.thm9.1.union",
    "failure probability ≤ δ by a union bound over T iterations (sampler called with δ/T)",
    hypotheses="δ ∈ (0, 0.1), T ≥ 1 iterations, each failing with probability ≤ δ/T",
    instances=lambda: st.tuples(scalars(1e-12, 0.0999), st.integers(1, 10**6)), fields=("δ", "T"),
    sides=lambda delta, T: worst_pair((T * (delta / T), delta), (1 - (1 - delta / T) ** T, delta)),
    notes="Bookkeeping: T·(δ/T) ≤ δ and, for independent iterations, 1 − (1 − δ/T)^T ≤ δ. It does not "
          "rescue thm9.1.accuracy (the per-step contraction fails, not the union bound).", conventions=("probability",))


@claims.check("softmax_regression.thm9.1.time", "time per iteration O((nnz(A) + d^ω)·poly(log(n/δ)))",
              hypotheses="dense A (nnz(A) = nd); ε0 = 0.01, δ = 0.01; FLOPs of one compiled iteration (XLA cost "
                         "analysis), never clocks",
              uses=("softmax_iteration_flops",),
              notes="AMBIGUOUS/untestable exactly (asymptotic). Judged by the spec's recipe on the FLOPs the "
                    "implementation under judgement reports (adapter softmax_iteration_flops): at d = 4, the "
                    "fitted exponent in n (nnz ∝ n) within [0.8, 1.2]; at n = 4096 ≫ d, the exponent in d ≤ 3.2 "
                    "(dense BLAS, ω_eff = 3). Measured on solvers: 1.00 in n, 1.55 in d over d = 4…32. The "
                    "implementation forms AᵀD̃A and exact leverage scores in O(n d²), so its d-exponent tends to 2 "
                    "as d grows: within the recipe's 3.2, but above the 1 that nnz(A) = nd alone would give at "
                    "fixed n (the spec notes exact leverage scores do not meet the paper's bound). Two sweeps "
                    "with a two-sided window in n, so not the one-sweep running_time shape.",
              conventions=('constants',))
def thm9_1_time(impl):
    ns, ds = [512, 1024, 2048, 4096], [4, 8, 16, 32]
    fn = [float(impl.softmax_iteration_flops(n, 4)) for n in ns]
    fd = [float(impl.softmax_iteration_flops(4096, d)) for d in ds]
    sn, sd = slope(ns, fn), slope(ds, fd)
    note = f"exponent in n: {sn:.3f} (d = 4); exponent in d: {sd:.3f} (n = 4096); FLOPs {fn} / {fd}"
    return worst(float_outcome(abs(sn - 1.0), 0.2, note=note), float_outcome(sd, 3.2, note=note))


def _lem8_5_instance(seed):
    """Seeded (A, D): n = 1500, d = 3; Gaussian, heavy-tailed (Student t, ν = 1.5) or coherent rows
    (one row 10³ larger); D ∈ [1, 100]·(a few 10⁴ spikes)."""
    rng = np.random.default_rng(12345 + seed)
    n, d = 1500, 3
    kind = seed % 3
    if kind == 0:
        A = rng.standard_normal((n, d))
    elif kind == 1:
        A = rng.standard_t(1.5, size=(n, d))
    else:
        A = rng.standard_normal((n, d))
        A[rng.integers(n)] *= 1e3
    D = rng.uniform(1.0, 100.0, n)
    D[rng.integers(n, size=5)] *= 1e4
    return A, D


_LEM85_EPS0, _LEM85_DELTA = 0.3, 0.1


@claims.trial("softmax_regression.lem8.5",
              "given ε0, δ ∈ (0, 0.1], A ∈ R^{n×d}, positive diagonal D, the tool outputs a diagonal D̃ with "
              "O(ε0⁻² d log(n/δ)) nonzeros such that with probability ≥ 1 − δ "
              "(1 − ε0)AᵀDA ⪯ AᵀD̃A ⪯ (1 + ε0)AᵀDA",
              delta=_LEM85_DELTA, trials=60, uses=("softmax_sparsify",),
              hypotheses="D_ii > 0; here ε0 = 0.3, δ = 0.1, n = 1500, d = 3 (so the sampler really samples: "
                         "s·d ≈ 410 < n)",
              notes="A trial fails when a generalized eigenvalue of (AᵀD̃A, AᵀDA) leaves [1 − ε0, 1 + ε0] (judged "
                    "in mpmath) or nnz(D̃) > s·d + 6√(s·d), s = 3 ln(2d/δ)/ε0² (E nnz ≤ s·d; the excess has "
                    "probability < 1e-8). ε0 = 0.3 lies outside the paper's (0, 0.1) so that n stays small enough "
                    "for the oracle while rows are actually dropped; the spec reports 0/1200 failures at 0.1 and 0.3.",
              conventions=('probability', 'constants'))
def lem8_5(seed, impl):
    A, D = _lem8_5_instance(seed)
    Dt = output(impl.softmax_sparsify(A.copy(), D.copy(), _LEM85_EPS0, _LEM85_DELTA, seed), "softmax_sparsify",
                shape=D.shape)
    if np.any(Dt < 0):
        raise ValueError(f"softmax_sparsify returned negative entries {Dt[Dt < 0]!r}, but D̃ must be ≥ 0")
    n, d = A.shape
    s = 3 * np.log(2 * d / _LEM85_DELTA) / _LEM85_EPS0**2
    nnz, cap = int(np.count_nonzero(Dt)), s * d + 6 * np.sqrt(s * d)
    if nnz > cap:
        return Outcome(False, nnz / cap, nnz, cap, None, f"nnz(D̃) = {nnz} > {cap:.0f}")
    keep = np.flatnonzero(Dt)
    rows = [[mp.mpf(float(v)) for v in A[i]] for i in range(n)]

    def gram(weights, idx):
        G = mp.matrix(d, d)
        for a in range(d):
            for c in range(a, d):
                G[a, c] = G[c, a] = mp.fsum(mp.mpf(float(weights[i])) * rows[i][a] * rows[i][c] for i in idx)
        return G

    def sides():
        ev = S.generalized_eigs(gram(Dt, keep), gram(D, range(n)))
        return max(abs(ev[0] - 1), abs(ev[-1] - 1)), mp.mpf(_LEM85_EPS0)

    return le(sides, note=f"nnz(D̃) = {nnz} (cap {cap:.0f})")
