;; A guest whose tools each behave, or misbehave, in one way, so that the
;; sandbox tests can check how the host treats every case. The first letter
;; of the tool name chooses the behaviour (see wasmcp_call).
;;
;; The module is named ($guest): many instances of a named module must still
;; coexist in one runtime.
(module $guest
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (import "wasmcp" "log" (func $log (param i32 i32 i32)))

  ;; Two pages, so that a 70000-byte log message fits.
  (memory (export "memory") 2)

  (global $initialized (mut i32) (i32.const 0))
  (global $count (mut i32) (i32.const 0))

  (data (i32.const 16) "{\"tools\":[]}")              ;; 12 bytes
  (data (i32.const 32) "spinning")                    ;; 8 bytes
  (data (i32.const 48) "clamped")                     ;; 7 bytes
  (data (i32.const 64) "\"initialized\"")             ;; 13 bytes
  (data (i32.const 80) "\"not initialized\"")         ;; 17 bytes
  ;; An "é" across the 64 KiB boundary, where a long log line is truncated.
  (data (i32.const 65535) "\c3\a9")

  (func (export "_initialize")
    (global.set $initialized (i32.const 1)))

  ;; A command's entry point: the host must never run it.
  (func (export "_start")
    unreachable)

  (func (export "wasmcp_abi_version") (result i32)
    (i32.const 1))

  ;; As in ABI.md: every request starts at offset 1024, with room for the
  ;; input and an output of the same size after it.
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

  (func $pack (param $ptr i32) (param $len i32) (result i64)
    (i64.or
      (i64.shl (i64.extend_i32_u (local.get $ptr)) (i64.const 32))
      (i64.extend_i32_u (local.get $len))))

  (func (export "wasmcp_describe") (result i64)
    (call $pack (i32.const 16) (i32.const 12)))

  (func (export "wasmcp_call")
    (param $name i32) (param $name_len i32) (param $args i32) (param $args_len i32)
    (result i64)
    (local $op i32)
    (local.set $op (i32.load8_u (local.get $name)))

    ;; 'e' echo: the arguments are the result.
    (if (i32.eq (local.get $op) (i32.const 101))
      (then (return (call $pack (local.get $args) (local.get $args_len)))))

    ;; 'i' initialized: whether _initialize ran.
    (if (i32.eq (local.get $op) (i32.const 105))
      (then
        (if (global.get $initialized)
          (then (return (call $pack (i32.const 64) (i32.const 13)))))
        (return (call $pack (i32.const 80) (i32.const 17)))))

    ;; 'n' number: counts the calls this instance served, as one digit.
    (if (i32.eq (local.get $op) (i32.const 110))
      (then
        (global.set $count (i32.add (global.get $count) (i32.const 1)))
        (i32.store8 (i32.const 8) (i32.add (i32.const 48) (global.get $count)))
        (return (call $pack (i32.const 8) (i32.const 1)))))

    ;; 's' spin: logs, then loops forever.
    (if (i32.eq (local.get $op) (i32.const 115))
      (then
        (call $log (i32.const 1) (i32.const 32) (i32.const 8))
        (loop $forever (br $forever))))

    ;; 'm' memory: grows one page at a time until refused, then traps.
    (if (i32.eq (local.get $op) (i32.const 109))
      (then
        (block $refused
          (loop $more
            (br_if $refused (i32.eq (memory.grow (i32.const 1)) (i32.const -1)))
            (br $more)))
        unreachable))

    ;; 'j' jump: asks for 1000 pages at once, then traps.
    (if (i32.eq (local.get $op) (i32.const 106))
      (then
        (drop (memory.grow (i32.const 1000)))
        unreachable))

    ;; 'g' graceful: asks for 1000 pages, copes with the refusal, echoes.
    (if (i32.eq (local.get $op) (i32.const 103))
      (then
        (drop (memory.grow (i32.const 1000)))
        (return (call $pack (local.get $args) (local.get $args_len)))))

    ;; 't' trap.
    (if (i32.eq (local.get $op) (i32.const 116))
      (then unreachable))

    ;; 'c' divides by zero.
    (if (i32.eq (local.get $op) (i32.const 99))
      (then (drop (i32.div_u (i32.const 1) (i32.const 0)))))

    ;; 'x' exit: proc_exit(3).
    (if (i32.eq (local.get $op) (i32.const 120))
      (then
        (call $proc_exit (i32.const 3))
        unreachable))

    ;; 'o' out of bounds: a result region past the end of memory.
    (if (i32.eq (local.get $op) (i32.const 111))
      (then (return (call $pack (i32.const 0xFFFF0000) (i32.const 100)))))

    ;; 'h' huge: a whole page as the result.
    (if (i32.eq (local.get $op) (i32.const 104))
      (then (return (call $pack (i32.const 0) (i32.const 65536)))))

    ;; 'l' log: the arguments at level 4 (error), "clamped" at level 99.
    (if (i32.eq (local.get $op) (i32.const 108))
      (then
        (call $log (i32.const 4) (local.get $args) (local.get $args_len))
        (call $log (i32.const 99) (i32.const 48) (i32.const 7))
        (return (call $pack (local.get $args) (local.get $args_len)))))

    ;; 'b' big log: 70000 bytes, more than the host keeps.
    (if (i32.eq (local.get $op) (i32.const 98))
      (then
        (call $log (i32.const 1) (i32.const 0) (i32.const 70000))
        (return (call $pack (local.get $args) (local.get $args_len)))))

    ;; 'd' dangling log: a message outside memory.
    (if (i32.eq (local.get $op) (i32.const 100))
      (then
        (call $log (i32.const 1) (i32.const 0xFFFFFF00) (i32.const 1000))
        (return (call $pack (local.get $args) (local.get $args_len)))))

    ;; 'z' and anything else: no result.
    (i64.const 0)))
