;; An Extism plugin of hyper-mcp's protocol v1, written by hand for the
;; host's tests: each tool exercises one host function or one failure. The
;; tool is chosen by the first letter of its name, read at a fixed offset
;; of the input {"params":{"name":"...
;; The data segments hold the documents the tools write.
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "length" (func $length (param i64) (result i64)))
  (import "extism:host/env" "load_u8" (func $load_u8 (param i64) (result i32)))
  (import "extism:host/env" "load_u64" (func $load_u64 (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "error_set" (func $error_set (param i64)))
  (import "extism:host/env" "config_get" (func $config_get (param i64) (result i64)))
  (import "extism:host/env" "var_get" (func $var_get (param i64) (result i64)))
  (import "extism:host/env" "var_set" (func $var_set (param i64 i64)))
  (import "extism:host/env" "http_request" (func $http_request (param i64 i64) (result i64)))
  (import "extism:host/env" "http_status_code" (func $http_status_code (result i32)))
  (import "extism:host/env" "log_trace" (func $log_trace (param i64)))
  (import "extism:host/env" "log_debug" (func $log_debug (param i64)))
  (import "extism:host/env" "log_info" (func $log_info (param i64)))
  (import "extism:host/env" "log_warn" (func $log_warn (param i64)))
  (import "extism:host/env" "log_error" (func $log_error (param i64)))
  (import "extism:host/env" "get_log_level" (func $get_log_level (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "{\22tools\22:[{\22name\22:\22alloc_bomb\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22bad_pointer\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22config\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22deadloop\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22error\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22fetch\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22go_refused\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22logs\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22output_big\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22repeat\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22set_output_outside\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22toobig_var\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22vars\22,\22inputSchema\22:{\22type\22:\22object\22}}]}")
  (data (i32.const 706) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22")
  (data (i32.const 741) "\22}]}")
  (data (i32.const 745) "{\22structuredContent\22:")
  (data (i32.const 766) "}")
  (data (i32.const 767) "greeting")
  (data (i32.const 775) "url")
  (data (i32.const 778) "refused_url")
  (data (i32.const 789) "n")
  (data (i32.const 790) "big")
  (data (i32.const 793) "(none)")
  (data (i32.const 799) "count=")
  (data (i32.const 805) "level=")
  (data (i32.const 811) "status=")
  (data (i32.const 818) " body=")
  (data (i32.const 824) "{\22url\22:\22")
  (data (i32.const 832) "\22}")
  (data (i32.const 834) "plugin says no")
  (data (i32.const 848) "trace line")
  (data (i32.const 858) "debug line")
  (data (i32.const 868) "info line")
  (data (i32.const 877) "warn line")
  (data (i32.const 886) "error line")
  ;; The output under construction: [0x4000, $pos).
  (global $pos (mut i32) (i32.const 0x4000))

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

  ;; $cat appends linear memory [p, p+n) to the output.
  (func $cat (param $p i32) (param $n i32)
    (memory.copy (global.get $pos) (local.get $p) (local.get $n))
    (global.set $pos (i32.add (global.get $pos) (local.get $n))))

  (func $byte (param $b i32)
    (i32.store8 (global.get $pos) (local.get $b))
    (global.set $pos (i32.add (global.get $pos) (i32.const 1))))

  ;; $catk appends the kernel block at off.
  (func $catk (param $off i64)
    (local $n i64) (local $i i64)
    (local.set $n (call $length (local.get $off)))
    (block $done (loop $next
      (br_if $done (i64.ge_u (local.get $i) (local.get $n)))
      (call $byte (call $load_u8 (i64.add (local.get $off) (local.get $i))))
      (local.set $i (i64.add (local.get $i) (i64.const 1)))
      (br $next))))

  ;; $emit makes the output the call's output.
  (func $emit
    (local $n i32)
    (local.set $n (i32.sub (global.get $pos) (i32.const 0x4000)))
    (call $output_set (call $k (i32.const 0x4000) (local.get $n)) (i64.extend_i32_u (local.get $n)))
    (global.set $pos (i32.const 0x4000)))

  (func (export "describe") (result i32)
    (call $cat (i32.const 16) (i32.const 690))
    (call $emit)
    (i32.const 0))

  (func $fetch (param $key i32) (param $keylen i32)
    (local $body i64) (local $status i32)
    (call $cat (i32.const 824) (i32.const 8))
    (call $catk (call $config_get (call $k (local.get $key) (local.get $keylen))))
    (call $cat (i32.const 832) (i32.const 2))
    (local.set $body (call $http_request
      (call $k (i32.const 0x4000) (i32.sub (global.get $pos) (i32.const 0x4000))) (i64.const 0)))
    (global.set $pos (i32.const 0x4000))
    (local.set $status (call $http_status_code))
    (call $cat (i32.const 706) (i32.const 35))
    (call $cat (i32.const 811) (i32.const 7))
    (call $byte (i32.add (i32.const 48) (i32.div_u (local.get $status) (i32.const 100))))
    (call $byte (i32.add (i32.const 48) (i32.rem_u (i32.div_u (local.get $status) (i32.const 10)) (i32.const 10))))
    (call $byte (i32.add (i32.const 48) (i32.rem_u (local.get $status) (i32.const 10))))
    (call $cat (i32.const 818) (i32.const 6))
    (call $catk (local.get $body))
    (call $cat (i32.const 741) (i32.const 4)))

  (func (export "call") (result i32)
    (local $tool i32) (local $v i64) (local $c i32) (local $n i64) (local $i i64) (local $level i32)
    (local.set $tool (call $input_load_u8 (i64.const 19)))
    ;; alloc_bomb: allocate until the host says no.
    (if (i32.eq (local.get $tool) (i32.const 97)) (then
      (loop $more (drop (call $alloc (i64.const 65536))) (br $more))))
    ;; bad_pointer: read far outside any block.
    (if (i32.eq (local.get $tool) (i32.const 98)) (then
      (drop (call $load_u64 (i64.const 0x7fffffff00)))))
    ;; config: the value of "greeting".
    (if (i32.eq (local.get $tool) (i32.const 99)) (then
      (call $cat (i32.const 706) (i32.const 35))
      (local.set $v (call $config_get (call $k (i32.const 767) (i32.const 8))))
      (if (i64.eqz (local.get $v))
        (then (call $cat (i32.const 793) (i32.const 6)))
        (else (call $catk (local.get $v))))
      (call $cat (i32.const 741) (i32.const 4))))
    ;; deadloop: never returns.
    (if (i32.eq (local.get $tool) (i32.const 100)) (then (loop $forever (br $forever))))
    ;; error: error_set and a non-zero code.
    (if (i32.eq (local.get $tool) (i32.const 101)) (then
      (call $error_set (call $k (i32.const 834) (i32.const 14)))
      (return (i32.const 1))))
    ;; fetch, go_refused: GET the URL of config "url", "refused_url".
    (if (i32.eq (local.get $tool) (i32.const 102)) (then (call $fetch (i32.const 775) (i32.const 3))))
    (if (i32.eq (local.get $tool) (i32.const 103)) (then (call $fetch (i32.const 778) (i32.const 11))))
    ;; logs: one line at each level, then the level the host wants.
    (if (i32.eq (local.get $tool) (i32.const 108)) (then
      (call $log_trace (call $k (i32.const 848) (i32.const 10)))
      (call $log_debug (call $k (i32.const 858) (i32.const 10)))
      (call $log_info (call $k (i32.const 868) (i32.const 9)))
      (call $log_warn (call $k (i32.const 877) (i32.const 9)))
      (call $log_error (call $k (i32.const 886) (i32.const 10)))
      (local.set $level (call $get_log_level))
      (if (i32.gt_u (local.get $level) (i32.const 9)) (then (local.set $level (i32.const 40))))
      (call $cat (i32.const 706) (i32.const 35))
      (call $cat (i32.const 805) (i32.const 6))
      (call $byte (i32.add (i32.const 48) (local.get $level)))
      (call $cat (i32.const 741) (i32.const 4))))
    ;; output_big: 2 KiB of output.
    (if (i32.eq (local.get $tool) (i32.const 111)) (then
      (call $output_set (call $alloc (i64.const 2048)) (i64.const 2048))
      (return (i32.const 0))))
    ;; repeat: the arguments back as structuredContent. They start after
    ;; {"params":{"name":"repeat","arguments": and end before }}.
    (if (i32.eq (local.get $tool) (i32.const 114)) (then
      (call $cat (i32.const 745) (i32.const 21))
      (local.set $n (i64.sub (call $input_length) (i64.const 2)))
      (local.set $i (i64.const 39))
      (block $done (loop $next
        (br_if $done (i64.ge_u (local.get $i) (local.get $n)))
        (call $byte (call $input_load_u8 (local.get $i)))
        (local.set $i (i64.add (local.get $i) (i64.const 1)))
        (br $next)))
      (call $cat (i32.const 766) (i32.const 1))))
    ;; set_output_outside: an output range past its block.
    (if (i32.eq (local.get $tool) (i32.const 115)) (then
      (call $output_set (call $alloc (i64.const 4)) (i64.const 100))))
    ;; toobig_var: a 2 MiB variable, over the store's limit.
    (if (i32.eq (local.get $tool) (i32.const 116)) (then
      (call $var_set (call $k (i32.const 790) (i32.const 3)) (call $alloc (i64.const 0x200000)))))
    ;; vars: count the calls in variable "n", a digit.
    (if (i32.eq (local.get $tool) (i32.const 118)) (then
      (local.set $v (call $var_get (call $k (i32.const 789) (i32.const 1))))
      (local.set $c (i32.const 48))
      (if (i64.ne (local.get $v) (i64.const 0)) (then (local.set $c (call $load_u8 (local.get $v)))))
      (local.set $c (i32.add (local.get $c) (i32.const 1)))
      (local.set $v (call $alloc (i64.const 1)))
      (call $store_u8 (local.get $v) (local.get $c))
      (call $var_set (call $k (i32.const 789) (i32.const 1)) (local.get $v))
      (call $cat (i32.const 706) (i32.const 35))
      (call $cat (i32.const 799) (i32.const 6))
      (call $byte (local.get $c))
      (call $cat (i32.const 741) (i32.const 4))))
    (call $emit)
    (i32.const 0))
)
