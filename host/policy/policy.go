package policy

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wasmcp/wasmcp/abi"
)

// Policy is a parsed policy file. It is immutable and safe for concurrent
// use. A nil *Policy grants nothing and sets no limit.
type Policy struct {
	defaults Settings
	plugins  map[string]Settings
	sources  []string
	views    []View
	local    *Principal
	issuers  []string
	// discovery is the file's "discovery": "off", "only" or "beside".
	discovery string
}

// file is the JSON document.
type file struct {
	Defaults Settings            `json:"defaults"`
	Plugins  map[string]Settings `json:"plugins"`
	Sources  []string            `json:"sources"`
	// Views say which principals see which tools (views.go); Local is the
	// principal of a client that authenticates nowhere (stdio).
	Views []View     `json:"views"`
	Local *localSpec `json:"local"`
	// Discovery offers the server's tools of progressive discovery (wasmcp
	// serve -discovery): "off", "only" or "beside".
	Discovery string `json:"discovery"`
	// OAuth names the authorization servers whose tokens an HTTP server
	// accepts, besides those of its flags.
	OAuth *struct {
		Issuers []string `json:"issuers"`
	} `json:"oauth"`
}

// localSpec is the file's "local": the attributes of the stdio principal.
type localSpec struct {
	Subject string              `json:"subject"`
	Scopes  []string            `json:"scopes"`
	Claims  map[string][]string `json:"claims"`
}

// Settings are the settings of one section of the file. A nil field is not
// set: a plugin's section inherits it from "defaults".
type Settings struct {
	Memory      *Size     `json:"memory,omitempty"`
	Timeout     *Duration `json:"timeout,omitempty"`
	MaxOutput   *Size     `json:"maxOutput,omitempty"`
	Concurrency *int      `json:"concurrency,omitempty"`
	Rate        *float64  `json:"rate,omitempty"`
	// FS are the directories the plugin may be granted. GuestPath is
	// "guest", HostPath "host" in the file.
	FS     []Mount  `json:"fs,omitempty"`
	Env    []string `json:"env,omitempty"`
	Clock  *bool    `json:"clock,omitempty"`
	Random *bool    `json:"random,omitempty"`
	// The net settings (net.go): origins, address rules, headers the host
	// adds, trust, proxy and bounds of wasmcp.http_request.
	Net            []string                     `json:"net,omitempty"`
	PrivateNetwork *bool                        `json:"privateNetwork,omitempty"`
	Headers        map[string]map[string]string `json:"headers,omitempty"`
	CAFile         *string                      `json:"caFile,omitempty"`
	Proxy          *string                      `json:"proxy,omitempty"`
	MaxResponse    *Size                        `json:"maxResponse,omitempty"`
	MaxRequests    *int                         `json:"maxRequests,omitempty"`
	// Config are the values an Extism plugin reads with config_get. A
	// plugin's object replaces the defaults' whole.
	Config map[string]string `json:"config,omitempty"`
	// Secrets are the values a hyper-mcp plugin reads with
	// get_keyring_secret, by "service/user", each expanding ${NAME} from
	// wasmcp's environment. A plugin's object replaces the defaults' whole.
	Secrets map[string]string `json:"secrets,omitempty"`
	// Tools is which tools are served, and under which names (surface.go).
	// A plugin's object replaces the defaults' whole.
	Tools *Surface `json:"tools,omitempty"`
}

// Load reads and parses the policy file at path. Relative host paths of
// mounts are relative to the file's directory.
func Load(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load policy: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("load policy %s: %w", path, err)
	}
	p, err := Parse(data, filepath.Dir(abs))
	if err != nil {
		return nil, fmt.Errorf("load policy %s: %w", path, err)
	}
	return p, nil
}

