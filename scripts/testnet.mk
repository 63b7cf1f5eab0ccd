# A network validators can join (docs/operators.md): the genesis ceremony
# for N machines, and the test of the chain's upgrade path under
# cosmovisor. Included by the Makefile.

N           ?= 4
TESTNET_DIR ?= $(BUILD_DIR)/testnet
HOSTS       ?=

.PHONY: testnet testnet-start testnet-stop
testnet: build ## the genesis ceremony for N machines: homes, one genesis, a README each (N=4 TESTNET_DIR= CHAIN_ID= HOSTS=ip1,ip2,…)
	N='$(N)' TESTNET_DIR='$(TESTNET_DIR)' HOSTS='$(HOSTS)' IDLEGPUD=$(BUILD_DIR)/idlegpud \
	  $(if $(CHAIN_ID),CHAIN_ID='$(CHAIN_ID)') scripts/testnet.sh init

testnet-start: ## start a testnet made without HOSTS here, on loopback (logs in TESTNET_DIR)
	N='$(N)' TESTNET_DIR='$(TESTNET_DIR)' IDLEGPUD=$(BUILD_DIR)/idlegpud scripts/testnet.sh start

testnet-stop: ## stop the loopback testnet (its homes stay)
	N='$(N)' TESTNET_DIR='$(TESTNET_DIR)' IDLEGPUD=$(BUILD_DIR)/idlegpud scripts/testnet.sh stop

# cosmovisor, pinned in scripts/networktest/tools/go.mod: v1.5.0 is the
# newest release the module proxy serves whole; it reads the
# upgrade-info.json this SDK's x/upgrade writes.
COSMOVISOR_VERSION := v1.5.0
COSMOVISOR         := $(TOOLS_DIR)/cosmovisor-$(COSMOVISOR_VERSION)

$(COSMOVISOR): scripts/networktest/tools/go.mod scripts/networktest/tools/go.sum
	@grep -qE 'cosmossdk.io/tools/cosmovisor $(COSMOVISOR_VERSION)( |$$)' scripts/networktest/tools/go.mod || \
	  { echo "scripts/networktest/tools/go.mod does not pin cosmovisor $(COSMOVISOR_VERSION)"; exit 1; }
	cd scripts/networktest/tools && GOBIN=$(TOOLS_DIR) $(GO) install cosmossdk.io/tools/cosmovisor/cmd/cosmovisor
	mv $(TOOLS_DIR)/cosmovisor $@

.PHONY: cosmovisor
cosmovisor: $(COSMOVISOR) ## build the pinned cosmovisor into build/tools (upgrades, docs/operators.md)

# The binary an upgrade replaces: this tree without its newest upgrade
# handler (app/upgrades_previous.go).
PREVIOUS_IDLEGPUD := $(BUILD_DIR)/previous/idlegpud

.PHONY: test-network
test-network: build $(COSMOVISOR) ## the testnet ceremony run on loopback, a file keyring under the flag, and a governance upgrade applied by cosmovisor
	$(GO) build -tags "$(node_tags) previous_release" -ldflags '$(ldflags)' -o $(PREVIOUS_IDLEGPUD) ./cmd/idlegpud
	IDLEGPU_BUILD=$(BUILD_DIR) IDLEGPU_PREVIOUS_IDLEGPUD=$(PREVIOUS_IDLEGPUD) IDLEGPU_COSMOVISOR=$(COSMOVISOR) \
	  $(GO) test ./scripts/networktest -count=1 -v -timeout 10m
