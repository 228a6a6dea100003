"""The ``jobenv`` command line (``jobenv COMMAND --help``); see :mod:`jobenv.cli.main`."""

from __future__ import annotations

from .main import build_parser, main

__all__ = ["build_parser", "main"]
