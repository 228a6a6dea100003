"""Serve jobenv's environments over OpenReward's HTTP standard with the ``openreward`` SDK.

Each hosted environment is an ``openreward.environments.Environment`` subclass built at run time by
:func:`build_environments` (the SDK is imported there, never at import of :mod:`jobenv`, because importing it
costs seconds). A class covers one dataset and maps its OpenReward split names to jobenv env ids:

======================  ===============================  ===========================
class (route)           split -> env id                  split type
======================  ===============================  ===========================
``JobBench``            main, easy, all -> jobbench/*    test
``JobTasks``            train -> jobtasks/train          train
``JobenvSample``        sample -> jobenv/sample          test
======================  ===============================  ===========================

What leaves the server: ``list_tasks`` gives only public specs (id, occupation, split, index); the prompt; tool
output from inside the sandbox (which holds only ``task_folder/``); and on ``submit`` the reward plus a grading
report with every rubric's wording removed (scores, weights and pass flags only). Rubrics, task cards, search files
and reference solutions stay on the host.

A session stages its own sandbox in ``setup()`` (backend from the server option, else ``$JOBENV_SANDBOX``, else
``local``). Sandbox and judge failures never raise out of a tool (a raised error would kill the client's session):
they come back as a ToolOutput with ``metadata["status"] == "error"``. Tools whose sandbox never started end the
episode with reward 0 and that status, so a trainer can drop the episode instead of training on it.

The judge's key comes from the session's secrets (``openai_api_key``) when given, else from the server's
environment (``JOBENV_JUDGE_*`` variables, read by :func:`jobenv.judge.make_judge`).
"""

# No ``from __future__ import annotations`` here: the SDK reads tool signatures with typing.get_type_hints, and the
# tool methods are built inside a function, so their annotations must be real objects rather than strings.

import asyncio
import json
import os
import shutil
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import TaskFormatError, UnknownEnvError
from .tools import CONCURRENT_TOOLS  # re-exported: hosting's concurrent set is the tool table's

if TYPE_CHECKING:  # pragma: no cover - typing only
    from .tasks import Task

__all__ = [
    "HostedDataset",
    "HOSTED_DATASETS",
    "SANDBOX_ENV_VAR",
    "JUDGE_ENV_VAR",
    "ENVS_ENV_VAR",
    "CONCURRENT_TOOLS",
    "public_task_spec",
    "private_texts",
    "redact_report",
    "build_environments",
    "make_server",
    "serve",
]

SANDBOX_ENV_VAR = "JOBENV_SANDBOX"
"""Sandbox backend of hosted sessions when ``--sandbox`` / ``sandbox=`` is not given (default ``local``)."""

JUDGE_ENV_VAR = "JOBENV_SERVE_JUDGE"
"""Judge kind of hosted sessions (``auto`` | ``checks`` | ``llm``; default ``auto``)."""

ENVS_ENV_VAR = "JOBENV_SERVE_ENVS"
"""Comma-separated hosted classes in order, e.g. ``jobbench,jobenvsample``; the first is the default route."""

OPENAI_BASE_URL = "https://api.openai.com/v1"

# Tools that only read state or run the shell: the SDK lets these overlap within a session. Writers stay serialised
# per tool, and submit is exclusive (it waits for every in-flight call, so nothing changes what it grades).


@dataclass(frozen=True)
class HostedDataset:
    """One OpenReward environment class: its name (the route is the lower-cased name) and split table."""

    class_name: str
    splits: dict[str, str]  # OpenReward split name -> jobenv env id
    split_type: str  # "train" | "validation" | "test"
    description: str = ""
    key: str = field(default="")

    @property
    def route(self) -> str:
        return self.class_name.lower()


HOSTED_DATASETS: tuple[HostedDataset, ...] = (
    HostedDataset(
        "JobBench",
        {"main": "jobbench/main", "easy": "jobbench/easy", "all": "jobbench/all"},
        "test",
        "JobBench professional tasks (download first: jobenv download --dataset jobbench)",
        "jobbench",
    ),
    HostedDataset(
        "JobTasks",
        {"train": "jobtasks/train"},
        "train",
        "JobTasks synthetic training tasks (download first: jobenv download --dataset jobtasks)",
        "jobtasks",
    ),
    HostedDataset(
        "JobenvSample",
        {"sample": "jobenv/sample"},
        "test",
        "the small sample split bundled with jobenv (offline, deterministic checks)",
        "sample",
    ),
)


