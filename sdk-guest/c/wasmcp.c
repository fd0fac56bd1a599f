/*
 * wasmcp.c - tools, results, logging and the guest ABI of the C SDK.
 *
 * The ABI (abi/ABI.md) in short: the host calls wasmcp_alloc once per call
 * for the tool name followed by the arguments, then wasmcp_call, and copies
 * the returned document out before calling in again. So everything a call
 * allocates ("call memory") is freed when the next call starts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- call memory ------------------------------------------------------- */

/* Call memory is bump-allocated from blocks obtained with malloc: a reset
 * rewinds to the start of the first block, which is kept for the next call,
 * and frees the others. A small tool's call then runs no malloc or free at
 * all, and touches the same few pages of memory every time: between a
 * server's requests those pages are cold, and a call that allocates from
 * malloc's free lists reaches much more of memory and of malloc's code
 * (in the host's BenchmarkColdCall, the echo's call took ~4 us less cold).
 *
 * Every allocation is preceded by a header holding its size, so that a
 * realloc can copy it, or grow it in place when it is the last one. Under
 * AddressSanitizer (the SDK's native tests) the memory no allocation owns,
 * headers included, is poisoned: an access past the end of a block, or to
 * a block after a reset, is reported as malloc's would be. */

#if defined(__SANITIZE_ADDRESS__)
#define WASMCP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WASMCP_ASAN 1
#endif
#endif
#ifdef WASMCP_ASAN
void __asan_poison_memory_region(void const volatile *addr, size_t size);
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
#define POISON(p, n) __asan_poison_memory_region((p), (n))
#define UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define POISON(p, n) ((void)0)
#define UNPOISON(p, n) ((void)0)
#endif

typedef union header {
    size_t size;
    max_align_t align; /* the payload after the header is aligned for any type */
} header;

typedef struct block {
    struct block *next; /* the block allocated before this one */
    char *end;
} block;

/* BLOCK_SIZE is the size of a block, and of the one kept between calls.
 * An allocation larger than a block gets a block of its own. */
#define BLOCK_SIZE ((size_t)64 << 10)
#define ALIGNMENT _Alignof(max_align_t)
#define ROUND_UP(n) (((n) + ALIGNMENT - 1) & ~(size_t)(ALIGNMENT - 1))
#define PAYLOAD(b) ((char *)(b) + ROUND_UP(sizeof(block)))

static block *blocks;    /* the newest block; the first one is kept */
static char *free_start; /* the unused part of the newest block */
static header *last;     /* the newest allocation, which may grow in place */

/* room reports whether n bytes from p fit in the newest block. */
static bool room(const char *p, size_t n) { return blocks && n <= (size_t)(blocks->end - p); }

static void *bump(size_t n) {
    if (n > SIZE_MAX / 2) return NULL;
    size_t need = sizeof(header) + ROUND_UP(n);
    if (!room(free_start, need)) {
        size_t size = ROUND_UP(sizeof(block)) + need;
        if (size < BLOCK_SIZE) size = BLOCK_SIZE;
        block *b = malloc(size);
        if (!b) return NULL;
        b->next = blocks;
        b->end = (char *)b + size;
        blocks = b;
        free_start = PAYLOAD(b);
        POISON(free_start, (size_t)(b->end - free_start));
    }
    header *h = (header *)free_start;
    UNPOISON(h, sizeof *h);
    h->size = n;
    POISON(h, sizeof *h);
    UNPOISON(h + 1, n);
    free_start += need;
    last = h;
    return h + 1;
}

void *wasmcp_call_realloc_(void *p, size_t n) {
    if (!p) return bump(n);
    header *h = (header *)p - 1;
    UNPOISON(h, sizeof *h);
    size_t old = h->size;
    if (h == last && n <= SIZE_MAX / 2 && room((char *)p, ROUND_UP(n))) {
        h->size = n;
        POISON(h, sizeof *h);
        free_start = (char *)p + ROUND_UP(n);
        POISON(p, (size_t)(blocks->end - (char *)p));
        UNPOISON(p, n);
        return p;
    }
    POISON(h, sizeof *h);
    void *q = bump(n);
    if (q) memcpy(q, p, old < n ? old : n);
    return q;
}

void *wasmcp_call_memory(size_t n) { return bump(n); }

