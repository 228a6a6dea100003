"""Rollout collection: policies behind OpenAI-compatible APIs, many episodes on one event loop, trajectories.

One module per concept, dependencies in one direction:

- :mod:`.policy`: :class:`Policy`, :class:`OpenAIChatPolicy` (the conversation so far -> one assistant reply)
- :mod:`.trajectory`: the :class:`Trajectory` schema and the JSON Lines store
- :mod:`.tokens`: engine token ids stitched into training sequences with loss masks (:func:`token_segments`)
- :mod:`.episode`: :func:`run_episode` (one episode of a :class:`~jobenv.env.JobEnv` driven by a policy)
- :mod:`.collect`: :func:`collect` (many episodes, ``k`` attempts per task, resumable)
- :mod:`.summary`: :func:`summarize`, :func:`pass_at_k`, the terminal table
- :mod:`.regrade`: :func:`regrade` (judge a finished run's saved deliverables again, no policy call)
- :mod:`.report`: the self-contained HTML report
- the commands ``jobenv rollout`` / ``jobenv report`` live in :mod:`jobenv.cli`

Failure behaviour is stated in each module: one episode's failure is recorded in its trajectory, never
raised; bad arguments raise :class:`~jobenv.errors.JobenvError` before any work starts.
"""

from __future__ import annotations

from .calibrate import CalibrationReport, calibrate, calibrate_sync
from .collect import CollectResult, check_sandbox, collect, collect_sync
from .episode import DEFAULT_NUDGE, RolloutConfig, run_episode
from .policy import ContextLengthError, OpenAIChatPolicy, Policy, PolicyError, PolicyOutput, TokenData
from .regrade import RegradeResult, regrade, regrade_sync
from .store import TrajectoryWriter, export_trajectories, read_trajectories
from .summary import GroupSummary, Summary, pass_at_k, summarize
from .tokens import TokenSegment, TokenSpan, token_segments
from .trajectory import TRAJECTORY_SCHEMA_VERSION, Completion, StepTiming, TokenUsage, Trajectory

__all__ = [
    "CalibrationReport",
    "calibrate",
    "calibrate_sync",
    "TRAJECTORY_SCHEMA_VERSION",
    "DEFAULT_NUDGE",
    "PolicyError",
    "ContextLengthError",
    "PolicyOutput",
    "Policy",
    "OpenAIChatPolicy",
    "RolloutConfig",
    "TokenUsage",
    "StepTiming",
    "Trajectory",
    "TrajectoryWriter",
    "CollectResult",
    "Summary",
    "GroupSummary",
    "run_episode",
    "collect",
    "collect_sync",
    "read_trajectories",
    "summarize",
    "pass_at_k",
    "TokenData",
    "Completion",
    "check_sandbox",
    "export_trajectories",
    "RegradeResult",
    "regrade",
    "regrade_sync",
    "TokenSegment",
    "TokenSpan",
    "token_segments",
]
