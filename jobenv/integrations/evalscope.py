"""evalscope: jobenv's splits as an evalscope benchmark (``datasets=["jobenv"]``), run by evalscope's agent loop.

``pip install 'jobenv[evalscope]'``, then import this module before ``evalscope.run_task`` (the import registers the
benchmark). Each sample is one jobenv episode:

* subsets: ``sample`` (bundled), ``main``, ``easy``, ``all`` (JobBench, after ``jobenv download``) and ``train``
  (JobTasks, or the generated stand-in); ``extra_params``: ``judge`` (``auto`` | ``checks`` | ``llm`` | ``agentic``, jobenv's
  judge, configured by the ``JOBENV_JUDGE_*`` variables), ``sandbox`` (``local`` | ``docker``), ``max_steps``,
  ``time_limit_s``;
* the prompt is the episode's own (the task's instructions with the episode's rules); the tools are jobenv's (one
  table, :mod:`jobenv.tools`), run in the episode's sandbox and counted against its step budget, except that
  evalscope's ``python_exec`` *is* jobenv's persistent ``python`` tool (local sandbox) and evalscope's own
  ``submit`` ends the loop;
* after the loop the episode is graded by jobenv: on ``submit``; an episode whose budget ran out was graded when it
  did; a loop that ended without ``submit`` ends as ``no_tool_call`` (``context_length`` when the model's context
  was full) under jobenv's rules (``on_truncate``);
* the score is jobenv's reward, reported as ``normalized_score`` (the primary metric; evalscope's name for a
  weighted rubric score in [0, 1]). An episode that ended with ``status == "error"``
  (a sandbox or grading failure, never the agent's doing) is scored with evalscope's ``ScoreStatus.EXCLUDED``: it
  drops out of the aggregate instead of counting as 0.

Failure behaviour: importing this module without evalscope raises MissingExtraError naming the install; a sandbox
that cannot start, an unknown subset or a broken split fails the sample (excluded, with the reason), never the run.
"""

from __future__ import annotations

import asyncio
import shlex
import threading
from typing import Any

from ..errors import MissingExtraError

try:
    from evalscope.api.agent import AgentEnvironment
    from evalscope.api.agent.types import ExecResult
    from evalscope.api.benchmark import BenchmarkMeta
    from evalscope.api.benchmark.adapters import AgentLoopAdapter
    from evalscope.api.dataset import DatasetDict, MemoryDataset, Sample
    from evalscope.api.messages import ChatMessageUser
    from evalscope.api.metric import Score
    from evalscope.api.registry import register_benchmark
    from evalscope.api.tool import ToolInfo
    from evalscope.api.tool.tool_info import ToolParams
    from evalscope.constants import ScoreStatus, ScoringPolicy, Tags
except ImportError:  # pragma: no cover - depends on the installation
    raise MissingExtraError("the evalscope integration needs evalscope: pip install 'jobenv[evalscope]'") from None

from ..episode import DEFAULT_MAX_STEPS, Ending, Status

__all__ = ["JobenvAdapter", "JobenvAgentEnvironment", "BENCHMARK", "SUBSETS", "PYTHON_EXEC"]

BENCHMARK = "jobenv"
#: evalscope subset -> jobenv env id
SUBSETS = {"sample": "jobenv/sample", "main": "jobbench/main", "easy": "jobbench/easy", "all": "jobbench/all",
           "train": "jobtasks/train"}
#: evalscope's python tool name, served by jobenv's persistent ``python`` tool
PYTHON_EXEC = "python_exec"
_RESULT_KEY = "jobenv"
#: the score's name: jobenv's reward is a weighted rubric score in [0, 1], evalscope's ``normalized_score``
_METRIC = "normalized_score"


def _tool_infos(python: bool) -> list[ToolInfo]:
    """jobenv's tools as evalscope ToolInfos (``python`` as ``python_exec``; ``submit`` left to evalscope)."""
    from ..tools import tool_schemas

    out = []
    for schema in tool_schemas(extra=("python",) if python else ()):
        f = schema["function"]
        if f["name"] == "submit":
            continue
        name = PYTHON_EXEC if f["name"] == "python" else f["name"]
        out.append(ToolInfo(name=name, description=f["description"], parameters=ToolParams.model_validate(f["parameters"])))
    return out


