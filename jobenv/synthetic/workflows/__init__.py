"""Profession-native workflows: each a piece of a profession's real work done with its field's method, on a
generated workspace of nested folders (``base.py`` says what a workflow is; ``write.py`` writes and gates one).

- ``survival.py``: Kaplan-Meier overall survival for a DSMB (biostatisticians, statisticians).
- ``decline.py``: exponential decline curves and remaining reserves for a tie-in (petroleum engineers).
- ``match.py``: three-way match of invoices before a payment run (purchasing, supply chain, AP clerks).
- ``caseload.py``: annual caseload report (clearance, time to disposition against time standards, pending age) in a
  workbook of live formulas and a report section (court clerks).
- ``rtt.py``: 18-week referral-to-treatment breach list in booking order, with a note (medical secretaries).
- ``bankrec.py``: month-end bank reconciliation with adjusting entries, in a workbook of live formulas (accounting
  clerks, financial managers).
- ``servicedesk.py``: Erlang C agents per half-hour and FTE for a service desk's phone queue next quarter, in a workbook
  of live formulas (computer user support specialists).
- ``psap.py``: 911 answering against the NENA standard by hour and Erlang C call-taker positions for the busy hour
  (police, fire and ambulance dispatchers).
- ``capex.py``: capital project appraisal with NPV, IRR, discounted payback and the MACRS shield (financial managers).
- ``regz.py``: Regulation Z finance charge, actuarial APR and rescission tolerance on a refinance (lawyers).
- ``capability.py``: X-bar/R chart, Cpk and Ppk of a critical diameter for a PPAP submission, in a workbook of live
  formulas with a chart slide (engineering technicians).
- ``stackup.py``: worst-case and RSS tolerance stack-up before a design freeze, in a workbook of live formulas
  (mechanical engineers).
- ``staffing.py``: nursing HPPD against target and the FTE gap by unit, in a workbook of live formulas (health
  services managers).
- ``perdiem.py``: conference travel claims against per diem (M&IE, lodging cap, mileage), in a workbook of live
  formulas (administrative assistants).
- ``adverse.py``: adverse-impact analysis of a screening test (four-fifths rule, Fisher's exact test; HR specialists).
- ``coursegain.py``: pre/post course evaluation with item analysis (paired t, Hake gain, KR-20; training specialists).
- ``dmr.py``: desk review of 24 months of discharge monitoring reports against an NPDES permit, with SNC (licensing
  examiners and inspectors).
- ``outage.py``: outage credits and bill corrections for escalated accounts, as a billing upload (customer service
  representatives).
- ``storm.py``: storm sewer design check by the rational method (composite C, accumulated Tc, revised IDF table) and
  Manning full-flow pipe sizing, in a workbook of live formulas (civil engineers).
- ``washsale.py``: year-end realised gain/loss as a Form 8949 lot schedule (FIFO and specific ID, a split, wash sales
  across the year end, a transferred-in lot) with a memo on the client's harvesting target (securities sales agents).
- ``survey_raking.py``: survey weights by raking to population margins with trimming, the Kish design effect,
  effective n and a design-adjusted margin of error (social science research assistants).
- ``rmd.py``: a client household's required minimum distributions for the coming year, account by account, in a
  workbook of live formulas with a client letter (personal financial advisors).
- ``reorder.py``: reorder points (ABC service levels, safety stock) and EOQ order quantities in case packs before peak
  season, in a workbook of live formulas and a purchase-order memo (online merchants).
- ``registration.py``: patient registration batch validation (NPI check digit, CMS MBI format, DOB, ZIP-to-state,
  nickname-aware duplicate merge) with a clean-batch upload, an exceptions file and a release note (data entry keyers).
- ``accesslog.py``: access-log error review (5xx rate and nearest-rank p95 by endpoint net of maintenance 503s,
  scrapers over a 60-second request-rate threshold) as an incident note and a WAF blocklist upload (web
  administrators).
- ``topsheet.py``: a feature film's budget top sheet at lock (ATL/BTL roll-up, union fringes, payroll taxes to the
  wage base, BTL contingency, the production incentive on capped resident wages), in a workbook of live formulas
  with a note to the executive producer (producers).
- ``dfw.py``: DFW rates on census-date enrolment by section, modality and Pell status, the Pell gap by a pooled
  two-proportion z test and small-cell suppression, in a workbook of live formulas and two committee slides
  (sociology lecturers).
- ``sla.py``: monthly availability against a managed-hosting SLA (merged outages, approved windows up to their end,
  local-time Service Months) and the service credits owed, in a workbook of live formulas and a claim letter (IT
  managers).
- ``spans.py``: spans of control, layers and the delayering savings of a client organisation from its HRIS extract,
  in a workbook of live formulas and a memo to the sponsor (management analysts).
- ``quote.py``: a three-site instrument quote (combined-order volume tiers, bundle discount, service on list, freight
  per site) against the margin floor and the approval matrix, in a workbook of live formulas with a cover letter and
  an approval request (technical sales representatives).
- ``datasheet.py``: a draft datasheet's electrical specs verified against the released characterisation lot (typ =
  median at 25 C, min/max = mean -/+ 3 sigma over the rated range, guard-banded rounding, units converted), with the
  corrected datasheet, a change log and a note on engineering sign-off (technical writers).
- ``agreement.py``: inter-annotator agreement on a labelling pilot (pairwise Cohen's kappa, Fleiss' kappa,
  Krippendorff's alpha with missing values) after mapping superseded-guideline labels, the most-confused label pair and
  gold-then-majority adjudication, in a workbook of live formulas with two slides (research scientists).
- ``stops.py``: a police-stop disparity check before publication (persons stopped and searched per 1,000 residents on
  the census rows the standards name, ratios to the reference group, the outcome test on discretionary searches with
  Wilson intervals, small-count suppression) against a draft story's claim, in a workbook of live formulas and a
  fact-check memo (reporters).
- ``recovery.py``: sectors below their pre-recession peak for a weekend jobs story (each series' peak in a stated
  window, later trough, drawdown in thousands and per cent, month regained, status in the story month, on the
  benchmark-revised seasonally adjusted vintage with government converted from persons) against a draft's claims, in
  a csv of chart data and a Markdown fact-check note (reporters).
- ``relnotes.py``: a minor version's release notes from the tracker export (exact fix version, merged, internal tickets
  out, changes reverted on the release branch out, backports once, security by label), the breaking changes by the
  Compatibility field as a csv and the semver claim settled (technical writers).
- ``significance.py``: whether a model's gain over a tuned baseline is significant for a reviewer (per-seed accuracy
  with a leaky run excluded, mean and SD over seeds, McNemar's exact test and a paired interval on the primary seed),
  as a rebuttal note and a per-seed summary csv (research scientists).
- ``dmarc.py``: a month of DMARC aggregate reports reviewed before p=quarantine (each report once in the period,
  DMARC recomputed from SPF and DKIM alignment under the record to publish, sources by the sender inventory,
  forwarders apart from unauthorised senders, readiness per source, the pct-staged quarantine estimate) as a docx
  recommendation and a csv of sources (web administrators).
- ``refresh.py``: a fiscal year's laptop refresh list under the lifecycle standard (age on the cut-off date with
  migrated records aged from the warranty end, battery health, hardware incidents in a 12-month window net of
  duplicates, leased units and confirmed leavers excluded) priced at the quote against the budget line, as a
  procurement upload csv and a note (computer user support specialists).
- ``cdl.py``: a CDL renewal cycle's eligibility review (serious violations by separate incident on offence dates,
  major offences, other states' codes through the crosswalk, medical certificates by self-certification, hazmat TSA
  determinations) as a licensing-system status upload and a summary (licensing examiners and inspectors).
- ``concentration.py``: a branch's concentration and suitability exceptions before the supervisory review (household
  aggregation, issuer roll-up across share classes, ADRs and bonds, limits of the current Reg BI profile, solicited
  purchases above the product risk) as an exceptions file and a review note (securities sales agents).
- ``escalation.py``: a supplier's PPI escalation request checked against the contract's clause as amended (named
  series, amended base month, lagged adjustment month, final values, trigger, cap and floor, escalable share,
  firm-fixed items), as a reply letter and an ERP price-change file (purchasing agents).
- ``tensile.py``: a material lot's tensile test report from the frames' raw exports (measured section, load units,
  modulus over the stated window, 0.2 % offset yield, elongation from the gauge marks, void and outside-gauge rules,
  the current specification revision and its note, the mill certificate checked), as a report and a results csv
  (engineering technicians).
- ``abtest.py``: a product-page A/B test readout (SRM chi-square against the planned split first, order conversion per
  visitor in the revised plan's window with bots and internal networks out, two-proportion z test and interval, the
  ship call against the plan's MDE) as a Markdown readout and two slides (online merchants).
- ``prisma.py``: PRISMA 2020 flow counts of a systematic review from five database exports and the screening logs
  (duplicates by normalised DOI then title and year, out-of-range records, third-reviewer resolution, reports not
  retrieved, one reason per exclusion, studies vs reports) with Cohen's kappa on the independent double-screening
  sample, as an md table and a docx methods paragraph (social science research assistants).
- ``aetables.py``: DSMB adverse-event tables from ADSL/ADAE-style exports (TEAE window first dose to last dose + 30
  days with the SAP's partial-date imputation and the data cut, subjects once per SOC and term on the safety set, SAE
  risk difference with the Newcombe interval and Fisher's exact p, the charter's imbalance flag) as a csv and a docx
  memo (biostatisticians).
- ``flsa.py``: FLSA overtime damages for a collective action's plaintiffs (quarterly bonuses spread over their
  quarter in the regular rate, half-time premium, two years from each consent filing, withdrawn consent out,
  liquidated damages, simple interest as the alternative) checked against defense counsel's figures, as a letter and
  a per-plaintiff csv (lawyers).
- ``fmla.py``: FMLA eligibility of the pending requests (service with the break-in-service rule, 1,250 hours worked
  with USERRA military leave in and PTO out, 50 employees within 75 miles) and the hours left on the rolling-backward
  year, prorated for part-time schedules, as notice facts in a docx and an HRIS csv (human resources specialists).
- ``jury.py``: jury summonses for a month's trial weeks (yield by source list on summonses mailed in the plan's twelve
  months, each summons once, excusals by reason code; each week's need from the trials left after the continuance
  orders at the current plan's panel sizes and margin, less returning postponed jurors; summonses by source at its
  yield) as a memo to the presiding judge and a mail-merge csv (court clerks).
- ``retention.py``: a retention campaign's dialler list (12 months' tenure with merged accounts from the original
  start, contract end within 60 days inclusive, no offer accepted in 12 months, do-not-contact from the CRM or the
  suppression file, offer by the current ARPU band) with the 12-month offer cost, expected saves and saved revenue
  against the offer budget, as a dialler csv and a note (customer service representatives).
- ``doublekey.py``: double-key verification of a keyed batch (field compare after the current spec's normalisation
  with dates as written, IDs as text and O distinct from 0; errors per keyer against the verified or adjudicated
  value, agreed-but-wrong fields included; field and Levenshtein character error rates; ANSI/ASQ Z1.4 level II at
  AQL 1.0 on the lot without voided scans) as a corrected batch csv and a QC memo (data entry keyers).
"""

