// Command httpguest is a module whose tool makes HTTP requests with
// net/http's client over the host (package nethttp). httpmodule_test.go runs
// it under wazero with a stand-in host function; the end-to-end tests
// (e2e/net_test.go) serve it with wasmcp against real servers.
package main

import (
	"cmp"
	"io"
	"net/http"
	"strings"

	wasmcp "github.com/wasmcp/wasmcp/sdk-guest/go"
	_ "github.com/wasmcp/wasmcp/sdk-guest/go/nethttp"
)

type request struct {
	URL    string `json:"url"`
	Method string `json:"method,omitempty"`
	Body   string `json:"body,omitempty"`
}

type response struct {
	Status      int    `json:"status"`
	URL         string `json:"url"`
	ContentType string `json:"contentType"`
	Body        string `json:"body"`
}

func init() {
	wasmcp.RequestPermissions(wasmcp.Permissions{Net: []string{"*"}})
	wasmcp.AddTool("get", "Requests a URL with net/http's default client and returns the response.",
		func(in request) (response, error) {
			req, err := http.NewRequest(cmp.Or(in.Method, http.MethodGet), in.URL, strings.NewReader(in.Body))
			if err != nil {
				return response{}, err
			}
			req.Header.Set("X-Guest", "httpguest")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return response{}, err
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				return response{}, err
			}
			return response{resp.StatusCode, resp.Request.URL.String(), resp.Header.Get("Content-Type"), string(body)}, nil
		}, wasmcp.ReadOnly(), wasmcp.OpenWorld(true))
}

func main() {}
