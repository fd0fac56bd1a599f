package mcpadapter

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/abi"
	"github.com/wasmcp/wasmcp/host"
)

// offersHost is a fakeHost that offers prompts and resources: a read of a
// resource answers with its name as text ("" included), a prompt echoes its
// arguments.
type offersHost struct {
	fakeHost
	prompts   []host.Prompt
	resources []host.Resource
}

func (h *offersHost) PromptsFor(*host.Principal) []host.Prompt     { return h.prompts }
func (h *offersHost) ResourcesFor(*host.Principal) []host.Resource { return h.resources }
func (h *offersHost) ResourceTemplatesFor(*host.Principal) []host.ResourceTemplate {
	return []host.ResourceTemplate{{ResourceTemplate: abi.ResourceTemplate{URITemplate: "notes://{id}", Name: "note"}, Plugin: "notes"}}
}

func (h *offersHost) ReadResource(_ context.Context, uri string, _ host.Request) (*abi.ReadResult, host.Module, error) {
	for _, r := range h.resources {
		if r.URI == uri {
			text := r.Name
			return &abi.ReadResult{Contents: []abi.ResourceContents{{URI: uri, Text: &text}}}, host.Module{Plugin: r.Plugin}, nil
		}
	}
	if uri == "notes://refused" {
		return nil, host.Module{}, &host.RequestError{Code: abi.CodeInvalidParams, Message: "plugin notes: no such note"}
	}
	return nil, host.Module{}, fmt.Errorf("read %s: %w", uri, host.ErrUnknownResource)
}

func (h *offersHost) GetPrompt(_ context.Context, name string, args json.RawMessage, _ host.Request) (*abi.PromptResult, host.Module, error) {
	if !slices.ContainsFunc(h.prompts, func(p host.Prompt) bool { return p.Name == name }) {
		return nil, host.Module{}, fmt.Errorf("prompt %s: %w", name, host.ErrUnknownPrompt)
	}
	return &abi.PromptResult{Messages: []abi.PromptMessage{{Role: "user", Content: abi.Text(string(args))}}}, host.Module{Plugin: "notes"}, nil
}

func (h *offersHost) Complete(_ context.Context, c abi.CompleteRequest, _ host.Request) (*abi.CompleteResult, error) {
	return &abi.CompleteResult{Values: []string{c.Argument.Value + "1", c.Argument.Value + "2"}}, nil
}

func TestOffers(t *testing.T) {
	h := &offersHost{}
	for i := range 1500 {
		h.prompts = append(h.prompts, host.Prompt{Prompt: abi.Prompt{Name: fmt.Sprintf("p%04d", i)}, Plugin: "notes"})
	}
	h.resources = []host.Resource{
		{Resource: abi.Resource{URI: "notes://empty", Name: ""}, Plugin: "notes"},
		{Resource: abi.Resource{URI: "notes://one", Name: "one <&>"}, Plugin: "notes"},
	}
	for _, pv := range []string{legacy, ""} {
		t.Run("protocol="+cmp.Or(pv, "latest"), func(t *testing.T) {
			ctx := testContext(t)
			a := New(h, Options{})
			defer a.Close()
			c := connect(t, a, pv)
			caps := c.InitializeResult().Capabilities
			if caps.Prompts == nil || caps.Resources == nil || caps.Completions == nil || caps.Extensions[abi.AppExtension] == nil {
				t.Errorf("capabilities %+v", caps)
			}

			var names []string
			for p, err := range c.Prompts(ctx, nil) {
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, p.Name)
			}
			if len(names) != 1500 || !slices.IsSorted(names) {
				t.Errorf("listed %d prompts over pages", len(names))
			}
			res, err := c.ListResources(ctx, nil)
			if err != nil || len(res.Resources) != 2 {
				t.Fatalf("resources: %+v, %v", res, err)
			}
			tmpls, err := c.ListResourceTemplates(ctx, nil)
			if err != nil || len(tmpls.ResourceTemplates) != 1 {
				t.Fatalf("templates: %+v, %v", tmpls, err)
			}

			for uri, want := range map[string]string{"notes://empty": "", "notes://one": "one <&>"} {
				r, err := c.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
				if err != nil || len(r.Contents) != 1 || r.Contents[0].Text != want {
					t.Errorf("read %s: %+v, %v", uri, r, err)
				}
			}
			for uri, code := range map[string]int64{"notes://nope": abi.CodeResourceNotFound, "notes://refused": abi.CodeInvalidParams,
				"": jsonrpc.CodeInvalidParams} {
				_, err := c.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
				if je, ok := errors.AsType[*jsonrpc.Error](err); !ok || je.Code != code {
					t.Errorf("read %s: %v, want code %d", uri, err, code)
				}
			}

			p, err := c.GetPrompt(ctx, &mcp.GetPromptParams{Name: "p0001", Arguments: map[string]string{"a": "b"}})
			if err != nil || p.Messages[0].Content.(*mcp.TextContent).Text != `{"a":"b"}` {
				t.Errorf("prompt: %+v, %v", p, err)
			}
			if _, err := c.GetPrompt(ctx, &mcp.GetPromptParams{Name: "nope"}); err == nil {
				t.Error("an unknown prompt was got")
			}
			comp, err := c.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "p0001"},
				Argument: mcp.CompleteParamsArgument{Name: "a", Value: "x"}})
			if err != nil || !slices.Equal(comp.Completion.Values, []string{"x1", "x2"}) {
				t.Errorf("complete: %+v, %v", comp, err)
			}
		})
	}
}

// A change of what plugins offer reaches clients as each list's
// list_changed.
func TestOffersChangesReachClient(t *testing.T) {
	h := &offersHost{}
	a := New(h, Options{})
	defer a.Close()
	ctx := testContext(t)
	prompts, resources := make(chan struct{}, 10), make(chan struct{}, 10)
	mc := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { prompts <- struct{}{} },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { resources <- struct{}{} },
	})
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	ct, _ := serveStdio(sctx, a)
	cs, err := mc.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: legacy})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	h.emit(host.Change{
		Prompts:   host.Delta[host.Prompt]{Added: []host.Prompt{{Prompt: abi.Prompt{Name: "new"}, Plugin: "x"}}},
		Resources: host.Delta[host.Resource]{Added: []host.Resource{{Resource: abi.Resource{URI: "x://1", Name: "one"}, Plugin: "x"}}},
	})
	for what, ch := range map[string]chan struct{}{"prompts": prompts, "resources": resources} {
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("no %s list_changed", what)
		}
	}
}
