;; An Extism plugin of protocol v2 that imports one of hyper-mcp's own host
;; functions, which wasmcp does not provide: it must not load.
(module
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/user" "notify_progress" (func $notify_progress (param i64)))
  (memory (export "memory") 1)
  (func (export "list_tools") (result i32) (i32.const 0))
  (func (export "call_tool") (result i32) (call $notify_progress (i64.const 0)) (i32.const 0)))
