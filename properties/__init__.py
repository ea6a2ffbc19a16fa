"""The harness: the claim toolkit, the registry, the ledger runner and the validator.

``python -m properties`` runs the ledger; ``python -m properties validate MODULE`` validates an
implementation; ``python -m properties adapters`` lists the adapter contract.
"""

from .registry import claims as claims
from .registry import select as select
from .toolkit import Claim as Claim
from .toolkit import Outcome as Outcome

__all__ = ["Claim", "Outcome", "claims", "select"]
