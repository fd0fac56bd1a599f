package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"sync"
	"time"
)

// runTelemetry measures what metrics and traces cost a busy server: the
// per-call time of the HTTP experiment's load on `wasmcp serve -http` with
// the C echo, exporting every call's spans by OTLP to a stub collector on
// loopback and scraped at /metrics once a second, over the per-call time of
// the same server with OTEL_SDK_DISABLED=true.
func runTelemetry(ctx context.Context, e *env) ([]row, error) {
	clients, calls := e.size(64, 4), e.size(6000, 40)
	dir, err := e.pluginDir("telemetry", "examples-c")
	if err != nil {
		return nil, err
	}
	collector, err := startCollector()
	if err != nil {
		return nil, err
	}
	defer collector.Close()
	r := row{name: fmt.Sprintf("HTTP per-call time, %d go-sdk clients, C echo: telemetry on (OTLP traces, /metrics scraped each second) ÷ OTEL_SDK_DISABLED", clients),
		floor: atMost(1.1)}
	for i := range e.opts.reps {
		on, off, err := telemetryRep(ctx, e, i, dir, "http://"+collector.Addr().String(), clients, calls)
		if err != nil {
			return []row{r}, err
		}
		e.log.Info("telemetry", "rep", i, "on calls/s", int(on), "off calls/s", int(off))
		// Per-call time is the inverse of throughput.
		r.add(1/on, 1/off, fmt.Sprintf("%.1f µs/call", 1e6/on), fmt.Sprintf("%.1f µs/call", 1e6/off))
	}
	return []row{r}, nil
}

// telemetryRep starts both servers afresh, each with a -metrics listener
// scraped once a second while the calls run, and returns their throughput.
func telemetryRep(ctx context.Context, e *env, i int, dir, endpoint string, clients, calls int) (on, off float64, err error) {
	ctx, stop := context.WithCancel(ctx)
	var scrapers sync.WaitGroup
	defer func() {
		stop()
		scrapers.Wait()
	}()
	mk := func(name string, envv ...string) launch {
		return launch{cmd: func(addr string) (*exec.Cmd, error) {
			ops, err := freeAddr()
			if err != nil {
				return nil, err
			}
			scrapers.Go(func() { scrapeEachSecond(ctx, "http://"+ops+"/metrics") })
			return e.command(fmt.Sprintf("telemetry-%s-%d", name, i), envv, e.wasmcp,
				"serve", "-dir", dir, "-cache-dir", e.codeCache, "-http", addr, "-rate", "0", "-metrics", ops)
		}}
	}
	got, err := throughputs(ctx, clients, calls,
		mk("on", "OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint, "OTEL_SDK_DISABLED="),
		mk("off", "OTEL_SDK_DISABLED=true"))
	if err != nil {
		return 0, 0, err
	}
	return got[0], got[1], nil
}

// scrapeEachSecond reads url once a second until ctx is done, as a
// Prometheus server would; the server that answers 404 costs nothing more.
func scrapeEachSecond(ctx context.Context, url string) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
}

// startCollector serves a stub OTLP/HTTP collector on loopback that
// accepts every export and discards it.
func startCollector() (net.Listener, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	go http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	return l, nil
}
