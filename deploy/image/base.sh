#!/usr/bin/env bash
# base.sh OUT.tar: the agent image's base, a minimal Debian root filesystem
# built from Debian's packages with mmdebstrap, for machines that cannot
# pull debian:bookworm-slim (no registry). It writes OUT.tar (for `docker
# import`) and OUT.packages (every package and version in it).
#
# Reproducible: the suite is pinned (bookworm, not stable) and
# SOURCE_DATE_EPOCH clamps every timestamp, so the same packages give the
# same tarball, byte for byte. Point IMAGE_MIRROR at a Debian snapshot
# (http://snapshot.debian.org/archive/debian/<time>) to pin the packages
# too; IMAGE_SECURITY_MIRROR="" then leaves the moving security suite out.
set -euo pipefail

out=${1:?usage: base.sh OUT.tar}
suite=${IMAGE_SUITE:-bookworm}
mirror=${IMAGE_MIRROR:-http://deb.debian.org/debian}
security=${IMAGE_SECURITY_MIRROR-http://deb.debian.org/debian-security}
: "${SOURCE_DATE_EPOCH:?set SOURCE_DATE_EPOCH (make image sets the commit time)}"
export SOURCE_DATE_EPOCH

command -v mmdebstrap >/dev/null || { echo "base.sh: needs mmdebstrap (apt-get install mmdebstrap)" >&2; exit 1; }

sources=("deb $mirror $suite main" "deb $mirror $suite-updates main")
if [ -n "$security" ]; then
  sources+=("deb $security $suite-security main")
fi

mkdir -p "$(dirname "$out")"
tmp=$(mktemp "$out.XXXXXX")
log=$tmp.log
trap 'rm -f "$tmp" "$tmp.packages" "$log"' EXIT
# merged-usr: /bin, /lib and /sbin as links into /usr without the usrmerge
# package (and the perl it needs). Slimmed as Debian's own slim images are
# (debuerreotype): no manuals, documentation (copyright files stay) or
# translations, and dpkg without fsync; these dpkg options stay in the
# image for packages installed later.
# The hook's "$1" is the root filesystem, expanded by mmdebstrap's shell.
# shellcheck disable=SC2016
if ! mmdebstrap --quiet --variant=minbase --include=ca-certificates --format=tar \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --dpkgopt='force-unsafe-io' \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-include=/usr/share/locale/locale.alias' \
  --customize-hook='chroot "$1" dpkg-query -W -f "\${Package}=\${Version}\n" > "'"$tmp.packages"'"' \
  "$suite" "$tmp" "${sources[@]}" >"$log" 2>&1; then
  tail -20 "$log" >&2
  echo "base.sh: mmdebstrap failed (above: the end of its output)" >&2
  exit 1
fi
chmod 0644 "$tmp"
mv "$tmp.packages" "${out%.tar}.packages"
mv "$tmp" "$out"
echo "$out: Debian $suite minbase, $(wc -l <"${out%.tar}.packages") packages, sha256 $(sha256sum "$out" | cut -d' ' -f1)"
