;; A guest that makes one file-system call of WASI preview 1 on its first
;; mount (fd 3), chosen by the first letter of the tool name. The arguments
;; are raw bytes, not JSON: a repeat count (one byte; 0 is once), then
;; PATH, and for calls that take two paths NUL and PATH2. The call is made
;; count times; the result is that of the last one: the errno as five
;; decimal digits, then its data (what was read, a filestat, a link target,
;; directory entries).
;;
;;   o  open PATH following links, read up to 4 KiB
;;   n  open PATH without following a final link, read up to 4 KiB
;;   w  create PATH (O_CREAT|O_TRUNC, write access), write "x"
;;   c  open PATH with O_CREAT and read access only
;;   z  open PATH with O_TRUNC and read access only
;;   a  open PATH for appending, write "x"
;;   e  open PATH with write access, fd_filestat_set_size 0
;;   f  open PATH, fd_filestat_get: the 64-byte filestat
;;   F  open PATH, fd_filestat_set_times now
;;   s  path_filestat_get following links: the 64-byte filestat
;;   S  path_filestat_get without following
;;   t  path_filestat_set_times now, following links
;;   T  path_filestat_set_times to 1 ns, without following
;;   k  path_readlink: the target
;;   r  path_rename PATH to PATH2
;;   C  path_rename of each pair of the NUL-separated paths in turn, in one
;;      call: PATH to PATH2, PATH3 to PATH4, ...
;;   l  path_link PATH to PATH2
;;   L  path_link PATH to PATH2 with LOOKUP_SYMLINK_FOLLOW
;;   y  path_symlink PATH2 -> PATH
;;   m  path_create_directory
;;   x  path_remove_directory
;;   u  path_unlink_file
;;   d  open directory PATH, fd_readdir: the raw entries
;;   D  open directory PATH, then open PATH2 in it and read up to 4 KiB
(module
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_close" (func $fd_close (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_readdir" (func $fd_readdir (param i32 i32 i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_filestat_get" (func $fd_filestat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_filestat_set_size" (func $fd_filestat_set_size (param i32 i64) (result i32)))
  (import "wasi_snapshot_preview1" "fd_filestat_set_times"
    (func $fd_filestat_set_times (param i32 i64 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_filestat_get" (func $path_filestat_get (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_filestat_set_times"
    (func $path_filestat_set_times (param i32 i32 i32 i32 i64 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_readlink" (func $path_readlink (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_rename" (func $path_rename (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_link" (func $path_link (param i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_symlink" (func $path_symlink (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_create_directory" (func $path_create_directory (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_remove_directory" (func $path_remove_directory (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_unlink_file" (func $path_unlink_file (param i32 i32 i32) (result i32)))

  ;; 1024: the result, five digits then data (at most 8 KiB); 1000: "x";
  ;; 2048: iovec; 2064: opened fd; 2068: count; 2072: second fd;
  ;; 65536: the arguments (at most 64 KiB).
  (memory (export "memory") 2)
  (data (i32.const 1000) "x")
  (data (i32.const 1100) "{\"tools\":[]}")

  (global $p1 (mut i32) (i32.const 0))
  (global $n1 (mut i32) (i32.const 0))
  (global $p2 (mut i32) (i32.const 0))
  (global $n2 (mut i32) (i32.const 0))
  ;; the length of the data after the errno
  (global $out (mut i32) (i32.const 0))
  ;; the end of the arguments
  (global $end (mut i32) (i32.const 0))

  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))
  (func (export "wasmcp_alloc") (param $size i32) (result i32)
    (if (result i32) (i32.gt_u (local.get $size) (i32.const 65536))
      (then (i32.const 0)) (else (i32.const 65536))))
  (func (export "wasmcp_describe") (result i64)
    (i64.or (i64.shl (i64.const 1100) (i64.const 32)) (i64.const 12)))

  ;; open PATH in fd 3; the new fd is at 2064.
  (func $open (param $dirflags i32) (param $oflags i32) (param $rights i64) (param $fdflags i32) (result i32)
    (call $path_open (i32.const 3) (local.get $dirflags) (global.get $p1) (global.get $n1)
      (local.get $oflags) (local.get $rights) (i64.const 0) (local.get $fdflags) (i32.const 2064)))

  ;; read up to 4 KiB of fd into the result, and close fd.
  (func $read (param $fd i32) (result i32)
    (local $e i32)
    (i32.store (i32.const 2048) (i32.const 1029))
    (i32.store (i32.const 2052) (i32.const 4096))
    (local.set $e (call $fd_read (local.get $fd) (i32.const 2048) (i32.const 1) (i32.const 2068)))
    (if (i32.eqz (local.get $e)) (then (global.set $out (i32.load (i32.const 2068)))))
    (drop (call $fd_close (local.get $fd)))
    (local.get $e))

  ;; write "x" to fd, and close fd.
  (func $write (param $fd i32) (result i32)
    (local $e i32)
    (i32.store (i32.const 2048) (i32.const 1000))
    (i32.store (i32.const 2052) (i32.const 1))
    (local.set $e (call $fd_write (local.get $fd) (i32.const 2048) (i32.const 1) (i32.const 2068)))
    (drop (call $fd_close (local.get $fd)))
    (local.get $e))

  ;; open PATH with the flags given, then run the fd operation op on it.
  (func $withFile (param $dirflags i32) (param $oflags i32) (param $rights i64) (param $fdflags i32) (param $op i32) (result i32)
    (local $e i32) (local $fd i32)
    (local.set $e (call $open (local.get $dirflags) (local.get $oflags) (local.get $rights) (local.get $fdflags)))
    (if (local.get $e) (then (return (local.get $e))))
    (local.set $fd (i32.load (i32.const 2064)))
    (if (i32.eq (local.get $op) (i32.const 114)) ;; r
      (then (return (call $read (local.get $fd)))))
    (if (i32.eq (local.get $op) (i32.const 119)) ;; w
      (then (return (call $write (local.get $fd)))))
    (if (i32.eq (local.get $op) (i32.const 115)) ;; s: size 0
      (then (local.set $e (call $fd_filestat_set_size (local.get $fd) (i64.const 0)))))
    (if (i32.eq (local.get $op) (i32.const 102)) ;; f: filestat
      (then
        (local.set $e (call $fd_filestat_get (local.get $fd) (i32.const 1029)))
        (if (i32.eqz (local.get $e)) (then (global.set $out (i32.const 64))))))
    (if (i32.eq (local.get $op) (i32.const 116)) ;; t: times now
      (then (local.set $e (call $fd_filestat_set_times (local.get $fd) (i64.const 0) (i64.const 0) (i32.const 10)))))
    (if (i32.eq (local.get $op) (i32.const 100)) ;; d: readdir
      (then
        (local.set $e (call $fd_readdir (local.get $fd) (i32.const 1029) (i32.const 8192) (i64.const 0) (i32.const 2068)))
        (if (i32.eqz (local.get $e)) (then (global.set $out (i32.load (i32.const 2068)))))))
    (if (i32.eq (local.get $op) (i32.const 68)) ;; D: open PATH2 in the directory, read
      (then
        (local.set $e (call $path_open (local.get $fd) (i32.const 1) (global.get $p2) (global.get $n2)
          (i32.const 0) (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 2072)))
        (if (i32.eqz (local.get $e)) (then (local.set $e (call $read (i32.load (i32.const 2072))))))))
    (drop (call $fd_close (local.get $fd)))
    (local.get $e))

  (func $filestat (param $flags i32) (result i32)
    (local $e i32)
    (local.set $e (call $path_filestat_get (i32.const 3) (local.get $flags) (global.get $p1) (global.get $n1) (i32.const 1029)))
    (if (i32.eqz (local.get $e)) (then (global.set $out (i32.const 64))))
    (local.get $e))

  (func $readlink (result i32)
    (local $e i32)
    (local.set $e (call $path_readlink (i32.const 3) (global.get $p1) (global.get $n1) (i32.const 1029) (i32.const 4096) (i32.const 2068)))
    (if (i32.eqz (local.get $e)) (then (global.set $out (i32.load (i32.const 2068)))))
    (local.get $e))

  ;; token returns the length of the path at p, up to NUL or the end.
  (func $token (param $p i32) (result i32)
    (local $q i32)
    (local.set $q (local.get $p))
    (block $found
      (loop $scan
        (br_if $found (i32.ge_u (local.get $q) (global.get $end)))
        (br_if $found (i32.eqz (i32.load8_u (local.get $q))))
        (local.set $q (i32.add (local.get $q) (i32.const 1)))
        (br $scan)))
    (i32.sub (local.get $q) (local.get $p)))

  ;; renames renames each pair of paths from PATH on and returns the last
  ;; errno.
  (func $renames (result i32)
    (local $a i32) (local $na i32) (local $b i32) (local $nb i32) (local $e i32)
    (local.set $a (global.get $p1))
    (block $done
      (loop $pairs
        (br_if $done (i32.ge_u (local.get $a) (global.get $end)))
        (local.set $na (call $token (local.get $a)))
        (local.set $b (i32.add (i32.add (local.get $a) (local.get $na)) (i32.const 1)))
        (br_if $done (i32.ge_u (local.get $b) (global.get $end)))
        (local.set $nb (call $token (local.get $b)))
        (local.set $e (call $path_rename (i32.const 3) (local.get $a) (local.get $na)
          (i32.const 3) (local.get $b) (local.get $nb)))
        (local.set $a (i32.add (i32.add (local.get $b) (local.get $nb)) (i32.const 1)))
        (br $pairs)))
    (local.get $e))

  ;; once makes the call op once and returns its errno.
  (func $once (param $op i32) (result i32)
    (global.set $out (i32.const 0))
    (if (i32.eq (local.get $op) (i32.const 111)) ;; o
      (then (return (call $withFile (i32.const 1) (i32.const 0) (i64.const 2) (i32.const 0) (i32.const 114)))))
    (if (i32.eq (local.get $op) (i32.const 110)) ;; n
      (then (return (call $withFile (i32.const 0) (i32.const 0) (i64.const 2) (i32.const 0) (i32.const 114)))))
    (if (i32.eq (local.get $op) (i32.const 119)) ;; w
      (then (return (call $withFile (i32.const 1) (i32.const 9) (i64.const 64) (i32.const 0) (i32.const 119)))))
    (if (i32.eq (local.get $op) (i32.const 99)) ;; c
      (then (return (call $withFile (i32.const 1) (i32.const 1) (i64.const 2) (i32.const 0) (i32.const 114)))))
    (if (i32.eq (local.get $op) (i32.const 122)) ;; z
      (then (return (call $withFile (i32.const 1) (i32.const 8) (i64.const 2) (i32.const 0) (i32.const 114)))))
    (if (i32.eq (local.get $op) (i32.const 97)) ;; a
      (then (return (call $withFile (i32.const 1) (i32.const 0) (i64.const 64) (i32.const 1) (i32.const 119)))))
    (if (i32.eq (local.get $op) (i32.const 101)) ;; e
      (then (return (call $withFile (i32.const 1) (i32.const 0) (i64.const 64) (i32.const 0) (i32.const 115)))))
    (if (i32.eq (local.get $op) (i32.const 102)) ;; f
      (then (return (call $withFile (i32.const 1) (i32.const 0) (i64.const 2) (i32.const 0) (i32.const 102)))))
    (if (i32.eq (local.get $op) (i32.const 70)) ;; F
      (then (return (call $withFile (i32.const 1) (i32.const 0) (i64.const 64) (i32.const 0) (i32.const 116)))))
    (if (i32.eq (local.get $op) (i32.const 100)) ;; d
      (then (return (call $withFile (i32.const 1) (i32.const 2) (i64.const 2) (i32.const 0) (i32.const 100)))))
    (if (i32.eq (local.get $op) (i32.const 68)) ;; D
      (then (return (call $withFile (i32.const 1) (i32.const 2) (i64.const 2) (i32.const 0) (i32.const 68)))))
    (if (i32.eq (local.get $op) (i32.const 115)) ;; s
      (then (return (call $filestat (i32.const 1)))))
    (if (i32.eq (local.get $op) (i32.const 83)) ;; S
      (then (return (call $filestat (i32.const 0)))))
    (if (i32.eq (local.get $op) (i32.const 116)) ;; t
      (then (return (call $path_filestat_set_times (i32.const 3) (i32.const 1) (global.get $p1) (global.get $n1)
        (i64.const 0) (i64.const 0) (i32.const 10)))))
    (if (i32.eq (local.get $op) (i32.const 84)) ;; T
      (then (return (call $path_filestat_set_times (i32.const 3) (i32.const 0) (global.get $p1) (global.get $n1)
        (i64.const 1) (i64.const 1) (i32.const 5)))))
    (if (i32.eq (local.get $op) (i32.const 107)) ;; k
      (then (return (call $readlink))))
    (if (i32.eq (local.get $op) (i32.const 114)) ;; r
      (then (return (call $path_rename (i32.const 3) (global.get $p1) (global.get $n1)
        (i32.const 3) (global.get $p2) (global.get $n2)))))
    (if (i32.eq (local.get $op) (i32.const 67)) ;; C
      (then (return (call $renames))))
    (if (i32.eq (local.get $op) (i32.const 108)) ;; l
      (then (return (call $path_link (i32.const 3) (i32.const 0) (global.get $p1) (global.get $n1)
        (i32.const 3) (global.get $p2) (global.get $n2)))))
    (if (i32.eq (local.get $op) (i32.const 76)) ;; L
      (then (return (call $path_link (i32.const 3) (i32.const 1) (global.get $p1) (global.get $n1)
        (i32.const 3) (global.get $p2) (global.get $n2)))))
    (if (i32.eq (local.get $op) (i32.const 121)) ;; y
      (then (return (call $path_symlink (global.get $p1) (global.get $n1)
        (i32.const 3) (global.get $p2) (global.get $n2)))))
    (if (i32.eq (local.get $op) (i32.const 109)) ;; m
      (then (return (call $path_create_directory (i32.const 3) (global.get $p1) (global.get $n1)))))
    (if (i32.eq (local.get $op) (i32.const 120)) ;; x
      (then (return (call $path_remove_directory (i32.const 3) (global.get $p1) (global.get $n1)))))
    (if (i32.eq (local.get $op) (i32.const 117)) ;; u
      (then (return (call $path_unlink_file (i32.const 3) (global.get $p1) (global.get $n1)))))
    (unreachable))

  ;; put writes v as five decimal digits at 1024.
  (func $put (param $v i32)
    (local $i i32)
    (loop $digits
      (i32.store8 (i32.sub (i32.const 1028) (local.get $i))
        (i32.add (i32.const 48) (i32.rem_u (local.get $v) (i32.const 10))))
      (local.set $v (i32.div_u (local.get $v) (i32.const 10)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $digits (i32.lt_u (local.get $i) (i32.const 5)))))

  (func (export "wasmcp_call") (param $name i32) (param $name_len i32) (param $args i32) (param $args_len i32) (result i64)
    (local $count i32) (local $i i32) (local $e i32)
    (if (i32.eqz (local.get $args_len)) (then (unreachable)))
    (local.set $count (i32.load8_u (local.get $args)))
    (if (i32.eqz (local.get $count)) (then (local.set $count (i32.const 1))))
    ;; PATH runs to the first NUL or the end; PATH2 follows it.
    (global.set $end (i32.add (local.get $args) (local.get $args_len)))
    (global.set $p1 (i32.add (local.get $args) (i32.const 1)))
    (global.set $n1 (call $token (global.get $p1)))
    (global.set $p2 (i32.add (global.get $p1) (global.get $n1)))
    (if (i32.lt_u (global.get $p2) (global.get $end))
      (then (global.set $p2 (i32.add (global.get $p2) (i32.const 1)))))
    (global.set $n2 (i32.sub (global.get $end) (global.get $p2)))
    (loop $repeat
      (local.set $e (call $once (i32.load8_u (local.get $name))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $repeat (i32.lt_u (local.get $i) (local.get $count))))
    (call $put (local.get $e))
    (i64.or (i64.shl (i64.const 1024) (i64.const 32))
      (i64.extend_i32_u (i32.add (i32.const 5) (global.get $out))))))
