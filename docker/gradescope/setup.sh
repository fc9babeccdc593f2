#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (base image: Ubuntu
# 22.04, gradescope/autograder-base). With the offline zip, the Python packages come from the
# bundled wheelhouse (CPython 3.11, manylinux x86-64, CPU-only torch); the small (--online) zip
# installs the same pinned versions from PyPI and PyTorch's CPU index. Python 3.11 itself comes
# from apt when the image lacks it.
set -euo pipefail
SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

is_311() { "$1" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' >/dev/null 2>&1; }
has_venv() { "$1" -c 'import ensurepip, venv' >/dev/null 2>&1; }
has_seccomp() { ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2'; }
python=""
for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1 && is_311 "$candidate"; then python=$candidate; break; fi
done
if [ -z "$python" ] || ! has_venv "$python" || ! has_seccomp; then
    # Gradescope's Ubuntu 22.04 base: Python 3.11 and libseccomp from apt (network at setup time).
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        python3.11 python3.11-venv libseccomp2
fi

wheelhouse="$SOURCE/wheelhouse"
[ -d "$wheelhouse" ] || wheelhouse=-   # the small zip: from the package indexes
sh "$SOURCE/attnkit/docker/install-venv.sh" "$wheelhouse" /opt/attnkit/venv \
    "$SOURCE/attnkit/docker/requirements.txt" "$SOURCE/attnkit/docker/constraints.txt"
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
