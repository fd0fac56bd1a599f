package mcpadapter

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestSDKLogLinesDemoted(t *testing.T) {
	var buf bytes.Buffer
	inner := slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})
	l := slog.New(sdkHandler{inner}).With("component", "mcp")
	l.Info("server session connected")
	l.Warn("calling notifications/message: broken pipe")
	out := buf.String()
	if strings.Contains(out, "session connected") {
		t.Errorf("an SDK info line passed an info-level logger:\n%s", out)
	}
	if !strings.Contains(out, "level=WARN") || !strings.Contains(out, "component=mcp") {
		t.Errorf("an SDK warning was lost or lost its attributes:\n%s", out)
	}

	buf.Reset()
	debug := slog.New(sdkHandler{slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})})
	debug.Info("server session connected")
	if !strings.Contains(buf.String(), "level=DEBUG") {
		t.Errorf("an SDK info line is not shown as debug at debug level:\n%s", buf.String())
	}
}
