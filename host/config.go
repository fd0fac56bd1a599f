package host

import (
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmcp/wasmcp/host/internal/egress"
	"github.com/wasmcp/wasmcp/host/internal/plugin"
	"github.com/wasmcp/wasmcp/host/internal/sandbox"
	"github.com/wasmcp/wasmcp/host/policy"
	"github.com/wasmcp/wasmcp/host/trust"
)

// Defaults of NewConfig. They match ABI.md section 6 and the flags of the
// wasmcp command.
const (
	DefaultTimeout       = sandbox.DefaultTimeout
	DefaultClientTimeout = sandbox.DefaultClientTimeout
	DefaultMemory        = sandbox.DefaultMemoryPages * pageSize
	DefaultMaxInput      = plugin.DefaultMaxInput
	DefaultMaxOutput     = sandbox.DefaultMaxOutput
)

// pageSize is the size of a WebAssembly memory page; memory limits are whole
// pages.
const pageSize = 65536

// maxMemory is the most a 32-bit linear memory can address: 65536 pages.
const maxMemory = 4 << 30

// Config configures a Host. It is an immutable value: every With method
// returns a modified copy, so one Config can be shared and specialised
// safely. Values are validated by New and Inspect, not by the With methods.
type Config struct {
	dir      string
	cacheDir string
	timeout  time.Duration
	// clientTimeout is the per-call budget for waiting on the client
	// (sampling, elicitation).
	clientTimeout time.Duration
	memory        uint64
	maxInput      int
	maxOutput     int
	logger        *slog.Logger
	// policy and trust: see permissions.go.
	policy    *policy.Policy
	trust     *trust.Verifier
	meters    metric.MeterProvider
	tracer    trace.TracerProvider
	admission Admission
	// longCalls and memoryReturn are the process-wide behaviours a
	// program chooses (WithLongCalls, WithMemoryReturn).
	longCalls    LongCalls
	memoryReturn int

	// settle overrides the watcher's settle time; zero keeps its default.
	// Only this package's tests set it, to make hot reload tests quicker.
	settle time.Duration
	// resolver looks up the host names of guests' HTTP requests; nil is
	// the system's. Only this package's tests set it, so that no test
	// depends on real DNS.
	resolver egress.Resolver
}

// NewConfig returns the default configuration: no plugin directory, a call
// timeout of 30 s, a client timeout of 10 minutes, 256 MiB of memory per
// instance, 4 MiB of arguments and of result, the compilation cache in os.UserCacheDir()/wasmcp (none if
// the platform has no user cache directory), and slog.Default() for logs.
func NewConfig() Config {
	c := Config{
		timeout:       DefaultTimeout,
		clientTimeout: DefaultClientTimeout,
		memory:        DefaultMemory,
		maxInput:      DefaultMaxInput,
		maxOutput:     DefaultMaxOutput,
	}
	if dir, err := os.UserCacheDir(); err == nil {
		c.cacheDir = filepath.Join(dir, "wasmcp")
	}
	return c
}

// WithDir sets the plugin directory that LoadDir loads and Watch watches.
func (c Config) WithDir(dir string) Config { c.dir = dir; return c }

// WithCacheDir sets the directory holding compiled code and tool name
// claims. The empty string disables both on disk: modules are compiled at
// every start and claims last only as long as the Host.
func (c Config) WithCacheDir(dir string) Config { c.cacheDir = dir; return c }

// WithTimeout sets the deadline of one tool call. It must be positive.
func (c Config) WithTimeout(d time.Duration) Config { c.timeout = d; return c }

// WithClientTimeout sets how long one call may wait, in total, for its
// client to answer the guest's sampling and elicitation requests. That time
// does not count against the call's timeout, which stops while the guest
// waits (ABI.md section 5). It must be positive; the default is 10 minutes.
func (c Config) WithClientTimeout(d time.Duration) Config { c.clientTimeout = d; return c }

// WithMemoryLimit sets the most linear memory one instance may use, in
// bytes. It is rounded down to whole 64 KiB pages and must be between one
// page and 4 GiB.
func (c Config) WithMemoryLimit(bytes uint64) Config { c.memory = bytes; return c }

