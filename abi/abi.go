// Package abi is the contract between the wasmcp host and a guest module:
// the names of exports and imports, the calling convention, the limits and
// the JSON shapes that cross the boundary. ABI.md in this directory is the
// normative description; this package holds the same facts as Go values so
// that the host and the Go guest SDK never spell a name or a layout twice.
//
// The package depends only on the standard library because it is compiled
// into every Go guest, where each imported package costs module size.
package abi

// Version is the ABI version this package describes. A guest reports the
// version it was built for from ExportVersion; the host refuses any other.
const Version = 1

// Exports a v1 guest provides. All are required except ExportInitialize.
const (
	// ExportMemory is the guest's linear memory, through which every
	// pointer and length below is resolved.
	ExportMemory = "memory"
	// ExportInitialize is the WASI reactor initialiser. When present it runs
	// once, before any other export is called.
	ExportInitialize = "_initialize"
	// ExportVersion: () -> i32. Returns the ABI version the guest speaks.
	ExportVersion = "wasmcp_abi_version"
	// ExportAlloc: (size i32) -> i32. Returns a pointer to size writable bytes
	// that the host fills before passing them back in a call. Returns 0 when
	// the guest cannot allocate.
	ExportAlloc = "wasmcp_alloc"
	// ExportDescribe: () -> i64. Returns a packed pointer and length (see Pack)
	// of a UTF-8 JSON Describe document.
	ExportDescribe = "wasmcp_describe"
	// ExportCall: (name_ptr, name_len, args_ptr, args_len i32) -> i64. Runs one
	// tool and returns a packed pointer and length of a UTF-8 JSON Result.
	ExportCall = "wasmcp_call"
)

// Exports of a module that offers resources or prompts (ABI.md section 4,
// "Resources and prompts"), an addition to version 1.
const (
	// ExportRead: (uri_ptr, uri_len i32) -> i64. Reads one resource and
	// returns a packed pointer and length of a UTF-8 JSON ReadResult.
	// Required when the Describe document lists resources or templates.
	ExportRead = "wasmcp_read"
	// ExportPrompt: (name_ptr, name_len, args_ptr, args_len i32) -> i64.
	// Gets one prompt and returns a packed PromptResult. Required when the
	// Describe document lists prompts.
	ExportPrompt = "wasmcp_prompt"
	// ExportComplete: (req_ptr, req_len i32) -> i64. Completes one argument
	// of a CompleteRequest and returns a packed CompleteResult. Optional.
	ExportComplete = "wasmcp_complete"
)

// ImportModule is the only module name under which the host offers functions
// to guests. Every other import a guest declares must be WASI preview 1.
const ImportModule = "wasmcp"

// Host functions in ImportModule.
const (
	// ImportLog: (level i32, msg_ptr i32, msg_len i32) -> (). Emits one log
	// line at a LogLevel. The host copies the message before returning.
	ImportLog = "log"
)

// Host functions for the client features of MCP (ABI.md section 5). They
// were reserved when version 1 was first published and are additions to it:
// a host older than them refuses a module importing one, naming it.
const (
	// ImportProgress: (progress f64, total f64, msg_ptr i32, msg_len i32) -> ().
	// Reports progress of the current call; total < 0 means unknown.
	ImportProgress = "progress"
	// ImportCancelled: () -> i32. 1 when the current call was cancelled.
	ImportCancelled = "cancelled"
	// ImportSample: (req_ptr i32, req_len i32) -> i64. Sends
	// sampling/createMessage with the request as params and returns
	// PackReply(status, reply_len).
	ImportSample = "sample"
	// ImportElicit: (req_ptr i32, req_len i32) -> i64. Sends
	// elicitation/create; returns like ImportSample.
	ImportElicit = "elicit"
	// ImportReadReply: (dst_ptr i32, dst_len i32) -> i32. Copies the reply of
	// the last ImportSample, ImportElicit or ImportHTTPRequest into guest
	// memory and returns the number of bytes copied.
	ImportReadReply = "read_reply"
)

// ImportHTTPRequest: (req_ptr i32, req_len i32) -> i64. Makes one HTTP
// request, an HTTPRequest (EncodeHTTPRequest), within the operator's net
// policy for the plugin (ABI.md section 5), and returns PackReply(status,
// reply_len): with StatusOK the reply is an HTTPResponse
// (DecodeHTTPResponse), otherwise a message.
// It is an addition to version 1, like the client features: a host older
// than it refuses a module importing it, naming it.
const ImportHTTPRequest = "http_request"

// ReplyStatus is the high half of what ImportSample, ImportElicit and
// ImportHTTPRequest return. With StatusOK the reply is the client's result
// JSON (an HTTPResponse for ImportHTTPRequest); with any other status it is
// a UTF-8 message saying what went wrong, fit for a tool error. A guest
// treats a status this version does not define like StatusFailed.
type ReplyStatus uint32