// Parse parses a policy document. Relative host paths are relative to dir.
func Parse(data []byte, dir string) (*Policy, error) {
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	switch f.Discovery {
	case "", "off", "only", "beside":
	default:
		return nil, fmt.Errorf("discovery %q is none of off, only, beside", f.Discovery)
	}
	p := &Policy{defaults: f.Defaults, plugins: f.Plugins, sources: f.Sources, views: f.Views, discovery: f.Discovery}
	if f.OAuth != nil {
		p.issuers = f.OAuth.Issuers
	}
	seen := map[string]bool{}
	for i := range p.views {
		if err := p.views[i].check(); err != nil {
			return nil, fmt.Errorf("views[%d]: %w", i, err)
		}
		if seen[p.views[i].Name] {
			return nil, fmt.Errorf("views[%d]: a second view named %s", i, p.views[i].Name)
		}
		seen[p.views[i].Name] = true
	}
	if l := f.Local; l != nil {
		p.local = &Principal{Subject: cmp.Or(l.Subject, "local"), Scopes: l.Scopes, Claims: map[string]any{}}
		for k, v := range l.Claims {
			p.local.Claims[k] = v
		}
	}
	for i, src := range p.sources {
		if strings.TrimSpace(src) == "" {
			return nil, fmt.Errorf("sources[%d] is empty", i)
		}
	}
	if err := p.defaults.check(dir); err != nil {
		return nil, fmt.Errorf("defaults: %w", err)
	}
	for name, s := range p.plugins {
		if err := s.check(dir); err != nil {
			return nil, fmt.Errorf("plugins.%s: %w", name, err)
		}
		p.plugins[name] = s
	}
	return p, nil
}

// Sources are the module references of the file's "sources" list, for the
// server to fetch and serve beside its directory (wasmcp serve); the host
// itself does not read them.
func (p *Policy) Sources() []string {
	if p == nil {
		return nil
	}
	return p.sources
}

// Discovery is the file's "discovery", for the server to offer its tools
// of progressive discovery (wasmcp serve -discovery); "" when unset.
func (p *Policy) Discovery() string {
	if p == nil {
		return ""
	}
	return p.discovery
}

// Issuers are the authorization servers of the file's "oauth.issuers", for
// an HTTP server to trust (wasmcp serve -oauth-issuer); the host itself
// does not read them.
func (p *Policy) Issuers() []string {
	if p == nil {
		return nil
	}
	return p.issuers
}

// check validates s and makes its host paths absolute.
func (s *Settings) check(dir string) error {
	switch {
	case s.Memory != nil && (*s.Memory < 1<<16 || *s.Memory > 4<<30):
		return fmt.Errorf("memory %d bytes is not between 64KiB and 4GiB", *s.Memory)
	case s.Timeout != nil && *s.Timeout <= 0:
		return fmt.Errorf("timeout %s is not positive", time.Duration(*s.Timeout))
	case s.MaxOutput != nil && (*s.MaxOutput == 0 || *s.MaxOutput > math.MaxUint32):
		return fmt.Errorf("maxOutput %d is not between 1 byte and 4GiB", *s.MaxOutput)
	case s.Concurrency != nil && *s.Concurrency < 0:
		return fmt.Errorf("concurrency %d is negative", *s.Concurrency)
	case s.Rate != nil && !(*s.Rate >= 0):
		return fmt.Errorf("rate %v is not a non-negative number", *s.Rate)
	}
	for key := range s.Secrets {
		if service, user, ok := strings.Cut(key, "/"); !ok || service == "" || user == "" {
			return fmt.Errorf("secrets: key %q is not \"service/user\", a keyring entry's service and user", key)
		}
	}
	if s.FS != nil {
		fs := make([]Mount, len(s.FS))
		for i, m := range s.FS {
			if m.HostPath == "" {
				return fmt.Errorf("fs entry %d: host is missing", i+1)
			}
			if !filepath.IsAbs(m.HostPath) {
				m.HostPath = filepath.Join(dir, m.HostPath)
			}
			fs[i] = m
		}
		s.FS = fs
	}
	var env []EnvVar
	for _, spec := range s.Env {
		name, value, _ := strings.Cut(spec, "=")
		env = append(env, EnvVar{Name: name, Value: value})
	}
	if err := (Grants{Mounts: s.FS, Env: env}).Validate(); err != nil {
		return err
	}
	if err := s.Tools.check(); err != nil {
		return err
	}
	return s.checkNet(dir)
}

// Limits are the resource limits of one plugin. A zero field is not set by
// the policy: the host's own setting applies.
type Limits struct {
	Memory    uint64        // bytes of linear memory per instance
	Timeout   time.Duration // deadline of one call
	MaxOutput uint32        // bytes of a result document
}

