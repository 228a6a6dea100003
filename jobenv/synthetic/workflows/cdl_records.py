"""The drawn records of a CDL renewal cycle (see ``cdl.py``): CDL holders, conviction history with in-state ACD codes
and other states' statute codes, medical examiner's certificates and TSA threat-assessment results, with the traps
planted on drivers of their own.

Failure behaviour: ``book`` raises DegenerateTask when the cycle has no excepted driver to plant on; the workflow
checks what the rest of the planting achieved.
"""

from __future__ import annotations

import calendar
import datetime as dt
import random
from typing import Any

from ..common import DegenerateTask
from ..compose import person

__all__ = ["ACD", "STATES", "Book", "book", "months", "back"]


def _d(text: str) -> dt.date:
    return dt.date.fromisoformat(text.strip()[:10])

ACD = {  # ACD code: (description, category)
    "A20": ("Driving under the influence of alcohol or a controlled substance", "MAJOR"),
    "A04": ("Driving a CMV with an alcohol concentration of .04 or more", "MAJOR"),
    "A31": ("Refusal to submit to an alcohol or drug test", "MAJOR"),
    "B01": ("Leaving the scene of an accident (hit and run)", "MAJOR"),
    "D35": ("Driving a CMV while the CDL is revoked, suspended or disqualified", "MAJOR"),
    "S15": ("Speeding 15 mph or more above the posted limit", "SERIOUS"),
    "M84": ("Reckless driving", "SERIOUS"),
    "M42": ("Improper or erratic lane change", "SERIOUS"),
    "M44": ("Following the vehicle ahead too closely", "SERIOUS"),
    "D45": ("Driving a CMV without obtaining a CDL", "SERIOUS"),
    "D74": ("Driving a CMV without the proper class or endorsement", "SERIOUS"),
    "M43": ("Texting while driving a CMV", "SERIOUS"),
    "M45": ("Using a hand-held mobile telephone while driving a CMV", "SERIOUS"),
    "S05": ("Speeding 1-14 mph above the posted limit", "OTHER"),
    "M20": ("Failure to yield the right of way", "OTHER"),
    "M14": ("Failure to obey a traffic control device", "OTHER"),
    "E03": ("Defective or missing equipment", "OTHER"),
    "N41": ("Safety belt violation", "OTHER"),
    "W02": ("Overweight or over-dimension vehicle", "OTHER"),
}
STATES = {"OH": "4511.", "PA": "33", "IN": "9-21-", "MI": "257.", "WI": "346.", "KY": "189.", "TN": "55-8-",
           "IL": "11-", "MO": "304.", "GA": "40-6-", "VA": "46.2-", "TX": "545."}

def back(d: dt.date, years: int) -> dt.date:
    try:
        return d.replace(year=d.year - years)
    except ValueError:  # 29 February
        return d.replace(year=d.year - years, day=28)


def months(d: dt.date, n: int) -> dt.date:
    y, m = divmod(d.month - 1 + n, 12)
    return dt.date(d.year + y, m + 1, min(d.day, calendar.monthrange(d.year + y, m + 1)[1]))


