package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxExponent bounds the exponent of every number in a schema or a
// document. jsonschema compares numbers exactly, as math/big rationals, and
// building one for 1e999999 computes 10^999999: some 80 ms for eight bytes
// of JSON, so that a client could keep a core busy for hours with the
// arguments of any tool that has an integer parameter, before any deadline
// applies. With the bound, the work per byte is small. Numbers beyond
// float64 (about 1e308) do not survive most JSON decoders anyway.
const maxExponent = 400

// checkNumbers refuses a number of v, a document decoded with UseNumber,
// whose exponent is beyond ±maxExponent. at is the JSON Pointer of v. It
// visits object members in key order so that the same document always gets
// the same message.
func checkNumbers(v any, at string) error {
	switch v := v.(type) {
	case json.Number:
		s := string(v)
		if i := strings.IndexAny(s, "eE"); i >= 0 {
			exp, err := strconv.Atoi(s[i+1:])
			if err != nil || exp < -maxExponent || exp > maxExponent {
				if len(s) > 32 {
					s = s[:32] + "..."
				}
				return fmt.Errorf("at %s: number %s is out of range (exponent beyond ±%d)", pointer(at), s, maxExponent)
			}
		}
	case []any:
		for i, e := range v {
			if err := checkNumbers(e, at+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if err := checkNumbers(v[k], at+"/"+escapePointer(k)); err != nil {
				return err
			}
		}
	}
	return nil
}

// escapePointer escapes a key as a JSON Pointer reference token (RFC 6901).
var escapePointer = strings.NewReplacer("~", "~0", "/", "~1").Replace
