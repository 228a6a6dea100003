"""DMARC report review: organisational domains under a two-label public suffix, strict and relaxed identifier
alignment and the DMARC result on hand-worked records, the solver and the independent recheck on a mailbox export
built by hand (a zip, a gzip, a plain report, a re-delivery and a report of the week before), each shortcut moving the
figure it should, and the reward a drawn task pays for a correct answer written by hand in another layout, a wrong, a
hedged and a blind one, and the withdrawn first revision of the change request."""

from __future__ import annotations

import csv
import gzip
import json
import zipfile
from pathlib import Path

import pytest

from jobenv.synthetic.solvers import dmarc as solver
from jobenv.synthetic.workflows.dmarc import DMARC_REVIEW as WF
from jobenv.synthetic.workflows.dmarc import recheck
from jobenv.synthetic.writers import write_csv

from .conftest import score_output, write_memo_lines

PSL = {"com", "net", "uk", "co.uk"}


def test_the_organisational_domain_takes_the_longest_public_suffix():
    assert solver.org_domain("news.acme.co.uk", PSL) == "acme.co.uk"
    assert solver.org_domain("acme.co.uk", PSL) == "acme.co.uk"
    assert solver.org_domain("bounce.esp.com", PSL) == "esp.com"
    assert solver.org_domain("acme.co.uk", PSL, ("org_domain",)) == "co.uk"  # the last two labels
    assert solver.aligned("tool.co.uk", "acme.co.uk", "r", PSL, ("org_domain",))  # a stranger "aligns"
    assert not solver.aligned("tool.co.uk", "acme.co.uk", "r", PSL)


def test_strict_alignment_needs_the_identical_domain_and_relaxed_the_same_organisation():
    assert solver.aligned("news.acme.co.uk", "acme.co.uk", "r", PSL)
    assert not solver.aligned("news.acme.co.uk", "acme.co.uk", "s", PSL)
    assert solver.aligned("ACME.co.uk".lower(), "acme.co.uk", "s", PSL)
    assert not solver.aligned("", "acme.co.uk", "r", PSL)


def _rec(dkim=(), spf=("", "none"), pe=("fail", "fail")):
    return {"header_from": "acme.co.uk", "dkim": list(dkim), "spf": [spf], "pe_dkim": pe[0], "pe_spf": pe[1]}


def test_dmarc_passes_on_one_aligned_passing_identifier():
    modes = {"adkim": "r", "aspf": "s"}
    newsletter = _rec([("news.acme.co.uk", "pass")], ("bounce.esp.com", "pass"), ("pass", "fail"))
    assert solver.dmarc_pass(newsletter, modes, PSL)
    assert not solver.dmarc_pass(newsletter, {"adkim": "s", "aspf": "r"}, PSL)  # the withdrawn revision 1
    helpdesk = _rec([("desk.com", "pass")], ("bounce.acme.co.uk", "pass"), ("fail", "pass"))
    assert not solver.dmarc_pass(helpdesk, modes, PSL)  # SPF passes, but strict SPF wants acme.co.uk itself
    assert solver.dmarc_pass(helpdesk, modes, PSL, ("receiver_verdict",))  # the receiver judged it relaxed
    broken = _rec([("news.acme.co.uk", "fail")], ("bounce.esp.com", "pass"))
    assert not solver.dmarc_pass(broken, modes, PSL) and solver.dmarc_pass(broken, modes, PSL, ("unaligned",))


# ---- a mailbox export worked by hand ----------------------------------------------------------------------------

LO = 1_767_571_200  # Monday 2026-01-05 00:00 UTC
WEEK = 7 * 86400


