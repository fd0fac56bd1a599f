;; A guest whose tools return their arguments as their result document, so
;; that the adversarial tests (e2e/adversary_lists_test.go) can hand the host
;; any result a hostile guest could: reflect; reflect_out, which has an
;; outputSchema ({"a": string} required); and reflect_fmt, whose output
;; schema asserts formats.
(module
  (memory (export "memory") 1)
  (data (i32.const 16) "{\"tools\":[{\"name\":\"reflect\",\"description\":\"Returns its arguments as its result document.\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"reflect_out\",\"description\":\"Returns its arguments as its result document; has an outputSchema.\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},\"required\":[\"a\"]}},{\"name\":\"reflect_fmt\",\"description\":\"Returns its arguments as its result document; its outputSchema has formats.\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\",\"properties\":{\"d\":{\"type\":\"string\",\"format\":\"date-time\"},\"e\":{\"type\":\"string\",\"format\":\"email\"},\"u\":{\"type\":\"string\",\"format\":\"uri\"},\"n\":{\"type\":\"number\",\"multipleOf\":2}}}}]}")

  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))

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
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 700)))

  (func (export "wasmcp_call")
    (param $name i32) (param $name_len i32) (param $args i32) (param $args_len i32)
    (result i64)
    (i64.or (i64.shl (i64.extend_i32_u (local.get $args)) (i64.const 32))
            (i64.extend_i32_u (local.get $args_len)))))
