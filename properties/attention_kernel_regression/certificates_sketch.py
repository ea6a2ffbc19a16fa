"""Section L claims of paper 004 that rest on the implementation's sketches (Algorithm 8's SRHT and
TensorSRHT, the features W_g, Algorithm 7) and on seeded statistical trials (issue 22): declared on
:data:`.certificates.CERTIFIERS` as not certified yet, each with the reason and the route a certificate
would take."""

from __future__ import annotations

from .certificates import CERTIFIERS

__all__: list[str] = []

_SKETCH = ("not certified yet: the sketch {what} is rebuilt from the implementation's random bits by the mpmath "
           "oracle only (oracle.attention_kernel_ridge); a certificate needs it rebuilt in balls (Hadamard "
           "butterflies on the exact bits, 1/√m scalings) and then {proof}")
_RANK = "a witness v in the null space of the m×n sketch (m < n) with vᵀ(K − sketchᵀsketch)v > 0 enclosed"
_TRIALS = (", each failing seeded trial certified so, and the binomial tail P[Bin(k, δ) ≥ F] computed exactly in "
           "rationals against the false-alarm rate 1e-6")
_RIDGE = ("not certified yet: a statistical repair (seeded trials of the implementation's sketch); its certificate "
          "needs the sketch in balls and a lower bound on the smallest eigenvalue of the ridge-normalised sketch "
          "Gram matrix for each trial (an exact LDLᵀ of the shifted matrix)")

CERTIFIERS.cannot("attention_kernel_regression.thmL.5",
                  reason=_SKETCH.format(what="𝒵(S, T, X) of Algorithm 8 (p = 6, m = 6 < n = 7)", proof=_RANK))
CERTIFIERS.cannot("attention_kernel_regression.thmL.5", target="repair", reason=_RIDGE)
CERTIFIERS.cannot("attention_kernel_regression.thmL.1.p1",
                  reason=_SKETCH.format(what="Π^p = 𝒵(S, T, X) of Algorithm 8", proof=_RANK + _TRIALS))
CERTIFIERS.cannot("attention_kernel_regression.thmL.1.p1", target="repair", reason=_RIDGE)
CERTIFIERS.cannot("attention_kernel_regression.thmL.8",
                  reason=_SKETCH.format(what="W_g(X) (one Algorithm 8 sketch per degree)", proof=_RANK + _TRIALS))
CERTIFIERS.cannot("attention_kernel_regression.thmL.8", target="repair", reason=_RIDGE)
CERTIFIERS.cannot("attention_kernel_regression.thmL.3.allxy",
                  reason=_SKETCH.format(what="W_g(X)", proof="‖WᵀWx − y‖ and (1+ε̂)‖Kx − y‖ enclosed (K = exp(XᵀX) "
                                                            "entrywise in arb)"))
CERTIFIERS.cannot("attention_kernel_regression.thmL.3.allxy", target="repair",
                  reason=_SKETCH.format(what="W_g(X)", proof="the sandwich accuracy ε_W bounded above by an exact "
                                                            "LDLᵀ of the two shifted matrices"))
for _cid in ("attention_kernel_regression.thmL.3", "attention_kernel_regression.thm1.6"):
    CERTIFIERS.cannot(_cid, reason=(
        "not certified yet: each failing trial needs the implementation's Algorithm 7 output x̂ (n = 64) recorded "
        "and ‖exp(XᵀX)x̂ − y‖ > ε‖y‖ enclosed in balls (X, y regenerated from the seed), the trials where Algorithm "
        "7 gave no output (SWᵀ rank-deficient) counted only with an exact rank proof, and the binomial tail "
        "P[Bin(20, 0.1) ≥ 11] computed exactly in rationals"))
    CERTIFIERS.cannot(_cid, target="repair", reason=(
        "not certified yet: a statistical repair (10 seeded trials of Algorithm 7R); its certificate needs each "
        "trial's output recorded and ‖(K + λI)x̂ − y‖ ≤ ε‖y‖ enclosed strictly"))
