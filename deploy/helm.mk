# The provider agent's Helm chart (deploy/helm/idlegpu-agent). Its check is
# a Go module of its own (deploy/helm/chartcheck), so that Helm and the
# Kubernetes libraries stay out of the main go.mod.

HELM_CHECK_DIR := deploy/helm/chartcheck

.PHONY: helm-check
helm-check: ## render the agent's Helm chart with the Helm library (several value sets), decode every object strictly, validate and lint it; the agent judges its agent.toml
	@# The agent built from this tree loads each rendered agent.toml, as
	@# `run` would on a node: a stale binary would judge an older format.
	$(GO) build -ldflags '$(agent_ldflags)' -o $(BUILD_DIR)/idlegpu-agent ./cmd/idlegpu-agent
	cd $(HELM_CHECK_DIR) && $(GO) vet ./...
	cd $(HELM_CHECK_DIR) && IDLEGPU_AGENT=$(abspath $(BUILD_DIR))/idlegpu-agent $(GO) test -count=1 -timeout 5m ./...
