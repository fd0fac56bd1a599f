package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The views experiment's principal and what it sees: the tools of the first
// viewModules generated modules, named by one plugin glob, as a team's view
// is written.
const (
	viewScope   = "team"
	viewModules = 10
	viewGlob    = "m000?" // m0000 to m0009
	// viewSlices cut each server's timed lists: the servers take turns
	// slice by slice.
	viewSlices = 10
)

// runViews measures what a principal's view costs tools/list: a client
// lists every page of its tools from `wasmcp serve -http` serving the scale
// experiment's 1,000 modules (10,000 tools), with a policy whose view shows
// a principal with the scope "team" the 100 tools of ten of them (its JWT
// from an authorization server on loopback, -oauth-issuer), against a
// client of a server of just those ten modules with no views (-token-file).
// The host makes the list of each view once per change of the tools, so the
// first list after a reload is timed apart: a new version of one module of
// the view lands in each server's directory, and the client's first list
// after list_changed is timed against the same in the other server. The
// ratios are of the tools/list requests' times; a go-sdk client's ListTools
// adds its own decoding and checks of the 100 definitions, the same for both
// servers, and is reported beside them.
func runViews(ctx context.Context, e *env) ([]row, error) {
	mods := e.opts.modules
	if e.opts.quick {
		mods = 2 * viewModules
	}
	mods = max(mods, viewModules)
	want := viewModules * scalePerModule
	policy := filepath.Join(e.work, "views-policy.json")
	b, err := json.Marshal(map[string]any{"views": []map[string]any{
		{"name": viewScope, "match": map[string]any{"scopes": []string{viewScope}}, "allow": []string{viewGlob}},
	}})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(policy, b, 0o644); err != nil {
		return nil, err
	}
	is, err := startIssuer(viewScope)
	if err != nil {
		return nil, err
	}
	defer is.close()
	tokenFile, static, err := e.staticToken("views")
	if err != nil {
		return nil, err
	}
	steady := row{name: fmt.Sprintf("tools/list over HTTP, every page, of a %d-tool view of %d tools (a JWT with the view's scope) ÷ of a server of those %d tools, no views (a static token)",
		want, mods*scalePerModule, want), floor: atMost(1.2)}
	first := row{name: fmt.Sprintf("the same, the first tools/list after a reload (a module of the view landed; the host makes the view's list anew) ÷ the first after the same reload in the server of %d tools", want),
		floor: atMost(1.2)}
	for i := range e.opts.reps {
		// Afresh: the landings of a repetition leave a version of m0000.
		all, err := generateScaleModules(e, "views-all", mods)
		if err != nil {
			return nil, err
		}
		team, err := generateScaleModules(e, "views-team", viewModules)
		if err != nil {
			return nil, err
		}
		serve := func(name, dir string, args ...string) func(addr string) (*exec.Cmd, error) {
			return func(addr string) (*exec.Cmd, error) {
				return e.wasmcpCmd(fmt.Sprintf("views-%s-%d", name, i), append([]string{"serve", "-dir", dir,
					"-cache-dir", e.codeCache, "-http", addr, "-rate", "0", "-wait-loaded"}, args...)...)
			}
		}
		m, err := viewsRep(ctx, e, want,
			viewServer{launch{cmd: serve("view", all, "-config", policy, "-oauth-issuer", is.url), bearer: is.bearerFor(viewScope)}, all},
			viewServer{launch{cmd: serve("plain", team, "-token-file", tokenFile), bearer: static}, team})
		if err != nil {
			return []row{steady, first}, err
		}
		e.log.Info("views", "rep", i, "view list", m[0].steady, "plain list", m[1].steady,
			"view first after reload", m[0].first, "plain first after reload", m[1].first,
			"go-sdk: view list", m[0].steadySDK, "plain list", m[1].steadySDK,
			"view first after reload", m[0].firstSDK, "plain first after reload", m[1].firstSDK)
		steady.add(float64(m[0].steady), float64(m[1].steady), us(m[0].steady),
			fmt.Sprintf("%s (a go-sdk client's ListTools: %s ÷ %s, %.2f)", us(m[1].steady), ms(m[0].steadySDK), ms(m[1].steadySDK),
				float64(m[0].steadySDK)/float64(m[1].steadySDK)))
		first.add(float64(m[0].first), float64(m[1].first), us(m[0].first),
			fmt.Sprintf("%s (a go-sdk client's ListTools: %s ÷ %s, %.2f)", us(m[1].first), ms(m[0].firstSDK), ms(m[1].firstSDK),
				float64(m[0].firstSDK)/float64(m[1].firstSDK)))
	}
	return []row{steady, first}, nil
}

// A viewServer is a server of the views experiment and the directory it
// serves.
type viewServer struct {
	launch
	dir string
}

// listTimes are one server's median tools/list times: of the request
// alone (raw) and of a go-sdk client's whole list (sdk), one after another
// (steady) and the first after a reload (first).
type listTimes struct {
	steady, first       time.Duration
	steadySDK, firstSDK time.Duration
}

