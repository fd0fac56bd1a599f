;; examples.wat - the wasmcp example tools written by hand in WebAssembly
;; text, the same set as examples/go/everything (which mirrors the MCP
;; "everything" server):
;;
;;   echo                    {"message":"hi"}        -> "Echo: hi"
;;   get-sum                 {"a":7,"b":5}           -> "The sum of 7 and 5 is 12."
;;   get-structured-content  {"location":"Chicago"}  -> structured weather, with an output schema
;;   get-tiny-image          {}                      -> text, a 16x16 PNG, text
;;   get-resource-links      {"count":2}             -> text and resource links
;;   get-error               {"message":"why"}       -> isError: true
;;
;; Build: wat2wasm examples/wat/examples.wat -o examples-wat.wasm
;;
;; It follows abi/ABI.md with no SDK: the exports, the packing of results,
;; and just enough JSON. The host validates the arguments against each input
;; schema before a call, so the scanner below only has to find members in
;; valid JSON, never to reject anything.
;;
;; One difference from the other languages: get-sum takes integers (its
;; schema says "integer", within +-2^52 so that every sum is exact), because
;; reading and printing arbitrary doubles the way Go does needs a bignum
;; algorithm that has no place in a hand-written example. For integers its
;; results are those of the other languages, and no sum can overflow.
;;
;; Memory: static data below 64 KiB (strings end with a NUL byte, so no
;; length has to be kept in step by hand); from 64 KiB, per call, the input
;; (tool name, then arguments), the output, and a buffer for log lines.
(module
  (import "wasmcp" "log" (func $log (param i32 i32 i32)))

  (memory (export "memory") 2)

  ;; ---- static data ------------------------------------------------------

  ;; 1024: the Describe document (2493 bytes).
  (data (i32.const 1024)
    "{\"tools\":[{\"name\":\"echo\",\"description\":\"Echoes back the input message.\",\"inputSchema\":{\"type\":\"object\",\"proper"
    "ties\":{\"message\":{\"type\":\"string\",\"description\":\"Message to echo.\"}},\"required\":[\"message\"],\"additionalPropert"
    "ies\":false},\"annotations\":{\"readOnlyHint\":true,\"idempotentHint\":true,\"openWorldHint\":false}},{\"name\":\"get-sum\""
    ",\"title\":\"Sum\",\"description\":\"Returns the sum of two numbers.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a"
    "\":{\"type\":\"integer\",\"description\":\"First number.\",\"minimum\":-4503599627370496,\"maximum\":4503599627370496},\"b\":"
    "{\"type\":\"integer\",\"description\":\"Second number.\",\"minimum\":-4503599627370496,\"maximum\":4503599627370496}},\"req"
    "uired\":[\"a\",\"b\"],\"additionalProperties\":false},\"annotations\":{\"readOnlyHint\":true,\"idempotentHint\":true,\"openW"
    "orldHint\":false}},{\"name\":\"get-structured-content\",\"description\":\"Returns the current weather for a city as st"
    "ructured content (made-up, fixed values).\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"location\":{\"type\":\"st"
    "ring\",\"description\":\"City name.\",\"enum\":[\"New York\",\"Chicago\",\"Los Angeles\"]}},\"required\":[\"location\"],\"additi"
    "onalProperties\":false},\"outputSchema\":{\"type\":\"object\",\"properties\":{\"temperature\":{\"type\":\"number\",\"descripti"
    "on\":\"Temperature in degrees Celsius.\"},\"conditions\":{\"type\":\"string\",\"description\":\"Weather conditions.\"},\"hum"
    "idity\":{\"type\":\"number\",\"description\":\"Relative humidity in percent.\",\"minimum\":0,\"maximum\":100}},\"required\":["
    "\"temperature\",\"conditions\",\"humidity\"],\"additionalProperties\":false},\"annotations\":{\"readOnlyHint\":true,\"idemp"
    "otentHint\":true,\"openWorldHint\":false}},{\"name\":\"get-tiny-image\",\"description\":\"Returns a tiny PNG image betwe"
    "en two text blocks.\",\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false},\"annotations\":{\"readOnlyHint"
    "\":true,\"idempotentHint\":true,\"openWorldHint\":false}},{\"name\":\"get-resource-links\",\"description\":\"Returns links"
    " to example resources.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"count\":{\"type\":\"integer\",\"description\":\""
    "Number of links to return.\",\"default\":3,\"minimum\":1,\"maximum\":10}},\"additionalProperties\":false},\"annotations\""
    ":{\"readOnlyHint\":true,\"idempotentHint\":true,\"openWorldHint\":false}},{\"name\":\"get-error\",\"description\":\"Always "
    "fails with a tool error (isError: true), to test error handling.\",\"inputSchema\":{\"type\":\"object\",\"properties\":"
    "{\"message\":{\"type\":\"string\",\"description\":\"Error message to return.\"}},\"additionalProperties\":false},\"annotati"
    "ons\":{\"readOnlyHint\":true,\"idempotentHint\":true,\"openWorldHint\":false}}]}"
    "\00")

  ;; 4096: the whole result of get-tiny-image (599 bytes).
  (data (i32.const 4096)
    "{\"content\":[{\"type\":\"text\",\"text\":\"This is a tiny image:\"},{\"type\":\"image\",\"data\":\""
    "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAABCUlEQVR42oySIY+DQBCFJxRNQrLVuM1JHBpXjcO9BMdfWM1fwDUZh6vGoXHoda"
    "upwm9y6YX2YLt3dIJhZ77deTMvFOLL3jkm+uSTAuHdshAgy3QU8oTZckgxWeJlQRz9x2QL9E/BAyCiKGZjECd+5mIwPlPBq8Ek5cngvfHSoE/5"
    "9Rtsc2nOw7Rj6gldztuTwLkvL/g2rIwa0BbsFKwatlFUfL2CiJrKI8kD/IYv5QFuClXzWKVSaBv3EVfDoFC0a99Ny7Vy57YDphp5t1PZdlzW8A"
    "OmRNrz+x66ni8l3CktGZLxT2v0I2cZ9Pi0xkki0gfmGzVLiVlzKCTsfGxVItIzn8/4DgAA///FsmU2KdbO8QAAAABJRU5ErkJggg=="
    "\",\"mimeType\":\"image/png\"},{\"type\":\"text\",\"text\":\"The image above is a 16x16 PNG.\"}]}\00")

  ;; 4864, 4992, 5120: the results of get-structured-content (fixed,
  ;; made-up values; the host mirrors structuredContent as a text block).
  (data (i32.const 4864) "{\"structuredContent\":{\"temperature\":22.5,\"conditions\":\"Partly cloudy\",\"humidity\":65}}\00")
  (data (i32.const 4992) "{\"structuredContent\":{\"temperature\":18,\"conditions\":\"Windy\",\"humidity\":55}}\00")
  (data (i32.const 5120) "{\"structuredContent\":{\"temperature\":28.3,\"conditions\":\"Sunny\",\"humidity\":40}}\00")

  ;; From 5376, one string per 64-byte slot.
  (data (i32.const 5376) "echo\00")
  (data (i32.const 5440) "get-sum\00")
  (data (i32.const 5504) "get-structured-content\00")
  (data (i32.const 5568) "get-tiny-image\00")
  (data (i32.const 5632) "get-resource-links\00")
  (data (i32.const 5696) "get-error\00")
  (data (i32.const 5760) "message\00")
  (data (i32.const 5824) "a\00")
  (data (i32.const 5888) "b\00")
  (data (i32.const 5952) "location\00")
  (data (i32.const 6016) "count\00")
  (data (i32.const 6080) "New York\00")
  (data (i32.const 6144) "Chicago\00")
  (data (i32.const 6208) "Los Angeles\00")
  (data (i32.const 6272) "{\"content\":[{\"type\":\"text\",\"text\":\"\00")
  (data (i32.const 6336) "Echo: \00")
  (data (i32.const 6400) "\"}]}\00")
  (data (i32.const 6464) "\"}],\"isError\":true}\00")
  (data (i32.const 6528) "The sum of \00")
  (data (i32.const 6592) " and \00")
  (data (i32.const 6656) " is \00")
  (data (i32.const 6720) ".\00")
  (data (i32.const 6784) "get-error: \00")
  (data (i32.const 6848) "this tool always fails\00")
  (data (i32.const 6912) "Here are \00")
  (data (i32.const 6976) " resource links:\"}\00")
  (data (i32.const 7040) ",{\"type\":\"resource_link\",\"uri\":\"test://static/resource/\00")
  (data (i32.const 7104) "\",\"name\":\"Resource \00")
  (data (i32.const 7168) "\",\"description\":\"Example resource number \00")
  (data (i32.const 7232) "\",\"mimeType\":\"text/plain\"}\00")
  (data (i32.const 7296) "]}\00")
  (data (i32.const 7360) "echo: \00")
  (data (i32.const 7424) "{\"content\":[{\"type\":\"text\",\"text\":\"unknown tool\"}],\"isError\":true}\00")

  ;; ---- state of the current call ----------------------------------------

  (global $end (mut i32) (i32.const 0))     ;; end of the arguments
  (global $out (mut i32) (i32.const 0))     ;; start of the output
  (global $pos (mut i32) (i32.const 0))     ;; output cursor
  (global $logbuf (mut i32) (i32.const 0))  ;; where log lines are built
  (global $sp (mut i32) (i32.const 0))      ;; a string's content: start
  (global $sq (mut i32) (i32.const 0))      ;;   and end (escapes kept)
  (global $negzero (mut i32) (i32.const 0)) ;; the last integer read was -0

  ;; ---- exports ----------------------------------------------------------

  (func (export "wasmcp_abi_version") (result i32)
    (i32.const 1))

  ;; The host calls this once before each call, so every call starts over at
  ;; 64 KiB. Room is made for the input, an output of at most input + 4 KiB
  ;; (the longest is get-resource-links or an echo of the whole input), and a
  ;; log line of at most input + 64 bytes.
  (func (export "wasmcp_alloc") (param $size i32) (result i32)
    (local $pages i32)
    (if (i32.gt_u (local.get $size) (i32.const 0x10000000)) ;; 256 MiB: refuse
      (then (return (i32.const 0))))
    (local.set $pages
      (i32.shr_u
        (i32.add (i32.add (i32.const 65536) (i32.mul (local.get $size) (i32.const 3)))
                 (i32.const 73727)) ;; + 8 KiB of slack, rounded up to a page
        (i32.const 16)))
    (if (i32.gt_u (local.get $pages) (memory.size))
      (then
        (if (i32.eq (memory.grow (i32.sub (local.get $pages) (memory.size))) (i32.const -1))
          (then (return (i32.const 0))))))
    (i32.const 65536))

  (func (export "wasmcp_describe") (result i64)
    (call $static (i32.const 1024)))

  (func (export "wasmcp_call")
    (param $name i32) (param $name_len i32) (param $args i32) (param $args_len i32)
    (result i64)
    (global.set $end (i32.add (local.get $args) (local.get $args_len)))
    (global.set $out (i32.and (i32.add (global.get $end) (i32.const 7)) (i32.const -8)))
    (global.set $pos (global.get $out))
    (global.set $logbuf (i32.add (global.get $out) (i32.add (local.get $args_len) (i32.const 4096))))
    (if (call $is (local.get $name) (local.get $name_len) (i32.const 5376))
      (then (return (call $echo (local.get $args)))))
    (if (call $is (local.get $name) (local.get $name_len) (i32.const 5440))
      (then (return (call $get_sum (local.get $args)))))
    (if (call $is (local.get $name) (local.get $name_len) (i32.const 5504))
      (then (return (call $get_structured_content (local.get $args)))))
    (if (call $is (local.get $name) (local.get $name_len) (i32.const 5568))
      (then (return (call $static (i32.const 4096)))))
    (if (call $is (local.get $name) (local.get $name_len) (i32.const 5632))
      (then (return (call $get_resource_links (local.get $args)))))
    (if (call $is (local.get $name) (local.get $name_len) (i32.const 5696))
      (then (return (call $get_error (local.get $args)))))
    (call $static (i32.const 7424)))

  ;; ---- the tools --------------------------------------------------------

  (func $echo (param $args i32) (result i64)
    (call $string_member (local.get $args) (i32.const 5760)) ;; "message"
    (call $log_line (i32.const 0) (i32.const 7360))          ;; debug "echo: ..."
    (call $emitz (i32.const 6272))
    (call $emitz (i32.const 6336))
    (call $emit (global.get $sp) (i32.sub (global.get $sq) (global.get $sp)))
    (call $emitz (i32.const 6400))
    (call $result))

  (func $get_sum (param $args i32) (result i64)
    (local $a i64) (local $b i64) (local $za i32) (local $zb i32)
    (local.set $a (call $int_member (local.get $args) (i32.const 5824)))
    (local.set $za (global.get $negzero))
    (local.set $b (call $int_member (local.get $args) (i32.const 5888)))
    (local.set $zb (global.get $negzero))
    (call $emitz (i32.const 6272))
    (call $emitz (i32.const 6528))
    (call $emit_int (local.get $a) (local.get $za))
    (call $emitz (i32.const 6592))
    (call $emit_int (local.get $b) (local.get $zb))
    (call $emitz (i32.const 6656))
    ;; As with doubles, -0 + -0 is -0 and any other zero sum is 0.
    (call $emit_int (i64.add (local.get $a) (local.get $b)) (i32.and (local.get $za) (local.get $zb)))
    (call $emitz (i32.const 6720))
    (call $emitz (i32.const 6400))
    (call $result))

  (func $get_structured_content (param $args i32) (result i64)
    (local $n i32)
    (call $string_member (local.get $args) (i32.const 5952)) ;; "location"
    (local.set $n (i32.sub (global.get $sq) (global.get $sp)))
    (if (call $is (global.get $sp) (local.get $n) (i32.const 6080))
      (then (return (call $static (i32.const 4864)))))
    (if (call $is (global.get $sp) (local.get $n) (i32.const 6144))
      (then (return (call $static (i32.const 4992)))))
    (if (call $is (global.get $sp) (local.get $n) (i32.const 6208))
      (then (return (call $static (i32.const 5120)))))
    ;; Not reached: the host validates location against the enum.
    (call $static (i32.const 7424)))

  (func $get_resource_links (param $args i32) (result i64)
    (local $n i64) (local $i i64) (local $v i32)
    (local.set $n (i64.const 3))
    (local.set $v (call $find (local.get $args) (i32.const 6016))) ;; "count": 1 to 10
    (if (local.get $v) (then (local.set $n (call $parse_int (local.get $v)))))
    (call $emitz (i32.const 6272))
    (call $emitz (i32.const 6912))
    (call $emit_int (local.get $n) (i32.const 0))
    (call $emitz (i32.const 6976))
    (local.set $i (i64.const 1))
    (block $done
      (loop $link
        (br_if $done (i64.gt_s (local.get $i) (local.get $n)))
        (call $emitz (i32.const 7040))
        (call $emit_int (local.get $i) (i32.const 0))
        (call $emitz (i32.const 7104))
        (call $emit_int (local.get $i) (i32.const 0))
        (call $emitz (i32.const 7168))
        (call $emit_int (local.get $i) (i32.const 0))
        (call $emitz (i32.const 7232))
        (local.set $i (i64.add (local.get $i) (i64.const 1)))
        (br $link)))
    (call $emitz (i32.const 7296))
    (call $result))

  (func $get_error (param $args i32) (result i64)
    (call $string_member (local.get $args) (i32.const 5760)) ;; "message", optional
    (if (i32.eq (global.get $sp) (global.get $sq))           ;; absent or ""
      (then
        (global.set $sp (i32.const 6848))
        (global.set $sq (i32.add (i32.const 6848) (call $strlen (i32.const 6848))))))
    (call $log_line (i32.const 4) (i32.const 6784))          ;; error "get-error: ..."
    (call $emitz (i32.const 6272))
    (call $emitz (i32.const 6784))
    (call $emit (global.get $sp) (i32.sub (global.get $sq) (global.get $sp)))
    (call $emitz (i32.const 6464))
    (call $result))

  ;; ---- results ----------------------------------------------------------

  (func $pack (param $ptr i32) (param $len i32) (result i64)
    (i64.or (i64.shl (i64.extend_i32_u (local.get $ptr)) (i64.const 32))
            (i64.extend_i32_u (local.get $len))))

  ;; $static returns a NUL-terminated document from the static data.
  (func $static (param $doc i32) (result i64)
    (call $pack (local.get $doc) (call $strlen (local.get $doc))))

  ;; $result returns what was emitted since the call started.
  (func $result (result i64)
    (call $pack (global.get $out) (i32.sub (global.get $pos) (global.get $out))))

  (func $emit (param $p i32) (param $n i32)
    (memory.copy (global.get $pos) (local.get $p) (local.get $n))
    (global.set $pos (i32.add (global.get $pos) (local.get $n))))

  (func $emitz (param $p i32)
    (call $emit (local.get $p) (call $strlen (local.get $p))))

  (func $emit_byte (param $b i32)
    (i32.store8 (global.get $pos) (local.get $b))
    (global.set $pos (i32.add (global.get $pos) (i32.const 1))))

  ;; $emit_int writes v in decimal; $negzero writes 0 as "-0", as Go does
  ;; for the double -0.
  (func $emit_int (param $v i64) (param $negzero i32)
    (local $a i32) (local $b i32) (local $t i32)
    (if (i32.or (i64.lt_s (local.get $v) (i64.const 0))
                (i32.and (local.get $negzero) (i64.eqz (local.get $v))))
      (then
        (call $emit_byte (i32.const 45)) ;; '-'
        (local.set $v (i64.sub (i64.const 0) (local.get $v)))))
    ;; Digits come out last first: write them, then reverse them in place.
    (local.set $a (global.get $pos))
    (loop $digit
      (call $emit_byte (i32.add (i32.const 48) (i32.wrap_i64 (i64.rem_u (local.get $v) (i64.const 10)))))
      (local.set $v (i64.div_u (local.get $v) (i64.const 10)))
      (br_if $digit (i64.ne (local.get $v) (i64.const 0))))
    (local.set $b (i32.sub (global.get $pos) (i32.const 1)))
    (block $done
      (loop $swap
        (br_if $done (i32.ge_u (local.get $a) (local.get $b)))
        (local.set $t (i32.load8_u (local.get $a)))
        (i32.store8 (local.get $a) (i32.load8_u (local.get $b)))
        (i32.store8 (local.get $b) (local.get $t))
        (local.set $a (i32.add (local.get $a) (i32.const 1)))
        (local.set $b (i32.sub (local.get $b) (i32.const 1)))
        (br $swap))))

  ;; $log_line logs the NUL-terminated $prefix followed by the string held
  ;; in $sp..$sq, unescaped.
  (func $log_line (param $level i32) (param $prefix i32)
    (local $n i32) (local $end i32)
    (local.set $n (call $strlen (local.get $prefix)))
    (memory.copy (global.get $logbuf) (local.get $prefix) (local.get $n))
    (local.set $end
      (call $unescape (global.get $sp) (global.get $sq) (i32.add (global.get $logbuf) (local.get $n))))
    (call $log (local.get $level) (global.get $logbuf) (i32.sub (local.get $end) (global.get $logbuf))))

  ;; ---- bytes and strings ------------------------------------------------

  (func $strlen (param $p i32) (result i32)
    (local $q i32)
    (local.set $q (local.get $p))
    (block $done
      (loop $next
        (br_if $done (i32.eqz (i32.load8_u (local.get $q))))
        (local.set $q (i32.add (local.get $q) (i32.const 1)))
        (br $next)))
    (i32.sub (local.get $q) (local.get $p)))

  (func $memeq (param $a i32) (param $b i32) (param $n i32) (result i32)
    (block $differ
      (loop $next
        (if (i32.eqz (local.get $n)) (then (return (i32.const 1))))
        (br_if $differ (i32.ne (i32.load8_u (local.get $a)) (i32.load8_u (local.get $b))))
        (local.set $a (i32.add (local.get $a) (i32.const 1)))
        (local.set $b (i32.add (local.get $b) (i32.const 1)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $next)))
    (i32.const 0))

  ;; $is reports whether the $n bytes at $p are the NUL-terminated string $z.
  (func $is (param $p i32) (param $n i32) (param $z i32) (result i32)
    (if (result i32) (i32.eq (local.get $n) (call $strlen (local.get $z)))
      (then (call $memeq (local.get $p) (local.get $z) (local.get $n)))
      (else (i32.const 0))))

  ;; ---- reading the arguments --------------------------------------------

  ;; $ws skips JSON white space.
  (func $ws (param $p i32) (result i32)
    (local $c i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (global.get $end)))
        (local.set $c (i32.load8_u (local.get $p)))
        (br_if $done
          (i32.eqz
            (i32.or (i32.or (i32.eq (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 9)))
                    (i32.or (i32.eq (local.get $c) (i32.const 10)) (i32.eq (local.get $c) (i32.const 13))))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next)))
    (local.get $p))

  ;; $skip_string returns the position just past the string whose opening
  ;; quote is at $p. A backslash always escapes the byte after it.
  (func $skip_string (param $p i32) (result i32)
    (local $c i32)
    (local.set $p (i32.add (local.get $p) (i32.const 1)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (global.get $end)))
        (local.set $c (i32.load8_u (local.get $p)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br_if $done (i32.eq (local.get $c) (i32.const 34))) ;; '"'
        (if (i32.eq (local.get $c) (i32.const 92))             ;; '\'
          (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
        (br $next)))
    (local.get $p))

  ;; $skip_value returns the position just past the value at $p: a string,
  ;; an object or array (brackets counted, strings skipped whole), or a
  ;; number or literal (up to the next delimiter).
  (func $skip_value (param $p i32) (result i32)
    (local $c i32) (local $depth i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (global.get $end)))
        (local.set $c (i32.load8_u (local.get $p)))
        (if (i32.eq (local.get $c) (i32.const 34)) ;; '"'
          (then
            (local.set $p (call $skip_string (local.get $p)))
            (br_if $done (i32.eqz (local.get $depth)))
            (br $next)))
        (if (i32.or (i32.eq (local.get $c) (i32.const 123)) (i32.eq (local.get $c) (i32.const 91))) ;; '{' '['
          (then
            (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (br $next)))
        (if (i32.or (i32.eq (local.get $c) (i32.const 125)) (i32.eq (local.get $c) (i32.const 93))) ;; '}' ']'
          (then
            (br_if $done (i32.eqz (local.get $depth))) ;; ends a number or literal
            (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (br_if $done (i32.eqz (local.get $depth)))
            (br $next)))
        ;; At depth 0, a comma or white space ends a number or literal.
        (br_if $done
          (i32.and (i32.eqz (local.get $depth))
                   (i32.or (i32.eq (local.get $c) (i32.const 44)) (i32.le_u (local.get $c) (i32.const 32)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next)))
    (local.get $p))

  ;; $find returns the position of the value of member $key (a NUL-terminated
  ;; static string) of the object at $p, or 0 when it has none. Keys are
  ;; compared byte for byte, so an escaped spelling of a key ("\u0061") does
  ;; not match; the names this module reads are plain ASCII.
  (func $find (param $p i32) (param $key i32) (result i32)
    (local $klen i32) (local $ks i32) (local $ke i32)
    (local.set $klen (call $strlen (local.get $key)))
    (local.set $p (call $ws (local.get $p)))
    (if (i32.ge_u (local.get $p) (global.get $end)) (then (return (i32.const 0))))
    (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 123)) (then (return (i32.const 0)))) ;; '{'
    (local.set $p (call $ws (i32.add (local.get $p) (i32.const 1))))
    (loop $member
      (if (i32.ge_u (local.get $p) (global.get $end)) (then (return (i32.const 0))))
      (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 34)) (then (return (i32.const 0)))) ;; '}'
      (local.set $ks (i32.add (local.get $p) (i32.const 1)))
      (local.set $p (call $skip_string (local.get $p)))
      (local.set $ke (i32.sub (local.get $p) (i32.const 1)))
      (local.set $p (call $ws (local.get $p)))                    ;; at ':'
      (local.set $p (call $ws (i32.add (local.get $p) (i32.const 1))))
      (if (call $is (local.get $ks) (i32.sub (local.get $ke) (local.get $ks)) (local.get $key))
        (then (return (local.get $p))))
      (local.set $p (call $ws (call $skip_value (local.get $p))))
      (if (i32.and (i32.lt_u (local.get $p) (global.get $end))
                   (i32.eq (i32.load8_u (local.get $p)) (i32.const 44))) ;; ','
        (then
          (local.set $p (call $ws (i32.add (local.get $p) (i32.const 1))))
          (br $member))))
    (i32.const 0))

  ;; $string_member sets $sp..$sq to the content of string member $key, or
  ;; to an empty span when there is none.
  (func $string_member (param $obj i32) (param $key i32)
    (local $v i32)
    (local.set $v (call $find (local.get $obj) (local.get $key)))
    (global.set $sp (i32.const 0))
    (global.set $sq (i32.const 0))
    (if (i32.and (i32.ne (local.get $v) (i32.const 0))
                 (i32.eq (i32.load8_u (local.get $v)) (i32.const 34)))
      (then
        (global.set $sp (i32.add (local.get $v) (i32.const 1)))
        (global.set $sq (i32.sub (call $skip_string (local.get $v)) (i32.const 1))))))

  ;; $int_member returns integer member $key, or 0 when there is none.
  (func $int_member (param $obj i32) (param $key i32) (result i64)
    (local $v i32)
    (global.set $negzero (i32.const 0))
    (local.set $v (call $find (local.get $obj) (local.get $key)))
    (if (result i64) (local.get $v)
      (then (call $parse_int (local.get $v)))
      (else (i64.const 0))))

  (func $is_digit (param $p i32) (result i32)
    (i32.and (i32.lt_u (local.get $p) (global.get $end))
             (i32.lt_u (i32.sub (i32.load8_u (local.get $p)) (i32.const 48)) (i32.const 10))))

  ;; $parse_int reads the number at $p, which the schema guarantees to be an
  ;; integer within +-2^52, though JSON may spell it 12, 12.0, 1.2e1 or
  ;; 120e-1. The value is the digits (integer part, then fraction) that
  ;; come before the decimal point once the exponent has moved it; any
  ;; digits after it are zeros. Sets $negzero for "-0".
  (func $parse_int (param $p i32) (result i64)
    (local $neg i32) (local $int i32) (local $intlen i32) (local $frac i32) (local $fraclen i32)
    (local $exp i32) (local $eneg i32) (local $point i32) (local $i i32) (local $d i64) (local $v i64)
    (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 45)) ;; '-'
      (then
        (local.set $neg (i32.const 1))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))))
    (local.set $int (local.get $p))
    (block $done (loop $next
      (br_if $done (i32.eqz (call $is_digit (local.get $p))))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (br $next)))
    (local.set $intlen (i32.sub (local.get $p) (local.get $int)))
    (if (i32.and (i32.lt_u (local.get $p) (global.get $end))
                 (i32.eq (i32.load8_u (local.get $p)) (i32.const 46))) ;; '.'
      (then
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (local.set $frac (local.get $p))
        (block $done (loop $next
          (br_if $done (i32.eqz (call $is_digit (local.get $p))))
          (local.set $p (i32.add (local.get $p) (i32.const 1)))
          (br $next)))
        (local.set $fraclen (i32.sub (local.get $p) (local.get $frac)))))
    (if (i32.and (i32.lt_u (local.get $p) (global.get $end))
                 (i32.eq (i32.or (i32.load8_u (local.get $p)) (i32.const 32)) (i32.const 101))) ;; 'e' or 'E'
      (then
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 45)) ;; '-'
          (then (local.set $eneg (i32.const 1))))
        (if (i32.or (i32.eq (i32.load8_u (local.get $p)) (i32.const 45))
                    (i32.eq (i32.load8_u (local.get $p)) (i32.const 43))) ;; '+'
          (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
        (block $done (loop $next
          (br_if $done (i32.eqz (call $is_digit (local.get $p))))
          (if (i32.lt_u (local.get $exp) (i32.const 100000)) ;; larger exponents only move zeros
            (then
              (local.set $exp
                (i32.add (i32.mul (local.get $exp) (i32.const 10))
                         (i32.sub (i32.load8_u (local.get $p)) (i32.const 48))))))
          (local.set $p (i32.add (local.get $p) (i32.const 1)))
          (br $next)))
        (if (local.get $eneg) (then (local.set $exp (i32.sub (i32.const 0) (local.get $exp)))))))
    (local.set $point (i32.add (local.get $intlen) (local.get $exp)))
    (block $done (loop $next
      (br_if $done (i32.ge_s (local.get $i) (local.get $point)))
      ;; Past the digits written only zeros follow; a zero stays zero.
      (br_if $done (i32.and (i32.ge_s (local.get $i) (i32.add (local.get $intlen) (local.get $fraclen)))
                            (i64.eqz (local.get $v))))
      (local.set $d (i64.const 0))
      (if (i32.lt_s (local.get $i) (local.get $intlen))
        (then (local.set $d (i64.extend_i32_u (i32.load8_u (i32.add (local.get $int) (local.get $i))))))
        (else
          (if (i32.lt_s (i32.sub (local.get $i) (local.get $intlen)) (local.get $fraclen))
            (then
              (local.set $d
                (i64.extend_i32_u
                  (i32.load8_u (i32.add (local.get $frac) (i32.sub (local.get $i) (local.get $intlen))))))))))
      (if (i64.ne (local.get $d) (i64.const 0)) ;; a digit character: its value
        (then (local.set $d (i64.sub (local.get $d) (i64.const 48)))))
      (local.set $v (i64.add (i64.mul (local.get $v) (i64.const 10)) (local.get $d)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (global.set $negzero (i32.and (local.get $neg) (i64.eqz (local.get $v))))
    (if (result i64) (local.get $neg)
      (then (i64.sub (i64.const 0) (local.get $v)))
      (else (local.get $v))))

  ;; $hex4 reads four hex digits.
  (func $hex4 (param $p i32) (result i32)
    (local $v i32) (local $c i32) (local $i i32)
    (loop $next
      (local.set $c (i32.load8_u (i32.add (local.get $p) (local.get $i))))
      (local.set $v
        (i32.or (i32.shl (local.get $v) (i32.const 4))
                (if (result i32) (i32.le_u (local.get $c) (i32.const 57))
                  (then (i32.sub (local.get $c) (i32.const 48)))                         ;; 0-9
                  (else (i32.sub (i32.or (local.get $c) (i32.const 32)) (i32.const 87)))))) ;; a-f, A-F
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $next (i32.lt_u (local.get $i) (i32.const 4))))
    (local.get $v))

  ;; $utf8 writes code point $r at $dst and returns the end.
  (func $utf8 (param $dst i32) (param $r i32) (result i32)
    (if (i32.lt_u (local.get $r) (i32.const 0x80))
      (then
        (i32.store8 (local.get $dst) (local.get $r))
        (return (i32.add (local.get $dst) (i32.const 1)))))
    (if (i32.lt_u (local.get $r) (i32.const 0x800))
      (then
        (i32.store8 (local.get $dst) (i32.or (i32.const 0xC0) (i32.shr_u (local.get $r) (i32.const 6))))
        (i32.store8 offset=1 (local.get $dst) (i32.or (i32.const 0x80) (i32.and (local.get $r) (i32.const 0x3F))))
        (return (i32.add (local.get $dst) (i32.const 2)))))
    (if (i32.lt_u (local.get $r) (i32.const 0x10000))
      (then
        (i32.store8 (local.get $dst) (i32.or (i32.const 0xE0) (i32.shr_u (local.get $r) (i32.const 12))))
        (i32.store8 offset=1 (local.get $dst)
          (i32.or (i32.const 0x80) (i32.and (i32.shr_u (local.get $r) (i32.const 6)) (i32.const 0x3F))))
        (i32.store8 offset=2 (local.get $dst) (i32.or (i32.const 0x80) (i32.and (local.get $r) (i32.const 0x3F))))
        (return (i32.add (local.get $dst) (i32.const 3)))))
    (i32.store8 (local.get $dst) (i32.or (i32.const 0xF0) (i32.shr_u (local.get $r) (i32.const 18))))
    (i32.store8 offset=1 (local.get $dst)
      (i32.or (i32.const 0x80) (i32.and (i32.shr_u (local.get $r) (i32.const 12)) (i32.const 0x3F))))
    (i32.store8 offset=2 (local.get $dst)
      (i32.or (i32.const 0x80) (i32.and (i32.shr_u (local.get $r) (i32.const 6)) (i32.const 0x3F))))
    (i32.store8 offset=3 (local.get $dst) (i32.or (i32.const 0x80) (i32.and (local.get $r) (i32.const 0x3F))))
    (i32.add (local.get $dst) (i32.const 4)))

  ;; $unescape decodes JSON string content $p..$q into UTF-8 at $dst and
  ;; returns the end. A surrogate pair becomes one code point; a lone
  ;; surrogate becomes U+FFFD, as in Go.
  (func $unescape (param $p i32) (param $q i32) (param $dst i32) (result i32)
    (local $c i32) (local $r i32) (local $lo i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $q)))
        (local.set $c (i32.load8_u (local.get $p)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (if (i32.ne (local.get $c) (i32.const 92)) ;; not '\': copy
          (then
            (i32.store8 (local.get $dst) (local.get $c))
            (local.set $dst (i32.add (local.get $dst) (i32.const 1)))
            (br $next)))
        (local.set $c (i32.load8_u (local.get $p)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (if (i32.eq (local.get $c) (i32.const 117)) ;; 'u'
          (then
            (local.set $r (call $hex4 (local.get $p)))
            (local.set $p (i32.add (local.get $p) (i32.const 4)))
            (if (i32.and (i32.eq (i32.and (local.get $r) (i32.const 0xFC00)) (i32.const 0xD800))
                         (i32.and (i32.le_u (i32.add (local.get $p) (i32.const 6)) (local.get $q))
                                  (i32.eq (i32.load16_u (local.get $p)) (i32.const 0x755C)))) ;; "\u"
              (then
                (local.set $lo (call $hex4 (i32.add (local.get $p) (i32.const 2))))
                (if (i32.eq (i32.and (local.get $lo) (i32.const 0xFC00)) (i32.const 0xDC00))
                  (then
                    (local.set $r
                      (i32.add (i32.const 0x10000)
                        (i32.or (i32.shl (i32.sub (local.get $r) (i32.const 0xD800)) (i32.const 10))
                                (i32.sub (local.get $lo) (i32.const 0xDC00)))))
                    (local.set $p (i32.add (local.get $p) (i32.const 6)))))))
            (if (i32.eq (i32.and (local.get $r) (i32.const 0xF800)) (i32.const 0xD800))
              (then (local.set $r (i32.const 0xFFFD))))
            (local.set $dst (call $utf8 (local.get $dst) (local.get $r)))
            (br $next)))
        ;; One-letter escapes; '"', '\' and '/' stand for themselves.
        (if (i32.eq (local.get $c) (i32.const 98)) (then (local.set $c (i32.const 8))))   ;; b
        (if (i32.eq (local.get $c) (i32.const 102)) (then (local.set $c (i32.const 12)))) ;; f
        (if (i32.eq (local.get $c) (i32.const 110)) (then (local.set $c (i32.const 10)))) ;; n
        (if (i32.eq (local.get $c) (i32.const 114)) (then (local.set $c (i32.const 13)))) ;; r
        (if (i32.eq (local.get $c) (i32.const 116)) (then (local.set $c (i32.const 9))))  ;; t
        (i32.store8 (local.get $dst) (local.get $c))
        (local.set $dst (i32.add (local.get $dst) (i32.const 1)))
        (br $next)))
    (local.get $dst))
)
