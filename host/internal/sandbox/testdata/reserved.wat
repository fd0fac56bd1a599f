;; A guest importing a client-feature host function (once reserved by
;; ABI.md, now provided) with the wrong signature: f32 where ABI.md says f64.
(module
  (import "wasmcp" "progress" (func (param f32 f32 i32 i32))))
