;; A guest with three bad imports: an unknown wasmcp function, wasmcp.log
;; with the wrong signature, and a function WASI preview 1 does not have.
(module
  (import "wasmcp" "shout" (func (param i32 i32)))
  (import "wasmcp" "log" (func (param i32 i32)))
  (import "wasi_snapshot_preview1" "sock_dial" (func (param i32) (result i32))))