class Book:
    """The drawn records: licences, convictions, medical cards and STA results, as rows."""

    def __init__(self, rng: random.Random, P: dict[str, Any]) -> None:
        self.rng, self.P = rng, P
        self.R = _d(P["review_date"])
        self.lo, self.hi = _d(P["cycle_start"]), _d(P["cycle_end"])
        self.nums = rng.sample(range(10_000_000, 99_999_999), 4200)
        self.lics: list[dict[str, str]] = []
        self.convs: list[list[str]] = []
        self.certs: list[list[str]] = []
        self.sta: list[list[str]] = []
        self.home = P["home_state"]
        self.others = [s for s in STATES if s != self.home]
        self.native = P["native"]

    def licence(self, expires: dt.date, *, cert: str = "", endorse: str = "", status: str = "VALID") -> dict[str, str]:
        rng = self.rng
        first, last = person(rng).split(" ", 1)
        cert = cert or rng.choices(("NI", "NA", "EI", "EA"), (72, 8, 14, 6))[0]
        if not endorse:
            u = rng.random()
            endorse = ("H" if u < 0.09 else "X" if u < 0.14 else "") + "".join(
                e for e, p in (("N", 0.25 if u >= 0.09 else 0.0), ("T", 0.2), ("P", 0.08), ("S", 0.05))
                if rng.random() < p and not (e == "N" and u < 0.14))
        row = {"licence_no": f"{self.P['prefix']}{self.nums.pop()}", "last_name": last.upper(),
               "first_name": first.upper(), "date_of_birth": dt.date(rng.randint(1958, 2001), rng.randint(1, 12),
                                                                     rng.randint(1, 28)).isoformat(),
               "class": rng.choices(("A", "B", "C"), (70, 25, 5))[0], "endorsements": endorse,
               "restrictions": rng.choice(("", "", "", "B", "L", "E", "K")), "self_cert": cert,
               "issue_date": months(expires, -12 * 5).isoformat(), "expiration_date": expires.isoformat(),
               "status": status}
        self.lics.append(row)
        return row

    def conviction(self, lic: str, code: str, offence: dt.date, *, state: str = "", lag: int = 0,
                   citation: str = "", seq: int = 1) -> None:
        rng = self.rng
        state = state or self.home
        convicted = offence + dt.timedelta(days=lag or rng.randint(20, 150))
        shown = code if state == self.home else self.native[state][code]
        desc = ACD[code][0] if state == self.home else f"{state} {shown} {ACD[code][0].upper()}"
        court = f"{person(rng).split(' ')[1]} County {rng.choice(('Municipal', 'District', 'Traffic', 'Justice'))} Court"
        self.convs.append([lic, citation or f"{state}{rng.randint(10**7, 10**8 - 1)}", str(seq), state, court,
                           offence.isoformat(), convicted.isoformat(), shown, desc])

    def cert(self, lic: str, exam: dt.date, term: int) -> None:
        rng = self.rng
        self.certs.append([lic, exam.isoformat(), months(exam, term).isoformat(), f"{rng.randint(10**9, 10**10 - 1)}",
                           rng.choice(("", "", "corrective lenses", "hearing aid")),
                           (exam + dt.timedelta(days=rng.randint(1, 12))).isoformat()])

    def sta_row(self, lic: str, status: str, applied: dt.date, decided: dt.date | None) -> None:
        self.sta.append([lic, f"TSA{self.rng.randint(10**8, 10**9 - 1)}", applied.isoformat(), status,
                         decided.isoformat() if decided else ""])

    def day_in(self, lo: dt.date, hi: dt.date) -> dt.date:
        return lo + dt.timedelta(days=self.rng.randint(0, (hi - lo).days))


def fill(b: Book, r: dict[str, str], planted: bool) -> None:
    """The ordinary history of one driver: minor convictions, maybe one serious violation, cards and STA."""
    rng, R, lic = b.rng, b.R, r["licence_no"]
    for _ in range(min(4, int(rng.expovariate(1 / 0.6)))):
        b.conviction(lic, rng.choice([c for c, v in ACD.items() if v[1] == "OTHER"]),
                     b.day_in(months(R, -84), R - dt.timedelta(days=160)),
                     state=b.home if rng.random() < 0.8 else rng.choice(b.others))
    for _ in range(0 if planted else rng.choices((0, 1, 2), (82, 15, 3))[0]):
        b.conviction(lic, rng.choice([c for c, v in ACD.items() if v[1] == "SERIOUS"]),
                     b.day_in(months(R, -84), R - dt.timedelta(days=160)),
                     state=b.home if rng.random() < 0.8 else rng.choice(b.others))
    if r["self_cert"] in ("NI", "NA"):
        if rng.random() < 0.5:
            b.cert(lic, b.day_in(months(R, -52), months(R, -30)), 24)
        u = rng.random()
        if planted or u < 0.86:
            b.cert(lic, b.day_in(months(R, -23), months(R, -1)), 24)
        elif u < 0.92:
            b.cert(lic, b.day_in(months(R, -11), months(R, -1)), 12)
        elif u < 0.97:
            b.cert(lic, b.day_in(months(R, -34), months(R, -25)), 24)
    elif rng.random() < 0.5:
        b.cert(lic, b.day_in(months(R, -40), months(R, -2)), 24)
    if "H" in r["endorsements"] or "X" in r["endorsements"]:
        old = rng.random() < 0.1 and not planted
        dec = b.day_in(months(R, -78), months(R, -61)) if old else b.day_in(months(R, -58), months(R, -1))
        b.sta_row(lic, "DNST", dec - dt.timedelta(days=rng.randint(20, 60)), dec)


