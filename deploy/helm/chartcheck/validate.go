package chartcheck

import (
	"fmt"
	"path"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate runs the checks of the API server's validation that the
// apimachinery library offers (names, labels, annotations, selectors,
// ports, environment names) and the references between the objects that
// the API server would only find wrong at run time (a mount without its
// volume, a probe on a port the container lacks, a ServiceMonitor that
// selects no Service).
func Validate(objs []Object) field.ErrorList {
	var errs field.ErrorList
	for _, o := range objs {
		root := field.NewPath(o.Kind + "/" + objectName(o.Typed))
		switch t := o.Typed.(type) {
		case *appsv1.DaemonSet:
			errs = append(errs, apivalidation.ValidateObjectMeta(&t.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, root.Child("metadata"))...)
			errs = append(errs, validateDaemonSet(t, root.Child("spec"))...)
		case *corev1.ConfigMap:
			errs = append(errs, apivalidation.ValidateObjectMeta(&t.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, root.Child("metadata"))...)
			for k := range t.Data {
				errs = append(errs, messages(root.Child("data").Key(k), k, validation.IsConfigMapKey(k))...)
			}
		case *corev1.Service:
			errs = append(errs, apivalidation.ValidateObjectMeta(&t.ObjectMeta, true, apivalidation.NameIsDNS1035Label, root.Child("metadata"))...)
			errs = append(errs, validateService(t, objs, root.Child("spec"))...)
		case *corev1.ServiceAccount:
			errs = append(errs, apivalidation.ValidateObjectMeta(&t.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, root.Child("metadata"))...)
		case *monitoringv1.ServiceMonitor:
			errs = append(errs, apivalidation.ValidateObjectMeta(&t.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, root.Child("metadata"))...)
			errs = append(errs, validateServiceMonitor(t, objs, root.Child("spec"))...)
		default:
			errs = append(errs, field.InternalError(root, fmt.Errorf("no validation for %T", o.Typed)))
		}
	}
	return errs
}

func validateDaemonSet(ds *appsv1.DaemonSet, p *field.Path) field.ErrorList {
	errs := metav1validation.ValidateLabelSelector(ds.Spec.Selector, metav1validation.LabelSelectorValidationOptions{}, p.Child("selector"))
	tmpl := p.Child("template", "metadata")
	errs = append(errs, metav1validation.ValidateLabels(ds.Spec.Template.Labels, tmpl.Child("labels"))...)
	errs = append(errs, apivalidation.ValidateAnnotations(ds.Spec.Template.Annotations, tmpl.Child("annotations"))...)
	if sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector); err != nil {
		errs = append(errs, field.Invalid(p.Child("selector"), ds.Spec.Selector, err.Error()))
	} else if !sel.Matches(labels.Set(ds.Spec.Template.Labels)) {
		errs = append(errs, field.Invalid(p.Child("selector"), ds.Spec.Selector, "does not select the template's labels"))
	}
	return append(errs, validatePodSpec(&ds.Spec.Template.Spec, p.Child("template", "spec"))...)
}

func validatePodSpec(s *corev1.PodSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	volumes := map[string]bool{}
	for i, v := range s.Volumes {
		vp := p.Child("volumes").Index(i)
		errs = append(errs, messages(vp.Child("name"), v.Name, content.IsDNS1123Label(v.Name))...)
		if volumes[v.Name] {
			errs = append(errs, field.Duplicate(vp.Child("name"), v.Name))
		}
		volumes[v.Name] = true
		if v.HostPath != nil && !path.IsAbs(v.HostPath.Path) {
			errs = append(errs, field.Invalid(vp.Child("hostPath", "path"), v.HostPath.Path, "must be absolute"))
		}
	}
	for k, v := range s.NodeSelector {
		np := p.Child("nodeSelector").Key(k)
		errs = append(errs, messages(np, k, content.IsLabelKey(k))...)
		errs = append(errs, messages(np, v, content.IsLabelValue(v))...)
	}
	for i, t := range s.Tolerations {
		tp := p.Child("tolerations").Index(i)
		if t.Key != "" {
			errs = append(errs, messages(tp.Child("key"), t.Key, content.IsLabelKey(t.Key))...)
		}
		if t.Operator == corev1.TolerationOpExists && t.Value != "" {
			errs = append(errs, field.Invalid(tp.Child("value"), t.Value, "must be empty when operator is Exists"))
		}
	}
	for _, name := range []string{s.ServiceAccountName, s.PriorityClassName} {
		if name != "" {
			errs = append(errs, messages(p, name, content.IsDNS1123Subdomain(name))...)
		}
	}
	if s.RuntimeClassName != nil {
		errs = append(errs, messages(p.Child("runtimeClassName"), *s.RuntimeClassName, content.IsDNS1123Subdomain(*s.RuntimeClassName))...)
	}
	names := map[string]bool{}
	check := func(c *corev1.Container, cp *field.Path) {
		errs = append(errs, messages(cp.Child("name"), c.Name, content.IsDNS1123Label(c.Name))...)
		if names[c.Name] {
			errs = append(errs, field.Duplicate(cp.Child("name"), c.Name))
		}
		names[c.Name] = true
		errs = append(errs, validateContainer(c, volumes, cp)...)
	}
	for i := range s.InitContainers {
		check(&s.InitContainers[i], p.Child("initContainers").Index(i))
	}
	for i := range s.Containers {
		check(&s.Containers[i], p.Child("containers").Index(i))
	}
	if len(s.Containers) == 0 {
		errs = append(errs, field.Required(p.Child("containers"), ""))
	}
	return errs
}

