"""Errata and tightness report: for each paper, what is false, the counterexample, the repaired
statement judged, and how loose each true bound is (``python -m properties report``).

From a ledger (a JSON file written by ``python -m properties --json``, or a fresh run) it writes,
per paper, ``ERRATA-<paper>.md`` and ``TIGHTNESS-<paper>.png``:

- every falsified claim: what the verdict is about (:func:`about_lines`: the strength of the
  falsification, worded so that only ``as written`` reads as an error of the paper; the provenance and,
  for a reconstruction, what it rests on; the reading and conventions judged; every alternative reading
  with its own verdict), counted by strength (:func:`strength_counts`); the statement as the paper
  states it, the shrunk counterexample as exact
  numbers (float64 values printed so that they round-trip, and for small counterexamples each value
  also as an exact fraction or hexadecimal float), measured against bound with the digits that
  support the verdict, the precision of the re-check, and where the counterexample came from;
- the repairs the registry carries for it (``Claim.repairs``), each with its own verdict, and one line
  ``repair: verified / falsified / none known`` (:func:`repair_status`; with none known, the claim's
  notes say why);
- the not-applicable and inconclusive claims with their reasons;
- a table of the verified bounds by tightness (worst measured/bound), naming those looser than
  100×, and the figure: the worst ratio per verified bound on a log axis, grouped by section;
- a header with the commit and version (:func:`provenance`: ``git`` in a checkout, else what the build
  recorded in ``properties/build_info.py``), profile, seed and the command that reproduces it
  (:func:`reproduce_command`).

Only the papers the ledger holds get files (:func:`select_entries` narrows a ledger to ``--paper`` and
``--claims``); the figure lists the bounds in the paper's order (:func:`section_order`).

Identities are not bounds: their ratio is a relative discrepancy (about 10⁻¹⁰⁰ when they hold), so
they are counted but kept out of the tightness table and figure, and so is any claim whose ratio is
below ``EQUALITY`` (a statement judged as an equality, whatever its kind in claims.tsv).

:func:`readme_status` renders README's status section from the registry's recorded findings, which
``tests/properties/test_claims.py`` holds equal to a fresh ci-profile search; ``tests/properties/test_report.py`` fails
when README and it disagree.
"""

from __future__ import annotations

import math
import os
import re
import shlex
import subprocess
from fnmatch import fnmatchcase

from .engine import EQUALITY
from .evidence import certificate_file_name, certifier_key
from .ledgerfile import instance_text, jsonable, raw_instance
from .registry import canonical_ids, claims, paper, paper_names
from .toolkit.claims import VERDICTS
from .toolkit.provenance import AS_WRITTEN, PROVENANCE_WORDS, STRENGTH_WORDS, STRENGTHS, annotate, strength

__all__ = ["EQUALITY", "FIGURES_NEED", "LOOSE", "about_lines", "certificate_text", "conventions_table",
           "conventions_text", "difference_table", "has_matplotlib", "provenance", "readme_status", "repair_status",
           "reproduce_command", "section_order", "select_entries", "strength_counts", "write_reports"]



LOOSE = 0.01
"""A verified bound whose worst measured/bound stays below this is named as looser than 100×."""

def _ball_text(rec: dict) -> str:
    return rec.get("text", "?")


def certificate_text(doc: dict | None, reading: str = "") -> str:
    """One line on a certificate: what was proven, how, at what precision, with the enclosures, and its file
    (``reading``: the alternative reading it certifies, :func:`~properties.evidence.certificate_file_name`)."""
    if doc is None:
        return "not certified (no certificate was made: python -m properties certify)"
    if not doc.get("certified"):
        why = doc.get("reason", "no reason recorded")
        if doc.get("target") == "repair":  # no file in certificates/: the search's verdict is all there is
            return f"verified by the ledger's search, not certified (no certificate file): {why}"
        return f"not certified: {why}"
    exact_tie = (doc["measured"].get("rad") == "0" and doc["bound"].get("rad") == "0"
                 and doc["measured"].get("mid") == doc["bound"].get("mid"))
    proven = "fails" if doc["target"] == "violation" else ("holds with equality, exactly" if exact_tie
                                                            else "holds strictly")
    premises = "; ".join(f"{p['what']} proven ({p.get('method', 'ball enclosures')})" for p in doc.get("premises", ()))
    return (f"**certified** ({doc['method']}, {doc['bits']} bits): {doc['enclosed']}: measured ∈ "
            f"{_ball_text(doc['measured'])}, bound ∈ {_ball_text(doc['bound'])}, so `measured {doc['relation']} bound` "
            f"{proven}" + (f"; premises: {premises}" if premises else "")
            + f" (certificates/{certificate_file_name(doc['claim'], doc['target'], reading)})")


