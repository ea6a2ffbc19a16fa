"""mpmath reference implementations: the judge of what is true (pure mpmath; numpy only to convert).

Public surface: exact conversion, input validation (``check_mp``, ``check_int``, ``as_float_array``,
``to_mp``: ValueError naming the argument for NaN, inf, complex/``mpc`` and non-numbers) and the
precision policy (:mod:`oracle.precision`),
high-precision linear algebra (:mod:`oracle.linalg`), derivation-independent derivatives
(:mod:`oracle.derivatives`), and one module per paper.
"""

from mpmath import mp

from . import derivatives as derivatives
from . import linalg as linalg
from .precision import DEFAULT_DPS as DEFAULT_DPS
from .precision import LADDER as LADDER
from .precision import Decision as Decision
from .precision import UndecidableError as UndecidableError
from .precision import as_float_array as as_float_array
from .precision import check_int as check_int
from .precision import check_mp as check_mp
from .precision import decide_sign as decide_sign
from .precision import to_float as to_float
from .precision import to_float_array as to_float_array
from .precision import to_mp as to_mp
from .precision import workdps as workdps

__all__ = [
    "DEFAULT_DPS",
    "LADDER",
    "Decision",
    "UndecidableError",
    "as_float_array",
    "check_int",
    "check_mp",
    "decide_sign",
    "derivatives",
    "linalg",
    "to_float",
    "to_float_array",
    "to_mp",
    "workdps",
]

# Everything the oracle computes outside an explicit ``workdps`` is at 50 digits, never mpmath's 15.
mp.dps = DEFAULT_DPS
