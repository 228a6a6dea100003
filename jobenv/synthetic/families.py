"""The fourteen families, each an analysis kind with its own wording: ``KINDS[family]``."""

from __future__ import annotations

from .kinds import GroupMetric, Kind
from .kinds_more import Change, Matching, Reorder, Scoring

__all__ = ["KINDS"]

FAMILY_KINDS: list[Kind] = [
    GroupMetric("kpi_review", "KPI review", ("{metric} by {group} - review", "KPI review: {metric}", "Need the {group} numbers on {metric}"),
                ("I need a clean view of {metric} by {group}, the individual {entity}s that stand out, and a call on which {groups} to escalate.",
                 "Please put together the {metric} picture by {group} and tell me whether anything needs escalating.",
                 "We have to decide which {groups} get escalated on {metric}; I need the numbers behind that."),
                ("ESCALATE", "NO ESCALATION"), "{group} above the limit"),
    GroupMetric("rate_table", "Rate table", ("Rate table: {metric} by {group}", "{metric} - table by {group}", "Can you build the {metric} table?"),
                ("I need a rate table of {metric} by {group}, with small cells handled the usual way, and whether any {group} should be referred for review.",
                 "Please tabulate the {metric} for each {group} and tell me who goes to review.",
                 "We owe the committee a table of {metric} by {group}."),
                ("REFER FOR REVIEW", "NO REFERRAL"), "{group} above the benchmark", units_ok=False),
    GroupMetric("cohort_retention", "Retention review", ("Retention by {group}", "{metric} by {group}", "Which {group}s are we losing?"),
                ("I need {metric} by {group} and a view on whether a retention plan is needed anywhere.",
                 "Please work out the {metric} for each {group} and tell me where it falls short.",
                 "We're deciding whether to fund a retention push; the {metric} by {group} is the evidence."),
                ("LAUNCH RETENTION PLAN", "NO ACTION"), "{group} below target", units_ok=False),
    GroupMetric("survey_tabulation", "Survey tabulation", ("Tabulation: {metric} by {group}", "Survey table by {group}", "{metric} cross-tab"),
                ("I need the {metric} tabulated by {group} and a note on whether any group calls for follow-up.",
                 "Please cross-tabulate the {metric} by {group}.",
                 "The write-up needs the {metric} by {group}, correctly based."),
                ("FOLLOW UP", "NO FOLLOW-UP"), "{group} above the threshold", units_ok=False),
    GroupMetric("compliance_screening", "Compliance screening", ("Screening against the limit: {entity}s", "Compliance check by {group}", "{metric} screening"),
                ("I need every {entity} screened against the limit, the breach rate by {group}, and whether enforcement is warranted.",
                 "Please screen the {entity}s against our rule and tell me which {groups} are out of tolerance.",
                 "We have to decide on enforcement; screen the {entity}s and summarise by {group}."),
                ("ENFORCEMENT ACTION", "NO ACTION"), "{group} out of tolerance", units_ok=False),
    GroupMetric("pricing_unit_economics", "Unit economics", ("{metric} by {group}", "Unit economics review: {metric}", "Pricing check by {group}"),
                ("I need {metric} by {group} and whether any {group} should be repriced.",
                 "Please work out the {metric} for each {group} against our pricing rule.",
                 "Before the pricing meeting, I need the {metric} by {group}."),
                ("REPRICE", "KEEP PRICES"), "{group} outside the pricing rule"),
    GroupMetric("trend_regression", "Trend analysis", ("Trend in {metric} by {group}", "Is the {metric} trend real?", "{metric}: slopes by {group}"),
                ("I need the {metric} slope for each {group} and whether any trend crosses our flag level.",
                 "Please fit the trend for each {group} and flag the steep ones.",
                 "We need to know which {groups} show a trend past the flag level."),
                ("FLAG TREND", "NO FLAG"), "{group} past the flag level", units_ok=False),
    GroupMetric("capacity_planning", "Capacity plan", ("Peak load vs capacity by {group}", "Capacity check: {group}s", "Do we have enough capacity?"),
                ("I need the {metric} for each {group} against agreed capacity, and whether we must add capacity.",
                 "Please compare each {group}'s busiest day with its capacity.",
                 "The staffing plan depends on whether any {group} runs past its capacity threshold."),
                ("ADD CAPACITY", "CAPACITY SUFFICIENT"), "{group} over the utilisation limit", units_ok=False),
]


MORE_KINDS: list[Kind] = [
    Change("period_comparison", "Period comparison", ("{metric}: year on year by {group}", "How did {metric} move?", "Period comparison by {group}"),
           ("I need {metric} by {group} for both periods, the change, and whether any {group} moved enough to investigate.",
            "Please compare the two periods by {group} and flag the big movers.",
            "The review needs the period-on-period movement in {metric} by {group}."),
           ("INVESTIGATE", "NO INVESTIGATION"), "{group} past the change threshold"),
    Change("budget_variance", "Budget variance", ("Budget vs actual: {metric}", "Variance report by {group}", "Where did we overspend?"),
           ("I need actual {metric} against the approved budget for each {group}, the variances, and whether any must be explained.",
            "Please produce the budget variance report by {group}.",
            "Finance wants the variance of {metric} against budget by {group}."),
           ("EXPLAIN VARIANCES", "WITHIN TOLERANCE"), "{group} outside tolerance", budget=True),
    Scoring("vendor_scoring", "Bid evaluation", ("Bid evaluation: {entity}s", "Scoring the {entity} offers", "Which {entity} should we pick?"),
            ("I need the offers scored against our criteria and a recommendation on the incumbent.",
             "Please run the weighted evaluation of the options and tell me whether we renew.",
             "The award decision rests on the weighted scores; please prepare them."),
            ("RENEW INCUMBENT", "SWITCH SUPPLIER"), "Ineligible options", units_ok=False),
    Matching("reconciliation", "Reconciliation", ("Reconciliation of {entity}s", "Recon before sign-off", "Do our {entity}s agree with theirs?"),
             ("I need our {entity} records reconciled to the counterparty's statement and whether we can sign off.",
              "Please reconcile the two sources and list every break.",
              "Before sign-off, reconcile our extract against the statement."),
             ("HOLD SIGN-OFF", "SIGN OFF"), "Breaks", units_ok=False),
    Matching("invoice_po_matching", "Invoice matching", ("Invoice vs PO matching", "Match the invoices to the POs", "Payment run: invoice check"),
             ("I need every invoice line matched to its purchase-order line and whether to release payment.",
              "Please match the supplier's invoice to our purchase orders and tell me if we can pay.",
              "The payment run is waiting on the invoice-to-PO match."),
             ("HOLD PAYMENT", "RELEASE PAYMENT"), "Exceptions", units_ok=False),
    Reorder("inventory_reorder", "Reorder plan", ("Reorder points by {group}", "Do we need to order {entity} kits?", "Replenishment check"),
            ("I need reorder points for each {group} from recent demand and which ones to order now.",
             "Please work out the reorder plan from the usage log and the stock position.",
             "We need to know which {groups} are below their reorder point."),
            ("PLACE ORDERS", "NO ORDERS"), "{group} to order", units_ok=False),
]

KINDS: dict[str, Kind] = {k.family: k for k in FAMILY_KINDS + MORE_KINDS}
