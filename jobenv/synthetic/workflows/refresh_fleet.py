"""The laptop fleet behind a refresh list: the asset register, the battery report, the ticket export, the lessor's
schedule and the HR leavers list, drawn as ``refresh.py`` states.

Failure behaviour: :func:`fleet` raises nothing for a valid ``rng``.
"""

from __future__ import annotations

import calendar
import datetime as dt
import random
from typing import Any

from ..compose import person

__all__ = ["fleet", "MODELS", "months_back"]

# model, manufacturer, build profile, warranty months, battery design capacity (mWh)
MODELS = (("Latitude 5440", "Dell", "Standard", 36, 54000), ("Latitude 5430", "Dell", "Standard", 36, 54000),
          ("EliteBook 840 G10", "HP", "Standard", 36, 51000), ("EliteBook 840 G8", "HP", "Standard", 36, 53000),
          ("ThinkPad T14 Gen 3", "Lenovo", "Standard", 36, 52500), ("Precision 5570", "Dell", "Performance", 36, 86000),
          ("ZBook Power G9", "HP", "Performance", 48, 83000), ("ThinkPad P16s Gen 2", "Lenovo", "Performance", 36, 52500),
          ("ThinkPad X1 Carbon Gen 10", "Lenovo", "Mobile", 48, 57000), ("EliteBook 1040 G9", "HP", "Mobile", 48, 51000))
_DEPTS = (("Finance", "CC-110"), ("Sales", "CC-210"), ("Customer Operations", "CC-230"), ("Engineering", "CC-310"),
          ("Marketing", "CC-220"), ("People", "CC-120"), ("Legal", "CC-130"), ("IT", "CC-140"), ("Facilities", "CC-150"))
_HW = ("Battery", "Keyboard", "Display", "Motherboard", "Docking", "Power adapter", "Touchpad", "Fan / overheating")
_OTHER = (("Software", "Office"), ("Software", "VPN client"), ("Access", "Password reset"), ("Network", "Wi-Fi"),
          ("Service request", "New starter kit"), ("Software", "Browser"))
_FIX = ("Fixed", "Part replaced", "Part replaced", "No fault found", "Workaround")


def months_back(d: dt.date, months: int) -> dt.date:
    k = d.year * 12 + d.month - 1 - months
    y, m = divmod(k, 12)
    return dt.date(y, m + 1, min(d.day, calendar.monthrange(y, m + 1)[1]))


def _serial(rng: random.Random, maker: str) -> str:
    al = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
    tail = "".join(rng.choice(al) for _ in range(7))
    return {"Dell": tail, "HP": "5CG" + tail, "Lenovo": "PF" + tail[:6]}[maker]


