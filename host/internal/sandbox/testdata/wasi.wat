;; A guest that reaches for what the sandbox withholds unless granted. The
;; first letter of the tool name chooses what it does; the arguments are raw
;; bytes (a path), not JSON, because these tests call the sandbox directly.
;;
;;   open    path_open(3, follow, ARGS) and fd_read: "a=ERRNO b=NREAD c=00000 d=00000"
;;   write   path_open(3, ARGS, O_CREAT) and fd_write "x": "a=ERRNO b=NWRITTEN ..."
;;   symlink path_symlink(ARGS -> "link" in fd 3): "a=ERRNO ..."
;;   env     the environ_get buffer, NUL-separated NAME=VALUE strings
;;   clock   the 8 little-endian bytes of clock_time_get(realtime)
;;   random  16 bytes of random_get
;;   net     errnos of sock_accept(3), sock_recv(0), sock_send(1), sock_shutdown(1)
(module
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_close" (func $fd_close (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_symlink" (func $path_symlink (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $environ_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_get" (func $environ_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock_time_get (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "sock_accept" (func $sock_accept (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "sock_recv" (func $sock_recv (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "sock_send" (func $sock_send (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "sock_shutdown" (func $sock_shutdown (param i32 i32) (result i32)))

  ;; 0: scratch; 1024: the report; 2048: iovec; 2064: fd/nread; 4096: read
  ;; buffer (4 KiB); 8192: environ pointers; 16384: environ buffer (16 KiB);
  ;; 65536: the arguments.
  (memory (export "memory") 2)
  (data (i32.const 1024) "a=00000 b=00000 c=00000 d=00000")
  (data (i32.const 1100) "{\"tools\":[]}")
  (data (i32.const 1120) "link")
  (data (i32.const 1130) "x")

  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param $size i32) (result i32)
    (if (result i32) (i32.gt_u (local.get $size) (i32.const 65536))
      (then (i32.const 0)) (else (i32.const 65536))))
  (func (export "wasmcp_describe") (result i64)
    (i64.or (i64.shl (i64.const 1100) (i64.const 32)) (i64.const 12)))

  ;; put writes v as five decimal digits at the report's field n (0..3).
  (func $put (param $n i32) (param $v i32)
    (local $at i32) (local $i i32)
    (local.set $at (i32.add (i32.const 1030) (i32.mul (local.get $n) (i32.const 8))))
    (local.set $i (i32.const 0))
    (loop $digits
      (i32.store8 (i32.sub (local.get $at) (local.get $i))
        (i32.add (i32.const 48) (i32.rem_u (local.get $v) (i32.const 10))))
      (local.set $v (i32.div_u (local.get $v) (i32.const 10)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $digits (i32.lt_u (local.get $i) (i32.const 5)))))

  (func $report (result i64)
    (i64.or (i64.shl (i64.const 1024) (i64.const 32)) (i64.const 31)))

  (func $open (param $path i32) (param $len i32) (param $oflags i32) (param $rights i64) (result i32)
    (call $path_open (i32.const 3) (i32.const 1) (local.get $path) (local.get $len)
      (local.get $oflags) (local.get $rights) (i64.const 0) (i32.const 0) (i32.const 2064)))

  (func (export "wasmcp_call") (param $name i32) (param $name_len i32) (param $args i32) (param $args_len i32) (result i64)
    (local $op i32) (local $e i32)
    (call $put (i32.const 0) (i32.const 0)) (call $put (i32.const 1) (i32.const 0))
    (call $put (i32.const 2) (i32.const 0)) (call $put (i32.const 3) (i32.const 0))
    (local.set $op (i32.load8_u (local.get $name)))
    ;; open: read up to 4 KiB of the file ARGS.
    (if (i32.eq (local.get $op) (i32.const 111))
      (then
        (local.set $e (call $open (local.get $args) (local.get $args_len) (i32.const 0) (i64.const 2)))
        (call $put (i32.const 0) (local.get $e))
        (if (i32.eqz (local.get $e))
          (then
            (i32.store (i32.const 2048) (i32.const 4096))
            (i32.store (i32.const 2052) (i32.const 4096))
            (call $put (i32.const 0)
              (call $fd_read (i32.load (i32.const 2064)) (i32.const 2048) (i32.const 1) (i32.const 2068)))
            (call $put (i32.const 1) (i32.load (i32.const 2068)))
            (drop (call $fd_close (i32.load (i32.const 2064))))))
        (return (call $report))))
    ;; write: create ARGS and write "x" in it.
    (if (i32.eq (local.get $op) (i32.const 119))
      (then
        (local.set $e (call $open (local.get $args) (local.get $args_len) (i32.const 1) (i64.const 64)))
        (call $put (i32.const 0) (local.get $e))
        (if (i32.eqz (local.get $e))
          (then
            (i32.store (i32.const 2048) (i32.const 1130))
            (i32.store (i32.const 2052) (i32.const 1))
            (call $put (i32.const 0)
              (call $fd_write (i32.load (i32.const 2064)) (i32.const 2048) (i32.const 1) (i32.const 2068)))
            (call $put (i32.const 1) (i32.load (i32.const 2068)))
            (drop (call $fd_close (i32.load (i32.const 2064))))))
        (return (call $report))))
    ;; symlink: make "link" point at ARGS.
    (if (i32.eq (local.get $op) (i32.const 115))
      (then
        (call $put (i32.const 0)
          (call $path_symlink (local.get $args) (local.get $args_len) (i32.const 3) (i32.const 1120) (i32.const 4)))
        (return (call $report))))
    ;; env: the raw environment buffer.
    (if (i32.eq (local.get $op) (i32.const 101))
      (then
        (drop (call $environ_sizes_get (i32.const 2064) (i32.const 2068)))
        (if (i32.gt_u (i32.load (i32.const 2068)) (i32.const 16384)) (then (unreachable)))
        (drop (call $environ_get (i32.const 8192) (i32.const 16384)))
        (if (i32.eqz (i32.load (i32.const 2068)))
          (then (return (call $report))))
        (return (i64.or (i64.shl (i64.const 16384) (i64.const 32))
          (i64.extend_i32_u (i32.load (i32.const 2068)))))))
    ;; clock: the wall clock in nanoseconds.
    (if (i32.eq (local.get $op) (i32.const 99))
      (then
        (drop (call $clock_time_get (i32.const 0) (i64.const 1) (i32.const 0)))
        (return (i64.const 8))))
    ;; random: 16 bytes.
    (if (i32.eq (local.get $op) (i32.const 114))
      (then
        (drop (call $random_get (i32.const 0) (i32.const 16)))
        (return (i64.const 16))))
    ;; net: every socket call of WASI preview 1.
    (if (i32.eq (local.get $op) (i32.const 110))
      (then
        (call $put (i32.const 0) (call $sock_accept (i32.const 3) (i32.const 0) (i32.const 2064)))
        (i32.store (i32.const 2048) (i32.const 4096))
        (i32.store (i32.const 2052) (i32.const 16))
        (call $put (i32.const 1) (call $sock_recv (i32.const 0) (i32.const 2048) (i32.const 1) (i32.const 0) (i32.const 2064) (i32.const 2068)))
        (call $put (i32.const 2) (call $sock_send (i32.const 1) (i32.const 2048) (i32.const 1) (i32.const 0) (i32.const 2064)))
        (call $put (i32.const 3) (call $sock_shutdown (i32.const 1) (i32.const 2)))
        (return (call $report))))
    (unreachable)))
