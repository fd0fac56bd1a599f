/*
 * resources_test.c - unit tests of the C SDK's resources, resource
 * templates, prompts and completion, run natively (under the sanitizers
 * when the compiler has them) by sdk-guest/c/sdktest/sdk_test.go. A program
 * of its own: a refused definition makes the whole module describe
 * nothing, which would hide sdk_test.c's tools.
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

#define CHECK_STR(got, want)                                                                                           \
    do {                                                                                                               \
        const char *g_ = (got), *w_ = (want);                                                                          \
        if (!g_ || strcmp(g_, w_) != 0) {                                                                              \
            fprintf(stderr, "%s:%d: %s\n  got  %s\n  want %s\n", __FILE__, __LINE__, #got, g_ ? g_ : "(null)", w_);    \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

static void read_bytes(const char *uri, wasmcp_json vars, wasmcp_read_result *res) {
    (void)uri, (void)vars;
    wasmcp_read_blob(res, "\x00\xff\x10\x80", 4);
}

static void read_parts(const char *uri, wasmcp_json vars, wasmcp_read_result *res) {
    (void)vars;
    wasmcp_read_textf(res, "%s has %d parts", uri, 2);
    wasmcp_read_contents_text(res, "test://parts/1", NULL, "one");
    wasmcp_read_contents_blob(res, "test://parts/2", "image/png", "\x89PNG", 4);
}

static void read_fails(const char *uri, wasmcp_json vars, wasmcp_read_result *res) {
    (void)vars;
    wasmcp_read_text(res, "dropped: the error wins");
    wasmcp_read_errorf(res, WASMCP_ERROR_INTERNAL, "%s is on fire", uri);
}

static void read_nothing(const char *uri, wasmcp_json vars, wasmcp_read_result *res) {
    (void)uri, (void)vars, (void)res;
}

static void read_bad(const char *uri, wasmcp_json vars, wasmcp_read_result *res) {
    (void)uri, (void)vars;
    wasmcp_read_contents_text(res, "", NULL, "no uri");
}

/* read_vars returns the variables it got, as JSON text. */
static void read_vars(const char *uri, wasmcp_json vars, wasmcp_read_result *res) {
    const char *path = wasmcp_get_string(vars, "path", NULL);
    if (path && strcmp(path, "missing") == 0) {
        wasmcp_read_errorf(res, WASMCP_ERROR_NOT_FOUND, "no file %s", path);
        return;
    }
    char *text = wasmcp_call_memory(vars.len + 1);
    memcpy(text, vars.ptr, vars.len);
    text[vars.len] = 0;
    wasmcp_read_text(res, text);
    (void)uri;
}

static void complete_path(const char *argument, const char *value, wasmcp_json context, wasmcp_completion *c) {
    (void)context;
    static const char *paths[] = {"a.txt", "b.txt", "notes/c.md"};
    CHECK_STR(argument, "path");
    for (size_t i = 0; i < 3; i++)
        if (strncmp(paths[i], value, strlen(value)) == 0) wasmcp_complete_value(c, paths[i]);
}

static void review(wasmcp_json args, wasmcp_prompt_result *res) {
    const char *diff = wasmcp_get_string(args, "diff", NULL), *focus = wasmcp_get_string(args, "focus", NULL);
    wasmcp_prompt_description(res, "Review a diff");
    wasmcp_prompt_text(res, WASMCP_ROLE_USER, "Review this change:");
    wasmcp_prompt_embedded_text(res, WASMCP_ROLE_USER, "diff://current", "text/x-diff", diff);
    if (focus) wasmcp_prompt_textf(res, WASMCP_ROLE_ASSISTANT, "I will focus on %s.", focus);
}

static void complete_focus(const char *argument, const char *value, wasmcp_json context, wasmcp_completion *c) {
    static const char *areas[] = {"security", "style", "speed"};
    if (strcmp(argument, "focus") != 0) return;
    CHECK(wasmcp_json_kind_of(context) == WASMCP_JSON_OBJECT);
    for (size_t i = 0; i < 3; i++)
        if (strncmp(areas[i], value, strlen(value)) == 0) wasmcp_complete_value(c, areas[i]);
    wasmcp_complete_total(c, 3);
}

