"""Statistical checks of random sketches: the distribution of what a sketch draws over seeds, and the
subspace embedding on coherent inputs (docs/development.md#statistical-guarantees).

A format check and a determinism check cannot tell a sketch from a broken one: CountSketch bits with
every sign +1, or with every row 0, are well formed and reproducible.  These checks call the
implementation on fixed instances with the seeds 0 … T−1 and judge what it drew:

- **signs** (±1): every coordinate balanced over the seeds (Binomial(T, ½)); every pair of
  coordinates independent (their product balanced);
- **rows** (hash values, sampled rows): every coordinate's row, and the rows pooled over the
  coordinates, uniform on their range (each value's count Binomial(·, s/c) for s distinct rows out
  of c per coordinate); disjoint pairs of coordinates jointly uniform (independence); the signs at
  each row balanced (signs independent of rows);
- **Gaussian entries**: mean 0 (z-test), second moment 1 (Σg² ~ χ²_N), the law N(0, 1)
  (Kolmogorov–Smirnov, exact), every entry's Σ_t g² ~ χ²_T over the seeds (the seed is used), every
  pair of entries uncorrelated over the seeds (Pearson's t, exact for normal data);
- **embedding**: max_i |σ_i(SQ) − 1| ≤ ε (Q an orthonormal basis of range(A)) on three coherent inputs
  A (spikes e_i, Walsh–Hadamard columns, repeated rows) with m = ⌈(d² + d)/(δε²)⌉ rows.  For each of
  the four sketches (Gaussian, CountSketch, OSNAP with independent columns, SRHT with rows sampled
  with replacement) E‖QᵀSᵀSQ − I‖_F² ≤ (d² + d)/m — for the SRHT because x = QᵀDH[r]ᵀ has
  E‖x‖⁴ = (tr P)² + 2Σ_{i≠j}P_ij² ≤ d² + 2d (P = QQᵀ, Rademacher entries) and E[xxᵀ | D] = I — so by
  Markov P[‖QᵀSᵀSQ − I‖₂ > ε] ≤ δ, and |σ − 1| ≤ |σ² − 1|.  T trials per input are judged by the
  ledger's binomial rule.

False-alarm rate: every test uses an exact null law (binomial, normal, χ², Student t,
Kolmogorov–Smirnov; no asymptotic approximation) and a check's α = :data:`FALSE_ALARM` is split by
Bonferroni over its families and, within a family, over its p-values (two-sided p-values as twice
the smaller tail): a correct sketch fails a check with probability at most α = 1e-6.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from mpmath import mp
from scipy import stats

from oracle.sketch_bits import distortion_from_grams, int_scaled, sketch_grams

from .engine import FALSE_ALARM, binomial_threshold
from .toolkit import Outcome
from .toolkit.strategies import walsh_hadamard_columns

__all__ = ["EMBEDDING", "TRIALS", "Draws", "Embedding", "Hits", "bits_distribution", "bits_draws",
           "bits_embedding", "coherent_inputs", "embedding", "exact_gram", "judge"]

TRIALS = 64
"""Seeds per distribution check: a coordinate whose sign never changes has p = 2·2^-64."""


@dataclass(frozen=True)
class Embedding:
    """The fixed instance of the embedding check: d columns, distortion ε, failure probability δ."""

    d: int = 2
    eps: float = 0.5
    delta: float = 0.2
    trials: int = 20

    @property
    def rows(self) -> int:
        """m = ⌈(d² + d)/(δε²)⌉, the rows for which P[distortion > ε] ≤ δ (module docstring)."""
        return math.ceil(Fraction(self.d**2 + self.d) / (Fraction(self.delta) * Fraction(self.eps) ** 2))


EMBEDDING = Embedding()


@dataclass(frozen=True)
class Hits:
    """The rows a sketch draws: ``rows[t, :, j]`` the s distinct values in [0, categories) that coordinate j
    drew with seed t; ``signs`` (same shape, optional) the sign drawn with each row."""

    label: str
    rows: np.ndarray
    categories: int
    signs: np.ndarray | None = None


@dataclass(frozen=True)
class Draws:
    """What a sketch drew over the seeds 0 … T−1: ``signs`` (T, K) of ±1, ``hits`` (rows), ``gauss``
    (T, L) entries that should be iid N(0, 1)."""

    label: str
    signs: np.ndarray | None = None
    hits: tuple[Hits, ...] = ()
    gauss: np.ndarray | None = None


# -- exact tests: each family is (name, p-values, describe(index) -> str) --------------------------

def _binom_two_sided(count, n, p):
    """Twice the smaller binomial tail at ``count`` (vectorised; valid: P[value ≤ a] ≤ a)."""
    count, n = np.asarray(count), np.asarray(n)
    lower = stats.binom.cdf(count, n, p)
    upper = stats.binom.sf(count - 1, n, p)
    return np.minimum(1.0, 2.0 * np.minimum(lower, upper))


def _sign_families(signs):
    T, K = signs.shape
    plus = (signs > 0).sum(axis=0)
    fams = [("sign balance", _binom_two_sided(plus, T, 0.5),
             lambda i: f"coordinate {i}: {plus[i]} of {T} seeds drew +1")]
    if K > 1:
        i, j = np.triu_indices(K, 1)
        agree = ((signs.T @ signs)[i, j] + T) // 2  # seeds where signs i and j agree
        fams.append(("sign independence", _binom_two_sided(agree, T, 0.5),
                     lambda q: f"coordinates {i[q]}, {j[q]}: equal on {agree[q]} of {T} seeds"))
    return fams


def _hit_families(h: Hits):
    T, s, k = h.rows.shape
    c = h.categories
    onehot = np.zeros((T, k, c), dtype=np.int64)
    for t in range(s):
        np.put_along_axis(onehot, h.rows[:, t, :, None], 1, axis=2)
    per = onehot.sum(axis=0)  # (k, c): seeds in which coordinate j drew row r
    pooled = per.sum(axis=0)
    fams = [(f"{h.label} uniform per coordinate", _binom_two_sided(per.ravel(), T, s / c),
             lambda q: f"coordinate {q // c} drew row {q % c} in {per.ravel()[q]} of {T} seeds (expected {T * s / c:g})"),
            (f"{h.label} uniform pooled", _binom_two_sided(pooled, T * k, s / c),
             lambda r: f"row {r} drawn {pooled[r]} times in {T * k} coordinate draws (expected {T * k * s / c:g})")]
    if k > 1:
        a, b = onehot[:, 0:k - 1:2, :], onehot[:, 1:k:2, :]  # disjoint pairs of coordinates (0,1), (2,3), …
        joint = np.einsum("tpr,tpq->rq", a, b).ravel()
        npairs = T * (k // 2)
        fams.append((f"{h.label} pairwise independence", _binom_two_sided(joint, npairs, (s / c) ** 2),
                     lambda q: f"rows ({q // c}, {q % c}) drawn together by a pair of coordinates {joint[q]} times in "
                               f"{npairs} pairs (expected {npairs * (s / c) ** 2:g})"))
    if h.signs is not None:
        at = [h.signs[h.rows == r] for r in range(c)]
        plus = np.array([int((v > 0).sum()) for v in at])
        total = np.array([v.size for v in at])
        fams.append((f"signs independent of {h.label}", _binom_two_sided(plus, total, 0.5),
                     lambda r: f"{plus[r]} of the {total[r]} signs drawn at row {r} are +1"))
    return fams


def _gauss_families(g):
    T, L = g.shape
    x = g.ravel()
    N = x.size
    z = float(x.mean() * math.sqrt(N))
    ss = float((x**2).sum())
    per = (g**2).sum(axis=0)
    fams = [("Gaussian mean 0", np.array([2 * stats.norm.sf(abs(z))]), lambda _: f"z = {z:.3g} over {N} entries"),
            ("Gaussian second moment 1", _chi2_two_sided(np.array([ss]), N), lambda _: f"Σg² = {ss:.4g}, expected {N}"),
            ("Gaussian law (Kolmogorov-Smirnov)", np.array([stats.kstest(x, "norm", method="exact").pvalue]),
             lambda _: f"{N} entries against N(0, 1)"),
            ("Gaussian entry varies with the seed", _chi2_two_sided(per, T),
             lambda i: f"entry {i}: Σ_t g² = {per[i]:.3g} over {T} seeds")]
    if L > 1:
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.corrcoef(g.T)
        i, j = np.triu_indices(L, 1)
        rij = np.nan_to_num(r[i, j], nan=1.0)  # a constant entry (nan) is judged as fully correlated
        tval = np.abs(rij) * np.sqrt((T - 2) / np.maximum(1 - rij**2, 1e-300))
        fams.append(("Gaussian entries independent", np.minimum(1.0, 2 * stats.t.sf(tval, T - 2)),
                     lambda q: f"entries {i[q]}, {j[q]}: correlation {rij[q]:.3g} over {T} seeds"))
    return fams


def _chi2_two_sided(value, df):
    return np.minimum(1.0, 2 * np.minimum(stats.chi2.cdf(value, df), stats.chi2.sf(value, df)))


def judge(draws: Draws, alpha: float = FALSE_ALARM) -> Outcome:
    """The verdict on ``draws``: every family passes at level α/(number of families), Bonferroni over its
    p-values.  ratio = (level/count)/p_min (> 1 fails); the note names the worst test."""
    fams = []
    if draws.signs is not None:
        fams += _sign_families(np.asarray(draws.signs, dtype=np.int64))
    for h in draws.hits:
        fams += _hit_families(h)
    if draws.gauss is not None:
        fams += _gauss_families(np.asarray(draws.gauss, dtype=np.float64))
    if not fams:
        raise ValueError(f"draws={draws.label!r} must hold signs, rows or Gaussian entries")
    level = alpha / len(fams)
    worst = None
    for name, p, describe in fams:
        p = np.asarray(p, dtype=np.float64).ravel()
        q = int(np.argmin(p))
        bound = level / p.size
        ratio = bound / p[q] if p[q] > 0 else math.inf
        if worst is None or ratio > worst[0]:
            worst = (ratio, name, float(p[q]), bound, describe(q))
    ratio, name, p, bound, what = worst
    verdict = "fails" if ratio > 1 else "worst test"
    note = (f"{draws.label}: {verdict} {name}: {what}; p = {p:.3g} vs level {bound:.3g} ({len(fams)} test families, "
            f"false-alarm rate ≤ {alpha:g})")
    return Outcome(bool(ratio <= 1), float(ratio), p, bound, None, note)


# -- the bits formats of the contract (properties.attention_kernel_regression.adapters) ------------

def _ints(bits_list, key):
    return np.stack([np.asarray(b[key]).astype(np.int64) for b in bits_list])


def bits_draws(kind: str, label: str, bits_list) -> Draws:
    """The draws of ``kind`` ∈ {srht, tensor_srht, osnap, countsketch, gaussian} from one bits dict per seed
    (formats of ``srht_bits`` … ``gaussian_bits``); the shapes and ranges were checked by the format check."""
    if kind == "srht":
        n_pad = int(np.asarray(bits_list[0]["signs"]).shape[0])
        return Draws(label, _ints(bits_list, "signs"), (Hits("rows", _ints(bits_list, "rows")[:, None, :], n_pad),))
    if kind == "tensor_srht":
        p1, p2 = (int(np.asarray(bits_list[0][k]).shape[0]) for k in ("signs1", "signs2"))
        pair = _ints(bits_list, "rows1") * p2 + _ints(bits_list, "rows2")  # (rows1, rows2) jointly uniform
        return Draws(label, np.concatenate([_ints(bits_list, "signs1"), _ints(bits_list, "signs2")], axis=1),
                     (Hits("row pairs (rows1·d2p + rows2)", pair[:, None, :], p1 * p2),))
    if kind in ("osnap", "countsketch"):
        m = int(np.asarray(bits_list[0]["m"]))
        rows, signs = _ints(bits_list, "rows"), _ints(bits_list, "signs")
        if kind == "countsketch":
            rows, signs = rows[:, None, :], signs[:, None, :]
        return Draws(label, signs.reshape(signs.shape[0], -1), (Hits("rows", rows, m, signs),))
    if kind == "gaussian":
        return Draws(label, gauss=np.stack([np.asarray(b["g"], dtype=np.float64).ravel() for b in bits_list]))
    raise ValueError(f"kind={kind!r} must be one of srht, tensor_srht, osnap, countsketch, gaussian")


def _feature_draws(label, per_seed) -> Draws:
    """attention_feature_bits: the signs of every degree's T and S together (independence across degrees
    too), and the rows of each degree's SRHT T_l and TensorSRHT S_l."""
    degrees = len(per_seed[0])
    signs, hits = [], []
    for l in range(degrees):
        T = bits_draws("srht", label, [bits[l][0] for bits in per_seed])
        S = bits_draws("tensor_srht", label, [bits[l][1] for bits in per_seed])
        signs += [T.signs, S.signs]
        hits += [Hits(f"degree {l + 1} T rows", T.hits[0].rows, T.hits[0].categories),
                 Hits(f"degree {l + 1} S row pairs", S.hits[0].rows, S.hits[0].categories)]
    return Draws(label, np.concatenate(signs, axis=1), tuple(hits))


