/*
 * internal.h - what the SDK's source files share and tool authors do not
 * need. Not installed with wasmcp.h.
 */
#ifndef WASMCP_INTERNAL_H
#define WASMCP_INTERNAL_H

#include "wasmcp.h"

/* wasmcp_call_realloc resizes a block from wasmcp_call_memory (p may be NULL). */
void *wasmcp_call_realloc_(void *p, size_t n);

/* wasmcp_call_reset_ frees all call memory. */
void wasmcp_call_reset_(void);

/* wasmcp_writer_init_ makes *w an empty writer. */
void wasmcp_writer_init_(wasmcp_writer *w);

/* wasmcp_writer_fail_ records err as the writer's first error. */
void wasmcp_writer_fail_(wasmcp_writer *w, const char *err);

/* wasmcp_w_put_ appends s[0:n] to w verbatim. */
void wasmcp_w_put_(wasmcp_writer *w, const char *s, size_t n);

/* wasmcp_w_value_ writes json[0:n], which must be one JSON value, as the
 * next value of w, without parsing it as wasmcp_w_raw does. */
void wasmcp_w_value_(wasmcp_writer *w, const char *json, size_t n);

/* wasmcp_vformat_ and wasmcp_formatf_ format into call memory. */
const char *wasmcp_vformat_(const char *format, va_list ap);
const char *wasmcp_formatf_(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* wasmcp_valid_name_ reports whether name is a valid tool (or prompt) name. */
bool wasmcp_valid_name_(const char *name);

/* wasmcp_refuse_ records that a definition was refused, so that the module
 * describes nothing, and logs why, naming function, the kind of definition
 * and its name. It returns false. */
bool wasmcp_refuse_(const char *function, const char *kind, const char *name, const char *why);

/* Content blocks (wasmcp.c), written to w: a result's or a prompt
 * message's. A block a caller gets wrong fails w. */
void wasmcp_block_text_(wasmcp_writer *w, const char *text);
void wasmcp_block_media_(wasmcp_writer *w, const char *type, const char *base64, const char *mime_type);
void wasmcp_block_resource_link_(wasmcp_writer *w, const wasmcp_resource_link *link);
void wasmcp_block_embedded_(wasmcp_writer *w, const char *uri, const char *mime_type, const char *key,
                            const char *value);
void wasmcp_block_json_(wasmcp_writer *w, const char *json);

/* wasmcp_json_text_is_ reports whether text, when not NULL, is one JSON
 * value of kind (resources.c). */
bool wasmcp_json_text_is_(const char *text, wasmcp_json_kind kind);

/* wasmcp_error_doc_ is the document of a refused read, prompt or
 * completion: {"error":{"code":code,"message":msg}}. */
const char *wasmcp_error_doc_(int code, const char *msg, size_t *len);

/* What resources and prompts add to the ABI: the Describe members after
 * "tools" and, in WebAssembly, the work of the exports wasmcp_read,
 * wasmcp_prompt and wasmcp_complete. The pointers stay NULL until a
 * resource, template or prompt is registered (wasmcp_offers_enable_), so
 * that a module of tools alone links none of that code. */
typedef struct wasmcp_offers {
    void (*describe)(wasmcp_writer *w);
    uint64_t (*read)(const char *uri, size_t uri_len);
    uint64_t (*prompt)(const char *name, size_t name_len, const char *args, size_t args_len);
    uint64_t (*complete)(const char *request, size_t request_len);
} wasmcp_offers;

extern wasmcp_offers wasmcp_offers_;

#ifdef __wasm__
/* wasmcp_in_input_ reports whether name and args, which follow it, lie in
 * the region of the last wasmcp_alloc, the only one known to be ours
 * (ABI.md §3). An export of one input passes it as name, args_len 0. */
bool wasmcp_in_input_(const char *name, size_t name_len, const char *args, size_t args_len);
#endif

/* wasmcp_offers_enable_ sets wasmcp_offers_. */
void wasmcp_offers_enable_(void);

/* wasmcp_describe_prompts_ writes the "prompts" member (prompts.c). */
void wasmcp_describe_prompts_(wasmcp_writer *w);

/* wasmcp_template_completer_ returns the completion handler of the
 * template whose text is uri_template and that has the variable argument,
 * or NULL (resources.c). */
wasmcp_complete_handler wasmcp_template_completer_(const char *uri_template, const char *argument);

/* A parsed RFC 6570 URI template (uritemplate.c). */
typedef struct wasmcp_uritemplate wasmcp_uritemplate;

/* wasmcp_uritemplate_parse_ parses text, which must outlive the result,
 * into malloc'd memory; NULL with *why set when text is not a template
 * the SDK can match. */
wasmcp_uritemplate *wasmcp_uritemplate_parse_(const char *text, const char **why);

/* wasmcp_uritemplate_match_ reports whether uri[0:len] is an expansion of
 * t, and writes its variables to vars as an object of decoded strings. */
bool wasmcp_uritemplate_match_(const wasmcp_uritemplate *t, const char *uri, size_t len, wasmcp_writer *vars);

/* wasmcp_uritemplate_has_var_ reports whether t has the variable name. */
bool wasmcp_uritemplate_has_var_(const wasmcp_uritemplate *t, const char *name);

#ifndef __wasm__
/* Natively (the SDK's unit tests), wasmcp_http hands its request document to
 * this function instead of the host: it returns the status and points *reply
 * at the reply, which wasmcp_http copies. While it is NULL, every request
 * fails, saying it needs a host. */
extern uint32_t (*wasmcp_native_http_)(const char *req, size_t len, const char **reply, size_t *reply_len);
#endif

#endif /* WASMCP_INTERNAL_H */
