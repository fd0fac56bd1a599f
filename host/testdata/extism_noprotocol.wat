;; An Extism plugin that exports neither of hyper-mcp's protocols.
(module
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (memory (export "memory") 1)
  (func (export "describe") (result i32) (i32.const 0))
  (func (export "run") (result i32) (i32.const 0)))