_DISTRIBUTION_ARGS = {  # small fixed instances: every cell of every test expects ≥ 1.5 counts in 64 seeds
    "srht": (12, 8), "tensor_srht": (3, 4, 8), "osnap": (12, 8, 2), "countsketch": (16, 4), "gaussian": (6, 4),
    "feature": (3, [4, 4]),
}


def bits_distribution(kind: str, trials: int = TRIALS) -> Callable:
    """The statistical check (``Adapter.statistical``) of ``<kind>_bits``'s distribution: its bits for the
    seeds 0 … trials−1 on a fixed small instance, judged by :func:`judge`."""
    args = _DISTRIBUTION_ARGS[kind]
    name = "attention_feature_bits" if kind == "feature" else f"{kind}_bits"

    def distribution(fn) -> Outcome:
        per_seed = [fn(*args, seed) for seed in range(trials)]
        label = f"{name}({', '.join(map(str, args))}, seed) over seeds 0…{trials - 1}"
        return judge(_feature_draws(label, per_seed) if kind == "feature" else bits_draws(kind, label, per_seed))

    return distribution


# -- the embedding on coherent inputs --------------------------------------------------------------

def coherent_inputs(n: int, d: int) -> dict[str, np.ndarray]:
    """Inputs A (n × d, n a power of two divisible by d) on which a sketch with constant signs or a
    constant hash fails: spikes e_0 … e_{d−1}, the first d Walsh–Hadamard columns (the first is 1_n),
    and the rows of I_d repeated n/d times."""
    return {"spikes": np.eye(n)[:, :d], "Walsh-Hadamard columns": walsh_hadamard_columns(n, d),
            "repeated rows": np.tile(np.eye(d), (n // d, 1))}


def exact_gram(Y):
    """YᵀY of a float64 matrix, exactly (rows of Fractions)."""
    N, k = int_scaled(np.asarray(Y, dtype=np.float64))
    den = 1 << (2 * k)
    return [[Fraction(int(sum(N[:, i] * N[:, j])), den) for j in range(N.shape[1])] for i in range(N.shape[1])]


def embedding(sketch: Callable, n: int, label: str, rule: Embedding = EMBEDDING) -> Outcome:
    """The statistical check of the subspace embedding on :func:`coherent_inputs`: ``sketch(m, seed)``
    returns ``grams(A)``, the exact ((SA)ᵀSA, AᵀA) of the sketch with that seed; for each input, the trials
    whose distortion exceeds ε must not be more than the binomial rule allows at failure probability δ
    (false-alarm rate α/3 per input)."""
    m = rule.rows
    q = binomial_threshold(rule.trials, rule.delta, FALSE_ALARM / 3)
    inputs = coherent_inputs(n, rule.d)
    bad = {name: [] for name in inputs}
    for seed in range(rule.trials):
        grams = sketch(m, seed)
        for name, A in inputs.items():
            dist = distortion_from_grams(*grams(A))
            if dist > rule.eps:
                bad[name].append((seed, dist))
    worst = None
    for name in inputs:
        ratio = len(bad[name]) / q if q else (math.inf if bad[name] else 0.0)
        if worst is None or ratio > worst[0]:
            worst = (ratio, name, bad[name])
    ratio, name, bad = worst
    first = f"; first at seed {bad[0][0]}: distortion {mp.nstr(bad[0][1], 4)}" if bad else ""
    note = (f"{label} at n={n}, d={rule.d}, m={m}: worst input {name}: {len(bad)} of {rule.trials} trials with "
            f"max|σ_i(SQ) − 1| > ε = {rule.eps}{first}; a sketch failing with probability ≤ δ = {rule.delta} shows at "
            f"most {q} except with probability {FALSE_ALARM / 3:.2g}")
    return Outcome(len(bad) <= q, float(ratio), float(len(bad)), float(q), None, note)


_EMBEDDING_N = {"srht": 1024, "osnap": 1024, "countsketch": 1024, "gaussian": 128}
_OSNAP_S = 4  # column sparsity of the OSNAP in the embedding check (divides m = 120)


def bits_embedding(kind: str, rule: Embedding = EMBEDDING) -> Callable:
    """The statistical check (``Adapter.statistical``) of ``<kind>_bits`` as a subspace embedding on coherent
    inputs: the implementation's bits, the oracle's exact Grams (:func:`oracle.sketch_bits.sketch_grams`)."""
    n = _EMBEDDING_N[kind]

    def embedding_on_coherent_inputs(fn) -> Outcome:
        def sketch(m, seed):
            bits = fn(n, m, _OSNAP_S, seed) if kind == "osnap" else fn(n, m, seed)
            return lambda A: sketch_grams(kind, bits, A)

        return embedding(sketch, n, f"{kind}_bits", rule)

    return embedding_on_coherent_inputs
