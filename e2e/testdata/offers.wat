;; A guest that offers resources, a resource template, prompts, completion and
;; an MCP Apps view beside one tool, so that the end-to-end tests can drive
;; every method of ABI.md's "Resources and prompts" with real clients.
;;
;;   tool show                 names its view in _meta.ui.resourceUri
;;   offers://text             text
;;   offers://blob             binary (base64 "AAECAw==")
;;   offers://empty            an empty text
;;   offers://secret           text, which the tests' views hide
;;   ui://offers/view          the app view; its CSP asks for one origin the
;;                             module requests and one it does not
;;   offers://many/0000..1009  1010 more resources, so that lists need pages
;;   offers://items/{id}       a template: "item ID"; id "missing" is the
;;                             guest's own -32002, id "trap" traps
;;   prompt greet              arguments name (required) and style; its first
;;                             message carries the arguments it got in _meta
;;   prompt refuse             the guest's own -32602
;;   prompt secret_prompt      hidden by the tests' views
;;   prompts many_0000..1009   so that prompts/list needs pages
;;   completion                Ada, Alan, Grace for any argument
;;
;; The describe document is written at the first wasmcp_describe from the
;; fragments below (the many resources and prompts in a loop).
(module
  (memory (export "memory") 5)

  ;; Fragments and documents are NUL-terminated.
  (data (i32.const 1024) "{\"tools\":[{\"name\":\"show\",\"description\":\"Shows the offers view\","
    "\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false},\"_meta\":{\"ui\":{\"resourceUri\":\"ui://offers/view\"}}}],"
    "\"permissions\":{\"net\":[\"https://api.example.com\"]},"
    "\"resources\":["
    "{\"uri\":\"offers://text\",\"name\":\"text\",\"title\":\"Plain text\",\"mimeType\":\"text/plain\",\"size\":10},"
    "{\"uri\":\"offers://blob\",\"name\":\"blob\",\"mimeType\":\"application/octet-stream\",\"size\":4},"
    "{\"uri\":\"offers://empty\",\"name\":\"empty\",\"mimeType\":\"text/plain\",\"size\":0},"
    "{\"uri\":\"offers://secret\",\"name\":\"secret\",\"mimeType\":\"text/plain\"},"
    "{\"uri\":\"ui://offers/view\",\"name\":\"view\",\"mimeType\":\"text/html;profile=mcp-app\","
      "\"_meta\":{\"ui\":{\"csp\":{\"connectDomains\":[\"https://api.example.com\",\"https://evil.example\"]}}}}\00")
  (data (i32.const 5120) ",{\"uri\":\"offers://many/\00")
  (data (i32.const 5184) "\",\"name\":\"many-\00")
  (data (i32.const 5248) "\"}\00")
  (data (i32.const 5312) "],\"resourceTemplates\":[{\"uriTemplate\":\"offers://items/{id}\",\"name\":\"item\",\"mimeType\":\"text/plain\"}],"
    "\"prompts\":[{\"name\":\"greet\",\"title\":\"Greet\",\"description\":\"Greets someone\","
      "\"arguments\":[{\"name\":\"name\",\"required\":true},{\"name\":\"style\"}]},"
    "{\"name\":\"refuse\"},{\"name\":\"secret_prompt\"}\00")
  (data (i32.const 6144) ",{\"name\":\"many_\00")
  (data (i32.const 6208) "\"}\00")
  (data (i32.const 6272) "]}\00")

  (data (i32.const 6400) "{\"contents\":[{\"uri\":\"offers://text\",\"mimeType\":\"text/plain\",\"text\":\"plain text\"}]}\00")
  (data (i32.const 6656) "{\"contents\":[{\"uri\":\"offers://blob\",\"mimeType\":\"application/octet-stream\",\"blob\":\"AAECAw==\"}]}\00")
  (data (i32.const 6912) "{\"contents\":[{\"uri\":\"offers://empty\",\"mimeType\":\"text/plain\",\"text\":\"\"}]}\00")
  (data (i32.const 7168) "{\"contents\":[{\"uri\":\"offers://secret\",\"mimeType\":\"text/plain\",\"text\":\"secret\"}]}\00")
  (data (i32.const 7424) "{\"contents\":[{\"uri\":\"ui://offers/view\",\"mimeType\":\"text/html;profile=mcp-app\","
    "\"text\":\"<!doctype html><title>offers</title><p>view</p>\","
    "\"_meta\":{\"ui\":{\"csp\":{\"connectDomains\":[\"https://api.example.com\",\"https://evil.example\"]}}}}]}\00")
  (data (i32.const 8192) "{\"contents\":[{\"uri\":\"\00")
  (data (i32.const 8256) "\",\"mimeType\":\"text/plain\",\"text\":\"item \00")
  (data (i32.const 8320) "\"}]}\00")
  (data (i32.const 8384) "\",\"text\":\"many\"}]}\00")
  (data (i32.const 8448) "{\"error\":{\"code\":-32002,\"message\":\"no such item\"}}\00")
  (data (i32.const 8576) "{\"description\":\"A greeting\",\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\","
    "\"text\":\"Greet the person these arguments name.\",\"_meta\":{\"arguments\":\00")
  (data (i32.const 8832) "}}},{\"role\":\"assistant\",\"content\":{\"type\":\"resource\","
    "\"resource\":{\"uri\":\"offers://text\",\"mimeType\":\"text/plain\",\"text\":\"plain text\"}}}]}\00")
  (data (i32.const 9216) "{\"error\":{\"code\":-32602,\"message\":\"the guest refuses\"}}\00")
  (data (i32.const 9344) "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"a prompt\"}}]}\00")
  (data (i32.const 9472) "{\"values\":[\"Ada\",\"Alan\",\"Grace\"],\"total\":3}\00")
  (data (i32.const 9600) "{\"content\":[{\"type\":\"text\",\"text\":\"shown\"}]}\00")

  (data (i32.const 9728) "offers://text\00")
  (data (i32.const 9760) "offers://blob\00")
  (data (i32.const 9792) "offers://empty\00")
  (data (i32.const 9824) "offers://secret\00")
  (data (i32.const 9856) "ui://offers/view\00")
  (data (i32.const 9888) "offers://items/\00")
  (data (i32.const 9920) "offers://many/\00")
  (data (i32.const 9952) "missing\00")
  (data (i32.const 9968) "trap\00")
  (data (i32.const 9984) "greet\00")
  (data (i32.const 10000) "refuse\00")

  ;; The describe document, once written.
  (global $describe_len (mut i32) (i32.const 0))
  ;; Where a built document goes: after the input of the last wasmcp_alloc.
  (global $out (mut i32) (i32.const 262144))

  (func (export "wasmcp_abi_version") (result i32)
    (i32.const 1))

  ;; The input goes at 262144; memory grows to hold it and, after it, a
  ;; built document that may echo it (a prompt's arguments) with room to
  ;; spare.
  (func (export "wasmcp_alloc") (param $size i32) (result i32)
    (local $need i32)
    (global.set $out (i32.and (i32.add (i32.add (i32.const 262144) (local.get $size)) (i32.const 15)) (i32.const -16)))
    (local.set $need (i32.add (i32.add (global.get $out) (local.get $size)) (i32.const 65536)))
    (if (i32.gt_u (local.get $need) (i32.mul (memory.size) (i32.const 65536)))
      (then
        (if (i32.eq
              (memory.grow
                (i32.sub
                  (i32.div_u (i32.add (local.get $need) (i32.const 65535)) (i32.const 65536))
                  (memory.size)))
              (i32.const -1))
          (then (return (i32.const 0))))))
    (i32.const 262144))

  (func $pack (param $ptr i32) (param $len i32) (result i64)
    (i64.or
      (i64.shl (i64.extend_i32_u (local.get $ptr)) (i64.const 32))
      (i64.extend_i32_u (local.get $len))))

  (func $strlen (param $p i32) (result i32)
    (local $end i32)
    (local.set $end (local.get $p))
    (block $found
      (loop $next
        (br_if $found (i32.eqz (i32.load8_u (local.get $end))))
        (local.set $end (i32.add (local.get $end) (i32.const 1)))
        (br $next)))
    (i32.sub (local.get $end) (local.get $p)))

  ;; The packed region of the NUL-terminated document at $p.
  (func $doc (param $p i32) (result i64)
    (call $pack (local.get $p) (call $strlen (local.get $p))))

  ;; $putn copies $n bytes from $src to $dst; $put, a NUL-terminated string.
  ;; Both return the end of what they wrote.
  (func $putn (param $dst i32) (param $src i32) (param $n i32) (result i32)
    (memory.copy (local.get $dst) (local.get $src) (local.get $n))
    (i32.add (local.get $dst) (local.get $n)))

  (func $put (param $dst i32) (param $src i32) (result i32)
    (call $putn (local.get $dst) (local.get $src) (call $strlen (local.get $src))))

  ;; $digits4 writes $n (< 10000) as four decimal digits.
  (func $digits4 (param $dst i32) (param $n i32) (result i32)
    (i32.store8 offset=0 (local.get $dst) (i32.add (i32.const 48) (i32.div_u (local.get $n) (i32.const 1000))))
    (i32.store8 offset=1 (local.get $dst) (i32.add (i32.const 48) (i32.rem_u (i32.div_u (local.get $n) (i32.const 100)) (i32.const 10))))
    (i32.store8 offset=2 (local.get $dst) (i32.add (i32.const 48) (i32.rem_u (i32.div_u (local.get $n) (i32.const 10)) (i32.const 10))))
    (i32.store8 offset=3 (local.get $dst) (i32.add (i32.const 48) (i32.rem_u (local.get $n) (i32.const 10))))
    (i32.add (local.get $dst) (i32.const 4)))

  ;; $prefix reports whether the $len bytes at $p begin with the
  ;; NUL-terminated string $s; $is, whether they are $s.
  (func $prefix (param $p i32) (param $len i32) (param $s i32) (result i32)
    (local $i i32)
    (local $n i32)
    (local.set $n (call $strlen (local.get $s)))
    (if (i32.lt_u (local.get $len) (local.get $n)) (then (return (i32.const 0))))
    (block $done
      (loop $next
        (br_if $done (i32.eq (local.get $i) (local.get $n)))
        (if (i32.ne (i32.load8_u (i32.add (local.get $p) (local.get $i)))
                    (i32.load8_u (i32.add (local.get $s) (local.get $i))))
          (then (return (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.const 1))

  (func $is (param $p i32) (param $len i32) (param $s i32) (result i32)
    (i32.and
      (i32.eq (local.get $len) (call $strlen (local.get $s)))
      (call $prefix (local.get $p) (local.get $len) (local.get $s))))

  (func (export "wasmcp_describe") (result i64)
    (local $at i32)
    (local $i i32)
    (if (i32.eqz (global.get $describe_len))
      (then
        (local.set $at (call $put (i32.const 65536) (i32.const 1024)))
        (local.set $i (i32.const 0))
        (loop $resource
          (local.set $at (call $put (local.get $at) (i32.const 5120)))
          (local.set $at (call $digits4 (local.get $at) (local.get $i)))
          (local.set $at (call $put (local.get $at) (i32.const 5184)))
          (local.set $at (call $digits4 (local.get $at) (local.get $i)))
          (local.set $at (call $put (local.get $at) (i32.const 5248)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $resource (i32.lt_u (local.get $i) (i32.const 1010))))
        (local.set $at (call $put (local.get $at) (i32.const 5312)))
        (local.set $i (i32.const 0))
        (loop $prompt
          (local.set $at (call $put (local.get $at) (i32.const 6144)))
          (local.set $at (call $digits4 (local.get $at) (local.get $i)))
          (local.set $at (call $put (local.get $at) (i32.const 6208)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $prompt (i32.lt_u (local.get $i) (i32.const 1010))))
        (local.set $at (call $put (local.get $at) (i32.const 6272)))
        (global.set $describe_len (i32.sub (local.get $at) (i32.const 65536)))))
    (call $pack (i32.const 65536) (global.get $describe_len)))

  (func (export "wasmcp_call")
    (param $name i32) (param $name_len i32) (param $args i32) (param $args_len i32)
    (result i64)
    (call $doc (i32.const 9600)))

  ;; wasmcp_read answers the URIs the module lists and those of its
  ;; template. A built document echoes the URI: the host never sends one
  ;; with a quote or a backslash to a template of this prefix unescaped,
  ;; and a malformed document would be the host's to refuse anyway.
  (func (export "wasmcp_read") (param $uri i32) (param $len i32) (result i64)
    (local $at i32)
    (local $id i32)
    (local $id_len i32)
    (if (call $is (local.get $uri) (local.get $len) (i32.const 9728)) (then (return (call $doc (i32.const 6400)))))
    (if (call $is (local.get $uri) (local.get $len) (i32.const 9760)) (then (return (call $doc (i32.const 6656)))))
    (if (call $is (local.get $uri) (local.get $len) (i32.const 9792)) (then (return (call $doc (i32.const 6912)))))
    (if (call $is (local.get $uri) (local.get $len) (i32.const 9824)) (then (return (call $doc (i32.const 7168)))))
    (if (call $is (local.get $uri) (local.get $len) (i32.const 9856)) (then (return (call $doc (i32.const 7424)))))
    (if (call $prefix (local.get $uri) (local.get $len) (i32.const 9920))
      (then
        (local.set $at (call $put (global.get $out) (i32.const 8192)))
        (local.set $at (call $putn (local.get $at) (local.get $uri) (local.get $len)))
        (local.set $at (call $put (local.get $at) (i32.const 8384)))
        (return (call $pack (global.get $out) (i32.sub (local.get $at) (global.get $out))))))
    (if (i32.eqz (call $prefix (local.get $uri) (local.get $len) (i32.const 9888)))
      (then (return (call $doc (i32.const 8448)))))
    (local.set $id (i32.add (local.get $uri) (i32.const 15)))
    (local.set $id_len (i32.sub (local.get $len) (i32.const 15)))
    (if (call $is (local.get $id) (local.get $id_len) (i32.const 9952)) (then (return (call $doc (i32.const 8448)))))
    (if (call $is (local.get $id) (local.get $id_len) (i32.const 9968)) (then (unreachable)))
    (local.set $at (call $put (global.get $out) (i32.const 8192)))
    (local.set $at (call $putn (local.get $at) (local.get $uri) (local.get $len)))
    (local.set $at (call $put (local.get $at) (i32.const 8256)))
    (local.set $at (call $putn (local.get $at) (local.get $id) (local.get $id_len)))
    (local.set $at (call $put (local.get $at) (i32.const 8320)))
    (call $pack (global.get $out) (i32.sub (local.get $at) (global.get $out))))

  (func (export "wasmcp_prompt")
    (param $name i32) (param $name_len i32) (param $args i32) (param $args_len i32)
    (result i64)
    (local $at i32)
    (if (call $is (local.get $name) (local.get $name_len) (i32.const 9984))
      (then
        (local.set $at (call $put (global.get $out) (i32.const 8576)))
        (local.set $at (call $putn (local.get $at) (local.get $args) (local.get $args_len)))
        (local.set $at (call $put (local.get $at) (i32.const 8832)))
        (return (call $pack (global.get $out) (i32.sub (local.get $at) (global.get $out))))))
    (if (call $is (local.get $name) (local.get $name_len) (i32.const 10000))
      (then (return (call $doc (i32.const 9216)))))
    (call $doc (i32.const 9344)))

  (func (export "wasmcp_complete") (param $req i32) (param $len i32) (result i64)
    (call $doc (i32.const 9472))))
