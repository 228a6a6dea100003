"""Runs inside the evalscope venv: ``evalscope.run_task`` on the ``jobenv`` benchmark (registered by importing
``jobenv.integrations.evalscope``), its OpenAI-API model pointed at the scripted policy on loopback.

argv: policy base URL, work dir, judge kind (or ``--read WORK``: only read the reviews of a run made elsewhere, such
as by the ``evalscope`` command line). Prints one JSON object: per sample its task id, score value, score
status and jobenv's outcome (from evalscope's own review files), and the report's primary metric (name, mean and
the number of samples it averaged).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evalscope import TaskConfig, run_task


def reviews(work: Path) -> list[dict[str, object]]:
    samples = []
    for path in sorted(work.rglob("reviews/**/*.jsonl")):
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            score = rec["sample_score"]["score"]
            samples.append({"task_id": rec["sample_score"]["sample_metadata"]["task_id"],
                            "value": score.get("value"), "status": score.get("status"),
                            "jobenv": rec["sample_score"]["sample_metadata"].get("jobenv")})
    return samples


def main() -> None:
    if sys.argv[1] == "--read":
        print(json.dumps({"samples": reviews(Path(sys.argv[2]))}))
        return
    import jobenv.integrations.evalscope  # noqa: F401 - registers the benchmark

    policy_url, work, judge = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    cfg = TaskConfig(model="scripted", api_url=policy_url, api_key="k", eval_type="openai_api",
                     datasets=["jobenv"], eval_batch_size=4, work_dir=str(work), no_timestamp=True,
                     dataset_args={"jobenv": {"subset_list": ["sample"], "extra_params": {"judge": judge}}},
                     generation_config={"temperature": 0.0})
    report = run_task(cfg)
    samples = reviews(work)
    metric = report["jobenv"].metrics[0]
    print(json.dumps({"samples": samples, "metric": {"name": metric.identity.name, "score": metric.score,
                                                     "num": metric.num}}))


if __name__ == "__main__":
    main()