// Admission is what the MCP server's admission control needs for one
// plugin. A zero field is not set by the policy.
type Admission struct {
	// Concurrency is how many calls the plugin may run at once.
	Concurrency int
	// Rate is how many calls per second the plugin may serve, all its tools
	// and sessions together.
	Rate float64
}

// settings merges the plugin's section over the defaults.
func (p *Policy) settings(plugin string) Settings {
	if p == nil {
		return Settings{}
	}
	s, o := p.defaults, p.plugins[plugin]
	if o.Memory != nil {
		s.Memory = o.Memory
	}
	if o.Timeout != nil {
		s.Timeout = o.Timeout
	}
	if o.MaxOutput != nil {
		s.MaxOutput = o.MaxOutput
	}
	if o.Concurrency != nil {
		s.Concurrency = o.Concurrency
	}
	if o.Rate != nil {
		s.Rate = o.Rate
	}
	if o.FS != nil {
		s.FS = o.FS
	}
	if o.Env != nil {
		s.Env = o.Env
	}
	if o.Clock != nil {
		s.Clock = o.Clock
	}
	if o.Random != nil {
		s.Random = o.Random
	}
	if o.Config != nil {
		s.Config = o.Config
	}
	if o.Secrets != nil {
		s.Secrets = o.Secrets
	}
	if o.Tools != nil {
		s.Tools = o.Tools
	}
	mergeNet(&s, o)
	return s
}

// Config returns the values the Extism plugin named plugin reads with
// config_get; nil for none. Callers must not modify the map.
func (p *Policy) Config(plugin string) map[string]string {
	return p.settings(plugin).Config
}

// Secrets returns the secrets the plugin named plugin may read with
// get_keyring_secret, by "service/user", expanded from the environment,
// and those left out because a variable they name is not set.
func (p *Policy) Secrets(plugin string) (map[string]string, []string) {
	spec := p.settings(plugin).Secrets
	if len(spec) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(spec))
	var missing []string
	for key, v := range spec {
		value, unset := expand(v)
		if len(unset) > 0 {
			missing = append(missing, fmt.Sprintf("secret %s (${%s} is not set)", key, unset[0]))
			continue
		}
		out[key] = value
	}
	slices.Sort(missing)
	return out, missing
}

// Offer is the permissions request that asks for everything the policy
// offers the plugin named plugin: the request of a module that cannot make
// one (an Extism plugin), for Grant. Any wasmcp module could make the same
// request, so a plugin that makes none gets nothing another could not.
// Nil when the policy offers nothing.
func (p *Policy) Offer(plugin string) *abi.Permissions {
	s := p.settings(plugin)
	r := &abi.Permissions{Net: s.Net, Clock: s.Clock != nil && *s.Clock, Random: s.Random != nil && *s.Random}
	for _, m := range s.FS {
		r.FS = append(r.FS, abi.FSPermission{Path: m.GuestPath, Write: m.Write})
	}
	for _, spec := range s.Env {
		name, _, _ := strings.Cut(spec, "=")
		r.Env = append(r.Env, name)
	}
	if len(r.FS) == 0 && len(r.Env) == 0 && len(r.Net) == 0 && !r.Clock && !r.Random {
		return nil
	}
	return r
}

// Limits returns the resource limits of the plugin named plugin.
func (p *Policy) Limits(plugin string) Limits {
	s := p.settings(plugin)
	var l Limits
	if s.Memory != nil {
		l.Memory = uint64(*s.Memory)
	}
	if s.Timeout != nil {
		l.Timeout = time.Duration(*s.Timeout)
	}
	if s.MaxOutput != nil {
		l.MaxOutput = uint32(*s.MaxOutput)
	}
	return l
}

// Admission returns the admission limits of the plugin named plugin.
func (p *Policy) Admission(plugin string) Admission {
	s := p.settings(plugin)
	var a Admission
	if s.Concurrency != nil {
		a.Concurrency = *s.Concurrency
	}
	if s.Rate != nil {
		a.Rate = *s.Rate
	}
	return a
}

