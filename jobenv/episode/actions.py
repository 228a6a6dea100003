"""Reading an agent's action: any common tool-call format -> ``(tool name, arguments)`` or a helpful error."""

from __future__ import annotations

import json
from typing import Any

from ..tools import TOOL_NAMES

__all__ = ["parse_action"]

_ACTION_HELP = (
    'An action is one tool call: {"name": "<tool>", "arguments": {...}}, an OpenAI tool call '
    '({"type": "function", "function": {"name": ..., "arguments": "<JSON string>"}}), or such an object as a '
    f"JSON string. Tools: {', '.join(TOOL_NAMES)}."
)


def _field(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def parse_action(action: Any) -> tuple[str, dict[str, Any]] | str:
    """Turn an action in any accepted format into ``(tool name, arguments)``, or an error message.

    Accepted: ``{"name", "arguments"}`` (arguments a dict, a JSON string or absent); an OpenAI tool call
    object or dict (``function.name`` / ``function.arguments``); an Anthropic-style ``{"name", "input"}``;
    a chat message carrying exactly one ``tool_calls`` entry; a one-element list of any of these; or any of
    them as a JSON string. Never raises.
    """
    try:
        return _parse_action(action, depth=0)
    except Exception as exc:  # an odd object must not crash step()
        return f"Error: could not read the action ({type(exc).__name__}: {exc}). {_ACTION_HELP}"


def _parse_action(action: Any, depth: int) -> tuple[str, dict[str, Any]] | str:
    if depth > 3:
        return f"Error: the action is nested too deeply. {_ACTION_HELP}"
    if isinstance(action, (bytes, bytearray)):
        action = action.decode("utf-8", errors="replace")
    if isinstance(action, str):
        text = action.strip()
        if not text:
            return f"Error: the action is empty. {_ACTION_HELP}"
        try:
            decoded = json.loads(text)
        except json.JSONDecodeError as exc:
            return f"Error: the action is not valid JSON ({exc.msg} at position {exc.pos}). {_ACTION_HELP}"
        if isinstance(decoded, str):
            return f"Error: the action is a bare string, not a tool call. {_ACTION_HELP}"
        return _parse_action(decoded, depth + 1)
    if isinstance(action, (list, tuple)):
        if len(action) != 1:
            return f"Error: exactly one tool call per step is allowed; got {len(action)}. {_ACTION_HELP}"
        return _parse_action(action[0], depth + 1)
    if action is None:
        return f"Error: the action is empty (None). {_ACTION_HELP}"
    tool_calls = _field(action, "tool_calls")
    if tool_calls is not None and _field(action, "name") is None and _field(action, "function") is None:
        if not tool_calls:
            return f"Error: the message has no tool call. {_ACTION_HELP}"
        return _parse_action(list(tool_calls), depth + 1)
    fn = _field(action, "function")
    src = fn if fn is not None else action
    name = _field(src, "name")
    if not isinstance(name, str) or not name.strip():
        return f"Error: the action names no tool. {_ACTION_HELP}"
    args: Any = None
    for key in ("arguments", "input", "parameters", "args"):
        args = _field(src, key)
        if args is not None:
            break
    if isinstance(args, (bytes, bytearray)):
        args = args.decode("utf-8", errors="replace")
    if isinstance(args, str):
        if not args.strip():
            args = {}
        else:
            try:
                args = json.loads(args)
            except json.JSONDecodeError as exc:
                return (
                    f"Error: the arguments of {name} are not valid JSON ({exc.msg} at position {exc.pos}). "
                    "Send them as a JSON object."
                )
    if args is None:
        args = {}
    if hasattr(args, "model_dump") and not isinstance(args, dict):
        args = args.model_dump()
    if not isinstance(args, dict):
        return f"Error: the arguments of {name} must be a JSON object, got {type(args).__name__}."
    return name.strip(), args
