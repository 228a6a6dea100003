"""The families: how each sets its graded thresholds, states its house rules and asks for its deliverables.

Five analysis kinds (see ``solvers/engine.py``) carry fourteen families. A family object decides, on the
true population, a threshold that gives the decision the split needs; writes the family's own house
rules (which go to the policy memo); phrases the premise; and names the deliverables and memo labels.
"""

from __future__ import annotations

import math
import random
from typing import Any

import pandas as pd

from .common import DegenerateTask, near_rounding_boundary, nice_between, num_text, rnd
from .records import Scenario
from .solvers import engine

__all__ = ["Kind", "GroupMetric", "limit_for"]


def limit_for(rng: random.Random, values: list[float], decision: bool, direction: str, d: int) -> float:
    """A round threshold so that some values breach it (decision) or none does."""
    vals = sorted(set(rnd(v, d) for v in values if not math.isnan(v)))
    if len(vals) < 3:
        raise DegenerateTask("fewer than 3 distinct graded values")
    spread = max(vals[-1] - vals[0], 10 ** (-d))
    if direction == "below":
        vals = [-v for v in vals][::-1]
    if decision:
        k = rng.randint(1, min(3, len(vals) - 1))
        lim = nice_between(vals[-k - 1], vals[-k], d)
    else:
        lim = nice_between(vals[-1], vals[-1] + spread * rng.uniform(0.1, 0.4) + 10 ** (-d), d)
    return -lim if direction == "below" else lim


def _plural(noun: str) -> str:
    return noun + ("es" if noun.endswith(("s", "x", "ch")) else "s")


def relabel(rng: random.Random, sc: Scenario, fields: list[dict[str, Any]], claim: dict[str, Any] | None,
            decision: tuple[str, str]) -> None:
    """Word the memo's bookkeeping labels (records, decision, premise, data file) from the request's own nouns, so
    no fixed set of labels describes the split; the labels stay distinct within the memo."""
    ent = sc.entity
    subject = claim.get("value") if claim else None
    about = subject if isinstance(subject, str) and 0 < len(subject) <= 40 else sc.metric_noun
    pools = {
        "records": (f"{ent.capitalize()}s analysed", f"{ent.capitalize()}s in scope", f"Number of {ent}s counted",
                    f"{ent.capitalize()} count behind the figures"),
        "decision": ("Recommendation", f"Call on {sc.metric_noun}", f"What we do about {sc.metric_noun}",
                     f"Action ({decision[0].lower()} or not)"),
        "premise": (f"Your view on {about} holds", f"Is your point about {about} right",
                    f"Assumption about {about} confirmed", f"Check of your note on {about}"),
        "source_file": ("Extract of record", f"{ent.capitalize()} file relied on", "Data file relied on",
                        "Source extract"),
    }
    taken = {f["label"] for f in fields if f["key"] not in pools}
    for f in fields:
        options = [o.replace(":", "") for o in pools.get(f["key"], ()) if o.replace(":", "") not in taken]
        if options:
            f["label"] = rng.choice(options)
            taken.add(f["label"])


