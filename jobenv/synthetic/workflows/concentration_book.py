"""The drawn book of a branch for the concentration review (see ``concentration.py``): the security master, households
with their accounts, month-end positions, the Reg BI profile log and the month's trades, with the traps planted on
households of their own.

Failure behaviour: ``book`` raises DegenerateTask when a planted household misses what it was drawn for.
"""

from __future__ import annotations

import calendar
import datetime as dt
import random
from typing import Any

from ..common import DegenerateTask
from ..compose import person

__all__ = ["SECURITIES", "TOLERANCES", "LIMITS", "Book", "book"]

TOLERANCES = ("Conservative", "Moderate", "Growth", "Aggressive")
LIMITS = {"Conservative": {"issuer": 10, "sector": 25, "risk": 2}, "Moderate": {"issuer": 15, "sector": 35, "risk": 3},
          "Growth": {"issuer": 20, "sector": 40, "risk": 4}, "Aggressive": {"issuer": 25, "sector": 50, "risk": 5}}
_IT, _HC, _FIN, _CD, _COM = "Information Technology", "Health Care", "Financials", "Consumer Discretionary", \
    "Communication Services"
_IND, _CS, _EN, _UT, _RE, _MAT = "Industrials", "Consumer Staples", "Energy", "Utilities", "Real Estate", "Materials"
# symbol, issuer key, issuer name, description, asset type, sector, product risk, price
SECURITIES = [
    ("AAPL", "apple", "Apple Inc.", "APPLE INC", "Common Stock", _IT, 3, 212.4),
    ("MSFT", "msft", "Microsoft Corp.", "MICROSOFT CORP", "Common Stock", _IT, 3, 441.1),
    ("NVDA", "nvda", "NVIDIA Corp.", "NVIDIA CORP", "Common Stock", _IT, 4, 128.6),
    ("AVGO", "avgo", "Broadcom Inc.", "BROADCOM INC", "Common Stock", _IT, 3, 171.3),
    ("ORCL", "orcl", "Oracle Corp.", "ORACLE CORP", "Common Stock", _IT, 3, 139.2),
    ("CSCO", "csco", "Cisco Systems Inc.", "CISCO SYSTEMS INC", "Common Stock", _IT, 3, 48.9),
    ("AMD", "amd", "Advanced Micro Devices Inc.", "ADVANCED MICRO DEVICES INC", "Common Stock", _IT, 4, 158.7),
    ("JNJ", "jnj", "Johnson & Johnson", "JOHNSON & JOHNSON", "Common Stock", _HC, 3, 151.2),
    ("UNH", "unh", "UnitedHealth Group Inc.", "UNITEDHEALTH GROUP INC", "Common Stock", _HC, 3, 498.3),
    ("MRK", "mrk", "Merck & Co. Inc.", "MERCK & CO INC", "Common Stock", _HC, 3, 121.5),
    ("LLY", "lly", "Eli Lilly and Co.", "ELI LILLY & CO", "Common Stock", _HC, 3, 812.8),
    ("NVO", "novo", "Novo Nordisk A/S", "NOVO NORDISK A/S SPONSORED ADR", "ADR", _HC, 3, 133.4),
    ("NOVO B DC", "novo", "Novo Nordisk A/S", "NOVO NORDISK A/S SER B ORD", "Ordinary Share", _HC, 3, 131.9),
    ("JPM", "jpm", "JPMorgan Chase & Co.", "JPMORGAN CHASE & CO", "Common Stock", _FIN, 3, 201.7),
    ("JPM-PD", "jpm", "JPMorgan Chase & Co.", "JPMORGAN CHASE 5.75% PFD SER DD", "Preferred", _FIN, 3, 25.1),
    ("BAC", "bac", "Bank of America Corp.", "BANK OF AMERICA CORP", "Common Stock", _FIN, 3, 39.8),
    ("GS", "gs", "Goldman Sachs Group Inc.", "GOLDMAN SACHS GROUP INC", "Common Stock", _FIN, 3, 462.1),
    ("BRK.B", "brk", "Berkshire Hathaway Inc.", "BERKSHIRE HATHAWAY INC CL B", "Common Stock", _FIN, 3, 406.5),
    ("BRK.A", "brk", "Berkshire Hathaway Inc.", "BERKSHIRE HATHAWAY INC CL A", "Common Stock", _FIN, 3, 611000.0),
    ("V", "visa", "Visa Inc.", "VISA INC CL A", "Common Stock", _FIN, 3, 271.4),
    ("AMZN", "amzn", "Amazon.com Inc.", "AMAZON COM INC", "Common Stock", _CD, 3, 183.6),
    ("TSLA", "tsla", "Tesla Inc.", "TESLA INC", "Common Stock", _CD, 4, 187.4),
    ("HD", "hd", "Home Depot Inc.", "HOME DEPOT INC", "Common Stock", _CD, 3, 344.2),
    ("MCD", "mcd", "McDonald's Corp.", "MCDONALDS CORP", "Common Stock", _CD, 3, 258.9),
    ("TM", "toyota", "Toyota Motor Corp.", "TOYOTA MOTOR CORP SPONSORED ADR", "ADR", _CD, 3, 204.7),
    ("7203 JP", "toyota", "Toyota Motor Corp.", "TOYOTA MOTOR CORP ORD", "Ordinary Share", _CD, 3, 20.3),
    ("GOOGL", "alphabet", "Alphabet Inc.", "ALPHABET INC CAP STK CL A", "Common Stock", _COM, 3, 176.3),
    ("GOOG", "alphabet", "Alphabet Inc.", "ALPHABET INC CAP STK CL C", "Common Stock", _COM, 3, 177.9),
    ("META", "meta", "Meta Platforms Inc.", "META PLATFORMS INC CL A", "Common Stock", _COM, 3, 497.2),
    ("DIS", "dis", "Walt Disney Co.", "WALT DISNEY CO", "Common Stock", _COM, 3, 102.8),
    ("VZ", "vz", "Verizon Communications Inc.", "VERIZON COMMUNICATIONS INC", "Common Stock", _COM, 2, 40.6),
    ("CAT", "cat", "Caterpillar Inc.", "CATERPILLAR INC", "Common Stock", _IND, 3, 336.1),
    ("HON", "hon", "Honeywell International Inc.", "HONEYWELL INTL INC", "Common Stock", _IND, 3, 201.5),
    ("UNP", "unp", "Union Pacific Corp.", "UNION PACIFIC CORP", "Common Stock", _IND, 3, 227.3),
    ("GE", "ge", "GE Aerospace", "GE AEROSPACE", "Common Stock", _IND, 3, 163.9),
    ("PG", "pg", "Procter & Gamble Co.", "PROCTER & GAMBLE CO", "Common Stock", _CS, 2, 166.8),
    ("KO", "ko", "Coca-Cola Co.", "COCA COLA CO", "Common Stock", _CS, 2, 63.2),
    ("PEP", "pep", "PepsiCo Inc.", "PEPSICO INC", "Common Stock", _CS, 2, 168.4),
    ("WMT", "wmt", "Walmart Inc.", "WALMART INC", "Common Stock", _CS, 2, 67.9),
    ("NSRGY", "nestle", "Nestle S.A.", "NESTLE S A SPONSORED ADR", "ADR", _CS, 2, 106.2),
    ("NESN SW", "nestle", "Nestle S.A.", "NESTLE SA REG ORD", "Ordinary Share", _CS, 2, 104.9),
    ("XOM", "xom", "Exxon Mobil Corp.", "EXXON MOBIL CORP", "Common Stock", _EN, 3, 114.6),
    ("CVX", "cvx", "Chevron Corp.", "CHEVRON CORP", "Common Stock", _EN, 3, 156.3),
    ("SHEL", "shell", "Shell plc", "SHELL PLC SPONSORED ADR", "ADR", _EN, 3, 71.8),
    ("SHEL LN", "shell", "Shell plc", "SHELL PLC ORD", "Ordinary Share", _EN, 3, 35.6),
    ("NEE", "nee", "NextEra Energy Inc.", "NEXTERA ENERGY INC", "Common Stock", _UT, 2, 70.8),
    ("DUK", "duk", "Duke Energy Corp.", "DUKE ENERGY CORP", "Common Stock", _UT, 2, 101.4),
    ("PLD", "pld", "Prologis Inc.", "PROLOGIS INC", "Common Stock", _RE, 3, 112.5),
    ("O", "realty", "Realty Income Corp.", "REALTY INCOME CORP", "Common Stock", _RE, 2, 53.7),
    ("LIN", "lin", "Linde plc", "LINDE PLC", "Common Stock", _MAT, 3, 439.6),
    ("NEM", "nem", "Newmont Corp.", "NEWMONT CORP", "Common Stock", _MAT, 3, 41.9),
    ("QBTX", "qbtx", "Quantabio Therapeutics Inc.", "QUANTABIO THERAPEUTICS INC", "Common Stock", _HC, 5, 3.42),
    ("ZNRG", "znrg", "Zenergy Hydrogen Corp.", "ZENERGY HYDROGEN CORP", "Common Stock", _EN, 5, 1.87),
    ("AAPL 4.375 45", "apple", "Apple Inc.", "APPLE INC 4.375% 05/13/2045", "Corporate Bond", _IT, 2, 93.6),
    ("JPM 5.35 34", "jpm", "JPMorgan Chase & Co.", "JPMORGAN CHASE 5.35% 06/01/2034", "Corporate Bond", _FIN, 2, 101.2),
    ("XOM 4.227 40", "xom", "Exxon Mobil Corp.", "EXXON MOBIL 4.227% 03/19/2040", "Corporate Bond", _EN, 2, 89.4),
    ("CCL 7.0 29", "ccl", "Carnival Corp.", "CARNIVAL CORP 7.0% 08/15/2029", "Corporate Bond", _CD, 4, 102.8),
    ("UST 4.25 34", "ust", "United States Treasury", "US TREASURY NOTE 4.25% 11/15/2034", "US Treasury", "", 1, 98.7),
    ("UST 3.875 33", "ust", "United States Treasury", "US TREASURY NOTE 3.875% 08/15/2033", "US Treasury", "", 1, 96.2),
    ("SPY", "spy", "SPDR S&P 500 ETF Trust", "SPDR S&P 500 ETF TRUST", "ETF", "Diversified", 3, 545.3),
    ("VTI", "vti", "Vanguard Total Stock Market ETF", "VANGUARD TOTAL STOCK MARKET ETF", "ETF", "Diversified", 3, 268.1),
    ("QQQ", "qqq", "Invesco QQQ Trust", "INVESCO QQQ TRUST SER 1", "ETF", "Diversified", 3, 481.2),
    ("AGG", "agg", "iShares Core US Aggregate Bond ETF", "ISHARES CORE US AGGREGATE BOND ETF", "ETF", "Fixed Income",
     2, 98.1),
    ("VWELX", "vwelx", "Vanguard Wellington Fund", "VANGUARD WELLINGTON FUND INV", "Mutual Fund", "Diversified", 3,
     44.6),
    ("AMCPX", "amcpx", "AMCAP Fund", "AMERICAN FUNDS AMCAP FUND CL A", "Mutual Fund", "Diversified", 3, 41.3),
    ("ARKK", "arkk", "ARK Innovation ETF", "ARK INNOVATION ETF", "ETF", "Diversified", 4, 47.9),
    ("TQQQ", "tqqq", "ProShares UltraPro QQQ", "PROSHARES ULTRAPRO QQQ 3X", "ETF", "Diversified", 5, 63.4),
    ("SOXL", "soxl", "Direxion Daily Semiconductor Bull 3X", "DIREXION DAILY SEMICONDUCTOR BULL 3X", "ETF",
     "Diversified", 5, 41.2),
    ("SPAXX", "spaxx", "Government Money Market Fund", "GOVERNMENT MONEY MARKET SWEEP", "Money Market", "", 1, 1.0),
    ("CASH", "cash", "Cash", "CASH BALANCE", "Cash", "", 1, 1.0),
]
SEC = {s[0]: s for s in SECURITIES}
_PAIRS = (("GOOGL", "GOOG"), ("TM", "7203 JP"), ("SHEL", "SHEL LN"), ("NSRGY", "NESN SW"),
          ("NVO", "NOVO B DC"), ("AAPL", "AAPL 4.375 45"), ("JPM", "JPM-PD"))
