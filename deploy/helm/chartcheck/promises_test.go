package chartcheck

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// The chart's default directory for the agent on each node (the
// containers' HOME), and the agent's home in it.
const (
	nodeDir = "/var/lib/idlegpu-agent"
	home    = nodeDir + "/.idlegpu-agent"
)

// promises checks what the chart's README and values promise, for w.
func promises(objs []Object, w want) []error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	ds, err := Find[*appsv1.DaemonSet](objs, release.Name)
	if err != nil {
		return []error{err}
	}
	cm, err := Find[*corev1.ConfigMap](objs, release.Name)
	if err != nil {
		return []error{err}
	}
	spec := ds.Spec.Template.Spec
	agent, setup := container(spec.Containers, "agent"), container(spec.InitContainers, "setup")
	chown := container(spec.InitContainers, "home")
	if agent == nil || setup == nil || chown == nil {
		return []error{fmt.Errorf("want containers agent, setup and home; have %d and %d init", len(spec.Containers), len(spec.InitContainers))}
	}

	// Scheduling: GPU nodes, their taint, one node at a time.
	if spec.NodeSelector["nvidia.com/gpu.present"] != "true" {
		fail("nodeSelector %v: want nvidia.com/gpu.present=true", spec.NodeSelector)
	}
	if !slices.ContainsFunc(spec.Tolerations, func(t corev1.Toleration) bool {
		return t.Key == "nvidia.com/gpu" && t.Operator == corev1.TolerationOpExists && t.Effect == corev1.TaintEffectNoSchedule
	}) {
		fail("tolerations %v: want nvidia.com/gpu Exists NoSchedule", spec.Tolerations)
	}
	if u := ds.Spec.UpdateStrategy; u.Type != appsv1.RollingUpdateDaemonSetStrategyType || u.RollingUpdate == nil ||
		u.RollingUpdate.MaxUnavailable == nil || u.RollingUpdate.MaxUnavailable.IntValue() != 1 {
		fail("updateStrategy %+v: want RollingUpdate, maxUnavailable 1", u)
	}

	// The GPUs, the host's PIDs, the Docker socket.
	if spec.RuntimeClassName == nil || *spec.RuntimeClassName != "nvidia" {
		fail("runtimeClassName %v: want nvidia", spec.RuntimeClassName)
	}
	if !spec.HostPID {
		fail("hostPID is off: NVML's PIDs would not be the jobs'")
	}
	for _, c := range []*corev1.Container{setup, agent} {
		errs = append(errs, gpuAccess(c, w.devicePlugin)...)
	}
	if !slices.Contains(spec.SecurityContext.SupplementalGroups, w.socketGroup) {
		fail("supplementalGroups %v: want the Docker socket's group %d", spec.SecurityContext.SupplementalGroups, w.socketGroup)
	}
	sock := hostPathVolume(spec, "docker-socket")
	if sock == nil || sock.Type == nil || *sock.Type != corev1.HostPathSocket {
		fail("docker-socket: want a hostPath of type Socket, have %+v", sock)
	} else if mountPath(agent, "docker-socket") != sock.Path || env(agent, "DOCKER_HOST") != "unix://"+sock.Path {
		fail("agent: the Docker socket %s must be mounted at its path and be DOCKER_HOST", sock.Path)
	}

	// The home: a per-node hostPath at the same path inside, owned by the
	// agent, its HOME, so that its commands find their home by default.
	h := hostPathVolume(spec, "home")
	if h == nil || h.Path != nodeDir || h.Type == nil || *h.Type != corev1.HostPathDirectoryOrCreate {
		fail("home: want hostPath %s (DirectoryOrCreate), have %+v", nodeDir, h)
	}
	for _, c := range []*corev1.Container{chown, setup, agent} {
		if mountPath(c, "home") != nodeDir {
			fail("%s mounts home at %q: the node's Docker resolves the jobs' mounts on the node, so it must be %s", c.Name, mountPath(c, "home"), nodeDir)
		}
	}
	for _, c := range []*corev1.Container{setup, agent} {
		if env(c, "HOME") != nodeDir {
			fail("%s: HOME %q, want %s (the agent's default home is $HOME/.idlegpu-agent)", c.Name, env(c, "HOME"), nodeDir)
		}
	}
	if flag(agent.Args, "--home") != home || agent.Args[0] != "run" {
		fail("agent args %v: want run --home %s", agent.Args, home)
	}

	// The Secret: the passphrase alone for the agent, the whole Secret for setup.
	pass := flag(agent.Args, "--keyring-passphrase-file")
	passVol, keysVol := secretVolume(spec, "passphrase"), secretVolume(spec, "keyring")
	switch {
	case passVol == nil || passVol.SecretName != w.secret || len(passVol.Items) != 1 || passVol.Items[0].Key != "passphrase":
		fail("passphrase volume %+v: want the key passphrase of Secret %s", passVol, w.secret)
	case keysVol == nil || keysVol.SecretName != w.secret || len(keysVol.Items) != 0:
		fail("keyring volume %+v: want all of Secret %s", keysVol, w.secret)
	case path.Join(mountPath(agent, "passphrase"), passVol.Items[0].Path) != pass:
		fail("agent: --keyring-passphrase-file %s is not the mounted passphrase", pass)
	case mountPath(agent, "keyring") != "" || mountPath(setup, "keyring") != path.Dir(pass):
		fail("the nodes' mnemonics (keyring volume) are for setup only, at %s", path.Dir(pass))
	}

	// Ports and probes: the endpoint on the node's port, health on metrics.
	endpointPort, metricsPort := port(agent, "endpoint"), port(agent, "metrics")
	if endpointPort == nil || endpointPort.HostPort != w.hostPort || metricsPort == nil || metricsPort.HostPort != 0 {
		fail("agent ports %+v: want endpoint on hostPort %d, metrics on none", agent.Ports, w.hostPort)
	}
	for name, p := range map[string]struct {
		probe *corev1.Probe
		path  string
	}{"startup": {agent.StartupProbe, "/metrics"}, "liveness": {agent.LivenessProbe, "/metrics"}, "readiness": {agent.ReadinessProbe, "/healthz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil || p.probe.HTTPGet.Path != p.path || p.probe.HTTPGet.Port.StrVal != "metrics" {
			fail("%s probe %+v: want GET %s on the metrics port", name, p.probe, p.path)
		}
	}

	// Least privilege within what the agent needs.
	sc := agent.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 || sc.Privileged != nil {
		fail("agent securityContext %+v: want non-root, no escalation, read-only root, no capabilities", sc)
	}
	if c := chown.SecurityContext; c == nil || c.Capabilities == nil || !slices.Equal(c.Capabilities.Add, []corev1.Capability{"CHOWN", "FOWNER"}) {
		fail("home init container: want only CHOWN and FOWNER added, have %+v", c)
	} else if uid := strconv.FormatInt(*sc.RunAsUser, 10); !slices.Contains(chown.Command, uid) || chown.Command[len(chown.Command)-1] != nodeDir {
		fail("home init container %v: want %s handed to uid %s", chown.Command, nodeDir, uid)
	}
	if ds.Spec.Template.Spec.AutomountServiceAccountToken == nil || *ds.Spec.Template.Spec.AutomountServiceAccountToken {
		fail("the agent needs no Kubernetes API token")
	}
	if _, ok := agent.Resources.Limits[corev1.ResourceCPU]; ok {
		fail("agent: a CPU limit would throttle the audits' host side")
	}

	// Metrics: annotations or a ServiceMonitor, on the port agent.toml listens on.
	ann := ds.Spec.Template.Annotations
	if ann["checksum/config"] == "" {
		fail("pod template: no checksum/config annotation: a new agent.toml would not roll the pods")
	}
	if got := ann["prometheus.io/scrape"] == "true" && ann["prometheus.io/path"] == "/metrics" &&
		metricsPort != nil && ann["prometheus.io/port"] == strconv.Itoa(int(metricsPort.ContainerPort)); got != w.annotations {
		fail("prometheus.io annotations %v: want them %v", ann, w.annotations)
	}
	errs = append(errs, serviceMonitor(objs, w.serviceMonitor)...)
	if metricsPort != nil && endpointPort != nil {
		errs = append(errs, agentConfig(cm, w, pass, endpointPort.ContainerPort, metricsPort.ContainerPort)...)
	}
	return errs
}

