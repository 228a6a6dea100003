# ---- jobenv workflow ground truth: CDL renewal eligibility review of one renewal cycle (licensing examiners) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the CDL holder extract,
# the conviction history, the medical certificates, the TSA threat-assessment results, the ACD code table, the
# out-of-state crosswalk, the review date, the cycle window, the action codes of the licensing system's upload and
# the deliverables; ``naive`` names the shortcuts a hurried examiner takes:
#   surrendered      every licence expiring in the cycle reviewed, surrendered and cancelled ones too
#   conviction_date  the three-year serious-violation period read on conviction dates (the manual's footnote says
#                    offence dates)
#   same_incident    every serious conviction counted, two charges on one citation as two violations
#   out_of_state     another state's statute codes not mapped through the crosswalk (read as no ACD offence)
#   excepted         a current medical certificate demanded of excepted (EI/EA) drivers too
#   exam_plus_24     a medical certificate taken as good for 24 months from the exam, not to its printed expiry
#   superseded_cert  any unexpired certificate on file accepted, not only the latest one
#   tsa_status       any TSA record in the last five years accepted (pending, withdrawn, IDTA), not only a DNST
#   x_endorsement    only the H endorsement treated as hazmat (X is tank + hazmat)
import calendar
import datetime as dt
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, write_memo, write_table, yes_no
except ImportError:
    pass

DQ_ORDER = ("dq1y", "dq120", "dq60")  # the longest disqualification first
ACTION_ORDER = ("dq1y", "dq120", "dq60", "med", "hazmat")


def day(text):
    return dt.date.fromisoformat(str(text).strip()[:10])


def add_months(d, n):
    """The same day ``n`` months later (the month's last day when it has no such day)."""
    y, m = divmod(d.month - 1 + n, 12)
    y, m = d.year + y, m + 1
    return dt.date(y, m, min(d.day, calendar.monthrange(y, m)[1]))


def years_before(d, n):
    """The same calendar date ``n`` years earlier (28 February for 29 February)."""
    return add_months(d, -12 * n)


def acd_code(row, home, crosswalk, naive=()):
    """The ACD code of a conviction: in-state courts report ACD codes, other states their own statute codes, mapped
    through the CDLIS crosswalk (state, code) -> ACD."""
    state, code = row["court_state"].strip().upper(), row["code"].strip().upper()
    if state == home or "out_of_state" in naive:
        return code
    return crosswalk.get((state, code), code)


def serious_incidents(convictions, review, naive=()):
    """Separate incidents of serious violations inside the three years ending on the review date (inclusive), read
    on offence dates; charges on one citation are one incident."""
    start = years_before(review, 3)
    seen = set()
    for c in convictions:
        if c["category"] != "SERIOUS":
            continue
        when = c["conviction_date"] if "conviction_date" in naive else c["offence_date"]
        if start <= when <= review:
            seen.add((c["citation_no"], c["charge_seq"]) if "same_incident" in naive else c["citation_no"])
    return len(seen)


def disqualification(convictions, review, naive=()):
    """'dq1y' for a major-offence conviction in the year ending on the review date, else 'dq120' for three or more
    serious incidents, 'dq60' for two, None otherwise."""
    start = years_before(review, 1)
    if any(c["category"] == "MAJOR" and start <= c["conviction_date"] <= review for c in convictions):
        return "dq1y"
    n = serious_incidents(convictions, review, naive)
    return "dq120" if n >= 3 else "dq60" if n == 2 else None


def medical_current(certs, review, naive=()):
    """The latest certificate (by exam date) is current when its printed expiration date is on or after the review
    date."""
    if not certs:
        return False
    pool = certs if "superseded_cert" in naive else [max(certs, key=lambda c: c["exam_date"])]
    for c in pool:
        expires = add_months(c["exam_date"], 24) if "exam_plus_24" in naive else c["expiration_date"]
        if expires >= review:
            return True
    return False


def is_hazmat(endorsements, naive=()):
    """H (hazardous materials) or X (tank vehicle and hazardous materials combined) among the endorsement letters."""
    marks = set(str(endorsements).upper())
    return "H" in marks or ("X" in marks and "x_endorsement" not in naive)


def tsa_current(records, review, naive=()):
    """A Determination of No Security Threat dated on or after the same date five years before the review date."""
    start = years_before(review, 5)
    for r in records:
        if "tsa_status" in naive:
            dates = [x for x in (r["determination_date"], r["application_date"]) if str(x).strip()]
            if any(start <= day(x) <= review for x in dates):
                return True
        elif r["status"].strip().upper() == "DNST" and str(r["determination_date"]).strip():
            if start <= day(r["determination_date"]) <= review:
                return True
    return False


