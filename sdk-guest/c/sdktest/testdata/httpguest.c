/*
 * httpguest.c - the C SDK's module for the requests of
 * sdk-guest/internal/httpcheck, built for wasm32 by sdk_test.go. Its tool
 * "request" makes the request its arguments describe ({method, url,
 * headers: [[name, value]], body: a string}) with wasmcp_http and returns
 * the response as structured content ({status, url, headers, body in
 * base64}), or a tool error "status N: message".
 */
#include <string.h>

#include "wasmcp.h"

static void request(wasmcp_json args, wasmcp_result *res) {
    wasmcp_json hs = wasmcp_json_get(args, "headers"), body = wasmcp_json_get(args, "body");
    size_t n = wasmcp_json_count(hs);
    wasmcp_http_header *headers = wasmcp_call_memory(n * sizeof *headers + 1);
    for (size_t i = 0; i < n; i++) {
        wasmcp_json pair = wasmcp_json_index(hs, i);
        headers[i].name = wasmcp_json_string(wasmcp_json_index(pair, 0), NULL);
        headers[i].value = wasmcp_json_string(wasmcp_json_index(pair, 1), NULL);
    }
    wasmcp_http_request req = {
        .method = wasmcp_get_string(args, "method", NULL),
        .url = wasmcp_get_string(args, "url", NULL),
        .headers = headers,
        .nheaders = n,
    };
    if (body.ptr) req.body = wasmcp_json_string(body, &req.body_len);

    wasmcp_http_response resp;
    int status = wasmcp_http(&req, &resp);
    if (status != WASMCP_HTTP_OK) {
        wasmcp_result_errorf(res, "status %d: %s", status, resp.error);
        return;
    }
    wasmcp_writer *w = wasmcp_result_structured(res);
    wasmcp_w_object_begin(w);
    wasmcp_w_key(w, "status");
    wasmcp_w_int(w, resp.status);
    wasmcp_w_key(w, "url");
    wasmcp_w_string(w, resp.url);
    wasmcp_w_key(w, "headers");
    wasmcp_w_array_begin(w);
    for (size_t i = 0; i < resp.nheaders; i++) {
        wasmcp_w_array_begin(w);
        wasmcp_w_string(w, resp.headers[i].name);
        wasmcp_w_string(w, resp.headers[i].value);
        wasmcp_w_array_end(w);
    }
    wasmcp_w_array_end(w);
    wasmcp_w_key(w, "body");
    wasmcp_w_string(w, wasmcp_base64(resp.body, resp.body_len));
    wasmcp_w_object_end(w);
}

WASMCP_INIT {
    wasmcp_request_permissions(&(wasmcp_permissions){.net = (const char *[]){"*", NULL}});
    wasmcp_add_tool(&(wasmcp_tool){
        .name = "request",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"method\":{\"type\":\"string\"},"
                        "\"url\":{\"type\":\"string\"},\"headers\":{\"type\":\"array\",\"items\":{\"type\":\"array\","
                        "\"items\":{\"type\":\"string\"}}},\"body\":{\"type\":\"string\"}},\"required\":[\"url\"]}",
        .handler = request,
    });
}
