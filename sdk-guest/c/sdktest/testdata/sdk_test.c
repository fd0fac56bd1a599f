/*
 * sdk_test.c - unit tests of the C SDK, run natively (under the address and
 * undefined-behaviour sanitizers when the compiler has them) by
 * sdk-guest/c/sdktest/sdk_test.go. Exit status 0 when every check passed.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

#define CHECK_STR(got, want)                                                                                           \
    do {                                                                                                               \
        const char *g_ = (got), *w_ = (want);                                                                          \
        if (!g_ || strcmp(g_, w_) != 0) {                                                                              \
            fprintf(stderr, "%s:%d: %s\n  got  %s\n  want %s\n", __FILE__, __LINE__, #got, g_ ? g_ : "(null)", w_);    \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

static wasmcp_json parse(const char *s) { return wasmcp_json_parse(s, strlen(s)); }

static void test_parse(void) {
    static const char *valid[] = {
        "{}",         " [ ] ",
        "0",          "-0.5e+10",
        "1E3",        "\"a\\u00e9\\n\"",
        "true",       "false",
        "null",       "{\"a\":[1,{\"b\":null}],\"c\":\"\\\"\"}",
        "[[[[[]]]]]",
    };
    static const char *invalid[] = {
        "",    " ",   "{",   "}",     "[1,]",       "{\"a\"}", "{\"a\":}", "{a:1}",
        "01",  "1.",  ".5",  "+1",    "1e",         "-",       "\"\\x\"",  "\"\\u12\"",
        "\"a", "tru", "nul", "[1 2]", "{\"a\":1,}", "1 2",     "\"\x01\"", "[\"a\"",
    };
    for (size_t i = 0; i < sizeof valid / sizeof *valid; i++) {
        wasmcp_json v = parse(valid[i]);
        if (!v.ptr) fprintf(stderr, "valid JSON refused: %s\n", valid[i]), failures++;
    }
    for (size_t i = 0; i < sizeof invalid / sizeof *invalid; i++) {
        wasmcp_json v = parse(invalid[i]);
        if (v.ptr) fprintf(stderr, "invalid JSON accepted: %s\n", invalid[i]), failures++;
    }
    /* Deep nesting is refused, not a stack overflow. */
    size_t n = 5000;
    char *deep = malloc(2 * n);
    memset(deep, '[', n), memset(deep + n, ']', n);
    CHECK(wasmcp_json_parse(deep, 2 * n).ptr == NULL);
    CHECK(wasmcp_json_parse(deep + n - 100, 200).ptr != NULL);
    free(deep);
    /* The view excludes surrounding white space. */
    wasmcp_json v = parse("  {\"a\":1}\n");
    CHECK(v.len == 7 && v.ptr[0] == '{');
}

