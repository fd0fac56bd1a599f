// Package oci stores WebAssembly modules in OCI registries and fetches them
// back.
//
// It pushes the CNCF layout for Wasm artifacts: an OCI image manifest whose
// config has the media type application/vnd.wasm.config.v0+json and whose
// one layer, of media type application/wasm, is the module. It pulls that
// layout and container images as peers publish plugins (image.go): an OCI
// or Docker image manifest whose tar or tar+gzip layers hold the module as
// the file /plugin.wasm (hyper-mcp's name), or else as the one .wasm file
// they hold; an image index by its wasip1/wasm entry, or its one image
// besides attestations; and ORAS's artifact of the module alone, whatever
// its config: a layer that is a WebAssembly binary is the module, named
// by its title annotation. An image whose layers hold several .wasm files and
// no /plugin.wasm, a link where the module should be, or an entry that
// climbs out of the image's root is refused, as is a WebAssembly component
// (the component model's format, which wassette runs): wasmcp runs core
// modules. Layers are read as streams and nothing is written but the
// module, into the Cache.
//
// Registry HTTP, authentication, the referrers API and its tag-schema
// fallback are oras-go's (oras.land/oras-go/v2); this package chooses what
// is accepted: the media types, the size of every document read (a
// module's, the layers' together compressed and uncompressed, each
// manifest's), the deadline of every operation, and that a module starts
// as a core WebAssembly binary does. Every blob read is verified against
// its digest. A registry may send the client only to globally reachable
// addresses besides its own (guard.go).
//
// A Cache keeps pulled modules on disk by digest, so that a server starts
// from the copy it has when the registry cannot be reached. The host knows
// nothing of registries: it loads the cached files (host.LoadFile), and data
// flows one way, registry → cache → host.
package oci
