"""Every file a command reads is checked before it is read (:func:`properties.ledgerfile.read_json`): a
regular file (not a FIFO, a device or a link to one), at most ``MAX_INPUT_BYTES`` bytes, JSON nested at
most ``MAX_JSON_DEPTH`` deep; a bad file is one line naming it and the rule, and ``certify --check`` goes on
to the next file.  Numbers in a certificate are refused beyond a stated size (digits, exponent)."""

import json
import os
import subprocess
import sys

import pytest

from properties.ledgerfile import MAX_INPUT_BYTES, MAX_JSON_DEPTH, read_json

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CERTIFICATE = os.path.join(ROOT, "errata", "certificates", "attention_kernel_regression.lemD.2.repair.json")


def _run(cwd, *args, timeout=240):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "properties", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def _bad_files(tmp_path) -> dict[str, str]:
    """path -> words of the rule its one line must name"""
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    (tmp_path / "zero.json").symlink_to("/dev/zero")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    with open(tmp_path / "big.json", "wb") as out:
        out.truncate(MAX_INPUT_BYTES + 1)
    return {str(fifo): "regular file", str(tmp_path / "zero.json"): "regular file",
            str(tmp_path / "deep.json"): f"nested deeper than {MAX_JSON_DEPTH}",
            str(tmp_path / "big.json"): f"larger than {MAX_INPUT_BYTES}"}


def test_read_json_refuses_what_it_cannot_read_safely(tmp_path):
    for path, words in _bad_files(tmp_path).items():
        with pytest.raises(ValueError) as err:
            read_json(path)
        assert path in str(err.value) and words in str(err.value), str(err.value)
    (tmp_path / "ok.json").write_text('{"a": [1, 2, {"b": null}]}')
    assert read_json(str(tmp_path / "ok.json")) == {"a": [1, 2, {"b": None}]}


def _certificate(tmp_path, name, change):
    with open(CERTIFICATE, encoding="utf-8") as fh:
        doc = json.load(fh)
    change(doc)
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def test_certify_check_gives_one_line_per_bad_file_and_goes_on(tmp_path):
    bad = _bad_files(tmp_path)
    edited = [_certificate(tmp_path, "null.json", lambda d: d.__setitem__("instance", None)),
              _certificate(tmp_path, "huge.json", lambda d: d["instance"]["ε"].__setitem__("rational", "1e1000000000")),
              _certificate(tmp_path, "mid.json", lambda d: d["measured"].__setitem__("mid", "1e100000000"))]
    paths = [*bad, *edited]
    proc = _run(tmp_path, "certify", "--check", *paths, timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "Traceback" not in out, out[-4000:]
    assert f"0 of {len(paths)} certificates verified" in proc.stdout, proc.stdout
    lines = proc.stdout.splitlines()
    for path in paths:
        (i,) = [k for k, line in enumerate(lines) if line.split()[1:2] == [path]]
        assert lines[i].startswith("REJECTED") and lines[i + 1].strip(), f"{path}: one reason line"
        assert path not in bad or bad[path] in lines[i + 1], f"{path} must be rejected naming {bad[path]!r}"


@pytest.mark.parametrize("encoded, words", [
    (None, "must be an object of named fields"),
    ({"ε": None}, "must be an object with a kind"),
    ({"ε": {"kind": "number", "rational": "1e1000000000", "float_hex": None}}, "exponent beyond MAX_EXPONENT"),
    ({"ε": {"kind": "number", "rational": "1e-1000000000", "float_hex": None}}, "exponent beyond MAX_EXPONENT"),
    ({"ε": {"kind": "number", "rational": "7" * 100_000, "float_hex": None}}, "more than MAX_NUMBER_CHARS"),
    ({"A": {"kind": "vector", "shape": [1], "rational": ["1e99999999999999"], "float_hex": [None]}},
     "exponent beyond MAX_EXPONENT"),
])
def test_a_certificates_instance_of_the_wrong_shape_or_size_is_one_value_error(encoded, words):
    from properties.certify import decode_instance

    with pytest.raises(ValueError, match=words):
        decode_instance(encoded)


@pytest.mark.parametrize("command", [["report", "--from"], ["report", "--tightness-from"], ["--resume", "--json"]])
def test_a_ledger_that_is_not_a_regular_file_is_one_line_and_exit_2(tmp_path, command):
    (tmp_path / "zero.json").symlink_to("/dev/zero")
    extra = ["--from", os.path.join(ROOT, "errata", "ledger-ci.json")] if "--tightness-from" in command else []
    proc = _run(tmp_path, *command, str(tmp_path / "zero.json"), *extra, "--claims", "softmax_regression.fact4.2.p1",
                timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr[-3000:]
    assert "regular file" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr[-3000:]
