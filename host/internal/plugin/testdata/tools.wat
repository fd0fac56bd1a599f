;; A plugin whose tools return fixed, hand-written results, well-formed and
;; not, so that the plugin tests can check how each is decoded, validated
;; and completed. The first letter of the tool name chooses the result.
(module
  (import "wasmcp" "log" (func $log (param i32 i32 i32)))

  (memory (export "memory") 1)

  ;; Documents are NUL-terminated; $doc measures them.
  (data (i32.const 16) "{\"structuredContent\":")   ;; 21 bytes, the prefix of an echo
  (data (i32.const 48) "echo called")               ;; 11 bytes
  (data (i32.const 64) "looping")                   ;; 7 bytes

  (data (i32.const 1024) "{\"tools\":["
    "{\"name\":\"echo\",\"title\":\"Echo\",\"description\":\"Returns its arguments as structured content.\","
      "\"inputSchema\":{\"type\":\"object\"},\"annotations\":{\"readOnlyHint\":true},\"_meta\":{\"x\":1},\"future\":true},"
    "{\"name\":\"typed\",\"inputSchema\":{\"type\":\"object\"},"
      "\"outputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\"}},\"required\":[\"n\"]}},"
    "{\"name\":\"nostruct\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"fail\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\",\"required\":[\"n\"]}},"
    "{\"name\":\"malformed\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"utf8\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"block\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"array\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"plain\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"void\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"collection\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"strict\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},"
      "\"required\":[\"n\"],\"additionalProperties\":false}},"
    "{\"name\":\"loop\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"zero\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"image\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"keeps\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\",\"required\":[\"n\"]}},"
    "{\"name\":\"drops\",\"inputSchema\":{\"type\":\"object\"},"
      "\"outputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\"}}}},"
    "{\"name\":\"quiet\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"whole\",\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"xenial\",\"inputSchema\":{\"type\":\"object\"},\"icons\":[{\"src\":\"https://example.com/x.png\",\"sizes\":[\"48x48\"]}],"
      "\"execution\":{\"taskSupport\":\"forbidden\"}}"
    "]}\00")

  ;; Fixed results, 256 bytes apart.
  (data (i32.const 4096) "{\"content\":[{\"type\":\"text\",\"text\":\"no structure\"}]}\00")      ;; nostruct
  (data (i32.const 4352) "{\"content\":[{\"type\":\"text\",\"text\":\"bad input\"}],\"isError\":true}\00") ;; fail
  (data (i32.const 4608) "{\"content\":[\00")                                                  ;; malformed
  (data (i32.const 4864) "{\"content\":[{\"type\":\"text\",\"text\":\"\ff\"}]}\00")             ;; utf8
  (data (i32.const 5120) "{\"content\":[{\"type\":\"video\",\"text\":\"x\"}]}\00")             ;; block
  (data (i32.const 5376) "[1,2]\00")                                                           ;; array
  (data (i32.const 5632) "{\"content\":[{\"type\":\"text\",\"text\":\"hello\"}],\"future\":{\"x\":1},\"_meta\":{\"k\":\"v\"}}\00") ;; plain
  (data (i32.const 5888) "{}\00")                                                              ;; void
  (data (i32.const 6144) "{\"structuredContent\":[1]}\00")                                     ;; collection
  (data (i32.const 6400) "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}\00")             ;; strict
  (data (i32.const 6656) "{\"content\":[{\"type\":\"image\",\"data\":\"aGk=\",\"mimeType\":\"image/png\"},"
    "{\"type\":\"resource\",\"resource\":{\"uri\":\"file:///a.txt\",\"text\":\"a\"}}],"
    "\"structuredContent\": { \"a\" : 1 }}\00")                                                ;; image
  (data (i32.const 6912) "{\"content\":[{\"type\":\"text\",\"text\":\"no luck\"}],\"structuredContent\":{\"n\":7},\"isError\":true}\00") ;; keeps
  (data (i32.const 7168) "{\"content\":[{\"type\":\"text\",\"text\":\"no luck\"}],\"structuredContent\":{\"n\":\"seven\"},\"isError\":true}\00") ;; drops
  (data (i32.const 7424) "{\"isError\":true}\00")                                             ;; quiet
  (data (i32.const 7680) "{\"structuredContent\":{\"n\":1},\"isError\":true}\00")           ;; whole
  (data (i32.const 7936) "{\"content\":[{\"type\":\"text\",\"text\":\"hi\",\"annotations\":{\"audience\":[\"alien\"]}}]}\00") ;; xenial

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

  ;; {"structuredContent": ARGS}, written after the arguments.
  (func $structured (param $args i32) (param $len i32) (result i64)
    (local $out i32)
    (local.set $out (i32.add (local.get $args) (local.get $len)))
    (memory.copy (local.get $out) (i32.const 16) (i32.const 21))
    (memory.copy (i32.add (local.get $out) (i32.const 21)) (local.get $args) (local.get $len))
    (i32.store8 (i32.add (local.get $out) (i32.add (i32.const 21) (local.get $len))) (i32.const 125))
    (call $pack (local.get $out) (i32.add (local.get $len) (i32.const 22))))

  (func (export "wasmcp_describe") (result i64)
    (call $doc (i32.const 1024)))

  (func (export "wasmcp_call")
    (param $name i32) (param $name_len i32) (param $args i32) (param $args_len i32)
    (result i64)
    (local $op i32)
    (local.set $op (i32.load8_u (local.get $name)))
    ;; echo: logs, then returns the arguments as structured content.
    (if (i32.eq (local.get $op) (i32.const 101))
      (then
        (call $log (i32.const 1) (i32.const 48) (i32.const 11))
        (return (call $structured (local.get $args) (local.get $args_len)))))
    ;; typed: the arguments as structured content, checked by outputSchema.
    (if (i32.eq (local.get $op) (i32.const 116))
      (then (return (call $structured (local.get $args) (local.get $args_len)))))
    ;; loop: logs, then loops forever.
    (if (i32.eq (local.get $op) (i32.const 108))
      (then
        (call $log (i32.const 1) (i32.const 64) (i32.const 7))
        (loop $forever (br $forever))))
    (if (i32.eq (local.get $op) (i32.const 110)) (then (return (call $doc (i32.const 4096)))))  ;; nostruct
    (if (i32.eq (local.get $op) (i32.const 102)) (then (return (call $doc (i32.const 4352)))))  ;; fail
    (if (i32.eq (local.get $op) (i32.const 109)) (then (return (call $doc (i32.const 4608)))))  ;; malformed
    (if (i32.eq (local.get $op) (i32.const 117)) (then (return (call $doc (i32.const 4864)))))  ;; utf8
    (if (i32.eq (local.get $op) (i32.const 98))  (then (return (call $doc (i32.const 5120)))))  ;; block
    (if (i32.eq (local.get $op) (i32.const 97))  (then (return (call $doc (i32.const 5376)))))  ;; array
    (if (i32.eq (local.get $op) (i32.const 112)) (then (return (call $doc (i32.const 5632)))))  ;; plain
    (if (i32.eq (local.get $op) (i32.const 118)) (then (return (call $doc (i32.const 5888)))))  ;; void
    (if (i32.eq (local.get $op) (i32.const 99))  (then (return (call $doc (i32.const 6144)))))  ;; collection
    (if (i32.eq (local.get $op) (i32.const 115)) (then (return (call $doc (i32.const 6400)))))  ;; strict
    (if (i32.eq (local.get $op) (i32.const 105)) (then (return (call $doc (i32.const 6656)))))  ;; image
    (if (i32.eq (local.get $op) (i32.const 107)) (then (return (call $doc (i32.const 6912)))))  ;; keeps
    (if (i32.eq (local.get $op) (i32.const 100)) (then (return (call $doc (i32.const 7168)))))  ;; drops
    (if (i32.eq (local.get $op) (i32.const 113)) (then (return (call $doc (i32.const 7424)))))  ;; quiet
    (if (i32.eq (local.get $op) (i32.const 119)) (then (return (call $doc (i32.const 7680)))))  ;; whole
    (if (i32.eq (local.get $op) (i32.const 120)) (then (return (call $doc (i32.const 7936)))))  ;; xenial
    ;; zero, and anything else: no result.
    (i64.const 0)))
