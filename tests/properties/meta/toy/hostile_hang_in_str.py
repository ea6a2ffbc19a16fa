"""Hostile module: ``kron`` raises an exception whose ``__str__`` never returns.  The hang happens while
the error is formatted, inside the call's time limit: FAIL after ``--timeout``, exit 1."""

import time


class _Error(ValueError):
    def __str__(self):
        while True:
            time.sleep(0.05)


def kron(x, y):
    raise _Error()
