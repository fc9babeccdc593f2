#!/bin/sh
# Entry point of the grader image: runs `attnkit ARGS...` (grade, grade-batch, release, --help).
# Works under `docker run --read-only` (only /tmp is writable) and in Gradescope's run_autograder.
# ATTNKIT_OUT_OWNER=uid:gid hands /srv/attnkit/out to that host user afterwards (the grader runs
# as root).
set -eu
ATTNKIT_ROOT=${ATTNKIT_ROOT:-/opt/attnkit}
export ATTNKIT_ROOT
export PATH="$ATTNKIT_ROOT/venv/bin:$PATH"
export MPLBACKEND=Agg PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
# matplotlib wants a writable config folder: a copy of the font cache built into the image.
MPLCONFIGDIR=/tmp/attnkit-matplotlib
export MPLCONFIGDIR
mkdir -p "$MPLCONFIGDIR"
cp -R "$ATTNKIT_ROOT/mplconfig/." "$MPLCONFIGDIR/" 2>/dev/null || true
if [ -n "${ATTNKIT_OUT_OWNER:-}" ] && [ -d /srv/attnkit/out ]; then
    status=0
    attnkit "$@" || status=$?
    chown -R "$ATTNKIT_OUT_OWNER" /srv/attnkit/out
    exit "$status"
fi
exec attnkit "$@"