// WithMaxInput sets the largest arguments document of a call, in bytes. It
// must be positive.
func (c Config) WithMaxInput(bytes int) Config { c.maxInput = bytes; return c }

// WithMaxOutput sets the largest result document a guest may return, in
// bytes. It must be positive and below 4 GiB.
func (c Config) WithMaxOutput(bytes int) Config { c.maxOutput = bytes; return c }

// WithLogger sets where the host's and the guests' log lines go. Nil means
// slog.Default().
func (c Config) WithLogger(l *slog.Logger) Config { c.logger = l; return c }

// WithMeterProvider sets where the host reports what only it knows, with
// the OpenTelemetry metric API: module loads by result
// (wasmcp.module.loads), the duration of each load of a set of modules
// (wasmcp.reload.duration), the modules open (wasmcp.modules.open), the
// high-water mark of each plugin's guest memory (wasmcp.guest.memory.peak)
// and guests' outbound HTTP requests by granted origin and outcome
// (wasmcp.guest.http.requests). Nil, the default, records nothing, at the
// cost of no-op calls.
func (c Config) WithMeterProvider(mp metric.MeterProvider) Config { c.meters = mp; return c }

// WithTracerProvider sets where the host starts the child spans of a call,
// under the span in the context given to Call: "admission" (waiting for
// a turn, see Admission), "validate" (the arguments), "guest" (the sandbox run)
// and one "http_request" per outbound request of the guest. Nil, the
// default, records nothing, at the cost of no-op calls.
func (c Config) WithTracerProvider(tp trace.TracerProvider) Config { c.tracer = tp; return c }

// LongCalls keeps guests in long computations from taking every processor:
// a call that has run for a millisecond is long, and long calls take turns
// on GOMAXPROCS − Reserve processors (at least one), so that Reserve are
// always left for the transport and the short calls of every plugin. With
// Nice, a long call's thread runs at that niceness (on Linux), so that the
// operating system prefers everything else when the cores are busy; the
// thread ends with the call. The zero value, the default, lets long calls
// take every processor at normal priority; wasmcp serve sets Reserve 1 and
// Nice 10 (BENCHMARKS.md, the noisy neighbour).
type LongCalls struct {
	Reserve int
	Nice    int
}

// WithLongCalls sets how long calls share the processors. Reserve must not
// be negative; Nice must be between 0 and 19.
func (c Config) WithLongCalls(l LongCalls) Config { c.longCalls = l; return c }

// validate reports the first invalid setting and returns the memory limit in
// pages.
func (c Config) validate() (pages uint32, err error) {
	switch {
	case c.timeout <= 0:
		return 0, fmt.Errorf("config: timeout %v is not positive", c.timeout)
	case c.clientTimeout <= 0:
		return 0, fmt.Errorf("config: client timeout %v is not positive", c.clientTimeout)
	case c.memory < pageSize:
		return 0, fmt.Errorf("config: memory limit of %d bytes is less than one 64 KiB page", c.memory)
	case c.memory > maxMemory:
		return 0, fmt.Errorf("config: memory limit of %d bytes is over the 4 GiB a module can address", c.memory)
	case c.maxInput <= 0:
		return 0, fmt.Errorf("config: max input %d is not positive", c.maxInput)
	case c.maxOutput <= 0 || uint64(c.maxOutput) > math.MaxUint32:
		return 0, fmt.Errorf("config: max output %d is not between 1 byte and 4 GiB", c.maxOutput)
	}
	if err := c.admission.validate(); err != nil {
		return 0, err
	}
	if c.longCalls.Reserve < 0 || c.longCalls.Nice < 0 || c.longCalls.Nice > 19 {
		return 0, fmt.Errorf("config: long calls: reserve %d must not be negative and nice %d must be between 0 and 19",
			c.longCalls.Reserve, c.longCalls.Nice)
	}
	return uint32(c.memory / pageSize), nil
}

func (c Config) log() *slog.Logger {
	if c.logger == nil {
		return slog.Default()
	}
	return c.logger
}
