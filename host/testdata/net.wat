;; A guest for the network tests (host/net_test.go, e2e/net_test.go) and
;; the bench (bench/egress.go): tool fetch, whose arguments are a
;; wasmcp.http_request document, passed on as they are. It asks for every
;; origin the policy allows. On status 0 the result's structured content is
;; the reply (the response document); on any other status the result is a
;; tool error whose text is "status N " and the message (quotes and
;; backslashes escaped, control characters made spaces). Tool fetch_quiet
;; (any name of 11 bytes) does the same but, on status 0, reads the reply
;; and answers only "ok".
(module
  (import "wasmcp" "http_request" (func $http_request (param i32 i32) (result i64)))
  (import "wasmcp" "read_reply" (func $read_reply (param i32 i32) (result i32)))
  ;; 32 pages: arguments at 64 KiB, the reply and result at 128 KiB (up to
  ;; 896 KiB), a message at 1 MiB, its tool error at 1.25 MiB.
  (memory (export "memory") 32)
  ;; The describe document, 337 bytes.
  (data (i32.const 16) "{\"tools\":[{\"name\":\"fetch\",\"description\":\"Makes the HTTP request its arguments are (an http_request document) and returns the reply.\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"fetch_quiet\",\"description\":\"Makes the request like fetch and reads the reply, but answers only ok.\",\"inputSchema\":{\"type\":\"object\"}}],\"permissions\":{\"net\":[\"*\"]}}")
  (data (i32.const 4096) "{\"structuredContent\":")
  (data (i32.const 4160) "{\"isError\":true,\"content\":[{\"type\":\"text\",\"text\":\"status ")
  (data (i32.const 4288) "\"}]}")
  (data (i32.const 4352) "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}")

  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param $size i32) (result i32)
    (if (result i32) (i32.gt_u (local.get $size) (i32.const 65536))
      (then (i32.const 0)) (else (i32.const 65536))))
  (func (export "wasmcp_describe") (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 337)))

  (func (export "wasmcp_call") (param $name i32) (param $name_len i32) (param $args i32) (param $args_len i32) (result i64)
    (local $r i64) (local $status i32) (local $n i32) (local $i i32) (local $o i32) (local $c i32)
    (local.set $r (call $http_request (local.get $args) (local.get $args_len)))
    (local.set $status (i32.wrap_i64 (i64.shr_u (local.get $r) (i64.const 32))))
    (local.set $n (i32.wrap_i64 (local.get $r)))
    (if (i32.eqz (local.get $status))
      (then
        ;; {"structuredContent": reply }
        (if (i32.gt_u (local.get $n) (i32.const 917000)) (then (unreachable)))
        (memory.copy (i32.const 131072) (i32.const 4096) (i32.const 21))
        (drop (call $read_reply (i32.const 131093) (local.get $n)))
        (if (i32.eq (local.get $name_len) (i32.const 11))
          (then (return (i64.or (i64.shl (i64.const 4352) (i64.const 32)) (i64.const 41)))))
        (i32.store8 (i32.add (i32.const 131093) (local.get $n)) (i32.const 125))
        (return (i64.or (i64.shl (i64.const 131072) (i64.const 32))
          (i64.extend_i32_u (i32.add (local.get $n) (i32.const 22)))))))
    (if (i32.gt_u (local.get $n) (i32.const 65536)) (then (local.set $n (i32.const 65536))))
    (drop (call $read_reply (i32.const 1048576) (local.get $n)))
    (memory.copy (i32.const 1310720) (i32.const 4160) (i32.const 57))
    (local.set $o (i32.add (i32.const 1310720) (i32.const 57)))
    (i32.store8 (local.get $o) (i32.add (i32.const 48) (local.get $status)))
    (i32.store8 (i32.add (local.get $o) (i32.const 1)) (i32.const 32))
    (local.set $o (i32.add (local.get $o) (i32.const 2)))
    (block $done
      (loop $escape
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $c (i32.load8_u (i32.add (i32.const 1048576) (local.get $i))))
        (if (i32.or (i32.eq (local.get $c) (i32.const 34)) (i32.eq (local.get $c) (i32.const 92)))
          (then
            (i32.store8 (local.get $o) (i32.const 92))
            (local.set $o (i32.add (local.get $o) (i32.const 1)))))
        (if (i32.lt_u (local.get $c) (i32.const 32)) (then (local.set $c (i32.const 32))))
        (i32.store8 (local.get $o) (local.get $c))
        (local.set $o (i32.add (local.get $o) (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $escape)))
    (memory.copy (local.get $o) (i32.const 4288) (i32.const 4))
    (i64.or (i64.shl (i64.const 1310720) (i64.const 32))
      (i64.extend_i32_u (i32.sub (i32.add (local.get $o) (i32.const 4)) (i32.const 1310720))))))
