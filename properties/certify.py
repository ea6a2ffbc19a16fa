"""Certified errata: each falsified claim, and each falsified alternative reading of a claim, proven
false by ball arithmetic at its counterexample, and each verified repair's worst example proven strictly
inside its bound.

The search stays in float64/mpmath; this module runs after it, on the few instances the ledger
recorded.  A paper declares how to certify its claims in ``properties/<paper>/certificates.py``, a
:class:`~properties.evidence.Certifiers` named ``CERTIFIERS`` whose certifiers return
:class:`~properties.evidence.Evidence` (the vocabulary of :mod:`properties.evidence`); this module is
the runner that evaluates them, writes the certificates and re-checks them.  An alternative reading
has its own certifier, key and file (:func:`~properties.evidence.certifier_key`,
:func:`~properties.evidence.certificate_file_name`), evaluated at the counterexample the ledger recorded
for that reading.

The certificate (JSON) holds the claim id and statement, the instance by name both as exact rationals
and as float64 hex, what was enclosed, the enclosures (exact midpoint and radius, and their text), the
method, the precision in bits, the premises proven and any witness (``hints``: a Loewner refutation's
vector under ``witness``), and what it proves: the claim's
provenance, the reading judged and the strength of the falsification (:func:`what_is_proven`).  :func:`check_certificate`
re-verifies one from its instance alone with python-flint: the certifier is run again at the recorded
precision with the recorded witness, the violation (or the strict inequality of a repair) must be
certain, every premise proven (a failed one is named), what the certificate displays must be the
recomputation's (each enclosure's text, its midpoint ± radius rendering as that text, what was enclosed,
each premise: :func:`_display_disagrees`), and the provenance, reading and strength must be the
registry's, so a certificate with a moved instance, a changed bound, swapped fields, an edited display or
an overstated strength is rejected.  Only certificates are written to the folder; why a claim or repair
is not certified is said in the errata.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import re
import sys
import time
from fractions import Fraction

import numpy as np
from flint import arb, fmpq, fmpq_mat
from mpmath import mp

from oracle import ball
from oracle.precision import UndecidableError

from .evidence import Certifier, Evidence, Fact, certificate_file_name, certifier_key, premises_hold
from .ledgerfile import raw_instance, write_atomic
from .registry import certifiers, load_all
from .toolkit.claims import Claim, named_instance
from .toolkit.provenance import strength

__all__ = ["BITS", "certify_entry", "certify_ledger", "check_certificate", "decode_instance",
           "encode_instance", "main", "reading_declaration", "what_is_proven"]

BITS = (64, 128, 256, 512, 1024, 2048, 4096)
"""The precisions tried in turn until the enclosures decide (docs/development.md#exact-judgement)."""


# -- exact instances: encoding and decoding ---------------------------------------------------------

def _rational(x) -> Fraction:
    if isinstance(x, mp.mpf):
        if not mp.isfinite(x):
            raise ValueError(f"value {x!r} must be finite to be certified")
        man, exp = x.man_exp
        return Fraction(int(man)) * Fraction(2) ** int(exp)
    return ball.to_fraction(ball.exact(x))


def _hex(q: Fraction) -> str | None:
    """The float64 hex of q, or None when q is not a float64."""
    f = float(q)
    return f.hex() if Fraction(f) == q else None


def _encode_value(v) -> dict:
    if v is None:
        return {"kind": "none"}
    if isinstance(v, (bool, np.bool_)):
        return {"kind": "flag", "value": bool(v)}
    if isinstance(v, str):
        return {"kind": "label", "value": v}
    if isinstance(v, (int, np.integer)):
        return {"kind": "integer", "value": int(v)}
    if isinstance(v, (float, np.floating, fmpq, Fraction, mp.mpf)):
        q = _rational(v)
        return {"kind": "number", "rational": str(q), "float_hex": _hex(q)}
    if isinstance(v, mp.matrix):
        v = [[v[i, j] for j in range(v.cols)] for i in range(v.rows)]
    if isinstance(v, fmpq_mat):
        v = [[v[i, j] for j in range(v.ncols())] for i in range(v.nrows())]
    if isinstance(v, np.ndarray) and v.dtype == bool:
        return {"kind": "flags", "shape": list(v.shape), "value": v.tolist()}
    arr = np.asarray(v, dtype=object)
    if arr.ndim not in (1, 2) or arr.size == 0:
        raise ValueError(f"value of shape {arr.shape} must be a non-empty vector or matrix to be certified")
    qs = [_rational(x) for x in arr.ravel()]
    return {"kind": "vector" if arr.ndim == 1 else "matrix", "shape": list(arr.shape),
            "rational": [str(q) for q in qs], "float_hex": [_hex(q) for q in qs]}


def encode_instance(named: dict) -> dict:
    """The statement's objects by name, exactly: rationals as "p/q" with their float64 hex (None where
    a value is not a float64), flags, labels and integers as they are."""
    return {name: _encode_value(v) for name, v in named.items()}


MAX_NUMBER_CHARS = 20_000
"""The longest text of one exact number a certificate may hold (a float64 is under 800 digits as p/q; a
midpoint at 4096 bits under 2,500)."""

MAX_EXPONENT = 20_000
"""The largest decimal exponent (``1e…``) a certificate's number may be written with."""

_EXPONENT = re.compile(r"[eE]([+-]?\d{1,9})")


def _exact_number(text, what: str) -> Fraction:
    """The exact number ``text`` of a certificate (``"p/q"``, ``"p"`` or a decimal), refused (``ValueError``
    naming ``what``) beyond :data:`MAX_NUMBER_CHARS` digits or a decimal exponent beyond :data:`MAX_EXPONENT`,
    before any arithmetic: ``"1e1000000000"`` would take hours."""
    if not isinstance(text, str):
        raise ValueError(f"{what}={text!r} must be a string 'p/q'")
    if len(text) > MAX_NUMBER_CHARS:
        raise ValueError(f"{what} has {len(text)} digits, more than MAX_NUMBER_CHARS={MAX_NUMBER_CHARS}")
    power = _EXPONENT.search(text)
    if power and abs(int(power.group(1))) > MAX_EXPONENT or re.search(r"[eE][+-]?\d{10}", text):
        raise ValueError(f"{what}={text[:40]!r} has a decimal exponent beyond MAX_EXPONENT={MAX_EXPONENT}")
    return Fraction(text)


def _decode_value(name: str, e: dict):
    if not isinstance(e, dict):
        raise ValueError(f"instance field {name!r} must be an object with a kind, not {type(e).__name__}")
    for t in [e["rational"]] if e.get("kind") == "number" else e.get("rational") or []:
        _exact_number(t, f"instance field {name!r}")
    kind = e.get("kind")
    if kind == "none":
        return None
    if kind in ("flag", "label", "integer", "flags"):
        return np.array(e["value"], dtype=bool) if kind == "flags" else e["value"]
    if kind == "number":
        q = ball.from_fraction(e["rational"])
        _agree(name, [e["rational"]], [e["float_hex"]])
        return q
    if kind in ("vector", "matrix"):
        shape = e["shape"]
        rows, cols = (shape[0], 1) if kind == "vector" else shape
        if len(e["rational"]) != rows * cols:
            raise ValueError(f"instance field {name!r}: {len(e['rational'])} entries for shape {shape}")
        _agree(name, e["rational"], e["float_hex"])
        return fmpq_mat(rows, cols, [ball.from_fraction(t) for t in e["rational"]])
    raise ValueError(f"instance field {name!r} has unknown kind {kind!r}")


def _agree(name, rationals, hexes) -> None:
    """The two exact forms of a field must name the same numbers (else the certificate was edited)."""
    for t, h in zip(rationals, hexes):
        if h is not None and Fraction(float.fromhex(h)) != Fraction(t):
            raise ValueError(f"instance field {name!r}: rational {t} and float64 {h} differ")


def decode_instance(encoded: dict) -> dict:
    """The exact instance a certifier takes: numbers as ``fmpq``, vectors as n×1 and matrices as
    ``fmpq_mat``, flags, labels and integers as they are."""
    if not isinstance(encoded, dict):
        raise ValueError(f"instance must be an object of named fields, not {type(encoded).__name__}")
    return {name: _decode_value(name, e) for name, e in encoded.items()}


def _ball_record(x: arb) -> dict:
    return {"text": x.str(12, radius=True), "mid": str(ball.midpoint_fraction(x)),
            "rad": str(ball.radius_fraction(x))}


def _ball_from_record(rec: dict) -> arb:
    return ball.ball(_exact_number(rec["mid"], "mid"), _exact_number(rec["rad"], "rad"))


# -- certify and check --------------------------------------------------------------------------------

def _evaluate(cert: Certifier, inst: dict, hints: dict | None, bits: int) -> Evidence:
    with ball.at_bits(bits):
        ev = cert.evaluate(inst, hints)
    if not isinstance(ev, Evidence):
        raise ValueError(f"the certifier of {cert.claim_id} returned {type(ev).__name__}, not Evidence")
    return ev


def _decides(cert: Certifier, ev: Evidence) -> bool:
    if cert.target == "violation":
        good = ev.violated()
    else:  # a repair holds with room, or with equality proven exactly (both enclosures exact: a tight worst example)
        good = ev.holds(strict=True) or (ev.holds() and ev.measured.is_exact() and ev.bound.is_exact())
    return good and premises_hold(ev.premises)


def _failed_premise(premises) -> str:
    """The first premise not proven, named with its statement (and its enclosures when it is
    :class:`Evidence`), or "" when every premise holds."""
    for p in premises:
        if isinstance(p, Fact) and not p.proven:
            return f"the premise {p.what!r} is not proven ({p.method} decides it false)"
        if isinstance(p, Evidence) and not p.holds():
            return (f"the premise {p.what!r} is not proven: measured {p.measured.str(8, radius=True)} "
                    f"{p.relation} bound {p.bound.str(8, radius=True)} not certain")
    return ""


def _premise_record(p) -> dict:
    if isinstance(p, Fact):
        return {"what": p.what, "method": p.method, "proven": p.proven}
    return {"what": p.what, "relation": p.relation, "measured": _ball_record(p.measured),
            "bound": _ball_record(p.bound), "proven": p.holds()}


def reading_declaration(claim: Claim, reading: str) -> Claim:
    """The alternative reading of ``claim`` named ``reading`` (one of ``claim.readings``).

    Raises:
        ValueError: ``reading`` names none of them."""
    for r in claim.readings:
        if r.reading == reading:
            return r
    raise ValueError(f"reading={reading!r} must name an alternative reading of {claim.id}: "
                     f"{[r.reading for r in claim.readings]}")


def what_is_proven(claim: Claim, target: str, reading: str = "") -> dict:
    """What a certificate of ``claim`` proves, as the registry declares it: the claim's ``provenance``,
    the ``reading`` judged and, for a violation, the ``strength`` of the falsification (computed from the
    recorded findings of the claim's readings, :func:`properties.toolkit.provenance.strength`); a repair
    is no falsification (strength None).  ``reading`` names an alternative reading of ``claim`` whose
    falsification is certified: its provenance and name, and its strength among its siblings (the claim's
    own reading and the other alternatives: ``reading`` where the claim's own reading holds, docs/ledger-schema.md#strength)."""
    if reading:
        judged = reading_declaration(claim, reading)
        siblings = [claim] + [r for r in claim.readings if r is not judged]
        found = strength(judged, "falsified", [r.expected for r in siblings]) if target == "violation" else None
        return {"provenance": judged.provenance, "reading": judged.reading, "strength": found}
    primary = claim if not claim.repair else None
    found = None if primary is None or target != "violation" else \
        strength(primary, "falsified", [r.expected for r in primary.readings])
    return {"provenance": claim.provenance, "reading": claim.reading, "strength": found}


def certify_entry(claim: Claim, entry: dict, cert: Certifier) -> dict:
    """The certificate of one ledger entry (a falsified claim, a falsified alternative reading of it:
    ``cert.reading``, or a verified repair's worst example), or a dict with ``certified: false`` and the
    reason it could not be certified; each says what it proves (:func:`what_is_proven`)."""
    judged = reading_declaration(claim, cert.reading) if cert.reading else claim
    base = {"claim": claim.id, "paper": claim.paper, "section": claim.section, "statement": judged.statement,
            "target": cert.target, "verdict": entry.get("verdict"),
            **what_is_proven(claim, cert.target, cert.reading)}
    if cert.evaluate is None:
        return base | {"certified": False, "reason": cert.reason}
    if cert.instance is not None:
        named = cert.instance(entry)
    else:
        raw = entry.get("counterexample" if cert.target == "violation" else "worst_example")
        if raw is None:
            return base | {"certified": False, "reason": "the ledger entry records no instance"}
        named = named_instance(judged, raw_instance(raw, len(judged.fields)))
        if named is None:
            return base | {"certified": False, "reason": "the claim declares no field names"}
    encoded = encode_instance(named)
    inst = decode_instance(encoded)
    last = "no precision tried"
    for bits in BITS:
        try:
            ev = _evaluate(cert, inst, None, bits)
        except UndecidableError as exc:
            last = f"undecided at {bits} bits: {exc}"
            continue
        if _decides(cert, ev):
            return base | {
                "certified": True, "instance": encoded, "method": cert.method, "bits": bits,
                "enclosed": ev.what, "relation": ev.relation, "measured": _ball_record(ev.measured),
                "bound": _ball_record(ev.bound), "premises": [_premise_record(p) for p in ev.premises],
                "hints": ev.hints}
        last = (f"at {bits} bits measured {ev.measured.str(8, radius=True)} {ev.relation} bound "
                f"{ev.bound.str(8, radius=True)} not decided" + ("" if premises_hold(ev.premises)
                                                                 else f"; {_failed_premise(ev.premises)}"))
    return base | {"certified": False, "instance": encoded, "reason": f"not decided up to {BITS[-1]} bits ({last})"}


def check_certificate(doc: dict, claims: dict[str, Claim], certs: dict) -> str:
    """Re-verify a certificate from its instance with python-flint alone; return "" when it holds,
    else the reason it is rejected."""
    try:
        cid, target = doc["claim"], doc["target"]
        claim = claims.get(cid)
        if claim is None:
            return f"claim {cid!r} is not a registered claim"
        # the reading judged: an alternative reading the document names, else the claim's own
        reading = doc.get("reading") if target == "violation" and doc.get("reading") in [
            r.reading for r in claim.readings] else ""
        # a repair's certificate states the repair (one of claim.repairs), a violation's the reading judged
        stated = [r.statement for r in claim.repairs] if target == "repair" else [
            reading_declaration(claim, reading).statement if reading else claim.statement]
        if doc["statement"] not in stated:
            return "the statement differs from the registered claim's" + (f" reading {reading!r}" if reading else "")
        proven = what_is_proven(claim, target, reading) if target != "repair" else what_is_proven(
            next(r for r in claim.repairs if r.statement == doc["statement"]), target)
        for name, value in proven.items():
            if name not in doc or doc[name] != value:
                return (f"{name}={doc.get(name, '(absent)')!r} recorded, but the registry declares {value!r} "
                        f"(what the certificate proves must be the registry's)")
        cert = certs.get(certifier_key(cid, target, reading))
        if cert is None or cert.evaluate is None:
            return f"no {target} certifier for {cid}" + (f" under its reading {reading!r}" if reading else "")
        if not doc.get("certified"):
            return "the document is not a certificate (certified: false)"
        bits = doc["bits"]
        if bits not in BITS:
            return f"bits={bits!r} is not one of {BITS}"
        ev = _evaluate(cert, decode_instance(doc["instance"]), doc.get("hints") or None, bits)
    except (KeyError, TypeError, ValueError, ZeroDivisionError, UndecidableError) as exc:
        return f"malformed or unverifiable: {type(exc).__name__}: {exc}"
    if ev.relation != doc["relation"]:
        return f"relation {ev.relation} recomputed, {doc['relation']} recorded"
    if not _decides(cert, ev):
        return (_failed_premise(ev.premises) or "the recomputed enclosures do not prove it: measured "
                f"{ev.measured.str(8, radius=True)} {ev.relation} bound {ev.bound.str(8, radius=True)}")
    return _display_disagrees(doc, ev, bits)


def _record_disagrees(name: str, rec, value: arb, bits: int) -> str:
    """"" when the recorded enclosure ``rec`` of ``name`` is the recomputed ``value`` as displayed: its
    ``text`` is the recomputation's (12 digits, radius rounded up to 3) and its exact ``mid`` ± ``rad``
    renders as that text and overlaps ``value``; else what differs.  An edited text, or a radius widened
    (to 1e100, or by any amount the text shows), is rejected; the last bits of ``rad`` below the display,
    which differ between python-flint builds, are not compared."""
    try:
        with ball.at_bits(bits):
            recorded = _ball_from_record(rec)
            rendered = recorded.str(12, radius=True)
        text = rec["text"]
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
        return f"recorded {name} malformed: {type(exc).__name__}: {exc}"
    again = value.str(12, radius=True)
    if text != again:
        return f"recorded {name} text {str(text)[:60]!r} differs from the recomputed {again!r}"
    if not recorded.overlaps(value):
        return f"recorded {name} {text} disagrees with the recomputed {value.str(8, radius=True)}"
    if rendered != text:
        return f"recorded {name} mid ± rad is {rendered[:60]!r}, not its text {text!r} (the recomputed enclosure)"
    return ""


def _display_disagrees(doc: dict, ev: Evidence, bits: int) -> str:
    """"" when what the certificate displays is the recomputation's at ``bits`` (what was enclosed, the
    measured and bound enclosures, and each premise: its statement, method, decision and enclosures,
    :func:`_record_disagrees`), else the first difference."""
    for side, value in (("measured", ev.measured), ("bound", ev.bound)):
        why = _record_disagrees(side, doc.get(side), value, bits)
        if why:
            return why
    if doc.get("enclosed") != ev.what:
        return f"recorded enclosed {doc.get('enclosed')!r} differs from the recomputed {ev.what!r}"
    recorded = doc.get("premises")
    if not isinstance(recorded, list) or len(recorded) != len(ev.premises):
        return f"{len(ev.premises)} premises recomputed, the certificate records {recorded!r:.60}"
    for rec, p in zip(recorded, ev.premises):
        again = _premise_record(p)
        if not isinstance(rec, dict) or set(rec) != set(again):
            return f"recorded premise {p.what!r} has fields {sorted(rec) if isinstance(rec, dict) else rec!r}"
        for key in again:
            why = (_record_disagrees(f"premise {p.what!r} {key}", rec[key], getattr(p, key), bits)
                   if key in ("measured", "bound") else "" if rec[key] == again[key] else
                   f"recorded premise {p.what!r}: {key} {rec[key]!r} differs from the recomputed {again[key]!r}")
            if why:
                return why
    return ""


# -- the command: python -m properties certify ----------------------------------------------------------

def _targets(entries: list[dict]) -> list[tuple[dict, str, str]]:
    """(entry, target, reading) for every falsified claim, every falsified alternative reading (its entry
    under the claim's ``readings``, named by ``reading``) and every verified repair of the ledger."""
    out = []
    for e in entries:
        if e.get("verdict") == "falsified":
            out.append((e, "violation", ""))
        out.extend((r, "violation", r["reading"]) for r in e.get("readings") or () if r.get("verdict") == "falsified")
        out.extend((r, "repair", "") for r in e.get("repairs", []) if r.get("verdict") == "verified")
    return out


def certify_ledger(entries: list[dict], out_dir: str, *, claims: dict | None = None, certs: dict | None = None,
                   progress=None) -> dict[tuple[str, str], dict]:
    """Certify every falsified claim, falsified alternative reading and verified repair of the ledger
    ``entries``; write each certificate to ``out_dir`` (:func:`~properties.evidence.certificate_file_name`:
    ``<id>.<target>.json``, ``<id>.reading-<slug>.violation.json``; nothing for one that could not be made,
    so that ``--check`` on the folder verifies every file); return them all by
    :func:`~properties.evidence.certifier_key`, each uncertified one with its reason.  ``progress(line)``
    is called after each (e.g. ``print``)."""
    claims = load_all() if claims is None else claims
    certs = certifiers() if certs is None else certs
    todo = _targets(entries)
    os.makedirs(out_dir, exist_ok=True)
    docs = {}
    for i, (entry, target, reading) in enumerate(todo, 1):
        t0 = time.perf_counter()
        key = certifier_key(entry["id"], target, reading)
        claim, cert = claims.get(entry["id"]), certs.get(key)
        if claim is not None and target == "repair":
            claim = next((r for r in claim.repairs if r.statement == entry["statement"]), claim)
        unmade = {"claim": entry["id"], "target": target, "statement": entry["statement"], "certified": False,
                  **({"reading": reading} if reading else {})}
        if claim is None or cert is None:
            doc = unmade | {"reason": "no certifier declared" if claim is not None else "not a registered claim"}
        else:
            try:
                doc = certify_entry(claim, entry, cert)
            except (ValueError, ArithmeticError) as exc:
                doc = unmade | {"reason": f"error: {type(exc).__name__}: {exc}"}
        doc["seconds"] = round(time.perf_counter() - t0, 3)
        if doc.get("certified"):  # the folder holds proofs only; why the others are not is the errata's
            write_atomic(os.path.join(out_dir, certificate_file_name(entry["id"], target, reading)), doc)
        docs[key] = doc
        if progress is not None:
            status = (f"certified ({doc['method']}, {doc['bits']} bits)" if doc.get("certified")
                      else f"not certified: {doc['reason']}")
            label = target + (f" of reading {reading!r}" if reading else "")
            progress(f"[{i:3d}/{len(todo)}] {entry['id']:58s} {label:9s} {status}  {doc['seconds']:.2f} s")
    return docs


def main(argv) -> int:
    """``python -m properties certify [--from LEDGER.json] [--claims PATTERN] [--out DIR]`` writes one
    certificate per falsified claim, falsified alternative reading and verified repair; ``--check FILE ...``
    re-verifies certificates."""
    from .ledgerfile import check_output_directory, read_json, read_ledger

    p = argparse.ArgumentParser(prog="python -m properties certify", description=(
        "Prove each falsified claim false (and each verified repair's worst example inside its bound) "
        "by ball arithmetic at the ledger's instance; or re-check certificates."))
    p.add_argument("--from", dest="source", metavar="LEDGER.json",
                   help="the ledger whose counterexamples to certify (default: errata/ledger-ci.json)")
    p.add_argument("--claims", action="extend", nargs="+", metavar="PATTERN",
                   help="globs over claim ids (the flag may be repeated)")
    p.add_argument("--out", default=os.path.join("errata", "certificates"), metavar="DIR",
                   help="directory of the certificates (default: %(default)s)")
    p.add_argument("--check", nargs="+", metavar="FILE", help="re-verify these certificates and exit")
    args = p.parse_args(argv)
    claims, certs = load_all(), certifiers()

    if args.check:
        rejected = 0
        for path in args.check:
            t0 = time.perf_counter()
            try:
                doc = read_json(path, "certificate")
                why = check_certificate(doc, claims, certs) if isinstance(doc, dict) else "not a JSON object"
            except ValueError as exc:
                why = str(exc)
            rejected += bool(why)
            print(f"{'REJECTED' if why else 'ok':8s} {path}  {time.perf_counter() - t0:.2f} s" +
                  (f"\n         {why}" if why else ""))
        print(f"{len(args.check) - rejected} of {len(args.check)} certificates verified")
        return 1 if rejected else 0

    source = args.source or os.path.join("errata", "ledger-ci.json")
    try:
        check_output_directory(args.out)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        ledger = read_ledger(source)
    except (OSError, ValueError) as exc:
        print(f"error: --from {source}: {exc}", file=sys.stderr)
        return 2
    entries = [e for e in ledger["claims"]
               if not args.claims or any(fnmatch.fnmatchcase(e["id"], pat) for pat in args.claims)]
    if not _targets(entries):
        print(f"error: no falsified claim or reading or verified repair of {source} matches --claims",
              file=sys.stderr)
        return 2
    t_all = time.perf_counter()
    docs = certify_ledger(entries, args.out, claims=claims, certs=certs, progress=print)
    done = sum(bool(d.get("certified")) for d in docs.values())
    print(f"{done} of {len(docs)} certified in {time.perf_counter() - t_all:.1f} s; certificates in {args.out}")
    return 0