void wasmcp_call_reset_(void) {
    /* Keep the first block if it is of the usual size: a call that needed
     * a large one does not keep it. */
    while (blocks && (blocks->next || (size_t)(blocks->end - (char *)blocks) != BLOCK_SIZE)) {
        block *next = blocks->next;
        free(blocks);
        blocks = next;
    }
    last = NULL;
    if (blocks) {
        free_start = PAYLOAD(blocks);
        POISON(free_start, (size_t)(blocks->end - free_start));
    }
}

/* only_strings reports whether format has no conversion but %s and %%. */
static bool only_strings(const char *format) {
    for (const char *p = format; *p; p++) {
        if (*p != '%') continue;
        p++;
        if (*p != 's' && *p != '%') return false;
    }
    return true;
}

/* concat formats a format that only_strings accepts: the text with each
 * %s replaced by its argument ("(null)" for NULL, as printf writes it). */
static const char *concat(const char *format, va_list ap) {
    size_t n = 0;
    va_list count;
    va_copy(count, ap);
    for (const char *p = format; *p; p++) {
        if (*p != '%') {
            n++;
        } else if (*++p == '%') {
            n++;
        } else {
            const char *s = va_arg(count, const char *);
            n += strlen(s ? s : "(null)");
        }
    }
    va_end(count);
    char *out = wasmcp_call_memory(n + 1), *w = out;
    if (!out) return NULL;
    for (const char *p = format; *p; p++) {
        if (*p != '%') {
            *w++ = *p;
        } else if (*++p == '%') {
            *w++ = '%';
        } else {
            const char *s = va_arg(ap, const char *);
            if (!s) s = "(null)";
            size_t k = strlen(s);
            memcpy(w, s, k);
            w += k;
        }
    }
    *w = '\0';
    return out;
}

/* wasmcp_vformat_ formats into call memory. A format of text and %s alone, as most
 * log lines and results are, is put together without printf: printf's code
 * is the largest a small tool runs in a call, and a call finds it cold. */
const char *wasmcp_vformat_(const char *format, va_list ap) {
    if (only_strings(format)) {
        const char *s = concat(format, ap);
        return s ? s : "(out of memory formatting a message)";
    }
    /* Most messages fit the stack buffer, and are formatted once: printf
     * is the costliest thing a small tool does (it walks the format twice
     * itself). A longer one is formatted again into call memory. */
    char small[256];
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, format, ap);
    char *s = n < 0 ? NULL : wasmcp_call_memory((size_t)n + 1);
    if (s && (size_t)n < sizeof small)
        memcpy(s, small, (size_t)n + 1);
    else if (s)
        vsnprintf(s, (size_t)n + 1, format, again);
    va_end(again);
    return s ? s : "(out of memory formatting a message)";
}

const char *wasmcp_formatf_(const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    const char *s = wasmcp_vformat_(format, ap);
    va_end(ap);
    return s;
}

/* ---- logging ----------------------------------------------------------- */

#ifdef __wasm__
__attribute__((import_module("wasmcp"), import_name("log"))) void wasmcp_host_log_(uint32_t level, const char *msg,
                                                                                   size_t len);
#else
static void wasmcp_host_log_(uint32_t level, const char *msg, size_t len) {
    static const char *names[] = {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};
    fprintf(stderr, "wasmcp %s: %.*s\n", names[level > 7 ? 7 : level], (int)len, msg);
}
#endif

void wasmcp_log(wasmcp_log_level level, const char *msg) {
    size_t n = strlen(msg);
    if (n > WASMCP_MAX_LOG_SIZE) { /* cut on a UTF-8 boundary: the host would cut anyway */
        n = WASMCP_MAX_LOG_SIZE;
        while (n > 0 && ((unsigned char)msg[n] & 0xC0) == 0x80)
            n--;
    }
    wasmcp_host_log_((uint32_t)level, msg, n);
}

void wasmcp_logf(wasmcp_log_level level, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    wasmcp_log(level, wasmcp_vformat_(format, ap));
    va_end(ap);
}

/* ---- results ----------------------------------------------------------- */

struct wasmcp_result {
    wasmcp_writer content;     /* the document so far: {"content":[ and the blocks */
    wasmcp_writer *structured; /* NULL until asked for */
    bool is_error;
};

/* The content blocks are written by functions of a writer, so that a
 * prompt's messages (prompts.c) hold the same blocks as a result. */