# --------------------------------------------------------------------------------------------------------------
# task lookup (host side only)

_TASK_CACHE: dict[str, list["Task"]] = {}
_TASK_CACHE_LOCK = threading.Lock()


def _tasks(env_id: str) -> list["Task"]:
    """The tasks of ``env_id`` in registry order, loaded once per process (constructors run in worker threads)."""
    with _TASK_CACHE_LOCK:
        if env_id not in _TASK_CACHE:
            from .registry import load_tasks

            _TASK_CACHE[env_id] = list(load_tasks(env_id))
        return _TASK_CACHE[env_id]


def public_task_spec(task: "Task", split: str, index: int) -> dict[str, Any]:
    """The JSON a client may see for one task: id, occupation, split and index. Nothing private."""
    return {"id": task.id, "occupation": task.occupation, "split": split, "index": index}


# per-rubric fields that carry no wording; rubric text, criteria, reasoning and evidence never leave the server
_RUBRIC_KEEP = frozenset({"index", "weight", "passed", "score", "status", "attempts", "cached", "parse_step"})
# top-level fields kept; strings among them are scrubbed of private text (the error names failed rubrics)
_REPORT_KEEP = frozenset(
    {"schema_version", "task_id", "status", "error", "normalized_score", "total_score", "max_score", "pass_rate",
     "passed_count", "total_count", "judge_score", "criteria_passed", "criteria_total", "strict_pass", "pass_at_95",
     "pass_at_90", "pass_n_minus_1", "empty_output", "rejected_files", "judge_kind", "judge_model",
     "extraction_mode", "extraction_version", "grader_hash", "dataset_revision", "usage", "latency_s"}
)
_MAX_ERROR_CHARS = 1000


def private_texts(task: "Task") -> list[str]:
    """Every rubric text and criterion of ``task``: strings that must never appear in a response."""
    out: list[str] = []
    for r in task.rubrics:
        out.append(r.text)
        out.extend(r.criteria)
    return [t for t in out if t and t.strip()]


def _scrub(text: str, private: list[str]) -> str:
    # longest first, so a criterion inside a rubric text does not leave the rest of the text behind
    for p in sorted(private, key=len, reverse=True):
        for piece in (p, p[:77], p[:40]):
            if len(piece.strip()) >= 8 and piece in text:
                text = text.replace(piece, "[withheld]")
    if len(text) > _MAX_ERROR_CHARS:
        text = text[:_MAX_ERROR_CHARS] + " [...]"
    return text


def redact_report(report: dict[str, Any], private: list[str] | None = None) -> dict[str, Any]:
    """A grading report safe to send to a client: scores, counts and flags, with all rubric wording removed.

    Per-rubric entries keep only :data:`_RUBRIC_KEEP` fields, their criterion pass counts, and their error scrubbed
    of ``private`` strings (see :func:`private_texts`); top-level strings are scrubbed the same way. Unknown fields
    are dropped. Never raises.
    """
    private = list(private or [])

    def clean(v: Any) -> Any:
        if isinstance(v, str):
            return _scrub(v, private)
        if isinstance(v, dict):
            return {str(k): clean(x) for k, x in v.items() if isinstance(x, (int, float, bool, str)) or x is None}
        if isinstance(v, list):
            return [clean(x) for x in v if isinstance(x, (int, float, bool, str)) or x is None]
        return v

    out: dict[str, Any] = {}
    for key, value in report.items():
        if key == "rubrics" and isinstance(value, list):
            kept = []
            for i, item in enumerate(value):
                if not isinstance(item, dict):
                    continue
                entry: dict[str, Any] = {"index": i}
                for k in _RUBRIC_KEEP:
                    v = item.get(k)
                    if k in item and (v is None or isinstance(v, (int, float, bool, str))):
                        entry[k] = clean(v)
                crits = item.get("criteria_results")
                if isinstance(crits, list):
                    entry["criteria_total"] = len(crits)
                    entry["criteria_passed"] = sum(1 for c in crits if isinstance(c, dict) and c.get("passed") is True)
                if isinstance(item.get("error"), str):
                    entry["error"] = _scrub(item["error"], private)
                kept.append(entry)
            out[key] = kept
        elif key in _REPORT_KEEP:
            out[key] = clean(value)
    return out


# --------------------------------------------------------------------------------------------------------------
# environment classes


