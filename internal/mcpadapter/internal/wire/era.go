package wire

// The protocol versions whose behaviour differs. Versions are dates,
// YYYY-MM-DD, so they order as strings; every comparison goes through the
// functions below.
const (
	// batchlessProtocol is the first version without JSON-RPC batches.
	batchlessProtocol = "2025-06-18"
	// ModernProtocol is the first version without the initialize
	// handshake: requests carry their version in the Mcp-Protocol-Version
	// header, and go-sdk serves them only on a stateless handler. Nor may a
	// server send requests to the client in the middle of a call: it
	// returns input requests instead (SEP-2322), which the adapter turns
	// the guest's sampling and elicitation into.
	ModernProtocol = "2026-07-28"
)

// Modern reports whether version is the 2026-07-28 protocol or later.
func Modern(version string) bool { return version >= ModernProtocol }

// batchless reports whether version has no JSON-RPC batches; "" (no
// handshake yet) has them.
func batchless(version string) bool { return version >= batchlessProtocol }