static void block_begin(wasmcp_writer *w, const char *type) {
    wasmcp_w_object_begin(w);
    wasmcp_w_key(w, "type");
    wasmcp_w_string(w, type);
}

static void field(wasmcp_writer *w, const char *key, const char *value) {
    wasmcp_w_key(w, key);
    wasmcp_w_string(w, value);
}

static void optional(wasmcp_writer *w, const char *key, const char *value) {
    if (value) field(w, key, value);
}

void wasmcp_block_text_(wasmcp_writer *w, const char *text) {
    block_begin(w, "text");
    field(w, "text", text);
    wasmcp_w_object_end(w);
}

void wasmcp_block_media_(wasmcp_writer *w, const char *type, const char *base64, const char *mime_type) {
    if (!base64) {
        wasmcp_writer_fail_(w, "out of memory encoding base64");
        return;
    }
    if (!*base64 || !mime_type || !*mime_type) {
        wasmcp_writer_fail_(w, "an image or audio block needs data and a MIME type");
        return;
    }
    block_begin(w, type);
    field(w, "data", base64);
    field(w, "mimeType", mime_type);
    wasmcp_w_object_end(w);
}

void wasmcp_block_resource_link_(wasmcp_writer *w, const wasmcp_resource_link *link) {
    if (!link || !link->uri || !*link->uri || !link->name || !*link->name) {
        wasmcp_writer_fail_(w, "a resource_link block needs a uri and a name");
        return;
    }
    block_begin(w, "resource_link");
    field(w, "uri", link->uri);
    field(w, "name", link->name);
    optional(w, "title", link->title);
    optional(w, "description", link->description);
    optional(w, "mimeType", link->mime_type);
    if (link->size) {
        wasmcp_w_key(w, "size");
        wasmcp_w_int(w, link->size);
    }
    wasmcp_w_object_end(w);
}

void wasmcp_block_embedded_(wasmcp_writer *w, const char *uri, const char *mime_type, const char *key,
                            const char *value) {
    if (!uri || !*uri || !value) {
        wasmcp_writer_fail_(w, value ? "an embedded resource needs a uri" : "out of memory");
        return;
    }
    block_begin(w, "resource");
    wasmcp_w_key(w, "resource");
    wasmcp_w_object_begin(w);
    field(w, "uri", uri);
    optional(w, "mimeType", mime_type);
    field(w, key, value);
    wasmcp_w_object_end(w);
    wasmcp_w_object_end(w);
}

void wasmcp_block_json_(wasmcp_writer *w, const char *json) {
    wasmcp_json v = wasmcp_json_parse(json, json ? strlen(json) : 0);
    if (wasmcp_json_kind_of(v) != WASMCP_JSON_OBJECT ||
        wasmcp_json_kind_of(wasmcp_json_get(v, "type")) != WASMCP_JSON_STRING) {
        wasmcp_writer_fail_(w, "a content block must be a JSON object with a \"type\"");
        return;
    }
    wasmcp_w_raw(w, v.ptr, v.len);
}

void wasmcp_result_text(wasmcp_result *res, const char *text) { wasmcp_block_text_(&res->content, text); }

void wasmcp_result_textf(wasmcp_result *res, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    wasmcp_result_text(res, wasmcp_vformat_(format, ap));
    va_end(ap);
}

void wasmcp_result_image(wasmcp_result *res, const void *data, size_t len, const char *mime_type) {
    wasmcp_block_media_(&res->content, "image", wasmcp_base64(data, len), mime_type);
}

void wasmcp_result_image_base64(wasmcp_result *res, const char *base64, const char *mime_type) {
    wasmcp_block_media_(&res->content, "image", base64, mime_type);
}

void wasmcp_result_audio(wasmcp_result *res, const void *data, size_t len, const char *mime_type) {
    wasmcp_block_media_(&res->content, "audio", wasmcp_base64(data, len), mime_type);
}

void wasmcp_result_resource_link(wasmcp_result *res, const wasmcp_resource_link *link) {
    wasmcp_block_resource_link_(&res->content, link);
}

void wasmcp_result_embedded_text(wasmcp_result *res, const char *uri, const char *mime_type, const char *text) {
    wasmcp_block_embedded_(&res->content, uri, mime_type, "text", text);
}

void wasmcp_result_embedded_blob(wasmcp_result *res, const char *uri, const char *mime_type, const void *data,
                                 size_t len) {
    wasmcp_block_embedded_(&res->content, uri, mime_type, "blob", wasmcp_base64(data, len));
}

