"""scipy.linalg as the linear-algebra adapters (svdvals, lstsq with its default gelsd driver)."""

import scipy.linalg as sla


def spectral_norm(A):
    return float(sla.svdvals(A)[0])


def sigma_min(A):
    return float(sla.svdvals(A)[-1])


def condition_number(A):
    s = sla.svdvals(A)
    return float(s[0] / s[-1]) if s[-1] > 0 else float("inf")


def lstsq(A, b):
    return sla.lstsq(A, b)[0]
