"""NeMo Gym: jobenv's episodes as a NeMo Gym resources server, and the agent that keeps errored episodes out.

NeMo Gym (``pip install 'jobenv[nemo-gym]'``, Python >= 3.12) recommends, for Gymnasium-style environments, a
``GymnasiumServer`` resources server driven by its ``gymnasium_agent``; this module gives both:

* :class:`JobenvResourcesServer`: ``/reset`` starts a :class:`~jobenv.env.JobEnv` episode for the row's
  ``env_id`` and ``task_id`` and returns the task prompt (stating the episode's rules) as the first observation;
  ``/step`` runs every ``function_call`` of the model's response through the episode's tools and returns their
  outputs; the episode's end returns its reward with ``terminated`` / ``truncated`` and, in ``info``, ``status``,
  ``finish_reason`` and the scores. A reply without a tool call is answered with a nudge, as jobenv's rollouts do.
* :class:`JobenvGymnasiumAgent`: NeMo Gym's gymnasium agent, except that an episode that ended with
  ``status == "error"`` (a grading or sandbox failure, never the agent's doing) carries NeMo Gym's failure class
  ``transient``,
  so rollout collection writes it to the ``*_failures.jsonl`` sidecar (retried on resume, never trained on)
  instead of scoring it 0; and a server failing in the middle of a rollout (the policy's model server answering
  HTTP 500, say) fails that rollout the same way, its episode closed, instead of failing ``/run`` and with it the
  whole ``ng_collect_rollouts`` run.
* Aggregates: ``/aggregate_metrics`` (``mean/reward`` and the rest of ``*_aggregate_metrics.json``) leaves out every
  row carrying a failure class or ``status == "error"``, since NeMo Gym hands it the failed rows too.
* :func:`dataset_rows`: the rows of a NeMo Gym dataset (JSONL) for a jobenv split, tools in Responses format.

Failure behaviour: a bad row (unknown env or task) or a sandbox that cannot start fails ``/reset`` with HTTP 400
/ 503 naming the problem (a 400 still fails the run: it is configuration, found before any work); nothing raises
out of ``/step``: a broken call is an observation, as in the env.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ..errors import MissingExtraError

try:
    from aiohttp import ClientError, ClientResponseError
    from fastapi import FastAPI, HTTPException, Request
    from nemo_gym.base_resources_server import BaseResourcesServerConfig
    from nemo_gym.config_types import AggregateMetrics, AggregateMetricsRequest
    from nemo_gym.global_config import ROLLOUT_INDEX_KEY_NAME, TASK_INDEX_KEY_NAME
    from nemo_gym.openai_utils import NeMoGymResponse
    from pydantic import PrivateAttr
    from resources_servers.gymnasium import GymnasiumServer
    from resources_servers.gymnasium.base import EnvResetRequest
    from responses_api_agents.gymnasium_agent.app import GymnasiumAgent, GymnasiumAgentRunRequest, GymnasiumRunResponse
except ImportError:  # pragma: no cover - depends on the installation
    raise MissingExtraError("the NeMo Gym integration needs NeMo Gym (Python >= 3.12): "
                            "pip install 'jobenv[nemo-gym]'") from None

from ..episode import EpisodeRules, FinishReason, Status
from ..errors import JobenvError, SandboxError
from ..rollout.episode import DEFAULT_NUDGE

__all__ = ["JobenvResourcesServerConfig", "JobenvResourcesServer", "JobenvGymnasiumAgent", "dataset_rows",
           "FAILURE_CLASS_KEY", "responses_tools"]

#: the key NeMo Gym's rollout collection reads to route a result to its failures sidecar
FAILURE_CLASS_KEY = "_ng_failure_class"


def responses_tools(extra: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """jobenv's tool table (with the optional tools ``extra``) as Responses-API function tools (what a NeMo Gym
    row's ``tools`` holds)."""
    from ..tools import tool_schemas

    return [{"type": "function", "name": f["name"], "description": f["description"], "parameters": f["parameters"],
             "strict": False} for f in (s["function"] for s in tool_schemas(extra=extra))]


