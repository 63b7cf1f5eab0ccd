package chartcheck

import (
	"errors"
	"fmt"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Object is a rendered manifest decoded into its API type.
type Object struct {
	Manifest
	// Typed is a pointer to the API type, e.g. *appsv1.DaemonSet.
	Typed any
}

// types are the API types the chart may render. A kind the chart starts
// rendering must be added here, or the check refuses it.
var types = map[schema.GroupVersionKind]func() any{
	appsv1.SchemeGroupVersion.WithKind("DaemonSet"):            func() any { return new(appsv1.DaemonSet) },
	corev1.SchemeGroupVersion.WithKind("ConfigMap"):            func() any { return new(corev1.ConfigMap) },
	corev1.SchemeGroupVersion.WithKind("Service"):              func() any { return new(corev1.Service) },
	corev1.SchemeGroupVersion.WithKind("ServiceAccount"):       func() any { return new(corev1.ServiceAccount) },
	monitoringv1.SchemeGroupVersion.WithKind("ServiceMonitor"): func() any { return new(monitoringv1.ServiceMonitor) },
}

// Decode decodes every manifest into its API type as the API server's
// strict field validation does: field names are case-sensitive, and an
// unknown or duplicate field is an error (a misspelt or misplaced field
// the server would drop or refuse). sigs.k8s.io/yaml's UnmarshalStrict is
// not enough: encoding/json matches names in any case, so hostPid would
// pass for hostPID.
func Decode(ms []Manifest) ([]Object, error) {
	out := make([]Object, 0, len(ms))
	for _, m := range ms {
		gv, err := schema.ParseGroupVersion(m.APIVersion)
		if err != nil {
			return nil, fmt.Errorf("%s: apiVersion %q: %w", m.Template, m.APIVersion, err)
		}
		newType, ok := types[gv.WithKind(m.Kind)]
		if !ok {
			return nil, fmt.Errorf("%s: %s %s is not a type this check knows", m.Template, m.APIVersion, m.Kind)
		}
		js, err := yaml.YAMLToJSONStrict(m.YAML)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", m.Template, m.Kind, err)
		}
		obj := newType()
		strict, err := kjson.UnmarshalStrict(js, obj, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
		if err == nil {
			err = errors.Join(strict...)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", m.Template, m.Kind, err)
		}
		out = append(out, Object{Manifest: m, Typed: obj})
	}
	return out, nil
}

// Find returns the one object of type T named name.
func Find[T any](objs []Object, name string) (T, error) {
	var zero T
	for _, o := range objs {
		if t, ok := o.Typed.(T); ok && objectName(o.Typed) == name {
			return t, nil
		}
	}
	return zero, fmt.Errorf("no %T named %q rendered", zero, name)
}

// All returns every object of type T.
func All[T any](objs []Object) []T {
	var out []T
	for _, o := range objs {
		if t, ok := o.Typed.(T); ok {
			out = append(out, t)
		}
	}
	return out
}
