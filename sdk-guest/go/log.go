package wasmcp

import (
	"fmt"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/go/internal/guest"
)

// Level is the severity of a log line, MCP's (syslog's) levels.
type Level = abi.LogLevel

// Log levels, from least to most severe.
const (
	LevelDebug     = abi.LogDebug
	LevelInfo      = abi.LogInfo
	LevelNotice    = abi.LogNotice
	LevelWarning   = abi.LogWarning
	LevelError     = abi.LogError
	LevelCritical  = abi.LogCritical
	LevelAlert     = abi.LogAlert
	LevelEmergency = abi.LogEmergency
)

// Log sends one line to the host's log at level. In a module the host
// records it with the plugin's name and may forward it to the client; run
// natively (go test), it goes to standard error. Lines over 64 KiB are
// truncated. A guest's own standard output and error are discarded by the
// host, so this is how a tool reports diagnostics.
func Log(level Level, msg string) { guest.Log(level, msg) }

// Logf is Log with fmt.Sprintf formatting.
func Logf(level Level, format string, args ...any) {
	guest.Log(level, fmt.Sprintf(format, args...))
}

// Debug logs msg at LevelDebug.
func Debug(msg string) { guest.Log(LevelDebug, msg) }

// Info logs msg at LevelInfo.
func Info(msg string) { guest.Log(LevelInfo, msg) }

// Warn logs msg at LevelWarning.
func Warn(msg string) { guest.Log(LevelWarning, msg) }