def _xml(org: str, rid: str, begin: int, records: list[tuple]) -> str:
    out = [f"<feedback><report_metadata><org_name>{org}</org_name><email>x@{org}</email><report_id>{rid}</report_id>"
           f"<date_range><begin>{begin}</begin><end>{begin + WEEK - 1}</end></date_range></report_metadata>"
           "<policy_published><domain>acme.co.uk</domain><adkim>r</adkim><aspf>r</aspf><p>none</p></policy_published>"]
    for ip, n, pe, dkim, spf in records:
        sigs = "".join(f"<dkim><domain>{d}</domain><selector>s</selector><result>{r}</result></dkim>" for d, r in dkim)
        out.append(f"<record><row><source_ip>{ip}</source_ip><count>{n}</count><policy_evaluated><disposition>none"
                   f"</disposition><dkim>{pe[0]}</dkim><spf>{pe[1]}</spf></policy_evaluated></row><identifiers>"
                   f"<header_from>acme.co.uk</header_from></identifiers><auth_results>{sigs}<spf><domain>{spf[0]}"
                   f"</domain><scope>mfrom</scope><result>{spf[1]}</result></spf></auth_results></record>")
    return "".join(out) + "</feedback>"


PP, PF, FP, FF = ("pass", "pass"), ("pass", "fail"), ("fail", "pass"), ("fail", "fail")
ACME, NEWS = ("acme.co.uk", "pass"), ("news.acme.co.uk", "pass")


def _tiny(folder: Path) -> dict:
    """Two report weeks of acme.co.uk; the record to publish has adkim=r, aspf=s, pct=20; readiness at 98 %.
    google.com (zip, week 1): M365 192.0.2.5 100 pass; newsletter 198.51.100.20 50 pass (news.acme.co.uk DKIM) and 2
    failing (DKIM broken, SPF on its own bounce domain); helpdesk 198.51.100.3 30 pass and 10 failing (vendor DKIM,
    SPF on bounce.acme.co.uk: relaxed only); spoofer 203.0.113.9 8; forwarder 203.0.113.50 12 (our DKIM passes);
    unlisted tool 203.0.113.60 5 (tool.co.uk DKIM). Enterprise Outlook (gzip, week 2, saved twice): M365 192.0.2.6
    40 pass; the forwarder 3 failing (DKIM broken by a list footer); spoofer 2001:db8::99 6 (SPF passes for
    spam.com). Yahoo (plain xml) of the week before the period: M365 70, the spoofer 4.
    So: 2 reports, 266 messages; authorised 232 of which 220 pass (94.83 %): M365 140 (100.00), newsletter 52
    (96.15), helpdesk 40 (75.00, the weakest); unauthorised 203.0.113.9, 203.0.113.60, 2001:db8::99 (19 messages);
    forwarded 15; 34 failing x 20 % = 6.8 -> 7 quarantined; not ready; the flagged forwarder is no spoofer."""
    rua = folder / "rua"
    (rua / "google.com").mkdir(parents=True)
    (rua / "outlook").mkdir()
    (rua / "yahoo.com").mkdir()
    week1 = [("192.0.2.5", 100, PP, [ACME], ACME), ("198.51.100.20", 50, PF, [NEWS], ("bounce.esp.com", "pass")),
             ("198.51.100.20", 2, FF, [("news.acme.co.uk", "fail")], ("bounce.esp.com", "pass")),
             ("198.51.100.3", 30, PP, [ACME], ("bounce.acme.co.uk", "pass")),
             ("198.51.100.3", 10, FP, [("desk.com", "pass")], ("bounce.acme.co.uk", "pass")),
             ("203.0.113.9", 8, FF, [], ("acme.co.uk", "fail")), ("203.0.113.50", 12, PF, [ACME], ("acme.co.uk", "fail")),
             ("203.0.113.60", 5, FF, [("tool.co.uk", "pass")], ("mail.tool.co.uk", "pass"))]
    with zipfile.ZipFile(rua / "google.com" / "google.com!acme.co.uk!w1.zip", "w") as z:
        z.writestr("google.com!acme.co.uk!w1.xml", _xml("google.com", "111", LO, week1))
    week2 = [("192.0.2.6", 40, PP, [ACME], ACME), ("203.0.113.50", 3, FF, [("acme.co.uk", "fail")], ("acme.co.uk", "fail")),
             ("2001:db8::99", 6, FF, [], ("spam.com", "pass"))]
    data = gzip.compress(_xml("Enterprise Outlook", "abc", LO + WEEK, week2).encode())
    (rua / "outlook" / "outlook!acme.co.uk!w2.xml.gz").write_bytes(data)
    (rua / "outlook" / "outlook!acme.co.uk!w2 (1).xml.gz").write_bytes(data)
    old = [("192.0.2.5", 70, PP, [ACME], ACME), ("203.0.113.9", 4, FF, [], ("acme.co.uk", "fail"))]
    (rua / "yahoo.com" / "yahoo.com!acme.co.uk!w0.xml").write_text(_xml("Yahoo", "9", LO - WEEK, old))
    write_csv(folder / "senders.csv", ["source", "owner", "ip_ranges"], [
        ["M365", "IT", "192.0.2.0/28; 2001:db8:1::/48"], ["Helpdesk", "CS", "198.51.100.0/28"],
        ["Newsletter", "Marketing", "198.51.100.16/28"], ["Pilot", "Events", "198.51.100.64/28"]])
    (folder / "psl.txt").write_text("// excerpt\ncom\nnet\nuk\nco.uk\n")
    return {"files": {"reports": "rua", "inventory": "senders.csv", "psl": "psl.txt"}, "period": [LO, LO + 2 * WEEK - 1],
            "record": {"adkim": "r", "aspf": "s", "pct": 20}, "old_record": {"adkim": "s", "aspf": "r", "pct": 100},
            "threshold": 98.0, "flagged_ip": "203.0.113.50"}


