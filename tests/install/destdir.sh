#!/bin/bash
# tests/install/destdir.sh - make install DESTDIR=D puts exactly the files of
# expected-files.txt under D, with their modes; the configuration is the
# binary's `gpudoctor config`, the unit runs the installed binary on
# loopback; a second install keeps a changed configuration (the new sample
# beside it); make uninstall removes every file but a changed configuration,
# and that too once it is the sample again.  Message catalogues come from
# LOCALEBUILD (issue 15 builds them; here one stands in).
. "$(dirname "$0")/lib.sh"
D=$TMP/root
mkdir -p "$TMP/locale/zh_CN/LC_MESSAGES"
echo "a stand-in for a catalogue" >"$TMP/locale/zh_CN/LC_MESSAGES/gpudoctor.mo"
m() { make -s --no-print-directory BUILD="$BUILD" DESTDIR="$D" LOCALEBUILD="$TMP/locale" "$@" >"$TMP/make.log" 2>&1 ||
	die "make $*: $(tail -n 20 "$TMP/make.log")"; }
files() { (cd "$D" && find . \( -type f -o -type l \) -printf '/%P %m\n' | sed 's/ \([0-7][0-7][0-7]\)$/ 0\1/' | sort); }

m install
want=$(grep -v '^#' tests/install/expected-files.txt | sort)
got=$(files)
[ "$want" = "$got" ] || die "installed files differ from tests/install/expected-files.txt:
$(diff <(echo "$want") <(echo "$got"))"
"$G" config --config /dev/null | cmp -s - "$D/etc/gpudoctor.conf" || die "etc/gpudoctor.conf is not gpudoctor config's"
grep -qx 'ExecStart=/usr/local/bin/gpudoctor serve --listen 127.0.0.1:9835 --interval 1s' \
	"$D/usr/local/lib/systemd/system/gpudoctor.service" || die "the unit does not run /usr/local/bin/gpudoctor on loopback"
cmp -s "$G" "$D/usr/local/bin/gpudoctor" || die "the installed binary is not $G"
for f in prometheus/alerts.yml grafana/gpudoctor.json; do
	cmp -s "deploy/$f" "$D/usr/local/share/gpudoctor/$f" || die "share/gpudoctor/$f is not deploy/$f"
done

# someone's settings survive an install and an uninstall
echo "[cpu.saturated]"$'\n'"busy_pct = 95" >"$D/etc/gpudoctor.conf"
m install
grep -q 'kept your .*/etc/gpudoctor.conf' "$TMP/make.log" || die "install over a changed configuration did not say so"
[ "$(cat "$D/etc/gpudoctor.conf")" = "[cpu.saturated]"$'\n'"busy_pct = 95" ] || die "install overwrote a changed configuration"
"$G" config --config /dev/null | cmp -s - "$D/etc/gpudoctor.conf.new" || die "no sample beside the changed configuration"
m uninstall
[ "$(files)" = "/etc/gpudoctor.conf 0644" ] || die "uninstall left: $(files)"
"$G" config --config /dev/null >"$D/etc/gpudoctor.conf"
m uninstall
[ -z "$(files)" ] || die "uninstall left the unchanged sample: $(files)"
echo "ok: $(echo "$want" | wc -l) files installed and removed"
