"""Year-end realised gain/loss report with wash sales, as a Form 8949 lot schedule (securities sales agents).

One client account and tax year (2024 or 2025); six generated tickers, prices log-uniform 20-180 USD, lots of 50-600
shares in tens, a commission of 4.95-19.95 USD on every trade. Five planted positions:
a loss sale in 3-20 December replaced in part (30-80 % of the shares) by a purchase 1-30 days later in January;
a short-term loss sale in February-May replaced share for share 2-28 days later and the replacement sold in
mid-November to mid-December, long term only with the sold shares' holding period tacked on; two lots of a ticker
that splits 2-, 3- or 4-for-1 between April and August, sold after the split across both lots; three lots of a
ticker whose middle (highest-cost) lot a specific-identification letter names for one sale; and a lot transferred
in (ACATS) during the prior year whose basis and acquisition date (3-5 years earlier) come from the delivering
firm's statement. An archived election of LIFO was revoked by a later letter (FIFO). The client's net target and
the CPA's long-term estimate sit 300-1,500 USD from the true figures, on the targeted side.

Failure behaviour: ``draw`` raises DegenerateTask when a date lands within ten days of a holding-period boundary
or a shortcut leaves every graded fact unchanged; ``recheck`` raises OSError, KeyError or ValueError on a folder
that is not this workflow's (``recheck_task`` reports that as one problem).
"""

from __future__ import annotations

import datetime as dt
import math
import random
from pathlib import Path
from typing import Any

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, rnd, rubric, tol
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, day, iso, pick_labels, place_away, read_rows, write_files

__all__ = ["WASH_SALE_8949"]

_TICKERS = ("ALDR", "BRXT", "CVNL", "DMTR", "ELVX", "FNRG", "GLPH", "HRZN", "KSTL", "MRDN", "NOVQ", "PLTX", "QRSN",
            "TRVA", "VYNE", "ZEPH")
_FIRMS = ("Harbor Point Securities", "Larkspur Brokerage", "Northgate Investor Services", "Crescent Ridge Capital")
_COMMISSIONS = (4.95, 6.95, 7.99, 9.95, 12.50, 14.95, 19.95)
_LABELS = {
    "proceeds": ("Total proceeds reported", "Gross proceeds, all lots", "Sales proceeds, all lots"),
    "disallowed": ("Wash-sale loss disallowed", "Disallowed loss (code W)", "Losses deferred by wash sales"),
    "carry": ("Basis of the {w1} shares bought in January {next}", "{w1} January {next} lot, cost basis now",
              "Cost basis carried for the {w1} January purchase"),
    "st": ("Short-term net gain or loss", "Net short-term result", "Short-term total (Part I)"),
    "lt": ("Long-term net gain or loss", "Net long-term result", "Long-term total (Part II)"),
    "net": ("Net realised gain or loss for the year", "Overall net capital result", "Net realised result"),
    "decision": ("Harvesting target met", "Client's loss-harvesting goal achieved", "Tax-loss target reached"),
    "premise": ("Long-term within the CPA's estimate", "CPA's long-term figure holds", "Long-term at or under the CPA estimate"),
}
_ORDER = ("sale", "lot", "description", "acquired", "sold", "proceeds", "basis", "code", "adjustment", "gain", "term")
_COLUMNS = ("sale_trade lot_trade description date_acquired date_sold proceeds cost_basis code adjustment gain_or_loss term",
            "closing_trade_id opening_trade_id security acquired sold proceeds_d basis_e code_f adjustment_g gain_loss_h "
            "holding_period",
            "sell_ref open_ref desc acq_date sale_date net_proceeds adj_basis adj_code adj_amount realised st_lt")
_TRAPS = (("stock_split", "data", "split", "{sp} split {ratio}-for-1 before the sale; the lots bought earlier carry more "
           "shares at the same total basis"),
          ("superseded_election", "memo", "election", "the archived LIFO election was revoked by a later letter (FIFO)"),
          ("specific_identification", "memo", "specid", "a letter names the lot {lot} for the {si} sale"),
          ("wash_sale", "data", "wash", "{w2} and {w1} losses were replaced within 30 days"),
          ("year_end_window", "data", "january", "the {w1} replacement was bought in January {next}"),
          ("commissions", "data", "commission", "commissions add to basis and reduce proceeds"),
          ("transfer_basis", "data", "transfer", "the {tr} lot's basis and date come from {firm}'s statement"))


