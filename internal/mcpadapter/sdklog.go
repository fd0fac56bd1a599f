package mcpadapter

import (
	"context"
	"log/slog"
)

// sdkHandler passes the MCP SDK's log lines on with its informational ones
// (a session connected, disconnected, ...) demoted to debug: a stdio server
// has one session for its whole life, and the server logs its own start and
// stop. Warnings and errors keep their level.
type sdkHandler struct{ inner slog.Handler }

func demote(l slog.Level) slog.Level {
	if l < slog.LevelWarn {
		return slog.LevelDebug
	}
	return l
}

func (h sdkHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, demote(l))
}

func (h sdkHandler) Handle(ctx context.Context, r slog.Record) error {
	r.Level = demote(r.Level)
	return h.inner.Handle(ctx, r)
}

func (h sdkHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return sdkHandler{h.inner.WithAttrs(as)}
}

func (h sdkHandler) WithGroup(name string) slog.Handler {
	return sdkHandler{h.inner.WithGroup(name)}
}
