"""The ledger's command line and JSON file (meta-tests of the harness): the path is checked before
any claim runs, the file is written atomically after every claim, a run resumes from it, and the
same command gives the same JSON (minus ``seconds``) whatever the seed's profile, the number of
worker processes, or the claims that ran before."""

import json
import math
import os
import signal
import subprocess
import sys
import time

import pytest

from properties import ledgerfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
# fast claims (attention_pruning facts, < 1 s each at ci) whose worst ratios move with the examples drawn
SMALL = ("--claims", "attention_pruning.factA5.*", "--claims", "attention_pruning.factE*")
SENSITIVE = "attention_pruning.factE2"


def _run(*args, timeout=600):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "properties", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def _ledger(path, *args):
    proc = _run(*args, "--json", str(path))
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr}"
    return proc, json.loads(path.read_text())


def _timeless(doc):
    return [{k: v for k, v in c.items() if k != "seconds"} for c in doc["claims"]]


@pytest.fixture(scope="module")
def serial_small(tmp_path_factory):
    """One serial ledger of the SMALL claims (its process and JSON), shared by the tests that compare against it."""
    return _ledger(tmp_path_factory.mktemp("serial") / "ledger.json", *SMALL, "--jobs", "1")


def test_ledger_json_has_one_entry_per_selected_claim(serial_small):
    proc, data = serial_small
    ids = [c["id"] for c in data["claims"]]
    assert len(ids) == len(set(ids)) == 9, f"ids {ids}"
    assert data["profile"] == "ci" and data["seed"] == 0, "default profile ci, default seed 0"
    for c in data["claims"]:
        for key in ("id", "paper", "kind", "verdict", "examples", "worst_ratio", "counterexample",
                    "counterexample_source"):
            assert key in c, f"{c['id']}: JSON entry lacks {key}"
        assert c["verdict"] in ("verified", "falsified", "not-applicable", "inconclusive"), c
    assert "[1/9]" in proc.stderr, "progress lines go to stderr while the ledger runs"
    assert "verified" in proc.stdout, "the summary table goes to stdout"


def test_unknown_pattern_exits_2_with_one_line():
    proc = _run("--claims", "no_such_paper.*")
    assert proc.returncode == 2, f"exit {proc.returncode}"
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "no registered claim matches" in lines[0], proc.stderr


@pytest.mark.parametrize("where", ["missing_dir", "a_directory"])
def test_a_bad_json_path_fails_before_any_claim_runs(tmp_path, where):
    path = tmp_path / "no" / "such" / "dir" / "ledger.json" if where == "missing_dir" else tmp_path
    t0 = time.monotonic()
    proc = _run(*SMALL, "--json", str(path))
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "json path=" in lines[0], proc.stderr
    assert "[1/" not in proc.stderr and time.monotonic() - t0 < 60, "no claim may run before the path is checked"


def test_resume_needs_json():
    proc = _run(*SMALL, "--resume")
    assert proc.returncode == 2 and "--resume needs --json" in proc.stderr, proc.stderr


def test_a_failed_write_keeps_the_previous_ledger(tmp_path, monkeypatch):
    path = tmp_path / "ledger.json"
    ledgerfile.write_atomic(str(path), {"profile": "ci", "seed": 0, "claims": [{"id": "a", "worst_ratio": 1.0}]})
    before = path.read_bytes()

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        ledgerfile.write_atomic(str(path), {"profile": "ci", "seed": 0, "claims": [{"id": "b"}] * 1000})
    assert path.read_bytes() == before, "a failed write must not truncate or change the previous ledger"
    assert os.listdir(tmp_path) == ["ledger.json"], "no temporary file is left behind"


def test_non_finite_numbers_are_null_with_a_nonfinite_member():
    value = ledgerfile.jsonable({"worst_ratio": math.inf, "digits": 40, "outcome": {"ratio": -math.inf},
                                 "counterexample": [[1.0, math.nan], [2.0, 3.0]]})
    assert value == {"worst_ratio": None, "digits": 40, "outcome": {"ratio": None, "nonfinite": {"ratio": "-inf"}},
                     "counterexample": [[1.0, None], [2.0, 3.0]],
                     "nonfinite": {"worst_ratio": "inf", "counterexample": [{"index": [0, 1], "value": "nan"}]}}
    json.dumps(value, allow_nan=False)  # strict JSON: no NaN/Infinity tokens, no numeric field as a string