void wasmcp_result_content(wasmcp_result *res, const char *json) { wasmcp_block_json_(&res->content, json); }

wasmcp_writer *wasmcp_result_structured(wasmcp_result *res) {
    if (!res->structured && !(res->structured = wasmcp_writer_new())) {
        wasmcp_writer_fail_(&res->content, "out of memory");
        static wasmcp_writer failed = {.error = "out of memory"};
        return &failed; /* writes to it are ignored */
    }
    return res->structured;
}

void wasmcp_result_error(wasmcp_result *res, const char *msg) {
    res->is_error = true;
    wasmcp_result_text(res, msg);
}

void wasmcp_result_errorf(wasmcp_result *res, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    wasmcp_result_error(res, wasmcp_vformat_(format, ap));
    va_end(ap);
}

/* error_doc is a Result document with isError and one text block. */
static const char *error_doc(const char *msg, size_t *len) {
    wasmcp_writer w;
    wasmcp_writer_init_(&w);
    wasmcp_w_object_begin(&w);
    wasmcp_w_key(&w, "content");
    wasmcp_w_array_begin(&w);
    wasmcp_w_object_begin(&w);
    wasmcp_w_key(&w, "type");
    wasmcp_w_string(&w, "text");
    wasmcp_w_key(&w, "text");
    wasmcp_w_string(&w, msg);
    wasmcp_w_object_end(&w);
    wasmcp_w_array_end(&w);
    wasmcp_w_key(&w, "isError");
    wasmcp_w_bool(&w, true);
    wasmcp_w_object_end(&w);
    const char *doc = wasmcp_writer_json(&w, len);
    if (doc) return doc;
    static const char oom[] = "{\"content\":[{\"type\":\"text\",\"text\":\"out of memory\"}],\"isError\":true}";
    *len = sizeof oom - 1;
    return oom;
}

const char *wasmcp_error_doc_(int code, const char *msg, size_t *len) {
    wasmcp_writer w;
    wasmcp_writer_init_(&w);
    wasmcp_w_object_begin(&w);
    wasmcp_w_key(&w, "error");
    wasmcp_w_object_begin(&w);
    wasmcp_w_key(&w, "code");
    wasmcp_w_int(&w, code);
    wasmcp_w_key(&w, "message");
    wasmcp_w_string(&w, msg);
    wasmcp_w_object_end(&w);
    wasmcp_w_object_end(&w);
    const char *doc = wasmcp_writer_json(&w, len);
    if (doc) return doc;
    static const char oom[] = "{\"error\":{\"code\":-32603,\"message\":\"out of memory\"}}";
    *len = sizeof oom - 1;
    return oom;
}

/* invalid formats the message of a result the handler got wrong. */
static const char *invalid(const char *tool, const char *part, const char *why) {
    return wasmcp_formatf_("tool %s returned an invalid result: %s: %s", tool, part, why);
}

/* finish turns a filled result into its document, or into a tool error
 * naming what the handler got wrong. The content writer holds the document
 * from its start ({"content":[, written by wasmcp_dispatch), so that the
 * rest is appended to it rather than all copied into another buffer. */
static const char *finish(const char *tool, wasmcp_result *res, size_t *len) {
    wasmcp_writer *c = &res->content, *s = res->structured;
    wasmcp_w_array_end(c);
    if (c->error || c->depth != 1)
        return error_doc(invalid(tool, "content", c->error ? c->error : "a block was left open"), len);
    if (s) {
        size_t slen = 0;
        const char *sc = wasmcp_writer_json(s, &slen);
        if (!sc)
            return error_doc(invalid(tool, "structured content", s->error ? s->error : "a container was left open"),
                             len);
        if (slen == 0 || sc[0] != '{')
            return error_doc(invalid(tool, "structured content", "must be one JSON object"), len);
        wasmcp_w_key(c, "structuredContent");
        wasmcp_w_value_(c, sc, slen);
    }
    if (res->is_error) {
        wasmcp_w_key(c, "isError");
        wasmcp_w_bool(c, true);
    }
    wasmcp_w_object_end(c);
    const char *doc = wasmcp_writer_json(c, len);
    return doc ? doc : error_doc("out of memory", len);
}

/* ---- tools ------------------------------------------------------------- */

