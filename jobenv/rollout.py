"""Rollout collection: policies behind OpenAI-compatible APIs, many episodes on one event loop, trajectories.

A :class:`Policy` turns the conversation so far (OpenAI-format messages) and the environment's tool schemas
into one assistant message. :func:`run_episode` drives one :class:`~jobenv.env.JobEnv` episode with it:
every tool call of a reply is executed through ``env.astep`` and fed back as a ``tool`` message, until the
agent submits or a limit (steps, tokens, context, wall clock) ends the episode. :func:`collect` runs many
episodes concurrently (``k`` attempts per task for group-based RL) and appends one :class:`Trajectory` per
finished episode to a JSON Lines file, resuming where an interrupted run stopped.

Failure behaviour, in one place:

- A model API error is retried with exponential backoff; when retries are exhausted the episode ends with
  ``status="error"`` (``error_kind="policy"``). Other episodes carry on; :func:`collect` never raises for
  one episode's failure.
- An environment failure (sandbox could not start, a tool crashed the env) ends that episode with
  ``status="error"`` (``error_kind="env"``).
- A grading report with ``status="error"`` (judge outage, malformed judge reply) is kept with
  ``status="error"``, ``error_kind="grading"`` and ``reward=None``: it is never turned into a score, and
  summaries leave it out unless asked to include errors. The exception is a grading refused because the
  agent left symlinks or special files in ``output/``: that is the agent's doing, so the episode is ``ok``
  with reward 0.0 (the report still says why), and an agent cannot turn a failure into a dropped episode.
- Limits end an episode with ``status="truncated"``; what the agent left in ``output/`` is still graded
  (``RolloutConfig.grade_on_truncation``), so the reward is that of the partial deliverable.
- An agent that stops calling tools (a text-only reply with nudging off, or after ``max_nudges`` nudges)
  ends the episode with ``status="ok"``, ``finish_reason="no_tool_call"``; its output is graded likewise.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import threading
import time
import uuid
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterable, Literal, Protocol, Sequence, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from .errors import JobenvError

if TYPE_CHECKING:
    from .tasks import Task

__all__ = [
    "TRAJECTORY_SCHEMA_VERSION",
    "DEFAULT_NUDGE",
    "PolicyError",
    "ContextLengthError",
    "PolicyOutput",
    "Policy",
    "OpenAIChatPolicy",
    "RolloutConfig",
    "TokenUsage",
    "StepTiming",
    "Trajectory",
    "TrajectoryWriter",
    "CollectResult",
    "Summary",
    "GroupSummary",
    "run_episode",
    "collect",
    "collect_sync",
    "read_trajectories",
    "summarize",
    "pass_at_k",
]

TRAJECTORY_SCHEMA_VERSION = 1

DEFAULT_NUDGE = (
    "You replied without calling a tool. Continue the task using the tools; when the deliverables are saved "
    "in /workspace/output, call the submit tool."
)


class PolicyError(JobenvError):
    """The policy could not produce a reply (API errors after retries, an unusable response).

    Raised by :meth:`Policy.act`; :func:`run_episode` turns it into an episode with ``status="error"``.
    """


class ContextLengthError(PolicyError):
    """The conversation no longer fits the model's context window; the episode ends as truncated."""


# ---------------------------------------------------------------------------------------------------------
# policies


class PolicyOutput(BaseModel):
    """One assistant reply: the OpenAI-format message plus what the call cost."""

    model_config = ConfigDict(extra="forbid")

    message: dict[str, Any]  # {"role": "assistant", "content": ..., "tool_calls": [...]?}
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str | None = None
    finish_reason: str | None = None
    retries: int = 0


