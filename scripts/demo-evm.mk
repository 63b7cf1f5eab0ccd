# The EVM story (cmd/idlegpu-bridge/README.md): geth --dev, a chain, the
# agent and the bridge's processes; a wallet renter's USDC bridged in, a job
# proven and paid, the provider's earnings withdrawn, relayed and claimed.
# It is TestBridgeEndToEnd run verbosely, so the demo and the test are one
# story: every step and the balance table on both chains are printed, and it
# exits 0 only if every figure matches. Included by the Makefile after
# contracts/contracts.mk (it needs $(GETH)).

.PHONY: demo-evm
demo-evm: $(GETH) ## the EVM bridge story on geth --dev: deposit, job, withdrawal, root, claim; checks every figure on both chains
	IDLEGPU_GETH=$(abspath $(GETH)) $(GO) test ./cmd/idlegpu-bridge -run '^TestBridgeEndToEnd$$' -count=1 -v -timeout 10m
