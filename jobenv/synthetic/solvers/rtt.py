# ---- jobenv workflow ground truth: 18-week referral-to-treatment (RTT) breach list at a census date ----
# Standard library and pandas. PARAMS (defined above this code in solve.py) names the files, the census date, the
# breach threshold, the urgency order and the deliverables; ``naive`` names the shortcuts a careless secretary takes:
#   dna_no_reset      a DNA at the first appointment left on the original clock (no restart)
#   cancel_reset      a cancellation (patient or hospital) treated as restarting the clock, as the superseded policy said
#   duplicates        a duplicate referral treated as a pathway of its own
#   order_by_wait     booking order by wait alone, urgency ignored
import datetime
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, write_memo, write_table, yes_no
except ImportError:
    pass


def _day(v):
    text = str(v).strip()[:10]
    return datetime.date.fromisoformat(text) if text else None


def clock_start(received, appointments, census, reset_on_dna=True, reset_on_cancel=False):
    """(clock start, stopped) of one pathway: the clock starts at referral receipt; a DNA at a first outpatient
    appointment not yet attended restarts it from the DNA date; an attended treatment appointment stops it.
    ``appointments`` are (date, type, outcome) tuples; those after ``census`` are ignored."""
    start, seen = received, False
    for when, kind, outcome in sorted(appointments):
        if when > census:
            break
        if kind == "TREAT" and outcome == "attended":
            return start, True
        if kind == "OPFA" and not seen:
            if outcome == "attended":
                seen = True
            elif outcome == "dna" and reset_on_dna:
                start = when
        if reset_on_cancel and outcome.startswith("cancelled"):
            start = when
    return start, False


def analyse(folder, P, naive=()):
    F = P["files"]
    census = _day(P["census"])
    refs = read_frame(folder, F["referrals"]).to_dict("records")
    appts = read_frame(folder, F["appointments"]).to_dict("records")
    by_ref: dict = {}
    for a in appts:
        by_ref.setdefault(str(a["referral_id"]), []).append(
            (_day(a["appt_date"]), str(a["appt_type"]), str(a["outcome"]).strip().lower()))
    rank = {u: k for k, u in enumerate(P["urgency_order"])}
    rows: list = []
    opened: dict = {}
    for r in sorted(refs, key=lambda r: (_day(r["received_date"]), str(r["referral_id"]))):
        ref, received = str(r["referral_id"]), _day(r["received_date"])
        if received > census:
            continue
        start, stopped = clock_start(received, by_ref.get(ref, []), census, "dna_no_reset" not in naive,
                                     "cancel_reset" in naive)
        key = (str(r["nhs_number"]), str(r["specialty"]))
        if "duplicates" not in naive and key in opened and (opened[key] is None or opened[key] > received):
            continue  # a duplicate of an open pathway: the original's clock applies
        opened[key] = stopped_on(by_ref.get(ref, []), census)
        if stopped:
            continue
        days = (census - start).days
        rows.append({"referral_id": ref, "nhs_number": str(r["nhs_number"]), "specialty": str(r["specialty"]),
                     "urgency": str(r["urgency"]), "clock_start": start.isoformat(), "days": days, "weeks": days // 7,
                     "breach": days > int(P["breach_days"])})
    order = ((lambda x: (-x["days"], x["referral_id"])) if "order_by_wait" in naive else
             (lambda x: (rank.get(x["urgency"], 99), -x["days"], x["referral_id"])))
    breaches = sorted((x for x in rows if x["breach"]), key=order)
    for k, x in enumerate(breaches, 1):
        x["seq"] = k
    longest = min(rows, key=lambda x: (-x["days"], x["referral_id"])) if rows else None
    facts = {"breaches": breaches, "breach_count": len(breaches), "open_count": len(rows),
             "longest_ref": longest["referral_id"] if longest else "", "longest_days": longest["days"] if longest else 0,
             "first_ref": breaches[0]["referral_id"] if breaches else ""}
    facts["decision"] = len(breaches) <= int(P["capacity"])
    facts["premise"] = any(x["referral_id"] == P["premise_ref"] for x in breaches)
    return facts


def stopped_on(appointments, census):
    """The date an attended treatment stopped the clock (None while the pathway is open at ``census``)."""
    done = [w for w, k, o in appointments if k == "TREAT" and o == "attended" and w <= census]
    return min(done) if done else None


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['count']}: {facts['breach_count']}", f"{L['longest_days']}: {facts['longest_days']}",
            f"{L['longest_ref']}: {facts['longest_ref']}", f"{L['first']}: {facts['first_ref']}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, C = P["deliverables"], P["columns"]
    header = [C[k] for k in ("seq", "referral_id", "nhs_number", "specialty", "urgency", "clock_start", "days", "weeks")]
    write_table(os.path.join(output_dir, D["list"]), header,
                [[x["seq"], x["referral_id"], x["nhs_number"], x["specialty"], x["urgency"], x["clock_start"],
                  x["days"], x["weeks"]] for x in facts["breaches"]])
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", "Method: each pathway's RTT clock runs from receipt of the referral to first definitive treatment; a DNA "
        "at the first appointment restarts it from the DNA date; cancellations by the patient or the hospital do not "
        "stop or restart it; duplicate referrals are merged into the open pathway. Breaches (over the threshold at the "
        "census date) are listed in booking order: clinical urgency, then longest wait."])
