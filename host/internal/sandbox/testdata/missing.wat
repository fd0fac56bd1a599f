;; A guest without wasmcp_call.
(module
  (memory (export "memory") 1)
  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "wasmcp_describe") (result i64) (i64.const 0)))
