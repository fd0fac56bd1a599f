package guest

import "github.com/wasmcp/wasmcp/abi"

// permissions is the module's permissions request, nil for none.
var permissions *abi.Permissions

// RequestPermissions adds p to the module's permissions request: lists are
// appended, flags set. Packages that need a capability may each ask for
// theirs.
func RequestPermissions(p abi.Permissions) {
	if permissions == nil {
		permissions = &abi.Permissions{}
	}
	permissions.FS = append(permissions.FS, p.FS...)
	permissions.Env = append(permissions.Env, p.Env...)
	permissions.Net = append(permissions.Net, p.Net...)
	permissions.Clock = permissions.Clock || p.Clock
	permissions.Random = permissions.Random || p.Random
	describe = nil
}
