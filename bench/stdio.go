package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// echoMessage is the argument of every echo call.
const echoMessage = "hello from the wasmcp bench"

// stdioRounds is how many slices the calls of each variant are cut into.
// The variants take turns slice by slice, so that a slow minute of the
// machine is shared by all of them instead of landing on one.
const stdioRounds = 10

// stdioProcs is how many server processes serve each row of the round trip,
// taking turns; the row pools their calls. A process keeps what it drew at
// start for its whole life (where its memory and threads landed): two
// processes of one binary differed by up to 20% at p50 within a run, more
// than the differences being measured.
const stdioProcs = 3

// A stdioVariant is one server and one client.
type stdioVariant struct {
	server, client string
	row            string // the stdioSpec's proc: the variants of one row share it
	proc           *proc
	call           func(context.Context) error
	closeClient    func()
	raw            *rawClient // the raw client, to compare answers

	lat                 []time.Duration
	clientMallocs       uint64
	clientBytes         uint64
	serverMem           benchMemDelta
	serverOK            bool
	cpuBefore, cpuAfter time.Duration
}

func (v *stdioVariant) name() string { return v.server + " / " + v.client + " client" }

// A stdioSpec is a variant to start: a server and a client.
type stdioSpec struct {
	server, client string
	proc           string // process name: log and profile file names
	role           string // roleRaw, roleNative, roleNativeSDKStdio, roleNativeTyped, wasmcpHooked or wasmcpPlain
	dir            string // plugin directory of the command
	env            []string
}

// The wasmcp command as a stdioSpec role: with the bench's hook (see
// env.wasmcp), or as built from the tree with nothing added.
const (
	wasmcpHooked = "wasmcp"
	wasmcpPlain  = "wasmcp-plain"
)

