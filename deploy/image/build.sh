#!/usr/bin/env bash
# build.sh BASE CONTEXT TAG: builds agent/Dockerfile as TAG from CONTEXT, a
# directory holding build/idlegpu-agent and nothing else (the repository
# would send gigabytes of build outputs to the daemon). BASE is a root
# filesystem tarball from base.sh, imported as idlegpu-base:<suite>, or an
# image to build on (debian:bookworm-slim where a registry can be reached).
# It uses the daemon DOCKER_HOST names, else the local one.
#
# SOURCE_DATE_EPOCH (the commit's time) is the binary's modification time,
# the image's creation label and the day useradd records; BuildKit also
# takes it for the image's own timestamps. VERSION and COMMIT label the
# image.
set -euo pipefail

base=${1:?usage: build.sh BASE CONTEXT TAG}
context=${2:?usage: build.sh BASE CONTEXT TAG}
tag=${3:?usage: build.sh BASE CONTEXT TAG}
: "${SOURCE_DATE_EPOCH:?set SOURCE_DATE_EPOCH (make image sets the commit time)}"
root=$(cd "$(dirname "$0")/../.." && pwd)

[ -x "$context/build/idlegpu-agent" ] || { echo "build.sh: no $context/build/idlegpu-agent" >&2; exit 1; }
touch --no-dereference --date="@$SOURCE_DATE_EPOCH" "$context/build/idlegpu-agent"

if [[ $base == *.tar ]]; then
  suite=$(basename "$base" .tar)
  image=idlegpu-base:${suite#base-}
  docker import --message "idlegpu agent base: Debian ${suite#base-} minbase (deploy/image/base.sh)" "$base" "$image" >/dev/null
  echo "imported $image from $base"
  base=$image
fi

created=$(date --utc --date="@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
docker build --file "$root/agent/Dockerfile" --tag "$tag" \
  --build-arg BASE="$base" \
  --build-arg SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH" \
  --label org.opencontainers.image.title=idlegpu-agent \
  --label org.opencontainers.image.version="${VERSION:-dev}" \
  --label org.opencontainers.image.revision="${COMMIT:-unknown}" \
  --label org.opencontainers.image.created="$created" \
  --label org.opencontainers.image.base.name="$base" \
  "$context"
echo "built $tag"
