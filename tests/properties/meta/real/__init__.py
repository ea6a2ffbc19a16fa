"""Real libraries written as adapter modules: each module wraps a library people use, as a
user would, and tests/properties/meta/test_real_libraries.py asserts that the validator PASSES it."""
