#!/usr/bin/env bash
# Build a local Debian bookworm base image (python3 + venv) without any container registry.
#
#   docker/build-base.sh [TAG]        default TAG: attnkit-base:bookworm
#
# Idempotent: reuses the image when `docker image inspect` finds it, and the debootstrap tarball
# cached under $ATTNKIT_CACHE (default /var/cache/attnkit). Needs root, debootstrap and an apt mirror.
set -euo pipefail

TAG="${1:-attnkit-base:bookworm}"
CACHE="${ATTNKIT_CACHE:-/var/cache/attnkit}"
MIRROR="${ATTNKIT_MIRROR:-http://deb.debian.org/debian}"
TARBALL="$CACHE/bookworm-minbase-python3.tar"

if docker image inspect "$TAG" >/dev/null 2>&1; then
    echo "base image $TAG already present"
    exit 0
fi

if [ ! -s "$TARBALL" ]; then
    command -v debootstrap >/dev/null || { echo "ERROR debootstrap is not installed: apt-get install -y debootstrap" >&2; exit 1; }
    mkdir -p "$CACHE"
    ROOTFS="$(mktemp -d "$CACHE/rootfs.XXXXXX")"
    trap 'rm -rf "$ROOTFS"' EXIT
    echo "debootstrap bookworm into $ROOTFS (a few minutes)"
    debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
        bookworm "$ROOTFS" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 \
        || { echo "ERROR debootstrap failed; see $CACHE/debootstrap.log" >&2; exit 1; }
    # Slim the root file system: no apt lists, caches, docs or man pages.
    rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/* \
        "$ROOTFS"/usr/share/doc/* "$ROOTFS"/usr/share/man/* "$ROOTFS"/usr/share/locale/* \
        "$ROOTFS"/var/log/*.log
    tar -C "$ROOTFS" --numeric-owner -cf "$TARBALL.tmp" .
    mv "$TARBALL.tmp" "$TARBALL"
fi

docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["/bin/bash"]' \
    "$TARBALL" "$TAG" >/dev/null
echo "imported base image $TAG from $TARBALL"
