;; A plugin whose tools misbehave, for the hostile plugin tests of
;; hostile_test.go. The first letter of the tool name chooses what it does:
;;
;;   recurse  calls itself until the stack is exhausted (a trap)
;;   flood    logs 20000 lines of 100 bytes, then answers "flooded"
;;   huge     logs 200 lines of 70000 bytes (over the per-line cap), then answers
;;   spin     loops forever (stopped by the deadline)
;;   memory   grows its memory a page at a time until refused, then traps
;;   ok       answers "ok"
(module
  (import "wasmcp" "log" (func $log (param i32 i32 i32)))
  (memory (export "memory") 3)
  (data (i32.const 16) "{\"tools\":["
    "{\"name\":\"recurse\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"flood\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"huge\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"spin\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"memory\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"ok\",\"inputSchema\":{\"type\":\"object\"}}]}")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"flooded\"}]}") ;; 46 bytes
  (data (i32.const 1100) "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}")      ;; 41 bytes

  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param $size i32) (result i32)
    (if (result i32) (i32.gt_u (local.get $size) (i32.const 65536))
      (then (i32.const 0)) (else (i32.const 131072))))
  (func $len (param $p i32) (result i32)
    (local $n i32)
    (block $end
      (loop $scan
        (br_if $end (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $n)))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $scan)))
    (local.get $n))
  (func (export "wasmcp_describe") (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.extend_i32_u (call $len (i32.const 16)))))

  (func $recurse (param $n i32) (result i32)
    (i32.add (call $recurse (i32.add (local.get $n) (i32.const 1))) (i32.const 1)))

  (func $logs (param $lines i32) (param $size i32)
    (local $i i32)
    (loop $again
      (call $log (i32.const 1) (i32.const 65536) (local.get $size))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $again (i32.lt_u (local.get $i) (local.get $lines)))))

  (func (export "wasmcp_call") (param $name i32) (param i32 i32 i32) (result i64)
    (local $op i32)
    (local.set $op (i32.load8_u (local.get $name)))
    (if (i32.eq (local.get $op) (i32.const 114)) ;; r
      (then (drop (call $recurse (i32.const 0)))))
    (if (i32.eq (local.get $op) (i32.const 102)) ;; f
      (then
        (memory.fill (i32.const 65536) (i32.const 97) (i32.const 100))
        (call $logs (i32.const 20000) (i32.const 100))
        (return (i64.or (i64.shl (i64.const 1024) (i64.const 32)) (i64.const 46)))))
    (if (i32.eq (local.get $op) (i32.const 104)) ;; h
      (then
        (memory.fill (i32.const 65536) (i32.const 98) (i32.const 70000))
        (call $logs (i32.const 200) (i32.const 70000))
        (return (i64.or (i64.shl (i64.const 1024) (i64.const 32)) (i64.const 46)))))
    (if (i32.eq (local.get $op) (i32.const 109)) ;; m
      (then
        (loop $grow (br_if $grow (i32.ne (memory.grow (i32.const 1)) (i32.const -1))))
        (unreachable)))
    (if (i32.eq (local.get $op) (i32.const 115)) ;; s
      (then (loop $forever (br $forever))))
    (i64.or (i64.shl (i64.const 1100) (i64.const 32)) (i64.const 41))))
