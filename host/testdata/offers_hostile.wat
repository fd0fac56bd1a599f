;; A plugin whose resources, prompts and completions misbehave, for the
;; hostile tests of offers_hostile_test.go (and e2e/offers_hostile_test.go).
;; A read chooses by the letter after "bad://", a prompt and a completion by
;; the first letter of the prompt's name:
;;
;;   trap       unreachable
;;   loop       loops forever (stopped by the deadline)
;;   zero       returns 0 instead of a document
;;   outside    returns a region past the end of memory
;;   huge       (read) grows memory and returns a 50 MiB text resource, valid JSON
;;   malformed  (read) a document that is not JSON
;;   nocontents (read) no contents
;;   dual       (read) contents with both text and blob
;;   base64     (read) a blob that is not base64
;;   utf8       (read) a text that is not UTF-8
;;   code       (read) the guest's error with a code MCP does not allow here
;;   quiet      (read) the guest's error with no message
;;   good       (read, prompt) a valid document
;;   echo/...   (read, the template bad://echo/{+path}) the URI as its text
;;   ui://bad/view  (read) the view's contents under another URI, asking for an
;;              origin the plugin is not granted
;;   norole     (prompt) a message of role "system"
;;   badcontent (prompt) a content block of type "alien"
;;   empty      (prompt) no messages
;;   many       (completion) 150 values
;;
;; Any other completion gives one value.
(module
  (memory (export "memory") 4)
  (data (i32.const 1024) "{\"tools\":[{\"name\":\"ok\",\"inputSchema\":{\"type\":\"object\"}}],"
    "\"resources\":[{\"uri\":\"bad://trap\",\"name\":\"trap\"},{\"uri\":\"bad://loop\",\"name\":\"loop\"},"
    "{\"uri\":\"bad://zero\",\"name\":\"zero\"},{\"uri\":\"bad://outside\",\"name\":\"outside\"},"
    "{\"uri\":\"bad://huge\",\"name\":\"huge\"},{\"uri\":\"bad://malformed\",\"name\":\"malformed\"},"
    "{\"uri\":\"bad://nocontents\",\"name\":\"nocontents\"},{\"uri\":\"bad://dual\",\"name\":\"dual\"},"
    "{\"uri\":\"bad://base64\",\"name\":\"base64\"},{\"uri\":\"bad://utf8\",\"name\":\"utf8\"},"
    "{\"uri\":\"bad://code\",\"name\":\"code\"},{\"uri\":\"bad://quiet\",\"name\":\"quiet\"},"
    "{\"uri\":\"bad://good\",\"name\":\"good\"},"
    "{\"uri\":\"ui://bad/view\",\"name\":\"view\",\"mimeType\":\"text/html;profile=mcp-app\"}],"
    "\"resourceTemplates\":[{\"uriTemplate\":\"bad://echo/{+path}\",\"name\":\"echo\"}],"
    "\"prompts\":[{\"name\":\"trap\",\"arguments\":[{\"name\":\"a\"}]},{\"name\":\"loop\",\"arguments\":[{\"name\":\"a\"}]},"
    "{\"name\":\"zero\",\"arguments\":[{\"name\":\"a\"}]},{\"name\":\"outside\",\"arguments\":[{\"name\":\"a\"}]},"
    "{\"name\":\"norole\"},{\"name\":\"badcontent\"},{\"name\":\"empty\"},"
    "{\"name\":\"good\",\"arguments\":[{\"name\":\"a\"}]},{\"name\":\"many\",\"arguments\":[{\"name\":\"a\"}]}]}\00")

  (data (i32.const 4096) "{\"contents\":[\00")                                                    ;; malformed
  (data (i32.const 4160) "{\"contents\":[]}\00")                                                  ;; nocontents
  (data (i32.const 4224) "{\"contents\":[{\"uri\":\"bad://dual\",\"text\":\"a\",\"blob\":\"AA==\"}]}\00")
  (data (i32.const 4352) "{\"contents\":[{\"uri\":\"bad://base64\",\"blob\":\"not base64!\"}]}\00")
  (data (i32.const 4480) "{\"contents\":[{\"uri\":\"bad://utf8\",\"text\":\"\ff\fe\"}]}\00")
  (data (i32.const 4608) "{\"error\":{\"code\":-32000,\"message\":\"custom\"}}\00")                 ;; code
  (data (i32.const 4736) "{\"error\":{\"code\":-32002}}\00")                                       ;; quiet
  (data (i32.const 4800) "{\"contents\":[{\"uri\":\"bad://good\",\"text\":\"good\"}]}\00")
  (data (i32.const 4928) "{\"contents\":[{\"uri\":\"bad://elsewhere\",\"mimeType\":\"text/html;profile=mcp-app\",\"text\":\"<p>v</p>\","
    "\"_meta\":{\"ui\":{\"csp\":{\"connectDomains\":[\"https://evil.example\"]}}}}]}\00")          ;; view
  (data (i32.const 5376) "{\"contents\":[{\"uri\":\"\00")
  (data (i32.const 5440) "\",\"text\":\"\00")
  (data (i32.const 5504) "\"}]}\00")
  (data (i32.const 5568) "{\"contents\":[{\"uri\":\"bad://huge\",\"text\":\"\00")

  (data (i32.const 6144) "{\"messages\":[{\"role\":\"system\",\"content\":{\"type\":\"text\",\"text\":\"x\"}}]}\00")
  (data (i32.const 6272) "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"alien\"}}]}\00")
  (data (i32.const 6400) "{\"messages\":[]}\00")
  (data (i32.const 6464) "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"good\"}}]}\00")

  (data (i32.const 6656) "{\"values\":[\"one\"]}\00")
  (data (i32.const 6720) "{\"values\":[\00")
  (data (i32.const 6784) "\"v\",\00")
  (data (i32.const 6848) "\"last\"]}\00")
  (data (i32.const 6912) "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}\00")

  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))

  ;; Inputs go at 131072; built documents at 196608.
  (func (export "wasmcp_alloc") (param $size i32) (result i32)
    (if (result i32) (i32.gt_u (local.get $size) (i32.const 65536))
      (then (i32.const 0)) (else (i32.const 131072))))

  (func $pack (param $ptr i32) (param $len i32) (result i64)
    (i64.or (i64.shl (i64.extend_i32_u (local.get $ptr)) (i64.const 32)) (i64.extend_i32_u (local.get $len))))

  (func $strlen (param $p i32) (result i32)
    (local $n i32)
    (block $end
      (loop $scan
        (br_if $end (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $n)))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $scan)))
    (local.get $n))

  (func $doc (param $p i32) (result i64)
    (call $pack (local.get $p) (call $strlen (local.get $p))))

  (func $putn (param $dst i32) (param $src i32) (param $n i32) (result i32)
    (memory.copy (local.get $dst) (local.get $src) (local.get $n))
    (i32.add (local.get $dst) (local.get $n)))

  (func $put (param $dst i32) (param $src i32) (result i32)
    (call $putn (local.get $dst) (local.get $src) (call $strlen (local.get $src))))

  (func (export "wasmcp_describe") (result i64)
    (call $doc (i32.const 1024)))

  (func (export "wasmcp_call") (param i32 i32 i32 i32) (result i64)
    (call $doc (i32.const 6912)))

  ;; $misbehave does what trap, loop, zero and outside ask for; any other
  ;; letter returns -1, and the caller goes on.
  (func $misbehave (param $op i32) (result i64)
    (if (i32.eq (local.get $op) (i32.const 116)) (then (unreachable)))                 ;; t
    (if (i32.eq (local.get $op) (i32.const 108)) (then (loop $forever (br $forever)))) ;; l
    (if (i32.eq (local.get $op) (i32.const 122)) (then (return (i64.const 0))))        ;; z
    (if (i32.eq (local.get $op) (i32.const 111))                                       ;; o
      (then (return (call $pack (i32.sub (i32.mul (memory.size) (i32.const 65536)) (i32.const 8)) (i32.const 64)))))
    (i64.const -1))

  (func (export "wasmcp_read") (param $uri i32) (param $len i32) (result i64)
    (local $op i32)
    (local $r i64)
    (local $at i32)
    (local $size i32)
    (if (i32.eq (i32.load8_u (local.get $uri)) (i32.const 117))                        ;; ui://bad/view
      (then (return (call $doc (i32.const 4928)))))
    (local.set $op (i32.load8_u offset=6 (local.get $uri)))
    (local.set $r (call $misbehave (local.get $op)))
    (if (i64.ne (local.get $r) (i64.const -1)) (then (return (local.get $r))))
    (if (i32.eq (local.get $op) (i32.const 104))                                       ;; huge
      (then
        ;; 50 MiB of "x" at 1 MiB, in memory grown to hold it.
        (local.set $size (i32.const 52428800))
        (drop (memory.grow (i32.sub (i32.const 820) (memory.size))))
        (local.set $at (call $put (i32.const 1048576) (i32.const 5568)))
        (memory.fill (local.get $at) (i32.const 120) (local.get $size))
        (local.set $at (call $put (i32.add (local.get $at) (local.get $size)) (i32.const 5504)))
        (return (call $pack (i32.const 1048576) (i32.sub (local.get $at) (i32.const 1048576))))))
    (if (i32.eq (local.get $op) (i32.const 109)) (then (return (call $doc (i32.const 4096)))))  ;; m
    (if (i32.eq (local.get $op) (i32.const 110)) (then (return (call $doc (i32.const 4160)))))  ;; n
    (if (i32.eq (local.get $op) (i32.const 100)) (then (return (call $doc (i32.const 4224)))))  ;; d
    (if (i32.eq (local.get $op) (i32.const 98))  (then (return (call $doc (i32.const 4352)))))  ;; b
    (if (i32.eq (local.get $op) (i32.const 117)) (then (return (call $doc (i32.const 4480)))))  ;; u
    (if (i32.eq (local.get $op) (i32.const 99))  (then (return (call $doc (i32.const 4608)))))  ;; c
    (if (i32.eq (local.get $op) (i32.const 113)) (then (return (call $doc (i32.const 4736)))))  ;; q
    (if (i32.eq (local.get $op) (i32.const 101))                                                ;; echo
      (then
        (local.set $at (call $put (i32.const 196608) (i32.const 5376)))
        (local.set $at (call $putn (local.get $at) (local.get $uri) (local.get $len)))
        (local.set $at (call $put (local.get $at) (i32.const 5440)))
        (local.set $at (call $putn (local.get $at) (local.get $uri) (local.get $len)))
        (local.set $at (call $put (local.get $at) (i32.const 5504)))
        (return (call $pack (i32.const 196608) (i32.sub (local.get $at) (i32.const 196608))))))
    (call $doc (i32.const 4800)))

  (func (export "wasmcp_prompt") (param $name i32) (param i32 i32 i32) (result i64)
    (local $op i32)
    (local $r i64)
    (local.set $op (i32.load8_u (local.get $name)))
    (local.set $r (call $misbehave (local.get $op)))
    (if (i64.ne (local.get $r) (i64.const -1)) (then (return (local.get $r))))
    (if (i32.eq (local.get $op) (i32.const 110)) (then (return (call $doc (i32.const 6144)))))  ;; norole
    (if (i32.eq (local.get $op) (i32.const 98))  (then (return (call $doc (i32.const 6272)))))  ;; badcontent
    (if (i32.eq (local.get $op) (i32.const 101)) (then (return (call $doc (i32.const 6400)))))  ;; empty
    (call $doc (i32.const 6464)))

  ;; The request is {"ref":{"type":"ref/prompt","name":"NAME"...: the
  ;; name's first letter is its 37th byte.
  (func (export "wasmcp_complete") (param $req i32) (param i32) (result i64)
    (local $op i32)
    (local $r i64)
    (local $at i32)
    (local $i i32)
    (local.set $op (i32.load8_u offset=36 (local.get $req)))
    (local.set $r (call $misbehave (local.get $op)))
    (if (i64.ne (local.get $r) (i64.const -1)) (then (return (local.get $r))))
    (if (i32.eq (local.get $op) (i32.const 109))                                       ;; many
      (then
        (local.set $at (call $put (i32.const 196608) (i32.const 6720)))
        (loop $more
          (local.set $at (call $put (local.get $at) (i32.const 6784)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $more (i32.lt_u (local.get $i) (i32.const 149))))
        (local.set $at (call $put (local.get $at) (i32.const 6848)))
        (return (call $pack (i32.const 196608) (i32.sub (local.get $at) (i32.const 196608))))))
    (call $doc (i32.const 6656))))
