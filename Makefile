# idlegpu — everything a developer or CI runs. `make help` lists the targets.

GO        ?= go
BUILD_DIR ?= $(CURDIR)/build
TOOLS_DIR := $(BUILD_DIR)/tools
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null)

ldflags := -X github.com/cosmos/cosmos-sdk/version.Name=idlegpu \
	-X github.com/cosmos/cosmos-sdk/version.AppName=idlegpud \
	-X github.com/cosmos/cosmos-sdk/version.Version=$(VERSION) \
	-X github.com/cosmos/cosmos-sdk/version.Commit=$(COMMIT)
agent_ldflags := -X github.com/idlegpu/idlegpu/cmd/idlegpu-agent/cmd.Version=$(VERSION)
# No libsecp256k1_sdk: the node links go-ethereum's cgo libsecp256k1 (wallet
# signatures), and two copies of the C library collide at link time. Cosmos
# signatures go through the same go-ethereum library (app/ante/sigverify),
# with the SDK's verdicts (docs/operators.md).
node_tags := 

# Short simulation for every CI run; the long one uses the SDK's own sizes.
# Seed 3 delivers the most market messages at this size (150 offer messages
# where seeds 1 and 2 deliver 3 and 9), so the short run exercises x/offer.
SIM_FLAGS      ?= -NumBlocks=50 -BlockSize=50 -Seeds=1,3 -Runs=2 -Commit=true
SIM_LONG_FLAGS ?= -NumBlocks=100 -BlockSize=200 -Seeds=1,2,3 -Runs=3 -Commit=true
SIM_TESTS      := TestFullAppSimulation|TestAppImportExport|TestAppStateDeterminism
# The SDK simulator forms no leases; x/settlement's market simulation runs
# leases, proofs, misses, expiries, slow blocks and halts through the app.
MARKET_SIM_FLAGS      ?= -MarketSeed=1 -MarketSeeds=3 -MarketBlocks=300
MARKET_SIM_LONG_FLAGS ?= -MarketSeed=1 -MarketSeeds=20 -MarketBlocks=1000

# Binaries name their source files by module path, not by this machine's
# directories: a panic's stack reaches tx logs, and so the web app's errors.
# Tests take the same flag, so make build and make test share one build cache.
GOFLAGS += -trimpath
export GOFLAGS

# go-nvml's cgo build warns about NVML functions NVIDIA marked deprecated.
export CGO_CFLAGS ?= -O2 -g -Wno-deprecated-declarations

.DEFAULT_GOAL := help

.PHONY: help
help: ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

.PHONY: build
build: ## build idlegpud, idlegpu-agent, idlegpu-web, idlegpu-bridge (every validator runs it) and idlegpu-gateway into ./build
	$(GO) build -tags "$(node_tags)" -ldflags '$(ldflags)' -o $(BUILD_DIR)/idlegpud ./cmd/idlegpud
	$(GO) build -ldflags '$(agent_ldflags)' -o $(BUILD_DIR)/idlegpu-agent ./cmd/idlegpu-agent
	$(GO) build -o $(BUILD_DIR)/idlegpu-web ./cmd/idlegpu-web
	$(GO) build -o $(BUILD_DIR)/idlegpu-bridge ./cmd/idlegpu-bridge
	$(GO) build -o $(BUILD_DIR)/idlegpu-gateway ./cmd/idlegpu-gateway

.PHONY: install
install: ## install idlegpud, idlegpu-agent, idlegpu-web, idlegpu-bridge and idlegpu-gateway into $GOBIN
	$(GO) install -tags "$(node_tags)" -ldflags '$(ldflags)' ./cmd/idlegpud
	$(GO) install -ldflags '$(agent_ldflags)' ./cmd/idlegpu-agent
	$(GO) install ./cmd/idlegpu-web
	$(GO) install ./cmd/idlegpu-bridge
	$(GO) install ./cmd/idlegpu-gateway

.PHONY: node
node: build ## run a fresh single-validator chain in a temp home (Ctrl-C stops it)
	IDLEGPUD=$(BUILD_DIR)/idlegpud ./scripts/node.sh

.PHONY: test
test: lint test-go sim demo ## everything CI runs: lint, all Go tests, short simulation, the demo

# The web app's end-to-end test drives headless Chromium (Debian's
# chromium); where none is installed it skips and says so. CI installs it
# and sets IDLEGPU_CHROMIUM, so there it cannot skip.
IDLEGPU_CHROMIUM ?= $(shell command -v chromium chromium-browser google-chrome 2>/dev/null | head -1)
export IDLEGPU_CHROMIUM

