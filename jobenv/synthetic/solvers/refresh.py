# ---- jobenv workflow ground truth: a fiscal year's laptop refresh list under the lifecycle standard (support) ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the asset register, the
# standard builds catalogue, the endpoint battery report, the ticket export, the lessor's schedule and the HR leavers
# list, the cut-off date (last day of the fiscal year), the ticket export date, the current and the superseded
# standard's limits, the quote's prices per build profile and the deployment service, the budget, the procurement
# reason codes and the deliverables; ``naive`` names the shortcuts a hurried specialist takes:
#   old_policy  the superseded 2022 standard's limits (60 months, battery below 50 %, 4 incidents)
#   cutoff      age measured on the ticket export date instead of the cut-off date
#   warranty    a migrated record without a purchase date gets no age (not derived from the warranty end)
#   window      every hardware ticket counted, not only those of the 12 months to the export date
#   duplicates  tickets resolved as Duplicate counted as incidents
#   leased      leased laptops (the lessor's schedule, by serial number) kept on the list
#   leavers     laptops of confirmed leavers (leaving on or before the cut-off) kept on the list
# Unreadable inputs raise (OSError, KeyError, ValueError) and no output is written.
import calendar
import datetime as dt
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass

REASONS = ("age", "battery", "incidents")


def add_months(d, months):
    """The same day ``months`` calendar months away, clamped to the month's last day (31 May - 3 months = 28 Feb)."""
    k = d.year * 12 + d.month - 1 + months
    y, m = divmod(k, 12)
    return dt.date(y, m + 1, min(d.day, calendar.monthrange(y, m + 1)[1]))


def purchase_date(row, term_months, naive=()):
    """The purchase date, or for a migrated record without one the warranty end minus the model's warranty term."""
    text = str(row["purchase_date"]).strip()
    if text:
        return dt.date.fromisoformat(text)
    if "warranty" in naive or not str(row["warranty_end"]).strip():
        return None
    return add_months(dt.date.fromisoformat(str(row["warranty_end"]).strip()), -int(term_months))


def battery_health(design, full):
    """Battery health in per cent: full charge capacity / design capacity x 100."""
    return 100.0 * float(full) / float(design)


def incident_counts(tickets, export, naive=()):
    """Hardware incidents per asset tag in the 12 months to the export date (opened on or after the same day a year
    earlier), Duplicate resolutions left out."""
    start = add_months(export, -12)
    out: dict = {}
    for t in tickets:
        if str(t["category"]).strip().lower() != "hardware" or not str(t["asset_tag"]).strip():
            continue
        if str(t["resolution"]).strip().lower() == "duplicate" and "duplicates" not in naive:
            continue
        opened = dt.date.fromisoformat(str(t["opened"]).strip()[:10])
        if (opened < start or opened > export) and "window" not in naive:
            continue
        tag = str(t["asset_tag"]).strip()
        out[tag] = out.get(tag, 0) + 1
    return out


def analyse(folder, P, naive=()):
    F = P["files"]
    lim = P["old_limits"] if "old_policy" in naive else P["limits"]
    cutoff, export = dt.date.fromisoformat(P["cutoff"]), dt.date.fromisoformat(P["export"])
    when = export if "cutoff" in naive else cutoff
    models = {str(r["model"]).strip(): r for r in read_frame(folder, F["catalogue"]).to_dict("records")}
    health = {str(r["serial_number"]).strip(): battery_health(r["design_capacity_mwh"], r["full_charge_capacity_mwh"])
              for r in read_frame(folder, F["battery"]).to_dict("records")}
    incidents = incident_counts(read_frame(folder, F["tickets"]).to_dict("records"), export, naive)
    leased = {str(r["serial_number"]).strip() for r in read_frame(folder, F["lessor"]).to_dict("records")}
    leaving = {str(r["employee_id"]).strip() for r in read_frame(folder, F["leavers"]).to_dict("records")
               if str(r["status"]).strip().lower() == "confirmed"
               and dt.date.fromisoformat(str(r["leaving_date"]).strip()[:10]) <= cutoff}
    due, left_leased, left_leavers = [], [], []
    for r in read_frame(folder, F["register"]).to_dict("records"):
        if str(r["asset_type"]).strip().lower() != "laptop" or str(r["status"]).strip().lower() != "deployed":
            continue
        model = models[str(r["model"]).strip()]
        bought = purchase_date(r, model["warranty_months"], naive)
        serial, tag = str(r["serial_number"]).strip(), str(r["asset_tag"]).strip()
        hits = [bought is not None and bought <= add_months(when, -int(lim["age_months"])),
                serial in health and health[serial] < float(lim["battery_pct"]),
                incidents.get(tag, 0) >= int(lim["incidents"])]
        if not any(hits):
            continue
        if serial in leased and "leased" not in naive:
            left_leased.append(tag)
            continue
        if str(r["employee_id"]).strip() in leaving and "leavers" not in naive:
            left_leavers.append(tag)
            continue
        profile = str(model["build_profile"]).strip()
        q = P["quote"][profile]
        due.append({"tag": tag, "cost_centre": str(r["cost_centre"]).strip(), "model": str(r["model"]).strip(),
                    "sku": q["sku"], "reason": REASONS[hits.index(True)],
                    "unit_cost": rnd(float(q["price"]) + float(P["service"]), 2)})
    due.sort(key=lambda d: d["tag"])
    cost = rnd(sum(d["unit_cost"] for d in due), 2)
    facts = {"due": due, "count": len(due), **{r: sum(d["reason"] == r for d in due) for r in REASONS},
             "leased": len(left_leased), "leased_tags": sorted(left_leased), "leavers": len(left_leavers),
             "leaver_tags": sorted(left_leavers), "cost": cost}
    facts["decision"] = bool(cost <= float(P["budget"]))  # the whole list fits the fiscal year's budget line
    facts["premise"] = facts["battery"] + facts["incidents"] == 0  # only laptops past the age limit are due
    return facts


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['count']}: {facts['count']}", f"{L['age']}: {facts['age']}", f"{L['battery']}: {facts['battery']}",
            f"{L['incidents']}: {facts['incidents']}", f"{L['leased']}: {facts['leased']}",
            f"{L['leavers']}: {facts['leavers']}", f"{L['cost']}: {facts['cost']:.2f}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, C, codes = P["deliverables"], P["out_columns"], P["codes"]
    rows = [[d["tag"], d["cost_centre"], d["sku"], codes[d["reason"]], f"{d['unit_cost']:.2f}"] for d in facts["due"]]
    write_table(os.path.join(output_dir, D["table"]), [C["tag"], C["cost_centre"], C["sku"], C["reason"], C["cost"]],
                rows)
    write_memo(os.path.join(output_dir, D["memo"]), [f"# Laptop refresh {P['fy']}", ""] + _memo_lines(P, facts) + [
        "", f"Budget line: {P['budget']:.2f}; list cost {facts['cost']:.2f}.",
        "Method: deployed laptops of the asset register; due when 48 months old on the cut-off date (migrated records "
        "aged from the warranty end less the model's warranty term), battery health under 60 % in the endpoint report, "
        "or 3 hardware incidents in the 12 months to the ticket export (duplicates out); leased units (lessor's "
        "schedule by serial) and confirmed leavers' laptops left off; each line priced at the quote's unit price for "
        "its build profile plus the deployment service."])
