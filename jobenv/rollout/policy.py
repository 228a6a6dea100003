"""Policies: what turns the conversation so far into the next assistant message.

A :class:`Policy` maps OpenAI-format messages and the environment's tool schemas to one
:class:`PolicyOutput`. :class:`OpenAIChatPolicy` is one served behind an OpenAI-compatible chat-completions
endpoint (vLLM, SGLang, a hosted model). Failure behaviour: ``act`` raises :class:`PolicyError` when no usable
reply can be had, :class:`ContextLengthError` when the conversation no longer fits the model.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import json
import os
import re
import threading
import uuid
import warnings
from collections.abc import Iterator
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from ..errors import PolicyError

__all__ = ["PolicyError", "ContextLengthError", "TokenData", "PolicyOutput", "Policy", "OpenAIChatPolicy", "policy_id"]


class ContextLengthError(PolicyError):
    """The conversation no longer fits the model's context window; the episode ends as truncated."""


class TokenData(BaseModel):
    """Token-level data of one completion, as the server returned it (vLLM with ``logprobs`` and
    ``return_tokens_as_token_ids``). ``token_ids`` and ``logprobs`` run in parallel over the completion."""

    model_config = ConfigDict(extra="forbid")

    token_ids: list[int] | None = None
    logprobs: list[float] | None = None
    tokens: list[str] | None = None  # only when the server gave text tokens rather than ids
    prompt_token_ids: list[int] | None = None  # only when the server returns them (vLLM ``return_token_ids``)


class PolicyOutput(BaseModel):
    """One assistant reply: the OpenAI-format message plus what the call cost and what was asked."""

    model_config = ConfigDict(extra="forbid")

    message: dict[str, Any]  # {"role": "assistant", "content": ..., "tool_calls": [...]?}
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str | None = None
    finish_reason: str | None = None
    retries: int = 0
    sampling: dict[str, Any] = {}  # the request fields actually sent, besides messages and tools
    tokens: TokenData | None = None


