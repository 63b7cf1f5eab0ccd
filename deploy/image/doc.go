// Package imagetest tests the provider agent's container image end to end:
// `make image-check` builds the image on a private dockerd and sets
// IDLEGPU_IMAGE to its tag; the test runs doctor and a simulated-GPU agent
// from the image against a development chain on the host, and the agent
// must win a lease, run its job as a sibling container and prove it. It
// holds no code outside its tests.
package imagetest
