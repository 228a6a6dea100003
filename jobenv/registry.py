"""The split registry: environment ids, where their tasks come from, and ``jobenv.make``.

This module imports nothing heavy at import time, so ``import jobenv`` stays fast; task loading,
pydantic and Gymnasium are imported when first used.
"""

from __future__ import annotations

import importlib.abc
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import DatasetNotFoundError, UnknownEnvError

if TYPE_CHECKING:
    from .env import JobEnv
    from .tasks import Task

__all__ = [
    "Availability", "EnvSpec", "ENV_SPECS", "availability", "list_envs", "env_spec", "is_registered", "load_tasks", "make", "register_gymnasium",
    "sample_root",
]


@dataclass(frozen=True)
class EnvSpec:
    """One registered environment id and the splits it serves."""

    id: str
    dataset: str  # "jobbench", "jobtasks", "dayjob-healthcare", "dayjob-finance", "sample" or "synthetic"
    splits: tuple[str, ...]
    description: str
    expected_count: int | None = None
    official_network: str = "off"  # the network the split's official runs give the agent ("web": public web)


ENV_SPECS: dict[str, EnvSpec] = {
    s.id: s
    for s in (
        EnvSpec("jobbench/main", "jobbench", ("main",), "JobBench main split (leaderboard)", 65, "web"),
        EnvSpec("jobbench/easy", "jobbench", ("easy",), "JobBench easy split", 63, "web"),
        EnvSpec("jobbench/all", "jobbench", ("main", "easy"), "JobBench main + easy", 128, "web"),
        EnvSpec("jobtasks/train", "jobtasks", ("train",), "JobTasks train split (downloaded, else generated)"),
        EnvSpec("dayjob/healthcare", "dayjob-healthcare", ("tasks",), "DAYJOB healthcare (Harbor tasks)", 50),
        EnvSpec("dayjob/finance", "dayjob-finance", ("tasks",), "DAYJOB finance (Harbor tasks)", 80),
        EnvSpec("jobenv/sample", "sample", ("sample",), "bundled sample tasks (offline, checks-graded)"),
        EnvSpec("jobenv/synthetic", "synthetic", ("synthetic",), "tasks generated on the fly from a seed"),
    )
}

DOWNLOAD_HINT = {
    "jobbench": "jobenv download   (or: python download_data.py)",
    "jobtasks": "jobenv download --dataset jobtasks",
    "dayjob-healthcare": "jobenv download dayjob-healthcare",
    "dayjob-finance": "jobenv download dayjob-finance",
}
# the generated stand-in for jobtasks/train when no JobTasks download is present
DEFAULT_SYNTHETIC_TASKS = 24
# the stand-in draws from a seed no jobenv/synthetic split can use (those take seeds >= 0), so generated training
# tasks and a synthetic evaluation split are different draws by construction
TRAIN_STANDIN_SEED = -1


def list_envs() -> list[str]:
    """Every registered environment id, in a fixed order."""
    return list(ENV_SPECS)


def env_spec(env_id: str) -> EnvSpec:
    """The spec of ``env_id``; UnknownEnvError listing the known ids otherwise."""
    try:
        return ENV_SPECS[env_id]
    except KeyError:
        raise UnknownEnvError(f"unknown environment {env_id!r}; known: {', '.join(ENV_SPECS)}") from None


def sample_root() -> Path:
    """Folder of the bundled ``jobenv/sample`` split inside the package."""
    return Path(__file__).parent / "data" / "sample"


