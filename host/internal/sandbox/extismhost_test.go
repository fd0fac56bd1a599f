package sandbox

import (
	"encoding/binary"
	"testing"
)

// Many tiny variables are bounded by what the host holds for them, not
// only by their bytes; deleting one gives its share back.
func TestVarStoreCountsEntries(t *testing.T) {
	var v varStore
	n := 0
	for ; ; n++ {
		key := binary.LittleEndian.AppendUint32(nil, uint32(n))
		if err := v.set(string(key), []byte{1}); err != nil {
			break
		}
	}
	if max := MaxVarBytes / varOverhead; n > max {
		t.Fatalf("%d one-byte variables kept, want at most %d", n, max)
	}
	if err := v.set("\x00\x00\x00\x00", nil); err != nil {
		t.Fatal(err)
	}
	if err := v.set("fits", []byte{1}); err != nil {
		t.Errorf("after a deletion: %v", err)
	}
	if err := v.set("fits2", []byte{1}); err == nil {
		t.Errorf("the store took more after a deletion than it gave back")
	}
}
