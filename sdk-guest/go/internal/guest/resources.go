package guest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/wasmcp/wasmcp/abi"
)

// The errors a handler wraps to choose the JSON-RPC code of its refusal
// (ABI.md section 4, "Errors"); any other error is an internal error.
var (
	ErrNotFound      = errors.New("resource not found")
	ErrInvalidParams = errors.New("invalid arguments")
)

// ReadFunc reads a resource: uri is the URI asked for, vars the values of
// the template's variables (nil for a resource). Items without a URI get
// uri.
type ReadFunc func(uri string, vars map[string]string) ([]abi.ResourceContents, error)

// PromptFunc gets a prompt's messages for its arguments.
type PromptFunc func(args map[string]string) ([]abi.PromptMessage, error)

// CompleteFunc suggests values for an argument of which the user has typed
// value; args are the arguments already chosen.
type CompleteFunc func(value string, args map[string]string) ([]string, error)

// MatchFunc gives the values of a template's variables that expand to uri.
type MatchFunc func(uri string) (map[string]string, bool)

type resource struct {
	def  abi.Resource
	read ReadFunc
}

type template struct {
	def      abi.ResourceTemplate
	prefix   int // the length of the text before its first expression
	match    MatchFunc
	read     ReadFunc
	complete map[string]CompleteFunc
}

type prompt struct {
	def      abi.Prompt
	get      PromptFunc
	complete map[string]CompleteFunc
}

// Read, GetPrompt and Complete serve the exports wasmcp_read, wasmcp_prompt
// and wasmcp_complete, which a module always has. Until a registration
// installs the dispatchers below they answer as for a module without
// resources or prompts, so that a module of tools links none of the
// dispatchers' code.
var (
	// Read returns the Read document of uri.
	Read = func(uri string) []byte {
		return ErrorDocument(abi.CodeResourceNotFound, ErrNotFound.Error()+": "+uri)
	}
	// GetPrompt returns the Prompt document of the named prompt for its
	// arguments JSON.
	GetPrompt = func(name string, _ []byte) []byte {
		return ErrorDocument(abi.CodeInvalidParams, "unknown prompt "+strconv.Quote(name))
	}
	// Complete returns the Completion document of a CompleteRequest.
	Complete = func([]byte) []byte { return []byte(`{"values":[]}`) }
)

var (
	resources     []resource
	resourceIndex = map[string]int{}
	templates     []template // in registration order, as listed
	// routes orders templates as the host routes URIs: the longest text
	// before the first expression first, then registration order.
	routes      []int
	prompts     []prompt
	promptIndex = map[string]int{}
)

// RegisterResource adds a resource, refusing what the host would refuse.
func RegisterResource(def abi.Resource, read ReadFunc) error {
	if err := abi.ValidateResource(&def); err != nil {
		return fmt.Errorf("resource %q: %w", def.URI, err)
	}
	if _, dup := resourceIndex[def.URI]; dup {
		return fmt.Errorf("resource %q is registered twice", def.URI)
	}
	if len(resources) == abi.MaxResources {
		return fmt.Errorf("resource %q: a module defines at most %d resources", def.URI, abi.MaxResources)
	}
	resourceIndex[def.URI] = len(resources)
	resources = append(resources, resource{def, read})
	Read = readDocument
	describe = nil
	return nil
}

// RegisterTemplate adds a resource template whose variables are vars,
// matched by match, and the completions of some of them.
func RegisterTemplate(def abi.ResourceTemplate, vars []string, match MatchFunc, read ReadFunc, complete map[string]CompleteFunc) error {
	if err := abi.ValidateResourceTemplate(&def); err != nil {
		return fmt.Errorf("resource template %q: %w", def.URITemplate, err)
	}
	for _, t := range templates {
		if t.def.URITemplate == def.URITemplate {
			return fmt.Errorf("resource template %q is registered twice", def.URITemplate)
		}
	}
	if len(templates) == abi.MaxResourceTemplates {
		return fmt.Errorf("resource template %q: a module defines at most %d templates", def.URITemplate, abi.MaxResourceTemplates)
	}
	for name := range complete {
		if !slices.Contains(vars, name) {
			return fmt.Errorf("resource template %q: a completion for %q, which is not one of its variables %q", def.URITemplate, name, vars)
		}
	}
	t := template{def, len(abi.TemplatePrefix(def.URITemplate)), match, read, complete}
	at := len(routes) // after every template of a prefix as long or longer
	for k, i := range routes {
		if templates[i].prefix < t.prefix {
			at = k
			break
		}
	}
	routes = slices.Insert(routes, at, len(templates))
	templates = append(templates, t)
	Read, Complete = readDocument, completeDocument
	describe = nil
	return nil
}

