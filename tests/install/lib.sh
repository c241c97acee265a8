# tests/install/lib.sh - shared by the install suite (sourced, not run): the
# binary under test, a temporary directory removed on exit, die and skip.
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
G=${GPUDOCTOR:-$PWD/$BUILD/gpudoctor}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gd-install.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
die() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
[ -x "$G" ] || die "no binary at $G (make all first)"
