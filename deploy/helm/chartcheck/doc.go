// Package chartcheck renders the idlegpu-agent Helm chart with the Helm
// library, decodes every rendered object strictly into its Kubernetes API
// type, validates what the API server would refuse, and lints the chart.
// Its tests assert the chart's promises (GPU nodes, host PID namespace,
// Docker socket, per-node home, Secret, probes, metrics) for several value
// sets, and that a broken chart fails them.
//
// It is its own Go module so that Helm and the Kubernetes libraries never
// enter the repository's main go.mod; `make helm-check` runs it.
package chartcheck
