"""Release notes of one minor version from the issue tracker's export, with the breaking changes flagged and the
semver claim checked (technical writers).

A software product's tracker export is generated for a minor release X.Y.0 (X 2-7, Y 1-9), its patch X.Y.1, the
previous line's patches (60-110 tickets) and the next minor (100-220): 230-520 tickets in all. The release's public,
merged changes are 18-40 features (Story, Improvement, New Feature), 25-60 fixes (Bug; 15 % also list the previous
line's patch as a fix version), 1-4 deprecations, 1-3 vulnerabilities and 1-2 Bugs labelled security; 1-3 of them carry the Compatibility
value Breaking when the semver claim is to fail, none otherwise, and 1-3 compatible features carry the retired
api-change label. Planted beside them: 3-8 merged tickets labelled internal, 2-4 merged tickets whose commit on the
release branch was reverted (one of them a breaking change) and 0-1 reverted then re-landed, 2-5 backport tickets of
in-scope fixes (same fix version, Backport of set), 3-8 merged tickets of the patch X.Y.1, and unmerged tickets of the
release (In Review, Open, Closed as Won't Do or Duplicate). CVSS of security tickets is 3.1-6.9 except one at 7.0-9.8,
which is in the notes (on a security-labelled Bug) when an advisory is to be needed and on a patch ticket otherwise.
The release branch's commit log has one commit per merged ticket of the release, revert commits naming the sha they
revert, and re-land commits. The current style guide (docx) states every rule; the 2023 guide (pdf, archived) flags
breaking changes by the api-change label and files security fixes under Fixes.

Failure behaviour: ``draw`` raises DegenerateTask when the targets are missed or a planted trap moves no graded figure;
``recheck`` raises OSError, KeyError or ValueError on a folder that is not this workflow's.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import random
import tempfile
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_list, llm, rubric
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels, write_files

__all__ = ["RELEASE_NOTES"]

_COMPONENTS = ("Auth", "Billing API", "CLI", "Dashboard", "Exporter", "Scheduler", "Python SDK", "Webhooks", "Search",
               "Storage", "Admin console", "Audit log")
_THINGS = ("bulk export", "saved filters", "SSO group sync", "retry policies", "dark mode", "CSV import", "rate-limit "
           "headers", "project templates", "usage reports", "scoped API tokens", "webhook signing", "audit trail "
           "export", "keyboard shortcuts", "pagination cursors", "custom fields", "timezone settings")
_SYMPTOMS = ("timeout on large result sets", "wrong totals after a refund", "crash when the name has an emoji",
             "duplicate rows after retry", "stale cache after an update", "memory leak in long sessions",
             "sort order ignored", "error 500 on an empty filter", "date shown in UTC instead of local time",
             "progress bar stuck at 99 percent", "locale not applied to numbers", "token refresh loop")
_VULNS = ("stored XSS in the comment field", "SSRF through the webhook URL", "open redirect after login",
          "session fixation on password reset", "path traversal in file download", "missing authorisation check on "
          "project export", "SQL injection in the search filter", "insecure default CORS policy")
_OLD = ("the v1 endpoints", "the legacy token format", "the XML export", "the --quiet flag", "basic auth",
        "the old webhook payload")
_LABELS = {
    "total": ("Changes in these notes", "Changes listed", "Total changes in the release"),
    "features": ("New features", "Features", "Feature changes"),
    "fixes": ("Bug fixes", "Fixes", "Fixed issues"),
    "deprecations": ("Deprecations", "Deprecation notices", "Deprecated features"),
    "security": ("Security fixes", "Security changes", "Security items"),
    "reverted": ("Reverted changes left out", "Changes dropped as reverted", "Reverted tickets excluded"),
    "breaking_count": ("Breaking changes", "Breaking changes flagged", "Changes that break compatibility"),
    "deprecated_list": ("Deprecated tickets", "Deprecations listed", "Deprecation tickets"),
    "security_list": ("Security tickets", "Security fixes listed", "Security ticket keys"),
    "decision": ("Security advisory required", "Advisory needed with these notes", "Publish with a security advisory"),
    "premise": ("{rel} holds as a minor release", "Semver minor claim for {rel} holds", "No breaking change in {rel}"),
}
_OUT = {"key": ("ticket", "key", "issue_key"), "kind": ("impact", "kind", "upgrade_impact"), "component": ("component", "area"),
        "summary": ("summary", "change", "title")}
_DIRS = {"tracker": ("tracker/exports", "jira/exports", "exports/tracker"), "docs": ("docs", "documentation"),
         "mail": ("mail", "correspondence", "email")}
SHORTCUTS = ("internal", "reverts", "backports", "security_label", "old_label", "version_prefix")
_HEAD = ["key", "issue_type", "summary", "component", "status", "resolution", "fix_versions", "labels",
         "compatibility", "cvss", "backport_of", "updated"]


# ---- the independent computation: csv only ----------------------------------------------------------------------

def _items(text: str) -> set[str]:
    return {t.strip().lower() for t in text.replace(",", ";").split(";")} - {""}


def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: the export and the branch log read with
    csv, the style guide's rules applied in one pass per ticket."""
    folder, F = Path(folder), P["files"]
    with (folder / F["commits"]).open(newline="", encoding="utf-8") as f:
        log = list(csv.DictReader(f))
    reverted_shas = {c["reverts"].strip() for c in log if c["reverts"].strip()}
    alive: dict[str, bool] = {}
    for c in log:
        if not c["reverts"].strip():
            alive[c["ticket"].strip()] = alive.get(c["ticket"].strip(), False) or c["sha"].strip() not in reverted_shas
    with (folder / F["tickets"]).open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    rel = P["release"].lower()
    merged = [r for r in rows if r["status"].strip().lower() == "merged" and rel in _items(r["fix_versions"])
              and "internal" not in _items(r["labels"])]
    dropped = sorted(r["key"] for r in merged if alive.get(r["key"].strip()) is False)
    merged = [r for r in merged if r["key"] not in dropped]
    keys = {r["key"] for r in merged}
    groups: dict[str, list[dict[str, str]]] = {g: [] for g in ("features", "fixes", "deprecations", "security")}
    kinds = {"story": "features", "improvement": "features", "new feature": "features", "bug": "fixes",
             "deprecation": "deprecations", "vulnerability": "security"}
    for r in merged:
        if r["backport_of"].strip() in keys:
            continue
        g = "security" if "security" in _items(r["labels"]) else kinds.get(r["issue_type"].strip().lower())
        if g:
            groups[g].append(r)
    listed = [r for rs in groups.values() for r in rs]
    breaking = sorted(r["key"] for r in listed if r["compatibility"].strip().lower() == "breaking")
    top = max([float(r["cvss"]) for r in groups["security"] if r["cvss"].strip()] or [0.0])
    return {"total": len(listed), "reverted": len(dropped), **{g: len(v) for g, v in groups.items()},
            "deprecations_keys": sorted(r["key"] for r in groups["deprecations"]),
            "security_keys": sorted(r["key"] for r in groups["security"]),
            "breaking": [{"key": k} for k in breaking], "breaking_count": len(breaking),
            "decision": top >= P["advisory_cvss"], "premise": not breaking}