static void test_get(void) {
    wasmcp_json o = parse("{\"message\":\"hi \\\"you\\\"\\u00e9\\ud83d\\ude00\",\"a\":7,\"b\":-2.5e1,\"ok\":true,"
                          "\"no\":false,\"nil\":null,\"nested\":{\"message\":\"inner\"},\"list\":[1,\"two\",[3]],"
                          "\"d\":1,\"d\":2,\"k\\u0065y\":\"escaped key\",\"nul\":\"a\\u0000b\",\"lone\":\"\\ud800x\"}");
    CHECK(wasmcp_json_kind_of(o) == WASMCP_JSON_OBJECT);
    CHECK_STR(wasmcp_get_string(o, "message", NULL), "hi \"you\"\xc3\xa9\xf0\x9f\x98\x80");
    CHECK(wasmcp_get_number(o, "a", 0) == 7);
    CHECK(wasmcp_get_number(o, "b", 0) == -25);
    CHECK(wasmcp_get_bool(o, "ok", false) == true);
    CHECK(wasmcp_get_bool(o, "no", true) == false);
    CHECK(wasmcp_json_kind_of(wasmcp_json_get(o, "nil")) == WASMCP_JSON_NULL);
    CHECK(wasmcp_json_kind_of(wasmcp_json_get(o, "missing")) == WASMCP_JSON_NONE);
    /* A value of another type gives the fallback. */
    CHECK_STR(wasmcp_get_string(o, "a", "fallback"), "fallback");
    CHECK(wasmcp_get_number(o, "message", 42) == 42);
    CHECK(wasmcp_get_bool(o, "nil", true) == true);
    /* Only members of this object count, not nested ones. */
    wasmcp_json nested = wasmcp_json_get(o, "nested");
    CHECK_STR(wasmcp_get_string(nested, "message", NULL), "inner");
    CHECK(wasmcp_json_count(nested) == 1);
    /* The last duplicate wins; escaped keys match. */
    CHECK(wasmcp_get_number(o, "d", 0) == 2);
    CHECK_STR(wasmcp_get_string(o, "key", NULL), "escaped key");
    size_t len = 0;
    const char *s = wasmcp_json_string(wasmcp_json_get(o, "nul"), &len);
    CHECK(s && len == 3 && memcmp(s, "a\0b", 3) == 0);
    CHECK_STR(wasmcp_get_string(o, "lone", NULL), "\xef\xbf\xbdx");
    /* Arrays. */
    wasmcp_json list = wasmcp_json_get(o, "list");
    CHECK(wasmcp_json_count(list) == 3);
    double d;
    CHECK(wasmcp_json_number(wasmcp_json_index(list, 0), &d) && d == 1);
    CHECK_STR(wasmcp_json_string(wasmcp_json_index(list, 1), NULL), "two");
    CHECK(wasmcp_json_count(wasmcp_json_index(list, 2)) == 1);
    CHECK(wasmcp_json_index(list, 3).ptr == NULL);
    CHECK(wasmcp_json_count(o) == 13);
    const char *key;
    wasmcp_json val;
    CHECK(wasmcp_json_member(o, 1, &key, &val) && strcmp(key, "a") == 0 && val.len == 1);
    CHECK(!wasmcp_json_member(o, 13, &key, &val));
    /* Views that are not what they claim never read past their end. */
    wasmcp_json cut = {"{\"a\":\"xyz\"}", 8};
    CHECK(wasmcp_json_get(cut, "a").ptr == NULL);
    CHECK(wasmcp_json_string((wasmcp_json){"\"abc\"", 3}, NULL) == NULL);
    CHECK(!wasmcp_json_number((wasmcp_json){"12x", 3}, &d));
    CHECK(wasmcp_json_number((wasmcp_json){"12x", 2}, &d) && d == 12);
    CHECK(wasmcp_json_get((wasmcp_json){NULL, 0}, "a").ptr == NULL);
}

static void test_numbers(void) {
    static const struct {
        double v;
        const char *want;
    } cases[] = {
        {0, "0"},
        {-0.0, "-0"},
        {12, "12"},
        {-7, "-7"},
        {0.5, "0.5"},
        {0.1 + 0.2, "0.30000000000000004"},
        {1e20, "100000000000000000000"},
        {1e21, "1e+21"},
        {123456789012345680000.0, "123456789012345680000"},
        {1e-6, "0.000001"},
        {1.5e-7, "1.5e-7"},
        {5e-324, "5e-324"},
        {1.7976931348623157e308, "1.7976931348623157e+308"},
        {3.14159, "3.14159"},
        {100, "100"},
        {22.5, "22.5"},
        {-1234.5678, "-1234.5678"},
    };
    char buf[32];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        CHECK_STR(wasmcp_format_number(cases[i].v, buf), cases[i].want);
    CHECK_STR(wasmcp_format_number(NAN, buf), "null");
    static const struct {
        double v;
        const char *want;
    } decimals[] = {
        {0, "0"},
        {-0.0, "-0"},
        {7, "7"},
        {-1.5, "-1.5"},
        {0.1 + 0.2, "0.30000000000000004"},
        {1e21, "1000000000000000000000"},
        {1.5e-7, "0.00000015"},
        {123456789.125, "123456789.125"},
        {NAN, "NaN"},
        {-INFINITY, "-Inf"},
    };
    for (size_t i = 0; i < sizeof decimals / sizeof *decimals; i++)
        CHECK_STR(wasmcp_format_decimal(decimals[i].v), decimals[i].want);
    const char *tiny = wasmcp_format_decimal(-5e-324);
    CHECK(strlen(tiny) == 3 + 323 + 1 && strncmp(tiny, "-0.000", 6) == 0 && tiny[strlen(tiny) - 1] == '5');
    CHECK(strlen(wasmcp_format_decimal(-1.7976931348623157e308)) == 310);
}

