/*
 * resources.c - resources and resource templates: their definitions, the
 * Describe members that list them, and reads (wasmcp_read).
 *
 * Definitions are checked as package abi checks them (abi/resources.go),
 * so that a module the host would refuse fails at once, saying why, in the
 * SDK's words.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct template_def {
    wasmcp_resource_template def;
    wasmcp_uritemplate *parsed;
    size_t prefix; /* the length of the text before the first expression */
} template_def;

static wasmcp_resource *resources;
static size_t nresources;
static template_def *templates;
static size_t ntemplates;

/* ---- checks, as abi/resources.go makes them --------------------------- */

static bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* uri_problem checks an absolute URI or, with template, a URI template
 * whose text before its first expression holds the scheme. */
static const char *uri_problem(const char *uri, bool template) {
    size_t n = strlen(uri);
    if (!n) return "the URI is empty";
    if (n > WASMCP_MAX_URI_LEN) return "the URI is longer than 2048 bytes";
    for (size_t i = 0; i < n; i++)
        if (uri[i] <= ' ' || uri[i] > '~') return "the URI holds a space, a control or a non-ASCII byte";
    size_t literal = template ? strcspn(uri, "{") : n, i = 0;
    if (is_letter(uri[0]))
        for (i = 1; i < literal && (is_letter(uri[i]) || (uri[i] >= '0' && uri[i] <= '9') || strchr("+.-", uri[i]));)
            i++;
    if (i == 0 || i == literal || uri[i] != ':')
        return template ? "the text before the first expression must hold a scheme and ':'"
                        : "not an absolute URI (scheme:...)";
    if (!template && strchr(uri, '#')) return "the URI has a fragment (#)";
    return NULL;
}

static bool is_token(const char *s, size_t n) {
    if (!n) return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] <= ' ' || s[i] > '~' || strchr("()<>@,;:\\\"/[]?={}", s[i])) return false;
    return true;
}

/* media_type reports whether s is type/subtype, with optional parameters
 * after ';'. */
static bool media_type(const char *s) {
    size_t end = strcspn(s, ";"), start = 0;
    while (start < end && s[start] == ' ')
        start++;
    while (end > start && s[end - 1] == ' ')
        end--;
    const char *slash = memchr(s + start, '/', end - start);
    return slash && is_token(s + start, (size_t)(slash - s - start)) &&
           is_token(slash + 1, (size_t)(s + end - slash - 1));
}

bool wasmcp_json_text_is_(const char *text, wasmcp_json_kind kind) {
    return !text || wasmcp_json_kind_of(wasmcp_json_parse(text, strlen(text))) == kind;
}

/* common_problem checks what resources and templates share. */
static const char *common_problem(const char *name, const char *mime_type, const char *annotations, const char *icons,
                                  const char *meta) {
    if (!name || !*name || strlen(name) > 256) return "a name must be 1 to 256 bytes";
    if (mime_type && !media_type(mime_type)) return "the MIME type is not type/subtype";
    if (!wasmcp_json_text_is_(annotations, WASMCP_JSON_OBJECT)) return "annotations: not a JSON object";
    if (!wasmcp_json_text_is_(icons, WASMCP_JSON_ARRAY)) return "icons: not a JSON array";
    if (!wasmcp_json_text_is_(meta, WASMCP_JSON_OBJECT)) return "meta: not a JSON object";
    return NULL;
}

static const char app_mime_type[] = "text/html;profile=mcp-app";