.PHONY: test-go
test-go: geth ## unit, integration, network and end-to-end tests (the vault's against geth --dev, the web app's in headless Chromium)
	IDLEGPU_GETH=$(GETH) $(GO) test -timeout 20m ./...

.PHONY: lint
lint: $(BUILD_DIR)/detlint contracts-lint ## gofmt, go vet and the determinism lint
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "not gofmt-formatted:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags nvml ./agent/gpu ./agent/proof ./agent/audit
	$(BUILD_DIR)/detlint ./x/... ./app/...
	@# The programs built on scripts/harness carry none of our test code: no
	@# package of this module in their build imports testing or testify (the
	@# SDK's own dependencies still link testify, which is not ours to drop).
	@# The modules sit below the app: no package under x/ imports app/ (its
	@# tests may, to run through the real app).
	@up=$$($(GO) list -f '{{.ImportPath}}: {{join .Imports " "}}' ./x/... | grep -E ' github.com/idlegpu/idlegpu/app(/| |$$)'); \
	  if [ -n "$$up" ]; then echo "x/ imports app/:"; echo "$$up"; exit 1; fi
	@# x/base is below the modules: it imports none of this module's packages.
	@down=$$($(GO) list -f '{{.ImportPath}}: {{join .Imports " "}}' ./x/base/... | grep -E ' github.com/idlegpu/idlegpu/'); \
	  if [ -n "$$down" ]; then echo "x/base imports above itself:"; echo "$$down"; exit 1; fi
	@# The endpoint protocol is shared by the agent and its clients (idlegpud,
	@# the web app): it imports none of the agent's packages.
	@agentdeps=$$($(GO) list -f '{{.ImportPath}}: {{join .Imports " "}}' ./endpoint/... | grep -E ' github.com/idlegpu/idlegpu/agent/'); \
	  if [ -n "$$agentdeps" ]; then echo "endpoint imports the agent:"; echo "$$agentdeps"; exit 1; fi
	@# The agent's parts sit beside each other under the daemon that wires
	@# them: none imports agent/daemon or another part (docs/design.md).
	@parts='agent/(daemon|intake|reconciler|prover|sampler|auditor|hostcheck)'; \
	  cross=$$($(GO) list -f '{{.ImportPath}}: {{join .Imports " "}}' ./agent/intake ./agent/reconciler ./agent/prover ./agent/sampler ./agent/auditor ./agent/hostcheck | \
	  grep -E " github.com/idlegpu/idlegpu/$$parts( |$$)"); \
	  if [ -n "$$cross" ]; then echo "an agent part imports the daemon or another part:"; echo "$$cross"; exit 1; fi
	@bad=$$($(GO) list -deps -f '{{.ImportPath}}: {{join .Imports " "}}' ./scripts/demo ./scripts/loadbench | \
	  grep '^github.com/idlegpu/idlegpu/' | grep -E ' (testing|github.com/stretchr/testify/[a-z]+)( |$$)'); \
	  if [ -n "$$bad" ]; then echo "test imports in a program's build:"; echo "$$bad"; exit 1; fi

