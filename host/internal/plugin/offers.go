package plugin

// What a plugin offers besides its tools: resources, resource templates
// and prompts (ABI.md section 4, "Resources and prompts"), checked when it
// loads.

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/yosida95/uritemplate/v3"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
	"github.com/wasmcp/wasmcp/host/policy"
)

// offers are a plugin's resources, templates and prompts.
type offers struct {
	resources []abi.Resource
	byURI     map[string]int // index in resources
	templates []template
	prompts   []abi.Prompt
	byPrompt  map[string]int // index in prompts
	// dropped are the CSP origins of views the plugin's grants do not
	// cover, removed from what clients see (capViews).
	dropped []string
}

// template is a resource template with its parsed form, and the variables
// whose values a guest may use as paths.
type template struct {
	def    abi.ResourceTemplate
	parsed *uritemplate.Template
	paths  []string
}

// defineOffers checks and keeps the Describe document's resources,
// templates and prompts, and the tools' views.
func (p *Plugin) defineOffers(d *abi.Describe) error {
	switch {
	case len(d.Resources) > abi.MaxResources:
		return fmt.Errorf("%d resources, more than the %d allowed", len(d.Resources), abi.MaxResources)
	case len(d.ResourceTemplates) > abi.MaxResourceTemplates:
		return fmt.Errorf("%d resource templates, more than the %d allowed", len(d.ResourceTemplates), abi.MaxResourceTemplates)
	case len(d.Prompts) > abi.MaxPrompts:
		return fmt.Errorf("%d prompts, more than the %d allowed", len(d.Prompts), abi.MaxPrompts)
	case len(d.Resources)+len(d.ResourceTemplates) > 0 && !p.info.Serves[sandbox.OpRead]:
		return fmt.Errorf("it lists resources but has no export to read them (missing export %s: (i32, i32) -> i64)", abi.ExportRead)
	case len(d.Prompts) > 0 && !p.info.Serves[sandbox.OpPrompt]:
		return fmt.Errorf("it lists prompts but has no export to get them (missing export %s: (i32, i32, i32, i32) -> i64)", abi.ExportPrompt)
	}
	o := &p.offers
	o.byURI = make(map[string]int, len(d.Resources))
	for i := range d.Resources {
		r := &d.Resources[i]
		if err := abi.ValidateResource(r); err != nil {
			return fmt.Errorf("resource %q: %w", cmpName(r.URI, i), err)
		}
		if _, dup := o.byURI[r.URI]; dup {
			return fmt.Errorf("resource %q: defined twice", r.URI)
		}
		o.byURI[r.URI] = len(o.resources)
		o.resources = append(o.resources, *r)
	}
	seen := map[string]bool{}
	for i := range d.ResourceTemplates {
		t := &d.ResourceTemplates[i]
		if err := abi.ValidateResourceTemplate(t); err != nil {
			return fmt.Errorf("resource template %q: %w", cmpName(t.URITemplate, i), err)
		}
		parsed, err := uritemplate.New(t.URITemplate)
		if err != nil {
			return fmt.Errorf("resource template %q: not an RFC 6570 URI template: %w", t.URITemplate, err)
		}
		if explodes(t.URITemplate) {
			return fmt.Errorf("resource template %q: the explode modifier (*) is not served: a list has no one string to give the guest; use {+var}", t.URITemplate)
		}
		if seen[t.URITemplate] {
			return fmt.Errorf("resource template %q: defined twice", t.URITemplate)
		}
		seen[t.URITemplate] = true
		o.templates = append(o.templates, template{*t, parsed, pathVariables(t.URITemplate)})
	}
	o.byPrompt = make(map[string]int, len(d.Prompts))
	for i := range d.Prompts {
		pr := &d.Prompts[i]
		if err := abi.ValidatePrompt(pr); err != nil {
			return fmt.Errorf("prompt %q: %w", cmpName(pr.Name, i), err)
		}
		if _, dup := o.byPrompt[pr.Name]; dup {
			return fmt.Errorf("prompt %q: defined twice", pr.Name)
		}
		o.byPrompt[pr.Name] = len(o.prompts)
		o.prompts = append(o.prompts, *pr)
	}
	for _, t := range p.tools {
		uri, ok := ViewOf(t.Meta)
		switch {
		case !ok:
		case !abi.IsApp(uri):
			return fmt.Errorf("tool %q: its view %q is not a %s:// resource", t.Name, uri, abi.AppScheme)
		case !o.has(uri):
			return fmt.Errorf("tool %q: its view %q is not a resource of the module", t.Name, uri)
		}
	}
	return nil
}

