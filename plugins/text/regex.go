package main

import (
	"fmt"
	"regexp"
	"unicode/utf8"
)

// defaultMaxMatches bounds the matches of one call when max_matches is absent.
const defaultMaxMatches = 1000

// Flags are the regular expression options both regex tools take.
type Flags struct {
	IgnoreCase bool `json:"ignore_case,omitempty" description:"Match letters case-insensitively (flag i)."`
	Multiline  bool `json:"multiline,omitempty" description:"Make ^ and $ match at the start and end of every line (flag m)."`
	DotAll     bool `json:"dot_all,omitempty" description:"Let . match newlines too (flag s)."`
}

// MatchArgs are the arguments of regex_match.
type MatchArgs struct {
	Pattern string `json:"pattern" description:"Regular expression in RE2 syntax (Go's regexp): no backreferences or lookaround. Named groups are (?P<name>...) or (?<name>...)." jsonschema:"minLength=1"`
	Text    string `json:"text" description:"The text to search."`
	All     bool   `json:"all,omitempty" description:"Return every match instead of only the first."`
	Flags
	MaxMatches int `json:"max_matches,omitempty" description:"With all, stop after this many matches." jsonschema:"minimum=1,maximum=100000,default=1000"`
}

// MatchOutput is the result of regex_match.
type MatchOutput struct {
	Matched   bool    `json:"matched" description:"Whether the pattern matched at all."`
	Matches   []Match `json:"matches" description:"The matches, in order of position."`
	Truncated bool    `json:"truncated" description:"True when there were more than max_matches matches."`
}

// Match is one match. Offsets count characters (Unicode code points) from
// the start of the text; end is exclusive.
type Match struct {
	Text   string  `json:"text"`
	Start  int     `json:"start" description:"Character offset of the match."`
	End    int     `json:"end" description:"Character offset just past the match."`
	Groups []Group `json:"groups" description:"Capture groups 1 to n, in the order of their opening parenthesis."`
}

// Group is one capture group of a match.
type Group struct {
	Name    string `json:"name,omitempty" description:"The group's name, for a named group."`
	Matched bool   `json:"matched" description:"False when the group took no part in the match (then text is empty and start and end are -1)."`
	Text    string `json:"text"`
	Start   int    `json:"start"`
	End     int    `json:"end"`
}

// ReplaceArgs are the arguments of regex_replace.
type ReplaceArgs struct {
	Pattern     string `json:"pattern" description:"Regular expression in RE2 syntax (Go's regexp)." jsonschema:"minLength=1"`
	Text        string `json:"text" description:"The text to rewrite."`
	Replacement string `json:"replacement" description:"Replacement for each match. $1 or ${1} inserts group 1, ${name} a named group, $$ a literal $ (write ${1}x, not $1x, before a letter or digit). With literal, inserted as is."`
	Literal     bool   `json:"literal,omitempty" description:"Insert the replacement as is, without expanding $."`
	Flags
	MaxReplacements int `json:"max_replacements,omitempty" description:"Replace only the first n matches; all when absent." jsonschema:"minimum=1"`
}

// ReplaceOutput is the result of regex_replace.
type ReplaceOutput struct {
	Text         string `json:"text" description:"The text after replacement."`
	Replacements int    `json:"replacements" description:"How many matches were replaced."`
}

func compilePattern(pattern string, f Flags) (*regexp.Regexp, error) {
	prefix := ""
	if f.IgnoreCase {
		prefix += "i"
	}
	if f.Multiline {
		prefix += "m"
	}
	if f.DotAll {
		prefix += "s"
	}
	if prefix != "" {
		pattern = "(?" + prefix + ")" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid pattern: %v", err)
	}
	return re, nil
}

func regexMatch(in MatchArgs) (MatchOutput, error) {
	re, err := compilePattern(in.Pattern, in.Flags)
	if err != nil {
		return MatchOutput{}, err
	}
	limit := 1
	if in.All {
		limit = in.MaxMatches
		if limit == 0 {
			limit = defaultMaxMatches
		}
	}
	// One more than the limit tells whether there were more.
	found := re.FindAllStringSubmatchIndex(in.Text, limit+1)
	out := MatchOutput{Matches: []Match{}}
	if len(found) > limit {
		found = found[:limit]
		out.Truncated = in.All
	}
	names := re.SubexpNames()
	var cursor runeCursor
	for _, loc := range found {
		start := cursor.at(in.Text, loc[0])
		m := Match{Text: in.Text[loc[0]:loc[1]], Start: start, End: start + utf8.RuneCountInString(in.Text[loc[0]:loc[1]]), Groups: []Group{}}
		for g := 1; g < len(names); g++ {
			gs, ge := loc[2*g], loc[2*g+1]
			group := Group{Name: names[g], Start: -1, End: -1}
			if gs >= 0 {
				group.Matched = true
				group.Text = in.Text[gs:ge]
				// Groups lie inside their match, but not in order (nesting),
				// so they are counted from the match's start.
				group.Start = start + utf8.RuneCountInString(in.Text[loc[0]:gs])
				group.End = group.Start + utf8.RuneCountInString(group.Text)
			}
			m.Groups = append(m.Groups, group)
		}
		out.Matches = append(out.Matches, m)
	}
	out.Matched = len(out.Matches) > 0
	return out, nil
}

// runeCursor converts increasing byte offsets of one text to character
// offsets, counting each stretch of the text once.
type runeCursor struct{ bytePos, runePos int }

func (c *runeCursor) at(text string, b int) int {
	c.runePos += utf8.RuneCountInString(text[c.bytePos:b])
	c.bytePos = b
	return c.runePos
}

func regexReplace(in ReplaceArgs) (ReplaceOutput, error) {
	re, err := compilePattern(in.Pattern, in.Flags)
	if err != nil {
		return ReplaceOutput{}, err
	}
	n := in.MaxReplacements
	if n == 0 {
		n = -1
	}
	found := re.FindAllStringSubmatchIndex(in.Text, n)
	var out []byte
	last := 0
	for _, loc := range found {
		out = append(out, in.Text[last:loc[0]]...)
		if in.Literal {
			out = append(out, in.Replacement...)
		} else {
			out = re.ExpandString(out, in.Replacement, in.Text, loc)
		}
		last = loc[1]
	}
	out = append(out, in.Text[last:]...)
	return ReplaceOutput{Text: string(out), Replacements: len(found)}, nil
}
