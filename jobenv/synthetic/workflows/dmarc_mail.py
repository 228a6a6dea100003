"""The mail behind a DMARC review: senders, their addresses and authentication, and the receivers' weekly aggregate
reports (RFC 7489 appendix C schema) as files in the rua mailbox export. ``dmarc.py`` states the distributions.

Failure behaviour: :func:`simulate` raises nothing for a valid ``rng``; the writers it returns raise OSError only for
an unwritable path.
"""

from __future__ import annotations

import calendar
import datetime as dt
import gzip
import io
import ipaddress
import random
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..writers import write_text

__all__ = ["simulate", "PSL"]

PSL = ("com", "net", "org", "io", "top", "xyz", "info", "ru", "uk", "co.uk", "org.uk", "ac.uk", "gov.uk", "au",
       "com.au", "net.au", "org.au", "nz", "co.nz", "org.nz")
_ORGS = (("Hartwell Foods", "hartwellfoods"), ("Ridgeway Housing", "ridgewayhousing"), ("Brightwater Health",
         "brightwaterhealth"), ("Kestrel Logistics", "kestrellogistics"), ("Alder & Finch", "alderfinch"),
         ("Larchmont College", "larchmontcollege"))
_ESP = (("Sendwave newsletters", "sendwave-mail.com"), ("Mailcraft marketing", "mailcraft.net"),
        ("Postbird campaigns", "postbird.io"))
_HELPDESK = (("Deskline helpdesk", "deskline.io"), ("Supportly service desk", "supportly.com"),
             ("Ticketora support", "ticketora.net"))
_PAYROLL = (("Payhub payroll", "payhub"), ("Staffroll HR", "staffroll"), ("Wageleaf payslips", "wageleaf"))
_SHADOW = (("Formlyst surveys", "formlyst"), ("Eventique bookings", "eventique"), ("Quizzle forms", "quizzle"))
_SPAM = ("mailer-{n}.top", "invoice-notice{n}.xyz", "secure-docs{n}.info", "post{n}.ru")
_FWD = ("lists.{u}.ac.uk", "alumni-mail.{u}.org", "forward.{u}.net")
# org_name, receiver domain, report contact, file extension, share of our mail
_RECEIVERS = (("google.com", "google.com", "noreply-dmarc-support@google.com", ".zip", 0.42),
              ("Enterprise Outlook", "enterprise.protection.outlook.com", "dmarcreport@microsoft.com", ".xml.gz", 0.33),
              ("Yahoo", "yahoo.com", "dmarchelp@yahooinc.com", ".xml.gz", 0.13))
_SMALL = (("Mail.Ru", "mail.ru", "dmarc_support@corp.mail.ru", ".xml"),
          ("Fastmail Pty Ltd", "fastmail.com", "dmarc-reports@fastmail.com", ".xml"),
          ("GMX", "gmx.net", "dmarc@gmx.net", ".xml"))

Combo = tuple[float, list[tuple[str, str, str]], tuple[str, str]]  # share, DKIM (d, selector, result), SPF (domain, result)


def _binom(rng: random.Random, n: int, p: float) -> int:
    return sum(rng.random() < p for _ in range(n)) if p > 0 else 0


def _split(rng: random.Random, n: int, shares: list[float]) -> list[int]:
    """A multinomial draw of ``n`` over ``shares`` (sequential binomials)."""
    out, left, rest = [], n, 1.0
    for s in shares[:-1]:
        k = _binom(rng, left, min(1.0, s / rest)) if rest > 0 else 0
        out.append(k)
        left, rest = left - k, rest - s
    return out + [left]


def _org(domain: str) -> str:
    labels = domain.split(".")
    for k in range(len(labels) - 1):
        if ".".join(labels[k + 1:]) in PSL:
            return ".".join(labels[k:])
    return domain


def _hosts(rng: random.Random, net: str, k: int) -> list[str]:
    n = ipaddress.ip_network(net)
    span = min(n.num_addresses - 2, 4000)
    return [str(n.network_address + 1 + i) for i in sorted(rng.sample(range(span), k))]


