#!/usr/bin/env bash
# Sets up jobenv on a fresh Linux machine: a virtual environment in .venv with the package and its
# dependencies, and the sandbox's toolchain (`jobenv toolchain install`). With --dev it also installs the test tools and, as root, the system packages the test
# suite uses (debootstrap to build the Docker test image, chromium to open the HTML report, LibreOffice
# Calc headless to recalculate workbook formulas as the official judge does, passt for the sandbox's
# network="web" mode, iproute2 for the network tests).
set -euo pipefail
cd "$(dirname "$0")"

dev=0
[ "${1:-}" = "--dev" ] && dev=1

python=""
for cand in python3.13 python3.12 python3.11 python3; do
  if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    python=$cand; break
  fi
done
[ -n "$python" ] || { echo "setup.sh: jobenv needs Python >= 3.11 (none found on PATH)" >&2; exit 1; }

[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
if [ "$dev" = 1 ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[dev]"
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    missing=()
    command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
    command -v chromium >/dev/null 2>&1 || missing+=(chromium)
    command -v soffice >/dev/null 2>&1 || missing+=(libreoffice-calc-nogui)
    command -v pasta >/dev/null 2>&1 || missing+=(passt)
    command -v ip >/dev/null 2>&1 || missing+=(iproute2)
    if [ ${#missing[@]} -gt 0 ]; then
      echo "setup.sh: installing ${missing[*]} (Debian packages used by the tests)"
      for attempt in 1 2 3; do  # a mirror hiccup should not fail the whole set-up
        apt-get update -qq >/dev/null \
          && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
          && break
        [ "$attempt" = 3 ] && { echo "setup.sh: apt-get could not install ${missing[*]}" >&2; exit 1; }
        sleep 5
      done
    fi
  fi
else
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[all]"
fi
# the knowledge worker's toolchain for the local sandbox (pinned Python packages in a venv under
# ~/.cache/jobenv-toolchain, ~1.2 GB; as root also the Debian packages of its command-line tools); kept when present
.venv/bin/jobenv toolchain install
echo "setup.sh: ready ($(.venv/bin/python --version), jobenv $(.venv/bin/python -c 'import jobenv; print(jobenv.__version__)'))"
