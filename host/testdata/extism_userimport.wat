;; An Extism plugin of protocol v2 that imports a function of hyper-mcp's
;; module that hyper-mcp does not define: it must not load.
(module
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/user" "get_weather" (func $get_weather (param i64)))
  (memory (export "memory") 1)
  (func (export "list_tools") (result i32) (i32.const 0))
  (func (export "call_tool") (result i32) (call $get_weather (i64.const 0)) (i32.const 0)))