def _source(name: str, ips: list[str], volume: int, weeks: list[float], combos: list[Combo],
            kind: str) -> dict[str, Any]:
    return {"name": name, "ips": ips, "volume": volume, "weeks": weeks, "combos": combos, "kind": kind}


def _senders(rng: random.Random, targets: dict[str, bool], D: str, S: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    q = rng.sample(range(4), 2)
    e = rng.sample(range(8), 3)
    nets = {"m365": [f"192.0.2.{64 * q[0]}/26", f"2001:db8:{rng.randint(0x100, 0x7ff):x}::/48"],
            "relay": [f"192.0.2.{64 * q[1] + 8 * rng.randint(0, 7)}/29"], "esp": [f"198.51.100.{32 * e[0]}/27"],
            "helpdesk": [f"198.51.100.{32 * e[1] + 16 * rng.randint(0, 1)}/28"],
            "payroll": [f"203.0.113.{16 * rng.randint(0, 7)}/28"], "events": [f"198.51.100.{32 * e[2]}/28"]}
    esp, esp_d = rng.choice(_ESP)
    hd, hd_d = rng.choice(_HELPDESK)
    pay, pay_slug = rng.choice(_PAYROLL)
    pay_d = f"{pay_slug}.{S}"
    broken = set() if targets["decision"] else set(rng.choice((("helpdesk",), ("payroll",), ("helpdesk", "payroll"))))
    flat = [rng.uniform(0.85, 1.15) for _ in range(4)]
    campaign = [rng.uniform(0.1, 0.3) for _ in range(4)]
    for k in rng.sample(range(4), 2):
        campaign[k] = rng.uniform(1.5, 2.5)
    payweek = [rng.uniform(0.1, 0.25) for _ in range(4)]
    payweek[rng.randrange(4)] = rng.uniform(2.0, 3.0)

    def with_fail(f: float, ok: list[tuple[str, str, str]], spf: tuple[str, str]) -> list[Combo]:
        bad = [(d, s, "fail") for d, s, _ in ok]
        return [(1 - f, ok, spf), (f, bad, spf)]

    def part(q: float, custom: list[Combo], vendor: Combo) -> list[Combo]:
        return [(s * q, d, p) for s, d, p in custom] + [(vendor[0] * (1 - q), vendor[1], vendor[2])]

    m365 = with_fail(rng.uniform(0.001, 0.006), [(D, "selector1", "pass")], (D, "pass"))
    hd_c = with_fail(rng.uniform(0.005, 0.015), [(D, "hd1", "pass")], (f"bounce.{D}", "pass"))
    pay_c = with_fail(rng.uniform(0.002, 0.008), [(D, "pay1", "pass")], (f"bounce.{pay_d}", "pass"))
    if "helpdesk" in broken:
        hd_c = part(rng.uniform(0.1, 0.8), hd_c, (1.0, [(hd_d, "s1", "pass")], (f"bounce.{D}", "pass")))
    if "payroll" in broken:
        pay_c = part(rng.uniform(0.1, 0.8), pay_c, (1.0, [(pay_d, "default", "pass")], (f"bounce.{pay_d}", "pass")))
    m_ips = _hosts(rng, nets["m365"][0], 3) + _hosts(rng, nets["m365"][1], 1)
    auth = [
        _source("Microsoft 365 (Exchange Online)", m_ips, rng.randint(6000, 24000), flat, m365, "authorised"),
        _source("On-premises SMTP relay", _hosts(rng, nets["relay"][0], 1), rng.randint(300, 1500), flat,
                [(1.0, [], (D, "pass"))], "authorised"),
        _source(esp, _hosts(rng, nets["esp"][0], rng.randint(2, 3)), rng.randint(3000, 15000), campaign,
                with_fail(rng.uniform(0.002, 0.015), [(f"news.{D}", "news", "pass")], (f"bounce.{esp_d}", "pass")),
                "authorised"),
        _source(hd, _hosts(rng, nets["helpdesk"][0], rng.randint(1, 2)), rng.randint(800, 3000), flat, hd_c,
                "authorised"),
        _source(pay, _hosts(rng, nets["payroll"][0], rng.randint(1, 2)), rng.randint(150, 700), payweek, pay_c,
                "authorised")]
    inventory = [
        {"name": auth[0]["name"], "owner": "IT infrastructure", "ranges": nets["m365"], "mfrom": D, "dkim_d": D,
         "approved": "2021-03-01", "note": "all staff mailboxes"},
        {"name": auth[1]["name"], "owner": "IT infrastructure", "ranges": nets["relay"], "mfrom": D, "dkim_d": "",
         "approved": "2019-06-12", "note": "scanners, app alerts; no DKIM"},
        {"name": esp, "owner": "Marketing", "ranges": nets["esp"], "mfrom": f"bounce.{esp_d}", "dkim_d": f"news.{D}",
         "approved": "2023-09-18", "note": "newsletters"},
        {"name": hd, "owner": "Customer service", "ranges": nets["helpdesk"], "mfrom": f"bounce.{D}", "dkim_d": D,
         "approved": "2024-02-05", "note": "ticket notifications; custom DKIM set up at onboarding"},
        {"name": pay, "owner": "People team", "ranges": nets["payroll"], "mfrom": f"bounce.{pay_d}", "dkim_d": D,
         "approved": "2024-11-20", "note": "payslips and P60s" if S.endswith("uk") else "payslips"},
        {"name": "Event ticketing platform", "owner": "Events", "ranges": nets["events"], "mfrom": "", "dkim_d": D,
         "approved": "2025-08-01", "note": "pilot; not sending yet"}]
    taken = [ipaddress.ip_network(n) for s in inventory for n in s["ranges"]]
    pool = [f"{b}.{h}" for b in ("192.0.2", "198.51.100", "203.0.113") for h in range(2, 254)
            if not any(ipaddress.ip_address(f"{b}.{h}") in n for n in taken)]
    out_ips = rng.sample(pool, 12)
    extra = {"esp_domain": esp_d, "hd_domain": hd_d, "pay_domain": pay_d, "nets": nets, "inventory": inventory}
    return auth, {**extra, "pool": out_ips}


def _outsiders(rng: random.Random, targets: dict[str, bool], D: str, S: str, ips: list[str]) -> list[dict[str, Any]]:
    flat = [1.0, 1.0, 1.0, 1.0]
    out = []
    n_spoof, n_fwd = rng.randint(3, 6), rng.randint(2, 4)
    big = rng.randint(400, 1200)
    for k in range(n_spoof):
        dom = rng.choice(_SPAM).format(n=rng.randint(10, 99))
        none: list[tuple[str, str, str]] = []
        kinds: list[list[Combo]] = [[(1.0, none, (D, "fail"))], [(0.7, none, (D, "softfail")), (0.3, none, (dom, "pass"))],
                                    [(1.0, [(dom, "x", "pass")], (dom, "pass"))]]
        combos = rng.choice(kinds)
        vol = big if k == 0 and targets["premise"] else rng.randint(10, 300)
        if k == 0 and targets["premise"]:
            combos = kinds[0]
        weeks = [rng.choice((0.0, 1.0, 1.0)) for _ in range(4)]
        weeks[rng.randrange(4)] = 1.0
        ip = f"2001:db8:bad:{rng.randint(1, 0xfff):x}::{rng.randint(2, 0xff):x}" if k == n_spoof - 1 else ips.pop()
        out.append(_source(f"spoof-{k}", [ip], vol, weeks, combos, "unauthorised"))
    tool, slug = rng.choice(_SHADOW)
    out.append(_source(tool, [ips.pop()], rng.randint(40, 250), flat,
                       [(1.0, [(f"{slug}.{S}", "k1", "pass")], (f"mail.{slug}.{S}", "pass"))], "unauthorised"))
    for k in range(n_fwd):
        fwd = rng.choice(_FWD).format(u=rng.choice(("oakfield", "westmoor", "carrick", "elmstead")))
        sel = rng.choice(((D, "selector1"), (f"news.{D}", "news")))
        spf = (D, "fail") if k == 0 or rng.random() < 0.5 else (fwd, "pass")
        f = rng.uniform(0.05, 0.2)
        combos = [(1 - f, [(sel[0], sel[1], "pass")], spf), (f, [(sel[0], sel[1], "fail")], spf)]
        vol = big if k == 0 and not targets["premise"] else rng.randint(20, 250)
        out.append(_source(f"forwarder-{k}", [ips.pop()], vol, flat, combos, "forwarded"))
    return out


def _pe(combo: Combo, D: str) -> tuple[str, str]:
    """The receiver's verdict under the record in force (relaxed alignment)."""
    _, dk, (sd, sr) = combo
    dkim = "pass" if any(r == "pass" and _org(d) == _org(D) for d, _, r in dk) else "fail"
    return dkim, "pass" if sr == "pass" and _org(sd) == _org(D) else "fail"


def _xml(meta: dict[str, Any], D: str, records: list[tuple[str, int, Combo]]) -> str:
    x = ['<?xml version="1.0" encoding="UTF-8" ?>', "<feedback>"]
    if meta["org"] == "Yahoo":
        x.append("  <version>1.0</version>")
    x += ["  <report_metadata>", f"    <org_name>{meta['org']}</org_name>", f"    <email>{meta['email']}</email>",
          f"    <report_id>{meta['id']}</report_id>",
          f"    <date_range>\n      <begin>{meta['begin']}</begin>\n      <end>{meta['end']}</end>\n    </date_range>",
          "  </report_metadata>", "  <policy_published>", f"    <domain>{D}</domain>", "    <adkim>r</adkim>",
          "    <aspf>r</aspf>", "    <p>none</p>", "    <sp>none</sp>", "    <pct>100</pct>", "    <fo>1</fo>",
          "  </policy_published>"]
    for ip, n, combo in records:
        dk, sp = _pe(combo, D)
        _, sigs, (sd, sr) = combo
        x += ["  <record>", "    <row>", f"      <source_ip>{ip}</source_ip>", f"      <count>{n}</count>",
              "      <policy_evaluated>", "        <disposition>none</disposition>", f"        <dkim>{dk}</dkim>",
              f"        <spf>{sp}</spf>", "      </policy_evaluated>", "    </row>", "    <identifiers>",
              f"      <envelope_from>{sd}</envelope_from>", f"      <header_from>{D}</header_from>",
              "    </identifiers>", "    <auth_results>"]
        for d, s, r in sigs:
            x.append(f"      <dkim>\n        <domain>{d}</domain>\n        <selector>{s}</selector>\n"
                     f"        <result>{r}</result>\n      </dkim>")
        x += [f"      <spf>\n        <domain>{sd}</domain>\n        <scope>mfrom</scope>\n        <result>{sr}</result>\n"
              "      </spf>", "    </auth_results>", "  </record>"]
    return "\n".join(x + ["</feedback>"]) + "\n"


def _writer(name: str, text: str) -> Callable[[Path], None]:
    data = text.encode("utf-8")

    def write(p: Path) -> None:
        if name.endswith(".zip"):
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
                zi = zipfile.ZipInfo(name.rsplit("/", 1)[-1][:-4] + ".xml", (2026, 1, 1, 0, 0, 0))
                zi.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(zi, data)
            p.write_bytes(buf.getvalue())
        elif name.endswith(".gz"):
            p.write_bytes(gzip.compress(data, mtime=0))
        else:
            write_text(p, text)

    return write


def simulate(rng: random.Random, targets: dict[str, bool], rua: str) -> dict[str, Any]:
    S = rng.choice(("co.uk", "org.uk", "com.au", "co.nz"))
    org, slug = rng.choice(_ORGS)
    D = f"{slug}.{S}"
    month = rng.randint(2, 11)
    first = dt.date(2026, month, rng.randint(1, 20))
    start = first + dt.timedelta(days=(7 - first.weekday()) % 7)
    lo = calendar.timegm(start.timetuple())
    week = 7 * 86400
    auth, info = _senders(rng, targets, D, S)
    outs = _outsiders(rng, targets, D, S, info["pool"])
    small = rng.choice(_SMALL)
    receivers = [(o, d, e, x, s) for o, d, e, x, s in _RECEIVERS] + [(*small, 0.12)]
    active = sorted(rng.sample(range(4), rng.randint(2, 4)))
    flagged = next(s["ips"][0] for s in outs if s["volume"] >= 400)
    reports: dict[str, Callable[[Path], None]] = {}
    texts = []
    for w in range(-1, 4):
        for k, (o, dom, mail, ext, share) in enumerate(receivers):
            if w < 0 and k != 0 or k == 3 and w not in active:
                continue
            recs: list[tuple[str, int, Combo]] = []
            for src in auth + outs:
                weight = src["weeks"][w] / sum(src["weeks"]) if w >= 0 else 0.25
                n = round(src["volume"] * weight * share * rng.uniform(0.85, 1.15))
                for ip, m in zip(src["ips"], _split(rng, n, [1 / len(src["ips"])] * len(src["ips"])), strict=True):
                    for combo, c in zip(src["combos"], _split(rng, m, [c[0] for c in src["combos"]]), strict=True):
                        if c:
                            recs.append((ip, c, combo))
            rng.shuffle(recs)
            begin = lo + w * week
            rid = f"{rng.getrandbits(128):032x}" if k == 1 else str(rng.randint(10**18, 10**19))
            meta = {"org": o, "email": mail, "id": rid, "begin": begin, "end": begin + week - 1}
            when = dt.datetime.fromtimestamp(begin, dt.UTC).strftime("%Y-%m")
            name = f"{rua}/{dom}/{when}/{dom}!{D}!{begin}!{begin + week - 1}{ext}"
            text = _xml(meta, D, recs)
            reports[name] = _writer(name, text)
            if w >= 0 and k in (1, 2):
                texts.append((name, text))
    dup_name, dup_text = rng.choice(texts)
    base, ext = (dup_name[:-7], ".xml.gz") if dup_name.endswith(".xml.gz") else (dup_name[:-4], dup_name[-4:])
    reports[f"{base} (1){ext}"] = _writer(f"{base} (1){ext}", dup_text)
    spf = " ".join(f"ip4:{n}" if ":" not in n else f"ip6:{n}" for s in info["inventory"][:2] for n in s["ranges"])
    spf += f" include:spf.{info['esp_domain']} include:mail.{info['hd_domain']} include:spf.{info['pay_domain']}"
    shadow = next(s for s in outs if s["kind"] == "unauthorised" and not s["name"].startswith("spoof"))
    register = [(s["name"], d, o, "approved") for s, d, o in (
        (auth[2], info["esp_domain"], "Marketing"), (auth[3], info["hd_domain"], "Customer service"),
        (auth[4], info["pay_domain"], "People team"))]
    register += [(shadow["name"], shadow["combos"][0][1][0][0], "Communications", "approved for data collection"),
                 ("Slackline chat", "slackline.com", "IT", "approved"), ("Notewell wiki", "notewell.io", "IT", "approved"),
                 ("Cloudvault backup", "cloudvault.net", "IT infrastructure", "approved")]
    prev = start - dt.timedelta(days=rng.randint(70, 110))
    total = sum(s["volume"] for s in auth + outs)
    return {"domain": D, "org": org, "period": [lo, lo + 4 * week - 1], "reports": reports,
            "inventory": info["inventory"], "psl": list(PSL), "spf": spf, "esp_domain": info["esp_domain"],
            "register": register, "flagged": flagged,
            "prev_review": {"name": f"{prev:%Y-%m}_dmarc_monitoring.md", "when": f"{prev:%B %Y}",
                            "messages": round(total * rng.uniform(0.8, 0.95)), "rate": rng.uniform(99.0, 99.8)},
            "distributions": "4 report weeks from 4 receivers (shares 0.42/0.33/0.13/0.12, the small one 2-4 weeks); "
                             "Microsoft 365 6,000-24,000 messages, relay 300-1,500, newsletters 3,000-15,000 in two "
                             "campaign weeks, helpdesk 800-3,000, payroll 150-700 in pay week; DKIM failures 0.1-1.5 %; "
                             "a misconfigured source signs 10-80 % with its vendor's domain; 3-6 spoofers of 10-300, "
                             "one unlisted SaaS sender of 40-250, 2-4 forwarders of 20-250; the flagged address "
                             "400-1,200; pct 10-50"}
