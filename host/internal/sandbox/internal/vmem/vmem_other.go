//go:build !(linux || darwin)

package vmem

const pageSize = commitStep

// reserve cannot reserve address space on this platform: regions move as
// they grow, and what they leave behind is the garbage collector's.
func reserve(uint64) []byte { return nil }

func commit([]byte) bool { return false }

func unreserve([]byte) {}
