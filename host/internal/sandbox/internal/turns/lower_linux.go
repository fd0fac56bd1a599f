package turns

import (
	"runtime"
	"syscall"
)

// lower locks the goroutine to its thread and lowers the thread's
// priority to nice. Linux keeps a niceness per thread.
func lower(nice int) {
	runtime.LockOSThread()
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), nice)
}