// gpuAccess checks how c reaches the node's GPUs.
func gpuAccess(c *corev1.Container, devicePlugin int64) []error {
	var errs []error
	q, requested := c.Resources.Limits["nvidia.com/gpu"]
	visible := env(c, "NVIDIA_VISIBLE_DEVICES")
	switch {
	case devicePlugin == 0 && (visible != "all" || requested):
		errs = append(errs, fmt.Errorf("%s: runtime mode wants NVIDIA_VISIBLE_DEVICES=all and no nvidia.com/gpu, has %q and %v", c.Name, visible, q.String()))
	case devicePlugin > 0 && (visible != "" || q.Value() != devicePlugin):
		errs = append(errs, fmt.Errorf("%s: device-plugin mode wants %d nvidia.com/gpu and the plugin's NVIDIA_VISIBLE_DEVICES, has %v and %q", c.Name, devicePlugin, q.String(), visible))
	}
	caps := strings.Split(env(c, "NVIDIA_DRIVER_CAPABILITIES"), ",")
	if !slices.Contains(caps, "compute") || !slices.Contains(caps, "utility") {
		errs = append(errs, fmt.Errorf("%s: NVIDIA_DRIVER_CAPABILITIES %v: NVML needs utility, the audits compute", c.Name, caps))
	}
	return errs
}

