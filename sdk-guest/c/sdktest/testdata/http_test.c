/*
 * http_test.c - unit tests of wasmcp_http, run natively by
 * sdk-guest/c/sdktest/sdk_test.go: a stand-in for the host records each
 * request document and answers with a reply the test chose. (The requests
 * through the real host are in sdk_test.go, with testdata/httpguest.c.)
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static int failures;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                                   \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

/* What the stand-in got, and what it answers. */
static char sent[256];
static size_t sent_len;
static uint32_t answer_status;
static const char *answer;
static size_t answer_len;

static uint32_t stand_in(const char *req, size_t len, const char **reply, size_t *reply_len) {
    sent_len = len < sizeof sent ? len : sizeof sent;
    memcpy(sent, req, sent_len);
    *reply = answer;
    *reply_len = answer_len;
    return answer_status;
}

static void will_answer(uint32_t status, const char *reply, size_t len) {
    answer_status = status, answer = reply, answer_len = len;
}

#define SENT(want) (sent_len == sizeof(want) - 1 && memcmp(sent, want, sent_len) == 0)

static void test_requests(void) {
    static const char ok[] = "{\"status\":204,\"url\":\"http://x/\",\"headers\":[]}\n";
    wasmcp_http_response resp;
    will_answer(WASMCP_HTTP_OK, ok, sizeof ok - 1);

    /* No body: the head alone, without a LF. */
    CHECK(wasmcp_http(&(wasmcp_http_request){.url = "http://x/"}, &resp) == WASMCP_HTTP_OK);
    CHECK(SENT("{\"url\":\"http://x/\"}"));

    /* A body of any bytes after the LF; a LF inside a header stays escaped
     * in the head. */
    wasmcp_http_header hs[] = {{"Content-Type", "application/octet-stream"}, {"X-Two", "a\nb"}};
    wasmcp_http_request post = {.method = "POST", .url = "http://x/", .headers = hs, .nheaders = 2};
    post.body = "a\nb\0c\n", post.body_len = 6;
    CHECK(wasmcp_http(&post, &resp) == WASMCP_HTTP_OK);
    CHECK(SENT("{\"method\":\"POST\",\"url\":\"http://x/\",\"headers\":[[\"Content-Type\","
               "\"application/octet-stream\"],[\"X-Two\",\"a\\nb\"]]}\na\nb\0c\n"));

    /* An empty body is a LF with nothing after it. */
    CHECK(wasmcp_http(&(wasmcp_http_request){.method = "PUT", .url = "http://x/", .body = ""}, &resp) ==
          WASMCP_HTTP_OK);
    CHECK(SENT("{\"method\":\"PUT\",\"url\":\"http://x/\"}\n"));

    /* Requests refused before the host sees them. */
    sent_len = 0;
    CHECK(wasmcp_http(&(wasmcp_http_request){.method = "GET"}, &resp) == WASMCP_HTTP_INVALID);
    CHECK(resp.error && strstr(resp.error, "no URL"));
    wasmcp_http_header no_value[] = {{"A", NULL}};
    CHECK(wasmcp_http(&(wasmcp_http_request){.url = "http://x/", .headers = no_value, .nheaders = 1}, &resp) ==
          WASMCP_HTTP_INVALID);
    CHECK(wasmcp_http(&(wasmcp_http_request){.url = "http://x/", .body_len = 3}, &resp) == WASMCP_HTTP_INVALID);
    CHECK(wasmcp_http(&(wasmcp_http_request){.url = "http://x/", .nheaders = 2}, &resp) == WASMCP_HTTP_INVALID);
    CHECK(sent_len == 0);
}

