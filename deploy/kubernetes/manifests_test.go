// Package kubernetes holds the manifests of deploy/kubernetes; its test
// decodes them strictly with the Kubernetes API types and checks them
// against the binary the Containerfile builds.
package kubernetes

import (
	"fmt"
	"net"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/wasmcp/wasmcp/deploy/internal/image"
	"github.com/wasmcp/wasmcp/host/policy"
)

// manifests are the objects of this directory's *.yaml files, one a file.
type manifests struct {
	deployment *appsv1.Deployment
	service    *corev1.Service
	configMap  *corev1.ConfigMap
	secret     *corev1.Secret
	pdb        *policyv1.PodDisruptionBudget
}

// load decodes every *.yaml file strictly: a field the API type does not
// have, or a duplicate, fails the test.
func load(t *testing.T) manifests {
	t.Helper()
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	var m manifests
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(b, &tm); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var obj any
		switch tm.APIVersion + " " + tm.Kind {
		case "apps/v1 Deployment":
			m.deployment = &appsv1.Deployment{}
			obj = m.deployment
		case "v1 Service":
			m.service = &corev1.Service{}
			obj = m.service
		case "v1 ConfigMap":
			m.configMap = &corev1.ConfigMap{}
			obj = m.configMap
		case "v1 Secret":
			m.secret = &corev1.Secret{}
			obj = m.secret
		case "policy/v1 PodDisruptionBudget":
			m.pdb = &policyv1.PodDisruptionBudget{}
			obj = m.pdb
		default:
			t.Fatalf("%s: unexpected %s %s", file, tm.APIVersion, tm.Kind)
		}
		if err := yaml.UnmarshalStrict(b, obj); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	if m.deployment == nil || m.service == nil || m.configMap == nil || m.secret == nil || m.pdb == nil {
		t.Fatalf("want a Deployment, a Service, a ConfigMap, a Secret and a PodDisruptionBudget, have %+v", m)
	}
	return m
}

// pathFlags are the serve flags that name a file or a directory, which must
// be in a volume: the root filesystem is read-only and the image holds
// nothing else.
var pathFlags = []string{"dir", "config", "token-file", "cache-dir", "lock", "trusted-keys", "state-key-file"}