$(BUILD_DIR)/detlint: $(wildcard scripts/detlint/*.go scripts/detlint/cmd/detlint/*.go) go.mod
	$(GO) build -o $@ ./scripts/detlint/cmd/detlint

.PHONY: demo
demo: build ## the whole story: a chain, two providers' agents, a renter's job proven and paid, the web app; checks every figure
	$(GO) run ./scripts/demo -bin $(BUILD_DIR)

.PHONY: demo-web
demo-web: build ## the demo, then everything (chain, agents, web app) left running to look around until Ctrl-C
	$(GO) run ./scripts/demo -bin $(BUILD_DIR) -keep

.PHONY: localnet
localnet: build ## four validators on loopback in ./build/localnet (background; logs there)
	scripts/localnet.sh start

.PHONY: localnet-stop
localnet-stop: ## stop the localnet (its homes stay; `rm -rf build/localnet` resets it)
	scripts/localnet.sh stop

.PHONY: bench-agent
bench-agent: build ## the agent's CPU and RSS with 8 sim GPUs and a lease, sampled 10 min (BENCH_SECONDS)
	scripts/agent-bench.sh

# The kvstore baseline runs the CometBFT release the chain links (go.mod).
CMT_VERSION := $(shell $(GO) list -m -f '{{.Version}}' github.com/cometbft/cometbft)
BENCH_FLAGS ?=

$(TOOLS_DIR)/cometbft-$(CMT_VERSION):
	GOBIN=$(TOOLS_DIR) $(GO) install github.com/cometbft/cometbft/cmd/cometbft@$(CMT_VERSION)
	mv $(TOOLS_DIR)/cometbft $@

.PHONY: bench
bench: build $(TOOLS_DIR)/cometbft-$(CMT_VERSION) ## load benchmark: bids and proofs into one node until it saturates, post → job running with real agents, vs CometBFT's kvstore (≈ 20 min; report in build/loadbench.md)
	$(GO) run ./scripts/loadbench -bin $(BUILD_DIR) -cometbft $(TOOLS_DIR)/cometbft-$(CMT_VERSION) -out $(BUILD_DIR)/loadbench.md $(BENCH_FLAGS)

# The soak runs on the 4-validator localnet at about a third of its
# saturation (docs/benchmarks.md: bids saturate it near 350 tx/s on 2
# cores; the leases' proofs at 20 s epochs weigh about 45 bids/s more). Its
# blocks can take over 10 s, so epochs are 20 s. Four nodes share the
# machine's memory, so each is held to SOAK_MEMLIMIT (GOMEMLIMIT).
SOAK ?= 1h
SOAK_VALIDATORS ?= 4
SOAK_BIDS ?= 60
SOAK_EPOCH ?= 20s
SOAK_MEMLIMIT ?= 4GiB
.PHONY: soak
soak: build ## a steady load for $(SOAK) on $(SOAK_VALIDATORS) validators (proofs as epochs end, $(SOAK_BIDS) bids/s): RSS, goroutines, disk and block intervals a minute (report in build/soak.md)
	GOMEMLIMIT=$(SOAK_MEMLIMIT) $(GO) run ./scripts/loadbench -bin $(BUILD_DIR) -soak $(SOAK) -validators $(SOAK_VALIDATORS) -soak-bids $(SOAK_BIDS) -soak-epoch $(SOAK_EPOCH) -out $(BUILD_DIR)/soak.md $(BENCH_FLAGS)

.PHONY: gpu-smoke
gpu-smoke: ## on a machine with an NVIDIA driver: inventory, 10 s of NVML telemetry, a proof built and verified, the memwalk audit timed on each GPU
	./scripts/gpu-smoke.sh

.PHONY: sim
sim: ## short app simulation: random blocks, import/export, determinism; the market simulation (3 seeds)
	$(GO) test -tags sims -timeout 30m ./app -run '$(SIM_TESTS)' $(SIM_FLAGS)
	$(GO) test -timeout 10m ./x/settlement/simulation -run '^TestMarketSimulation$$' -v $(MARKET_SIM_FLAGS)

.PHONY: sim-long
sim-long: ## app simulation at the SDK's sizes (100 blocks x 200 ops, 3 seeds x 3 runs); the market simulation (20 seeds x 1000 blocks)
	$(GO) test -tags sims -timeout 4h ./app -run '$(SIM_TESTS)' $(SIM_LONG_FLAGS)
	$(GO) test -timeout 1h ./x/settlement/simulation -run '^TestMarketSimulation$$' -v $(MARKET_SIM_LONG_FLAGS)

.PHONY: proto-tools
proto-tools: ## build buf and the protoc plugins pinned in scripts/tools/go.mod
	cd scripts/tools && GOBIN=$(TOOLS_DIR) $(GO) install tool

.PHONY: proto-gen
proto-gen: proto-tools ## regenerate all Go code from proto/ (offline)
	./scripts/protocgen.sh

.PHONY: proto-check
proto-check: proto-gen ## fail if the committed generated code differs from proto/
	@stale=$$(git status --porcelain -- '*.pb.go' '*.pb.gw.go'); \
	  if [ -n "$$stale" ]; then echo "generated code differs from proto/ (run 'make proto-gen' and commit):"; echo "$$stale"; exit 1; fi
	@echo "generated code matches proto/"

.PHONY: audit-ptx
audit-ptx: ## regenerate the agent's audit kernels (PTX) from their LLVM IR with llc
	./scripts/audit-ptx.sh

.PHONY: audit-ptx-check
audit-ptx-check: ## fail if the committed audit kernels' PTX differs from their LLVM IR
	./scripts/audit-ptx.sh --check

.PHONY: proto-lint
proto-lint: proto-tools ## buf lint of our protos
	./scripts/protocgen.sh --lint-only

include contracts/contracts.mk
include scripts/demo-evm.mk
include deploy/release.mk
include deploy/image.mk
include deploy/helm.mk
include scripts/testnet.mk

.PHONY: clean
clean: ## remove build outputs
	rm -rf $(BUILD_DIR) proto/third_party