// explodes reports whether a template has a variable with the explode
// modifier, as "{list*}" or "{a,b*}".
func explodes(template string) bool {
	for _, expr := range strings.Split(template, "{")[1:] {
		expr, _, _ = strings.Cut(expr, "}")
		for v := range strings.SplitSeq(expr, ",") {
			if strings.HasSuffix(v, "*") {
				return true
			}
		}
	}
	return false
}

// cmpName names a definition in an error: by its name, else its position.
func cmpName(name string, i int) string {
	if name == "" {
		return fmt.Sprintf("#%d", i+1)
	}
	return name
}

func (o *offers) has(uri string) bool {
	_, ok := o.byURI[uri]
	return ok
}

// ViewOf returns the URI of the MCP Apps view a tool's _meta names:
// ui.resourceUri, or the older "ui/resourceUri".
func ViewOf(meta map[string]any) (string, bool) {
	if ui, ok := meta["ui"].(map[string]any); ok {
		if uri, ok := ui["resourceUri"].(string); ok {
			return uri, true
		}
	}
	uri, ok := meta["ui/resourceUri"].(string)
	return uri, ok
}

// cspKeys are the members of a view's _meta.ui.csp that list origins.
var cspKeys = []string{"connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"}

// widgetCSP is where the OpenAI Apps SDK puts a view's CSP in its _meta,
// which ChatGPT honours beside ui.csp; widgetCSPKeys are its members.
const widgetCSP = "openai/widgetCSP"

var widgetCSPKeys = []string{"connect_domains", "resource_domains", "frame_domains", "redirect_domains"}

// capViews removes from each view's _meta.ui.csp the origins the plugin's
// granted net origins do not cover, and records them.
func (p *Plugin) capViews(granted policy.Net) {
	for i := range p.offers.resources {
		r := &p.offers.resources[i]
		if abi.IsApp(r.URI) {
			var dropped []string
			r.Meta, dropped = capCSP(r.Meta, granted)
			p.offers.dropped = append(p.offers.dropped, dropped...)
		}
	}
}

// capCSP returns meta with its CSP origins (ui.csp, openai/widgetCSP)
// limited to those granted covers, and the origins it removed. A member of
// a CSP that is not a known list of origins is removed too: a client may
// read a member this host does not know as one. meta is not modified.
func capCSP(meta map[string]any, granted policy.Net) (map[string]any, []string) {
	var dropped []string
	if ui, _ := meta["ui"].(map[string]any); ui["csp"] != nil {
		ui = maps.Clone(ui)
		ui["csp"], dropped = capOrigins(ui["csp"], cspKeys, granted)
		meta = maps.Clone(meta)
		meta["ui"] = ui
	}
	if meta[widgetCSP] != nil {
		var d []string
		meta = maps.Clone(meta)
		meta[widgetCSP], d = capOrigins(meta[widgetCSP], widgetCSPKeys, granted)
		dropped = append(dropped, d...)
	}
	return meta, dropped
}

// capOrigins returns a CSP object holding the lists of keys csp has, each
// limited to the origins granted covers, and what it removed.
func capOrigins(csp any, keys []string, granted policy.Net) (map[string]any, []string) {
	in, ok := csp.(map[string]any)
	if !ok {
		return map[string]any{}, []string{"a CSP that is not an object"}
	}
	var dropped []string
	capped := map[string]any{}
	for key, v := range in {
		if !slices.Contains(keys, key) {
			dropped = append(dropped, fmt.Sprintf("%s (not a member this host caps)", key))
			continue
		}
		list, ok := v.([]any)
		if !ok {
			if v != nil {
				dropped = append(dropped, fmt.Sprintf("%s (not a list)", key))
			}
			continue
		}
		kept := []any{}
		for _, v := range list {
			s, _ := v.(string)
			if s != "" && covered(s, granted) {
				kept = append(kept, s)
			} else {
				dropped = append(dropped, fmt.Sprint(v))
			}
		}
		capped[key] = kept
	}
	slices.Sort(dropped)
	return capped, dropped
}