// viewsRep starts the servers afresh, each with one client session that
// lists want tools, and returns the medians of each server's timed lists,
// in turn with the other's: lists one after another, and the first list
// after each landing of a new version of module m0000. Lists are timed two
// ways, alternately: the go-sdk client's ListTools, page after page, and the
// raw tools/list requests in the same session, without the client's own
// decoding and checks of the definitions, which is most of its time.
func viewsRep(ctx context.Context, e *env, want int, servers ...viewServer) ([]listTimes, error) {
	lists, landings := e.size(200, 2*viewSlices), e.size(40, 4)
	type running struct {
		*httpServer
		raw     *rawLister
		target  string
		changed chan time.Time
		// timed lists: [0] raw requests, [1] the go-sdk client's
		steady, first [2][]time.Duration
	}
	var rs []*running
	defer func() {
		for _, r := range rs {
			r.stop()
		}
	}()
	for _, v := range servers {
		s, err := startHTTP(ctx, v.launch, listing(want))
		if err != nil {
			return nil, err
		}
		r := &running{httpServer: s, target: filepath.Join(v.dir, scaleFile(0)), changed: make(chan time.Time, 16)}
		rs = append(rs, r)
		if err := s.openWith(ctx, 1, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
				select {
				case r.changed <- time.Now():
				default:
				}
			},
		}); err != nil {
			return nil, err
		}
		r.raw = &rawLister{hc: s.hc, url: s.url, session: s.sessions[0].ID()}
		if len(s.tokens) > 0 {
			r.raw.token = s.tokens[0]
		}
	}

	// list lists every tool of r the way kind says, timed.
	list := func(r *running, kind int) ([]*mcp.Tool, time.Duration, error) {
		start := time.Now()
		var tools []*mcp.Tool
		var err error
		if kind == 0 {
			tools, err = r.raw.list(ctx)
		} else {
			tools, err = listTools(ctx, r.sessions[0])
		}
		took := time.Since(start)
		if err == nil && len(tools) != want {
			err = fmt.Errorf("%d tools listed, want %d", len(tools), want)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", r.url, err)
		}
		return tools, took, nil
	}
	for k := range viewSlices {
		for j := range rs {
			r := rs[(j+k)%len(rs)]
			for n := range lists / viewSlices {
				_, d, err := list(r, n%2)
				if err != nil {
					return nil, err
				}
				r.steady[n%2] = append(r.steady[n%2], d)
			}
		}
	}

	// land lands a version of m0000 in r's directory and times the first
	// list that shows it the way kind says.
	land := func(r *running, version string, kind int) (time.Duration, error) {
		wasm, err := scaleModule(0, version)
		if err != nil {
			return 0, err
		}
		tool, desc := scaleTool(0, 0).Name, scaleTool(0, 0).Description+" "+version
		var took time.Duration
		_, _, err = landModule(ctx, r.target, wasm, r.changed, func() (bool, error) {
			var tools []*mcp.Tool
			var err error
			tools, took, err = list(r, kind)
			return slices.ContainsFunc(tools, func(t *mcp.Tool) bool { return t.Name == tool && t.Description == desc }), err
		})
		if err != nil {
			return 0, fmt.Errorf("version %s of %s: %w", version, filepath.Base(r.target), err)
		}
		return took, nil
	}
	versions := [2]string{"(version A)", "(version B)"}
	for _, r := range rs {
		for _, v := range versions { // compiled once, untimed
			if _, err := land(r, v, 0); err != nil {
				return nil, err
			}
		}
	}
	for k := range landings {
		for j := range rs {
			r := rs[(j+k)%len(rs)]
			kind := k / 2 % 2 // each server in turn first, for each kind
			d, err := land(r, versions[k%2], kind)
			if err != nil {
				return nil, err
			}
			r.first[kind] = append(r.first[kind], d)
		}
	}

	out := make([]listTimes, len(rs))
	for j, r := range rs {
		out[j] = listTimes{steady: median(r.steady[0]), first: median(r.first[0]),
			steadySDK: median(r.steady[1]), firstSDK: median(r.first[1])}
	}
	return out, nil
}

// listing is a caller that lists every page of tools and checks that there
// are want.
func listing(want int) caller {
	return func(ctx context.Context, cs *mcp.ClientSession) error {
		n, err := countTools(ctx, cs)
		if err == nil && n != want {
			err = fmt.Errorf("%d tools listed, want %d", n, want)
		}
		return err
	}
}

// A rawLister sends tools/list requests in a go-sdk client's session as a
// client that decodes nothing but the names and descriptions would.
type rawLister struct {
	hc                  *http.Client
	url, token, session string
	id                  int
}

// list lists every page of tools.
func (l *rawLister) list(ctx context.Context) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	cursor := ""
	for {
		l.id++
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": l.id, "method": "tools/list", "params": params})
		if err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", l.session)
		req.Header.Set("Mcp-Protocol-Version", protocol)
		if l.token != "" {
			req.Header.Set("Authorization", "Bearer "+l.token)
		}
		resp, err := l.hc.Do(req)
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("tools/list: %s: %s", resp.Status, b)
		}
		var msg struct {
			Result *struct {
				Tools []struct {
					Name        string `json:"name"`
					Description string `json:"description"`
				} `json:"tools"`
				NextCursor string `json:"nextCursor"`
			} `json:"result"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(sseData(b), &msg); err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		if msg.Result == nil {
			return nil, fmt.Errorf("tools/list: %s", msg.Error)
		}
		for _, t := range msg.Result.Tools {
			tools = append(tools, &mcp.Tool{Name: t.Name, Description: t.Description})
		}
		if cursor = msg.Result.NextCursor; cursor == "" {
			return tools, nil
		}
	}
}

// sseData returns the data of the one event of a text/event-stream body, or
// the body itself when it is not a stream (a JSON response).
func sseData(b []byte) []byte {
	for line := range bytes.Lines(b) {
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			return bytes.TrimSpace(d)
		}
	}
	return b
}
