"""A task author's check of Harbor task directories: each is loaded by jobenv, then run twice through a jobenv
episode on the chosen sandbox backend and graded as any agent's episode is (its ``tests/``):

* the oracle, as Harbor's oracle agent runs it: ``solution/`` at ``/solution``, ``solve.sh`` run (by the
  interpreter its ``#!`` line names, else bash) from the task's workdir with ``DEBIAN_FRONTEND=noninteractive`` (output in the result's ``oracle_log``),
  under the agent's timeout (``[agent] timeout_sec``, else 600 s), then ``submit``;
* a no-op: ``submit`` straight away.

A task passes when it loads, its oracle is graded 1.0 and its no-op is graded below 1.0 (an ungraded episode, a
grading error, fails it). A no-op above 0 passes with a note: a task that pays for doing nothing is worth a look.

Failure behaviour: TaskFormatError when ``path`` holds no Harbor task; SandboxUnavailableError (and other
JobenvErrors that are not one task's fault) when the backend cannot run at all. A task that does not load, lacks
``solution/solve.sh`` or whose runs fail is reported in its :class:`CheckResult`, never raised.
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..errors import JobenvError, SandboxUnavailableError, TaskFormatError

__all__ = ["CheckResult", "check_path", "task_dirs", "render_table", "all_passed"]

_ORACLE_TMP = "/tmp/jobenv-oracle"
_STAGE = ".jobenv-oracle"
_DEFAULT_TIMEOUT_S = 600.0


class CheckResult(BaseModel):
    """One task's check."""

    schema_version: int = 1
    task: str
    path: str
    loads: bool
    error: str | None = Field(default=None, description="why it did not load, or why a run was not graded")
    oracle_reward: float | None = None
    oracle_status: str | None = None
    oracle_log: str = ""
    noop_reward: float | None = None
    noop_status: str | None = None
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return (self.loads and self.oracle_status == "ok" and self.oracle_reward == 1.0
                and self.noop_status == "ok" and self.noop_reward is not None and self.noop_reward < 1.0)


def task_dirs(path: Path) -> list[Path]:
    """``path`` when it is a Harbor task directory, else its subdirectories holding a ``task.toml`` (sorted);
    TaskFormatError when there is none."""
    from .spec import is_task_dir

    path = Path(path).expanduser()
    if is_task_dir(path):
        return [path]
    dirs = sorted(p for p in path.iterdir() if p.is_dir() and (p / "task.toml").is_file()) if path.is_dir() else []
    if not dirs:
        raise TaskFormatError(f"{path}: no Harbor task here (a directory with task.toml and instruction.md, or a "
                              "folder of them)")
    return dirs


def _oracle_command(workdir: str) -> str:
    # run by its #! interpreter (bash without one), as exec would: the scratch mount holding it may be noexec
    return (f"cd {shlex.quote(workdir)} && first=$(head -n 1 /solution/solve.sh); case \"$first\" in "
            "'#!'*) run=${first#??};; *) run=bash;; esac; DEBIAN_FRONTEND=noninteractive $run /solution/solve.sh "
            f"> {_ORACLE_TMP}/oracle.txt 2>&1; echo \"exit=$?\"")


async def _stage_solution(sb: Any, solution: Path) -> None:
    """``solution/`` copied to ``/solution`` (an alias of scratch space under /tmp) through the workspace."""
    await sb.run(f"rm -rf /workspace/{_STAGE}")
    for path in sorted(solution.rglob("*")):
        if path.is_file() and not path.is_symlink():
            await sb.write_file(f"{_STAGE}/{path.relative_to(solution).as_posix()}", path.read_bytes())
    done = await sb.run(f"mkdir -p {_ORACLE_TMP}/solution && cp -R /workspace/{_STAGE}/. /solution/ "
                        f"&& rm -rf /workspace/{_STAGE}")
    if done.exit_code != 0:
        raise RuntimeError(f"could not stage solution/: {done.output.strip()[-300:]}")