def _anniversary(d: dt.date) -> dt.date:
    return dt.date(d.year + 1, 3, 1) if (d.month, d.day) == (2, 29) else d.replace(year=d.year + 1)


# ---- the independent computation: csv and openpyxl only ---------------------------------------------------

def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact, replayed trade by trade from the confirmations: a split multiplies the shares held when
    its ex-date passes, each sale relieves lots by the letter in force, and each loss lot takes purchases of the
    same ticker within 30 calendar days either side as replacements (the year end is no boundary); an adjustment
    for a purchase not yet made waits for it."""
    folder, F = Path(folder), P["files"]
    trades = sorted(read_rows(folder / F["confirms"]), key=lambda r: (r["trade_date"], r["trade_id"]))
    statement = {r["transfer_id"]: r for r in read_rows(folder / F["transfer"], P["transfer_sheet"])}
    splits = [(r["symbol"], dt.date.fromisoformat(r["ex_date"][:10]), float(r["new_shares"]) / float(r["old_shares"]))
              for r in read_rows(folder / F["actions"], P["actions_sheet"]) if "SPLIT" in r["action"].upper()]
    buys = [r for r in trades if r["action"] == "BUY"]
    held: dict[str, list[dict[str, Any]]] = {}  # symbol -> open lots in purchase order
    every: dict[str, dict[str, Any]] = {}
    used: dict[str, float] = {}
    waiting: dict[str, tuple[float, dt.date]] = {}  # buy id -> (basis to add, holding-period start)
    sold: list[dict[str, Any]] = []
    applied: set[tuple[str, dt.date]] = set()
    for t in trades:
        day = dt.date.fromisoformat(t["trade_date"])
        for sym, ex, ratio in splits:
            if day >= ex and (sym, ex) not in applied:
                applied.add((sym, ex))
                for lot in held.get(sym, []):
                    lot["n"] *= ratio
        n, px, fee = float(t["quantity"]), float(t["price"]), float(t["commission"] or 0)
        if t["action"] in ("BUY", "RECEIVE"):
            lot = {"id": t["trade_id"], "n": n, "cost": n * px + fee, "start": day}
            if t["action"] == "RECEIVE":
                s = statement[t["trade_id"]]
                lot.update(cost=float(s["cost_basis"]), start=dt.date.fromisoformat(s["date_acquired"][:10]))
            if t["trade_id"] in waiting:
                extra, start = waiting.pop(t["trade_id"])
                lot.update(cost=lot["cost"] + extra, start=start)
            held.setdefault(t["symbol"], []).append(lot)
            every[lot["id"]] = lot
        if t["action"] != "SELL":
            continue
        queue = [x for x in held[t["symbol"]] if x["n"] > 1e-9]
        if t["trade_id"] in P["spec_id"]:
            queue = [x for x in queue if x["id"] in P["spec_id"][t["trade_id"]]]
        elif P["method"] == "LIFO":
            queue.reverse()
        rest, mine = n, []
        for lot in queue:
            k = min(rest, lot["n"])
            if k <= 1e-9:
                break
            part = lot["cost"] * k / lot["n"]
            lot["cost"], lot["n"], rest = lot["cost"] - part, lot["n"] - k, rest - k
            mine.append({"sale": t["trade_id"], "lot": lot["id"], "n": k, "start": lot["start"], "sold": day,
                         "proceeds": rnd((n * px - fee) * k / n, 2), "basis": rnd(part, 2), "adj": 0.0})
        gone = {m["lot"] for m in mine}
        for m in mine:
            loss, want = m["basis"] - m["proceeds"], m["n"]
            for b in buys:
                bday = dt.date.fromisoformat(b["trade_date"])
                free = float(b["quantity"]) - used.get(b["trade_id"], 0.0)
                if loss <= 0 or want <= 1e-9 or b["symbol"] != t["symbol"] or abs((bday - day).days) > 30 \
                        or free <= 1e-9 or b["trade_id"] in gone:
                    continue
                k = min(want, free)
                extra, start = rnd(loss * k / m["n"], 2), bday - (day - m["start"])
                m["adj"] = rnd(m["adj"] + extra, 2)
                used[b["trade_id"]], want = used.get(b["trade_id"], 0.0) + k, want - k
                if b["trade_id"] in every:
                    every[b["trade_id"]].update(cost=every[b["trade_id"]]["cost"] + extra, start=start)
                else:
                    waiting[b["trade_id"]] = (extra, start)
        sold += mine
    rows = [dict(m, gain=rnd(m["proceeds"] - m["basis"] + m["adj"], 2) + 0.0,
                 term="long" if m["sold"] > _anniversary(m["start"]) else "short")
            for m in sold if m["sold"].year == P["year"]]
    st = rnd(sum(r["gain"] for r in rows if r["term"] == "short"), 2)
    lt = rnd(sum(r["gain"] for r in rows if r["term"] == "long"), 2)
    net = rnd(st + lt, 2)
    return {"rows": [{"sale": r["sale"], "lot": r["lot"], "proceeds": r["proceeds"], "basis": r["basis"],
                      "code": "W" if r["adj"] else "", "adjustment": r["adj"], "gain": r["gain"], "term": r["term"]}
                     for r in rows],
            "proceeds": rnd(sum(r["proceeds"] for r in rows), 2), "st": st, "lt": lt, "net": net,
            "disallowed": rnd(sum(r["adj"] for r in rows), 2),
            "carry_basis": rnd(every[P["carry_lot"]]["cost"], 2) if P["carry_lot"] in every else 0.0,
            "decision": net <= P["target_net"], "premise": lt <= P["cpa_lt"]}


# ---- drawing a task ---------------------------------------------------------------------------------------

def _date(rng: random.Random, lo: dt.date, hi: dt.date) -> dt.date:
    """A trading day (Monday to Friday, never 29 February) in [lo, hi]; lo itself when there is none."""
    days = [lo + dt.timedelta(days=k) for k in range((hi - lo).days + 1)]
    days = [d for d in days if d.weekday() < 5 and (d.month, d.day) != (2, 29)]
    return rng.choice(days) if days else lo


def _settle(d: dt.date) -> dt.date:
    """T+1 from 28 May 2024, T+2 before, counted in weekdays."""
    for _ in range(1 if d >= dt.date(2024, 5, 28) else 2):
        d += dt.timedelta(days=3 if d.weekday() == 4 else 2 if d.weekday() == 5 else 1)
    return d


def _book(rng: random.Random, year: int) -> dict[str, Any]:
    """The account's trades: five planted positions and a ticker only bought (see the module docstring)."""
    w1, w2, sp, si, tr, dx = rng.sample(_TICKERS, 6)
    D = dt.date
    trades: list[dict[str, Any]] = []

    def trade(sym: str, action: str, day: dt.date, n: float, price: float, fee: bool = True) -> str:
        trades.append({"symbol": sym, "action": action, "date": day, "n": n, "price": round(price, 2),
                       "fee": rng.choice(_COMMISSIONS) if fee else 0.0})
        return f"#{len(trades) - 1}"

    def px() -> float:
        return math.exp(rng.uniform(math.log(20), math.log(180)))

    def qty(lo: int = 5, hi: int = 60) -> int:
        return rng.randint(lo, hi) * 10

    # a December loss replaced in part by a January purchase
    p, n = px(), qty()
    b1 = trade(w1, "BUY", _date(rng, D(year - 1, 2, 1), D(year, 6, 30)), n, p)
    s1_day = _date(rng, D(year, 12, 3), D(year, 12, 20))
    s1 = trade(w1, "SELL", s1_day, n, p * rng.uniform(0.6, 0.85))
    r1_day = _date(rng, D(year + 1, 1, 2), s1_day + dt.timedelta(days=30))
    r1 = trade(w1, "BUY", r1_day, max(10, round(n * rng.uniform(0.3, 0.8), -1)), p * rng.uniform(0.6, 0.85))
    # a short-term loss replaced share for share, the replacement sold long term by tacking
    p, n = px(), qty()
    s2_day = _date(rng, D(year, 2, 1), D(year, 5, 31))
    r2_day = _date(rng, s2_day + dt.timedelta(days=2), s2_day + dt.timedelta(days=28))
    s3_day = _date(rng, D(year, 11, 15), D(year, 12, 18))
    held = rng.randint(max(150, 386 - (s3_day - r2_day).days), 340)
    a2 = trade(w2, "BUY", _date(rng, s2_day - dt.timedelta(days=held + 3), s2_day - dt.timedelta(days=held)), n, p)
    sale_px = p * rng.uniform(0.7, 0.9)
    s2 = trade(w2, "SELL", s2_day, n, sale_px)
    r2 = trade(w2, "BUY", r2_day, n, sale_px * rng.uniform(0.97, 1.03))
    s3 = trade(w2, "SELL", s3_day, n, sale_px * rng.uniform(1.1, 1.4))
    # two lots before a forward split, sold after it across both
    ratio = rng.choice((2, 3, 4))
    ex = _date(rng, D(year, 4, 1), D(year, 8, 28))
    p, na, nb = px() * ratio, qty(), qty()
    la = trade(sp, "BUY", _date(rng, D(year - 1, 1, 10), D(year - 1, 11, 30)), na, p)
    lb = trade(sp, "BUY", _date(rng, D(year, 1, 5), ex - dt.timedelta(days=40)), nb, p * rng.uniform(0.9, 1.2))
    q = ratio * na + round(ratio * nb * rng.uniform(0.3, 0.7), -1)
    s4 = trade(sp, "SELL", _date(rng, ex + dt.timedelta(days=20), D(year, 12, 15)), q, p / ratio * rng.uniform(1.1, 1.5))
    # three lots; the letter names the middle, highest-cost one
    p = px()
    l1 = trade(si, "BUY", _date(rng, D(year - 2, 1, 10), D(year - 2, 12, 15)), qty(), p)
    n2 = qty()
    l2 = trade(si, "BUY", _date(rng, D(year - 1, 1, 10), D(year - 1, 12, 15)), n2, p * rng.uniform(1.3, 1.6))
    l3_day = _date(rng, D(year, 1, 5), D(year, 5, 15))
    l3 = trade(si, "BUY", l3_day, qty(), p * rng.uniform(1.05, 1.25))
    s5_day = _date(rng, l3_day + dt.timedelta(days=45), D(year, 11, 30))
    s5 = trade(si, "SELL", s5_day, n2, p * rng.uniform(1.0, 1.2))
    # a lot transferred in last year, bought years earlier at the delivering firm
    p, n = px(), qty()
    t_day = _date(rng, D(year - 1, 3, 1), D(year - 1, 12, 10))
    fmv = p * rng.uniform(1.4, 2.2)
    tr_id = trade(tr, "RECEIVE", t_day, n, fmv, fee=False)
    s6 = trade(tr, "SELL", _date(rng, max(D(year, 1, 15), t_day + dt.timedelta(days=20)), t_day + dt.timedelta(days=340)),
               n, fmv * rng.uniform(0.9, 1.3))
    acquired = _date(rng, D(year - 5, 1, 10), D(year - 3, 12, 10))
    basis = rnd(n * p + rng.choice(_COMMISSIONS), 2)
    for _ in range(2):  # bought and still held
        trade(dx, "BUY", _date(rng, D(year, 1, 5), D(year, 12, 20)), qty(), px())
    order = sorted(range(len(trades)), key=lambda k: (trades[k]["date"], k))
    ids: dict[str, str] = {}
    serial = rng.randint(3_100_000, 3_800_000)
    for k in order:
        serial += rng.randint(7, 400)
        ids[f"#{k}"] = f"ACAT{serial}" if trades[k]["action"] == "RECEIVE" else f"C{serial}"
        trades[k]["id"] = ids[f"#{k}"]
    pick = {name: ids[v] for name, v in dict(b1=b1, s1=s1, r1=r1, a2=a2, s2=s2, r2=r2, s3=s3, la=la, lb=lb, s4=s4,
                                              l1=l1, l2=l2, l3=l3, s5=s5, tr=tr_id, s6=s6).items()}
    return {"trades": [trades[k] for k in order], "ids": pick, "tickers": dict(w1=w1, w2=w2, sp=sp, si=si, tr=tr, dx=dx),
            "ratio": ratio, "ex": ex, "acquired": acquired, "basis": basis, "t_day": t_day, "s5_day": s5_day}