# ---- drawing a task ----------------------------------------------------------------------------------------

class _Tracker:
    """Tickets and branch commits as they are drawn (keys unique, shas unique)."""

    def __init__(self, rng: random.Random, prefix: str, cut: dt.date) -> None:
        self.rng, self.prefix, self.cut = rng, prefix, cut
        self.nums = rng.sample(range(1200, 9800), 700)
        self.rows: list[dict[str, str]] = []
        self.commits: list[dict[str, str]] = []

    def ticket(self, kind: str, fix: str, status: str = "Merged", **kw: str) -> dict[str, str]:
        rng, comp = self.rng, self.rng.choice(_COMPONENTS)
        summary = {"Story": f"Add {rng.choice(_THINGS)} to {comp}", "Improvement": f"Faster {rng.choice(_THINGS)}",
                   "New Feature": f"Support {rng.choice(_THINGS)} in {comp}", "Bug": f"{comp}: {rng.choice(_SYMPTOMS)}",
                   "Deprecation": f"Deprecate {rng.choice(_OLD)}", "Vulnerability": f"{comp}: {rng.choice(_VULNS)}",
                   "Task": f"Upgrade {comp} build dependencies"}[kind]
        extra = rng.sample(("ui", "api", "cli", "performance", "docs", "sdk", "customer-reported"), rng.randint(0, 2))
        row = {"key": f"{self.prefix}-{self.nums.pop()}", "issue_type": kind, "summary": summary, "component": comp,
               "status": status, "resolution": "Done" if status == "Merged" else "", "fix_versions": fix,
               "labels": "; ".join(extra), "compatibility": rng.choice(("Compatible", "", "")), "cvss": "",
               "backport_of": "", "updated": (self.cut - dt.timedelta(days=rng.randint(-12, 60))).isoformat()}
        if kind == "Vulnerability":
            row["cvss"] = f"{rng.uniform(3.1, 6.9):.1f}"
        row.update(kw)
        self.rows.append(row)
        return row

    def commit(self, row: dict[str, str], reverts: str = "", message: str = "", day: int = 0) -> str:
        sha = f"{self.rng.getrandbits(48):012x}"
        when = dt.datetime.combine(self.cut, dt.time(8)) + dt.timedelta(days=day or self.rng.randint(-25, 5),
                                                                         minutes=self.rng.randint(0, 600))
        self.commits.append({"sha": sha, "date": when.isoformat(sep=" ", timespec="minutes"), "ticket": row["key"],
                             "author": person(self.rng), "message": message or f"{row['key']}: {row['summary']}",
                             "reverts": reverts})
        return sha


