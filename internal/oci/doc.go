// Package oci stores WebAssembly modules in OCI registries and fetches them
// back, in the CNCF layout for Wasm artifacts: an OCI image manifest whose
// config has the media type application/vnd.wasm.config.v0+json and whose
// one layer, of media type application/wasm, is the module.
//
// Registry HTTP, authentication, the referrers API and its tag-schema
// fallback are oras-go's (oras.land/oras-go/v2); this package chooses what
// is accepted: the media types, the size of every document read, the
// deadline of every operation, and that a layer starts as a WebAssembly
// binary does. Every blob read is verified against its digest. A registry
// may send the client only to globally reachable addresses besides its own
// (guard.go).
//
// A Cache keeps pulled modules on disk by digest, so that a server starts
// from the copy it has when the registry cannot be reached. The host knows
// nothing of registries: it loads the cached files (host.LoadFile), and data
// flows one way, registry → cache → host.
package oci
