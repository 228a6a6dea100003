"""A small OpenAI-compatible chat-completions server on loopback, for tests.

It plays the judge or the policy: each POST to ``/v1/chat/completions`` is passed to ``handler(request)``
which returns a :class:`Reply` (or a plain string, taken as the assistant's text). The real ``openai``
client talks to it over HTTP; nothing is patched.

Like vLLM's OpenAI server, a request with ``"logprobs": true`` gets ``choices[0].logprobs.content`` (one
entry per token, with ``top_logprobs`` alternatives when asked), and ``"return_tokens_as_token_ids": true``
spells each token as ``token_id:<id>``. Tokens are :func:`fake_tokens` of the completion's text.

Like vLLM >= 0.10.2, ``"return_token_ids": true`` adds the rendered prompt's ids (``prompt_token_ids``) and
the completion's (``choices[0].token_ids``), and ``POST /tokenize`` (beside ``/v1``, as vLLM serves it)
renders messages and tools with :func:`template_ids`, a stand-in chat template. ``engine_ids=False`` plays
an older engine that ignores the field, ``tokenize=False`` one without ``/tokenize``, and
``rewrite_history=True`` a template that renders earlier assistant turns differently from how they were
sampled (as templates that drop old reasoning do), so later prompts do not extend earlier ones.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Reply", "OpenAIServer", "fake_tokens", "completion_text", "template_ids", "SPECIAL"]

_ids = itertools.count(1)


@dataclass
class Reply:
    """One response: assistant ``content`` and/or ``tool_calls``, or an HTTP error ``status``."""

    content: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    status: int = 200
    delay_s: float = 0.0
    raw_body: bytes | None = None  # sent as is (status kept), for garbage replies
    usage: dict[str, int] = field(default_factory=lambda: {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15})


def completion_text(message: dict[str, Any]) -> str:
    """The text a completion's tokens spell: its content, then each tool call's name and arguments."""
    parts = [message.get("content") or ""]
    for tc in message.get("tool_calls") or []:
        parts += [tc["function"]["name"], tc["function"]["arguments"]]
    return " ".join(p for p in parts if p)


def fake_tokens(text: str) -> list[tuple[int, str, float]]:
    """A deterministic stand-in tokenizer: (token id, token text, logprob) per whitespace-separated piece."""
    out = []
    for i, piece in enumerate(text.split()):
        tid = sum(piece.encode()) * 31 % 50_000 + len(piece)
        out.append((tid, piece, round(-0.05 * (1 + i % 7), 4)))
    return out


#: the stand-in template's special token ids
SPECIAL = {"system": 100_001, "user": 100_002, "assistant": 100_003, "tool": 100_004, "end": 100_005,
           "tools": 100_006, "rewritten": 100_007}


def template_ids(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, *,
                 add_generation_prompt: bool = True, rewrite_history: bool = False) -> list[int]:
    """A stand-in chat template rendered to ids: the tool names, then per message its role, its text's
    :func:`fake_tokens` and an end token; the assistant's role token last when a reply is asked for. An
    assistant turn renders as the tokens it was sampled as, so each prompt extends the previous one, unless
    ``rewrite_history`` marks every earlier assistant turn."""
    ids: list[int] = []
    if tools:
        names = " ".join(t["function"]["name"] for t in tools)
        ids += [SPECIAL["tools"], *(t for t, _, _ in fake_tokens(names)), SPECIAL["end"]]
    for m in messages:
        role = m.get("role", "user")
        text = completion_text(m) if role == "assistant" else (m.get("content") or "")
        ids.append(SPECIAL.get(role, SPECIAL["user"]))
        if role == "assistant" and rewrite_history:
            ids.append(SPECIAL["rewritten"])
        ids += [t for t, _, _ in fake_tokens(text if isinstance(text, str) else json.dumps(text))]
        ids.append(SPECIAL["end"])
    if add_generation_prompt:
        ids.append(SPECIAL["assistant"])
    return ids


Handler = Callable[[dict[str, Any]], "Reply | str"]


def _as_stream(payload: dict[str, Any], request: dict[str, Any]) -> bytes:
    """A chat completion as server-sent events (``stream: true``): one delta chunk, the finish chunk, the usage
    chunk when ``stream_options.include_usage`` asks for it, then ``[DONE]``."""
    message = payload["choices"][0]["message"]
    delta: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        delta["tool_calls"] = [{"index": i, **tc} for i, tc in enumerate(message["tool_calls"])]
    head = {k: payload[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    chunks = [
        head | {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        head | {"choices": [{"index": 0, "delta": {}, "finish_reason": payload["choices"][0]["finish_reason"]}]},
    ]
    if (request.get("stream_options") or {}).get("include_usage"):
        chunks.append(head | {"choices": [], "usage": payload["usage"]})
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


class OpenAIServer:
    """``with OpenAIServer(handler) as srv: OpenAI(base_url=srv.base_url, api_key="x")``.

    ``requests`` keeps every request body received, in order. ``models``: the models it serves (None: any);
    like OpenAI's and vLLM's servers it answers 404 for another one, both at ``GET /models/<id>`` and on a
    completion (which then never reaches ``handler``).
    """

    def __init__(self, handler: Handler, *, engine_ids: bool = True, tokenize: bool = True,
                 rewrite_history: bool = False, host: str = "127.0.0.1", models: list[str] | None = None) -> None:
        self.handler = handler
        self.models = models
        self.engine_ids, self.tokenize, self.rewrite_history = engine_ids, tokenize, rewrite_history
        self.tokenize_requests: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        outer = self

        class _H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                path = self.path.rstrip("/")
                if path.endswith("/models"):
                    listed = outer.models if outer.models is not None else ["test-model"]
                    self._send(200, json.dumps({"object": "list", "data": [{"id": m, "object": "model"}
                                                                           for m in listed]}).encode())
                elif "/models/" in path and outer.serves(path.rsplit("/models/", 1)[1]):
                    self._send(200, json.dumps({"id": path.rsplit("/models/", 1)[1], "object": "model",
                                                "owned_by": "test"}).encode())
                else:
                    self._send(404, b'{"error": {"message": "not found"}}')

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path.rstrip("/") == "/tokenize" and outer.tokenize:
                    with outer._lock:
                        outer.tokenize_requests.append(body)
                    ids = template_ids(body.get("messages") or [], body.get("tools"), rewrite_history=outer.rewrite_history,
                                       add_generation_prompt=body.get("add_generation_prompt", True))
                    self._send(200, json.dumps({"count": len(ids), "max_model_len": 32768, "tokens": ids}).encode())
                    return
                with outer._lock:
                    outer.requests.append(body)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, b'{"error": {"message": "not found"}}')
                    return
                if not outer.serves(str(body.get("model"))):
                    self._send(404, json.dumps({"error": {"message": f"The model `{body.get('model')}` does not "
                                                          "exist.", "type": "NotFoundError", "code": 404}}).encode())
                    return
                try:
                    reply = outer.handler(body)
                except Exception as exc:  # a broken test handler shows up as a 500, not a hang
                    reply = Reply(status=500, raw_body=json.dumps({"error": {"message": repr(exc)}}).encode())
                if isinstance(reply, str):
                    reply = Reply(content=reply)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.raw_body is not None:
                    self._send(reply.status, reply.raw_body)
                    return
                if reply.status != 200:
                    self._send(reply.status, json.dumps({"error": {"message": f"status {reply.status}", "type": "server_error"}}).encode())
                    return
                message: dict[str, Any] = {"role": "assistant", "content": reply.content}
                finish = "stop"
                if reply.tool_calls:
                    message["tool_calls"] = [
                        {
                            "id": tc.get("id") or f"call_{next(_ids)}",
                            "type": "function",
                            "function": {
                                "name": tc["name"],
                                "arguments": tc["arguments"] if isinstance(tc["arguments"], str) else json.dumps(tc["arguments"]),
                            },
                        }
                        for tc in reply.tool_calls
                    ]
                    finish = "tool_calls"
                choice: dict[str, Any] = {"index": 0, "message": message, "finish_reason": finish}
                if body.get("logprobs"):
                    as_ids = bool(body.get("return_tokens_as_token_ids"))
                    top = int(body.get("top_logprobs") or 0)

                    def entry(tid: int, tok: str, lp: float) -> dict[str, Any]:
                        text = f"token_id:{tid}" if as_ids else tok
                        return {"token": text, "logprob": lp, "bytes": list(tok.encode()),
                                "top_logprobs": [{"token": text, "logprob": lp, "bytes": list(tok.encode())}][:top]}

                    choice["logprobs"] = {"content": [entry(*t) for t in fake_tokens(completion_text(message))]}
                engine_ids = bool(body.get("return_token_ids")) and outer.engine_ids
                if engine_ids:
                    choice["token_ids"] = [t for t, _, _ in fake_tokens(completion_text(message))]
                payload = {
                    "id": f"chatcmpl-{next(_ids)}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body.get("model", "test-model"),
                    "choices": [choice],
                    "usage": reply.usage,
                }
                if engine_ids:
                    payload["prompt_token_ids"] = template_ids(body.get("messages") or [], body.get("tools"),
                                                               rewrite_history=outer.rewrite_history)
                if body.get("stream"):
                    self._send(200, _as_stream(payload, body), "text/event-stream")
                else:
                    self._send(200, json.dumps(payload).encode())

            def _send(self, status: int, data: bytes, content_type: str = "application/json") -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
                    pass

        class _Server(ThreadingHTTPServer):
            # the stdlib default listen backlog (5) drops connections when a judge opens 10 at once,
            # and the client's SYN retry then adds a second of latency
            request_queue_size = 128

        self._server = _Server((host, 0), _H)  # host: another address for clients in containers
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def serves(self, model: str) -> bool:
        return self.models is None or model in self.models

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def __enter__(self) -> OpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
