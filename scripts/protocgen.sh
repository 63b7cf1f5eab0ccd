#!/usr/bin/env bash
# Regenerates all Go code from proto/ without the network: the protoc plugins
# and buf come from scripts/tools/go.mod (pinned, built by `make proto-tools`),
# the third-party protos from the Go module cache at the versions go.mod pins.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
tools=$root/build/tools
export PATH=$tools:$PATH

for bin in buf protoc-gen-gocosmos protoc-gen-grpc-gateway; do
  [ -x "$tools/$bin" ] || { echo "protocgen: $tools/$bin missing: run 'make proto-tools'" >&2; exit 1; }
done

moddir() { # moddir <go.mod dir> <module>: the module's source dir, downloaded if needed
  (cd "$1" && go mod download "$2" && go list -m -f '{{.Dir}}' "$2")
}
sdk=$(moddir "$root" github.com/cosmos/cosmos-sdk)
gogo=$(moddir "$root" github.com/cosmos/gogoproto)
cosmosproto=$(moddir "$root" github.com/cosmos/cosmos-proto)
gateway=$(moddir "$root/scripts/tools" github.com/grpc-ecosystem/grpc-gateway)

tp=$root/proto/third_party
rm -rf "$tp"
mkdir -p "$tp/gogoproto" "$tp/cosmos_proto" "$tp/google/api"
cp -r "$sdk/proto/cosmos" "$sdk/proto/amino" "$tp/"
[ -d "$sdk/proto/tendermint" ] && cp -r "$sdk/proto/tendermint" "$tp/"
cp "$gogo/gogoproto/gogo.proto" "$tp/gogoproto/"
cp "$cosmosproto/proto/cosmos_proto/cosmos.proto" "$tp/cosmos_proto/"
cp "$gateway/third_party/googleapis/google/api/annotations.proto" \
   "$gateway/third_party/googleapis/google/api/http.proto" "$tp/google/api/"
chmod -R u+w "$tp"

if [ "${1:-}" = "--lint-only" ]; then
  (cd proto && buf format --diff --exit-code --path idlegpu && buf lint --path idlegpu)
  exit 0
fi

out=$root/build/proto-gen
rm -rf "$out"
mkdir -p "$out"
(cd proto && buf generate --template buf.gen.gogo.yaml --path idlegpu)

# Generated files land under their go_package import path; move them next to
# their module and drop the stale ones first so a deleted .proto leaves nothing behind.
find x -name '*.pb.go' -o -name '*.pb.gw.go' | xargs -r rm -f
cp -r "$out/github.com/idlegpu/idlegpu/." "$root/"
rm -rf "$out"
echo "protocgen: generated $(find x -name '*.pb.go' -o -name '*.pb.gw.go' | wc -l) files"
