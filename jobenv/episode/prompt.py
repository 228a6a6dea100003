"""The agent's prompt: jobenv's own wrapper around a task's ``TASK_INSTRUCTIONS.txt``.

It carries every point of the official runners' wrapper (see the JobBench spec, "What the agent is told"):
where the task folder and the output folder are, to read the instructions and the listed reference files,
to complete the task, to save only final deliverables (no scratch files) in the output folder, to stay
inside the workspace, to explain how conflicting or ambiguous information was resolved, to use tools or
code for binary formats, and to save a modified database or workbook's final copy in the output folder.
The wording is jobenv's own. Building a prompt never fails for a loaded task.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .rules import EpisodeRules

if TYPE_CHECKING:
    from ..tasks import Task

__all__ = ["TASK_FOLDER", "OUTPUT_DIR", "build_prompt"]

TASK_FOLDER = "/workspace/task_folder"
OUTPUT_DIR = "/workspace/output"


def _tool_list(extra: tuple[str, ...] = ()) -> str:
    from ..tools import SUBMIT, tool_names

    names = [n for n in tool_names(extra) if n != SUBMIT]
    return ", ".join(names[:-1]) + " and " + names[-1]


def build_prompt(
    task: Task,
    *,
    rules: EpisodeRules | None = None,
    network: bool = False,
    include_instructions: bool = True,
    software: str | None = None,
) -> str:
    """The full first message for ``task``.

    ``network`` says whether the sandbox can reach the internet (the prompt then allows online search);
    ``rules`` (default: unlimited) are stated so the agent can budget, with the truncation rule in force; ``include_instructions`` embeds the
    text of TASK_INSTRUCTIONS.txt after the wrapper (the file stays in the task folder either way); ``software``
    is the sandbox's own account of its software (:meth:`~jobenv.sandbox.base.Sandbox.software_note`).
    """
    if task.harbor is not None:  # a Harbor task's own instruction, with jobenv's note on tools and budget
        from ..harbor.run import harbor_prompt

        return harbor_prompt(task, rules=rules or EpisodeRules(max_steps=None), network=network,
                             tools=_tool_list(rules.tools if rules else ()))
    outside = (
        "You may also look up public information online."
        if network
        else "There is no internet access: rely on the files you were given."
    )
    rules = rules or EpisodeRules(max_steps=None)
    budget = rules.describe_budget()
    budget_line = f"- {budget}\n" if budget else ""
    parts = [
        "You are working on a professional task inside a sandboxed Linux workspace.\n",
        "Where things are:\n"
        f"- The task folder is {TASK_FOLDER}. Start by reading {TASK_FOLDER}/TASK_INSTRUCTIONS.txt, then read "
        "every reference file it lists (they are in the same folder).\n"
        f"- The output folder is {OUTPUT_DIR}. It starts empty, and only what is in it at the end is graded.\n",
        "How to work:\n"
        "- Complete the task fully, as a careful professional would, and produce every deliverable it asks for.\n"
        f"- Save ONLY your final deliverables in {OUTPUT_DIR}, with the file names and formats the task asks "
        "for. Keep drafts, helper scripts and scratch files elsewhere in /workspace, never in the output folder.\n"
        "- If the task asks you to modify a database or a workbook, save the final modified copy in "
        f"{OUTPUT_DIR} (the copy in the task folder is not graded).\n"
        f"- Stay inside /workspace: do not read or write files anywhere else on the machine. {outside}\n"
        "- When the sources conflict, or something is ambiguous or missing, make a reasonable decision and "
        "explain in your deliverables how you resolved it (which source you trusted and why, what you assumed).\n"
        "- Binary formats (xlsx, docx, pptx, pdf, SQLite .db) cannot be handled as plain text: open them with "
        "the read tool (it shows their extracted text) or with code you run through bash, and produce such "
        "files with code as well (for example a Python script).\n"
        + (software or "")
        + budget_line,
        f"Tools: {_tool_list(rules.tools)}. Paths are relative to "
        "/workspace (absolute paths must stay under it). When every deliverable is saved in the output folder, "
        "call submit: it grades the output folder and ends the episode, so call it exactly once, at the end.\n",
    ]
    if include_instructions:
        parts.append(
            f"The task instructions ({TASK_FOLDER}/TASK_INSTRUCTIONS.txt) follow between the markers.\n"
            "<<<TASK_INSTRUCTIONS\n"
            f"{task.instructions.strip()}\n"
            "TASK_INSTRUCTIONS>>>\n"
        )
    return "\n".join(parts)
