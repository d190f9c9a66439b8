package deploycheck

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/nebulaengine/nebula/internal/agones"
)

// The Agones objects of deploy/, as far as the test reads them. Every
// field the files use is here: decoding is strict, so a misspelt field is
// an error. The pod's own specification is kept loose where Kubernetes
// has many optional fields (resources, securityContext).

type objectMeta struct {
	Name   string            `yaml:"name"`
	Labels map[string]string `yaml:"labels"`
}

type fleet struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   objectMeta `yaml:"metadata"`
	Spec       struct {
		Replicas   int    `yaml:"replicas"`
		Scheduling string `yaml:"scheduling"`
		Strategy   struct {
			Type string `yaml:"type"`
		} `yaml:"strategy"`
		Template struct {
			Metadata objectMeta     `yaml:"metadata"`
			Spec     gameServerSpec `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type gameServerSpec struct {
	Ports []struct {
		Name          string `yaml:"name"`
		PortPolicy    string `yaml:"portPolicy"`
		ContainerPort int    `yaml:"containerPort"`
		Protocol      string `yaml:"protocol"`
	} `yaml:"ports"`
	Health struct {
		Disabled            bool `yaml:"disabled"`
		InitialDelaySeconds int  `yaml:"initialDelaySeconds"`
		PeriodSeconds       int  `yaml:"periodSeconds"`
		FailureThreshold    int  `yaml:"failureThreshold"`
	} `yaml:"health"`
	SDKServer struct {
		LogLevel string `yaml:"logLevel"`
	} `yaml:"sdkServer"`
	Template struct {
		Spec struct {
			Containers []container `yaml:"containers"`
			Volumes    []volume    `yaml:"volumes"`
		} `yaml:"spec"`
	} `yaml:"template"`
}

type container struct {
	Name  string   `yaml:"name"`
	Image string   `yaml:"image"`
	Args  []string `yaml:"args"`
	Env   []struct {
		Name      string         `yaml:"name"`
		Value     string         `yaml:"value"`
		ValueFrom map[string]any `yaml:"valueFrom"`
	} `yaml:"env"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
		Protocol      string `yaml:"protocol"`
	} `yaml:"ports"`
	VolumeMounts    []volumeMount  `yaml:"volumeMounts"`
	Resources       map[string]any `yaml:"resources"`
	SecurityContext map[string]any `yaml:"securityContext"`
}

type volume struct {
	Name   string `yaml:"name"`
	Secret struct {
		SecretName  string `yaml:"secretName"`
		DefaultMode int    `yaml:"defaultMode"`
	} `yaml:"secret"`
}

type volumeMount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
	ReadOnly  bool   `yaml:"readOnly"`
}

type fleetAutoscaler struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   objectMeta `yaml:"metadata"`
	Spec       struct {
		FleetName string `yaml:"fleetName"`
		Policy    struct {
			Type   string `yaml:"type"`
			Buffer struct {
				BufferSize  string `yaml:"bufferSize"` // a count, or a percentage "20%"
				MinReplicas int    `yaml:"minReplicas"`
				MaxReplicas int    `yaml:"maxReplicas"`
			} `yaml:"buffer"`
		} `yaml:"policy"`
		Sync struct {
			Type          string `yaml:"type"`
			FixedInterval struct {
				Seconds int `yaml:"seconds"`
			} `yaml:"fixedInterval"`
		} `yaml:"sync"`
	} `yaml:"spec"`
}

type allocation struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		Selectors []struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selectors"`
		Metadata struct {
			Labels      map[string]string `yaml:"labels"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"metadata"`
	} `yaml:"spec"`
}

// decodeStrict decodes the one YAML document of deploy/name into v,
// refusing fields v does not have.
func decodeStrict(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "deploy", name))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("deploy/%s: %v", name, err)
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		t.Fatalf("deploy/%s: want one document, found more (%v)", name, err)
	}
}