static void blocks(wasmcp_json args, wasmcp_prompt_result *res) {
    (void)args;
    wasmcp_prompt_image(res, WASMCP_ROLE_USER, "\x89PNG", 4, "image/png");
    wasmcp_prompt_audio(res, WASMCP_ROLE_ASSISTANT, "RIFF", 4, "audio/wav");
    wasmcp_prompt_resource_link(res, WASMCP_ROLE_USER, &(wasmcp_resource_link){.uri = "test://a", .name = "a"});
    wasmcp_prompt_embedded_blob(res, WASMCP_ROLE_USER, "test://b", NULL, "b", 1);
    wasmcp_prompt_content(res, WASMCP_ROLE_USER, "{\"type\":\"text\",\"text\":\"raw\"}");
}

static void no_messages(wasmcp_json args, wasmcp_prompt_result *res) { (void)args, (void)res; }

static void bad_block(wasmcp_json args, wasmcp_prompt_result *res) {
    (void)args;
    wasmcp_prompt_image(res, WASMCP_ROLE_USER, "", 0, "image/png");
}

static void refuses(wasmcp_json args, wasmcp_prompt_result *res) {
    wasmcp_prompt_errorf(res, WASMCP_ERROR_INVALID_PARAMS, "cannot use %s", wasmcp_get_string(args, "x", "?"));
}

static void many(const char *argument, const char *value, wasmcp_json context, wasmcp_completion *c) {
    (void)argument, (void)value, (void)context;
    for (int i = 0; i < 150; i++)
        wasmcp_complete_value(c, "v");
}

WASMCP_INIT {
    wasmcp_add_resource(&(wasmcp_resource){
        .uri = "text://greeting",
        .name = "greeting",
        .title = "Greeting",
        .description = "A fixed text.",
        .mime_type = "text/plain",
        .text = "Hello, resources!",
    });
    wasmcp_add_resource(&(wasmcp_resource){
        .uri = "blob://bytes",
        .name = "bytes",
        .mime_type = "application/octet-stream",
        .size = 4,
        .annotations = "{\"audience\":[\"user\"]}",
        .handler = read_bytes,
    });
    wasmcp_add_resource(&(wasmcp_resource){.uri = "test://parts", .name = "parts", .handler = read_parts});
    wasmcp_add_resource(&(wasmcp_resource){.uri = "test://fails", .name = "fails", .handler = read_fails});
    wasmcp_add_resource(&(wasmcp_resource){.uri = "test://nothing", .name = "nothing", .handler = read_nothing});
    wasmcp_add_resource(&(wasmcp_resource){.uri = "test://bad", .name = "bad", .handler = read_bad});
    wasmcp_add_resource(&(wasmcp_resource){
        .uri = "ui://app/view",
        .name = "view",
        .mime_type = "text/html;profile=mcp-app",
        .meta = "{\"ui\":{\"csp\":{\"connectDomains\":[\"https://api.example.com\"]}}}",
        .text = "<p>hi</p>",
    });
    /* A resource is served before any template that matches its URI. */
    wasmcp_add_resource(&(wasmcp_resource){.uri = "file:///fixed", .name = "fixed", .text = "fixed"});
    wasmcp_add_resource_template(&(wasmcp_resource_template){
        .uri_template = "file:///{+path}",
        .name = "files",
        .mime_type = "text/plain",
        .handler = read_vars,
        .complete = complete_path,
    });
    /* Longer text before the first expression: preferred where both match. */
    wasmcp_add_resource_template(
        &(wasmcp_resource_template){.uri_template = "file:///docs/{name}", .name = "docs", .handler = read_vars});
    wasmcp_add_resource_template(&(wasmcp_resource_template){.uri_template = "notes://{id}{?lang,fmt}",
                                                             .name = "notes",
                                                             .icons = "[{\"src\":\"https://example.com/n.png\"}]",
                                                             .handler = read_vars});
    wasmcp_add_resource_template(
        &(wasmcp_resource_template){.uri_template = "x://{a}.{b}/{c}{#f}", .name = "x", .handler = read_vars});
    wasmcp_add_resource_template(&(wasmcp_resource_template){
        .uri_template = "y:{/seg,more}{.ext}{;p,q}{&r}", .name = "y", .handler = read_vars});
    wasmcp_add_resource_template(
        &(wasmcp_resource_template){.uri_template = "z:{short:3}-{rest}", .name = "z", .handler = read_vars});
    wasmcp_add_prompt(&(wasmcp_prompt){
        .name = "review",
        .title = "Review",
        .description = "Reviews a diff.",
        .arguments =
            (wasmcp_prompt_argument[]){
                {.name = "diff", .description = "The diff to review.", .required = true},
                {.name = "focus", .title = "Focus"},
                {0},
            },
        .handler = review,
        .complete = complete_focus,
    });
    wasmcp_add_prompt(&(wasmcp_prompt){.name = "blocks", .handler = blocks});
    wasmcp_add_prompt(&(wasmcp_prompt){.name = "none", .handler = no_messages, .complete = many});
    wasmcp_add_prompt(&(wasmcp_prompt){.name = "bad", .handler = bad_block});
    wasmcp_add_prompt(&(wasmcp_prompt){
        .name = "refuses",
        .arguments = (wasmcp_prompt_argument[]){{.name = "x"}, {0}},
        .handler = refuses,
        .complete = many,
    });
}

