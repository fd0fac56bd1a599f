;; A guest whose tools all declare an outputSchema and each fail in one way,
;; so that the end-to-end tests can check that every kind of error reaches
;; official clients as a readable result. The first letter of the tool name
;; chooses what the call does:
;;
;;   ok         structuredContent that conforms (and icons and execution)
;;   violate    a successful result whose structuredContent breaks the schema
;;   fail       an error with a text and structuredContent that breaks the schema
;;   quiet      an error with nothing in it
;;   malformed  a document that is not JSON
;;   loop       never returns (the deadline stops it)
;;   grow       grows its memory until refused, then traps
;;   big        a result larger than a small output cap
;;   annotated  content annotations MCP clients refuse (audience "alien")
(module
  (memory (export "memory") 1)

  ;; Documents are NUL-terminated; $doc measures them.
  (data (i32.const 1024) "{\"tools\":["
    "{\"name\":\"ok\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\"}}},\"outputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\"}},\"required\":[\"n\"]},"
      "\"icons\":[{\"src\":\"https://example.com/ok.png\",\"mimeType\":\"image/png\",\"sizes\":[\"48x48\"]}],\"execution\":{\"taskSupport\":\"forbidden\"}},"
    "{\"name\":\"violate\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\"}},\"required\":[\"n\"]}},"
    "{\"name\":\"fail\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\"}},\"required\":[\"n\"]}},"
    "{\"name\":\"quiet\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\"}},\"required\":[\"n\"]}},"
    "{\"name\":\"malformed\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\"}},\"required\":[\"n\"]}},"
    "{\"name\":\"loop\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\"}},\"required\":[\"n\"]}},"
    "{\"name\":\"grow\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\"}},\"required\":[\"n\"]}},"
    "{\"name\":\"big\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\"}},\"required\":[\"n\"]}},"
    "{\"name\":\"annotated\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\"}},\"required\":[\"n\"]}}"
    "]}\00")
  (data (i32.const 4096) "{\"structuredContent\":{\"n\":1}}\00")                                             ;; ok
  (data (i32.const 4352) "{\"structuredContent\":{\"n\":\"one\"}}\00")                                       ;; violate
  (data (i32.const 4608) "{\"content\":[{\"type\":\"text\",\"text\":\"fail: the tool failed on purpose\"}],"
    "\"structuredContent\":{\"reason\":\"on purpose\"},\"isError\":true}\00")                               ;; fail
  (data (i32.const 4864) "{\"isError\":true}\00")                                                           ;; quiet
  (data (i32.const 5120) "{\"content\":[\00")                                                               ;; malformed
  (data (i32.const 5376) "{\"content\":[{\"type\":\"text\",\"text\":\"hi\",\"annotations\":{\"audience\":[\"alien\"],\"priority\":7}}],"
    "\"structuredContent\":{\"n\":1}}\00")                                                                  ;; annotated

  (func (export "wasmcp_abi_version") (result i32)
    (i32.const 1))

  ;; Every request starts at 16384; one more page holds any small input.
  (func (export "wasmcp_alloc") (param $size i32) (result i32)
    (local $need i32)
    (local.set $need (i32.add (i32.const 16384) (local.get $size)))
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

  (func (export "wasmcp_call")
    (param $name i32) (param $name_len i32) (param $args i32) (param $args_len i32)
    (result i64)
    (local $op i32)
    (local.set $op (i32.load8_u (local.get $name)))
    (if (i32.eq (local.get $op) (i32.const 111)) (then (return (call $doc (i32.const 4096)))))  ;; ok
    (if (i32.eq (local.get $op) (i32.const 118)) (then (return (call $doc (i32.const 4352)))))  ;; violate
    (if (i32.eq (local.get $op) (i32.const 102)) (then (return (call $doc (i32.const 4608)))))  ;; fail
    (if (i32.eq (local.get $op) (i32.const 113)) (then (return (call $doc (i32.const 4864)))))  ;; quiet
    (if (i32.eq (local.get $op) (i32.const 109)) (then (return (call $doc (i32.const 5120)))))  ;; malformed
    (if (i32.eq (local.get $op) (i32.const 97))  (then (return (call $doc (i32.const 5376)))))  ;; annotated
    (if (i32.eq (local.get $op) (i32.const 108)) (then (loop $forever (br $forever))))          ;; loop
    (if (i32.eq (local.get $op) (i32.const 103))                                                ;; grow
      (then
        (loop $more
          (br_if $more (i32.ne (memory.grow (i32.const 16)) (i32.const -1))))
        (unreachable)))
    ;; big: the first 60000 bytes of memory, whatever they hold.
    (call $pack (i32.const 0) (i32.const 60000))))
