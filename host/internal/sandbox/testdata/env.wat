;; A guest importing from a module the sandbox does not provide.
(module
  (import "env" "now" (func (result i64))))
