package main

import (
	"encoding/json"
	"fmt"

	"github.com/wasmcp/wasmcp/abi"
)

// The documents' places in a generated guest's first page of memory.
const (
	describeAt = 16
	docsEnd    = 65536 // arguments start here
)

// generateGuest returns the binary of a guest module whose describe
// document lists tools and whose every call returns a text block of answer.
// It is the smallest module ABI v1 accepts, encoded here rather than
// assembled from WAT, so that the bench needs nothing but Go:
//
//	(memory (export "memory") 2)
//	(data (i32.const 16) DESCRIBE) (data (i32.const RESULT_AT) RESULT)
//	(func (export "wasmcp_abi_version") (result i32) i32.const 1)
//	(func (export "wasmcp_alloc") (param $size i32) (result i32)
//	  ;; arguments go at 65536, memory grown to hold them
//	  ...)
//	(func (export "wasmcp_describe") (result i64) i64.const DESCRIBE_PACKED)
//	(func (export "wasmcp_call") (param i32 i32 i32 i32) (result i64) i64.const RESULT_PACKED)
func generateGuest(tools []abi.Tool, answer string) ([]byte, error) {
	return generateGuestCalling(tools, answer, nil)
}

// loopForever is a wasmcp_call body that never returns: (loop (br 0))
// unreachable.
var loopForever = []byte{0x03, 0x40, 0x0c, 0x00, 0x0b, 0x00}

// generateGuestCalling is generateGuest with call, when not nil, as the code
// of wasmcp_call.
func generateGuestCalling(tools []abi.Tool, answer string, call []byte) ([]byte, error) {
	describe, err := json.Marshal(abi.Describe{Tools: tools})
	if err != nil {
		return nil, err
	}
	result, err := json.Marshal(abi.Result{Content: []abi.Content{abi.Text(answer)}})
	if err != nil {
		return nil, err
	}
	resultAt := (describeAt + len(describe) + 15) &^ 15
	if call == nil {
		call = i64Const(abi.Pack(uint32(resultAt), uint32(len(result))))
	}
	if resultAt+len(result) > docsEnd {
		return nil, fmt.Errorf("guest documents of %d bytes do not fit the first page", resultAt+len(result))
	}

	const (
		i32 = 0x7f
		i64 = 0x7e
	)
	types := vec(
		funcType(nil, []byte{i32}),                        // abi_version
		funcType([]byte{i32}, []byte{i32}),                // alloc
		funcType(nil, []byte{i64}),                        // describe
		funcType([]byte{i32, i32, i32, i32}, []byte{i64}), // call
	)
	funcs := vec([]byte{0}, []byte{1}, []byte{2}, []byte{3})
	memory := vec([]byte{0x00, 2}) // min 2 pages, no max
	exports := vec(
		export(abi.ExportMemory, 0x02, 0),
		export(abi.ExportVersion, 0x00, 0),
		export(abi.ExportAlloc, 0x00, 1),
		export(abi.ExportDescribe, 0x00, 2),
		export(abi.ExportCall, 0x00, 3),
	)
	code := vec(
		body(nil, i32Const(abi.Version)),
		body([]byte{1, i32}, allocCode()),
		body(nil, i64Const(abi.Pack(describeAt, uint32(len(describe))))),
		body(nil, call),
	)
	data := vec(dataSegment(describeAt, describe), dataSegment(uint32(resultAt), result))

	mod := []byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00}
	for _, s := range []struct {
		id      byte
		content []byte
	}{{1, types}, {3, funcs}, {5, memory}, {7, exports}, {10, code}, {11, data}} {
		mod = append(mod, s.id)
		mod = append(mod, uleb(uint64(len(s.content)))...)
		mod = append(mod, s.content...)
	}
	return mod, nil
}

// allocCode is the body of wasmcp_alloc: arguments go at 65536, and memory
// grows to hold them; 0 when it cannot.
//
//	(local.set $need (i32.add (i32.const 65536) (local.get $size)))
//	(if (i32.gt_u (local.get $need) (i32.shl (memory.size) (i32.const 16)))
//	  (then (if (i32.eq (memory.grow (i32.sub (i32.shr_u (i32.add (local.get $need) (i32.const 65535))
//	            (i32.const 16)) (memory.size))) (i32.const -1))
//	    (then (return (i32.const 0))))))
//	(i32.const 65536)
func allocCode() []byte {
	const (
		localGet, localSet     = 0x20, 0x21
		i32Add, i32Sub, i32Shl = 0x6a, 0x6b, 0x74
		i32ShrU, i32GtU, i32Eq = 0x76, 0x4b, 0x46
		ifVoid, end, ret       = 0x04, 0x0b, 0x0f
		memorySize, memoryGrow = 0x3f, 0x40
		empty                  = 0x40
	)
	return cat(
		i32Const(65536), []byte{localGet, 0, i32Add, localSet, 1},
		[]byte{localGet, 1, memorySize, 0}, i32Const(16), []byte{i32Shl, i32GtU, ifVoid, empty},
		[]byte{localGet, 1}, i32Const(65535), []byte{i32Add}, i32Const(16), []byte{i32ShrU, memorySize, 0, i32Sub, memoryGrow, 0},
		i32Const(-1), []byte{i32Eq, ifVoid, empty}, i32Const(0), []byte{ret, end, end},
		i32Const(65536),
	)
}

func funcType(params, results []byte) []byte {
	return cat([]byte{0x60}, vec(splitBytes(params)...), vec(splitBytes(results)...))
}

func export(name string, kind byte, index uint32) []byte {
	return cat(wasmName(name), []byte{kind}, uleb(uint64(index)))
}

// body is a function body with locals (a count and a type, or nil for none)
// and code, to which it adds the final end.
func body(locals, code []byte) []byte {
	var b []byte
	if locals == nil {
		b = []byte{0}
	} else {
		b = append([]byte{1}, locals...)
	}
	b = append(append(b, code...), 0x0b)
	return cat(uleb(uint64(len(b))), b)
}

// dataSegment is an active segment of memory 0 at offset.
func dataSegment(offset uint32, b []byte) []byte {
	return cat([]byte{0x00}, i32Const(int32(offset)), []byte{0x0b}, uleb(uint64(len(b))), b)
}

func wasmName(s string) []byte { return cat(uleb(uint64(len(s))), []byte(s)) }

func i32Const(v int32) []byte  { return cat([]byte{0x41}, sleb(int64(v))) }
func i64Const(v uint64) []byte { return cat([]byte{0x42}, sleb(int64(v))) }

// vec is a WebAssembly vector: a count and the items.
func vec(items ...[]byte) []byte { return cat(append([][]byte{uleb(uint64(len(items)))}, items...)...) }

func splitBytes(b []byte) [][]byte {
	out := make([][]byte, len(b))
	for i := range b {
		out[i] = b[i : i+1]
	}
	return out
}

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func uleb(v uint64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			c |= 0x80
		}
		b = append(b, c)
		if v == 0 {
			return b
		}
	}
}

func sleb(v int64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