class Kind:
    """Shared behaviour; subclasses set the analysis."""

    def __init__(self, family: str, title: str, subjects: tuple[str, ...], purposes: tuple[str, ...],
                 decision: tuple[str, str], flag_label: str, units_ok: bool = True) -> None:
        self.family, self.title, self.subjects, self.purposes = family, title, subjects, purposes
        self.decision_words, self.flag_label, self.units_ok = decision, flag_label, units_ok

    def stem(self, rng: random.Random, sc: Scenario) -> str:
        return rng.choice((sc.key, sc.key + "_extract", sc.entity.replace(" ", "_").replace("-", "_") + "_records"))

    def subject(self, rng: random.Random, sc: Scenario) -> str:
        return rng.choice(self.subjects).format(metric=sc.metric_noun, group=sc.group_noun, entity=sc.entity)

    def purpose(self, rng: random.Random, sc: Scenario, params: dict[str, Any]) -> str:
        return rng.choice(self.purposes).format(metric=sc.metric_noun, group=sc.group_noun, entity=sc.entity,
                                                groups=_plural(sc.group_noun))

    def flag_text(self, sc: Scenario) -> str:
        return self.flag_label.format(group=_plural(sc.group_noun).capitalize())

    def premise(self, rng: random.Random, sc: Scenario, truth: dict[str, Any], *, holds: bool,
                requester_first: str) -> tuple[dict[str, Any], str]:
        flagged, groups = truth["flagged"], truth["all"]
        others = [g for g in groups if g not in flagged]
        kinds = ["top"] + (["flagged"] if flagged and others else []) + (["not_flagged"] if others and flagged else [])
        k = rng.choice(kinds)
        if k == "top":
            rest = [g for g in groups if g != truth["top"]]
            x = truth["top"] if holds else rng.choice(rest)
            word = truth.get("top_word", "highest")
            text = rng.choice((
                f"My working assumption is that {x} has the {word} {sc.metric_noun}.",
                f"I've been telling people that {x} comes out {word} on {sc.metric_noun}.",
                f"Everyone here seems to think {x} will show the {word} {sc.metric_noun}.",
                f"Last time I looked, {x} had the {word} {sc.metric_noun}, and I expect that still holds.",
            ))
        elif k == "flagged":
            x = rng.choice(flagged) if holds else rng.choice(others)
            text = rng.choice((
                f"I'm expecting {x} to be one of the {sc.group_noun}s that breach the rule.",
                f"My hunch is that {x} is the problem case this time.",
                f"I'd be surprised if {x} were not caught by the threshold.",
            ))
        else:
            x = rng.choice(others) if holds else rng.choice(flagged)
            text = rng.choice((
                f"I'm fairly confident {x} is fine and within the rule.",
                f"{x} should be clear this time; I'd like that confirmed.",
                f"I assume we don't need to worry about {x}.",
            ))
        ask = rng.choice((" Tell me in the memo whether that holds.", " Please confirm or correct that.",
                          " If I'm wrong, say so plainly."))
        return {"kind": k, "value": x}, text + ask

    def setup(self, rng: random.Random, sc: Scenario, pop: Any, written: Any, *, decision: bool,
              stem: str) -> dict[str, Any]:
        """Thresholds for the decision target, house rules, lookups and the in-memory ground truth."""
        raise NotImplementedError

    def deliverables(self, rng: random.Random, sc: Scenario,
                     params: dict[str, Any]) -> tuple[dict[str, Any], str, list[tuple[str, str]], list[str]]:
        """(table for the prompt, memo file, memo labels with hints, extra deliverable lines); sets params."""
        raise NotImplementedError

    def memo(self, rng: random.Random, sc: Scenario, fields: list[dict[str, Any]],
             claim: dict[str, Any] | None = None) -> dict[str, Any]:
        relabel(rng, sc, fields, claim, self.decision_words)
        for f in fields:  # every graded figure says its precision where it is asked for
            if "decimals" in f and "decimal" not in f["hint"]:
                d = int(f["decimals"])
                f["hint"] += f", {d} decimal{'s' if d != 1 else ''}" if d else ", whole number"
        title = rng.choice(("Findings", "Summary for management", "Decision memo", "Briefing note")) + ": " + sc.metric_noun
        pos, neg = self.decision_words
        return {"file": rng.choice(("memo.md", "findings.md", "briefing_note.md", "decision_memo.md", "summary_memo.txt")),
                "title": title, "fields": fields, "yes": "yes", "no": "no", "decision": [pos, neg]}

    def common_fields(self, sc: Scenario) -> list[dict[str, Any]]:
        pos, neg = self.decision_words
        return [
            {"key": "flagged", "label": self.flag_text(sc), "hint": "names separated by semicolons, or none"},
            {"key": "decision", "label": "Decision", "hint": f"{pos} or {neg}"},
            {"key": "premise", "label": "Premise holds", "hint": "yes or no"},
            {"key": "source_file", "label": "Data file used", "hint": "file name"},
        ]