// Grant returns what the plugin named plugin gets of its request: the
// intersection of requested (nil: nothing) and the policy. denied lists, in
// words, each part of the request that is not granted, in request order.
// Variables given by name take wasmcp's environment at the time of the call.
func (p *Policy) Grant(plugin string, requested *abi.Permissions) (g Grants, denied []string) {
	if requested == nil {
		return g, nil
	}
	s := p.settings(plugin)
	for _, want := range requested.FS {
		i := indexMount(s.FS, want.Path)
		if i < 0 {
			denied = append(denied, "fs "+want.Path)
			continue
		}
		m := s.FS[i]
		if want.Write && !m.Write {
			denied = append(denied, "write to "+want.Path)
		}
		m.Write = want.Write && m.Write
		g.Mounts = append(g.Mounts, m)
	}
	for _, name := range requested.Env {
		v, ok := lookupEnv(s.Env, name)
		if !ok {
			denied = append(denied, "env "+name)
			continue
		}
		g.Env = append(g.Env, EnvVar{Name: name, Value: v})
	}
	if requested.Clock {
		if g.Clock = s.Clock != nil && *s.Clock; !g.Clock {
			denied = append(denied, "clock")
		}
	}
	if requested.Random {
		if g.Random = s.Random != nil && *s.Random; !g.Random {
			denied = append(denied, "random")
		}
	}
	g.Net, denied = s.grantNet(requested.Net, denied)
	return g, denied
}

// Summary is g in the vocabulary of a permissions request, without
// variable values (which may be secrets), for reports.
func Summary(g Grants) *abi.Permissions {
	if g.IsZero() {
		return nil
	}
	s := &abi.Permissions{Clock: g.Clock, Random: g.Random}
	for _, m := range g.Mounts {
		s.FS = append(s.FS, abi.FSPermission{Path: m.GuestPath, Write: m.Write})
	}
	for _, e := range g.Env {
		s.Env = append(s.Env, e.Name)
	}
	for _, o := range g.Net.Origins {
		s.Net = append(s.Net, o.String())
	}
	return s
}

func indexMount(ms []Mount, guest string) int {
	for i, m := range ms {
		if m.GuestPath == guest {
			return i
		}
	}
	return -1
}

// lookupEnv finds name among the policy's env specs: "NAME=value" gives the
// literal, "NAME" wasmcp's own value, if it has one.
func lookupEnv(specs []string, name string) (string, bool) {
	for _, spec := range specs {
		n, v, literal := strings.Cut(spec, "=")
		if n != name {
			continue
		}
		if literal {
			return v, true
		}
		return os.LookupEnv(name)
	}
	return "", false
}

// Size is a byte count: a JSON number, or a string such as "64MiB", "4MB",
// "512KiB", "1GiB", "100B" (KiB, MiB, GiB are powers of 1024; KB, MB, GB of
// 1000).
type Size uint64

var sizeUnits = []struct {
	suffix string
	factor uint64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000}, {"B", 1},
}

// UnmarshalJSON implements json.Unmarshaler.
func (s *Size) UnmarshalJSON(b []byte) error {
	var n uint64
	if err := json.Unmarshal(b, &n); err == nil {
		*s = Size(n)
		return nil
	}
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return fmt.Errorf("size %s: want a number of bytes or a string such as \"64MiB\"", b)
	}
	num, factor := strings.TrimSpace(str), uint64(1)
	for _, u := range sizeUnits {
		if v, ok := strings.CutSuffix(num, u.suffix); ok {
			num, factor = strings.TrimSpace(v), u.factor
			break
		}
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil || n > math.MaxUint64/factor {
		return fmt.Errorf("size %q: want a number of bytes or a string such as \"64MiB\"", str)
	}
	*s = Size(n * factor)
	return nil
}

// Duration is a time.Duration written as a Go duration string, "10s".
type Duration time.Duration

// UnmarshalJSON implements json.Unmarshaler.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return fmt.Errorf("duration %s: want a string such as \"10s\"", b)
	}
	v, err := time.ParseDuration(str)
	if err != nil {
		return fmt.Errorf("duration %q: %w", str, err)
	}
	*d = Duration(v)
	return nil
}
