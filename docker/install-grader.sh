#!/bin/sh
# Install attnkit's grader source on top of the environment of install-venv.sh.
# Used by docker/Dockerfile and Gradescope's setup.sh.
#
#   install-grader.sh ROOT VENV
#
# Makes the source at ROOT importable from VENV (an attnkit.pth and an `attnkit` script),
# precompiles it, caches matplotlib's fonts, creates the user `attnkit-student` and the root-only
# folder /srv/attnkit (where grading containers mount submissions and results), and makes the
# secrets root-only: the grader reads them as root; student code runs as another uid.
set -eu

# Under ROOT, only the grader (root) may read: the whole grader package (hidden checks, mistake
# catalogue, reference weights) and the reference solution. Workers import nothing from it once
# they have dropped privileges: the template process pre-imports all they run.
SECRETS="autograder solutions"
STUDENT_USER=attnkit-student
STUDENT_UID=10001

die() { echo "ERROR $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: install-grader.sh ROOT VENV"
root=$1 venv=$2
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$root" > "$site/attnkit.pth"
chmod 0644 "$site/attnkit.pth"
cat > "$venv/bin/attnkit" <<SCRIPT
#!$venv/bin/python
import sys
from autograder.cli import main
sys.exit(main())
SCRIPT
chmod 0755 "$venv/bin/attnkit"
find "$root" -path "$venv" -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
"$venv/bin/python" -m compileall -q "$root/autograder"
mkdir -p "$root/mplconfig"
MPLCONFIGDIR="$root/mplconfig" "$venv/bin/python" -c 'import matplotlib.font_manager'
if ! id "$STUDENT_USER" >/dev/null 2>&1; then
    useradd --uid "$STUDENT_UID" --user-group --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin "$STUDENT_USER"
fi
mkdir -p /srv/attnkit
chmod 0700 /srv/attnkit
# Everything but the venv: touching its files again would copy all of them into a new layer.
find "$root" -path "$venv" -prune -o -exec chown root:root {} + -exec chmod a+rX,go-w {} +
for secret in $SECRETS; do
    [ -e "$root/$secret" ] && chmod -R go-rwx "$root/$secret"
done
