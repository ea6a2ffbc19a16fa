"""oracle.sketch_bits: the exact Walsh–Hadamard transform against the matrix of def.hadamard, Algorithm 8's
schedule against the degree it must reach, and the parsers' refusals (a message naming the field and the rule)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle import linalg, sketch_bits

INTS = st.integers(min_value=-(2**70), max_value=2**70)


@given(st.integers(min_value=0, max_value=5).flatmap(lambda k: st.lists(INTS, min_size=2**k, max_size=2**k)))
@settings(max_examples=40, deadline=None)
def test_fwht_int_is_the_sylvester_matrix_times_the_vector(values):
    N = len(values)
    H = linalg.walsh_hadamard(N)
    want = [sum(int(H[i, j]) * values[j] for j in range(N)) for i in range(N)]
    assert sketch_bits.fwht_int(np.array(values, dtype=object)).tolist() == want, f"H_{N}·v for v={values}"


def test_hadamard_signed_pads_and_flips():
    # H_4 D [1, 2, 3, 0] with D = diag(1, −1, 1, −1): D v̄ = [1, −2, 3, 0]
    assert sketch_bits.hadamard_signed([1, 2, 3], [1, -1, 1, -1]) == [2, 6, -4, 0]


@pytest.mark.parametrize("p", range(1, 65))
def test_algorithm8_reaches_degree_p_with_log_plus_popcount_products(p):
    """With w₀ of degree 1 and a product that adds degrees, the schedule ends at degree p after
    ⌊log₂p⌋ squarings and popcount(p) − 1 further products (def.Z)."""
    calls = []
    degree = sketch_bits.algorithm8(p, 1, lambda u, v: calls.append((u, v)) or u + v)
    assert degree == p, f"degree {degree} after the schedule of p={p}"
    assert len(calls) == (p.bit_length() - 1) + (bin(p).count("1") - 1), f"{len(calls)} products for p={p}"


@pytest.mark.parametrize("bits, match", [
    ({"n": np.int64(3), "signs": np.array([1, 1, 1]), "rows": np.array([0])}, r"bits\['signs'\] has length 3, must be n_pad=4"),
    ({"n": np.int64(2), "signs": np.array([1, 2]), "rows": np.array([0])}, r"bits\['signs'\] must hold only -1 and \+1"),
    ({"n": np.int64(2), "signs": np.array([1, 1]), "rows": np.array([], dtype=np.int64)}, r"bits\['rows'\] must not be empty"),
    ({"n": np.int64(2), "signs": np.array([1, 1]), "rows": np.array([2])}, r"bits\['rows'\] must lie in \[0, n_pad=2\)"),
    ({"n": np.int64(0), "signs": np.array([1]), "rows": np.array([0])}, r"bits\['n'\]=0 must be >= 1"),
    ({"signs": np.array([1]), "rows": np.array([0])}, r"bits must be a dict with key 'n'"),
])
def test_srht_parts_refuses(bits, match):
    with pytest.raises(ValueError, match=match):
        sketch_bits.srht_parts(bits)
