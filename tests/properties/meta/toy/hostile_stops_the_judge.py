"""Hostile module: ``kron`` stops the judge (SIGSTOP to its parent) and sleeps.  The judge's watchdog,
a process of its own, ends the module's processes at the time limit and resumes the judge: FAIL, exit 1."""

import os
import signal
import time


def kron(x, y):
    os.kill(os.getppid(), signal.SIGSTOP)
    time.sleep(1000)
