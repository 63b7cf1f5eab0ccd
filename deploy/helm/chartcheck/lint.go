package chartcheck

import (
	"errors"

	"helm.sh/helm/v4/pkg/chart/v2/lint"
	"helm.sh/helm/v4/pkg/chart/v2/lint/support"
)

// Lint runs Helm's chart linter (what `helm lint --strict` runs: the
// Chart.yaml, values and schema, templates and dependency rules) with the
// given values over the chart's own, and returns its warnings and errors.
func Lint(dir string, values map[string]any, namespace string) error {
	var errs []error
	for _, m := range lint.RunAll(dir, values, namespace).Messages {
		if m.Severity >= support.WarningSev {
			errs = append(errs, errors.New(m.Error()))
		}
	}
	return errors.Join(errs...)
}
