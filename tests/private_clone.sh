#!/bin/bash
# tests/private_clone.sh - the tests that switch user pass from a clone in a
# directory only its owner may enter (issue 29): Debian 12 creates home
# directories 0700 and /root is 0700, and a test that runs gpudoctor as
# nobody from such a checkout failed with "Permission denied" (exit 126).
#
#   tests/private_clone.sh          (as root; .ci/run runs it after make test)
#
# Cheap by design: clones HEAD into a 0700 directory (checked: nobody cannot
# enter it), builds only the binary and the fake NVML there, and runs only
# the tests that switch to nobody (e2e/job_threads, e2e/net_remote_latency),
# each as tests/run.sh would, with CI passed through (under CI=true their
# skip fails).  Exit 0 when both pass; 77 without root, git or setpriv
# (a failure under CI).
set -u
cd "$(dirname "$0")/.." || exit 1
ci=${CI:-false}
fail() { echo "FAIL: $*"; exit 1; }
skip() {
	echo "SKIP: $*"
	case $ci in '' | false | 0) exit 77 ;; *) echo "FAIL: a skip under CI"; exit 1 ;; esac
}
[ "$(id -u)" = 0 ] || skip "needs root (the tests switch to nobody)"
command -v git >/dev/null || skip "git is not installed"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
git rev-parse --verify -q HEAD >/dev/null || skip "not a git checkout"

priv=$(mktemp -d "${TMPDIR:-/tmp}/gd-private.XXXXXX") || fail "mktemp"
trap 'rm -rf "$priv"' EXIT INT TERM
chmod 700 "$priv"
# the premise: nobody cannot reach what is inside
if setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$priv" 2>/dev/null; then
	fail "nobody can enter $priv: the test would prove nothing"
fi
git clone -q "$PWD" "$priv/gpudoctor" || fail "git clone into $priv failed"
cd "$priv/gpudoctor" || fail "cd $priv/gpudoctor"
make --no-print-directory -s -j"$(nproc)" BUILD=build build/gpudoctor build/fake_nvml/libnvidia-ml.so.1 \
	>"$priv/make.log" 2>&1 || { tail -n 20 "$priv/make.log"; fail "the build in the clone failed"; }
rc=0
for t in job_threads net_remote_latency; do
	out=$(CI=$ci BUILD=build GPUDOCTOR="$PWD/build/gpudoctor" timeout 300 bash "tests/e2e/$t.sh" 2>&1)
	r=$?
	case $r in
	0) echo "ok e2e/$t (from a clone in a 0700 directory)" ;;
	77)
		echo "skip e2e/$t: $(tail -n 1 <<<"$out")"
		case $ci in '' | false | 0) ;; *) rc=1 ;; esac ;;
	*)
		echo "FAIL e2e/$t from a clone in a 0700 directory (exit $r):"
		tail -n 15 <<<"$out" | sed 's/^/  /'
		rc=1 ;;
	esac
done
exit "$rc"
