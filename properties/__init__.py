"""The harness: the claim toolkit, the registry, the ledger runner and the validator.

``python -m properties`` runs the ledger; ``python -m properties validate MODULE`` validates an
implementation; ``python -m properties adapters`` lists the adapter contract.
"""

__all__ = ["Claim", "Outcome", "claims", "select"]

_HOMES = {"Claim": "toolkit", "Outcome": "toolkit", "claims": "registry", "select": "registry"}


def __getattr__(name: str):
    """The public names, imported on first use: importing the package imports nothing else, so that the
    command line can choose where the judge's dependencies come from first (:mod:`properties.own_imports`)."""
    if name not in _HOMES:
        raise AttributeError(f"module 'properties' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"properties.{_HOMES[name]}"), name)
