#!/bin/sh
# Entry point of the grader image: runs `attnkit ARGS...` (grade, grade-batch, run-prairielearn).
# The image carries the runtime only; the grader source (hidden checks, reference, weights) comes
# from ATTNKIT_ROOT: mounted read-only at /srv/attnkit/grader by `attnkit grade --docker`, in
# /grade/tests/attnkit on PrairieLearn, installed in /opt/attnkit by Gradescope's setup.sh.
# Works under `docker run --read-only` (only /tmp is writable).
# ATTNKIT_OUT_OWNER=uid:gid hands /srv/attnkit/out to that host user afterwards (the grader runs
# as root).
set -eu
RUNTIME=/opt/attnkit
ATTNKIT_ROOT=${ATTNKIT_ROOT:-$RUNTIME}
if [ ! -d "$ATTNKIT_ROOT/autograder" ]; then
    echo "ERROR no attnkit grader source in $ATTNKIT_ROOT (ATTNKIT_ROOT): this image carries the" \
         "runtime only; mount the source's autograder/ and solutions/ there (attnkit grade --docker does)" >&2
    exit 2
fi
export ATTNKIT_ROOT
export PYTHONPATH="$ATTNKIT_ROOT"
export PATH="$RUNTIME/venv/bin:$PATH"
export MPLBACKEND=Agg PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
# matplotlib wants a writable config folder: a copy of the font cache built into the image.
MPLCONFIGDIR=/tmp/attnkit-matplotlib
export MPLCONFIGDIR
mkdir -p "$MPLCONFIGDIR"
cp -R "$RUNTIME/mplconfig/." "$MPLCONFIGDIR/" 2>/dev/null || true
if [ -n "${ATTNKIT_OUT_OWNER:-}" ] && [ -d /srv/attnkit/out ]; then
    status=0
    attnkit "$@" || status=$?
    chown -R "$ATTNKIT_OUT_OWNER" /srv/attnkit/out
    exit "$status"
fi
exec attnkit "$@"