static const char *doc(const char *d, size_t len) {
    CHECK(d && len == strlen(d));
    CHECK(d && wasmcp_json_parse(d, len).ptr != NULL);
    return d;
}

static const char *rd(const char *uri) {
    size_t len = 0;
    const char *d = wasmcp_dispatch_read(uri, strlen(uri), &len);
    return doc(d, len);
}

static const char *get(const char *name, const char *args) {
    size_t len = 0;
    const char *d = wasmcp_dispatch_prompt(name, strlen(name), args, strlen(args), &len);
    return doc(d, len);
}

static const char *complete(const char *req) {
    size_t len = 0;
    const char *d = wasmcp_dispatch_complete(req, strlen(req), &len);
    return doc(d, len);
}

static void test_describe(void) {
    size_t len;
    CHECK_STR(
        wasmcp_describe_json(&len),
        "{\"tools\":[],\"resources\":["
        "{\"uri\":\"text://greeting\",\"name\":\"greeting\",\"title\":\"Greeting\",\"description\":\"A fixed text.\","
        "\"mimeType\":\"text/plain\"},"
        "{\"uri\":\"blob://bytes\",\"name\":\"bytes\",\"mimeType\":\"application/octet-stream\",\"size\":4,"
        "\"annotations\":{\"audience\":[\"user\"]}},"
        "{\"uri\":\"test://parts\",\"name\":\"parts\"},{\"uri\":\"test://fails\",\"name\":\"fails\"},"
        "{\"uri\":\"test://nothing\",\"name\":\"nothing\"},{\"uri\":\"test://bad\",\"name\":\"bad\"},"
        "{\"uri\":\"ui://app/view\",\"name\":\"view\",\"mimeType\":\"text/html;profile=mcp-app\","
        "\"_meta\":{\"ui\":{\"csp\":{\"connectDomains\":[\"https://api.example.com\"]}}}},"
        "{\"uri\":\"file:///fixed\",\"name\":\"fixed\"}],"
        "\"resourceTemplates\":["
        "{\"uriTemplate\":\"file:///{+path}\",\"name\":\"files\",\"mimeType\":\"text/plain\"},"
        "{\"uriTemplate\":\"file:///docs/{name}\",\"name\":\"docs\"},"
        "{\"uriTemplate\":\"notes://{id}{?lang,fmt}\",\"name\":\"notes\","
        "\"icons\":[{\"src\":\"https://example.com/n.png\"}]},"
        "{\"uriTemplate\":\"x://{a}.{b}/{c}{#f}\",\"name\":\"x\"},"
        "{\"uriTemplate\":\"y:{/seg,more}{.ext}{;p,q}{&r}\",\"name\":\"y\"},"
        "{\"uriTemplate\":\"z:{short:3}-{rest}\",\"name\":\"z\"}],"
        "\"prompts\":[{\"name\":\"review\",\"title\":\"Review\",\"description\":\"Reviews a diff.\",\"arguments\":["
        "{\"name\":\"diff\",\"description\":\"The diff to review.\",\"required\":true},"
        "{\"name\":\"focus\",\"title\":\"Focus\"}]},"
        "{\"name\":\"blocks\"},{\"name\":\"none\"},{\"name\":\"bad\"},"
        "{\"name\":\"refuses\",\"arguments\":[{\"name\":\"x\"}]}]}");
}