def _data(P: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    F, T, firm = P["files"], b["tickers"], P["delivering_firm"]
    return {
        F["confirms"]: lambda p: write_csv(p, ["trade_id", "trade_date", "settle_date", "symbol", "action", "quantity",
                                               "price", "commission", "net_amount", "note"], [
            [t["id"], iso(t["date"]), iso(_settle(t["date"])), t["symbol"],
             t["action"], f"{t['n']:g}", f"{t['price']:.2f}", f"{t['fee']:.2f}",
             f"{t['n'] * t['price'] + (t['fee'] if t['action'] == 'BUY' else -t['fee']):.2f}",
             f"ACATS from {firm}; price is market value on receipt" if t["action"] == "RECEIVE" else ""]
            for t in b["trades"]]),
        F["actions"]: lambda p: write_xlsx(p, [(P["actions_sheet"], ["symbol", "action", "ex_date", "new_shares",
                                                                     "old_shares", "cash_rate"], [
            [T["sp"], "FORWARD SPLIT", iso(b["ex"]), b["ratio"], 1, ""],
            [T["dx"], "CASH DIVIDEND", iso(dt.date(P["year"], 9, 15)), "", "", 0.24],
            [T["si"], "CASH DIVIDEND", iso(dt.date(P["year"], 6, 12)), "", "", 0.41]])]),
        F["transfer"]: lambda p: write_xlsx(p, [(P["transfer_sheet"], ["transfer_id", "symbol", "quantity",
                                                                       "date_acquired", "cost_basis", "covered"], [
            [b["ids"]["tr"], T["tr"], next(t["n"] for t in b["trades"] if t["id"] == b["ids"]["tr"]), iso(b["acquired"]),
             b["basis"], "Y"]])]),
    }


def _threshold(rng: random.Random, value: float, above: bool) -> float:
    """A round figure 300-1,500 USD above (or below) ``value``."""
    x = round(value + (1 if above else -1) * rng.uniform(300, 1500), -2)
    if not place_away(x, [value], 2) or (x >= value) != above:
        raise DegenerateTask("the threshold sits on the figure")
    return x


def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    import tempfile

    from ..solvers.washsale import analyse

    prof = profession(occupation)
    year = rng.choice((2024, 2025))
    b = _book(rng, year)
    ids = b["ids"]
    firm = rng.choice(_FIRMS)
    P: dict[str, Any] = {
        "files": {"confirms": rng.choice(("confirms", "trade_blotter")) + f"/confirmations_{year - 2}_{year + 1}.csv",
                  "actions": f"statements/corporate_actions_{year}.xlsx",
                  "transfer": f"transfers/{firm.split()[0].lower()}_acats_cost_basis.xlsx"},
        "actions_sheet": "Actions", "transfer_sheet": rng.choice(("Cost basis", "Lots delivered")),
        "year": year, "method": "FIFO", "old_method": "LIFO", "spec_id": {ids["s5"]: [ids["l2"]]}, "carry_lot": ids["r1"],
        "delivering_firm": firm, "target_net": 0.0, "cpa_lt": 0.0, "labels": {}, "probe": dict(ids),
        "columns": dict(zip(_ORDER, rng.choice(_COLUMNS).split(), strict=True)),
        "deliverables": {"schedule": rng.choice((f"form8949_lots_{year}.csv", f"realised_gl_{year}.csv",
                                                 "lot_schedule.csv")),
                         "memo": rng.choice(("advisor_memo.md", f"gain_loss_memo_{year}.docx", "year_end_note.md"))}}
    keys = ("proceeds", "st", "lt", "net", "disallowed", "carry_basis")
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), _data(P, b))
        truth = analyse(tmp, P)
        singles = {k: analyse(tmp, P, (k,)) for k in ("commission", "split", "election", "specid", "wash", "january",
                                                      "transfer")}
    for r in truth["rows"]:
        if abs((day(r["sold"]) - _anniversary(day(r["acquired"]))).days) <= 10:
            raise DegenerateTask("a lot is sold within ten days of its one-year mark")
    for k, nf in singles.items():
        if all(nf[x] == truth[x] for x in keys) and [(r["lot"], r["basis"], r["term"]) for r in nf["rows"]] == \
                [(r["lot"], r["basis"], r["term"]) for r in truth["rows"]]:
            raise DegenerateTask(f"the shortcut {k} changes nothing")
    P["target_net"] = _threshold(rng, truth["net"], targets["decision"])
    P["cpa_lt"] = _threshold(rng, truth["lt"], targets["premise"])
    T = b["tickers"]
    P["labels"] = pick_labels(rng, _LABELS)
    P["labels"]["carry"] = P["labels"]["carry"].format(w1=T["w1"], next=year + 1)
    fill = dict(T, ratio=b["ratio"], lot=ids["l2"], next=year + 1, firm=firm)
    traps = [{"kind": k, "where": w, "naive": n, "description": d.format(**fill)} for k, w, n, d in _TRAPS]
    writers, roles = _workspace(rng, P, b)
    return Draft(subject=f"Realised gain/loss report {year} with wash sales", instructions=_prompt(rng, prof, P, b, writers),
                 files=writers, roles=roles, params=P, traps=traps, targets=dict(targets),
                 distributions="prices log-uniform 20-180 USD; lots 50-600 shares; commission 4.95-19.95; December "
                               "loss replaced 30-80 % in January; split 2-4 for 1; targets 300-1,500 USD from the "
                               "true figures")