def fleet(rng: random.Random, targets: dict[str, bool], export: dt.date, cutoff: dt.date) -> dict[str, Any]:
    """Register rows, battery rows, tickets, lessor rows and leavers, with the planted cases named."""
    due_by = months_back(cutoff, 48)
    n = rng.randint(550, 850)
    tags = rng.sample(range(10000, 99999), n + 400)
    emps = rng.sample(range(10000, 99999), n + 400)
    weights = [14, 14, 12, 12, 12, 5, 4, 4, 6, 5]
    laptops: list[dict[str, Any]] = []
    for i in range(n):
        model = rng.choices(MODELS, weights)[0]
        age = rng.randint(20, 1460) if rng.random() < 0.88 else rng.randint(1460, 1900)
        bought = export - dt.timedelta(days=age)
        dept, cc = rng.choice(_DEPTS)
        migrated = bought < dt.date(2023, 1, 1) and rng.random() < 0.3
        laptops.append({"tag": f"LT-{tags[i]}", "model": model, "serial": _serial(rng, model[1]), "bought": bought,
                        "migrated": migrated, "emp": f"E{emps[i]}", "user": person(rng), "dept": dept, "cc": cc,
                        "warranty_end": months_back(bought, -model[3]), "health": None, "tickets": []})
    for lt in laptops:  # purchase for a migrated record is the warranty end less the term
        lt["eff"] = months_back(lt["warranty_end"], lt["model"][3]) if lt["migrated"] else lt["bought"]
        lt["old"] = lt["eff"] <= due_by
    young = [lt for lt in laptops if not lt["old"]]
    rng.shuffle(young)
    for lt in laptops:
        months = (export - lt["bought"]).days / 30.44
        if rng.random() < 0.93:
            h = max(25.0, min(100.0, 100 - months * rng.uniform(0.35, 0.75) - abs(rng.gauss(0, 3))))
            lt["health"] = rng.uniform(61, 78) if not lt["old"] and h < 61 else h
    planted: dict[str, list[str]] = {"battery": [], "incidents": [], "window": [], "duplicates": []}
    if not targets["premise"]:
        for lt in young[:rng.randint(2, 6)]:
            lt["health"] = rng.uniform(35, 57)
            planted["battery"].append(lt["tag"])
    pool = young[8:]
    start = months_back(export, 12)

    def when(lo: dt.date, hi: dt.date) -> dt.datetime:
        d = lo + dt.timedelta(days=rng.randint(0, (hi - lo).days))
        return dt.datetime.combine(d, dt.time(rng.randint(8, 17), rng.randint(0, 59)))

    inwin = lambda: when(start + dt.timedelta(days=1), export)  # noqa: E731
    for lt in laptops:  # background hardware incidents over two years; a young laptop keeps at most 2 in the window
        for _ in range(min(3, int(rng.expovariate(1.6)))):
            lt["tickets"].append((when(export - dt.timedelta(days=729), export), "hw", rng.choice(_FIX)))
        if not lt["old"]:
            win = [t for t in lt["tickets"] if t[0].date() >= start]
            lt["tickets"] = [t for t in lt["tickets"] if t[0].date() < start] + win[:2]
        elif lt["tickets"] and rng.random() < 0.15:
            lt["tickets"].append((lt["tickets"][0][0] + dt.timedelta(minutes=7), "hw", "Duplicate"))
    k = 0
    if not targets["premise"]:
        for lt in pool[:rng.randint(1, 4)]:
            lt["tickets"] = [(inwin(), "hw", rng.choice(_FIX)) for _ in range(rng.randint(3, 5))]
            planted["incidents"].append(lt["tag"])
        k = len(planted["incidents"])
    for lt in pool[k:k + rng.randint(2, 4)]:
        lt["tickets"] = [(inwin(), "hw", rng.choice(_FIX)) for _ in range(2)] + [
            (when(export - dt.timedelta(days=720), start - dt.timedelta(days=2)), "hw", rng.choice(_FIX))
            for _ in range(rng.randint(1, 2))]
        planted["window"].append(lt["tag"])
    k += len(planted["window"])
    for lt in pool[k:k + rng.randint(2, 4)]:
        first = inwin()
        lt["tickets"] = [(first, "hw", rng.choice(_FIX)), (inwin(), "hw", rng.choice(_FIX)),
                         (first + dt.timedelta(minutes=rng.randint(3, 40)), "hw", "Duplicate")]
        planted["duplicates"].append(lt["tag"])
    old = [lt for lt in laptops if lt["old"]]
    marked = {t for v in planted.values() for t in v}
    leased = rng.sample(old, rng.randint(3, 7)) + rng.sample([lt for lt in young if lt["tag"] not in marked],
                                                              rng.randint(20, 45))
    free = [lt for lt in old if lt not in leased]
    leavers = rng.sample(free, rng.randint(3, 7))
    later = rng.sample([lt for lt in laptops if lt not in leased and lt not in leavers], rng.randint(12, 30))
    hr = [[lt["emp"], lt["user"], lt["dept"], (export + dt.timedelta(days=rng.randint(10, (cutoff - export).days))
                                               ).isoformat(), "Confirmed"] for lt in leavers]
    for j, lt in enumerate(later):  # leaving after the cut-off, or not confirmed yet: still refreshed if due
        d = cutoff + dt.timedelta(days=rng.randint(1, 120)) if j % 3 else export + dt.timedelta(days=rng.randint(5, 90))
        hr.append([lt["emp"], lt["user"], lt["dept"], d.isoformat(), "Confirmed" if j % 3 else "Pending"])
    rng.shuffle(hr)
    schedule = rng.choice(("NBL-2024-017", "NBL-2023-044", "ACL-5521"))
    lessor = [[schedule, lt["serial"], lt["model"][0], lt["bought"].isoformat(),
               months_back(lt["bought"], -48).isoformat(), f"{rng.uniform(28, 61):.2f}"] for lt in leased]
    rng.shuffle(lessor)
    return {"laptops": laptops, "planted": planted, "leased": [lt["tag"] for lt in leased],
            "leavers": [lt["tag"] for lt in leavers], "hr": hr, "lessor": lessor, "tags": tags[n:], "emps": emps[n:],
            "start": start}


