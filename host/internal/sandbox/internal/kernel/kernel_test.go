package kernel

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// testLimit is the limit of the memories of these tests.
const testLimit = 1 << 20

// alloc allocates n bytes within testLimit, failing t if it cannot.
func alloc(t testing.TB, m *Memory, n uint64) uint64 {
	t.Helper()
	off, _, err := m.Alloc(n, testLimit)
	if err != nil {
		t.Fatalf("alloc(%d): %v", n, err)
	}
	return off
}

// allocBytes allocates a block holding a copy of p.
func allocBytes(t testing.TB, m *Memory, p []byte) uint64 {
	t.Helper()
	off := alloc(t, m, uint64(len(p)))
	r, err := m.Region(off, uint64(len(p)))
	if err != nil {
		t.Fatal(err)
	}
	copy(r, p)
	return off
}

func TestAllocLoadStore(t *testing.T) {
	m := New(testLimit)
	t.Cleanup(m.Release)
	if alloc(t, m, 0) != 0 {
		t.Fatal("alloc(0) must return 0")
	}
	a := alloc(t, m, 10)
	b := alloc(t, m, 3)
	if a == 0 || b <= a || m.Length(a) != 10 || m.Length(b) != 3 || m.Length(a+1) != 0 {
		t.Fatalf("a=%d b=%d lengths %d %d", a, b, m.Length(a), m.Length(b))
	}
	if err := m.Store(a+2, 8, 0x0102030405060708); err != nil {
		t.Fatal(err)
	}
	if v, err := m.Load(a+2, 8); err != nil || v != 0x0102030405060708 {
		t.Fatalf("load = %x, %v", v, err)
	}
	// The last eight bytes of a fit; one more crosses into the gap.
	for _, tc := range []struct {
		name string
		p    uint64
	}{{"zero", 0}, {"across a", a + 3}, {"after b", b + 3}, {"beyond b", b + 100}, {"far", 1 << 62}} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := m.Load(tc.p, 8); !errors.Is(err, ErrBounds) {
				t.Errorf("load_u64(%d): err = %v, want ErrBounds", tc.p, err)
			}
		})
	}
	if _, err := m.Load(b+2, 1); err != nil {
		t.Errorf("last byte of b: %v", err)
	}
	if m.Bytes() != Cost(10)+Cost(3) {
		t.Errorf("bytes = %d", m.Bytes())
	}
	m.Free(a)
	if m.Length(a) != 0 || m.Bytes() != Cost(3) {
		t.Errorf("after free: length %d bytes %d", m.Length(a), m.Bytes())
	}
	if _, err := m.Load(a, 1); !errors.Is(err, ErrBounds) {
		t.Errorf("load of a freed block: %v", err)
	}
	m.Free(a) // twice: nothing
	m.Free(12345)
	m.Reset()
	if m.Bytes() != 0 || m.Length(b) != 0 {
		t.Error("reset kept blocks")
	}
}

func TestInputOutputError(t *testing.T) {
	m := New(testLimit)
	t.Cleanup(m.Release)
	in := allocBytes(t, m, []byte("hello"))
	if err := m.SetInput(in, 5); err != nil {
		t.Fatal(err)
	}
	if v, err := m.LoadInput(4, 1); err != nil || v != 'o' {
		t.Fatalf("input[4] = %c, %v", rune(v), err)
	}
	if _, err := m.LoadInput(0, 8); !errors.Is(err, ErrBounds) {
		t.Fatalf("8 bytes of a 5-byte input: %v", err)
	}
	out := allocBytes(t, m, []byte("result"))
	if err := m.SetOutput(out, 7); !errors.Is(err, ErrBounds) {
		t.Fatalf("output past its block: %v", err)
	}
	if err := m.SetOutput(out, 6); err != nil {
		t.Fatal(err)
	}
	before := m.Bytes()
	m.Free(out)
	if got, ok := m.Output(); !ok || string(got) != "result" {
		t.Fatalf("output after free = %q, %v", got, ok)
	}
	// The freed output's bytes are still held, and count, until the
	// output moves.
	if m.Bytes() != before {
		t.Fatalf("freeing the output's block: bytes %d, want %d", m.Bytes(), before)
	}
	if err := m.SetOutput(0, 0); err != nil || m.Bytes() != before-Cost(6) {
		t.Fatalf("moving the output: bytes %d, want %d (%v)", m.Bytes(), before-Cost(6), err)
	}
	e := allocBytes(t, m, []byte("boom"))
	if err := m.SetError(e); err != nil {
		t.Fatal(err)
	}
	if msg, ok := m.Error(); !ok || msg != "boom" || m.ErrorOffset() != e {
		t.Fatalf("error = %q, %v", msg, ok)
	}
	if err := m.SetError(e + 1); !errors.Is(err, ErrBounds) {
		t.Fatalf("error at a non-handle: %v", err)
	}
	m.Free(in)
	if off, n := m.Input(); off != 0 || n != 0 {
		t.Fatal("freeing the input must clear it")
	}
}

