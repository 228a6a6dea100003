"""How far the no-LLM reward agrees with a careful grader, over the grader test bank (tests/judge/bank).

Labels: a correct variant passes every criterion; a trap or hedged variant fails each rubric it is about;
a blind variant fails every criterion. Prints, per case and overall:

* agreement - the share of labelled verdicts (criteria of correct and blind variants, rubrics of trap and
  hedged variants) the checks judge gets right;
* false negatives - the share of criteria of correct variants that fail (target <= 2 %), and the correct
  variants scoring below 1.0;
* the credit trap and hedged variants earn on the rubrics they are about (target 0), and the score of blind
  variants (target <= 0.05).

    python benchmarks/checks_agreement.py [--json]

Builds the bank in a temporary directory (runs the sample reference solutions and draws synthetic tasks),
about a minute on one core. Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _bank():
    """The bank package from tests/judge/bank (loaded by path: a site-packages "tests" may shadow ours)."""
    pkg = ROOT / "tests" / "judge" / "bank"
    spec = importlib.util.spec_from_file_location("jobenv_grader_bank", pkg / "__init__.py",
                                                  submodule_search_locations=[str(pkg)])
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["jobenv_grader_bank"] = mod
    spec.loader.exec_module(mod)
    return mod


def measure(cases, grade) -> dict:
    rows = []
    tot = {"labels": 0, "agree": 0, "correct_criteria": 0, "false_neg": 0, "correct_variants": 0,
           "correct_below_one": 0, "trap_credit": [], "hedged_credit": [], "blind_scores": []}
    for case in cases:
        c = {"case": case.name, "labels": 0, "agree": 0, "fn": 0, "criteria": 0, "trap": 0.0, "hedged": 0.0,
             "blind": 0.0}
        for v in case.variants:
            rep = grade(v.task or case.task, v.out)
            crit = [cr for r in rep.rubrics for cr in r.criteria_results]
            if v.kind == "correct":
                ok = sum(1 for cr in crit if cr.passed)
                c["labels"] += len(crit)
                c["agree"] += ok
                c["criteria"] += len(crit)
                c["fn"] += len(crit) - ok
                tot["correct_variants"] += 1
                tot["correct_below_one"] += rep.normalized_score < 1.0
            elif v.kind in ("trap", "hedged"):
                weight = sum(rep.rubrics[i].weight for i in v.must_fail)
                earned = sum(rep.rubrics[i].score for i in v.must_fail)
                c["labels"] += len(v.must_fail)
                c["agree"] += sum(1 for i in v.must_fail if not rep.rubrics[i].passed)
                credit = earned / weight if weight else 0.0
                c[v.kind] = max(c[v.kind], credit)
                tot[f"{v.kind}_credit"].append(credit)
            else:
                c["labels"] += len(crit)
                c["agree"] += sum(1 for cr in crit if not cr.passed)
                c["blind"] = max(c["blind"], rep.normalized_score)
                tot["blind_scores"].append(rep.normalized_score)
        tot["labels"] += c["labels"]
        tot["agree"] += c["agree"]
        tot["correct_criteria"] += c["criteria"]
        tot["false_neg"] += c["fn"]
        rows.append(c)
    summary = {
        "cases": len(rows),
        "variants": sum(len(case.variants) for case in cases),
        "agreement": round(tot["agree"] / tot["labels"], 4) if tot["labels"] else None,
        "false_negative_rate": round(tot["false_neg"] / tot["correct_criteria"], 4) if tot["correct_criteria"] else None,
        "correct_variants_below_1": f"{tot['correct_below_one']}/{tot['correct_variants']}",
        "trap_credit_max": round(max(tot["trap_credit"], default=0.0), 4),
        "hedged_credit_max": round(max(tot["hedged_credit"], default=0.0), 4),
        "blind_score_mean": round(sum(tot["blind_scores"]) / len(tot["blind_scores"]), 4) if tot["blind_scores"] else None,
        "blind_score_max": round(max(tot["blind_scores"], default=0.0), 4),
    }
    return {"summary": summary, "cases": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = ap.parse_args(argv)
    bank = _bank()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="jobenv-bank-") as tmp:
        cases = bank.build_bank(Path(tmp))
        built = time.perf_counter() - t0
        result = measure(cases, bank.grade_variant)
    result["summary"]["build_s"] = round(built, 1)
    result["summary"]["grade_s"] = round(time.perf_counter() - t0 - built, 1)
    s = result["summary"]
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{'case':45} {'agree':>7} {'FN':>5} {'trap':>6} {'hedged':>7} {'blind':>6}")
        for c in result["cases"]:
            print(f"{c['case']:45} {c['agree'] / c['labels']:7.3f} {c['fn']:5d} {c['trap']:6.3f} {c['hedged']:7.3f} "
                  f"{c['blind']:6.3f}")
        print(json.dumps(s))
    missed = (s["false_negative_rate"] or 0) > 0.02 or s["trap_credit_max"] > 0 or s["hedged_credit_max"] > 0 \
        or s["blind_score_max"] > 0.05
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
