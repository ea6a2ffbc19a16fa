"""The adapter contract (docs/development.md#one-contract): the functions an implementation may define, what each
returns, and the tolerance rule its output is judged by.

An implementation is a module defining some adapter functions (numpy arrays in, numpy arrays or
floats out).  Each :class:`Adapter` pairs a function name with a strategy of inputs and a
``compare(instance, fn) -> Outcome`` that calls ``fn`` and judges its output against the oracle
(``ratio`` = error/tolerance).  Each paper package collects its adapters in an :class:`AdapterSet`;
the registry gathers them, the validator and the ledger consume them, and
``python -m properties adapters`` prints :func:`table` of them; :func:`default_implementation` is the
implementation judged when none is named.  This module imports nothing of the harness but the
Outcome record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .toolkit.outcome import Outcome

__all__ = ["SYMBOLS", "Adapter", "AdapterSet", "Comparison", "TrialRule", "U", "default_implementation", "output",
           "table", "within"]

U = 2.0**-53
"""The float64 unit roundoff, the unit of every tolerance rule."""


def default_implementation():
    """The implementation judged when none is named: the project's own adapters, ``solvers.adapter``
    (the one place in ``properties`` that imports ``solvers``; the ledger judges it, and certificates
    that record the implementation's outputs take it from here)."""
    import solvers.adapter

    return solvers.adapter


@dataclass(frozen=True)
class Adapter:
    """One function of the contract.

    ``seeded`` names the argument that carries a random seed or key (``None`` for a deterministic
    function): the validator then also checks that two calls with the same seed agree.

    ``targets(instance) -> {label: value}`` (optional) names the quantities that make implementations
    fail (‖Ax‖∞ of a softmax, κ(A) of a solve): the validator hands each to Hypothesis's ``target()``
    besides the error ratio, so the search climbs towards them.  ``trials`` (optional, a
    :class:`TrialRule`) marks a probabilistic guarantee: the search draws instances without the seed,
    and each drawn instance is judged over the seeds 0 … k−1 by the binomial rule, never by a search
    over the seed.  ``corners()`` (optional) returns fixed corner instances (A = [[1]], x = [710] for a
    softmax, ...) that every validation runs after a passed search (a failure the search finds is
    shrunk first; a corner is minimal by construction); ``magnitude_corners()`` and ``size_corners()``
    (every adapter declares both) the fixed instances at the ends of its valid range of entries and at the
    sizes where implementations change path (:meth:`fixed_corners`).  ``not_judged`` says what the
    function's output cannot show (the scale of a sketch offered as bits) and which function judges it; a
    PASS prints it.  ``instance_fields`` names the fields of a drawn instance (a tuple) that a FAIL lists as
    search parameters, not passed to the function (the ε₀ an approximate Hessian was built from); a field that is
    itself a tuple of parameters is named by a tuple of names.  ``options``
    maps module
    attributes the implementation may declare (e.g. ``SOLVE_TOLERANCE``) to their documented
    defaults; ``compare`` then receives them as keywords.
    ``statistical`` holds checks of the function's distribution that no search makes (sign balance,
    uniform rows of a sketch): each ``check(fn) -> Outcome`` calls ``fn`` on fixed instances with seeds
    0, 1, … and judges the results by tests whose false-alarm rate it states; the validator runs them
    once, after the search.
    """

    name: str
    signature: str
    doc: str
    tolerance: str
    strategy: Callable
    compare: Callable  # compare(instance, fn) -> Outcome (ratio = error / tolerance)
    max_examples: int | None = None
    seeded: str | None = None
    targets: Callable | None = None  # targets(instance) -> {label: float}
    trials: TrialRule | None = None
    options: tuple = ()  # ((module attribute, default), ...)
    statistical: tuple = ()  # (check(fn) -> Outcome, ...)
    corners: Callable | None = None  # corners() -> list of instances, judged after the search
    magnitude_corners: Callable | None = None  # magnitude_corners() -> list of instances, judged after the search
    size_corners: Callable | None = None  # size_corners() -> list of instances, judged after the search
    not_judged: str = ""  # what the function's output cannot show (a PASS says it, and names who judges it)
    instance_fields: tuple = ()  # names of the drawn instance's fields, for those not passed to the function

    def fixed_corners(self) -> list:
        """Every fixed instance judged after a passed search, at every profile: ``corners()`` (the discrete
        edges of the rule: ties, ρ = ½, a rounding guard, ...), then ``magnitude_corners()`` (entries up to
        the function's valid range and across its overflow thresholds), then ``size_corners()`` (sizes
        crossing 7, 8, 9, 16, 17, 32, 33, 64, 65, where blocked kernels, unrolled loops and the power-of-two
        padding of a Hadamard transform change path, as far as the oracle affords)."""
        return [inst for make in (self.corners, self.magnitude_corners, self.size_corners) if make is not None
                for inst in make()]


@dataclass(frozen=True)
class TrialRule:
    """How a probabilistic guarantee of an adapter is judged (docs/development.md#statistical-guarantees): ``with_seed(instance,
    seed)`` is the instance of the trial with that seed, ``delta(instance)`` the failure probability the
    guarantee allows; ``trials`` seeded trials per instance, judged by the ledger's binomial rule."""

    with_seed: Callable
    delta: Callable
    trials: int = 40


class AdapterSet:
    """The adapters of one module, in the order they are declared; used as a decorator factory::

        adapters = AdapterSet()

        @adapters("kron", signature=..., doc=..., tolerance=..., strategy=...)
        def _kron(inst, fn): ...
    """

    def __init__(self):
        self.adapters: list[Adapter] = []

    def __iter__(self):
        return iter(self.adapters)

    def __len__(self):
        return len(self.adapters)

    def __call__(self, name: str, *, signature: str, doc: str, tolerance: str, strategy: Callable,
                 max_examples: int | None = None, seeded: str | None = None, targets: Callable | None = None,
                 trials: TrialRule | None = None, options: tuple = (), statistical: tuple = (),
                 corners: Callable | None = None, magnitude_corners: Callable | None = None,
                 size_corners: Callable | None = None, not_judged: str = "", instance_fields: tuple = ()):
        if any(a.name == name for a in self.adapters):
            raise ValueError(f"adapter name={name!r} is declared twice")

        def decorate(compare):
            self.adapters.append(Adapter(name, signature, doc, tolerance, strategy, compare, max_examples, seeded,
                                         targets, trials, tuple(options), tuple(statistical), corners,
                                         magnitude_corners, size_corners, not_judged, tuple(instance_fields)))
            return compare

        return decorate


def output(value, name: str, *, shape: tuple | None = None) -> np.ndarray:
    """The one output check of every adapter: ``value`` as a finite real float64 array of ``shape``.

    Raises ``ValueError`` with a message naming the function, e.g.
    ``out.shape=(2,), but should be (3,) [kron]``.
    """
    try:
        arr = np.asarray(value)
    except Exception as exc:  # an object numpy cannot hold
        raise ValueError(f"out={value!r} is not an array [{name}]: {exc}") from None
    if np.iscomplexobj(arr):
        raise ValueError(f"out.dtype={arr.dtype}, but should be real [{name}]")
    try:
        arr = arr.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"out.dtype={arr.dtype}, but should be real numbers [{name}]: {exc}") from None
    if shape is not None and arr.shape != tuple(shape):
        raise ValueError(f"out.shape={arr.shape}, but should be {tuple(shape)} [{name}]")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"out holds a non-finite value {arr!r}, but should be finite [{name}]")
    return arr


