"""Hostile module: ``kron`` returns an object whose ``__array__`` raises ``SystemExit(0)``.  FAIL, exit 1."""


class _Out:
    def __array__(self, dtype=None, copy=None):
        raise SystemExit(0)


def kron(x, y):
    return _Out()
