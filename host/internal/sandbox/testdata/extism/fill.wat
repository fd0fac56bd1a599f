;; An Extism plugin of hyper-mcp's protocol v1 that fills memory for the
;; memory tests. Its call's input is two little-endian u64: how many bytes
;; to allocate in the kernel, every 4 KiB of which it then writes, and
;; flags: 1 frees that block again; 2 then grows the linear memory a page
;; at a time until refused, writing every 4 KiB of each page. It then logs
;; "{}", whose hook holds the call while a test measures, and outputs "{}".
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "free" (func $free (param i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "input_load_u64" (func $input_load_u64 (param i64) (result i64)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "log_info" (func $log_info (param i64)))
  (memory (export "memory") 1)
  (data (i32.const 16) "{}")
  (data (i32.const 32) "{\22tools\22:[{\22name\22:\22fill\22,\22inputSchema\22:{\22type\22:\22object\22}}]}")

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
    (call $output_set (call $k (i32.const 32) (i32.const 59)) (i64.const 59))
    (i32.const 0))

  (func (export "call") (result i32)
    (local $n i64) (local $b i64) (local $i i64) (local $flags i64) (local $page i32) (local $a i32)
    (local.set $n (call $input_load_u64 (i64.const 0)))
    (local.set $flags (call $input_load_u64 (i64.const 8)))
    (local.set $b (call $alloc (local.get $n)))
    (block $done (loop $next
      (br_if $done (i64.ge_u (local.get $i) (local.get $n)))
      (call $store_u8 (i64.add (local.get $b) (local.get $i)) (i32.const 1))
      (local.set $i (i64.add (local.get $i) (i64.const 4096)))
      (br $next)))
    (if (i64.ne (i64.and (local.get $flags) (i64.const 1)) (i64.const 0))
      (then (call $free (local.get $b))))
    (if (i64.ne (i64.and (local.get $flags) (i64.const 2)) (i64.const 0)) (then
      (block $full (loop $grow
        (local.set $page (memory.grow (i32.const 1)))
        (br_if $full (i32.eq (local.get $page) (i32.const -1)))
        (local.set $a (i32.shl (local.get $page) (i32.const 16)))
        (block $paged (loop $touch
          (i32.store8 (local.get $a) (i32.const 1))
          (local.set $a (i32.add (local.get $a) (i32.const 4096)))
          (br_if $paged (i32.eqz (i32.and (local.get $a) (i32.const 0xffff))))
          (br $touch)))
        (br $grow)))))
    (call $log_info (call $k (i32.const 16) (i32.const 2)))
    (call $output_set (call $k (i32.const 16) (i32.const 2)) (i64.const 2))
    (i32.const 0))
)
