;; A guest that uses the client-feature host functions of ABI.md section 5,
;; for the sandbox tests. The first letter of the tool name chooses what it
;; does (see wasmcp_call). Results are raw bytes, not Result documents: the
;; sandbox does not read them.
(module
  (import "wasmcp" "progress" (func $progress (param f64 f64 i32 i32)))
  (import "wasmcp" "cancelled" (func $cancelled (result i32)))
  (import "wasmcp" "sample" (func $sample (param i32 i32) (result i64)))
  (import "wasmcp" "elicit" (func $elicit (param i32 i32) (result i64)))
  (import "wasmcp" "read_reply" (func $read_reply (param i32 i32) (result i32)))

  ;; Page 0: constants and the arguments at 4096; page 1: the output.
  (memory (export "memory") 2)

  (data (i32.const 16) "{\"tools\":[]}") ;; 12 bytes
  (data (i32.const 32) "step one")       ;; 8 bytes
  (data (i32.const 48) "done")           ;; 4 bytes

  (func (export "wasmcp_abi_version") (result i32)
    (i32.const 1))

  (func (export "wasmcp_alloc") (param $size i32) (result i32)
    (if (i32.gt_u (local.get $size) (i32.const 60000))
      (then (return (i32.const 0))))
    (i32.const 4096))

  (func $pack (param $ptr i32) (param $len i32) (result i64)
    (i64.or
      (i64.shl (i64.extend_i32_u (local.get $ptr)) (i64.const 32))
      (i64.extend_i32_u (local.get $len))))

  (func (export "wasmcp_describe") (result i64)
    (call $pack (i32.const 16) (i32.const 12)))

  ;; ask writes, at 65536, the status digit of a sample (or elicit) of the
  ;; arguments followed by the first $max bytes of the reply, and returns
  ;; the packed output.
  (func $ask (param $elicit i32) (param $args i32) (param $args_len i32) (param $max i32) (result i64)
    (local $r i64)
    (local $n i32)
    (local.set $r
      (if (result i64) (local.get $elicit)
        (then (call $elicit (local.get $args) (local.get $args_len)))
        (else (call $sample (local.get $args) (local.get $args_len)))))
    (i32.store8 (i32.const 65536)
      (i32.add (i32.const 48) (i32.wrap_i64 (i64.shr_u (local.get $r) (i64.const 32)))))
    (local.set $n (call $read_reply (i32.const 65537)
      (select (local.get $max) (i32.wrap_i64 (local.get $r))
        (i32.lt_u (local.get $max) (i32.wrap_i64 (local.get $r))))))
    (call $pack (i32.const 65536) (i32.add (local.get $n) (i32.const 1))))

  (func (export "wasmcp_call")
    (param $name i32) (param $name_len i32) (param $args i32) (param $args_len i32)
    (result i64)
    (local $c i32)
    (local $v i32)
    (local.set $c (i32.load8_u (local.get $name)))

    ;; "progress": five reports, of which the second (not increasing) and
    ;; the fourth (NaN) must be dropped.
    (if (i32.eq (local.get $c) (i32.const 112)) ;; 'p'
      (then
        (call $progress (f64.const 1) (f64.const 3) (i32.const 32) (i32.const 8))
        (call $progress (f64.const 1) (f64.const 3) (i32.const 0) (i32.const 0))
        (call $progress (f64.const 2) (f64.const -1) (i32.const 0) (i32.const 0))
        (call $progress (f64.const nan) (f64.const 3) (i32.const 0) (i32.const 0))
        (call $progress (f64.const 3) (f64.const 3) (i32.const 48) (i32.const 4))
        (return (call $pack (i32.const 48) (i32.const 4)))))

    ;; "cancelled": progress 1, then progress 2 + cancelled(); returns the
    ;; digit of cancelled().
    (if (i32.eq (local.get $c) (i32.const 99)) ;; 'c'
      (then
        (call $progress (f64.const 1) (f64.const -1) (i32.const 0) (i32.const 0))
        (local.set $v (call $cancelled))
        (call $progress (f64.add (f64.const 2) (f64.convert_i32_u (local.get $v)))
          (f64.const -1) (i32.const 0) (i32.const 0))
        (i32.store8 (i32.const 65536) (i32.add (i32.const 48) (local.get $v)))
        (return (call $pack (i32.const 65536) (i32.const 1)))))

    ;; "sample" and "elicit": the status digit and the whole reply.
    (if (i32.eq (local.get $c) (i32.const 115)) ;; 's'
      (then (return (call $ask (i32.const 0) (local.get $args) (local.get $args_len) (i32.const 60000)))))
    (if (i32.eq (local.get $c) (i32.const 101)) ;; 'e'
      (then (return (call $ask (i32.const 1) (local.get $args) (local.get $args_len) (i32.const 60000)))))

    ;; "read3": a sample, of whose reply only 3 bytes are read.
    (if (i32.eq (local.get $c) (i32.const 114)) ;; 'r'
      (then (return (call $ask (i32.const 0) (local.get $args) (local.get $args_len) (i32.const 3)))))

    ;; "noreply": read_reply before any request copies nothing.
    (if (i32.eq (local.get $c) (i32.const 110)) ;; 'n'
      (then
        (i32.store8 (i32.const 65536) (i32.add (i32.const 48) (call $read_reply (i32.const 65537) (i32.const 100))))
        (return (call $pack (i32.const 65536) (i32.const 1)))))

    ;; "badreply": a sample, then read_reply into a region outside memory.
    (if (i32.eq (local.get $c) (i32.const 98)) ;; 'b'
      (then
        (drop (call $sample (local.get $args) (local.get $args_len)))
        (drop (call $read_reply (i32.const 131000) (i32.const 1000)))
        (return (call $pack (i32.const 48) (i32.const 4)))))

    ;; "flood": samples until the host ends the call.
    (if (i32.eq (local.get $c) (i32.const 102)) ;; 'f'
      (then (loop $more
        (drop (call $sample (local.get $args) (local.get $args_len)))
        (br $more))))

    ;; "wait": a sample, then a loop that only the deadline ends.
    (if (i32.eq (local.get $c) (i32.const 119)) ;; 'w'
      (then
        (drop (call $sample (local.get $args) (local.get $args_len)))
        (loop $forever (br $forever))))
    (call $pack (i32.const 48) (i32.const 4))))
