"""Gymnasium integration: the env checker and registration under ``gymnasium.make``."""

from __future__ import annotations

import warnings

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

from jobenv.env import AnyText, JobEnv, ToolCallSpace


def test_env_checker_passes(mini_tasks):
    env = JobEnv(mini_tasks, judge="checks", max_steps=10)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env, skip_render_check=True)
        # No deviation: the checker raises nothing and warns about nothing. (ResourceWarnings about process
        # pipes come from the sandbox backend and are its tests' business; fd leaks are measured in
        # test_scale.py.) Custom spaces are accepted because they subclass gymnasium.Space.
        other = [str(w.message) for w in caught if not issubclass(w.category, ResourceWarning)]
        assert not other, other
    finally:
        env.close()


def test_registered_ids_and_namespace_parsing():
    import jobenv

    for env_id in jobenv.list_envs():
        assert env_id in gymnasium.registry, env_id
        spec = gymnasium.spec(env_id)
        assert spec.entry_point == "jobenv.registry:make" and spec.kwargs == {"env_id": env_id}
    spec = gymnasium.spec("jobbench/main")
    assert (spec.namespace, spec.name, spec.version) == ("jobbench", "main", None)


def test_gymnasium_make_runs_an_episode_on_the_sample_split():
    import jobenv  # noqa: F401  (registers the ids)

    env = gymnasium.make("jobenv/sample", judge="checks", max_steps=5)
    try:
        assert isinstance(env.unwrapped, JobEnv)
        assert isinstance(env.observation_space, AnyText) and isinstance(env.action_space, ToolCallSpace)
        obs, info = env.reset(seed=0)
        assert info["env_id"] == "jobenv/sample" and "/workspace/task_folder" in obs
        assert info["task_id"] in {t.id for t in env.unwrapped.tasks}
        obs, reward, term, trunc, info = env.step({"name": "submit"})
        assert term and reward == 0.0 and info["status"] == "ok"
    finally:
        env.close()


def test_make_and_gymnasium_make_agree_on_tasks():
    import jobenv

    env = jobenv.make("jobenv/sample", judge="checks")
    try:
        ids = [t.uid for t in env.tasks]
        assert ids == [t.uid for t in jobenv.load_tasks("jobenv/sample")] and len(ids) >= 1
    finally:
        env.close()
    with pytest.raises(jobenv.UnknownEnvError):
        jobenv.make("jobbench/nope")


@pytest.mark.parametrize(("mode", "shared"), [("sync", None), ("async", None), ("async", False)])
def test_make_vec_keeps_unicode_text_observations(mode, shared):
    # Both modes with Gymnasium's default arguments: async vectorisation puts text observations in shared memory
    # (jobenv registers a layout for its text space), or passes them through pipes with shared_memory=False.
    # Observations come back as a tuple of str, intact.
    import jobenv  # noqa: F401

    kw = {"vector_kwargs": {"shared_memory": shared}} if shared is not None else {}
    venv = gymnasium.make_vec("jobenv/sample", num_envs=2, vectorization_mode=mode, judge="checks", max_steps=5, **kw)
    try:
        obs, info = venv.reset(seed=0)
        assert isinstance(obs, tuple) and all(isinstance(o, str) and "/workspace/output" in o for o in obs)
        obs, rew, term, trunc, info = venv.step(
            ({"name": "bash", "arguments": {"command": "echo 'naïve ✓ 数据'"}}, {"name": "submit"})
        )
        assert "naïve ✓ 数据" in obs[0]
        assert list(term) == [False, True] and list(rew) == [0.0, 0.0]
    finally:
        venv.close()


def test_gymnasium_max_episode_steps_is_jobenvs_own_graded_budget():
    # gymnasium.make(..., max_episode_steps=N) wraps the env in TimeLimit; jobenv adopts N as its step budget, so
    # the cut at step N is jobenv's own ending: graded under on_truncate, status in info, budget in the prompt
    import jobenv  # noqa: F401

    env = gymnasium.make("jobenv/sample", judge="checks", max_episode_steps=2, on_truncate="grade")
    try:
        obs, info = env.reset(seed=0)
        assert info["max_steps"] == 2 and "at most 2 tool calls" in obs
        _, _, term, trunc, info = env.step({"name": "ls", "arguments": {"path": "task_folder"}})
        assert (term, trunc, info["status"]) == (False, False, "ok")  # every info carries a status
        _, reward, term, trunc, info = env.step({"name": "ls", "arguments": {"path": "output"}})
        assert trunc and not term and info["status"] == "truncated" and info["finish_reason"] == "max_steps"
        assert "report" in info and reward == 0.0  # graded (an empty output folder scores 0)
        assert env.unwrapped.sandbox is None  # jobenv ended and closed the episode itself
    finally:
        env.close()
    # a tighter budget of jobenv's own stays in force
    env = gymnasium.make("jobenv/sample", judge="checks", max_episode_steps=50, max_steps=3)
    try:
        _, info = env.reset(seed=0)
        assert info["max_steps"] == 3
    finally:
        env.close()
