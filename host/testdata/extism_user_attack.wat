;; An Extism plugin of hyper-mcp's protocol v2, written by hand for the
;; host's tests of bad input to hyper-mcp's own host functions
;; (extism:host/user). call_tool dispatches on the first two letters of the
;; tool's name, at bytes 20 and 21 of its input ({"request":{"name":"...).
;; The functions that take an argument are numbered 1 to 8, in the order of
;; $arg below:
;;   p1..p8  passes the function an offset that is no block
;;   b1..b8  passes it a block of 100 MiB: a JSON object of spaces
;;   z1..z8  passes it a block of 100 MiB as alloc left it
;;   fr      passes notify_progress the same block twice: the second time
;;           it is freed
;;   fl      calls create_message until the host stops it, keeping every
;;           answer
;;   li      says 10,000 times that its tool list changed
;;   sl      sets the variable "slow" and says that its tool list changed;
;;           list_tools then loops, as long as the deadline lets it
;;   ok      does nothing
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "var_get" (func $var_get (param i64) (result i64)))
  (import "extism:host/env" "var_set" (func $var_set (param i64 i64)))
  (import "extism:host/user" "create_elicitation" (func $create_elicitation (param i64) (result i64)))
  (import "extism:host/user" "create_message" (func $create_message (param i64) (result i64)))
  (import "extism:host/user" "get_access_token" (func $get_access_token (param i64) (result i64)))
  (import "extism:host/user" "get_keyring_secret" (func $get_keyring_secret (param i64) (result i64)))
  (import "extism:host/user" "notify_logging_message" (func $notify_logging_message (param i64)))
  (import "extism:host/user" "notify_progress" (func $notify_progress (param i64)))
  (import "extism:host/user" "notify_resource_updated" (func $notify_resource_updated (param i64)))
  (import "extism:host/user" "notify_url_elicitation_completed" (func $notify_url_elicitation_completed (param i64)))
  (import "extism:host/user" "notify_tool_list_changed" (func $notify_tool_list_changed))
  (memory (export "memory") 1)
  (data (i32.const 1024) "{\22tools\22:[{\22name\22:\22p1\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22p2\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22p3\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22p4\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22p5\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22p6\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22p7\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22p8\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22b1\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22b2\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22b3\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22b4\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22b5\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22b6\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22b7\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22b8\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22z1\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22z2\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22z3\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22z4\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22z5\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22z6\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22z7\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22z8\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22fr\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22fl\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22li\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22sl\22,\22inputSchema\22:{\22type\22:\22object\22}},{\22name\22:\22ok\22,\22inputSchema\22:{\22type\22:\22object\22}}]}")
  (data (i32.const 2400) "{\22content\22:[{\22type\22:\22text\22,\22text\22:\22ok\22}]}")
  (data (i32.const 2500) "{\22messages\22:[{\22role\22:\22user\22,\22content\22:{\22type\22:\22text\22,\22text\22:\22hi\22}}],\22maxTokens\22:1}")
  (data (i32.const 2600) "{\22progressToken\22:1,\22progress\22:1}")
  (data (i32.const 2700) "slow1")

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

  ;; $arg passes the offset $p to the function numbered $f (1 to 8).
  (func $arg (param $f i32) (param $p i64)
    (block $n8 (block $n7 (block $n6 (block $n5 (block $n4 (block $n3 (block $n2 (block $n1
      (br_table $n1 $n2 $n3 $n4 $n5 $n6 $n7 $n8 $n1 (i32.sub (local.get $f) (i32.const 1))))
      (drop (call $create_elicitation (local.get $p))) (return))
      (drop (call $create_message (local.get $p))) (return))
      (drop (call $get_access_token (local.get $p))) (return))
      (drop (call $get_keyring_secret (local.get $p))) (return))
      (call $notify_logging_message (local.get $p)) (return))
      (call $notify_progress (local.get $p)) (return))
      (call $notify_resource_updated (local.get $p)) (return))
    (call $notify_url_elicitation_completed (local.get $p)))

  ;; $big is a block of 100 MiB holding {, spaces and }.
  (func $big (result i64)
    (local $off i64) (local $i i64)
    (local.set $off (call $alloc (i64.const 104857600)))
    (block $done (loop $next
      (br_if $done (i64.ge_u (local.get $i) (i64.const 104857600)))
      (call $store_u64 (i64.add (local.get $off) (local.get $i)) (i64.const 0x2020202020202020))
      (local.set $i (i64.add (local.get $i) (i64.const 8)))
      (br $next)))
    (call $store_u8 (local.get $off) (i32.const 123))
    (call $store_u8 (i64.add (local.get $off) (i64.const 104857599)) (i32.const 125))
    (local.get $off))

  (func $ok
    (call $output_set (call $k (i32.const 2400) (i32.const 41)) (i64.const 41)))

  (func (export "list_tools") (result i32)
    (if (i64.ne (call $var_get (call $k (i32.const 2700) (i32.const 4))) (i64.const 0))
      (then (loop $forever (br $forever))))
    (call $output_set (call $k (i32.const 1024) (i32.const 1345)) (i64.const 1345))
    (i32.const 0))

  (func (export "call_tool") (result i32)
    (local $c i32) (local $d i32) (local $p i64) (local $i i32)
    (local.set $c (call $input_load_u8 (i64.const 20)))
    (local.set $d (call $input_load_u8 (i64.const 21)))
    (if (i32.eq (local.get $c) (i32.const 112)) ;; p
      (then (call $arg (i32.sub (local.get $d) (i32.const 48)) (i64.const 0x7ffffffffff0)) (call $ok) (return (i32.const 0))))
    (if (i32.eq (local.get $c) (i32.const 98)) ;; b
      (then (call $arg (i32.sub (local.get $d) (i32.const 48)) (call $big)) (call $ok) (return (i32.const 0))))
    (if (i32.eq (local.get $c) (i32.const 122)) ;; z
      (then (call $arg (i32.sub (local.get $d) (i32.const 48)) (call $alloc (i64.const 104857600))) (call $ok) (return (i32.const 0))))
    (if (i32.and (i32.eq (local.get $c) (i32.const 102)) (i32.eq (local.get $d) (i32.const 114))) ;; fr
      (then
        (local.set $p (call $k (i32.const 2600) (i32.const 32)))
        (call $notify_progress (local.get $p))
        (call $notify_progress (local.get $p))
        (call $ok) (return (i32.const 0))))
    (if (i32.and (i32.eq (local.get $c) (i32.const 102)) (i32.eq (local.get $d) (i32.const 108))) ;; fl
      (then (loop $more
        (drop (call $create_message (call $k (i32.const 2500) (i32.const 82))))
        (br $more))))
    (if (i32.eq (local.get $c) (i32.const 108)) ;; l
      (then
        (block $done (loop $next
          (br_if $done (i32.ge_u (local.get $i) (i32.const 10000)))
          (call $notify_tool_list_changed)
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $next)))
        (call $ok) (return (i32.const 0))))
    (if (i32.eq (local.get $c) (i32.const 115)) ;; s
      (then
        (call $var_set (call $k (i32.const 2700) (i32.const 4)) (call $k (i32.const 2704) (i32.const 1)))
        (call $notify_tool_list_changed)
        (call $ok) (return (i32.const 0))))
    (call $ok)
    (i32.const 0))
)
