package guest

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/wasmcp/wasmcp/abi"
)

// marshalReference is how Call encoded a result before appendResult: all
// of it with encoding/json, structured content spliced in last.
func marshalReference(res *abi.Result, structured json.RawMessage) ([]byte, error) {
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	if structured != nil {
		b = append(b[:len(b)-1], `,"structuredContent":`...)
		b = append(append(b, structured...), '}')
	}
	return b, nil
}

// checkSameAsReference fails t unless appendResult writes what
// encoding/json writes for res, or fails with the same error.
func checkSameAsReference(t *testing.T, res *abi.Result, structured json.RawMessage) {
	t.Helper()
	want, wantErr := marshalReference(res, structured)
	got, err := appendResult([]byte("prefix"), res, structured)
	if (err != nil || wantErr != nil) && (err == nil || wantErr == nil || err.Error() != wantErr.Error()) {
		t.Fatalf("error %v, want %v", err, wantErr)
	}
	if wantErr == nil && string(got) != "prefix"+string(want) {
		t.Fatalf("document\n%s\nwant\nprefix%s", got, want)
	}
}

func strptr(s string) *string { return &s }

func TestAppendResultMatchesEncodingJSON(t *testing.T) {
	size := int64(-42)
	tricky := "q\" b\\ </script> & \x00\x01\x1f\b\f\n\r\t\x7f é \u2028\u2029 \xff\xc3( 😀 \U0010ffff"
	for name, tc := range map[string]struct {
		res        abi.Result
		structured json.RawMessage
	}{
		"text":          {res: abi.Result{Content: []abi.Content{abi.Text("Echo: hi")}}},
		"empty text":    {res: abi.Result{Content: []abi.Content{abi.Text("")}}},
		"escapes":       {res: abi.Result{Content: []abi.Content{abi.Text(tricky)}}},
		"no content":    {res: abi.Result{Content: []abi.Content{}}},
		"nil content":   {res: abi.Result{}},
		"error":         {res: *ErrorResult(tricky)},
		"structured":    {res: abi.Result{Content: []abi.Content{}}, structured: json.RawMessage(`{"a":[1,2]}`)},
		"image":         {res: abi.Result{Content: []abi.Content{abi.Image("AAEC", "image/png"), abi.Audio("", tricky)}}},
		"resource link": {res: abi.Result{Content: []abi.Content{{Type: abi.ContentResourceLink, URI: "file:///a<b>", Name: tricky, Title: "T", Description: "D", MimeType: "text/plain", Size: &size}}}},
		"bare link":     {res: abi.Result{Content: []abi.Content{{Type: abi.ContentResourceLink, URI: "u", Name: "n"}}}},
		"resources": {res: abi.Result{Content: []abi.Content{
			{Type: abi.ContentResource, Resource: &abi.ResourceContents{URI: "mem://x", MimeType: "text/plain", Text: strptr(tricky)}},
			{Type: abi.ContentResource, Resource: &abi.ResourceContents{URI: "mem://y", Blob: strptr("")}},
		}}},
		"result meta":    {res: abi.Result{Content: []abi.Content{abi.Text("t")}, Meta: map[string]any{"z": 1, "a": "<"}}},
		"empty meta":     {res: abi.Result{Content: []abi.Content{abi.Text("t")}, Meta: map[string]any{}}},
		"block meta":     {res: abi.Result{Content: []abi.Content{{Type: abi.ContentText, Text: "t", Meta: map[string]any{"k": true}}}}},
		"annotations":    {res: abi.Result{Content: []abi.Content{{Type: abi.ContentText, Annotations: &abi.ContentAnnotations{Audience: []string{"user"}}}}}},
		"resource meta":  {res: abi.Result{Content: []abi.Content{{Type: abi.ContentResource, Resource: &abi.ResourceContents{URI: "m", Text: strptr(""), Meta: map[string]any{}}}}}},
		"nil resource":   {res: abi.Result{Content: []abi.Content{{Type: abi.ContentResource}}}},
		"unknown type":   {res: abi.Result{Content: []abi.Content{{Type: "video"}}}},
		"unencodable":    {res: abi.Result{Content: []abi.Content{abi.Text("t")}, Meta: map[string]any{"n": math.NaN()}}},
		"error and meta": {res: abi.Result{Content: []abi.Content{abi.Text("t")}, IsError: true, Meta: map[string]any{"k": []int{1}}}, structured: json.RawMessage(`{}`)},
	} {
		t.Run(name, func(t *testing.T) { checkSameAsReference(t, &tc.res, tc.structured) })
	}
}

// FuzzAppendResult holds the hand-written encoder to encoding/json's bytes
// for results made of fuzzed strings, in blocks of every type.
func FuzzAppendResult(f *testing.F) {
	f.Add(uint8(0), "Echo: hi", "", "", false, int64(0))
	f.Add(uint8(1), "AAEC", "image/png", "", true, int64(0))
	f.Add(uint8(3), "file:///a", "a.txt", "\u2028<&>", false, int64(7))
	f.Add(uint8(4), "mem://x", "\xff", "text/plain", false, int64(-1))
	f.Add(uint8(13), "\x00\"\\", "\xed\xa0\x80", "", true, int64(0))
	f.Fuzz(func(t *testing.T, kind uint8, a, b, c string, isError bool, n int64) {
		var block abi.Content
		switch kind % 6 {
		case 0:
			block = abi.Text(a)
		case 1:
			block = abi.Image(a, b)
		case 2:
			block = abi.Audio(a, b)
		case 3:
			block = abi.Content{Type: abi.ContentResourceLink, URI: a, Name: b, Title: c, Description: b, MimeType: c}
			if n != 0 {
				block.Size = &n
			}
		case 4:
			block = abi.Content{Type: abi.ContentResource, Resource: &abi.ResourceContents{URI: a, MimeType: c, Text: &b}}
		case 5:
			block = abi.Content{Type: abi.ContentResource, Resource: &abi.ResourceContents{URI: a, Blob: &b}}
		}
		res := &abi.Result{Content: []abi.Content{block, abi.Text(c)}, IsError: isError}
		if kind&8 != 0 {
			res.Meta = map[string]any{a: b} // left to encoding/json
		}
		var structured json.RawMessage
		if kind&16 != 0 {
			structured = json.RawMessage(`{"s":1}`)
		}
		checkSameAsReference(t, res, structured)
	})
}
