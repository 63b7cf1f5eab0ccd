package chartcheck

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	chartutil "helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	"sigs.k8s.io/yaml"
)

// Release names the release a chart is rendered for, as `helm install
// <Name> --namespace <Namespace>` would.
type Release struct {
	Name, Namespace string
}

// Manifest is one rendered Kubernetes object, still as YAML.
type Manifest struct {
	// Template is the chart file it came from, e.g. idlegpu-agent/templates/daemonset.yaml.
	Template   string
	APIVersion string
	Kind       string
	YAML       []byte
}

// Rendered is what an install would send to the cluster, and its notes.
type Rendered struct {
	Manifests []Manifest
	Notes     string
}

// Render loads the chart at dir, checks values (merged over the chart's
// own) against values.schema.json and renders the templates, as `helm
// install --dry-run` does without a cluster.
func Render(dir string, values map[string]any, rel Release) (Rendered, error) {
	chrt, err := loader.Load(dir)
	if err != nil {
		return Rendered{}, fmt.Errorf("load %s: %w", dir, err)
	}
	opts := common.ReleaseOptions{Name: rel.Name, Namespace: rel.Namespace, Revision: 1, IsInstall: true}
	top, err := chartutil.ToRenderValuesWithSchemaValidation(chrt, values, opts, common.DefaultCapabilities, false)
	if err != nil {
		return Rendered{}, err
	}
	files, err := engine.Render(chrt, top)
	if err != nil {
		return Rendered{}, fmt.Errorf("render: %w", err)
	}
	var out Rendered
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if path.Base(name) == "NOTES.txt" {
			out.Notes = files[name]
			continue
		}
		if strings.HasPrefix(path.Base(name), "_") {
			continue // helpers render nothing
		}
		ms, err := split(name, files[name])
		if err != nil {
			return Rendered{}, err
		}
		out.Manifests = append(out.Manifests, ms...)
	}
	return out, nil
}

// split cuts one template's output into its objects, in order; documents
// holding only comments (a disabled template) are no object.
func split(template, content string) ([]Manifest, error) {
	docs := releaseutil.SplitManifests(content)
	keys := make([]string, 0, len(docs))
	for k := range docs {
		keys = append(keys, k)
	}
	sort.Sort(releaseutil.BySplitManifestsOrder(keys))
	var out []Manifest
	for _, k := range keys {
		doc := docs[k]
		if onlyComments(doc) {
			continue
		}
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			return nil, fmt.Errorf("%s: not YAML: %w", template, err)
		}
		if head.APIVersion == "" || head.Kind == "" {
			return nil, fmt.Errorf("%s: a document without apiVersion and kind", template)
		}
		out = append(out, Manifest{Template: template, APIVersion: head.APIVersion, Kind: head.Kind, YAML: []byte(doc)})
	}
	return out, nil
}

func onlyComments(doc string) bool {
	for _, line := range strings.Split(doc, "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
			return false
		}
	}
	return true
}
