# ---- jobenv workflow ground truth: a month of DMARC aggregate reports reviewed before p=quarantine (web admins) ----
# Standard library and pandas. PARAMS (defined above this code in solve.py) names the folder of aggregate (rua)
# reports, the inventory of authorised senders, the public suffix list excerpt, the review period (UTC epoch
# seconds, inclusive), the record to be published (alignment modes and pct) and the withdrawn first revision, the
# readiness threshold, the address the SOC flagged and the deliverables; ``naive`` names the shortcuts a hurried
# administrator takes (each reproduces one planted mistake):
#   unaligned         a passing SPF or DKIM result counted as a DMARC pass whatever its domain (no alignment)
#   receiver_verdict  the receivers' policy_evaluated verdicts used (the record in force: p=none, relaxed)
#   old_proposal      alignment modes and pct of the withdrawn first revision of the change request
#   org_domain        the organisational domain taken as the last two labels (example.co.uk -> co.uk)
#   duplicates        a report delivered twice counted twice
#   period            every report in the mailbox export counted, the one from before the period too
#   forwarded         addresses outside the inventory counted as unauthorised even when our DKIM passed (forwarding)
#   pct               the quarantine estimate without the pct tag (every failing message)
# Unreadable inputs raise (OSError, KeyError, ValueError) and no output is written.
import gzip
import io
import ipaddress
import os
import xml.etree.ElementTree as ET
import zipfile

try:  # imported from the package; in solve.py these helpers are defined above this code
    from ._deliver import read_frame, rnd, write_memo, write_table, yes_no
except ImportError:
    pass


def report_texts(path):
    """The XML documents in one report file: plain .xml, gzip (.xml.gz, .gz) or a zip holding .xml members."""
    with open(path, "rb") as f:
        data = f.read()
    name = path.lower()
    if name.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            return [z.read(n).decode("utf-8") for n in sorted(z.namelist()) if n.lower().endswith(".xml")]
    if name.endswith(".gz"):
        return [gzip.decompress(data).decode("utf-8")]
    return [data.decode("utf-8")]


def _child(node, path):
    found = node.find(path)
    if found is None:
        raise ValueError(f"an aggregate report without {path}")
    return found


def _txt(node, path):
    return (node.findtext(path) or "").strip()


def parse_report(text):
    """One aggregate report as a dict: org, id, begin, end (epoch seconds) and its records."""
    root = ET.fromstring(text)
    meta = _child(root, "report_metadata")
    records = []
    for rec in root.findall("record"):
        row, auth = _child(rec, "row"), _child(rec, "auth_results")
        records.append({
            "ip": _txt(row, "source_ip"), "count": int(_txt(row, "count")),
            "pe_dkim": _txt(row, "policy_evaluated/dkim").lower(), "pe_spf": _txt(row, "policy_evaluated/spf").lower(),
            "header_from": _txt(rec, "identifiers/header_from").lower(),
            "dkim": [(_txt(d, "domain").lower(), _txt(d, "result").lower()) for d in auth.findall("dkim")],
            "spf": [(_txt(s, "domain").lower(), _txt(s, "result").lower()) for s in auth.findall("spf")
                    if (_txt(s, "scope") or "mfrom").lower() == "mfrom"]})
    return {"org": _txt(meta, "org_name"), "id": _txt(meta, "report_id"), "begin": int(_txt(meta, "date_range/begin")),
            "end": int(_txt(meta, "date_range/end")), "records": records}


def load_reports(folder, P, naive=()):
    """Every report in the rua folder, each (org, report id) once and only those inside the review period, sorted
    by begin, org."""
    root = os.path.join(folder, P["files"]["reports"])
    seen, out = set(), []
    for d, _, names in sorted(os.walk(root)):
        for n in sorted(names):
            if not n.lower().endswith((".xml", ".gz", ".zip")):
                continue
            for text in report_texts(os.path.join(d, n)):
                rep = parse_report(text)
                key = (rep["org"].lower(), rep["id"])
                if key in seen and "duplicates" not in naive:
                    continue
                seen.add(key)
                begin, end = P["period"]
                if (rep["begin"] < begin or rep["end"] > end) and "period" not in naive:
                    continue
                out.append(rep)
    return sorted(out, key=lambda r: (r["begin"], r["org"], r["id"]))