_EQ = [s for s in SECURITIES if s[4] == "Common Stock" and s[6] <= 3 and s[7] < 10000]
_FUNDS = ("SPY", "VTI", "QQQ", "AGG", "VWELX", "AMCPX")
_REGS = ("Individual", "Joint WROS", "Traditional IRA", "Roth IRA", "Revocable Trust", "UTMA")


def _mv(sym: str, value: float) -> tuple[float, float]:
    """Quantity and market value of about ``value`` of ``sym`` (bonds in 1,000 par quoted per 100)."""
    s = SEC[sym]
    if s[4] in ("Corporate Bond", "US Treasury"):
        qty = max(1, round(value / (s[7] * 10))) * 1000
        return qty, round(qty * s[7] / 100, 2)
    if s[4] in ("Cash", "Money Market"):
        return round(value, 2), round(value, 2)
    qty = max(1, round(value / s[7]))
    return qty, round(qty * s[7], 2)


class Book:
    """Households, accounts, positions, profile log and trades as they are drawn."""

    def __init__(self, rng: random.Random, P: dict[str, Any]) -> None:
        self.rng, self.P = rng, P
        self.end = dt.date.fromisoformat(P["month_end"])
        self.start = self.end.replace(day=1)
        self.refresh = dt.date.fromisoformat(P["master_as_of"])
        self.ids = rng.sample(range(100000, 999999), 400)
        self.accts = rng.sample(range(10000, 99999), 900)
        self.tids = rng.sample(range(1000000, 9999999), 3000)
        self.households: list[dict[str, Any]] = []
        self.positions: list[list[Any]] = []
        self.trades: list[list[Any]] = []
        self.profiles: list[list[Any]] = []
        self.accounts: list[list[Any]] = []

    def household(self, tol: str, accounts: list[list[tuple[str, float]]], *,
                  update: tuple[dt.date, str] | None = None) -> dict[str, Any]:
        """A household whose accounts hold ``(symbol, value)`` positions; ``tol`` is its tolerance at the master's
        last refresh (what the master shows); ``update`` is a profile update entered after it (date, tolerance)."""
        rng = self.rng
        hh = f"HH-{self.ids.pop()}"
        owner = person(rng)
        opened = dt.date(rng.randint(2009, 2022), rng.randint(1, 12), rng.randint(1, 28))
        rep = rng.choice(self.P["reps"])
        first = rng.choice([t for t in TOLERANCES if t != tol]) if rng.random() < 0.25 else tol
        self.profiles.append([hh, opened.isoformat(), first, "NAF"])
        if first != tol:
            when = opened + dt.timedelta(days=rng.randint(200, (self.refresh - opened).days - 10))
            self.profiles.append([hh, when.isoformat(), tol, "UPDATE"])
        if update:
            self.profiles.append([hh, update[0].isoformat(), update[1], "UPDATE"])
        nos = []
        for holdings in accounts:
            no = f"{self.P['branch']}-{self.accts.pop()}"
            nos.append(no)
            reg = rng.choices(_REGS, (30, 30, 20, 10, 6, 4))[0]
            self.accounts.append([no, hh, reg, owner, rep, tol, opened.isoformat()])
            merged: dict[str, float] = {}
            for sym, value in holdings:
                merged[sym] = merged.get(sym, 0.0) + value
            for sym, value in merged.items():
                qty, mv = _mv(sym, value)
                self.positions.append([no, sym, qty, mv])
        h = {"id": hh, "tol": update[1] if update else tol, "accounts": nos, "update": update, "rep": rep}
        self.households.append(h)
        return h

    def trade(self, account: str, sym: str, when: dt.date, side: str, solicited: str) -> str:
        tid = f"T{self.tids.pop()}"
        qty, _ = _mv(sym, self.rng.uniform(2000, 15000))
        rep = next(r[4] for r in self.accounts if r[0] == account)
        self.trades.append([tid, when.isoformat(), account, sym, side, qty, f"{SEC[sym][7]:.2f}", solicited, rep])
        return tid

    def day(self, lo: int = 1, hi: int = 0) -> dt.date:
        return self.start + dt.timedelta(days=self.rng.randint(lo - 1, (hi or self.end.day) - 1))