static wasmcp_tool *tools;
static size_t ntools;
/* refused is set when a definition was refused: the module then reports no
 * definitions at all, and the host refuses it with the logged reason. */
static bool refused;

bool wasmcp_valid_name_(const char *name) {
    size_t n = 0;
    for (; name[n]; n++) {
        char c = name[n];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
              c == '-'))
            return false;
    }
    return n >= 1 && n <= WASMCP_MAX_TOOL_NAME_LEN;
}

bool wasmcp_refuse_(const char *function, const char *kind, const char *name, const char *why) {
    refused = true;
    wasmcp_logf(WASMCP_LOG_CRITICAL, "%s: %s \"%s\": %s", function, kind, name ? name : "(null)", why);
    return false;
}

static bool refuse(const char *name, const char *why) { return wasmcp_refuse_("wasmcp_add_tool", "tool", name, why); }

/* object_schema reports whether s is a JSON object, and for an input schema
 * whether its "type" is "object", as MCP requires. */
static bool object_schema(const char *s, bool input) {
    wasmcp_json v = wasmcp_json_parse(s, strlen(s));
    if (wasmcp_json_kind_of(v) != WASMCP_JSON_OBJECT) return false;
    wasmcp_json type = wasmcp_json_get(v, "type");
    return !input || (type.len == 8 && memcmp(type.ptr, "\"object\"", 8) == 0);
}

bool wasmcp_add_tool(const wasmcp_tool *t) {
    if (!t || !t->name || !wasmcp_valid_name_(t->name))
        return refuse(t ? t->name : NULL, "a name must be 1 to 128 characters of [A-Za-z0-9_.-]");
    for (size_t i = 0; i < ntools; i++)
        if (strcmp(tools[i].name, t->name) == 0) return refuse(t->name, "registered twice");
    if (ntools == WASMCP_MAX_TOOLS) return refuse(t->name, "a module defines at most 1024 tools");
    if (!t->handler) return refuse(t->name, "no handler");
    if (t->input_schema && !object_schema(t->input_schema, true))
        return refuse(t->name, "input schema: not a JSON object with \"type\":\"object\"");
    if (t->output_schema && !object_schema(t->output_schema, false))
        return refuse(t->name, "output schema: not a JSON object");
    if (t->annotations && !object_schema(t->annotations, false))
        return refuse(t->name, "annotations: not a JSON object");
    wasmcp_tool *grown = realloc(tools, (ntools + 1) * sizeof *tools);
    if (!grown) return refuse(t->name, "out of memory");
    tools = grown;
    tools[ntools++] = *t;
    return true;
}

/* ---- permissions ------------------------------------------------------ */

/* The module's request, which wasmcp_request_permissions appends to. Every
 * list and string is a copy: callers pass compound literals. */
static struct {
    wasmcp_fs_permission *fs;
    char **env, **net;
    size_t nfs, nenv, nnet;
    bool clock, random;
} perms;

static char *copy(const char *s) {
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    return c ? memcpy(c, s, n) : NULL;
}

static bool refuse_permission(const char *what, const char *value, const char *why) {
    refused = true;
    wasmcp_logf(WASMCP_LOG_CRITICAL, "wasmcp_request_permissions: %s \"%s\": %s", what, value, why);
    return false;
}

/* append_names appends copies of the NULL-terminated names to *list. */
static bool append_names(char ***list, size_t *n, const char *const *names, const char *what) {
    for (; names && *names; names++) {
        const char *s = *names;
        if (!*s) return refuse_permission(what, s, "must not be empty");
        char **grown = realloc(*list, (*n + 1) * sizeof **list);
        if (!grown) return refuse_permission(what, s, "out of memory");
        *list = grown;
        if (!(grown[*n] = copy(s))) return refuse_permission(what, s, "out of memory");
        (*n)++;
    }
    return true;
}