static void test_writer(void) {
    wasmcp_writer *w = wasmcp_writer_new();
    wasmcp_w_object_begin(w);
    wasmcp_w_key(w, "s");
    wasmcp_w_string(w, "q\"b\\n\n\t\x01<>&\xc3\xa9");
    wasmcp_w_key(w, "bad");
    wasmcp_w_string_n(w, "a\xff\xc3z\0", 5);
    wasmcp_w_key(w, "n");
    wasmcp_w_number(w, 2.5);
    wasmcp_w_key(w, "i");
    wasmcp_w_int(w, -9007199254740993LL);
    wasmcp_w_key(w, "a");
    wasmcp_w_array_begin(w);
    wasmcp_w_bool(w, true);
    wasmcp_w_null(w);
    wasmcp_w_raw(w, " {\"x\": [1]} ", 12);
    wasmcp_w_array_begin(w);
    wasmcp_w_array_end(w);
    wasmcp_w_array_end(w);
    wasmcp_w_key(w, "e");
    wasmcp_w_object_begin(w);
    wasmcp_w_object_end(w);
    wasmcp_w_object_end(w);
    size_t len;
    const char *got = wasmcp_writer_json(w, &len);
    CHECK_STR(got, "{\"s\":\"q\\\"b\\\\n\\n\\t\\u0001<>&\xc3\xa9\",\"bad\":\"a\\ufffd\\ufffdz\\u0000\",\"n\":2.5,"
                   "\"i\":-9007199254740993,\"a\":[true,null,{\"x\": [1]},[]],\"e\":{}}");
    CHECK(got && len == strlen(got));
    CHECK(wasmcp_json_parse(got, len).ptr != NULL);

    /* Misuse is recorded, not written. */
    wasmcp_writer *m = wasmcp_writer_new();
    wasmcp_w_object_begin(m);
    wasmcp_w_string(m, "no key");
    CHECK(wasmcp_writer_json(m, NULL) == NULL && m->error && strstr(m->error, "without a key"));
    m = wasmcp_writer_new();
    wasmcp_w_array_begin(m);
    wasmcp_w_key(m, "k");
    CHECK(m->error && strstr(m->error, "key outside"));
    m = wasmcp_writer_new();
    wasmcp_w_array_begin(m);
    wasmcp_w_object_end(m);
    CHECK(m->error && strstr(m->error, "object end"));
    m = wasmcp_writer_new();
    wasmcp_w_array_begin(m);
    CHECK(wasmcp_writer_json(m, NULL) == NULL && !m->error); /* still open */
    m = wasmcp_writer_new();
    wasmcp_w_int(m, 1);
    wasmcp_w_int(m, 2);
    CHECK(m->error && strstr(m->error, "second top-level"));
    m = wasmcp_writer_new();
    wasmcp_w_number(m, NAN);
    CHECK(m->error && strstr(m->error, "NaN"));
    m = wasmcp_writer_new();
    wasmcp_w_raw(m, "{", 1);
    CHECK(m->error && strstr(m->error, "raw"));
    m = wasmcp_writer_new();
    for (int i = 0; i < 70; i++)
        wasmcp_w_array_begin(m);
    CHECK(m->error && strstr(m->error, "too deep"));
    /* A large document grows the buffer many times. */
    m = wasmcp_writer_new();
    wasmcp_w_array_begin(m);
    for (int i = 0; i < 100000; i++)
        wasmcp_w_string(m, "0123456789");
    wasmcp_w_array_end(m);
    CHECK(wasmcp_writer_json(m, &len) && len == 100000 * 13 + 1);
}

static void test_base64(void) {
    CHECK_STR(wasmcp_base64("", 0), "");
    CHECK_STR(wasmcp_base64("f", 1), "Zg==");
    CHECK_STR(wasmcp_base64("fo", 2), "Zm8=");
    CHECK_STR(wasmcp_base64("foo", 3), "Zm9v");
    CHECK_STR(wasmcp_base64("foobar", 6), "Zm9vYmFy");
    CHECK_STR(wasmcp_base64("\xff\xfe\x00", 3), "//4A");
}

static void greet(wasmcp_json args, wasmcp_result *res) {
    wasmcp_log(WASMCP_LOG_INFO, "greet called");
    wasmcp_result_textf(res, "Hello, %s!", wasmcp_get_string(args, "name", "world"));
    wasmcp_result_image(res, "\x89PNG", 4, "image/png");
}

static void weather(wasmcp_json args, wasmcp_result *res) {
    (void)args;
    wasmcp_writer *w = wasmcp_result_structured(res);
    wasmcp_w_object_begin(w);
    wasmcp_w_key(w, "temperature");
    wasmcp_w_number(w, 22.5);
    wasmcp_w_object_end(w);
}

