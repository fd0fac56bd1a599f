package host

import (
	"time"

	"github.com/wasmcp/wasmcp/host/internal/egress"
)

// WithSettle shortens the watcher's settle time so hot reload tests wait
// less. Tests only: the default is what users get.
func (c Config) WithSettle(d time.Duration) Config { c.settle = d; return c }

// OpenModules counts the modules h loaded and has not closed yet.
func OpenModules(h *Host) int64 { return h.open.Load() }

// ClaimsPath is where a Host keeps the claims of the absolute directory dir.
var ClaimsPath = claimsPath

// WithResolver makes guests' HTTP requests look host names up with r.
// Tests only: no test depends on real DNS.
func (c Config) WithResolver(r egress.Resolver) Config { c.resolver = r; return c }