def _load_downloaded(spec: EnvSpec) -> list[Task]:
    from .datasets import data_dir, load_tree, read_manifest

    root = data_dir() / spec.dataset
    manifest = read_manifest(root)
    skip = set(manifest.invalid) if manifest else set()
    tasks: list[Task] = []
    for split in spec.splits:
        if not (root / split).is_dir():
            raise DatasetNotFoundError(
                f"{spec.id}: split {split!r} is not downloaded (looked in {root / split}). "
                f"Download it with: {DOWNLOAD_HINT[spec.dataset]}  "
                "(set JOBENV_DATA to keep data elsewhere)"
            )
        tasks.extend(load_tree(root / split, split, skip=skip, revision=manifest.revision if manifest else None))
    if spec.expected_count is not None and len(tasks) != spec.expected_count:
        revision = manifest.revision if manifest else "unknown revision"
        warnings.warn(
            f"{spec.id}: found {len(tasks)} tasks, expected {spec.expected_count} "
            f"(dataset revision {revision}); scores may not compare with published ones",
            stacklevel=3,
        )
    return tasks


def _load_dayjob(spec: EnvSpec) -> list[Task]:
    """A DAYJOB download: the Harbor task directories under ``<data dir>/<dataset>/tasks``, graded by their own
    ``tests/judge.toml``."""
    from .datasets import data_dir, read_manifest
    from .harbor.tasks import load_harbor_tasks

    root = data_dir() / spec.dataset
    if not (root / "tasks").is_dir():
        raise DatasetNotFoundError(f"{spec.id}: not downloaded (looked in {root / 'tasks'}). Download it with: "
                                   f"{DOWNLOAD_HINT[spec.dataset]}  (or --from-dir a snapshot on disk)")
    tasks = load_harbor_tasks(root / "tasks", domain=spec.dataset.removeprefix("dayjob-"))
    if spec.expected_count is not None and len(tasks) != spec.expected_count:
        manifest = read_manifest(root)
        warnings.warn(f"{spec.id}: found {len(tasks)} tasks, expected {spec.expected_count} (dataset revision "
                      f"{manifest.revision if manifest else 'unknown'}); scores may not compare with published ones",
                      stacklevel=3)
    return tasks


def _load_folder(path: Path) -> list[Task]:
    """Tasks from a folder on disk: one task (``taskN/`` holding ``task_folder/``) or a tree of them."""
    from .datasets import load_tree
    from .tasks import load_task_dir

    path = path.resolve()
    if (path / "task_folder").is_dir():
        return [load_task_dir(path, "local", path.parent.name or "general")]
    tasks = load_tree(path, "local")
    if not tasks:
        from .errors import TaskFormatError

        raise TaskFormatError(f"{path}: no task folders (taskN/task_folder/TASK_INSTRUCTIONS.txt) found below it")
    return tasks


@dataclass(frozen=True)
class Availability:
    """Whether a registered id's tasks load on this machine, how many, and the state in words."""

    loadable: bool
    count: str
    state: str


def availability(env_id: str) -> Availability:
    """What ``jobenv list`` says of ``env_id`` (and what servers offer), decided without loading or generating
    tasks. UnknownEnvError for an unregistered id."""
    from .datasets import data_dir
    from .extras import available, install_hint

    spec = env_spec(env_id)
    can_generate = available("synthetic")
    if spec.dataset == "sample":
        return Availability(True, str(len(load_tasks(env_id))), "bundled")
    if spec.dataset == "synthetic":
        state = "generated on demand" if can_generate else f"needs the synthetic extra: {install_hint('synthetic')}"
        return Availability(can_generate, "-", state)
    present = all((data_dir() / spec.dataset / s).is_dir() for s in spec.splits)
    if spec.dataset == "jobtasks" and not present:
        if can_generate:
            return Availability(True, str(DEFAULT_SYNTHETIC_TASKS), "generated stand-in (not downloaded)")
        return Availability(False, "-", f"not downloaded: {DOWNLOAD_HINT['jobtasks']}; or generate a stand-in "
                                        f"after {install_hint('synthetic')}")
    if present:
        return Availability(True, _count_on_disk(spec), "downloaded")
    return Availability(False, str(spec.expected_count or "?"), f"not downloaded: {DOWNLOAD_HINT[spec.dataset]}")