static void fail(wasmcp_json args, wasmcp_result *res) {
    wasmcp_result_errorf(res, "failed with %d", (int)wasmcp_get_number(args, "code", 0));
}

static void links(wasmcp_json args, wasmcp_result *res) {
    (void)args;
    wasmcp_result_resource_link(res, &(wasmcp_resource_link){.uri = "file:///a.txt", .name = "a.txt"});
    wasmcp_result_resource_link(res, &(wasmcp_resource_link){.uri = "test://b",
                                                             .name = "B",
                                                             .title = "Bee",
                                                             .description = "the letter",
                                                             .mime_type = "text/plain",
                                                             .size = 1});
    wasmcp_result_embedded_text(res, "mem://x", "text/plain", "x");
    wasmcp_result_embedded_blob(res, "mem://y", NULL, "y", 1);
    wasmcp_result_audio(res, "RIFF", 4, "audio/wav");
    wasmcp_result_content(res, "{\"type\":\"text\",\"text\":\"raw\",\"annotations\":{\"priority\":1}}");
}

/* formats covers both ways vformat takes: strings alone are put together
 * by hand, anything else goes to vsnprintf (once into a stack buffer, or
 * twice when the message is longer than it). */
static void formats(wasmcp_json args, wasmcp_result *res) {
    (void)args;
    static char long_text[301];
    memset(long_text, 'x', 300);
    const char *volatile none = NULL; /* volatile: the compiler may not see the NULL */
    wasmcp_result_textf(res, "%s and %s, 100%%", "this", "that");
    wasmcp_result_textf(res, "[%s]%s", none, "");
    wasmcp_result_textf(res, "%5s|%d|%.1s", "ab", 7, "cd");
    wasmcp_result_textf(res, "%s", long_text);
    wasmcp_result_textf(res, "%d%s", 1, long_text);
}

static void nothing(wasmcp_json args, wasmcp_result *res) { (void)args, (void)res; }

static void open_block(wasmcp_json args, wasmcp_result *res) {
    (void)args;
    wasmcp_w_array_begin(wasmcp_result_structured(res));
}

static void not_object(wasmcp_json args, wasmcp_result *res) {
    (void)args;
    wasmcp_w_int(wasmcp_result_structured(res), 1);
}

static void bad_image(wasmcp_json args, wasmcp_result *res) {
    (void)args;
    wasmcp_result_image_base64(res, "", "image/png");
}

WASMCP_INIT {
    wasmcp_add_tool(&(wasmcp_tool){
        .name = "greet",
        .title = "Greeter",
        .description = "Says hello.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}",
        .annotations = "{\"readOnlyHint\":true}",
        .handler = greet,
    });
    wasmcp_add_tool(&(wasmcp_tool){
        .name = "weather",
        .output_schema = "{\"type\":\"object\"}",
        .handler = weather,
    });
    wasmcp_add_tool(&(wasmcp_tool){.name = "fail", .input_schema = "{\"type\":\"object\"}", .handler = fail});
    wasmcp_add_tool(&(wasmcp_tool){.name = "nothing", .handler = nothing});
    wasmcp_add_tool(&(wasmcp_tool){.name = "open-block", .handler = open_block});
    wasmcp_add_tool(&(wasmcp_tool){.name = "not.object", .handler = not_object});
    wasmcp_add_tool(&(wasmcp_tool){.name = "bad_image", .handler = bad_image});
    wasmcp_add_tool(&(wasmcp_tool){.name = "links", .handler = links});
    wasmcp_add_tool(&(wasmcp_tool){.name = "formats", .handler = formats});
    /* Requests add up; the lists are copies, so compound literals are fine. */
    wasmcp_request_permissions(&(wasmcp_permissions){
        .fs = (wasmcp_fs_permission[]){{"/data", true}, {"/etc/zoneinfo", false}, {NULL, false}},
        .net = (const char *[]){"https://api.example.com", NULL},
    });
    wasmcp_request_permissions(&(wasmcp_permissions){
        .env = (const char *[]){"TZ", "HOME", NULL},
        .clock = true,
        .net = (const char *[]){"http://127.0.0.1:8080", NULL},
    });
    wasmcp_request_permissions(&(wasmcp_permissions){0});
}

