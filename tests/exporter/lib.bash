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

# start_serve NAME ARGS...: starts serve on 127.0.0.1:0 (SERVE_IP:0 when set)
# and sets ADDR_<NAME> (host:port) and PID_<NAME>; waits (at most 10 s) for
# /healthz to say ok.
start_serve() {
	local name=$1 log addr i ip=${SERVE_IP:-127.0.0.1}
	shift
	log=$TMP/$name.log
	"$G" serve --listen "$ip:0" "$@" 2>"$log" &
	PIDS+=($!)
	printf -v "PID_$name" %s "$!"
	for i in $(seq 100); do
		addr=$(grep -o "http://${ip//./\\.}:[0-9]*" "$log" | head -n 1 | sed 's|http://||')
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

# start_prometheus CONFIG [FLAG...]: a Prometheus on a free loopback port
# with its TSDB in $TMP; sets P (its URL) or dies.
start_prometheus() {
	local cfg=$1 try port i
	shift
	P=""
	for try in 1 2 3; do
		port=$((20000 + RANDOM % 40000))
		ss -Hltn "sport = :$port" | grep -q . && continue
		prometheus --config.file="$cfg" --storage.tsdb.path="$TMP/tsdb" \
			--web.listen-address="127.0.0.1:$port" --log.level=warn "$@" 2>"$TMP/prometheus.log" &
		PIDS+=($!)
		for i in $(seq 100); do
			curl -sf -m 1 "http://127.0.0.1:$port/-/ready" >/dev/null && { P="http://127.0.0.1:$port"; break; }
			kill -0 $! 2>/dev/null || break
			sleep 0.2
		done
		[ -n "$P" ] && break
	done
	[ -n "$P" ] || die "Prometheus did not start: $(tail -n 5 "$TMP/prometheus.log")"
}