from __future__ import annotations

from .abtest import AB_TEST_READOUT
from .accesslog import ACCESS_LOG_REVIEW
from .adverse import ADVERSE_IMPACT
from .aetables import DSMB_ADVERSE_EVENTS
from .agreement import ANNOTATOR_AGREEMENT
from .bankrec import BANK_RECONCILIATION
from .base import Workflow
from .capability import PPAP_CAPABILITY
from .capex import CAPITAL_APPRAISAL
from .caseload import CASELOAD_REPORT
from .cdl import CDL_RENEWAL
from .concentration import CONCENTRATION_EXCEPTIONS
from .coursegain import COURSE_EVALUATION
from .datasheet import DATASHEET_VERIFICATION
from .decline import DECLINE_CURVE
from .dfw import DFW_RATES
from .dmarc import DMARC_REVIEW
from .dmr import DMR_REVIEW
from .doublekey import DOUBLE_KEY_VERIFICATION
from .escalation import PPI_ESCALATION
from .flsa import FLSA_OVERTIME
from .fmla import FMLA_ELIGIBILITY
from .jury import JURY_SUMMONS_PLAN
from .match import THREE_WAY_MATCH
from .outage import OUTAGE_CREDITS
from .perdiem import TRAVEL_PER_DIEM
from .prisma import PRISMA_FLOW_COUNTS
from .psap import PSAP_ANSWERING
from .quote import MULTI_SITE_QUOTE
from .recovery import SECTOR_RECOVERY
from .refresh import LAPTOP_REFRESH
from .registration import REGISTRATION_VALIDATION
from .regz import REG_Z_RESCISSION
from .relnotes import RELEASE_NOTES
from .reorder import REORDER_POINTS
from .retention import RETENTION_OFFER_LIST
from .rmd import RMD_HOUSEHOLD
from .rtt import RTT_BREACH_LIST
from .servicedesk import ERLANG_C_STAFFING
from .significance import SIGNIFICANCE_BASELINE
from .sla import SLA_CREDITS_CLAIM
from .spans import SPANS_AND_LAYERS
from .stackup import TOLERANCE_STACKUP
from .staffing import NURSE_STAFFING_HPPD
from .stops import STOP_DISPARITY
from .storm import STORM_SEWER_DESIGN
from .survey_raking import SURVEY_RAKING
from .survival import KAPLAN_MEIER
from .tensile import TENSILE_REPORT
from .topsheet import BUDGET_TOP_SHEET
from .washsale import WASH_SALE_8949