static void test_responses(void) {
    wasmcp_http_response resp;
    const wasmcp_http_request get = {.url = "http://x/"};

    static const char full[] = "{\"status\":201,\"url\":\"http://x/final\",\"headers\":[[\"Content-Type\","
                               "\"text/plain\"],[\"X-A\",\"1\"],[\"X-A\",\"2\"]]}\nbody\n\0\xff";
    will_answer(WASMCP_HTTP_OK, full, sizeof full - 1);
    CHECK(wasmcp_http(&get, &resp) == WASMCP_HTTP_OK);
    CHECK(resp.error == NULL && resp.status == 201 && strcmp(resp.url, "http://x/final") == 0);
    CHECK(resp.nheaders == 3 && strcmp(resp.headers[2].name, "X-A") == 0 && strcmp(resp.headers[2].value, "2") == 0);
    CHECK(resp.body_len == 7 && memcmp(resp.body, "body\n\0\xff", 7) == 0 && resp.body[7] == 0);
    const char *ct = wasmcp_http_header_get(&resp, "content-type"), *xa = wasmcp_http_header_get(&resp, "x-a");
    CHECK(ct && strcmp(ct, "text/plain") == 0);
    CHECK(xa && strcmp(xa, "1") == 0);
    CHECK(wasmcp_http_header_get(&resp, "Content") == NULL);

    /* An empty body. */
    static const char empty[] = "{\"status\":200,\"url\":\"http://x/\",\"headers\":[]}\n";
    will_answer(WASMCP_HTTP_OK, empty, sizeof empty - 1);
    CHECK(wasmcp_http(&get, &resp) == WASMCP_HTTP_OK);
    CHECK(resp.status == 200 && resp.nheaders == 0 && resp.body_len == 0 && resp.body && resp.body[0] == 0);

    /* Every other status carries a message; reserved ones count as failed. */
    static const char denied[] = "http://x is not in plugin t's net policy";
    will_answer(WASMCP_HTTP_DENIED, denied, sizeof denied - 1);
    CHECK(wasmcp_http(&get, &resp) == WASMCP_HTTP_DENIED);
    CHECK(resp.error && strcmp(resp.error, denied) == 0 && resp.status == 0 && resp.url == NULL);
    will_answer(WASMCP_HTTP_TIMEOUT, "late", 4);
    CHECK(wasmcp_http(&get, &resp) == WASMCP_HTTP_TIMEOUT && strcmp(resp.error, "late") == 0);
    will_answer(9, "new", 3);
    CHECK(wasmcp_http(&get, &resp) == WASMCP_HTTP_FAILED && strcmp(resp.error, "new") == 0);
    will_answer(1, "", 0);
    CHECK(wasmcp_http(&get, &resp) == WASMCP_HTTP_FAILED && resp.error && *resp.error);

    /* A reply that is not a head and a body. */
    static const char *const malformed[] = {
        "{\"status\":200,\"url\":\"u\",\"headers\":[]}",
        "{\"status\":200,\"url\":\"u\"\n,\"headers\":[]}\n",
        "{\"url\":\"u\",\"headers\":[]}\n",
        "{\"status\":200,\"headers\":[]}\n",
        "{\"status\":200,\"url\":\"u\",\"headers\":[[\"A\"]]}\n",
        "not json\n",
    };
    for (size_t i = 0; i < sizeof malformed / sizeof *malformed; i++) {
        will_answer(WASMCP_HTTP_OK, malformed[i], strlen(malformed[i]));
        int status = wasmcp_http(&get, &resp);
        CHECK(status == WASMCP_HTTP_FAILED && resp.error && strstr(resp.error, "malformed") && resp.url == NULL);
        if (status != WASMCP_HTTP_FAILED) fprintf(stderr, "  accepted reply %zu: %s\n", i, malformed[i]);
    }
}

int main(void) {
    wasmcp_http_response resp;
    /* Without a host, every request fails, saying so. */
    CHECK(wasmcp_http(&(wasmcp_http_request){.url = "http://x/"}, &resp) == WASMCP_HTTP_FAILED);
    CHECK(resp.error && strstr(resp.error, "need a wasmcp host"));
    wasmcp_native_http_ = stand_in;
    test_requests();
    test_responses();
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