func validateContainer(c *corev1.Container, volumes map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c.Image == "" {
		errs = append(errs, field.Required(p.Child("image"), ""))
	}
	ports := map[string]bool{}
	for i, port := range c.Ports {
		pp := p.Child("ports").Index(i)
		if port.Name != "" {
			errs = append(errs, messages(pp.Child("name"), port.Name, validation.IsValidPortName(port.Name))...)
			ports[port.Name] = true
		}
		errs = append(errs, messages(pp.Child("containerPort"), port.ContainerPort, validation.IsValidPortNum(int(port.ContainerPort)))...)
		if port.HostPort != 0 {
			errs = append(errs, messages(pp.Child("hostPort"), port.HostPort, validation.IsValidPortNum(int(port.HostPort)))...)
		}
	}
	for i, e := range c.Env {
		errs = append(errs, messages(p.Child("env").Index(i).Child("name"), e.Name, validation.IsEnvVarName(e.Name))...)
	}
	mounts := map[string]bool{}
	for i, m := range c.VolumeMounts {
		mp := p.Child("volumeMounts").Index(i)
		if !volumes[m.Name] {
			errs = append(errs, field.NotFound(mp.Child("name"), m.Name))
		}
		if !path.IsAbs(m.MountPath) {
			errs = append(errs, field.Invalid(mp.Child("mountPath"), m.MountPath, "must be absolute"))
		}
		if mounts[m.MountPath] {
			errs = append(errs, field.Duplicate(mp.Child("mountPath"), m.MountPath))
		}
		mounts[m.MountPath] = true
	}
	for name, pr := range map[string]*corev1.Probe{"startupProbe": c.StartupProbe, "livenessProbe": c.LivenessProbe, "readinessProbe": c.ReadinessProbe} {
		if pr == nil || pr.HTTPGet == nil {
			continue
		}
		port := pr.HTTPGet.Port
		if port.StrVal != "" && !ports[port.StrVal] {
			errs = append(errs, field.NotFound(p.Child(name, "httpGet", "port"), port.StrVal))
		}
		if !strings.HasPrefix(pr.HTTPGet.Path, "/") {
			errs = append(errs, field.Invalid(p.Child(name, "httpGet", "path"), pr.HTTPGet.Path, "must start with /"))
		}
	}
	return errs
}

// validateService checks its ports and that it selects pods the chart
// renders, on a port they name.
func validateService(s *corev1.Service, objs []Object, p *field.Path) field.ErrorList {
	errs := metav1validation.ValidateLabels(s.Spec.Selector, p.Child("selector"))
	podPorts := map[string]bool{}
	selected := false
	for _, ds := range All[*appsv1.DaemonSet](objs) {
		if len(s.Spec.Selector) > 0 && labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(ds.Spec.Template.Labels)) {
			selected = true
			for _, c := range ds.Spec.Template.Spec.Containers {
				for _, cp := range c.Ports {
					podPorts[cp.Name] = true
				}
			}
		}
	}
	if !selected {
		errs = append(errs, field.Invalid(p.Child("selector"), s.Spec.Selector, "selects no pod of the chart"))
	}
	for i, port := range s.Spec.Ports {
		pp := p.Child("ports").Index(i)
		errs = append(errs, messages(pp.Child("name"), port.Name, validation.IsValidPortName(port.Name))...)
		errs = append(errs, messages(pp.Child("port"), port.Port, validation.IsValidPortNum(int(port.Port)))...)
		if t := port.TargetPort.StrVal; t != "" && !podPorts[t] {
			errs = append(errs, field.NotFound(pp.Child("targetPort"), t))
		}
	}
	return errs
}

// validateServiceMonitor checks that it selects a Service of the chart and
// scrapes ports that Service names.
func validateServiceMonitor(sm *monitoringv1.ServiceMonitor, objs []Object, p *field.Path) field.ErrorList {
	errs := metav1validation.ValidateLabelSelector(&sm.Spec.Selector, metav1validation.LabelSelectorValidationOptions{}, p.Child("selector"))
	sel, err := metav1.LabelSelectorAsSelector(&sm.Spec.Selector)
	if err != nil {
		return append(errs, field.Invalid(p.Child("selector"), sm.Spec.Selector, err.Error()))
	}
	ports := map[string]bool{}
	for _, s := range All[*corev1.Service](objs) {
		if s.Namespace == sm.Namespace && sel.Matches(labels.Set(s.Labels)) {
			for _, port := range s.Spec.Ports {
				ports[port.Name] = true
			}
		}
	}
	if len(ports) == 0 {
		errs = append(errs, field.Invalid(p.Child("selector"), sm.Spec.Selector, "selects no Service of the chart"))
	}
	for i, e := range sm.Spec.Endpoints {
		if !ports[e.Port] {
			errs = append(errs, field.NotFound(p.Child("endpoints").Index(i).Child("port"), e.Port))
		}
	}
	return errs
}

// messages turns a validation function's messages into field errors.
func messages(p *field.Path, value any, msgs []string) field.ErrorList {
	var errs field.ErrorList
	for _, m := range msgs {
		errs = append(errs, field.Invalid(p, value, m))
	}
	return errs
}

// objectName is the object's metadata.name.
func objectName(obj any) string {
	if m, ok := obj.(metav1.Object); ok {
		return m.GetName()
	}
	return ""
}
