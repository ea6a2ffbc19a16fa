"""The claim toolkit shared by every paper: claim shapes (:class:`ClaimSet`), the
precision-escalating judges, and the common strategies.

Public names are re-exported here; the submodules are ``claims`` (Claim, ClaimSet and the shapes),
``judge`` (eq, le, loewner, …), ``strategies``, ``outcome``, ``provenance`` (provenance, conventions,
readings and the strength of a falsification) and ``facts`` (the facts several papers state
alike, each declared once and called by every paper that states it).
"""

from . import strategies as strategies
from .claims import VERDICTS as VERDICTS
from .claims import Claim as Claim
from .claims import ClaimSet as ClaimSet
from .claims import canonical_ids as canonical_ids
from .claims import named as named
from .claims import radius as radius
from .claims import to_oracle as to_oracle
from .judge import HypothesisUnmet as HypothesisUnmet
from .judge import UndecidableError as UndecidableError
from .judge import at_precision as at_precision
from .judge import eq as eq
from .judge import float_outcome as float_outcome
from .judge import le as le
from .judge import loewner as loewner
from .judge import require as require
from .judge import slope as slope
from .judge import start_dps as start_dps
from .judge import worst as worst
from .judge import worst_pair as worst_pair
from .outcome import Outcome as Outcome
from .provenance import Convention as Convention
from .provenance import strength as strength

__all__ = [
    "VERDICTS", "Claim", "ClaimSet", "Convention", "HypothesisUnmet", "Outcome", "UndecidableError", "at_precision",
    "canonical_ids", "eq", "float_outcome", "le", "loewner", "named", "radius", "require", "slope", "start_dps",
    "strategies", "strength", "to_oracle", "worst", "worst_pair",
]
