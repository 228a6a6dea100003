"""The judge's endpoint checked before any work: at ``make()``, in ``collect``/``jobenv rollout`` and in
``jobenv calibrate``, one cheap request, so an unreachable endpoint, a rejected key or an unknown model fails
before the agent's work instead of as a grading error after it.

The request is the model's entry in the model list (``GET /models/<model>``); an endpoint that does not serve that
route (vLLM answers it 404 too) is asked a 1-token completion instead, whose 404 is what OpenAI-compatible servers
answer for an unknown model. A check that passed is remembered for the process (per endpoint, key and model), so
a vector of envs asks once. Opting out: the judge option ``check_endpoint=False`` or ``JOBENV_JUDGE_CHECK=0``.

Failure behaviour: :func:`check_endpoint` raises :class:`~jobenv.errors.JudgeConfigError` (one line naming the
endpoint, the model and the cause) for a connection failure or timeout, HTTP 401/403 and an unknown model; any
other answer (a rate limit, a server error, a 400 for the tiny request) shows an endpoint that is there and
passes: the judge's own retries and fail-closed errors take over from there.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any

from ..errors import JudgeConfigError

__all__ = ["check_endpoint", "checking_enabled", "CHECK_TIMEOUT_S"]

CHECK_TIMEOUT_S = 20.0
_passed: set[tuple[str, str, str]] = set()
_lock = threading.Lock()


def checking_enabled(option: bool | None) -> bool:
    """Whether to check: the option when given, else on unless ``JOBENV_JUDGE_CHECK=0``."""
    from .. import settings

    return option if option is not None else settings.get("JOBENV_JUDGE_CHECK") != "0"


def check_endpoint(base_url: str, api_key: str, model: str, *, who: str = "LLM judge",
                   timeout_s: float = CHECK_TIMEOUT_S) -> None:
    """Raise JudgeConfigError when ``model`` at ``base_url`` cannot be used with ``api_key`` (see the module)."""
    key = (base_url, hashlib.sha256(api_key.encode()).hexdigest(), model)
    with _lock:
        if key in _passed:
            return
    import openai

    where = f"the {who} at {base_url} (model {model!r})"
    fix = "check JOBENV_JUDGE_BASE_URL / _API_KEY / _MODEL, or pass check_endpoint=False (JOBENV_JUDGE_CHECK=0) to skip"
    client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout_s, max_retries=1)
    try:
        for ask in (_listed, _completes):
            try:
                if ask(client, model):
                    break
            except openai.APIConnectionError as exc:  # refused, DNS, timeout (APITimeoutError is one)
                cause = "timed out" if isinstance(exc, openai.APITimeoutError) else f"unreachable ({_first_line(exc)})"
                raise JudgeConfigError(f"{where} is {cause}: {fix}") from None
            except openai.APIStatusError as exc:
                if exc.status_code in (401, 403):
                    raise JudgeConfigError(f"{where} refused the API key (HTTP {exc.status_code}): {fix}") from None
                if exc.status_code == 404 and ask is _completes:
                    raise JudgeConfigError(f"{where}: the endpoint does not know the model (HTTP 404: "
                                           f"{_first_line(exc)}): {fix}") from None
                if ask is _completes:
                    break  # the endpoint answered about the request, not about the configuration
    finally:
        client.close()
    with _lock:
        _passed.add(key)


def _listed(client: Any, model: str) -> bool:
    """True when the model list has ``model``; False (ask otherwise) when that route gives no answer."""
    import openai

    try:
        return bool(client.models.retrieve(model).id)
    except openai.NotFoundError:
        return False
    except openai.APIStatusError as exc:
        if exc.status_code in (401, 403):
            raise
        return False


def _completes(client: Any, model: str) -> bool:
    client.chat.completions.create(model=model, messages=[{"role": "user", "content": "Reply with OK."}],
                                   max_completion_tokens=1, temperature=0)
    return True


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:160] if text else type(exc).__name__
