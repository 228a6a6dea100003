"""The A/B test readout's workspace documents (test plans, standards, correspondence, distractors) and its request.

Failure behaviour: none of its own; the writers it returns raise OSError for an unwritable path.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from ..compose import email_text, meeting_notes, person
from ..writers import write_csv, write_docx, write_pdf, write_text, write_xlsx

__all__ = ["workspace", "prompt"]


def _standards(P: dict[str, Any]) -> list[str]:
    sig = ", ".join(P["bot_signatures"])
    return [
        "Experimentation standards - how every A/B test on the storefront is read (current)",
        "- Order of work: check the split first. Compute the chi-square goodness of fit of the randomisation units "
        "(visitors) per arm in the analysis window against the planned split (1 degree of freedom). A p-value below "
        f"{P['srm_alpha']} is a sample ratio mismatch: the test is invalid, nothing ships, and the cause is "
        "investigated before any rerun. Report the chi-square and its p-value either way.",
        f"- Bot traffic: a session whose user agent contains any of these signatures (case-insensitive) is not a "
        f"visitor and is left out of every count: {sig}.",
        "- Internal traffic: sessions from our own networks are left out, as the test plan specifies.",
        "- Dates are the UTC calendar day of the session start; window limits are inclusive.",
        "- Conversion test: pooled two-proportion z test of treatment minus control, two-sided, z = (pB - pA) / "
        "sqrt(p(1 - p)(1/nA + 1/nB)) with p the pooled conversion.",
        "- Interval: the 95 % Wald interval of the difference in conversion (treatment minus control) with unpooled "
        "standard errors, (pB - pA) +- 1.96 sqrt(pA(1 - pA)/nA + pB(1 - pB)/nB), in percentage points.",
        "- Relative lift = treatment conversion / control conversion - 1, in per cent.",
        "- A lift quoted from a dashboard, an agency or a vendor stands when the recomputed relative lift, rounded "
        "to one decimal, is at least the quoted figure.",
        "- Rounding: half up; conversion rates, lift, interval limits, z and chi-square to 2 decimal places; "
        "p-values to 4 decimal places; counts are whole numbers.",
        "- Readouts go to the catalogue review as a short written readout and two slides."]


def _plan(P: dict[str, Any], d: dict[str, Any], cal: dict[str, dt.date], names: dict[str, str], it_file: str,
          std: str) -> list[str]:
    s, plan, old = P["split"], P["plan"], P["old_plan"]
    ramp = (cal["start"] - cal["launch"]).days
    return [
        "Revision 2 - the plan of record. It supersedes revision 1 in full.",
        f"Hypothesis: {names['treatment']} (larger gallery, the delivery promise above the fold, reviews moved up) "
        "raises order conversion on the product pages of the test collection.",
        "- Primary metric: order conversion per visitor = visitors with at least one order in an eligible session in "
        "the analysis window / visitors with at least one eligible session in the window.",
        "- Randomisation and analysis unit: the visitor (assignment is sticky by visitor id).",
        "- Secondary metrics (reported, not used for the call): add-to-cart rate, revenue per visitor.",
        f"- Allocation: {ramp} ramp-up days from launch ({cal['launch'].isoformat()}) at 10 % to "
        f"{names['treatment']}; from {plan['start']} the planned split is {s['control']} % control / "
        f"{s['treatment']} % {names['treatment']}.",
        f"- Analysis window: {plan['start']} to {plan['end']} inclusive (UTC), the full-allocation period. The "
        "ramp-up days are not analysed.",
        f"- Exclusions: bot traffic as defined in {std}; internal traffic (1).",
        f"- Sample: {d['planned']:,} visitors in the window for 80 % power at alpha 0.05, two-sided, for a minimum "
        f"detectable effect of {plan['mde']:g} % relative on a baseline of {100 * d['p_a']:.1f} %.",
        "- Decision rule: check the split first, as the standards say. Ship only when the split is valid, the "
        f"two-sided p-value is below {P['alpha']} with conversion up, and the observed relative lift is at least "
        f"the minimum detectable effect of {plan['mde']:g} %. Otherwise the current page stays.",
        f"- Changes from revision 1: primary metric (add-to-cart per session -> order conversion per visitor); "
        f"window (now after the ramp-up); minimum detectable effect {old['mde']:g} % -> {plan['mde']:g} % (at our "
        "traffic the smaller effect needed more weeks than the catalogue calendar allows).",
        f"(1) Internal traffic means sessions from the networks that IT's list ({it_file}) marks active. A network IT "
        "has retired was returned to the ISP and now carries customers' traffic: it is not excluded."]


def workspace(rng: random.Random, P: dict[str, Any], d: dict[str, Any], cal: dict[str, dt.date],
              data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    w: dict[str, Any] = {}
    roles: dict[str, str] = {}

    def add(name: str, role: str, writer: Any) -> None:
        w[name], roles[name] = writer, role

    for rel, write in data.items():
        add(rel, "data" if rel == P["files"]["sessions"] else "reference", write)
    D, names, tid = P["dirs"], P["arm_names"], P["test_id"]
    exp, mail, an = f"{D['exp']}/{tid}", D["mail"], D["analytics"]
    std = f"{D['exp']}/standards/experimentation_standards.docx"
    v1_day = cal["launch"] - dt.timedelta(days=rng.randint(18, 30))
    v2_day = cal["launch"] - dt.timedelta(days=rng.randint(3, 9))
    add(f"{exp}/test_plan_{tid}_rev2.docx", "policy", lambda p: write_docx(
        p, f"{tid} product-page test plan (revision 2, {v2_day.isoformat()})",
        _plan(P, d, cal, names, P["files"]["networks"], std)))
    add(std, "policy", lambda p: write_docx(p, "Experimentation standards", _standards(P)))
    old = P["old_plan"]
    add(f"{exp}/archive/test_plan_{tid}_rev1.pdf", "stale", lambda p: write_pdf(
        p, f"{tid} product-page test plan (revision 1, {v1_day.isoformat()})", [
            f"Hypothesis: {names['treatment']} raises add-to-cart on the product pages of the test collection.",
            "Primary metric: add-to-cart rate = sessions with an add-to-cart event / product-page sessions.",
            f"Window: {old['start']} to {old['end']} inclusive, from launch.",
            f"Split: {P['split']['control']} % control / {P['split']['treatment']} % {names['treatment']}.",
            f"Minimum detectable effect: {old['mde']:g} % relative; alpha 0.05, two-sided.",
            "Bots: use the testing tool's default filtering.",
            "Decision: ship when the primary metric is significantly up by at least the minimum detectable effect."]))
    ramp = (cal["start"] - cal["launch"]).days
    alloc = [[(cal["launch"] + dt.timedelta(days=k)).isoformat(), 10 if k < ramp else P["split"]["treatment"],
              "ramp-up" if k < ramp else ("full allocation" if k == ramp else "")]
             for k in range((cal["export"] - cal["launch"]).days + 1)]
    add(f"{exp}/allocation_log.csv", "reference", lambda p: write_csv(
        p, ["date", f"{P['arms']['treatment']}_pct", "note"], alloc))
    C = P["columns"]
    add(f"{an}/exports/README.txt", "reference", lambda p: write_text(p, (
        f"Session export for {tid}, {P['launch']} to {P['export_end']} (pulled after the window closed), unloaded "
        "from the warehouse as a gzip-compressed CSV.\n"
        f"One row per session. {C['visitor']}: the visitor id the test assigns on (sticky). {C['variant']}: the "
        f"experience served ({P['arms']['control']} = control, {P['arms']['treatment']} = {names['treatment']}). "
        f"{C['start']}: session start in UTC. {C['ip']}: the session's public IP. {C['agent']}: browser family as "
        f"logged. {C['atc']}: add-to-cart events in the session. {C['orders']}: orders placed in the session. "
        f"{C['revenue']}: order revenue in USD (QA orders placed with a 100 % code show 0.00).\n")))
    sent = cal["export"] + dt.timedelta(days=rng.randint(1, 3))
    lead = person(rng)
    add(f"{mail}/{v2_day.isoformat()}_plan_revision.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{lead}, Analytics Lead", to="merchandising; web team", date=v2_day.isoformat(),
        subject=f"{tid} plan revision 2", body=f"Revision 2 of the {tid} plan is in the test folder and is the plan "
        "of record; revision 1 is archived. The main changes are the primary metric, the window (we ramp up at 10 % "
        "for the first days and don't analyse them) and the minimum effect.")))
    add(f"{mail}/{(cal['start'] + dt.timedelta(days=2)).isoformat()}_qa_orders.txt", "email", lambda p: write_text(
        p, email_text(sender=f"{person(rng)}, QA Lead", to="web team; analytics",
                      date=(cal["start"] + dt.timedelta(days=2)).isoformat(), subject=f"QA on the {tid} pages",
                      body=f"We're placing test orders on {names['treatment']} (and a few on control) from the office, "
                           "the warehouse bench and over the VPN with the QA100 code, through the whole test. They "
                           "come through as real orders with zero revenue.")))
    it_day = (cal["launch"] - dt.timedelta(days=rng.randint(30, 90))).isoformat()
    add(f"{mail}/{it_day}_network_list.txt", "email",
        lambda p: write_text(p, email_text(
            sender=f"{person(rng)}, IT", to="all staff", date=it_day,
            subject="Internal network list updated", body=f"The internal network list ({P['files']['networks']}) is "
            "current. The old studio range went back to the ISP when we left the building and is marked retired; "
            "it now belongs to other ISP customers.")))
    claim = f"{P['claim']:+.1f}"
    add(f"{mail}/{sent.isoformat()}_results_page.txt", "email", lambda p: write_text(p, email_text(
        sender=f"{person(rng)}, Account Manager (agency)", to="merchandising", date=sent.isoformat(),
        subject=f"{tid} results", body=f"Good news: the testing tool's results page shows {names['treatment']} at "
        f"{claim} % on conversion against control. We'd be glad to present it at the catalogue review.")))
    skus = [[f"{rng.choice(('RG', 'NK', 'ER', 'BR'))}-{rng.randint(1000, 9999)}", rng.choice((
        "Stacking ring", "Pendant necklace", "Hoop earrings", "Chain bracelet", "Signet ring", "Stud earrings")),
        rng.choice(("Core", "Summer edit", "Gifts")), round(rng.uniform(28, 240), 2), round(rng.uniform(42, 71), 1),
        rng.choice(("test collection", "not in test"))] for _ in range(24)]
    add(f"merchandising/catalogue_review_{cal['end']:%Y_%m}.xlsx", "distractor", lambda p: write_xlsx(p, [(
        "Catalogue", ["sku", "product", "collection", "price_usd", "margin_pct", "pdp_test"], skus)]))
    add(f"{D['exp']}/archive/PDP-{cal['launch'].year - 1}-07_readout.md", "distractor", lambda p: write_text(p, (
        f"# PDP-{cal['launch'].year - 1}-07 readout (free-shipping banner)\n\nSplit check passed (p = 0.4127). "
        "Conversion 7.12 % vs 7.31 %, relative lift +2.67 %, p = 0.3518: below the 10 % minimum effect. "
        "Decision: no ship.\n")))
    add(f"{exp}/design_brief.md", "reference", lambda p: write_text(p, (
        f"# {names['treatment']} design brief\n\n- Gallery: 6 images, zoom on hover\n- Delivery promise above the fold"
        "\n- Reviews summary moved above the description\n- Same prices, same checkout\n")))
    add(f"meetings/{sent.isoformat()}_ecommerce_sync.md", "distractor", lambda p: write_text(p, meeting_notes(
        rng, topic=f"{tid} readout", people=[person(rng) for _ in range(3)], date=sent.isoformat())))
    return w, roles


_OPEN = ("From: {who}, {role}\nTo: the online merchant\nSubject: {subject}\n\nHi,\n",
         "Ticket: {subject}\nRequester: {who}, {role}\n\n", "Hi -\n\n", "Subject: {subject}\nFrom: {who} ({role})\n\n")
_ASK = ("Did the new product page win? I need the readout of {tid} for the catalogue review.",
        "Please read out {tid}, the product-page test, and tell me whether we ship {t}.",
        "Can you do the readout on {tid} - split check, conversion, and whether {t} ships?")


def prompt(rng: random.Random, P: dict[str, Any], prof: Any, writers: dict[str, Any]) -> str:
    L, D, names = P["labels"], P["deliverables"], P["arm_names"]
    who = person(rng)
    fill = {"who": who, "role": rng.choice(("Merchandising Lead", "Head of E-commerce")), "tid": P["test_id"],
            "subject": f"{P['test_id']} readout", "t": names["treatment"]}
    k2, k4, whole = "2 decimal places", "4 decimal places", "whole number"
    hints = {"n_a": whole, "n_b": whole, "chi2": k2, "srm_p": k4, "srm": "yes or no", "x_a": whole, "x_b": whole,
             "cr_a": k2, "cr_b": k2, "lift": k2, "z": k2, "p": k4, "ci_low": k2, "ci_high": k2,
             "decision": "yes or no", "premise": "yes or no"}
    body = [rng.choice(_ASK).format(**fill), f"Some context: {rng.choice(prof.occasions)}.",
            "The analytics export of the test's sessions is in the folder with the test plan."]
    rng.shuffle(body)
    claim = f"{P['claim']:+.1f}"
    parts = [rng.choice(_OPEN).format(**fill), " ".join(body),
             f"The agency says the tool's results page has {names['treatment']} at {claim} % on conversion against "
             "control; tell me whether that figure holds up.",
             "Please put in the output folder:\n"
             f"1. {D['memo']}: a readout that starts with these lines (label, colon, value), then a few paragraphs "
             "on validity, the result and the call:\n" + "\n".join(f"   {L[k]}: <{h}>" for k, h in hints.items()) +
             f"\n2. {D['slides']}: two slides for the review - is the test valid ({L['n_a']}, {L['n_b']}, "
             f"{L['srm']}) and did it win ({L['cr_b']}, {L['lift']}, {L['p']}, {L['decision']}), each figure as a "
             "'label: value' line.",
             rng.choice(("The test plan of record and the experimentation standards in the folder set the rules; "
                         "they win over anything said in passing.",
                         "Follow the current test plan and the experimentation standards as written.")) + " " +
             rng.choice(("Say briefly which traffic you left out and why.",
                         "If the files disagree, tell me which one you relied on.")),
             rng.choice(("Thanks,\n{f}", "Cheers,\n{f}", "Much appreciated.\n- {f}")).format(f=who.split()[0]),
             "Local Reference Files:\n" + "\n".join(f"- {f}" for f in sorted(writers))]
    return "\n\n".join(p.strip("\n") for p in parts) + "\n"
