#!/bin/sh
# Installs idlegpu from a release (deploy/release/README.md): a directory or
# an http(s) URL holding SHA256SUMS and the files `make release` builds.
# Every file it will install is fetched into a private temporary directory
# and checked against SHA256SUMS before anything is installed; a mismatch,
# or a file SHA256SUMS does not list, stops it with nothing installed.
#
#   sh install.sh [--from DIR|URL] [--programs LIST] [--binaries] [--prefix DIR]
#
#   --from DIR|URL  the release (default: the directory this script is in)
#   --programs LIST comma-separated (default on Linux: idlegpud,idlegpu-agent,
#                   idlegpu-web,idlegpu-bridge; on macOS: idlegpud, the CLI;
#                   a renter's idlegpu-gateway only when named)
#   --binaries      install the plain binaries even where dpkg or rpm exists
#   --prefix DIR    where plain binaries go, into DIR/bin (default /usr/local)
#
# On Linux with dpkg it installs the .deb packages, else with rpm the .rpm
# packages (as root: they make the services' users, directories and systemd
# units); otherwise, and with --binaries, the binaries alone.
set -eu

die() {
	echo "install.sh: $*" >&2
	exit 1
}

usage() {
	sed -n '2,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//;p}' "$0"
	exit "$1"
}

from=
programs=
mode=auto
prefix=/usr/local
while [ $# -gt 0 ]; do
	case "$1" in
	--from) [ $# -ge 2 ] || die "--from needs a value"; from=$2; shift 2 ;;
	--from=*) from=${1#--from=}; shift ;;
	--programs) [ $# -ge 2 ] || die "--programs needs a value"; programs=$2; shift 2 ;;
	--programs=*) programs=${1#--programs=}; shift ;;
	--prefix) [ $# -ge 2 ] || die "--prefix needs a value"; prefix=$2; shift 2 ;;
	--prefix=*) prefix=${1#--prefix=}; shift ;;
	--binaries) mode=binaries; shift ;;
	-h | --help) usage 0 ;;
	*) echo "install.sh: unknown argument $1" >&2; usage 2 ;;
	esac
done
if [ -z "$from" ]; then
	from=$(cd "$(dirname "$0")" && pwd)
fi

case $(uname -s) in
Linux) os=linux ;;
Darwin) os=darwin ;;
*) die "unsupported system $(uname -s): on Windows download idlegpud_<version>_windows_<arch>.exe and check it against SHA256SUMS (Get-FileHash)" ;;
esac
case $(uname -m) in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) die "unsupported architecture $(uname -m)" ;;
esac
if [ -z "$programs" ]; then
	if [ "$os" = linux ]; then
		programs=idlegpud,idlegpu-agent,idlegpu-web,idlegpu-bridge
	else
		programs=idlegpud
	fi
fi
programs=$(echo "$programs" | tr ',' ' ')
for p in $programs; do
	case $p in
	idlegpud) ;;
	idlegpu-agent | idlegpu-web | idlegpu-bridge | idlegpu-gateway)
		[ "$os" = linux ] || die "$p is built for Linux only" ;;
	*) die "unknown program $p (idlegpud, idlegpu-agent, idlegpu-web, idlegpu-bridge, idlegpu-gateway)" ;;
	esac
done

if [ "$mode" = auto ]; then
	mode=binaries
	if [ "$os" = linux ]; then
		if command -v dpkg >/dev/null 2>&1; then
			mode=deb
		elif command -v rpm >/dev/null 2>&1; then
			mode=rpm
		fi
	fi
fi
if [ "$mode" != binaries ] && [ "$(id -u)" != 0 ]; then
	die "installing .$mode packages needs root (or use --binaries --prefix \$HOME/.local)"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/idlegpu-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# fetch copies one file of the release into $tmp.
fetch() {
	case "$from" in
	http://* | https://*)
		url=${from%/}/$1
		if command -v curl >/dev/null 2>&1; then
			curl -fsSL --proto '=https,http' -o "$tmp/$1" "$url" || die "cannot download $url"
		elif command -v wget >/dev/null 2>&1; then
			wget -q -O "$tmp/$1" "$url" || die "cannot download $url"
		else
			die "neither curl nor wget is installed to download $url"
		fi
		;;
	*)
		[ -f "$from/$1" ] || die "$from/$1: no such file"
		cp "$from/$1" "$tmp/$1"
		;;
	esac
}

# sha256 prints a file's SHA-256 in hex.
sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d' ' -f1
	elif command -v openssl >/dev/null 2>&1; then
		openssl dgst -sha256 -r "$1" | cut -d' ' -f1
	else
		die "no sha256sum, shasum or openssl to check the downloads"
	fi
}

fetch SHA256SUMS
# Names in SHA256SUMS, one a line ("<hash>  <name>" or "<hash> *<name>").
names=$(sed -n 's/^[0-9a-f]\{64\} [ *]\([^/ ]*\)$/\1/p' "$tmp/SHA256SUMS")
[ -n "$names" ] || die "SHA256SUMS from $from lists no files"

# pick prints the one name in SHA256SUMS that matches the regular
# expression $2 for program $1.
pick() {
	found=$(echo "$names" | grep -E "$2" || true)
	[ -n "$found" ] || die "the release at $from has no $1 for $os/$arch ($3)"
	[ "$(echo "$found" | wc -l)" -eq 1 ] || die "the release at $from has several $1 files: $found"
	echo "$found"
}

# The files to install, as SHA256SUMS names them.
files=
for p in $programs; do
	case $mode in
	deb) f=$(pick "$p" "^${p}_[^_]+_${arch}\\.deb\$" ".deb") ;;
	rpm)
		rarch=$arch
		[ "$arch" = amd64 ] && rarch=x86_64
		[ "$arch" = arm64 ] && rarch=aarch64
		f=$(pick "$p" "^${p}-[0-9][^ ]*\\.${rarch}\\.rpm\$" ".rpm")
		;;
	binaries) f=$(pick "$p" "^${p}_[^_]+_${os}_${arch}\$" "binary") ;;
	esac
	files="$files $f"
done

# Fetch and check everything first: nothing is installed unless all match.
for f in $files; do
	fetch "$f"
	want=$(awk -v n="$f" '{ name = $2; sub(/^\*/, "", name) } name == n { print $1 }' "$tmp/SHA256SUMS")
	got=$(sha256 "$tmp/$f")
	if [ "$got" != "$want" ]; then
		die "CHECKSUM MISMATCH for $f: SHA256SUMS says $want, the file is $got; nothing was installed"
	fi
	echo "verified $f"
done

case $mode in
deb)
	# shellcheck disable=SC2086 # $files is a list of plain names
	(cd "$tmp" && dpkg -i $files)
	;;
rpm)
	# shellcheck disable=SC2086
	(cd "$tmp" && rpm -U --replacepkgs $files)
	;;
binaries)
	mkdir -p "$prefix/bin"
	for p in $programs; do
		for f in $files; do
			case $f in "${p}_"*) install -m 0755 "$tmp/$f" "$prefix/bin/$p" ;; esac
		done
		echo "installed $prefix/bin/$p"
	done
	;;
esac
echo "install.sh: done ($mode: $programs)"
