package mcpadapter

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/internal/mcpadapter/internal/wire"
	"github.com/wasmcp/wasmcp/internal/oauth"
)

// sessionTable keeps the sessions of 2025-era HTTP clients within
// HTTPOptions.MaxSessions, and those of one OAuth principal within
// MaxPrincipalSessions, so that no client can lock the others out by
// opening sessions and leaving them open. Rather than refuse a new session
// at a cap, it closes the least recently used idle session: of the
// principal itself at its own cap; at the server's, of the owner holding
// the most sessions, so that one who floods the server pays for it first.
//
// A session is idle while none of its POSTs is being served: a tool call
// keeps its session busy until answered, a standalone event stream (GET)
// does not. Every official client holds such a stream open for the life of
// its session, so were streams activity, a flood of sessions each holding
// one would lock the others out again; go-sdk's SessionTimeout counts only
// POSTs too. Busy sessions are bounded by the calls the host admits at once
// (per client by Admission.CallerCalls, per plugin by its concurrency and
// queue), so a flood cannot keep them all busy.
//
// An owner is the principal of a verified token (its issuer and subject, so
// that a user's clients share one cap), or else, with a shared bearer token
// or none, the client's address (an IPv6 /64), which only orders eviction:
// behind a proxy every client has the proxy's address, and sessions are
// then closed least recently used first, whoever holds them.
//
// A closed session's client gets 404 on its next request, as after
// SessionTimeout, which tells it to start a new session.
//
// A request's answer reaches its client before the request is counted
// done, so a client that opens a session as soon as it has its answer may
// find its other session still busy: an initialize with nothing to close
// waits up to busyGrace for a session to go idle before it is refused.
type sessionTable struct {
	max, perPrincipal int
	// find returns the go-sdk session of an id, nil once it is closed.
	find    func(id string) *mcp.ServerSession
	logger  *slog.Logger
	evicted func(reason string) // counts an eviction

	mu sync.Mutex
	// clock ticks at the start and end of every request of a session:
	// the order in which sessions were used.
	clock    uint64
	sessions map[string]*tracked // by session id
	held     map[string]*holding // by owner key
	opening  int                 // initializes being served
	// idle, when not nil, is closed when a session goes idle: initializes
	// waiting for one to close wait on it.
	idle chan struct{}
}

// busyGrace is how long an initialize waits for a session to go idle
// before it is refused because every session it could close is busy.
const busyGrace = 100 * time.Millisecond

// holding counts the sessions of one owner, those opening included.
type holding struct {
	key string
	n   int
}

// tracked is one open session.
type tracked struct {
	id        string
	holder    *holding
	principal *oauth.Principal // nil without OAuth
	addr      string           // the client's address, for the log
	ss        *mcp.ServerSession
	busy      int    // its POSTs being served
	used      uint64 // clock at its last request's start or end
}

// Reasons of an eviction, as its log line and wasmcp.sessions.evicted say.
const (
	evictedServerFull   = "server_full"
	evictedPrincipalCap = "principal_cap"
)

func newSessionTable(a *Adapter, max, perPrincipal int) *sessionTable {
	return &sessionTable{
		max:          max,
		perPrincipal: perPrincipal,
		find:         a.findSession,
		logger:       a.logger,
		evicted:      a.meters.recordEviction,
		sessions:     map[string]*tracked{},
		held:         map[string]*holding{},
	}
}

// findSession is the session id of the adapter's stateful server, nil if
// none is open.
func (a *Adapter) findSession(id string) *mcp.ServerSession {
	for ss := range a.server.Sessions() {
		if ss.ID() == id {
			return ss
		}
	}
	return nil
}

// owner is who holds sessions.
type owner struct {
	key       string
	principal *oauth.Principal
}

// ownerOf is the owner of the sessions r opens or uses: its verified
// principal, else its client's address.
func ownerOf(r *http.Request) owner {
	if p := oauth.PrincipalFrom(r.Context()); p != nil {
		return owner{key: principalOwner(p), principal: p}
	}
	return owner{key: "address\x00" + addressKey(r.RemoteAddr)}
}

// principalOwner is the owner key of a verified principal.
func principalOwner(p *oauth.Principal) string {
	return "principal\x00" + limitKey(p.Issuer, p.Subject, p.ClientID)
}

// addressKey is the part of a client's address that tells clients apart:
// all of an IPv4 address, the /64 prefix of an IPv6 one, which one host is
// commonly given whole.
func addressKey(remote string) string {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		return remote
	}
	addr := ap.Addr().Unmap()
	if addr.Is4() {
		return addr.String()
	}
	return netip.PrefixFrom(addr, 64).Masked().String()
}