class JobenvAgentEnvironment(AgentEnvironment):  # type: ignore[misc]
    """One running jobenv episode behind evalscope's environment interface. Tool calls go through the episode (its
    budget, clock and tools); ``exec`` runs a command as one ``bash`` step. ``close`` does nothing: the adapter
    grades the episode after the loop, then closes it."""

    name = "jobenv"

    def __init__(self, env: Any, prompt: str, failure: str | None = None) -> None:
        self.env = env
        self.prompt = prompt
        self.failure = failure
        self._lock = threading.Lock()  # one step at a time: evalscope may run a turn's calls concurrently

    def _step(self, name: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        with self._lock:
            if self.failure is not None:
                return f"Infrastructure error: {self.failure}", {}
            observation, _, _, _, info = self.env.step({"name": name, "arguments": arguments})
            return observation, info

    async def call(self, name: str, arguments: dict[str, Any]) -> str:
        observation, _ = await asyncio.to_thread(self._step, name, arguments)
        return observation

    async def exec(self, cmd: list[str], *, cwd: str | None = None, input: str | None = None,
                   timeout: float | None = None, env: dict[str, str] | None = None) -> ExecResult:
        if input is not None or env:
            raise NotImplementedError("jobenv's sandbox runs commands through bash: no stdin or extra variables")
        command = shlex.join(cmd) if cwd is None else f"cd {shlex.quote(cwd)} && {shlex.join(cmd)}"
        args: dict[str, Any] = {"command": command}
        if timeout is not None:
            args["timeout"] = timeout
        observation, info = await asyncio.to_thread(self._step, "bash", args)
        code = info.get("exit_code")
        return ExecResult(returncode=int(code) if code is not None else (0 if info.get("ok") else 1), stdout=observation)

    async def close(self) -> None:
        return None


def _handler(jobenv_name: str) -> Any:
    async def run(call: Any, environment: Any) -> str:
        if not isinstance(environment, JobenvAgentEnvironment):
            raise PermissionError(f"{call.function.name!r} runs in a jobenv episode only")
        return await environment.call(jobenv_name, dict(call.function.arguments or {}))
    return run


@register_benchmark(
    BenchmarkMeta(
        name=BENCHMARK,
        pretty_name="jobenv",
        tags=[Tags.AGENT, Tags.MULTI_TURN],
        description="jobenv's professional-work episodes (JobBench, JobTasks and the bundled sample), graded by "
                    "jobenv; a grading or sandbox failure is excluded, not scored 0.",
        dataset_id="jobenv",
        subset_list=["sample"],
        default_subset="sample",
        eval_split="test",
        prompt_template="{question}",
        metric_list=["normalized_score"],
        primary_metric="normalized_score",
        extra_params={
            "judge": {"type": "str", "description": "jobenv judge: auto, checks or llm", "value": "auto",
                      "choices": ["auto", "checks", "llm", "agentic"]},
            "sandbox": {"type": "str", "description": "jobenv sandbox backend", "value": "local",
                        "choices": ["local", "docker"]},
            "max_steps": {"type": "int", "description": "tool calls per episode, submit included",
                          "value": DEFAULT_MAX_STEPS},
            "time_limit_s": {"type": "float | null", "description": "wall-clock seconds per episode",
                             "value": None},
        },
    )
)
class JobenvAdapter(AgentLoopAdapter):  # type: ignore[misc]
    """evalscope's agent loop over jobenv episodes (see the module docstring)."""

    scoring_policy = ScoringPolicy.RULE_DEFAULT
    strategy_name = "function_calling"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        params = self.extra_params or {}
        self._make_kwargs: dict[str, Any] = {
            "judge": params.get("judge") or "auto", "sandbox": params.get("sandbox") or "local",
            "max_steps": int(params.get("max_steps") or DEFAULT_MAX_STEPS), "time_limit_s": params.get("time_limit_s")}
        self._python = self._make_kwargs["sandbox"] == "local"
        if self._python:
            self._make_kwargs["tools"] = ("python",)
        # evalscope's loop outlasts jobenv's budget, so jobenv's own step budget ends (and grades) the episode
        self.max_steps = self._make_kwargs["max_steps"] + 1
        self._live: dict[int, JobenvAgentEnvironment] = {}
        self._live_lock = threading.Lock()

    # ---- data -----------------------------------------------------------------------------------------------
    def load(self) -> tuple[DatasetDict, None]:
        from ..registry import load_tasks

        tools = _tool_infos(self._python)
        datasets = {}
        for subset in self.subset_list:
            if subset not in SUBSETS:
                raise ValueError(f"jobenv subset {subset!r}: use one of {', '.join(SUBSETS)}")
            env_id = SUBSETS[subset]
            samples = [Sample(input=task.instructions, id=i, tools=tools, subset_key=subset,
                              metadata={"env_id": env_id, "task_id": task.id})
                       for i, task in enumerate(load_tasks(env_id))]
            datasets[subset] = MemoryDataset(samples, name=subset)
        return DatasetDict(datasets), None

    # ---- episode ----------------------------------------------------------------------------------------------
    def build_tools(self, sample: Any) -> dict[str, Any]:
        return {t.name: _handler("python" if t.name == PYTHON_EXEC else t.name) for t in sample.tools or []}

    def build_environment(self, sample: Any) -> JobenvAgentEnvironment:
        from ..registry import make

        env = None
        try:
            env = make(sample.metadata["env_id"], **self._make_kwargs)
            prompt, _ = env.reset(options={"task_id": sample.metadata["task_id"]})
            live = JobenvAgentEnvironment(env, prompt)
        except Exception as exc:  # noqa: BLE001 - an unstartable episode is this sample's failure, not the run's
            if env is not None:
                env.close()
            live = JobenvAgentEnvironment(None, str(sample.input), failure=f"{type(exc).__name__}: {exc}")
        with self._live_lock:
            self._live[id(sample)] = live
        return live

    def build_initial_messages(self, sample: Any) -> list[Any]:
        with self._live_lock:
            live = self._live.get(id(sample))
        return [ChatMessageUser(content=live.prompt if live is not None else str(sample.input))]

    def _on_inference(self, model: Any, sample: Any) -> Any:
        try:
            result = super()._on_inference(model, sample)
        finally:
            with self._live_lock:
                live = self._live.pop(id(sample), None)
        sample.metadata[_RESULT_KEY] = self._grade(live, result)
        return result

    @staticmethod
    def _grade(live: JobenvAgentEnvironment | None, result: Any) -> dict[str, Any]:
        """Grade the episode after the loop (see the module docstring) and close it; never raises."""
        if live is None or live.env is None:
            return {"status": Status.ERROR.value, "reward": None,
                    "error": (live.failure if live is not None else None) or "the episode did not start"}
        env = live.env
        try:
            outcome = env.last_outcome
            if outcome is None:
                if _submitted(result):
                    env.step({"name": "submit", "arguments": {}})
                    outcome = env.last_outcome
                else:
                    stop = getattr(getattr(result, "output", None), "stop_reason", None)
                    outcome = env.finish(Ending.CONTEXT_LENGTH if stop == "model_length" else Ending.NO_TOOL_CALL)
            public = outcome.public()
            return {"task_id": env.task.id if env.task else None, "status": public["status"],
                    "reward": public["reward"], "finish_reason": public.get("finish_reason"),
                    "error": public.get("error")}
        except Exception as exc:  # noqa: BLE001 - grading machinery failed: an error, never a score
            return {"status": Status.ERROR.value, "reward": None, "error": f"{type(exc).__name__}: {exc}"}
        finally:
            env.close()

    # ---- score ------------------------------------------------------------------------------------------------
    def match_score(self, original_prediction: str, filtered_prediction: str, reference: str,
                    task_state: Any) -> Score:
        res = (task_state.metadata or {}).get(_RESULT_KEY) or {}
        meta = {k: v for k, v in res.items() if v is not None}
        if res.get("status") != Status.OK.value or res.get("reward") is None:
            return Score(value={}, status=ScoreStatus.EXCLUDED, prediction=original_prediction,
                         explanation=f"jobenv episode error: {res.get('error') or 'no outcome'}", metadata=meta,
                         main_score_name=_METRIC)
        return Score(value={_METRIC: float(res["reward"])}, prediction=original_prediction, metadata=meta,
                     main_score_name=_METRIC)


def _submitted(result: Any) -> bool:
    """Whether evalscope's loop ended on a ``submit`` call (its last assistant message calls it)."""
    for message in reversed(getattr(result, "messages", None) or []):
        if getattr(message, "role", None) == "assistant":
            return any(c.function.name == "submit" for c in (getattr(message, "tool_calls", None) or []))
    return False
