"""One episode: a policy drives a :class:`~jobenv.env.JobEnv` until it submits or a limit ends it.

Every tool call of a reply is executed through ``env.astep`` and answered with a ``tool`` message (the
OpenAI format wants a result for every call). Failure behaviour:

- A policy that cannot reply (:class:`~jobenv.rollout.policy.PolicyError` or any exception of a custom
  policy) ends the episode with ``status="error"``, ``error_kind="policy"``.
- An environment failure (the sandbox did not start, a tool crashed the env) ends it with
  ``status="error"``, ``error_kind="env"``.
- A grading report with ``status="error"`` (judge outage, malformed judge reply) gives ``status="error"``,
  ``error_kind="grading"`` and ``reward=None``: never a score. Refused output (symlinks, special files the
  agent left in ``output/``) is the agent's doing: ``status="ok"`` with reward 0.0.
- Every other ending is "ran out before submit" and follows the run's :class:`~jobenv.episode.EpisodeRules`
  exactly as every front-end does, through the episode core (:class:`jobenv.episode.Episode`): the step budget
  and the time limit (enforced by the core, so the prompt states exactly what the run allows), and the endings
  this loop decides — a token or context budget, and an agent that stops calling tools (after ``max_nudges``
  nudges) — handed to ``JobEnv.afinish``. ``status="truncated"`` with reward 0 (``on_truncate="zero"``, the
  default) or the graded output (``on_truncate="grade"``).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..episode import Ending, EpisodeRules, ErrorKind, FinishReason, Outcome, Status
from .policy import ContextLengthError, Policy, PolicyOutput, policy_id
from .tokens import record_prompt
from .trajectory import Completion, StepTiming, TokenUsage, Trajectory, jobenv_version, now_iso

__all__ = ["DEFAULT_NUDGE", "RolloutConfig", "run_episode", "scored", "judge_version", "reset_gate"]

DEFAULT_NUDGE = (
    "You replied without calling a tool. Continue the task using the tools; when the deliverables are saved "
    "in /workspace/output, call the submit tool."
)


class RolloutConfig(BaseModel):
    """How episodes of a rollout run: the :class:`~jobenv.grading.EpisodeRules` (budget, truncation rule,
    scoring; stated in the prompt and applied by the env) and the conversation settings. Stored in every
    trajectory."""

    model_config = ConfigDict(extra="forbid")

    rules: EpisodeRules = Field(default_factory=EpisodeRules)
    token_budget: int | None = Field(default=None, ge=1, description="completion tokens per episode")
    context_limit: int | None = Field(default=None, ge=1, description="prompt+completion tokens of one call")
    nudge: str | None = Field(default=DEFAULT_NUDGE, description="user message after a reply without tool calls; None ends the episode")
    max_nudges: int = Field(default=3, ge=0, description="consecutive nudges before the episode ends")
    system_prompt: str | None = Field(default=None, description="optional system message before the task prompt")

    @classmethod
    def build(cls, base: RolloutConfig | None = None, **overrides: Any) -> RolloutConfig:
        """``base`` with fields replaced; keys of EpisodeRules (``max_steps``, ``on_truncate``...) go to ``rules``.

        Raises pydantic's ValidationError (a ValueError) for unknown keys or bad values.
        """
        base = base or cls()
        rule_keys = {k: overrides.pop(k) for k in list(overrides) if k in EpisodeRules.model_fields}
        data = base.model_dump()
        data["rules"] = {**data["rules"], **rule_keys}
        return cls.model_validate({**data, **overrides})


def _judge_version(report: dict[str, Any] | None) -> str | None:
    if not report:
        return None
    parts = [str(report[k]) for k in ("judge_kind", "judge_model", "extraction_version", "grader_hash") if report.get(k)]
    return " ".join(parts) or None


def _text(obs: Any) -> str:
    return obs if isinstance(obs, str) else json.dumps(obs)


def scored(outcome: Outcome | None, finish: str) -> dict[str, Any]:
    """The trajectory fields an :class:`~jobenv.episode.Outcome` decides (status, reward, strict pass, report,
    error, error kind, finish reason), for an episode that ended by ``finish``. Shared by episodes and
    ``jobenv regrade``, so a regraded episode is scored exactly as a fresh one."""
    if outcome is None:  # nothing decided the end (the env ended without an outcome): no credit, said so
        return {"status": Status.TRUNCATED, "reward": 0.0, "strict_pass": False, "report": None, "error": None,
                "error_kind": None, "finish_reason": FinishReason(finish)}
    return {"status": outcome.status, "reward": outcome.scored_reward, "strict_pass": outcome.strict_pass,
            "report": outcome.report_dict(),
            "error": (outcome.error or "grading failed") if outcome.status is Status.ERROR else None,
            "error_kind": outcome.error_kind, "finish_reason": outcome.finish_reason}


def judge_version(report: dict[str, Any] | None) -> str | None:
    """The judge that made ``report`` (kind, model, extraction version, grader hash), recorded in trajectories."""
    return _judge_version(report)


class _Episode:
    """The state of one episode while it runs; :meth:`run` plays it and returns the trajectory."""

    def __init__(self, env: Any, policy: Policy, task_id: str, attempt: int, env_id: str | None,
                 cfg: RolloutConfig, versions: dict[str, str | None] | None) -> None:
        self.env, self.policy, self.task_id, self.attempt, self.env_id, self.cfg = env, policy, task_id, attempt, env_id, cfg
        self.versions = dict(versions or {})
        self.t0 = time.monotonic()
        self.started = now_iso()
        self.outcome: Outcome | None = None
        self.steps: list[StepTiming] = []
        self.usage = TokenUsage()
        self.messages: list[dict[str, Any]] = []
        self.tools: list[dict[str, Any]] = []
        self.info: dict[str, Any] = {}
        self.report: dict[str, Any] | None = None
        self.submitted = False
        self.finish: FinishReason | None = None
        self.error: str | None = None
        self.error_kind: ErrorKind | None = None
        self.tool_calls = 0
        self.turns = 0
        self.completions: list[Completion] = []
        self.token_sequence: list[int] | None = None  # the last turn's prompt and completion ids (engine tokens)
        self.sampling: dict[str, Any] | None = None
        self.policy_desc: dict[str, Any] = policy.describe() if hasattr(policy, "describe") else {"kind": type(policy).__name__}

    # ---------------------------------------------------------------------------------------- helpers
    def _fail(self, finish: FinishReason, kind: ErrorKind, error: str) -> None:
        self.finish, self.error_kind, self.error = finish, kind, error

    async def _timed(self, kind: str, name: str | None, aw: Awaitable[Any], *, bounded: bool = True) -> Any:
        """Await ``aw`` as one timed step. ``bounded``: within the time the episode has left (its clock is the
        core's, :meth:`JobEnv.time_left_s`; TimeoutError past it). A tool step is not bounded here: the core
        applies the time limit itself (and must not be cut inside grading)."""
        start = time.monotonic()
        rec = StepTiming(kind=kind, name=name, start_s=round(start - self.t0, 6), duration_s=0.0)  # type: ignore[arg-type]
        self.steps.append(rec)
        try:
            clock = getattr(self.env, "time_left_s", None)  # a JobEnv's; a custom env may have none
            left = clock() if bounded and self.info and clock is not None else None
            if left is not None and left <= 0:
                if asyncio.iscoroutine(aw):
                    aw.close()  # never started: close it so it is not reported as never awaited
                raise TimeoutError
            return await (asyncio.wait_for(aw, left) if left is not None else aw)
        except BaseException:
            rec.ok = False
            raise
        finally:
            rec.duration_s = round(time.monotonic() - start, 6)

    # ---------------------------------------------------------------------------------------- phases
    async def _reset(self, reset_slots: asyncio.Semaphore | None) -> None:
        try:
            reset = self.env.areset(options={"task_id": self.task_id})
            if reset_slots is not None:
                async with reset_slots:
                    obs, info = await self._timed("reset", None, reset)
            else:
                obs, info = await self._timed("reset", None, reset)
            self.info = dict(info or {})
            self.tools = list(self.info.get("tool_schemas") or self.env.tool_schemas())
            system = self.cfg.system_prompt or self.info.get("system_prompt")
            if system:
                self.messages.append({"role": "system", "content": system})
            self.messages.append({"role": "user", "content": _text(obs)})
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - one episode's env failure must not stop the run
            self._fail(FinishReason.ENV_ERROR, ErrorKind.ENV, f"reset failed: {type(exc).__name__}: {exc}")

    async def _ask_policy(self) -> PolicyOutput | None:
        """One model call; None when it ended the episode (``finish`` is then set)."""
        try:
            out: PolicyOutput = await self._timed("model", self.policy_desc.get("model"), self.policy.act(self.messages, self.tools))
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            self.finish = FinishReason.TIME_LIMIT
            return None
        except ContextLengthError:
            self.finish = FinishReason.CONTEXT_LENGTH
            return None
        except Exception as exc:  # noqa: BLE001 - PolicyError or a broken custom policy
            self._fail(FinishReason.POLICY_ERROR, ErrorKind.POLICY, f"{type(exc).__name__}: {exc}")
            return None
        self.turns += 1
        rec = self.steps[-1]
        rec.prompt_tokens, rec.completion_tokens = out.prompt_tokens, out.completion_tokens
        u = self.usage
        u.prompt_tokens += out.prompt_tokens
        u.completion_tokens += out.completion_tokens
        u.total_tokens += out.prompt_tokens + out.completion_tokens
        u.model_calls += 1
        u.retries += out.retries
        if self.sampling is None:
            self.sampling = dict(out.sampling)
        tok = out.tokens
        completion = Completion(
            message_index=len(self.messages), finish_reason=out.finish_reason, prompt_tokens=out.prompt_tokens,
            completion_tokens=out.completion_tokens, token_ids=tok.token_ids if tok else None,
            logprobs=tok.logprobs if tok else None, tokens=tok.tokens if tok else None,
            prompt_token_ids=tok.prompt_token_ids if tok else None,
        )
        self.token_sequence = record_prompt(completion, self.token_sequence)
        self.completions.append(completion)
        return out

    async def _run_call(self, call: dict[str, Any]) -> None:
        """Execute one tool call and append its result (or why it did not run)."""
        call_id = call.get("id") or ""
        name = (call.get("function") or {}).get("name") or call.get("name")

        def answer(content: str) -> None:
            self.messages.append({"role": "tool", "tool_call_id": call_id, "content": content})

        if self.finish is not None:
            answer(f"Not executed: the episode ended ({self.finish}).")
            return
        try:
            obs, _reward, terminated, truncated, _info = await self._timed("tool", name, self.env.astep(call), bounded=False)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001
            self._fail(FinishReason.ENV_ERROR, ErrorKind.ENV, f"tool {name!r} failed: {type(exc).__name__}: {exc}")
            answer(f"Environment error: {exc}")
            return
        self.tool_calls += 1
        answer(_text(obs))
        if terminated or truncated:
            # the core ended the episode: its outcome is the episode's
            self.outcome = getattr(self.env, "last_outcome", None)
            self.submitted = bool(terminated)
            self.finish = self.outcome.finish_reason if self.outcome is not None else FinishReason.ENV_TRUNCATED

    async def _finish_here(self) -> None:
        """This loop (not a step) ended the episode before submit: the core ends it by the same rules."""
        finish = getattr(self.env, "afinish", None)
        if finish is None:
            return  # a custom env that cannot end an episode early: recorded as env_truncated, no credit
        ending = self.finish.ending() if self.finish is not None else None
        start = time.monotonic()
        self.outcome = await finish(ending or Ending.NO_TOOL_CALL)
        self.steps.append(StepTiming(kind="grade", name=str(ending), start_s=round(start - self.t0, 6),
                                     duration_s=round(time.monotonic() - start, 6),
                                     ok=self.outcome.status is not Status.ERROR))

    async def _loop(self) -> None:
        cfg = self.cfg
        nudges = 0
        while self.finish is None:
            if cfg.token_budget is not None and self.usage.completion_tokens >= cfg.token_budget:
                self.finish = FinishReason.TOKEN_BUDGET
                break
            out = await self._ask_policy()
            if out is None:
                break
            message = {**out.message, "role": "assistant"}
            self.messages.append(message)
            calls = list(message.get("tool_calls") or [])
            if not calls:
                if cfg.nudge is not None and nudges < cfg.max_nudges:
                    nudges += 1
                    self.messages.append({"role": "user", "content": cfg.nudge})
                    continue
                self.finish = FinishReason.NO_TOOL_CALL
                break
            nudges = 0
            for call in calls:
                await self._run_call(call)
            if self.finish is None and cfg.context_limit is not None and out.prompt_tokens + out.completion_tokens >= cfg.context_limit:
                self.finish = FinishReason.CONTEXT_LENGTH

    # ---------------------------------------------------------------------------------------- result
    def _verdict(self) -> tuple[str, float | None, bool | None]:
        """(status, reward, strict pass) from how the episode ended and its :class:`~jobenv.grading.Outcome`."""
        if self.error_kind is not None:
            return Status.ERROR, None, None
        v = scored(self.outcome, self.finish or FinishReason.ENV_TRUNCATED)
        self.report, self.error, self.error_kind, self.finish = v["report"], v["error"], v["error_kind"], v["finish_reason"]
        return v["status"], v["reward"], v["strict_pass"]

    def _trajectory(self) -> Trajectory:
        status, reward, strict = self._verdict()
        info = self.info
        vers = self.versions
        vers.setdefault("jobenv", jobenv_version())
        vers["judge"] = _judge_version(self.report) or vers.get("judge")
        for src in (info, self.report or {}):
            if src.get("dataset_revision") and not vers.get("dataset"):
                vers["dataset"] = str(src["dataset_revision"])
        tid = str(info.get("task_id") or self.task_id)
        return Trajectory(
            env_id=self.env_id or str(info.get("env_id") or ""),
            task_id=tid,
            split=info.get("split"),
            occupation=tid.split("/")[-2] if "/" in tid else None,
            attempt=self.attempt,
            model=self.policy_desc.get("model"),
            policy_id=policy_id(self.policy_desc),
            policy=self.policy.describe() if hasattr(self.policy, "describe") else self.policy_desc,  # now
            sampling=self.sampling or {},
            rules=self.cfg.rules.model_dump(mode="json"),
            config=self.cfg.model_dump(exclude={"rules"}),
            messages=self.messages,
            completions=self.completions,
            tools=self.tools,
            reward=reward,
            report=self.report,
            strict_pass=strict,
            status=status,  # type: ignore[arg-type]
            finish_reason=self.finish,  # type: ignore[arg-type]
            submitted=self.submitted,
            error=self.error,
            error_kind=self.error_kind,  # type: ignore[arg-type]
            num_tool_calls=self.tool_calls,
            num_turns=self.turns,
            steps=self.steps,
            usage=self.usage,
            versions=vers,
            started_at=self.started,
            finished_at=now_iso(),
            duration_s=round(time.monotonic() - self.t0, 6),
        )

    async def run(self, reset_slots: asyncio.Semaphore | None) -> Trajectory:
        await self._reset(reset_slots)
        await self._loop()
        if self.error_kind is None and self.outcome is None:
            await self._finish_here()
        return self._trajectory()


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
    ``reset_slots`` bounds how many episodes reset at once (see :func:`reset_gate`).
    """
    episode = _Episode(env, policy, task_id, attempt, env_id, config or RolloutConfig(), versions)
    return await episode.run(reset_slots)


def reset_gate(start_concurrency: int | None, env_kwargs: dict[str, Any]) -> asyncio.Semaphore:
    """The semaphore that bounds how many episodes on this event loop reset at once, held around their timed
    reset step (the others queue before it): ``start_concurrency``, or when None the figure of the sandbox
    backend in ``env_kwargs`` on this machine (:func:`jobenv.sandbox.start_slots`, the size of the backend's own
    start gate)."""
    from ..sandbox import start_slots

    return asyncio.Semaphore(start_concurrency or start_slots(env_kwargs.get("sandbox", "local")))
