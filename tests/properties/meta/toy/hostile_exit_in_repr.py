"""Hostile module: ``kron`` raises an exception whose argument's ``__repr__`` calls ``os._exit(0)``, so
formatting the error ends the process.  Isolated, it is a FAIL; exit code 1."""

import os


class _Arg:
    def __repr__(self):
        os._exit(0)


def kron(x, y):
    raise ValueError(_Arg(), "two arguments: the message is the repr of both")
