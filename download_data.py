#!/usr/bin/env python3
"""Download JobBench (or JobTasks) into jobenv's data directory; the same as ``jobenv download``.

    python download_data.py                       # JobBench at the pinned revision
    python download_data.py --revision <sha>      # another revision
    python download_data.py --from-dir SNAPSHOT   # import a snapshot already on disk (offline)
"""

import sys

from jobenv.cli import main

if __name__ == "__main__":
    sys.exit(main(["download", *sys.argv[1:]]))