def _fill(rng: random.Random, total: float, value: float, *, n: int, avoid: set[str], cap: float,
          risky: bool = False) -> list[tuple[str, float]]:
    """``total`` of ``value`` spread over ``n`` equities of distinct issuers, sectors cycling, each at most ``cap``."""
    pool = [s for s in _EQ if s[1] not in avoid and s[5] not in avoid]
    if risky:
        pool += [SEC[x] for x in ("NVDA", "TSLA", "AMD") if SEC[x][1] not in avoid and SEC[x][5] not in avoid]
    rng.shuffle(pool)
    by_sector: dict[str, list[Any]] = {}
    for s in pool:
        by_sector.setdefault(s[5], []).append(s)
    picks: list[str] = []
    seen: set[str] = set()
    while len(picks) < n and any(by_sector.values()):
        for sec in sorted(by_sector):
            if by_sector[sec] and len(picks) < n:
                s = by_sector[sec].pop()
                if s[1] not in seen:
                    seen.add(s[1])
                    picks.append(s[0])
    w = [rng.uniform(0.6, 1.4) for _ in picks]
    share = [total * x / sum(w) for x in w]
    if max(share) > cap:
        raise DegenerateTask("a filler position over its cap")
    return [(p, value * x) for p, x in zip(picks, share)]


