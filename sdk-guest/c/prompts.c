/*
 * prompts.c - prompts (wasmcp_prompt) and the completion of prompt
 * arguments and template variables (wasmcp_complete).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct prompt_def {
    wasmcp_prompt def;
    wasmcp_prompt_argument *args; /* a copy of def.arguments */
    size_t nargs;
} prompt_def;

static prompt_def *prompts;
static size_t nprompts;

static bool refuse(const char *name, const char *why) {
    return wasmcp_refuse_("wasmcp_add_prompt", "prompt", name, why);
}

bool wasmcp_add_prompt(const wasmcp_prompt *p) {
    if (!p || !p->name || !wasmcp_valid_name_(p->name))
        return refuse(p ? p->name : NULL, "a name must be 1 to 128 characters of [A-Za-z0-9_.-]");
    for (size_t i = 0; i < nprompts; i++)
        if (strcmp(prompts[i].def.name, p->name) == 0) return refuse(p->name, "registered twice");
    if (nprompts == WASMCP_MAX_PROMPTS) return refuse(p->name, "a module defines at most 1024 prompts");
    if (!p->handler) return refuse(p->name, "no handler");
    if (!wasmcp_json_text_is_(p->icons, WASMCP_JSON_ARRAY)) return refuse(p->name, "icons: not a JSON array");
    if (!wasmcp_json_text_is_(p->meta, WASMCP_JSON_OBJECT)) return refuse(p->name, "meta: not a JSON object");
    size_t n = 0;
    for (const wasmcp_prompt_argument *a = p->arguments; a && a->name; a++, n++) {
        if (n == WASMCP_MAX_PROMPT_ARGUMENTS) return refuse(p->name, "a prompt takes at most 64 arguments");
        if (!*a->name || strlen(a->name) > WASMCP_MAX_TOOL_NAME_LEN)
            return refuse(p->name, "an argument's name must be 1 to 128 bytes");
        for (size_t i = 0; i < n; i++)
            if (strcmp(p->arguments[i].name, a->name) == 0) return refuse(p->name, "an argument is defined twice");
    }
    wasmcp_prompt_argument *args = n ? malloc(n * sizeof *args) : NULL;
    prompt_def *grown = realloc(prompts, (nprompts + 1) * sizeof *prompts);
    if ((n && !args) || !grown) {
        free(args);
        return refuse(p->name, "out of memory");
    }
    if (n) memcpy(args, p->arguments, n * sizeof *args);
    prompts = grown;
    prompts[nprompts++] = (prompt_def){*p, args, n};
    wasmcp_offers_enable_();
    return true;
}

static void member(wasmcp_writer *w, const char *key, const char *value) {
    if (value) wasmcp_w_key(w, key), wasmcp_w_string(w, value);
}

void wasmcp_describe_prompts_(wasmcp_writer *w) {
    if (!nprompts) return;
    wasmcp_w_key(w, "prompts");
    wasmcp_w_array_begin(w);
    for (size_t i = 0; i < nprompts; i++) {
        const prompt_def *p = &prompts[i];
        wasmcp_w_object_begin(w);
        member(w, "name", p->def.name);
        member(w, "title", p->def.title);
        member(w, "description", p->def.description);
        if (p->nargs) {
            wasmcp_w_key(w, "arguments");
            wasmcp_w_array_begin(w);
            for (size_t j = 0; j < p->nargs; j++) {
                wasmcp_w_object_begin(w);
                member(w, "name", p->args[j].name);
                member(w, "title", p->args[j].title);
                member(w, "description", p->args[j].description);
                if (p->args[j].required) wasmcp_w_key(w, "required"), wasmcp_w_bool(w, true);
                wasmcp_w_object_end(w);
            }
            wasmcp_w_array_end(w);
        }
        if (p->def.icons) wasmcp_w_key(w, "icons"), wasmcp_w_raw(w, p->def.icons, strlen(p->def.icons));
        if (p->def.meta) wasmcp_w_key(w, "_meta"), wasmcp_w_raw(w, p->def.meta, strlen(p->def.meta));
        wasmcp_w_object_end(w);
    }
    wasmcp_w_array_end(w);
}

static const prompt_def *find(const char *name, size_t len) {
    for (size_t i = 0; i < nprompts; i++)
        if (strlen(prompts[i].def.name) == len && memcmp(prompts[i].def.name, name, len) == 0) return &prompts[i];
    return NULL;
}

static const wasmcp_prompt_argument *argument(const prompt_def *p, const char *name) {
    for (size_t i = 0; i < p->nargs; i++)
        if (strcmp(p->args[i].name, name) == 0) return &p->args[i];
    return NULL;
}

/* ---- getting a prompt --------------------------------------------------- */