@dataclass
class _ServeConfig:
    sandbox: Any = None  # backend name (or a factory's name); None -> $JOBENV_SANDBOX or "local"
    judge: str | None = None  # None -> $JOBENV_SERVE_JUDGE or "auto"
    sandbox_options: dict[str, Any] = field(default_factory=dict)
    judge_options: dict[str, Any] = field(default_factory=dict)

    def backend(self) -> Any:
        return self.sandbox or os.environ.get(SANDBOX_ENV_VAR) or "local"

    def judge_kind(self) -> str:
        return self.judge or os.environ.get(JUDGE_ENV_VAR) or "auto"


def _task_prompt(task: "Task") -> str:
    """The agent's prompt: the same wording local jobenv episodes use."""
    from .prompt import build_prompt

    return build_prompt(task)


def build_environments(
    sandbox: Any = None,
    judge: str | None = None,
    *,
    envs: list[str] | str | None = None,
    sandbox_options: dict[str, Any] | None = None,
    judge_options: dict[str, Any] | None = None,
) -> list[type]:
    """Build fresh ``openreward`` Environment classes for the hosted datasets.

    ``sandbox`` is the backend of every session's sandbox (``"local"`` | ``"docker"``; default ``$JOBENV_SANDBOX`` or
    ``local``), ``judge`` the judge kind (default ``$JOBENV_SERVE_JUDGE`` or ``auto``). ``envs`` picks classes and
    their order by key (``jobbench``, ``jobtasks``, ``sample``) or route; default ``$JOBENV_SERVE_ENVS`` or all three.
    Raises UnknownEnvError for an unknown key and ImportError (with the install hint) when ``openreward`` is absent.
    """
    try:
        from openreward.environments import Environment, Split, TextBlock, ToolOutput, tool
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError("hosting needs the openreward SDK: pip install 'jobenv[hosting]'") from exc
    from .tools import TOOL_PARAMS

    config = _ServeConfig(sandbox, judge, dict(sandbox_options or {}), dict(judge_options or {}))
    selected = _select(envs)
    from .tools import TOOL_DESCRIPTIONS as descriptions

    def text_output(text: str, **kw: Any) -> Any:
        return ToolOutput(blocks=[TextBlock(text=text)], **kw)

    class _JobenvEnvironment(Environment):
        """Shared behaviour of every hosted class; subclasses set ``_dataset``."""

        _dataset: HostedDataset
        _config: _ServeConfig = config

        def __init__(self, task_spec: dict[str, Any] = {}, secrets: dict[str, str] = {}) -> None:  # noqa: B006
            # Signature mirrors the SDK base class. Runs in a worker thread: loading tasks here is fine.
            super().__init__(task_spec, secrets)
            self._secrets = dict(secrets or {})
            self._task = self._lookup(task_spec)
            self._sandbox: Any = None
            self._toolbox: Any = None
            self._setup_error: str | None = None
            self._setup_lock = asyncio.Lock()

        # ---- tasks ------------------------------------------------------------------------------------------
        @classmethod
        def list_splits(cls) -> list[Any]:
            return [Split(name=name, type=cls._dataset.split_type) for name in cls._dataset.splits]

        @classmethod
        def list_tasks(cls, split: str) -> list[dict[str, Any]]:
            env_id = cls._env_id(split)
            return [public_task_spec(t, split, i) for i, t in enumerate(_tasks(env_id))]

        @classmethod
        def _env_id(cls, split: str) -> str:
            try:
                return cls._dataset.splits[split]
            except KeyError:
                raise UnknownEnvError(
                    f"{cls.__name__}: unknown split {split!r}; splits are {sorted(cls._dataset.splits)}"
                ) from None

        @classmethod
        def _lookup(cls, spec: Any) -> "Task":
            """The private task record for a public spec; TaskFormatError when the spec names no task here."""
            if not isinstance(spec, dict) or not isinstance(spec.get("split"), str) or not isinstance(spec.get("id"), str):
                raise TaskFormatError(f"{cls.__name__}: a task spec needs string 'split' and 'id', got {spec!r}")
            tasks = _tasks(cls._env_id(spec["split"]))
            idx = spec.get("index")
            if isinstance(idx, int) and 0 <= idx < len(tasks) and tasks[idx].id == spec["id"]:
                return tasks[idx]
            for t in tasks:
                if t.id == spec["id"]:
                    return t
            raise TaskFormatError(f"{cls.__name__}: no task {spec['id']!r} in split {spec['split']!r}")

        # ---- session life cycle -----------------------------------------------------------------------------
        async def setup(self) -> None:
            """Stage the sandbox. Never raises: a failure is kept and reported by every tool call."""
            async with self._setup_lock:
                if self._sandbox is not None or self._setup_error is not None:
                    return
                sb = None
                try:
                    from .sandbox import make_sandbox
                    from .tools import Toolbox

                    sb = make_sandbox(self._config.backend(), **self._config.sandbox_options)
                    await sb.start(self._task.task_folder)
                    self._sandbox = sb
                    self._toolbox = Toolbox(sb)
                except Exception as exc:  # noqa: BLE001 - reported through the tools, see docstring
                    self._setup_error = f"{type(exc).__name__}: {exc}"
                finally:
                    # failed or cancelled (the session was deleted mid-setup): leave nothing behind
                    if sb is not None and self._sandbox is not sb:
                        try:
                            await sb.close()
                        except BaseException:  # noqa: BLE001 - cleanup must not mask the original outcome
                            pass

        async def teardown(self) -> None:
            """Remove the sandbox; errors are swallowed (the SDK only logs them). Later calls are refused."""
            async with self._setup_lock:
                self._setup_error = self._setup_error or "the session was closed"
                sb, self._sandbox = self._sandbox, None
            if sb is not None:
                try:
                    await sb.close()
                except Exception:  # noqa: BLE001
                    pass

        def get_prompt(self) -> list[Any]:
            return [TextBlock(text=_task_prompt(self._task))]

        # ---- tool plumbing ----------------------------------------------------------------------------------
        def _unavailable(self, name: str) -> Any:
            """The episode cannot go on without a sandbox: end it, flagged as an infrastructure error."""
            msg = f"the sandbox for this task is not available ({self._setup_error}); the episode is over."
            return text_output(
                msg,
                metadata={"status": "error", "error_kind": "sandbox", "error": self._setup_error, "tool": name},
                reward=0.0,
                finished=True,
            )

        async def _ready(self) -> bool:
            if self._sandbox is None and self._setup_error is None:
                await self.setup()  # the server always runs setup first; this covers direct use
            return self._sandbox is not None

        async def _call(self, name: str, params: Any) -> Any:
            if not await self._ready():
                return self._unavailable(name)
            args = params.model_dump(mode="json", exclude_unset=True) if params is not None else {}
            try:
                res = await self._toolbox.call(name, args)
            except Exception as exc:  # noqa: BLE001 - the Toolbox should not raise; never let it kill the session
                return text_output(
                    f"{name} failed: {type(exc).__name__}: {exc}",
                    metadata={"status": "error", "error_kind": "tool", "tool": name},
                )
            ok = bool(res.ok)
            # round-trip through JSON: a non-JSON value here would make the SDK's ToolOutput raise
            meta = json.loads(json.dumps(dict(res.metadata or {}), default=str))
            return text_output(res.text, metadata={**meta, "status": "ok" if ok else "error", "ok": ok})

        async def _grade(self) -> Any:
            """Export /workspace/output, grade it, and end the episode. Never raises."""
            if not await self._ready():
                return self._unavailable("submit")
            tmp = Path(tempfile.mkdtemp(prefix="jobenv-serve-"))
            try:
                report: dict[str, Any]
                try:
                    out_dir = await self._sandbox.export_output(tmp / "output")
                except Exception as exc:  # noqa: BLE001
                    report = {"status": "error", "error": f"could not export /workspace/output: {type(exc).__name__}: {exc}"}
                else:
                    try:
                        from .judge import make_judge

                        judge = make_judge(self._config.judge_kind(), **self._judge_options())
                        graded = await judge.grade(self._task, Path(out_dir))
                        report = graded.model_dump(mode="json") if hasattr(graded, "model_dump") else dict(graded)
                    except Exception as exc:  # noqa: BLE001 - config errors etc.: report, do not raise
                        report = {"status": "error", "error": f"{type(exc).__name__}: {exc}"}
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            ok = report.get("status") == "ok"
            reward = float(report.get("normalized_score") or 0.0) if ok else 0.0
            safe = redact_report(report, private_texts(self._task))
            meta: dict[str, Any] = {"status": "ok" if ok else "error", "task_id": self._task.id, "report": safe}
            refused = list(report.get("rejected_files") or [])
            if ok:
                text = (
                    f"Submitted. Score {reward:.4f} "
                    f"({safe.get('passed_count', '?')}/{safe.get('total_count', '?')} rubrics passed)."
                )
            elif refused:
                # symlinks or special files in output/ are the agent's doing: a plain 0, not a dropped episode
                meta.update(status="ok", refused_output=refused)
                text = "Submitted. The output folder held symlinks or special files, which are refused: reward 0."
            else:
                text = f"Submitted, but grading failed: {safe.get('error') or 'unknown error'}. Reward 0."
            return text_output(
                text,
                metadata=meta,
                reward=reward,
                finished=True,
            )

        def _judge_options(self) -> dict[str, Any]:
            opts = dict(self._config.judge_options)
            key = self._secrets.get("openai_api_key")
            if key:  # the session's key wins over the server's environment
                opts["api_key"] = key
                # On OpenReward the secret is a placeholder swapped in only on requests to OpenAI's host, so with
                # no endpoint configured the judge goes there.
                if not opts.get("base_url") and not os.environ.get("JOBENV_JUDGE_BASE_URL"):
                    opts["base_url"] = OPENAI_BASE_URL
            return opts

    namespace: dict[str, Any] = {}
    for name, model in TOOL_PARAMS.items():
        if name == "submit":
            continue
        namespace[name] = _make_tool(name, model, descriptions.get(name, ""), tool, ToolOutput)
    namespace["submit"] = _make_submit(descriptions.get("submit", ""), tool, ToolOutput)
    base = type("_JobenvToolsEnvironment", (_JobenvEnvironment,), namespace)

    classes: list[type] = []
    for ds in selected:
        cls = type(ds.class_name, (base,), {"_dataset": ds, "__doc__": ds.description, "__module__": __name__})
        classes.append(cls)
    return classes


