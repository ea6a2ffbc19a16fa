"""Implementations with one planted bug each, fed to the validator by
``tests/properties/meta/test_planted_bugs.py``: every one must FAIL its function with a minimal input of the
kind that separates it from the contract.  Never used elsewhere."""
