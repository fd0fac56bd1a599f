package registry

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/wasmcp/wasmcp/host/internal/plugin"
)

func TestUpdateServesToolsSorted(t *testing.T) {
	r := newRegistry(t, nil)
	c := mustUpdate(t, r, []*fake{newFake("b", 1, tool("zeta", "")), newFake("a", 1, tool("alpha", ""), tool("mid", ""))})
	if got, want := names(c.Added), []string{"alpha", "mid", "zeta"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Added = %v, want %v", got, want)
	}
	if got, want := names(r.Snapshot().Entries()), []string{"alpha", "mid", "zeta"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Entries = %v, want %v", got, want)
	}
	if got := callText(t, r, "zeta"); got != "b/1:zeta" {
		t.Fatalf("Call zeta = %q", got)
	}
	if p, ok := r.Snapshot().Plugin("a"); !ok || p.Name() != "a" {
		t.Fatalf("Plugin(a) = %v, %v", p, ok)
	}
}

func TestUnknownTool(t *testing.T) {
	r := newRegistry(t, nil)
	mustUpdate(t, r, []*fake{newFake("a", 1, tool("x", ""))})
	_, err := call(r, "nope")
	if !errors.Is(err, plugin.ErrUnknownTool) || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("err = %v, want ErrUnknownTool naming the tool", err)
	}
}

func TestDiff(t *testing.T) {
	r := newRegistry(t, nil)
	same := tool("same", "d")
	same.InputSchema = json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer","maximum":9007199254740993}}}`)
	mustUpdate(t, r, []*fake{newFake("a", 1, tool("changed", "old"), tool("gone", ""), same)})

	// The same definition with keys in another order and other spacing is
	// not an update; the large integer must survive canonicalisation.
	reordered := tool("same", "d")
	reordered.InputSchema = json.RawMessage(`{ "properties":{"a":{"maximum":9007199254740993,"type":"integer"}}, "type":"object" }`)
	c := mustUpdate(t, r, []*fake{newFake("a", 2, tool("changed", "new"), tool("new", ""), reordered)})

	if got := names(c.Added); !reflect.DeepEqual(got, []string{"new"}) {
		t.Errorf("Added = %v", got)
	}
	if got := names(c.Updated); !reflect.DeepEqual(got, []string{"changed"}) {
		t.Errorf("Updated = %v", got)
	}
	if !reflect.DeepEqual(c.Removed, []string{"gone"}) {
		t.Errorf("Removed = %v", c.Removed)
	}
	if c.Updated[0].Tool.Description != "new" {
		t.Errorf("Updated carries the old definition")
	}

	// A large integer that differs only beyond float64 precision is a change.
	other := tool("same", "d")
	other.InputSchema = json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer","maximum":9007199254740992}}}`)
	c = mustUpdate(t, r, []*fake{newFake("a", 3, tool("changed", "new"), tool("new", ""), other)})
	if got := names(c.Updated); !reflect.DeepEqual(got, []string{"same"}) {
		t.Errorf("Updated = %v, want [same]", got)
	}
}

func TestNoOpReloadPublishesNothingAndClosesOld(t *testing.T) {
	r := newRegistry(t, nil)
	var mu sync.Mutex
	var got []Change[*fake]
	r.Subscribe(func(c Change[*fake]) { mu.Lock(); got = append(got, c); mu.Unlock() })

	v1 := newFake("a", 1, tool("x", "d"))
	mustUpdate(t, r, []*fake{v1})
	v2 := newFake("a", 2, tool("x", "d"))
	if c := mustUpdate(t, r, []*fake{v2}); !c.Empty() {
		t.Fatalf("identical reload produced %+v", c)
	}
	<-v1.closedCh // the replaced version is drained and closed
	if got := callText(t, r, "x"); got != "a/2:x" {
		t.Fatalf("Call after reload = %q, want the new version", got)
	}
	// Subscribers see each swap before Update returns.
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || names(got[0].Added)[0] != "x" {
		t.Fatalf("changes = %+v, want the first load only", got)
	}
}

