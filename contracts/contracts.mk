# The EVM settlement vault (contracts/README.md): compiled with the solc and
# OpenZeppelin Contracts pinned in contracts/package-lock.json, bound to Go
# with abigen v2 pinned in contracts/tools/go.mod. The artifacts and the
# bindings are committed; contracts-check (CI) proves they match the sources.

CONTRACTS_DIR   := contracts
# Contract name and the Go file its binding goes to (package bindings).
CONTRACTS_BIND  := SettlementVault:settlement_vault TestUSDC:test_usdc FeeOnTransferToken:fee_on_transfer_token \
	ReentrantToken:reentrant_token
ABIGEN          := $(TOOLS_DIR)/abigen
# npm ci runs again only when the lock file changes.
CONTRACTS_NODE  := $(CONTRACTS_DIR)/node_modules/.package-lock.json
CONTRACTS_GEN   := $(CONTRACTS_DIR)/artifacts $(CONTRACTS_DIR)/package-lock.json \
	$(foreach cb,$(CONTRACTS_BIND),$(CONTRACTS_DIR)/bindings/$(word 2,$(subst :, ,$(cb))).go)

$(ABIGEN): $(CONTRACTS_DIR)/tools/go.mod $(CONTRACTS_DIR)/tools/go.sum
	cd $(CONTRACTS_DIR)/tools && GOBIN=$(TOOLS_DIR) $(GO) install github.com/ethereum/go-ethereum/cmd/abigen
	@touch $@

# geth for the vault's test against a real node (TestGethDevEndToEnd), pinned
# with abigen in contracts/tools/go.mod; make test-go builds it.
GETH_VERSION    := v1.17.10
GETH            := $(TOOLS_DIR)/geth-$(GETH_VERSION)

$(GETH): $(CONTRACTS_DIR)/tools/go.mod $(CONTRACTS_DIR)/tools/go.sum
	@grep -qE 'github.com/ethereum/go-ethereum $(GETH_VERSION)( |$$)' $(CONTRACTS_DIR)/tools/go.mod || \
	  { echo "contracts/tools/go.mod does not pin go-ethereum $(GETH_VERSION)"; exit 1; }
	cd $(CONTRACTS_DIR)/tools && GOBIN=$(TOOLS_DIR) $(GO) install github.com/ethereum/go-ethereum/cmd/geth
	mv $(TOOLS_DIR)/geth $@

.PHONY: geth
geth: $(GETH) ## build the pinned geth (contracts/tools/go.mod) for the vault's test against geth --dev

$(CONTRACTS_NODE): $(CONTRACTS_DIR)/package.json $(CONTRACTS_DIR)/package-lock.json
	cd $(CONTRACTS_DIR) && npm ci --no-audit --no-fund
	@touch $@

.PHONY: contracts
contracts: $(CONTRACTS_NODE) $(ABIGEN) ## compile the vault with the pinned solc (npm), write contracts/artifacts and the abigen v2 bindings
	cd $(CONTRACTS_DIR) && node build.mjs artifacts
	@for cb in $(CONTRACTS_BIND); do \
	  name=$${cb%%:*}; file=$${cb##*:}; \
	  echo "abigen --v2 $$name -> $(CONTRACTS_DIR)/bindings/$$file.go"; \
	  $(ABIGEN) --v2 --abi $(CONTRACTS_DIR)/artifacts/$$name.abi --bin $(CONTRACTS_DIR)/artifacts/$$name.bin \
	    --pkg bindings --type $$name --out $(CONTRACTS_DIR)/bindings/$$file.go || exit 1; \
	done

.PHONY: contracts-check
contracts-check: contracts ## fail if the committed artifacts or bindings differ from contracts/src
	@stale=$$(git status --porcelain -- $(CONTRACTS_GEN)); \
	  if [ -n "$$stale" ]; then echo "contract artifacts or bindings differ from contracts/src (run 'make contracts' and commit):"; echo "$$stale"; exit 1; fi
	@echo "contract artifacts and bindings match contracts/src"

.PHONY: contracts-lint
contracts-lint: $(CONTRACTS_NODE) ## solhint of contracts/src
	cd $(CONTRACTS_DIR) && npx --no-install solhint --disc --max-warnings 0 'src/**/*.sol'
