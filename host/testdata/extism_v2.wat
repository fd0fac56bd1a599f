;; An Extism plugin of hyper-mcp's protocol v2, written by hand for the
;; host's tests: its one tool returns its whole input as structuredContent.
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u64" (func $input_load_u64 (param i64) (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (memory (export "memory") 1)
  (data (i32.const 16) "{\22tools\22:[{\22name\22:\22whoami\22,\22inputSchema\22:{\22type\22:\22object\22}}]}")
  (data (i32.const 77) "{\22structuredContent\22:")
  (data (i32.const 98) "}")
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
    (call $output_set (call $k (i32.const 16) (i32.const 61)) (i64.const 61))
    (i32.const 0))

  ;; call_tool copies the input eight bytes at a time, then byte by byte.
  (func (export "call_tool") (result i32)
    (local $n i32) (local $i i32) (local $p i32)
    (local.set $n (i32.wrap_i64 (call $input_length)))
    (memory.copy (i32.const 0x4000) (i32.const 77) (i32.const 21))
    (local.set $p (i32.add (i32.const 0x4000) (i32.const 21)))
    (block $done (loop $next
      (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $n)))
      (i64.store (i32.add (local.get $p) (local.get $i)) (call $input_load_u64 (i64.extend_i32_u (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 8)))
      (br $next)))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (i32.store8 (i32.add (local.get $p) (local.get $i)) (call $input_load_u8 (i64.extend_i32_u (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (i32.store8 (i32.add (local.get $p) (local.get $n)) (i32.const 125))
    (local.set $n (i32.add (local.get $n) (i32.const 22)))
    (call $output_set (call $k (i32.const 0x4000) (local.get $n)) (i64.extend_i32_u (local.get $n)))
    (i32.const 0))
)