__all__ = ["WORKFLOWS", "workflows_for", "Workflow"]

WORKFLOWS: tuple[Workflow, ...] = (
    KAPLAN_MEIER, DECLINE_CURVE, THREE_WAY_MATCH, BANK_RECONCILIATION, ERLANG_C_STAFFING, PSAP_ANSWERING,
    REG_Z_RESCISSION, CAPITAL_APPRAISAL, PPAP_CAPABILITY, TOLERANCE_STACKUP, NURSE_STAFFING_HPPD, TRAVEL_PER_DIEM,
    CASELOAD_REPORT, RTT_BREACH_LIST, ADVERSE_IMPACT, COURSE_EVALUATION, DMR_REVIEW, OUTAGE_CREDITS,
    STORM_SEWER_DESIGN, WASH_SALE_8949, SURVEY_RAKING, RMD_HOUSEHOLD, REORDER_POINTS, REGISTRATION_VALIDATION,
    ACCESS_LOG_REVIEW, BUDGET_TOP_SHEET, DFW_RATES, SLA_CREDITS_CLAIM, SPANS_AND_LAYERS, MULTI_SITE_QUOTE,
    DATASHEET_VERIFICATION, ANNOTATOR_AGREEMENT, STOP_DISPARITY, SECTOR_RECOVERY, RELEASE_NOTES,
    SIGNIFICANCE_BASELINE, DMARC_REVIEW, LAPTOP_REFRESH, CDL_RENEWAL, CONCENTRATION_EXCEPTIONS, PPI_ESCALATION,
    TENSILE_REPORT, AB_TEST_READOUT, PRISMA_FLOW_COUNTS, DSMB_ADVERSE_EVENTS, FLSA_OVERTIME, FMLA_ELIGIBILITY,
    JURY_SUMMONS_PLAN, RETENTION_OFFER_LIST, DOUBLE_KEY_VERIFICATION,
)


def workflows_for(occupation: str) -> tuple[Workflow, ...]:
    """The workflows a profession does (empty for a profession with none yet)."""
    return tuple(w for w in WORKFLOWS if occupation in w.professions)
