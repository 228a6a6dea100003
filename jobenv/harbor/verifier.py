"""The Harbor verifier as a jobenv judge: a task's ``tests/test.sh`` run over the agent's workspace (a task graded
only by ``tests/judge.toml`` goes to :mod:`jobenv.harbor.rubric_judge`).

After submit the episode exports the agent's workspace (the Harbor layout grades all of it). :class:`HarborVerifier`
starts a *separate* sandbox holding that copy at the task's workdir (``environment_mode = "shared"``, the default:
the agent's final state; ``"separate"``: a fresh copy of the task's workspace with only the agent's ``artifacts``
copied in, as Harbor's separate verifier gets them), ``tests/`` at ``/tests`` and an empty
``/logs/verifier``, runs ``bash /tests/test.sh`` from the workdir with ``[verifier] env`` (``${VAR}`` and
``${VAR:-default}`` taken from the host's environment, as Harbor does) under ``[verifier] timeout_sec`` and its
network mode, and reads the reward as Harbor does: ``/logs/verifier/reward.json`` (a JSON object of numbers, its
``reward`` the reward) when present, else ``reward.txt`` (one number).

Fail-closed: no reward file, an empty or unparseable one, a non-finite or out-of-range (outside [0, 1]) reward, a
``reward.json`` without ``reward``, a test script that times out and a verifier sandbox that cannot start all
make a report with ``status="error"`` (a grading error a trainer drops), never credit. Entries of the agent's
workspace the export refused (symlinks, special files) are simply absent from the verifier's copy.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import shlex
import time
from pathlib import Path
from typing import Any

from ..judge.base import Judge
from ..judge.report import GradeReport
from .spec import resolve_env

__all__ = ["HarborVerifier", "grader_for", "parse_reward"]

_STAGE = ".jobenv-harbor"  # where tests/ are written in the verifier's workspace before moving to /tests
_TESTS, _LOGS = "/tmp/jobenv-harbor/tests", "/tmp/jobenv-harbor/logs"
_REWARD_CAP = 64 * 1024


def parse_reward(kind: str, text: str) -> tuple[float, dict[str, float]]:
    """The reward (and every number) of a reward file's text; ``kind`` is ``json`` or ``txt``. ValueError says
    why a file gives no reward."""
    if not text.strip():
        raise ValueError(f"reward.{kind} is empty")
    if kind == "txt":
        try:
            values = {"reward": float(text.strip())}
        except ValueError:
            raise ValueError(f"reward.txt is not one number: {text.strip()[:80]!r}") from None
    else:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"reward.json is not JSON: {exc}") from None
        if not isinstance(data, dict) or "reward" not in data:
            raise ValueError("reward.json must be a JSON object with a 'reward' number")
        values = {}
        for k, v in data.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise ValueError(f"reward.json: {k!r} is not a number ({v!r})")
            values[str(k)] = float(v)
    for k, v in values.items():
        if not math.isfinite(v):
            raise ValueError(f"reward {k!r} is not finite ({v!r})")
    reward = values["reward"]
    if not 0.0 <= reward <= 1.0:
        raise ValueError(f"reward {reward!r} is outside [0, 1]")
    return reward, values


def _report(task: Any, t0: float, *, error: str | None = None, reward: float = 0.0,
            details: dict[str, Any] | None = None) -> GradeReport:
    ok = error is None
    return GradeReport(
        task_id=getattr(task, "uid", None), status="ok" if ok else "error", error=error,
        normalized_score=reward if ok else 0.0, official_normalized_score=reward if ok else 0.0,
        total_score=reward if ok else 0.0, official_total_score=reward if ok else 0.0, judge_score=reward if ok else 0.0,
        max_score=1.0, total_count=1, passed_count=int(ok and reward >= 1.0), pass_rate=float(ok and reward >= 1.0),
        strict_pass=ok and reward >= 1.0, judge_kind="harbor", latency_s=round(time.perf_counter() - t0, 4),
        verifier=details or {})


class HarborVerifier(Judge):
    """Grades Harbor tasks by their ``tests/test.sh`` (see the module docstring). ``sandbox``: the backend of the
    verifier's sandbox (``"local"``). A task jobenv exported (:mod:`jobenv.harbor.export`) is graded natively:
    its ``tests/RUBRICS.json`` by ``judge`` (default ``"auto"``, set up by the ``JOBENV_JUDGE_*`` variables, as
    its test.sh would) over the workspace's ``output/``."""

    kind = "harbor"

    def __init__(self, sandbox: str = "local", judge: Any = "auto", **sandbox_options: Any) -> None:
        self.sandbox = sandbox
        self.sandbox_options = sandbox_options
        self._native_spec = judge
        self._native: Any = None
        self._rubric_judges: dict[str, Any] = {}

    def unable(self, task: Any) -> str | None:
        spec = getattr(task, "harbor", None)
        if spec is None:
            return "it is not a Harbor task (the harbor verifier runs a task directory's tests/)"
        if spec.grader == "judge.toml":
            from .rubric_judge import unable_reason

            why = unable_reason(spec)
            if why is not None:
                return why
            kind = self._rubric_kind(spec)
            try:
                self._rubric_judge(kind)
            except Exception as exc:  # noqa: BLE001 - a judge that cannot be built is the reason, said at make
                return f"its judge.toml needs jobenv's {kind} judge: {exc}"
        return None

    def preflight(self, tasks: list[Any]) -> None:
        """The endpoint of the judge each judge.toml task needs (test.sh tasks call none jobenv knows)."""
        for kind in sorted({self._rubric_kind(t.harbor) for t in tasks
                            if getattr(t, "harbor", None) is not None and t.harbor.grader == "judge.toml"}):
            self._rubric_judge(kind).preflight(tasks)

    @staticmethod
    def _rubric_kind(spec: Any) -> str:
        from .rubric_judge import wants_agent

        return "agentic" if wants_agent(spec) else "llm"

    def _rubric_judge(self, kind: str) -> Any:
        if kind not in self._rubric_judges:
            from ..judge import make_judge

            self._rubric_judges[kind] = make_judge(kind)
        return self._rubric_judges[kind]

    def _limits(self, spec: Any) -> Any:
        from ..sandbox.base import WORKSPACE, SandboxLimits

        aliases = {"/tests": _TESTS, "/logs": _LOGS}
        if spec.workdir != WORKSPACE:
            aliases[spec.workdir] = WORKSPACE
        only = None if spec.verifier_allowed_hosts is None else list(spec.verifier_allowed_hosts)
        fields: dict[str, Any] = {"layout": "harbor", "aliases": aliases, "network": spec.verifier_network,
                                  "network_only": only,
                                  "max_timeout_s": max(600.0, spec.verifier_timeout_s + 5)}
        for key in ("cpus", "memory_mb"):
            if getattr(spec, key) is not None:
                fields[key] = getattr(spec, key)
        return SandboxLimits(**fields)

    async def grade(self, task: Any, output_dir: Path) -> GradeReport:
        """Run the task's test.sh over ``output_dir`` (the agent's exported workspace); never raises except on
        cancellation."""
        from ..sandbox import make_sandbox
        from ..sandbox.base import REJECTED_MANIFEST

        t0 = time.perf_counter()
        why = self.unable(task)
        if why is not None:
            return _report(task, t0, error=f"cannot verify: {why}")
        spec = task.harbor
        from .export import is_jobenv_export

        if is_jobenv_export(spec.tests_dir):
            return await self._grade_export(task, Path(output_dir))
        if spec.grader == "judge.toml":
            from .rubric_judge import grade_with_judge_toml

            return await grade_with_judge_toml(task, Path(output_dir), self._rubric_judge(self._rubric_kind(spec)))
        try:
            env = resolve_env(spec.verifier_env)
            limits = self._limits(spec)
        except ValueError as exc:
            return _report(task, t0, error=str(exc))
        (Path(output_dir) / REJECTED_MANIFEST).unlink(missing_ok=True)  # jobenv's own, not the agent's file
        separate = spec.verifier_mode == "separate"
        options = dict(self.sandbox_options)
        seed = options.pop("seed", None)
        if separate and seed:  # the task's own workspace, as its image holds it
            options["seed"] = seed
        sb = make_sandbox(self.sandbox, limits=limits, **options)
        try:
            if separate:  # a fresh workspace, then the agent's artifacts over it, as Harbor's separate verifier
                await sb.start(task.task_folder)
                for rel, path in _artifact_files(Path(output_dir), spec.artifacts):
                    await sb.write_file(rel, await asyncio.to_thread(path.read_bytes))
            else:
                await sb.start(Path(output_dir))
            await sb.run(f"rm -rf /workspace/{_STAGE}")  # nothing the agent left there may join the tests
            for path in sorted(spec.tests_dir.rglob("*")):
                if path.is_file() and not path.is_symlink():
                    await sb.write_file(f"{_STAGE}/tests/{path.relative_to(spec.tests_dir)}", path.read_bytes())
            # /tests and /logs: links into /tmp locally, mounts of their own in a container; both take a copy
            setup = (f"mkdir -p {_TESTS} {_LOGS} && cp -R /workspace/{_STAGE}/tests/. /tests/ "
                     f"&& rm -rf /workspace/{_STAGE} && chmod -R u+rwX /tests && mkdir -p /logs/verifier /logs/agent")
            done = await sb.run(setup)
            if done.exit_code != 0:
                return _report(task, t0, error=f"could not stage the tests: {done.output.strip()[-300:]}")
            exports = "".join(f"export {k}={shlex.quote(v)}; " for k, v in env.items() if re.fullmatch(r"[A-Za-z_]\w*", k))
            run = await sb.run(f"cd {shlex.quote(spec.workdir)} && {exports}bash /tests/test.sh "
                               f"> /logs/verifier/test-stdout.txt 2>&1; echo exit=$?", timeout=spec.verifier_timeout_s)
            details: dict[str, Any] = {"exit_code": None, "timed_out": run.timed_out}
            if run.timed_out:
                return _report(task, t0, error=f"tests/test.sh timed out after {spec.verifier_timeout_s:g} s",
                               details=details)
            m = re.search(r"exit=(\d+)\s*$", run.output)
            details["exit_code"] = int(m.group(1)) if m else None
            tail = await sb.run("tail -c 2000 /logs/verifier/test-stdout.txt")
            details["stdout_tail"] = tail.output
            for kind in ("json", "txt"):
                got = await sb.run(f"test -f /logs/verifier/reward.{kind} && head -c {_REWARD_CAP + 1} "
                                   f"/logs/verifier/reward.{kind}")
                if got.exit_code == 0:
                    if got.truncated or len(got.output) > _REWARD_CAP:
                        return _report(task, t0, error=f"reward.{kind} is larger than {_REWARD_CAP} bytes",
                                       details=details)
                    try:
                        reward, values = parse_reward(kind, got.output)
                    except ValueError as exc:
                        return _report(task, t0, error=str(exc), details=details)
                    details["rewards"] = values
                    return _report(task, t0, reward=reward, details=details)
            return _report(task, t0, error="tests/test.sh wrote no /logs/verifier/reward.json or reward.txt",
                           details=details)
        except Exception as exc:  # noqa: BLE001 - any failure of the verifier's own machinery is a grading error
            return _report(task, t0, error=f"the verifier failed: {type(exc).__name__}: {exc}")
        finally:
            await sb.close()

    async def _grade_export(self, task: Any, workspace: Path) -> GradeReport:
        """jobenv's own export: its rubrics graded by jobenv's judge over ``output/`` (refused entries under it
        stay refused, as in a native episode)."""
        from ..judge import make_judge
        from ..sandbox.base import REJECTED_MANIFEST
        from ..tasks import task_from_rubrics

        if self._native is None:
            self._native = make_judge(self._native_spec)
        rubric_task = task_from_rubrics(task.harbor.tests_dir / "RUBRICS.json")
        output = workspace / "output"
        output.mkdir(exist_ok=True)
        manifest = workspace / REJECTED_MANIFEST
        refused = json.loads(manifest.read_text()) if manifest.is_file() else []
        inside = [r[len("output/"):] for r in refused if isinstance(r, str) and r.startswith("output/")]
        (output / REJECTED_MANIFEST).write_text(json.dumps(inside))
        report = await self._native.grade(rubric_task, output)
        return report.model_copy(update={"task_id": getattr(task, "uid", None)})


