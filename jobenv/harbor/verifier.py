"""The Harbor verifier as a jobenv judge: a task's ``tests/test.sh`` run over the agent's workspace (a task graded
only by ``tests/judge.toml`` goes to :mod:`jobenv.harbor.rubric_judge`).

After submit the episode exports the agent's workspace (the Harbor layout grades all of it). :class:`HarborVerifier`
starts a *separate* sandbox holding a read-only copy of it at the task's workdir (``environment_mode = "shared"``,
the default: the agent's final state; ``"separate"``: a fresh copy of the task's workspace with only the agent's
``artifacts`` copied in, as Harbor's separate verifier gets them; see ``SandboxLimits.workspace_readonly``),
``tests/`` at ``/tests`` (one archive, :func:`tests_archive`) and an empty ``/logs/verifier``, runs
``bash /tests/test.sh`` from ``/tests`` with :data:`HARDENED_ENV` (nothing of the workdir on an import path, git
reading no repository configuration, scratch ``HOME``/``TMPDIR`` of its own) and ``[verifier] env`` (``${VAR}``
and ``${VAR:-default}`` taken from the host's environment, as Harbor does) under ``[verifier] timeout_sec`` and
its network mode, and reads the reward as Harbor does: ``/logs/verifier/reward.json`` (a JSON object of numbers,
its ``reward`` the reward) when present, else ``reward.txt`` (one number). ``[verifier] env`` values are redacted
from the report. A test that runs the agent's own program trusts it (README: the verifier against the agent).

Fail-closed: no reward file, an empty or unparseable one, a non-finite or out-of-range (outside [0, 1]) reward, a
``reward.json`` without ``reward``, a test script that times out, a test script whose output shows a failed
download, name lookup or connection (:mod:`jobenv.harbor.offline`) and no full reward, and a verifier sandbox that
cannot start all make a report with ``status="error"`` (a grading error a trainer drops), never credit. Entries of the agent's
workspace the export refused (symlinks, special files) are simply absent from the verifier's copy.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import shlex
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from ..judge.base import Judge
from ..judge.report import GradeReport
from .offline import NETWORK_FAILURE_PATTERN, network_error, network_failure
from .spec import resolve_env

__all__ = ["HARDENED_ENV", "HarborVerifier", "grader_for", "parse_reward", "tests_archive"]

_TESTS, _LOGS = "/tmp/jobenv-harbor/tests", "/tmp/jobenv-harbor/logs"
_SCRATCH = "/tmp/jobenv-verifier"  # HOME and TMPDIR of the tests: the verifier's, made fresh, never the workdir
_REWARD_CAP = 64 * 1024
_SECRET_MIN = 4  # [verifier] env values this long or longer are redacted from reports (shorter ones are no secret)
_REDACTED = "[redacted]"
# what the tests run with besides the task's [verifier] env: nothing of the workdir on an import path, git reading
# no repository config of the agent's (a repository of another uid is refused unless the test trusts it with
# `-c safe.directory=...`, and even then runs no hook or fsmonitor), pytest loading no conftest.py outside /tests
HARDENED_ENV = {
    "HOME": f"{_SCRATCH}/home", "TMPDIR": f"{_SCRATCH}/tmp", "PYTHONSAFEPATH": "1", "PYTHONNOUSERSITE": "1",
    "PYTEST_ADDOPTS": "-p no:cacheprovider --confcutdir=/tests", "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": f"{_SCRATCH}/home/.gitconfig",
}
# where the tests' uid owns the workdir copy (a normal user's local sandbox has one uid), git is told that every
# repository is another user's, as it finds by itself everywhere else
_SAME_OWNER = '[ "$(stat -c %u /workspace)" = "$(id -u)" ] && export GIT_TEST_ASSUME_DIFFERENT_OWNER=1; '

_GIT_CONFIG = [("core.fsmonitor", "false"), ("core.hooksPath", "/dev/null"), ("safe.bareRepository", "explicit"),
               ("core.pager", "cat"), ("protocol.ext.allow", "never"), ("safe.directory", "/tests"),
               ("safe.directory", "/tests/*"), ("safe.directory", f"{_SCRATCH}/*")]


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
    its test.sh would) over the workspace's ``output/``. ``judge`` also grades ``tests/judge.toml`` tasks when it is
    an ``llm`` or ``agentic`` judge (an override of the judge the file names); ``checks`` cannot grade them.
    ``unsafe_unbounded_memory``: as :class:`~jobenv.sandbox.SandboxLimits` has it, for the verifier's sandbox."""

    kind = "harbor"

    def __init__(self, sandbox: str = "local", judge: Any = "auto", *, unsafe_unbounded_memory: bool = False,
                 **sandbox_options: Any) -> None:
        self.sandbox = sandbox
        self.unsafe_unbounded_memory = unsafe_unbounded_memory  # see SandboxLimits: a normal user's host often needs it
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
            if kind == "checks":
                return "judge='checks' cannot grade a judge.toml (its criteria are judged by an LLM)"
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

    def _rubric_kind(self, spec: Any) -> str:
        """The judge of a judge.toml task: the one asked for (``judge="llm"`` / ``"agentic"`` / ``"checks"``), else
        the one the file names (an agent: the agentic judge; a model: the LLM judge)."""
        from .rubric_judge import wants_agent

        asked = getattr(self._native_spec, "kind", self._native_spec)
        if asked in ("llm", "agentic", "checks"):
            return str(asked)
        return "agentic" if wants_agent(spec) else "llm"

    def _rubric_judge(self, kind: str) -> Any:
        if kind not in self._rubric_judges:
            from ..judge import make_judge

            asked = self._native_spec  # the judge object asked for grades as configured
            self._rubric_judges[kind] = make_judge(asked if getattr(asked, "kind", None) == kind else kind)
        return self._rubric_judges[kind]

    def _limits(self, spec: Any) -> Any:
        from ..sandbox.base import WORKSPACE, SandboxLimits

        aliases = {"/tests": _TESTS, "/logs": _LOGS}
        if spec.workdir != WORKSPACE:
            aliases[spec.workdir] = WORKSPACE
        only = None if spec.verifier_allowed_hosts is None else list(spec.verifier_allowed_hosts)
        fields: dict[str, Any] = {"layout": "harbor", "aliases": aliases, "network": spec.verifier_network,
                                  "network_only": only, "workspace_readonly": True,
                                  "unsafe_unbounded_memory": self.unsafe_unbounded_memory,
                                  "max_timeout_s": max(600.0, spec.verifier_timeout_s + 5)}
        for key in ("cpus", "memory_mb"):
            if getattr(spec, key) is not None:
                fields[key] = getattr(spec, key)
        return SandboxLimits(**fields)

    async def grade(self, task: Any, output_dir: Path) -> GradeReport:
        """Run the task's test.sh over ``output_dir`` (the agent's exported workspace); never raises except on
        cancellation."""
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
        secrets = [v for v in env.values() if len(v) >= _SECRET_MIN]
        report = await self._run_tests(task, Path(output_dir), spec, env, limits, t0)
        return _redacted(report, secrets)

    async def _run_tests(self, task: Any, output_dir: Path, spec: Any, env: dict[str, str], limits: Any,
                         t0: float) -> GradeReport:
        from ..sandbox import make_sandbox
        from ..sandbox._fs import remove_tree
        from ..sandbox.base import REJECTED_MANIFEST

        (output_dir / REJECTED_MANIFEST).unlink(missing_ok=True)  # jobenv's own, not the agent's file
        separate = spec.verifier_mode == "separate"
        options = dict(self.sandbox_options)
        seed = options.pop("seed", None)
        copy: str | None = None  # a host folder this grading made (the separate mode's fresh workspace)
        sb = None
        try:
            workdir: Path | None = output_dir
            if separate and seed:  # the task's own workspace, as its image holds it; the artifacts go over it
                options["seed"] = seed
                workdir = None
            elif separate:  # a fresh copy of the task's workspace with the agent's artifacts, as Harbor's
                copy = await asyncio.to_thread(_separate_copy, task.task_folder, output_dir, spec.artifacts)
                workdir = Path(copy)
            sb = make_sandbox(self.sandbox, limits=limits, **options)
            tests = asyncio.ensure_future(asyncio.to_thread(tests_archive, spec.tests_dir))  # made while it starts
            try:
                await sb.start(workdir if workdir is not None else task.task_folder)
            finally:
                tar = await tests
            if separate and seed:
                for rel, path in _artifact_files(output_dir, spec.artifacts):
                    await sb.write_file(rel, await asyncio.to_thread(path.read_bytes))
            # the tests and the logs in one archive each, never through the agent's workspace
            await sb.put_archive("/tests", tar)
            await sb.put_archive("/logs", _folders_tar("verifier", "agent"))
            run = await sb.run(_test_command(env), timeout=spec.verifier_timeout_s)
            details: dict[str, Any] = {"exit_code": None, "timed_out": run.timed_out}
            if run.timed_out:
                return _report(task, t0, error=f"tests/test.sh timed out after {spec.verifier_timeout_s:g} s",
                               details=details)
            m = re.search(r"exit=(\d+)\s*$", run.output)
            details["exit_code"] = int(m.group(1)) if m else None
            tail = await sb.run("tail -c 2000 /logs/verifier/test-stdout.txt")
            details["stdout_tail"] = tail.output
            net = await sb.run(f"grep -m1 -E -i -e {shlex.quote(NETWORK_FAILURE_PATTERN)} /logs/verifier/test-stdout.txt")
            offline = network_failure(net.output) if net.exit_code == 0 else None
            offline_error = None  # below full credit (or no reward) after a failed download: not the agent's 0
            if offline is not None:
                details["network_failure"] = offline
                offline_error = network_error(offline, spec.verifier_network, spec.verifier_allowed_hosts)
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
                    if offline_error is not None and reward < 1.0:
                        return _report(task, t0, error=offline_error, details=details)
                    return _report(task, t0, reward=reward, details=details)
            return _report(task, t0, error=offline_error or
                           "tests/test.sh wrote no /logs/verifier/reward.json or reward.txt", details=details)
        except Exception as exc:  # noqa: BLE001 - any failure of the verifier's own machinery is a grading error
            return _report(task, t0, error=f"the verifier failed: {type(exc).__name__}: {exc}")
        finally:
            if sb is not None:
                await sb.close()
            if copy is not None:
                await asyncio.to_thread(remove_tree, copy)

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


