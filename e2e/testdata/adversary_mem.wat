;; A guest that spends the host's memory every way a guest may, for the
;; adversarial tests (e2e/adversary_memory_test.go):
;;
;;   hold    grows its memory to the limit, writes every page, then loops
;;           until the call's deadline
;;   keep    the same, but returns, so that the instance goes back to the
;;           idle pool holding its memory
;;   tables  grows its table as far as the host lets it, then does as keep
;;   flood   logs 5000 lines of 64 KiB
;;   big     returns a text of n bytes "a", bigx of n bytes "<" (n is the
;;           digits of the first string argument: {"n":"1000"})
;;   echo    answers ok (for large arguments)
(module
  (import "wasmcp" "log" (func $log (param i32 i32 i32)))
  (memory (export "memory") 2)
  (table $t 1 funcref)
  (data (i32.const 16) "{\"tools\":[{\"name\":\"hold\",\"description\":\"Fills its memory to the limit, then loops.\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"keep\",\"description\":\"Fills its memory to the limit and returns.\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"tables\",\"description\":\"Grows its table as far as it may, fills its memory and returns.\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"flood\",\"description\":\"Logs 5000 lines of 64 KiB.\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"big\",\"description\":\"Returns a text of n bytes a.\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"bigx\",\"description\":\"Returns a text of n bytes <.\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"echo\",\"description\":\"Answers ok.\",\"inputSchema\":{\"type\":\"object\"}}]}")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}")
  (data (i32.const 2048) "{\"content\":[{\"type\":\"text\",\"text\":\"")
  (data (i32.const 2112) "\"}]}")

  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))

  ;; fit grows the memory to hold end bytes; false when it cannot.
  (func $fit (param $end i32) (result i32)
    (if (i32.le_u (local.get $end) (i32.mul (memory.size) (i32.const 65536)))
      (then (return (i32.const 1))))
    (i32.ne
      (memory.grow
        (i32.sub
          (i32.div_u (i32.add (local.get $end) (i32.const 65535)) (i32.const 65536))
          (memory.size)))
      (i32.const -1)))

  (func (export "wasmcp_alloc") (param $size i32) (result i32)
    (if (result i32) (call $fit (i32.add (i32.const 4096) (local.get $size)))
      (then (i32.const 4096))
      (else (i32.const 0))))

  (func (export "wasmcp_describe") (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 708)))

  (func $ok (result i64)
    (i64.or (i64.shl (i64.const 1024) (i64.const 32)) (i64.const 41)))

  ;; fill grows the memory until the limit refuses and writes every page
  ;; past the first.
  (func $fill
    (block $done (loop $l
      (br_if $done (i32.eq (memory.grow (i32.const 16)) (i32.const -1)))
      (br $l)))
    (block $done (loop $l
      (br_if $done (i32.eq (memory.grow (i32.const 1)) (i32.const -1)))
      (br $l)))
    (memory.fill (i32.const 65536) (i32.const 1)
      (i32.sub (i32.mul (memory.size) (i32.const 65536)) (i32.const 65536))))

  ;; num reads the digits after the first `:"` of the arguments.
  (func $num (param $p i32) (param $n i32) (result i32)
    (local $end i32) (local $v i32) (local $c i32)
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (block $found (loop $l
      (br_if $found (i32.ge_u (i32.add (local.get $p) (i32.const 1)) (local.get $end)))
      (if (i32.and (i32.eq (i32.load8_u (local.get $p)) (i32.const 58))
                   (i32.eq (i32.load8_u (i32.add (local.get $p) (i32.const 1))) (i32.const 34)))
        (then (local.set $p (i32.add (local.get $p) (i32.const 2))) (br $found)))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (br $l)))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
      (local.set $c (i32.sub (i32.load8_u (local.get $p)) (i32.const 48)))
      (br_if $done (i32.gt_u (local.get $c) (i32.const 9)))
      (local.set $v (i32.add (i32.mul (local.get $v) (i32.const 10)) (local.get $c)))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (br $l)))
    (local.get $v))

  ;; text returns a result of n bytes b, written after the arguments.
  (func $text (param $at i32) (param $n i32) (param $b i32) (result i64)
    (if (i32.eqz (call $fit (i32.add (i32.add (local.get $at) (local.get $n)) (i32.const 64))))
      (then (unreachable)))
    (memory.copy (local.get $at) (i32.const 2048) (i32.const 35))
    (memory.fill (i32.add (local.get $at) (i32.const 35)) (local.get $b) (local.get $n))
    (memory.copy (i32.add (i32.add (local.get $at) (i32.const 35)) (local.get $n)) (i32.const 2112) (i32.const 4))
    (i64.or (i64.shl (i64.extend_i32_u (local.get $at)) (i64.const 32))
            (i64.extend_i32_u (i32.add (local.get $n) (i32.const 39)))))

  (func (export "wasmcp_call")
    (param $name i32) (param $name_len i32) (param $args i32) (param $args_len i32)
    (result i64)
    (local $c i32) (local $i i32)
    (local.set $c (i32.load8_u (local.get $name)))
    ;; hold
    (if (i32.eq (local.get $c) (i32.const 104)) (then
      (call $fill)
      (loop $forever (br $forever))
      (unreachable)))
    ;; keep
    (if (i32.eq (local.get $c) (i32.const 107)) (then
      (call $fill)
      (return (call $ok))))
    ;; tables: the host caps the table (ABI.md section 6), so table.grow
    ;; ends returning -1.
    (if (i32.eq (local.get $c) (i32.const 116)) (then
      (block $done (loop $l
        (br_if $done (i32.eq (table.grow $t (ref.null func) (i32.const 65536)) (i32.const -1)))
        (br $l)))
      (block $done (loop $l
        (br_if $done (i32.eq (table.grow $t (ref.null func) (i32.const 1024)) (i32.const -1)))
        (br $l)))
      (block $done (loop $l
        (br_if $done (i32.eq (table.grow $t (ref.null func) (i32.const 1)) (i32.const -1)))
        (br $l)))
      (call $fill)
      (return (call $ok))))
    ;; flood
    (if (i32.eq (local.get $c) (i32.const 102)) (then
      (drop (call $fit (i32.const 196608)))
      (memory.fill (i32.const 65536) (i32.const 120) (i32.const 65536))
      (block $done (loop $l
        (br_if $done (i32.ge_u (local.get $i) (i32.const 5000)))
        (call $log (i32.const 1) (i32.const 65536) (i32.const 65536))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
      (return (call $ok))))
    ;; big, bigx
    (if (i32.eq (local.get $c) (i32.const 98)) (then
      (return (call $text (i32.add (local.get $args) (local.get $args_len))
        (call $num (local.get $args) (local.get $args_len))
        (select (i32.const 60) (i32.const 97) (i32.eq (local.get $name_len) (i32.const 4)))))))
    (call $ok)))
