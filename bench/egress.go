package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/host/policy"
)

// egressConcurrency is how many requests are in flight at once in the
// throughput row.
const egressConcurrency = 64

// runEgress measures what a guest's HTTP request costs over the same
// request made by native Go: a GET of a body from a server on 127.0.0.1,
// through the public host API (the call, the guest's http_request, the
// policy's checks, the response encoded and copied into the guest, which
// reads it all) ÷ net/http's client reading the same body. Then the
// throughput of egressConcurrency such calls at once ÷ as many native
// requests at once: the requests must not serialise in the host.
func runEgress(ctx context.Context, e *env) ([]row, error) {
	size := e.size(64<<10, 1<<10)
	samples := e.size(300, 10)
	total := e.size(2000, 2*egressConcurrency)
	body := strings.Repeat("x", size)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, body)
	}))
	defer srv.Close()
	native := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: egressConcurrency}}
	defer native.CloseIdleConnections()

	pol, err := policy.Parse(fmt.Appendf(nil, `{"plugins":{"net":{"net":[%q],"maxRequests":%d}}}`, srv.URL, egressConcurrency), e.work)
	if err != nil {
		return nil, err
	}
	h, err := host.New(ctx, host.NewConfig().WithCacheDir("").WithPolicy(pol).WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		return nil, err
	}
	defer h.Close(context.WithoutCancel(ctx))
	if err := h.LoadFile(ctx, filepath.Join(e.root, "host", "testdata", "net.wasm")); err != nil {
		return nil, err
	}
	args := []byte(fmt.Sprintf(`{"url":%q}`, srv.URL+"/body"))
	runs := [2]func() error{
		func() error {
			res, err := h.Call(ctx, host.CallRequest{Tool: "fetch_quiet", Arguments: args})
			if err == nil && (res.IsError || len(res.Content) == 0 || res.Content[0].Text != "ok") {
				err = fmt.Errorf("guest request failed: %+v", res.Content)
			}
			return err
		},
		func() error {
			resp, err := native.Get(srv.URL + "/body")
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err == nil && len(b) != size {
				err = fmt.Errorf("native request read %d bytes", len(b))
			}
			return err
		},
	}

	latency := row{name: fmt.Sprintf("egress: a %d KiB GET from 127.0.0.1 through the guest and the host ÷ native Go", size>>10), floor: atMost(1.2)}
	throughput := row{name: fmt.Sprintf("egress: %d such GETs at once, guest throughput ÷ native", egressConcurrency), floor: atLeast(0.8)}
	for i := range e.opts.reps {
		d, err := sampleAlternately(samples, runs)
		if err != nil {
			return []row{latency}, err
		}
		e.log.Info("egress", "rep", i, "guest", d[0], "native", d[1])
		latency.add(float64(d[0]), float64(d[1]), us(d[0]), us(d[1]))

		var rates [2]float64
		for j, run := range runs {
			elapsed, err := concurrently(total, egressConcurrency, run)
			if err != nil {
				return []row{latency, throughput}, err
			}
			rates[j] = float64(total) / elapsed.Seconds()
		}
		e.log.Info("egress", "rep", i, "guest/s", rates[0], "native/s", rates[1])
		throughput.add(rates[0], rates[1], fmt.Sprintf("%.0f/s", rates[0]), fmt.Sprintf("%.0f/s", rates[1]))
	}
	return []row{latency, throughput}, nil
}

// concurrently runs n calls of run, workers at a time, and returns how long
// they took; the first error stops it.
func concurrently(n, workers int, run func() error) (time.Duration, error) {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		next     int
		firstErr error
	)
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				if next == n || firstErr != nil {
					mu.Unlock()
					return
				}
				next++
				mu.Unlock()
				if err := run(); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start), firstErr
}
