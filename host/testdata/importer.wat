;; A plugin that imports another plugin's export (echo's wasmcp_call), to
;; call into it or read its memory. Each plugin has a runtime of its own and
;; only WASI and "wasmcp" may be imported: it must be refused at load.
(module
  (import "echo" "wasmcp_call" (func $theirs (param i32 i32 i32 i32) (result i64)))
  (memory (export "memory") 1)
  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "wasmcp_describe") (result i64) (i64.const 0))
  (func (export "wasmcp_call") (param i32 i32 i32 i32) (result i64)
    (call $theirs (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0))))