def _label(row: dict[str, str], label: str) -> None:
    row["labels"] = "; ".join([*filter(None, row["labels"].split("; ")), label])


def _tickets(rng: random.Random, P: dict[str, Any], targets: dict[str, bool]) -> _Tracker:
    rel, patch, prev, nxt = P["release"], P["patch"], P["prev_patch"], P["next"]
    T = _Tracker(rng, P["prefix"], dt.date.fromisoformat(P["cut"]))
    kinds = ["Story"] * 5 + ["Improvement"] * 3 + ["New Feature"] * 2
    feats = [T.ticket(rng.choice(kinds), rel) for _ in range(rng.randint(18, 40))]
    fixes = [T.ticket("Bug", f"{prev}; {rel}" if rng.random() < 0.15 else rel) for _ in range(rng.randint(25, 60))]
    for _ in range(rng.randint(1, 4)):
        T.ticket("Deprecation", rel, compatibility="Compatible")
    for _ in range(rng.randint(1, 3)):
        T.ticket("Vulnerability", rel)
    sec = [T.ticket("Bug", rel, cvss=f"{rng.uniform(3.1, 6.9):.1f}", summary=f"{c}: {rng.choice(_VULNS)}", component=c)
           for c in rng.sample(_COMPONENTS, rng.randint(1, 2))]
    for r in sec:
        _label(r, "security")
    high = rng.choice(("7.0", "7.2", "7.5", "8.1", "8.8", "9.8"))
    if targets["decision"]:
        sec[0]["cvss"] = high
    else:
        T.ticket("Vulnerability", patch, cvss=high)
    if not targets["premise"]:
        for r in rng.sample(feats, rng.randint(1, 3)):
            r["compatibility"] = "Breaking"
            if rng.random() < 0.5:
                _label(r, "api-change")
    for r in rng.sample([f for f in feats if f["compatibility"] != "Breaking"], rng.randint(1, 3)):
        r["compatibility"] = "Compatible"
        _label(r, "api-change")
    public = list(T.rows)
    internal = [T.ticket(rng.choice(("Story", "Improvement", "Bug")), rel) for _ in range(rng.randint(3, 8))]
    for r in internal:
        r["labels"] = "internal" + rng.choice(("", "; ci", "; tooling"))
    gone = [T.ticket(rng.choice(("Story", "Bug", "Improvement")), rel) for _ in range(rng.randint(2, 4))]
    gone[0].update(issue_type="Story", compatibility="Breaking")
    _label(gone[0], rng.choice(("api-change", "migration")))
    relanded = T.ticket("Bug", rel) if rng.random() < 0.6 else None
    backports = []
    for orig in rng.sample(fixes, rng.randint(2, 5)):
        backports.append(T.ticket("Bug", rel, summary=f"[Backport {rel.rsplit('.', 1)[0]}] {orig['summary']}",
                                  component=orig["component"], backport_of=orig["key"]))
    for _ in range(rng.randint(3, 8)):
        T.ticket(rng.choice(("Bug", "Bug", "Improvement")), patch)
    for status, res in (("In Review", ""), ("Open", ""), ("Closed", "Won't Do"), ("Closed", "Duplicate")):
        for _ in range(rng.randint(3, 12)):
            T.ticket(rng.choice(kinds + ["Bug"] * 4), rel, status=status, resolution=res)
    for fix, statuses in ((prev, ("Merged",)), (nxt, ("Open", "In Review", "Merged", "Open"))):
        for _ in range(rng.randint(100, 220) if fix == nxt else rng.randint(60, 110)):
            st = rng.choice(statuses)
            r = T.ticket(rng.choice(kinds + ["Bug"] * 6 + ["Task"]), fix, status=st)
            if rng.random() < 0.04:
                r["compatibility"] = "Breaking"
    for r in public + internal + backports:
        T.commit(r)
    for r in gone + ([relanded] if relanded else []):
        sha = T.commit(r, day=rng.randint(-25, -10))
        T.commit(r, reverts=sha, message=f'Revert "{r["key"]}: {r["summary"]}"', day=rng.randint(-8, -4))
    if relanded:  # reverted after QA, fixed and merged again: the change ships
        T.commit(relanded, message=f"{relanded['key']}: {relanded['summary']} (re-land with fix)", day=rng.randint(-3, 4))
    rng.shuffle(T.rows)
    T.commits.sort(key=lambda c: c["date"])
    return T