def _count_on_disk(spec: EnvSpec) -> str:
    """How many of the split's tasks are on disk, by their marker files (nothing loaded): ``"65"``, or ``"7 of 65"``
    when a partial download holds fewer than the published count."""
    from .datasets import data_dir, read_manifest
    from .tasks import INSTRUCTIONS_FILE

    root = data_dir() / spec.dataset
    manifest = read_manifest(root)
    invalid = set(manifest.invalid) if manifest else set()  # skipped when loading, so not counted
    marker = "task.toml" if spec.dataset.startswith("dayjob-") else f"task_folder/{INSTRUCTIONS_FILE}"
    task_dirs = (p.parent if marker == "task.toml" else p.parent.parent
                 for split in spec.splits for p in (root / split).rglob(marker) if p.is_file())
    n = sum(1 for d in task_dirs if d.relative_to(root).as_posix() not in invalid)
    return str(n) if spec.expected_count in (None, n) else f"{n} of {spec.expected_count}"


def is_registered(env_id: str) -> bool:
    """True for a registered environment id (as opposed to a task folder path)."""
    return env_id in ENV_SPECS


def load_tasks(env_id: str, *, generate: bool = True, **options: Any) -> list[Task]:
    """The tasks of ``env_id`` in stable order (hosting addresses tasks by index).

    ``env_id`` is a registered id, the path of a task folder (one ``taskN/`` or a tree of them, split
    ``local``) or of a Harbor task directory (``task.toml``; or a directory of them; ``harbor:<path>`` says so
    explicitly), split ``harbor``, graded by its own ``tests/``. ``jobenv/synthetic`` takes ``seed`` and ``n``. Raises UnknownEnvError for an unknown id that is
    not a folder either, DatasetNotFoundError (with the download command) for a split not on disk,
    TaskFormatError for a malformed task. A task count that differs from the published one is a warning.
    A generated split not yet on disk is generated here (minutes for the default 24 tasks); ``generate=False``
    raises DatasetNotFoundError naming the command that generates it instead (what a server wants at start-up).
    """
    if env_id not in ENV_SPECS and (env_id.startswith("harbor:") or Path(env_id).expanduser().is_dir()):
        if options:
            raise UnknownEnvError(f"{env_id}: a task folder takes no options (got {', '.join(options)})")
        from .harbor.tasks import HARBOR_PREFIX, is_harbor_path, load_harbor_tasks

        if env_id.startswith(HARBOR_PREFIX) or is_harbor_path(Path(env_id).expanduser()):
            return load_harbor_tasks(env_id)
        return _load_folder(Path(env_id).expanduser())
    spec = env_spec(env_id)
    from .datasets import data_dir, load_tree

    if spec.dataset != "synthetic" and options:
        raise UnknownEnvError(f"{env_id}: takes no options (got {', '.join(options)}); only jobenv/synthetic "
                              "takes seed and n")
    if spec.dataset == "sample":
        from . import __version__

        return load_tree(sample_root(), "sample", revision=f"jobenv-{__version__}")
    if spec.dataset == "jobbench":
        return _load_downloaded(spec)
    if spec.dataset.startswith("dayjob-"):
        return _load_dayjob(spec)
    if spec.dataset == "jobtasks" and (data_dir() / "jobtasks" / "train").is_dir():
        return _load_downloaded(spec)
    from .extras import require

    require("synthetic", f"{spec.id} (tasks generated on this machine; or download them: {DOWNLOAD_HINT['jobtasks']})"
            if spec.dataset == "jobtasks" else spec.id)
    from .synthetic import GENERATOR_VERSION, ensure_default_split
    from .synthetic.runner import is_generated

    if spec.dataset == "jobtasks":
        seed, n, split = TRAIN_STANDIN_SEED, DEFAULT_SYNTHETIC_TASKS, "train"
    else:
        seed, n, split = int(options.get("seed", 0)), int(options.get("n", DEFAULT_SYNTHETIC_TASKS)), "synthetic"
        if seed < 0:
            raise UnknownEnvError(f"{env_id}: seed must be >= 0 (negative seeds are reserved for the generated "
                                  "jobtasks/train stand-in)")
    dest = data_dir() / "synthetic" / f"seed{seed}-n{n}"
    if not generate and not is_generated(dest, n, seed):
        cmd = f"jobenv tasks {env_id}" + (f" --seed {seed} --n {n}" if spec.dataset == "synthetic" else "")
        how = f"; or download it: {DOWNLOAD_HINT['jobtasks']}" if spec.dataset == "jobtasks" else ""
        raise DatasetNotFoundError(f"{env_id}: not generated on this machine yet (`{cmd}` generates its {n} tasks "
                                   f"once, a minute or more{how})")
    root = ensure_default_split(dest, n=n, seed=seed)
    return load_tree(root, split, revision=f"generated-{GENERATOR_VERSION}-seed{seed}-n{n}")


