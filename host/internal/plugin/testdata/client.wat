;; A plugin whose one tool, ask, reports progress, sends its arguments as a
;; sampling request and returns the client's reply as its own result: the
;; plugin tests check that a call's hooks reach the guest.
(module
  (import "wasmcp" "progress" (func $progress (param f64 f64 i32 i32)))
  (import "wasmcp" "sample" (func $sample (param i32 i32) (result i64)))
  (import "wasmcp" "read_reply" (func $read_reply (param i32 i32) (result i32)))
  (memory (export "memory") 2)
  (data (i32.const 16) "{\"tools\":[{\"name\":\"ask\",\"inputSchema\":{\"type\":\"object\"}}]}") ;; 58 bytes
  (data (i32.const 96) "half") ;; 4 bytes

  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param $size i32) (result i32)
    (if (i32.gt_u (local.get $size) (i32.const 60000)) (then (return (i32.const 0))))
    (i32.const 4096))
  (func (export "wasmcp_describe") (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 58)))
  (func (export "wasmcp_call")
    (param $name i32) (param $name_len i32) (param $args i32) (param $args_len i32)
    (result i64)
    (local $r i64)
    (call $progress (f64.const 1) (f64.const 2) (i32.const 96) (i32.const 4))
    (local.set $r (call $sample (local.get $args) (local.get $args_len)))
    (i64.or
      (i64.const 281474976710656) ;; 65536 << 32: the reply, copied to page 1
      (i64.extend_i32_u
        (call $read_reply (i32.const 65536) (i32.wrap_i64 (local.get $r)))))))