func TestSubscribeGetsTheToolsServedNow(t *testing.T) {
	r := newRegistry(t, nil)
	var got []Change[*fake]
	r.Subscribe(func(c Change[*fake]) { got = append(got, c) }) // nothing served: no call
	mustUpdate(t, r, []*fake{newFake("a", 1, tool("x", ""), tool("y", ""))})
	var late []Change[*fake]
	r.Subscribe(func(c Change[*fake]) { late = append(late, c) })
	if len(got) != 1 || len(late) != 1 || !reflect.DeepEqual(names(late[0].Added), []string{"x", "y"}) {
		t.Fatalf("first subscriber saw %+v, late one %+v; want one Change[*fake] adding x and y each", got, late)
	}
}

func TestRemoveClosesPlugin(t *testing.T) {
	r := newRegistry(t, nil)
	a := newFake("a", 1, tool("x", ""))
	mustUpdate(t, r, []*fake{a, newFake("b", 1, tool("y", ""))})
	c := mustUpdate(t, r, nil, "a", "missing")
	if !reflect.DeepEqual(c.Removed, []string{"x"}) || len(c.Added)+len(c.Updated) != 0 {
		t.Fatalf("change = %+v", c)
	}
	<-a.closedCh
	if _, ok := r.Snapshot().Plugin("a"); ok {
		t.Fatal("removed plugin still listed")
	}
}

func TestCollisionIncumbentWinsInBothOrders(t *testing.T) {
	for _, order := range [][2]string{{"a", "b"}, {"b", "a"}} {
		t.Run(order[0]+"-first", func(t *testing.T) {
			r := newRegistry(t, nil)
			first := newFake(order[0], 1, tool("x", order[0]), tool(order[0]+"-only", ""))
			second := newFake(order[1], 1, tool("x", order[1]), tool(order[1]+"-only", ""))
			mustUpdate(t, r, []*fake{first})
			c := mustUpdate(t, r, []*fake{second})
			if got := names(c.Added); !reflect.DeepEqual(got, []string{order[1] + "-only"}) {
				t.Fatalf("Added = %v: the newcomer's other tools are served, x is not", got)
			}
			if len(c.Updated) != 0 {
				t.Fatalf("Updated = %v: the incumbent's x must not change", names(c.Updated))
			}
			if got := callText(t, r, "x"); got != order[0]+"/1:x" {
				t.Fatalf("x served by %q, want the incumbent %s", got, order[0])
			}
			want := []Refusal{{Tool: "x", Plugin: order[1], Owner: order[0]}}
			if got := r.Snapshot().Refused(); !reflect.DeepEqual(got, want) {
				t.Fatalf("Refused = %+v, want %+v", got, want)
			}
			// A new version of the incumbent keeps its claim.
			mustUpdate(t, r, []*fake{newFake(order[0], 2, tool("x", order[0]))})
			if got := callText(t, r, "x"); got != order[0]+"/2:x" {
				t.Fatalf("after replacing the incumbent x served by %q", got)
			}
		})
	}
}

func TestCollisionAtStartDecidedByNameOrder(t *testing.T) {
	r := newRegistry(t, nil)
	mustUpdate(t, r, []*fake{newFake("c", 1, tool("x", "")), newFake("b", 1, tool("x", "")), newFake("d", 1, tool("x", ""))})
	if got := served(r)["x"]; got != "b" {
		t.Fatalf("x served by %s, want b (first by name)", got)
	}
	want := []Refusal{{"x", "c", "b"}, {"x", "d", "b"}}
	if got := r.Snapshot().Refused(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Refused = %+v, want %+v", got, want)
	}
}

func TestClaimsMakeRestartStable(t *testing.T) {
	store := &memStore{}
	r1 := New[*fake](Options{Claims: store, Logger: slog.New(slog.DiscardHandler)})
	mustUpdate(t, r1, []*fake{newFake("zz", 1, tool("x", ""))})
	mustUpdate(t, r1, []*fake{newFake("aa", 1, tool("x", ""), tool("y", ""))})
	if got := served(r1); got["x"] != "zz" || got["y"] != "aa" {
		t.Fatalf("before restart: %v", got)
	}
	if err := r1.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"x": "zz", "y": "aa"}; !reflect.DeepEqual(store.claims, want) {
		t.Fatalf("saved claims = %v, want %v", store.claims, want)
	}

	// Restart: everything loads in one batch, in any order; name order
	// alone would give x to aa, the claim gives it to zz.
	for _, put := range [][]*fake{
		{newFake("aa", 1, tool("x", ""), tool("y", "")), newFake("zz", 1, tool("x", ""))},
		{newFake("zz", 1, tool("x", "")), newFake("aa", 1, tool("x", ""), tool("y", ""))},
	} {
		t.Run(put[0].name+" first", func(t *testing.T) {
			r2 := newRegistry(t, store)
			mustUpdate(t, r2, put)
			if got := served(r2)["x"]; got != "zz" {
				t.Fatalf("after restart x served by %s, want the claimant zz", got)
			}
			r2.Close(context.Background())
		})
	}
}

