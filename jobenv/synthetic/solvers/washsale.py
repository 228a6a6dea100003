# ---- jobenv workflow ground truth: realised gain/loss with wash sales, Form 8949 lot schedule (securities sales) ----
# Standard library and pandas. PARAMS (defined above this code in solve.py) names the files, the tax year, the
# account's governing lot method and the specific-identification instruction; ``naive`` names the shortcuts:
#   commission  commissions left out of basis and proceeds
#   split       the stock split not applied to the lots bought before it
#   election    the superseded lot-method election (LIFO) used instead of the later letter's FIFO
#   specid      the specific-identification letter ignored (the sale relieved by the account's method)
#   wash        no wash-sale adjustment at all
#   january     replacement purchases after 31 December not looked at
#   transfer    the transferred-in lot at its market value on the day it arrived, held from that day
import datetime
import os

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass


def _num(v):
    text = str(v).replace(",", "").replace("$", "").strip()
    return float(text) if text else 0.0


def _day(v):
    return datetime.date.fromisoformat(str(v).strip()[:10])


def anniversary(d):
    """The same calendar date a year later (29 February -> 1 March); held long term when sold after it."""
    try:
        return d.replace(year=d.year + 1)
    except ValueError:
        return datetime.date(d.year + 1, 3, 1)


def load_lots(folder, P, naive=()):
    """Opening lots (buys and the transferred-in lot) and the sales, from the confirmations and the delivering
    firm's statement. A lot: id, symbol, trade date, holding-period start, shares, total basis."""
    F = P["files"]
    fee = 0.0 if "commission" in naive else 1.0
    delivered = {str(r["transfer_id"]): r for _, r in read_frame(folder, F["transfer"], P["transfer_sheet"]).iterrows()}
    lots, sales = [], []
    for _, r in read_frame(folder, F["confirms"]).iterrows():
        kind, qty, px = str(r["action"]).strip().upper(), _num(r["quantity"]), _num(r["price"])
        base = {"id": str(r["trade_id"]), "symbol": str(r["symbol"]).strip(), "date": _day(r["trade_date"])}
        if kind == "BUY":
            lots.append(dict(base, start=base["date"], shares=qty, basis=qty * px + fee * _num(r["commission"]),
                             bought=True))
        elif kind == "RECEIVE":
            d = None if "transfer" in naive else delivered.get(base["id"])
            start, basis = (base["date"], qty * px) if d is None else (_day(d["date_acquired"]), _num(d["cost_basis"]))
            lots.append(dict(base, start=start, shares=qty, basis=basis, bought=False))
        elif kind == "SELL":
            sales.append(dict(base, shares=qty, net=qty * px - fee * _num(r["commission"])))
    return lots, sales


