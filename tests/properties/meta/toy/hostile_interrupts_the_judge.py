"""Hostile module: ``kron`` sends SIGINT to the judge (its parent).  The judge reports an interruption
in one line (exit 130), never a KeyboardInterrupt traceback."""

import os
import signal

import numpy as np


def kron(x, y):
    os.kill(os.getppid(), signal.SIGINT)
    return np.kron(x, y)
