"""benchmarks.gpu: the GPU run's script, run here on CPU at tiny sizes (JAX finds no GPU
under JAX_PLATFORMS=cpu, so the script chooses tiny sizes itself), so CI exercises every phase."""

from __future__ import annotations

import json

import pytest

from benchmarks import gpu

U = 2.0**-53


@pytest.mark.parametrize("phases", [("tests", "least_squares"), ("softmax_regression", "attention_optimization")])
def test_gpu_script_runs_its_phases_on_cpu(tmp_path, phases):
    out = tmp_path / "gpu.json"
    assert gpu.main(["--out", str(out), "--phases", *phases]) == 0
    res = json.loads(out.read_text())
    assert res["tiny"] is True and res["platform"] == "cpu" and res["x64"] is True, res
    assert set(res["phases"]) == set(phases), res["phases"].keys()
    for name in phases:
        assert res["phases"][name]["status"] == "ok", (name, res["phases"][name])
    if "least_squares" in phases:
        rows = res["phases"]["least_squares"]["output"]["rows"]
        assert {r["method"] for r in rows} == {"cholesky", "qr", "gelsy", "gelsd", "spir", "cholqr"}, rows
        # the rules a backward-stable solver meets (‖A‖₂ = ‖x*‖ = 1, ‖r*‖ ≤ residual): not a ratio to QR's
        # error, which at these tiny sizes can sit 1000× below its own rule on one BLAS and not another
        for r in (r for r in rows if r["method"] == "cholqr"):
            k = r["kappa"]
            assert r["forward"] <= 16 * U * k * (1 + k * r["residual"]) and r["backward"] <= 16 * U, r
    if "tests" in phases:
        assert res["phases"]["tests"]["output"]["returncode"] == 0, res["phases"]["tests"]


def test_gpu_script_records_a_skipped_phase(tmp_path):
    out = tmp_path / "gpu.json"
    assert gpu.main(["--tiny", "--budget", "1", "--out", str(out), "--phases", "least_squares"]) == 0
    phase = json.loads(out.read_text())["phases"]["least_squares"]
    assert phase["status"] == "skipped" and "budget" in phase["reason"], phase