def dataset_rows(env_id: str, *, agent: str = "jobenv_agent", tasks: list[str] | None = None,
                 tools: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """One NeMo Gym dataset row per task of ``env_id`` (or of ``tasks``): no input of its own (the prompt comes
    from ``/reset``, so it states the server's rules), jobenv's tools (with the optional ``tools`` the server's
    rules enable), the row's ``env_id`` / ``task_id``, and ``agent_ref`` naming the agent server of the NeMo Gym
    config. Raises JobenvError for an unknown env or task."""
    from ..registry import load_tasks
    from ..tasks import select_tasks

    chosen = select_tasks(load_tasks(env_id), tasks, where=env_id)
    schemas = responses_tools(tools)
    return [{"responses_create_params": {"input": [], "tools": schemas}, "env_id": env_id, "task_id": t.id,
             "agent_ref": {"type": "responses_api_agents", "name": agent}} for t in chosen]


class JobenvResourcesServerConfig(BaseResourcesServerConfig):  # type: ignore[misc]
    """What the server's YAML entry can set besides NeMo Gym's own keys (all optional); ``rules`` are jobenv's
    own :class:`~jobenv.episode.EpisodeRules` (``max_steps``, ``time_limit_s``, ``on_truncate``, ``scoring``)."""

    sandbox: str = "local"
    sandbox_image: str | None = None
    judge: str = "auto"
    rules: EpisodeRules = EpisodeRules()


def _counted(row: dict[str, Any]) -> bool:
    """Whether a rollout row belongs in the aggregates: not a failure (NeMo Gym's class, or jobenv's error status)."""
    return row.get(FAILURE_CLASS_KEY) is None and (row.get("info") or {}).get("status") != Status.ERROR.value


def _rollout_key(metadata: dict[str, Any]) -> tuple[Any, ...]:
    """A rollout's identity in NeMo Gym's rows (its agent, task and repeat), the same at /reset and /close."""
    return ((metadata.get("agent_ref") or {}).get("name"), metadata.get(TASK_INDEX_KEY_NAME),
            metadata.get(ROLLOUT_INDEX_KEY_NAME), metadata.get("env_id"), metadata.get("task_id"))


class JobenvResourcesServer(GymnasiumServer):  # type: ignore[misc]
    """One jobenv episode per NeMo Gym session (see the module docstring). ``POST /close`` with a rollout's row
    ends that rollout's episode (the agent calls it when the rollout fails before the episode's end)."""

    config: JobenvResourcesServerConfig
    _rollouts: dict[tuple[Any, ...], str | None] = PrivateAttr(default_factory=dict)

    def setup_webserver(self) -> FastAPI:
        app = super().setup_webserver()
        app.post("/close")(self._close_endpoint)
        return app

    async def _close_endpoint(self, body: EnvResetRequest) -> dict[str, bool]:
        session_id = self._sessions_by_rollout().pop(_rollout_key(body.model_extra or {}), None)
        found = session_id is not None and session_id in self.session_state
        await self.close_session(session_id)
        return {"closed": found}

    def _sessions_by_rollout(self) -> dict[tuple[Any, ...], str | None]:
        return self._rollouts

    async def aggregate_metrics(self, body: AggregateMetricsRequest) -> AggregateMetrics:
        kept = [row for row in body.verify_responses if _counted(row)]
        return await super().aggregate_metrics(AggregateMetricsRequest(verify_responses=kept))

    async def reset(self, metadata: dict[str, Any], session_id: str | None = None) -> tuple[str | None, dict[str, Any]]:
        from ..registry import make

        env_id, task_id = metadata.get("env_id"), metadata.get("task_id")
        if not isinstance(env_id, str) or not isinstance(task_id, str):
            raise HTTPException(400, detail="a jobenv row needs string fields env_id and task_id")
        await self.close_session(session_id)
        cfg = self.config
        try:
            env = await asyncio.to_thread(make, env_id, sandbox=cfg.sandbox, sandbox_image=cfg.sandbox_image,
                                          judge=cfg.judge, rules=cfg.rules)
        except JobenvError as exc:
            raise HTTPException(400, detail=f"{type(exc).__name__}: {exc}") from None
        try:
            prompt, info = await env.areset(options={"task_id": task_id})
        except SandboxError as exc:
            await env.aclose()
            raise HTTPException(503, detail=f"the sandbox could not start: {exc}") from None
        except JobenvError as exc:
            await env.aclose()
            raise HTTPException(400, detail=f"{type(exc).__name__}: {exc}") from None
        self.session_state[session_id] = env
        self._sessions_by_rollout()[_rollout_key(metadata)] = session_id
        return prompt, {"task_id": info["task_id"], "max_steps": info["max_steps"], "status": Status.OK.value}

    async def step(self, action: Any, metadata: dict[str, Any],
                   session_id: str | None = None) -> tuple[str | None, float, bool, bool, dict[str, Any]]:
        env = self.session_state.get(session_id)
        if env is None:
            return "No episode is running: the rollout must reset first.", 0.0, False, True, {
                "status": Status.ERROR.value, "error": "step without reset"}
        calls = [item for item in action.output if getattr(item, "type", None) == "function_call"]
        if not calls:
            return DEFAULT_NUDGE, 0.0, False, False, {"status": Status.OK.value}
        outputs: list[dict[str, Any]] = []
        for call in calls:
            obs, reward, terminated, truncated, info = await env.astep({"name": call.name, "arguments": call.arguments})
            outputs.append({"call_id": call.call_id, "output": obs})  # the text as the env gives it, not JSON
            if terminated or truncated or info.get("episode_over"):
                # the ending as every front-end reports it (status, finish_reason, scores, error)
                ending = env.last_outcome.public() if env.last_outcome is not None else {"status": info["status"]}
                return None, float(reward), bool(terminated), bool(truncated), {
                    **ending, "task_id": info.get("task_id"), "tool_outputs": outputs}
        return None, 0.0, False, False, {"tool_outputs": outputs, "status": Status.OK.value}

    async def close_session(self, session_id: str | None) -> None:
        env = self.session_state.pop(session_id, None)
        if env is not None:
            await env.aclose()


class JobenvGymnasiumAgent(GymnasiumAgent):  # type: ignore[misc]
    """NeMo Gym's gymnasium agent; an errored episode is marked as a failure (see the module docstring)."""

    async def run(self, request: Request, body: GymnasiumAgentRunRequest) -> GymnasiumRunResponse:
        # the annotations are FastAPI's: they make ``/run`` read the request and its JSON body
        try:
            result = await super().run(request, body)
        except (ClientError, TimeoutError) as exc:
            url = str(getattr(getattr(exc, "request_info", None), "url", ""))
            if isinstance(exc, ClientResponseError) and exc.status == 400 and url.endswith("/reset"):
                raise  # a bad row or configuration: the run stops before any more work
            return await self._failed(body, exc)
        if (result.info or {}).get("status") == Status.ERROR.value:
            # NeMo Gym's class for a failure a retry may not repeat (kept in the sidecar, retried on resume)
            extra = {FAILURE_CLASS_KEY: "transient", "error": (result.info or {}).get("error")}
            result = GymnasiumRunResponse.model_validate({**result.model_dump(), **extra})
        return result

    async def _failed(self, body: GymnasiumAgentRunRequest, exc: BaseException) -> GymnasiumRunResponse:
        """A rollout a server failure cut short: its episode closed, the row a ``transient`` failure (no reward)."""
        status = getattr(exc, "status", None)
        url = str(getattr(getattr(exc, "request_info", None), "url", "")) or "a server"
        error = f"{url} failed" + (f" with HTTP {status}" if status else f": {type(exc).__name__}: {exc}")
        try:
            await self.server_client.post(server_name=self.config.resources_server.name, url_path="/close",
                                          json=body.model_dump())
        except Exception:  # noqa: BLE001 - the episode then ends with its resources server
            pass
        response = NeMoGymResponse(id=f"jobenv-failed-{time.time_ns()}", created_at=time.time(), model="",
                                   object="response", output=[], parallel_tool_calls=False, tool_choice="auto",
                                   tools=[])
        return GymnasiumRunResponse.model_validate({
            "responses_create_params": body.responses_create_params, "response": response, "reward": 0.0,
            "terminated": False, "truncated": True, FAILURE_CLASS_KEY: "transient", "error": error,
            "info": {"status": Status.ERROR.value, "finish_reason": FinishReason.POLICY_ERROR.value, "error": error,
                     "task_id": (body.model_extra or {}).get("task_id")}})
