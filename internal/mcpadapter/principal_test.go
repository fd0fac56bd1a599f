package mcpadapter

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmcp/wasmcp/host"
	"github.com/wasmcp/wasmcp/internal/seal"
)

// A requestState continues the rounds of a call only for the principal
// that began them: another principal's replay is refused, saying so.
func TestRequestStateBoundToPrincipal(t *testing.T) {
	sealer, err := seal.New(DefaultStateMaxAge, seal.NewKey())
	if err != nil {
		t.Fatal(err)
	}
	alice := &host.Principal{Issuer: "https://as.example", Subject: "alice", ClientID: "app"}
	mallory := &host.Principal{Issuer: "https://as.example", Subject: "mallory", ClientID: "app"}
	sealFor := func(p *host.Principal) string {
		st := roundState{V: roundVersion, Steps: []step{{Key: "sampling-1", Method: methodSample, Request: digest([]byte("{}"))}}}
		if p != nil {
			st.Principal = digest([]byte(p.Key()))
		}
		raw, _ := json.Marshal(st)
		return sealer.Seal(raw, stateAD("ask", argsDigest(json.RawMessage(sampleArgs))))
	}
	req := func(state string) *mcp.CallToolRequest {
		return &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
			Name: "ask", Arguments: json.RawMessage(sampleArgs), RequestState: state, InputResponses: sampleAnswer,
		}}
	}
	for _, tc := range []struct {
		name      string
		issued    *host.Principal
		continued *host.Principal
		refused   bool
	}{
		{"same principal", alice, alice, false},
		{"another principal", alice, mallory, true},
		{"a principal's state without one", alice, nil, true},
		{"no principal", nil, nil, false},
		{"a state without a principal, with one", nil, alice, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newRound(req(sealFor(tc.issued)), tc.continued, sealer)
			switch {
			case tc.refused && (err == nil || !strings.Contains(err.Error(), "another principal")):
				t.Errorf("err = %v, want a refusal naming another principal", err)
			case !tc.refused && err != nil:
				t.Errorf("err = %v", err)
			}
		})
	}
}
