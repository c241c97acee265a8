#!/bin/sh
# scripts/nvidia-debs.sh - NVIDIA's own user-space driver pieces for the tests
# (issue 28): libnvidia-ml.so.1, libcuda.so.1, nvidia-smi and nvml.h, driver
# 535.261.03, as Debian 12 ships them in its non-free component.
#
#   scripts/nvidia-debs.sh [DIR]     unpack into DIR (default build/nvidia/535)
#
# The machine's apt configuration is not touched: the sources list, the
# package lists and the download cache are private to DIR/.apt (apt-get -o
# Dir::Etc::sourcelist, Dir::Etc::sourceparts, Dir::State, Dir::Cache), the
# mirror is the one the machine's own Debian sources name, and the archive
# key is Debian's (GD_DEBIAN_MIRROR=URL names another mirror).  The .debs are unpacked with dpkg-deb -x (no maintainer
# scripts, nothing installed).  Idempotent: a DIR that holds a complete
# unpack (DIR/.complete names the version) is left as it is, in
# milliseconds.  Needs no root.
#
# Exit status: 0 ready; 2 the non-free component could not be reached or a
# package is not there (the message says which); 1 anything else.  Tests
# that need the libraries call this and fail under CI=true (skip otherwise).
set -eu
VERSION=535.261.03
# package=version prefix: the driver's three, and nvml.h of CUDA 11.8
PKGS="libnvidia-ml1=$VERSION libcuda1=$VERSION nvidia-smi=$VERSION libnvidia-ml-dev=11.8.86"
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$here/build/nvidia/535}
case $dir in /*) ;; *) dir=$PWD/$dir ;; esac

if [ -f "$dir/.complete" ] && [ "$(cat "$dir/.complete")" = "$VERSION" ]; then
	exit 0
fi
# two tests may ask at once: one fetches, the other waits and finds it done
mkdir -p "$(dirname "$dir")"
if command -v flock >/dev/null 2>&1; then
	exec 9>"$dir.lock"
	flock 9
	if [ -f "$dir/.complete" ] && [ "$(cat "$dir/.complete")" = "$VERSION" ]; then
		exit 0
	fi
fi
for t in apt-get dpkg-deb; do
	command -v "$t" >/dev/null 2>&1 || { echo "nvidia-debs: $t not found (a Debian system is needed)" >&2; exit 1; }
done

# The mirror: the first URIs/deb line of the system's Debian sources for
# the main archive (not -security), else deb.debian.org.
mirror=""
for f in /etc/apt/sources.list.d/*.sources; do
	[ -r "$f" ] || continue
	mirror=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$f")
	[ -n "$mirror" ] && break
done
if [ -z "$mirror" ] && [ -r /etc/apt/sources.list ]; then
	mirror=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list)
fi
mirror=${GD_DEBIAN_MIRROR:-${mirror:-http://deb.debian.org/debian}}
key=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$key" ] || { echo "nvidia-debs: $key missing (install debian-archive-keyring)" >&2; exit 1; }

apt=$dir/.apt
rm -rf "$apt" "$dir/root"
mkdir -p "$apt/sources.list.d" "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs" "$dir/root"
cat >"$apt/sources.list.d/nonfree.sources" <<SRC
Types: deb
URIs: $mirror
Suites: bookworm
Components: non-free
Signed-By: $key
SRC
: >"$apt/status"
set -- -o Dir::Etc::sourcelist=/dev/null -o Dir::Etc::sourceparts="$apt/sources.list.d" \
	-o Dir::Etc::preferencesparts=/dev/null -o Dir::State="$apt" -o Dir::State::Lists="$apt/lists" \
	-o Dir::State::status="$apt/status" -o Dir::Cache="$apt/cache" -o Debug::NoLocking=1 \
	-o APT::Sandbox::User=root -o Acquire::Retries=2 -q
if ! apt-get "$@" update >"$apt/update.log" 2>&1 || grep -q '^\(W\|E\): Failed to fetch' "$apt/update.log"; then
	echo "nvidia-debs: cannot reach Debian's non-free component ($mirror bookworm non-free):" >&2
	grep '^\(W\|E\):' "$apt/update.log" | head -n 5 | sed 's/^/  /' >&2
	exit 2
fi
cd "$apt/debs"
for pv in $PKGS; do
	p=${pv%%=*} want=${pv#*=}
	# the exact version whatever the suffix (535.261.03-1~deb12u1)
	v=$(apt-cache "$@" madison "$p" 2>/dev/null | awk -v want="$want" 'index($3, want) == 1 { print $3; exit }')
	if [ -z "$v" ]; then
		echo "nvidia-debs: $p $want is not in $mirror bookworm non-free (found: $(apt-cache "$@" madison "$p" 2>/dev/null | awk '{ print $3 }' | tr '\n' ' '))" >&2
		exit 2
	fi
	if ! apt-get "$@" download "$p=$v" >>"$apt/download.log" 2>&1; then
		echo "nvidia-debs: cannot download $p=$v from $mirror:" >&2
		tail -n 3 "$apt/download.log" | sed 's/^/  /' >&2
		exit 2
	fi
done
for d in ./*.deb; do
	dpkg-deb -x "$d" "$dir/root"
done
echo "$VERSION" >"$dir/.complete"
echo "nvidia-debs: NVIDIA $VERSION user space unpacked in $dir/root" >&2
