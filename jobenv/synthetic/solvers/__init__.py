"""Ground-truth solvers, one module per profession workflow (``survival.py``, ...). Each module is also the text of
a task's ``ground_truth/solve.py``, after a ``PARAMS`` literal; the generator imports them to compute the truth and
the tests re-run the written scripts and compare."""
