"""The machine line every benchmark prints next to its figures (cores, CPU, library versions, BLAS,
load average: a ratio measured under load is not comparable)."""

from __future__ import annotations

import os
import platform
import subprocess

import jax
import numpy as np
import scipy


def machine_info() -> str:
    cpu = platform.processor() or "?"
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout.splitlines():
            if line.startswith("Model name"):
                cpu = line.split(":", 1)[1].strip()
    except OSError:
        pass
    try:
        dep = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        blas = f"{dep.get('name')} {dep.get('version')}"
    except (KeyError, TypeError):
        blas = "?"
    return (f"nproc {os.cpu_count()}, CPU {cpu}, jax {jax.__version__} "
            f"({jax.devices()[0].platform}), numpy {np.__version__} (BLAS {blas}), "
            f"scipy {scipy.__version__}, load average {os.getloadavg()}")
