#!/bin/sh
# Install the grader's Python environment offline. Used by docker/Dockerfile and Gradescope's setup.sh.
#
#   install-venv.sh WHEELHOUSE VENV REQUIREMENTS [CONSTRAINTS]
#
# Creates VENV with CPython 3.11, installs REQUIREMENTS from WHEELHOUSE only (no index) or, when
# WHEELHOUSE is "-", from PyPI and PyTorch's CPU index (ATTNKIT_TORCH_INDEX overrides it), pinned
# by CONSTRAINTS when given. Then it drops
# what grading never uses (torch's tests, headers and test binaries, other packages' tests, pip),
# caches the bytecode of what grading imports (warmup.py, beside this script, which is also the
# smoke test that fails a broken install) and leaves everything world-readable: student code, run
# as another uid, uses the same Python.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)

die() { echo "ERROR $*" >&2; exit 1; }

find_python() {
    for candidate in python3.11 python3; do
        if command -v "$candidate" >/dev/null 2>&1 \
            && "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
            command -v "$candidate"
            return 0
        fi
    done
    die "attnkit's wheelhouse is built for CPython 3.11 and no python3.11 is installed here"
}

[ $# -eq 3 ] || [ $# -eq 4 ] || die "usage: install-venv.sh WHEELHOUSE|- VENV REQUIREMENTS [CONSTRAINTS]"
wheelhouse=$1 venv=$2 requirements=$3 constraints=${4:-}
if [ "$wheelhouse" = "-" ]; then
    index=${ATTNKIT_TORCH_INDEX-https://download.pytorch.org/whl/cpu}
    source=${index:+--extra-index-url $index}
else
    [ -d "$wheelhouse" ] || die "$wheelhouse: no wheelhouse"
    source="--no-index --find-links $wheelhouse"
fi
python=$(find_python)
"$python" -m venv "$venv" || die "python -m venv failed: install python3-venv"
# --no-compile, then the warm-up: only the modules grading imports get cached bytecode
# (about 50 MB instead of 160 MB for every module of every package).
# shellcheck disable=SC2086
"$venv/bin/python" -m pip install --quiet --no-cache-dir --no-compile --disable-pip-version-check \
    $source -r "$requirements" ${constraints:+-c "$constraints"} \
    || die "pip install into $venv failed"
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
rm -rf "$site/torch/test" "$site/torch/include" "$site/torch/share/cmake"
find "$site/torch/bin" -mindepth 1 -maxdepth 1 ! -name torch_shm_manager -exec rm -rf {} +
find "$site" -depth -type d -name tests ! -path "$site/torch/*" -exec rm -rf {} +
"$venv/bin/python" -m pip uninstall --quiet --yes pip setuptools >/dev/null 2>&1 || true
scratch=$(mktemp -d)
(cd "$scratch" && env -u PYTHONDONTWRITEBYTECODE MPLCONFIGDIR="$scratch/mpl" \
    "$venv/bin/python" "$HERE/warmup.py") || die "the warm-up of $venv failed"
rm -rf "$scratch"
chmod -R a+rX,go-w "$venv"
