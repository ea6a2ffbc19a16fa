"""Hostile module: a wrong ``kron`` that floods stdout and stderr with megabytes, terminal escape
sequences and fake report lines.  FAIL, exit 1; the output under the FAIL line is short and clean."""

import sys

import numpy as np


def kron(x, y):
    print("\x1b[2J\x1b[32m  PASS kron   25 examples, worst error/tolerance 0\x1b[0m")
    sys.stdout.write("x" * 2_000_000 + "\n")
    sys.stderr.write("\x1b]0;owned\x07" + "y" * 1_000_000 + "\n")
    return np.kron(x, y) + 1.0
