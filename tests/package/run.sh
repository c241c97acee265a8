#!/bin/bash
# tests/package/run.sh - `make package-test`: the Debian package, built from
# this tree and used as an operator would.  Needs root (apt-get, dpkg), so
# it is not part of tests/run.sh; .ci/run runs it after make test.
#
#   1. make deb twice, into two directories: the .debs must be byte-identical
#      (SOURCE_DATE_EPOCH from debian/changelog; different build paths)
#   2. lintian on the .changes: no error (warnings are printed)
#   3. apt-get install ./gpudoctor_*.deb, so Depends are resolved for real
#   4. the installed /usr/bin/gpudoctor: --version (this tree's commit),
#      /etc/gpudoctor.conf (a conffile, the binary's own sample, read by
#      default), check --window 200ms, serve on a free loopback port then
#      SIGTERM, the unit enabled and passing systemd-analyze verify (no
#      running systemd needed), the man page and bash completion found
#   5. apt-get remove keeps only the changed conffile (and systemd's
#      enablement state); apt-get purge leaves nothing named gpudoctor
#   6. make install DESTDIR's file list (tests/install/destdir.sh)
# GD_DEB_FROM=DIR reuses the packages of an earlier make deb DEBDIR=DIR (by
# hand only: it skips step 1).
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gd-package.XXXXXX") || exit 1
installed_here=false
cleanup() {
	$installed_here && DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq gpudoctor >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT
die() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
step() { echo "== $* ($SECONDS s)"; }
[ "$(id -u)" = 0 ] || skip "needs root (apt-get install, dpkg): run as root, as CI does"
for t in dpkg-buildpackage dh lintian fakeroot systemd-analyze apt-get; do
	command -v $t >/dev/null || skip "$t is missing (scripts/deps.sh installs it: make deps)"
done
# names under the system's directories that are ours (none before, none after)
# (but /var/cache/man: man-db's cache of pages it formatted, which
# systemd-analyze's check of Documentation=man:gpudoctor(1) fills, is man-db's
# to expire, not the package's)
ours() {
	find /etc /usr /lib /var /opt /srv -xdev -name '*gpudoctor*' 2>/dev/null | grep -v -e "^$TMP" -e '^/var/cache/man/' | sort
}
[ -z "$(ours)" ] || die "gpudoctor is on this system already (apt-get purge gpudoctor; make uninstall):
$(ours)"

if [ -n "${GD_DEB_FROM:-}" ]; then
	# a developer's rerun on the packages of an earlier make deb; never in CI
	[ "${CI:-}" = true ] && die "GD_DEB_FROM is for reruns by hand: CI builds the packages"
	step "GD_DEB_FROM=$GD_DEB_FROM: no build, no reproducibility check"
	mkdir -p "$TMP/a" && cp "$GD_DEB_FROM"/*.deb "$GD_DEB_FROM"/*.changes "$GD_DEB_FROM"/*.buildinfo "$TMP/a/"
else
	step "make deb, twice"
	for d in a b; do
		make -s --no-print-directory deb DEBDIR="$TMP/$d" >"$TMP/deb-$d.log" 2>&1 ||
			die "make deb: $(tail -n 30 "$TMP/deb-$d.log")"
	done
	for f in "$TMP"/a/*.deb; do
		cmp "$f" "$TMP/b/$(basename "$f")" || die "not reproducible: $(basename "$f") differs between two builds"
		echo "reproducible: $(basename "$f") $(sha256sum <"$f" | cut -c1-16) $(stat -c %s "$f") bytes"
	done
fi
deb=$(ls "$TMP"/a/gpudoctor_*_*.deb) || die "no .deb in $TMP/a"
# every file's time is SOURCE_DATE_EPOCH, the date of debian/changelog
sde=$(date -u -d "@$(dpkg-parsechangelog -l debian/changelog -S Timestamp)" '+%Y-%m-%d %H:%M:%S')
times=$(dpkg-deb --fsys-tarfile "$deb" | TZ=UTC tar --full-time -tvf - | awk '{print $4, $5}' | sort -u)
[ "$times" = "$sde" ] || die "the files of $(basename "$deb") are not all dated $sde (SOURCE_DATE_EPOCH): $times"

step "lintian"
lintian --fail-on error --display-info --pedantic "$TMP"/a/*.changes >"$TMP/lintian.log" 2>&1
rc=$?
grep -v 'running with root privileges' "$TMP/lintian.log"
[ $rc -eq 0 ] || die "lintian reports errors"

step "apt-get install $(basename "$deb")"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$deb" >"$TMP/apt.log" 2>&1 || die "apt-get install: $(tail -n 20 "$TMP/apt.log")"
installed_here=true
dpkg -L gpudoctor | sort >"$TMP/files"
echo "installed size: $(dpkg-query -W -f='${Installed-Size}' gpudoctor) KiB; files:"
while read -r f; do [ -d "$f" ] || echo "  $f"; done <"$TMP/files"
G=/usr/bin/gpudoctor
[ -x $G ] || die "no $G"
dpkg-query -W -f='${Conffiles}\n' gpudoctor | grep -q '^ /etc/gpudoctor.conf ' || die "/etc/gpudoctor.conf is no conffile"
$G config --config /dev/null | cmp -s - /etc/gpudoctor.conf || die "/etc/gpudoctor.conf is not the binary's sample"
out=$($G --version) || die "$G --version failed"
echo "$out" | sed 's/^/  /'
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$PWD" ]; then
	grep -q "^commit: $(git rev-parse --short=12 HEAD)\(-dirty\)\? (built from git)$" <<<"$out" ||
		die "the package does not say this tree's commit"
fi
man -w gpudoctor | grep -qx '/usr/share/man/man1/gpudoctor.1.gz' || die "man -w gpudoctor: $(man -w gpudoctor 2>&1)"
bash --norc --noprofile -c '. /usr/share/bash-completion/bash_completion; __load_completion gpudoctor; complete -p gpudoctor' |
	grep -q -- '-F _gpudoctor gpudoctor$' || die "bash-completion does not load the installed completion"

step "the installed gpudoctor against the installed configuration"
# a changed setting in the conffile is read by default
sed -i '/^\[cpu.saturated\]/,/^\[/ s/^#busy_pct = 90$/busy_pct = 77/' /etc/gpudoctor.conf
$G rules | grep -q -- '--set cpu.saturated.busy_pct=77 ' || die "the installed gpudoctor does not read /etc/gpudoctor.conf"
$G check --window 200ms --no-color >"$TMP/check.out" 2>&1
rc=$?
[ $rc -le 2 ] || die "check --window 200ms exited $rc: $(tail -n 20 "$TMP/check.out")"
echo "check --window 200ms: exit $rc, $(grep '^checked:' "$TMP/check.out")"
$G serve --listen 127.0.0.1:0 --interval 100ms 2>"$TMP/serve.log" &
spid=$!
addr=
for _ in $(seq 100); do
	addr=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$TMP/serve.log" 2>/dev/null | head -n 1)
	[ -n "$addr" ] && [ "$(curl -s -m 2 "$addr/healthz")" = ok ] && break
	addr=
	sleep 0.1
done
[ -n "$addr" ] || { kill $spid; die "serve did not become healthy: $(cat "$TMP/serve.log")"; }
curl -s -m 5 "$addr/metrics" | grep -q '^gpudoctor_build_info{version=' || { kill $spid; die "$addr/metrics"; }
kill -TERM $spid
wait $spid
rc=$?
[ $rc -eq 0 ] || die "serve exited $rc on SIGTERM: $(cat "$TMP/serve.log")"
echo "serve: healthy at $addr, /metrics served, exit 0 on SIGTERM"

step "the systemd unit"
unit=$(grep '/systemd/system/gpudoctor.service$' "$TMP/files") || die "no unit in the package"
grep -qx "ExecStart=$G serve --listen 127.0.0.1:9835 --interval 1s" "$unit" || die "$unit does not run $G on loopback"
grep -qx 'DynamicUser=yes' "$unit" || die "$unit: no DynamicUser"
systemd-analyze verify "$unit" >"$TMP/verify.log" 2>&1 || die "systemd-analyze verify $unit: $(cat "$TMP/verify.log")"
[ ! -s "$TMP/verify.log" ] || die "systemd-analyze verify $unit warns: $(cat "$TMP/verify.log")"
# enabled by the postinst (deb-systemd-helper): the link systemctl enable makes
[ "$(readlink /etc/systemd/system/multi-user.target.wants/gpudoctor.service)" = "$unit" ] ||
	die "the unit is not enabled (no multi-user.target.wants link to $unit)"
echo "$unit: verified, enabled (PID 1 here: $(ps -o comm= -p 1))"

step "apt-get remove, then purge"
DEBIAN_FRONTEND=noninteractive apt-get remove -y -q gpudoctor >"$TMP/apt.log" 2>&1 || die "apt-get remove: $(tail "$TMP/apt.log")"
[ ! -e $G ] || die "remove left $G"
[ -e /etc/gpudoctor.conf ] || die "remove deleted the changed conffile (policy keeps it until purge)"
# configuration is kept until purge: the conffile, dpkg's record of it, and
# the unit's enablement (deb-systemd-helper's state and the wants link, so
# that a reinstall comes back enabled or disabled as the admin left it)
left=$(ours | grep -v -x -e /etc/gpudoctor.conf -e '/var/lib/systemd/deb-systemd-helper-.*' \
	-e '/etc/systemd/system/multi-user.target.wants/gpudoctor.service' -e '/etc/systemd/system/gpudoctor.service' \
	-e '/var/lib/dpkg/info/gpudoctor\..*')
[ -z "$left" ] || die "remove left more than the conffile and systemd's state: $left"
echo "after remove: $(ours | tr '\n' ' ')"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q gpudoctor >"$TMP/apt.log" 2>&1 || die "apt-get purge: $(tail "$TMP/apt.log")"
installed_here=false
[ -z "$(ours)" ] || die "purge left: $(ours)"
while read -r f; do
	[ -d "$f" ] || [ ! -e "$f" ] || die "purge left $f"
done <"$TMP/files"
echo "after purge: nothing named gpudoctor under /etc /usr /lib /var /opt /srv"

step "make install DESTDIR"
BUILD=$BUILD tests/install/destdir.sh || die "tests/install/destdir.sh"
echo "ok ($SECONDS s)"
