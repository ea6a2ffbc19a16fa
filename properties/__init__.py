"""Hypothesis strategies, the claim registry, the ledger runner and the validator.

``python -m properties`` runs the ledger; ``python -m properties validate MODULE`` validates an
implementation.  Public names:
"""

from .registry import Claim as Claim
from .registry import Outcome as Outcome
from .registry import claims as claims
from .registry import select as select
