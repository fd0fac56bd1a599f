/*
 * http.c - one HTTP request through the host (ABI.md section 5).
 *
 * A request is a JSON head on one line, a LF and the raw body; the reply to
 * a request a server answered has the same shape, any other reply is a
 * message. Only wasmcp_http refers to the host's imports, so that the linker
 * leaves them out of a module that makes no request: a module importing
 * http_request does not load in a host older than it.
 */
#include <string.h>

#include "internal.h"

#ifdef __wasm__
__attribute__((import_module("wasmcp"), import_name("http_request"))) uint64_t
wasmcp_host_http_request_(const char *req, size_t len);
__attribute__((import_module("wasmcp"), import_name("read_reply"))) uint32_t wasmcp_host_read_reply_(char *dst,
                                                                                                     size_t len);
#else
uint32_t (*wasmcp_native_http_)(const char *req, size_t len, const char **reply, size_t *reply_len);
#endif

/* send passes the request document to the host and returns the status, with
 * the reply in call memory, NUL-terminated (NULL when out of memory). */
static uint32_t send(const char *req, size_t len, char **reply, size_t *reply_len) {
#ifdef __wasm__
    uint64_t r = wasmcp_host_http_request_(req, len);
    uint32_t status = (uint32_t)(r >> 32);
    size_t n = (uint32_t)r;
    *reply = wasmcp_call_memory(n + 1);
    if (*reply) n = wasmcp_host_read_reply_(*reply, n);
#else
    static const char no_host[] = "http requests need a wasmcp host";
    const char *from = no_host;
    size_t n = sizeof no_host - 1;
    uint32_t status = WASMCP_HTTP_FAILED;
    if (wasmcp_native_http_) status = wasmcp_native_http_(req, len, &from, &n);
    *reply = wasmcp_call_memory(n + 1);
    if (*reply) memcpy(*reply, from, n);
#endif
    if (*reply) (*reply)[n] = 0;
    *reply_len = n;
    return status;
}

static int fail(wasmcp_http_response *resp, int status, const char *msg) {
    resp->error = msg;
    return status;
}

/* encode writes the request document into call memory. */
static int encode(const wasmcp_http_request *req, wasmcp_http_response *resp, const char **doc, size_t *len) {
    if (!req->url) return fail(resp, WASMCP_HTTP_INVALID, "wasmcp_http: the request has no URL");
    if (!req->body && req->body_len) return fail(resp, WASMCP_HTTP_INVALID, "wasmcp_http: body_len without a body");
    if (!req->headers && req->nheaders) return fail(resp, WASMCP_HTTP_INVALID, "wasmcp_http: nheaders without headers");
    /* The writer escapes every LF in a string: the head stays on one line. */
    wasmcp_writer *w = wasmcp_writer_new();
    if (!w) return fail(resp, WASMCP_HTTP_FAILED, "wasmcp_http: out of memory");
    wasmcp_w_object_begin(w);
    if (req->method) wasmcp_w_key(w, "method"), wasmcp_w_string(w, req->method);
    wasmcp_w_key(w, "url");
    wasmcp_w_string(w, req->url);
    if (req->nheaders) {
        wasmcp_w_key(w, "headers");
        wasmcp_w_array_begin(w);
        for (size_t i = 0; i < req->nheaders; i++) {
            const wasmcp_http_header *h = &req->headers[i];
            if (!h->name || !h->value)
                return fail(resp, WASMCP_HTTP_INVALID, "wasmcp_http: a header without a name or value");
            wasmcp_w_array_begin(w);
            wasmcp_w_string(w, h->name);
            wasmcp_w_string(w, h->value);
            wasmcp_w_array_end(w);
        }
        wasmcp_w_array_end(w);
    }
    wasmcp_w_object_end(w);
    size_t head_len;
    const char *head = wasmcp_writer_json(w, &head_len);
    if (!head) return fail(resp, WASMCP_HTTP_FAILED, "wasmcp_http: out of memory");
    if (!req->body) {
        *doc = head;
        *len = head_len;
        return WASMCP_HTTP_OK;
    }
    char *buf = req->body_len <= SIZE_MAX - head_len - 1 ? wasmcp_call_memory(head_len + 1 + req->body_len) : NULL;
    if (!buf) return fail(resp, WASMCP_HTTP_FAILED, "wasmcp_http: out of memory");
    memcpy(buf, head, head_len);
    buf[head_len] = '\n';
    if (req->body_len) memcpy(buf + head_len + 1, req->body, req->body_len);
    *doc = buf;
    *len = head_len + 1 + req->body_len;
    return WASMCP_HTTP_OK;
}

