"""Adapter checks of paper 003 (single-layer attention optimisation)."""

from __future__ import annotations

from ..contract import AdapterSet

__all__ = ["ADAPTERS"]

ADAPTERS = AdapterSet()
