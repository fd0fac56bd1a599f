;; An Extism plugin importing alloc with a 32-bit signature.
(module
  (import "extism:host/env" "alloc" (func $alloc (param i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "describe") (result i32) (i32.const 0))
  (func (export "call") (result i32) (i32.const 0)))