func TestCompactKeepsLookups(t *testing.T) {
	m := New(testLimit)
	t.Cleanup(m.Release)
	var offs []uint64
	for range 100 {
		offs = append(offs, alloc(t, m, 16))
	}
	for i, p := range offs {
		if i%3 != 0 {
			m.Free(p)
		}
	}
	for i, p := range offs {
		want := uint64(0)
		if i%3 == 0 {
			want = 16
		}
		if got := m.Length(p); got != want {
			t.Fatalf("length(block %d) = %d, want %d", i, got, want)
		}
	}
}

// Any sequence of operations with any offsets keeps the accounting exact,
// every live block's bytes what was stored in them, and what the memory
// holds within the room it was given; it never panics: the guest chooses
// every argument.
func FuzzMemory(f *testing.F) {
	f.Add([]byte{0, 10, 1, 3, 2, 0, 3, 9, 4, 1, 5, 2})
	f.Add([]byte{0, 200, 0, 200, 0, 200, 1, 0, 0, 255, 6, 4, 1, 2, 0, 255, 0, 255, 8, 9})
	f.Fuzz(func(t *testing.T, ops []byte) {
		// A small room, so that allocations need the gaps freed blocks
		// leave.
		const room = 4096
		m := New(room)
		defer m.Release()
		var live []uint64
		want := map[uint64][]byte{} // the bytes of each live block
		arg := func(i int) uint64 {
			if i < len(ops) {
				if len(live) > 0 && ops[i]&1 == 0 {
					return live[int(ops[i]/2)%len(live)] + uint64(ops[i]%5)
				}
				return uint64(ops[i]) * 7
			}
			return 0
		}
		for i := 0; i+1 < len(ops); i += 2 {
			switch ops[i] % 9 {
			case 0:
				n := uint64(ops[i+1]) * 3
				off, _, err := m.Alloc(n, room)
				if fits := m.Bytes()+Cost(n) <= room; err != nil && fits {
					t.Fatalf("alloc(%d) with %d bytes in use: %v", n, m.Bytes(), err)
				}
				if off != 0 {
					live = append(live, off)
					want[off] = make([]byte, n)
				}
			case 1:
				p := arg(i + 1)
				m.Free(p)
				delete(want, p)
			case 2:
				_, _ = m.Load(arg(i+1), 8)
			case 3:
				p, v := arg(i+1), ops[i+1]
				if m.Store(p, 1, uint64(v)) == nil {
					for start, b := range want {
						if p >= start && p < start+uint64(len(b)) {
							b[p-start] = v
						}
					}
				}
			case 4:
				_ = m.SetOutput(arg(i+1), uint64(ops[i+1]%9))
			case 5:
				_ = m.SetError(arg(i + 1))
				_, _ = m.Error()
			case 6:
				_ = m.SetInput(arg(i+1), uint64(ops[i+1]%3))
				_, _ = m.LoadInput(uint64(ops[i+1]%4), 1)
			case 7:
				m.Reset()
				live = live[:0]
				clear(want)
			case 8:
				m.Trim(uint64(ops[i+1]) * 16)
			}
			for start, b := range want {
				if got, ok := m.Block(start); !ok || !bytes.Equal(got, b) {
					t.Fatalf("block %d holds %v, want %v", start, got, b)
				}
			}
			if got := m.top + uint64(len(m.blocks))*entrySize; got > room {
				t.Fatalf("the blocks take %d bytes, over the room of %d", got, room)
			}
		}
		counted := m.held
		for _, e := range m.blocks {
			if !e.freed {
				counted += Cost(e.len)
			}
		}
		if m.Bytes() != counted {
			t.Fatalf("Bytes() = %d, the live blocks take %d", m.Bytes(), counted)
		}
	})
}

