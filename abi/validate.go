package abi

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Limits on the optional fields of a Tool, so that a describe document
// cannot make one definition arbitrarily large in ways no client uses.
const (
	// MaxIcons is the most icons one tool may have.
	MaxIcons = 16
	// MaxIconSizes is the most sizes one icon may list.
	MaxIconSizes = 16
)

// Validate reports the first way i breaks MCP's Icon: src must be an https,
// http or data URI, sizes "WxH" or "any", theme "light" or "dark".
func (i *Icon) Validate() error {
	scheme, _, ok := strings.Cut(i.Src, ":")
	switch strings.ToLower(scheme) {
	case "https", "http", "data":
	default:
		if !ok {
			return fmt.Errorf("icon src %q is not a URI", truncate(i.Src))
		}
		return fmt.Errorf("icon src %q: scheme %q is not https, http or data", truncate(i.Src), scheme)
	}
	if len(i.Sizes) > MaxIconSizes {
		return fmt.Errorf("icon has %d sizes, more than %d", len(i.Sizes), MaxIconSizes)
	}
	for _, s := range i.Sizes {
		if !validIconSize(s) {
			return fmt.Errorf(`icon size %q is neither "WxH" nor "any"`, truncate(s))
		}
	}
	switch i.Theme {
	case "", "light", "dark":
		return nil
	}
	return fmt.Errorf(`icon theme %q is neither "light" nor "dark"`, truncate(i.Theme))
}

func validIconSize(s string) bool {
	if s == "any" {
		return true
	}
	w, h, ok := strings.Cut(s, "x")
	return ok && positiveInt(w) && positiveInt(h)
}

func positiveInt(s string) bool {
	n, err := strconv.ParseUint(s, 10, 32)
	return err == nil && n > 0 && s[0] != '+'
}

// Values of ToolExecution.TaskSupport.
const (
	TaskForbidden = "forbidden"
	TaskOptional  = "optional"
	TaskRequired  = "required"
)

// Validate reports a TaskSupport that is not one of MCP's values.
func (e *ToolExecution) Validate() error {
	if e == nil {
		return nil
	}
	switch e.TaskSupport {
	case "", TaskForbidden, TaskOptional, TaskRequired:
		return nil
	}
	return fmt.Errorf("execution.taskSupport %q is not one of forbidden, optional, required", truncate(e.TaskSupport))
}

// Validate reports the first way a breaks MCP's Annotations, which clients
// check when they parse a result: audience of "user" and "assistant",
// priority between 0 and 1, lastModified an ISO 8601 date and time with its
// offset (RFC 3339, as validLastModified reads it). A nil a is valid.
func (a *ContentAnnotations) Validate() error {
	if a == nil {
		return nil
	}
	for _, r := range a.Audience {
		if r != "user" && r != "assistant" {
			return fmt.Errorf(`annotations.audience %q is neither "user" nor "assistant"`, truncate(r))
		}
	}
	if p := a.Priority; p != nil && (math.IsNaN(*p) || *p < 0 || *p > 1) {
		return fmt.Errorf("annotations.priority %v is not between 0 and 1", *p)
	}
	if a.LastModified != "" && !validLastModified(a.LastModified) {
		return fmt.Errorf("annotations.lastModified %q is not an RFC 3339 date and time (2025-01-12T15:00:58Z)",
			truncate(a.LastModified))
	}
	return nil
}

// validLastModified reports whether s is a date and time as the official
// TypeScript SDK reads lastModified (zod's iso.datetime with an offset):
// YYYY-MM-DDTHH:MM:SS, an optional fraction after a dot, and Z or an
// offset of at most ±23:59, all of it a valid instant. time.Parse alone
// also takes a comma before the fraction and offsets up to ±99:99, which
// that client refuses, and with it the whole result.
func validLastModified(s string) bool {
	const layout = "dddd-dd-ddTdd:dd:dd"
	if len(s) < len(layout) || !fits(s[:len(layout)], layout) {
		return false
	}
	zone := s[len(layout):]
	if frac, ok := strings.CutPrefix(zone, "."); ok {
		n := 0
		for n < len(frac) && '0' <= frac[n] && frac[n] <= '9' {
			n++
		}
		if n == 0 {
			return false
		}
		zone = frac[n:]
	}
	if zone != "Z" && !(len(zone) == 6 && (zone[0] == '+' || zone[0] == '-') && fits(zone[1:], "dd:dd") &&
		zone[1:3] <= "23" && zone[4:6] <= "59") {
		return false
	}
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

// fits reports whether s has the shape of layout, in which 'd' stands for
// any decimal digit and any other byte for itself.
func fits(s, layout string) bool {
	if len(s) != len(layout) {
		return false
	}
	for i := range len(layout) {
		if layout[i] == 'd' && (s[i] < '0' || s[i] > '9') || layout[i] != 'd' && s[i] != layout[i] {
			return false
		}
	}
	return true
}

// ValidateTool reports the first way t breaks the rules of ABI.md section 4
// that do not need its schemas compiled: its name, icons and execution.
func ValidateTool(t *Tool) error {
	switch {
	case t.Name == "":
		return errors.New("name is missing")
	case !ValidToolName(t.Name):
		return fmt.Errorf("name must be 1 to %d characters of [A-Za-z0-9_.-]", MaxToolNameLen)
	case len(t.Icons) > MaxIcons:
		return fmt.Errorf("%d icons, more than %d", len(t.Icons), MaxIcons)
	}
	for i := range t.Icons {
		if err := t.Icons[i].Validate(); err != nil {
			return fmt.Errorf("icons[%d]: %w", i, err)
		}
	}
	return t.Execution.Validate()
}

// truncate keeps a value quoted in an error message short.
func truncate(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
