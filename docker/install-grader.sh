#!/bin/sh
# Install attnkit's grader source on top of the environment of install-venv.sh and the runtime
# of install-runtime.sh. Used by Gradescope's setup.sh (Gradescope's images are private to the
# course; the public grader image carries the runtime only).
#
#   install-grader.sh ROOT VENV
#
# Makes the source at ROOT importable from VENV (an attnkit.pth), precompiles it, and makes the
# secrets root-only: the grader reads them as root; student code runs as another uid.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)

# Under ROOT, only the grader (root) may read: the whole grader package (hidden checks, mistake
# catalogue, reference weights) and the reference solution. Workers import nothing from it once
# they have dropped privileges: the template process pre-imports all they run.
SECRETS="autograder solutions"

die() { echo "ERROR $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: install-grader.sh ROOT VENV"
root=$1 venv=$2
sh "$HERE/install-runtime.sh" "$venv"
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$root" > "$site/attnkit.pth"
chmod 0644 "$site/attnkit.pth"
find "$root" -path "$venv" -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
"$venv/bin/python" -m compileall -q "$root/autograder"
# Everything but the venv: touching its files again would copy all of them into a new layer.
find "$root" -path "$venv" -prune -o -exec chown root:root {} + -exec chmod a+rX,go-w {} +
for secret in $SECRETS; do
    [ -e "$root/$secret" ] && chmod -R go-rwx "$root/$secret"
done
