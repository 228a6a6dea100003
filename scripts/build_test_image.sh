#!/usr/bin/env bash
# Build the small local Docker image the sandbox tests run against (no registry needed).
#
# A Debian bookworm minbase root file system is made with debootstrap from Debian's own package
# mirror and imported with `docker import`. The result is cached by tag: if the image already
# exists nothing is done. Needs root (debootstrap), apt and a running Docker engine.
#
# Usage: scripts/build_test_image.sh [TAG]      (default: jobenv-test:minbase)
# Env:   JOBENV_DEBIAN_MIRROR  mirror URL (default: the first deb.debian.org-style URI in apt's sources)
set -euo pipefail

TAG="${1:-jobenv-test:minbase}"
SUITE="${JOBENV_DEBIAN_SUITE:-bookworm}"

if docker image inspect "$TAG" >/dev/null 2>&1; then
    echo "image $TAG already present"
    exit 0
fi

if ! command -v debootstrap >/dev/null 2>&1; then
    echo "installing debootstrap with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq debootstrap >/dev/null
fi

MIRROR="${JOBENV_DEBIAN_MIRROR:-}"
if [ -z "$MIRROR" ]; then
    # first plain Debian archive URI from apt's sources (deb822 "URIs:" or one-line "deb URL suite")
    MIRROR="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | grep -oE 'https?://[^ ]+/debian/?( |$)' | grep -v security | head -n1 | tr -d ' ' || true)"
fi
MIRROR="${MIRROR:-http://deb.debian.org/debian}"

WORK="$(mktemp -d /var/tmp/jobenv-rootfs.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
echo "debootstrap $SUITE from $MIRROR into $WORK" >&2
debootstrap --variant=minbase --include=python3-minimal,procps "$SUITE" "$WORK/root" "$MIRROR" >"$WORK/log" 2>&1 || {
    tail -n 30 "$WORK/log" >&2
    echo "debootstrap failed (see above)" >&2
    exit 1
}
# trim caches the image does not need
rm -rf "$WORK/root/var/cache/apt/archives/"*.deb "$WORK/root/var/lib/apt/lists/"* || true
tar -C "$WORK/root" -c . | docker import -c 'CMD ["/bin/bash"]' - "$TAG" >/dev/null
echo "built $TAG"
