;; A guest that probes its mounts with raw WASI calls, for the adversarial
;; tests (e2e/adversary_fs_test.go). Its one tool, fs, runs a script given as
;; {"c":"OP ARG ...;OP ARG ..."}: commands separated by ";", words by spaces
;; (no quotes or backslashes). It asks for /m writable and /ro read-only.
;;
;; Every command appends "OP:RESULT " to the text it returns: "ok", data, or
;; "E" and the WASI errno. Bytes that could break the JSON string (quotes,
;; backslashes, control characters) come out as "?".
;;
;;   F NAME     act in the preopen named NAME from now on (default fd 3)
;;   O P        open directory P and act in it from now on
;;   r P / R P  open P (following / not following a final link), read 4 KiB
;;   w P D      open P with O_CREAT|O_TRUNC, write D
;;   W P        open P with O_CREAT|O_EXCL, no follow, write "PWNED"
;;   T P        open P with O_TRUNC for reading
;;   A P D      open P for appending, write D
;;   m A B      rename A to B
;;   l A B / L A B  hard-link A as B (not following / following a final link)
;;   s T P      symlink P -> T
;;   k P        readlink P
;;   S P / Z P  stat P (following / not): "TYPE,SIZE,MTIME_SECONDS,CTIME_SECONDS"
;;   d P / D P / u P   mkdir, rmdir, unlink
;;   t P        set P's times to now; c P: set them to 0 (1970)
;;   f P        open P for reading, then fstat (mtime), truncate to 0, set
;;              times now, set append and write "X": "MTIME/E1/E2/E3/E4"
;;   e P        list directory P: names separated by ","
;;   g          the wall clock, seconds
;;   v          the number of environment variables
;;   x          sock_accept on fd 3: its errno
;;   y          8 bytes of random_get, as a number
;;   P          poll_oneoff sleeping one hour on the monotonic clock
;;   n N ...    run the rest of the script N times; print only what reads
;;              return and, at the end, how many commands succeeded
(module
  (import "wasi_snapshot_preview1" "path_open" (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_close" (func $fd_close (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_rename" (func $path_rename (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_link" (func $path_link (param i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_symlink" (func $path_symlink (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_readlink" (func $path_readlink (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_filestat_get" (func $path_filestat_get (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_filestat_set_times" (func $path_filestat_set_times (param i32 i32 i32 i32 i64 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_create_directory" (func $path_create_directory (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_remove_directory" (func $path_remove_directory (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_unlink_file" (func $path_unlink_file (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_filestat_get" (func $fd_filestat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_filestat_set_size" (func $fd_filestat_set_size (param i32 i64) (result i32)))
  (import "wasi_snapshot_preview1" "fd_filestat_set_times" (func $fd_filestat_set_times (param i32 i64 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_fdstat_set_flags" (func $fd_fdstat_set_flags (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_readdir" (func $fd_readdir (param i32 i32 i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_prestat_get" (func $fd_prestat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_prestat_dir_name" (func $fd_prestat_dir_name (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock_time_get (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $environ_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "sock_accept" (func $sock_accept (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll_oneoff (param i32 i32 i32 i32) (result i32)))

  ;; Layout: 16 iovec, 24 count, 28 opened fd, 32 bufused, 64 filestat,
  ;; 128 prestat, 256 preopen name, 1024 describe, 2048 result prefix,
  ;; 2112 result suffix, 2176 "PWNED", 8192 read buffer (4 KiB), 12288
  ;; readlink buffer (1 KiB), 16384 readdir buffer (16 KiB), 65536 result,
  ;; 131072 arguments.
  (memory (export "memory") 3)
  (data (i32.const 1024) "{\"tools\":[{\"name\":\"fs\",\"description\":\"Runs file-system operations in its mounts, for the adversarial tests.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"c\":{\"type\":\"string\"}},\"required\":[\"c\"]}}],\"permissions\":{\"fs\":[{\"path\":\"/m\",\"write\":true},{\"path\":\"/ro\"}]}}")
  (data (i32.const 2048) "{\"content\":[{\"type\":\"text\",\"text\":\"")
  (data (i32.const 2112) "\"}]}")
  (data (i32.const 2176) "PWNED")

  (global $ip (mut i32) (i32.const 0))    ;; next byte of the script
  (global $end (mut i32) (i32.const 0))   ;; end of the script
  (global $tp (mut i32) (i32.const 0))    ;; last word read
  (global $tl (mut i32) (i32.const 0))
  (global $out (mut i32) (i32.const 0))   ;; next byte of the result
  (global $dirfd (mut i32) (i32.const 3))
  (global $quiet (mut i32) (i32.const 0))
  (global $oks (mut i32) (i32.const 0))

  (func (export "wasmcp_abi_version") (result i32) (i32.const 1))

  (func (export "wasmcp_alloc") (param $size i32) (result i32)
    (local $need i32)
    (local.set $need (i32.add (i32.const 131072) (local.get $size)))
    (if (i32.gt_u (local.get $need) (i32.mul (memory.size) (i32.const 65536)))
      (then
        (if (i32.eq
              (memory.grow
                (i32.sub
                  (i32.div_u (i32.add (local.get $need) (i32.const 65535)) (i32.const 65536))
                  (memory.size)))
              (i32.const -1))
          (then (return (i32.const 0))))))
    (i32.const 131072))

  (func (export "wasmcp_describe") (result i64)
    (i64.or (i64.shl (i64.const 1024) (i64.const 32)) (i64.const 262)))

  ;; --- output ---------------------------------------------------------

  (func $emitb (param $b i32)
    (if (i32.ge_u (global.get $out) (i32.const 130000)) (then (return)))
    (if (i32.or (i32.or (i32.lt_u (local.get $b) (i32.const 32)) (i32.gt_u (local.get $b) (i32.const 126)))
                (i32.or (i32.eq (local.get $b) (i32.const 34)) (i32.eq (local.get $b) (i32.const 92))))
      (then (local.set $b (i32.const 63))))
    (i32.store8 (global.get $out) (local.get $b))
    (global.set $out (i32.add (global.get $out) (i32.const 1))))

  (func $emit (param $p i32) (param $n i32)
    (local $i i32)
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (call $emitb (i32.load8_u (i32.add (local.get $p) (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l))))

  (func $emitnum (param $v i64)
    (local $p i32)
    ;; digits backwards into 4096..4127
    (local.set $p (i32.const 4127))
    (loop $l
      (i32.store8 (local.get $p) (i32.add (i32.const 48) (i32.wrap_i64 (i64.rem_u (local.get $v) (i64.const 10)))))
      (local.set $v (i64.div_u (local.get $v) (i64.const 10)))
      (local.set $p (i32.sub (local.get $p) (i32.const 1)))
      (br_if $l (i64.ne (local.get $v) (i64.const 0))))
    (call $emit (i32.add (local.get $p) (i32.const 1)) (i32.sub (i32.const 4127) (local.get $p))))

  ;; --- script ---------------------------------------------------------

  (func $at (result i32) ;; the byte at ip, or 0 at the end
    (if (result i32) (i32.ge_u (global.get $ip) (global.get $end))
      (then (i32.const 0))
      (else (i32.load8_u (global.get $ip)))))

  ;; tok reads the next word into tp, tl.
  (func $tok
    (block $done (loop $l
      (br_if $done (i32.ne (call $at) (i32.const 32)))
      (global.set $ip (i32.add (global.get $ip) (i32.const 1)))
      (br $l)))
    (global.set $tp (global.get $ip))
    (block $done (loop $l
      (br_if $done (i32.eqz (call $at)))
      (br_if $done (i32.eq (call $at) (i32.const 32)))
      (br_if $done (i32.eq (call $at) (i32.const 59)))
      (global.set $ip (i32.add (global.get $ip) (i32.const 1)))
      (br $l)))
    (global.set $tl (i32.sub (global.get $ip) (global.get $tp))))

  ;; num reads a decimal word.
  (func $num (result i32)
    (local $i i32) (local $v i32)
    (call $tok)
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (global.get $tl)))
      (local.set $v (i32.add (i32.mul (local.get $v) (i32.const 10))
        (i32.sub (i32.load8_u (i32.add (global.get $tp) (local.get $i))) (i32.const 48))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (local.get $v))

  ;; nextcmd skips past the next ";".
  (func $nextcmd
    (block $done (loop $l
      (br_if $done (i32.eqz (call $at)))
      (if (i32.eq (call $at) (i32.const 59))
        (then (global.set $ip (i32.add (global.get $ip) (i32.const 1))) (br $done)))
      (global.set $ip (i32.add (global.get $ip) (i32.const 1)))
      (br $l))))

  ;; --- file operations ------------------------------------------------

  (func $open (param $p i32) (param $n i32) (param $follow i32) (param $oflags i32) (param $rights i64) (param $fdflags i32) (result i32)
    (call $path_open (global.get $dirfd) (local.get $follow) (local.get $p) (local.get $n)
      (local.get $oflags) (local.get $rights) (i64.const 0) (local.get $fdflags) (i32.const 28)))

  ;; readfd reads up to 4 KiB of the opened fd, emits it and closes the fd.
  (func $readfd (result i32)
    (local $errno i32)
    (i32.store (i32.const 16) (i32.const 8192))
    (i32.store (i32.const 20) (i32.const 4096))
    (local.set $errno (call $fd_read (i32.load (i32.const 28)) (i32.const 16) (i32.const 1) (i32.const 24)))
    (drop (call $fd_close (i32.load (i32.const 28))))
    (if (i32.eqz (local.get $errno))
      (then (call $emit (i32.const 8192) (i32.load (i32.const 24)))))
    (local.get $errno))

  ;; writefd writes n bytes at p to the opened fd and closes it.
  (func $writefd (param $p i32) (param $n i32) (result i32)
    (local $errno i32)
    (i32.store (i32.const 16) (local.get $p))
    (i32.store (i32.const 20) (local.get $n))
    (local.set $errno (call $fd_write (i32.load (i32.const 28)) (i32.const 16) (i32.const 1) (i32.const 24)))
    (drop (call $fd_close (i32.load (i32.const 28))))
    (local.get $errno))

  ;; stat emits "TYPE,SIZE,MTIME,CTIME" of the filestat at 64.
  (func $emitstat
    (call $emitnum (i64.load8_u (i32.const 80)))
    (call $emitb (i32.const 44))
    (call $emitnum (i64.load (i32.const 96)))
    (call $emitb (i32.const 44))
    (call $emitnum (i64.div_u (i64.load (i32.const 112)) (i64.const 1000000000)))
    (call $emitb (i32.const 44))
    (call $emitnum (i64.div_u (i64.load (i32.const 120)) (i64.const 1000000000))))

  (func $loud (result i32) (i32.eqz (global.get $quiet)))

  ;; findpreopen makes the preopen named by the last word the directory.
  (func $findpreopen (result i32)
    (local $fd i32) (local $n i32) (local $i i32)
    (local.set $fd (i32.const 3))
    (block $none (loop $l
      (br_if $none (i32.gt_u (local.get $fd) (i32.const 16)))
      (if (i32.eqz (call $fd_prestat_get (local.get $fd) (i32.const 128)))
        (then
          (local.set $n (i32.load (i32.const 132)))
          (if (i32.and (i32.eq (local.get $n) (global.get $tl)) (i32.le_u (local.get $n) (i32.const 256)))
            (then
              (if (i32.eqz (call $fd_prestat_dir_name (local.get $fd) (i32.const 256) (local.get $n)))
                (then
                  (local.set $i (i32.const 0))
                  (block $diff (loop $c
                    (if (i32.ge_u (local.get $i) (local.get $n))
                      (then (global.set $dirfd (local.get $fd)) (return (i32.const 0))))
                    (br_if $diff (i32.ne (i32.load8_u (i32.add (i32.const 256) (local.get $i)))
                                         (i32.load8_u (i32.add (global.get $tp) (local.get $i)))))
                    (local.set $i (i32.add (local.get $i) (i32.const 1)))
                    (br $c)))))))))
      (local.set $fd (i32.add (local.get $fd) (i32.const 1)))
      (br $l)))
    (i32.const 44)) ;; ENOENT

  ;; readdir emits the names of the directory at the last word.
  (func $readdir (result i32)
    (local $errno i32) (local $fd i32) (local $p i32) (local $end i32) (local $n i32)
    (local.set $errno (call $open (global.get $tp) (global.get $tl) (i32.const 1) (i32.const 2) (i64.const 0x4002) (i32.const 0)))
    (if (local.get $errno) (then (return (local.get $errno))))
    (local.set $fd (i32.load (i32.const 28)))
    (local.set $errno (call $fd_readdir (local.get $fd) (i32.const 16384) (i32.const 16384) (i64.const 0) (i32.const 32)))
    (drop (call $fd_close (local.get $fd)))
    (if (local.get $errno) (then (return (local.get $errno))))
    (local.set $p (i32.const 16384))
    (local.set $end (i32.add (i32.const 16384) (i32.load (i32.const 32))))
    (block $done (loop $l
      (br_if $done (i32.gt_u (i32.add (local.get $p) (i32.const 24)) (local.get $end)))
      (local.set $n (i32.load (i32.add (local.get $p) (i32.const 16))))
      (br_if $done (i32.gt_u (i32.add (i32.add (local.get $p) (i32.const 24)) (local.get $n)) (local.get $end)))
      (call $emit (i32.add (local.get $p) (i32.const 24)) (local.get $n))
      (call $emitb (i32.const 44))
      (local.set $p (i32.add (i32.add (local.get $p) (i32.const 24)) (local.get $n)))
      (br $l)))
    (i32.const 0))

  ;; fdops opens the last word for reading and tries every change through
  ;; the descriptor.
  (func $fdops (result i32)
    (local $errno i32) (local $fd i32)
    (local.set $errno (call $open (global.get $tp) (global.get $tl) (i32.const 1) (i32.const 0) (i64.const 2) (i32.const 0)))
    (if (local.get $errno) (then (return (local.get $errno))))
    (local.set $fd (i32.load (i32.const 28)))
    (if (i32.eqz (call $fd_filestat_get (local.get $fd) (i32.const 64)))
      (then (call $emitnum (i64.div_u (i64.load (i32.const 112)) (i64.const 1000000000)))))
    (call $emitb (i32.const 47))
    (call $emitnum (i64.extend_i32_u (call $fd_filestat_set_size (local.get $fd) (i64.const 0))))
    (call $emitb (i32.const 47))
    (call $emitnum (i64.extend_i32_u (call $fd_filestat_set_times (local.get $fd) (i64.const 0) (i64.const 0) (i32.const 10))))
    (call $emitb (i32.const 47))
    (call $emitnum (i64.extend_i32_u (call $fd_fdstat_set_flags (local.get $fd) (i32.const 1))))
    (call $emitb (i32.const 47))
    (i32.store (i32.const 16) (i32.const 2176))
    (i32.store (i32.const 20) (i32.const 1))
    (call $emitnum (i64.extend_i32_u (call $fd_write (local.get $fd) (i32.const 16) (i32.const 1) (i32.const 24))))
    (drop (call $fd_close (local.get $fd)))
    (i32.const 0))

  ;; exec1 runs the command at ip and returns its errno; -1 for an unknown
  ;; one. Commands that succeed without data print "ok" unless quiet.
  (func $exec1 (result i32)
    (local $op i32) (local $ap i32) (local $al i32) (local $errno i32)
    (call $tok)
    (if (i32.eqz (global.get $tl)) (then (return (i32.const 0))))
    (local.set $op (i32.load8_u (global.get $tp)))
    (if (call $loud) (then (call $emit (global.get $tp) (global.get $tl)) (call $emitb (i32.const 58))))
    ;; g, and n, which takes the rest of the script
    (if (i32.eq (local.get $op) (i32.const 103)) (then
      (local.set $errno (call $clock_time_get (i32.const 0) (i64.const 1) (i32.const 64)))
      (if (i32.eqz (local.get $errno)) (then (call $emitnum (i64.div_u (i64.load (i32.const 64)) (i64.const 1000000000)))))
      (return (local.get $errno))))
    (if (i32.eq (local.get $op) (i32.const 110)) (then (return (call $repeat))))
    (if (i32.eq (local.get $op) (i32.const 118)) (then ;; v
      (local.set $errno (call $environ_sizes_get (i32.const 64) (i32.const 68)))
      (if (i32.eqz (local.get $errno)) (then (call $emitnum (i64.load32_u (i32.const 64)))))
      (return (local.get $errno))))
    (if (i32.eq (local.get $op) (i32.const 120)) (then ;; x
      (return (call $sock_accept (i32.const 3) (i32.const 0) (i32.const 64)))))
    (if (i32.eq (local.get $op) (i32.const 121)) (then ;; y
      (local.set $errno (call $random_get (i32.const 64) (i32.const 8)))
      (if (i32.eqz (local.get $errno)) (then (call $emitnum (i64.load (i32.const 64)))))
      (return (local.get $errno))))
    (if (i32.eq (local.get $op) (i32.const 80)) (then ;; P
      (memory.fill (i32.const 4160) (i32.const 0) (i32.const 48))
      (i32.store8 (i32.const 4168) (i32.const 0))                 ;; tag: clock
      (i32.store (i32.const 4176) (i32.const 1))                  ;; monotonic
      (i64.store (i32.const 4184) (i64.const 3600000000000))      ;; one hour
      (return (call $okd (call $poll_oneoff (i32.const 4160) (i32.const 4224) (i32.const 1) (i32.const 24))))))
    ;; the rest take a first word
    (call $tok)
    (local.set $ap (global.get $tp))
    (local.set $al (global.get $tl))
    (if (i32.eq (local.get $op) (i32.const 70)) (then (return (call $findpreopen)))) ;; F
    (if (i32.eq (local.get $op) (i32.const 101)) (then (return (call $readdir)))) ;; e
    (if (i32.eq (local.get $op) (i32.const 79)) (then ;; O
      (local.set $errno (call $open (local.get $ap) (local.get $al) (i32.const 1) (i32.const 2) (i64.const 0x4002) (i32.const 0)))
      (if (i32.eqz (local.get $errno)) (then (global.set $dirfd (i32.load (i32.const 28)))))
      (return (call $okd (local.get $errno)))))
    (if (i32.eq (local.get $op) (i32.const 102)) (then (return (call $fdops)))) ;; f
    (if (i32.or (i32.eq (local.get $op) (i32.const 114)) (i32.eq (local.get $op) (i32.const 82))) (then ;; r R
      (local.set $errno (call $open (local.get $ap) (local.get $al) (i32.eq (local.get $op) (i32.const 114)) (i32.const 0) (i64.const 2) (i32.const 0)))
      (if (local.get $errno) (then (return (local.get $errno))))
      (return (call $readfd))))
    (if (i32.eq (local.get $op) (i32.const 87)) (then ;; W
      (local.set $errno (call $open (local.get $ap) (local.get $al) (i32.const 0) (i32.const 5) (i64.const 66) (i32.const 0)))
      (if (local.get $errno) (then (return (local.get $errno))))
      (return (call $okd (call $writefd (i32.const 2176) (i32.const 5))))))
    (if (i32.eq (local.get $op) (i32.const 84)) (then ;; T
      (local.set $errno (call $open (local.get $ap) (local.get $al) (i32.const 1) (i32.const 8) (i64.const 2) (i32.const 0)))
      (if (local.get $errno) (then (return (local.get $errno))))
      (drop (call $fd_close (i32.load (i32.const 28))))
      (return (call $okd (i32.const 0)))))
    (if (i32.eq (local.get $op) (i32.const 107)) (then ;; k
      (local.set $errno (call $path_readlink (global.get $dirfd) (local.get $ap) (local.get $al) (i32.const 12288) (i32.const 1024) (i32.const 32)))
      (if (local.get $errno) (then (return (local.get $errno))))
      (call $emit (i32.const 12288) (i32.load (i32.const 32)))
      (return (i32.const 0))))
    (if (i32.or (i32.eq (local.get $op) (i32.const 83)) (i32.eq (local.get $op) (i32.const 90))) (then ;; S Z
      (local.set $errno (call $path_filestat_get (global.get $dirfd) (i32.eq (local.get $op) (i32.const 83)) (local.get $ap) (local.get $al) (i32.const 64)))
      (if (local.get $errno) (then (return (local.get $errno))))
      (if (call $loud) (then (call $emitstat)))
      (return (i32.const 0))))
    (if (i32.eq (local.get $op) (i32.const 100)) (then ;; d
      (return (call $okd (call $path_create_directory (global.get $dirfd) (local.get $ap) (local.get $al))))))
    (if (i32.eq (local.get $op) (i32.const 68)) (then ;; D
      (return (call $okd (call $path_remove_directory (global.get $dirfd) (local.get $ap) (local.get $al))))))
    (if (i32.eq (local.get $op) (i32.const 117)) (then ;; u
      (return (call $okd (call $path_unlink_file (global.get $dirfd) (local.get $ap) (local.get $al))))))
    (if (i32.eq (local.get $op) (i32.const 116)) (then ;; t
      (return (call $okd (call $path_filestat_set_times (global.get $dirfd) (i32.const 1) (local.get $ap) (local.get $al) (i64.const 0) (i64.const 0) (i32.const 10))))))
    (if (i32.eq (local.get $op) (i32.const 99)) (then ;; c
      (return (call $okd (call $path_filestat_set_times (global.get $dirfd) (i32.const 1) (local.get $ap) (local.get $al) (i64.const 0) (i64.const 0) (i32.const 5))))))
    ;; the rest take a second word
    (call $tok)
    (if (i32.eq (local.get $op) (i32.const 119)) (then ;; w
      (local.set $errno (call $open (local.get $ap) (local.get $al) (i32.const 1) (i32.const 9) (i64.const 66) (i32.const 0)))
      (if (local.get $errno) (then (return (local.get $errno))))
      (return (call $okd (call $writefd (global.get $tp) (global.get $tl))))))
    (if (i32.eq (local.get $op) (i32.const 65)) (then ;; A
      (local.set $errno (call $open (local.get $ap) (local.get $al) (i32.const 1) (i32.const 0) (i64.const 66) (i32.const 1)))
      (if (local.get $errno) (then (return (local.get $errno))))
      (return (call $okd (call $writefd (global.get $tp) (global.get $tl))))))
    (if (i32.eq (local.get $op) (i32.const 109)) (then ;; m
      (return (call $okd (call $path_rename (global.get $dirfd) (local.get $ap) (local.get $al) (global.get $dirfd) (global.get $tp) (global.get $tl))))))
    (if (i32.or (i32.eq (local.get $op) (i32.const 108)) (i32.eq (local.get $op) (i32.const 76))) (then ;; l L
      (return (call $okd (call $path_link (global.get $dirfd) (i32.eq (local.get $op) (i32.const 76)) (local.get $ap) (local.get $al) (global.get $dirfd) (global.get $tp) (global.get $tl))))))
    (if (i32.eq (local.get $op) (i32.const 115)) (then ;; s
      (return (call $okd (call $path_symlink (local.get $ap) (local.get $al) (global.get $dirfd) (global.get $tp) (global.get $tl))))))
    (i32.const -1))

  ;; okd prints "ok" for a command that succeeded, unless quiet.
  (func $okd (param $errno i32) (result i32)
    (if (i32.and (i32.eqz (local.get $errno)) (call $loud))
      (then (call $emitb (i32.const 111)) (call $emitb (i32.const 107))))
    (local.get $errno))

  ;; run runs the script from ip to its end.
  (func $run
    (local $errno i32)
    (block $done (loop $l
      (br_if $done (i32.eqz (call $at)))
      (local.set $errno (call $exec1))
      (if (i32.eqz (local.get $errno))
        (then (global.set $oks (i32.add (global.get $oks) (i32.const 1))))
        (else (if (call $loud) (then
          (call $emitb (i32.const 69))
          (call $emitnum (i64.extend_i32_s (local.get $errno)))))))
      (if (call $loud) (then (call $emitb (i32.const 32))))
      (call $nextcmd)
      (br $l))))

  ;; repeat runs the rest of the script N times, quietly.
  (func $repeat (result i32)
    (local $n i32) (local $start i32) (local $i i32)
    (local.set $n (call $num))
    (call $nextcmd)
    (local.set $start (global.get $ip))
    (global.set $quiet (i32.const 1))
    (global.set $oks (i32.const 0))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (global.set $ip (local.get $start))
      (call $run)
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (global.set $quiet (i32.const 0))
    (call $emitnum (i64.extend_i32_u (global.get $oks)))
    (i32.const 0))

  (func (export "wasmcp_call")
    (param $name i32) (param $name_len i32) (param $args i32) (param $args_len i32)
    (result i64)
    (local $i i32) (local $last i32)
    ;; The script is the first string value: from the first `:"` to the
    ;; last `"`.
    (global.set $ip (i32.const 0))
    (local.set $last (i32.add (local.get $args) (local.get $args_len)))
    (local.set $i (local.get $args))
    (block $found (loop $l
      (br_if $found (i32.ge_u (i32.add (local.get $i) (i32.const 1)) (local.get $last)))
      (if (i32.and (i32.eq (i32.load8_u (local.get $i)) (i32.const 58)) (i32.eq (i32.load8_u (i32.add (local.get $i) (i32.const 1))) (i32.const 34)))
        (then (global.set $ip (i32.add (local.get $i) (i32.const 2))) (br $found)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (local.set $i (i32.sub (local.get $last) (i32.const 1)))
    (block $found (loop $l
      (br_if $found (i32.le_u (local.get $i) (local.get $args)))
      (br_if $found (i32.eq (i32.load8_u (local.get $i)) (i32.const 34)))
      (local.set $i (i32.sub (local.get $i) (i32.const 1)))
      (br $l)))
    (global.set $end (local.get $i))
    (if (i32.or (i32.eqz (global.get $ip)) (i32.gt_u (global.get $ip) (global.get $end)))
      (then (global.set $end (global.get $ip))))
    (global.set $dirfd (i32.const 3))
    (global.set $quiet (i32.const 0))
    (memory.copy (i32.const 65536) (i32.const 2048) (i32.const 35))
    (global.set $out (i32.const 65571))
    (call $run)
    (memory.copy (global.get $out) (i32.const 2112) (i32.const 4))
    (i64.or (i64.shl (i64.const 65536) (i64.const 32))
            (i64.extend_i32_u (i32.sub (i32.add (global.get $out) (i32.const 4)) (i32.const 65536))))))