def _rates(f: dict) -> dict:
    return {s["source"]: (s["category"], s["messages"], s["rate"]) for s in f["sources"]}


def test_the_solver_and_the_recheck_on_an_export_worked_by_hand(tmp_path):
    P = _tiny(tmp_path)
    want = {"M365": ("authorised", 140, 100.0), "Helpdesk": ("authorised", 40, 75.0),
            "Newsletter": ("authorised", 52, 96.15), "203.0.113.9": ("unauthorised", 8, 0.0),
            "203.0.113.50": ("forwarded", 15, 80.0), "203.0.113.60": ("unauthorised", 5, 0.0),
            "2001:db8::99": ("unauthorised", 6, 0.0)}
    for f in (solver.analyse(str(tmp_path), P), recheck(tmp_path, P)):
        assert (f["reports"], f["messages"], f["authorised"], f["auth_rate"]) == (2, 266, 232, 94.83)
        assert _rates(f) == want and (f["weakest"], f["weakest_rate"]) == ("Helpdesk", 75.0)
        assert f["unauth_ips"] == ["203.0.113.9", "203.0.113.60", "2001:db8::99"] and f["unauth_messages"] == 19
        assert (f["forwarded"], f["quarantine"], f["decision"], f["premise"]) == (15, 7, False, False)


def test_each_shortcut_moves_the_figure_it_should(tmp_path):
    P = _tiny(tmp_path)
    n = {k: solver.analyse(str(tmp_path), P, (k,)) for k in WF.shortcuts}
    u = n["unaligned"]  # the broken newsletter signature and the vendor-signed helpdesk mail pass on raw SPF
    assert (u["auth_rate"], u["decision"], u["quarantine"]) == (100.0, True, 2)
    r = n["receiver_verdict"]  # relaxed SPF lets the helpdesk through, the newsletter's broken DKIM still fails
    assert (_rates(r)["Helpdesk"][2], r["weakest"], r["auth_rate"], r["quarantine"]) == (100.0, "Newsletter", 99.14, 5)
    o = n["old_proposal"]  # strict DKIM fails every newsletter message; pct=100
    assert (_rates(o)["Newsletter"][2], o["weakest"], o["auth_rate"], o["quarantine"]) == (0.0, "Newsletter", 77.59, 74)
    g = n["org_domain"]  # tool.co.uk "aligns" with acme.co.uk through co.uk: the unlisted tool becomes a forwarder
    assert (g["unauth_ips"], g["forwarded"], g["quarantine"]) == (["203.0.113.9", "2001:db8::99"], 20, 6)
    assert (n["duplicates"]["reports"], n["duplicates"]["messages"], n["duplicates"]["authorised"]) == (3, 315, 272)
    assert (n["period"]["reports"], n["period"]["messages"], n["period"]["unauth_messages"]) == (3, 340, 23)
    f = n["forwarded"]  # the forwarder counted as a spoofer: the SOC's claim would seem to hold
    assert (len(f["unauth_ips"]), f["unauth_messages"], f["forwarded"], f["premise"]) == (4, 34, 0, True)
    assert n["pct"]["quarantine"] == 34