bool wasmcp_add_resource(const wasmcp_resource *r) {
    static const char fn[] = "wasmcp_add_resource";
    const char *why = NULL, *uri = r && r->uri ? r->uri : "";
    if (!r || !r->uri || (why = uri_problem(r->uri, false)))
        return wasmcp_refuse_(fn, "resource", uri, why ? why : "no URI");
    if ((why = common_problem(r->name, r->mime_type, r->annotations, r->icons, r->meta)))
        return wasmcp_refuse_(fn, "resource", uri, why);
    if (r->size < 0) return wasmcp_refuse_(fn, "resource", uri, "the size is negative");
    if ((uri[0] | 0x20) == 'u' && (uri[1] | 0x20) == 'i' && uri[2] == ':' &&
        (!r->mime_type || strcmp(r->mime_type, app_mime_type) != 0))
        return wasmcp_refuse_(fn, "resource", uri, "a ui:// view must have the MIME type text/html;profile=mcp-app");
    if (!r->handler && !r->text) return wasmcp_refuse_(fn, "resource", uri, "neither a handler nor a text");
    for (size_t i = 0; i < nresources; i++)
        if (strcmp(resources[i].uri, uri) == 0) return wasmcp_refuse_(fn, "resource", uri, "registered twice");
    if (nresources == WASMCP_MAX_RESOURCES)
        return wasmcp_refuse_(fn, "resource", uri, "a module defines at most 1024 resources");
    wasmcp_resource *grown = realloc(resources, (nresources + 1) * sizeof *resources);
    if (!grown) return wasmcp_refuse_(fn, "resource", uri, "out of memory");
    resources = grown;
    resources[nresources++] = *r;
    wasmcp_offers_enable_();
    return true;
}

bool wasmcp_add_resource_template(const wasmcp_resource_template *t) {
    static const char fn[] = "wasmcp_add_resource_template";
    const char *why = NULL, *text = t && t->uri_template ? t->uri_template : "";
    if (!t || !t->uri_template || (why = uri_problem(text, true)))
        return wasmcp_refuse_(fn, "template", text, why ? why : "no URI template");
    if ((why = common_problem(t->name, t->mime_type, t->annotations, t->icons, t->meta)))
        return wasmcp_refuse_(fn, "template", text, why);
    if (!t->handler) return wasmcp_refuse_(fn, "template", text, "no handler");
    for (size_t i = 0; i < ntemplates; i++)
        if (strcmp(templates[i].def.uri_template, text) == 0)
            return wasmcp_refuse_(fn, "template", text, "registered twice");
    if (ntemplates == WASMCP_MAX_RESOURCE_TEMPLATES)
        return wasmcp_refuse_(fn, "template", text, "a module defines at most 256 templates");
    wasmcp_uritemplate *parsed = wasmcp_uritemplate_parse_(text, &why);
    if (!parsed) return wasmcp_refuse_(fn, "template", text, why);
    template_def *grown = realloc(templates, (ntemplates + 1) * sizeof *templates);
    if (!grown) return wasmcp_refuse_(fn, "template", text, "out of memory");
    templates = grown;
    templates[ntemplates++] = (template_def){*t, parsed, strcspn(text, "{")};
    wasmcp_offers_enable_();
    return true;
}

wasmcp_complete_handler wasmcp_template_completer_(const char *uri_template, const char *argument) {
    for (size_t i = 0; i < ntemplates; i++)
        if (strcmp(templates[i].def.uri_template, uri_template) == 0)
            return wasmcp_uritemplate_has_var_(templates[i].parsed, argument) ? templates[i].def.complete : NULL;
    return NULL;
}

/* ---- the Describe members --------------------------------------------- */

static void member(wasmcp_writer *w, const char *key, const char *value) {
    if (value) wasmcp_w_key(w, key), wasmcp_w_string(w, value);
}

static void raw_member(wasmcp_writer *w, const char *key, const char *json) {
    if (json) wasmcp_w_key(w, key), wasmcp_w_raw(w, json, strlen(json));
}

/* common writes what resources and templates share after the URI. */
static void common(wasmcp_writer *w, const char *name, const char *title, const char *description,
                   const char *mime_type) {
    member(w, "name", name);
    member(w, "title", title);
    member(w, "description", description);
    member(w, "mimeType", mime_type);
}

static void extras(wasmcp_writer *w, const char *annotations, const char *icons, const char *meta) {
    raw_member(w, "annotations", annotations);
    raw_member(w, "icons", icons);
    raw_member(w, "_meta", meta);
}

