"""Run inside a fresh NeMo Gym venv (not imported by pytest): NeMo Gym's own servers and rollout collection over
jobenv's resources server, as its ``ng_run`` wires them, without Ray.

Servers on loopback, each in its own process as ``ng_run`` starts them (NeMo Gym shares one HTTP client per process):
NeMo Gym's head server (serving the global config, a thread of the collecting process), its ``vllm_model``
model server (Responses API -> chat completions against the loopback policy given as argv[1]), two
:class:`JobenvResourcesServer` instances (``checks`` judge; and an ``llm`` judge whose endpoint is down, so every
grading errors) and a :class:`JobenvGymnasiumAgent` for each. The first agent's model server reaches the policy
through a proxy that answers HTTP 500 for the one task whose prompt holds argv[4] (a policy failing mid-run); the
second's reaches it directly. NeMo Gym's ``RolloutCollectionHelper`` then collects every sample task through both
agents, with its aggregation on. Prints one JSON line: the rollouts file's and the failures file's rows, and the
aggregate metrics file.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import threading
import time
from pathlib import Path

PORT_NAMES = ("head", "model", "resources", "broken", "agent", "broken_agent", "direct_model", "proxy")


def build_config(policy_url: str, free_ports: list[int]) -> dict:
    ports = dict(zip(PORT_NAMES, free_ports, strict=True))  # chosen by the test (tests.support.ports)
    server = {"host": "127.0.0.1"}
    model = {"entrypoint": "app.py", "api_key": "k", "model": "scripted", "return_token_id_information": False,
             "uses_reasoning_parser": False}
    return {
        "head_server": {**server, "port": ports["head"]},
        "dry_run": False,
        "policy_model": {"responses_api_models": {"vllm_model": {
            **server, **model, "port": ports["model"], "base_url": f"http://127.0.0.1:{ports['proxy']}/v1"}}},
        "direct_model": {"responses_api_models": {"vllm_model": {
            **server, **model, "port": ports["direct_model"], "base_url": policy_url}}},
        "jobenv_resources": {"resources_servers": {"jobenv": {
            **server, "port": ports["resources"], "entrypoint": "app.py", "domain": "other", "judge": "checks",
            "sandbox": "local", "rules": {"max_steps": 60}}}},
        "jobenv_broken": {"resources_servers": {"jobenv": {
            **server, "port": ports["broken"], "entrypoint": "app.py", "domain": "other", "judge": "llm",
            "sandbox": "local"}}},
        "jobenv_agent": {"responses_api_agents": {"gymnasium_agent": {
            **server, "port": ports["agent"], "entrypoint": "app.py", "max_steps": 60,
            "resources_server": {"type": "resources_servers", "name": "jobenv_resources"},
            "model_server": {"type": "responses_api_models", "name": "policy_model"}}}},
        "jobenv_broken_agent": {"responses_api_agents": {"gymnasium_agent": {
            **server, "port": ports["broken_agent"], "entrypoint": "app.py", "max_steps": 60,
            "resources_server": {"type": "resources_servers", "name": "jobenv_broken"},
            "model_server": {"type": "responses_api_models", "name": "direct_model"}}}},
    }


SERVERS = ("policy_model", "direct_model", "jobenv_resources", "jobenv_broken", "jobenv_agent", "jobenv_broken_agent")


def start_proxy(port: int, policy_url: str, marker: str) -> None:
    """The policy behind a proxy that answers HTTP 500 to every request whose body holds ``marker``."""
    import urllib.error
    import urllib.request
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Proxy(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if marker.encode() in body or json.dumps(marker)[1:-1].encode() in body:
                status, data = 500, b'{"error": {"message": "the policy failed", "type": "server_error"}}'
            else:
                req = urllib.request.Request(policy_url.rstrip("/") + self.path[len("/v1"):], data=body,
                                             headers={"Content-Type": "application/json"}, method="POST")
                try:
                    with urllib.request.urlopen(req, timeout=300) as resp:
                        status, data = resp.status, resp.read()
                except urllib.error.HTTPError as exc:
                    status, data = exc.code, exc.read()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    srv = ThreadingHTTPServer(("127.0.0.1", port), Proxy)
    threading.Thread(target=srv.serve_forever, daemon=True).start()


def serve_one(instance: str) -> None:
    """One NeMo Gym server in this process (as ng_run starts each in its own), on its configured port."""
    import uvicorn
    from nemo_gym.global_config import get_global_config_dict
    from nemo_gym.server_utils import ServerClient
    from responses_api_agents.gymnasium_agent.app import GymnasiumAgentConfig
    from responses_api_models.vllm_model.app import VLLMModel, VLLMModelConfig

    from jobenv.integrations.nemo_gym import JobenvGymnasiumAgent, JobenvResourcesServer, JobenvResourcesServerConfig

    config = get_global_config_dict()  # from NEMO_GYM_CONFIG_DICT, as every ng_run child reads it
    client = ServerClient(head_server_config=ServerClient.load_head_server_config(), global_config_dict=config)
    (kind,) = config[instance].values()
    ((name, values),) = kind.items()
    values = {**values, "name": instance}
    if instance.endswith("_model"):
        server = VLLMModel(config=VLLMModelConfig(**values), server_client=client)
    elif instance.endswith("_agent"):
        server = JobenvGymnasiumAgent(config=GymnasiumAgentConfig(**values), server_client=client)
    else:
        server = JobenvResourcesServer(config=JobenvResourcesServerConfig(**values), server_client=client)
    uvicorn.run(server.setup_webserver(), host=values["host"], port=values["port"], log_level="warning")


def wait_port(port: int, procs: list, deadline_s: float = 180) -> None:
    deadline = time.monotonic() + deadline_s
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            dead = [p.args for p in procs if p.poll() is not None]
            assert not dead and time.monotonic() < deadline, f"a server did not start: {dead}"
            time.sleep(0.1)


def main() -> None:
    import subprocess

    policy_url, work, free_ports, marker = sys.argv[1], Path(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4]
    config = build_config(policy_url, free_ports)
    start_proxy(dict(zip(PORT_NAMES, free_ports, strict=True))["proxy"], policy_url, marker)
    os.environ["NEMO_GYM_CONFIG_DICT"] = json.dumps(config)  # how ng_run hands every server the global config

    import uvicorn
    from nemo_gym.config_types import BaseServerConfig
    from nemo_gym.server_utils import HeadServer

    from jobenv.integrations.nemo_gym import dataset_rows

    head = BaseServerConfig(host="127.0.0.1", port=config["head_server"]["port"])
    head_server = uvicorn.Server(uvicorn.Config(HeadServer(config=head).setup_webserver(), host="127.0.0.1",
                                                port=head.port, log_level="warning"))
    threading.Thread(target=head_server.run, daemon=True).start()
    procs = [subprocess.Popen([sys.executable, __file__, "serve", name]) for name in SERVERS]
    try:
        for name in SERVERS:
            (kind,) = config[name].values()
            ((_, values),) = kind.items()
            wait_port(values["port"], procs)
        wait_port(head.port, procs)

        rows = (dataset_rows("jobenv/sample", agent="jobenv_agent")
                + dataset_rows("jobenv/sample", agent="jobenv_broken_agent"))
        data = work / "rows.jsonl"
        data.write_text("".join(json.dumps(r) + "\n" for r in rows))

        from nemo_gym.rollout_collection import RolloutCollectionConfig, RolloutCollectionHelper

        out = work / "rollouts.jsonl"
        collection = RolloutCollectionConfig(input_jsonl_fpath=str(data), output_jsonl_fpath=str(out),
                                             upload_rollouts_to_wandb=False, disable_aggregation=False,
                                             num_samples_in_parallel=4)
        asyncio.run(RolloutCollectionHelper().run_from_config(collection))
        failures = out.with_name(out.stem + "_failures.jsonl")
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(30)

    def read(path: Path) -> list[dict]:
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    def brief(r: dict) -> dict:
        info = r.get("info") or {}
        return {"agent": r["agent_ref"]["name"], "task_id": info.get("task_id"), "reward": r.get("reward"),
                "status": info.get("status"), "failure": r.get("_ng_failure_class"),
                "terminated": r.get("terminated"), "finish_reason": info.get("finish_reason"),
                "error": info.get("error")}

    metrics = out.with_stem(out.stem + "_aggregate_metrics").with_suffix(".json")
    aggregates = {e["agent_ref"]["name"]: e["agent_metrics"] for e in json.loads(metrics.read_text())}
    print(json.dumps({"rollouts": [brief(r) for r in read(out)], "failures": [brief(r) for r in read(failures)],
                      "aggregates": aggregates}))


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve_one(sys.argv[2])
    else:
        main()
