"""Claims of Appendix C of paper 004: Lemma C.5, the subspace-embedding property and the cost of the
SRHT and of OSNAP.  The random bits come from the implementation (``*_bits``); the matrix is rebuilt
from them by the oracle, never taken from the implementation; the cost is the implementation's own
operation count (``*_apply_ops``)."""

from __future__ import annotations

from mpmath import mp

from oracle.sketch_bits import distortion_from_grams, sketch_grams

from ..toolkit import ClaimSet, le, named
from .common import with_note
from .costs import SE_DELTA, SE_EPS, osnap_sparsity, sketch_time, with_time
from .strategies import se_instance, se_rows

__all__ = ["claims", "lemC_5_osnap", "lemC_5_srht"]

claims = ClaimSet("attention_kernel_regression")


def _se_claim(claim_id: str, kind: str, statement: str, *, hypotheses: str, notes: str, **options):
    """Declare Lemma C.5 (``claim_id``) for sketch ``kind`` ("srht" or "osnap") as 50 seeded trials at
    δ = SE_DELTA and return the trial: the implementation's ``<kind>_bits`` give S (rebuilt by the oracle)
    for the seed's fixed A (:func:`.strategies.se_instance`), the distortion max|σ_i(SQ) − 1| ≤ ε = SE_EPS
    is judged exactly, and the cost is the implementation's ``<kind>_apply_ops`` (:func:`.costs.sketch_time`).
    ``options`` are the provenance options of :class:`~properties.toolkit.ClaimSet`."""
    @claims.trial(claim_id, statement, hypotheses=hypotheses, delta=SE_DELTA, trials=50,
                  uses=(f"{kind}_bits", f"{kind}_apply_ops"), notes=notes, **options)
    @named(f"lemC_5_{kind}")
    def trial(seed: int, impl):
        A, n, d = se_instance(seed)
        m = se_rows(n, d, SE_EPS, SE_DELTA)
        bits = impl.srht_bits(n, m, seed) if kind == "srht" else impl.osnap_bits(n, m, osnap_sparsity(d), seed)
        SG, G = sketch_grams(kind, bits, A)
        out = le(lambda: (distortion_from_grams(SG, G), mp.mpf(SE_EPS)))
        return with_time(with_note(out, f"n={n}, d={d}, m={m}, family {seed % 3}"), sketch_time(impl, kind))

    return trial


lemC_5_srht = _se_claim(
    "attention_kernel_regression.lemC.5.srht", "srht",
    "SRHT S ∈ R^{m×n} with m = O(ε^{-2} d log(n/δ)) is SE(n, d, ε, δ) for any fixed A ∈ R^{n×d}; SA costs "
    "O(nd log(n/δ))",
    hypotheses="m = ⌈ε^{-2} d ln(n/δ)⌉ (C = 1), ε = 0.5, δ = 0.1, n ∈ {300 (padded to 512), 512}, "
               "d ∈ {2, 3}; A from three hard families (coherent A[:d] += 50I; scaled basis vectors; "
               "Gaussian with κ ≤ 1e6) fixed per seed; bits from the implementation, matrix rebuilt by the "
               "oracle; distortion max|σ_i(SQ) − 1| ≤ ε judged exactly",
    notes="Spec: HOLDS with C = 1 (worst distortion/ε 0.57). Time: the implementation's operation count of "
          "srht_apply (solvers: d·n'·log₂n' butterflies) over n = 2^10 … 2^14.",
    provenance="R", conventions=("constants", "probability"))

lemC_5_osnap = _se_claim(
    "attention_kernel_regression.lemC.5.osnap", "osnap",
    "OSNAP with m = O(ε^{-2} d log(d/δ)), s = O(ε^{-1} log(d/δ)) is SE(n, d, ε, δ); SA costs O(s·nnz(A))",
    hypotheses="m = ⌈ε^{-2} d ln(n/δ)⌉, s = ⌈ε^{-1} ln(d/δ)⌉ (block variant of solvers.sketches), ε = 0.5, "
               "δ = 0.1; A as lemC.5.srht",
    notes="Spec: HOLDS (C = 1; worst distortion/ε 0.53). Time: the implementation's operation count of "
          "osnap_apply (s·n·d scatter-adds).", provenance="R", conventions=("constants", "probability"))