def _procedure(year: int) -> list[str]:
    return [
        f"Desk procedure GL-7: year-end realised gain/loss schedule (revised for tax year {year})",
        "- One row per lot relieved by each sale settled in the tax year, as on Form 8949: (d) proceeds, (e) cost "
        "basis, (f) code, (g) adjustment, (h) gain or loss = (d) - (e) + (g).",
        "- Proceeds are the sale's quantity times price less its commission; a sale that relieves several lots "
        "shares the commission among them in proportion to shares. Cost basis is the purchase price times shares "
        "plus the purchase commission, relieved in proportion to shares.",
        "- Lots are relieved by the method the account has elected in writing; the firm's default is first in, "
        "first out. A specific-identification instruction received on or before the trade date governs that sale.",
        "- Forward splits: lots held before the ex-date carry the new number of shares at the same total basis "
        "(a lower basis per share); the holding period does not change.",
        "- Transferred-in lots: basis and acquisition date are those on the delivering firm's cost-basis "
        "statement, not the market value on receipt.",
        "- Holding period: long term when the lot was held more than one year (sold after the same calendar date "
        "a year after acquisition), otherwise short term.",
        "- Wash sales (IRC section 1091): a loss on a lot is disallowed when shares of the same security were bought "
        "within 30 calendar days before or after the sale, the year end notwithstanding (a purchase in January counts "
        "for a December sale). The shares bought in the sale itself do not count. Disallow share for share: the loss "
        "times replacement shares / shares sold, taking replacement purchases in date order, each share once. Report "
        "code W and the disallowed amount as a positive adjustment. Add it to the replacement lot's basis and start "
        "that lot's holding period earlier by the days the sold shares were held.",
        "- Amounts in US dollars rounded half up to the cent, per row; totals are the sum of the rows.",
    ]