def test_interrupted_run_leaves_a_valid_ledger_and_resume_completes_it(tmp_path, serial_small):
    _, expected = serial_small
    path = tmp_path / "ledger.json"
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "properties", *SMALL, "--jobs", "1", "--json", str(path)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not path.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)  # Ctrl-C after the first claim was written
    _, err = proc.communicate(timeout=300)
    partial = json.loads(path.read_text())  # valid JSON whatever the moment of the interrupt
    done = [c["id"] for c in partial["claims"]]
    assert 1 <= len(done) <= 9, done
    if proc.returncode != 0:  # interrupted before the end (the usual case)
        assert proc.returncode == 130 and "rerun with --resume" in err, err
    proc, resumed = _ledger(path, *SMALL, "--jobs", "2", "--resume")
    assert f"{len(done)} of the 9 selected claims are already there, {9 - len(done)} to run" in proc.stderr
    assert _timeless(resumed) == _timeless(expected), "resume completes the ledger as one run would"
    kept = {c["id"]: c for c in partial["claims"]}
    assert all(c == kept[c["id"]] for c in resumed["claims"] if c["id"] in kept), "finished claims are not rerun"


def test_resume_refuses_another_profile_or_seed(tmp_path):
    path = tmp_path / "ledger.json"
    _ledger(path, "--claims", "attention_pruning.factF1.*")
    proc = _run("--claims", "attention_pruning.factF1.*", "--json", str(path), "--resume", "--seed", "5")
    assert proc.returncode == 2 and "same --profile and --seed" in proc.stderr, proc.stderr


def test_seed_makes_every_profile_reproducible(tmp_path):
    args = ("--claims", SENSITIVE, "--profile", "dev")
    _, a = _ledger(tmp_path / "a.json", *args, "--seed", "7")
    _, b = _ledger(tmp_path / "b.json", *args, "--seed", "7")
    _, c = _ledger(tmp_path / "c.json", *args, "--seed", "8")
    assert a["seed"] == 7 and _timeless(a) == _timeless(b), "the same seed gives the same ledger under dev"
    assert _timeless(a) != _timeless(c), "another seed searches other examples"


def test_parallel_workers_give_the_serial_ledger(tmp_path, serial_small):
    p1, serial = serial_small
    p2, parallel = _ledger(tmp_path / "parallel.json", *SMALL, "--jobs", "2")
    assert _timeless(serial) == _timeless(parallel)
    assert [c["id"] for c in parallel["claims"]] == [c["id"] for c in serial["claims"]]
    assert p1.stdout == p2.stdout, "the same summary table"
    assert p2.stderr.count("] attention_pruning.") == 9, "one progress line per claim as it finishes"


def test_a_claims_entry_does_not_depend_on_the_claims_run_before_it(tmp_path):
    """Hypothesis harvests literals from loaded local modules unless told otherwise
    (properties.profiles.ignore_local_constants); running other papers' claims first loads
    other modules, which must not change this claim's examples."""
    _, alone = _ledger(tmp_path / "alone.json", "--claims", SENSITIVE, "--jobs", "1")
    _, after = _ledger(tmp_path / "after.json", "--claims", "attention_optimization.fact*", "--claims", SENSITIVE,
                       "--jobs", "1")
    entry = [c for c in _timeless(after) if c["id"] == SENSITIVE]
    assert len(after["claims"]) > 1 and entry == _timeless(alone)