// Offsets and lengths at the edges of uint64, which the guest chooses, are
// errors of ErrBounds, never a panic or a wrapped-around read.
func TestExtremeArguments(t *testing.T) {
	m := New(testLimit)
	t.Cleanup(m.Release)
	a := alloc(t, m, 13)
	if err := m.SetInput(a, 13); err != nil {
		t.Fatal(err)
	}
	const top = ^uint64(0)
	edges := []uint64{0, 1, 7, 8, a + 12, a + 13, 1 << 63, top - 7, top - 1, top}
	for _, p := range edges {
		for _, n := range edges {
			if _, err := m.Region(p, n); err == nil && (p < a || p+n > a+13 || p+n < p) {
				t.Errorf("region(%d, %d) outside the block succeeded", p, n)
			}
			if _, err := m.LoadInput(p, n); err == nil && (p+n > 13 || p+n < p) {
				t.Errorf("input_load(%d, %d) outside the input succeeded", p, n)
			}
			if err := m.SetInput(p, n); err == nil && (p != a || n > 13) {
				t.Errorf("input_set(%d, %d) succeeded", p, n)
			}
			_ = m.SetOutput(p, n)
		}
		if l := m.Length(p); l != 0 && p != a {
			t.Errorf("length(%d) = %d", p, l)
		}
		if p+1 != a {
			m.Free(p + 1) // not the start of a block: nothing
		}
	}
	if _, err := m.Load(top, 8); err == nil || !strings.Contains(err.Error(), "[18446744073709551615, 18446744073709551615+8)") {
		t.Errorf("load_u64(2^64-1): %v, want the range unwrapped", err)
	}
	if m.Length(a) != 13 || m.Bytes() != Cost(13) {
		t.Errorf("the block changed: length %d, bytes %d", m.Length(a), m.Bytes())
	}
}

// A call that used more than keepBytes gives the memory back to the
// system when it ends; a small one keeps its pages for the next call,
// whose blocks are zeroed all the same.
func TestResetReleases(t *testing.T) {
	m := New(testLimit)
	t.Cleanup(m.Release)
	for range 4 * keepBytes / entrySize {
		alloc(t, m, 1)
	}
	m.Reset()
	if m.buf != nil || m.blocks != nil {
		t.Error("Reset kept the memory of a call that used more than keepBytes")
	}
	allocBytes(t, m, []byte("dirty"))
	m.Reset()
	if m.buf == nil {
		t.Error("Reset gave up the memory of a small call")
	}
	a := alloc(t, m, 5)
	if b, _ := m.Block(a); !bytes.Equal(b, make([]byte, 5)) {
		t.Errorf("a block of the next call holds %q", b)
	}
}

// An allocation that does not fit after the blocks closes the gaps freed
// blocks left, moving the others, whose bytes, input and output stay
// theirs; the bytes it reuses read as zero.
func TestCompactMovesBlocks(t *testing.T) {
	const room = 64 << 10
	m := New(room)
	t.Cleanup(m.Release)
	allocIn := func(n uint64) (uint64, uint64) {
		t.Helper()
		if m.Bytes()+Cost(n) > room {
			t.Fatalf("alloc(%d) is over the room", n)
		}
		off, moved, err := m.Alloc(n, room)
		if err != nil {
			t.Fatalf("alloc(%d): %v", n, err)
		}
		r, _ := m.Region(off, n)
		if !bytes.Equal(r, make([]byte, n)) {
			t.Fatalf("alloc(%d) is not zeroed", n)
		}
		return off, moved
	}
	a, _ := allocIn(20 << 10)
	in, _ := allocIn(10 << 10)
	b, _ := allocIn(20 << 10)
	for _, p := range []uint64{a, in, b} {
		r, _ := m.Region(p, m.Length(p))
		for i := range r {
			r[i] = byte(p + uint64(i))
		}
	}
	if err := m.SetInput(in, 10<<10); err != nil {
		t.Fatal(err)
	}
	if err := m.SetOutput(b+5, 100); err != nil {
		t.Fatal(err)
	}
	m.Free(a)
	m.Free(b) // the output keeps its bytes
	c, moved := allocIn(25 << 10)
	if moved != (10<<10)+(20<<10) {
		t.Errorf("moved %d bytes, want the input's and the output's", moved)
	}
	if v, err := m.LoadInput(7, 1); err != nil || v != uint64(byte(in+7)) {
		t.Errorf("input[7] = %d, %v after the move", v, err)
	}
	if out, _ := m.Output(); len(out) != 100 || out[0] != byte(b+5) || out[99] != byte(b+104) {
		t.Errorf("output moved wrong: %v", out[:min(len(out), 4)])
	}
	if m.Length(c) != 25<<10 {
		t.Error("the new block is not there")
	}
}

// Trim gives back to the system the pages of freed blocks, when the
// memory holds more than the room left to it.
func TestTrim(t *testing.T) {
	m := New(testLimit)
	t.Cleanup(m.Release)
	a := alloc(t, m, 512<<10)
	b := allocBytes(t, m, []byte("kept"))
	m.Free(a)
	m.Trim(testLimit) // within the room: nothing to do
	if m.dirty < 512<<10 {
		t.Fatal("Trim within the room released pages")
	}
	m.Trim(64 << 10)
	if m.dirty > 64<<10 {
		t.Skipf("this platform cannot release pages: %d bytes held", m.dirty)
	}
	if got, _ := m.Block(b); string(got) != "kept" {
		t.Errorf("the live block holds %q after Trim", got)
	}
}
