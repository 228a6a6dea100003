# ---- jobenv workflow ground truth: conference travel claims checked against the per diem rates ----
# Standard library, pandas and openpyxl. PARAMS (defined above this code in solve.py) names the files, the
# destination, the travel policy's rules (75 % on travel days, meal breakdown, mileage rate), the meals the agenda
# provides and the deliverables; ``naive`` names the shortcuts a careless reviewer takes.
import datetime
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import _fixed_dates, read_frame, rnd, write_memo, yes_no
except ImportError:
    pass


def _num(v):
    text = str(v).replace(",", "").replace("$", "").strip()
    return float(text) if text else 0.0


def _day(v):
    return datetime.date.fromisoformat(str(v)[:10])


def mie_allowed(first, last, rate, provided, breakdown, partial=0.75):
    """M&IE for one trip: ``partial`` of the daily rate on the first and last travel days, the full rate between,
    less the breakdown amount of each provided meal on a travel day (a day never goes below zero).
    ``provided`` maps a date to the meals provided that day."""
    total, deducted = 0.0, 0.0
    n = (last - first).days
    for k in range(n + 1):
        d = first + datetime.timedelta(days=k)
        base = rate * (partial if k in (0, n) else 1.0)
        cut = sum(breakdown[m] for m in provided.get(d, ()))
        deducted += min(cut, base)
        total += base - min(cut, base)
    return total, deducted


def analyse(folder, P, naive=()):
    F = P["files"]
    rates = read_frame(folder, F["per_diem"])
    rows = [r for r in rates.to_dict("records") if str(r["destination"]).strip() == P["destination"]]
    if not rows:
        raise ValueError(f"no per diem row for {P['destination']}")
    claims = read_frame(folder, F["claims"], P["claims_sheet"]).to_dict("records")
    nights = read_frame(folder, F["receipts"]).to_dict("records")
    provided = {} if "meals" in naive else {_day(d): tuple(m) for d, m in P["provided_meals"].items()}
    partial = 1.0 if "full_days" in naive else float(P["travel_day_pct"]) / 100.0

    def rate_for(d):
        if "season" in naive:
            return rows[0]
        for r in rows:
            if _day(r["season_begin"]) <= d <= _day(r["season_end"]):
                return r
        raise ValueError(f"no season covers {d}")

    out = []
    for name in P["travellers"]:
        mine = [c for c in claims if c["traveller"] == name]
        first, last = _day(mine[0]["depart_date"]), _day(mine[0]["return_date"])
        mie_rate = _num(rate_for(first)["mie"])
        mie, deducted = mie_allowed(first, last, mie_rate, provided, P["breakdown"], partial)
        room = tax = 0.0
        caps = set()
        for n in nights:
            if n["traveller"] != name:
                continue
            cap = _num(rate_for(_day(n["night_of"]))["lodging"])
            caps.add(cap)
            if "lodging_tax" in naive:  # the cap applied to room and tax together
                both = _num(n["room_rate"]) + _num(n["tax"])
                room += min(both, cap)
            else:
                room += min(_num(n["room_rate"]), cap)
                tax += _num(n["tax"])
        miles = sum(_num(c["miles"]) for c in mine if c["expense_type"] == "Mileage")
        mileage = rnd(miles * float(P["mileage_rate"]), 2)
        other = sum(_num(c["amount"]) for c in mine if c["expense_type"] in P["as_claimed"])
        claimed = sum(_num(c["amount"]) for c in mine)
        allowable = rnd(mie, 2) + rnd(room, 2) + rnd(tax, 2) + mileage + rnd(other, 2)
        n_days = (last - first).days + 1
        out.append({"traveller": name, "travel_days": n_days, "mie_days": n_days - 2 * (1 - partial), "mie_rate": mie_rate,
                    "meals_deducted": rnd(deducted, 2), "mie_allowed": rnd(mie, 2), "nights": (last - first).days,
                    "lodging_cap": max(caps) if caps else 0.0, "room_allowed": rnd(room, 2), "lodging_tax": rnd(tax, 2),
                    "lodging_allowed": rnd(room + tax, 2), "miles": miles, "mileage_rate": float(P["mileage_rate"]),
                    "mileage_allowed": mileage, "other_allowed": rnd(other, 2), "allowable": rnd(allowable, 2),
                    "claimed": rnd(claimed, 2), "over_claim": rnd(claimed - allowable, 2) + 0.0})  # no -0.00
    worst = max(out, key=lambda r: r["over_claim"])
    named = next(r for r in out if r["traveller"] == P["premise_traveller"])
    facts = {"travellers": out, "total_allowable": rnd(sum(r["allowable"] for r in out), 2),
             "total_over": rnd(sum(max(r["over_claim"], 0.0) for r in out), 2), "worst": worst["traveller"],
             "worst_over": worst["over_claim"], "named_mie": named["mie_allowed"]}
    facts["decision"] = bool(facts["total_allowable"] <= float(P["budget"]))
    facts["premise"] = bool(named["over_claim"] <= 0.0)
    return facts


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['total']}: {facts['total_allowable']:.2f}", f"{L['over']}: {facts['total_over']:.2f}",
            f"{L['worst']}: {facts['worst']}", f"{L['worst_over']}: {facts['worst_over']:.2f}",
            f"{L['decision']}: {yes_no(facts['decision'])}", f"{L['named_mie']}: {facts['named_mie']:.2f}",
            f"{L['premise']}: {yes_no(facts['premise'])}"]


COLUMNS = ["traveller", "travel_days", "mie_rate", "meals_deducted", "mie_allowed", "nights", "lodging_cap",
           "room_allowed", "lodging_tax", "lodging_allowed", "miles", "mileage_rate", "mileage_allowed",
           "other_allowed", "allowable", "claimed", "over_claim"]


def write_outputs(output_dir, P, facts):
    """The workbook (sheet Claims; M&IE, lodging, mileage, allowable and over-claim are live formulas) and the
    one-page memo."""
    os.makedirs(output_dir, exist_ok=True)
    D = P["deliverables"]
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Claims"
    ws.append(COLUMNS)
    for k, r in enumerate(facts["travellers"], 2):  # M&IE days: travel days with the first and last at 75 %
        ws.append([r["traveller"], r["travel_days"], r["mie_rate"], r["meals_deducted"],
                   f"=ROUND({r['mie_days']:g}*C{k}-D{k},2)", r["nights"], r["lodging_cap"], r["room_allowed"],
                   r["lodging_tax"], f"=H{k}+I{k}", r["miles"], r["mileage_rate"], f"=ROUND(K{k}*L{k},2)",
                   r["other_allowed"], f"=E{k}+J{k}+M{k}+N{k}", r["claimed"], f"=ROUND(P{k}-O{k},2)"])
    last = len(facts["travellers"]) + 1
    ws.append(["Total"] + [""] * 13 + [f"=SUM(O2:O{last})", f"=SUM(P2:P{last})", f"=SUM(Q2:Q{last})"])
    path = os.path.join(output_dir, D["workbook"])
    wb.save(path)
    _fixed_dates(path)
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", "Method: M&IE at the locality rate for the travel dates, 75 % on the first and last day, less the "
        "breakdown amount of each meal the agenda provides; room rate capped at the lodging rate for each night's "
        "season with taxes reimbursed separately; mileage at the policy rate; registration and airfare as receipted."])
