;; The second version of hello.wat: the same tool "hello" with another
;; description and reply, so that the end-to-end tests can tell which version
;; is served after a replacement or a tool name collision.
(module
  (memory (export "memory") 1)

  ;; Offset 16: the Describe document, 192 bytes.
  (data (i32.const 16) "{\"tools\":[{\"name\":\"hello\",\"description\":\"Says hello again; the second version of hello, which replaces the first by hot reload.\",\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false}}]}")
  ;; Offset 256: the result, 68 bytes.
  (data (i32.const 256) "{\"content\":[{\"type\":\"text\",\"text\":\"hello from the second version\"}]}")
  ;; Offset 384: the result for an unknown tool, 66 bytes.
  (data (i32.const 384) "{\"content\":[{\"type\":\"text\",\"text\":\"unknown tool\"}],\"isError\":true}")

  (func (export "wasmcp_abi_version") (result i32)
    (i32.const 1))

  ;; An arena at offset 1024 that restarts at every call, grown to fit.
  (func (export "wasmcp_alloc") (param $size i32) (result i32)
    (local $need i32)
    (local.set $need (i32.add (i32.const 1024) (local.get $size)))
    (if (i32.gt_u (local.get $need) (i32.mul (memory.size) (i32.const 65536)))
      (then
        (if (i32.eq
              (memory.grow
                (i32.sub
                  (i32.div_u (i32.add (local.get $need) (i32.const 65535)) (i32.const 65536))
                  (memory.size)))
              (i32.const -1))
          (then (return (i32.const 0))))))
    (i32.const 1024))

  (func (export "wasmcp_describe") (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 192)))

  ;; Only "hello" (5 bytes) is defined; anything else is a tool error.
  (func (export "wasmcp_call")
    (param $name i32) (param $name_len i32) (param $args i32) (param $args_len i32)
    (result i64)
    (if (i32.eq (local.get $name_len) (i32.const 5))
      (then (return (i64.or (i64.shl (i64.const 256) (i64.const 32)) (i64.const 68)))))
    (i64.or (i64.shl (i64.const 384) (i64.const 32)) (i64.const 66))))