def _natural(b: Book, tol: str) -> list[list[tuple[str, float]]]:
    rng = b.rng
    value = min(4e6, max(5e4, rng.lognormvariate(12.77, 0.8)))
    n = rng.choices((1, 2, 3), (45, 40, 15))[0]
    parts = [rng.uniform(0.5, 1.5) for _ in range(n)]
    out = []
    for p in parts:
        v = value * p / sum(parts)
        cash = rng.uniform(0.01, 0.06)
        funds = rng.uniform(0.0, 0.4) if rng.random() < 0.7 else 0.0
        bonds = rng.uniform(0.05, 0.2) if tol in ("Conservative", "Moderate") and rng.random() < 0.6 else 0.0
        eq = 1 - cash - funds - bonds
        k = rng.randint(8, 16)
        hold = [("SPAXX" if rng.random() < 0.6 else "CASH", v * cash)]
        if funds:
            fs = rng.sample(_FUNDS, rng.randint(1, 2))
            hold += [(f, v * funds / len(fs)) for f in fs]
        if bonds:
            bs = rng.sample(("UST 4.25 34", "UST 3.875 33", "JPM 5.35 34", "XOM 4.227 40", "AAPL 4.375 45"), 2)
            hold += [(x, v * bonds / 2) for x in bs]
        avoid: set[str] = set()
        if rng.random() < 0.3:  # a household that favours one sector (the client's employer, a theme)
            sector = rng.choice(sorted({s[5] for s in _EQ}))
            names = [s for s in _EQ if s[5] == sector]
            tilt = rng.sample(names, min(len(names), rng.randint(2, 4)))
            hold += [(s[0], v * eq * 0.4 / len(tilt)) for s in tilt]
            avoid = {s[1] for s in tilt}
            eq *= 0.6
        hold += _fill(rng, eq, v, n=k, avoid=avoid, cap=1.0, risky=tol in ("Growth", "Aggressive"))
        out.append(hold)
    return out


