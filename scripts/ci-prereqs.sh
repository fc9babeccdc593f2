#!/usr/bin/env bash
# What the Docker, browser and nbgrader tests need on a CI machine; safe to run again and again.
#   1. docker.io, debootstrap, chromium and a CJK font from apt, when missing (apt-get update first);
#      a docker *client* alone is not an engine: docker.io is installed unless an engine answers
#      or a dockerd binary exists;
#   2. dockerd in the background when no engine answers (a stale pid file is removed), then wait;
#   3. the registry-free local base image (docker/build-base.sh), when missing.
# Needs root. Log of dockerd: /tmp/dockerd.log.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
engine_up() { command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; }
engine_up || command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
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

if ! engine_up; then
    echo "ci-prereqs: starting dockerd"
    # A dockerd killed with its machine leaves its pid file behind and refuses to start again.
    if [ -f /var/run/docker.pid ] && ! kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null; then
        rm -f /var/run/docker.pid
    fi
    # Its own session: a shell or CI step that ends by killing its process group leaves it running.
    nohup setsid dockerd >/tmp/dockerd.log 2>&1 &
    for _ in $(seq 1 60); do
        engine_up && break
        sleep 1
    done
    engine_up || { echo "ERROR dockerd did not start; see /tmp/dockerd.log" >&2; exit 1; }
fi

docker/build-base.sh attnkit-base:bookworm
