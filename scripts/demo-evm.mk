# The EVM story (cmd/idlegpu-bridge/README.md): geth --dev, a chain, the
# agent and the bridge's processes. Two tests run verbosely, so the demo and
# the tests are one story: every step and the balance tables on both chains
# are printed, and it exits 0 only if every figure matches.
#   TestBridgeEndToEnd         one validator: a wallet renter's USDC bridged
#                              in, a job proven and paid, the provider's
#                              earnings withdrawn, relayed and claimed.
#   TestBridgeThreeValidators  three validators, each with its own
#                              orchestrator: one killed mid-batch and the
#                              others credit on; a key rotated and the vault
#                              rotated with it; withdrawals paid under the
#                              new valset's root.
# Included by the Makefile after contracts/contracts.mk (it needs $(GETH)).

.PHONY: demo-evm demo-evm-validators
demo-evm: $(GETH) ## the EVM bridge stories on geth --dev: one validator (deposit, job, withdrawal, root, claim), then three (a kill, a key rotation, claims); checks every figure on both chains
	IDLEGPU_GETH=$(abspath $(GETH)) $(GO) test ./bridge -run '^(TestBridgeEndToEnd|TestBridgeThreeValidators)$$' -count=1 -v -timeout 15m

demo-evm-validators: $(GETH) ## the three-validator bridge story alone: orchestrator killed mid-batch, EVM key rotated, vault valset updated, every claim paid
	IDLEGPU_GETH=$(abspath $(GETH)) $(GO) test ./bridge -run '^TestBridgeThreeValidators$$' -count=1 -v -timeout 10m
