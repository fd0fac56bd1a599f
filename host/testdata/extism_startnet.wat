;; An Extism plugin whose _start logs, sets a variable and makes an HTTP
;; request, outside any call: the request must be refused, and the plugin
;; fail to load, without a connection.
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "log_info" (func $log_info (param i64)))
  (import "extism:host/env" "var_set" (func $var_set (param i64 i64)))
  (import "extism:host/env" "config_get" (func $config_get (param i64) (result i64)))
  (import "extism:host/env" "http_request" (func $http_request (param i64 i64) (result i64)))
  (memory (export "memory") 1)
  (data (i32.const 16) "starting")
  (data (i32.const 24) "{\22url\22:\22http://127.0.0.1:9/\22}")
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
  (func (export "_start")
    (call $log_info (call $k (i32.const 16) (i32.const 8)))
    (call $var_set (call $k (i32.const 16) (i32.const 8)) (call $k (i32.const 16) (i32.const 8)))
    (drop (call $config_get (call $k (i32.const 16) (i32.const 8))))
    (drop (call $http_request (call $k (i32.const 24) (i32.const 29)) (i64.const 0))))
  (func (export "describe") (result i32) (i32.const 1))
  (func (export "call") (result i32) (i32.const 1))
)