struct wasmcp_prompt_result {
    wasmcp_writer messages; /* [ and the messages */
    const char *description;
    size_t n;
    int code;
    const char *message; /* the handler's error, or NULL */
};

/* begin starts a message of role; the caller writes its block and end
 * closes it. */
static wasmcp_writer *begin(wasmcp_prompt_result *res, wasmcp_role role) {
    wasmcp_writer *w = &res->messages;
    wasmcp_w_object_begin(w);
    wasmcp_w_key(w, "role");
    wasmcp_w_string(w, role == WASMCP_ROLE_ASSISTANT ? "assistant" : "user");
    wasmcp_w_key(w, "content");
    res->n++;
    return w;
}

static void end(wasmcp_prompt_result *res) { wasmcp_w_object_end(&res->messages); }

void wasmcp_prompt_description(wasmcp_prompt_result *res, const char *description) { res->description = description; }

void wasmcp_prompt_text(wasmcp_prompt_result *res, wasmcp_role role, const char *text) {
    wasmcp_block_text_(begin(res, role), text);
    end(res);
}

void wasmcp_prompt_textf(wasmcp_prompt_result *res, wasmcp_role role, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    wasmcp_prompt_text(res, role, wasmcp_vformat_(format, ap));
    va_end(ap);
}

void wasmcp_prompt_image(wasmcp_prompt_result *res, wasmcp_role role, const void *data, size_t len,
                         const char *mime_type) {
    wasmcp_block_media_(begin(res, role), "image", wasmcp_base64(data, len), mime_type);
    end(res);
}

void wasmcp_prompt_audio(wasmcp_prompt_result *res, wasmcp_role role, const void *data, size_t len,
                         const char *mime_type) {
    wasmcp_block_media_(begin(res, role), "audio", wasmcp_base64(data, len), mime_type);
    end(res);
}

void wasmcp_prompt_resource_link(wasmcp_prompt_result *res, wasmcp_role role, const wasmcp_resource_link *link) {
    wasmcp_block_resource_link_(begin(res, role), link);
    end(res);
}

void wasmcp_prompt_embedded_text(wasmcp_prompt_result *res, wasmcp_role role, const char *uri, const char *mime_type,
                                 const char *text) {
    wasmcp_block_embedded_(begin(res, role), uri, mime_type, "text", text);
    end(res);
}

void wasmcp_prompt_embedded_blob(wasmcp_prompt_result *res, wasmcp_role role, const char *uri, const char *mime_type,
                                 const void *data, size_t len) {
    wasmcp_block_embedded_(begin(res, role), uri, mime_type, "blob", wasmcp_base64(data, len));
    end(res);
}

void wasmcp_prompt_content(wasmcp_prompt_result *res, wasmcp_role role, const char *json) {
    wasmcp_block_json_(begin(res, role), json);
    end(res);
}

void wasmcp_prompt_error(wasmcp_prompt_result *res, int code, const char *msg) {
    if (res->message) return;
    res->code = code;
    res->message = msg ? msg : "";
}

void wasmcp_prompt_errorf(wasmcp_prompt_result *res, int code, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    wasmcp_prompt_error(res, code, wasmcp_vformat_(format, ap));
    va_end(ap);
}

static const char *invalid_params(const char *msg, size_t *len) {
    return wasmcp_error_doc_(WASMCP_ERROR_INVALID_PARAMS, msg, len);
}

const char *wasmcp_dispatch_prompt(const char *name, size_t name_len, const char *args, size_t args_len, size_t *len) {
    wasmcp_call_reset_();
    const prompt_def *p = find(name, name_len);
    if (!p) return invalid_params(wasmcp_formatf_("unknown prompt \"%.*s\"", (int)name_len, name), len);
    /* The host checked the arguments already; a module run without one
     * (its unit tests) gets the same answers. */
    wasmcp_json a = args_len ? wasmcp_json_parse(args, args_len) : wasmcp_json_parse("{}", 2);
    if (wasmcp_json_kind_of(a) != WASMCP_JSON_OBJECT)
        return invalid_params(wasmcp_formatf_("prompt %s: the arguments are not a JSON object", p->def.name), len);
    const char *key;
    wasmcp_json v;
    for (size_t i = 0; wasmcp_json_member(a, i, &key, &v); i++) {
        if (!argument(p, key))
            return invalid_params(wasmcp_formatf_("prompt %s has no argument \"%s\"", p->def.name, key), len);
        if (wasmcp_json_kind_of(v) != WASMCP_JSON_STRING)
            return invalid_params(wasmcp_formatf_("prompt %s: argument \"%s\" is not a string", p->def.name, key), len);
    }
    for (size_t i = 0; i < p->nargs; i++)
        if (p->args[i].required && !wasmcp_json_get(a, p->args[i].name).ptr)
            return invalid_params(
                wasmcp_formatf_("prompt %s: missing required argument \"%s\"", p->def.name, p->args[i].name), len);
    wasmcp_prompt_result res = {.n = 0};
    wasmcp_writer_init_(&res.messages);
    wasmcp_w_array_begin(&res.messages);
    p->def.handler(a, &res);
    if (res.message) return wasmcp_error_doc_(res.code, res.message, len);
    wasmcp_w_array_end(&res.messages);
    size_t mlen = 0;
    const char *messages = wasmcp_writer_json(&res.messages, &mlen);
    const char *why = res.messages.error ? res.messages.error
                      : !messages        ? "a message was left open"
                      : res.n            ? NULL
                                         : "no messages";
    if (why)
        return wasmcp_error_doc_(WASMCP_ERROR_INTERNAL,
                                 wasmcp_formatf_("prompt %s returned invalid messages: %s", p->def.name, why), len);
    wasmcp_writer w;
    wasmcp_writer_init_(&w);
    wasmcp_w_object_begin(&w);
    member(&w, "description", res.description);
    wasmcp_w_key(&w, "messages");
    wasmcp_w_value_(&w, messages, mlen);
    wasmcp_w_object_end(&w);
    const char *doc = wasmcp_writer_json(&w, len);
    return doc ? doc : wasmcp_error_doc_(WASMCP_ERROR_INTERNAL, "out of memory", len);
}