def analyse(folder, P, naive=()):
    """The Form 8949 rows of the tax year's sales and the year's totals. A missing file or column raises
    (OSError, KeyError, ValueError); shares sold beyond the open lots (only when a shortcut loses the split) get
    no row."""
    lots, sales = load_lots(folder, P, naive)
    splits = [] if "split" in naive else [
        (str(r["symbol"]).strip(), _day(r["ex_date"]), _num(r["new_shares"]) / _num(r["old_shares"]))
        for _, r in read_frame(folder, P["files"]["actions"], P["actions_sheet"]).iterrows()
        if "split" in str(r["action"]).lower()]
    for sym, ex, ratio in splits:  # lots held before the ex-date: more shares, the same total basis
        for lot in lots:
            if lot["symbol"] == sym and lot["date"] < ex:
                lot["shares"] *= ratio
    method = P["old_method"] if "election" in naive else P["method"]
    spec = {} if "specid" in naive else P["spec_id"]
    year_end = datetime.date(P["year"], 12, 31)
    replaced: dict = {}  # lot id -> shares already used as replacement
    rows = []
    for sale in sorted(sales, key=lambda s: (s["date"], s["id"])):
        open_lots = [x for x in lots if x["symbol"] == sale["symbol"] and x["date"] <= sale["date"] and x["shares"] > 1e-9]
        if sale["id"] in spec:
            open_lots = [x for x in open_lots if x["id"] in spec[sale["id"]]]
        open_lots.sort(key=lambda x: (x["date"], x["id"]), reverse=method == "LIFO")
        left, mine = sale["shares"], []
        for lot in open_lots:
            take = min(left, lot["shares"])
            if take <= 1e-9:
                break
            cost = lot["basis"] * take / lot["shares"]
            mine.append({"sale": sale["id"], "lot": lot["id"], "symbol": sale["symbol"], "shares": take,
                         "acquired": lot["start"], "sold": sale["date"], "proceeds": rnd(sale["net"] * take / sale["shares"], 2),
                         "basis": rnd(cost, 2), "code": "", "adjustment": 0.0})
            lot["basis"] -= cost
            lot["shares"] -= take
            left -= take
        sold_from = {m["lot"] for m in mine}
        for m in mine:
            loss = m["basis"] - m["proceeds"]
            if "wash" in naive or loss <= 0:
                continue
            need = m["shares"]
            for rep in sorted(lots, key=lambda x: (x["date"], x["id"])):
                window = abs((rep["date"] - sale["date"]).days) <= 30
                if "january" in naive and rep["date"] > year_end:
                    window = False
                free = rep["shares"] - replaced.get(rep["id"], 0.0)
                if need <= 1e-9 or not window or not rep["bought"] or rep["symbol"] != sale["symbol"] \
                        or rep["id"] in sold_from or free <= 1e-9:
                    continue
                use = min(need, free)
                disallowed = rnd(loss * use / m["shares"], 2)
                m["code"], m["adjustment"] = "W", rnd(m["adjustment"] + disallowed, 2)
                rep["basis"] += disallowed
                rep["start"] = rep["date"] - (sale["date"] - m["acquired"])  # the sold shares' holding period tacked on
                replaced[rep["id"]] = replaced.get(rep["id"], 0.0) + use
                need -= use
        rows += mine
    rows = [r for r in rows if r["sold"].year == P["year"]]
    for r in rows:
        r["gain"] = rnd(r["proceeds"] - r["basis"] + r["adjustment"], 2) + 0.0  # no "-0.00"
        r["term"] = "long" if r["sold"] > anniversary(r["acquired"]) else "short"
        r["acquired"], r["sold"] = r["acquired"].isoformat(), r["sold"].isoformat()
    st = rnd(sum(r["gain"] for r in rows if r["term"] == "short"), 2)
    lt = rnd(sum(r["gain"] for r in rows if r["term"] == "long"), 2)
    carry = next((x for x in lots if x["id"] == P["carry_lot"]), None)
    net = rnd(st + lt, 2)
    return {"rows": rows, "proceeds": rnd(sum(r["proceeds"] for r in rows), 2),
            "basis": rnd(sum(r["basis"] for r in rows), 2), "st": st, "lt": lt, "net": net,
            "disallowed": rnd(sum(r["adjustment"] for r in rows), 2),
            "carry_basis": rnd(carry["basis"], 2) if carry else 0.0,
            "decision": bool(net <= P["target_net"]), "premise": bool(lt <= P["cpa_lt"])}


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['proceeds']}: {facts['proceeds']:.2f}", f"{L['disallowed']}: {facts['disallowed']:.2f}",
            f"{L['carry']}: {facts['carry_basis']:.2f}", f"{L['st']}: {facts['st']:.2f}", f"{L['lt']}: {facts['lt']:.2f}",
            f"{L['net']}: {facts['net']:.2f}", f"{L['decision']}: {yes_no(facts['decision'])}",
            f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, C = P["deliverables"], P["columns"]
    order = ("sale", "lot", "description", "acquired", "sold", "proceeds", "basis", "code", "adjustment", "gain", "term")
    rows = [[r["sale"], r["lot"], f"{r['shares']:g} sh {r['symbol']}", r["acquired"], r["sold"],
             *(f"{r[k]:.2f}" for k in ("proceeds", "basis")), r["code"],
             *(f"{r[k]:.2f}" for k in ("adjustment", "gain")), r["term"]] for r in facts["rows"]]
    write_table(os.path.join(output_dir, D["schedule"]), [C[k] for k in order], rows)
    write_memo(os.path.join(output_dir, D["memo"]), _memo_lines(P, facts) + [
        "", "Method - lots relieved first in, first out after the revocation of the old election, except the sale the "
        "specific-identification letter names; split lots carry more shares at the same total basis; commissions in "
        "basis and out of proceeds; wash-sale losses disallowed share for share and carried with the holding period "
        "into the replacement lot, including purchases in January."])