/* decode fills resp from the reply to a request a server answered: the head
 * up to the first LF, the body after it. */
static int decode(const char *reply, size_t n, wasmcp_http_response *resp) {
    static const char malformed[] = "wasmcp_http: the host's reply is malformed";
    const char *lf = memchr(reply, '\n', n), *url;
    if (!lf) return fail(resp, WASMCP_HTTP_FAILED, malformed);
    wasmcp_json head = wasmcp_json_parse(reply, (size_t)(lf - reply)), headers = wasmcp_json_get(head, "headers");
    double status;
    if (!wasmcp_json_number(wasmcp_json_get(head, "status"), &status) ||
        !(url = wasmcp_json_string(wasmcp_json_get(head, "url"), NULL)))
        return fail(resp, WASMCP_HTTP_FAILED, malformed);
    size_t count = wasmcp_json_count(headers);
    wasmcp_http_header *hs = count ? wasmcp_call_memory(count * sizeof *hs) : NULL;
    if (count && !hs) return fail(resp, WASMCP_HTTP_FAILED, "wasmcp_http: out of memory");
    for (size_t i = 0; i < count; i++) {
        wasmcp_json pair = wasmcp_json_index(headers, i);
        hs[i].name = wasmcp_json_string(wasmcp_json_index(pair, 0), NULL);
        hs[i].value = wasmcp_json_string(wasmcp_json_index(pair, 1), NULL);
        if (!hs[i].name || !hs[i].value) return fail(resp, WASMCP_HTTP_FAILED, malformed);
    }
    resp->status = (int)status;
    resp->url = url;
    resp->headers = hs;
    resp->nheaders = count;
    resp->body = lf + 1; /* send put a NUL after the reply */
    resp->body_len = n - (size_t)(lf + 1 - reply);
    return WASMCP_HTTP_OK;
}

int wasmcp_http(const wasmcp_http_request *req, wasmcp_http_response *resp) {
    memset(resp, 0, sizeof *resp);
    if (!req) return fail(resp, WASMCP_HTTP_INVALID, "wasmcp_http: no request");
    const char *doc;
    size_t len;
    int status = encode(req, resp, &doc, &len);
    if (status != WASMCP_HTTP_OK) return status;
    char *reply;
    size_t n;
    uint32_t got = send(doc, len, &reply, &n);
    if (!reply) return fail(resp, WASMCP_HTTP_FAILED, "wasmcp_http: out of memory reading the reply");
    if (got == WASMCP_HTTP_OK) return decode(reply, n, resp);
    /* Statuses this SDK does not know are reserved: treated like failed. */
    bool known = got == WASMCP_HTTP_INVALID || got == WASMCP_HTTP_TIMEOUT || got == WASMCP_HTTP_DENIED;
    return fail(resp, known ? (int)got : WASMCP_HTTP_FAILED, n ? reply : "(the host gave no reason)");
}

const char *wasmcp_http_header_get(const wasmcp_http_response *resp, const char *name) {
    size_t n = strlen(name);
    for (size_t i = 0; i < resp->nheaders; i++) {
        const char *h = resp->headers[i].name;
        if (strlen(h) != n) continue;
        size_t j = 0;
        for (; j < n; j++) {
            char a = h[j], b = name[j];
            if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
            if (b >= 'A' && b <= 'Z') b = (char)(b - 'A' + 'a');
            if (a != b) break;
        }
        if (j == n) return resp->headers[i].value;
    }
    return NULL;
}
