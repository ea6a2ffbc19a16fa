"""Toy implementations for meta-tests of the validator (planted bugs and misbehaviour; never used elsewhere)."""