@runtime_checkable
class Policy(Protocol):
    """Anything that maps (messages, tool schemas) to the next assistant message.

    ``act`` raises :class:`PolicyError` (or :class:`ContextLengthError`) when it cannot reply; any other
    exception is also caught by :func:`run_episode` and recorded as a policy error.
    """

    async def act(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> PolicyOutput: ...


# keys the chat-completions API accepts in request messages; anything else (e.g. reasoning_content kept in the
# trajectory for training) is dropped before sending so strict servers do not reject the request
_REQUEST_KEYS = {"role", "content", "tool_calls", "tool_call_id", "name"}
_CONTEXT_MARKERS = ("context length", "context_length", "maximum context", "too many tokens", "prompt is too long")


class OpenAIChatPolicy:
    """A policy served behind an OpenAI-compatible chat-completions endpoint (vLLM, SGLang, a hosted model).

    Every call offers the tool schemas with ``tool_choice="auto"``. Connection errors, timeouts, 408/409/429
    and 5xx responses, and malformed responses are retried ``max_retries`` times with exponential backoff
    and jitter (``retry_backoff_s`` doubling up to ``retry_max_backoff_s``); other 4xx errors are not retried.
    Exhausted retries raise :class:`PolicyError`; a context-length rejection raises
    :class:`ContextLengthError`. ``sampling`` holds extra request fields (``seed``, ``stop``, ``extra_body``...).
    One client is kept per event loop, so the policy survives several ``asyncio.run`` calls.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        temperature: float | None = None,
        top_p: float | None = None,
        max_tokens: int | None = None,
        max_retries: int = 4,
        retry_backoff_s: float = 1.0,
        retry_max_backoff_s: float = 30.0,
        request_timeout_s: float = 600.0,
        **sampling: Any,
    ) -> None:
        if not model:
            raise PolicyError("OpenAIChatPolicy: a model name is required")
        from openai import AsyncOpenAI  # noqa: F401 - imported here, not in the event loop where it stalls ~1 s
        self.model = model
        self.base_url = base_url
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY"
        self.temperature = temperature
        self.top_p = top_p
        self.max_tokens = max_tokens
        self.max_retries = max(0, int(max_retries))
        self.retry_backoff_s = retry_backoff_s
        self.retry_max_backoff_s = retry_max_backoff_s
        self.request_timeout_s = request_timeout_s
        self.sampling = sampling
        self._clients: dict[int, Any] = {}  # id(event loop) -> AsyncOpenAI
        self._lock = threading.Lock()

    def describe(self) -> dict[str, Any]:
        """Model and sampling settings, recorded in every trajectory."""
        d: dict[str, Any] = {"kind": "openai-chat", "model": self.model, "base_url": self.base_url}
        for k in ("temperature", "top_p", "max_tokens"):
            if getattr(self, k) is not None:
                d[k] = getattr(self, k)
        d.update({k: v for k, v in self.sampling.items() if k != "extra_headers"})
        return d

    def _client(self) -> Any:
        loop = asyncio.get_running_loop()
        with self._lock:
            client = self._clients.get(id(loop))
            if client is None:
                from openai import AsyncOpenAI

                # our own retry loop owns backoff and error classification
                client = AsyncOpenAI(base_url=self.base_url, api_key=self.api_key, max_retries=0, timeout=self.request_timeout_s)
                self._clients = {id(loop): client}  # clients bound to finished loops are dropped
            return client

    async def check(self) -> None:
        """Fail fast when the endpoint is unreachable or rejects the key (used by ``jobenv rollout``).

        A server without ``/models`` (404) passes; unreachable or 401/403 raises PolicyError.
        """
        import openai

        try:
            await self._client().models.list()
        except openai.NotFoundError:
            return
        except openai.APIConnectionError as exc:
            raise PolicyError(f"cannot reach the model endpoint {self.base_url}: {exc}") from exc
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise PolicyError(f"the model endpoint {self.base_url} rejected the API key: {exc}") from exc
        except openai.APIError:
            return  # other odd answers: let the episodes find out, with retries

    async def act(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> PolicyOutput:
        import openai

        request: dict[str, Any] = {
            "model": self.model,
            "messages": [{k: v for k, v in m.items() if k in _REQUEST_KEYS} for m in messages],
        }
        if tools:
            request["tools"] = tools
            request["tool_choice"] = "auto"
        for k in ("temperature", "top_p", "max_tokens"):
            if getattr(self, k) is not None:
                request[k] = getattr(self, k)
        request.update(self.sampling)
        last: Exception | None = None
        for attempt in range(self.max_retries + 1):
            if attempt:
                delay = min(self.retry_max_backoff_s, self.retry_backoff_s * 2 ** (attempt - 1))
                await asyncio.sleep(delay * (0.5 + random.random() / 2))
            try:
                resp = await self._client().chat.completions.create(**request)
                if not getattr(resp, "choices", None):
                    raise PolicyError("the model endpoint returned no choices")
                return _policy_output(resp, attempt)
            except openai.BadRequestError as exc:
                text = str(exc).lower()
                if any(m in text for m in _CONTEXT_MARKERS):
                    raise ContextLengthError(f"context length exceeded: {exc}") from exc
                raise PolicyError(f"the model endpoint rejected the request (400): {exc}") from exc
            except openai.APIStatusError as exc:
                if exc.status_code in (408, 409, 429) or exc.status_code >= 500:
                    last = exc
                    continue
                raise PolicyError(f"the model endpoint answered {exc.status_code}: {exc}") from exc
            except (openai.APIError, PolicyError, ValueError, TypeError) as exc:
                # connection errors, timeouts, unparseable bodies: transient as far as we can tell
                last = exc
                continue
        raise PolicyError(f"model API failed after {self.max_retries + 1} attempts: {type(last).__name__}: {last}")

    async def aclose(self) -> None:
        """Close the HTTP client of the running loop (others are dropped with their loop)."""
        client = self._clients.pop(id(asyncio.get_running_loop()), None)
        if client is not None:
            await client.close()


def _policy_output(resp: Any, retries: int) -> PolicyOutput:
    choice = resp.choices[0]
    msg = choice.message
    message: dict[str, Any] = {"role": "assistant", "content": msg.content}
    reasoning = getattr(msg, "reasoning_content", None) or (getattr(msg, "model_extra", None) or {}).get("reasoning_content")
    if reasoning:
        message["reasoning_content"] = reasoning
    if msg.tool_calls:
        message["tool_calls"] = [
            {
                # some servers omit ids; tool results must still point at their call
                "id": tc.id or f"call_{uuid.uuid4().hex[:12]}",
                "type": "function",
                "function": {"name": tc.function.name, "arguments": tc.function.arguments or "{}"},
            }
            for tc in msg.tool_calls
        ]
    usage = getattr(resp, "usage", None)
    return PolicyOutput(
        message=message,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        model=getattr(resp, "model", None),
        finish_reason=choice.finish_reason,
        retries=retries,
    )


# ---------------------------------------------------------------------------------------------------------
# trajectory schema


class RolloutConfig(BaseModel):
    """Limits and conversation settings of one episode; stored in every trajectory."""

    model_config = ConfigDict(extra="forbid")

    max_steps: int = Field(default=50, ge=1, description="tool calls executed per episode")
    token_budget: int | None = Field(default=None, ge=1, description="completion tokens per episode")
    context_limit: int | None = Field(default=None, ge=1, description="prompt+completion tokens of one call")
    time_limit_s: float | None = Field(default=None, gt=0, description="wall clock per episode")
    nudge: str | None = Field(default=DEFAULT_NUDGE, description="user message after a reply without tool calls; None ends the episode")
    max_nudges: int = Field(default=3, ge=0, description="consecutive nudges before the episode ends")
    grade_on_truncation: bool = Field(default=True, description="grade output/ when a limit ends the episode")
    system_prompt: str | None = Field(default=None, description="optional system message before the task prompt")


class TokenUsage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    model_calls: int = 0
    retries: int = 0


class StepTiming(BaseModel):
    """One timed phase of an episode; ``start_s`` is relative to the episode start."""

    kind: Literal["reset", "model", "tool", "grade"]
    name: str | None = None
    start_s: float
    duration_s: float
    ok: bool = True
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


Status = Literal["ok", "error", "truncated"]
FinishReason = Literal[
    "submitted", "no_tool_call", "max_steps", "token_budget", "context_length", "time_limit",
    "env_truncated", "policy_error", "env_error", "grading_error",
]


class Trajectory(BaseModel):
    """One finished episode, one JSON line. ``reward`` is None when the episode errored (never a fake 0)."""

    model_config = ConfigDict(extra="allow")  # newer minor fields survive a round trip through older readers

    schema_version: int = TRAJECTORY_SCHEMA_VERSION
    episode_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    env_id: str
    task_id: str
    split: str | None = None
    occupation: str | None = None
    attempt: int = 0
    model: str | None = None
    policy: dict[str, Any] = Field(default_factory=dict)
    config: dict[str, Any] = Field(default_factory=dict)
    messages: list[dict[str, Any]] = Field(default_factory=list)
    tools: list[dict[str, Any]] = Field(default_factory=list)
    reward: float | None = None
    report: dict[str, Any] | None = None
    strict_pass: bool | None = None
    status: Status
    finish_reason: FinishReason
    submitted: bool = False
    error: str | None = None
    error_kind: Literal["policy", "env", "grading"] | None = None
    num_tool_calls: int = 0
    num_turns: int = 0
    steps: list[StepTiming] = Field(default_factory=list)
    usage: TokenUsage = Field(default_factory=TokenUsage)
    versions: dict[str, str | None] = Field(default_factory=dict)
    started_at: str
    finished_at: str
    duration_s: float

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.env_id, self.task_id, self.attempt)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _jobenv_version() -> str:
    from . import __version__

    return __version__


def _judge_version(report: dict[str, Any] | None) -> str | None:
    if not report:
        return None
    parts = [str(report[k]) for k in ("judge_kind", "judge_model", "extraction_version", "grader_hash") if report.get(k)]
    return " ".join(parts) or None


# ---------------------------------------------------------------------------------------------------------
# one episode


async def run_episode(
    env: Any,
    policy: Policy,
    task_id: str,
    *,
    attempt: int = 0,
    env_id: str | None = None,
    config: RolloutConfig | None = None,
    versions: dict[str, str | None] | None = None,
    reset_slots: asyncio.Semaphore | None = None,
) -> Trajectory:
    """Play one episode of ``task_id`` on ``env`` (a JobEnv, already constructed) and return its trajectory.

    Never raises for policy, environment or grading failures: they are recorded in the trajectory (see the
    module docstring). Cancellation (``asyncio.CancelledError``) propagates; the caller closes ``env``.
    ``reset_slots`` bounds how many episodes start their sandbox at once (starts are bursty and partly
    synchronous, so hundreds at once would stall the event loop).
    """
    cfg = config or RolloutConfig()
    t0 = time.monotonic()
    started = _now()
    deadline = t0 + cfg.time_limit_s if cfg.time_limit_s else None
    steps: list[StepTiming] = []
    usage = TokenUsage()
    messages: list[dict[str, Any]] = []
    tools: list[dict[str, Any]] = []
    info: dict[str, Any] = {}
    report: dict[str, Any] | None = None
    submitted = False
    finish: str | None = None
    error: str | None = None
    error_kind: str | None = None
    tool_calls = 0
    turns = 0
    policy_desc = policy.describe() if hasattr(policy, "describe") else {"kind": type(policy).__name__}

    def remaining() -> float | None:
        return None if deadline is None else deadline - time.monotonic()

    async def timed(kind: str, name: str | None, aw: Awaitable[Any]) -> Any:
        start = time.monotonic()
        rec = StepTiming(kind=kind, name=name, start_s=round(start - t0, 6), duration_s=0.0)
        steps.append(rec)
        try:
            left = remaining()
            if left is not None:
                if left <= 0:
                    if asyncio.iscoroutine(aw):
                        aw.close()  # never started: close it so it is not reported as never awaited
                    raise asyncio.TimeoutError
                return await asyncio.wait_for(aw, left)
            return await aw
        except BaseException:
            rec.ok = False
            raise
        finally:
            rec.duration_s = round(time.monotonic() - start, 6)

    async def grade_now() -> None:
        # limits ended the episode: grade what the agent left in output/ through the env's own submit
        nonlocal report
        try:
            start = time.monotonic()
            _, _, _, _, sinfo = await env.astep({"name": "submit", "arguments": {}})
            steps.append(StepTiming(kind="grade", name="submit", start_s=round(start - t0, 6), duration_s=round(time.monotonic() - start, 6)))
            report = (sinfo or {}).get("report")
        except Exception as exc:  # noqa: BLE001 - an env refusing the late submit leaves the episode ungraded
            steps.append(StepTiming(kind="grade", name="submit", start_s=round(time.monotonic() - t0, 6), duration_s=0.0, ok=False))
            report = {"status": "error", "error": f"grading after truncation failed: {type(exc).__name__}: {exc}"}

    try:
        if reset_slots is not None:
            async with reset_slots:
                obs, info = await timed("reset", None, env.areset(options={"task_id": task_id}))
        else:
            obs, info = await timed("reset", None, env.areset(options={"task_id": task_id}))
        info = dict(info or {})
        tools = list(info.get("tool_schemas") or env.tool_schemas())
        system = cfg.system_prompt or info.get("system_prompt")
        if system:
            messages.append({"role": "system", "content": system})
        messages.append({"role": "user", "content": obs if isinstance(obs, str) else json.dumps(obs)})
    except asyncio.CancelledError:
        raise
    except asyncio.TimeoutError:
        finish, error, error_kind = "env_error", "environment reset exceeded the time limit", "env"
    except Exception as exc:  # noqa: BLE001 - one episode's env failure must not stop the run
        finish, error, error_kind = "env_error", f"reset failed: {type(exc).__name__}: {exc}", "env"

    nudges = 0
    while finish is None:
        if tool_calls >= cfg.max_steps:
            finish = "max_steps"
            break
        if cfg.token_budget is not None and usage.completion_tokens >= cfg.token_budget:
            finish = "token_budget"
            break
        try:
            out: PolicyOutput = await timed("model", policy_desc.get("model"), policy.act(messages, tools))
        except asyncio.CancelledError:
            raise
        except asyncio.TimeoutError:
            finish = "time_limit"
            break
        except ContextLengthError:
            finish = "context_length"
            break
        except Exception as exc:  # noqa: BLE001 - PolicyError or a broken custom policy
            finish, error, error_kind = "policy_error", f"{type(exc).__name__}: {exc}", "policy"
            break
        turns += 1
        rec = steps[-1]
        rec.prompt_tokens, rec.completion_tokens = out.prompt_tokens, out.completion_tokens
        usage.prompt_tokens += out.prompt_tokens
        usage.completion_tokens += out.completion_tokens
        usage.total_tokens += out.prompt_tokens + out.completion_tokens
        usage.model_calls += 1
        usage.retries += out.retries
        message = dict(out.message)
        message["role"] = "assistant"
        messages.append(message)
        calls = list(message.get("tool_calls") or [])
        if not calls:
            if cfg.nudge is not None and nudges < cfg.max_nudges:
                nudges += 1
                messages.append({"role": "user", "content": cfg.nudge})
                continue
            finish = "no_tool_call"
            break
        nudges = 0
        for call in calls:
            call_id = call.get("id") or ""
            name = (call.get("function") or {}).get("name") or call.get("name")
            if finish is not None:
                # the OpenAI format wants a result for every call; say why this one did not run
                messages.append({"role": "tool", "tool_call_id": call_id, "content": f"Not executed: the episode ended ({finish})."})
                continue
            if tool_calls >= cfg.max_steps:
                finish = "max_steps"
                messages.append({"role": "tool", "tool_call_id": call_id, "content": "Not executed: step limit reached."})
                continue
            try:
                obs, _reward, terminated, truncated, sinfo = await timed("tool", name, env.astep(call))
            except asyncio.CancelledError:
                raise
            except asyncio.TimeoutError:
                finish = "time_limit"
                messages.append({"role": "tool", "tool_call_id": call_id, "content": "Not finished: the episode's time limit was reached."})
                continue
            except Exception as exc:  # noqa: BLE001
                finish, error, error_kind = "env_error", f"tool {name!r} failed: {type(exc).__name__}: {exc}", "env"
                messages.append({"role": "tool", "tool_call_id": call_id, "content": f"Environment error: {exc}"})
                continue
            tool_calls += 1
            messages.append({"role": "tool", "tool_call_id": call_id, "content": obs if isinstance(obs, str) else json.dumps(obs)})
            sinfo = sinfo or {}
            if terminated:
                submitted = True
                report = sinfo.get("report")
                finish = "submitted"
            elif truncated:
                report = sinfo.get("report")
                finish = "env_truncated"
        if finish is None and cfg.context_limit is not None and out.prompt_tokens + out.completion_tokens >= cfg.context_limit:
            finish = "context_length"

    assert finish is not None
    if error_kind is None and report is None and cfg.grade_on_truncation and finish != "env_truncated":
        await grade_now()

    status: str
    reward: float | None = None
    strict: bool | None = None
    if error_kind is not None:
        status = "error"
    elif report is not None and report.get("status") == "error" and not report.get("rejected_files"):
        status, error_kind, finish = "error", "grading", "grading_error" if finish == "submitted" else finish
        error = str(report.get("error") or "grading failed")
    else:
        status = "ok" if finish in ("submitted", "no_tool_call") else "truncated"
        if report is not None:
            # a grading refused because the agent left symlinks or special files in output/ is the agent's
            # doing: it scores 0 and stays in the summaries, so it cannot turn a failure into a dropped episode
            reward = float(report.get("normalized_score") or 0.0)
            strict = bool(report.get("strict_pass", False))
        else:
            reward = 0.0  # ungraded by configuration: nothing was submitted
            strict = False

    vers = dict(versions or {})
    vers.setdefault("jobenv", _jobenv_version())
    vers["judge"] = _judge_version(report) or vers.get("judge")
    if info.get("dataset_revision") and not vers.get("dataset"):
        vers["dataset"] = str(info["dataset_revision"])
    if report and report.get("dataset_revision") and not vers.get("dataset"):
        vers["dataset"] = str(report["dataset_revision"])
    return Trajectory(
        env_id=env_id or str(info.get("env_id") or ""),
        task_id=str(info.get("task_id") or task_id),
        split=info.get("split"),
        occupation=(info.get("task_id") or task_id).split("/")[-2] if "/" in (info.get("task_id") or task_id) else None,
        attempt=attempt,
        model=policy_desc.get("model"),
        policy=policy_desc,
        config=cfg.model_dump(),
        messages=messages,
        tools=tools,
        reward=reward,
        report=report,
        strict_pass=strict,
        status=status,  # type: ignore[arg-type]
        finish_reason=finish,  # type: ignore[arg-type]
        submitted=submitted,
        error=error,
        error_kind=error_kind,  # type: ignore[arg-type]
        num_tool_calls=tool_calls,
        num_turns=turns,
        steps=steps,
        usage=usage,
        versions=vers,
        started_at=started,
        finished_at=_now(),
        duration_s=round(time.monotonic() - t0, 6),
    )


# ---------------------------------------------------------------------------------------------------------
# trajectory files


def read_trajectories(path: str | Path, *, latest_only: bool = True, strict: bool = False) -> list[Trajectory]:
    """Read a trajectories file, tolerating a torn last line (a crash mid-write) and skipping bad lines.

    With ``latest_only`` a (env, task, attempt) written twice (an errored episode retried) keeps its last
    line. ``strict=True`` raises JobenvError on any unparseable line other than a torn last one.
    Raises JobenvError when the file does not exist.
    """
    p = Path(path)
    if not p.is_file():
        raise JobenvError(f"trajectories file not found: {p}")
    records, bad = _scan(p)
    if bad and strict:
        raise JobenvError(f"{p}: unparseable lines {bad[:10]}")
    if not latest_only:
        return records
    latest: dict[tuple[str, str, int], Trajectory] = {}
    for r in records:
        latest.pop(r.key, None)  # keep first-seen order of the final record
        latest[r.key] = r
    return list(latest.values())


def _scan(p: Path) -> tuple[list[Trajectory], list[int]]:
    records: list[Trajectory] = []
    bad: list[int] = []
    with open(p, "rb") as fh:  # line by line: trajectory files grow large
        for i, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                records.append(Trajectory.model_validate_json(raw))
            except ValueError:
                if raw.endswith(b"\n"):
                    bad.append(i)
                # else: a torn last line (a crash mid-write); the episode is simply not finished
    return records, bad


class TrajectoryWriter:
    """Append-only, crash-safe JSONL writer: one line per finished episode, flushed and fsynced.

    Opening an existing file drops a torn last line (an episode whose write was cut off is simply rerun)
    so the next record starts on a fresh line. Writes run in a worker thread under a lock so an fsync
    never stalls the event loop. Raises JobenvError when the file cannot be opened.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._repair_tail()
            self._fh = open(self.path, "ab")
        except OSError as exc:
            raise JobenvError(f"cannot write trajectories to {self.path}: {exc}") from exc
        self._lock = asyncio.Lock()

    def _repair_tail(self) -> None:
        if not self.path.exists() or self.path.stat().st_size == 0:
            return
        with open(self.path, "rb+") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 1))
            if fh.read(1) == b"\n":
                return
            # find the last newline; everything after it is a torn record
            pos, chunk = size, 65536
            cut = 0
            while pos > 0:
                start = max(0, pos - chunk)
                fh.seek(start)
                buf = fh.read(pos - start)
                idx = buf.rfind(b"\n")
                if idx >= 0:
                    cut = start + idx + 1
                    break
                pos = start
            fh.seek(cut)
            tail = fh.read()
            try:  # a full record missing only its newline is kept
                Trajectory.model_validate_json(tail)
                fh.seek(0, os.SEEK_END)
                fh.write(b"\n")
            except ValueError:
                fh.truncate(cut)
            fh.flush()
            os.fsync(fh.fileno())

    def _write_sync(self, line: bytes) -> None:
        self._fh.write(line)
        self._fh.flush()
        os.fsync(self._fh.fileno())

    async def write(self, traj: Trajectory) -> None:
        line = traj.model_dump_json().encode() + b"\n"
        async with self._lock:
            await asyncio.to_thread(self._write_sync, line)

    def close(self) -> None:
        self._fh.close()