// open is wire.RequestChecks.OpenSession: it makes room for the session r
// opens, closing idle sessions as the caps say, or refuses it when every
// session it could close is busy.
func (t *sessionTable) open(r *http.Request) (opened func(id string), refused *wire.SessionRefusal) {
	o := ownerOf(r)
	var victims []*tracked
	defer func() { t.close(victims) }()
	deadline := time.Now().Add(busyGrace)
	t.mu.Lock()
	defer t.mu.Unlock()
	for o.principal != nil {
		h := t.held[o.key]
		if h == nil || h.n < t.perPrincipal {
			break
		}
		if v := t.victim(h); v != nil {
			victims = append(victims, t.evict(r.Context(), v, evictedPrincipalCap))
		} else if !t.waitIdle(r.Context(), deadline) {
			return nil, &wire.SessionRefusal{Status: http.StatusTooManyRequests, RetryAfter: 5, Message: fmt.Sprintf(
				"too many sessions: a principal may hold %d open at once (--max-principal-sessions), and each of "+
					"yours is serving a request; retry later, or end one", t.perPrincipal)}
		}
	}
	for len(t.sessions)+t.opening >= t.max {
		if v := t.victim(nil); v != nil {
			victims = append(victims, t.evict(r.Context(), v, evictedServerFull))
		} else if !t.waitIdle(r.Context(), deadline) {
			return nil, &wire.SessionRefusal{Status: http.StatusServiceUnavailable, RetryAfter: 5, Message: fmt.Sprintf(
				"too many sessions: this server holds at most %d open at once (--max-sessions), and each is "+
					"serving a request; retry later", t.max)}
		}
	}
	t.opening++
	h := t.held[o.key]
	if h == nil {
		h = &holding{key: o.key}
		t.held[o.key] = h
	}
	h.n++
	return func(id string) { t.opened(o.principal, h, r.RemoteAddr, id) }, nil
}

// opened records the session id that an initialize of h's owner opened, if
// any.
func (t *sessionTable) opened(p *oauth.Principal, h *holding, addr, id string) {
	var ss *mcp.ServerSession
	if id != "" {
		ss = t.find(id)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.opening--
	if ss == nil {
		t.release(h)
		return
	}
	t.clock++
	s := &tracked{id: id, holder: h, principal: p, addr: addr, ss: ss, used: t.clock}
	t.sessions[id] = s
	go func() {
		_ = ss.Wait()
		t.closed(s)
	}()
}

// closed forgets s once go-sdk has closed it: the client ended it, it timed
// out, or it was evicted.
func (t *sessionTable) closed(s *tracked) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sessions[s.id] == s {
		delete(t.sessions, s.id)
		t.release(s.holder)
	}
}

// release drops one session from h's count. t.mu is held.
func (t *sessionTable) release(h *holding) {
	if h.n--; h.n == 0 {
		delete(t.held, h.key)
	}
}

// victim is the session to close to make room: the least recently used
// idle session of h's owner, or, for nil, of the owner holding the most
// sessions. Nil when there is no idle one. t.mu is held.
func (t *sessionTable) victim(h *holding) *tracked {
	var best *tracked
	for _, s := range t.sessions {
		if s.busy > 0 || h != nil && s.holder != h {
			continue
		}
		if best == nil || s.holder.n > best.holder.n || s.holder.n == best.holder.n && s.used < best.used {
			best = s
		}
	}
	return best
}

// evict forgets s, to be closed once t.mu is released, and says why.
// t.mu is held.
func (t *sessionTable) evict(ctx context.Context, s *tracked, reason string) *tracked {
	attrs := []any{"session", s.id, "reason", reason, "held", s.holder.n}
	if s.principal != nil {
		attrs = append(attrs, "subject", s.principal.Subject, "client_id", s.principal.ClientID)
	} else {
		attrs = append(attrs, "address", s.addr)
	}
	level, msg := slog.LevelInfo, "session closed: its principal opened another past --max-principal-sessions"
	if reason == evictedServerFull {
		level, msg = slog.LevelWarn, "session closed to make room: the server holds --max-sessions"
	}
	t.logger.Log(ctx, level, msg, attrs...)
	t.evicted(reason)
	delete(t.sessions, s.id)
	t.release(s.holder)
	return s
}

// close closes the sessions evicted, each in a goroutine of its own: a
// request that reached one after it was chosen is let finish, without
// holding up the initialize that made room.
func (t *sessionTable) close(victims []*tracked) {
	for _, s := range victims {
		go s.ss.Close()
	}
}

// track counts the POSTs of each session being served, which make it busy,
// and marks it used at their start and end.
func (t *sessionTable) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("Mcp-Session-Id")
		if r.Method != http.MethodPost || id == "" {
			next.ServeHTTP(w, r)
			return
		}
		defer t.begin(id, r)()
		next.ServeHTTP(w, r)
	})
}

// begin marks session id busy with r until the returned function is
// called. A request of a session another principal holds is not counted:
// go-sdk refuses it.
func (t *sessionTable) begin(id string, r *http.Request) (end func()) {
	var key string
	if p := oauth.PrincipalFrom(r.Context()); p != nil {
		key = principalOwner(p)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sessions[id]
	if s == nil || s.principal != nil && key != s.holder.key {
		return func() {}
	}
	s.busy++
	t.clock++
	s.used = t.clock
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		s.busy--
		t.clock++
		s.used = t.clock
		if s.busy == 0 && t.idle != nil {
			close(t.idle)
			t.idle = nil
		}
	}
}

// waitIdle waits, t.mu released meanwhile, until a session goes idle or
// deadline passes, and says whether one went idle. t.mu is held.
func (t *sessionTable) waitIdle(ctx context.Context, deadline time.Time) bool {
	wait := time.Until(deadline)
	if wait <= 0 {
		return false
	}
	if t.idle == nil {
		t.idle = make(chan struct{})
	}
	idle := t.idle
	t.mu.Unlock()
	defer t.mu.Lock()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-idle:
		return true
	case <-timer.C:
	case <-ctx.Done():
	}
	return false
}
