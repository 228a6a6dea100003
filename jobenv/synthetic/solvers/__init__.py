"""Ground-truth solvers. Each module is also the text of a task's ``ground_truth/solve.py``, after a ``PARAMS``
literal: ``engine.py`` for the scenario families, one module per profession workflow (``survival.py``, ...).
The generator imports them to compute the truth; the tests re-run the written scripts and compare."""