// serviceMonitor checks the ServiceMonitor: none when labels is nil, else
// one carrying labels.
func serviceMonitor(objs []Object, labels map[string]string) []error {
	sms := All[*monitoringv1.ServiceMonitor](objs)
	switch {
	case labels == nil && len(sms) == 0:
		return nil
	case labels == nil || len(sms) != 1:
		return []error{fmt.Errorf("%d ServiceMonitors rendered, want %d", len(sms), map[bool]int{true: 0, false: 1}[labels == nil])}
	}
	var errs []error
	for k, v := range labels {
		if sms[0].Labels[k] != v {
			errs = append(errs, fmt.Errorf("ServiceMonitor labels %v: want %s=%s", sms[0].Labels, k, v))
		}
	}
	if e := sms[0].Spec.Endpoints; len(e) != 1 || e[0].Path != "/metrics" {
		errs = append(errs, fmt.Errorf("ServiceMonitor endpoints %+v: want /metrics", e))
	}
	return errs
}

// agentConfig checks agent.toml against the pod: the listen ports, the
// passphrase file, the paths under the home; and setup.sh's registration.
func agentConfig(cm *corev1.ConfigMap, w want, pass string, endpointPort, metricsPort int32) []error {
	var c struct {
		Key struct {
			Name           string `toml:"name"`
			KeyringBackend string `toml:"keyring_backend"`
			KeyringDir     string `toml:"keyring_dir"`
			PassphraseFile string `toml:"passphrase_file"`
		} `toml:"key"`
		Runner struct {
			Backend string `toml:"backend"`
			WorkDir string `toml:"work_dir"`
		} `toml:"runner"`
		Endpoint struct {
			Listen  string `toml:"listen"`
			TLSCert string `toml:"tls_cert"`
			TLSKey  string `toml:"tls_key"`
		} `toml:"endpoint"`
		Metrics struct {
			Listen string `toml:"listen"`
		} `toml:"metrics"`
		State struct {
			Dir string `toml:"dir"`
		} `toml:"state"`
		JobData struct {
			Dir string `toml:"dir"`
		} `toml:"job_data"`
	}
	if _, err := toml.Decode(cm.Data["agent.toml"], &c); err != nil {
		return []error{fmt.Errorf("agent.toml: %w", err)}
	}
	var errs []error
	expect := func(what, got, want string) {
		if got != want {
			errs = append(errs, fmt.Errorf("agent.toml %s = %q, want %q", what, got, want))
		}
	}
	expect("key.name", c.Key.Name, w.keyName)
	expect("key.keyring_backend", c.Key.KeyringBackend, "file")
	expect("key.keyring_dir", c.Key.KeyringDir, home)
	expect("key.passphrase_file", c.Key.PassphraseFile, pass)
	expect("runner.backend", c.Runner.Backend, "docker")
	expect("endpoint.listen", c.Endpoint.Listen, fmt.Sprintf("0.0.0.0:%d", endpointPort))
	expect("metrics.listen", c.Metrics.Listen, fmt.Sprintf("0.0.0.0:%d", metricsPort))
	for what, p := range map[string]string{"runner.work_dir": c.Runner.WorkDir, "endpoint.tls_cert": c.Endpoint.TLSCert,
		"endpoint.tls_key": c.Endpoint.TLSKey, "state.dir": c.State.Dir, "job_data.dir": c.JobData.Dir} {
		if !strings.HasPrefix(p, home+"/") {
			errs = append(errs, fmt.Errorf("agent.toml %s = %q: want it in the node's home %s", what, p, home))
		}
	}
	setup := cm.Data["setup.sh"]
	for _, s := range append([]string{"idlegpu-agent init", "mnemonic-$NODE_NAME", "keyring-file/" + w.keyName + ".info"}, w.register...) {
		if !strings.Contains(setup, s) {
			errs = append(errs, fmt.Errorf("setup.sh lacks %q", s))
		}
	}
	return errs
}

func container(cs []corev1.Container, name string) *corev1.Container {
	for i := range cs {
		if cs[i].Name == name {
			return &cs[i]
		}
	}
	return nil
}

func env(c *corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

func port(c *corev1.Container, name string) *corev1.ContainerPort {
	for i := range c.Ports {
		if c.Ports[i].Name == name {
			return &c.Ports[i]
		}
	}
	return nil
}

func mountPath(c *corev1.Container, volume string) string {
	for _, m := range c.VolumeMounts {
		if m.Name == volume {
			return m.MountPath
		}
	}
	return ""
}

func hostPathVolume(s corev1.PodSpec, name string) *corev1.HostPathVolumeSource {
	for _, v := range s.Volumes {
		if v.Name == name {
			return v.HostPath
		}
	}
	return nil
}

func secretVolume(s corev1.PodSpec, name string) *corev1.SecretVolumeSource {
	for _, v := range s.Volumes {
		if v.Name == name {
			return v.Secret
		}
	}
	return nil
}

// flag is the value after name in args.
func flag(args []string, name string) string {
	if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}
