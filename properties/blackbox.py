"""Black-box sketches: functions that return S·A and expose no random bits, such as
``scipy.linalg.clarkson_woodruff_transform(A, m, rng=...)``.

The contract's forms are ``countsketch(A, m, seed)``, ``srht(A, m, seed)``, ``osnap(A, m, s, seed)``
and ``gaussian_sketch(A, m, seed)`` (a bare ``gaussian`` is too common a name to claim), each
returning the (m, d) array S·A for an (n, d) array A, S the m × n sketch of that seed, with the
distributions of ``countsketch_bits`` … ``gaussian_bits`` (README's adapter table).  The validator

- recovers S by probing with the identity, S = f(I_n, m, seed), at small n;
- checks its structure: one ±1 per column (CountSketch), s entries ±1/√s per column (OSNAP), every
  entry ±1/√m with the rows sign-flipped Walsh rows of order 2^⌈log₂n⌉ (SRHT);
- checks that f is the linear map of that S: f(M) = S·M for M = A, B and A + B (linearity and one S for
  every input of the seed), within the rounding allowance of a sum in any order plus one rounding of S;
- checks determinism in the seed (the validator calls f twice with every seed);
- and, once per function (``Adapter.statistical``), the distribution of the recovered S over the
  seeds 0 … 63 and the subspace embedding of f's own outputs on coherent inputs, by the tests of
  :mod:`properties.sketch_statistics` (false-alarm rate 1e-6 each).
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from oracle.sketch_bits import int_scaled

from .contract import AdapterSet, U, output, within
from .sketch_statistics import TRIALS, Draws, Hits, embedding, exact_gram, judge
from .toolkit import Outcome
from .toolkit.strategies import PATH_SIZES, dims, fixed_matrix, matrices, walsh_hadamard_columns

__all__ = ["ADAPTERS", "KINDS", "recover", "structure"]

ADAPTERS = AdapterSet()
KINDS = {"countsketch": "countsketch", "srht": "srht", "osnap": "osnap", "gaussian": "gaussian_sketch"}
"""Sketch kind → the name of its black-box function in the contract."""

_SEEDS = st.integers(0, 2**31 - 1)
_DISTRIBUTION = {"countsketch": (16, 4, 1), "srht": (16, 8, 1), "osnap": (12, 8, 2), "gaussian": (6, 4, 1)}
_EMBEDDING = {"countsketch": (1024, 1), "srht": (1024, 1), "osnap": (1024, 4), "gaussian": (128, 1)}


def _call(kind: str, fn, M, m: int, s: int, seed: int) -> np.ndarray:
    """f(M) as a checked (m, k) float64 array."""
    out = fn(M.copy(), m, s, seed) if kind == "osnap" else fn(M.copy(), m, seed)
    return output(out, KINDS[kind], shape=(m, M.shape[1]))


def recover(kind: str, fn, n: int, m: int, s: int, seed: int) -> np.ndarray:
    """S = f(I_n, m[, s], seed): the sketch of that seed, probed with the identity."""
    return _call(kind, fn, np.eye(n), m, s, seed)


def _walsh_index(w: np.ndarray, H: np.ndarray) -> int | None:
    """q with w = H[q, :n] (a Walsh row restricted to the first n columns), else None."""
    hits = np.flatnonzero((H[:, : w.size] == w).all(axis=1))
    return int(hits[0]) if hits.size else None


def structure(kind: str, S: np.ndarray, s: int = 1):
    """``(problem, draws)`` of a recovered S: ``problem`` names the first violated rule of the kind's
    structure (None when S has it); ``draws`` is what S drew — CountSketch, OSNAP: the rows (s, n) and
    signs (s, n) of the nonzeros (rows ascending); SRHT: signs v₀ = sign(S[0]) and Walsh indices
    q_k of sign(S[k])·v₀ (k ≥ 1; S[k, i]√m = signs[i]·H[r_k, i], so q_k = r_k ⊕ r_0, iid uniform when
    the r_k are); Gaussian: g = S·√m."""
    m, n = S.shape
    if kind in ("countsketch", "osnap"):
        nz = S != 0
        count = nz.sum(axis=0)
        bad = np.flatnonzero(count != s)
        if bad.size:
            return f"column {bad[0]} has {count[bad[0]]} nonzeros, must have {s}", None
        rows = np.sort(np.nonzero(nz.T)[1].reshape(n, s), axis=1).T  # (s, n)
        vals = np.take_along_axis(S, rows, axis=0)
        scale = 1 / math.sqrt(s)
        off = np.abs(np.abs(vals) - scale) > 4 * U * scale
        if off.any():
            t, j = np.argwhere(off)[0]
            return f"S[{rows[t, j]}, {j}] = {vals[t, j]!r}, must be ±1/√s = ±{scale!r}", None
        return None, (rows, np.sign(vals).astype(np.int64))
    if kind == "srht":
        n_pad = 1 << (n - 1).bit_length()
        scale = 1 / math.sqrt(m)
        off = np.abs(np.abs(S) - scale) > (math.log2(n_pad) + 4) * U * scale
        if off.any():
            k, i = np.argwhere(off)[0]
            return f"S[{k}, {i}] = {S[k, i]!r}, must be ±1/√m = ±{scale!r}", None
        v0 = np.sign(S[0]).astype(np.int64)
        H = walsh_hadamard_columns(n_pad, n_pad)
        q = [_walsh_index(np.sign(S[k]).astype(np.int64) * v0, H) for k in range(m)]
        if None in q:
            k = q.index(None)
            return f"row {k} of S·√m is not a sign-flipped Walsh row (sign(S[{k}])·sign(S[0]) ∉ rows of H_{n_pad})", None
        return None, (v0, np.array(q[1:], dtype=np.int64))
    return None, S * math.sqrt(m)


def _exact_product(S, M):
    """S·M computed exactly in integers (every float64 is a dyadic rational) and correctly rounded, and Σ|S||M|."""
    NS, ks = int_scaled(S)
    NM, km = int_scaled(M)
    den = 1 << (ks + km)
    exact = np.array([[int(v) / den for v in row] for row in NS.dot(NM)], dtype=np.float64)
    return exact, np.abs(S) @ np.abs(M)


def _gamma(S: np.ndarray) -> np.ndarray:
    """Per-row rounding allowance: the nonzeros of the row + 3 (a sum in any order, as ``*_apply``'s rule for
    sparse and dense sketches), plus one rounding of the probed S."""
    return (S != 0).sum(axis=1)[:, None] + 4.0


def _instances(kind):
    def build(t):
        n, d, m, s, seed = t
        return st.tuples(st.just((n, m, 1 + s % m if kind == "osnap" else 1, seed)),
                         matrices(st.just(n), st.just(d), max_abs=1e3), matrices(st.just(n), st.just(d), max_abs=1e3))
    return st.tuples(dims(1, 8), dims(1, 2), dims(1, 8), dims(1, 8), _SEEDS).flatmap(build)


def _magnitude_corners(kind):
    """((n, m, s, seed), A, B) with A near 1e154 and B near 1e-162 (whose squares overflow and underflow),
    and entries above 10 (12 + a fixed matrix)."""
    s = 2 if kind == "osnap" else 1
    ramp = np.linspace(1.0, -1.0, 16).reshape(8, 2) + 0.125
    return [((8, 4, s, 3), ramp * 1e154, ramp[::-1] * 1e-162), ((8, 4, s, 3), fixed_matrix(8, 2) + 12.0, ramp - 12.0)]


def _size_corners(kind):
    """n = 7 … 65 rows (:data:`~properties.toolkit.strategies.PATH_SIZES`: an SRHT pads 9 to 16, …, 65 to 128)."""
    s = 2 if kind == "osnap" else 1
    return [((n, 5, s, 3), fixed_matrix(n, 2), np.cos(np.arange(2.0 * n)).reshape(n, 2)) for n in PATH_SIZES]


def _compare(kind):
    def compare(inst, fn) -> Outcome:
        (n, m, s, seed), A, B = inst
        S = recover(kind, fn, n, m, s, seed)
        problem, _ = structure(kind, S, s)
        if problem:
            return Outcome(False, math.inf, 0.0, 0.0, None, f"f(I_{n}, m={m}, seed={seed}) is not a {kind}: {problem}")
        gamma = _gamma(S)
        worst = (0.0, "")
        for label, M in (("A", A), ("B", B), ("A + B", A + B)):
            exact, mag = _exact_product(S, M)
            err = np.abs(_call(kind, fn, M, m, s, seed) - exact)
            tol = (gamma * mag + 2 * np.abs(exact)) * U
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(err == 0, 0.0, err / tol)
            if ratio.max() > worst[0]:
                worst = (float(ratio.max()), label)
        ratio, label = worst
        what = "f(A + B) ≠ S(A + B): not linear" if label == "A + B" else f"f({label}) ≠ S·{label}"
        note = (f"{what}, S = f(I_{n}) (worst |f(M) − S·M|/tolerance {ratio:.3g})" if ratio > 1
                else f"n={n}, m={m}: f(M) = S·M for M = A, B, A + B (worst error/tolerance {ratio:.3g})")
        return within(ratio, 1.0, note)

    return compare


def _distribution(kind):
    n, m, s = _DISTRIBUTION[kind]
    name = KINDS[kind]

    def distribution(fn) -> Outcome:
        per_seed = []
        for seed in range(TRIALS):
            problem, drawn = structure(kind, recover(kind, fn, n, m, s, seed), s)
            if problem:
                return Outcome(False, math.inf, 0.0, 0.0, None, f"f(I_{n}, m={m}, seed={seed}) is not a {kind}: {problem}")
            per_seed.append(drawn)
        label = f"S = {name}(I_{n}, {m}{f', {s}' if kind == 'osnap' else ''}, seed) over seeds 0…{TRIALS - 1}"
        if kind == "gaussian":
            return judge(Draws(label, gauss=np.stack([g.ravel() for g in per_seed])))
        if kind == "srht":
            signs = np.stack([v0 for v0, _ in per_seed])
            q = np.stack([q for _, q in per_seed])[:, None, :]
            return judge(Draws(label, signs, (Hits("Walsh rows relative to row 0", q, n),)))
        rows = np.stack([r for r, _ in per_seed])
        signs = np.stack([sg for _, sg in per_seed])
        return judge(Draws(label, signs.reshape(TRIALS, -1), (Hits("rows", rows, m, signs),)))

    return distribution


def _embedding(kind):
    n, s = _EMBEDDING[kind]

    def embedding_on_coherent_inputs(fn) -> Outcome:
        def sketch(m, seed):
            return lambda A: (exact_gram(_call(kind, fn, A, m, s, seed)), exact_gram(A))

        return embedding(sketch, n, KINDS[kind])

    return embedding_on_coherent_inputs


_TOL = ("S = f(I_n) recovered by probing has the kind's structure, and f(M) = S·M for M = A, B, A + B "
        "within |f(M) − SM| ≤ (γ + 1)·u·(Σ|S||M|) + 2u|SM|, γ = nonzeros in the row + 3 (any summation order); "
        "deterministic in seed; distribution of S over seeds and the embedding on coherent inputs by the "
        "statistical checks")
_DOCS = {
    "countsketch": ("countsketch(A: (n, d), m: int, seed: int) -> (m, d)",
                    "S·A for an m×n CountSketch S of that seed (one ±1 per column at a uniform row, uniform signs), "
                    "e.g. scipy.linalg.clarkson_woodruff_transform"),
    "srht": ("srht(A: (n, d), m: int, seed: int) -> (m, d)",
             "S·A for the m×n SRHT S = P·H·D·[I; 0]/√m of that seed (uniform signs, rows sampled with replacement)"),
    "osnap": ("osnap(A: (n, d), m: int, s: int, seed: int) -> (m, d)",
              "S·A for an m×n OSNAP / sparse sign sketch: s distinct rows per column, entries ±1/√s, uniform signs"),
    "gaussian": ("gaussian_sketch(A: (n, d), m: int, seed: int) -> (m, d)",
                 "S·A for S = g/√m, g an m×n matrix of iid N(0, 1) entries drawn from the seed"),
}

for _kind, (_signature, _doc) in _DOCS.items():
    ADAPTERS(KINDS[_kind], signature=_signature, doc=_doc, tolerance=_TOL, strategy=lambda k=_kind: _instances(k),
             max_examples=40, seeded="seed", statistical=(_distribution(_kind), _embedding(_kind)),
             magnitude_corners=lambda k=_kind: _magnitude_corners(k), size_corners=lambda k=_kind: _size_corners(k))(
        _compare(_kind))