# ---------------------------------------------------------------------------------------------------------
# collection


class CollectResult(BaseModel):
    """What :func:`collect` produced: every finished record of the requested pairs (resumed and new)."""

    trajectories: list[Trajectory]
    new: int
    skipped: int
    out: str | None = None

    def summary(self, *, include_errors: bool = False) -> "Summary":
        return summarize(self.trajectories, include_errors=include_errors)


def _select_tasks(all_tasks: list["Task"], ids: Sequence[str] | None, env_label: str) -> list["Task"]:
    if not ids:
        return list(all_tasks)
    from .tasks import normalize_task_id

    by_id: dict[str, Task] = {}
    for t in all_tasks:
        by_id[t.id] = t
        by_id[t.uid] = t
    chosen: list[Task] = []
    missing: list[str] = []
    for raw in ids:
        tid = normalize_task_id(raw)
        task = by_id.get(tid)
        if task is None:
            missing.append(raw)
        elif task not in chosen:
            chosen.append(task)
    if missing:
        known = ", ".join(t.id for t in all_tasks[:12]) + (" ..." if len(all_tasks) > 12 else "")
        raise JobenvError(f"{env_label}: unknown task id(s) {', '.join(missing)}; known: {known}")
    return chosen


def _dataset_version(env_id: str | None, tasks: list["Task"]) -> str | None:
    for t in tasks[:1]:
        meta = t.meta or {}
        for k in ("dataset_revision", "revision"):
            if meta.get(k):
                return str(meta[k])
    if not env_id:
        return None
    try:
        from .registry import env_spec

        spec = env_spec(env_id)
        if spec.dataset == "sample":
            return f"sample@jobenv-{_jobenv_version()}"
        from .datasets import data_dir, read_manifest

        manifest = read_manifest(data_dir() / spec.dataset)
        return f"{manifest.repo_id}@{manifest.revision}" if manifest else None
    except Exception:  # noqa: BLE001 - a missing version is recorded as None, not an error
        return None


