"""Hostile module: ``kron`` returns an object whose ``__array__`` calls ``os._exit(0)``.  Isolated, it is a
FAIL; exit code 1."""

import os


class _Out:
    def __array__(self, dtype=None, copy=None):
        os._exit(0)


def kron(x, y):
    return _Out()