// RegisterPrompt adds a prompt and the completions of some of its
// arguments.
func RegisterPrompt(def abi.Prompt, get PromptFunc, complete map[string]CompleteFunc) error {
	if err := abi.ValidatePrompt(&def); err != nil {
		return fmt.Errorf("prompt %q: %w", def.Name, err)
	}
	if _, dup := promptIndex[def.Name]; dup {
		return fmt.Errorf("prompt %q is registered twice", def.Name)
	}
	if len(prompts) == abi.MaxPrompts {
		return fmt.Errorf("prompt %q: a module defines at most %d prompts", def.Name, abi.MaxPrompts)
	}
	for name := range complete {
		if !slices.ContainsFunc(def.Arguments, func(a abi.PromptArgument) bool { return a.Name == name }) {
			return fmt.Errorf("prompt %q: a completion for %q, which is not one of its arguments", def.Name, name)
		}
	}
	promptIndex[def.Name] = len(prompts)
	prompts = append(prompts, prompt{def, get, complete})
	GetPrompt, Complete = promptDocument, completeDocument
	describe = nil
	return nil
}

// readDocument is Read once a resource or template is registered: the
// resource of uri, else the first template in routes that matches it. It
// always returns a document; a refusal, a panic or invalid contents is an
// error document.
func readDocument(uri string) []byte {
	var read ReadFunc
	var vars map[string]string
	if i, ok := resourceIndex[uri]; ok {
		read = resources[i].read
	} else {
		for _, i := range routes {
			if v, ok := templates[i].match(uri); ok {
				read, vars = templates[i].read, v
				break
			}
		}
	}
	if read == nil {
		return errorDocument(fmt.Errorf("%w: %s", ErrNotFound, uri))
	}
	var res abi.ReadResult
	err := protect("resource "+uri, func() (err error) {
		res.Contents, err = read(uri, vars)
		return err
	})
	if err == nil {
		for i := range res.Contents {
			if res.Contents[i].URI == "" {
				res.Contents[i].URI = uri
			}
		}
		if err = res.Validate(); err != nil {
			err = fmt.Errorf("resource %s: read returned an invalid document: %w", uri, err)
		}
	}
	return document(&res, err)
}

// promptDocument is GetPrompt once a prompt is registered.
func promptDocument(name string, args []byte) []byte {
	i, ok := promptIndex[name]
	if !ok {
		return ErrorDocument(abi.CodeInvalidParams, "unknown prompt "+strconv.Quote(name))
	}
	var in map[string]string
	if len(args) > 0 {
		if err := json.Unmarshal(args, &in); err != nil {
			return errorDocument(fmt.Errorf("%w for prompt %s: %v", ErrInvalidParams, name, err))
		}
	}
	p := &prompts[i]
	res := abi.PromptResult{Description: p.def.Description}
	err := protect("prompt "+name, func() (err error) {
		res.Messages, err = p.get(in)
		return err
	})
	if err == nil {
		if err = res.Validate(); err != nil {
			err = fmt.Errorf("prompt %s returned an invalid document: %w", name, err)
		}
	}
	return document(&res, err)
}

// completeDocument is Complete once a template or a prompt is registered:
// the values of the completion registered for the argument, at most
// abi.MaxCompletionValues, or none.
func completeDocument(req []byte) []byte {
	var r abi.CompleteRequest
	if err := json.Unmarshal(req, &r); err != nil {
		return errorDocument(fmt.Errorf("%w: completion request: %v", ErrInvalidParams, err))
	}
	var complete CompleteFunc
	switch r.Ref.Type {
	case abi.RefPrompt:
		if i, ok := promptIndex[r.Ref.Name]; ok {
			complete = prompts[i].complete[r.Argument.Name]
		}
	case abi.RefResource:
		for _, t := range templates {
			if t.def.URITemplate == r.Ref.URI {
				complete = t.complete[r.Argument.Name]
				break
			}
		}
	}
	res := abi.CompleteResult{Values: []string{}}
	var err error
	if complete != nil {
		var args map[string]string
		if r.Context != nil {
			args = r.Context.Arguments
		}
		err = protect("completion of "+r.Argument.Name, func() error {
			values, err := complete(r.Argument.Value, args)
			if n := len(values); n > abi.MaxCompletionValues {
				values, res.Total, res.HasMore = values[:abi.MaxCompletionValues], &n, true
			}
			if values != nil {
				res.Values = values
			}
			return err
		})
	}
	return document(&res, err)
}

// protect runs f and turns a panic in it into an error, logged with its
// stack, so that the instance stays usable.
func protect(what string, f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = errors.New(panicked(what, v))
		}
	}()
	return f()
}

// document encodes res, or the error document of err when it is not nil.
func document(res any, err error) []byte {
	if err != nil {
		return errorDocument(err)
	}
	doc, err := json.Marshal(res)
	if err != nil {
		return errorDocument(fmt.Errorf("encode the document: %w", err))
	}
	return doc
}

// errorDocument is the document of a refusal: ErrNotFound and
// ErrInvalidParams give their codes, any other error an internal error.
func errorDocument(err error) []byte {
	code := abi.CodeInternalError
	switch {
	case errors.Is(err, ErrNotFound):
		code = abi.CodeResourceNotFound
	case errors.Is(err, ErrInvalidParams):
		code = abi.CodeInvalidParams
	}
	return ErrorDocument(code, err.Error())
}

// ErrorDocument is the error document {"error":{"code":code,"message":msg}}.
func ErrorDocument(code int, msg string) []byte {
	doc, _ := json.Marshal(struct {
		Error abi.GuestError `json:"error"`
	}{abi.GuestError{Code: code, Message: msg}}) // a string and an int always encode
	return doc
}
