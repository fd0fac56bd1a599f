package mcpadapter

import (
	"encoding/json"
	"testing"
)

// wireLen counts what json.Marshal writes, which go-sdk sends a result's
// text with.
func FuzzWireLen(f *testing.F) {
	for _, s := range []string{"", "plain", "<&>", "\x00\x01\x1f\b\f\n\r\t\"\\", "\xff\xfe", "\u2028\u2029", "é€𐀀", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := wireLen(s); got != len(b) {
			t.Fatalf("wireLen(%q) = %d, json.Marshal writes %d bytes: %s", s, got, len(b), b)
		}
	})
}
