;; An Extism plugin of hyper-mcp's protocol v2, written by hand for the
;; host's tests of hyper-mcp's own host functions (extism:host/user): each
;; tool calls one of them. call_tool dispatches on the first letter of the
;; tool's name, at byte 20 of its input ({"request":{"name":"...).
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "length" (func $length (param i64) (result i64)))
  (import "extism:host/env" "load_u8" (func $load_u8 (param i64) (result i32)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/user" "notify_progress" (func $notify_progress (param i64)))
  (import "extism:host/user" "notify_logging_message" (func $notify_logging_message (param i64)))
  (import "extism:host/user" "create_message" (func $create_message (param i64) (result i64)))
  (import "extism:host/user" "create_elicitation" (func $create_elicitation (param i64) (result i64)))
  (import "extism:host/user" "list_roots" (func $list_roots (result i64)))
  (import "extism:host/user" "get_keyring_secret" (func $get_keyring_secret (param i64) (result i64)))
  (import "extism:host/user" "get_access_token" (func $get_access_token (param i64) (result i64)))
  (import "extism:host/user" "notify_tool_list_changed" (func $notify_tool_list_changed))
  (import "extism:host/user" "notify_url_elicitation_completed" (func $notify_url_elicitation_completed (param i64)))
  (memory (export "memory") 1)
  (data (i32.const 1024) "{\22tools\22:[{\22name\22:\22progress\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22log\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22sample\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22elicit\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22roots\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22keyring\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22token\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22changed\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22url_done\22,\22inputSchema\22:{\22type\22:\22object\22}}]}")
  (data (i32.const 1494) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22ok\22}]}")
  (data (i32.const 1543) "{\22structuredContent\22:")
  (data (i32.const 1572) "}")
  (data (i32.const 1581) "{\22progressToken\22:\22wasmcp-1\22,\22progress\22:1,\22total\22:2,\22message\22:\22half\22}")
  (data (i32.const 1657) "{\22progressToken\22:\22wasmcp-1\22,\22progress\22:2,\22total\22:2}")
  (data (i32.const 1716) "{\22level\22:\22warning\22,\22logger\22:\22user\22,\22data\22:\22careful\22}")
  (data (i32.const 1776) "{\22messages\22:[{\22role\22:\22user\22,\22content\22:{\22type\22:\22text\22,\22text\22:\22hi\22}}],\22maxTokens\22:10}")
  (data (i32.const 1867) "{\22message\22:\22name?\22,\22requestedSchema\22:{\22type\22:\22object\22,\22properties\22:{\22name\22:{\22type\22:\22string\22}}},\22timeout\22:5}")
  (data (i32.const 1982) "{\22service\22:\22svc\22,\22user\22:\22me\22}")
  (data (i32.const 2019) "{\22structuredContent\22:{\22secret\22:\22")
  (data (i32.const 2059) "\22}}")
  (data (i32.const 2070) "{\22client_id\22:\22x\22}")
  (data (i32.const 2095) "{\22elicitationId\22:\22e1\22}")

  ;; $k copies linear memory [p, p+n) to a new kernel block.
  (func $k (param $p i32) (param $n i32) (result i64)
    (local $off i64) (local $i i32)
    (local.set $off (call $alloc (i64.extend_i32_u (local.get $n))))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (call $store_u8 (i64.add (local.get $off) (i64.extend_i32_u (local.get $i)))
        (i32.load8_u (i32.add (local.get $p) (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $off))

  ;; $wrap outputs [open] + the kernel block $b + [close], built at 0x4000.
  (func $wrap (param $b i64) (param $open i32) (param $openlen i32) (param $close i32) (param $closelen i32)
    (local $n i32) (local $i i32) (local $p i32)
    (memory.copy (i32.const 0x4000) (local.get $open) (local.get $openlen))
    (local.set $p (i32.add (i32.const 0x4000) (local.get $openlen)))
    (local.set $n (i32.wrap_i64 (call $length (local.get $b))))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (i32.store8 (i32.add (local.get $p) (local.get $i))
        (call $load_u8 (i64.add (local.get $b) (i64.extend_i32_u (local.get $i)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.set $p (i32.add (local.get $p) (local.get $n)))
    (memory.copy (local.get $p) (local.get $close) (local.get $closelen))
    (local.set $n (i32.add (i32.add (local.get $openlen) (local.get $n)) (local.get $closelen)))
    (call $output_set (call $k (i32.const 0x4000) (local.get $n)) (i64.extend_i32_u (local.get $n))))

  (func $ok
    (call $output_set (call $k (i32.const 1494) (i32.const 41)) (i64.const 41)))

  (func (export "list_tools") (result i32)
    (call $output_set (call $k (i32.const 1024) (i32.const 462)) (i64.const 462))
    (i32.const 0))

  (func (export "call_tool") (result i32)
    (local $c i32)
    (local.set $c (call $input_load_u8 (i64.const 20)))
    (if (i32.eq (local.get $c) (i32.const 112)) ;; p
      (then (call $notify_progress (call $k (i32.const 1581) (i32.const 68))) (call $notify_progress (call $k (i32.const 1657) (i32.const 51))) (call $ok) (return (i32.const 0))))
    (if (i32.eq (local.get $c) (i32.const 108)) ;; l
      (then (call $notify_logging_message (call $k (i32.const 1716) (i32.const 52))) (call $ok) (return (i32.const 0))))
    (if (i32.eq (local.get $c) (i32.const 115)) ;; s
      (then (call $wrap (call $create_message (call $k (i32.const 1776) (i32.const 83))) (i32.const 1543) (i32.const 21) (i32.const 1572) (i32.const 1)) (return (i32.const 0))))
    (if (i32.eq (local.get $c) (i32.const 101)) ;; e
      (then (call $wrap (call $create_elicitation (call $k (i32.const 1867) (i32.const 107))) (i32.const 1543) (i32.const 21) (i32.const 1572) (i32.const 1)) (return (i32.const 0))))
    (if (i32.eq (local.get $c) (i32.const 114)) ;; r
      (then (call $wrap (call $list_roots) (i32.const 1543) (i32.const 21) (i32.const 1572) (i32.const 1)) (return (i32.const 0))))
    (if (i32.eq (local.get $c) (i32.const 107)) ;; k
      (then (call $wrap (call $get_keyring_secret (call $k (i32.const 1982) (i32.const 29))) (i32.const 2019) (i32.const 32) (i32.const 2059) (i32.const 3)) (return (i32.const 0))))
    (if (i32.eq (local.get $c) (i32.const 116)) ;; t
      (then (drop (call $get_access_token (call $k (i32.const 2070) (i32.const 17)))) (call $ok) (return (i32.const 0))))
    (if (i32.eq (local.get $c) (i32.const 99)) ;; c
      (then (call $notify_tool_list_changed) (call $ok) (return (i32.const 0))))
    (if (i32.eq (local.get $c) (i32.const 117)) ;; u
      (then (call $notify_url_elicitation_completed (call $k (i32.const 2095) (i32.const 22))) (call $ok) (return (i32.const 0))))
    (i32.const 1))
)
