//go:build !linux

package turns

// lower does nothing where a thread's priority is not its own.
func lower(int) {}
