package main

import (
	"cmp"
	"flag"

	"github.com/wasmcp/wasmcp/host/policy"
	"github.com/wasmcp/wasmcp/internal/mcpadapter"
)

// discoveryFlag is -discovery, of serve and dev: the tools of progressive
// discovery, in place of the plugins' tools in tools/list or beside them.
type discoveryFlag string

func (d *discoveryFlag) register(fs *flag.FlagSet) {
	fs.StringVar((*string)(d), "discovery", "", "offer the tools of progressive discovery, "+mcpadapter.SearchToolName+" and\n"+
		mcpadapter.CallToolName+": `MODE` is only (in place of the plugins' tools in tools/list), beside, or off\n"+
		"(default: the config's discovery, else off)")
}

// mode is the flag's mode, else the policy's (which may be nil).
func (d discoveryFlag) mode(operator *policy.Policy) (mcpadapter.Discovery, error) {
	mode, err := mcpadapter.ParseDiscovery(cmp.Or(string(d), operator.Discovery()))
	if err != nil {
		return mode, usageErrorf("-discovery: %v", err)
	}
	return mode, nil
}
