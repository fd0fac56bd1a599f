package main

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// StatsArgs are the arguments of text_stats.
type StatsArgs struct {
	Text string `json:"text" description:"The text to measure."`
}

// Stats is the result of text_stats.
type Stats struct {
	Bytes           int  `json:"bytes" description:"Length in bytes (UTF-8)."`
	Characters      int  `json:"characters" description:"Unicode code points."`
	Lines           int  `json:"lines" description:"Lines; a last line without a newline counts, an empty text has none."`
	Words           int  `json:"words" description:"Runs of characters between whitespace."`
	BlankLines      int  `json:"blank_lines" description:"Lines that are empty or hold only whitespace."`
	LongestLine     int  `json:"longest_line" description:"Characters in the longest line, not counting its line ending."`
	Letters         int  `json:"letters" description:"Letter characters (Unicode category L)."`
	Digits          int  `json:"digits" description:"Decimal digit characters (Unicode category Nd)."`
	Spaces          int  `json:"spaces" description:"Whitespace characters, line endings included."`
	Punctuation     int  `json:"punctuation" description:"Punctuation characters (Unicode category P)."`
	CRLFLines       int  `json:"crlf_lines" description:"Lines ending in a carriage return and line feed (Windows line endings)."`
	EndsWithNewline bool `json:"ends_with_newline" description:"Whether the text ends with a line feed."`
}

func textStats(in StatsArgs) (Stats, error) {
	s := Stats{
		Bytes:           len(in.Text),
		Characters:      utf8.RuneCountInString(in.Text),
		Words:           len(strings.Fields(in.Text)),
		EndsWithNewline: strings.HasSuffix(in.Text, "\n"),
	}
	for _, r := range in.Text {
		switch {
		case unicode.IsLetter(r):
			s.Letters++
		case unicode.IsDigit(r):
			s.Digits++
		case unicode.IsSpace(r):
			s.Spaces++
		case unicode.IsPunct(r):
			s.Punctuation++
		}
	}
	for line := range strings.Lines(in.Text) {
		s.Lines++
		body := strings.TrimSuffix(line, "\n")
		if strings.HasSuffix(body, "\r") && body != line {
			s.CRLFLines++
			body = body[:len(body)-1]
		}
		if strings.TrimSpace(body) == "" {
			s.BlankLines++
		}
		s.LongestLine = max(s.LongestLine, utf8.RuneCountInString(body))
	}
	return s, nil
}
