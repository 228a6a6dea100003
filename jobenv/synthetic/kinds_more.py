"""Families over the other analysis kinds: period change, budget variance, scoring, matching, reorder."""

from __future__ import annotations

import math
import random
from typing import Any

import pandas as pd

from .common import DegenerateTask, near_rounding_boundary, nice_between, num_text
from .kinds import Kind, limit_for
from .records import Scenario
from .solvers import engine

__all__ = ["Change", "Scoring", "Matching", "Reorder"]


def _memo_fields(kind: Kind, sc: Scenario, first: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return first + kind.common_fields(sc)


class Change(Kind):
    """Per-group totals in two periods (or budget against actual) and the percentage change."""

    def __init__(self, *args: Any, budget: bool = False, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.budget = budget

    def setup(self, rng: random.Random, sc: Scenario, pop: Any, written: Any, *, decision: bool, stem: str) -> dict[str, Any]:
        pc = sc.metric["period"]
        base, cur = rng.choice(sc.extra["periods"])
        A: dict[str, Any] = {"kind": "change", "group": sc.group, "value": sc.value, "decimals": sc.decimals,
                             "period": pc, "base": str(base), "current": str(cur), "count": bool(sc.metric.get("count"))}
        keep = pop[pc].astype(str).isin([str(base), str(cur)])
        pop = pop[keep].reset_index(drop=True)
        written = written[written[pc].astype(str).isin([str(base), str(cur)])].reset_index(drop=True)
        lookups: dict[str, Any] = {}
        rules = []
        if self.budget:
            actual_base = (pop[pop[pc].astype(str) == str(base)].groupby(sc.group)[sc.value].sum())
            budget = {}
            for g, v in actual_base.items():
                step = 10 ** max(0, int(math.floor(math.log10(max(abs(v), 1)))) - 1)
                budget[str(g)] = float(round(v * rng.uniform(0.96, 1.04) / step) * step)
            A["budget"] = "@budget"
            pop = pop[pop[pc].astype(str) == str(cur)].reset_index(drop=True)
            written = written[written[pc].astype(str) == str(cur)].reset_index(drop=True)
            name = f"approved_budget_{cur}." + rng.choice(("xlsx", "csv"))
            frame = pd.DataFrame({sc.group: sorted(budget), "approved_budget": [budget[g] for g in sorted(budget)]})
            lookups["budget"] = ({"file": name, "layout": name.rsplit(".", 1)[1], "key": sc.group,
                                  "value": "approved_budget", "sheet": "Budget",
                                  "note": f"Approved {cur} budget per {sc.group_noun}, in {sc.unit}."}, frame)
            rules.append(f"Budget: the approved {cur} budget per {sc.group_noun} is in {name}; actuals are the sum of "
                         f"{sc.value} over the {cur} records.")
            probe_A = dict(A, budget=budget, limit=1e9)
        else:
            probe_A = dict(A, limit=1e9)
            rules.append(f"Periods: compare {cur} against {base}; change = {cur} minus {base}; percentage change is "
                         f"relative to {base}.")
        truth, rows = engine.change(pop, {"analysis": probe_A, "id_col": sc.id})
        pcts = [abs(r["pct"]) for r in rows if r["pct"] is not None]
        if len(pcts) < 3:
            raise DegenerateTask("fewer than 3 groups with a base value")
        if any(near_rounding_boundary(r["change"], sc.decimals) for r in rows):
            raise DegenerateTask("a change sits on a rounding boundary")
        limit = limit_for(rng, pcts, decision, "above", 1)
        A["limit"] = limit
        rules.append(f"Threshold: a {sc.group_noun} is flagged when the absolute percentage change is above "
                     f"{num_text(limit)}% (after rounding the percentage to 1 decimal place).")
        rules.append(f"Rounding: amounts (totals included) to {sc.decimals} decimal places, percentages to 1 decimal "
                     "place, half up.")
        truth, rows = engine.change(pop, {"analysis": dict(probe_A, limit=limit), "id_col": sc.id})
        if bool(truth["flagged"]) != decision:
            raise DegenerateTask("decision target missed")
        truth["all"] = [r[sc.group] for r in rows]
        truth["top_word"] = "largest"
        return {"written": written, "params": {"analysis": A}, "lookups": lookups, "truth": truth, "rules": rules,
                "labels": (str(base) if not self.budget else "budget", str(cur))}

    def premise(self, rng: random.Random, sc: Scenario, truth: dict[str, Any], *, holds: bool,
                requester_first: str) -> tuple[dict[str, Any], str]:
        claim, text = super().premise(rng, sc, truth, holds=holds, requester_first=requester_first)
        if claim["kind"] == "top":
            text = text.replace(f"the largest {sc.metric_noun}", f"the largest swing in {sc.metric_noun}").replace(
                f"largest on {sc.metric_noun}", f"largest on the change in {sc.metric_noun}")
        return claim, text

    def deliverables(self, rng: random.Random, sc: Scenario, params: dict[str, Any]) -> tuple[dict[str, Any], str, list[tuple[str, str]], list[str]]:
        A = params["analysis"]
        b = "budget" if self.budget else f"{sc.metric_header}_{A['base']}"
        c = f"actual_{A['current']}" if self.budget else f"{sc.metric_header}_{A['current']}"
        ch = rng.choice(("change", "difference", "variance" if self.budget else "delta"))
        pct = rng.choice(("pct_change", "change_pct", "percent_change"))
        cols: list[dict[str, Any]] = [{"key": sc.group, "header": sc.group, "decimals": 0}, {"key": "base", "header": b, "decimals": sc.decimals},
                {"key": "current", "header": c, "decimals": sc.decimals}, {"key": "change", "header": ch, "decimals": sc.decimals},
                {"key": "pct", "header": pct, "decimals": 1}, {"key": "flag", "header": "flag", "decimals": 0}]
        table = rng.choice(("variance_table.csv", "comparison.csv", f"{sc.group}_changes.csv", "period_comparison.csv"))
        fields: list[dict[str, Any]] = _memo_fields(self, sc, [
            {"key": "total", "label": f"Total {A['current']}" + (" actual" if self.budget else ""), "hint": sc.unit, "decimals": sc.decimals},
            {"key": "total_pct", "label": "Overall change (%)", "hint": "percent, 1 decimal", "decimals": 1},
            {"key": "top", "label": "Largest absolute change", "hint": sc.group_noun},
            {"key": "top_value", "label": "Size of that change", "hint": f"{sc.unit}, signed", "decimals": sc.decimals},
        ])
        memo = self.memo(rng, sc, fields, params.get("premise"))
        params["deliverables"] = {"table": {"file": table, "columns": cols}, "memo": memo}
        return ({"file": table, "headers": [x["header"] for x in cols[:-1]] + ["flag (YES/NO)"], "unit": sc.group_noun},
                memo["file"], [(f["label"], f["hint"]) for f in fields], [])


_WEIGHT_SETS = ((40, 30, 20, 10), (35, 30, 25, 10), (50, 25, 15, 10), (30, 30, 20, 20), (45, 35, 20), (50, 30, 20), (40, 40, 20))


class Scoring(Kind):
    """Weighted min-max scoring of the eligible options; the decision is whether the incumbent wins."""

    def setup(self, rng: random.Random, sc: Scenario, pop: Any, written: Any, *, decision: bool, stem: str) -> dict[str, Any]:
        crit = list(sc.metric["criteria"])
        weights = rng.choice([w for w in _WEIGHT_SETS if len(w) == len(crit)])
        order = list(range(len(crit)))
        rng.shuffle(order)
        criteria = [{"column": crit[i][0], "better": crit[i][1], "weight": weights[k]} for k, i in enumerate(order)]
        col, op, val = rng.choice(sc.extra["constraints"])
        opts = pop.dropna(subset=[c["column"] for c in criteria]).reset_index(drop=True)
        n = min(len(opts), rng.randint(8, 14))
        opts = opts.sample(n=n, random_state=rng.randrange(2**31)).reset_index(drop=True)
        ok = engine._compare(opts[col], op, val)
        if not 4 <= int(ok.sum()) < len(opts):
            raise DegenerateTask("need at least 4 eligible options and one ineligible")
        A = {"kind": "scoring", "decimals": sc.decimals, "criteria": criteria,
             "constraint": {"column": col, "op": op, "value": val}, "incumbent": ""}
        truth, rows = engine.scoring(opts, {"analysis": A, "id_col": sc.id})
        scored = sorted((r["value"], r[sc.id]) for r in rows if r["value"] is not None)
        if len(scored) >= 2 and abs(scored[-1][0] - scored[-2][0]) < 0.05:
            raise DegenerateTask("tie for the best score")
        ranked = [name for _, name in sorted(scored, key=lambda t: -t[0])]
        A["incumbent"] = ranked[0] if decision else rng.choice(ranked[1:3])
        truth, rows = engine.scoring(opts, {"analysis": A, "id_col": sc.id})
        truth["all"] = ranked
        truth["top_word"] = "best"
        word = {">=": "at least", "<=": "at most", "==": "equal to"}[op]
        rules = [f"Eligibility: only options with {col} {word} {num_text(val)} may be scored; others are ineligible.",
                 "Scoring: for each criterion, rescale the eligible options' values to 0-1 (min-max; for a criterion "
                 "where lower is better use 1 minus that), multiply by the criterion's weight and add up (0-100 points).",
                 "Weights: " + ", ".join(f"{c['column']} {c['weight']}% ({'higher' if c['better'] == 'high' else 'lower'} is better)"
                                         for c in criteria) + ".",
                 f"Incumbent: the current supplier is {A['incumbent']}; renew only if it has the highest score.",
                 f"Rounding: scores to {sc.decimals} decimal places, half up."]
        return {"written": opts, "params": {"analysis": A}, "lookups": {}, "truth": truth, "rules": rules}

    def premise(self, rng: random.Random, sc: Scenario, truth: dict[str, Any], *, holds: bool,
                requester_first: str) -> tuple[dict[str, Any], str]:
        rest = [g for g in truth["all"] if g != truth["top"]]
        x = truth["top"] if holds else rng.choice(rest[:3])
        text = rng.choice((f"I expect {x} to come out on top.", f"Word is that {x} is the strongest bid.",
                           f"My money is on {x} winning this one."))
        return {"kind": "top", "value": x}, text + rng.choice((" Confirm or correct that in the memo.", " Tell me if I'm wrong."))

    def deliverables(self, rng: random.Random, sc: Scenario, params: dict[str, Any]) -> tuple[dict[str, Any], str, list[tuple[str, str]], list[str]]:
        cols: list[dict[str, Any]] = [{"key": sc.id, "header": sc.id, "decimals": 0}, {"key": "eligible", "header": "eligible", "decimals": 0},
                {"key": "value", "header": rng.choice(("score", "weighted_score", "points")), "decimals": sc.decimals},
                {"key": "rank", "header": "rank", "decimals": 0}]
        table = rng.choice(("scoring_matrix.csv", "bid_scores.csv", "evaluation.csv", "scorecard.csv"))
        fields: list[dict[str, Any]] = [{"key": "top", "label": "Highest-scoring option", "hint": "name"},
                  {"key": "top_value", "label": "Winning score", "hint": "points", "decimals": sc.decimals},
                  {"key": "flagged", "label": "Ineligible options", "hint": "names separated by semicolons, or none"},
                  {"key": "decision", "label": "Decision", "hint": " or ".join(self.decision_words)},
                  {"key": "premise", "label": "Premise holds", "hint": "yes or no"},
                  {"key": "source_file", "label": "Data file used", "hint": "file name"}]
        memo = self.memo(rng, sc, fields, params.get("premise"))
        params["deliverables"] = {"table": {"file": table, "columns": cols}, "memo": memo}
        return ({"file": table, "headers": [c["header"] for c in cols[:1]] + ["eligible (YES/NO)"] +
                 [c["header"] for c in cols[2:]] + ["(score and rank blank when ineligible)"], "unit": "option"},
                memo["file"], [(f["label"], f["hint"]) for f in fields], [])


class Matching(Kind):
    """Our records against the counterparty's by key: exceptions, exposure and whether it is material."""

    def setup(self, rng: random.Random, sc: Scenario, pop: Any, written: Any, *, decision: bool, stem: str) -> dict[str, Any]:
        n = min(len(pop) - 6, rng.randint(40, 120))
        if n < 20:
            raise DegenerateTask("too few records to reconcile")
        shuffled = pop.sample(frac=1.0, random_state=rng.randrange(2**31)).reset_index(drop=True)
        ours, spare = shuffled.iloc[:n].copy(), shuffled.iloc[n:]
        theirs = ours[[sc.id, sc.value]].rename(columns={sc.value: "amount_billed"}).copy()
        theirs["amount_billed"] = theirs["amount_billed"].astype(float)
        tolerance = rng.choice((0.5, 1.0, 5.0))
        drop = theirs.sample(n=rng.randint(2, 4), random_state=rng.randrange(2**31)).index
        theirs = theirs.drop(drop)
        change = theirs.sample(n=rng.randint(2, 5), random_state=rng.randrange(2**31)).index
        for i in change:
            v = float(theirs.at[i, "amount_billed"])
            delta = max(tolerance * 4, abs(v) * rng.uniform(0.02, 0.15))
            theirs.at[i, "amount_billed"] = round(v + rng.choice((-1, 1)) * delta, 2)
        extra = spare.head(rng.randint(1, 3))[[sc.id, sc.value]].rename(columns={sc.value: "amount_billed"})
        theirs = pd.concat([theirs, extra]).sample(frac=1.0, random_state=rng.randrange(2**31)).reset_index(drop=True)
        other_name = rng.choice(("statement", "counterparty_statement", "vendor_statement", "bank_report")) + f"_{stem}." + rng.choice(("csv", "xlsx"))
        A: dict[str, Any] = {"kind": "matching", "key": sc.id, "amount": sc.value, "other_amount": "amount_billed", "tolerance": tolerance,
             "numeric": ["amount_billed"], "decimals": 2, "materiality": 0.0,
             "other": {"file": other_name, "layout": other_name.rsplit(".", 1)[1], "skip_sheets": ["Notes"]}}
        truth, rows = engine.matching_frames(ours, theirs, A, ())
        exp = truth["exposure"]
        A["materiality"] = nice_between(exp * 0.3, exp * 0.9, 2) if decision else nice_between(exp * 1.1, exp * 2.0, 2)
        truth, rows = engine.matching_frames(ours, theirs, A, ())
        truth["all"] = sorted(str(x) for x in ours[sc.id])
        rules = [f"Matching: match on {sc.id}. A difference of {num_text(tolerance)} {sc.unit} or less is rounding and counts as matched.",
                 "One-sided lines: a record on only one side is an exception whose whole amount is unexplained: minus our "
                 "amount when the counterparty lacks it (missing_in_other), plus theirs when we lack it (missing_in_source). "
                 "Both totals count every exception and leave matched records out.",
                 f"Materiality: hold the sign-off when the total absolute unexplained difference is above {num_text(A['materiality'])} {sc.unit}.",
                 f"Statement: the counterparty's figures are in {other_name} (column amount_billed).",
                 "Rounding: amounts and differences to 2 decimal places, half up."]
        lookup = {"statement": ({**A["other"], "key": sc.id, "value": "amount_billed", "sheet": "Statement",
                                 "note": "Counterparty statement as received."}, theirs)}
        return {"written": ours, "params": {"analysis": A}, "lookups": lookup, "truth": truth, "rules": rules}

    def premise(self, rng: random.Random, sc: Scenario, truth: dict[str, Any], *, holds: bool,
                requester_first: str) -> tuple[dict[str, Any], str]:
        flagged = truth["flagged"]
        clean = [x for x in truth["all"] if x not in flagged]
        if holds:
            x = rng.choice(clean)
        else:
            x = rng.choice([f for f in flagged if f in truth["all"]] or flagged)
        text = rng.choice((f"I'm fairly sure {x} reconciles without any issue.", f"{x} should be clean; I checked it last month.",
                           f"I don't expect any problem with {x}."))
        return {"kind": "not_flagged", "value": x}, text + " Please confirm in the memo."

    def deliverables(self, rng: random.Random, sc: Scenario, params: dict[str, Any]) -> tuple[dict[str, Any], str, list[tuple[str, str]], list[str]]:
        cols: list[dict[str, Any]] = [{"key": sc.id, "header": sc.id, "decimals": 0}, {"key": "source", "header": "our_amount", "decimals": 2},
                {"key": "other", "header": "their_amount", "decimals": 2}, {"key": "difference", "header": "difference", "decimals": 2},
                {"key": "status", "header": "status", "decimals": 0}]
        table = rng.choice(("reconciliation_exceptions.csv", "unmatched_items.csv", "exceptions.csv", "recon_breaks.csv"))
        fields: list[dict[str, Any]] = [{"key": "records", "label": "Records in our extract", "hint": "count"},
                  {"key": "exposure", "label": "Total absolute difference", "hint": sc.unit, "decimals": 2},
                  {"key": "net", "label": "Net difference", "hint": f"theirs minus ours, {sc.unit}", "decimals": 2},
                  {"key": "decision", "label": "Decision", "hint": " or ".join(self.decision_words)},
                  {"key": "premise", "label": "Premise holds", "hint": "yes or no"},
                  {"key": "source_file", "label": "Data file used", "hint": "file name"}]
        memo = self.memo(rng, sc, fields, params.get("premise"))
        params["deliverables"] = {"table": {"file": table, "columns": cols}, "memo": memo}
        return ({"file": table, "headers": [c["header"] for c in cols] + ["(status: amount_difference, missing_in_other or missing_in_source)"],
                 "unit": "exception"}, memo["file"], [(f["label"], f["hint"]) for f in fields], [])


class Reorder(Kind):
    """Reorder points from recent daily demand and the stock position; which items must be ordered."""

    def setup(self, rng: random.Random, sc: Scenario, pop: Any, written: Any, *, decision: bool, stem: str) -> dict[str, Any]:
        window = rng.choice((14, 21, 28))
        z = rng.choice((1.28, 1.65, 2.05))
        cover = rng.choice((5, 7, 10))
        A = {"kind": "reorder", "group": sc.group, "period": sc.metric["period"], "window": window, "z": z,
             "cover": cover, "decimals": sc.decimals, "lead": "@lead", "on_hand": "@on_hand"}
        pc = A["period"]
        periods = sorted(written[pc].unique(), key=lambda p: (len(str(p)), str(p)))[-(window + rng.randint(10, 30)):]
        pop = pop[pop[pc].isin(periods)].reset_index(drop=True)
        written = written[written[pc].isin(periods)].reset_index(drop=True)
        demand = engine.daily_demand(pop, A)
        groups = sorted(demand)
        if len(groups) < 3:
            raise DegenerateTask("fewer than 3 items")
        lead = {g: rng.randint(2, 7) for g in groups}
        order = set(rng.sample(groups, rng.randint(1, min(3, len(groups) - 1)))) if decision else set()
        on_hand = {}
        for g in groups:
            s = pd.Series(demand[g], dtype=float)
            rop = float(s.mean()) * lead[g] + z * float(s.std(ddof=1)) * math.sqrt(lead[g])
            if near_rounding_boundary(rop, sc.decimals) or rop < 2:
                raise DegenerateTask("a reorder point is degenerate")
            u = rng.uniform(0.4, 0.85) if g in order else rng.uniform(1.15, 1.8)
            on_hand[g] = int(round(rop * u))
            if abs(on_hand[g] - rop) < 1:
                raise DegenerateTask("stock on hand equals the reorder point")
        name = f"stock_position_{stem}." + rng.choice(("xlsx", "csv"))
        frame = pd.DataFrame({sc.group: groups, "lead_time_days": [lead[g] for g in groups],
                              "on_hand": [on_hand[g] for g in groups]})
        spec_l = {"file": name, "layout": name.rsplit(".", 1)[1], "key": sc.group, "value": "lead_time_days", "sheet": "Stock"}
        spec_o = dict(spec_l, value="on_hand")
        truth, rows = engine.reorder(pop, {"analysis": dict(A, lead=lead, on_hand=on_hand), "id_col": sc.id})
        if bool(truth["flagged"]) != decision:
            raise DegenerateTask("decision target missed")
        truth["all"] = groups
        truth["top_word"] = "most urgent"
        rules = [f"Demand: daily demand is the number of {sc.entity}s per {sc.group_noun} per day; use the last {window} days "
                 "in the log (a day without any counts as zero).",
                 f"Reorder point: average daily demand x lead time + {z} x standard deviation of daily demand (sample) x "
                 "square root of lead time; lead times and stock on hand are in " + name + ".",
                 f"Order when stock on hand is below the reorder point (rounded to {sc.decimals} decimal place); order quantity "
                 f"= reorder point + {cover} days of average demand - stock on hand, rounded up to a whole kit.",
                 f"Urgency: the most urgent {sc.group_noun} is the one whose stock on hand is furthest below its reorder "
                 "point (the lowest stock on hand minus reorder point; furthest above it when none is below).",
                 f"Rounding: demand and reorder points to {sc.decimals} decimal place, half up."]
        lookups = {"lead": (spec_l, frame), "on_hand": (spec_o, frame)}
        return {"written": written, "params": {"analysis": A}, "lookups": lookups, "truth": truth, "rules": rules}

    def deliverables(self, rng: random.Random, sc: Scenario, params: dict[str, Any]) -> tuple[dict[str, Any], str, list[tuple[str, str]], list[str]]:
        cols: list[dict[str, Any]] = [{"key": sc.group, "header": sc.group, "decimals": 0}, {"key": "mean", "header": "avg_daily_demand", "decimals": sc.decimals},
                {"key": "rop", "header": "reorder_point", "decimals": sc.decimals}, {"key": "on_hand", "header": "on_hand", "decimals": 0},
                {"key": "flag", "header": "order_now", "decimals": 0}, {"key": "qty", "header": "order_qty", "decimals": 0}]
        table = rng.choice(("reorder_plan.csv", "replenishment.csv", "reorder_points.csv"))
        fields: list[dict[str, Any]] = [{"key": "total_qty", "label": "Total order quantity", "hint": "kits"},
                  {"key": "top", "label": "Most urgent item", "hint": sc.group_noun},
                  {"key": "top_value", "label": "Its reorder point", "hint": "kits", "decimals": sc.decimals}]
        fields += self.common_fields(sc)
        memo = self.memo(rng, sc, fields, params.get("premise"))
        params["deliverables"] = {"table": {"file": table, "columns": cols}, "memo": memo}
        return ({"file": table, "headers": [c["header"] for c in cols], "unit": sc.group_noun}, memo["file"],
                [(f["label"], f["hint"]) for f in fields], [])
