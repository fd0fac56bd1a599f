;; The complete guest of ABI.md section 7, verbatim: one tool, echo, that
;; returns its arguments as structured content. Example uses it.
(module
  ;; Host function: level, message pointer, message length.
  (import "wasmcp" "log" (func $log (param i32 i32 i32)))

  ;; One page (64 KiB) to start; wasmcp_alloc grows it when an input is large.
  (memory (export "memory") 1)

  ;; Offset 16: the Describe document, 120 bytes.
  (data (i32.const 16) "{\"tools\":[{\"name\":\"echo\",\"description\":\"Returns its arguments as structured content.\",\"inputSchema\":{\"type\":\"object\"}}]}")
  ;; Offset 256: the start of every result, 21 bytes.
  (data (i32.const 256) "{\"structuredContent\":")
  ;; Offset 320: the result for an unknown tool, 66 bytes.
  (data (i32.const 320) "{\"content\":[{\"type\":\"text\",\"text\":\"unknown tool\"}],\"isError\":true}")
  ;; Offset 400: the tool name, 4 bytes. Offset 416: a log message, 11 bytes.
  (data (i32.const 400) "echo")
  (data (i32.const 416) "echo called")

  (func (export "wasmcp_abi_version") (result i32)
    (i32.const 1))

  ;; The host calls this once per call, so every request starts over at
  ;; offset 1024. Room is made for the input and, after it, the output
  ;; (at most input + 22 bytes).
  (func (export "wasmcp_alloc") (param $size i32) (result i32)
    (local $need i32)
    (local.set $need
      (i32.add (i32.const 1088) (i32.shl (local.get $size) (i32.const 1))))
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
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 120)))

  (func (export "wasmcp_call")
    (param $name i32) (param $name_len i32) (param $args i32) (param $args_len i32)
    (result i64)
    (local $out i32)
    ;; Any name but "echo": a tool error.
    (if (i32.or
          (i32.ne (local.get $name_len) (i32.const 4))
          (i32.ne (i32.load (local.get $name)) (i32.load (i32.const 400))))
      (then
        (return (i64.or (i64.shl (i64.const 320) (i64.const 32)) (i64.const 66)))))
    (call $log (i32.const 1) (i32.const 416) (i32.const 11))
    ;; Result = prefix + arguments + "}", written just after the arguments.
    (local.set $out (i32.add (local.get $args) (local.get $args_len)))
    (memory.copy (local.get $out) (i32.const 256) (i32.const 21))
    (memory.copy (i32.add (local.get $out) (i32.const 21)) (local.get $args) (local.get $args_len))
    (i32.store8
      (i32.add (local.get $out) (i32.add (i32.const 21) (local.get $args_len)))
      (i32.const 125)) ;; '}'
    (i64.or
      (i64.shl (i64.extend_i32_u (local.get $out)) (i64.const 32))
      (i64.extend_i32_u (i32.add (local.get $args_len) (i32.const 22))))))