const (
	// StatusOK: the client answered; the reply is its result object (an MCP
	// CreateMessageResult or ElicitResult). A user who declined or cancelled
	// an elicitation is still StatusOK, with that action in the result. For
	// ImportHTTPRequest: a server answered, whatever its HTTP status; the
	// reply is an HTTPResponse.
	StatusOK ReplyStatus = 0
	// StatusUnsupported: the client did not declare the capability (sampling
	// or elicitation), or the host serves this call without a client (the
	// wasmcp call command).
	StatusUnsupported ReplyStatus = 1
	// StatusFailed: the client answered with an error, for example because
	// its user refused the sampling request, or the request could not be
	// delivered, or the reply exceeded the host's output limit. For
	// ImportHTTPRequest: DNS, connection or TLS failed, the response body
	// was over the policy's maxResponse, or there were too many redirects.
	StatusFailed ReplyStatus = 2
	// StatusInvalid: the host did not send the request because it is not a
	// JSON object (for ImportHTTPRequest: not an HTTPRequest with an http or
	// https URL and a valid method and headers).
	StatusInvalid ReplyStatus = 3
	// StatusTimeout: the call used up the time it may spend waiting for the
	// client (its client timeout) before the answer came. For
	// ImportHTTPRequest: the call's deadline passed, or the call was
	// cancelled, before the response was complete; the request is aborted.
	StatusTimeout ReplyStatus = 4
	// StatusDenied: the operator's net policy for the plugin refused the
	// request's origin, or an address its host resolved to; nothing was sent
	// to that server. The message names the rule.
	StatusDenied ReplyStatus = 5
)

var replyStatusNames = [...]string{"ok", "unsupported", "failed", "invalid", "timeout", "denied"}

// String returns the lower-case name of the status, or "status N" for a
// value this version does not define.
func (s ReplyStatus) String() string {
	if int(s) < len(replyStatusNames) {
		return replyStatusNames[s]
	}
	return "status " + itoa(uint32(s))
}

// itoa formats n without strconv, which a guest would otherwise link in.
func itoa(n uint32) string {
	var b [10]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// PackReply combines a status and a reply length into the i64 that
// ImportSample and ImportElicit return: (status << 32) | reply_len.
func PackReply(status ReplyStatus, length uint32) uint64 { return uint64(status)<<32 | uint64(length) }

// UnpackReply splits a value made by PackReply.
func UnpackReply(v uint64) (status ReplyStatus, length uint32) {
	return ReplyStatus(v >> 32), uint32(v)
}

// LogLevel is the level argument of ImportLog. The values follow the syslog
// severities that MCP's logging uses, from least to most severe.
type LogLevel uint32

const (
	LogDebug LogLevel = iota
	LogInfo
	LogNotice
	LogWarning
	LogError
	LogCritical
	LogAlert
	LogEmergency
)

var logLevelNames = [...]string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// String returns the MCP name of the level, or "emergency" for any value
// above LogEmergency so that a guest cannot invent a level below debug.
func (l LogLevel) String() string {
	if int(l) >= len(logLevelNames) {
		return logLevelNames[LogEmergency]
	}
	return logLevelNames[l]
}

// Limits every v1 host enforces whatever it is configured with. Hosts may
// enforce lower limits on arguments and results (see ABI.md).
const (
	// MaxToolNameLen is the longest tool name, in bytes.
	MaxToolNameLen = 128
	// MaxTools is the largest number of tools one module may define.
	MaxTools = 1024
	// MaxResources, MaxResourceTemplates and MaxPrompts are the most of
	// each one module may define.
	MaxResources         = 1024
	MaxResourceTemplates = 256
	MaxPrompts           = 1024
	// MaxURILen is the longest resource URI or URI template, in bytes.
	MaxURILen = 2048
	// MaxPromptArguments is the most arguments one prompt may have.
	MaxPromptArguments = 64
	// MaxCompletionValues is the most values a completion sends.
	MaxCompletionValues = 100
	// MaxDescribeSize is the largest Describe document, in bytes.
	MaxDescribeSize = 4 << 20
	// MaxLogSize is the longest log or progress message; longer ones are
	// truncated.
	MaxLogSize = 64 << 10
	// MaxHTTPRequestSize is the largest document ImportHTTPRequest takes,
	// body included; a larger one is StatusInvalid.
	MaxHTTPRequestSize = 8 << 20
	// MaxHTTPHeadSize is the largest head of such a document, the JSON
	// before the body: the host makes several objects of every header,
	// and a head of tiny headers filling the document would cost it fifty
	// times its size.
	MaxHTTPHeadSize = 256 << 10
)

// Pack combines a guest pointer and a length into the i64 that
// ExportDescribe and ExportCall return: the pointer in the high 32 bits,
// the length in the low 32 bits.
func Pack(ptr, length uint32) uint64 { return uint64(ptr)<<32 | uint64(length) }

// Unpack splits a value made by Pack.
func Unpack(v uint64) (ptr, length uint32) { return uint32(v >> 32), uint32(v) }

// Tool names the server keeps for its own tools of progressive discovery:
// no module serves a tool of either name.
const (
	SearchToolName = "wasmcp_search_tools"
	CallToolName   = "wasmcp_call_tool"
)

// Reserved reports whether name is one of the server's own tool names.
func Reserved(name string) bool { return name == SearchToolName || name == CallToolName }

// ValidToolName reports whether name is 1 to MaxToolNameLen characters of
// [A-Za-z0-9_.-], the set MCP recommends and wasmcp requires.
func ValidToolName(name string) bool {
	if len(name) == 0 || len(name) > MaxToolNameLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '.', c == '-':
		default:
			return false
		}
	}
	return true
}
