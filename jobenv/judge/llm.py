"""The LLM rubric judge: one chat-completions call per rubric through the ``openai`` client.

Configuration comes from constructor arguments or ``JOBENV_JUDGE_BASE_URL``, ``JOBENV_JUDGE_API_KEY`` and
``JOBENV_JUDGE_MODEL``. Calls follow the official judge: temperature 0, ``max_completion_tokens`` 200,000
(configurable, None sends none), a per-call timeout, ``attempts`` tries with backoff, ``concurrency``
rubrics at once. Rubrics whose text or criteria use one of the official visual words (plot, figure,
histogram, diagram, ...) also get up to 8 deliverable images.

Fail-closed, and exactly as strict as the official Harbor verifier: a rubric is judged only from a
reply that parses (the official recovery steps, recorded under their official names) and validates (one
object per criterion with a JSON boolean ``passed``, a boolean ``rubric_passed``, a string
``overall_reasoning``). Both verdicts are kept: the one recomputed from the criteria (``passed``, the
default reward) and the judge's own ``rubric_passed`` (``official_passed``, what the official judge
credits). If any rubric cannot be judged after all attempts the report's status is "error" and its
error names the rubric and the reason. ``grade`` never raises.

The deliverable text (and the names of attached images) is fenced between marker lines derived from a
hash of that content (unguessable from inside it, and stable so the verdict cache works) and the judge
is told to treat it as data; the prompt text lives in ``jobenv/judge/prompts/``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import string
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

from ..errors import JudgeConfigError, ReplyError
from ..extract import TOTAL_CAP, Extraction, ExtractMode, ImageRef, is_visual_rubric, select_images
from ..extract.service import extraction_service
from .base import Judge, empty_output_report, rejected_report
from .config import CONFIG_HINT, DEFAULT_MAX_COMPLETION_TOKENS, ENV_API_KEY, ENV_BASE_URL, ENV_MODEL, JudgeConfig
from .endpoint import CHECK_TIMEOUT_S, check_endpoint, checking_enabled
from .report import CriterionResult, GradeReport, RubricResult, Usage, build_report

__all__ = [
    "ENV_BASE_URL",
    "ENV_API_KEY",
    "ENV_MODEL",
    "LLMJudge",
    "VerdictCache",
    "ReplyError",
    "build_messages",
    "parse_reply",
    "validate_reply",
    "strip_trailing_commas",
    "PARSE_STEPS",
    "DEFAULT_MAX_COMPLETION_TOKENS",
    "llm_config_from_env",
    "default_cache_dir",
]

CACHE_SCHEMA_VERSION = 2


def llm_config_from_env(
    base_url: str | None = None, api_key: str | None = None, model: str | None = None
) -> tuple[str | None, str | None, str | None]:
    cfg = JudgeConfig.from_env(base_url=base_url, api_key=api_key, model=model)
    return cfg.base_url, cfg.api_key, cfg.model


def default_cache_dir() -> Path:
    from .. import settings

    return settings.cache_dir() / "judge"


# ---------------------------------------------------------------------------------------------- prompt

_PROMPTS = Path(__file__).resolve().parent / "prompts"


def _prompt(name: str) -> string.Template:
    return string.Template((_PROMPTS / name).read_text(encoding="utf-8"))


def _marker(text: str) -> str:
    base = "DELIVERABLES-" + hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:24].upper()
    marker, k = base, 0
    while marker in text:  # practically impossible; keeps the fence unique all the same
        k += 1
        marker = f"{base}-{k}"
    return marker


def build_messages(
    rubric_text: str, criteria: list[str], deliverables: str, images: list[ImageRef] | None = None
) -> list[dict[str, Any]]:
    """The chat messages of one rubric call, in the official prompt's order (rubric, criteria labelled
    ``Criterion <i>`` from 0, deliverables, rules, answer format) in jobenv's own wording.

    Everything the agent controls - the deliverable text and the source names of attached images - sits
    inside a fence whose marker is derived from that content (so it cannot be guessed from inside it);
    outside the fence images are referred to by number only. The prompt text lives in
    ``jobenv/judge/prompts/``.
    """
    images = images or []
    fenced = deliverables.rstrip("\n")
    if images:
        listing = "\n".join(f"image {i}: {img.source}" for i, img in enumerate(images, 1))
        fenced += f"\n\n[attached images, numbered in the order they follow this prompt]\n{listing}"
    marker = _marker(fenced)
    n = len(criteria)
    text = _prompt("rubric.txt").substitute(
        rubric=rubric_text,
        n=n,
        last=n - 1,
        criteria="\n".join(f"Criterion {i}: {c}" for i, c in enumerate(criteria)),
        marker=marker,
        deliverables=fenced,
        image_note=f" {len(images)} image(s) from the deliverables follow this text." if images else "",
        evidence_images=" and the attached images" if images else "",
    )
    content: Any = text
    if images:
        content = [{"type": "text", "text": text},
                   {"type": "text", "text": _prompt("images.txt").substitute(count=len(images)).rstrip("\n")}]
        for i, img in enumerate(images, 1):
            content.append({"type": "text", "text": f"Image {i}"})
            content.append({"type": "image_url", "image_url": {"url": img.data_url}})
    system = (_PROMPTS / "system.txt").read_text(encoding="utf-8").strip()
    return [{"role": "system", "content": system}, {"role": "user", "content": content}]


# ---------------------------------------------------------------------------------------------- parsing
# Recovery steps and their names are those of the official judge, so a reply parses here exactly when it
# parses there (and the Harbor verifier accepts its recorded step).

_FENCE_RE = re.compile(r"```(?:json)?\s*\n(.*?)\n\s*```", re.DOTALL)
_OBJECT_RE = re.compile(r'\{.*?"criteria_results"\s*:\s*\[.*?\].*?\}', re.DOTALL)
PARSE_STEPS = ("direct_json", "markdown_fence", "first_last_brace", "regex_extract")
_JSON_SPACE = " \t\r\n"


def strip_trailing_commas(text: str) -> str:
    """Drop each comma that closes a container (next non-space is ``]``/``}``) and follows a value (the
    previous non-space is not ``[``, ``{``, ``,`` or ``:``), outside JSON strings only. So ``[1,]`` is
    repaired while ``[,]``, ``{,}`` and ``[1,,]`` stay invalid and ``",]"`` inside a string is kept."""

    def neighbour(i: int, step: int) -> str:
        while 0 <= i < len(text) and text[i] in _JSON_SPACE:
            i += step
        return text[i] if 0 <= i < len(text) else ""

    kept: list[str] = []
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            escaped, in_string = (False, True) if escaped else (ch == "\\", ch != '"')
        elif ch == '"':
            in_string = True
        elif ch == "," and neighbour(i + 1, 1) in ("]", "}") and neighbour(i - 1, -1) not in ("", "[", "{", ",", ":"):
            continue
        kept.append(ch)
    return "".join(kept)


def parse_reply(content: str) -> tuple[Any, str]:
    """Recover the JSON value of a judge reply: (value, step name).

    Steps, first success wins: ``direct_json`` (the whole reply), ``markdown_fence`` (the first fenced
    block), ``first_last_brace``, ``regex_extract`` (objects holding ``"criteria_results": [...]``, last
    first); then each of those candidates again with trailing commas removed (``<step>_trailing_commas``).
    Raises ReplyError when nothing parses. The value may be any JSON; :func:`validate_reply` checks it.
    """
    text = (content or "").strip()
    if not text:
        raise ReplyError("empty reply")
    candidates: list[tuple[str, str]] = [(text, "direct_json")]
    fence = _FENCE_RE.search(text)
    if fence:
        candidates.append((fence.group(1).strip(), "markdown_fence"))
    a, b = text.find("{"), text.rfind("}")
    if a != -1 and b > a:
        candidates.append((text[a : b + 1], "first_last_brace"))
    candidates += [(m, "regex_extract") for m in reversed(_OBJECT_RE.findall(text))]
    for candidate, step in candidates:
        try:
            return json.loads(candidate), step
        except (ValueError, RecursionError):
            continue
    for candidate, step in candidates:
        repaired = strip_trailing_commas(candidate)
        if repaired == candidate:
            continue
        try:
            return json.loads(repaired), f"{step}_trailing_commas"
        except (ValueError, RecursionError):
            continue
    raise ReplyError("no JSON found in the reply: " + text[:120].replace("\n", " "))


def _as_text(v: Any) -> str:
    if v is None:
        return ""
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def _index_of(item: dict[str, Any]) -> int | None:
    idx = item.get("index")
    if isinstance(idx, bool):
        return None
    if isinstance(idx, int):
        return idx
    if isinstance(idx, str) and idx.strip().isdigit():
        return int(idx.strip())
    return None


def validate_reply(obj: Any, criteria: list[str]) -> tuple[list[CriterionResult], bool, str, Literal["index", "position"]]:
    """Validate a recovered reply as the Harbor verifier does: (criterion results in criterion order, the
    judge's ``rubric_passed``, ``overall_reasoning``, how items were matched: "index" or "position").

    Raises ReplyError unless the value is an object whose ``criteria_results`` is a list of exactly one
    object per criterion, each with a JSON boolean ``passed``, with a boolean ``rubric_passed`` and a
    string ``overall_reasoning``. Items carrying ``index`` (an integer or a digit string) are matched by it,
    and their indices must be exactly the criteria asked, 0..n-1 in any order: a reply with a missing,
    repeated or unknown index is invalid (ReplyError), never credited by position. Only a reply whose items
    carry no ``index`` at all is read by position, as the official judge reads every reply.
    """
    if not isinstance(obj, dict):
        raise ReplyError(f"the reply is a JSON {type(obj).__name__}, not an object")
    n = len(criteria)
    items = obj.get("criteria_results")
    if not isinstance(items, list):
        raise ReplyError("criteria_results is missing or not a list" + (
            f" (top-level keys: {', '.join(sorted(map(str, obj))[:5])})" if obj else ""))
    if len(items) != n:
        raise ReplyError(f"criteria_results has {len(items)} items, expected {n}")
    for k, item in enumerate(items):
        if not isinstance(item, dict):
            raise ReplyError(f"criteria_results[{k}] is not an object")
        if not isinstance(item.get("passed"), bool):
            raise ReplyError(f"criteria_results[{k}].passed is {item.get('passed')!r}, not a boolean")
    claimed = obj.get("rubric_passed")
    if not isinstance(claimed, bool):
        raise ReplyError(f"rubric_passed is {claimed!r}, not a boolean")
    overall = obj.get("overall_reasoning")
    if not isinstance(overall, str):
        raise ReplyError("overall_reasoning is missing or not a string")
    by_index = any("index" in item for item in items)
    if by_index:
        indices = [_index_of(item) for item in items]
        if sorted(i for i in indices if i is not None) != list(range(n)) or None in indices:
            shown = ", ".join(repr(item.get("index")) for item in items)
            raise ReplyError(f"criteria_results indices [{shown}] do not match the {n} criteria asked (0..{n - 1})")
        ordered = [item for _, item in sorted(zip(indices, items, strict=True), key=lambda p: p[0] or 0)]
    else:
        ordered = list(items)
    results = [
        CriterionResult(index=j, criterion=criteria[j], passed=item["passed"],
                        reasoning=_as_text(item.get("reasoning")), evidence=_as_text(item.get("evidence")))
        for j, item in enumerate(ordered)
    ]
    return results, claimed, overall, "index" if by_index else "position"


# ---------------------------------------------------------------------------------------------- cache


class VerdictCache:
    """Valid judge replies on disk, keyed by a hash of the model and the exact request.

    Unreadable entries are ignored (a miss); write failures are ignored (the cache is an optimisation).
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    @staticmethod
    def key(model: str, request: dict[str, Any]) -> str:
        blob = json.dumps({"model": model, "request": request}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("schema_version") != CACHE_SCHEMA_VERSION:
            return None
        return data

    def put(self, key: str, model: str, content: str, usage: Usage) -> None:
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"schema_version": CACHE_SCHEMA_VERSION, "model": model, "content": content,
                           "usage": usage.model_dump()}, fh)
            os.replace(tmp, path)  # atomic: concurrent graders never read half a file
        except OSError:
            pass


# ---------------------------------------------------------------------------------------------- judge


class LLMJudge(Judge):
    """Rubric judge over any OpenAI-compatible endpoint.

    Raises JudgeConfigError at construction when base URL, API key or model is missing (naming the
    three environment variables). ``cache_dir=False`` disables the verdict cache; None uses
    ``$JOBENV_CACHE/judge`` (default ``~/.cache/jobenv/judge``). ``check_endpoint``: whether
    :meth:`preflight` (run at ``make()``) asks the endpoint once; None follows ``JOBENV_JUDGE_CHECK``.
    """

    kind = "llm"

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        model: str | None = None,
        concurrency: int = 10,
        timeout_s: float = 300.0,
        attempts: int = 3,
        backoff_s: float = 2.0,
        max_images: int = 8,
        mode: ExtractMode = "values",
        cache_dir: Path | str | None | bool = None,
        temperature: float = 0.0,
        max_completion_tokens: int | None = DEFAULT_MAX_COMPLETION_TOKENS,
        total_chars: int | None = TOTAL_CAP,
        check_endpoint: bool | None = None,
    ) -> None:
        base_url, api_key, model = llm_config_from_env(base_url, api_key, model)
        missing = [name for name, v in ((ENV_BASE_URL, base_url), (ENV_API_KEY, api_key), (ENV_MODEL, model)) if not v]
        if missing:
            raise JudgeConfigError(f"LLM judge not configured ({', '.join(missing)} missing): {CONFIG_HINT}")
        if concurrency < 1 or attempts < 1 or timeout_s <= 0:
            raise JudgeConfigError("concurrency and attempts must be >= 1 and timeout_s > 0")
        assert base_url and api_key and model  # checked just above
        self.base_url: str = base_url
        self.api_key: str = api_key
        self.model: str = model
        self.concurrency, self.timeout_s, self.attempts = concurrency, float(timeout_s), attempts
        self.backoff_s, self.max_images, self.mode, self.temperature = backoff_s, max_images, mode, temperature
        if max_completion_tokens is not None and max_completion_tokens < 1:
            raise JudgeConfigError("max_completion_tokens must be >= 1 (or None to send no limit)")
        self.max_completion_tokens = max_completion_tokens
        if total_chars is not None and total_chars < 1:
            raise JudgeConfigError("total_chars must be >= 1 (or None for no total, as the official judge)")
        self.total_chars = total_chars
        self.check_endpoint = checking_enabled(check_endpoint)
        if cache_dir is False:
            self.cache: VerdictCache | None = None
        elif cache_dir is None or cache_dir is True:
            from .. import settings

            off = settings.get("JOBENV_JUDGE_CACHE") == "0"
            self.cache = None if off else VerdictCache(default_cache_dir())
        else:
            self.cache = VerdictCache(Path(cache_dir))

    def preflight(self, tasks: list[Any]) -> None:
        if tasks and self.check_endpoint:
            check_endpoint(self.base_url, self.api_key, self.model, who=f"{self.kind} judge",
                           timeout_s=min(self.timeout_s, CHECK_TIMEOUT_S))

    async def grade(self, task: Any, output_dir: Path) -> GradeReport:
        t0 = time.perf_counter()
        try:
            ex = await extraction_service().extract_output(Path(output_dir), mode=self.mode,
                                                           total_cap=self.total_chars)
            return await self.grade_extraction(task, ex, t0=t0)
        except Exception as exc:  # fail-closed: never a score from a crashed grader
            return build_report(task, [], judge_kind=self.kind, judge_model=self.model, mode=self.mode,
                                extra_errors=[f"LLM judge failed: {type(exc).__name__}: {exc}"],
                                latency_s=time.perf_counter() - t0)

    async def grade_extraction(self, task: Any, ex: Extraction, *, t0: float | None = None) -> GradeReport:
        """Grade an already extracted output directory."""
        import openai

        t0 = time.perf_counter() if t0 is None else t0
        if ex.rejected:
            return rejected_report(task, ex, self.kind, self.model, self.mode, t0)
        if ex.empty:
            return empty_output_report(task, self.kind, self.model, self.mode, t0)
        sem = asyncio.Semaphore(self.concurrency)
        client = openai.AsyncOpenAI(base_url=self.base_url, api_key=self.api_key, timeout=self.timeout_s, max_retries=0)
        try:
            results = await asyncio.gather(
                *(self._rubric(client, sem, i, r, ex) for i, r in enumerate(task.rubrics))
            )
        finally:
            await client.close()
        results = _unanswerable_as_failed(list(results), task.rubrics)
        report = build_report(task, results, judge_kind=self.kind, judge_model=self.model, mode=self.mode,
                              latency_s=time.perf_counter() - t0)
        report.budget_cut_files = list(ex.budget_cut)
        return report

    async def _rubric(self, client: Any, sem: asyncio.Semaphore, i: int, rubric: Any, ex: Extraction) -> RubricResult:
        res = RubricResult(index=i, rubric=rubric.text, weight=rubric.weight,
                           criteria_results=[CriterionResult(index=j, criterion=c) for j, c in enumerate(rubric.criteria)])
        t0 = time.perf_counter()
        try:
            images = select_images(ex, self.max_images) if is_visual_rubric(rubric.text, rubric.criteria) else []
            messages = build_messages(rubric.text, list(rubric.criteria), ex.text, images)
            res.images = len(images)
            request: dict[str, Any] = {"messages": messages, "temperature": self.temperature}
            if self.max_completion_tokens is not None:
                request["max_completion_tokens"] = self.max_completion_tokens
            key = VerdictCache.key(self.model, request) if self.cache else ""
            if self.cache:
                hit = self.cache.get(key)
                if hit is not None:
                    try:
                        self._apply(res, hit["content"], rubric.criteria)
                        res.cached = True
                        res.usage = Usage(cached=1)
                        return res
                    except (ReplyError, KeyError, TypeError):
                        pass  # a stale or odd entry: ask again
            last = "no attempt made"
            for attempt in range(1, self.attempts + 1):
                res.attempts = attempt
                if attempt > 1:
                    await asyncio.sleep(self.backoff_s * (2 ** (attempt - 2)))
                try:
                    async with sem:
                        resp = await asyncio.wait_for(
                            client.chat.completions.create(model=self.model, timeout=self.timeout_s, **request),
                            timeout=self.timeout_s + 5,
                        )
                except TimeoutError:
                    last = f"timed out after {self.timeout_s:g} s"
                    continue
                except Exception as exc:
                    last = _api_error(exc)
                    if _context_overflow(exc):
                        return _failed_by_deliverables(res, rubric.criteria, _TOO_LONG_NOTE)
                    if _fatal(exc):
                        break
                    continue
                u = getattr(resp, "usage", None)
                call_usage = Usage(
                    prompt_tokens=getattr(u, "prompt_tokens", 0) or 0,
                    completion_tokens=getattr(u, "completion_tokens", 0) or 0,
                    total_tokens=getattr(u, "total_tokens", 0) or 0,
                    calls=1,
                )
                res.usage.add(call_usage)
                try:
                    content = resp.choices[0].message.content or ""
                    self._apply(res, content, rubric.criteria)
                except (ReplyError, IndexError, AttributeError) as exc:
                    last = f"{_INVALID_REPLY}: {exc}"
                    continue
                if self.cache:
                    self.cache.put(key, self.model, content, call_usage)
                return res
            # fail-closed: no verdict, nothing credited
            res.status = "error"
            res.error = f"{last} (after {res.attempts} attempt(s))"
            res.failure = "invalid_reply" if last.startswith(_INVALID_REPLY) else "judge_unreachable"
            res.criteria_results = [CriterionResult(index=j, criterion=c) for j, c in enumerate(rubric.criteria)]
            res.parse_step = None
            return res
        except Exception as exc:
            res.status = "error"
            res.error = f"{type(exc).__name__}: {exc}"
            res.failure = "internal"
            return res
        finally:
            res.latency_s = round(time.perf_counter() - t0, 4)

    @staticmethod
    def _apply(res: RubricResult, content: str, criteria: list[str]) -> None:
        obj, step = parse_reply(content)
        crit, claimed, overall, matched_by = validate_reply(obj, list(criteria))
        res.criteria_results = crit
        res.judge_claimed_pass = claimed
        res.parse_step = step
        res.matched_by = matched_by
        res.overall_reasoning = overall
        if claimed != all(c.passed for c in crit):
            res.note = ("[jobenv: the judge's rubric_passed contradicts its criteria; strict scoring recomputes "
                        "the rubric from the criteria, official scoring credits the claim]")


def _api_error(exc: BaseException) -> str:
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    msg = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
    return f"judge API error {name}" + (f" (HTTP {status})" if status else "") + (f": {msg}" if msg else "")


_TOO_LONG_NOTE = ("[jobenv: the judge refused this rubric's request as too long for its context; the request is the "
                  "deliverables' text, so the rubric earns nothing (a graded zero, not a grading error)]")
_GARBLED_NOTE = ("[jobenv: the judge gave no valid verdict for this rubric on any attempt while it answered the other "
                 "rubrics of the same output, so the deliverables made it stray (e.g. text asking for another answer "
                 "format); the rubric earns nothing (a graded zero, not a grading error)]")
_INVALID_REPLY = "invalid judge reply"


def _context_overflow(exc: BaseException) -> bool:
    """A request the judge refused for its size (HTTP 400/413 naming the context or length)."""
    if getattr(exc, "status_code", None) not in (400, 413):
        return False
    return bool(re.search(r"context|too long|too large|maximum.{0,40}(length|tokens)|token limit|reduce the length",
                          str(exc), re.I))


def _failed_by_deliverables(res: RubricResult, criteria: Any, note: str) -> RubricResult:
    """``res`` as a rubric judged and failed, every criterion unmet, with ``note`` saying why."""
    res.status = "ok"
    res.error = None
    res.failure = None
    res.criteria_results = [CriterionResult(index=j, criterion=c, passed=False) for j, c in enumerate(criteria)]
    res.judge_claimed_pass = False
    res.note = note
    return res


def _unanswerable_as_failed(results: list[RubricResult], rubrics: Any) -> list[RubricResult]:
    """Rubrics whose every reply was invalid while another rubric got a valid verdict are the deliverables'
    doing (a judge that works answered the rest); when no rubric got a verdict the judge itself is at fault and
    the errors stand."""
    if not any(r.status == "ok" and r.note != _TOO_LONG_NOTE for r in results):
        return results
    for r in results:
        if r.status == "error" and (r.error or "").startswith(_INVALID_REPLY):
            _failed_by_deliverables(r, rubrics[r.index].criteria, _GARBLED_NOTE)
    return results


def _fatal(exc: BaseException) -> bool:
    """Errors a retry cannot fix: bad credentials, unknown model, malformed request."""
    return getattr(exc, "status_code", None) in (400, 401, 403, 404, 422)