static void test_read(void) {
    CHECK_STR(
        rd("text://greeting"),
        "{\"contents\":[{\"uri\":\"text://greeting\",\"mimeType\":\"text/plain\",\"text\":\"Hello, resources!\"}]}");
    CHECK_STR(
        rd("blob://bytes"),
        "{\"contents\":[{\"uri\":\"blob://bytes\",\"mimeType\":\"application/octet-stream\",\"blob\":\"AP8QgA==\"}]}");
    CHECK_STR(rd("test://parts"), "{\"contents\":[{\"uri\":\"test://parts\",\"text\":\"test://parts has 2 parts\"},"
                                  "{\"uri\":\"test://parts/1\",\"text\":\"one\"},"
                                  "{\"uri\":\"test://parts/2\",\"mimeType\":\"image/png\",\"blob\":\"iVBORw==\"}]}");
    CHECK_STR(rd("test://fails"), "{\"error\":{\"code\":-32603,\"message\":\"test://fails is on fire\"}}");
    CHECK_STR(rd("test://nothing"),
              "{\"error\":{\"code\":-32603,\"message\":\"resource test://nothing: invalid contents: no contents\"}}");
    CHECK_STR(
        rd("test://bad"),
        "{\"error\":{\"code\":-32603,\"message\":\"resource test://bad: invalid contents: an item needs a uri\"}}");
    CHECK_STR(rd("unknown://x"), "{\"error\":{\"code\":-32002,\"message\":\"resource unknown://x not found\"}}");
    CHECK(strstr(rd("ui://app/view"), "\"text\":\"<p>hi</p>\""));
    CHECK_STR(rd("file:///fixed"), "{\"contents\":[{\"uri\":\"file:///fixed\",\"text\":\"fixed\"}]}");
}

/* test_templates reads URIs through the templates; read_vars answers with
 * the variables as JSON. */
