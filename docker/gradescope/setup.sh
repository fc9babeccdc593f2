#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image. Nothing is downloaded:
# the Python packages come from the wheelhouse bundled in autograder.zip (CPython 3.11, x86_64).
set -euo pipefail
SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

is_311() { "$1" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' >/dev/null 2>&1; }
if ! command -v python3.11 >/dev/null 2>&1 && ! is_311 python3; then
    # Gradescope's Ubuntu base images: Python 3.11 from apt (needs its network at setup time).
    apt-get install -y python3.11 python3.11-venv
fi

sh "$SOURCE/attnkit/docker/install-venv.sh" "$SOURCE/wheelhouse" /opt/attnkit/venv \
    "$SOURCE/attnkit/docker/requirements.txt"
mkdir -p /opt/attnkit/bin
cp -R "$SOURCE/attnkit/autograder" "$SOURCE/attnkit/solutions" "$SOURCE/attnkit/assignments" \
    "$SOURCE/attnkit/pyproject.toml" /opt/attnkit/
cp "$SOURCE/attnkit/docker/entrypoint-grade.sh" /opt/attnkit/bin/
chmod 0755 /opt/attnkit/bin/entrypoint-grade.sh
sh "$SOURCE/attnkit/docker/install-grader.sh" /opt/attnkit /opt/attnkit/venv
# The unpacked zip holds the hidden checks and the reference solution too: root-only from now on.
rm -rf "$SOURCE/wheelhouse"
chmod -R go-rwx "$SOURCE"
echo "attnkit autograder installed in /opt/attnkit"
