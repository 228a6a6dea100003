# ---- jobenv workflow ground truth: the entry point (last in solve.py, after the workflow's analyse and
# write_outputs) ----
import sys


def main(task_folder, output_dir, naive=()):
    params = PARAMS  # type: ignore[name-defined]  # noqa: F821  (defined above this code in solve.py)
    facts = analyse(task_folder, params, naive)  # type: ignore[name-defined]  # noqa: F821
    write_outputs(output_dir, params, facts)  # type: ignore[name-defined]  # noqa: F821
    return facts


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
