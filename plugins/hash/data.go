package main

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// Data is an input given either as text or as base64. Exactly one of the
// two must be present; an empty text is an empty input.
type Data struct {
	Text   *string `json:"text,omitempty" description:"The input as text; its UTF-8 bytes are used. Give text or base64."`
	Base64 *string `json:"base64,omitempty" description:"The input as base64 (standard or URL-safe alphabet, padding optional), for binary data. Give text or base64."`
}

func (d Data) bytes() ([]byte, error) {
	return oneOf("text", d.Text, "base64", d.Base64)
}

// oneOf returns the bytes of whichever of the text and base64 fields named
// textName and b64Name is set, and refuses both or neither.
func oneOf(textName string, text *string, b64Name string, b64 *string) ([]byte, error) {
	switch {
	case text != nil && b64 != nil:
		return nil, fmt.Errorf("give %s or %s, not both", textName, b64Name)
	case text != nil:
		return []byte(*text), nil
	case b64 != nil:
		b, err := decodeBase64(*b64, false)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", b64Name, err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("give %s or %s", textName, b64Name)
}

// decodeBase64 accepts both alphabets, with or without padding, and line
// breaks, since base64 pasted by a model or a user comes in every variant.
// urlFirst only decides which alphabet names the error.
func decodeBase64(s string, urlFirst bool) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, s)
	raw := strings.TrimRight(s, "=")
	if strings.ContainsAny(raw, "-_") || urlFirst && !strings.ContainsAny(raw, "+/") {
		b, err := base64.RawURLEncoding.DecodeString(raw)
		if err != nil {
			return nil, errors.New("not valid base64url: " + err.Error())
		}
		return b, nil
	}
	b, err := base64.RawStdEncoding.DecodeString(raw)
	if err != nil {
		return nil, errors.New("not valid base64: " + err.Error())
	}
	return b, nil
}
