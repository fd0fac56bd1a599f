;; A plugin whose describe export never returns: it must be refused at load,
;; by the call deadline, and not hold up the other plugins.
(module
  (memory (export "memory") 1)
  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "wasmcp_describe") (result i64) (loop $forever (br $forever)) (i64.const 0))
  (func (export "wasmcp_call") (param i32 i32 i32 i32) (result i64) (i64.const 0)))
