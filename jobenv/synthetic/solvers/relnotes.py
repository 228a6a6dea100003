# ---- jobenv workflow ground truth: release notes of one version from the tracker export (technical writers) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the tracker export, the
# release branch's commit log, the release (e.g. 4.2.0), the advisory CVSS threshold of the style guide and the
# deliverables; ``naive`` names the shortcuts a hurried writer takes:
#   internal        tickets labelled internal kept in the notes
#   reverts         the release branch's reverts ignored: every Merged ticket counted
#   backports       a backport ticket listed beside its original (the change counted twice)
#   security_label  grouped by issue type only: a Bug labelled security stays under Fixes
#   old_label       breaking changes flagged by the retired api-change label (superseded 2023 guide)
#   version_prefix  fix version matched as text ("4.2" also takes 4.2.1)
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, write_memo, write_table, yes_no
except ImportError:
    pass

GROUPS = ("features", "fixes", "deprecations", "security")
TYPE_GROUP = {"story": "features", "improvement": "features", "new feature": "features", "bug": "fixes",
              "deprecation": "deprecations", "vulnerability": "security"}


def split_list(text):
    """A multi-valued tracker field ("a; b" or "a, b") as trimmed, lower-case items."""
    return [t.strip().lower() for t in str(text).replace(",", ";").split(";") if t.strip()]


def in_version(fix_versions, release, prefix=False):
    """True when the ticket's fix versions name the release exactly (the field may list several versions)."""
    if prefix:
        return release.rsplit(".", 1)[0] in str(fix_versions)
    return release.lower() in split_list(fix_versions)


def live_tickets(commits):
    """(kept, reverted): tickets with at least one commit on the branch that is neither a revert nor reverted, and
    tickets whose every commit was reverted. A revert commit names the sha it reverts in ``reverts``; a change
    re-landed after its revert has a new, unreverted commit and stays."""
    undone = {c["reverts"].strip() for c in commits if c["reverts"].strip()}
    kept: set = set()
    hit: set = set()
    for c in commits:
        if c["reverts"].strip():
            continue
        (hit if c["sha"].strip() in undone else kept).add(c["ticket"].strip())
    return kept, hit - kept


def group_of(row, naive=()):
    labels = split_list(row["labels"])
    if "security" in labels and "security_label" not in naive:
        return "security"
    return TYPE_GROUP.get(row["issue_type"].strip().lower())


def analyse(folder, P, naive=()):
    F = P["files"]
    tickets = read_frame(folder, F["tickets"]).to_dict("records")
    commits = read_frame(folder, F["commits"]).to_dict("records")
    kept, reverted = live_tickets(commits)
    pick = []
    for r in tickets:
        if r["status"].strip().lower() != "merged":
            continue
        if not in_version(r["fix_versions"], P["release"], "version_prefix" in naive):
            continue
        if "internal" in split_list(r["labels"]) and "internal" not in naive:
            continue
        pick.append(r)
    gone = [] if "reverts" in naive else sorted(r["key"] for r in pick if r["key"] in reverted)
    pick = [r for r in pick if r["key"] not in gone]
    keys = {r["key"] for r in pick}
    if "backports" not in naive:  # a backport is the same change as its original: listed once, under the original
        pick = [r for r in pick if not (r["backport_of"].strip() and r["backport_of"].strip() in keys)]
    groups: dict = {g: [] for g in GROUPS}
    for r in pick:
        g = group_of(r, naive)
        if g:
            groups[g].append(r)
    listed = [r for g in GROUPS for r in groups[g]]
    if "old_label" in naive:
        breaking = [r for r in listed if "api-change" in split_list(r["labels"])]
    else:
        breaking = [r for r in listed if r["compatibility"].strip().lower() == "breaking"]
    breaking.sort(key=lambda r: r["key"])
    cvss = [float(r["cvss"]) for r in groups["security"] if str(r["cvss"]).strip()]
    facts = {"total": len(listed), "reverted": len(gone), "reverted_keys": gone,
             **{g: len(groups[g]) for g in GROUPS},
             **{f"{g}_keys": sorted(r["key"] for r in groups[g]) for g in GROUPS},
             "breaking": [{"key": r["key"], "component": r["component"], "summary": r["summary"]} for r in breaking],
             "breaking_count": len(breaking), "max_cvss": max(cvss) if cvss else 0.0,
             "summaries": {r["key"]: r["summary"] for r in listed}}
    facts["decision"] = bool(facts["max_cvss"] >= P["advisory_cvss"])
    facts["premise"] = facts["breaking_count"] == 0  # a minor release may not carry a breaking change
    return facts


def _memo_lines(P, facts):
    L = P["labels"]
    none = lambda keys: "; ".join(keys) if keys else "none"  # noqa: E731
    return [f"{L['total']}: {facts['total']}", f"{L['features']}: {facts['features']}",
            f"{L['fixes']}: {facts['fixes']}", f"{L['deprecations']}: {facts['deprecations']}",
            f"{L['security']}: {facts['security']}", f"{L['reverted']}: {facts['reverted']}",
            f"{L['breaking_count']}: {facts['breaking_count']}",
            f"{L['deprecated_list']}: {none(facts['deprecations_keys'])}",
            f"{L['security_list']}: {none(facts['security_keys'])}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, C = P["deliverables"], P["out_columns"]
    flagged = {b["key"] for b in facts["breaking"]}
    rows = [[b["key"], "breaking", b["component"], b["summary"]] for b in facts["breaking"]]
    rows += [[k, "deprecation", "", facts["summaries"][k]] for k in facts["deprecations_keys"] if k not in flagged]
    write_table(os.path.join(output_dir, D["breaking"]), [C["key"], C["kind"], C["component"], C["summary"]], rows)
    heads = {"features": "New features", "fixes": "Fixes", "deprecations": "Deprecations", "security": "Security"}
    body = [f"# Release notes {P['release']}", ""]
    for g in ("security", "features", "fixes", "deprecations"):
        body += [f"## {heads[g]}", ""] + [
            f"- {k}: {facts['summaries'][k]}" + (" **(breaking change)**" if k in flagged else "")
            for k in facts[f"{g}_keys"]] + [""]
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [""] + body + [
        "Method: merged tickets whose fix versions name the release exactly; internal tickets left out; changes "
        "whose commits on the release branch were all reverted left out; a backport listed once under its original; "
        "a ticket labelled security under Security whatever its type; breaking changes from the Compatibility field; "
        "a minor release may not carry a breaking change."])