def _planted(b: Book, forced: list[tuple[str, float]], *, value: float, cash: float, cap: float,
             risky: bool = False, fund: tuple[str, float] | None = None) -> list[tuple[str, float]]:
    """One account of ``value``: ``forced`` weights, ``cash``, maybe a fund, and fillers of other issuers and
    sectors at most ``cap`` each."""
    rng = b.rng
    avoid = {SEC[s][1] for s, _ in forced} | {SEC[s][5] for s, _ in forced}
    rest = 1 - cash - sum(w for _, w in forced) - (fund[1] if fund else 0.0)
    n = max(8, int(rest / (cap * 0.6)) + 1)
    hold = [(s, value * w) for s, w in forced] + [("SPAXX", value * cash)]
    if fund:
        hold.append((fund[0], value * fund[1]))
    return hold + _fill(rng, rest, value, n=n, avoid=avoid, cap=cap, risky=risky)


def book(rng: random.Random, P: dict[str, Any], ok: Any) -> tuple[Book, dict[str, Any]]:
    """The branch's book: natural households (redrawn while ``ok(book, household)`` is false) and the planted ones."""
    b = Book(rng, P)
    roles: dict[str, Any] = {}
    v = lambda: rng.uniform(250e3, 900e3)  # noqa: E731
    a, c = rng.choice(_PAIRS)
    w1, w2 = rng.uniform(11, 16.5) / 100, rng.uniform(11, 16.5) / 100
    roles["share"] = b.household("Growth", [_planted(b, [(a, w1), (c, w2)], value=v(), cash=0.03, cap=0.06)])
    roles["share_pair"] = (a, c)
    big = rng.choice([s[0] for s in _EQ])
    roles["big"] = b.household("Aggressive", [_planted(b, [(big, rng.uniform(32, 45) / 100)], value=v(), cash=0.03,
                                                       cap=0.06)])
    upd = b.day(3, 16)
    top = rng.choice([s[0] for s in _EQ])
    risky = rng.choice(("NVDA", "TSLA", "AMD"))
    acct = _planted(b, [(top, rng.uniform(16.6, 19) / 100), (risky, 0.03)], value=v(), cash=0.03, cap=0.05)
    roles["down"] = b.household("Growth", [acct], update=(upd, "Moderate"))
    roles["down_trade"] = b.trade(roles["down"]["accounts"][0], risky, b.day(upd.day + 1, min(b.end.day, upd.day + 9)),
                                  "BUY", "S")
    roles["down_early"] = b.trade(roles["down"]["accounts"][0], risky, b.day(1, upd.day - 1), "BUY", "S")
    big_acct = _planted(b, [], value=v(), cash=0.04, cap=0.06)
    ira_top = rng.choice([s[0] for s in _EQ if s[1] not in {SEC[x][1] for x, _ in big_acct}])
    small = v() * rng.uniform(0.08, 0.14)
    ira = [(ira_top, small * rng.uniform(0.42, 0.55)), ("SPAXX", small * 0.05)]
    ira += [(s, small * w) for s, w in _fill(rng, 1 - ira[0][1] / small - 0.05, 1.0, n=2, avoid={SEC[ira_top][1],
                                                                                                  SEC[ira_top][5]}, cap=1)]
    roles["acct"] = b.household("Growth", [big_acct, ira])
    top = rng.choice([s[0] for s in _EQ])
    cash = rng.uniform(0.25, 0.35)
    share = rng.uniform(max(12.0, 15.6 * (1 - cash)), 14.4) / 100
    roles["cash"] = b.household("Moderate", [_planted(b, [(top, share)], value=v(), cash=cash, cap=0.045)])
    roles["cash_issuer"] = top
    roles["fund"] = b.household(rng.choice(("Conservative", "Moderate")), [_planted(
        b, [], value=v(), cash=0.03, cap=0.05, fund=(rng.choice(("SPY", "VTI")), rng.uniform(0.38, 0.5)))])
    lev = rng.choice(("TQQQ", "SOXL"))
    unsol = b.household("Moderate", [_planted(b, [(lev, 0.02)], value=v(), cash=0.03, cap=0.06)])
    roles["unsol_trade"] = b.trade(unsol["accounts"][0], lev, b.day(), "BUY", "U")
    roles["risk_trades"] = []
    for _ in range(rng.randint(2, 3)):
        tol = rng.choice(("Conservative", "Moderate"))
        sym = rng.choice(("NVDA", "TSLA", "ARKK", "QBTX", "CCL 7.0 29") if tol == "Moderate" else
                         ("NVDA", "MSFT", "JPM", "ARKK", "QQQ"))
        h = b.household(tol, [_planted(b, [(sym, 0.02)], value=v(), cash=0.04, cap=0.05)])
        roles["risk_trades"].append(b.trade(h["accounts"][0], sym, b.day(), "BUY", "S"))
    it = [s[0] for s in _EQ if s[5] == _IT]
    picks = rng.sample(it, 5)
    roles["sector"] = b.household("Conservative", [_planted(b, [(s, rng.uniform(5.8, 6.6) / 100) for s in picks],
                                                            value=v(), cash=0.05, cap=0.05)])
    roles["sector_name"] = _IT
    for _ in range(rng.randint(140, 210)):
        tol = rng.choices(TOLERANCES, (20, 40, 30, 10))[0]
        for _attempt in range(40):
            mark = (len(b.positions), len(b.accounts), len(b.profiles), list(b.ids), list(b.accts))
            h = b.household(tol, _natural(b, tol))
            if ok(b, h):
                break
            b.positions, b.accounts, b.profiles = b.positions[:mark[0]], b.accounts[:mark[1]], b.profiles[:mark[2]]
            b.households.pop()
            b.ids, b.accts = mark[3], mark[4]
        else:
            raise DegenerateTask("no natural household away from the limits")
    late = rng.choice(b.households[-20:])  # an update signed after the month-end: not yet in force
    b.profiles.append([late["id"], (b.end + dt.timedelta(days=rng.randint(2, 6))).isoformat(),
                       rng.choice([t for t in TOLERANCES if t != late["tol"]]), "UPDATE"])
    _trades(b)
    return b, roles


def _trades(b: Book) -> None:
    """The month's ordinary trades: buys and sells of held positions, solicited buys within the profile's risk."""
    rng = b.rng
    held: dict[str, list[str]] = {}
    for no, sym, _q, _mv in b.positions:
        if SEC[sym][4] not in ("Cash", "Money Market"):
            held.setdefault(no, []).append(sym)
    tol = {r[0]: r[5] for r in b.accounts}
    for no in rng.sample(sorted(held), min(len(held), rng.randint(120, 220))):
        for _ in range(rng.randint(1, 3)):
            sym = rng.choice(held[no])
            side = rng.choice(("BUY", "BUY", "SELL"))
            solicited = "S" if rng.random() < 0.6 else "U"
            if side == "BUY" and solicited == "S" and SEC[sym][6] > LIMITS[tol[no]]["risk"]:
                solicited = "U"
            b.trade(no, sym, b.day(), side, solicited)
    b.trades.sort(key=lambda t: (t[1], t[0]))


def month_end(year: int, month: int) -> dt.date:
    return dt.date(year, month, calendar.monthrange(year, month)[1])
