package jsonschema

import (
	"reflect"
	"slices"
	"strings"
)

// field is one struct field as encoding/json sees it.
type field struct {
	name       string // JSON name
	goName     string // Go name, for error paths
	typ        reflect.Type
	tag        reflect.StructTag
	index      []int
	tagged     bool // the name came from a json tag
	omit       bool // omitempty or omitzero
	quoted     bool // the ",string" option
	viaPointer bool // promoted through an embedded pointer: absent when that pointer is nil
}

// fields lists the JSON fields of struct type t in declaration order, with
// encoding/json's rules: unexported fields and `json:"-"` are skipped, fields
// of untagged embedded structs are promoted, and among fields with the same
// name the shallowest wins (a tagged one breaking ties; otherwise all drop).
func fields(t reflect.Type) []field {
	type level struct {
		typ        reflect.Type
		index      []int
		viaPointer bool
	}
	var all []field
	next := []level{{typ: t}}
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current := next
		next = nil
		for _, l := range current {
			if visited[l.typ] {
				continue
			}
			visited[l.typ] = true
			for i := 0; i < l.typ.NumField(); i++ {
				sf := l.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				index := append(slices.Clip(l.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					next = append(next, level{
						typ:        ft,
						index:      index,
						viaPointer: l.viaPointer || sf.Type.Kind() == reflect.Pointer,
					})
					continue
				}
				f := field{
					name:       name,
					goName:     sf.Name,
					typ:        sf.Type,
					tag:        sf.Tag,
					index:      index,
					tagged:     name != "",
					omit:       hasOption(opts, "omitempty") || hasOption(opts, "omitzero"),
					quoted:     hasOption(opts, "string"),
					viaPointer: l.viaPointer,
				}
				if f.name == "" {
					f.name = sf.Name
				}
				all = append(all, f)
			}
		}
	}
	return dominant(all)
}

// dominant applies encoding/json's rule for duplicate names and returns the
// survivors in declaration (index) order.
func dominant(all []field) []field {
	byName := map[string][]field{}
	for _, f := range all {
		byName[f.name] = append(byName[f.name], f)
	}
	var out []field
	for _, fs := range byName {
		depth := len(fs[0].index)
		for _, f := range fs {
			depth = min(depth, len(f.index))
		}
		var shallow []field
		for _, f := range fs {
			if len(f.index) == depth {
				shallow = append(shallow, f)
			}
		}
		if len(shallow) == 1 {
			out = append(out, shallow[0])
			continue
		}
		var tagged []field
		for _, f := range shallow {
			if f.tagged {
				tagged = append(tagged, f)
			}
		}
		if len(tagged) == 1 {
			out = append(out, tagged[0])
		}
	}
	// Insertion sort: structs have few fields, and slices.SortFunc would
	// add generic sorting code to every module.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && slices.Compare(out[j-1].index, out[j].index) > 0; j-- {
			out[j-1], out[j] = out[j], out[j-1]
		}
	}
	return out
}

func hasOption(opts, name string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == name {
			return true
		}
	}
	return false
}
