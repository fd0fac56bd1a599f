;; The smallest useful plugin: one tool, "hello", with a fixed result. It
;; allocates nothing, so wasmcp_alloc hands out the same scratch area for
;; every call.
(module
  (memory (export "memory") 1)

  ;; Offset 16: the Describe document, 123 bytes.
  (data (i32.const 16) "{\"tools\":[{\"name\":\"hello\",\"description\":\"Greets the world.\",\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false}}]}")
  ;; Offset 256: the result, 62 bytes.
  (data (i32.const 256) "{\"content\":[{\"type\":\"text\",\"text\":\"Hello from WebAssembly!\"}]}")

  (func (export "wasmcp_abi_version") (result i32)
    (i32.const 1))

  ;; One page holds the name and the arguments: the input schema allows no
  ;; properties, so the arguments are at most a few bytes.
  (func (export "wasmcp_alloc") (param $size i32) (result i32)
    (if (i32.gt_u (local.get $size) (i32.const 32768))
      (then (return (i32.const 0))))
    (i32.const 1024))

  (func (export "wasmcp_describe") (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 123)))

  (func (export "wasmcp_call") (param i32 i32 i32 i32) (result i64)
    (i64.or (i64.shl (i64.const 256) (i64.const 32)) (i64.const 62))))
