#!/bin/sh
# Installs the Debian packages the build and the tests need, when run as root;
# otherwise prints the one apt-get line to run.  Idempotent and quick when all
# are present.
set -e
PKGS="gcc make pkg-config libjansson-dev libcjson-dev libinih-dev libcmocka-dev zlib1g-dev libxml2-dev libncurses-dev
      jq clang llvm libclang-rt-14-dev tmux chromium iproute2 nftables util-linux procps
      iputils-ping netcat-openbsd curl libcurl4 shellcheck openssl prometheus prometheus-node-exporter slurmctld slurmd slurm-client munge fio ipmitool python3
      gettext fonts-noto-cjk dpkg-dev debhelper fakeroot lintian systemd bash-completion man-db
      python3-seccomp bc binutils debian-archive-keyring"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "gpudoctor: installing build and test dependencies:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
	echo "gpudoctor: missing packages:$missing" >&2
	echo "run:  sudo apt-get install -y$missing" >&2
	exit 1
fi