static void describe_offers(wasmcp_writer *w) {
    if (nresources) {
        wasmcp_w_key(w, "resources");
        wasmcp_w_array_begin(w);
        for (size_t i = 0; i < nresources; i++) {
            const wasmcp_resource *r = &resources[i];
            wasmcp_w_object_begin(w);
            member(w, "uri", r->uri);
            common(w, r->name, r->title, r->description, r->mime_type);
            if (r->size) wasmcp_w_key(w, "size"), wasmcp_w_int(w, r->size);
            extras(w, r->annotations, r->icons, r->meta);
            wasmcp_w_object_end(w);
        }
        wasmcp_w_array_end(w);
    }
    if (ntemplates) {
        wasmcp_w_key(w, "resourceTemplates");
        wasmcp_w_array_begin(w);
        for (size_t i = 0; i < ntemplates; i++) {
            const wasmcp_resource_template *t = &templates[i].def;
            wasmcp_w_object_begin(w);
            member(w, "uriTemplate", t->uri_template);
            common(w, t->name, t->title, t->description, t->mime_type);
            extras(w, t->annotations, t->icons, t->meta);
            wasmcp_w_object_end(w);
        }
        wasmcp_w_array_end(w);
    }
    wasmcp_describe_prompts_(w);
}

#ifdef __wasm__
static uint64_t pack(const char *doc, size_t n) { return (uint64_t)(uintptr_t)doc << 32 | (uint32_t)n; }

static const char outside[] = ": the input is not in the region returned by wasmcp_alloc";

static uint64_t export_read(const char *uri, size_t len) {
    size_t n;
    const char *doc = wasmcp_in_input_(uri, len, uri + len, 0)
                          ? wasmcp_dispatch_read(uri, len, &n)
                          : wasmcp_error_doc_(WASMCP_ERROR_INTERNAL, wasmcp_formatf_("wasmcp_read%s", outside), &n);
    return pack(doc, n);
}

static uint64_t export_prompt(const char *name, size_t name_len, const char *args, size_t args_len) {
    size_t n;
    const char *doc = wasmcp_in_input_(name, name_len, args, args_len)
                          ? wasmcp_dispatch_prompt(name, name_len, args, args_len, &n)
                          : wasmcp_error_doc_(WASMCP_ERROR_INTERNAL, wasmcp_formatf_("wasmcp_prompt%s", outside), &n);
    return pack(doc, n);
}

static uint64_t export_complete(const char *req, size_t len) {
    size_t n;
    const char *doc = wasmcp_in_input_(req, len, req + len, 0)
                          ? wasmcp_dispatch_complete(req, len, &n)
                          : wasmcp_error_doc_(WASMCP_ERROR_INTERNAL, wasmcp_formatf_("wasmcp_complete%s", outside), &n);
    return pack(doc, n);
}
#endif

void wasmcp_offers_enable_(void) {
    wasmcp_offers_.describe = describe_offers;
#ifdef __wasm__
    wasmcp_offers_.read = export_read;
    wasmcp_offers_.prompt = export_prompt;
    wasmcp_offers_.complete = export_complete;
#endif
}

/* ---- reading ------------------------------------------------------------ */

struct wasmcp_read_result {
    wasmcp_writer doc; /* {"contents":[ and the items */
    const char *uri, *mime_type;
    size_t items;
    int code;
    const char *message; /* the handler's error, or NULL */
};

static void item(wasmcp_read_result *res, const char *uri, const char *mime_type, const char *key, const char *value) {
    wasmcp_writer *w = &res->doc;
    if (!uri || !*uri || !value) {
        wasmcp_writer_fail_(w, value ? "an item needs a uri" : "an item needs its text or data");
        return;
    }
    wasmcp_w_object_begin(w);
    member(w, "uri", uri);
    member(w, "mimeType", mime_type);
    member(w, key, value);
    wasmcp_w_object_end(w);
    res->items++;
}

void wasmcp_read_text(wasmcp_read_result *res, const char *text) { item(res, res->uri, res->mime_type, "text", text); }

void wasmcp_read_textf(wasmcp_read_result *res, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    wasmcp_read_text(res, wasmcp_vformat_(format, ap));
    va_end(ap);
}

