"""The environment: :class:`JobEnv`, a Gymnasium env whose episodes are tool calls in a sandbox.

One episode = one task. ``reset`` stages a fresh sandbox holding ``/workspace/task_folder`` and an empty
``/workspace/output`` and returns the prompt; each ``step`` runs one tool call; ``submit`` grades the output
folder and ends the episode with ``reward = report.normalized_score``.

Async is the real implementation (``areset``/``astep``/``aclose``), so one event loop can drive hundreds of
episodes; ``reset``/``step``/``close`` drive the same coroutines on a private event loop owned by the env.
Use either the sync or the async API on one env, not both: a sandbox may hold resources bound to the loop
that started it.

Failure behaviour: ``step`` never raises for anything the agent does. A malformed action, unknown tool or
bad arguments give an observation explaining the mistake and cost a step. A grading infrastructure error
gives no credit (reward 0.0) and ends the episode with ``info["status"] == "error"``, so a trainer can drop
it. Symlinks or special files left in ``output/`` are the agent's doing, not the infrastructure's: reward 0
with ``info["status"] == "ok"`` and ``info["refused_output"]`` listing them (the report keeps the spec's
error status). Running out of steps or time truncates with reward 0. ``reset`` raises a
:class:`~jobenv.errors.JobenvError` when the task is unknown or the sandbox cannot start.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from .errors import SandboxError, TaskFormatError
from .prompt import build_prompt
from .sandbox.base import Sandbox, SandboxLimits
from .tasks import Task, normalize_task_id
from .tools import TOOL_NAMES, Toolbox, ToolResult, sample_actions, tool_schemas

__all__ = ["AnyText", "ToolCallSpace", "JobEnv", "parse_action", "register_gymnasium"]


class AnyText(gymnasium.Space[str]):
    """Any Python ``str`` of any Unicode characters (Gymnasium's ``spaces.Text`` rejects characters outside
    its charset). ``max_length`` (optional) bounds the length. Not flattenable to numpy."""

    def __init__(self, max_length: int | None = None, seed: int | np.random.Generator | None = None) -> None:
        self.max_length = max_length
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and (self.max_length is None or len(x) <= self.max_length)

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """A random string mixing ASCII, accented, CJK and emoji characters (never surrogates)."""
        n = int(self.np_random.integers(0, min(self.max_length or 64, 64) + 1))
        ranges = [(0x20, 0x7E), (0xC0, 0x24F), (0x4E00, 0x9FFF), (0x1F300, 0x1F64F)]
        out = []
        for _ in range(n):
            lo, hi = ranges[int(self.np_random.integers(len(ranges)))]
            out.append(chr(int(self.np_random.integers(lo, hi + 1))))
        return "".join(out)

    def __repr__(self) -> str:
        return f"AnyText(max_length={self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, AnyText) and other.max_length == self.max_length


# Read-only actions for ToolCallSpace.sample(): harmless and deterministic for a freshly reset task.
_SAMPLE_ACTIONS: tuple[dict[str, Any], ...] = tuple(sample_actions())


class ToolCallSpace(gymnasium.Space[Any]):
    """Tool calls in any accepted format (see :func:`parse_action`) naming one of the env's tools.

    ``contains`` is True when the action parses; ``step`` still accepts anything and explains what is wrong.
    ``sample`` draws read-only calls, so random probing never submits or changes the workspace.
    """

    def __init__(self, tool_names: Sequence[str] = TOOL_NAMES, seed: int | np.random.Generator | None = None) -> None:
        self.tool_names = tuple(tool_names)
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def contains(self, x: Any) -> bool:
        parsed = parse_action(x)
        return not isinstance(parsed, str) and parsed[0] in self.tool_names

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        pick = _SAMPLE_ACTIONS[int(self.np_random.integers(len(_SAMPLE_ACTIONS)))]
        return json.loads(json.dumps(pick))  # a fresh copy each time

    def __repr__(self) -> str:
        return f"ToolCallSpace({list(self.tool_names)})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ToolCallSpace) and other.tool_names == self.tool_names


_ACTION_HELP = (
    'An action is one tool call: {"name": "<tool>", "arguments": {...}}, an OpenAI tool call '
    '({"type": "function", "function": {"name": ..., "arguments": "<JSON string>"}}), or such an object as a '
    f"JSON string. Tools: {', '.join(TOOL_NAMES)}."
)


def _field(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def parse_action(action: Any) -> tuple[str, dict[str, Any]] | str:
    """Turn an action in any accepted format into ``(tool name, arguments)``, or an error message.

    Accepted: ``{"name", "arguments"}`` (arguments a dict, a JSON string or absent); an OpenAI tool call
    object or dict (``function.name`` / ``function.arguments``); an Anthropic-style ``{"name", "input"}``;
    a chat message carrying exactly one ``tool_calls`` entry; a one-element list of any of these; or any of
    them as a JSON string. Never raises.
    """
    try:
        return _parse_action(action, depth=0)
    except Exception as exc:  # an odd object must not crash step()
        return f"Error: could not read the action ({type(exc).__name__}: {exc}). {_ACTION_HELP}"


def _parse_action(action: Any, depth: int) -> tuple[str, dict[str, Any]] | str:
    if depth > 3:
        return f"Error: the action is nested too deeply. {_ACTION_HELP}"
    if isinstance(action, (bytes, bytearray)):
        action = action.decode("utf-8", errors="replace")
    if isinstance(action, str):
        text = action.strip()
        if not text:
            return f"Error: the action is empty. {_ACTION_HELP}"
        try:
            decoded = json.loads(text)
        except json.JSONDecodeError as exc:
            return f"Error: the action is not valid JSON ({exc.msg} at position {exc.pos}). {_ACTION_HELP}"
        if isinstance(decoded, str):
            return f"Error: the action is a bare string, not a tool call. {_ACTION_HELP}"
        return _parse_action(decoded, depth + 1)
    if isinstance(action, (list, tuple)):
        if len(action) != 1:
            return f"Error: exactly one tool call per step is allowed; got {len(action)}. {_ACTION_HELP}"
        return _parse_action(action[0], depth + 1)
    if action is None:
        return f"Error: the action is empty (None). {_ACTION_HELP}"
    tool_calls = _field(action, "tool_calls")
    if tool_calls is not None and _field(action, "name") is None and _field(action, "function") is None:
        if not tool_calls:
            return f"Error: the message has no tool call. {_ACTION_HELP}"
        return _parse_action(list(tool_calls), depth + 1)
    fn = _field(action, "function")
    src = fn if fn is not None else action
    name = _field(src, "name")
    if not isinstance(name, str) or not name.strip():
        return f"Error: the action names no tool. {_ACTION_HELP}"
    args: Any = None
    for key in ("arguments", "input", "parameters", "args"):
        args = _field(src, key)
        if args is not None:
            break
    if isinstance(args, (bytes, bytearray)):
        args = args.decode("utf-8", errors="replace")
    if isinstance(args, str):
        if not args.strip():
            args = {}
        else:
            try:
                args = json.loads(args)
            except json.JSONDecodeError as exc:
                return (
                    f"Error: the arguments of {name} are not valid JSON ({exc.msg} at position {exc.pos}). "
                    "Send them as a JSON object."
                )
    if args is None:
        args = {}
    if hasattr(args, "model_dump") and not isinstance(args, dict):
        args = args.model_dump()
    if not isinstance(args, dict):
        return f"Error: the arguments of {name} must be a JSON object, got {type(args).__name__}."
    return name.strip(), args


def register_gymnasium() -> None:
    """Register every jobenv id with Gymnasium (``gymnasium.make("jobbench/main")``). Idempotent."""
    from .registry import register_gymnasium as _register

    _register()


class _Resources:
    """What an env must release: kept apart from the env so a finalizer can run after the env is gone."""

    def __init__(self) -> None:
        self.sandbox: Sandbox | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread: threading.Thread | None = None  # runs ``loop`` forever once sync calls came from a loop
        self.tmpdirs: set[str] = set()


def _stop_thread(res: _Resources) -> None:
    loop, th = res.loop, res.thread
    res.thread = None
    if loop is not None and th is not None and th.is_alive():
        loop.call_soon_threadsafe(loop.stop)
        th.join(timeout=10)


def _release(res: _Resources) -> None:
    """Finalizer (garbage collection or interpreter exit): close the sandbox, the private loop, temp dirs."""
    sb, res.sandbox = res.sandbox, None
    if sb is not None:
        try:
            if res.thread is not None and res.loop is not None and res.thread.is_alive():
                asyncio.run_coroutine_threadsafe(sb.close(), res.loop).result(timeout=30)
            elif res.loop is not None and not res.loop.is_closed() and not res.loop.is_running():
                res.loop.run_until_complete(sb.close())
            else:
                try:
                    asyncio.get_running_loop()
                except RuntimeError:
                    asyncio.run(sb.close())
                # inside a running loop we cannot block: the sandbox's own finalizer cleans it up
        except Exception:
            pass
    _stop_thread(res)
    loop, res.loop = res.loop, None
    if loop is not None and not loop.is_closed() and not loop.is_running():
        try:
            loop.close()
        except Exception:
            pass
    for d in list(res.tmpdirs):
        shutil.rmtree(d, ignore_errors=True)
    res.tmpdirs.clear()


class JobEnv(gymnasium.Env[str, Any]):
    """A JobBench-style environment over a list of tasks.

    Args:
        tasks: an env id (``"jobenv/sample"``, ``"jobbench/main"``, ...) or a list of :class:`Task`.
        env_id: alternative keyword for the env id (Gymnasium's registry passes it).
        sandbox: backend name (``"local"``, ``"docker"``; see :func:`jobenv.sandbox.make_sandbox`) or a
            zero-argument factory returning a new :class:`Sandbox`; a fresh sandbox serves every episode.
            (A Sandbox instance is accepted for a single episode.)
        judge: ``"auto"``, ``"checks"``, ``"llm"`` or a judge object (see :func:`jobenv.judge.make_judge`).
        max_steps: tool calls per episode before truncation (``None``: unlimited).
        time_limit_s: wall-clock seconds per episode before truncation (``None``: unlimited).
        limits: sandbox resource limits.
        sandbox_options / judge_options: extra keyword arguments for the factories.
        include_instructions: embed TASK_INSTRUCTIONS.txt in the prompt (default True).

    Raises JobenvError subclasses for an unknown env id, a dataset that is not downloaded, an empty task
    list, or a judge that is not configured (``judge="llm"`` without endpoint, key and model).

    ``info`` keys: after reset ``task_id``, ``uid``, ``split``, ``env_id``, ``tool_schemas``, ``max_steps``,
    ``time_limit_s``, ``sandbox``; after a step ``task_id``, ``uid``, ``split``, ``env_id``, ``step``, ``tool``,
    ``ok`` (False for any error), ``error`` (kind of error), ``exit_code`` (bash); on submit ``status`` ("ok" or
    "error") and ``report`` (the GradeReport as a dict); on truncation ``status="truncated"`` and
    ``truncated_reason`` ("max_steps" or "time_limit"). Timing is deliberately not in ``info`` (see
    :attr:`elapsed_s`), so steps are reproducible for Gymnasium's determinism check.

    Vectorised use: ``gymnasium.make_vec(id, n, vectorization_mode="sync")`` works as is; the "async" mode
    needs ``vector_kwargs={"shared_memory": False}`` because text has no shared-memory layout.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        tasks: str | Sequence[Task] | None = None,
        *,
        env_id: str | None = None,
        sandbox: Any = "local",
        judge: Any = "auto",
        max_steps: int | None = 100,
        time_limit_s: float | None = None,
        limits: SandboxLimits | None = None,
        sandbox_options: dict[str, Any] | None = None,
        judge_options: dict[str, Any] | None = None,
        include_instructions: bool = True,
        render_mode: str | None = None,
    ) -> None:
        if tasks is None and env_id is None:
            raise TaskFormatError("JobEnv needs an env id (e.g. 'jobenv/sample') or a list of tasks")
        if isinstance(tasks, str):
            if env_id is not None and env_id != tasks:
                raise TaskFormatError(f"JobEnv got two env ids: {tasks!r} and {env_id!r}")
            env_id, tasks = tasks, None
        if tasks is None:
            from .registry import load_tasks

            assert env_id is not None
            tasks = load_tasks(env_id)
        self.tasks: list[Task] = list(tasks)
        if not self.tasks:
            raise TaskFormatError(f"{env_id or 'JobEnv'}: no tasks to run")
        self.env_id = env_id or "custom"
        self._by_id: dict[str, int] = {}
        for i, t in enumerate(self.tasks):
            self._by_id.setdefault(t.uid, i)
            self._by_id.setdefault(t.id, i)
        if max_steps is not None and max_steps < 1:
            raise ValueError("max_steps must be >= 1 or None")
        if time_limit_s is not None and time_limit_s <= 0:
            raise ValueError("time_limit_s must be > 0 or None")
        self.max_steps = max_steps
        self.time_limit_s = time_limit_s
        self.limits = limits or SandboxLimits()
        self.sandbox_spec = sandbox
        self.sandbox_options = dict(sandbox_options or {})
        self.judge_spec = judge
        self.judge_options = dict(judge_options or {})
        self.include_instructions = include_instructions
        self.render_mode = render_mode
        self.observation_space = AnyText()
        self.action_space = ToolCallSpace()

        from .judge import make_judge

        # built now so a misconfigured judge (e.g. "llm" without endpoint) fails at construction, not at submit
        self._judge: Any = make_judge(judge, **self.judge_options)
        self._res = _Resources()
        self._finalizer = weakref.finalize(self, _release, self._res)
        self._toolbox: Toolbox | None = None
        self._last_todos: list[dict[str, Any]] = []
        self._instance_used = False
        self.task: Task | None = None
        self._steps = 0
        self._t0 = 0.0
        self._done = True
        self._busy = False
        self.last_report: Any = None
        self._schemas = tool_schemas()

    # ------------------------------------------------------------------------------------------ helpers
    def tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI function-calling schemas of the tools (a fresh copy)."""
        return json.loads(json.dumps(self._schemas))

    @property
    def sandbox(self) -> Sandbox | None:
        """The current episode's sandbox (None before reset and after the episode ended)."""
        return self._res.sandbox

    @property
    def todos(self) -> list[dict[str, Any]]:
        """The agent's todo list of the current (or just finished) episode."""
        return list(self._toolbox.todos) if self._toolbox else list(self._last_todos)

    @property
    def steps(self) -> int:
        return self._steps

    @property
    def elapsed_s(self) -> float:
        """Wall-clock seconds since the current episode's reset."""
        return time.monotonic() - self._t0 if self._t0 else 0.0

    @property
    def judge(self) -> Any:
        """The judge grading submissions."""
        return self._judge

    def _pick_task(self, options: dict[str, Any] | None) -> Task:
        options = options or {}
        if options.get("task_id") is not None:
            raw = str(options["task_id"])
            tid = normalize_task_id(raw)
            idx = self._by_id.get(tid)
            if idx is None:
                some = ", ".join(t.id for t in self.tasks[:5])
                raise TaskFormatError(f"{self.env_id}: no task {raw!r} (tasks include: {some}, ...)")
            return self.tasks[idx]
        if options.get("index") is not None:
            idx = options["index"]
            if isinstance(idx, bool) or not isinstance(idx, (int, np.integer)) or not 0 <= idx < len(self.tasks):
                raise TaskFormatError(f"{self.env_id}: index {idx!r} out of range 0..{len(self.tasks) - 1}")
            return self.tasks[int(idx)]
        return self.tasks[int(self.np_random.integers(len(self.tasks)))]

    def _info(self) -> dict[str, Any]:
        assert self.task is not None
        return {"task_id": self.task.id, "uid": self.task.uid, "split": self.task.split, "env_id": self.env_id}

    def _new_sandbox(self) -> Sandbox:
        """A fresh, unstarted sandbox: from a backend name, or a zero-argument factory returning a Sandbox.

        A Sandbox *instance* can serve only one episode (a closed sandbox cannot restart): SandboxError after.
        """
        spec = self.sandbox_spec
        if isinstance(spec, Sandbox):
            if self._instance_used:
                raise SandboxError(
                    "a Sandbox instance serves one episode; pass a backend name ('local', 'docker') or a "
                    "zero-argument factory returning a new Sandbox to JobEnv(sandbox=...)"
                )
            self._instance_used = True
            return spec
        if callable(spec):
            sb = spec()
            if not isinstance(sb, Sandbox):
                raise SandboxError(f"the sandbox factory returned {type(sb).__name__}, not a Sandbox")
            return sb
        from .sandbox import make_sandbox

        return make_sandbox(spec, limits=self.limits, **self.sandbox_options)

    async def _drop_sandbox(self) -> None:
        sb, self._res.sandbox = self._res.sandbox, None
        if self._toolbox is not None:
            self._last_todos = list(self._toolbox.todos)  # the plan stays readable after the episode
        self._toolbox = None
        if sb is not None:
            try:
                await sb.close()
            except Exception:
                pass  # the sandbox's own finalizer and `jobenv gc` are the backstop

    # ------------------------------------------------------------------------------------------ async API
    async def areset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start an episode: close the previous sandbox, stage a fresh one, return ``(prompt, info)``.

        ``options``: ``{"task_id": "<occupation>/taskN"}`` (also ``<occupation>__taskN``; in a multi-split env
        such as jobbench/all use ``<split>/<occupation>/taskN``, the bare id picks the first split's task) or
        ``{"index": i}``; otherwise a task is drawn with the seeded ``np_random``.
        Raises TaskFormatError for an unknown ``task_id``/``index`` and SandboxError when the sandbox cannot
        start (nothing is leaked in either case).
        """
        super().reset(seed=seed)
        task = self._pick_task(options)
        await self._drop_sandbox()
        sb = self._new_sandbox()
        self._res.sandbox = sb
        try:
            await sb.start(task.task_folder)
        except BaseException:
            await self._drop_sandbox()
            raise
        self._toolbox = Toolbox(sb)
        self._last_todos = []
        self.task = task
        self._steps = 0
        self._done = False
        self.last_report = None
        self._t0 = time.monotonic()
        if self.time_limit_s is not None:
            self._toolbox.deadline = self._t0 + self.time_limit_s
        prompt = build_prompt(
            task,
            network=self.limits.network,
            max_steps=self.max_steps,
            time_limit_s=self.time_limit_s,
            include_instructions=self.include_instructions,
        )
        info = self._info()
        info.update(
            tool_schemas=self.tool_schemas(),
            max_steps=self.max_steps,
            time_limit_s=self.time_limit_s,
            sandbox=getattr(sb, "name", type(sb).__name__),
        )
        return prompt, info

    async def astep(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Run one tool call; see the module docstring for the failure behaviour. Never raises for an action."""
        if self.task is None:
            raise gymnasium.error.ResetNeeded("call reset() (or areset()) before step()")
        if self._done:
            info = self._info()
            info.update(step=self._steps, tool=None, ok=False, episode_over=True)
            return "The episode is over; call reset() to start a new one.", 0.0, True, False, info
        if self._busy:
            raise RuntimeError("JobEnv.astep called while another step of the same env is running")
        self._busy = True
        try:
            return await self._astep(action)
        finally:
            self._busy = False

    async def _astep(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        assert self._toolbox is not None
        self._steps += 1
        info = self._info()
        info["step"] = self._steps
        if self.time_limit_s is not None and self.elapsed_s >= self.time_limit_s:
            # out of time before this call: it does not run (a late submit earns nothing)
            return await self._truncate(info, "time_limit", "")
        parsed = parse_action(action)
        if isinstance(parsed, str):
            result = ToolResult(name="", text=parsed, ok=False, metadata={"error": "malformed_action"})
        else:
            name, args = parsed
            result = await self._toolbox.call(name, args)
        info.update(tool=result.name or None, ok=result.ok)
        if "exit_code" in result.metadata:
            info["exit_code"] = result.metadata["exit_code"]
        if not result.ok and result.metadata.get("error"):
            info["error"] = result.metadata["error"]
        if result.submitted:
            return await self._finish_submitted(info)
        obs = result.text
        reason = None
        if self.max_steps is not None and self._steps >= self.max_steps:
            reason = "max_steps"
        elif self.time_limit_s is not None and self.elapsed_s >= self.time_limit_s:
            reason = "time_limit"
        if reason is not None:
            return await self._truncate(info, reason, obs)
        return obs, 0.0, False, False, info

    async def _truncate(self, info: dict[str, Any], reason: str, obs: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        self._done = True
        info.update(truncated_reason=reason, status="truncated")
        info.setdefault("tool", None)
        info.setdefault("ok", False)
        limit = f"{self.max_steps} steps" if reason == "max_steps" else f"{self.time_limit_s:g} s"
        note = f"[The episode ran out of its budget ({limit}) before submit; it scores 0.]"
        await self._drop_sandbox()
        return (f"{obs}\n\n{note}" if obs else note), 0.0, False, True, info

    async def _finish_submitted(self, info: dict[str, Any]) -> tuple[str, float, bool, bool, dict[str, Any]]:
        assert self.task is not None and self._res.sandbox is not None
        self._done = True
        report = await self._grade(self.task, self._res.sandbox)
        await self._drop_sandbox()
        self.last_report = report
        status = getattr(report, "status", "error")
        reward = float(report.normalized_score) if status == "ok" else 0.0
        refused = list(getattr(report, "rejected_files", []) or [])
        info.update(status=status, report=report.model_dump(mode="json"))
        if status != "ok" and refused:
            # the agent left symlinks or special files in output/: its own doing, so a plain 0 that a trainer
            # keeps (not an infrastructure error it would drop); the report keeps the spec's error status
            info.update(status="ok", refused_output=refused)
            obs = (f"Submitted. The output folder held entries that are refused (symlinks or special files: "
                   f"{', '.join(refused[:5])}); nothing was graded and this episode scores 0.")
        elif status != "ok":
            info["error"] = report.error or "grading failed"
            obs = "Submitted. Grading failed for an infrastructure reason; this episode earns no credit."
        else:
            obs = (
                f"Submitted and graded: {report.passed_count}/{report.total_count} rubrics passed, "
                f"score {reward:.4f}."
            )
        return obs, reward, True, False, info

    async def _grade(self, task: Task, sandbox: Sandbox) -> Any:
        """Export the output folder and grade it. Never raises: any failure becomes a status="error" report."""
        from .judge.report import GradeReport

        tmp = tempfile.mkdtemp(prefix="jobenv-grade-")
        self._res.tmpdirs.add(tmp)
        try:
            out = Path(tmp) / "output"
            try:
                await sandbox.export_output(out)
            except Exception as exc:
                return GradeReport(
                    task_id=task.id, status="error", error=f"could not export the output folder: {exc}",
                    max_score=task.max_score,
                )
            try:
                report = await self._judge.grade(task, out)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the judge contract says it never raises; stay fail-closed if it does
                return GradeReport(
                    task_id=task.id, status="error", error=f"grading failed: {type(exc).__name__}: {exc}",
                    max_score=task.max_score,
                )
            return report
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
            self._res.tmpdirs.discard(tmp)

    async def aclose(self) -> None:
        """Remove the sandbox. Safe to call twice; the env can be reset again afterwards."""
        await self._drop_sandbox()
        self._done = True

    # ------------------------------------------------------------------------------------------ sync API
    def _run(self, coro: Any) -> Any:
        """Drive ``coro`` on this env's private loop.

        Normally the loop runs in the calling thread. When the caller's thread already runs a loop (a notebook,
        sync code called from async code), the private loop moves to a helper thread that lives until
        ``close()``: a sandbox process dies with the thread that started it, so that thread must not end early.
        """
        res = self._res
        if res.loop is None or res.loop.is_closed():
            res.loop = asyncio.new_event_loop()
        if res.thread is None:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                return res.loop.run_until_complete(coro)
            loop = res.loop
            res.thread = threading.Thread(target=loop.run_forever, name="jobenv-env-loop", daemon=True)
            res.thread.start()
        return asyncio.run_coroutine_threadsafe(coro, res.loop).result()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Sync :meth:`areset`."""
        return self._run(self.areset(seed=seed, options=options))

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Sync :meth:`astep`."""
        return self._run(self.astep(action))

    def close(self) -> None:
        """Remove the sandbox and release the private event loop (and its thread). Safe to call twice."""
        if self._res.sandbox is not None:
            try:
                self._run(self.aclose())
            except RuntimeError:
                pass
        self._done = True
        _stop_thread(self._res)
        loop, self._res.loop = self._res.loop, None
        if loop is not None and not loop.is_closed() and not loop.is_running():
            loop.close()

    def render(self) -> None:
        """No rendering: observations are text."""
        return None

    def __repr__(self) -> str:
        return f"<JobEnv {self.env_id} ({len(self.tasks)} tasks)>"