def book(rng: random.Random, P: dict[str, Any], premise: bool) -> tuple[Book, dict[str, list[str]]]:
    b = Book(rng, P)
    R, lo, hi = b.R, b.lo, b.hi
    serious = [c for c, v in ACD.items() if v[1] == "SERIOUS"]
    majors = [c for c, v in ACD.items() if v[1] == "MAJOR"]
    window = (back(R, 3) + dt.timedelta(days=20), R - dt.timedelta(days=160))
    cycle = [b.licence(b.day_in(lo, hi)) for _ in range(rng.randint(90, 150))]
    plain = [r for r in cycle if r["self_cert"] == "NI" and not r["endorsements"].strip("NTPS")]
    rng.shuffle(plain)
    roles: dict[str, list[str]] = {}

    def take(role: str, n: int) -> list[str]:
        got = [plain.pop()["licence_no"] for _ in range(n)]
        roles[role] = got
        return got

    for lic in take("dq60", rng.randint(2, 3)) + take("dq120", 1):
        for _ in range(3 if lic in roles["dq120"] else 2):
            b.conviction(lic, rng.choice(serious), b.day_in(*window))
    (lic,) = take("major", 1)
    b.conviction(lic, rng.choice(majors), b.day_in(back(R, 1) + dt.timedelta(days=15), R - dt.timedelta(days=170)),
                 lag=rng.randint(30, 140))
    (lic,) = take("old_major", 1)
    b.conviction(lic, rng.choice(majors), b.day_in(months(R, -40), months(R, -20)))
    for lic in take("oos", rng.randint(1, 2)):
        b.conviction(lic, rng.choice(serious), b.day_in(*window))
        b.conviction(lic, rng.choice(serious), b.day_in(*window), state=rng.choice(b.others))
    (lic,) = take("oos_major", 1)
    b.conviction(lic, rng.choice(majors), b.day_in(back(R, 1) + dt.timedelta(days=15), R - dt.timedelta(days=170)),
                 state=rng.choice(b.others), lag=rng.randint(30, 140))

    def late(lic: str) -> None:
        b.conviction(lic, rng.choice(serious), b.day_in(*window))
        off = back(R, 3) - dt.timedelta(days=rng.randint(5, 90))
        b.conviction(lic, rng.choice(serious), off, lag=(back(R, 3) - off).days + rng.randint(15, 200))

    for lic in take("late", rng.randint(1, 2)):
        late(lic)
    for lic in take("incident", rng.randint(1, 2)):
        cite, off = f"{b.home}{rng.randint(10**7, 10**8 - 1)}", b.day_in(*window)
        lag = rng.randint(20, 120)
        for seq, code in enumerate(rng.sample(serious, 2), 1):
            b.conviction(lic, code, off, lag=lag, citation=cite, seq=seq)
    (lic,) = take("premise", 1)
    if premise:
        late(lic)
    else:
        b.conviction(lic, rng.choice(serious), b.day_in(*window))
        b.conviction(lic, rng.choice(serious), b.day_in(*window), state=rng.choice(b.others))
    take("short", rng.randint(1, 2))
    take("superseded", 1)
    take("pending", 1)
    take("x_hold", 1)
    planted = {x for v in roles.values() for x in v}
    for r in cycle:
        fill(b, r, r["licence_no"] in planted)
    exc = [r["licence_no"] for r in cycle if r["self_cert"] in ("EI", "EA") and r["licence_no"] not in planted][:2]
    if not exc:
        raise DegenerateTask("no excepted driver in the cycle")
    roles["excepted"] = exc
    for lic in exc + roles["short"] + roles["superseded"]:
        b.certs = [c for c in b.certs if c[0] != lic]
    for lic in exc:  # excepted drivers whose only card lapsed long ago
        b.cert(lic, b.day_in(months(R, -44), months(R, -27)), 24)
    for lic in roles["short"]:  # a 1-year card, lapsed though the exam was under 24 months ago
        b.cert(lic, b.day_in(months(R, -22), months(R, -13)), 12)
    for lic in roles["superseded"]:  # re-examined: a 3-month card now governs, the old 2-year one is superseded
        exam = b.day_in(months(R, -15), months(R, -9))
        b.cert(lic, exam, 24)
        b.cert(lic, b.day_in(months(exam, 3), months(R, -4)), 3)
    for role, mark in (("pending", "H"), ("x_hold", "X")):
        lic = roles[role][0]
        next(x for x in cycle if x["licence_no"] == lic)["endorsements"] = mark + "T"
        dec = b.day_in(months(R, -75), months(R, -61))
        b.sta_row(lic, "DNST", dec - dt.timedelta(days=rng.randint(20, 60)), dec)
        if role == "pending":
            b.sta_row(lic, rng.choice(("PENDING", "PENDING", "IDTA")), b.day_in(months(R, -3), R - dt.timedelta(days=5)),
                      None)
    gone = [b.licence(b.day_in(lo, hi), status=rng.choice(("SURRENDERED", "CANCELLED"))) for _ in range(rng.randint(2, 4))]
    roles["surrendered"] = [r["licence_no"] for r in gone]
    for r in gone:
        fill(b, r, False)
    for _ in range(rng.randint(2400, 3600) - len(b.lics)):  # the rest of the state's CDL holders
        if rng.random() < 0.5:
            exp = b.day_in(R - dt.timedelta(days=60), months(R, 96))
        else:
            exp = b.day_in(lo - dt.timedelta(days=45), hi + dt.timedelta(days=45))
        if lo <= exp <= hi:
            exp = lo - dt.timedelta(days=1) if rng.random() < 0.5 else hi + dt.timedelta(days=1)
        r = b.licence(exp)
        if rng.random() < 0.3:
            fill(b, r, False)
    rng.shuffle(b.lics)
    b.convs.sort(key=lambda c: (c[6], c[0]))
    return b, roles