def _guide(P: dict[str, Any], current: bool) -> list[str]:
    rel, line = P["release"], P["release"].rsplit(".", 1)[0]
    if not current:
        return ["Release notes style guide (2023, superseded by v3)",
                f"- Scope: tickets whose fix version belongs to the release line (for {line}.0, anything marked {line}).",
                "- Sections: New features; Fixes (security fixes are fixes and go here); Deprecations.",
                "- Breaking changes: flag every ticket labelled api-change.",
                "- Keep each entry to one line, present tense, with the ticket key first."]
    return [
        "Release notes style guide v3 (current; replaces the 2023 guide)",
        f"- Scope: a release's notes list the tickets whose Fix Version/s field names that release exactly (for "
        f"{rel}: {rel}). The field may hold several versions separated by semicolons; a ticket is in when one of them "
        f"is the release. Patch releases ({P['patch']} and later) get their own notes.",
        "- Status: only tickets in status Merged. Tickets In Review, Open or Closed (whatever the resolution) are not in "
        "the release.",
        "- Internal work: tickets labelled internal (CI, tooling, refactoring) never appear in customer-facing notes.",
        "- Reverts: the release branch's commit log is the record of what ships. A change whose every commit on the "
        "branch was reverted (a revert commit names the sha it reverts in its reverts column) is not in the release, "
        "even while the tracker still shows it Merged; give the number of such changes as the reverted changes left "
        "out. A change re-landed after its revert (a later commit that is not reverted) ships.",
        "- Backports: when a fix lands on main after the branch cut, a backport ticket (Backport of = the original's "
        "key) is opened for the release branch with the same fix version. List the change once, under the original's "
        "key; a backport whose original is not in the notes is listed under its own key.",
        "- Sections: New features = Story, Improvement and New Feature; Fixes = Bug; Deprecations = Deprecation; "
        "Security = Vulnerability, and every ticket labelled security whatever its issue type. Task tickets are not "
        "listed.",
        "- Counts: a section's count is the number of tickets listed in it; the total is the sum of the four sections.",
        "- Breaking changes: a change is breaking when its Compatibility field is Breaking. Flag it in its section and "
        "list it in the upgrade-impact table (with the deprecations). The api-change label was retired in 2024; it "
        "says nothing about compatibility.",
        "- Versioning: the product follows semantic versioning. A minor release (X.Y.0) may not carry a breaking "
        "change; if one is in scope the product manager must renumber the release as a major or hold the change back.",
        f"- Security advisory: when a change in the Security section has a CVSS base score of "
        f"{P['advisory_cvss']:.1f} or higher, the notes are published with a security advisory."]