bool wasmcp_request_permissions(const wasmcp_permissions *p) {
    if (!p) return true;
    for (const wasmcp_fs_permission *f = p->fs; f && f->path; f++) {
        if (f->path[0] != '/') return refuse_permission("fs", f->path, "a path must be absolute");
        wasmcp_fs_permission *grown = realloc(perms.fs, (perms.nfs + 1) * sizeof *perms.fs);
        if (!grown) return refuse_permission("fs", f->path, "out of memory");
        perms.fs = grown;
        if (!(grown[perms.nfs].path = copy(f->path))) return refuse_permission("fs", f->path, "out of memory");
        grown[perms.nfs++].write = f->write;
    }
    for (const char *const *e = p->env; e && *e; e++)
        if (strchr(*e, '=')) return refuse_permission("env", *e, "a name must not contain '='");
    if (!append_names(&perms.env, &perms.nenv, p->env, "env")) return false;
    if (!append_names(&perms.net, &perms.nnet, p->net, "net")) return false;
    perms.clock |= p->clock;
    perms.random |= p->random;
    return true;
}

static void write_names(wasmcp_writer *w, const char *key, char **names, size_t n) {
    if (!n) return;
    wasmcp_w_key(w, key);
    wasmcp_w_array_begin(w);
    for (size_t i = 0; i < n; i++)
        wasmcp_w_string(w, names[i]);
    wasmcp_w_array_end(w);
}

/* write_permissions writes the "permissions" member of the Describe
 * document, or nothing when the module asks for nothing. */
static void write_permissions(wasmcp_writer *w) {
    if (!perms.nfs && !perms.nenv && !perms.nnet && !perms.clock && !perms.random) return;
    wasmcp_w_key(w, "permissions");
    wasmcp_w_object_begin(w);
    if (perms.nfs) {
        wasmcp_w_key(w, "fs");
        wasmcp_w_array_begin(w);
        for (size_t i = 0; i < perms.nfs; i++) {
            wasmcp_w_object_begin(w);
            wasmcp_w_key(w, "path");
            wasmcp_w_string(w, perms.fs[i].path);
            if (perms.fs[i].write) wasmcp_w_key(w, "write"), wasmcp_w_bool(w, true);
            wasmcp_w_object_end(w);
        }
        wasmcp_w_array_end(w);
    }
    write_names(w, "env", perms.env, perms.nenv);
    if (perms.clock) wasmcp_w_key(w, "clock"), wasmcp_w_bool(w, true);
    if (perms.random) wasmcp_w_key(w, "random"), wasmcp_w_bool(w, true);
    write_names(w, "net", perms.net, perms.nnet);
    wasmcp_w_object_end(w);
}

wasmcp_offers wasmcp_offers_;

static char *describe_doc; /* built once; definitions and permissions never change after init */
static size_t describe_len;

const char *wasmcp_describe_json(size_t *len) {
    if (refused) return NULL;
    if (describe_doc) {
        if (len) *len = describe_len;
        return describe_doc;
    }
    wasmcp_writer w;
    wasmcp_writer_init_(&w);
    wasmcp_w_object_begin(&w);
    wasmcp_w_key(&w, "tools");
    wasmcp_w_array_begin(&w);
    for (size_t i = 0; i < ntools; i++) {
        const wasmcp_tool *t = &tools[i];
        wasmcp_w_object_begin(&w);
        wasmcp_w_key(&w, "name");
        wasmcp_w_string(&w, t->name);
        if (t->title) wasmcp_w_key(&w, "title"), wasmcp_w_string(&w, t->title);
        if (t->description) wasmcp_w_key(&w, "description"), wasmcp_w_string(&w, t->description);
        static const char no_params[] = "{\"type\":\"object\",\"additionalProperties\":false}";
        const char *in = t->input_schema ? t->input_schema : no_params;
        wasmcp_w_key(&w, "inputSchema");
        wasmcp_w_raw(&w, in, strlen(in));
        if (t->output_schema)
            wasmcp_w_key(&w, "outputSchema"), wasmcp_w_raw(&w, t->output_schema, strlen(t->output_schema));
        if (t->annotations) wasmcp_w_key(&w, "annotations"), wasmcp_w_raw(&w, t->annotations, strlen(t->annotations));
        wasmcp_w_object_end(&w);
    }
    wasmcp_w_array_end(&w);
    if (wasmcp_offers_.describe) wasmcp_offers_.describe(&w);
    write_permissions(&w);
    wasmcp_w_object_end(&w);
    size_t n;
    const char *doc = wasmcp_writer_json(&w, &n);
    /* Copy out of call memory, which the next call frees. */
    if (doc && (describe_doc = malloc(n + 1))) {
        memcpy(describe_doc, doc, n + 1);
        describe_len = n;
    }
    if (!describe_doc) {
        wasmcp_log(WASMCP_LOG_CRITICAL, "wasmcp_describe: out of memory");
        return NULL;
    }
    if (len) *len = describe_len;
    return describe_doc;
}