def _warm_imports() -> None:
    import importlib

    for name in ("openai", "jobenv.env", "jobenv.sandbox", "jobenv.judge", "jobenv.extract", "pandas", "openpyxl"):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - an optional library missing is the judge's business, later
            pass


async def collect(
    env: "str | Sequence[Task]",
    policy: Policy,
    *,
    tasks: Sequence[str] | None = None,
    attempts: int = 1,
    concurrency: int = 8,
    out: str | Path | None = None,
    env_kwargs: dict[str, Any] | None = None,
    config: RolloutConfig | None = None,
    env_id: str | None = None,
    resume: bool = True,
    retry_errors: bool = False,
    on_episode: Callable[[Trajectory], Any] | None = None,
    on_start: Callable[[int, int], Any] | None = None,
    start_concurrency: int = 16,
    **config_overrides: Any,
) -> CollectResult:
    """Run ``attempts`` episodes of every selected task with at most ``concurrency`` at once.

    ``env`` is a registered env id (``"jobenv/sample"``) or a list of Task objects; ``tasks`` narrows the
    selection by id. Each episode gets its own JobEnv (``env_kwargs`` go to its constructor: sandbox, judge,
    ...), closed when the episode ends, even on cancellation. With ``out``, every finished episode is
    appended to that JSONL file at once; with ``resume`` (default) pairs already in the file are skipped,
    and with ``retry_errors`` pairs whose record has ``status="error"`` are run again (the new line wins).
    ``on_start(total, skipped)`` and ``on_episode(traj)`` report progress. At most ``start_concurrency``
    sandboxes start at once (the rest of each episode runs at full ``concurrency``). ``config_overrides`` set
    :class:`RolloutConfig` fields (``max_steps=20``...). Raises JobenvError only for bad arguments (unknown
    env or task ids, an unwritable ``out``); episode failures are recorded, never raised.
    """
    # heavy first imports (env, sandbox, judge, extraction libraries) run in a thread, not in the event loop
    await asyncio.to_thread(_warm_imports)
    from .env import JobEnv
    from .registry import load_tasks

    if attempts < 1:
        raise JobenvError(f"attempts must be >= 1 (got {attempts})")
    if concurrency < 1:
        raise JobenvError(f"concurrency must be >= 1 (got {concurrency})")
    cfg = config or RolloutConfig()
    if config_overrides:
        try:
            cfg = RolloutConfig.model_validate({**cfg.model_dump(), **config_overrides})
        except ValueError as exc:
            raise JobenvError(f"invalid rollout settings {sorted(config_overrides)}: {exc}") from exc
    kwargs = dict(env_kwargs or {})
    # the env's own step cap must leave room for the agent's steps plus a late grading submit
    kwargs.setdefault("max_steps", cfg.max_steps + 1)
    if isinstance(env, str):
        env_label = env
        all_tasks = load_tasks(env)
        eid = env_id or env
    else:
        all_tasks = list(env)
        eid = env_id or (f"tasks/{all_tasks[0].split}" if all_tasks else "tasks")
        env_label = eid
    chosen = _select_tasks(all_tasks, tasks, env_label)
    if not chosen:
        raise JobenvError(f"{env_label}: no tasks to run")
    versions = {"jobenv": _jobenv_version(), "dataset": _dataset_version(eid, chosen), "judge": None}

    pairs = [(t, a) for t in chosen for a in range(attempts)]
    done: dict[tuple[str, str, int], Trajectory] = {}
    writer: TrajectoryWriter | None = None
    if out is not None:
        outp = Path(out)
        if outp.exists() and resume:
            for r in read_trajectories(outp):
                done[r.key] = r
            # resuming with another model would silently mix two policies' episodes in one file
            model = getattr(policy, "model", None)
            others = sorted({r.model for r in done.values() if r.env_id == eid and r.model and model and r.model != model})
            if others:
                raise JobenvError(f"{outp} holds episodes of model {', '.join(others)}, not {model}; "
                                  "resume with the same model or write to another file")
        elif outp.exists() and outp.stat().st_size > 0:
            raise JobenvError(f"{outp} exists; pass resume=True to continue it or choose another file")
        writer = TrajectoryWriter(outp)

    def finished(key: tuple[str, str, int]) -> bool:
        r = done.get(key)
        return r is not None and not (retry_errors and r.status == "error")

    todo = [(t, a) for t, a in pairs if not finished((eid, t.id, a))]
    skipped = len(pairs) - len(todo)
    if on_start is not None:
        on_start(len(pairs), skipped)

    results: dict[tuple[str, str, int], Trajectory] = {}
    reset_slots = asyncio.Semaphore(max(1, start_concurrency))
    queue: asyncio.Queue[tuple[Task, int]] = asyncio.Queue()
    for item in todo:
        queue.put_nowait(item)

    def env_error(task: "Task", attempt: int, exc: Exception) -> Trajectory:
        now = _now()
        return Trajectory(
            env_id=eid, task_id=task.id, split=task.split, occupation=task.occupation, attempt=attempt,
            model=getattr(policy, "model", None), status="error", finish_reason="env_error",
            error=f"environment construction failed: {type(exc).__name__}: {exc}", error_kind="env",
            versions=dict(versions), started_at=now, finished_at=now, duration_s=0.0,
        )

    async def release(env_obj: Any) -> None:
        try:
            await asyncio.shield(env_obj.aclose())
        except BaseException:  # noqa: BLE001 - cleanup trouble is the sandbox's to report; keep going
            pass

    async def worker() -> None:
        # one env per worker, reset for each episode (a fresh sandbox every time); rebuilt after an env error
        env_obj: Any = None
        try:
            while True:
                try:
                    task, attempt = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                traj: Trajectory | None = None
                if env_obj is None:
                    try:
                        env_obj = JobEnv(chosen, env_id=eid, **kwargs)
                    except Exception as exc:  # noqa: BLE001 - a bad env configuration is reported per episode
                        traj = env_error(task, attempt, exc)
                    await asyncio.sleep(0)  # let other coroutines run between workers' start-up bursts
                if traj is None:
                    traj = await run_episode(env_obj, policy, task.id, attempt=attempt, env_id=eid, config=cfg, versions=versions,
                                             reset_slots=reset_slots)
                    traj.split = traj.split or task.split
                    traj.occupation = task.occupation
                    await release(env_obj)
                    if traj.error_kind == "env":
                        env_obj = None
                if writer is not None:
                    await writer.write(traj)
                results[traj.key] = traj
                if on_episode is not None:
                    on_episode(traj)
        finally:
            if env_obj is not None:
                await release(env_obj)

    try:
        await asyncio.gather(*(worker() for _ in range(min(concurrency, len(todo)))))
    finally:
        if writer is not None:
            writer.close()
    ordered: list[Trajectory] = []
    for t, a in pairs:
        key = (eid, t.id, a)
        r = results.get(key) or done.get(key)
        if r is not None:
            ordered.append(r)
    return CollectResult(trajectories=ordered, new=len(results), skipped=skipped, out=str(out) if out else None)