static const char *call(const char *name, const char *args) {
    size_t len;
    const char *doc = wasmcp_dispatch(name, strlen(name), args, strlen(args), &len);
    CHECK(doc && len == strlen(doc));
    CHECK(doc && wasmcp_json_parse(doc, len).ptr != NULL);
    return doc;
}

static void test_tools(void) {
    size_t len;
    CHECK_STR(wasmcp_describe_json(&len),
              "{\"tools\":[{\"name\":\"greet\",\"title\":\"Greeter\",\"description\":\"Says hello.\","
              "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}},"
              "\"annotations\":{\"readOnlyHint\":true}},"
              "{\"name\":\"weather\",\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false},"
              "\"outputSchema\":{\"type\":\"object\"}},"
              "{\"name\":\"fail\",\"inputSchema\":{\"type\":\"object\"}},"
              "{\"name\":\"nothing\",\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false}},"
              "{\"name\":\"open-block\",\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false}},"
              "{\"name\":\"not.object\",\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false}},"
              "{\"name\":\"bad_image\",\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false}},"
              "{\"name\":\"links\",\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false}},"
              "{\"name\":\"formats\",\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false}}],"
              "\"permissions\":{\"fs\":[{\"path\":\"/data\",\"write\":true},{\"path\":\"/etc/zoneinfo\"}],"
              "\"env\":[\"TZ\",\"HOME\"],\"clock\":true,"
              "\"net\":[\"https://api.example.com\",\"http://127.0.0.1:8080\"]}}");
    char x300[301];
    memset(x300, 'x', 300);
    x300[300] = '\0';
    char want[1024];
    snprintf(want, sizeof want,
             "{\"content\":[{\"type\":\"text\",\"text\":\"this and that, 100%%\"},"
             "{\"type\":\"text\",\"text\":\"[(null)]\"},"
             "{\"type\":\"text\",\"text\":\"   ab|7|c\"},"
             "{\"type\":\"text\",\"text\":\"%s\"},"
             "{\"type\":\"text\",\"text\":\"1%s\"}]}",
             x300, x300);
    CHECK_STR(call("formats", "{}"), want);
    CHECK_STR(call("links", "{}"),
              "{\"content\":[{\"type\":\"resource_link\",\"uri\":\"file:///a.txt\",\"name\":\"a.txt\"},"
              "{\"type\":\"resource_link\",\"uri\":\"test://b\",\"name\":\"B\",\"title\":\"Bee\","
              "\"description\":\"the letter\",\"mimeType\":\"text/plain\",\"size\":1},"
              "{\"type\":\"resource\",\"resource\":{\"uri\":\"mem://x\",\"mimeType\":\"text/plain\",\"text\":\"x\"}},"
              "{\"type\":\"resource\",\"resource\":{\"uri\":\"mem://y\",\"blob\":\"eQ==\"}},"
              "{\"type\":\"audio\",\"data\":\"UklGRg==\",\"mimeType\":\"audio/wav\"},"
              "{\"type\":\"text\",\"text\":\"raw\",\"annotations\":{\"priority\":1}}]}");
    CHECK_STR(call("greet", "{\"name\":\"C \\\"SDK\\\"\"}"),
              "{\"content\":[{\"type\":\"text\",\"text\":\"Hello, C \\\"SDK\\\"!\"},"
              "{\"type\":\"image\",\"data\":\"iVBORw==\",\"mimeType\":\"image/png\"}]}");
    CHECK_STR(call("greet", ""), "{\"content\":[{\"type\":\"text\",\"text\":\"Hello, world!\"},"
                                 "{\"type\":\"image\",\"data\":\"iVBORw==\",\"mimeType\":\"image/png\"}]}");
    CHECK_STR(call("weather", "{}"), "{\"content\":[],\"structuredContent\":{\"temperature\":22.5}}");
    CHECK_STR(call("fail", "{\"code\":3}"),
              "{\"content\":[{\"type\":\"text\",\"text\":\"failed with 3\"}],\"isError\":true}");
    CHECK_STR(call("nothing", "{}"), "{\"content\":[]}");
    CHECK_STR(call("missing", "{}"),
              "{\"content\":[{\"type\":\"text\",\"text\":\"unknown tool \\\"missing\\\"\"}],\"isError\":true}");
    CHECK_STR(call("greet", "[1]"), "{\"content\":[{\"type\":\"text\",\"text\":\"invalid arguments for tool greet: "
                                    "not a JSON object\"}],\"isError\":true}");
    CHECK(strstr(call("open-block", "{}"), "tool open-block returned an invalid result: structured content: "));
    CHECK(strstr(call("not.object", "{}"), "structured content: must be one JSON object"));
    CHECK(strstr(call("bad_image", "{}"), "needs data and a MIME type\"}],\"isError\":true}"));

    /* Refused definitions. */
    wasmcp_handler h = nothing;
    CHECK(!wasmcp_add_tool(&(wasmcp_tool){.name = "greet", .handler = h}));
    CHECK(!wasmcp_add_tool(&(wasmcp_tool){.name = "bad name", .handler = h}));
    CHECK(!wasmcp_add_tool(&(wasmcp_tool){.name = "", .handler = h}));
    CHECK(!wasmcp_add_tool(&(wasmcp_tool){.name = "no-handler"}));
    CHECK(!wasmcp_add_tool(&(wasmcp_tool){.name = "s1", .input_schema = "{\"type\":\"string\"}", .handler = h}));
    CHECK(!wasmcp_add_tool(&(wasmcp_tool){.name = "s2", .input_schema = "{\"type\":\"object\"", .handler = h}));
    CHECK(!wasmcp_add_tool(&(wasmcp_tool){.name = "s3", .output_schema = "[]", .handler = h}));
    CHECK(wasmcp_describe_json(&len) == NULL);

    /* Refused permission requests. */
    CHECK(!wasmcp_request_permissions(&(wasmcp_permissions){.fs = (wasmcp_fs_permission[]){{"data", false}, {0}}}));
    CHECK(!wasmcp_request_permissions(&(wasmcp_permissions){.env = (const char *[]){"A=B", NULL}}));
    CHECK(!wasmcp_request_permissions(&(wasmcp_permissions){.net = (const char *[]){"", NULL}}));
    CHECK(wasmcp_request_permissions(NULL));
}