def test_the_installed_package_gives_the_checkouts_ledger(tmp_path):
    """Installed in site-packages (where Hypothesis would harvest no literals) or run from a
    checkout (where it would): the same command gives the same JSON, minus ``seconds``.

    The new environment sees this environment's packages (numpy, mpmath, …) through a ``.pth`` file,
    after its own site-packages, and nothing of the system Python's (no system site packages): the test
    depends only on what the environment running it holds."""
    import shutil
    import site
    import sysconfig
    import venv

    env_dir = tmp_path / "venv"
    venv.create(env_dir, system_site_packages=False, with_pip=False)
    python = str(env_dir / "bin" / "python")
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    ours = dict.fromkeys([*site.getsitepackages(), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    with open(os.path.join(purelib, "this_environment.pth"), "w", encoding="utf-8") as pth:
        pth.write("".join(f"{d}\n" for d in ours if os.path.isdir(d)))
    for pkg in ("oracle", "solvers", "properties"):
        shutil.copytree(os.path.join(ROOT, pkg), os.path.join(purelib, pkg),
                        ignore=shutil.ignore_patterns("__pycache__"))
    args = [*SMALL, "--claims", "softmax_regression.fact4.5.*", "--jobs", "1", "--json"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = subprocess.run([python, "-c", "import properties; print(properties.__file__)"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, check=True).stdout
    assert where.startswith(purelib), f"the copy in site-packages is imported, not the checkout: {where}"
    proc = subprocess.run([python, "-m", "properties", *args, str(tmp_path / "installed.json")], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    _, checkout = _ledger(tmp_path / "checkout.json", *args[:-1])
    installed = json.loads((tmp_path / "installed.json").read_text())
    assert len(checkout["claims"]) == 9 + 5 and _timeless(installed) == _timeless(checkout)


def test_hypothesis_draws_no_literals_of_loaded_modules(tmp_path, monkeypatch):
    """The mechanism behind the test above, in one process: the examples of a seeded search are the
    same before and after importing a module full of float literals in the strategy's range."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from properties import profiles
    from properties.toolkit import strategies

    def examples():
        seen = []
        profiles.seeded(settings(profiles.load("ci"))(given(strategies.matrices(st.just(3), st.just(3)))(
            lambda A: seen.append(A.tolist()))), 0)()
        return seen

    before = examples()
    literals = ", ".join(f"{k / 7:.17g}" for k in range(-60, 61))
    (tmp_path / "literal_floats.py").write_text(f"VALUES = [{literals}]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    __import__("literal_floats")
    assert examples() == before



@pytest.mark.parametrize("claim_id", ["attention_kernel_regression.lemJ.1.p3", "softmax_regression.fact4.5.p5"])
def test_a_search_without_shrinking_reaches_the_shrinking_runs_verdict(claim_id):
    """tests/properties/test_claims.py runs searches with ``shrink=False``: the first counterexample found is
    re-checked as it is.  Both runs falsify the claim by search, shrinking only adds calls, and the
    unshrunk counterexample itself breaks the claim at doubled precision."""
    from properties.ledger import run_claim
    from properties.registry import load_all
    from properties.toolkit import at_precision, start_dps

    claim = load_all()[claim_id]
    shrunk, first = run_claim(claim, shrink=True), run_claim(claim, shrink=False)
    for r in (shrunk, first):
        assert (r.verdict, r.counterexample_source) == ("falsified", "search"), (r.verdict, r.reason)
    assert shrunk.examples > first.examples, "shrinking made no call beyond the first counterexample"
    with at_precision(2 * start_dps()):
        assert not claim.check(first.counterexample).holds, "the unshrunk counterexample does not break the claim"


# -- a command line that explains itself -------------------------------------------------

def test_help_lists_every_subcommand_with_its_line():
    """``python -m properties --help`` names each subcommand main dispatches, with its one line, and exits 0."""
    from properties.__main__ import SUBCOMMANDS

    proc = _run("--help", timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert set(SUBCOMMANDS) == {"validate", "adapters", "report", "certify", "experiment", "docs"}, sorted(SUBCOMMANDS)
    for name, (_, line) in SUBCOMMANDS.items():
        shown = [row for row in proc.stdout.splitlines() if row.split()[:1] == [name]]
        assert shown and line in " ".join(shown[0].split()), f"--help lacks '{name}  {line}':\n{proc.stdout}"
    assert "--claims PATTERN [PATTERN ...]" in proc.stdout, proc.stdout


@pytest.mark.parametrize("name", ["validate", "adapters", "report", "certify", "experiment", "docs"])
def test_each_subcommand_has_help(name, capsys):
    from properties.__main__ import main

    try:
        code = main([name, "--help"])
    except SystemExit as exc:  # argparse's help exits 0
        code = exc.code
    out = capsys.readouterr().out
    assert code == 0 and f"python -m properties {name}" in out, (code, out)


def test_claims_takes_several_patterns_after_one_flag(capsys):
    """README's ``--claims A B``: the same selection as the repeated flag, the union of both globs."""
    from properties.__main__ import main

    a, b = "attention_pruning.factA5.*", "softmax_regression.fact4.5.*"
    assert main(["--claims", a, b, "--list"]) == 0
    together = capsys.readouterr().out.splitlines()
    assert main(["--claims", a, "--claims", b, "--list"]) == 0
    repeated = capsys.readouterr().out.splitlines()
    ids = [line.split("\t")[0] for line in together]
    assert together == repeated and len(ids) == 7 + 5, together
    assert {i.rsplit(".", 1)[0] for i in ids} == {"attention_pruning.factA5", "softmax_regression.fact4.5"}, ids


@pytest.mark.parametrize("args, code", [(("--list",), 141), (("adapters",), 141), (("experiment", "--help"), 141),
                                        (("--claims", "attention_pruning.factF1.*", "--jobs", "1"), 141),
                                        (("--help",), (0, 141))])
def test_a_closed_pipe_ends_quietly(args, code):
    """``python -m properties --list | head``: the reader is gone before the command writes (its end of the
    pipe is closed at once), so every write fails; the command exits 141 (128 + SIGPIPE) with no traceback.
    ``--help`` may also exit 0: argparse swallows a failed write of the help text itself, and whether the
    failure shows there or at the final flush depends on the stream's buffering (0 here, 141 under tox)."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "properties", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=600) in (code if isinstance(code, tuple) else (code,)), f"exit {proc.returncode}: {err}"
    assert "Traceback" not in err and "Exception ignored" not in err and "BrokenPipe" not in err, err