def _workspace(rng: random.Random, P: dict[str, Any], b: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The account's letters, the desk procedure (current and archived), notices, e-mails and distractors."""
    year, T, ids, firm = P["year"], b["tickers"], b["ids"], P["delivering_firm"]
    client, cpa = person(rng), person(rng)
    old = dt.date(year - 4, rng.randint(1, 12), rng.randint(1, 28))
    new = dt.date(year - 1, rng.randint(1, 11), rng.randint(1, 28))
    spec_day = b["s5_day"] - dt.timedelta(days=rng.randint(0, 3))
    notes = meeting_notes(rng, topic="1099-B season", people=[person(rng) for _ in range(3)], date=f"{year + 1}-01-15")
    paid = [f"{rng.uniform(80, 400):.2f}", f"{rng.uniform(40, 300):.2f}"]
    docs: list[tuple[str, str, str, list[str]]] = [  # (path, role, title, paragraphs)
        (f"account/archive/cost_basis_election_{iso(old)}.pdf", "stale", "Cost basis method election", [
            f"Date: {iso(old)}", f"Account holder: {client}", "I elect last in, first out (LIFO) as the lot relief "
            "method for all equity sales in this account until I revoke this election in writing."]),
        (f"account/cost_basis_method_change_{iso(new)}.docx", "policy", "Revocation of cost basis election", [
            f"Date: {iso(new)}", f"Account holder: {client}", f"I revoke my election of {iso(old)}. From 1 January "
            f"{year} this account uses the firm's default lot relief method, first in, first out (FIFO)."]),
        (f"account/specific_id_instruction_{iso(spec_day)}.pdf", "policy", "Specific identification instruction", [
            f"Date: {iso(spec_day)}", f"Account holder: {client}", f"For my sale of {T['si']} on or after this date, "
            f"please sell the shares from the lot bought under trade {ids['l2']} and no other."]),
        (f"procedures/gl7_realised_gain_loss_{year}.docx", "policy", "Desk procedure GL-7", _procedure(year)),
        (f"procedures/archive/gl7_realised_gain_loss_{year - 3}.pdf", "stale", "Desk procedure GL-7 (superseded)", [
            "Report each sale at quantity times price; commissions are expensed separately, not added to basis.",
            "Lots are relieved last in, first out where the client has so elected.",
            "Wash sales are reviewed within the tax year only."]),
        (f"statements/{T['sp'].lower()}_split_notice.pdf", "data", f"{T['sp']} stock split", [
            f"The board declared a {b['ratio']}-for-1 forward split of {T['sp']} common stock. Shares trade "
            f"split-adjusted from the ex-date {iso(b['ex'])}. Holders of record receive {b['ratio'] - 1} additional "
            "share(s) for each share held; confirmations before the ex-date are not restated."]),
        (f"transfers/{firm.split()[0].lower()}_transfer_letter.pdf", "data", f"{firm}: account transfer", [
            f"The {T['tr']} position was delivered by ACATS on {iso(b['t_day'])}.", "Cost basis and acquisition "
            "dates are reported on the attached statement (covered securities)."]),
        (f"research/{T['dx'].lower()}_rating_note.pdf", "distractor", f"{T['dx']} equity note", [
            "We keep our rating; the valuation discount to peers persists.", "Price target unchanged."]),
        ("compliance/annual_suitability_review.docx", "distractor", "Suitability review", [
            f"Client {client}: moderate risk profile, objectives unchanged.", "No exceptions noted."])]
    texts = [(f"correspondence/{year + 1}-01-28_client_target.txt", "email", email_text(
                sender=client, to="advisor desk", date=f"{year + 1}-01-28", subject=f"{year} taxes",
                body=_target_text(P["target_net"]) + " Please confirm whether the sales in December got me there.")),
             (f"correspondence/{year + 1}-02-02_cpa.txt", "email", email_text(
                sender=f"{cpa}, CPA", to="advisor desk", date=f"{year + 1}-02-02", subject=f"{client} - {year}",
                body=f"For the estimate I am assuming long-term gains of no more than {P['cpa_lt']:,.2f} USD this year.")),
             (f"meetings/{year + 1}-01-15_desk.md", "distractor", notes)]
    w: dict[str, Any] = dict(_data(P, b))
    roles = {k: "data" for k in w}
    for path, role, title, paras in docs:
        writer = write_pdf if path.endswith(".pdf") else write_docx
        w[path], roles[path] = (lambda p, f=writer, t=title, x=paras: f(p, t, x)), role
    for path, role, text in texts:
        w[path], roles[path] = (lambda p, x=text: write_text(p, x)), role
    w[f"statements/dividends_{year}.csv"] = lambda p: write_csv(p, ["pay_date", "symbol", "amount"], [
        [f"{year}-06-28", T["si"], paid[0]], [f"{year}-09-30", T["dx"], paid[1]]])
    roles[f"statements/dividends_{year}.csv"] = "distractor"
    return w, roles


def _target_text(target: float) -> str:
    if target < 0:
        return f"My goal for the year was a net capital loss of at least {-target:,.2f} USD after everything."
    return f"My goal for the year was to keep net realised gains to no more than {target:,.2f} USD."


def _prompt(rng: random.Random, prof: Any, P: dict[str, Any], b: dict[str, Any], writers: dict[str, Any]) -> str:
    L, D, C, year = P["labels"], P["deliverables"], P["columns"], P["year"]
    money = "US dollars, 2 decimals"
    labels = [(L["proceeds"], money), (L["disallowed"], money), (L["carry"], money),
              (L["st"], money + ", negative for a loss"), (L["lt"], money + ", negative for a loss"),
              (L["net"], money + ", negative for a loss"), (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    return instructions(
        rng, prof=prof, requester=person(rng), role="Financial Advisor", org=rng.choice(prof.orgs),
        subject=f"{year} realised gains and losses for the client",
        purpose=rng.choice((f"please build the client's {year} realised gain/loss schedule from the confirmations.",
                            f"I need the {year} Form 8949 lot schedule and totals for the client's account.")),
        about=f"the trade confirmations ({year - 2} to January {year + 1}), the corporate actions and the transfer "
              "paperwork",
        belief="The client's CPA has pencilled in a long-term figure; tell me whether ours is within it.",
        table={"file": D["schedule"], "headers": [C[k] for k in _ORDER],
               "unit": f"lot relieved by a sale in {year} (dates as YYYY-MM-DD; code W or blank; term short or long; "
                       f"amounts in US dollars, 2 decimals; {C['sale']} and {C['lot']} are trade ids)"},
        memo_file=D["memo"], memo_labels=labels, extra_deliverables=(),
        policy="the desk procedure in procedures/ and the client's letters in account/", files=sorted(writers))


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, RowCountCheck

    L, D, C, ids = P["labels"], P["deliverables"], P["columns"], P["probe"]
    sched, memo = D["schedule"], D["memo"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731
    rows = {(r["sale"], r["lot"]): r for r in facts["rows"]}

    def cell(sale: str, lot: str, key: str) -> tuple[str, Any]:
        v = rows.get((ids[sale], ids[lot]), {}).get(key)
        if v is None:
            raise DegenerateTask(f"no row for lot {ids[lot]} in sale {ids[sale]}")
        if isinstance(v, str):
            return (f"{sched}: sale {ids[sale]}, lot {ids[lot]} {C[key]} is {v or 'blank'}",
                    CellCheck(file=sched, match={C["sale"]: ids[sale], C["lot"]: ids[lot]}, column=C[key], value=v))
        return (f"{sched}: sale {ids[sale]}, lot {ids[lot]} {C[key]} = {v:.2f}",
                CellCheck(file=sched, match={C["sale"]: ids[sale], C["lot"]: ids[lot]}, column=C[key], value=float(v),
                          tolerance=tol(2)))

    def count(sale: str) -> tuple[str, Any]:
        n = sum(r["sale"] == ids[sale] for r in facts["rows"])
        return (f"{sched} has {n} rows for sale {ids[sale]}",
                RowCountCheck(file=sched, key=C["sale"], where={C["sale"]: ids[sale]}, count=n))

    def money(k: str, fact: str = "") -> tuple[str, Any]:
        v = facts[fact or k]
        return f"{L[k]} = {v:.2f}", fld_num(memo, L[k], v, 2)

    out = [
        rubric("Restates the lots bought before the split (shares up, basis per share down)", 10,
               [cell("s4", "la", "basis"), cell("s4", "lb", "basis"), count("s4")]),
        rubric("Relieves the named lot under the specific-identification letter", 8,
               [cell("s5", "l2", "basis"), cell("s5", "l2", "gain"), count("s5")]),
        rubric("Applies the wash-sale rule to the December loss replaced in January", 10,
               [cell("s1", "b1", "adjustment"), cell("s1", "b1", "code"), money("disallowed"),
                money("carry", "carry_basis")]),
        rubric("Carries the disallowed loss and the holding period into the replacement lot", 10,
               [cell("s2", "a2", "adjustment"), cell("s3", "r2", "basis"), cell("s3", "r2", "term")]),
        rubric("Takes the transferred lot's basis and date from the delivering firm's statement", 8,
               [cell("s6", "tr", "basis"), cell("s6", "tr", "term")]),
        rubric("Nets commissions out of proceeds and into basis", 8, [cell("s6", "tr", "proceeds"), money("proceeds"),
                                                                      cell("s5", "l2", "proceeds")]),
        rubric("Totals short-term and long-term results as Form 8949 does", 10, [money("st"), money("lt")]),
        rubric("Answers the client's harvesting target from the net after wash sales", 8, [
            money("net"), (f"{L['decision']}: {yes(facts['decision'])}",
                           fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"]))]),
        rubric("Tests the CPA's long-term estimate", 6, [
            money("lt"), (f"{L['premise']}: {yes(facts['premise'])}",
                          fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"]))]),
    ]
    if judgement:
        out.append(rubric("Explains the report to the advisor", 6, [
            ("Says which losses are disallowed as wash sales, including the January purchase, and where the "
             "disallowed loss went", llm("explanation")),
            ("Names the lot method used and why the old election and the letter matter", llm("explanation")),
            ("States the totals and whether the client's target was met, plainly", llm("writing"))]))
    return out


WASH_SALE_8949 = Workflow(
    key="wash_sale_8949", family="realised_gain_loss", method="Form 8949 lot relief (FIFO, specific ID), split "
    "adjustment, wash-sale disallowance with basis and holding-period carryover",
    professions=("sales_agents_securities_and_commodities",), solver="washsale",
    shortcuts=("commission", "split", "election", "specid", "wash", "january", "transfer"), draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated brokerage account (stated distributions)")