_TARS: OrderedDict[str, tuple[tuple[tuple[str, int, int], ...], bytes]] = OrderedDict()
_TARS_BYTES = 64 << 20  # the tests' archives kept at most (a trainer grades one task many times)
_TARS_LOCK = threading.Lock()


def tests_archive(tests_dir: Path) -> bytes:
    """``tests_dir`` as one tar (regular files and folders; symlinks left out), made once and kept while no
    file's size or modification time changes. SandboxError when it is not a folder."""
    from ..sandbox._archive import tar_tree

    key = str(Path(tests_dir).resolve())
    stamp = tuple(sorted((os.path.join(root, f), st.st_size, st.st_mtime_ns)
                         for root, _dirs, files in os.walk(key) for f in files
                         if (st := os.lstat(os.path.join(root, f)))))
    with _TARS_LOCK:
        hit = _TARS.get(key)
        if hit is not None and hit[0] == stamp:
            _TARS.move_to_end(key)
            return hit[1]
    data = tar_tree(Path(key), None)
    with _TARS_LOCK:
        _TARS[key] = (stamp, data)
        while sum(len(v[1]) for v in _TARS.values()) > _TARS_BYTES and len(_TARS) > 1:
            _TARS.popitem(last=False)
    return data


def _test_command(env: dict[str, str]) -> str:
    """The shell line that runs ``bash /tests/test.sh`` from ``/tests`` with the hardened environment, then the
    task's ``[verifier] env`` (names that are not shell names are left out), printing ``exit=<status>``."""
    fixed = dict(HARDENED_ENV)
    fixed["GIT_CONFIG_COUNT"] = str(len(_GIT_CONFIG))
    for i, (key, value) in enumerate(_GIT_CONFIG):
        fixed[f"GIT_CONFIG_KEY_{i}"], fixed[f"GIT_CONFIG_VALUE_{i}"] = key, value
    names = {**fixed, **{k: v for k, v in env.items() if re.fullmatch(r"[A-Za-z_]\w*", k)}}
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in names.items())
    return (f"mkdir -p -m 700 {_SCRATCH} {_SCRATCH}/home {_SCRATCH}/tmp && cd /tests && {_SAME_OWNER}"
            f"export {exports} && bash /tests/test.sh > /logs/verifier/test-stdout.txt 2>&1; echo exit=$?")