/* ---- completion ---------------------------------------------------------- */

struct wasmcp_completion {
    wasmcp_writer values; /* [ and the values */
    size_t n;             /* values added, sent or not */
    long long total;      /* -1: not said */
    int code;
    const char *message;
};

void wasmcp_complete_value(wasmcp_completion *c, const char *value) {
    if (c->n++ < WASMCP_MAX_COMPLETION_VALUES) wasmcp_w_string(&c->values, value ? value : "");
}

void wasmcp_complete_total(wasmcp_completion *c, long long total) { c->total = total; }

void wasmcp_complete_error(wasmcp_completion *c, int code, const char *msg) {
    if (c->message) return;
    c->code = code;
    c->message = msg ? msg : "";
}

const char *wasmcp_dispatch_complete(const char *request, size_t request_len, size_t *len) {
    wasmcp_call_reset_();
    wasmcp_json r = wasmcp_json_parse(request, request_len), ref = wasmcp_json_get(r, "ref");
    wasmcp_json arg = wasmcp_json_get(r, "argument");
    const char *type = wasmcp_get_string(ref, "type", ""), *name = wasmcp_get_string(arg, "name", NULL);
    if (wasmcp_json_kind_of(r) != WASMCP_JSON_OBJECT || !name)
        return invalid_params("completion: the request has no ref and argument", len);
    wasmcp_json context = wasmcp_json_get(wasmcp_json_get(r, "context"), "arguments");
    if (wasmcp_json_kind_of(context) != WASMCP_JSON_OBJECT) context = wasmcp_json_parse("{}", 2);
    wasmcp_complete_handler handler = NULL;
    if (strcmp(type, "ref/prompt") == 0) {
        const char *pname = wasmcp_get_string(ref, "name", "");
        const prompt_def *p = find(pname, strlen(pname));
        if (p && argument(p, name)) handler = p->def.complete;
    } else if (strcmp(type, "ref/resource") == 0) {
        handler = wasmcp_template_completer_(wasmcp_get_string(ref, "uri", ""), name);
    }
    wasmcp_completion c = {.total = -1};
    wasmcp_writer_init_(&c.values);
    wasmcp_w_array_begin(&c.values);
    if (handler) handler(name, wasmcp_get_string(arg, "value", ""), context, &c);
    if (c.message) return wasmcp_error_doc_(c.code, c.message, len);
    wasmcp_w_array_end(&c.values);
    size_t sent = c.n < WASMCP_MAX_COMPLETION_VALUES ? c.n : WASMCP_MAX_COMPLETION_VALUES, vlen = 0;
    const char *values = wasmcp_writer_json(&c.values, &vlen);
    wasmcp_writer w;
    wasmcp_writer_init_(&w);
    wasmcp_w_object_begin(&w);
    wasmcp_w_key(&w, "values");
    if (values) wasmcp_w_value_(&w, values, vlen);
    if (c.total >= 0) wasmcp_w_key(&w, "total"), wasmcp_w_int(&w, c.total);
    if (c.n > sent || (c.total >= 0 && (size_t)c.total > sent)) wasmcp_w_key(&w, "hasMore"), wasmcp_w_bool(&w, true);
    wasmcp_w_object_end(&w);
    const char *doc = values ? wasmcp_writer_json(&w, len) : NULL;
    return doc ? doc : wasmcp_error_doc_(WASMCP_ERROR_INTERNAL, "out of memory", len);
}
