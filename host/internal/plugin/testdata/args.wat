;; A plugin for FuzzArguments: one tool, "check", with a strict inputSchema,
;; that returns the arguments it received as structured content. The fuzz
;; test compares what reached the guest with its own reading of the schema.
(module
  (memory (export "memory") 1)

  (data (i32.const 16) "{\"structuredContent\":")   ;; 21 bytes, the prefix of an echo

  ;; The Describe document, NUL-terminated; $doc measures it. The schema is
  ;; the one fuzz_test.go checks arguments against by hand.
  (data (i32.const 1024) "{\"tools\":[{\"name\":\"check\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
    "\"name\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":16,\"pattern\":\"^[a-z]+$\"},"
    "\"count\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":100},"
    "\"ratio\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"multipleOf\":0.25},"
    "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":4,\"uniqueItems\":true},"
    "\"mode\":{\"enum\":[\"fast\",\"slow\"]},"
    "\"opt\":{\"type\":[\"boolean\",\"null\"]},"
    "\"nested\":{\"type\":\"object\",\"properties\":{\"flag\":{\"type\":\"boolean\"}},\"required\":[\"flag\"],\"additionalProperties\":false}},"
    "\"required\":[\"name\"],\"additionalProperties\":false}}]}\00")

  (func (export "wasmcp_abi_version") (result i32)
    (i32.const 1))

  ;; Every request starts at 16384, with room for the input and an echo of it.
  (func (export "wasmcp_alloc") (param $size i32) (result i32)
    (local $need i32)
    (local.set $need
      (i32.add (i32.const 16448) (i32.shl (local.get $size) (i32.const 1))))
    (if (i32.gt_u (local.get $need) (i32.mul (memory.size) (i32.const 65536)))
      (then
        (if (i32.eq
              (memory.grow
                (i32.sub
                  (i32.div_u (i32.add (local.get $need) (i32.const 65535)) (i32.const 65536))
                  (memory.size)))
              (i32.const -1))
          (then (return (i32.const 0))))))
    (i32.const 16384))

  (func $pack (param $ptr i32) (param $len i32) (result i64)
    (i64.or
      (i64.shl (i64.extend_i32_u (local.get $ptr)) (i64.const 32))
      (i64.extend_i32_u (local.get $len))))

  ;; The packed region of the NUL-terminated document at $p.
  (func $doc (param $p i32) (result i64)
    (local $end i32)
    (local.set $end (local.get $p))
    (block $found
      (loop $next
        (br_if $found (i32.eqz (i32.load8_u (local.get $end))))
        (local.set $end (i32.add (local.get $end) (i32.const 1)))
        (br $next)))
    (call $pack (local.get $p) (i32.sub (local.get $end) (local.get $p))))

  (func (export "wasmcp_describe") (result i64)
    (call $doc (i32.const 1024)))

  ;; {"structuredContent": ARGS}, written after the arguments.
  (func (export "wasmcp_call")
    (param $name i32) (param $name_len i32) (param $args i32) (param $len i32)
    (result i64)
    (local $out i32)
    (local.set $out (i32.add (local.get $args) (local.get $len)))
    (memory.copy (local.get $out) (i32.const 16) (i32.const 21))
    (memory.copy (i32.add (local.get $out) (i32.const 21)) (local.get $args) (local.get $len))
    (i32.store8 (i32.add (local.get $out) (i32.add (i32.const 21) (local.get $len))) (i32.const 125))
    (call $pack (local.get $out) (i32.add (local.get $len) (i32.const 22)))))
