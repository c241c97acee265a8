# tests/exporter/lib.bash - shared by the exporter tests (sourced, not run).
# Starts `gpudoctor serve` instances on ephemeral loopback ports, remembers
# every process it started and a temporary directory, and cleans both up on
# exit.  Only loopback addresses; every wait is bounded.
cd "$(dirname "$0")/../.." || exit 1
G=${GPUDOCTOR:-$PWD/${BUILD:-build}/gpudoctor}
FIX=$PWD/tests/exporter/fixtures
TMP=$(mktemp -d /tmp/gd-exporter.XXXXXX)
PIDS=()

cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }
need() { command -v "$1" >/dev/null || skip "$1 not installed (scripts/deps.sh installs ${2:-$1})"; }

[ -x "$G" ] || die "no binary at $G (make all first)"
need curl

# start_serve NAME ARGS...: starts serve on 127.0.0.1:0 and sets ADDR_<NAME>
# (host:port) and PID_<NAME>; waits (at most 10 s) for /healthz to say ok.
start_serve() {
	local name=$1 log addr i
	shift
	log=$TMP/$name.log
	"$G" serve --listen 127.0.0.1:0 "$@" 2>"$log" &
	PIDS+=($!)
	printf -v "PID_$name" %s "$!"
	for i in $(seq 100); do
		addr=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$log" | head -n 1 | sed 's|http://||')
		[ -n "$addr" ] && break
		sleep 0.1
	done
	[ -n "$addr" ] || die "serve $name did not start: $(cat "$log")"
	printf -v "ADDR_$name" %s "$addr"
	for i in $(seq 100); do
		[ "$(curl -s -m 2 "http://$addr/healthz")" = ok ] && return 0
		sleep 0.1
	done
	die "serve $name at $addr never became healthy: $(cat "$log")"
}

# A copy of the healthy fixture with memory nearly exhausted (mem.pressure).
faulty_tree() {
	cp -a "$FIX/healthy" "$TMP/faulty"
	cp "$FIX/faulty-meminfo" "$TMP/faulty/proc/meminfo"
	echo "$TMP/faulty"
}
