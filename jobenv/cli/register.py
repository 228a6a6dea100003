"""``jobenv register``: make another tool's own command line find jobenv (today: evalscope's ``jobenv`` benchmark)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Literal

__all__ = ["NAME", "HELP", "Options", "add_arguments", "run"]

NAME = "register"
HELP = "register jobenv with another tool's command line (evalscope: `evalscope eval --datasets jobenv`)"


@dataclass(frozen=True)
class Options:
    tool: Literal["evalscope"]
    remove: bool


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("tool", choices=["evalscope"],
                   help="evalscope: add the jobenv benchmark to the installed evalscope's benchmark discovery")
    p.add_argument("--remove", action="store_true", help="undo a registration (default: register)")


def run(opts: Options) -> int:
    """MissingExtraError when the tool is not installed, JobenvError when its installation cannot be written
    (both exit 2, one line, nothing changed)."""
    from ..integrations import evalscope_register

    if opts.remove:
        found = evalscope_register.unregister()
        print("removed the jobenv benchmark from evalscope" if found else "evalscope had no jobenv benchmark registered")
        return 0
    path = evalscope_register.register()
    print(f"registered the jobenv benchmark with evalscope ({path}); run: evalscope eval --datasets jobenv "
          "--dataset-args '{\"jobenv\": {\"subset_list\": [\"sample\"]}}' --model MODEL --api-url URL --eval-type openai_api")
    return 0