def collect_sync(*args: Any, **kwargs: Any) -> CollectResult:
    """:func:`collect` for synchronous code, on a private event loop (in a thread when the caller's thread
    already runs one, e.g. a notebook). The policy's HTTP client for that loop is closed before returning."""
    policy = args[1] if len(args) > 1 else kwargs.get("policy")

    async def run() -> CollectResult:
        try:
            return await collect(*args, **kwargs)
        finally:
            close = getattr(policy, "aclose", None)
            if close is not None:
                await close()

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(run())
    box: dict[str, Any] = {}

    def runner() -> None:
        try:
            box["r"] = asyncio.run(run())
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["e"] = exc

    th = threading.Thread(target=runner)
    th.start()
    th.join()
    if "e" in box:
        raise box["e"]
    return box["r"]


# ---------------------------------------------------------------------------------------------------------
# summaries


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from ``n`` attempts with ``c`` successes: 1 - C(n-c, k) / C(n, k).

    Raises ValueError when k > n or counts are inconsistent.
    """
    if not (0 <= c <= n) or k < 1 or k > n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


class GroupSummary(BaseModel):
    """Aggregates over one group (all, an occupation or a task)."""

    episodes: int = 0
    tasks: int = 0
    mean_reward: float | None = None
    strict_pass_rate: float | None = None
    pass_at_k: dict[int, float] = Field(default_factory=dict)
    truncated: int = 0
    errors: int = 0
    rewards: list[float] = Field(default_factory=list)


class Summary(BaseModel):
    """What ``jobenv report`` shows. Errored episodes are counted in ``errors``/``error_kinds`` and left out
    of rewards unless ``include_errors`` (then they count as reward 0, never as a pass)."""

    schema_version: int = 1
    episodes: int
    included: int
    include_errors: bool
    errors: int
    error_kinds: dict[str, int]
    statuses: dict[str, int]
    finish_reasons: dict[str, int]
    models: list[str]
    env_ids: list[str]
    overall: GroupSummary
    per_occupation: dict[str, GroupSummary]
    per_task: dict[str, GroupSummary]
    tokens: TokenUsage
    mean_duration_s: float | None = None


def _group(trajs: list[Trajectory], include_errors: bool) -> GroupSummary:
    g = GroupSummary(episodes=len(trajs))
    g.errors = sum(t.status == "error" for t in trajs)
    g.truncated = sum(t.status == "truncated" for t in trajs)
    used = [t for t in trajs if include_errors or t.status != "error"]
    by_task: dict[tuple[str, str], list[Trajectory]] = defaultdict(list)
    for t in used:
        by_task[(t.env_id, t.task_id)].append(t)
    g.tasks = len(by_task)
    if used:
        g.rewards = [float(t.reward or 0.0) for t in used]
        g.mean_reward = sum(g.rewards) / len(g.rewards)
        g.strict_pass_rate = sum(bool(t.strict_pass) for t in used) / len(used)
        n_min = min(len(v) for v in by_task.values())
        for k in sorted({1, 2, 4, 8, 16, 32, n_min}):
            if k > n_min:
                continue
            vals = [pass_at_k(len(v), sum(bool(t.strict_pass) for t in v), k) for v in by_task.values()]
            g.pass_at_k[k] = sum(vals) / len(vals)
    return g


def summarize(trajectories: Iterable[Trajectory], *, include_errors: bool = False) -> Summary:
    """Mean reward, strict pass rate, pass@k (unbiased, per task then averaged; k up to the fewest attempts
    any task has), per-occupation and per-task breakdowns, error counts. Passing means ``strict_pass``
    (every rubric passed)."""
    trajs = list(trajectories)
    kinds: dict[str, int] = defaultdict(int)
    statuses: dict[str, int] = defaultdict(int)
    reasons: dict[str, int] = defaultdict(int)
    tokens = TokenUsage()
    for t in trajs:
        statuses[t.status] += 1
        reasons[t.finish_reason] += 1
        if t.status == "error":
            kinds[t.error_kind or "unknown"] += 1
        tokens.prompt_tokens += t.usage.prompt_tokens
        tokens.completion_tokens += t.usage.completion_tokens
        tokens.total_tokens += t.usage.total_tokens
        tokens.model_calls += t.usage.model_calls
        tokens.retries += t.usage.retries
    by_occ: dict[str, list[Trajectory]] = defaultdict(list)
    by_task: dict[str, list[Trajectory]] = defaultdict(list)
    for t in trajs:
        by_occ[t.occupation or t.task_id.split("/")[0]].append(t)
        by_task[t.task_id].append(t)
    overall = _group(trajs, include_errors)
    return Summary(
        episodes=len(trajs),
        included=len(overall.rewards),
        include_errors=include_errors,
        errors=statuses.get("error", 0),
        error_kinds=dict(kinds),
        statuses=dict(statuses),
        finish_reasons=dict(reasons),
        models=sorted({t.model for t in trajs if t.model}),
        env_ids=sorted({t.env_id for t in trajs}),
        overall=overall,
        per_occupation={k: _group(v, include_errors) for k, v in sorted(by_occ.items())},
        per_task={k: _group(v, include_errors) for k, v in sorted(by_task.items())},
        tokens=tokens,
        mean_duration_s=round(sum(t.duration_s for t in trajs) / len(trajs), 4) if trajs else None,
    )