func TestManifests(t *testing.T) {
	m := load(t)
	bin, err := image.Build("../..", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	flags, err := image.ServeFlags(bin)
	if err != nil {
		t.Fatal(err)
	}

	pod := m.deployment.Spec.Template
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	if len(c.Command) > 0 || len(c.Args) == 0 || c.Args[0] != "serve" {
		t.Fatalf("command %v args %v, want the image's entrypoint with serve", c.Command, c.Args)
	}
	if unknown := image.UnknownFlags(c.Args[1:], flags); len(unknown) > 0 {
		t.Errorf("args pass flags serve does not know: %v", unknown)
	}

	// The listener, the ports and the probes.
	addr, _ := image.FlagValue(c.Args, "http")
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" || net.ParseIP(host).IsLoopback() {
		t.Fatalf("--http %q, want an address the kubelet and the Service can reach", addr)
	}
	if _, ok := image.FlagValue(c.Args, "token-file"); !ok {
		t.Error("a non-loopback --http without --token-file")
	}
	containerPort := func(p intstr.IntOrString) string {
		if p.Type == intstr.Int {
			return p.String()
		}
		for _, cp := range c.Ports {
			if cp.Name == p.StrVal {
				return strconv.Itoa(int(cp.ContainerPort))
			}
		}
		return "no port named " + p.StrVal
	}
	for name, probe := range map[string]struct {
		p    *corev1.Probe
		path string
	}{"readiness": {c.ReadinessProbe, "/readyz"}, "liveness": {c.LivenessProbe, "/healthz"}} {
		if probe.p == nil || probe.p.HTTPGet == nil {
			t.Errorf("no HTTP %s probe", name)
			continue
		}
		if g := probe.p.HTTPGet; g.Path != probe.path || containerPort(g.Port) != port {
			t.Errorf("%s probe GET %s on port %s, want %s on the --http port %s", name, g.Path, containerPort(g.Port), probe.path, port)
		}
	}
	for _, sp := range m.service.Spec.Ports {
		if got := containerPort(sp.TargetPort); got != port {
			t.Errorf("Service port %s reaches container port %s, want the --http port %s", sp.Name, got, port)
		}
	}

	// Selectors.
	podLabels := labels.Set(pod.Labels)
	if !labels.SelectorFromSet(m.service.Spec.Selector).Matches(podLabels) {
		t.Errorf("the Service's selector %v misses the pods %v", m.service.Spec.Selector, pod.Labels)
	}
	for name, sel := range map[string]*metav1.LabelSelector{"Deployment": m.deployment.Spec.Selector, "PodDisruptionBudget": m.pdb.Spec.Selector} {
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil || s.Empty() || !s.Matches(podLabels) {
			t.Errorf("the %s's selector %v misses the pods %v (%v)", name, sel, pod.Labels, err)
		}
	}

	// Every path a flag names is in a volume, and a file of a ConfigMap or
	// a Secret is one of its keys.
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Spec.Volumes {
		volumes[v.Name] = v
	}
	for _, name := range pathFlags {
		p, ok := image.FlagValue(c.Args, name)
		if !ok {
			continue
		}
		if err := checkPath(m, c, volumes, name, p); err != nil {
			t.Error(err)
		}
	}
	if data, ok := m.configMap.Data["policy.json"]; !ok {
		t.Error("the ConfigMap has no policy.json")
	} else if _, err := policy.Parse([]byte(data), "/etc/wasmcp/policy"); err != nil {
		t.Errorf("the ConfigMap's policy.json: %v", err)
	}

	// Security and resources.
	psc, sc := pod.Spec.SecurityContext, c.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Error("the pod does not run as a non-root user")
	} else if cf, err := image.Parse("../../Containerfile"); err != nil {
		t.Error(err)
	} else if user, _, _ := strings.Cut(cf.Final().Last("USER"), ":"); user != strconv.FormatInt(*psc.RunAsUser, 10) {
		t.Errorf("runAsUser %d, the image's USER %s", *psc.RunAsUser, user)
	}
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Error("the container's root filesystem is writable or it may escalate privileges")
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if _, ok := c.Resources.Limits[r]; !ok {
			t.Errorf("no %s limit", r)
		}
	}

	// Shutdown: serve drains for 10s after SIGTERM, which comes after preStop.
	const drain = 10
	var preStop int64
	if c.Lifecycle != nil && c.Lifecycle.PreStop != nil && c.Lifecycle.PreStop.Sleep != nil {
		preStop = c.Lifecycle.PreStop.Sleep.Seconds
	}
	if g := pod.Spec.TerminationGracePeriodSeconds; g == nil || *g <= preStop+drain {
		t.Errorf("terminationGracePeriodSeconds %v leaves no room for preStop (%ds) and the drain (%ds)", g, preStop, drain)
	}
}

// checkPath says whether the value p of flag is in a volume the container
// mounts, fit for the flag.
func checkPath(m manifests, c corev1.Container, volumes map[string]corev1.Volume, flag, p string) error {
	for _, mount := range c.VolumeMounts {
		rel, ok := strings.CutPrefix(path.Clean(p), path.Clean(mount.MountPath))
		if !ok || (rel != "" && rel[0] != '/') {
			continue
		}
		rel = strings.TrimPrefix(rel, "/")
		v, ok := volumes[mount.Name]
		if !ok {
			return fmt.Errorf("mount %s names no volume", mount.Name)
		}
		switch {
		case flag == "cache-dir":
			if v.EmptyDir == nil || mount.ReadOnly {
				return fmt.Errorf("--cache-dir %s is not in a writable emptyDir", p)
			}
		case v.ConfigMap != nil:
			if v.ConfigMap.Name != m.configMap.Name {
				return fmt.Errorf("volume %s mounts ConfigMap %s, not %s", v.Name, v.ConfigMap.Name, m.configMap.Name)
			}
			if _, ok := m.configMap.Data[rel]; !ok {
				return fmt.Errorf("--%s %s: ConfigMap %s has no key %q", flag, p, m.configMap.Name, rel)
			}
		case v.Secret != nil:
			if v.Secret.SecretName != m.secret.Name {
				return fmt.Errorf("volume %s mounts Secret %s, not %s", v.Name, v.Secret.SecretName, m.secret.Name)
			}
			_, inData := m.secret.Data[rel]
			if _, ok := m.secret.StringData[rel]; !ok && !inData {
				return fmt.Errorf("--%s %s: Secret %s has no key %q", flag, p, m.secret.Name, rel)
			}
		}
		return nil
	}
	return fmt.Errorf("--%s %s is in no volume; the root filesystem holds only the binary", flag, p)
}
