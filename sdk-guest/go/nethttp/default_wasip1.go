//go:build wasip1

package nethttp

import "net/http"

// In a module there is no other way out: the default transport's dialer
// fails on WASI preview 1, which has no sockets.
func init() { http.DefaultTransport = Transport{} }
