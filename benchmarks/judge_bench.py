"""Judge and extraction benchmark; prints one JSON object.

1. Grading a 10-rubric task against a loopback OpenAI-compatible judge that takes 200 ms per call,
   versus grading a 1-rubric task (a single call), measured in the same run (target ratio < 2).
2. Extraction time of a ~5 MB workbook (values and formulas modes) and a 50-page PDF.
3. Recalculation of a workbook holding 10,000 formulas without cached values (what openpyxl writes), with
   each engine: LibreOffice headless and the pure-Python ``formulas`` package, plus the whole extraction.

Run: .venv/bin/python benchmarks/judge_bench.py
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jobenv.extract import extract_file  # noqa: E402
from jobenv.judge import LLMJudge  # noqa: E402
from jobenv.tasks import Task, parse_rubrics  # noqa: E402


def _load_server():  # by file path: another installed "tests" package may shadow ours
    import importlib.util

    spec = importlib.util.spec_from_file_location("jobenv_bench_openai_server", ROOT / "tests/support/openai_server.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod.OpenAIServer, mod.Reply


OpenAIServer, Reply = _load_server()

DELAY_S = 0.2


def _task(root: Path, n: int) -> Task:
    rubrics = [{"rubric": f"Rubric {i}", "weight": 10, "criterion": ["a", "b", "c"]} for i in range(n)]
    return Task(split="bench", occupation="bench", number=n, instructions="", task_folder=root,
                rubrics=parse_rubrics({"rubrics": rubrics}), root=root)


def _handler(req: dict) -> Reply:
    head = req["messages"][-1]["content"].split("## Deliverables", 1)[0]
    n = len(re.findall(r"^Criterion \d+: ", head, re.M))
    body = {"criteria_results": [{"index": i, "passed": True, "reasoning": "r", "evidence": "e"} for i in range(n)],
            "rubric_passed": True, "overall_reasoning": "ok"}
    return Reply(content=json.dumps(body), delay_s=DELAY_S)


def bench_judge(tmp: Path) -> dict:
    out = tmp / "output"
    out.mkdir()
    (out / "memo.md").write_text("deliverable text\n" * 200)
    with OpenAIServer(_handler) as srv:
        judge = LLMJudge(base_url=srv.base_url, api_key="k", model="bench", cache_dir=False)
        judge.grade_sync(_task(tmp, 1), out)  # warm-up (imports, connection setup)
        t0 = time.perf_counter()
        one = judge.grade_sync(_task(tmp, 1), out)
        single = time.perf_counter() - t0
        t0 = time.perf_counter()
        ten = judge.grade_sync(_task(tmp, 10), out)
        wall = time.perf_counter() - t0
    assert one.status == ten.status == "ok" and ten.normalized_score == 1.0
    return {"judge_delay_s": DELAY_S, "single_call_s": round(single, 3), "ten_rubrics_s": round(wall, 3),
            "ratio": round(wall / single, 3), "target_ratio": 2.0}


def _write_workbook(path: Path, rows: int, write_only: bool) -> None:
    import openpyxl

    wb = openpyxl.Workbook(write_only=write_only)
    ws = wb.create_sheet("Data") if write_only else wb.active
    ws.append(["id", "region", "product", "units", "price", "note"])
    for i in range(1, rows + 1):
        ws.append([i, f"region-{i % 17}", f"product-{i % 251}", i % 97, round(i * 0.37, 2), f"note {i * 7919 % 100003}"])
    wb.save(path)


def _time(fn, *args, **kw) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = fn(*args, **kw)
    return time.perf_counter() - t0, out


def bench_workbook(tmp: Path) -> dict:
    rows = 160_000
    result = {}
    # "normal": written like Excel, pandas.to_excel or openpyxl's normal mode (a <dimension> record up front);
    # "write_only": openpyxl's write-only mode omits it, and openpyxl's reader then scans the whole sheet first.
    for label, write_only in (("normal", False), ("write_only", True)):
        path = tmp / f"big_{label}.xlsx"
        _write_workbook(path, rows, write_only)
        values_s, text = _time(extract_file, path)
        formulas_s, _ = _time(extract_file, path, mode="formulas")
        result[label] = {"size_mb": round(path.stat().st_size / 1e6, 2), "rows": rows, "values_mode_s": round(values_s, 3),
                         "formulas_mode_s": round(formulas_s, 3), "capped": "omitted here by jobenv" in text}
    return result


def bench_recalc(tmp: Path) -> dict:
    import openpyxl

    from jobenv.extract import recalc

    n = 10_000
    path = tmp / "formulas10k.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["qty", "price", "total", "running"])
    for r in range(2, n // 2 + 2):  # two formulas per row: 10,000 in all
        ws.append([r, (r % 13) + 0.5, f"=A{r}*B{r}", f"=C{r}+D{r - 1}" if r > 2 else f"=C{r}"])
    wb.save(path)
    out: dict = {"formulas": n, "size_mb": round(path.stat().st_size / 1e6, 3)}
    last = f"D{n // 2 + 1}"
    for engine in ("libreoffice", "formulas"):
        recalc._cache.clear()
        t0 = time.perf_counter()
        res = recalc.recalculate(path, engine=engine)
        secs = time.perf_counter() - t0
        recalc._cache.clear()
        t0 = time.perf_counter()
        os.environ[recalc.ENV_ENGINE] = engine  # the extraction uses the same engine
        try:
            text = extract_file(path)
        finally:
            del os.environ[recalc.ENV_ENGINE]
        extract_s = time.perf_counter() - t0
        got = res.get("Sheet", last)
        out[engine] = {"engine": res.engine, "label": res.label, "recalc_s": round(secs, 3),
                       "extract_s": round(extract_s, 3), "cells_returned": sum(map(len, res.cells.values())),
                       f"value_{last}": None if got is None else got.value, "note": res.note,
                       "text_chars": len(text)}
    return out


def bench_pdf(tmp: Path) -> dict:
    from fpdf import FPDF

    path = tmp / "fifty.pdf"
    pdf = FPDF()
    pdf.set_font("Helvetica", size=10)
    for p in range(50):
        pdf.add_page()
        for line in range(45):
            pdf.cell(text=f"Page {p + 1} line {line + 1}: revenue {p * 1000 + line:,} units, margin {line % 13}.5%", new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))
    t0 = time.perf_counter()
    text = extract_file(path)
    secs = time.perf_counter() - t0
    return {"pages": 50, "size_mb": round(path.stat().st_size / 1e6, 3), "extract_s": round(secs, 3),
            "pages_seen": text.count("--- page ")}


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="jobenv-judge-bench-") as d:
        tmp = Path(d)
        result = {"judge": bench_judge(tmp), "workbook": bench_workbook(tmp), "pdf": bench_pdf(tmp),
                  "recalc_10k_formulas": bench_recalc(tmp)}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
