#!/usr/bin/env bash
# What the Docker, browser and nbgrader tests need on a CI machine; safe to run again and again.
#   1. docker.io, debootstrap, chromium and a CJK font from apt, when missing (apt-get update first);
#   2. dockerd in the background when no engine answers, then wait for it;
#   3. the registry-free local base image (docker/build-base.sh), when missing.
# Needs root. Log of dockerd: /tmp/dockerd.log.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v docker >/dev/null 2>&1 || need+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || need+=(chromium)
dpkg -s fonts-wqy-zenhei >/dev/null 2>&1 || need+=(fonts-wqy-zenhei)  # CJK glyphs for zh pages and plots
if [ ${#need[@]} -gt 0 ]; then
    echo "ci-prereqs: installing ${need[*]}"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"
    # matplotlib caches the font list: drop it so that a font installed now is found.
    rm -f "${HOME:-/root}"/.cache/matplotlib/fontlist-*.json
fi

if ! docker info >/dev/null 2>&1; then
    echo "ci-prereqs: starting dockerd"
    nohup dockerd >/tmp/dockerd.log 2>&1 &
    for _ in $(seq 1 60); do
        docker info >/dev/null 2>&1 && break
        sleep 1
    done
    docker info >/dev/null 2>&1 || { echo "ERROR dockerd did not start; see /tmp/dockerd.log" >&2; exit 1; }
fi

docker/build-base.sh attnkit-base:bookworm
