package chartcheck

import (
	"path/filepath"
	"testing"

	"helm.sh/helm/v4/pkg/chart/common"
	chartutil "helm.sh/helm/v4/pkg/chart/common/util"
)

// chartDir is the chart under test.
const chartDir = "../idlegpu-agent"

// release is what the check renders for: `helm install idlegpu-agent -n idlegpu`.
var release = Release{Name: "idlegpu-agent", Namespace: "idlegpu"}

// want is what a value set must produce.
type want struct {
	secret         string // the keyring Secret
	keyName        string // the key's name in the node's keyring
	devicePlugin   int64  // nvidia.com/gpu requested; 0: the runtime mode
	socketGroup    int64  // the Docker socket's group
	hostPort       int32  // the renter endpoint's node port (0: none)
	annotations    bool   // prometheus.io scrape annotations
	serviceMonitor map[string]string
	register       []string // what setup.sh must pass to register
}

// defaults is what the chart's own values promise.
var defaults = want{
	secret: "idlegpu-agent-keyring", keyName: "agent", socketGroup: 999, hostPort: 9180, annotations: true,
	register: []string{`idlegpu-agent register "$@"`, `--moniker "$NODE_NAME"`},
}

// valueSets are the installs the chart is checked for: its defaults and
// the alternatives values.yaml documents.
var valueSets = []struct {
	name, file string
	want       want
}{
	{"defaults", "", defaults},
	{"service monitor", "servicemonitor.yaml", func() want {
		w := defaults
		w.annotations, w.serviceMonitor = false, map[string]string{"release": "kube-prometheus-stack"}
		return w
	}()},
	{"device plugin", "deviceplugin.yaml", func() want {
		w := defaults
		w.devicePlugin = 4
		return w
	}()},
	{"existing secret, operator registration", "existingsecret.yaml", func() want {
		w := defaults
		w.secret, w.keyName, w.socketGroup, w.hostPort = "pool-b-agent-keys", "pool-b", 998, 30443
		w.register = []string{`--moniker 'pool b'`, `--region 'eu-de-fra1' --endpoint "https://$ENDPOINT_HOST:30443"`, `--bond '400000000ugpu'`}
		return w
	}()},
}

func TestValueSets(t *testing.T) {
	for _, vs := range valueSets {
		t.Run(vs.name, func(t *testing.T) {
			vals := values(t, vs.file)
			r, objs, errs := check(chartDir, vals, vs.want)
			for _, err := range errs {
				t.Error(err)
			}
			if len(errs) == 0 && (len(objs) < 4 || r.Notes == "") {
				t.Errorf("rendered %d objects and %d bytes of notes", len(objs), len(r.Notes))
			}
		})
	}
}

// check renders, decodes, validates and lints the chart at dir with vals,
// asserts w's promises, and returns every problem found.
func check(dir string, vals map[string]any, w want) (Rendered, []Object, []error) {
	var errs []error
	if err := Lint(dir, vals, release.Namespace); err != nil {
		errs = append(errs, err)
	}
	r, err := Render(dir, vals, release)
	if err != nil {
		return r, nil, append(errs, err)
	}
	objs, err := Decode(r.Manifests)
	if err != nil {
		return r, nil, append(errs, err)
	}
	for _, e := range Validate(objs) {
		errs = append(errs, e)
	}
	return r, objs, append(errs, promises(objs, w)...)
}

// values reads a value set from testdata ("" is the chart's defaults).
func values(t *testing.T, file string) map[string]any {
	t.Helper()
	if file == "" {
		return map[string]any{}
	}
	v, err := common.ReadValuesFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return v.AsMap()
}

// overlay merges extra values over base (extra wins), as a second -f would.
func overlay(base, extra map[string]any) map[string]any {
	return chartutil.MergeTables(deepCopy(extra), deepCopy(base))
}

func deepCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			v = deepCopy(sub)
		}
		out[k] = v
	}
	return out
}