func runStdio(ctx context.Context, e *env) (*section, error) {
	n := e.n(2000)
	cWasm, err := e.cGuest()
	if err != nil {
		return nil, err
	}
	goWasm, err := e.goGuest(ctx, "examples/go/everything")
	if err != nil {
		return nil, err
	}
	watWasm, err := e.watGuest()
	if err != nil {
		return nil, err
	}
	// One module per directory: the example modules define the same tool
	// names, so together one would refuse the other's echo.
	cDir, err := e.pluginDir("plugins-c", cWasm)
	if err != nil {
		return nil, err
	}
	goDir, err := e.pluginDir("plugins-go", goWasm)
	if err != nil {
		return nil, err
	}
	watDir, err := e.pluginDir("plugins-wat", watWasm)
	if err != nil {
		return nil, err
	}
	specs := []stdioSpec{
		{"raw JSON-RPC echo", "raw", "raw-raw", roleRaw, "", nil},
		{"raw JSON-RPC echo", "go-sdk", "raw-sdk", roleRaw, "", nil},
		{"native go-sdk echo", "raw", "native-raw", roleNative, "", nil},
		{"native go-sdk echo", "go-sdk", "native-sdk", roleNative, "", nil},
		{"wasmcp, C echo", "raw", "wasmcp-c-raw", wasmcpHooked, cDir, nil},
		{"wasmcp, C echo", "go-sdk", "wasmcp-c-sdk", wasmcpHooked, cDir, nil},
		{"wasmcp, Go echo", "raw", "wasmcp-go-raw", wasmcpHooked, goDir, nil},
		{"wasmcp, Go echo", "go-sdk", "wasmcp-go-sdk", wasmcpHooked, goDir, nil},
		{"wasmcp, WAT echo", "raw", "wasmcp-wat-raw", wasmcpHooked, watDir, nil},
		{"wasmcp, WAT echo", "go-sdk", "wasmcp-wat-sdk", wasmcpHooked, watDir, nil},
		{"wasmcp, C echo, plain binary (no hook)", "go-sdk", "plain-c-sdk", wasmcpPlain, cDir, nil},
		{"native go-sdk echo, go-sdk's stdio transport", "go-sdk", "native-sdkstdio-sdk", roleNativeSDKStdio, "", nil},
		{"native go-sdk echo, typed (validates)", "raw", "typed-raw", roleNativeTyped, "", nil},
		{"native go-sdk echo, typed (validates)", "go-sdk", "typed-sdk", roleNativeTyped, "", nil},
		{fmt.Sprintf("native go-sdk echo, GOGC=%d as wasmcp serve", serveGOGC), "go-sdk", "native-gc-sdk", roleNative, "", []string{serveGOGCEnv}},
	}
	vs, stop, err := startRows(ctx, e, specs)
	defer stop()
	if err != nil {
		return nil, err
	}
	warm := max(20, n/10)
	if err := warmUp(ctx, vs, warm); err != nil {
		return nil, err
	}
	// The raw client keeps each server's answer: they should be the same
	// bytes, or the servers are not doing the same work.
	var notes []string
	for _, v := range vs[1:] {
		if v.raw != nil && !bytes.Equal(v.raw.last, vs[0].raw.last) {
			notes = append(notes, fmt.Sprintf("%s answers `%s`, the floor `%s`.", v.name(), v.raw.last, vs[0].raw.last))
		}
	}

	for _, v := range vs {
		if err := v.proc.begin(); err != nil {
			return nil, err
		}
		if v.cpuBefore, err = v.proc.cpu(); err != nil {
			return nil, err
		}
	}
	if err := takeTurns(ctx, vs, n); err != nil {
		return nil, err
	}
	for _, v := range vs {
		if v.cpuAfter, err = v.proc.cpu(); err != nil {
			return nil, err
		}
		if v.serverMem, v.serverOK, err = v.proc.end(); err != nil {
			return nil, err
		}
	}
	stop()
	s := stdioReport(e, poolRows(vs), warm, notes)
	if e.opts.profile != "" {
		// Enough calls for a few thousand CPU samples.
		profileCalls := max(n, 5000)
		if e.opts.quick {
			profileCalls = n
		}
		profiled := []stdioSpec{specs[3], specs[5], specs[7], specs[9], specs[13]}
		splits, err := profileStdio(ctx, e, profiled, profileCalls)
		if err != nil {
			return nil, err
		}
		s.Notes = append(s.Notes, fmt.Sprintf("Profiles in %s, of fresh server processes after the timed runs (so that "+
			"profiling does not slow them): NAME.cpu.pprof covers %d back-to-back calls; "+
			"`go tool pprof -sample_index=alloc_space -base NAME.allocs-begin.pprof NAME.allocs-end.pprof` shows "+
			"the allocations of %[2]d more (sampled every %d bytes); NAME.trace is an execution trace of %[2]d more, "+
			"the servers taking turns in %[4]d slices, split in the table below.", e.opts.profile, profileCalls, benchMemProfileRate, stdioRounds))
		splitReport(s, profiled, splits)
	}
	return s, nil
}