func TestClaimReleasedWhenOwnerLeaves(t *testing.T) {
	store := &memStore{}
	r := newRegistry(t, store)
	mustUpdate(t, r, []*fake{newFake("m", 1, tool("x", "m"))})
	mustUpdate(t, r, []*fake{newFake("z", 1, tool("x", "z")), newFake("k", 1, tool("x", "k"))})
	if served(r)["x"] != "m" {
		t.Fatal("incumbent lost x")
	}

	// The owner stops defining x: the next by name order (k) takes it.
	c := mustUpdate(t, r, []*fake{newFake("m", 2, tool("other", ""))})
	if served(r)["x"] != "k" || store.claims["x"] != "k" {
		t.Fatalf("x served by %s, claim %s; want k", served(r)["x"], store.claims["x"])
	}
	if got := names(c.Updated); !reflect.DeepEqual(got, []string{"x"}) {
		t.Fatalf("Updated = %v: x's definition changed with its owner", got)
	}

	// The former owner defines it again: it does not take it back.
	mustUpdate(t, r, []*fake{newFake("m", 3, tool("x", "m"))})
	if served(r)["x"] != "k" {
		t.Fatal("the former owner took x back")
	}

	// The owner is deleted: z is next.
	mustUpdate(t, r, nil, "k")
	if served(r)["x"] != "m" {
		t.Fatalf("x served by %s, want m (before z by name)", served(r)["x"])
	}

	// The last definer goes: the tool is removed and its claim lapses.
	c = mustUpdate(t, r, nil, "m", "z")
	if !reflect.DeepEqual(c.Removed, []string{"x"}) {
		t.Fatalf("Removed = %v", c.Removed)
	}
	if _, ok := store.claims["x"]; ok {
		t.Fatal("claim on x kept with no plugin defining it")
	}
	if len(r.Snapshot().Refused()) != 0 {
		t.Fatalf("Refused = %v", r.Snapshot().Refused())
	}
}

func TestClaimsSavedOnlyWhenChanged(t *testing.T) {
	store := &memStore{}
	r := newRegistry(t, store)
	mustUpdate(t, r, []*fake{newFake("a", 1, tool("x", ""))})
	for v := 2; v < 10; v++ {
		mustUpdate(t, r, []*fake{newFake("a", v, tool("x", ""))})
	}
	if store.saves != 1 {
		t.Fatalf("saves = %d, want 1", store.saves)
	}
}

func TestCallRetriedWhenPluginClosedBetweenLookupAndCall(t *testing.T) {
	r := newRegistry(t, nil)
	entered, proceed := make(chan struct{}), make(chan struct{})
	v1 := newFake("a", 1, tool("x", "one"))
	v1.beforeCall = func() { close(entered); <-proceed }
	mustUpdate(t, r, []*fake{v1})

	type result struct {
		res *plugin.Result
		err error
	}
	done := make(chan result)
	go func() {
		res, err := call(r, "x")
		done <- result{res, err}
	}()
	<-entered // the call holds v1, not yet counted in flight
	mustUpdate(t, r, []*fake{newFake("a", 2, tool("x", "two"))})
	<-v1.closedCh // v1 is closed before the call reaches it
	close(proceed)
	got := <-done
	if got.err != nil {
		t.Fatalf("Call during swap failed: %v", got.err)
	}
	if text := got.res.Content[0].Text; text != "a/2:x" {
		t.Fatalf("Call answered by %q, want the new version", text)
	}
}

