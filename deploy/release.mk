# Releases and Linux packages (deploy/release/README.md).
#
# `make release` cross-builds every program into $(RELEASE_DIR): the five
# programs for linux/amd64 and linux/arm64, the idlegpud CLI for macOS and
# Windows, a .deb and an .rpm per Linux program and architecture (nfpm,
# through deploy/release's idlegpu-pkg), scripts/install.sh and SHA256SUMS.
# `make release-check` packages the ./build binaries and installs them here.

RELEASE_DIR        ?= $(BUILD_DIR)/release/$(VERSION)
RELEASE_LINUX      := amd64 arm64
RELEASE_CLI        := darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
RELEASE_PROGRAMS   := idlegpud idlegpu-agent idlegpu-web idlegpu-bridge idlegpu-gateway
RELEASE_MAINTAINER ?= $(shell git log -1 --format='%an <%ae>' 2>/dev/null)
RELEASE_HOMEPAGE   ?=
# Files and packages carry the commit's time, not the build's.
SOURCE_DATE_EPOCH  ?= $(shell git log -1 --format=%ct 2>/dev/null)
export SOURCE_DATE_EPOCH

PKG_TOOL := $(TOOLS_DIR)/idlegpu-pkg

# cgo: the node (C libsecp256k1 for signatures, 3.6x the pure-Go speed) and
# the agent (NVML, the CUDA audit) are built with cgo for Linux, with the
# native gcc or Debian's cross gcc; the web app, the bridge and the gateway are pure Go
# (static binaries), and so is the idlegpud CLI for macOS and Windows.
host_arch        := $(shell uname -m)
release_cc_amd64 ?= $(if $(filter x86_64,$(host_arch)),gcc,x86_64-linux-gnu-gcc)
release_cc_arm64 ?= $(if $(filter aarch64,$(host_arch)),gcc,aarch64-linux-gnu-gcc)
release_cgo       = $(if $(and $(filter linux,$(2)),$(filter idlegpud idlegpu-agent,$(1))),1,0)

# -s -w drops the symbol table and DWARF (the node: 143 MB instead of 200).
release_flags_idlegpud       = -tags "$(node_tags)" -ldflags '$(ldflags) -s -w'
release_flags_idlegpu-agent  = -ldflags '$(agent_ldflags) -s -w'
release_flags_idlegpu-web    = -ldflags '-s -w'
release_flags_idlegpu-bridge = -ldflags '-s -w'
release_flags_idlegpu-gateway = -ldflags '-s -w'

# release_bin names a binary: <program>_<version>_<os>_<arch>[.exe].
release_bin = $(RELEASE_DIR)/$(1)_$(VERSION)_$(2)_$(3)$(if $(filter windows,$(2)),.exe)

define release_build
	GOOS=$(2) GOARCH=$(3) CGO_ENABLED=$(call release_cgo,$(1),$(2)) $(if $(filter 1,$(call release_cgo,$(1),$(2))),CC=$(release_cc_$(3))) \
	  $(GO) build -trimpath $(release_flags_$(1)) -o $(call release_bin,$(1),$(2),$(3)) ./cmd/$(1)

endef

define release_package
	$(PKG_TOOL) -version '$(VERSION)' -arch $(1) -out $(RELEASE_DIR) -units deploy/systemd \
	  -maintainer '$(RELEASE_MAINTAINER)' $(if $(RELEASE_HOMEPAGE),-homepage '$(RELEASE_HOMEPAGE)') \
	  $(foreach p,$(RELEASE_PROGRAMS),-bin $(p)=$(call release_bin,$(p),linux,$(1)))

endef

$(PKG_TOOL): $(wildcard deploy/release/*.go deploy/release/scripts/*.sh deploy/release/etc/*.env) deploy/release/go.mod deploy/release/go.sum
	cd deploy/release && $(GO) build -o $@ .

.PHONY: release
release: $(PKG_TOOL) ## cross-build every program (linux amd64/arm64; idlegpud for macOS and Windows), .deb and .rpm packages, SHA256SUMS into build/release/<version>
	@command -v $(release_cc_arm64) >/dev/null || { echo "release: linux/arm64 needs $(release_cc_arm64) (apt-get install gcc-aarch64-linux-gnu)"; exit 1; }
	@[ -n '$(RELEASE_MAINTAINER)' ] || { echo "release: set RELEASE_MAINTAINER='Name <email>'"; exit 1; }
	rm -rf $(RELEASE_DIR)
	$(foreach a,$(RELEASE_LINUX),$(foreach p,$(RELEASE_PROGRAMS),$(call release_build,$(p),linux,$(a))))
	$(foreach t,$(RELEASE_CLI),$(call release_build,idlegpud,$(word 1,$(subst /, ,$(t))),$(word 2,$(subst /, ,$(t)))))
	$(foreach a,$(RELEASE_LINUX),$(call release_package,$(a)))
	install -m 0755 scripts/install.sh $(RELEASE_DIR)/install.sh
	cd $(RELEASE_DIR) && sha256sum -- * >SHA256SUMS.tmp && mv SHA256SUMS.tmp SHA256SUMS
	@echo "release $(VERSION): $(RELEASE_DIR)"

.PHONY: release-check
release-check: $(PKG_TOOL) ## CI, as root on Debian: package ./build as .debs, test install.sh, install them, check users, dirs and units, run each unit's program as its user, purge
	cd deploy/release && $(GO) test ./...
	IDLEGPU_PKG=$(PKG_TOOL) BUILD_DIR=$(BUILD_DIR) VERSION='$(VERSION)' deploy/release/check.sh