// profileStdio runs calls calls of each variant of specs with its server
// profiled, into the -profile directory: CPU and allocation profiles of the
// first of the row's processes, and execution traces of all of them, whose
// splits it returns by row.
func profileStdio(ctx context.Context, e *env, specs []stdioSpec, calls int) (map[string]callSplit, error) {
	vs, stop, err := startRows(ctx, e, specs)
	defer stop()
	if err != nil {
		return nil, err
	}
	if err := warmUp(ctx, vs, 200); err != nil {
		return nil, err
	}
	for i, v := range vs {
		if i%stdioProcs != 0 {
			continue
		}
		e.log.Info("profiling", "server", v.proc.name, "calls", calls)
		// CPU and allocations in separate windows: sampling allocations
		// finely costs CPU time of its own.
		for _, kind := range []string{"cpu", "allocs"} {
			if err := v.proc.begin(kind, filepath.Join(e.opts.profile, v.proc.name)); err != nil {
				return nil, err
			}
			if err := v.measure(ctx, calls); err != nil {
				return nil, err
			}
			if _, _, err := v.proc.end(); err != nil {
				return nil, err
			}
		}
	}
	// The traces, whose splits are compared with one another, in one
	// window with the servers taking turns, as the timed rows do: run one
	// after another, they differed by the machine's drift.
	e.log.Info("tracing", "calls", calls)
	for _, v := range vs {
		if err := v.proc.begin("trace", filepath.Join(e.opts.profile, v.proc.name)); err != nil {
			return nil, err
		}
	}
	if err := takeTurns(ctx, vs, calls); err != nil {
		return nil, err
	}
	spans := map[string]*callSpans{}
	for _, v := range vs {
		if _, _, err := v.proc.end(); err != nil {
			return nil, err
		}
		sp, err := splitTrace(ctx, filepath.Join(e.opts.profile, v.proc.name)+".trace")
		if err != nil {
			return nil, err
		}
		if spans[v.row] == nil {
			spans[v.row] = &callSpans{}
		}
		spans[v.row].add(sp)
	}
	splits := map[string]callSplit{}
	for row, sp := range spans {
		splits[row] = sp.split()
	}
	return splits, nil
}

// splitReport adds the table of the servers' time per call from their
// execution traces (callSplit), and the ratios of wasmcp's to native's.
func splitReport(s *section, specs []stdioSpec, splits map[string]callSplit) {
	t := table{
		Caption: "Server time per call from the execution traces (go-sdk client): from the read of the request to " +
			"the start of go-sdk's handler goroutine, from there to the write of the response, and the two together. " +
			"Tracing costs every goroutine switch some time of its own, so these run above an untraced server's.",
		Header: []string{"server", "read → handler p50 µs", "p90", "handler → write p50 µs", "p90", "read → write p50 µs", "p90"},
	}
	for _, sp := range specs {
		c := splits[sp.proc]
		t.Rows = append(t.Rows, []string{sp.server, us(c.toHandler.P50), us(c.toHandler.P90),
			us(c.handler.P50), us(c.handler.P90), us(c.total.P50), us(c.total.P90)})
	}
	s.Tables = append(s.Tables, t)
	handler := func(proc string) float64 { return float64(splits[proc].handler.P50) }
	total := func(proc string) float64 { return float64(splits[proc].total.P50) }
	s.addRatio("c-over-native-handler", "wasm C echo ÷ native go-sdk echo (server's handler, p50, traced)",
		handler("wasmcp-c-sdk"), handler("native-sdk"), "", "the tool's call in the server, without client, kernel or scheduling")
	s.addRatio("wat-over-native-handler", "wasm WAT echo ÷ native go-sdk echo (server's handler, p50, traced)",
		handler("wasmcp-wat-sdk"), handler("native-sdk"), "", "the host's own part of it")
	s.addRatio("c-over-native-server", "wasm C echo ÷ native go-sdk echo (server, read to write, p50, traced)",
		total("wasmcp-c-sdk"), total("native-sdk"), "", "")
}

// takeTurns makes about n calls of each row of vs, its processes and those
// of all rows taking turns in stdioRounds slices.
func takeTurns(ctx context.Context, vs []*stdioVariant, n int) error {
	chunk := max(1, n/stdioRounds/stdioProcs)
	for round := range stdioRounds {
		for i := range vs {
			v := vs[(i+round)%len(vs)]
			if err := v.measure(ctx, chunk); err != nil {
				return fmt.Errorf("%s: %w", v.name(), err)
			}
		}
	}
	return nil
}

