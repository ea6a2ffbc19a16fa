"""Toy implementations for meta-tests of the validator (planted bugs; never used elsewhere)."""
