;; A guest for the network tests (host/net_test.go, e2e/net_test.go) and
;; the bench (bench/egress.go). Tool fetch passes its arguments on as the
;; head of a wasmcp.http_request document, without a body; fetch_body
;; (any name of 10 bytes) sends them as the head and again as the body. On
;; status 0 the result's structured content is the reply's head (the
;; response) and its text is the response body; on any other status the
;; result is a tool error whose text is "status N " and the message. Texts
;; have quotes and backslashes escaped and control characters made spaces.
;; Tool fetch_quiet (any name of 11 bytes) makes the request like fetch,
;; reads the reply and answers only "ok".
(module
  (import "wasmcp" "http_request" (func $http_request (param i32 i32) (result i64)))
  (import "wasmcp" "read_reply" (func $read_reply (param i32 i32) (result i32)))
  ;; 96 pages: arguments at 64 KiB, the reply at 128 KiB (up to 1 MiB), a
  ;; request with a body at 1.25 MiB, the result at 2 MiB.
  (memory (export "memory") 96)
  ;; The describe document, 442 bytes.
  (data (i32.const 16) "{\"tools\":[{\"name\":\"fetch\",\"description\":\"Makes the HTTP request whose head its arguments are and returns the response.\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"fetch_body\",\"description\":\"Like fetch, with the arguments as the body too.\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"fetch_quiet\",\"description\":\"Makes the request like fetch and reads the reply, but answers only ok.\",\"inputSchema\":{\"type\":\"object\"}}],\"permissions\":{\"net\":[\"*\"]}}")
  (data (i32.const 4096) "{\"structuredContent\":")
  (data (i32.const 4224) ",\"content\":[{\"type\":\"text\",\"text\":\"")
  (data (i32.const 4160) "{\"isError\":true,\"content\":[{\"type\":\"text\",\"text\":\"status ")
  (data (i32.const 4288) "\"}]}")
  (data (i32.const 4352) "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}")

  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param $size i32) (result i32)
    (if (result i32) (i32.gt_u (local.get $size) (i32.const 65536))
      (then (i32.const 0)) (else (i32.const 65536))))
  (func (export "wasmcp_describe") (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 442)))

  ;; Copies n bytes from src to dst as the inside of a JSON string and
  ;; returns the end of what it wrote.
  (func $escape (param $src i32) (param $n i32) (param $dst i32) (result i32)
    (local $i i32) (local $c i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $c (i32.load8_u (i32.add (local.get $src) (local.get $i))))
        (if (i32.or (i32.eq (local.get $c) (i32.const 34)) (i32.eq (local.get $c) (i32.const 92)))
          (then
            (i32.store8 (local.get $dst) (i32.const 92))
            (local.set $dst (i32.add (local.get $dst) (i32.const 1)))))
        (if (i32.lt_u (local.get $c) (i32.const 32)) (then (local.set $c (i32.const 32))))
        (i32.store8 (local.get $dst) (local.get $c))
        (local.set $dst (i32.add (local.get $dst) (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $dst))

  (func (export "wasmcp_call") (param $name i32) (param $name_len i32) (param $args i32) (param $args_len i32) (result i64)
    (local $r i64) (local $status i32) (local $n i32) (local $h i32) (local $o i32)
    (if (i32.eq (local.get $name_len) (i32.const 10))
      (then
        ;; fetch_body: the arguments, a line feed, the arguments.
        (memory.copy (i32.const 1310720) (local.get $args) (local.get $args_len))
        (i32.store8 (i32.add (i32.const 1310720) (local.get $args_len)) (i32.const 10))
        (memory.copy (i32.add (i32.const 1310721) (local.get $args_len)) (local.get $args) (local.get $args_len))
        (local.set $r (call $http_request (i32.const 1310720)
          (i32.add (i32.const 1) (i32.shl (local.get $args_len) (i32.const 1))))))
      (else
        (local.set $r (call $http_request (local.get $args) (local.get $args_len)))))
    (local.set $status (i32.wrap_i64 (i64.shr_u (local.get $r) (i64.const 32))))
    (local.set $n (i32.wrap_i64 (local.get $r)))
    (if (i32.gt_u (local.get $n) (i32.const 1048576)) (then (unreachable)))
    (drop (call $read_reply (i32.const 131072) (local.get $n)))
    (local.set $o (i32.const 2097152))
    (if (i32.eqz (local.get $status))
      (then
        (if (i32.eq (local.get $name_len) (i32.const 11))
          (then (return (i64.or (i64.shl (i64.const 4352) (i64.const 32)) (i64.const 41)))))
        ;; The head ends at the first line feed.
        (block $found
          (loop $scan
            (br_if $found (i32.eq (i32.load8_u (i32.add (i32.const 131072) (local.get $h))) (i32.const 10)))
            (local.set $h (i32.add (local.get $h) (i32.const 1)))
            (br_if $scan (i32.lt_u (local.get $h) (local.get $n)))
            (unreachable)))
        ;; {"structuredContent": head ,"content":[{"type":"text","text":" body "}]}
        (memory.copy (local.get $o) (i32.const 4096) (i32.const 21))
        (memory.copy (i32.add (local.get $o) (i32.const 21)) (i32.const 131072) (local.get $h))
        (local.set $o (i32.add (local.get $o) (i32.add (i32.const 21) (local.get $h))))
        (memory.copy (local.get $o) (i32.const 4224) (i32.const 35))
        (local.set $o (call $escape
          (i32.add (i32.const 131073) (local.get $h))
          (i32.sub (local.get $n) (i32.add (local.get $h) (i32.const 1)))
          (i32.add (local.get $o) (i32.const 35)))))
      (else
        ;; {"isError":true,"content":[{"type":"text","text":"status N message"}]}
        (memory.copy (local.get $o) (i32.const 4160) (i32.const 57))
        (i32.store8 (i32.add (local.get $o) (i32.const 57)) (i32.add (i32.const 48) (local.get $status)))
        (i32.store8 (i32.add (local.get $o) (i32.const 58)) (i32.const 32))
        (local.set $o (call $escape (i32.const 131072) (local.get $n) (i32.add (local.get $o) (i32.const 59))))))
    (memory.copy (local.get $o) (i32.const 4288) (i32.const 4))
    (i64.or (i64.shl (i64.const 2097152) (i64.const 32))
      (i64.extend_i32_u (i32.sub (i32.add (local.get $o) (i32.const 4)) (i32.const 2097152))))))