@dataclass(frozen=True)
class Comparison(Outcome):
    """The outcome of an adapter's tolerance rule that also states what the module's output was compared
    with, for a FAIL report a user can act on: ``expected`` is the oracle's value
    (float64, shaped as the output), ``symbols`` the ((symbol, value), ...) of the rule at this input, e.g.
    (("m", 710.0), ("n", 1), ("d", 1))."""

    expected: object = None
    symbols: tuple = ()


def within(err, tol, note: str, *, expected=None, symbols=()) -> Outcome:
    """The outcome of a tolerance rule: holds when ``err ≤ tol``; ratio = err/tol.  ``expected`` and
    ``symbols`` (optional) are carried to the report (:class:`Comparison`)."""
    ratio = float(err / tol) if tol else (0.0 if err == 0 else float("inf"))
    return Comparison(bool(err <= tol), ratio, float(err), float(tol), None, note, expected, tuple(symbols))


SYMBOLS = (
    ("u", "the float64 unit roundoff 2⁻⁵³ ≈ 1.11e-16, the unit of every rule"),
    ("x̂, ẑ, ĝ, Ĝ, Ĥ, L̂, r̂, ŝ, σ̂, κ̂, Ŵ, x̂₊, ẑ', x̂₁, (SM)^",
     "a hat marks the value the module returned; the same symbol without it is the exact value, computed by the "
     "oracle from the float64 inputs (held exactly) at 50 digits or more"),
    ("n, d", "the sizes named in the signature: A: (n, d) has n rows and d columns; the attention_pruning_* X: (n, d) "
             "holds n tokens of dimension d; kernel_ridge_solve's X: (d, n) holds n points of dimension d"),
    ("N", "max(n, d) in the rules of fast_linear_regression … odd_powers (Algorithms 1-6); the length of the sign "
          "vectors in attention_sketch_rows"),
    ("m", "softmax_*: max_i a_i, the largest bound on |(Ax)_i|; every sketch: its number of rows (the argument m)"),
    ("a", "softmax_*: a = |A||x|, the entrywise absolute values, so a_i bounds |(Ax)_i| and its rounding error "
          "is ≤ d·u·a_i"),
    ("c, C", "softmax_*: c = f − b, f = softmax(Ax); attention_pruning_*: c = f̃(M) − f, the pruned attention "
          "minus the unpruned one (Def B.4); attention_* (paper 003): C = S·A3·Y − B"),
    ("f", "softmax_*: f = softmax(Ax); attention_pruning_*: f the attention matrix softmax of XWXᵀ (row-wise, "
          "causal when asked); a black-box sketch: f is the module's function"),
    ("L, L_reg, L_tot", "the loss of the adapter's paper (softmax_loss: ½‖f − b‖² + ½‖diag(w)Ax‖², L_reg its "
                        "second term; attention_* (paper 003): ½‖S·A3·Y − B‖_F² and L_tot with the regulariser; "
                        "attention_pruning_*: ½‖c‖_F² + λ/2‖M‖_F²)"),
    ("g, G", "the gradient the adapter returns or uses (∇L); G(x̂) in softmax_solve is defined in its rule"),
    ("H, H̃", "softmax_* and attention_*: H̃ the approximate Hessian passed to the Newton step (H_tilde); "
             "attention_* (paper 003) also H = A3·Y"),
    ("S", "attention_* (paper 003): S = softmax(A1·X·A2ᵀ) row-wise; every sketch: the m × n sketching matrix"),
    ("Ê", "attention_* (paper 003): the magnitude |C| + |S||H| + |B| of the rounding model (module docstring)"),
    ("η", "attention_* (paper 003): η = 16(n + d + 4)·u·(1 + ζ), ζ = max(|A1||X||A2|ᵀ), the relative error of a "
          "float64 softmax entry; attention_pruning_gd_step, _gd_trace, _prune: the step size; least_squares: "
          "the backward error η(x̂)"),
    ("η_f, s_max", "attention_pruning_*: η_f = 4(2d + n + 4)·u·(1 + s_max), s_max = max_ij (|X|·|M∘W|·|X|ᵀ)_ij, "
                   "the forward error of a float64 softmax entry"),
    ("T, p, L_f, e_t", "attention_pruning_*: T the gradient rule's entrywise tolerance (attention_pruning_gradient), "
                       "p = f̃∘c − diag((f̃∘c)1)f̃ (Def C.1), L_f the Lipschitz constant of f̃ in M (Thm 5.4's "
                       "chain), e_t the iterate error after t steps"),
    ("M, M_bin, L_loc", "attention_pruning_*: M the mask variable of GD (M0 its start), M_bin its binarisation at "
                        "the fraction ρ = rho, L_loc = λ + λ_max of the Hessian of ½‖c‖_F² at M = 1 (50 digits); "
                        "sketches: M the matrix sketched"),
    ("K, λ, λ_min, λ_max", "kernel and Taylor ridge: K the kernel matrix of X's columns, λ = lam the ridge; attention_pruning_*: "
             "λ = lam the regulariser; λ_min, λ_max: extreme eigenvalues"),
    ("ε, δ", "the accuracy eps and failure probability delta of a randomised algorithm (arguments); least_squares: "
             "ε = 16·max(n, d)·u, defined in its rule"),
    ("OPT", "min_x ‖Ax − b‖₂, the least-squares optimum of the instance (exactly)"),
    ("κ", "a condition number σ_max/σ_min (κ(H_λ) of SparseGPT's regularised Hessian, κ(SWᵀ) of the "
          "preconditioned features)"),
    ("σ, σ_min", "singular values (spectral_norm: σ = σ_max = ‖A‖₂)"),
    ("γ, γ_p, n_pad", "sketch rules: γ the summation depth allowed per row (defined in each rule), n_pad = "
                      "2^⌈log₂ n⌉ the padded length of an SRHT"),
    ("τ, τ_g", "softmax_solve: τ = SOLVE_TOLERANCE (declared by the module, default 1e-8); τ_g the softmax_gradient "
               "rule's tolerance"),
    ("ρ", "attention_pruning_*: ρ = rho, the fraction of entries pruned (an argument)"),
    ("k", "attention_pruning_wanda, _binarize, _sparsegpt: the number of entries pruned, by the count rule quoted "
          "in the function's row; attention_sketch_rows: k a row index"),
    ("I_n, W", "I_n the n × n identity; preconditioned_gd_ops: W the feature matrix"),
    ("z, z*", "kron: z = x ⊗ y; tensor sketches: z = S(x ⊗ y), the exact sketch; attention_solve: z = (vec X, "
              "vec Y) the variable, z* the minimiser the oracle finds by 50-digit Newton from z0"),
    ("B", "the black-box sketches (countsketch, srht, osnap, gaussian_sketch): A and B, the two drawn inputs f "
          "is applied to (and A + B); softmax_hessian: B(x), the middle matrix of ∇²L (spec def.B); "
          "attention_* (paper 003): the target B (an argument)"),
    ("E, v", "attention_sketched_gram: E the expectation over the sketch's seed; u ⊗ v a row of the sketched "
             "features (there u is a vector, not the unit roundoff)"),
    ("s", "preconditioned_gd: the rows of the SRHT s_bits; osnap: the nonzeros per column (its argument)"),
    ("i, j, a, b, k, l, s, t", "indices: of an entry (z_i, T_ab, C2[k, b]), of a sum (Σ_s, Σ_a), of a GD step "
                               "t, of a feature degree l"),
    ("‖·‖, ‖·‖_F, ‖·‖_max, |·|, ∘, ⊗, Σ",
     "‖·‖ the 2-norm (spectral for matrices), ‖·‖_F Frobenius, ‖·‖_max the largest entry, |·| entrywise absolute "
     "value, ∘ entrywise product, ⊗ Kronecker product, Σ a sum over the index written under it"),
)
"""The symbols of the tolerance rules, defined for the user: the contract's text
(:func:`table`, ``python -m properties adapters [--markdown]``) ends with them; a symbol defined in its own
rule (``ρ = …``) or named in the signature is not repeated here."""


def table(adapters, *, markdown: bool = False) -> str:
    """The contract as text (``python -m properties adapters``) or as README's markdown table."""
    if not markdown:
        return "\n".join([f"{ad.signature}\n    {ad.doc}\n    tolerance: {ad.tolerance}" for ad in adapters]
                         + ["", "symbols of the tolerance rules:"] + [f"    {sym}: {text}" for sym, text in SYMBOLS])
    lines = ["| function | what it returns | tolerance rule |", "|---|---|---|"]
    for ad in adapters:
        cells = (f"`{ad.signature}`", ad.doc, ad.tolerance)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    lines += ["", "Symbols of the tolerance rules:", ""] + [f"- {sym}: {text}" for sym, text in SYMBOLS]
    return "\n".join(lines)