def _git(*args: str) -> str:
    """``git args`` run in this package's directory: its output, or "" when git fails or is missing."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        out = subprocess.run(["git", *args], capture_output=True, text=True, timeout=10, cwd=here)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def provenance() -> tuple[str, str]:
    """(commit, version) of the code that writes the report.  In a git checkout of this project (the
    repository's top level holds this very package, not merely some repository around site-packages)
    the checkout's ``HEAD``; otherwise the commit recorded when the package was built
    (``properties/build_info.py``, written by setup.py's build step); the version is the installed
    distribution's, else the recorded one."""
    from importlib import metadata

    try:
        from . import build_info as built  # generated at build time, absent in a plain checkout
    except ImportError:
        built = None
    here = os.path.dirname(os.path.abspath(__file__))
    top = _git("rev-parse", "--show-toplevel")
    in_checkout = bool(top) and os.path.isdir(os.path.join(top, "properties")) and os.path.samefile(
        os.path.join(top, "properties"), here)
    commit = (_git("rev-parse", "--short", "HEAD") if in_checkout else "") or getattr(built, "COMMIT", "") \
        or "unknown (neither a git checkout nor a build that recorded its commit)"
    try:
        version = metadata.version("attention-claims")
    except metadata.PackageNotFoundError:
        version = getattr(built, "VERSION", "") or "unknown"
    return commit, version


def reproduce_command(*, source: str | None, profile: str, seed: int, tightness: str | None, out: str,
                      papers=None, patterns=None) -> str:
    """The ``python -m properties report`` command that writes the same report: from the same ledger
    (``--from``) or, for a fresh run, with its profile and seed, and every option that narrowed or fed
    it; each word quoted for a POSIX shell (globs stay unexpanded)."""
    words = ["python", "-m", "properties", "report"]
    words += ["--from", source] if source else ["--profile", str(profile), "--seed", str(seed)]
    words += ["--tightness-from", tightness] if tightness else []
    words += ["--paper", *papers] if papers else []
    words += ["--claims", *patterns] if patterns else []
    return shlex.join(words + ["--out", out])


def select_entries(ledger: dict, *, papers=None, patterns=None, source: str = "the ledger",
                   empty_ok: bool = False) -> tuple[dict, list[str]]:
    """The ledger narrowed to the entries of ``papers`` (None: any) whose id matches a glob of
    ``patterns`` (None: any), and the papers it then holds, in the registry's order: the papers
    a report writes files for.

    Raises:
        ValueError: (unless ``empty_ok``) when the selection is empty, or a paper of ``papers`` has
            no entry in it: an errata file of no claim says nothing; always, when an entry's id is not a
            claim of claims.tsv or its verdict or recorded finding is not one of ``VERDICTS`` (a report is
            of a ledger this code could have written)."""
    known = set(canonical_ids())
    for c in ledger["claims"]:
        if c["id"] not in known:
            raise ValueError(f"{source} holds id={c['id']!r}, which is not a claim of claims.tsv")
        for name in ("verdict", "expected"):
            if c[name] not in VERDICTS:
                raise ValueError(f"{source} holds {c['id']} with {name}={c[name]!r}, which must be one of "
                                 f"{', '.join(VERDICTS)}")
    entries = [c for c in ledger["claims"] if (not papers or c["paper"] in papers)
               and (not patterns or any(fnmatchcase(c["id"], pattern) for pattern in patterns))]
    held = [name for name in paper_names() if any(c["paper"] == name for c in entries)]
    if not empty_ok:
        narrowed = " ".join([*(f"--paper {p}" for p in papers or ()), *(["--claims", *patterns] if patterns else [])])
        if not entries:
            raise ValueError(f"{source} holds no claim" + (f" selected by {narrowed}" if narrowed else ""))
        absent = [name for name in papers or () if name not in held]
        if absent:
            raise ValueError(f"paper={absent[0]!r} must have claims in {source}" +
                             (f" matching --claims {' '.join(patterns)}" if patterns else "") +
                             f" (it holds claims of {', '.join(held)})")
    return {**ledger, "claims": entries}, held


_NUMBER = re.compile(r"(?<![\w.])((?:[A-Z]|\d+)(?:\.\d+)+)")  # 4.2, 7.10, A.1, C.5: the paper's numbering
_SECTION = re.compile(r"(?:Sections?|§)\s*(\d+)")  # "Section 4", "§9": a section without a dotted number


def section_order(name: str) -> dict[str, tuple]:
    """A sort key per claim id of paper ``name``: the first number of its section in claims.tsv read
    as the paper numbers (body sections 1, 2, … before appendices A, B, …; 7.2 before 7.10), then the
    section text read naturally (Part 2 before Part 10), then the row of claims.tsv.  A section
    without a number ("derived: …", "text claim: …") takes the number of the row before it."""
    keys, number = {}, ((0, 0),)
    rows = [(cid, row) for cid, row in canonical_ids().items() if row["paper"] == name]
    for index, (cid, row) in enumerate(rows):
        found = _NUMBER.search(row["section"]) or _SECTION.search(row["section"])
        if found:
            number = tuple((0, int(t)) if t.isdigit() else (1, t) for t in found.group(1).split("."))
        keys[cid] = (number, _natural(row["section"]), index)
    return keys


def _fmt(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    return f"{x:.6g}"


def _falsified_entry(c: dict) -> list[str]:
    out = c.get("counterexample_outcome") or {}
    lines = [f"### `{c['id']}`", "", f"- Section: {c['section']} ({c['kind']})",
             f"- Stated: {c['statement']}", *about_lines(c)]
    if c.get("hypotheses"):
        lines.append(f"- Hypotheses: {c['hypotheses']}")
    source = {"search": "found by the Hypothesis search", "explicit": "from an explicit example"}.get(
        c.get("counterexample_source"), str(c.get("counterexample_source")))
    lines.append(f"- Counterexample ({source}): `{instance_text(c)}`".replace("\n  ", "`\n  `"))
    if out:
        digits = f", sign decided with {out['digits']} digits" if out.get("digits") else ""
        lines.append(f"- Measured {_fmt(out.get('measured'))} against bound {_fmt(out.get('bound'))} "
                     f"(ratio {_fmt(out.get('ratio'))}{digits}); re-checked at {c.get('recheck_dps')} digits")
    if c.get("reason"):
        lines.append(f"- Judged: {c['reason']}")
    certs = c.get("certificates")
    if certs is not None:
        lines.append(f"- Certificate: {certificate_text(certs.get('violation'))}")
    if c.get("notes"):
        lines.append(f"- Notes: {c['notes']}")
    lines.append(f"- repair: {repair_status(c)}")
    for r in c.get("repairs") or ():
        lines.append(f"  - {r['statement']} — **{r['verdict']}** on {r['examples']} examples, "
                     f"tightness {_fmt(r.get('worst_ratio'))}" + (f"; {r['reason']}" if r.get("reason") else ""))
        if r.get("verdict") == "verified" and (r.get("worst_instance") or r.get("worst_example")) is not None:
            lines.append(f"    - Worst example: `{instance_text(r, 'worst_instance')}`")
        if certs is not None and r.get("verdict") == "verified":
            lines.append(f"    - Certificate of the worst example: {certificate_text(certs.get('repair'))}")
        if r.get("notes"):
            lines.append(f"    - Source / derivation: {r['notes']}")
    return lines + [""]


def conventions_text(entry: dict) -> str:
    """The conventions an entry was judged under, briefly (each row of its paper's table,
    :func:`conventions_table`, names what a choice means): ``sigma_min: the paper's; kappa: min(m,n)``."""
    unit = paper(entry["paper"]) if entry.get("paper") in paper_names() else None
    parts = []
    for name, choice in (entry.get("conventions") or {}).items():
        if choice != "paper":
            parts.append(f"{name}: {choice}")
        elif unit is not None and not unit.convention(name).fixed:
            parts.append(f"{name}: the harness's (the paper fixes none)")
        else:
            parts.append(f"{name}: the paper's")
    return "; ".join(parts)


def conventions_table(name: str) -> list[str]:
    """The table of conventions of paper ``name`` (``Paper.conventions``) as markdown lines: each
    convention, the paper's own definition, what the harness uses where the paper fixes none, and the
    alternative readings by name."""
    rows = paper(name).conventions
    if not rows:
        return ["The paper's unit declares no conventions."]
    lines = ["| convention | the paper | the harness | alternative readings |", "|---|---|---|---|"]
    for c in rows:
        alternatives = "; ".join(f"`{n}`: {m}" for n, m in c.alternatives) or "—"
        lines.append("| " + " | ".join(x.replace("|", "\\|") for x in (f"`{c.name}`", c.paper, c.harness or "—",
                                                                          alternatives)) + " |")
    return lines


def about_lines(entry: dict, indent: str = "") -> list[str]:
    """What a ledger entry's verdict is about, as markdown list items: the strength of a falsification in
    the words of :data:`~properties.toolkit.provenance.STRENGTH_WORDS`, the provenance (and what a
    reconstruction rests on), the basis when it is not the statement, the reading and the conventions
    judged, and each alternative reading with its verdict, strength and counterexample, and for a falsified
    one its certificate (where the entry carries its ``certificates``, by the second element of
    :func:`~properties.evidence.certifier_key`)."""
    lines = []
    if entry.get("strength"):
        lines.append(f"{indent}- Strength: **{entry['strength']}**: {STRENGTH_WORDS[entry['strength']]}")
    if entry.get("provenance"):
        lines.append(f"{indent}- Provenance: {entry['provenance']} ({PROVENANCE_WORDS[entry['provenance']]})"
                     + (f"; the statement rests on: {entry['source']}" if entry.get("source") else ""))
    if entry.get("basis") not in (None, "statement"):
        lines.append(f"{indent}- Basis: {entry['basis']}: {entry.get('basis_note', '')}")
    if entry.get("reading") or entry.get("conventions"):
        lines.append(f"{indent}- Reading: " + (f"`{entry['reading']}`" if entry.get("reading") else "the statement")
                     + (f"; conventions: {conventions_text(entry)}" if entry.get("conventions") else ""))
    for r in entry.get("readings") or ():
        lines.append(f"{indent}- Alternative reading `{r.get('reading')}`: {r['statement']} — **{r['verdict']}**"
                     + (f" ({r['strength']})" if r.get("strength") else "")
                     + (f"; conventions: {conventions_text({**r, 'paper': entry.get('paper')})}"
                        if r.get("conventions") else "") + (f"; {r['reason']}" if r.get("reason") else ""))
        if r["verdict"] == "falsified":
            lines.append(f"{indent}  - Counterexample: `{instance_text(r)}`".replace("\n  ", "`\n  `"))
            certs = entry.get("certificates")
            if certs is not None:
                key = certifier_key(entry["id"], "violation", r["reading"])[1]
                lines.append(f"{indent}  - Certificate: {certificate_text(certs.get(key), r['reading'])}")
    return lines


def strength_counts(entries) -> dict[str, int]:
    """The falsified entries counted by strength, in the order of
    :data:`~properties.toolkit.provenance.STRENGTHS` (strengths of no entry left out)."""
    found = [e.get("strength") for e in entries if e["verdict"] == "falsified"]
    return {s: found.count(s) for s in STRENGTHS if s in found}


def _strength_sentence(counts: dict[str, int]) -> str:
    errors = counts.get(AS_WRITTEN, 0)
    return (f"By strength: {', '.join(f'{s} {n}' for s, n in counts.items())}.  Only *{AS_WRITTEN}* is an error "
            f"of the paper ({errors} here); the others refute a reading, a reconstruction, a proof step, the "
            "harness's constants, or are evidence, and are worded so below.")


def repair_status(entry: dict) -> str:
    """One word for the repairs of a ledger entry: "none known" (the claim's notes say why), "falsified"
    when any repair is, "verified" when all are, else the first other verdict (e.g. "inconclusive")."""
    verdicts = [r["verdict"] for r in entry.get("repairs") or ()]
    if not verdicts:
        return "none known"
    if "falsified" in verdicts:
        return "falsified"
    if all(v == "verified" for v in verdicts):
        return "verified"
    return next(v for v in verdicts if v != "verified")


def _paper_markdown(name: str, entries: list[dict], header: list[str], tight: list[dict] | None = None,
                    tight_source: str = "") -> str:
    counts = {}
    for c in entries:
        counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
    total = sum(1 for row in canonical_ids().values() if row["paper"] == name)
    unit = paper(name)
    lines = [f"# Errata and tightness: {unit.title} (paper {unit.number})", "",
             f"{', '.join(unit.authors)} ({unit.year}), arXiv:{unit.arxiv}.", "", *header, "",
             f"{len(entries)} of the {total} claim ids of this paper are in the ledger: "
             + ", ".join(f"{v} {n}" for v, n in sorted(counts.items())) + ".", ""]
    lines += ["## Conventions", "", "The paper's table of conventions: each claim names the rows its statement "
              "depends on and the choice it is judged under.", "", *conventions_table(name), ""]
    falsified = [c for c in entries if c["verdict"] == "falsified"]
    lines += ["## Falsified claims", ""]
    if falsified:
        status = {}
        for c in falsified:
            status[repair_status(c)] = status.get(repair_status(c), 0) + 1
        lines += [_strength_sentence(strength_counts(falsified)), "",
                  f"Repairs of the {len(falsified)} falsified claims: "
                  + ", ".join(f"{v} {n}" for v, n in sorted(status.items())) + ".", ""]
    lines += [x for c in falsified for x in _falsified_entry(c)] or ["None.", ""]
    failing = [c for c in entries if c["verdict"] != "falsified"
               and any(r["verdict"] == "falsified" for r in c.get("readings") or ())]
    if failing:
        lines += ["## Readings that fail where the claim's own reading does not", ""]
        for c in failing:
            lines += [f"### `{c['id']}` ({c['verdict']})", "", f"- Stated: {c['statement']}", *about_lines(c), ""]
    other = [c for c in entries if c["verdict"] in ("not-applicable", "inconclusive")]
    lines += ["## Not applicable and inconclusive", ""]
    lines += [f"- `{c['id']}` ({c['verdict']}): {c['statement']} — {c.get('reason') or 'no reason given'}"
              for c in other] or ["None."]
    bounds = _bounds(entries if tight is None else tight)
    lines += ["", "## Tightness of the verified bounds", "",
              "Worst measured/bound over the search (1 = attained; identities excluded)"
              + (f", from {tight_source}" if tight_source else "") + ".", "",
              "| claim | section | worst ratio | examples |", "|---|---|---:|---:|"]
    lines += [f"| `{c['id']}` | {c['section']} | {_fmt(c['worst_ratio'])} | {c['examples']} |" for c in bounds]
    loose = [c for c in bounds if c["worst_ratio"] < LOOSE]
    lines += ["", f"Looser than 100× ({len(loose)}): " + (", ".join(f"`{c['id']}`" for c in loose) or "none") + "."]
    return "\n".join(lines) + "\n"


def _bounds(entries):
    return sorted((c for c in entries if c["verdict"] == "verified" and not c["kind"].startswith("identity")
                   and isinstance(c.get("worst_ratio"), (int, float)) and c["worst_ratio"] > EQUALITY
                   and math.isfinite(c["worst_ratio"])), key=lambda c: c["worst_ratio"])


def _natural(text: str) -> tuple:
    """A sort key reading digit runs as numbers (lem7.2 before lem7.10, Section 9 before Section 10)."""
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))


def _in_paper_order(name: str, entries: list[dict]) -> list[dict]:
    """``entries`` of paper ``name`` in :func:`section_order` (an id claims.tsv does not list goes last)."""
    order = section_order(name)
    last = (((2, ""),), (), len(order))
    return sorted(entries, key=lambda c: (order.get(c["id"], last), _natural(c["id"])))


def _figure(name: str, entries: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bounds = _in_paper_order(name, _bounds(entries))
    fig, ax = plt.subplots(figsize=(8, max(2.5, 0.22 * len(bounds) + 1)))
    if bounds:
        ys = range(len(bounds))
        ax.scatter([c["worst_ratio"] for c in bounds], ys, s=14)
        ax.set_yticks(list(ys), [c["id"].split(".", 1)[1] for c in bounds], fontsize=7)
        ax.set_xscale("log")
        ax.axvline(1.0, color="k", lw=0.8)
        ax.axvline(LOOSE, color="r", lw=0.8, ls="--", label="100× loose")
        ax.legend(loc="lower right", fontsize=7)
        ax.invert_yaxis()
    else:
        ax.text(0.5, 0.5, "no verified bound in this ledger", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("worst measured / bound over the search (log)")
    ax.set_title(f"Tightness of the verified bounds: {name}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def has_matplotlib() -> bool:
    """Whether matplotlib, which draws the TIGHTNESS figures, can be imported (without it the report writes its
    Markdown and certificates and says what draws the figures: :data:`FIGURES_NEED`)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


FIGURES_NEED = "pip install '.[report]' (or pip install matplotlib)"
"""What installs the figures' dependency, as the command line says it when matplotlib is missing."""


def _named(claim, entry: dict) -> dict:
    """The entry with its instances named by the registry's claim when the ledger predates the names."""
    from .toolkit.claims import named_instance

    entry = dict(entry)
    for raw_field, named_field in (("counterexample", "instance"), ("worst_example", "worst_instance")):
        raw = entry.get(raw_field)
        if entry.get(named_field) is None and isinstance(raw, list) and entry.get("mode", "search") == "search":
            try:
                entry[named_field] = jsonable(named_instance(claim, raw_instance(raw, len(claim.fields))))
            except (ValueError, TypeError):  # fields that do not fit the recorded instance: shown unnamed
                pass
    return entry


def write_reports(ledger: dict, out_dir: str, *, papers=None, command: str = "", certificates: dict | None = None,
                  tightness: dict | None = None, tightness_source: str = "", source: str = "") -> list[str]:
    """Write ``ERRATA-<paper>.md`` and ``TIGHTNESS-<paper>.png`` for each paper of ``papers`` (default:
    each paper the ledger holds); return the paths.

    ``certificates``: the certificates by :func:`~properties.evidence.certifier_key`
    (:func:`properties.certify.certify_ledger`), shown with each falsified claim, falsified alternative
    reading and verified repair; ``tightness``: another ledger (a deep run) whose
    verified bounds make the tightness table, list and figure, named by ``tightness_source`` (``source``
    names ``ledger`` in the difference table).
    Without matplotlib (:func:`has_matplotlib`) the figures are left out and the rest is written."""
    figures = has_matplotlib()
    registry = {c.id: c for c in claims()}
    by_paper: dict[str, list[dict]] = {}
    filled = False
    for c in ledger["claims"]:
        known = registry.get(c["id"])
        if known is not None:
            notes = {r.statement: r.notes for r in known.repairs}
            by_statement = {r.statement: r for r in known.repairs}
            c = {"hypotheses": known.hypotheses, "notes": known.notes, **c,
                 "repairs": [_named(by_statement[r["statement"]], {"notes": notes.get(r["statement"], ""), **r})
                             if r.get("statement") in by_statement else r for r in c.get("repairs") or ()]}
            c = _named(known, c)
            filled = filled or "strength" not in c
            c = annotate(c, known)
        if certificates is not None:
            keys = [(c["id"], t) for t in ("violation", "repair")] + [
                certifier_key(c["id"], "violation", r["reading"]) for r in c.get("readings") or ()]
            c = {**c, "certificates": {key[1]: certificates.get(key) for key in keys}}
        by_paper.setdefault(c["paper"], []).append(c)
    tight_by_paper: dict[str, list[dict]] = {}
    for c in (tightness or {}).get("claims", ()):
        tight_by_paper.setdefault(c["paper"], []).append(c)
    commit, version = provenance()
    header = [f"- Commit: {ledger.get('commit') or commit}; attention-claims {version}",
              f"- Profile: {ledger.get('profile')}; seed: {ledger.get('seed', 'the profile default')}"
              + (f"; tightness from {tightness_source} (profile {tightness.get('profile')})" if tightness else ""),
              f"- Reproduce: `{command or 'python -m properties report'}`",
              "- What each verdict is about (provenance, reading, conventions, strength): as the registry declares "
              "it" + (" (the ledger predates some of these fields)" if filled else "")]
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for name in papers or [name for name in paper_names() if name in by_paper]:
        entries = by_paper.get(name, [])
        md = os.path.join(out_dir, f"ERRATA-{name}.md")
        with open(md, "w", encoding="utf-8") as fh:
            fh.write(_paper_markdown(name, entries, header, None if tightness is None else tight_by_paper.get(name, []),
                                     tightness_source and f"{tightness_source} (profile {tightness.get('profile')})"))
        written.append(md)
        if figures:
            png = os.path.join(out_dir, f"TIGHTNESS-{name}.png")
            _figure(name, entries if tightness is None else tight_by_paper.get(name, []), png)
            written.append(png)
    if tightness is not None:
        path = os.path.join(out_dir, "DIFFERENCES.md")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(difference_table(ledger, tightness, source or "the ledger", tightness_source or "the deep ledger"))
        written.append(path)
    return written


def _ratio_change(a, b) -> float:
    """How far apart two worst ratios are, as a factor ≥ 1 (∞ when one is missing or zero and the other not)."""
    if not all(isinstance(x, (int, float)) and math.isfinite(x) for x in (a, b)):
        return 1.0 if a == b else math.inf
    if a == b:
        return 1.0
    if a <= 0 or b <= 0:
        return math.inf
    return max(a / b, b / a)


def difference_table(base: dict, deep: dict, base_name: str, deep_name: str) -> str:
    """Every difference between two ledgers of the same claims: changed verdicts first,
    then the claims whose worst ratio moved, by how much, with the examples each run decided."""
    other = {c["id"]: c for c in deep["claims"]}
    rows = []
    for c in base["claims"]:
        d = other.get(c["id"])
        if d is None:
            continue
        change = _ratio_change(c.get("worst_ratio"), d.get("worst_ratio"))
        rows.append((c["verdict"] == d["verdict"], -change, c["id"], c, d, change))
    rows.sort(key=lambda r: r[:3])
    flipped = [r for r in rows if not r[0]]
    moved = [r for r in rows if r[0] and r[5] > 1.01]
    lines = [f"# Differences: {deep_name} (profile {deep.get('profile')}) against {base_name} "
             f"(profile {base.get('profile')})", "",
             f"{len(rows)} claims in both; {len(flipped)} changed verdict; {len(moved)} moved their worst ratio "
             "by more than 1%; the other rows differ only in the examples decided.", "",
             f"| claim | verdict {base.get('profile')} → {deep.get('profile')} | worst ratio | examples | reason |",
             "|---|---|---|---|---|"]
    for same, _, cid, c, d, change in rows:
        verdict = c["verdict"] if same else f"**{c['verdict']} → {d['verdict']}**"
        ratio = f"{_fmt(c.get('worst_ratio'))} → {_fmt(d.get('worst_ratio'))}" + (
            f" (×{change:.3g})" if math.isfinite(change) and change > 1.01 else "")
        reason = "" if same else (d.get("reason") or "").replace("|", "\\|")[:160]
        lines.append(f"| `{cid}` | {verdict} | {ratio} | {c.get('examples')} → {d.get('examples')} | {reason} |")
    return "\n".join(lines) + "\n"


def readme_status() -> str:
    """README's status tables, from the registry's recorded findings (held equal to a fresh
    ci-profile search by tests/properties/test_claims.py): per paper the verdicts and the falsified claims
    by strength (:func:`~properties.toolkit.provenance.strength` of the recorded findings), then each
    falsified claim with its strength, provenance, statement and readings."""
    registered = claims()
    canonical = canonical_ids()
    found = {c.id: strength(c, c.expected, [r.expected for r in c.readings]) for c in registered}
    lines = ["| paper | claim ids | registered | verified | falsified | " + " | ".join(STRENGTHS)
             + " | not applicable |", "|---|---:|---:|---:|---:|" + "---:|" * len(STRENGTHS) + "---:|"]
    for name in paper_names():
        mine = [c for c in registered if c.paper == name]
        count = {v: sum(c.expected == v for c in mine) for v in ("verified", "falsified", "not-applicable")}
        total = sum(1 for row in canonical.values() if row["paper"] == name)
        by_strength = " | ".join(str(sum(found[c.id] == s for c in mine)) for s in STRENGTHS)
        lines.append(f"| {name} | {total} | {len(mine)} | {count['verified']} | {count['falsified']} | "
                     f"{by_strength} | {count['not-applicable']} |")
    lines += ["", f"Falsified claims by strength: only *{AS_WRITTEN}* is an error of the paper; "
              + "; ".join(f"*{s}*: {STRENGTH_WORDS[s]}" for s in STRENGTHS[1:]) + ".",
              "", "| falsified claim | strength | provenance | stated | readings | repairs judged |",
              "|---|---|---|---|---|---|"]
    for c in registered:
        if c.expected == "falsified":
            stated = c.statement.replace("|", "\\|")
            readings = ", ".join(f"{r.reading}: {r.expected}" for r in c.readings) or "—"
            lines.append(f"| `{c.id}` | {found[c.id]} | {c.provenance} | {stated} | {readings} | {len(c.repairs)} |")
    return "\n".join(lines)
