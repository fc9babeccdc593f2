#!/usr/bin/env bash
# Build a local Debian bookworm base image (python3 + venv) without any container registry, or
# (suite jammy) a stand-in for Gradescope's Ubuntu 22.04 base: ubuntu:22.04's apt sources (main,
# universe; updates, security), python3.10 only, so setup.sh must apt-get Python 3.11 itself.
#
#   docker/build-base.sh [TAG [SUITE]]     default: attnkit-base:bookworm bookworm
#   docker/build-base.sh attnkit-base:jammy jammy
#
# Idempotent: reuses the image when `docker image inspect` finds it, and the debootstrap tarball
# cached under $ATTNKIT_CACHE (default /var/cache/attnkit). Needs root, debootstrap and an apt mirror.
set -euo pipefail

TAG="${1:-attnkit-base:bookworm}"
SUITE="${2:-bookworm}"
CACHE="${ATTNKIT_CACHE:-/var/cache/attnkit}"
case "$SUITE" in
    bookworm) MIRROR="${ATTNKIT_MIRROR:-http://deb.debian.org/debian}" ;;
    jammy) MIRROR="${ATTNKIT_UBUNTU_MIRROR:-http://archive.ubuntu.com/ubuntu}" ;;
    *) echo "ERROR suite $SUITE: use bookworm or jammy" >&2; exit 1 ;;
esac
TARBALL="$CACHE/$SUITE-minbase-python3.tar"

if docker image inspect "$TAG" >/dev/null 2>&1; then
    echo "base image $TAG already present"
    exit 0
fi

if [ ! -s "$TARBALL" ]; then
    command -v debootstrap >/dev/null || { echo "ERROR debootstrap is not installed: apt-get install -y debootstrap" >&2; exit 1; }
    mkdir -p "$CACHE"
    ROOTFS="$(mktemp -d "$CACHE/rootfs.XXXXXX")"
    trap 'rm -rf "$ROOTFS"' EXIT
    echo "debootstrap $SUITE into $ROOTFS (a few minutes)"
    include=python3,python3-venv,ca-certificates
    [ "$SUITE" = jammy ] && include=python3,ca-certificates  # like Gradescope's: no venv, no 3.11
    debootstrap --variant=minbase --include="$include" \
        "$SUITE" "$ROOTFS" "$MIRROR" >"$CACHE/debootstrap-$SUITE.log" 2>&1 \
        || { echo "ERROR debootstrap failed; see $CACHE/debootstrap-$SUITE.log" >&2; exit 1; }
    if [ "$SUITE" = jammy ]; then
        printf 'deb %s %s main universe\ndeb %s %s-updates main universe\ndeb %s %s-security main universe\n' \
            "$MIRROR" jammy "$MIRROR" jammy "$MIRROR" jammy > "$ROOTFS/etc/apt/sources.list"
    fi
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
