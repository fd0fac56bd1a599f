;; A guest importing a host function that ABI.md reserves for later.
(module
  (import "wasmcp" "progress" (func (param f64 f64 i32 i32))))
