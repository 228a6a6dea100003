"""Ground-truth solver sources. Each file is text that the generator concatenates into a task's
``ground_truth/solve.py`` after ``_io.py`` and a ``PARAMS`` literal; they are not imported as modules."""
