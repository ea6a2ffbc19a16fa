"""Hostile module: ``kron`` returns an object whose ``__array__`` never returns.  The conversion runs in
the module's process inside the call's time limit: FAIL after ``--timeout``, exit 1."""

import time


class _Out:
    def __array__(self, dtype=None, copy=None):
        while True:
            time.sleep(0.05)


def kron(x, y):
    return _Out()
