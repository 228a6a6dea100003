# ---- jobenv workflow ground truth: PRISMA 2020 flow counts of a systematic review, with screening agreement ----
# Standard library, pandas, openpyxl and python-docx. PARAMS (defined above this code in solve.py) names the database
# exports in the protocol's source order (file, delimiter or sheet, and the title, year and DOI columns of each),
# the review's publication years, the title/abstract decision log and the full-text log with their reviewers, the
# protocol's order of exclusion reasons, the kappa threshold, the study count quoted in the draft and the
# deliverables; ``naive`` names the shortcuts a hurried assistant takes (each reproduces one planted mistake):
#   raw_doi             DOIs compared as exported (https://doi.org/ prefixes and letter case left in)
#   title_only          any two records with the same normalised title and year taken as duplicates, even with
#                       different DOIs (a preprint and its journal article merged)
#   date_limit          the records outside the review's publication years kept for screening
#   old_protocol        the registered protocol's rule: reviewer disagreements carried forward to full text
#   calibration         kappa on every double-screened record, the calibration round in
#   reports_as_studies  included studies counted as included reports
#   reason_order        an exclusion with several reasons counted under the reason written first
# Unreadable inputs raise (OSError, KeyError, ValueError) and no output is written.
import os
import re
import unicodedata

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, yes_no
except ImportError:
    pass

DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)


def norm_doi(text, raw=False):
    """A DOI as the protocol compares it: trimmed, resolver or 'doi:' prefix removed, lower case ('' when none)."""
    text = str(text).strip()
    return text if raw else DOI_PREFIX.sub("", text).strip().lower()


def norm_title(text):
    """Lower case, accents removed, every character other than a letter or digit a space, spaces collapsed."""
    text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode("ascii").lower()
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split())


_EXPORTS = {}  # type: dict  # (path, size, mtime) -> rows: an export read once however many passes use it


def read_export(folder, src):
    """One database export as (title, year, doi) rows, in the export's own layout (csv, tab-delimited or xlsx)."""
    path = os.path.join(folder, src["file"])
    stat = os.stat(path)
    key = (os.path.abspath(path), stat.st_size, stat.st_mtime_ns, src["title"], src["year"], src["doi"])
    if key not in _EXPORTS:
        if len(_EXPORTS) > 64:
            _EXPORTS.clear()
        _EXPORTS[key] = _read_export(path, folder, src)
    return list(_EXPORTS[key])


def _read_export(path, folder, src):
    """The rows of one export as read from disk."""
    if src["file"].endswith(".txt"):
        import pandas as pd

        frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=3)
    else:
        frame = read_frame(folder, src["file"], src.get("sheet"))
    out = []
    for r in frame.to_dict("records"):
        year = str(r[src["year"]]).strip()[:4]
        out.append((str(r[src["title"]]), int(year), str(r[src["doi"]])))
    return out


def deduplicate(records, naive=()):
    """Records (source, title, year, doi) in source order -> (kept, duplicates). A record duplicates one met earlier
    when both carry a DOI and the normalised DOIs are equal, or when at least one lacks a DOI and the normalised
    title and year are equal. Two different DOIs are never duplicates (a preprint and its article are two reports)."""
    dois, keys = set(), {}  # type: set, dict
    kept, dups = [], 0
    for rec in records:
        doi = norm_doi(rec[3], "raw_doi" in naive)
        key = (norm_title(rec[1]), rec[2])
        if doi and doi in dois:
            dups += 1
            continue
        if key in keys and ("title_only" in naive or not doi or "" in keys[key]):
            dups += 1
            continue
        kept.append(rec)
        if doi:
            dois.add(doi)
        keys.setdefault(key, set()).add(doi)
    return kept, dups


def cohen_kappa(pairs):
    """Cohen's kappa of (decision_a, decision_b) pairs: (po - pe) / (1 - pe), pe from each reviewer's margins."""
    n = len(pairs)
    po = sum(a == b for a, b in pairs) / n
    cats = {a for a, _ in pairs} | {b for _, b in pairs}
    pe = sum((sum(a == c for a, _ in pairs) / n) * (sum(b == c for _, b in pairs) / n) for c in cats)
    return (po - pe) / (1 - pe)


def screening(folder, P, naive=()):
    """Title/abstract stage from the decision log: final decision per record (the reviewers' when they agree, the
    third reviewer's when they do not) and the (A, B) decision pairs of the agreement sample."""
    R = P["reviewers"]
    votes = {}  # type: dict
    for r in read_frame(folder, P["files"]["ta_log"]).to_dict("records"):
        rec = votes.setdefault(str(r["record_id"]).strip(), {"round": set(), "ab": {}, "third": None})
        who, vote, rnd_ = str(r["reviewer"]).strip(), str(r["decision"]).strip().lower(), str(r["round"]).strip().lower()
        if who == R["third"]:
            rec["third"] = vote
        else:
            rec["ab"][who] = vote
            rec["round"].add(rnd_)
    final, pairs = {}, []
    for rid, rec in votes.items():
        given = set(rec["ab"].values())
        if len(given) == 1:
            final[rid] = given.pop()
        else:
            final[rid] = "include" if "old_protocol" in naive else rec["third"]
        rounds = {"independent", "calibration"} if "calibration" in naive else {"independent"}
        if R["a"] in rec["ab"] and R["b"] in rec["ab"] and rec["round"] & rounds:
            pairs.append((rec["ab"][R["a"]], rec["ab"][R["b"]]))
    return final, pairs


def reason_of(text, order, naive=()):
    """The one reason an excluded report counts under: the first of the protocol's order among those written."""
    given = [t.strip().lower() for t in str(text).split(";") if t.strip()]
    if "reason_order" in naive:
        return given[0]
    return next(o for o in order if o.lower() in given)


