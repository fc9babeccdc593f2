#!/bin/sh
# The grader's runtime around the Python environment of install-venv.sh; no grader source.
# Used by docker/Dockerfile (the public image: runtime only) and by install-grader.sh.
#
#   install-runtime.sh VENV
#
# Writes the `attnkit` launcher (it imports the grader source from ATTNKIT_ROOT, which the entry
# points put on PYTHONPATH), caches matplotlib's fonts in DIR/mplconfig (DIR: VENV's parent),
# creates the user `attnkit-student` and the root-only folder /srv/attnkit (where grading
# containers mount the grader source, submissions and results).
set -eu
STUDENT_USER=attnkit-student
STUDENT_UID=10001

die() { echo "ERROR $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: install-runtime.sh VENV"
venv=$1
runtime=$(dirname "$venv")
cat > "$venv/bin/attnkit" <<SCRIPT
#!$venv/bin/python
import sys
from autograder.cli import main
sys.exit(main())
SCRIPT
chmod 0755 "$venv/bin/attnkit"
mkdir -p "$runtime/mplconfig"
MPLCONFIGDIR="$runtime/mplconfig" "$venv/bin/python" -c 'import matplotlib.font_manager'
chmod -R a+rX,go-w "$runtime/mplconfig"
if ! id "$STUDENT_USER" >/dev/null 2>&1; then
    useradd --uid "$STUDENT_UID" --user-group --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin "$STUDENT_USER"
fi
mkdir -p /srv/attnkit
chmod 0700 /srv/attnkit
