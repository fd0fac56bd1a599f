package plugin_test

import (
	"bytes"
	"encoding/json"
)

// repeatsName reports whether an object of doc, valid JSON, has two members
// of the same name, which Call refuses (package schema). It reads doc's
// tokens, a way of its own, so that it can judge the validator's.
func repeatsName(doc []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var value func() bool
	value = func() bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('['):
			for dec.More() {
				if value() {
					return true
				}
			}
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				name, err := dec.Token()
				if err != nil {
					return false
				}
				key := name.(string)
				if seen[key] {
					return true
				}
				seen[key] = true
				if value() {
					return true
				}
			}
		default:
			return false
		}
		_, _ = dec.Token() // ] or }
		return false
	}
	return value()
}