def analyse(folder, P, naive=()):
    per_source, records = [], []
    for src in P["sources"]:
        rows = read_export(folder, src)
        per_source.append(len(rows))
        records += [(src["name"], t, y, d) for t, y, d in rows]
    kept, dups = deduplicate(records, naive)
    lo, hi = P["years"]
    outside = 0 if "date_limit" in naive else sum(1 for r in kept if not lo <= r[2] <= hi)
    screened = len(kept) - outside
    final, pairs = screening(folder, P, naive)
    excluded_ta = sum(v == "exclude" for v in final.values())
    sought = sum(v == "include" for v in final.values())
    ft = read_frame(folder, P["files"]["ft_log"]).to_dict("records")
    not_retrieved = sum(str(r["retrieved"]).strip().lower() == "no" for r in ft)
    done = [r for r in ft if str(r["retrieved"]).strip().lower() == "yes"]
    out = [r for r in done if str(r["decision"]).strip().lower() == "exclude"]
    inc = [r for r in done if str(r["decision"]).strip().lower() == "include"]
    reasons = {o: 0 for o in P["reasons"]}
    for r in out:
        got = reason_of(r["exclusion_reasons"], P["reasons"], naive)
        match = next(o for o in P["reasons"] if o.lower() == got)
        reasons[match] += 1
    studies = len(inc) if "reports_as_studies" in naive else len({str(r["study_id"]).strip() for r in inc})
    kappa = cohen_kappa(pairs)
    return {"identified": per_source, "identified_total": sum(per_source), "duplicates": dups, "outside": outside,
            "screened": screened, "excluded_ta": excluded_ta, "sought": sought, "not_retrieved": not_retrieved,
            "assessed": sought - not_retrieved, "excluded_ft": len(out), "reasons": [reasons[o] for o in P["reasons"]],
            "reports": len(inc), "studies": studies, "double_n": len(pairs), "kappa": rnd(kappa, 3),
            "kappa_raw": kappa, "log_records": len(final),
            "decision": bool(kappa >= float(P["kappa_threshold"])), "premise": studies == int(P["claim"])}


def _memo_lines(P, facts):
    L = P["labels"]
    lines = [f"{L['identified'].format(source=s['name'])}: {n}" for s, n in zip(P["sources"], facts["identified"])]
    lines += [f"{L[k]}: {facts[k]}" for k in ("identified_total", "duplicates", "outside", "screened", "excluded_ta",
                                              "sought", "not_retrieved", "assessed", "excluded_ft")]
    lines += [f"{L['reason'].format(reason=o)}: {n}" for o, n in zip(P["reasons"], facts["reasons"])]
    return lines + [f"{L['reports']}: {facts['reports']}", f"{L['studies']}: {facts['studies']}",
                    f"{L['double_n']}: {facts['double_n']}", f"{L['kappa']}: {facts['kappa']:.3f}",
                    f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def _methods(P, facts):
    """The PRISMA paragraph of the methods and results, with every count of the flow diagram."""
    f, names = facts, [s["name"] for s in P["sources"]]
    per = "; ".join(f"{n} {k}" for n, k in zip(names, f["identified"]))
    why = "; ".join(f"{o} {n}" for o, n in zip(P["reasons"], f["reasons"]))
    agree = "met" if f["decision"] else "did not meet"
    return [
        f"Study selection. The database searches identified {f['identified_total']} records ({per}). We removed "
        f"{f['duplicates']} duplicate records (by DOI, then by normalised title and publication year) and "
        f"{f['outside']} records published outside {P['years'][0]}-{P['years'][1]}, leaving {f['screened']} records "
        f"for title and abstract screening, of which {f['excluded_ta']} were excluded.",
        f"Two reviewers independently screened a random sample of {f['double_n']} records after a calibration round; "
        f"agreement was Cohen's kappa = {f['kappa']:.3f}, which {agree} the protocol's threshold of "
        f"{P['kappa_threshold']}. Disagreements were resolved by a third reviewer.",
        f"We sought {f['sought']} reports for retrieval and could not retrieve {f['not_retrieved']}; of the "
        f"{f['assessed']} reports assessed for eligibility, {f['excluded_ft']} were excluded ({why}).",
        f"The review includes {f['studies']} studies reported in {f['reports']} reports."]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, lines = P["deliverables"], _memo_lines(P, facts)
    k = len(P["sources"])
    m = k + 9 + len(P["reasons"])
    body = [f"# PRISMA 2020 flow counts: {P['review']}", "", "## Identification", ""] + [f"- {x}" for x in lines[:k + 4]]
    body += ["", "## Screening and eligibility", ""] + [f"- {x}" for x in lines[k + 4:m]]
    body += ["", "## Included", ""] + [f"- {x}" for x in lines[m:m + 2]]
    body += ["", "## Screening agreement", ""] + [f"- {x}" for x in lines[m + 2:]]
    body += ["", "## Full-text exclusions by reason", "", "| Reason (protocol order) | Reports |", "|---|---|"]
    body += [f"| {o} | {n} |" for o, n in zip(P["reasons"], facts["reasons"])] + [
        "", "Duplicates: DOI (normalised) first, then normalised title and year when a record lacks a DOI; records "
        "outside the publication years removed before screening; title/abstract disagreements settled by the third "
        "reviewer; one reason per excluded report (the first in the protocol's order); kappa on the independent "
        "double-screening sample, calibration round excluded."]
    write_memo(os.path.join(output_dir, D["memo"]), body)
    write_memo(os.path.join(output_dir, D["methods"]), _methods(P, facts))
