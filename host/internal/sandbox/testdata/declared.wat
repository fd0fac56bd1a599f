;; A guest that declares a memory maximum of 2 pages, below the host's
;; limit, and exhausts it.
(module
  (memory (export "memory") 1 2)
  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "wasmcp_describe") (result i64) (i64.const 0))
  (func (export "wasmcp_call") (param i32 i32 i32 i32) (result i64)
    (block $refused
      (loop $more
        (br_if $refused (i32.eq (memory.grow (i32.const 1)) (i32.const -1)))
        (br $more)))
    unreachable))
