;; A guest that misbehaves on purpose, for the end-to-end tests of the
;; sandbox limits as a client sees them:
;;
;;   spin  loops forever; only the call deadline (--timeout) stops it.
;;   bomb  grows its memory until the limit (--memory) refuses, then traps,
;;         which is how a Go guest's out-of-memory ends too.
;;   ping  answers "pong", to show the module still works after either.
(module
  (memory (export "memory") 1)

  ;; Offset 16: the Describe document, 356 bytes.
  (data (i32.const 16) "{\"tools\":[{\"name\":\"spin\",\"description\":\"Loops forever: tests the call deadline.\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"bomb\",\"description\":\"Grows its memory until the limit, then traps: tests the memory limit.\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"ping\",\"description\":\"Answers pong.\",\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false}}]}")
  ;; Offset 512: the tool names, 4 bytes each.
  (data (i32.const 512) "spinbombping")
  ;; Offset 576: the result of ping, 43 bytes.
  (data (i32.const 576) "{\"content\":[{\"type\":\"text\",\"text\":\"pong\"}]}")
  ;; Offset 640: the result for an unknown tool, 66 bytes.
  (data (i32.const 640) "{\"content\":[{\"type\":\"text\",\"text\":\"unknown tool\"}],\"isError\":true}")

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
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 356)))

  (func (export "wasmcp_call")
    (param $name i32) (param $name_len i32) (param $args i32) (param $args_len i32)
    (result i64)
    (local $word i32)
    (if (i32.ne (local.get $name_len) (i32.const 4))
      (then (return (i64.or (i64.shl (i64.const 640) (i64.const 32)) (i64.const 66)))))
    (local.set $word (i32.load (local.get $name)))
    ;; spin
    (if (i32.eq (local.get $word) (i32.load (i32.const 512)))
      (then
        (loop $forever (br $forever))
        (unreachable)))
    ;; bomb: one page at a time until memory.grow fails, then trap.
    (if (i32.eq (local.get $word) (i32.load (i32.const 516)))
      (then
        (loop $more
          (br_if $more (i32.ne (memory.grow (i32.const 1)) (i32.const -1))))
        (unreachable)))
    ;; ping
    (if (i32.eq (local.get $word) (i32.load (i32.const 520)))
      (then (return (i64.or (i64.shl (i64.const 576) (i64.const 32)) (i64.const 43)))))
    (i64.or (i64.shl (i64.const 640) (i64.const 32)) (i64.const 66))))
