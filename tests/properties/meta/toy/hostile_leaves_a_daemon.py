"""Hostile module: ``kron`` double-forks a process that leaves the module's session (``setsid``), writes
its pid to the file named by ``HOSTILE_PID_FILE`` and sleeps.  The judge's watchdog finds it by the
environment it inherited and kills it when the module's process is closed: no process survives the judge."""

import os
import time

import numpy as np


def kron(x, y):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(os.environ["HOSTILE_PID_FILE"], "w") as out:
                out.write(str(os.getpid()))
            time.sleep(1000)
        os._exit(0)
    os.wait()
    return np.kron(x, y)
