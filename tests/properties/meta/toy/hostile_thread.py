"""Hostile module: a correct ``kron``, and a non-daemon thread started at import that never ends (an
in-process validator prints PASS and never exits).  Isolated: a FAIL naming the thread, exit 1."""

import threading
import time

import numpy as np


def _forever():
    while True:
        time.sleep(0.05)


threading.Thread(target=_forever, name="hostile-forever", daemon=False).start()


def kron(x, y):
    return np.kron(x, y)
