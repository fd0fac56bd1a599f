package kernel

import (
	"errors"
	"strings"
	"testing"
)

func TestAllocLoadStore(t *testing.T) {
	m := New()
	if m.Alloc(0) != 0 {
		t.Fatal("alloc(0) must return 0")
	}
	a := m.Alloc(10)
	b := m.Alloc(3)
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
	for _, p := range []uint64{0, a + 3, b + 3, b + 100, 1 << 62} {
		if _, err := m.Load(p, 8); !errors.Is(err, ErrBounds) {
			t.Errorf("load_u64(%d): err = %v, want ErrBounds", p, err)
		}
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
	m := New()
	in := m.AllocBytes([]byte("hello"))
	if err := m.SetInput(in, 5); err != nil {
		t.Fatal(err)
	}
	if v, err := m.LoadInput(4, 1); err != nil || v != 'o' {
		t.Fatalf("input[4] = %c, %v", rune(v), err)
	}
	if _, err := m.LoadInput(0, 8); !errors.Is(err, ErrBounds) {
		t.Fatalf("8 bytes of a 5-byte input: %v", err)
	}
	out := m.AllocBytes([]byte("result"))
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
	e := m.AllocBytes([]byte("boom"))
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
	m := New()
	var offs []uint64
	for range 100 {
		offs = append(offs, m.Alloc(16))
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

// Any sequence of operations with any offsets keeps the accounting exact
// and never panics: the guest chooses every argument.
func FuzzMemory(f *testing.F) {
	f.Add([]byte{0, 10, 1, 3, 2, 0, 3, 9, 4, 1, 5, 2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		m := New()
		var live []uint64
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
			switch ops[i] % 8 {
			case 0:
				if off := m.Alloc(uint64(ops[i+1])); off != 0 {
					live = append(live, off)
				}
			case 1:
				m.Free(arg(i + 1))
			case 2:
				_, _ = m.Load(arg(i+1), 8)
			case 3:
				_ = m.Store(arg(i+1), 1, 0xff)
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
			}
		}
		want := m.held
		for _, b := range m.blocks {
			if !b.freed {
				want += Cost(uint64(len(b.data)))
			}
		}
		if m.Bytes() != want {
			t.Fatalf("Bytes() = %d, the live blocks take %d", m.Bytes(), want)
		}
	})
}

// Offsets and lengths at the edges of uint64, which the guest chooses, are
// errors of ErrBounds, never a panic or a wrapped-around read.
func TestExtremeArguments(t *testing.T) {
	m := New()
	a := m.Alloc(13)
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

// Reset gives up the index of a call that allocated many blocks: the
// instance is pooled, and the next call may allocate none.
func TestResetDropsLargeIndex(t *testing.T) {
	m := New()
	for range 4 * keepBlocks {
		m.Alloc(1)
	}
	m.Reset()
	if c := cap(m.blocks); c > keepBlocks {
		t.Errorf("the index keeps room for %d blocks after Reset", c)
	}
	if a := m.Alloc(1); m.Length(a) != 1 {
		t.Error("no allocation after Reset")
	}
}