func TestCallInFlightFinishesOnOldVersion(t *testing.T) {
	r := newRegistry(t, nil)
	entered, proceed := make(chan struct{}), make(chan struct{})
	v1 := newFake("a", 1, tool("x", "one"))
	v1.duringCall = func() { close(entered); <-proceed }
	mustUpdate(t, r, []*fake{v1})
	done := make(chan string)
	go func() {
		res, err := call(r, "x")
		if err != nil {
			done <- err.Error()
			return
		}
		done <- res.Content[0].Text
	}()
	<-entered
	mustUpdate(t, r, []*fake{newFake("a", 2, tool("x", "two"))})
	if got := callText(t, r, "x"); got != "a/2:x" {
		t.Fatalf("new call went to %q", got)
	}
	select {
	case <-v1.closedCh:
		t.Fatal("old version closed while a call was running on it")
	default:
	}
	close(proceed)
	if got := <-done; got != "a/1:x" {
		t.Fatalf("in-flight call answered %q, want the old version", got)
	}
	<-v1.closedCh
}

func TestSubscribeOrderAndCancel(t *testing.T) {
	r := newRegistry(t, nil)
	mustUpdate(t, r, []*fake{newFake("a", 0, tool("x", "start"))})
	var seen []string
	cancel := r.Subscribe(func(c Change[*fake]) {
		if len(c.Updated) == 1 {
			seen = append(seen, c.Updated[0].Tool.Description)
		}
	})
	var want []string
	for i := 1; i < 100; i++ {
		d := string(rune('0'+i/10)) + string(rune('0'+i%10))
		want = append(want, d)
		mustUpdate(t, r, []*fake{newFake("a", i, tool("x", d))})
	}
	cancel()
	mustUpdate(t, r, []*fake{newFake("a", 100, tool("x", "after cancel"))})
	if !reflect.DeepEqual(seen, want) {
		t.Fatalf("seen %v\nwant %v", seen, want)
	}
}

func TestCloseClosesEverything(t *testing.T) {
	r := New[*fake](Options{Logger: slog.New(slog.DiscardHandler)})
	a, b := newFake("a", 1, tool("x", "")), newFake("b", 1, tool("y", ""))
	mustUpdate(t, r, []*fake{a, b})
	old := newFake("c", 1, tool("z", ""))
	mustUpdate(t, r, []*fake{old})
	mustUpdate(t, r, []*fake{newFake("c", 2, tool("z", "2"))})
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []*fake{a, b, old} {
		if f.closes.Load() != 1 {
			t.Fatalf("%s closed %d times", f.name, f.closes.Load())
		}
	}
	if _, err := call(r, "x"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Call after Close: %v", err)
	}
	late := newFake("d", 1, tool("w", ""))
	if _, err := r.Update([]*fake{late}, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Update after Close: %v", err)
	}
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if late.closes.Load() != 1 {
		t.Fatal("a plugin handed to Update after Close was not closed")
	}
}

func TestCallsDuringSwapsNeverFail(t *testing.T) {
	r := newRegistry(t, nil)
	mustUpdate(t, r, []*fake{newFake("a", 0, tool("x", "0"))})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := call(r, "x"); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var versions []*fake
	for i := 1; i <= 500; i++ {
		v := newFake("a", i, tool("x", string(rune('a'+i%2))))
		versions = append(versions, v)
		mustUpdate(t, r, []*fake{v})
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("call failed during swaps: %v", err)
	}
	r.Close(context.Background())
	for _, v := range versions {
		if v.closes.Load() != 1 {
			t.Fatalf("version %d closed %d times", v.version, v.closes.Load())
		}
	}
}

func TestCloseBoundedByContext(t *testing.T) {
	r := New[*fake](Options{Logger: slog.New(slog.DiscardHandler)})
	entered, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	stuck := newFake("a", 1, tool("x", ""))
	stuck.duringCall = func() { close(entered); <-release }
	mustUpdate(t, r, []*fake{stuck})
	go call(r, "x")
	<-entered
	// Replaced while its call runs: closed in the background, which waits.
	mustUpdate(t, r, []*fake{newFake("a", 2, tool("x", ""))})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.Close(ctx); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("Close: %v", err)
	}
	if stuck.closes.Load() != 1 {
		t.Fatal("the replaced plugin was not closed")
	}
}