// startRows starts stdioProcs processes for each of specs, named after its
// proc with a number added, and their clients; the variants of a row are
// adjacent, and their row is the spec's proc.
func startRows(ctx context.Context, e *env, specs []stdioSpec) (vs []*stdioVariant, stop func(), err error) {
	var procs []stdioSpec
	for _, sp := range specs {
		for k := range stdioProcs {
			p := sp
			p.proc = fmt.Sprintf("%s.%d", sp.proc, k+1)
			procs = append(procs, p)
		}
	}
	vs, stop, err = startVariants(ctx, e, procs)
	for i, v := range vs {
		v.row = specs[i/stdioProcs].proc
	}
	return vs, stop, err
}

// poolRows merges the variants of each row, which are adjacent in vs, into
// one: their latencies, allocations and CPU time together.
func poolRows(vs []*stdioVariant) []*stdioVariant {
	var rows []*stdioVariant
	for _, v := range vs {
		if len(rows) == 0 || rows[len(rows)-1].row != v.row {
			r := *v
			r.lat = slices.Clone(v.lat)
			rows = append(rows, &r)
			continue
		}
		r := rows[len(rows)-1]
		r.lat = append(r.lat, v.lat...)
		r.clientMallocs += v.clientMallocs
		r.clientBytes += v.clientBytes
		r.serverMem.add(v.serverMem)
		r.serverOK = r.serverOK && v.serverOK
		r.cpuAfter += v.cpuAfter - v.cpuBefore
	}
	return rows
}

// startVariants starts the servers of specs with their clients. stop stops
// them all, once; call it even on error.
func startVariants(ctx context.Context, e *env, specs []stdioSpec) (vs []*stdioVariant, stop func(), err error) {
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		for _, v := range vs {
			if v.closeClient != nil {
				v.closeClient()
			}
			v.proc.close()
		}
	}
	for _, s := range specs {
		var p *proc
		args := []string{"serve", "-dir", s.dir, "-cache-dir", e.codeCache}
		switch s.role {
		case wasmcpHooked:
			p, err = e.wasmcpServer(ctx, s.proc, nil, args...)
		case wasmcpPlain:
			var bin string
			if bin, err = e.wasmcpPlain(ctx); err == nil {
				p, err = e.newProc(s.proc, false, nil, bin, args...)
			}
		default:
			p, err = e.benchServer(s.proc, s.role, s.env...)
		}
		if err != nil {
			return vs, stop, err
		}
		v := &stdioVariant{server: s.server, client: s.client, proc: p}
		vs = append(vs, v)
		start := time.Now()
		if err := v.connect(ctx, e); err != nil {
			return vs, stop, err
		}
		e.log.Debug("connected", "server", s.proc, "took", time.Since(start))
	}
	return vs, stop, nil
}

// warmUp makes n calls of every variant: instance pools filled, code paths
// and caches hot.
func warmUp(ctx context.Context, vs []*stdioVariant, n int) error {
	for _, v := range vs {
		for range n {
			if err := v.call(ctx); err != nil {
				return fmt.Errorf("%s: %w", v.name(), err)
			}
		}
	}
	return nil
}

// connect starts the server with the variant's client.
func (v *stdioVariant) connect(ctx context.Context, e *env) error {
	switch v.client {
	case "raw":
		c, err := e.startRaw(ctx, v.proc)
		if err != nil {
			return err
		}
		params := fmt.Sprintf(`{"name":"echo","arguments":{"message":%q}}`, echoMessage)
		v.raw, v.closeClient = c, c.close
		v.call = func(context.Context) error {
			_, err := c.request("tools/call", params)
			return err
		}
	case "go-sdk":
		cs, err := e.sdkClient(ctx, v.proc, nil)
		if err != nil {
			return err
		}
		v.closeClient = func() { cs.Close() }
		params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": echoMessage}}
		want := "Echo: " + echoMessage
		v.call = func(ctx context.Context) error {
			res, err := cs.CallTool(ctx, params)
			if err != nil {
				return err
			}
			if len(res.Content) != 1 || res.IsError {
				return fmt.Errorf("unexpected result %+v", res)
			}
			if t, ok := res.Content[0].(*mcp.TextContent); !ok || t.Text != want {
				return fmt.Errorf("unexpected result %+v", res.Content[0])
			}
			return nil
		}
	}
	return nil
}

