package netguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

type names map[string][]netip.Addr

func (n names) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if addrs, ok := n[host]; ok {
		return addrs, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// The Dialer checks each address a name resolves to before its socket
// connects, returns the refusal as Check gave it, and connects to the
// next address when one is refused.
func TestDialerChecksBeforeConnecting(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	refused := errors.New("refused")
	var checked []string
	d := Dialer{
		Resolver: names{"two.test": {netip.MustParseAddr("::ffff:127.0.0.1"), netip.MustParseAddr("127.0.0.1")}},
		Check: func(host string, addr netip.AddrPort) error {
			checked = append(checked, host+" "+addr.String())
			if len(checked) == 1 {
				return refused
			}
			return nil
		},
	}
	conn, err := d.DialContext(t.Context(), "tcp", "two.test:"+port)
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if want := "two.test 127.0.0.1:" + port + ",two.test 127.0.0.1:" + port; strings.Join(checked, ",") != want {
		t.Errorf("checked %q, want %q", checked, want)
	}

	checked = nil
	d.Check = func(string, netip.AddrPort) error { return refused }
	if _, err := d.DialContext(t.Context(), "tcp", "127.0.0.1:"+port); err != refused {
		t.Errorf("got %v, want the refusal itself", err)
	}
	if _, err := d.DialContext(t.Context(), "tcp", "none.test:"+port); err == nil || !strings.Contains(err.Error(), "no such host") {
		t.Errorf("an unknown name: %v", err)
	}
	// A last connection, allowed: accepted after any that came before.
	d.Check = nil
	conn, err = d.DialContext(t.Context(), "tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	for i := 0; i < 200 && accepted.Load() < 2; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if n := accepted.Load(); n != 2 {
		t.Errorf("%d connections accepted, want the two allowed", n)
	}
}
