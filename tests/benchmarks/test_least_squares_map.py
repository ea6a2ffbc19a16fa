"""The least-squares regime map warms each cholqr route up on an instance in that route's range (κ = 1),
so a map whose first κ is beyond the float32 Gram's range (κ = 1e12) measures instead of dying in its
JIT warm-up."""

from benchmarks.least_squares import run_map


def test_a_map_starting_at_kappa_1e12_runs_cholqr_and_tsqr():
    rows = run_map(lambda d: 256, [4], [1e12], lambda d: [1e-3], lambda d: 1, log=lambda *a: None,
                   methods=["cholqr", "tsqr"])
    assert {"cholqr", "tsqr", "qr"} <= {r["method"] for r in rows}, rows
    assert all(r["kappa"] == 1e12 for r in rows)