// measure makes n timed calls, and counts what the client allocated.
func (v *stdioVariant) measure(ctx context.Context, n int) error {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		start := time.Now()
		if err := v.call(ctx); err != nil {
			return err
		}
		v.lat = append(v.lat, time.Since(start))
	}
	runtime.ReadMemStats(&after)
	v.clientMallocs += after.Mallocs - before.Mallocs
	v.clientBytes += after.TotalAlloc - before.TotalAlloc
	return nil
}

// stdioReport is the section of the pooled rows vs, each process of which
// made warm warm-up calls before the timed ones.
func stdioReport(e *env, vs []*stdioVariant, warm int, notes []string) *section {
	s := &section{
		Title: "1. tools/call round trip over stdio",
		Intro: fmt.Sprintf("One client, one call in flight, `echo {\"message\": %q}`; %d timed calls per row, served by %d server "+
			"processes (each after %d warm-up calls), the processes of all rows taking turns in %d slices. Server allocations and CPU are the server processes' own "+
			"(runtime.MemStats, and their threads' run time from /proc, between the first and last timed call); client allocations are the bench "+
			"process's during its calls, i.e. the client library's cost. The go-sdk client asks for protocol %s.",
			echoMessage, len(vs[0].lat), stdioProcs, warm, stdioRounds, e.opts.protocol),
	}
	t := table{Header: []string{"server", "client", "p50 µs", "p90 µs", "p99 µs", "calls/s (1 in flight)",
		"server CPU µs/call", "server allocs/call", "server KB/call", "client allocs/call", "client KB/call"}}
	sums, cpus := map[string]summary{}, map[string]float64{}
	for _, v := range vs {
		sm := summarize(v.lat)
		sums[v.row] = sm
		var total time.Duration
		for _, d := range v.lat {
			total += d
		}
		calls := float64(len(v.lat))
		rate := calls / total.Seconds()
		srvAllocs, srvKB := "—", "—"
		if v.serverOK {
			srvAllocs = fmt.Sprintf("%.0f", float64(v.serverMem.Mallocs)/calls)
			srvKB = fmt.Sprintf("%.1f", float64(v.serverMem.Bytes)/calls/1024)
			s.value(slug(v.name())+"/server-bytes", float64(v.serverMem.Bytes)/calls)
		}
		// Ten ticks at least, where the kernel counts CPU time in ticks only
		// (proc.cpu), or the figure is mostly rounding.
		cpuText := "—"
		if d := v.cpuAfter - v.cpuBefore; d >= 100*time.Millisecond {
			cpus[v.row] = float64(d) / float64(time.Microsecond) / calls
			cpuText = fmt.Sprintf("%.0f", cpus[v.row])
		}
		t.Rows = append(t.Rows, []string{v.server, v.client, us(sm.P50), us(sm.P90), us(sm.P99), fmt.Sprintf("%.0f", rate),
			cpuText, srvAllocs, srvKB,
			fmt.Sprintf("%.0f", float64(v.clientMallocs)/calls), fmt.Sprintf("%.1f", float64(v.clientBytes)/calls/1024)})
		s.value(slug(v.name())+"/p50", float64(sm.P50))
		s.value(slug(v.name())+"/rate", rate)
	}
	s.Tables = append(s.Tables, t)

	// The variants by process name (see runStdio).
	p50 := func(proc string) float64 { return float64(sums[proc].P50) }
	s.addRatio("c-over-native", "wasm C echo ÷ native go-sdk echo (p50, go-sdk client)",
		p50("wasmcp-c-sdk"), p50("native-sdk"), "≤ 1.10", "stdio round trip")
	s.addRatio("go-over-native", "wasm Go echo ÷ native go-sdk echo (p50, go-sdk client)",
		p50("wasmcp-go-sdk"), p50("native-sdk"), "≤ 1.10", "stdio round trip")
	// cpuRatio adds a ratio of server CPU when both rows measured one.
	cpuRatio := func(key, title, proc, base, note string) {
		if c, n := cpus[proc], cpus[base]; c > 0 && n > 0 {
			s.addRatio(key, title, c, n, "", note)
		}
	}
	cpuRatio("c-over-native-cpu", "wasm C echo ÷ native go-sdk echo (server CPU per call)",
		"wasmcp-c-sdk", "native-sdk", "less noisy than latency on a shared machine")
	s.addRatio("c-over-native-gc", fmt.Sprintf("wasm C echo ÷ native go-sdk echo with wasmcp serve's GOGC=%d (p50, go-sdk client)", serveGOGC),
		p50("wasmcp-c-sdk"), p50("native-gc-sdk"), "", "the sandbox's share, GC set alike")
	cpuRatio("c-over-native-gc-cpu", fmt.Sprintf("wasm C echo ÷ native go-sdk echo with GOGC=%d (server CPU per call)", serveGOGC),
		"wasmcp-c-sdk", "native-gc-sdk", "")
	s.addRatio("c-over-typed", "wasm C echo ÷ go-sdk's typed echo, which validates its arguments as wasmcp does (p50, go-sdk client)",
		p50("wasmcp-c-sdk"), p50("typed-sdk"), "", "a second baseline: what a validated native tool costs")
	cpuRatio("c-over-typed-cpu", "wasm C echo ÷ go-sdk's typed echo (server CPU per call)", "wasmcp-c-sdk", "typed-sdk", "")
	s.addRatio("typed-over-native", "go-sdk's typed echo ÷ its low-level echo (p50, go-sdk client)",
		p50("typed-sdk"), p50("native-sdk"), "", "what go-sdk's validation costs")
	s.addRatio("wat-over-native", "wasm WAT echo ÷ native go-sdk echo (p50, go-sdk client)",
		p50("wasmcp-wat-sdk"), p50("native-sdk"), "", "a guest with almost no code: the host's own cost")
	cpuRatio("wat-over-native-cpu", "wasm WAT echo ÷ native go-sdk echo (server CPU per call)",
		"wasmcp-wat-sdk", "native-sdk", "the host's own cost")
	s.addRatio("wasmcp-over-floor", "wasmcp (C echo, go-sdk client) ÷ raw JSON-RPC floor (p50)",
		p50("wasmcp-c-sdk"), p50("raw-raw"), "≤ 3", "stdio round trip")
	s.addRatio("wasmcp-over-floor-same-client", "wasmcp (C echo) ÷ raw JSON-RPC echo, both with the go-sdk client (p50)",
		p50("wasmcp-c-sdk"), p50("raw-sdk"), "", "the client's own cost on both sides")
	s.addRatio("wasmcp-raw-over-floor", "wasmcp (C echo, raw client) ÷ raw floor (p50): server side only",
		p50("wasmcp-c-raw"), p50("raw-raw"), "", "same client on both sides")
	s.addRatio("native-over-floor", "native go-sdk echo (go-sdk client) ÷ raw floor (p50)",
		p50("native-sdk"), p50("raw-raw"), "", "go-sdk alone; NOTES.md: ~6.5")
	s.addRatio("native-stdio-transport", "native go-sdk echo on wasmcp's stdio transport ÷ on go-sdk's (p50)",
		p50("native-sdk"), p50("native-sdkstdio-sdk"), "", "what wasmcp's transport saves")
	s.addRatio("plain-over-hooked", "plain `wasmcp serve` ÷ the one with the bench's hook (p50)",
		p50("plain-c-sdk"), p50("wasmcp-c-sdk"), "", "≈ 1: the hook costs nothing")

	s.Notes = append(s.Notes, notes...)
	return s
}