def register_rows(rng: random.Random, F: dict[str, Any], export: dt.date) -> tuple[list[list[Any]], list[list[Any]],
                                                                                  list[list[Any]], list[str]]:
    """(register, battery report, tickets, tags refreshed last year) of a drawn fleet, with out-of-scope assets."""
    reg: list[list[Any]] = []
    batt: list[list[Any]] = []
    tick: list[list[Any]] = []
    last: list[str] = []
    tags, emps = list(F["tags"]), list(F["emps"])
    for lt in F["laptops"]:
        m = lt["model"]
        reg.append([lt["tag"], "Laptop", m[1], m[0], lt["serial"], "Deployed", lt["emp"], lt["user"], lt["dept"],
                    lt["cc"], "" if lt["migrated"] else lt["bought"].isoformat(), lt["warranty_end"].isoformat()])
        if lt["health"] is not None:
            full = round(m[4] * lt["health"] / 100)
            seen = export - dt.timedelta(days=rng.randint(0, 20))
            batt.append([lt["serial"], f"{lt['tag']}-{lt['user'].split()[1].upper()[:6]}", m[4], full,
                         seen.isoformat()])
        for at, _, res in lt["tickets"]:
            tick.append([at, "Hardware", rng.choice(_HW), lt["tag"], lt["emp"], res])
        if rng.random() < 0.5:
            cat, sub = rng.choice(_OTHER)
            tick.append([dt.datetime.combine(export - dt.timedelta(days=rng.randint(0, 700)), dt.time(10, 5)), cat, sub,
                         lt["tag"] if rng.random() < 0.5 else "", lt["emp"], rng.choice(("Fixed", "Workaround"))])
    for status, count, age in (("Loaner", rng.randint(15, 30), (900, 2000)), ("Spare", rng.randint(15, 30), (10, 400)),
                               ("Retired", rng.randint(30, 60), (1500, 2100))):
        for _ in range(count):
            m = rng.choice(MODELS)
            bought = export - dt.timedelta(days=rng.randint(*age))
            tag = f"LT-{tags.pop()}"
            reg.append([tag, "Laptop", m[1], m[0], _serial(rng, m[1]), status, "", "", "IT", "CC-140",
                        bought.isoformat(), months_back(bought, -m[3]).isoformat()])
            if status == "Retired":
                last.append(tag)
            if status == "Loaner" and rng.random() < 0.4:
                batt.append([reg[-1][4], f"LOANER-{tag[3:]}", m[4], round(m[4] * rng.uniform(0.3, 0.58)),
                             export.isoformat()])
    for _ in range(rng.randint(50, 90)):
        bought = export - dt.timedelta(days=rng.randint(300, 2400))
        dept, cc = rng.choice(_DEPTS)
        reg.append([f"DT-{tags.pop()}", "Desktop", "Dell", "OptiPlex 7010", _serial(rng, "Dell"), "Deployed",
                    f"E{emps.pop()}", person(rng), dept, cc, bought.isoformat(), months_back(bought, -36).isoformat()])
    rng.shuffle(reg)
    batt.sort(key=lambda r: r[0])
    tick.sort(key=lambda r: r[0])
    base = rng.randint(4_100_000, 4_800_000)
    tickets = [[f"INC{base + 3 * j}", t[0].strftime("%Y-%m-%d %H:%M"), *t[1:4], t[4], "Closed", t[5]]
               for j, t in enumerate(tick)]
    return reg, batt, tickets, last