/* Call memory is bump-allocated from kept blocks (wasmcp.c): blocks keep
 * their contents until the reset, however many there are, a realloc keeps
 * its prefix whether it grows in place or moves, and a reset makes the next
 * call start where the last one did. */
static void test_call_memory(void) {
    wasmcp_call_reset_();
    enum { N = 300, SIZE = 1000 }; /* several 64 KiB blocks */
    unsigned char *p[N];
    for (int i = 0; i < N; i++) {
        p[i] = wasmcp_call_memory(SIZE);
        CHECK(p[i] != NULL && (uintptr_t)p[i] % _Alignof(max_align_t) == 0);
        memset(p[i], i & 0xff, SIZE);
    }
    int intact = 1;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < SIZE; j++)
            if (p[i][j] != (i & 0xff)) intact = 0;
    CHECK(intact);

    /* The newest block grows in place; an older one moves, with its prefix. */
    char *a = wasmcp_call_memory(10), *b = wasmcp_call_memory(10);
    memcpy(a, "abcdefghi", 10);
    memcpy(b, "123456789", 10);
    char *b2 = wasmcp_call_realloc_(b, 100);
    CHECK(b2 == b);
    CHECK_STR(b2, "123456789");
    char *a2 = wasmcp_call_realloc_(a, 100);
    CHECK(a2 != a);
    CHECK_STR(a2, "abcdefghi");
    CHECK_STR(b2, "123456789");
    char *shrunk = wasmcp_call_realloc_(a2, 4);
    CHECK(shrunk == a2 && memcmp(shrunk, "abcd", 4) == 0);

    /* Larger than a block: a block of its own. */
    size_t big = (size_t)1 << 20;
    char *huge = wasmcp_call_memory(big);
    CHECK(huge != NULL);
    if (huge) {
        memset(huge, 'x', big);
        CHECK(huge[0] == 'x' && huge[big - 1] == 'x');
    }
    CHECK(wasmcp_call_memory((size_t)-1 / 2 + 1) == NULL);

    /* After a reset, a call starts at the start of the kept block. */
    wasmcp_call_reset_();
    void *first = wasmcp_call_memory(16);
    wasmcp_call_reset_();
    CHECK(wasmcp_call_memory(16) == first);
    /* A call whose first block was large does not keep it. */
    wasmcp_call_reset_();
    wasmcp_call_memory(big);
    wasmcp_call_reset_();
    char *again = wasmcp_call_memory(16);
    CHECK(again != NULL);
    wasmcp_call_reset_();
}

int main(void) {
    test_call_memory();
    test_parse();
    test_get();
    test_numbers();
    test_writer();
    test_base64();
    test_tools();
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
