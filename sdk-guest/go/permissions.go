package wasmcp

import (
	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/sdk-guest/go/internal/guest"
)

// Permissions is what a module asks the operator for beyond the closed
// sandbox (ABI.md section 4): directories, environment variables, the real
// clock, real randomness, network origins.
type Permissions = abi.Permissions

// FSPermission asks for one directory, at an absolute guest path.
type FSPermission = abi.FSPermission

// RequestPermissions adds p to the module's request, in init: lists are
// appended, flags set. The host grants the intersection of the request and
// its operator's policy, never more; what is not granted fails at run time
// (a file does not open, a request is denied). For example, a tool that
// fetches from one API:
//
//	func init() {
//		wasmcp.RequestPermissions(wasmcp.Permissions{Net: []string{"https://api.github.com"}})
//	}
//
// Net takes origins ("https://api.example.com", "https://*.example.com",
// "http://127.0.0.1:8080") or "*" for whatever the policy allows.
func RequestPermissions(p Permissions) { guest.RequestPermissions(p) }