class GroupMetric(Kind):
    """One metric per group against a limit (mean, ratio, share, slope or peak utilisation)."""

    def setup(self, rng: random.Random, sc: Scenario, pop: Any, written: Any, *, decision: bool, stem: str) -> dict[str, Any]:
        A: dict[str, Any] = {"kind": "group_metric", "group": sc.group, "value": sc.value, "decimals": sc.decimals,
                             "direction": sc.metric.get("direction", "above")}
        A.update({k: v for k, v in sc.metric.items() if k != "exceptions"})
        rules: list[str] = []
        lookups: dict[str, Any] = {}
        if "limits" in sc.extra:  # compliance: the record-level limit is a house rule drawn per task
            ev = dict(A["event"], value=rng.choice(sc.extra["limits"]))
            A["event"] = ev
            rules.append(f"Breach: a {sc.entity} breaches when {sc.value} is {'above' if ev['op'] == '>' else 'below'} "
                         f"{num_text(ev['value'])} (strictly).")
        if A["metric"] == "peak_util":
            A, lk, cap_rule = self._capacity(rng, sc, pop, A, decision, stem, written)
            lookups.update(lk)
            rules.append(cap_rule)
        probe = dict(A, limit=0.0, capacity=A.get("_cap", A.get("capacity")))
        if probe.get("min_n") is None:
            probe["min_n"] = 0
        truth, rows = engine.group_metric(pop, {"analysis": probe, "id_col": sc.id})
        vals = [r["value"] for r in rows if r["value"] is not None]
        if len(vals) < 3:
            raise DegenerateTask("fewer than 3 reportable groups")
        raw_vals = [engine._metric(part, probe) for _, part in pop.groupby(sc.group)]
        if any(near_rounding_boundary(v, sc.decimals) for v in raw_vals if not math.isnan(v)):
            raise DegenerateTask("a group value sits on a rounding boundary")
        if A["metric"] == "peak_util":
            A["limit"] = A.pop("_limit")
        else:
            A["limit"] = limit_for(rng, vals, decision, A["direction"], sc.decimals)
        A.pop("_cap", None)
        d = sc.decimals
        word = "above" if A["direction"] == "above" else "below"
        rules.append(f"Threshold: a {sc.group_noun} is flagged when its {sc.metric_noun} is {word} "
                     f"{num_text(A['limit'])} {sc.unit} (strictly {word}, after rounding to {d} decimal place{'s' if d != 1 else ''}).")
        if A.get("min_n"):
            rules.append(f"Small cells: a {sc.group_noun} with fewer than {A['min_n']} {sc.entity}s in scope is not "
                         "reported (write SUPPRESSED in the flag column and leave the value blank) and is never flagged.")
        if A["metric"] == "share" and "known" in A.get("event", {}):
            ev, k = A["event"], A["event"]["known"]
            day = num_text(ev["value"])
            rules.append(f"Day {day}: a {sc.entity} counts as alive at day {day} when {ev['column']} is {day} or more, "
                         f"whether or not they died later (a death on day {day} itself counts as alive at day {day}); "
                         f"a {sc.entity} with {k['column']} = {num_text(k['value'])} and {ev['column']} under {day} "
                         f"died before day {day}.")
            rules.append(f"Denominator: a {sc.entity} censored ({k['column']} other than {num_text(k['value'])}, still "
                         f"alive at last contact) with {ev['column']} under {day} has no known day-{day} outcome and is "
                         f"left out of the denominator. The table's count column counts the {sc.entity}s in each "
                         f"{sc.group_noun}'s denominator; the memo's count of {sc.entity}s is every in-scope {sc.entity}, "
                         "censored early or not.")
        if A["metric"] == "ratio":
            rules.append(f"Definition: {sc.metric_noun} = total {sc.value} / total {A['den']} of the {sc.group_noun}"
                         + (f", times {num_text(A['scale'])}." if A.get("scale", 1.0) != 1.0 else "."))
        if A["metric"] == "slope":
            rules.append(f"Definition: the trend is the ordinary least-squares slope of {sc.value} on {A['x']}, "
                         f"rounded to {d} decimal places.")
        rules.append(f"Rounding: report {sc.metric_noun} to {d} decimal place{'s' if d != 1 else ''}, half up; counts are "
                     "whole numbers.")
        if sc.metric.get("exceptions"):
            ex = self._exceptions(rng, sc, pop, A)
            if ex:
                A["exceptions"] = ex
                rules.append(ex["rule"])
        final = dict(A)
        truth, rows = engine.group_metric(pop, {"analysis": dict(final, capacity=probe.get("capacity")), "id_col": sc.id})
        truth["all"] = [r[sc.group] for r in rows if r["value"] is not None]
        truth["top_word"] = "highest" if A["direction"] == "above" else "lowest"
        if bool(truth["flagged"]) != decision:
            raise DegenerateTask("decision target missed")
        return {"written": written, "params": {"analysis": final}, "lookups": lookups, "truth": truth, "rules": rules}

    def _capacity(self, rng: random.Random, sc: Scenario, pop: Any, A: dict[str, Any], decision: bool,
                  stem: str, written: Any) -> tuple[dict[str, Any], dict[str, Any], str]:
        peaks = pop.groupby(sc.group)[A["period"]].value_counts().groupby(level=0).max()
        all_peaks = written.groupby(sc.group)[A["period"]].value_counts().groupby(level=0).max()
        limit = float(rng.choice((85, 90, 95, 100)))
        groups = sorted(str(g) for g in peaks.index)
        over = set(rng.sample(groups, rng.randint(1, min(2, len(groups) - 1)))) if decision else set()
        cap = {}
        for g in groups:
            u = rng.uniform(limit + 4, limit + 30) if g in over else rng.uniform(45, limit - 4)
            cap[g] = max(1, int(round(float(peaks[g]) * 100 / u)))
            util = float(peaks[g]) / cap[g] * 100
            if abs(util - limit) < 1 or near_rounding_boundary(util, sc.decimals):
                raise DegenerateTask("a utilisation sits on the limit or a rounding boundary")
        for g in sorted(str(x) for x in all_peaks.index if str(x) not in cap):
            cap[g] = max(1, int(round(float(all_peaks[g]) * 100 / rng.uniform(45, 80))))
        groups = sorted(cap)
        name = f"{stem}_capacity." + rng.choice(("xlsx", "csv"))
        spec = {"file": name, "layout": name.rsplit(".", 1)[1], "key": sc.group, "value": "daily_capacity",
                "sheet": "Capacity", "note": f"Agreed daily capacity per {sc.group_noun}."}
        frame = pd.DataFrame({sc.group: groups, "daily_capacity": [cap[g] for g in groups]})
        A = dict(A, capacity="@capacity", _cap=cap, _limit=limit)
        rule = (f"Utilisation: a {sc.group_noun}'s peak-day utilisation is its busiest day's count of {sc.entity}s "
                f"divided by its daily capacity in {name}, as a percentage.")
        return A, {"capacity": (spec, frame)}, rule

    def _exceptions(self, rng: random.Random, sc: Scenario, pop: Any, A: dict[str, Any]) -> dict[str, Any] | None:
        vals = pd.to_numeric(pop[sc.value])
        dec = 0 if all(float(v).is_integer() for v in vals.dropna()) else 2
        if "event" in A and A["metric"] == "share":
            ev = A["event"]
            op, x = ev["op"], ev["value"]
        else:
            op, x = ">", nice_between(float(vals.quantile(rng.uniform(0.86, 0.93))), float(vals.max()), dec)
        hits = engine._compare(pop[sc.value], op, x).sum()
        if not 1 <= hits <= 60 or (vals == x).any():
            return None
        word = "above" if op.startswith(">") else "below"
        name = rng.choice(("exceptions.csv", "exception_list.csv", f"{sc.entity.replace(' ', '_')}_exceptions.csv"))
        return {"column": sc.value, "op": op, "value": x, "decimals": dec, "columns": [sc.id, sc.group, sc.value],
                "file": name, "rule": f"Exceptions: list every in-scope {sc.entity} whose {sc.value} is {word} "
                                      f"{num_text(x)} {sc.unit}, most extreme first."}

    def deliverables(self, rng: random.Random, sc: Scenario, params: dict[str, Any]) -> tuple[dict[str, Any], str, list[tuple[str, str]], list[str]]:
        A = params["analysis"]
        n_head = rng.choice(("n", "records", f"{sc.entity.replace(' ', '_').replace('-', '_')}s"))
        flag_head = rng.choice(("flag", "flagged", "breach", "status"))
        cols: list[dict[str, Any]] = [{"key": sc.group, "header": sc.group, "decimals": 0}, {"key": "n", "header": n_head, "decimals": 0},
                {"key": "value", "header": sc.metric_header, "decimals": sc.decimals},
                {"key": "flag", "header": flag_head, "decimals": 0}]
        table = rng.choice(("summary.csv", f"{sc.group.replace(' ', '_')}_summary.csv", "results_table.csv", "table.csv"))
        fields: list[dict[str, Any]] = [{"key": "records", "label": rng.choice(("Records analysed", "Records in scope")), "hint": "count"},
                  {"key": "top", "label": f"{'Highest' if A.get('direction', 'above') == 'above' else 'Lowest'} {sc.metric_noun}",
                   "hint": sc.group_noun},
                  {"key": "top_value", "label": f"Value for that {sc.group_noun}",
                   "hint": f"{sc.unit}, {sc.decimals} decimal{'s' if sc.decimals != 1 else ''}", "decimals": sc.decimals}]
        fields += self.common_fields(sc)
        memo = self.memo(rng, sc, fields, params.get("premise"))
        params["deliverables"] = {"table": {"file": table, "columns": cols}, "memo": memo}
        extra = []
        if A.get("exceptions"):
            ex = A["exceptions"]
            params["deliverables"]["exceptions"] = {"file": ex["file"], "headers": ex["columns"]}
            extra.append(f"{ex['file']} listing the exceptions defined in the house rules, columns "
                         f"{', '.join(ex['columns'])}.")
        flag_note = f"(YES/NO{', or SUPPRESSED' if A.get('min_n') else ''})"
        # which groups get a row: those with in-scope records (a lookup such as a capacity table may list more)
        unit = (f"{sc.group_noun} with at least one in-scope {sc.entity}; a {sc.group_noun} with none gets no row, "
                "even where another file lists it")
        return ({"file": table, "headers": [c["header"] for c in cols[:3]] + [f"{flag_head} {flag_note}"],
                 "unit": unit}, memo["file"], [(f["label"], f["hint"]) for f in fields], extra)


