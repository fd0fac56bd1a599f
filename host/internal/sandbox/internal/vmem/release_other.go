//go:build !linux

package vmem

// release cannot drop pages on this platform with the standard library's
// calls: they stay until the region is freed.
func release([]byte) bool { return false }