static void test_templates(void) {
    static const struct {
        const char *uri, *vars; /* vars NULL: no template matches */
    } cases[] = {
        {"file:///a.txt", "{\"path\":\"a.txt\"}"},
        {"file:///a/b/c.txt", "{\"path\":\"a/b/c.txt\"}"},
        {"file:///a%20b.txt", "{\"path\":\"a b.txt\"}"},
        {"file:///caf%C3%A9?x=1&y=:@!", "{\"path\":\"caf\xc3\xa9?x=1&y=:@!\"}"},
        {"file:///", "{\"path\":\"\"}"},
        {"file:///docs/readme", "{\"name\":\"readme\"}"}, /* the longer prefix wins */
        {"file:///docs/a/b", "{\"path\":\"docs/a/b\"}"},  /* {name} takes no '/' */
        {"file:///docs/a%2Fb", "{\"name\":\"a/b\"}"},     /* ... unless encoded */
        {"file:///a b", NULL},                            /* a space is in no expansion */
        {"file:///a%2", NULL},                            /* nor a broken triplet */
        {"notes://42", "{\"id\":\"42\"}"},                /* optional query variables left out */
        {"notes://42?lang=fr", "{\"id\":\"42\",\"lang\":\"fr\"}"},
        {"notes://42?fmt=md", "{\"id\":\"42\",\"fmt\":\"md\"}"},
        {"notes://42?lang=fr&fmt=md", "{\"id\":\"42\",\"lang\":\"fr\",\"fmt\":\"md\"}"},
        {"notes://42?lang=", "{\"id\":\"42\",\"lang\":\"\"}"},
        {"notes://42?fmt=md&lang=fr", NULL}, /* the template's order */
        {"notes://a/b", NULL},
        {"notes://4%3F2", "{\"id\":\"4?2\"}"},
        {"x://host.example.com/p#f/r?ag", "{\"a\":\"host.example\",\"b\":\"com\",\"c\":\"p\",\"f\":\"f/r?ag\"}"},
        {"x://h.c/p/q", NULL},
        {"x://h.c/", "{\"a\":\"h\",\"b\":\"c\",\"c\":\"\"}"},
        /* Earlier variables take what they can: '.' is in a {/seg} value. */
        {"y:/a/b.md;p=1;q&r=2", "{\"seg\":\"a\",\"more\":\"b.md\",\"p\":\"1\",\"q\":\"\",\"r\":\"2\"}"},
        {"y:/a", "{\"seg\":\"a\"}"},
        {"y:.md", "{\"ext\":\"md\"}"},
        {"y:", "{}"},
        {"z:abc-d", "{\"short\":\"abc\",\"rest\":\"d\"}"},
        {"z:abcd-e", NULL}, /* {short:3} holds 3 characters at most */
        {"z:%C3%A9t%C3%A9-x", "{\"short\":\"\xc3\xa9t\xc3\xa9\",\"rest\":\"x\"}"}, /* characters, not bytes */
        /* Bytes of no valid UTF-8 sequence become U+FFFD, each alone. */
        {"file:///%FF%FEa%00b%E2%82", "{\"path\":\"\\ufffd\\ufffda\\u0000b\\ufffd\\ufffd\"}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *got = rd(cases[i].uri);
        if (cases[i].vars) {
            wasmcp_json text = wasmcp_json_get(
                wasmcp_json_index(wasmcp_json_get(wasmcp_json_parse(got, strlen(got)), "contents"), 0), "text");
            const char *s = wasmcp_json_string(text, NULL);
            if (!s || strcmp(s, cases[i].vars) != 0) {
                fprintf(stderr, "read %s: got %s, want variables %s\n", cases[i].uri, got, cases[i].vars);
                failures++;
            }
        } else if (!strstr(got, "\"code\":-32002")) {
            fprintf(stderr, "read %s: got %s, want not found\n", cases[i].uri, got);
            failures++;
        }
    }
    CHECK_STR(rd("file:///missing"), "{\"error\":{\"code\":-32002,\"message\":\"no file missing\"}}");
    CHECK(strstr(rd("file:///a.txt"), "\"mimeType\":\"text/plain\""));

    /* A long URI does not make matching slow: failures are remembered. */
    static char longuri[4096];
    strcpy(longuri, "y:");
    memset(longuri + 2, '/', sizeof longuri - 3);
    CHECK(strstr(rd(longuri), "\"code\":-32002"));
}

static void test_prompts(void) {
    CHECK_STR(get("review", "{\"diff\":\"-a\\n+b\"}"),
              "{\"description\":\"Review a diff\",\"messages\":["
              "{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Review this change:\"}},"
              "{\"role\":\"user\",\"content\":{\"type\":\"resource\",\"resource\":{\"uri\":\"diff://current\","
              "\"mimeType\":\"text/x-diff\",\"text\":\"-a\\n+b\"}}}]}");
    CHECK(strstr(get("review", "{\"diff\":\"x\",\"focus\":\"style\"}"),
                 "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"I will focus on style.\"}}]}"));
    CHECK_STR(
        get("blocks", ""),
        "{\"messages\":["
        "{\"role\":\"user\",\"content\":{\"type\":\"image\",\"data\":\"iVBORw==\",\"mimeType\":\"image/png\"}},"
        "{\"role\":\"assistant\",\"content\":{\"type\":\"audio\",\"data\":\"UklGRg==\",\"mimeType\":\"audio/wav\"}},"
        "{\"role\":\"user\",\"content\":{\"type\":\"resource_link\",\"uri\":\"test://a\",\"name\":\"a\"}},"
        "{\"role\":\"user\",\"content\":{\"type\":\"resource\",\"resource\":{\"uri\":\"test://b\",\"blob\":\"Yg==\"}}},"
        "{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"raw\"}}]}");
    CHECK_STR(get("review", "{}"),
              "{\"error\":{\"code\":-32602,\"message\":\"prompt review: missing required argument \\\"diff\\\"\"}}");
    CHECK_STR(get("review", "{\"diff\":1}"),
              "{\"error\":{\"code\":-32602,\"message\":\"prompt review: argument \\\"diff\\\" is not a string\"}}");
    CHECK_STR(get("review", "{\"diff\":\"x\",\"tone\":\"kind\"}"),
              "{\"error\":{\"code\":-32602,\"message\":\"prompt review has no argument \\\"tone\\\"\"}}");
    CHECK_STR(get("review", "[]"),
              "{\"error\":{\"code\":-32602,\"message\":\"prompt review: the arguments are not a JSON object\"}}");
    CHECK_STR(get("missing", "{}"), "{\"error\":{\"code\":-32602,\"message\":\"unknown prompt \\\"missing\\\"\"}}");
    CHECK_STR(get("refuses", "{\"x\":\"it\"}"), "{\"error\":{\"code\":-32602,\"message\":\"cannot use it\"}}");
    CHECK_STR(get("none", "{}"),
              "{\"error\":{\"code\":-32603,\"message\":\"prompt none returned invalid messages: no messages\"}}");
    CHECK(strstr(get("bad", "{}"), "needs data and a MIME type"));
}

static void test_complete(void) {
    CHECK_STR(
        complete("{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"review\"},"
                 "\"argument\":{\"name\":\"focus\",\"value\":\"s\"},\"context\":{\"arguments\":{\"diff\":\"x\"}}}"),
        "{\"values\":[\"security\",\"style\",\"speed\"],\"total\":3}");
    CHECK_STR(complete("{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"review\"},"
                       "\"argument\":{\"name\":\"focus\",\"value\":\"sp\"}}"),
              "{\"values\":[\"speed\"],\"total\":3,\"hasMore\":true}");
    CHECK_STR(complete("{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"file:///{+path}\"},"
                       "\"argument\":{\"name\":\"path\",\"value\":\"n\"}}"),
              "{\"values\":[\"notes/c.md\"]}");
    /* Nothing to complete: an unknown prompt, argument, template or
     * variable, one without a completion handler. */
    static const char *empty[] = {
        "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"missing\"},\"argument\":{\"name\":\"focus\",\"value\":\"\"}}",
        "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"review\"},\"argument\":{\"name\":\"tone\",\"value\":\"\"}}",
        "{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"file:///"
        "{+path}\"},\"argument\":{\"name\":\"p\",\"value\":\"\"}}",
        "{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"notes://"
        "{id}{?lang,fmt}\"},\"argument\":{\"name\":\"id\",\"value\":\"\"}}",
        "{\"ref\":{\"type\":\"ref/other\"},\"argument\":{\"name\":\"x\",\"value\":\"\"}}",
    };
    for (size_t i = 0; i < sizeof empty / sizeof *empty; i++)
        CHECK_STR(complete(empty[i]), "{\"values\":[]}");
    const char *d =
        complete("{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"none\"},\"argument\":{\"name\":\"x\",\"value\":\"\"}}");
    CHECK_STR(d, "{\"values\":[]}"); /* none has no argument x */
    d = complete(
        "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"refuses\"},\"argument\":{\"name\":\"x\",\"value\":\"\"}}");
    CHECK(wasmcp_json_count(wasmcp_json_get(wasmcp_json_parse(d, strlen(d)), "values")) ==
          WASMCP_MAX_COMPLETION_VALUES);
    CHECK(strstr(d, "\"hasMore\":true}"));
    CHECK_STR(complete("[]"),
              "{\"error\":{\"code\":-32602,\"message\":\"completion: the request has no ref and argument\"}}");
}

static void test_refused(void) {
    wasmcp_read_handler h = read_bytes;
    static const struct {
        wasmcp_resource r;
    } bad[] = {
        {{.uri = "relative/path", .name = "x", .handler = read_bytes}},
        {{.uri = "1x:y", .name = "x", .handler = read_bytes}},
        {{.uri = "x:a b", .name = "x", .handler = read_bytes}},
        {{.uri = "x:a#b", .name = "x", .handler = read_bytes}},
        {{.uri = "x:a", .name = "", .handler = read_bytes}},
        {{.uri = "x:a", .name = "x", .mime_type = "text", .handler = read_bytes}},
        {{.uri = "x:a", .name = "x", .size = -1, .handler = read_bytes}},
        {{.uri = "x:a", .name = "x", .annotations = "[]", .handler = read_bytes}},
        {{.uri = "x:a", .name = "x", .icons = "{}", .handler = read_bytes}},
        {{.uri = "x:a", .name = "x"}},
        {{.uri = "UI://a/b", .name = "x", .mime_type = "text/html", .handler = read_bytes}},
        {{.uri = "text://greeting", .name = "x", .handler = read_bytes}},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (wasmcp_add_resource(&bad[i].r)) fprintf(stderr, "resource %zu accepted\n", i), failures++;
    static const char *templates[] = {
        "{+uri}",      "{scheme}://x", "x:{",     "x:}",     "x:{}",   "x:{a*}",          "x:{a:0}",
        "x:{a:10000}", "x:{=a}",       "x:{a,a}", "x:{a b}", "x:{a.}", "file:///{+path}",
    };
    for (size_t i = 0; i < sizeof templates / sizeof *templates; i++)
        if (wasmcp_add_resource_template(
                &(wasmcp_resource_template){.uri_template = templates[i], .name = "t", .handler = h}))
            fprintf(stderr, "template %s accepted\n", templates[i]), failures++;
    CHECK(!wasmcp_add_resource_template(&(wasmcp_resource_template){.uri_template = "x:{a}", .name = "t"}));
    wasmcp_prompt_handler ph = no_messages;
    CHECK(!wasmcp_add_prompt(&(wasmcp_prompt){.name = "a b", .handler = ph}));
    CHECK(!wasmcp_add_prompt(&(wasmcp_prompt){.name = "review", .handler = ph}));
    CHECK(!wasmcp_add_prompt(&(wasmcp_prompt){.name = "nohandler"}));
    CHECK(!wasmcp_add_prompt(&(wasmcp_prompt){
        .name = "twice", .arguments = (wasmcp_prompt_argument[]){{.name = "a"}, {.name = "a"}, {0}}, .handler = ph}));
    CHECK(!wasmcp_add_prompt(
        &(wasmcp_prompt){.name = "empty", .arguments = (wasmcp_prompt_argument[]){{.name = ""}, {0}}, .handler = ph}));
    static wasmcp_prompt_argument args[WASMCP_MAX_PROMPT_ARGUMENTS + 2];
    static char names[WASMCP_MAX_PROMPT_ARGUMENTS + 1][4];
    for (int i = 0; i <= WASMCP_MAX_PROMPT_ARGUMENTS; i++)
        snprintf(names[i], sizeof names[i], "a%d", i), args[i].name = names[i];
    CHECK(!wasmcp_add_prompt(&(wasmcp_prompt){.name = "many", .arguments = args, .handler = ph}));
    args[WASMCP_MAX_PROMPT_ARGUMENTS].name = NULL;
    CHECK(wasmcp_add_prompt(&(wasmcp_prompt){.name = "most", .arguments = args, .handler = ph}));
    size_t len;
    CHECK(wasmcp_describe_json(&len) == NULL); /* a refusal refuses the module */
}

int main(void) {
    test_describe();
    test_read();
    test_templates();
    test_prompts();
    test_complete();
    test_refused();
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
