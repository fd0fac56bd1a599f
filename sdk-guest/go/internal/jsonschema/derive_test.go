package jsonschema

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func derive(t *testing.T, typ reflect.Type, mode Mode) string {
	t.Helper()
	s, err := ForObject(typ, mode)
	if err != nil {
		t.Fatalf("ForObject(%s): %v", typ, err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(b)
}

type Inner struct {
	Label string `json:"label"`
}

type Base struct {
	ID     int    `json:"id" description:"Record id."`
	Shadow string `json:"name"` // shadowed by Everything.Name
}

type Everything struct {
	Base
	Name     string            `json:"name" description:"Who to greet." jsonschema:"minLength=1,maxLength=20"`
	Mood     string            `json:"mood,omitempty" jsonschema:"enum=happy|sad|a\\|b,default=happy"`
	Count    int               `json:"count,omitempty" jsonschema:"minimum=0,maximum=10,default=3"`
	Ratio    float64           `json:"ratio" jsonschema:"exclusiveMinimum=0,exclusiveMaximum=1,multipleOf=0.25"`
	Small    uint8             `json:"small"`
	Code     string            `json:"code" jsonschema:"pattern=^[a-z]{1\\,3}\\d$,format=hostname,title=Code"`
	Tags     []string          `json:"tags,omitempty" jsonschema:"enum=x|y,minItems=1,maxItems=2,uniqueItems"`
	Inner    Inner             `json:"inner"`
	Ptr      *Inner            `json:"ptr,omitempty"`
	Opt      *int              `json:"opt"`
	Labels   map[string]int    `json:"labels,omitempty"`
	Raw      json.RawMessage   `json:"raw,omitempty"`
	Any      any               `json:"any,omitempty"`
	Blob     []byte            `json:"blob,omitempty"`
	Pair     [2]bool           `json:"pair"`
	Quoted   int               `json:"quoted,string"`
	Forced   string            `json:"forced,omitempty" jsonschema:"required"`
	Loose    string            `json:"loose" jsonschema:"optional"`
	Skipped  string            `json:"-"`
	NoTag    bool              //nolint: exported without a json tag keeps its Go name
	hidden   string            //nolint:unused // unexported: never encoded
	Nums     map[int][]float32 `json:"nums,omitempty"`
	Duration json.Number       `json:"duration,omitempty"`
}

func TestDeriveInput(t *testing.T) {
	got := derive(t, reflect.TypeFor[Everything](), Input)
	want := `{"type":"object","properties":{` +
		`"id":{"type":"integer","description":"Record id."},` +
		`"name":{"type":"string","description":"Who to greet.","minLength":1,"maxLength":20},` +
		`"mood":{"type":"string","default":"happy","enum":["happy","sad","a|b"]},` +
		`"count":{"type":"integer","default":3,"minimum":0,"maximum":10},` +
		`"ratio":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1,"multipleOf":0.25},` +
		`"small":{"type":"integer","minimum":0,"maximum":255},` +
		`"code":{"type":"string","title":"Code","format":"hostname","pattern":"^[a-z]{1,3}\\d$"},` +
		`"tags":{"type":"array","items":{"type":"string","enum":["x","y"]},"minItems":1,"maxItems":2,"uniqueItems":true},` +
		`"inner":{"type":"object","properties":{"label":{"type":"string"}},"required":["label"],"additionalProperties":false},` +
		`"ptr":{"type":"object","properties":{"label":{"type":"string"}},"required":["label"],"additionalProperties":false},` +
		`"opt":{"type":"integer"},` +
		`"labels":{"type":"object","additionalProperties":{"type":"integer"}},` +
		`"raw":{},"any":{},` +
		`"blob":{"type":"string","contentEncoding":"base64"},` +
		`"pair":{"type":"array","items":{"type":"boolean"},"minItems":2,"maxItems":2},` +
		`"quoted":{"type":"string"},` +
		`"forced":{"type":"string"},` +
		`"loose":{"type":"string"},` +
		`"NoTag":{"type":"boolean"},` +
		`"nums":{"type":"object","additionalProperties":{"type":"array","items":{"type":"number"}}},` +
		`"duration":{"type":"number"}},` +
		`"required":["id","name","ratio","small","code","inner","opt","pair","quoted","forced","NoTag"],` +
		`"additionalProperties":false}`
	if got != want {
		t.Errorf("schema:\n got %s\nwant %s", got, want)
	}
}

func TestDeriveOutputNullable(t *testing.T) {
	type Out struct {
		List    []string          `json:"list"`
		OptList []string          `json:"opt_list,omitempty"`
		Ptr     *int              `json:"ptr" jsonschema:"enum=1|2"`
		Map     map[string]string `json:"map"`
		Items   []*Inner          `json:"items,omitzero"`
	}
	got := derive(t, reflect.TypeFor[*Out](), Output)
	want := `{"type":"object","properties":{` +
		`"list":{"type":["array","null"],"items":{"type":"string"}},` +
		`"opt_list":{"type":"array","items":{"type":"string"}},` +
		`"ptr":{"type":["integer","null"],"enum":[1,2,null]},` +
		`"map":{"type":["object","null"],"additionalProperties":{"type":"string"}},` +
		`"items":{"type":"array","items":{"type":["object","null"],"properties":{"label":{"type":"string"}},"required":["label"],"additionalProperties":false}}},` +
		`"required":["list","ptr","map"],"additionalProperties":false}`
	if got != want {
		t.Errorf("schema:\n got %s\nwant %s", got, want)
	}
}

func TestDeriveEmptyAndEmbeddedPointer(t *testing.T) {
	if got, want := derive(t, reflect.TypeFor[struct{}](), Input), `{"type":"object","additionalProperties":false}`; got != want {
		t.Errorf("empty struct: got %s, want %s", got, want)
	}
	type WithPtr struct {
		*Inner
		N int `json:"n"`
	}
	// A nil embedded pointer drops its fields from the output, so they are
	// not required there; the input still asks for them.
	if got, want := derive(t, reflect.TypeFor[WithPtr](), Output),
		`{"type":"object","properties":{"label":{"type":"string"},"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`; got != want {
		t.Errorf("output: got %s, want %s", got, want)
	}
	if got, want := derive(t, reflect.TypeFor[WithPtr](), Input),
		`{"type":"object","properties":{"label":{"type":"string"},"n":{"type":"integer"}},"required":["label","n"],"additionalProperties":false}`; got != want {
		t.Errorf("input: got %s, want %s", got, want)
	}
}

func TestDeriveAmbiguousFieldsDrop(t *testing.T) {
	type A struct{ X int }
	type B struct{ X string }
	type C struct {
		A
		B
		Y int `json:"y"`
	}
	// encoding/json drops X: two fields at the same depth, neither tagged.
	if got, want := derive(t, reflect.TypeFor[C](), Input),
		`{"type":"object","properties":{"y":{"type":"integer"}},"required":["y"],"additionalProperties":false}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

type recursive struct {
	Children []recursive `json:"children"`
}

func TestDeriveErrors(t *testing.T) {
	tests := []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"not an object", reflect.TypeFor[[]string](), "must be a struct or a map"},
		{"channel", reflect.TypeFor[struct{ C chan int }](), "C: type chan int has no JSON form"},
		{"recursive", reflect.TypeFor[recursive](), "refers to itself"},
		{"unknown keyword", reflect.TypeFor[struct {
			A string `jsonschema:"minLen=1"`
		}](), `A: unknown jsonschema keyword "minLen"`},
		{"wrong type", reflect.TypeFor[struct {
			A int `jsonschema:"minLength=1"`
		}](), "A: minLength applies to string values, not integer"},
		{"bad number", reflect.TypeFor[struct {
			A int `jsonschema:"minimum=abc"`
		}](), "minimum=abc: not a number"},
		{"enum type", reflect.TypeFor[struct {
			A int `jsonschema:"enum=1|x"`
		}](), `enum: "x" is not a JSON value`},
		{"enum integer", reflect.TypeFor[struct {
			A int `jsonschema:"enum=1|1.5"`
		}](), "1.5 is number, want integer"},
		{"missing value", reflect.TypeFor[struct {
			A string `jsonschema:"pattern"`
		}](), `keyword "pattern" needs a value`},
		{"items on scalar", reflect.TypeFor[struct {
			A string `jsonschema:"minItems=1"`
		}](), "minItems applies to array values"},
		{"multipleOf", reflect.TypeFor[struct {
			A float64 `jsonschema:"multipleOf=0"`
		}](), "multipleOf must be greater than 0"},
		{"map key", reflect.TypeFor[map[bool]int](), "map key type bool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ForObject(tt.typ, Input)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestSplitEscapes(t *testing.T) {
	got := split(`a=1,pattern=x\,y\d,enum=p\|q|r`, ',')
	want := []string{`a=1`, `pattern=x\,y\d`, `enum=p\|q|r`}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("split: got %q, want %q", got, want)
	}
	if got := unescape(`x\,y\d`); got != `x,y\d` {
		t.Errorf("unescape: got %q", got)
	}
	if got := split(`p\|q|r`, '|'); !reflect.DeepEqual(got, []string{`p\|q`, `r`}) {
		t.Errorf("split enum: got %q", got)
	}
}
