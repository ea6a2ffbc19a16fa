"""The validator on paper 003's adapters: a planted-bug implementation (a wrong sign in Q, a missing ½)
fails with a minimal input (d = 1, n ≤ 2, entries 0 or ±1) while its correct function passes."""


from properties.failure_report import read_arguments
from properties.validate import validate


def test_validator_catches_planted_bugs_of_paper_003(capsys):
    code = validate("tests.properties.meta.toy.attention_optimization", profile="ci", include_claims=False)
    out = capsys.readouterr().out
    assert code == 1, f"the validator must fail the planted bugs:\n{out}"
    assert "PASS attention_grad_y" in out, f"the correct gradient in Y passes:\n{out}"
    for name in ("attention_loss", "attention_grad_x"):
        line = next((ln for ln in out.splitlines() if name in ln and "FAIL" in ln), None)
        assert line is not None, f"{name} must FAIL:\n{out}"
        minimal = list(read_arguments(out.split(line, 1)[1].splitlines()[1]).values())
        n = len(minimal[0])
        shapes = [(len(a), len(a[0])) for a in minimal]
        # the loss bug shrinks to n = 1 (B = 1); for grad_x the shrinker zeroes the first rows before it can
        # drop n, so it stops at n = 2, d = 1 (a wrong sign shows at n = 1 too, with nonzero data)
        assert n <= 2 and shapes == [(n, 1)] * 4 + [(1, 1)] * 2, f"{name}: minimal input not minimal: {shapes}"
        entries = {v for a in minimal for row in a for v in row}
        assert entries <= {0.0, 1.0, -1.0}, f"{name}: minimal input should have entries 0, ±1, got {entries}"



def test_attention_solve_corners_keep_the_problem_and_reach_large_kappa():
    """The fixed corners of attention_solve are one drawn problem in other coordinates or magnified (L_tot at the
    new z0 equals L_tot at the old one to rounding), reach κ(∇²L_tot(z0)) ≥ 1e8 or a Hessian ≥ 1e290, and the
    correct solvers.adapter.attention_solve meets the rule on each (none is skipped: λ_min stays > 1e-3)."""
    import numpy as np

    import solvers.adapter as correct
    from properties.attention_optimization import adapters as AA
    from properties.registry import adapters
    from solvers import attention_optimization as A

    ad = adapters()["attention_solve"]
    base = AA._solve_base()[0]
    loss = A.loss_tot(*base)
    for (A1, A2, A3, B, w, z0), m, seed in AA._solve_fixed_corners():
        inst = ((A1, A2, A3, B, w, z0), m, seed)
        assert abs(A.loss_tot(A1, A2, A3, B, w, z0) - loss) <= 1e-9 * loss, inst
        H = np.asarray(A.hessian_tot(A1, A2, A3, B, w, z0))
        assert np.linalg.cond(H) >= 1e8 or np.abs(H).max() >= 1e290, inst
        out = ad.compare(inst, correct.attention_solve)
        assert out.holds, (inst, out.note)