def _make_tool(name: str, model: type, description: str, tool: Any, tool_output: type) -> Any:
    """A tool method taking ``model`` and forwarding to the session's Toolbox."""

    async def method(self: Any, params: Any) -> Any:
        return await self._call(name, params)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = description or f"The {name} tool."
    method.__annotations__ = {"params": model, "return": tool_output}
    return tool(concurrent=name in CONCURRENT_TOOLS)(method)


def _make_submit(description: str, tool: Any, tool_output: type) -> Any:
    async def submit(self: Any) -> Any:
        return await self._grade()

    submit.__doc__ = description or (
        "Submit the deliverables in /workspace/output for grading. This ends the episode: call it once, "
        "after every final file is saved."
    )
    submit.__annotations__ = {"return": tool_output}
    return tool(exclusive=True)(submit)


def _select(envs: list[str] | str | None) -> list[HostedDataset]:
    if envs is None:
        envs = os.environ.get(ENVS_ENV_VAR) or None
    if envs is None:
        return list(HOSTED_DATASETS)
    keys = [e.strip().lower() for e in (envs.split(",") if isinstance(envs, str) else envs) if e.strip()]
    by_key = {d.key: d for d in HOSTED_DATASETS} | {d.route: d for d in HOSTED_DATASETS}
    out: list[HostedDataset] = []
    for k in keys:
        if k not in by_key:
            raise UnknownEnvError(f"unknown hosted environment {k!r}; choose from {sorted(d.key for d in HOSTED_DATASETS)}")
        if by_key[k] not in out:
            out.append(by_key[k])
    if not out:
        raise UnknownEnvError("no hosted environment selected")
    return out


def make_server(sandbox: Any = None, judge: str | None = None, **kwargs: Any) -> Any:
    """An ``openreward.environments.Server`` over :func:`build_environments` (same arguments).

    ``server.app`` is the ASGI app; ``server.run(host, port)`` serves it with uvicorn.
    """
    from openreward.environments import Server

    return Server(build_environments(sandbox, judge, **kwargs))


def serve(*, host: str = "0.0.0.0", port: int = 8080, sandbox: str | None = None) -> int:
    """Host the environments on ``host``/``port`` until interrupted (``jobenv serve``).

    Bad options (unknown ``$JOBENV_SERVE_ENVS`` entry) raise UnknownEnvError, which the CLI prints as one line.
    """
    from openreward.environments import Server

    classes = build_environments(sandbox=sandbox)
    server = Server(classes)
    routes = ", ".join(f"/{c.__name__.lower()}" for c in classes)
    print(
        f"jobenv serve: http://{host}:{port} serving {routes} "
        f"(sandbox {_ServeConfig(sandbox).backend()}, judge {_ServeConfig().judge_kind()})",
        file=sys.stderr,
        flush=True,
    )
    server.run(host=host, port=port)
    return 0
