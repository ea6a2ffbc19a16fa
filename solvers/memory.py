"""What this machine can hold: size arguments are checked against it before JAX or numpy allocates.

An allocation XLA cannot make (an array of 2⁴⁰ entries, a shape whose byte count overflows int64)
aborts the interpreter (SIGABRT from an XLA check) instead of raising; numpy fails late and slowly.
Every public entry point of ``solvers`` whose size arguments (``m``, ``n``, ``steps``, …) decide what
it allocates calls :func:`check_fits` with the bytes of its largest arrays first, so a size beyond the
machine is a ``ValueError`` naming the arguments and the limit.

The limit is the physical memory (``os.sysconf``), lowered to the cgroup's limit where one is set
(containers): :func:`memory_bytes`.  The byte counts are those of the arrays a call creates (results
and the largest intermediates), not of every temporary, so a call just under the limit may still run
short of memory; the check is there to refuse sizes no run on this machine could hold.
"""

from __future__ import annotations

import functools
import os
import pathlib

__all__ = ["check_fits", "memory_bytes"]

_CGROUP_LIMITS = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")
_FALLBACK = 1 << 40  # where the operating system does not say (not POSIX): 1 TiB


@functools.cache
def memory_bytes() -> int:
    """Bytes of memory this process can use: physical memory, or the cgroup's limit if lower."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        total = _FALLBACK
    for path in _CGROUP_LIMITS:
        try:
            text = pathlib.Path(path).read_text(encoding="ascii").strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < total:
            total = int(text)
    return int(total)


def check_fits(nbytes: int, what: str, **sizes: int) -> None:
    """``ValueError`` when ``nbytes`` (the bytes of ``what``, set by the arguments ``sizes``) exceed
    :func:`memory_bytes`: ``m=… must fit in this machine's memory (… bytes): … would take … bytes``."""
    limit = memory_bytes()
    if nbytes > limit:
        args = ", ".join(f"{name}={value}" for name, value in sizes.items())
        raise ValueError(f"{args} must fit in this machine's memory ({float(limit):.3g} bytes): {what} would take "
                         f"{float(nbytes):.3g} bytes")
