"""Policies: what turns the conversation so far into the next assistant message.

A :class:`Policy` maps OpenAI-format messages and the environment's tool schemas to one
:class:`PolicyOutput`. :class:`OpenAIChatPolicy` is one served behind an OpenAI-compatible chat-completions
endpoint (vLLM, SGLang, a hosted model). Failure behaviour: ``act`` raises :class:`PolicyError` when no usable
reply can be had, :class:`ContextLengthError` when the conversation no longer fits the model.
"""

from __future__ import annotations

import asyncio
import os
import random
import threading
import uuid
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from ..errors import PolicyError

__all__ = ["PolicyError", "ContextLengthError", "PolicyOutput", "Policy", "OpenAIChatPolicy"]


class ContextLengthError(PolicyError):
    """The conversation no longer fits the model's context window; the episode ends as truncated."""


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

    def __getstate__(self) -> dict[str, Any]:
        # sent to other processes (Ray workers) without its live clients and lock; each process makes its own
        state = dict(self.__dict__)
        state["_clients"] = {}
        state.pop("_lock", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
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