def analyse(folder, P, naive=()):
    F = P["files"]
    review, lo, hi = day(P["review_date"]), day(P["cycle_start"]), day(P["cycle_end"])
    home = P["home_state"].upper()
    category = {r["acd_code"].strip().upper(): r["category"].strip().upper()
                for r in read_frame(folder, F["codes"]).to_dict("records")}
    crosswalk = {(r["state"].strip().upper(), str(r["state_code"]).strip().upper()): r["acd_code"].strip().upper()
                 for r in read_frame(folder, F["crosswalk"]).to_dict("records")}
    lic = read_frame(folder, F["licences"])
    lic = lic[(lic["expiration_date"].str.strip().str[:10] >= P["cycle_start"])
              & (lic["expiration_date"].str.strip().str[:10] <= P["cycle_end"])]  # ISO dates sort as text
    cycle = [r for r in lic.to_dict("records") if lo <= day(r["expiration_date"]) <= hi
             and ("surrendered" in naive or r["status"].strip().upper() == "VALID")]
    ids = {r["licence_no"].strip() for r in cycle}

    def of_cycle(rel):
        frame = read_frame(folder, rel)
        return frame[frame["licence_no"].str.strip().isin(ids)].to_dict("records")

    convs: dict = {}
    for r in of_cycle(F["convictions"]):
        convs.setdefault(r["licence_no"].strip(), []).append({
            "category": category.get(acd_code(r, home, crosswalk, naive), "OTHER"),
            "citation_no": r["citation_no"].strip(), "charge_seq": r["charge_seq"].strip(),
            "offence_date": day(r["offence_date"]), "conviction_date": day(r["conviction_date"])})
    certs: dict = {}
    for r in of_cycle(F["medical"]):
        certs.setdefault(r["licence_no"].strip(), []).append(
            {"exam_date": day(r["exam_date"]), "expiration_date": day(r["expiration_date"])})
    sta: dict = {}
    for r in of_cycle(F["tsa"]):
        sta.setdefault(r["licence_no"].strip(), []).append(r)
    actions = {}
    for r in sorted(cycle, key=lambda r: r["licence_no"].strip()):
        lic, got = r["licence_no"].strip(), []
        dq = disqualification(convs.get(lic, []), review, naive)
        if dq:
            got.append(dq)
        needs_card = "excepted" in naive or r["self_cert"].strip().upper() in ("NI", "NA")
        if needs_card and not medical_current(certs.get(lic, []), review, naive):
            got.append("med")
        if is_hazmat(r["endorsements"], naive) and not tsa_current(sta.get(lic, []), review, naive):
            got.append("hazmat")
        actions[lic] = got or ["renew"]
    of = lambda key: sorted(k for k, v in actions.items() if key in v)  # noqa: E731
    dq_list = sorted(k for k, v in actions.items() if set(v) & set(DQ_ORDER))
    facts: dict = {"actions": actions, "cycle_n": len(actions), "renew_n": len(of("renew")), "dq_list": dq_list,
                   "dq_n": len(dq_list), **{f"{k}_n": len(of(k)) for k in ACTION_ORDER},
                   "med_list": of("med"), "hazmat_list": of("hazmat")}
    facts["decision"] = len(dq_list) > int(P["hearing_slots"])
    facts["premise"] = actions.get(P["premise_licence"]) == ["renew"]
    return facts


_REASON = {"renew": "eligible", "dq1y": "major offence conviction within one year",
           "dq120": "three or more serious violations within three years",
           "dq60": "two serious violations within three years",
           "med": "no current medical examiner's certificate", "hazmat": "no current TSA determination (DNST)"}


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['cycle_n']}: {facts['cycle_n']}", f"{L['renew_n']}: {facts['renew_n']}",
            f"{L['dq_n']}: {facts['dq_n']}", f"{L['dq_list']}: {'; '.join(facts['dq_list']) or 'none'}",
            f"{L['med_n']}: {facts['med_n']}", f"{L['hazmat_n']}: {facts['hazmat_n']}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, C, codes = P["deliverables"], P["upload_columns"], P["codes"]
    rows = [[lic, codes[a], _REASON[a]] for lic, acts in facts["actions"].items()
            for a in sorted(acts, key=lambda a: (ACTION_ORDER + ("renew",)).index(a))]
    write_table(os.path.join(output_dir, D["upload"]), C, rows)
    counts = [f"- {codes[k]}: {facts[f'{k}_n']}" for k in ACTION_ORDER]
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", f"# Renewal cycle {P['cycle_start'][:7]}: eligibility review as of {P['review_date']}", "",
        "Action rows in the upload:", *counts, "",
        "Method: licences with status VALID expiring in the cycle window; serious violations counted by separate "
        "incident (one citation is one incident) with offence dates in the three years ending on the review date; "
        "major offences convicted in the last year; out-of-state statute codes mapped to ACD codes through the "
        "crosswalk; the latest medical certificate governs, to its printed expiry, for NI and NA drivers only; H and "
        "X endorsements need a TSA determination of no security threat dated within five years."])
