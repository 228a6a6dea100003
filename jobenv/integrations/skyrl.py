"""SkyRL: jobenv's hosted sessions as a SkyRL-Gym env, and a generator that keeps errored episodes out of training.

SkyRL's OpenReward example (``examples/train_integrations/openreward``) turns a missing reward into 0.0 and its
gym generator has no way to drop a rollout, so a grading or sandbox failure would be trained as a zero. This module
(``pip install 'jobenv[skyrl]'``) replaces the two pieces that decide that, and nothing else:

* :class:`JobenvOpenRewardEnv`: the same contract as the example's env (dataset rows from its ``prepare_tasks.py``:
  ``env_name``, ``split``, ``task_index``; ``<tool_call>`` JSON in the model's text; ``<tool_response>`` back),
  talking to ``jobenv serve`` through the ``openreward`` client configured by the ``OPENREWARD_*`` variables. An
  episode the server ends with ``status == "error"`` (``reward=None``), a session that cannot open and a call that
  fails in transport are *infrastructure errors*: the episode ends at once with reward 0.0 (SkyRL needs a number)
  and ``get_metrics()["jobenv_error"] == 1``. A reply without a tool call is answered with jobenv's nudge, as jobenv's
  own rollouts do; the episode ends on ``submit`` or after ``max_turns``.
* :class:`JobenvGymGenerator`: SkyRL's ``SkyRLGymGenerator``, except that after each batch every trajectory of a
  prompt group in which any trajectory had an infrastructure error is *masked*, as SkyRL's own Harbor generator
  masks failed trials: loss mask all 0, rewards 0.0 (so the group's GRPO advantages are 0 too) and stop reason
  ``"error"``. Masked entries contribute no gradient; ``rollout_metrics`` counts them
  (``generate/jobenv_error_trajectories``, ``generate/jobenv_masked_groups``).
* :func:`main`: SkyRL's OpenReward entry point with both swapped in (``python -m jobenv.integrations.skyrl
  <overrides>``, the same overrides as the example's ``run_openreward.sh``); the env is registered under the id the
  example's dataset rows name (``openreward``).

Failure behaviour: importing this module without SkyRL raises MissingExtraError naming the install; nothing raises
out of :meth:`JobenvOpenRewardEnv.step` or :meth:`~JobenvOpenRewardEnv.close`.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from ..extras import import_failure

try:
    import skyrl_gym
    from openreward import OpenReward
    from skyrl.train.generators.skyrl_gym_generator import SkyRLGymGenerator
    from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise import_failure("skyrl", "the SkyRL integration (Python >= 3.12: SkyRL 0.3, SkyRL-Gym 0.4, torch and the "
                         "openreward SDK)", exc) from None

from ..rollout.episode import DEFAULT_NUDGE

__all__ = ["JobenvOpenRewardEnv", "JobenvGymGenerator", "mask_errored_groups", "parse_tool_call", "register_env",
           "ENV_ID", "main"]

#: the env class SkyRL's OpenReward ``prepare_tasks.py`` writes into each dataset row
ENV_ID = "openreward"
_ERROR_METRIC = "jobenv_error"


def parse_tool_call(text: str) -> dict[str, Any] | None:
    """The first ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` of ``text``: None when there is none,
    ``{"error": why}`` when it is malformed, else ``{"name", "arguments"}``."""
    start = text.find("<tool_call>")
    if start < 0:
        return None
    body = text[start + len("<tool_call>"):]
    end = body.find("</tool_call>")
    body = (body[:end] if end >= 0 else body).strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        return {"error": f"the tool call is not JSON ({exc.msg} at character {exc.pos})"}
    if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not data["name"]:
        return {"error": 'the tool call needs {"name": <tool>, "arguments": {...}}'}
    args = data.get("arguments", {})
    if isinstance(args, str):  # some models double-encode the arguments
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            return {"error": "the tool call's arguments are not a JSON object"}
    if not isinstance(args, dict):
        return {"error": "the tool call's arguments are not a JSON object"}
    return {"name": data["name"], "arguments": args}


class JobenvOpenRewardEnv(BaseTextEnv):  # type: ignore[misc]
    """One hosted jobenv episode as a SkyRL-Gym text env (see the module docstring)."""

    def __init__(self, env_config: Any = None, extras: dict[str, Any] | None = None) -> None:
        super().__init__()
        extras = dict(extras or {})
        self.env_name = str(extras.get("env_name", "jobenv"))
        self.split = str(extras["split"])
        self.task_index = int(extras["task_index"])
        self.max_turns = int(extras.get("max_turns") or 100)
        self.error: str | None = None
        self.reward: float | None = None
        self.status: str | None = None
        self._client: Any = None
        self._context: Any = None
        self._session: Any = None

    def init(self, prompt: Any) -> tuple[Any, dict[str, Any]]:
        """Open the session; a failure is recorded (the first step ends the episode as an error), not raised."""
        if isinstance(prompt, str):  # a parquet row may hold the conversation as JSON text
            prompt = json.loads(prompt)
        try:
            self._client = OpenReward()
            handle = self._client.environments.get(name=self.env_name)
            self._context = handle.session(split=self.split, index=self.task_index)
            self._session = self._context.__enter__()
        except Exception as exc:  # noqa: BLE001 - any failure to open is the infrastructure's
            self._context = None
            self.error = f"session did not open: {type(exc).__name__}: {exc}"
        return prompt, {}

    def _out(self, text: str, reward: float, done: bool, **meta: Any) -> BaseTextEnvStepOutput:
        observations = [{"role": "user", "content": f"<tool_response>\n{text}\n</tool_response>"}] if text else []
        return BaseTextEnvStepOutput(observations=observations, reward=reward, done=done,
                                     metadata={"status": self.status, **meta})

    def _fail(self, why: str) -> BaseTextEnvStepOutput:
        self.error, self.status = why, "error"
        return self._out("", 0.0, True, error=why)

    def step(self, action: str) -> BaseTextEnvStepOutput:
        """Run the tool call in ``action`` on the server; never raises."""
        self.turns += 1
        if self.error is not None:
            return self._fail(self.error)
        last = self.turns >= self.max_turns
        call = parse_tool_call(action)
        if call is None:
            return self._out(DEFAULT_NUDGE, 0.0, last, nudged=True)
        if "error" in call:
            return self._out(f"Error: {call['error']}", 0.0, last, tool_call_error=call["error"])
        try:
            out = self._session.call_tool(tool_name=call["name"], input=call["arguments"])
            text = "".join(getattr(b, "text", "") for b in out.blocks if getattr(b, "type", "text") == "text")
            meta = dict(getattr(out, "metadata", None) or {})
        except Exception as exc:  # noqa: BLE001 - transport failures are the infrastructure's
            return self._fail(f"{call['name']} failed in transport: {type(exc).__name__}: {exc}")
        if not out.finished:
            return self._out(text, 0.0, last, tool=call["name"])
        if out.reward is None or meta.get("status") == "error":
            return self._fail(str(meta.get("error") or meta.get("error_kind") or "the episode ended without a reward"))
        self.reward, self.status = float(out.reward), str(meta.get("status", "ok"))
        return self._out(text, self.reward, True, tool=call["name"], finish_reason=meta.get("finish_reason"))

    def close(self) -> None:
        """Close the session and the client; never raises."""
        context, client = self._context, self._client
        self._context = self._session = self._client = None
        for closer in (lambda: context.__exit__(None, None, None) if context is not None else None,
                       lambda: client.close() if client is not None and hasattr(client, "close") else None):
            try:
                closer()
            except Exception:  # noqa: BLE001 - closing is best effort
                pass

    def get_metrics(self) -> dict[str, Any]:
        return {"turns": self.turns, "reward": self.reward or 0.0, _ERROR_METRIC: int(self.error is not None)}


def mask_errored_groups(output: dict[str, Any], trajectory_ids: list[Any] | None) -> tuple[int, int]:
    """Mask, in place, every entry of SkyRL generator ``output`` whose prompt group (``instance_id`` of
    ``trajectory_ids``, aligned with the entries) holds an entry with ``env_metrics[i]["jobenv_error"]``: loss mask
    all 0, rewards 0.0 in their shape, stop reason ``"error"``. Without ids each errored entry is its own group.
    Returns (errored entries, masked groups)."""
    metrics = output.get("env_metrics") or [{}] * len(output["response_ids"])
    errored = [i for i, m in enumerate(metrics) if (m or {}).get(_ERROR_METRIC)]
    if not errored:
        return 0, 0

    def group(i: int) -> Any:
        return getattr(trajectory_ids[i], "instance_id", trajectory_ids[i]) if trajectory_ids else ("entry", i)

    groups = {group(i) for i in errored}
    for i in range(len(output["response_ids"])):
        if group(i) not in groups:
            continue
        output["loss_masks"][i] = [0] * len(output["loss_masks"][i])
        reward = output["rewards"][i]
        output["rewards"][i] = [0.0] * len(reward) if isinstance(reward, list) else 0.0
        output["stop_reasons"][i] = "error"
    return len(errored), len(groups)


class JobenvGymGenerator(SkyRLGymGenerator):  # type: ignore[misc]
    """SkyRL's gym generator that masks the prompt groups of errored episodes (see :func:`mask_errored_groups`)."""

    async def generate(self, input_batch: Any, disable_tqdm: bool = False) -> Any:
        output = await super().generate(input_batch, disable_tqdm=disable_tqdm)
        ids = output.get("trajectory_ids") or input_batch.get("trajectory_ids")
        errored, groups = mask_errored_groups(output, ids)
        metrics = output.setdefault("rollout_metrics", {}) or {}
        metrics.update({"generate/jobenv_error_trajectories": errored, "generate/jobenv_masked_groups": groups})
        output["rollout_metrics"] = metrics
        return output


def register_env(env_id: str = ENV_ID) -> None:
    """Register :class:`JobenvOpenRewardEnv` with SkyRL-Gym under ``env_id`` (the example's rows name
    ``openreward``)."""
    skyrl_gym.envs.register(id=env_id, entry_point=f"{__name__}:JobenvOpenRewardEnv")


def main(argv: list[str] | None = None) -> None:  # pragma: no cover - a training run needs GPUs
    """SkyRL's OpenReward training entry point with :class:`JobenvOpenRewardEnv` and :class:`JobenvGymGenerator`."""
    import ray
    from skyrl.train.config import SkyRLTrainConfig
    from skyrl.train.entrypoints.main_base import BasePPOExp, validate_cfg
    from skyrl.train.utils import initialize_ray

    class JobenvPPOExp(BasePPOExp):  # type: ignore[misc]
        def get_generator(self, cfg: Any, tokenizer: Any, inference_engine_client: Any) -> Any:
            from skyrl.backends.skyrl_train.inference_servers.utils import resolve_policy_model_name

            return JobenvGymGenerator(generator_cfg=cfg.generator, skyrl_gym_cfg=cfg.environment.skyrl_gym,
                                      inference_engine_client=inference_engine_client, tokenizer=tokenizer,
                                      policy_model_name=resolve_policy_model_name(cfg))

    # the workers need the client's variables; Ray does not carry the driver's environment over
    variables = {k: v for k, v in os.environ.items() if k.startswith("OPENREWARD_")}

    @ray.remote(num_cpus=1)  # type: ignore[untyped-decorator]
    def entrypoint(cfg: Any, env: dict[str, str]) -> None:
        os.environ.update(env)
        register_env()
        JobenvPPOExp(cfg).run()

    cfg = SkyRLTrainConfig.from_cli_overrides(sys.argv[1:] if argv is None else argv)
    validate_cfg(cfg)
    initialize_ray(cfg)
    ray.get(entrypoint.remote(cfg, variables))


if __name__ == "__main__":  # pragma: no cover
    main()
