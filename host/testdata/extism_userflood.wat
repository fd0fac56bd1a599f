;; An Extism plugin of hyper-mcp's protocol v2 whose one tool, "flood",
;; says ten thousand times that a URL elicitation completed, for the host's
;; test that a call cannot flood its client with notifications.
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/user" "notify_url_elicitation_completed" (func $notify_url_elicitation_completed (param i64)))
  (memory (export "memory") 1)
  (data (i32.const 1024) "{\22tools\22:[{\22name\22:\22flood\22,\22inputSchema\22:{\22type\22:\22object\22}}]}")
  (data (i32.const 1100) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22ok\22}]}")
  (data (i32.const 1200) "{\22elicitationId\22:\22e1\22}")

  ;; $k copies linear memory [p, p+n) to a new kernel block.
  (func $k (param $p i32) (param $n i32) (result i64)
    (local $off i64) (local $i i32)
    (local.set $off (call $alloc (i64.extend_i32_u (local.get $n))))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (call $store_u8 (i64.add (local.get $off) (i64.extend_i32_u (local.get $i)))
        (i32.load8_u (i32.add (local.get $p) (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $off))

  (func (export "list_tools") (result i32)
    (call $output_set (call $k (i32.const 1024) (i32.const 60)) (i64.const 60))
    (i32.const 0))

  (func (export "call_tool") (result i32)
    (local $i i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (i32.const 10000)))
      (call $notify_url_elicitation_completed (call $k (i32.const 1200) (i32.const 22)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (call $output_set (call $k (i32.const 1100) (i32.const 41)) (i64.const 41))
    (i32.const 0))
)