def _folders_tar(*names: str) -> bytes:
    """A tar holding only the empty folders ``names``."""
    import io
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tf:
        for name in names:
            info = tarfile.TarInfo(name)
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            tf.addfile(info)
    return buf.getvalue()


def _separate_copy(task_folder: Path, workspace: Path, artifacts: tuple[str, ...]) -> str:
    """A host folder holding a fresh copy of the task's workspace with the agent's ``artifacts`` over it (what a
    separate verifier grades); the caller removes it."""
    import shutil

    from ..sandbox.gc import host_tempdir

    top = host_tempdir("verifier")
    try:
        shutil.copytree(task_folder, top, symlinks=True, dirs_exist_ok=True,
                        ignore=lambda d, names: [n for n in names if os.path.islink(os.path.join(d, n))])
        for rel, path in _artifact_files(workspace, artifacts):
            target = Path(top, rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    except BaseException:
        shutil.rmtree(top, ignore_errors=True)
        raise
    return top


def _redacted(report: GradeReport, secrets: list[str]) -> GradeReport:
    """``report`` with every secret (a ``[verifier] env`` value) replaced by ``[redacted]`` in its error and
    verifier details, keys included: test output and reward files are the tests' (and what they ran), not the
    task author's secrets."""
    if not secrets:
        return report
    ordered = sorted(set(secrets), key=len, reverse=True)  # a secret inside a longer one goes with the longer

    def scrub(value: Any) -> Any:
        if isinstance(value, str):
            for secret in ordered:
                value = value.replace(secret, _REDACTED)
            return value
        if isinstance(value, dict):
            return {scrub(k): scrub(v) for k, v in value.items()}
        if isinstance(value, list):
            return [scrub(v) for v in value]
        return value

    return report.model_copy(update={"error": scrub(report.error), "verifier": scrub(report.verifier)})


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
        verifiers[key] = HarborVerifier("docker" if options else "local", judge=judge, **options)
    return verifiers[key]
