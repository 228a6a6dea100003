"""Token-exact trajectories: the serving engine's own token ids, stitched into training sequences.

A policy asked for tokens (``OpenAIChatPolicy(tokens=True)``, ``jobenv rollout --tokens``) records, for every
assistant turn, the prompt ids the engine rendered with its chat template and the completion ids it sampled
(vLLM's ``return_token_ids``, or its ``/tokenize`` endpoint when the reply has no prompt ids). Each turn's
prompt normally extends the previous turn's prompt and completion: only the new ids (the tool results and
other environment text) are stored. A turn whose prompt does not (a chat template that rewrites history, such
as one dropping earlier reasoning) starts a new segment and keeps its full prompt.

:func:`token_segments` turns a trajectory back into sequences with a loss mask: 1 on tokens the model
produced, 0 on tokens the environment inserted. A trainer never re-tokenises.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict

from ..errors import JobenvError

__all__ = ["TokenSpan", "TokenSegment", "token_segments", "stitch", "record_prompt"]


class TurnTokens(Protocol):
    """What a turn (a :class:`~jobenv.rollout.trajectory.Completion`) holds of its tokens."""

    message_index: int
    token_ids: list[int] | None
    logprobs: list[float] | None
    prompt_token_ids: list[int] | None
    prompt_new_ids: list[int] | None


class Turns(Protocol):
    """What a trajectory holds of its turns."""

    episode_id: str

    @property
    def completions(self) -> Sequence[TurnTokens]: ...


class TokenSpan(BaseModel):
    """Tokens ``[start, end)`` of a segment, produced by the ``model`` or inserted by the ``env``, rendering
    ``messages[first_message:end_message]`` of the trajectory."""

    model_config = ConfigDict(extra="forbid")

    start: int
    end: int
    source: Literal["model", "env"]
    first_message: int
    end_message: int


class TokenSegment(BaseModel):
    """One training sequence: ``token_ids`` with a parallel ``loss_mask`` (1 where the model produced the
    token) and ``logprobs`` (the sampled token's log-probability where the engine returned it, else None)."""

    model_config = ConfigDict(extra="forbid")

    token_ids: list[int]
    loss_mask: list[int]
    logprobs: list[float | None]
    spans: list[TokenSpan]


def stitch(sequence: list[int] | None, prompt_ids: list[int]) -> list[int] | None:
    """The ids ``prompt_ids`` adds after ``sequence`` (the previous turn's prompt and completion), or None
    when it does not extend it (the turn then starts a new segment)."""
    if not sequence or len(prompt_ids) < len(sequence) or prompt_ids[:len(sequence)] != sequence:
        return None
    return prompt_ids[len(sequence):]


def token_segments(trajectory: Turns) -> list[TokenSegment]:
    """The trajectory's training sequences, in order (one when every turn extended the previous one).

    Raises :class:`~jobenv.errors.JobenvError` when the trajectory has no token ids (collected without
    ``tokens=True``) or a turn lacks its prompt or completion ids (the server sent neither and had no
    ``/tokenize``); the message says which turn.
    """
    segments: list[TokenSegment] = []
    current: TokenSegment | None = None
    end_message = 0  # messages rendered so far in the current segment
    if not trajectory.completions:
        raise JobenvError(f"episode {trajectory.episode_id} has no assistant turns, so no tokens")
    for n, c in enumerate(trajectory.completions):
        if c.token_ids is None or (c.prompt_token_ids is None and c.prompt_new_ids is None):
            raise JobenvError(f"episode {trajectory.episode_id}: turn {n} has no engine token ids (collect with "
                              "`jobenv rollout --tokens` from a server that returns them or has /tokenize)")
        if c.prompt_new_ids is not None and current is not None:
            _append(current, c.prompt_new_ids, None, "env", end_message, c.message_index)
        else:
            current = TokenSegment(token_ids=[], loss_mask=[], logprobs=[], spans=[])
            segments.append(current)
            _append(current, c.prompt_token_ids or [], None, "env", 0, c.message_index)
        logprobs = c.logprobs if c.logprobs is not None and len(c.logprobs) == len(c.token_ids) else None
        _append(current, c.token_ids, logprobs, "model", c.message_index, c.message_index + 1)
        end_message = c.message_index + 1
    return segments


def _append(seg: TokenSegment, ids: list[int], logprobs: list[float] | None, source: Literal["model", "env"],
            first: int, end: int) -> None:
    if not ids:
        return
    start = len(seg.token_ids)
    seg.token_ids.extend(ids)
    seg.loss_mask.extend([1 if source == "model" else 0] * len(ids))
    seg.logprobs.extend(logprobs if logprobs is not None else [None] * len(ids))
    seg.spans.append(TokenSpan(start=start, end=len(seg.token_ids), source=source, first_message=first, end_message=end))


def record_prompt(completion: TurnTokens, sequence: list[int] | None) -> list[int] | None:
    """Store a turn's prompt ids as new ids after ``sequence`` when they extend it (else in full), and return
    the sequence the next turn extends (None when this turn has no token ids)."""
    prompt = completion.prompt_token_ids
    if prompt is None or completion.token_ids is None:
        return None
    new = stitch(sequence, prompt)
    if new is not None:
        completion.prompt_new_ids, completion.prompt_token_ids = new, None
    return prompt + completion.token_ids