async def _episode(env: Any, task: Any, oracle: bool) -> tuple[float | None, str, str, str | None]:
    """(reward, status, oracle log, error) of one episode."""
    await env.areset(options={"task_id": task.id})
    log = ""
    if oracle:
        spec = task.harbor
        sb = env.sandbox
        await _stage_solution(sb, spec.root / "solution")
        run = await sb.run(_oracle_command(spec.workdir), timeout=spec.agent_timeout_s or _DEFAULT_TIMEOUT_S)
        log = (await sb.run(f"tail -c 2000 {_ORACLE_TMP}/oracle.txt")).output
        if run.timed_out:
            log += f"\n[solve.sh timed out after {spec.agent_timeout_s or _DEFAULT_TIMEOUT_S:g} s]"
        elif not run.output.rstrip().endswith("exit=0"):
            log += f"\n[solve.sh {run.output.strip().splitlines()[-1] if run.output.strip() else 'failed'}]"
    _, reward, terminated, _, info = await env.astep({"name": "submit", "arguments": {}})
    status = str(info.get("status", "error"))
    error = (info.get("report") or {}).get("error") if status != "ok" else None
    return (float(reward) if terminated and status == "ok" else None), status, log, error


def _check_one(task_dir: Path, sandbox: str, sandbox_image: str | None) -> CheckResult:
    import asyncio

    from ..registry import make
    from ..sandbox.base import SandboxLimits

    t0 = time.perf_counter()
    result = CheckResult(task=task_dir.name, path=str(task_dir), loads=False)
    try:
        from .spec import read_task_dir

        spec = read_task_dir(task_dir)
        timeout = max(_DEFAULT_TIMEOUT_S, (spec.agent_timeout_s or 0) + 5, spec.verifier_timeout_s + 5)
        limits = SandboxLimits(aliases={"/solution": f"{_ORACLE_TMP}/solution"}, max_timeout_s=timeout)
        options: dict[str, Any] = {"sandbox": sandbox, "limits": limits, "max_steps": None}
        if sandbox_image:
            options["sandbox_image"] = sandbox_image
        env = make(str(task_dir), **options)
    except SandboxUnavailableError:
        raise  # the backend, not the task: no task could run
    except JobenvError as exc:  # a task jobenv cannot run (TaskFormatError: it does not load here)
        result.loads = not isinstance(exc, TaskFormatError)
        result.error = str(exc).splitlines()[0]
        result.seconds = round(time.perf_counter() - t0, 1)
        return result
    result.loads = True
    (task,) = env.tasks

    async def both() -> None:
        try:
            if (task_dir / "solution" / "solve.sh").is_file():
                reward, status, log, error = await _episode(env, task, oracle=True)
                result.oracle_reward, result.oracle_status, result.oracle_log = reward, status, log
                result.error = error and f"oracle: {error}"
            else:
                result.error = "no solution/solve.sh (nothing for the oracle to run)"
            reward, status, _, error = await _episode(env, task, oracle=False)
            result.noop_reward, result.noop_status = reward, status
            if error and not result.error:
                result.error = f"no-op: {error}"
        finally:
            await env.aclose()

    try:
        asyncio.run(both())
    except Exception as exc:  # noqa: BLE001 - one task's broken run is its row, not the end of the check
        result.error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    result.seconds = round(time.perf_counter() - t0, 1)
    return result


def check_path(path: Path, *, sandbox: str = "local", sandbox_image: str | None = None,
               progress: Any = None) -> list[CheckResult]:
    """Check every Harbor task at ``path`` (see the module docstring); ``progress`` is called with each result as
    it is done."""
    out = []
    for task_dir in task_dirs(path):
        result = _check_one(task_dir, sandbox, sandbox_image)
        if progress is not None:
            progress(result)
        out.append(result)
    return out


def all_passed(results: list[CheckResult]) -> bool:
    return bool(results) and all(r.passed for r in results)


def _cell(reward: float | None, status: str | None) -> str:
    if status is None:
        return "-"
    return f"{reward:.3f}" if status == "ok" and reward is not None else status


def render_table(results: list[CheckResult]) -> str:
    """A plain-text table: task, loads, oracle reward, no-op reward, time, verdict; then each task's note."""
    rows = [("task", "loads", "oracle", "no-op", "time", "verdict")]
    for r in results:
        rows.append((r.task, "yes" if r.loads else "no", _cell(r.oracle_reward, r.oracle_status),
                     _cell(r.noop_reward, r.noop_status), f"{r.seconds:.1f}s", "ok" if r.passed else "FAIL"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    for r in results:
        if r.error:
            lines.append(f"{r.task}: {r.error}")
        elif r.passed and r.noop_reward:
            lines.append(f"{r.task}: note: the no-op earns {r.noop_reward:.3f}")
        elif r.loads and not r.passed and r.oracle_log.strip():
            lines.append(f"{r.task}: oracle output: {r.oracle_log.strip()[-300:]}")
    passed = sum(r.passed for r in results)
    lines.append(f"{passed}/{len(results)} task{'s' if len(results) != 1 else ''} passed")
    return "\n".join(lines)