def _workspace(rng: random.Random, P: dict[str, Any], T: _Tracker, dirs: dict[str, str],
               pm: str) -> tuple[dict[str, Any], dict[str, str]]:
    out: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        out[name], roles[name] = writer, role

    F, rel, cut = P["files"], P["release"], dt.date.fromisoformat(P["cut"])
    rows = [[r[h] for h in _HEAD] for r in T.rows]
    add(F["tickets"], "data", lambda p: write_csv(p, _HEAD, rows))
    log = [[c[h] for h in ("sha", "date", "author", "ticket", "message", "reverts")] for c in T.commits]
    add(F["commits"], "data", lambda p: write_csv(p, ["sha", "date", "author", "ticket", "message", "reverts"], log))
    docs, mail = dirs["docs"], dirs["mail"]
    add(f"{docs}/style/release_notes_style_guide_v3.docx", "policy",
        lambda p: write_docx(p, "Release notes style guide", _guide(P, True)))
    add(f"{docs}/style/archive/release_notes_style_guide_2023.pdf", "stale",
        lambda p: write_pdf(p, "Release notes style guide 2023", _guide(P, False)))
    major, minor = (int(x) for x in rel.split(".")[:2])
    last = f"{major}.{minor - 1}.0"
    add(f"{docs}/release_notes/{last}.md", "distractor", lambda p: write_text(p, (
        f"# Release notes {last}\n\n## New features\n\n- Add saved filters to Search\n- Support SSO group sync in Auth\n"
        f"\n## Fixes\n\n- Exporter: timeout on large result sets\n\n## Security\n\n- Webhooks: SSRF through the webhook "
        "URL (advisory published)\n")))
    sched = [[f"{major}.{minor - 1}.{k}", (cut - dt.timedelta(days=90 - 21 * k)).isoformat(), "released"] for k in (1, 2, 3)]
    sched += [[rel, (cut + dt.timedelta(days=14)).isoformat(), "branch cut " + cut.isoformat()],
              [P["patch"], (cut + dt.timedelta(days=35)).isoformat(), "planned"],
              [P["next"], (cut + dt.timedelta(days=98)).isoformat(), "planned"]]
    add(f"planning/release_calendar_{cut.year}.xlsx", "distractor",
        lambda p: write_xlsx(p, [("Calendar", ["version", "ga_date", "note"], sched)]))
    owners = [[c, person(rng), rng.choice(("platform", "growth", "integrations", "core"))] for c in _COMPONENTS]
    add(f"{dirs['tracker']}/components.csv", "distractor", lambda p: write_csv(p, ["component", "lead", "team"], owners))
    sent = (cut + dt.timedelta(days=6)).isoformat()
    add(f"{mail}/{sent}_release_notes_request.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{pm}, Product Manager", to="docs", date=sent, subject=f"Release notes for {rel}",
        body=f"{rel} goes out on {(cut + dt.timedelta(days=14)).isoformat()}. It's a minor release, so there's nothing "
             "breaking in it - please confirm that when you send the notes. The tracker export and the branch log "
             "are in the folder.")))
    rm = person(rng)
    add(f"{mail}/{(cut + dt.timedelta(days=4)).isoformat()}_branch_status.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{rm}, Release Manager", to="docs; product", date=(cut + dt.timedelta(days=4)).isoformat(),
        subject=f"release/{rel.rsplit('.', 1)[0]} status",
        body="QA reverted a few changes on the release branch after the regression run; nobody has moved the tickets "
             "back, so the tracker still says Merged. The branch log export is attached. Cherry-picks onto the branch "
             "have their own backport tickets as usual.")))
    add(f"{mail}/{(cut + dt.timedelta(days=2)).isoformat()}_security_triage.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Security Lead", to="docs; product", date=(cut + dt.timedelta(days=2)).isoformat(),
        subject="Security fixes in the next releases",
        body=f"Some security fixes are tracked as Bugs with the security label rather than as Vulnerabilities. The "
             f"advisory rule is the one in the style guide. {P['patch']} will carry its own security fixes and its "
             "own notes.")))
    add(f"meetings/{sent}_docs_sync.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic=f"{rel} release notes", people=[person(rng) for _ in range(3)], date=sent)))
    return out, roles


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.relnotes import analyse

    prof = dataclasses.replace(profession(occupation), occasions=(
        "the release is due in two weeks", "the release notes go to customers with the GA announcement",
        "support wants the notes before the upgrade webinar"),
        orgs=("a software company's docs group", "a SaaS vendor's documentation team", "a developer-tools company"))
    dirs = pick_labels(rng, _DIRS)
    major, minor = rng.randint(2, 7), rng.randint(1, 9)
    rel = f"{major}.{minor}.0"
    cut = dt.date(2026, rng.randint(1, 10), rng.randint(1, 28))
    P: dict[str, Any] = {
        "release": rel, "patch": f"{major}.{minor}.1", "prev_patch": f"{major}.{minor - 1}.{rng.randint(2, 5)}",
        "next": f"{major}.{minor + 1}.0", "prefix": rng.choice(("ORB", "NOVA", "PLAT", "HLX", "KITE")),
        "cut": cut.isoformat(), "advisory_cvss": 7.0,
        "files": {"tickets": f"{dirs['tracker']}/tickets_{(cut + dt.timedelta(days=5)).isoformat()}.csv",
                  "commits": f"repo/release-{major}.{minor}/commits.csv"},
        "labels": {}, "out_columns": pick_labels(rng, _OUT), "decoys": [],
        "deliverables": {"memo": rng.choice((f"release_notes_{rel}.md", f"RELEASE_NOTES_{rel}.md", f"notes_{rel}.md")),
                         "breaking": rng.choice(("upgrade_impact.csv", f"breaking_changes_{rel}.csv",
                                                 "compatibility_impact.csv"))}}
    T = _tickets(rng, P, targets)
    pm = person(rng)
    writers, roles = _workspace(rng, P, T, dirs, pm)
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), {rel: writers[rel] for rel in (P["files"]["tickets"], P["files"]["commits"])})
        truth = analyse(tmp, P)
        singles = {s: analyse(tmp, P, (s,)) for s in SHORTCUTS}
    if truth["decision"] != targets["decision"] or truth["premise"] != targets["premise"]:
        raise DegenerateTask("the targets are missed")
    keys = ("total", "features", "fixes", "deprecations", "security", "reverted", "breaking", "security_keys",
            "decision", "premise")
    where = {"internal": ("data", "tickets labelled internal never appear in the notes"),
             "reverts": ("data", "changes reverted on the release branch still show Merged in the tracker"),
             "backports": ("data", "a backport ticket is the same change as its original"),
             "security_label": ("memo", "a Bug labelled security goes under Security"),
             "old_label": ("memo", "the superseded guide's api-change label flags compatible changes as breaking"),
             "version_prefix": ("data", "tickets of the patch release match the release line as text")}
    traps = [{"kind": s, "where": where[s][0], "description": where[s][1], "naive": s} for s, f in singles.items()
             if any(f[k] != truth[k] for k in keys)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    flagged = {b["key"] for b in truth["breaking"]}
    gone = set(truth["reverted_keys"])
    P["decoys"] = sorted(r["key"] for r in T.rows if r["key"] not in flagged and (
        r["key"] in gone and r["compatibility"] == "Breaking" or "api-change" in r["labels"] and r["key"] in
        truth["summaries"]))
    labels = pick_labels(rng, _LABELS)
    labels["premise"] = labels["premise"].format(rel=rel)
    P["labels"] = labels
    L, D, C = labels, P["deliverables"], P["out_columns"]
    memo_labels = [(L["total"], "whole number"), (L["features"], "whole number"), (L["fixes"], "whole number"),
                   (L["deprecations"], "whole number"), (L["security"], "whole number"),
                   (L["reverted"], "whole number"), (L["breaking_count"], "whole number"),
                   (L["deprecated_list"], "ticket keys separated by semicolons"),
                   (L["security_list"], "ticket keys separated by semicolons"),
                   (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    prompt = instructions(
        rng, prof=prof, requester=pm, role="Product Manager", org=rng.choice(prof.orgs),
        subject=f"Release notes for {rel}",
        purpose=rng.choice((f"I need the release notes for {rel} from the merged tickets, with breaking changes flagged.",
                            f"please draft the {rel} release notes from the tracker export, grouped the usual way.",
                            f"can you put together the customer release notes for {rel}, breaking changes called out?")),
        about=f"the tracker export of {P['prefix']} tickets and the release branch's commit log",
        belief=f"{rel} is a minor release, so by semver there is nothing breaking in it. Please confirm.",
        table={"file": D["breaking"], "headers": [C["key"], C["kind"], C["component"], C["summary"]],
               "unit": "breaking change or deprecation (the upgrade-impact table)"},
        memo_file=D["memo"], memo_labels=memo_labels,
        extra_deliverables=(f"In {D['breaking']}, {C['kind']} is breaking for a change that breaks compatibility "
                            "and deprecation for any other deprecation.",
                            f"In {D['memo']}, after its opening lines, the notes themselves: one section per group "
                            "with one line per change (ticket key first) and breaking changes flagged; say how "
                            "reverts, backports and internal tickets were handled.",),
        policy=f"the release notes style guide in {dirs['docs']}/style/", files=sorted(writers))
    return Draft(subject=f"Release notes {rel}", instructions=prompt, files=writers, roles=roles, params=P,
                 traps=traps, targets=dict(targets),
                 distributions="230-520 tickets over 5 fix versions; the release's public merged changes 18-40 "
                               "features, 25-60 fixes, 1-4 deprecations, 2-5 security; 3-8 internal, 2-4 reverted "
                               "(0-1 re-landed), 2-5 backports, 3-8 patch tickets; CVSS 3.1-6.9, one 7.0-9.8")


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import FieldCheck, IdsCheck, RowCountCheck

    D, L, C = P["deliverables"], P["labels"], P["out_columns"]
    memo, up = D["memo"], D["breaking"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def whole(key: str, v: int) -> tuple[str, Any]:
        return f"{L[key]} = {v}", FieldCheck(file=memo, label=L[key], number=float(v), tolerance=0.0)

    def keys(key: str, items: list[str]) -> tuple[str, Any]:
        return f"{L[key]}: {'; '.join(items)}", fld_list(memo, L[key], items)

    flagged = [b["key"] for b in facts["breaking"]]
    deps = [k for k in facts["deprecations_keys"] if k not in flagged]
    out = [
        rubric(f"Lists the merged, public tickets of {P['release']} exactly, each change once", 10, [
            whole("total", facts["total"]), whole("features", facts["features"]), whole("fixes", facts["fixes"])]),
        rubric("Leaves out the changes reverted on the release branch", 10, [
            whole("reverted", facts["reverted"]), whole("total", facts["total"])]),
        rubric("Files every ticket labelled security under Security", 8, [
            whole("security", facts["security"]), keys("security_list", facts["security_keys"])]),
        rubric("Lists the deprecations", 6, [
            whole("deprecations", facts["deprecations"]), keys("deprecated_list", facts["deprecations_keys"])]),
        rubric("Flags the breaking changes from the Compatibility field in the upgrade-impact table", 10, [
            whole("breaking_count", facts["breaking_count"]),
            (f"{up} has {len(flagged) + len(deps)} rows", RowCountCheck(file=up, key=C["key"], count=len(flagged) + len(deps))),
            (f"{up} has {len(flagged)} rows of {C['kind']} breaking",
             RowCountCheck(file=up, key=C["key"], where={C["kind"]: "breaking"}, count=len(flagged))),
            (f"{up} lists {'; '.join(flagged + deps)}", IdsCheck(file=up, ids=flagged + deps, present="all")),
            *([(f"{up} lists none of the reverted or merely api-change-labelled tickets",
                IdsCheck(file=up, ids=list(P["decoys"]), present="none"))] if P["decoys"] else [])]),
        rubric("Settles the semver claim: a minor release may not carry a breaking change", 8, [
            (f"{L['premise']}: {yes(facts['premise'])}", fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"])),
            whole("breaking_count", facts["breaking_count"])]),
        rubric("Decides the security advisory from the CVSS threshold of the style guide", 8, [
            (f"{L['decision']}: {yes(facts['decision'])}", fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"])),
            keys("security_list", facts["security_keys"])]),
    ]
    if judgement:
        out.append(rubric("Writes notes the product manager can publish", 6, [
            ("Groups the changes by section with one line per change and flags the breaking ones", llm("content")),
            ("Says how reverts, backports and internal tickets were handled", llm("explanation")),
            ("Answers the semver claim plainly", llm("writing"))]))
    return out


RELEASE_NOTES = Workflow(
    key="release_notes", family="technical_documentation",
    method="tracker filter by exact fix version and merged status; internal out; branch reverts out; backports once; "
           "grouping by type and security label; breaking changes by compatibility; semver minor check",
    professions=("technical_writers",), solver="relnotes", shortcuts=SHORTCUTS, draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated issue-tracker export and release-branch commit log (stated distributions)")
