package chartcheck

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBrokenChartFails breaks a copy of the chart in the ways the check
// exists to catch, and wants each one found: a check that passes a broken
// chart is no check.
func TestBrokenChartFails(t *testing.T) {
	cases := []struct {
		name   string
		file   string              // a chart file to edit ("" for none)
		edit   func(string) string // the edit of file
		values map[string]any      // values over the chart's
		want   string              // in one of the problems found
	}{
		{name: "a misspelt field", file: "templates/daemonset.yaml",
			edit: replace("hostPID:", "hostPid:"), want: `unknown field "spec.template.spec.hostPid"`},
		{name: "a field at the wrong level", file: "templates/daemonset.yaml",
			edit: replace("      terminationGracePeriodSeconds:", "      updateStrategy: {}\n      terminationGracePeriodSeconds:"), want: `unknown field "spec.template.spec.updateStrategy"`},
		{name: "a mount without its volume", file: "templates/daemonset.yaml",
			edit: replace("- name: config\n          configMap:", "- name: settings\n          configMap:"), want: `volumeMounts[3].name: Not found: "config"`},
		{name: "a probe on a port the container lacks", file: "templates/daemonset.yaml",
			edit: replace("path: /healthz\n              port: metrics", "path: /healthz\n              port: metric"), want: `readinessProbe.httpGet.port: Not found: "metric"`},
		{name: "a kind the check does not know", file: "templates/pdb.yaml",
			edit: func(string) string {
				return "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: x\nspec:\n  maxUnavailable: 1\n"
			}, want: "PodDisruptionBudget is not a type this check knows"},
		{name: "a template that does not render", file: "templates/configmap.yaml",
			edit: replace("{{ $c.rewards.claimEvery | toJson }}", "{{ $c.rewards.claimEvery.hours }}"), want: "claimEvery.hours"},
		{name: "liveness on /healthz", file: "templates/daemonset.yaml",
			edit: replace("livenessProbe:\n            httpGet:\n              path: /metrics", "livenessProbe:\n            httpGet:\n              path: /healthz"), want: "liveness probe"},
		{name: "the home at another path inside", file: "templates/daemonset.yaml",
			edit: replace("mountPath: {{ .Values.home.hostPath }}", "mountPath: /home/agent"), want: "mounts home at \"/home/agent\""},
		{name: "the mnemonics shown to the agent", file: "templates/daemonset.yaml",
			edit: replace("- name: passphrase\n              mountPath:", "- name: keyring\n              mountPath:"), want: "is not the mounted passphrase"},
		{name: "a value the schema lacks",
			values: map[string]any{"gpu": map[string]any{"mod": "runtime"}}, want: "additional properties 'mod' not allowed"},
		{name: "the GPU taint not tolerated",
			values: map[string]any{"tolerations": []any{}}, want: "want nvidia.com/gpu Exists NoSchedule"},
		{name: "an invalid label value",
			values: map[string]any{"nameOverride": "idle gpu"}, want: "metadata.labels: Invalid value: \"idle gpu\""},
		{name: "a chart the linter refuses", file: "Chart.yaml",
			edit: replace("keywords:", "icon: not-a-url\nkeywords:"), want: "[ERROR] Chart.yaml: invalid icon URL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "idlegpu-agent")
			if err := os.CopyFS(dir, os.DirFS(chartDir)); err != nil {
				t.Fatal(err)
			}
			if tc.file != "" {
				p := filepath.Join(dir, tc.file)
				old, _ := os.ReadFile(p) // a new file starts empty
				edited := tc.edit(string(old))
				if edited == string(old) {
					t.Fatalf("the edit changed nothing in %s: the chart moved on, update the case", tc.file)
				}
				if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			vals := tc.values
			if vals == nil {
				vals = map[string]any{}
			}
			_, _, errs := check(dir, vals, defaults)
			if len(errs) == 0 {
				t.Fatal("the broken chart passed the check")
			}
			all := errors.Join(errs...).Error()
			if !strings.Contains(all, tc.want) {
				t.Errorf("no problem mentions %q; found:\n%s", tc.want, all)
			}
			t.Log(all)
		})
	}
}

// replace returns an edit replacing every old with new.
func replace(old, new string) func(string) string {
	return func(s string) string { return strings.ReplaceAll(s, old, new) }
}
