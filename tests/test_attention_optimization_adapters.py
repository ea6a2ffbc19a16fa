"""The validator on paper 003's adapters: a planted-bug implementation (a wrong sign in Q, a missing ½)
fails with a minimal input (d = 1, n ≤ 2, entries 0 or ±1) while its correct function passes."""


from properties.failure_report import read_arguments
from properties.validate import validate


def test_validator_catches_planted_bugs_of_paper_003(capsys):
    code = validate("tests.meta.toy.attention_optimization", profile="ci", include_claims=False)
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
