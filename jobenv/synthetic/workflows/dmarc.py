"""A month of DMARC aggregate reports reviewed before a domain moves from p=none to p=quarantine (web administrators).

The organisation's domain sits under a two-label public suffix (co.uk, org.uk, com.au, co.nz). Four report weeks
(Monday 00:00 to Sunday 23:59:59 UTC) of aggregate (rua) reports are generated from 4 receivers (the small one on 2-4
of the weeks), weekly as the record's ri asks, saved by receiver and month as they arrive (.zip, .xml.gz, .xml), plus
one re-delivered report and one report of the week before the period. Authorised senders (the inventory, CIDR
ranges): Microsoft 365 (6,000-24,000 messages a month, SPF and DKIM on the domain), an on-premises relay (300-1,500,
SPF only), a newsletter platform (3,000-15,000 in two campaign weeks; SPF on its own bounce domain, DKIM d=news.<domain>
so aligned only when relaxed), a helpdesk (600-3,000; SPF on bounce.<domain>, aligned only when relaxed; DKIM on the
domain) and a payroll service on the same public suffix (150-700, mostly in pay week; SPF on its own domain, DKIM on
ours). DKIM failures are 0.2-1.5 % of a source's mail. When the domain is not to be ready, the helpdesk and/or the
payroll service sign 10-80 % of their mail with the vendor's own domain. Outside the inventory: 3-6 spoofing
addresses (10-300 messages, one at 400-1,200 when the SOC's flagged address is to be spoofing), one unlisted SaaS
tool of the same suffix signing with its own domain (40-250) and 2-4 forwarders of our mail (DKIM passes, SPF fails;
one at 400-1,200 when the flagged address is to be a forwarder). Receivers' policy_evaluated reflects the record in
force (p=none, relaxed). The approved revision of the change request publishes adkim=r, aspf=s and pct 10-50; the
withdrawn first revision (archived pdf) had adkim=s, aspf=r, pct=100. Readiness: every authorised source at or above
97.0-98.0 %.

Failure behaviour: ``draw`` raises DegenerateTask when the targets are missed, a source's pass rate sits within 0.2 of
the threshold, the weakest source is not clear, or a planted trap moves no
graded figure; ``recheck`` raises OSError, KeyError or ValueError on a folder that is not this workflow's.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import gzip
import io
import ipaddress
import random
import tempfile
import zipfile
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any
from xml.dom import minidom

from ...tasks import Rubric
from ..common import DegenerateTask, fld, fld_num, llm, rubric, tol
from ..compose import email_text, instructions, meeting_notes, person
from ..professions import profession
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx
from .base import Draft, Facts, Workflow, pick_labels, place_away, read_rows, write_files
from .dmarc_mail import simulate

__all__ = ["DMARC_REVIEW"]

_LABELS = {
    "reports": ("Reports reviewed", "Aggregate reports counted", "Reports in the review"),
    "messages": ("Messages in the period", "Messages reported", "Total messages reported"),
    "authorised": ("Messages from authorised sources", "Authorised-source messages", "Authorised mail volume"),
    "auth_rate": ("DMARC pass rate of authorised mail (%)", "Authorised DMARC pass rate (%)",
                  "Pass rate, authorised sources (%)"),
    "weakest": ("Weakest authorised source", "Authorised source with the worst pass rate", "Worst-passing source"),
    "unauth_count": ("Unauthorised sending addresses", "Unauthorised source IPs", "Addresses sending without authority"),
    "unauth_messages": ("Messages from unauthorised addresses", "Unauthorised messages", "Unauthorised mail volume"),
    "forwarded": ("Forwarded messages", "Messages forwarded by third parties", "Forwarded mail volume"),
    "quarantine": ("Messages the new record would quarantine", "Quarantine estimate for the period",
                   "Estimated messages quarantined"),
    "decision": ("Ready to move to quarantine", "Ready for the quarantine policy", "Go ahead with quarantine"),
    "premise": ("{ip} is an unauthorised sender", "SOC's flagged address {ip} is spoofing",
                "{ip} should be treated as spoofing"),
}
_OUT = {"source": ("source", "sending_source", "sender"), "category": ("category", "classification", "class"),
        "messages": ("messages", "message_count", "volume"), "passed": ("dmarc_pass", "passing", "pass_count"),
        "rate": ("pass_rate_pct", "dmarc_pass_pct", "pass_pct")}
_DIRS = {"rua": ("rua", "dmarc/rua", "reports/rua"), "docs": ("docs", "runbooks", "security/docs"),
         "inv": ("senders", "inventory", "mail_inventory"), "mail": ("mail", "correspondence", "email")}
SHORTCUTS = ("unaligned", "receiver_verdict", "old_proposal", "org_domain", "duplicates", "period", "forwarded", "pct")


# ---- the independent computation: minidom, its own alignment and its own tallies ----------------------------------

def _docs(path: Path) -> list[bytes]:
    raw = path.read_bytes()
    if raw[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            return [z.read(i) for i in z.infolist() if i.filename.lower().endswith(".xml")]
    return [gzip.decompress(raw)] if raw[:2] == b"\x1f\x8b" else [raw]


def _text(node: Any, tag: str) -> str:
    found = node.getElementsByTagName(tag)
    return "".join(c.data for c in found[0].childNodes if c.nodeType == c.TEXT_NODE).strip().lower() if found else ""


def _registered(domain: str, psl: set[str]) -> str:
    parts = domain.split(".")
    cands = [".".join(parts[i:]) for i in range(1, len(parts))]
    suffix = max((c for c in cands if c in psl), key=len, default=".".join(parts[-1:]))
    return ".".join(parts[-(suffix.count(".") + 2):])


def recheck(folder: Path, P: dict[str, Any]) -> Facts:
    """Every graded fact from the task folder without the solver's code: the reports read with minidom (format told
    by its magic bytes), the alignment and the tallies done in one pass per record."""
    folder, F = Path(folder), P["files"]
    psl = {ln.strip().lower() for ln in (folder / F["psl"]).read_text(encoding="utf-8").splitlines()
           if ln.strip() and not ln.startswith("//")}
    nets = [(r["source"].strip(), [ipaddress.ip_network(x) for x in r["ip_ranges"].replace(";", " ").split()])
            for r in read_rows(folder / F["inventory"])]
    lo, hi = P["period"]
    modes, pct = P["record"], int(P["record"]["pct"])
    seen: set[tuple[str, str]] = set()
    tally: dict[str, list[int]] = {}
    named: dict[str, str] = {}
    dkim_ok: set[str] = set()
    n_reports = 0
    for path in sorted(p for p in (folder / F["reports"]).rglob("*") if p.is_file()):
        for raw in _docs(path):
            doc = minidom.parseString(raw)
            meta = doc.getElementsByTagName("report_metadata")[0]
            ident = (_text(meta, "org_name"), _text(meta, "report_id"))
            if ident in seen or not (lo <= int(_text(meta, "begin")) and int(_text(meta, "end")) <= hi):
                continue
            seen.add(ident)
            n_reports += 1
            for rec in doc.getElementsByTagName("record"):
                ip, n = _text(rec, "source_ip"), int(_text(rec, "count"))
                hf = _text(rec, "header_from")
                addr = ipaddress.ip_address(ip)
                src = next((s for s, ns in nets if any(addr in x for x in ns if x.version == addr.version)), "")
                named[ip] = src
                ok = False
                for node in rec.getElementsByTagName("auth_results")[0].childNodes:
                    if node.nodeType != node.ELEMENT_NODE or _text(node, "result") != "pass":
                        continue
                    d = _text(node, "domain")
                    if node.tagName == "spf" and _text(node, "scope") not in ("", "mfrom"):
                        continue
                    mode = modes["adkim"] if node.tagName == "dkim" else modes["aspf"]
                    ok = ok or (d == hf if mode == "s" else _registered(d, psl) == _registered(hf, psl))
                    if node.tagName == "dkim" and _registered(d, psl) == _registered(hf, psl):
                        dkim_ok.add(ip)
                t = tally.setdefault(src or ip, [0, 0])
                t[0] += n
                t[1] += n if ok else 0

    def pc(a: int, b: int) -> float:
        return float(Decimal(100 * a / b).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)) if b else 0.0

    auth_names = sorted({s for s in named.values() if s})
    outside = sorted({ip for ip, s in named.items() if not s},
                     key=lambda ip: (ipaddress.ip_address(ip).version, int(ipaddress.ip_address(ip))))
    rows = [{"source": s, "category": "authorised", "messages": tally[s][0], "rate": pc(tally[s][1], tally[s][0])}
            for s in auth_names]
    rows += [{"source": ip, "category": "forwarded" if ip in dkim_ok else "unauthorised", "messages": tally[ip][0],
              "rate": pc(tally[ip][1], tally[ip][0])} for ip in outside]
    a_m = sum(tally[s][0] for s in auth_names)
    a_p = sum(tally[s][1] for s in auth_names)
    fail = sum(t[0] - t[1] for t in tally.values())
    unauth = [r["source"] for r in rows if r["category"] == "unauthorised"]
    weakest = min((r for r in rows if r["category"] == "authorised"), key=lambda r: (r["rate"], r["source"]))
    return {"reports": n_reports, "messages": sum(t[0] for t in tally.values()), "authorised": a_m,
            "auth_rate": pc(a_p, a_m), "sources": rows, "weakest": weakest["source"], "weakest_rate": weakest["rate"],
            "unauth_ips": unauth, "unauth_messages": sum(r["messages"] for r in rows if r["source"] in unauth),
            "forward_ips": [r["source"] for r in rows if r["category"] == "forwarded"],
            "forwarded": sum(r["messages"] for r in rows if r["category"] == "forwarded"),
            "quarantine": int(Decimal(fail * pct / 100).quantize(Decimal(1), rounding=ROUND_HALF_UP)),
            "decision": all(r["rate"] >= P["threshold"] for r in rows if r["category"] == "authorised"),
            "premise": P["flagged_ip"] in unauth}


# ---- the workspace ------------------------------------------------------------------------------------------------

def _utc(epoch: int) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _runbook(P: dict[str, Any]) -> list[str]:
    D, lo, hi = P["domain"], P["period"][0], P["period"][1]
    return [
        f"Email authentication runbook: moving {D} to DMARC enforcement (rev. {P['runbook_rev']}, current)",
        f"- Review period: the four report weeks from {_utc(lo)} to {_utc(hi)}. A report is in the review when both "
        "its date_range begin and end (Unix seconds, UTC) fall inside the period.",
        f"- Reports: receivers send aggregate reports weekly (our record asks ri=604800); the mailbox rule saves them "
        f"under {P['files']['reports']}/<receiver>/<month of the report's begin>/ as sent (.zip, .xml.gz or .xml). A "
        "report is identified by its org_name and report_id: a report saved twice counts once.",
        f"- Sources: map each record's source_ip to the inventory of authorised senders ({P['files']['inventory']}, "
        "CIDR ranges). An address outside the inventory is forwarded mail when any of its records in the period shows "
        "a passing DKIM signature whose d= domain is aligned (relaxed) with the header From: our own mail relayed by a "
        "list or a mailbox rule. Every other address outside the inventory is an unauthorised sender. The SaaS "
        "register records purchases, not sending rights.",
        "- DMARC result: a message passes when a DKIM signature passed and its d= domain is aligned with the header "
        "From under adkim, or SPF passed for the MAIL FROM domain (the auth_results spf domain) and that domain is "
        "aligned under aspf. Strict (s) alignment needs the identical domain; relaxed (r) the same organisational "
        f"domain: the longest public suffix of {P['files']['psl']} plus one label (mail.example.co.uk and "
        "example.co.uk share example.co.uk). [1]",
        "- Record: use the alignment modes and pct of the approved revision of the change request.",
        "- Rates: a pass rate is passing messages / messages x 100, in per cent to 2 decimals, rounded half up. The "
        "authorised pass rate pools the messages of every authorised source.",
        f"- Readiness: {D} is ready for p=quarantine when every authorised source with mail in the period passes "
        f"DMARC on at least {P['threshold']:.1f} % of its messages. Forwarded and unauthorised mail do not count "
        "against readiness.",
        "- Quarantine estimate: the period's DMARC-failing messages from every source (authorised, forwarded and "
        "unauthorised) x pct / 100, rounded half up to a whole message.",
        "- Sources table: one row per authorised source with mail in the period (named as in the inventory) and one "
        "row per address outside the inventory. The weakest authorised source is the one with the lowest pass rate.",
        "[1] Do not take the result from a report's policy_evaluated block: receivers evaluate against the record "
        "published when the mail arrived (p=none, relaxed alignment). Recompute it from auth_results and the "
        "identifiers with the alignment modes of the record to be published."]


def _record(P: dict[str, Any], r: dict[str, Any]) -> str:
    return (f"v=DMARC1; p=quarantine; pct={r['pct']}; adkim={r['adkim']}; aspf={r['aspf']}; "
            f"rua=mailto:dmarc-rua@{P['domain']}; ri=604800; fo=1")


def _workspace(rng: random.Random, P: dict[str, Any], sim: dict[str, Any], data: dict[str, Any],
               dirs: dict[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "data", write)
    D, docs, mail, F = P["domain"], dirs["docs"], dirs["mail"], P["files"]
    inv = [[s["name"], s["owner"], "; ".join(s["ranges"]), s["mfrom"], s["dkim_d"], s["approved"], s["note"]]
           for s in sim["inventory"]]
    add(F["inventory"], "data", lambda p: write_csv(
        p, ["source", "owner", "ip_ranges", "envelope_from", "dkim_d", "approved", "notes"], inv))
    add(F["psl"], "reference", lambda p: write_text(p, "\n".join([
        "// Public Suffix List excerpt (publicsuffix.org, ICANN section): the suffixes of the domains our senders",
        "// and receivers use. Lines starting // are comments.", *sim["psl"]]) + "\n"))
    add(f"{docs}/email_authentication_runbook.docx", "policy",
        lambda p: write_docx(p, "DMARC enforcement runbook", _runbook(P)))
    chg, rev2 = P["change"], P["record"]
    add(f"{docs}/changes/{chg}_rev2_dmarc_quarantine.docx", "policy", lambda p: write_docx(p, f"{chg} rev 2", [
        f"Change request {chg}, revision 2 - move {D} from p=none to DMARC enforcement.",
        f"Record to publish at _dmarc.{D}: {_record(P, rev2)}",
        f"Revision note: revision 1 (adkim=s, aspf=r, pct=100) is withdrawn. Strict DKIM alignment would fail the "
        f"newsletter platform, which signs with d=news.{D}; revision 2 keeps DKIM relaxed, makes SPF strict and "
        f"stages the roll-out at pct={rev2['pct']}.",
        f"Status: approved by the CAB on {P['cab_date']}; go-live waits for the monthly report review."]))
    add(f"{docs}/changes/archive/{chg}_rev1_dmarc_quarantine.pdf", "stale", lambda p: write_pdf(p, f"{chg} rev 1", [
        f"Change request {chg}, revision 1 - move {D} from p=none to DMARC enforcement.",
        f"Record to publish at _dmarc.{D}: {_record(P, P['old_record'])}",
        "Rationale: strict DKIM alignment stops look-alike subdomains; full enforcement from day one."]))
    zone = [f"$ORIGIN {D}.", f"@ 3600 IN MX 0 {D.replace('.', '-')}.mail.protection.outlook.com.",
            f'@ 3600 IN TXT "v=spf1 {sim["spf"]} -all"',
            f'_dmarc 3600 IN TXT "v=DMARC1; p=none; rua=mailto:dmarc-rua@{D}; ri=604800; fo=1"',
            f"selector1._domainkey 3600 IN CNAME selector1-{D.replace('.', '-')}._domainkey.onmicrosoft.com.",
            f"news._domainkey.news 3600 IN CNAME dkim.{sim['esp_domain']}.", "www 3600 IN CNAME web.hosting.net."]
    add(f"dns/{D}_zone_export.txt", "reference", lambda p: write_text(p, "\n".join(zone) + "\n"))
    reg = [[t, v, o, s] for t, v, o, s in sim["register"]]
    add(f"{dirs['inv']}/saas_register.xlsx", "distractor", lambda p: write_xlsx(
        p, [("Register", ["application", "vendor_domain", "owner", "status"], reg)]))
    soc, lead = person(rng), P["requester"]
    sent = P["request_date"]
    add(f"{mail}/{sent}_soc_flagged_address.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{soc}, SOC analyst", to=f"{lead}; web administration", date=sent,
        subject=f"Spoofing of {D} from {P['flagged_ip']}?",
        body=f"Google's reports show {P['flagged_ip']} sending a few hundred messages a month as {D}, failing SPF. It "
             "is not in our SPF record. I'd like to block it at the gateway and list it as spoofing in the audit "
             "pack unless you see a reason not to.")))
    add(f"{mail}/{P['cab_date']}_cab_outcome.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Change Manager", to="web administration", date=P["cab_date"],
        subject=f"{P['change']} approved (revision 2)",
        body=f"The CAB approved revision 2 of {P['change']}. Revision 1 is withdrawn; please review the last four "
             "weeks of aggregate reports against the revision 2 record before go-live.")))
    prev = sim["prev_review"]
    add(f"reviews/{prev['name']}", "distractor", lambda p: write_text(p, (
        f"# DMARC monitoring note, {prev['when']}\n\nStill at p=none. Receivers reported {prev['messages']:,} "
        f"messages; the vendor dashboard shows {prev['rate']:.1f} % passing SPF or DKIM. Newsletter platform "
        "moved to its own DKIM key (news selector). Next step: change request for enforcement.\n")))
    add(f"meetings/{sent}_platform_standup.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic="DMARC enforcement", people=[person(rng) for _ in range(3)], date=sent)))
    return w, roles


# ---- drawing a task ----------------------------------------------------------------------------------------------

def draw(rng: random.Random, occupation: str, targets: dict[str, bool]) -> Draft:
    from ..solvers.dmarc import analyse

    prof = dataclasses.replace(profession(occupation), occasions=(
        "the security audit is next week and enforcement is on its list", "the CAB approved the change and go-live "
        "waits for this review", "a customer reported spoofed invoices from our domain"))
    dirs = pick_labels(rng, _DIRS)
    sim = simulate(rng, targets, dirs["rua"])
    D = sim["domain"]
    P: dict[str, Any] = {
        "domain": D, "period": sim["period"], "threshold": rng.choice((97.0, 97.5, 98.0)),
        "record": {"adkim": "r", "aspf": "s", "pct": 100},
        "old_record": {"adkim": "s", "aspf": "r", "pct": 100}, "flagged_ip": sim["flagged"],
        "change": f"CHG{rng.randint(10000, 99999)}", "runbook_rev": rng.choice(("2026-01", "2026-02", "2025-11")),
        "cab_date": "", "request_date": "",
        "files": {"reports": dirs["rua"], "inventory": f"{dirs['inv']}/authorised_senders.csv",
                  "psl": f"{dirs['docs']}/public_suffix_list_excerpt.txt"},
        "labels": {}, "out_columns": pick_labels(rng, _OUT),
        "deliverables": {"memo": rng.choice(("dmarc_review_memo.docx", "dmarc_enforcement_recommendation.docx",
                                             "dmarc_readiness_memo.docx")),
                         "table": rng.choice(("dmarc_sources.csv", "sending_sources.csv", "dmarc_source_review.csv"))}}
    end = dt.datetime.fromtimestamp(P["period"][1], dt.UTC).date()
    P["cab_date"] = (end - dt.timedelta(days=rng.randint(9, 20))).isoformat()
    P["request_date"] = (end + dt.timedelta(days=rng.randint(2, 5))).isoformat()
    core = {**sim["reports"], P["files"]["inventory"]: lambda p: write_csv(
        p, ["source", "ip_ranges"], [[s["name"], "; ".join(s["ranges"])] for s in sim["inventory"]]),
        P["files"]["psl"]: lambda p: write_text(p, "\n".join(sim["psl"]) + "\n")}
    with tempfile.TemporaryDirectory(prefix="jobenv-wf-") as tmp:
        write_files(Path(tmp), core)
        failing = analyse(tmp, P)["failing"]  # the staged pct is chosen so that the estimate sits on no half
        P["record"]["pct"] = rng.choice([p for p in (10, 20, 25, 50) if failing * p % 100 != 50])
        truth = analyse(tmp, P)
        singles = {s: analyse(tmp, P, (s,)) for s in SHORTCUTS}
    if (truth["decision"], truth["premise"]) != (targets["decision"], targets["premise"]):
        raise DegenerateTask("the targets are missed")
    auth = [s for s in truth["sources"] if s["category"] == "authorised"]
    if any(abs(s["rate"] - P["threshold"]) < 0.2 for s in auth):
        raise DegenerateTask("a source's pass rate sits at the readiness threshold")
    if not place_away(truth["weakest_rate"], [s["rate"] for s in auth if s["source"] != truth["weakest"]], 2):
        raise DegenerateTask("the weakest authorised source is not clear")
    keys = ("reports", "messages", "authorised", "unauth_ips", "unauth_messages", "forwarded", "quarantine",
            "weakest", "decision", "premise")

    def moved(f: Facts) -> bool:
        rates = {s["source"]: s["rate"] for s in f["sources"]}
        return any(f[k] != truth[k] for k in keys) or place_away(f["auth_rate"], [truth["auth_rate"]], 2) or any(
            place_away(rates.get(s["source"], -9.0), [s["rate"]], 2) for s in auth)

    where = {"unaligned": ("data", "a passing SPF or DKIM result on another domain is not a DMARC pass"),
             "receiver_verdict": ("footnote", "policy_evaluated reflects the record in force, not the one to publish"),
             "old_proposal": ("memo", "revision 1 of the change request (strict DKIM, pct=100) is withdrawn"),
             "org_domain": ("reference", "the organisational domain under a two-label public suffix"),
             "duplicates": ("data", "a report saved twice counts once"),
             "period": ("data", "a report of the week before the period is in the mailbox export"),
             "forwarded": ("data", "forwarders fail SPF but carry our passing DKIM signature"),
             "pct": ("memo", "the record's pct tag stages the quarantine")}
    traps = [{"kind": s, "where": where[s][0], "description": where[s][1], "naive": s}
             for s, f in singles.items() if moved(f)]
    if len(traps) < len(SHORTCUTS):
        raise DegenerateTask("a planted trap moves no graded figure")
    P["source_names"] = [s["name"] for s in sim["inventory"]]
    P["requester"] = person(rng)
    labels = pick_labels(rng, _LABELS)
    labels["premise"] = labels["premise"].format(ip=P["flagged_ip"])
    P["labels"] = labels
    writers, roles = _workspace(rng, P, sim, sim["reports"], dirs)
    L, Dl, C = labels, P["deliverables"], P["out_columns"]
    whole = "whole number"
    memo_labels = [(L["reports"], whole), (L["messages"], whole), (L["authorised"], whole),
                   (L["auth_rate"], "percent to 2 decimal places"), (L["weakest"], "source name as in the inventory"),
                   (L["unauth_count"], whole), (L["unauth_messages"], whole), (L["forwarded"], whole),
                   (L["quarantine"], whole), (L["decision"], "yes or no"), (L["premise"], "yes or no")]
    prompt = instructions(
        rng, prof=prof, requester=P["requester"], role="IT Security Lead", org=sim["org"],
        subject=f"DMARC reports for {D} before p=quarantine",
        purpose=rng.choice((f"I need last month's DMARC aggregate reports for {D} reviewed before we publish the "
                            "quarantine record: who sends as us, who passes, and are we ready?",
                            f"please go through the four weeks of DMARC reports for {D} and tell me whether we can move "
                            "from p=none to quarantine without losing legitimate mail.")),
        about=f"the receivers' aggregate reports for {D}, the inventory of authorised senders and the change request",
        belief=f"The SOC says {P['flagged_ip']} is spoofing us and wants to block it; please confirm.",
        table={"file": Dl["table"], "headers": [C["source"], C["category"], C["messages"], C["passed"], C["rate"]],
               "unit": "sending source (pass rate in percent to 2 decimals)"},
        memo_file=Dl["memo"], memo_labels=memo_labels,
        extra_deliverables=(f"In {Dl['table']}, {C['category']} is authorised, forwarded or unauthorised; an "
                            f"authorised source is named as in the inventory, any other source by its IP address.",),
        policy=f"the runbook in {dirs['docs']}/", files=sorted(writers))
    return Draft(subject=f"DMARC review {D}", instructions=prompt, files=writers, roles=roles, params=P, traps=traps,
                 targets=dict(targets), distributions=sim["distributions"])


def rubrics(facts: Facts, P: dict[str, Any], judgement: bool) -> list[Rubric]:
    from ...check_models import CellCheck, FieldCheck, RowCountCheck

    D, L, C = P["deliverables"], P["labels"], P["out_columns"]
    memo, table = D["memo"], D["table"]
    yes = lambda b: "yes" if b else "no"  # noqa: E731

    def count(key: str, v: int) -> tuple[str, Any]:
        return f"{memo}: {L[key]} = {v}", FieldCheck(file=memo, label=L[key], number=float(v), tolerance=0.0)

    def cell(s: dict[str, Any], col: str) -> tuple[str, Any]:
        v = s[col]
        shown = v if isinstance(v, str) else f"{v:.2f}" if col == "rate" else f"{v}"
        tolerance = tol(2) if col == "rate" else 0.0
        return (f"{table}: {s['source']} {C[col]} = {shown}", CellCheck(
            file=table, match={C["source"]: s["source"]}, column=C[col],
            value=v if isinstance(v, str) else float(v), tolerance=tolerance))

    auth = [s for s in facts["sources"] if s["category"] == "authorised"]
    outside = [s for s in facts["sources"] if s["category"] != "authorised"]
    rate = (f"{memo}: {L['auth_rate']} = {facts['auth_rate']:.2f}", fld_num(memo, L["auth_rate"], facts["auth_rate"], 2))
    names = sorted(set(P["source_names"]) | {s["source"] for s in auth})
    weakest = (f"{memo}: {L['weakest']}: {facts['weakest']}", fld(memo, L["weakest"], facts["weakest"], names))
    unauth = facts["unauth_ips"]
    out = [
        rubric("Reads each aggregate report once and only the reports of the review period", 10, [
            count("reports", facts["reports"]), count("messages", facts["messages"])]),
        rubric("Recomputes DMARC from SPF and DKIM alignment under the approved record's modes", 10, [
            rate, *[cell(s, "rate") for s in auth]]),
        rubric("Maps the sending addresses to the inventory of authorised senders", 8, [
            count("authorised", facts["authorised"]), *[cell(s, "messages") for s in auth], weakest]),
        rubric("Tells forwarded mail from unauthorised senders", 10, [
            count("unauth_count", len(unauth)), count("unauth_messages", facts["unauth_messages"]),
            count("forwarded", facts["forwarded"]),
            (f"{table} has {len(unauth)} rows of {C['category']} unauthorised", RowCountCheck(
                file=table, key=C["source"], where={C["category"]: "unauthorised"}, count=len(unauth))),
            *[cell(s, "category") for s in outside]]),
        rubric("Estimates the quarantined mail with the approved record's pct", 8, [
            count("quarantine", facts["quarantine"])]),
        rubric("Decides readiness from every authorised source against the runbook's threshold", 8, [
            (f"{memo}: {L['decision']}: {yes(facts['decision'])}",
             fld(memo, L["decision"], yes(facts["decision"]), ["yes", "no"])), weakest, rate]),
        rubric(f"Settles whether {P['flagged_ip']} is spoofing or forwarding", 6, [
            (f"{memo}: {L['premise']}: {yes(facts['premise'])}",
             fld(memo, L["premise"], yes(facts["premise"]), ["yes", "no"])),
            *[cell(s, c) for s in outside if s["source"] == P["flagged_ip"] for c in ("category", "messages")]]),
    ]
    if judgement:
        out.append(rubric("Writes a recommendation the security lead can take to the audit", 6, [
            ("Says which authorised sources fail alignment and what each must fix (DKIM on our domain, SPF strictness)",
             llm("content")),
            ("Explains forwarded mail, the withdrawn revision and why the receivers' verdicts were not used",
             llm("explanation")),
            ("Gives a plain go or no-go with the staged pct", llm("writing"))]))
    return out


DMARC_REVIEW = Workflow(
    key="dmarc_report_review", family="email_security",
    method="DMARC aggregate report parse (zip, gzip, xml), each report once within the period; DMARC recomputed "
           "from SPF and DKIM identifier alignment (strict or relaxed, organisational domain by the public suffix "
           "list) under the record to publish; sources by the inventory's CIDR ranges; forwarders by aligned DKIM; "
           "readiness threshold per source; quarantine estimate with pct",
    professions=("web_administrators",), solver="dmarc", shortcuts=SHORTCUTS, draw=draw, recheck=recheck,
    rubrics=rubrics, data="generated DMARC aggregate reports (RFC 7489 schema) and sender inventory (stated "
                          "distributions)")