def make(env_id: str, **kwargs: Any) -> JobEnv:
    """Create the environment for ``env_id`` — a registered id or a task folder path (see
    :class:`jobenv.env.JobEnv` for the keyword arguments). Gymnasium's entry point for every jobenv id.

    ``jobenv/synthetic`` also takes ``seed`` and ``n``: the tasks are generated on first use and cached
    under the data directory. ``network`` sets the sandbox's network once for the split: ``"off"``, ``"web"``
    or ``"official"`` (the setting of the split's official runs: ``web`` for ``jobbench/*``, whose instructions
    ask the agent to obtain public documents; ``off`` elsewhere); without it the sandbox limits decide
    (default ``off``). Raises as :func:`load_tasks` and :class:`~jobenv.env.JobEnv` do.
    """
    from .env import JobEnv

    options = {k: kwargs.pop(k) for k in ("seed", "n") if k in kwargs}
    network = kwargs.pop("network", None)
    if network is not None:
        from .sandbox.base import SandboxLimits

        if network == "official":
            network = env_spec(env_id).official_network if env_id in ENV_SPECS else "off"
        limits = kwargs.get("limits") or SandboxLimits()
        kwargs["limits"] = SandboxLimits.model_validate({**limits.model_dump(), "network": network})
    return JobEnv(load_tasks(env_id, **options), env_id=env_id, **kwargs)


def register_gymnasium() -> None:
    """Register every id with Gymnasium so ``gymnasium.make("jobbench/main")`` works. Idempotent."""
    import gymnasium
    from gymnasium.envs.registration import WrapperSpec

    # outermost, after a TimeLimit: hands max_episode_steps to the env as its own graded step budget (named by
    # its entry point, so registering imports nothing of the env)
    budget = WrapperSpec("GymnasiumBudget", "jobenv.env.budget:GymnasiumBudget", kwargs={})
    for env_id in ENV_SPECS:
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point="jobenv.registry:make", kwargs={"env_id": env_id},
                               additional_wrappers=(budget,))


class _RegisterWhenGymnasiumLoads(importlib.abc.MetaPathFinder):
    """Registers jobenv's ids right after Gymnasium is imported, so ``import jobenv`` need not import it."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != "gymnasium":
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec("gymnasium")
        if spec is None or spec.loader is None:
            return None
        exec_module = spec.loader.exec_module

        def exec_then_register(module: Any) -> None:
            exec_module(module)
            register_gymnasium()

        spec.loader.exec_module = exec_then_register  # type: ignore[method-assign]
        return spec


def _install_gymnasium_hook() -> None:
    if "gymnasium" in sys.modules:
        register_gymnasium()
    elif not any(isinstance(f, _RegisterWhenGymnasiumLoads) for f in sys.meta_path):
        sys.meta_path.insert(0, _RegisterWhenGymnasiumLoads())