def _artifact_files(workspace: Path, artifacts: tuple[str, ...]) -> list[tuple[str, Path]]:
    """(path in the workspace, host file) of every regular file the ``artifacts`` name in the exported
    ``workspace`` (a folder: every file below it; symlinks never)."""
    out = []
    for rel in artifacts:
        path = workspace / rel
        if path.is_symlink():
            continue
        if path.is_file():
            out.append((rel, path))
        elif path.is_dir():
            out += [(p.relative_to(workspace).as_posix(), p) for p in sorted(path.rglob("*"))
                    if p.is_file() and not p.is_symlink()]
    return out


def grader_for(task: Any, judge: Any, sandbox: Any = None) -> Any:
    """The judge that grades ``task``: a Harbor task's own tests (``judge`` when it is a HarborVerifier, else a
    verifier kept with ``judge``, made on first use so it lives and is configured as that judge is), any other task
    ``judge``. The verifier's sandbox is of the agent's ``sandbox``'s kind: a docker one runs the tests in the same
    image (the task's environment), anything else in the local sandbox. The one rule every front-end's grading goes
    through (:func:`jobenv.episode.finish.finish_episode`)."""
    if getattr(task, "harbor", None) is None or getattr(judge, "kind", "") == HarborVerifier.kind:
        return judge
    options: dict[str, Any] = {}
    if getattr(sandbox, "name", None) == "docker":  # seed: where the image holds the task's workspace
        options = {"image": sandbox.image, "base_url": sandbox.base_url, "seed": sandbox.seed}
    key = tuple(sorted(options.items()))
    verifiers = getattr(judge, "_harbor_verifiers", None)
    if verifiers is None:
        verifiers = {}
        try:
            judge._harbor_verifiers = verifiers
        except AttributeError:  # a judge object that takes no attributes gets a verifier per grading
            pass
    if key not in verifiers:
        verifiers[key] = HarborVerifier("docker" if options else "local", **options)
    return verifiers[key]