// TestManifests reads deploy/'s Agones objects and checks them against
// each other, the Dockerfile and the server (the package doc says what).
func TestManifests(t *testing.T) {
	var fl fleet
	var fa fleetAutoscaler
	var ga allocation
	decodeStrict(t, "fleet.yaml", &fl)
	decodeStrict(t, "fleetautoscaler.yaml", &fa)
	decodeStrict(t, "allocation.yaml", &ga)
	df := readDockerfile(t)

	// The Fleet.
	if fl.APIVersion != "agones.dev/v1" || fl.Kind != "Fleet" || fl.Metadata.Name == "" {
		t.Errorf("fleet.yaml: %s %s %q, want an agones.dev/v1 Fleet with a name", fl.APIVersion, fl.Kind, fl.Metadata.Name)
	}
	gs := fl.Spec.Template.Spec
	if len(gs.Ports) != 1 {
		t.Fatalf("fleet.yaml: %d game ports, want 1 (the match's)", len(gs.Ports))
	}
	p := gs.Ports[0]
	if !slices.Contains([]string{"Dynamic", "Passthrough", "Static"}, p.PortPolicy) {
		t.Errorf("fleet.yaml: port policy %q", p.PortPolicy)
	}
	protocols := map[string][]string{"TCPUDP": {"tcp", "udp"}, "TCP": {"tcp"}, "UDP": {"udp"}}[p.Protocol]
	if protocols == nil {
		t.Errorf("fleet.yaml: port protocol %q, want TCPUDP, TCP or UDP", p.Protocol)
	}
	for _, proto := range protocols {
		if port := strconv.Itoa(p.ContainerPort) + "/" + proto; !slices.Contains(df.expose, port) {
			t.Errorf("fleet.yaml: game port %s, which the Dockerfile does not expose (%v)", port, df.expose)
		}
	}
	if h := gs.Health; h.Disabled || h.PeriodSeconds < 1 || h.FailureThreshold < 1 {
		t.Errorf("fleet.yaml: health %+v: want it on, with a period and a threshold", h)
	} else if period := time.Duration(h.PeriodSeconds) * time.Second; agones.DefaultHealthEvery*2 > period {
		t.Errorf("fleet.yaml: health period %v: the server pings every %v, want at least two pings a period", period, agones.DefaultHealthEvery)
	}
	cs := gs.Template.Spec.Containers
	if len(cs) != 1 {
		t.Fatalf("fleet.yaml: %d containers, want the server's alone", len(cs))
	}
	c := cs[0]
	if image, _, _ := strings.Cut(c.Image, ":"); image != imageName(t) {
		t.Errorf("fleet.yaml: image %q, want the Makefile's %s", c.Image, imageName(t))
	}
	for _, port := range c.Ports {
		spec := strconv.Itoa(port.ContainerPort) + "/" + strings.ToLower(port.Protocol)
		if !slices.Contains(df.expose, spec) {
			t.Errorf("fleet.yaml: container port %s (%s), which the Dockerfile does not expose (%v)", spec, port.Name, df.expose)
		}
		if port.Name == "ops" && !slices.Contains(c.Args, "-ops=:"+strconv.Itoa(port.ContainerPort)) {
			t.Errorf("fleet.yaml: the ops port %d is not the server's -ops (args %q)", port.ContainerPort, c.Args)
		}
	}
	checkServerArgs(t, c.Args)
	// The token key: a file of a mounted Secret the server (nobody) can
	// read, named by -key.
	for _, m := range c.VolumeMounts {
		i := slices.IndexFunc(gs.Template.Spec.Volumes, func(v volume) bool { return v.Name == m.Name })
		if i < 0 {
			t.Errorf("fleet.yaml: the container mounts volume %q, which the pod does not have", m.Name)
			continue
		}
		if v := gs.Template.Spec.Volumes[i]; v.Secret.SecretName != "" && v.Secret.DefaultMode&0o004 == 0 {
			t.Errorf("fleet.yaml: secret volume %q: mode %#o, which the server (user 65534) cannot read", v.Name, v.Secret.DefaultMode)
		}
	}
	for _, a := range c.Args {
		if key, ok := strings.CutPrefix(a, "-key="); ok && !slices.ContainsFunc(c.VolumeMounts, func(m volumeMount) bool {
			return strings.HasPrefix(key, m.MountPath+"/")
		}) {
			t.Errorf("fleet.yaml: -key=%s is on no mounted volume", key)
		}
	}

	// The autoscaler scales that Fleet, within sane bounds.
	b := fa.Spec.Policy.Buffer
	size, err := strconv.Atoi(b.BufferSize)
	switch {
	case fa.APIVersion != "autoscaling.agones.dev/v1" || fa.Kind != "FleetAutoscaler":
		t.Errorf("fleetautoscaler.yaml: %s %s", fa.APIVersion, fa.Kind)
	case fa.Spec.FleetName != fl.Metadata.Name:
		t.Errorf("fleetautoscaler.yaml: scales fleet %q, fleet.yaml is %q", fa.Spec.FleetName, fl.Metadata.Name)
	case fa.Spec.Policy.Type != "Buffer":
		t.Errorf("fleetautoscaler.yaml: policy %q, want Buffer", fa.Spec.Policy.Type)
	case err != nil && !regexp.MustCompile(`^[1-9][0-9]?%$`).MatchString(b.BufferSize):
		t.Errorf("fleetautoscaler.yaml: bufferSize %q: want a count or a percentage", b.BufferSize)
	case err == nil && (size < 1 || b.MinReplicas < size):
		t.Errorf("fleetautoscaler.yaml: bufferSize %d, minReplicas %d: Agones wants minReplicas at least the buffer", size, b.MinReplicas)
	case b.MaxReplicas < b.MinReplicas || b.MaxReplicas < 1:
		t.Errorf("fleetautoscaler.yaml: maxReplicas %d under minReplicas %d", b.MaxReplicas, b.MinReplicas)
	}

	// The allocation picks a server of that Fleet.
	if ga.APIVersion != "allocation.agones.dev/v1" || ga.Kind != "GameServerAllocation" {
		t.Errorf("allocation.yaml: %s %s", ga.APIVersion, ga.Kind)
	}
	if len(ga.Spec.Selectors) == 0 || ga.Spec.Selectors[0].MatchLabels["agones.dev/fleet"] != fl.Metadata.Name {
		t.Errorf("allocation.yaml: selectors %+v, want agones.dev/fleet: %s", ga.Spec.Selectors, fl.Metadata.Name)
	}

	// The Dockerfile is one static binary.
	if df.from != "scratch" || len(df.copies) != 1 || len(df.entrypoint) != 1 || df.copies[0][len(df.copies[0])-1] != df.entrypoint[0] {
		t.Errorf("deploy/Dockerfile: FROM %s, COPY %v, ENTRYPOINT %v: want one binary FROM scratch, its entrypoint", df.from, df.copies, df.entrypoint)
	}
}

// imageName returns the image's name (no tag) in the Makefile's IMAGE.
func imageName(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^IMAGE \?= ([^:\s]+)(:\S+)?$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("Makefile: no line IMAGE ?= name:tag")
	}
	return string(m[1])
}

// checkServerArgs checks that the server takes the Fleet's arguments:
// with -h after them it prints its usage and exits 0, which it does only
// when every flag before it exists and its value parses.
func checkServerArgs(t *testing.T, args []string) {
	t.Helper()
	cmd := exec.Command(imageBinary(t), append(slices.Clone(args), "-h")...)
	cmd.Env = []string{}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("fleet.yaml: the server refuses its arguments %q: %v\n%s", args, err, out)
	}
}