@runtime_checkable
class Policy(Protocol):
    """Anything that maps (messages, tool schemas) to the next assistant message.

    ``act`` raises :class:`PolicyError` (or :class:`ContextLengthError`) when it cannot reply; any other
    exception is also caught by :func:`~jobenv.rollout.run_episode` and recorded as a policy error. A policy
    may also have ``describe() -> dict`` (its model and settings, recorded in every trajectory).
    """

    async def act(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> PolicyOutput: ...


# description keys that say where a policy is served, not what it is: left out of its identity
_TRANSPORT_KEYS = {"base_url", "dropped_fields"}  # where it is served, and what that server refused


def policy_id(description: dict[str, Any]) -> str:
    """A short stable id of a policy's model and settings (``describe()`` without where it is served).

    Trajectories are keyed by it, so two sampling configurations of one model never count as one run.
    """
    ident = {k: v for k, v in description.items() if k not in _TRANSPORT_KEYS}
    return hashlib.sha256(json.dumps(ident, sort_keys=True, default=str).encode()).hexdigest()[:12]


# keys the chat-completions API accepts in request messages; anything else (e.g. reasoning_content kept in the
# trajectory for training) is dropped before sending so strict servers do not reject the request
_REQUEST_KEYS = {"role", "content", "tool_calls", "tool_call_id", "name"}
_TOKEN_IDS_FIELD = "return_tokens_as_token_ids"  # vLLM: logprob tokens spelled as ids
_ENGINE_IDS_FIELD = "return_token_ids"  # vLLM >= 0.10.2: the prompt's and the completion's token ids
_TOKENIZE = "/tokenize"
_UNKNOWN_FIELD_MARKERS = ("unrecognized request argument", "extra inputs are not permitted", "unknown field",
                          "unexpected keyword", "additional properties")
_CONTEXT_MARKERS = ("context length", "context_length_exceeded", "maximum context", "too many tokens", "prompt is too long")
_TOKEN_ID = re.compile(r"^token_id:(-?\d+)$")
# SDK-style keys of ``sampling`` that are request options of the client, not body fields
_OPTION_KEYS = {"extra_headers": "headers", "extra_query": "params", "timeout": "timeout"}


# HTTP requests sent for the current ``act`` attempt (the client's own transport retries included)
_SENDS: contextvars.ContextVar[list[int]] = contextvars.ContextVar("jobenv_policy_sends")


async def _count_send(request: Any) -> None:
    counter = _SENDS.get(None)
    if counter is not None:
        counter[0] += 1


#: requests one HTTP client carries at once before the policy makes another (see ``OpenAIChatPolicy._client``)
CLIENT_SHARE = 8


class OpenAIChatPolicy:
    """A policy served behind an OpenAI-compatible chat-completions endpoint (vLLM, SGLang, a hosted model).

    Every call offers the tool schemas with ``tool_choice="auto"``. Transport retries (connection errors,
    timeouts, 408/409/429 and 5xx, honouring ``Retry-After``) are the ``openai`` client's, ``max_retries``
    times with its exponential backoff; a reply that carries no choice or cannot be parsed is asked again
    up to ``max_retries`` times by this class. Other 4xx errors are not retried. Exhausted retries raise
    :class:`PolicyError`; a context-length rejection raises :class:`ContextLengthError`.

    ``logprobs=True`` asks for the sampled tokens' log-probabilities and, unless ``token_ids=False``, for
    the tokens as ids (vLLM's ``return_tokens_as_token_ids``); they are stored per assistant turn.
    ``tokens=True`` (implies ``logprobs``) also asks the engine for the prompt's and the completion's token
    ids (vLLM's ``return_token_ids``); a reply without prompt ids is completed by the server's ``/tokenize``
    with the same messages and tools, so a trainer never re-tokenises (:mod:`jobenv.rollout.tokens`). An
    optional field the server refuses is dropped for the rest of the run with one warning and listed in
    ``describe()["dropped_fields"]``; a server without ``/tokenize`` is listed there as ``"/tokenize"``. ``sampling`` holds extra request fields
    (``seed``, ``stop``, ``extra_body``...). One client is kept per event loop, so the policy survives
    several ``asyncio.run`` calls.
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
        logprobs: bool = False,
        top_logprobs: int | None = None,
        token_ids: bool | None = None,
        tokens: bool = False,
        max_retries: int = 4,
        request_timeout_s: float = 600.0,
        **sampling: Any,
    ) -> None:
        if not model:
            raise PolicyError("OpenAIChatPolicy: a model name is required")
        self.model = model
        self.base_url = base_url
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY"
        self.temperature = temperature
        self.top_p = top_p
        self.max_tokens = max_tokens
        self.tokens = tokens
        self.logprobs = logprobs or tokens
        self.top_logprobs = top_logprobs
        self.token_ids = self.logprobs if token_ids is None else token_ids
        self.dropped: list[str] = []  # optional request fields the server refused, dropped for the rest of the run
        self.max_retries = max(0, int(max_retries))
        self.request_timeout_s = request_timeout_s
        self.sampling = sampling
        self._clients: dict[int, list[list[Any]]] = {}  # id(event loop) -> [[AsyncOpenAI, requests in flight]]
        self._lock = threading.Lock()
        self._ssl: Any = None  # set by _warm
        self._warm()

    def __getstate__(self) -> dict[str, Any]:
        # sent to other processes (Ray workers) without its live clients and lock; each process makes its own
        state = dict(self.__dict__)
        state["_clients"] = {}
        state["_ssl"] = None
        state.pop("_lock", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
        self._warm()

    def _warm(self) -> None:
        """What the first request would otherwise do on the event loop, done here (a policy is made before the
        loop's work starts): import the client (~1 s), load the CA certificates (~250 ms) and let the HTTP
        transport import its backends (~100 ms). Each is a stall of every episode when done on the loop."""
        import ssl

        import openai

        self._ssl = ssl.create_default_context()  # one TLS context for all clients
        openai.DefaultAsyncHttpxClient(verify=self._ssl)

    def _settings(self, *, configured: bool = False) -> dict[str, Any]:
        """The request fields sent with every call, besides model, messages and tools (``configured``: as the
        policy was made, before a server refused an optional one)."""
        d: dict[str, Any] = {}
        for k in ("temperature", "top_p", "max_tokens"):
            if getattr(self, k) is not None:
                d[k] = getattr(self, k)
        if self.logprobs:
            d["logprobs"] = True
            if self.top_logprobs is not None:
                d["top_logprobs"] = self.top_logprobs
        d.update(self.sampling)
        optional = {f: True for f in self._optional_fields() if configured or f not in self.dropped}
        if optional:
            d["extra_body"] = {**(d.get("extra_body") or {}), **optional}
        return d

    def _optional_fields(self) -> list[str]:
        """The optional engine fields this policy asks for (a server may refuse them)."""
        return [f for f, on in ((_TOKEN_IDS_FIELD, self.token_ids), (_ENGINE_IDS_FIELD, self.tokens)) if on]

    def describe(self) -> dict[str, Any]:
        """Model and sampling settings, recorded in every trajectory (headers are left out: they may hold keys)."""
        d: dict[str, Any] = {"kind": "openai-chat", "model": self.model, "base_url": self.base_url}
        d.update({k: v for k, v in self._settings(configured=True).items() if k != "extra_headers"})
        if self.dropped:
            d["dropped_fields"] = list(self.dropped)
        return d

    def _drop_refused_field(self, error: str) -> bool:
        """A 400 that names an optional field being sent (or refuses unknown fields while any is sent): stop
        sending it (them), say so once, and ask again. False when the error is about something else."""
        text = error.lower()
        sent = [f for f in self._optional_fields() if f not in self.dropped]
        named = [f for f in sent if f in text]
        refused = named or (sent if any(m in text for m in _UNKNOWN_FIELD_MARKERS) else [])
        if not refused:
            return False
        self.dropped.extend(refused)
        warnings.warn(f"the model endpoint refused the optional field(s) {', '.join(map(repr, refused))}; no longer "
                      "sent (completions keep their logprobs; token ids come from the reply where the server sends "
                      "them anyway, or from its /tokenize)", stacklevel=2)
        return True

    async def _tokenize(self, body: dict[str, Any], options: dict[str, Any]) -> list[int] | None:
        """The prompt ids of ``body`` from the server's ``/tokenize`` (vLLM's, beside ``/v1``, rendering the
        messages and tools with the engine's chat template). None, after one warning, when it has none."""
        if _TOKENIZE in self.dropped:
            return None
        import openai

        root = (self.base_url or "https://api.openai.com/v1").rstrip("/").removesuffix("/v1")
        ask: dict[str, Any] = {k: body[k] for k in ("model", "messages", "tools", "chat_template_kwargs") if k in body}
        ask["add_generation_prompt"] = True
        try:
            with self._client() as client:
                resp = await client.post(f"{root}{_TOKENIZE}", body=ask,
                                         options=options, cast_to=object)
            tokens = resp.get("tokens") if isinstance(resp, dict) else None
            if not isinstance(tokens, list):
                raise TypeError("the reply has no token list")
            return [int(t) for t in tokens]
        except (openai.NotFoundError, openai.BadRequestError, openai.UnprocessableEntityError, TypeError,
                ValueError) as exc:
            self.dropped.append(_TOKENIZE)
            warnings.warn(f"the model endpoint returned no prompt token ids and {root}{_TOKENIZE} gave none "
                          f"({type(exc).__name__}); turns are recorded without prompt ids", stacklevel=2)
            return None
        except openai.APIError as exc:
            raise PolicyError(f"the model endpoint's {_TOKENIZE} failed: {exc}") from exc

    @contextlib.contextmanager
    def _client(self) -> Iterator[Any]:
        """One of the running loop's clients, counted busy for the block.

        A client serves at most ``CLIENT_SHARE`` requests at once and more are made as concurrency grows:
        httpcore's connection pool scans every connection on each request and release (O(connections x
        requests)), which at hundreds of requests on one client stalls the event loop.
        """
        loop = asyncio.get_running_loop()
        with self._lock:
            pool = self._clients.get(id(loop))
            if pool is None:
                pool = []
                self._clients = {id(loop): pool}  # clients bound to finished loops are dropped
            slot = min(pool, key=lambda s: s[1], default=None)
            if slot is None or slot[1] >= CLIENT_SHARE:
                slot = [self._new_client(), 0]
                pool.append(slot)
            slot[1] += 1
        try:
            yield slot[0]
        finally:
            with self._lock:
                slot[1] -= 1

    def _new_client(self) -> Any:
        import openai

        http = openai.DefaultAsyncHttpxClient(verify=self._ssl, event_hooks={"request": [_count_send]})
        return openai.AsyncOpenAI(base_url=self.base_url, api_key=self.api_key, max_retries=self.max_retries,
                                  timeout=self.request_timeout_s, http_client=http)

    async def check(self) -> None:
        """Fail fast when the endpoint is unreachable or rejects the key (used by ``jobenv rollout``).

        A server without ``/models`` (404) passes; unreachable or 401/403 raises PolicyError.
        """
        import openai

        try:
            with self._client() as client:
                await client.with_options(max_retries=0).models.list()
        except openai.NotFoundError:
            return
        except openai.APIConnectionError as exc:
            raise PolicyError(f"cannot reach the model endpoint {self.base_url}: {exc}") from exc
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise PolicyError(f"the model endpoint {self.base_url} rejected the API key: {exc}") from exc
        except openai.APIError:
            return  # other odd answers: let the episodes find out, with retries

    def _request(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 settings: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The chat-completions body as sent on the wire, and the client's request options (headers, query,
        timeout) taken from the SDK-style keys of ``settings``."""
        body: dict[str, Any] = {"model": self.model,
                                "messages": [{k: v for k, v in m.items() if k in _REQUEST_KEYS} for m in messages]}
        options: dict[str, Any] = {}
        for k, v in settings.items():
            if k == "extra_body":
                body.update(v or {})
            elif k in _OPTION_KEYS:
                options[_OPTION_KEYS[k]] = v
            else:
                body[k] = v
        if tools:
            body["tools"] = tools
            body["tool_choice"] = "auto"
        return body, options

    async def _post(self, body: dict[str, Any], options: dict[str, Any], resent: list[int]) -> Any:
        """One chat-completions call: the decoded body; ``resent[0]`` counts the client's transport retries of
        it, whether it succeeds or not. The body is already wire JSON: posting it skips the SDK's per-call walk of the typed params
        (~20 ms of the event loop's time per call with jobenv's tool schemas); transport retries and errors are
        the client's as with ``chat.completions.create``."""
        sends = _SENDS.set([0])
        try:
            with self._client() as client:
                resp = await client.post("/chat/completions", body=body, options=options, cast_to=object)
        finally:
            resent[0] += max(0, _SENDS.get()[0] - 1)
            _SENDS.reset(sends)
        return resp

    async def act(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> PolicyOutput:
        import openai

        settings = self._settings()
        body, options = self._request(messages, tools, settings)
        sent = {k: v for k, v in settings.items() if k != "extra_headers"}
        resent = [0]
        problem = ""
        for attempt in range(self.max_retries + 1):
            if attempt:
                await asyncio.sleep(min(2.0, 0.1 * 2**attempt))
            try:
                try:
                    resp = await self._post(body, options, resent)
                except openai.BadRequestError as exc:
                    if not self._drop_refused_field(str(exc)):
                        raise
                    # asked again at once without the refused field (no attempt spent), and so for the rest of the run
                    settings = self._settings()
                    body, options = self._request(messages, tools, settings)
                    sent = {k: v for k, v in settings.items() if k != "extra_headers"}
                    resp = await self._post(body, options, resent)
                if not isinstance(resp, dict):
                    raise TypeError(f"the body is a JSON {type(resp).__name__}, not an object")
            except openai.BadRequestError as exc:
                if any(m in str(exc).lower() for m in _CONTEXT_MARKERS):
                    raise ContextLengthError(f"context length exceeded: {exc}") from exc
                raise PolicyError(f"the model endpoint rejected the request (400): {exc}") from exc
            except openai.APIStatusError as exc:
                again = exc.status_code in (408, 409, 429) or exc.status_code >= 500
                tries = f" after {self.max_retries + 1} attempts" if again else ""
                raise PolicyError(f"the model endpoint answered {exc.status_code}{tries}: {exc}") from exc
            except openai.APIConnectionError as exc:  # includes timeouts, after the client's retries
                raise PolicyError(f"cannot reach the model endpoint after {self.max_retries + 1} attempts: {exc}") from exc
            except (openai.APIError, ValueError, TypeError) as exc:  # a 200 whose body is not a completion
                problem = f"an unparseable reply ({type(exc).__name__}: {exc})"
                continue
            if resp.get("choices"):
                try:
                    out = _policy_output(resp, resent[0] + attempt, sent)
                except (KeyError, IndexError, ValueError, TypeError, AttributeError) as exc:
                    problem = f"an unparseable reply ({type(exc).__name__}: {exc})"
                    continue
                if self.tokens and (out.tokens is None or out.tokens.prompt_token_ids is None):
                    prompt_ids = await self._tokenize(body, options)
                    if prompt_ids is not None:
                        out.tokens = (out.tokens or TokenData()).model_copy(update={"prompt_token_ids": prompt_ids})
                return out
            problem = "a reply with no choices"
        raise PolicyError(f"the model endpoint returned {problem} {self.max_retries + 1} times")

    async def aclose(self) -> None:
        """Close the HTTP clients of the running loop (others are dropped with their loop)."""
        with self._lock:
            pool = self._clients.pop(id(asyncio.get_running_loop()), None) or []
        for client, _ in pool:
            await client.close()


def _token_data(choice: dict[str, Any], resp: dict[str, Any]) -> TokenData | None:
    content = (choice.get("logprobs") or {}).get("content") or []
    ids = choice.get("token_ids")
    prompt_ids = resp.get("prompt_token_ids")
    if not content and ids is None and prompt_ids is None:
        return None
    data = TokenData(prompt_token_ids=[int(i) for i in prompt_ids] if prompt_ids is not None else None)
    if content:
        data.logprobs = [float(c["logprob"]) for c in content]
        parsed = [_TOKEN_ID.match(c.get("token") or "") for c in content]
        if all(parsed):
            data.token_ids = [int(m.group(1)) for m in parsed if m]
        else:
            data.tokens = [c.get("token") for c in content]
    if ids is not None:
        data.token_ids = [int(i) for i in ids]
    return data


def _policy_output(resp: dict[str, Any], retries: int, sent: dict[str, Any]) -> PolicyOutput:
    """The reply of a chat-completions body; raises KeyError/TypeError/ValueError on a malformed one."""
    choice = resp["choices"][0]
    msg = choice["message"]
    content = msg.get("content")
    if content is not None and not isinstance(content, str):
        raise TypeError(f"message content is a {type(content).__name__}")
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if msg.get("reasoning_content"):
        message["reasoning_content"] = msg["reasoning_content"]
    if msg.get("tool_calls"):
        calls = []
        for tc in msg["tool_calls"]:
            fn = tc["function"]
            if not isinstance(fn.get("name"), str):
                raise TypeError("a tool call without a function name")
            args = fn.get("arguments")
            calls.append({
                # some servers omit ids; tool results must still point at their call
                "id": tc.get("id") or f"call_{uuid.uuid4().hex[:12]}",
                "type": "function",
                "function": {"name": fn["name"], "arguments": args if isinstance(args, str) and args else "{}"},
            })
        message["tool_calls"] = calls
    usage = resp.get("usage") or {}
    return PolicyOutput(
        message=message,
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
        model=resp.get("model") if isinstance(resp.get("model"), str) else None,
        finish_reason=choice.get("finish_reason"),
        retries=retries,
        sampling=sent,
        tokens=_token_data(choice, resp),
    )
