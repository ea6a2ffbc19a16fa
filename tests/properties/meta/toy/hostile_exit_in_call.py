"""Hostile module: ``kron`` ends its own process with ``os._exit(0)`` (exit code 0, no verdict, in an
in-process validator).  Isolated, it is a FAIL naming the ended process; exit code 1."""

import os


def kron(x, y):
    os._exit(0)