const char *wasmcp_dispatch(const char *name, size_t name_len, const char *args, size_t args_len, size_t *len) {
    wasmcp_call_reset_();
    const wasmcp_tool *t = NULL;
    for (size_t i = 0; i < ntools && !t; i++)
        if (strlen(tools[i].name) == name_len && memcmp(tools[i].name, name, name_len) == 0) t = &tools[i];
    if (!t) return error_doc(wasmcp_formatf_("unknown tool \"%.*s\"", (int)name_len, name), len);
    wasmcp_json a = args_len ? wasmcp_json_parse(args, args_len) : wasmcp_json_parse("{}", 2);
    if (wasmcp_json_kind_of(a) != WASMCP_JSON_OBJECT)
        return error_doc(wasmcp_formatf_("invalid arguments for tool %s: not a JSON object", t->name), len);
    wasmcp_result res = {.structured = NULL, .is_error = false};
    wasmcp_writer_init_(&res.content);
    wasmcp_w_object_begin(&res.content);
    wasmcp_w_key(&res.content, "content");
    wasmcp_w_array_begin(&res.content);
    t->handler(a, &res);
    return finish(t->name, &res, len);
}

/* ---- the ABI exports --------------------------------------------------- */

#ifdef __wasm__

/* The region of the last wasmcp_alloc: the tool name, then the arguments. */
static char *input;
static size_t input_len;

static uint64_t pack(const char *p, size_t n) { return (uint64_t)(uintptr_t)p << 32 | (uint32_t)n; }

__attribute__((export_name("wasmcp_abi_version"))) int32_t wasmcp_export_version(void) { return WASMCP_ABI_VERSION; }

__attribute__((export_name("wasmcp_alloc"))) char *wasmcp_export_alloc(size_t size) {
    /* The host has copied the previous document out: free everything first,
     * so that a large input finds the memory the last call used. */
    wasmcp_call_reset_();
    /* The region is reused while the arguments fit and are not much
     * smaller, so that a large input does not keep its memory. */
    static size_t input_cap;
    if (!input || size > input_cap || input_cap - size > BLOCK_SIZE) {
        free(input);
        input_cap = size ? size : 1;
        input = malloc(input_cap);
        if (!input) input_cap = 0;
    }
    input_len = input ? size : 0;
    return input;
}

__attribute__((export_name("wasmcp_describe"))) uint64_t wasmcp_export_describe(void) {
    size_t n;
    const char *doc = wasmcp_describe_json(&n);
    return doc ? pack(doc, n) : 0;
}

bool wasmcp_in_input_(const char *name, size_t name_len, const char *args, size_t args_len) {
    return input && name == input && args == name + name_len && name_len <= input_len &&
           args_len <= input_len - name_len;
}

__attribute__((export_name("wasmcp_call"))) uint64_t wasmcp_export_call(const char *name, size_t name_len,
                                                                        const char *args, size_t args_len) {
    size_t n;
    const char *doc;
    if (!wasmcp_in_input_(name, name_len, args, args_len))
        doc = error_doc("wasmcp_call: name and arguments are not in the region returned by wasmcp_alloc", &n);
    else
        doc = wasmcp_dispatch(name, name_len, args, args_len, &n);
    return pack(doc, n);
}

/* The exports of resources and prompts answer through wasmcp_offers_, set
 * once a definition is registered. A host calls each only for a module
 * whose Describe document lists what it serves (ABI.md §2): before, 0 says
 * there is no document to give. */

__attribute__((export_name("wasmcp_read"))) uint64_t wasmcp_export_read(const char *uri, size_t len) {
    return wasmcp_offers_.read ? wasmcp_offers_.read(uri, len) : 0;
}

__attribute__((export_name("wasmcp_prompt"))) uint64_t wasmcp_export_prompt(const char *name, size_t name_len,
                                                                            const char *args, size_t args_len) {
    return wasmcp_offers_.prompt ? wasmcp_offers_.prompt(name, name_len, args, args_len) : 0;
}

__attribute__((export_name("wasmcp_complete"))) uint64_t wasmcp_export_complete(const char *req, size_t len) {
    return wasmcp_offers_.complete ? wasmcp_offers_.complete(req, len) : 0;
}

#endif /* __wasm__ */