// covered reports whether the granted origins cover origin, a CSP source
// such as "https://api.example.com" or "wss://*.example.com"; WebSocket
// schemes are held to the grant of their HTTP counterparts.
func covered(origin string, granted policy.Net) bool {
	s := origin
	if rest, ok := strings.CutPrefix(s, "wss://"); ok {
		s = "https://" + rest
	} else if rest, ok := strings.CutPrefix(s, "ws://"); ok {
		s = "http://" + rest
	}
	o, err := policy.ParseOrigin(s)
	if err != nil || o.Any {
		return false
	}
	return slices.ContainsFunc(granted.Origins, func(g policy.Origin) bool { return g.Covers(o) })
}

// Resources returns the plugin's resources, with the views' CSP capped.
func (p *Plugin) Resources() []abi.Resource { return slices.Clone(p.offers.resources) }

// ResourceTemplates returns the plugin's resource templates.
func (p *Plugin) ResourceTemplates() []abi.ResourceTemplate {
	out := make([]abi.ResourceTemplate, len(p.offers.templates))
	for i, t := range p.offers.templates {
		out[i] = t.def
	}
	return out
}

// Prompts returns the plugin's prompts.
func (p *Plugin) Prompts() []abi.Prompt { return slices.Clone(p.offers.prompts) }

// DroppedOrigins are the CSP origins of the plugin's views its grants do
// not cover: clients never see them.
func (p *Plugin) DroppedOrigins() []string { return slices.Clone(p.offers.dropped) }

// MatchTemplate returns the URI template of the plugin that matches uri,
// with the longest text before its first expression, and that length.
func (p *Plugin) MatchTemplate(uri string) (tmpl string, prefix int, ok bool) {
	for _, t := range p.offers.templates {
		pre := abi.TemplatePrefix(t.def.URITemplate)
		if !strings.HasPrefix(uri, pre) || (ok && len(pre) <= prefix) {
			continue
		}
		if t.parsed.Match(uri) != nil {
			tmpl, prefix, ok = t.def.URITemplate, len(pre), true
		}
	}
	return tmpl, prefix, ok
}

// errDotSegment refuses a URI that could name what lies outside a
// template's prefix.
var errDotSegment = errors.New(`the URI has a "." or ".." path segment`)

// pathVariables are the variables of a URI template that are not of a
// query or fragment expression ({?q}, {&q}, {#f}): their values are parts
// of a path, or may be used as one.
func pathVariables(tmpl string) []string {
	var vars []string
	for rest := tmpl; ; {
		_, after, ok := strings.Cut(rest, "{")
		if !ok {
			return vars
		}
		var expr string
		expr, rest, _ = strings.Cut(after, "}")
		if expr == "" || strings.IndexByte("?&#", expr[0]) >= 0 {
			continue
		}
		if strings.IndexByte("+./;", expr[0]) >= 0 {
			expr = expr[1:]
		}
		for v := range strings.SplitSeq(expr, ",") {
			v, _, _ = strings.Cut(v, ":")
			vars = append(vars, strings.TrimSuffix(v, "*"))
		}
	}
}

// checkVariables refuses a URI that tmpl's path variables match with a
// dot segment in a value, as the guest decodes it: a reserved expansion
// ({+path}) takes "?" and "#" into its value, past where CheckURI sees the
// path end.
func (p *Plugin) checkVariables(tmpl, uri string) error {
	for _, t := range p.offers.templates {
		if t.def.URITemplate != tmpl {
			continue
		}
		values := t.parsed.Match(uri)
		for _, name := range t.paths {
			for _, v := range values.Get(name).V {
				if hasDotSegment(strings.ReplaceAll(v, `\`, "/")) {
					return errDotSegment
				}
			}
		}
	}
	return nil
}

func hasDotSegment(s string) bool {
	for seg := range strings.SplitSeq(s, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// CheckURI refuses a URI with a dot segment, plain or percent-encoded.
func CheckURI(uri string) error {
	if len(uri) > abi.MaxURILen {
		return fmt.Errorf("the URI is %d bytes, more than %d", len(uri), abi.MaxURILen)
	}
	rest := uri
	if _, after, ok := strings.Cut(rest, ":"); ok {
		rest = after
	}
	rest, _, _ = strings.Cut(rest, "?")
	rest, _, _ = strings.Cut(rest, "#")
	// An encoded slash or backslash separates segments for a guest that
	// decodes a variable and uses it as a path.
	rest = strings.NewReplacer("%2f", "/", "%5c", "/", `\`, "/", "%2e", ".").Replace(strings.ToLower(rest))
	if hasDotSegment(rest) {
		return errDotSegment
	}
	return nil
}
