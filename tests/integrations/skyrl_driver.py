"""Runs inside the SkyRL venv: SkyRL's own ``SkyRLGymGenerator`` machinery (as subclassed by
``jobenv.integrations.skyrl``) generates a batch against ``jobenv serve``, with SkyRL's ``RemoteInferenceClient``
speaking HTTP to a scripted token-in/token-out policy on loopback (vLLM's ``/inference/v1/generate``), and SkyRL's
``validate_generator_output`` and GRPO advantages applied to the result.

argv: task ids of the server's ``sample`` split, two samples each: the first plays the reference solution, the
second of the first task only answers without tool calls (nudged until ``max_turns``, a reward of 0 that is the
policy's), the second of every other task plays the solution too. Prints one JSON object: per entry its instance,
reward, loss-mask sum and length, stop reason and env metrics; the rollout metrics; the GRPO advantages' absolute
sum per instance over unmasked tokens.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from openreward import OpenReward
from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

import jobenv
from jobenv.demo import solution_actions
from jobenv.integrations.skyrl import ENV_ID, JobenvGymGenerator, register_env

CHATML = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
          "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def byte_tokenizer() -> PreTrainedTokenizerFast:
    """A real Hugging Face fast tokenizer: one token per byte (exact round trip) and ChatML specials."""
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    core = Tokenizer(models.BPE(vocab={ch: i for i, ch in enumerate(sorted(alphabet))}, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    core.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(tokenizer_object=core, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                  additional_special_tokens=["<|im_start|>"])
    tok.chat_template = CHATML
    return tok


def policy_server(tok: PreTrainedTokenizerFast, plans: dict[str, list[dict[str, Any]]]) -> ThreadingHTTPServer:
    """vLLM's token generate endpoint, scripted: the prompt's ``[jobenv plan KEY]`` picks the plan, the number of
    tool responses so far the step."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            if self.path.startswith("/inference/v1/generate"):
                text = tok.decode(body["token_ids"])
                key = text.split("[jobenv plan ", 1)[1].split("]", 1)[0]
                step = text.count("<tool_response>")
                plan = plans[key]
                reply = (f"<tool_call>{json.dumps(plan[step])}</tool_call>" if step < len(plan) else "Done.")
                ids = tok.encode(reply, add_special_tokens=False) + [tok.eos_token_id]
                payload: Any = {"choices": [{"token_ids": ids, "finish_reason": "stop",
                                             "logprobs": {"content": [{"logprob": -0.1} for _ in ids]}}]}
            else:  # /finish_session and the like
                payload = {}
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


async def main() -> None:
    import numpy as np
    import torch
    from skyrl.backends.skyrl_train.inference_servers.engine_utils import get_sampling_params_for_backend
    from skyrl.backends.skyrl_train.inference_servers.remote_inference_client import RemoteInferenceClient
    from skyrl.backends.skyrl_train.utils.ppo_utils import compute_advantages_and_returns
    from skyrl.train.config import AlgorithmConfig, GeneratorConfig, SkyRLGymConfig
    from skyrl.train.generators.base import TrajectoryID
    from skyrl.train.utils.trainer_utils import validate_generator_output

    wanted = sys.argv[1:]
    listing = OpenReward().environments.get(name="jobenv").list_tasks("sample")
    index = {t.task_spec["id"]: i for i, t in enumerate(listing)}
    tasks = {t.id: t for t in jobenv.load_tasks("jobenv/sample")}
    plans: dict[str, list[dict[str, Any]]] = {}
    for k, tid in enumerate(wanted):
        plans[f"{tid} 0"] = solution_actions(tasks[tid])
        plans[f"{tid} 1"] = [] if k == 0 else plans[f"{tid} 0"]

    tok = byte_tokenizer()
    policy = policy_server(tok, plans)
    url = f"http://127.0.0.1:{policy.server_address[1]}"
    client = RemoteInferenceClient(proxy_url=url, server_urls=[url], data_parallel_size=1, tokenizer=tok)
    register_env()
    cfg = GeneratorConfig(max_turns=max(map(len, plans.values())) + 3, max_input_length=2_000_000)
    generator = JobenvGymGenerator(generator_cfg=cfg, skyrl_gym_cfg=SkyRLGymConfig(max_env_workers=4),
                                   inference_engine_client=client, tokenizer=tok)
    system = 'Call one tool per reply as <tool_call>{"name": ..., "arguments": {...}}</tool_call>.'
    prompts, extras, ids = [], [], []
    for tid in wanted:
        for rep in range(2):
            prompts.append([{"role": "system", "content": system},
                            {"role": "user", "content": f"[jobenv plan {tid} {rep}] Do the task."}])
            extras.append({"env_name": "jobenv", "split": "sample", "task_index": index[tid]})
            ids.append(TrajectoryID(instance_id=tid, repetition_id=rep))
    batch = {"prompts": prompts, "env_classes": [ENV_ID] * len(prompts), "env_extras": extras,
             "trajectory_ids": ids,
             # as SkyRL's trainer passes them (its default asks for logprobs, which the policy returns)
             "sampling_params": get_sampling_params_for_backend("vllm", cfg.sampling_params)}
    out = await generator.generate(batch, disable_tqdm=True)
    validate_generator_output(len(prompts), out)

    # SkyRL's GRPO advantages over the batch: a masked group must give no signal
    length = max(len(r) for r in out["response_ids"])
    rewards = torch.zeros(len(prompts), length)
    mask = torch.zeros(len(prompts), length)
    for i, (r, m) in enumerate(zip(out["rewards"], out["loss_masks"])):
        rewards[i, :len(r)] = torch.tensor(r if isinstance(r, list) else [0.0] * (len(m) - 1) + [r])
        mask[i, :len(m)] = torch.tensor(m, dtype=torch.float)
    adv, _ = compute_advantages_and_returns(token_level_rewards=rewards, response_mask=mask,
                                            index=np.array([t.instance_id for t in ids]), adv_estimator="grpo",
                                            config=AlgorithmConfig())
    signal: dict[str, float] = {}
    for i, t in enumerate(ids):
        signal[t.instance_id] = signal.get(t.instance_id, 0.0) + float((adv[i].abs() * mask[i]).sum())
    entries = [{"instance": t.instance_id, "reward": float(sum(r) if isinstance(r, list) else r),
                "mask_sum": sum(m), "length": len(m), "stop_reason": s, "env_metrics": e}
               for t, r, m, s, e in zip(ids, out["rewards"], out["loss_masks"], out["stop_reasons"],
                                        out["env_metrics"])]
    print(json.dumps({"entries": entries, "signal": signal,
                      "rollout_metrics": {k: v for k, v in out["rollout_metrics"].items() if "jobenv" in k}}))
    await client.aclose()
    policy.shutdown()


if __name__ == "__main__":
    asyncio.run(main())
