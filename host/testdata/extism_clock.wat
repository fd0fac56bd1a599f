;; An Extism plugin of protocol v1 that imports WASI's clock and random
;; source, as plugins built with Extism's PDKs do (hyper-mcp's time
;; plugin, a plugin seeding a salt): without "clock" and "random" in its
;; policy section it reads stand-ins, which the host names at load.
(module
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock_time_get (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (memory (export "memory") 1)
  (data (i32.const 16) "{\22tools\22:[{\22name\22:\22now\22,\22inputSchema\22:{\22type\22:\22object\22}}]}")
  (data (i32.const 96) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22now\22}]}")
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
  (func (export "describe") (result i32)
    (call $output_set (call $k (i32.const 16) (i32.const 58)) (i64.const 58))
    (i32.const 0))
  (func (export "call") (result i32)
    (drop (call $clock_time_get (i32.const 0) (i64.const 1) (i32.const 200)))
    (drop (call $random_get (i32.const 208) (i32.const 8)))
    (call $output_set (call $k (i32.const 96) (i32.const 42)) (i64.const 42))
    (i32.const 0)))
