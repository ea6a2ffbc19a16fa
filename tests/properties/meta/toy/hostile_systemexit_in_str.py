"""Hostile module: ``kron`` raises an exception whose ``__str__`` raises ``SystemExit(0)``.  FAIL, exit 1."""


class _Error(ValueError):
    def __str__(self):
        raise SystemExit(0)


def kron(x, y):
    raise _Error()
