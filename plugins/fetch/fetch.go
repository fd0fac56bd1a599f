package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"

	wasmcp "github.com/wasmcp/wasmcp/sdk-guest/go"
)

// defaultMaxLength is the reference fetch server's part size: a page of
// prose, small enough to leave the model room for the rest of its context.
const defaultMaxLength = 5000

// userAgent names the tool to the servers it reaches, as the reference
// server names itself, so that a site can tell it from a browser.
const userAgent = "wasmcp-fetch/1.0 (MCP fetch tool; +https://github.com/wasmcp/wasmcp)"

// accept prefers what the tool can return to a model.
const accept = "text/html,application/xhtml+xml,application/json;q=0.9,text/*;q=0.8,*/*;q=0.1"

// Args are the fetch tool's arguments, those of the reference server.
type Args struct {
	URL        string `json:"url" description:"The URL to fetch: http or https." jsonschema:"format=uri,minLength=1"`
	MaxLength  int    `json:"maxLength,omitempty" description:"The most characters to return; longer contents are returned in parts." jsonschema:"exclusiveMinimum=0,exclusiveMaximum=1000000,default=5000"`
	StartIndex int    `json:"startIndex,omitempty" description:"The character to start at, for the next part of contents that were cut off." jsonschema:"minimum=0,default=0"`
	Raw        bool   `json:"raw,omitempty" description:"Return HTML as it is, without converting it to Markdown." jsonschema:"default=false"`
}

// markdown converts HTML with CommonMark and the GitHub extensions pages
// use most (tables, strikethrough). Table cells are not padded to align:
// the model does not need it and pays for every space.
var markdown = converter.NewConverter(converter.WithPlugins(
	base.NewBasePlugin(),
	commonmark.NewCommonmarkPlugin(),
	table.NewTablePlugin(table.WithCellPaddingBehavior(table.CellPaddingBehaviorMinimal), table.WithSkipEmptyRows(true)),
	strikethrough.NewStrikethroughPlugin(),
))

// send makes the request; tests replace it to get answers wasmcptest's
// handler cannot give, such as a denial.
var send = wasmcp.HTTP

func fetch(args Args) (string, error) {
	maxLength := args.MaxLength
	if maxLength <= 0 {
		maxLength = defaultMaxLength
	}
	res, err := send(wasmcp.HTTPRequest{
		URL:     args.URL,
		Headers: []wasmcp.HTTPHeader{{Name: "User-Agent", Value: userAgent}, {Name: "Accept", Value: accept}},
	})
	switch {
	case errors.Is(err, wasmcp.ErrDenied):
		return "", fmt.Errorf("fetch %s: denied: %v", args.URL, err)
	case err != nil:
		return "", fmt.Errorf("fetch %s: %v", args.URL, err)
	case res.Status < 200 || res.Status > 299:
		return "", fmt.Errorf("fetch %s: the server answered with HTTP status %d", args.URL, res.Status)
	}
	source := args.URL
	if res.URL != "" && res.URL != args.URL {
		source = res.URL + " (redirected from " + args.URL + ")"
	}
	content, what, err := readable(res, args.Raw)
	if err != nil {
		return "", fmt.Errorf("fetch %s: %v", args.URL, err)
	}
	return page("Contents of "+source+" ("+what+")", content, args.StartIndex, maxLength)
}

// readable returns the body of res as text for a model, and says what it
// is: HTML converted to Markdown (unless raw), or any text as it is.
func readable(res *wasmcp.HTTPResponse, raw bool) (content, what string, err error) {
	mediaType := contentType(res)
	if len(bytes.TrimSpace(res.Body)) == 0 {
		return "", or(mediaType, "empty"), nil
	}
	switch kind(mediaType, res.Body) {
	case isHTML:
		if raw {
			return text(res.Body), or(mediaType, "HTML"), nil
		}
		// Relative links resolve against the URL that answered.
		md, err := markdown.ConvertString(text(res.Body), converter.WithDomain(res.URL))
		if err != nil {
			return "", "", fmt.Errorf("converting the HTML to Markdown: %v", err)
		}
		if strings.TrimSpace(md) == "" {
			return "", "", errors.New("the page has no text once converted to Markdown (it may be written by JavaScript); raw: true returns its HTML")
		}
		return md, "HTML as Markdown", nil
	case isText:
		return text(res.Body), or(mediaType, "text"), nil
	}
	return "", "", fmt.Errorf("the response is %s (%d bytes), not text: fetch returns web pages, JSON and other text",
		or(mediaType, "binary data"), len(res.Body))
}

// contentType is the response's media type, lower case, without parameters.
func contentType(res *wasmcp.HTTPResponse) string {
	for _, h := range res.Headers {
		if strings.EqualFold(h.Name, "Content-Type") {
			mediaType, _, _ := strings.Cut(h.Value, ";")
			return strings.ToLower(strings.TrimSpace(mediaType))
		}
	}
	return ""
}

type bodyKind int

const (
	isBinary bodyKind = iota
	isText
	isHTML
)

// textTypes are the media types outside text/ that are text.
var textTypes = []string{
	"application/json", "application/xml", "application/javascript", "application/ecmascript",
	"application/x-javascript", "application/yaml", "application/x-yaml", "application/toml",
	"application/x-ndjson", "application/graphql", "application/sql", "application/x-sh",
}

// kind classifies a body by its media type, and by its first bytes when the
// server did not say, as the reference server does.
func kind(mediaType string, body []byte) bodyKind {
	switch {
	case mediaType == "text/html" || mediaType == "application/xhtml+xml":
		return isHTML
	case strings.HasPrefix(mediaType, "text/") || strings.HasSuffix(mediaType, "+json") ||
		strings.HasSuffix(mediaType, "+xml"):
		return isText
	case mediaType != "":
		for _, t := range textTypes {
			if mediaType == t {
				return isText
			}
		}
		return isBinary
	}
	head := bytes.ToLower(body[:min(len(body), 512)])
	switch {
	case bytes.Contains(head, []byte("<html")) || bytes.Contains(head, []byte("<!doctype html")):
		return isHTML
	case utf8.Valid(body) && bytes.IndexByte(body, 0) < 0:
		return isText
	}
	return isBinary
}

// text is body as UTF-8: bytes of another encoding become U+FFFD.
func text(body []byte) string { return strings.ToValidUTF8(string(body), "\uFFFD") }

func or(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

// page returns the part of content from character start, at most
// maxLength characters, under the heading. A part that ends before the
// content does ends with the reference server's note naming the next
// startIndex, which models act on.
func page(heading, content string, start, maxLength int) (string, error) {
	total := utf8.RuneCountInString(content)
	switch {
	case total == 0:
		return heading + ":\n(the response is empty)", nil
	case start >= total:
		return "", fmt.Errorf("startIndex %d is past the end of the contents, which are %d characters long", start, total)
	case start == 0 && total <= maxLength:
		return heading + ":\n" + content, nil
	}
	from := byteOffset(content, 0, start)
	to := byteOffset(content, from, maxLength)
	end := start + utf8.RuneCountInString(content[from:to])
	out := fmt.Sprintf("%s, characters %d to %d of %d:\n%s", heading, start, end, total, content[from:to])
	if end < total {
		out += fmt.Sprintf("\n\n<error>Content truncated. Call the fetch tool with a startIndex of %d to get more content.</error>", end)
	}
	return out, nil
}

// byteOffset returns the offset in s of the character n characters after
// byte offset from, or len(s).
func byteOffset(s string, from, n int) int {
	i := from
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}