void wasmcp_read_blob(wasmcp_read_result *res, const void *data, size_t len) {
    item(res, res->uri, res->mime_type, "blob", wasmcp_base64(data, len));
}

void wasmcp_read_contents_text(wasmcp_read_result *res, const char *uri, const char *mime_type, const char *text) {
    item(res, uri, mime_type, "text", text);
}

void wasmcp_read_contents_blob(wasmcp_read_result *res, const char *uri, const char *mime_type, const void *data,
                               size_t len) {
    item(res, uri, mime_type, "blob", wasmcp_base64(data, len));
}

void wasmcp_read_error(wasmcp_read_result *res, int code, const char *msg) {
    if (res->message) return;
    res->code = code;
    res->message = msg ? msg : "";
}

void wasmcp_read_errorf(wasmcp_read_result *res, int code, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    wasmcp_read_error(res, code, wasmcp_vformat_(format, ap));
    va_end(ap);
}

const char *wasmcp_dispatch_read(const char *uri, size_t uri_len, size_t *len) {
    wasmcp_call_reset_();
    char *u = wasmcp_call_memory(uri_len + 1);
    if (!u) return wasmcp_error_doc_(WASMCP_ERROR_INTERNAL, "out of memory", len);
    memcpy(u, uri, uri_len);
    u[uri_len] = 0;
    wasmcp_read_result res = {.uri = u};
    wasmcp_writer *vars = wasmcp_writer_new();
    if (!vars) return wasmcp_error_doc_(WASMCP_ERROR_INTERNAL, "out of memory", len);
    wasmcp_read_handler handler = NULL;
    const char *text = NULL;
    const wasmcp_resource *r = NULL;
    for (size_t i = 0; i < nresources && !r; i++)
        if (strlen(resources[i].uri) == uri_len && memcmp(resources[i].uri, uri, uri_len) == 0) r = &resources[i];
    if (r) {
        handler = r->handler, text = r->text, res.mime_type = r->mime_type;
        wasmcp_w_raw(vars, "{}", 2);
    }
    /* A URI no resource names goes to the template that matches it with the
     * longest text before its first expression, as the host routes it
     * between plugins; between two as long, to the first registered. */
    const template_def *best = NULL;
    for (size_t i = 0; i < ntemplates && !r; i++) {
        const template_def *t = &templates[i];
        if ((best && t->prefix <= best->prefix) || t->prefix > uri_len || memcmp(t->def.uri_template, uri, t->prefix))
            continue;
        wasmcp_writer *v = wasmcp_writer_new();
        if (v && wasmcp_uritemplate_match_(t->parsed, u, uri_len, v)) best = t, vars = v;
    }
    if (best) handler = best->def.handler, res.mime_type = best->def.mime_type;
    if (!handler && !text)
        return wasmcp_error_doc_(WASMCP_ERROR_NOT_FOUND, wasmcp_formatf_("resource %s not found", u), len);
    wasmcp_writer_init_(&res.doc);
    wasmcp_w_object_begin(&res.doc);
    wasmcp_w_key(&res.doc, "contents");
    wasmcp_w_array_begin(&res.doc);
    if (handler) {
        size_t n = 0;
        const char *v = wasmcp_writer_json(vars, &n);
        handler(u, v ? wasmcp_json_parse(v, n) : wasmcp_json_parse("{}", 2), &res);
    } else {
        wasmcp_read_text(&res, text);
    }
    if (res.message) return wasmcp_error_doc_(res.code, res.message, len);
    wasmcp_w_array_end(&res.doc);
    wasmcp_w_object_end(&res.doc);
    const char *why = res.doc.error ? res.doc.error : res.items ? NULL : "no contents";
    const char *doc = why ? NULL : wasmcp_writer_json(&res.doc, len);
    if (doc) return doc;
    return wasmcp_error_doc_(WASMCP_ERROR_INTERNAL,
                             wasmcp_formatf_("resource %s: invalid contents: %s", u, why ? why : "out of memory"), len);
}