# ---- a drawn task and the answers it pays for ----------------------------------------------------------------

@pytest.fixture(scope="module")
def task(workflow_task) -> Path:
    return workflow_task(WF, True, False)


def _load(task: Path) -> tuple[dict, dict]:
    params = json.loads((task / "ground_truth" / "params.json").read_text())
    return solver.analyse(str(task / "task_folder"), params), params


def _hand(out: Path, P: dict, f: dict, *, messages_delta: int = 0, extra: list[str] | None = None,
          blind: bool = False) -> None:
    """An administrator's own answer: the sources table with its columns in another order, a notes column and the
    categories capitalised; the memo's facts as bold labels with thousands separators and words after the numbers."""
    out.mkdir(parents=True, exist_ok=True)
    C, L, D = P["out_columns"], P["labels"], P["deliverables"]
    if not blind:
        with (out / D["table"]).open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow([C["category"], C["source"], C["rate"], C["messages"], C["passed"], "notes"])
            for s in sorted(f["sources"], key=lambda s: -s["messages"]):
                w.writerow([s["category"].capitalize(), s["source"], f"{s['rate']:.2f}", s["messages"], s["passed"],
                            "see memo"])
    yes = lambda b: "Yes" if b else "No"  # noqa: E731
    pairs = [(L["reports"], f"{f['reports']} reports"), (L["messages"], f"{f['messages'] + messages_delta:,} messages"),
             (L["authorised"], f"{f['authorised']:,}"), (L["auth_rate"], f"{f['auth_rate']:.2f} %"),
             (L["weakest"], f["weakest"]), (L["unauth_count"], f"{len(f['unauth_ips'])} addresses"),
             (L["unauth_messages"], str(f["unauth_messages"])), (L["forwarded"], f"{f['forwarded']:,} messages"),
             (L["quarantine"], f"{f['quarantine']} per period"), (L["decision"], yes(f["decision"])),
             (L["premise"], yes(f["premise"]))]
    if blind:
        pairs = [(k, "No") if k in (L["decision"], L["premise"]) else (k, "0") for k, _ in pairs]
    lines = [f"DMARC review for {P['domain']}", "", *[f"**{k}:** {v}" for k, v in pairs], *(extra or []), "",
             "Alignment recomputed under revision 2 of the change request; forwarders kept apart from spoofers."]
    write_memo_lines(out / D["memo"], lines)


def test_a_correct_answer_written_by_hand_earns_full_credit(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "hand", P, f)
    assert score_output(task, tmp_path / "hand") == 1.0


def test_wrong_hedged_and_blind_answers_lose(task, tmp_path):
    f, P = _load(task)
    _hand(tmp_path / "wrong", P, f, messages_delta=40)
    assert score_output(task, tmp_path / "wrong") < 1.0
    L = P["labels"]
    _hand(tmp_path / "hedged", P, f, extra=[f"**{L['auth_rate']}:** {f['auth_rate'] - 1.5:.2f}"])
    assert score_output(task, tmp_path / "hedged") < 1.0
    _hand(tmp_path / "blind", P, f, blind=True)
    assert score_output(task, tmp_path / "blind") <= 0.1


def test_receiver_verdicts_unaligned_passes_and_forwarders_as_spoofers_lose(task, tmp_path):
    f, P = _load(task)
    for s in ("receiver_verdict", "unaligned", "forwarded", "org_domain"):
        g = solver.analyse(str(task / "task_folder"), P, (s,))
        assert (g["auth_rate"], g["unauth_ips"], g["quarantine"]) != (f["auth_rate"], f["unauth_ips"], f["quarantine"])
        solver.write_outputs(str(tmp_path / s), P, g)
        assert score_output(task, tmp_path / s) < 1.0


def test_the_withdrawn_revision_1_superseded_record_loses(task, tmp_path):
    f, P = _load(task)
    old = solver.analyse(str(task / "task_folder"), P, ("old_proposal",))
    assert old["auth_rate"] < f["auth_rate"] and old["quarantine"] > f["quarantine"]
    solver.write_outputs(str(tmp_path / "old"), P, old)
    assert score_output(task, tmp_path / "old") <= 0.75
