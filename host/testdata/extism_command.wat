;; An Extism plugin built as a WASI command, as TinyGo builds Extism's Go
;; PDK plugins without -buildmode=c-shared: its exports work only after
;; _start, which Extism's runtime runs when it instantiates the plugin.
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (memory (export "memory") 1)
  (global $started (mut i32) (i32.const 0))
  (data (i32.const 16) "{\22tools\22:[{\22name\22:\22started\22,\22inputSchema\22:{\22type\22:\22object\22}}]}")
  (data (i32.const 96) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22started\22}]}")
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
  (func (export "_start") (global.set $started (i32.const 1)))
  (func (export "describe") (result i32)
    (if (i32.eqz (global.get $started)) (then unreachable))
    (call $output_set (call $k (i32.const 16) (i32.const 62)) (i64.const 62))
    (i32.const 0))
  (func (export "call") (result i32)
    (if (i32.eqz (global.get $started)) (then unreachable))
    (call $output_set (call $k (i32.const 96) (i32.const 46)) (i64.const 46))
    (i32.const 0))
)
