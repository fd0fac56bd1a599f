package trust_test

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log"

	"github.com/wasmcp/wasmcp/host/trust"
)

// An operator pins a module and signs it; the host then verifies the exact
// bytes it is about to compile, and refuses a module that changed.
func Example() {
	wasm := []byte("\x00asm\x01\x00\x00\x00")

	// The operator's side (a real key comes from ed25519.GenerateKey and is
	// kept in a file written by trust.MarshalPrivateKey).
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, ed25519.SeedSize))
	lockFile := trust.LockLine("plugins/hello.wasm", wasm)
	keysFile := trust.KeyLine(priv.Public().(ed25519.PublicKey), "release")
	sigFile := trust.Sign(priv, wasm) // plugins/hello.wasm.sig
	fmt.Print(lockFile, keysFile, string(sigFile))

	// The host's side.
	lock, err := trust.ParseLock([]byte(lockFile))
	if err != nil {
		log.Fatal(err)
	}
	keys, err := trust.ParseKeys([]byte(keysFile))
	if err != nil {
		log.Fatal(err)
	}
	policy := trust.Verifier{Lock: lock, Keys: keys}
	fmt.Println("verified:", policy.Verify("plugins/hello.wasm", wasm, sigFile))

	changed := append(bytes.Clone(wasm), 0)
	err = policy.Verify("plugins/hello.wasm", changed, sigFile)
	fmt.Println("not pinned:", errors.Is(err, trust.ErrNotPinned))
	fmt.Println(err)
	// Output:
	// 93a44bbb96c751218e4c00d479e4c14358122a389acca16205b1e4d0dc5f9476  hello.wasm
	// iojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w=  release
	// by1vv9GP3+2/srglEkFtuC7IdqFKf2y4knU1PwJlci7uBka6ux8QV3kgL4FP9kO5an/WOeuCewfUaMJS14WQBw==
	// verified: <nil>
	// not pinned: true
	// module plugins/hello.wasm (sha256:45f950384546b8be4cd137f51fe12949f9a0657f72381e24fb48b00aeede5d2b) refused: not pinned in the lock file, which pins hello.wasm to sha256:93a44bbb96c751218e4c00d479e4c14358122a389acca16205b1e4d0dc5f9476
}
