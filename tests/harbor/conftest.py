"""Harbor task directories written as files, the way task authors write them."""

from __future__ import annotations

from pathlib import Path

from tests.sandbox.fixtures import docker_image  # noqa: F401 - the Docker sandbox tests' image

TASK_TOML = """\
version = "1.0"

[task]
name = "acme/sum-invoices"

[agent]
timeout_sec = 300
network_mode = "no-network"

[verifier]
timeout_sec = {verifier_timeout}
env = {{ EXPECTED = "${{HARBOR_TEST_EXPECTED:-1250}}" }}

[environment]
cpus = 1
memory_mb = 1024
{extra}
"""

DOCKERFILE = """\
FROM python:3.12-slim
# the workspace files
WORKDIR /app
COPY files/ /app/data/
COPY notes.md \\
     ./
"""

TEST_SH = """\
#!/bin/bash
got=$(cat /app/total.txt 2>/dev/null | tr -d '[:space:]')
if [ "$got" = "$EXPECTED" ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
echo "checked $got against $EXPECTED"
"""


def write_task(root: Path, *, test_sh: str | None = TEST_SH, judge_toml: str | None = None, extra: str = "",
               verifier_timeout: float = 60, instruction: str | None = None, toml: str | None = None,
               dockerfile: str = DOCKERFILE) -> Path:
    """A Harbor task directory: sum the invoices into /app/total.txt; tests/test.sh checks the total."""
    (root / "environment" / "files").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "task.toml").write_text(toml if toml is not None else
                                    TASK_TOML.format(verifier_timeout=verifier_timeout, extra=extra))
    (root / "instruction.md").write_text(instruction if instruction is not None else
                                         "Sum the amounts in /app/data/invoices.csv and write the total to "
                                         "/app/total.txt.\n")
    (root / "environment" / "files" / "invoices.csv").write_text("id,amount\n1,1000\n2,250\n")
    (root / "environment" / "notes.md").write_text("Amounts are in dollars.\n")
    (root / "environment" / "Dockerfile").write_text(dockerfile)
    if test_sh is not None:
        (root / "tests" / "test.sh").write_text(test_sh)
    if judge_toml is not None:
        (root / "tests" / "judge.toml").write_text(judge_toml)
    return root


SUM = ("python3 -c \"import csv; print(sum(int(r['amount']) for r in csv.DictReader(open('/app/data/invoices.csv'))))\""
       " > /app/total.txt")
