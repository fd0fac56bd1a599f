;; An Extism plugin of hyper-mcp's protocol v1 that attacks the host:
;; each tool abuses the kernel or a host function in one way. The tool is
;; chosen by the first letter of its name, read at a fixed offset of the
;; input {"params":{"name":"...
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "free" (func $free (param i64)))
  (import "extism:host/env" "load_u8" (func $load_u8 (param i64) (result i32)))
  (import "extism:host/env" "load_u64" (func $load_u64 (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "output_length" (func $output_length (result i64)))
  (import "extism:host/env" "output_offset" (func $output_offset (result i64)))
  (import "extism:host/env" "error_set" (func $error_set (param i64)))
  (import "extism:host/env" "error_get" (func $error_get (result i64)))
  (import "extism:host/env" "http_status_code" (func $http_status_code (result i32)))
  (import "extism:host/env" "http_headers" (func $http_headers (result i64)))
  (import "extism:host/env" "reset" (func $reset))
  (import "extism:host/env" "log_info" (func $log_info (param i64)))
  (memory (export "memory") 1)
  (data (i32.const 16) "{\22tools\22:[{\22name\22:\22allocloop\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22error8\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22giant\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22hostloop\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22logflood\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22many\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22outfree\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22prev\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22reset\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22utf8\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22xload\22,\22inputSchema\22:{\22type\22:\22object\22}}]}")
  (data (i32.const 576) "bad \ff\fe message")
  (data (i32.const 590) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22bad \ff here\22}]}")
  (data (i32.const 639) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22ok\22}]}")
  (data (i32.const 680) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22clean\22}]}")
  (data (i32.const 724) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22dirty\22}]}")
  (data (i32.const 768) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22input gone\22}]}")
  (data (i32.const 817) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22input kept\22}]}")

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
    (call $output_set (call $k (i32.const 16) (i32.const 560)) (i64.const 560))
    (i32.const 0))

  (func (export "call") (result i32)
    (local $tool i32) (local $b i64) (local $i i64)
    (local.set $tool (call $input_load_u8 (i64.const 19)))
    ;; allocloop: allocate and free 3 MiB blocks forever, a few instructions
    ;; of the guest for megabytes of the host's work.
    (if (i32.eq (local.get $tool) (i32.const 97)) (then
      (loop $more (call $free (call $alloc (i64.const 0x300000))) (br $more))))
    ;; error8: an error message that is not UTF-8.
    (if (i32.eq (local.get $tool) (i32.const 101)) (then
      (call $error_set (call $k (i32.const 576) (i32.const 14)))
      (return (i32.const 0))))
    ;; giant: an allocation of 2^64-1 bytes, whose cost would wrap.
    (if (i32.eq (local.get $tool) (i32.const 103)) (then
      (drop (call $alloc (i64.const -1)))))
    ;; hostloop: a loop of host function calls that never ends.
    (if (i32.eq (local.get $tool) (i32.const 104)) (then
      (local.set $b (call $alloc (i64.const 8)))
      (loop $more (drop (call $load_u8 (local.get $b))) (br $more))))
    ;; logflood: 5000 log lines, then "ok".
    (if (i32.eq (local.get $tool) (i32.const 108)) (then
      (block $done (loop $next
        (br_if $done (i64.ge_u (local.get $i) (i64.const 5000)))
        (call $log_info (call $k (i32.const 576) (i32.const 14)))
        (local.set $i (i64.add (local.get $i) (i64.const 1)))
        (br $next)))
      (call $output_set (call $k (i32.const 639) (i32.const 41)) (i64.const 41))
      (return (i32.const 0))))
    ;; many: one-byte blocks until the memory limit.
    (if (i32.eq (local.get $tool) (i32.const 109)) (then
      (loop $more (drop (call $alloc (i64.const 1))) (br $more))))
    ;; outfree: set the output, free its block, and scribble on a new one.
    (if (i32.eq (local.get $tool) (i32.const 111)) (then
      (local.set $b (call $k (i32.const 639) (i32.const 41)))
      (call $output_set (local.get $b) (i64.const 41))
      (call $free (local.get $b))
      (call $free (local.get $b))
      (local.set $b (call $alloc (i64.const 41)))
      (block $done (loop $next
        (br_if $done (i64.ge_u (local.get $i) (i64.const 41)))
        (call $store_u8 (i64.add (local.get $b) (local.get $i)) (i32.const 120))
        (local.set $i (i64.add (local.get $i) (i64.const 1)))
        (br $next)))
      (return (i32.const 0))))
    ;; prev: nothing of an earlier call on this instance shows.
    (if (i32.eq (local.get $tool) (i32.const 112)) (then
      (if (i32.or (i32.or (i64.ne (call $error_get) (i64.const 0)) (i64.ne (call $output_length) (i64.const 0)))
            (i32.or (i32.or (i64.ne (call $output_offset) (i64.const 0)) (i32.ne (call $http_status_code) (i32.const 0)))
              (i64.ne (call $http_headers) (i64.const 0))))
        (then (call $output_set (call $k (i32.const 724) (i32.const 44)) (i64.const 44)))
        (else (call $output_set (call $k (i32.const 680) (i32.const 44)) (i64.const 44))))
      (return (i32.const 0))))
    ;; reset: empty the kernel memory mid-call, input included.
    (if (i32.eq (local.get $tool) (i32.const 114)) (then
      (call $reset)
      (if (i64.eqz (call $input_length))
        (then (call $output_set (call $k (i32.const 768) (i32.const 49)) (i64.const 49)))
        (else (call $output_set (call $k (i32.const 817) (i32.const 49)) (i64.const 49))))
      (return (i32.const 0))))
    ;; utf8: an output whose text is not UTF-8.
    (if (i32.eq (local.get $tool) (i32.const 117)) (then
      (call $output_set (call $k (i32.const 590) (i32.const 49)) (i64.const 49))
      (return (i32.const 0))))
    ;; xload: 8 bytes at the last offset there is.
    (if (i32.eq (local.get $tool) (i32.const 120)) (then
      (drop (call $load_u64 (i64.const -1)))))
    (i32.const 1))
)
