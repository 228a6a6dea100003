"""An in-memory :class:`~jobenv.sandbox.base.Sandbox` and a scripted judge: the fast unit layer of episode rules.

``MemorySandbox`` keeps ``/workspace`` as a dict of bytes and runs no process. Its commands are a tiny script
language: ``sleep S`` waits, ``die`` kills PID 1 (every later call raises SandboxDiedError), anything else echoes.
An output name ending in ``@`` stands for a symlink: the export refuses it. ``ScriptedJudge`` grades by reading
``output/score.txt`` (a number, or ``outage`` for an output the judge answers nothing valid on);
``ScriptedJudge(down=True)`` answers nothing on any output (an outage: its canary fails too).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from jobenv.errors import SandboxDiedError, SandboxError
from jobenv.judge.base import Judge
from jobenv.judge.report import GradeReport
from jobenv.sandbox.base import CommandResult, FileEntry, Sandbox, SandboxLimits, workspace_relpath

__all__ = ["MemorySandbox", "ScriptedJudge"]


class MemorySandbox(Sandbox):
    name = "memory"

    def __init__(self, limits: SandboxLimits | None = None) -> None:
        self.limits = limits or SandboxLimits()
        self.files: dict[str, bytes] = {}
        self.started = self.closed = self.dead = False

    def _alive(self) -> None:
        if self.dead:
            raise SandboxDiedError("PID 1 is gone")
        if not self.started or self.closed:
            raise SandboxError("the sandbox is not running")

    async def start(self, task_folder: Path | None) -> None:
        self.started = True
        if task_folder is not None:
            for path in sorted(Path(task_folder).rglob("*")):
                if path.is_file():
                    self.files[f"task_folder/{path.relative_to(task_folder).as_posix()}"] = path.read_bytes()

    async def run(self, command: str, timeout: float | None = None) -> CommandResult:
        self._alive()
        if command.startswith("sleep "):
            await asyncio.sleep(float(command.split()[1]))
        elif command == "die":
            self.dead = True
            return CommandResult(output="Killed", exit_code=137)
        return CommandResult(output=f"ran {command}", exit_code=0)

    async def read_file(self, path: str, *, max_bytes: int | None = None) -> bytes:
        self._alive()
        rel = workspace_relpath(path)
        if rel not in self.files:
            raise SandboxError(f"no such file: {path}")
        return self.files[rel]

    async def write_file(self, path: str, data: bytes) -> None:
        self._alive()
        self.files[workspace_relpath(path)] = bytes(data)

    async def list_files(self, path: str = "") -> list[FileEntry]:
        self._alive()
        base = workspace_relpath(path)
        return [FileEntry(path=p, type="file", size=len(b)) for p, b in sorted(self.files.items())
                if not base or p.startswith(base + "/")]

    async def export_output(self, dest: Path) -> Path:
        self._alive()
        dest.mkdir(parents=True, exist_ok=True)
        refused = []
        for rel, data in self.files.items():
            if not rel.startswith("output/"):
                continue
            name = rel.removeprefix("output/")
            if name.endswith("@"):
                refused.append(name)
                continue
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            (dest / name).write_bytes(data)
        (dest / ".jobenv_rejected.json").write_text(json.dumps(refused))
        return dest

    async def close(self) -> None:
        self.closed = True


class ScriptedJudge(Judge):
    kind = "scripted"

    def __init__(self, *, down: bool = False) -> None:
        self.graded = 0
        self.down = down
        self.model = "down" if down else "scripted"  # part of the judge's identity (the canary's cache key)

    async def grade(self, task: Any, output_dir: Path) -> GradeReport:
        self.graded += 1
        rejected = json.loads((output_dir / ".jobenv_rejected.json").read_text())
        if rejected:
            return GradeReport(task_id=task.id, status="error", error="refused entries", rejected_files=rejected)
        if self.down:
            return GradeReport(task_id=task.id, status="error", error="the judge is unreachable")
        score_file = output_dir / "score.txt"
        text = score_file.read_text().strip() if score_file.is_file() else "0"
        if text == "outage":
            return GradeReport(task_id=task.id, status="error", error="the judge answered nothing valid")
        score = float(text)
        return GradeReport(task_id=task.id, normalized_score=score, official_normalized_score=score, pass_rate=score,
                           passed_count=round(2 * score), total_count=2, strict_pass=score == 1.0,
                           judge_kind=self.kind)