def suffixes(folder, P):
    """The public suffixes of the excerpt (one a line; comments start with //)."""
    with open(os.path.join(folder, P["files"]["psl"]), encoding="utf-8") as f:
        return {ln.strip().lower().lstrip("*.") for ln in f if ln.strip() and not ln.strip().startswith("//")}


def org_domain(domain, psl, naive=()):
    """The organisational domain: the longest public suffix the domain ends with, plus one label."""
    labels = domain.strip(".").lower().split(".")
    if "org_domain" in naive:
        return ".".join(labels[-2:])
    for k in range(len(labels) - 1):
        if ".".join(labels[k + 1:]) in psl:
            return ".".join(labels[k:])
    return ".".join(labels[-2:])


def aligned(domain, header_from, mode, psl, naive=()):
    """DMARC identifier alignment: strict ('s') is the same domain, relaxed ('r') the same organisational domain."""
    if not domain:
        return False
    if mode == "s":
        return domain == header_from
    return org_domain(domain, psl, naive) == org_domain(header_from, psl, naive)


def dmarc_pass(rec, modes, psl, naive=()):
    """DMARC pass: a passing DKIM signature aligned under adkim, or a passing SPF (MAIL FROM) aligned under aspf."""
    if "receiver_verdict" in naive:
        return rec["pe_dkim"] == "pass" or rec["pe_spf"] == "pass"
    if "unaligned" in naive:
        return any(r == "pass" for _, r in rec["dkim"] + rec["spf"])
    hf = rec["header_from"]
    return (any(r == "pass" and aligned(d, hf, modes["adkim"], psl, naive) for d, r in rec["dkim"])
            or any(r == "pass" and aligned(d, hf, modes["aspf"], psl, naive) for d, r in rec["spf"]))


def inventory(folder, P):
    """(source name, networks) per authorised sender; ranges separated by semicolons or spaces."""
    out = []
    for r in read_frame(folder, P["files"]["inventory"]).to_dict("records"):
        nets = [ipaddress.ip_network(t, strict=False) for t in str(r["ip_ranges"]).replace(";", " ").split()]
        out.append((str(r["source"]).strip(), nets))
    return out


def source_of(ip, inv):
    addr = ipaddress.ip_address(ip)
    return next((name for name, nets in inv if any(addr.version == n.version and addr in n for n in nets)), None)


def rate(passed, total):
    return rnd(100.0 * passed / total, 2) if total else 0.0


