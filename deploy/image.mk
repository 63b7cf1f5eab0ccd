# The provider agent's container image (deploy/image/README.md): built on a
# Debian base made from Debian's packages (no registry needed), checked in
# CI by running it against a development chain.

IMAGE       ?= idlegpu-agent:$(VERSION)
IMAGE_SUITE ?= bookworm
# IMAGE_FROM: an image to build on instead (debian:bookworm-slim where a
# registry can be reached).
IMAGE_FROM  ?=
IMAGE_DIR   := $(BUILD_DIR)/image
IMAGE_BASE  := $(IMAGE_DIR)/base-$(IMAGE_SUITE).tar
# The image's build context: the agent binary alone, where agent/Dockerfile
# copies it from. make image builds it without the builder's paths; the CI
# check takes make build's instead (the same code, which CI has compiled
# once already: -trimpath would compile the agent again, minutes on 2 cores).
IMAGE_CONTEXT       := $(IMAGE_DIR)/context
IMAGE_CHECK_CONTEXT := $(IMAGE_DIR)/check-context
# Every timestamp the build sets is the commit's (SOURCE_DATE_EPOCH).
IMAGE_EPOCH := $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
image_env   := SOURCE_DATE_EPOCH=$(IMAGE_EPOCH) VERSION=$(VERSION) COMMIT=$(COMMIT)

# The base is built once and kept: delete it to take Debian's newer packages.
$(IMAGE_BASE): deploy/image/base.sh
	SOURCE_DATE_EPOCH=$(IMAGE_EPOCH) IMAGE_SUITE=$(IMAGE_SUITE) deploy/image/base.sh $@

# The agent without the builder's paths, as the image ships it.
.PHONY: image-agent
image-agent:
	$(GO) build -trimpath -ldflags '$(agent_ldflags)' -o $(IMAGE_CONTEXT)/build/idlegpu-agent ./cmd/idlegpu-agent

.PHONY: image
image: $(if $(IMAGE_FROM),,$(IMAGE_BASE)) image-agent ## the provider agent's container image, idlegpu-agent:VERSION (IMAGE), on the local Docker daemon
	$(image_env) deploy/image/build.sh $(or $(IMAGE_FROM),$(IMAGE_BASE)) $(IMAGE_CONTEXT) $(IMAGE)

.PHONY: image-check
image-check: $(IMAGE_BASE) ## as root, after make build: the image built on a private dockerd, then doctor and a sim-GPU agent from it proving a lease on a dev chain
	@test -x $(BUILD_DIR)/idlegpu-agent -a -x $(BUILD_DIR)/idlegpud || { echo "image-check: run make build first"; exit 1; }
	mkdir -p $(IMAGE_CHECK_CONTEXT)/build
	cp $(BUILD_DIR)/idlegpu-agent $(IMAGE_CHECK_CONTEXT)/build/idlegpu-agent
	$(image_env) GO=$(GO) IDLEGPUD=$(BUILD_DIR)/idlegpud deploy/image/check.sh $(IMAGE_BASE) $(IMAGE_CHECK_CONTEXT) $(IMAGE)
