"""Gymnasium's step budget as jobenv's own: ``gymnasium.make(id, max_episode_steps=N)`` wraps the env in
Gymnasium's ``TimeLimit``, which would cut an episode after N steps without grading or closing it. The wrapper here,
registered with every jobenv id (outermost, after ``TimeLimit``), finds that limit and hands it to the
:class:`~jobenv.env.JobEnv`, which adopts it as its step budget when it is the tighter one. The cut then falls on
the step where jobenv ends the episode itself: graded under ``on_truncate``, ``info["status"]`` set, the budget
stated in the prompt.
"""

from __future__ import annotations

from typing import Any

import gymnasium
from gymnasium.utils import RecordConstructorArgs
from gymnasium.wrappers import TimeLimit

__all__ = ["GymnasiumBudget"]


class GymnasiumBudget(gymnasium.Wrapper[Any, Any, Any, Any], RecordConstructorArgs):
    """Passes everything through; on construction, tells the jobenv env inside about a ``TimeLimit`` below it."""

    def __init__(self, env: gymnasium.Env[Any, Any]) -> None:
        RecordConstructorArgs.__init__(self)
        gymnasium.Wrapper.__init__(self, env)
        inner: Any = env
        while isinstance(inner, gymnasium.Wrapper):
            if isinstance(inner, TimeLimit):
                adopt = getattr(env.unwrapped, "adopt_step_budget", None)
                if adopt is not None:
                    adopt(int(inner._max_episode_steps))
                break
            inner = inner.env