def analyse(folder, P, naive=()):
    reports = load_reports(folder, P, naive)
    psl, inv = suffixes(folder, P), inventory(folder, P)
    rec_p = P["old_record"] if "old_proposal" in naive else P["record"]
    modes = {"adkim": rec_p["adkim"], "aspf": rec_p["aspf"]}
    by_src: dict = {}
    by_ip: dict = {}
    fwd_ips = set()
    for rep in reports:
        for rec in rep["records"]:
            ok = dmarc_pass(rec, modes, psl, naive)
            src = source_of(rec["ip"], inv)
            key = src if src else rec["ip"]
            t = (by_src if src else by_ip).setdefault(key, [0, 0])
            t[0] += rec["count"]
            t[1] += rec["count"] if ok else 0
            if not src and any(r == "pass" and aligned(d, rec["header_from"], "r", psl, naive) for d, r in rec["dkim"]):
                fwd_ips.add(rec["ip"])
    if "forwarded" in naive:
        fwd_ips = set()

    def ipkey(ip):
        a = ipaddress.ip_address(ip)
        return (a.version, int(a))

    sources = [{"source": s, "category": "authorised", "messages": m, "passed": p, "rate": rate(p, m)}
               for s, (m, p) in sorted(by_src.items())]
    sources += [{"source": ip, "category": "forwarded" if ip in fwd_ips else "unauthorised", "messages": m,
                 "passed": p, "rate": rate(p, m)} for ip, (m, p) in sorted(by_ip.items(), key=lambda kv: ipkey(kv[0]))]
    auth = [s for s in sources if s["category"] == "authorised"]
    unauth = [s for s in sources if s["category"] == "unauthorised"]
    fwd = [s for s in sources if s["category"] == "forwarded"]
    a_msgs, a_pass = sum(s["messages"] for s in auth), sum(s["passed"] for s in auth)
    weakest = min(auth, key=lambda s: (s["rate"], s["source"]))
    total = sum(s["messages"] for s in sources)
    failing = total - sum(s["passed"] for s in sources)
    pct = 100 if "pct" in naive else int(rec_p["pct"])
    facts = {"reports": len(reports), "messages": total, "authorised": a_msgs, "auth_passed": a_pass,
             "auth_rate": rate(a_pass, a_msgs), "sources": sources, "weakest": weakest["source"],
             "weakest_rate": weakest["rate"], "unauth_ips": [s["source"] for s in unauth],
             "unauth_messages": sum(s["messages"] for s in unauth), "forward_ips": [s["source"] for s in fwd],
             "forwarded": sum(s["messages"] for s in fwd), "failing": failing,
             "quarantine": int(rnd(failing * pct / 100.0, 0)), "pct": pct}
    facts["decision"] = all(s["rate"] >= P["threshold"] for s in auth)  # ready for p=quarantine
    facts["premise"] = P["flagged_ip"] in facts["unauth_ips"]  # the SOC's flagged address is an unauthorised sender
    return facts


def _memo_lines(P, facts):
    L = P["labels"]
    return [f"{L['reports']}: {facts['reports']}", f"{L['messages']}: {facts['messages']}",
            f"{L['authorised']}: {facts['authorised']}", f"{L['auth_rate']}: {facts['auth_rate']:.2f}",
            f"{L['weakest']}: {facts['weakest']}", f"{L['unauth_count']}: {len(facts['unauth_ips'])}",
            f"{L['unauth_messages']}: {facts['unauth_messages']}", f"{L['forwarded']}: {facts['forwarded']}",
            f"{L['quarantine']}: {facts['quarantine']}", f"{L['decision']}: {yes_no(facts['decision'])}",
            f"{L['premise']}: {yes_no(facts['premise'])}"]


def write_outputs(output_dir, P, facts):
    os.makedirs(output_dir, exist_ok=True)
    D, C = P["deliverables"], P["out_columns"]
    rows = [[s["source"], s["category"], s["messages"], s["passed"], f"{s['rate']:.2f}"] for s in facts["sources"]]
    write_table(os.path.join(output_dir, D["table"]), [C["source"], C["category"], C["messages"], C["passed"],
                                                       C["rate"]], rows)
    rec = P["record"]
    write_memo(os.path.join(output_dir, D["memo"]), [f"DMARC review of {P['domain']} before p=quarantine", ""]
               + _memo_lines(P, facts) + [
        "", f"Record reviewed: p=quarantine; pct={rec['pct']}; adkim={rec['adkim']}; aspf={rec['aspf']} (the approved "
        "revision of the change request).",
        "Method: each report read once (organisation and report id) and only reports inside the review period; "
        "DMARC pass recomputed from the auth_results (a passing DKIM signature or SPF MAIL FROM aligned with the "
        "header From under the record's modes, organisational domains from the public suffix list), not from the "
        "receivers' policy_evaluated; source addresses mapped to the inventory of authorised senders; addresses "
        "outside it with a passing DKIM signature of our domain counted as forwarded mail, the rest unauthorised; "
        "the quarantine estimate is the failing messages times pct."])
