/*
 * wasmcp.h - the C SDK for writing wasmcp tools.
 *
 * A tool module is one C file that registers its tools from a constructor and
 * is linked with the SDK's sources (wasmcp.c, read.c, write.c, http.c for
 * wasmcp_http, resources.c, prompts.c and uritemplate.c for resources and
 * prompts) into a WASI reactor:
 *
 *     #include "wasmcp.h"
 *
 *     static void echo(wasmcp_json args, wasmcp_result *res) {
 *         wasmcp_result_textf(res, "Echo: %s", wasmcp_get_string(args, "message", ""));
 *     }
 *
 *     WASMCP_INIT {
 *         wasmcp_add_tool(&(wasmcp_tool){
 *             .name = "echo",
 *             .description = "Echoes back the input message.",
 *             .input_schema = "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}},"
 *                             "\"required\":[\"message\"]}",
 *             .handler = echo,
 *         });
 *     }
 *
 *     clang --target=wasm32-wasi -mexec-model=reactor --sysroot=/usr -Os \
 *         -Wl,--strip-all -o echo.wasm echo.c wasmcp.c read.c write.c http.c \
 *         resources.c prompts.c uritemplate.c
 *
 * The SDK implements the exports and imports of the wasmcp guest ABI
 * (abi/ABI.md): a tool author never sees a pointer the host passed or the
 * packing of a result. It also provides what C lacks for the job: a reader
 * for the arguments JSON, a JSON writer, base64 for images, logging, the
 * module's request for permissions, HTTP requests through the host, and
 * the matching of URIs to RFC 6570 templates for resource templates.
 *
 * Memory. Everything the SDK hands a handler (decoded strings, writers, the
 * result) lives until the handler's call is over; the SDK frees it when the
 * host starts the next call. Handlers never free SDK memory.
 *
 * Natively (not __wasm__), the same files compile for unit tests: log lines go
 * to stderr, wasmcp_dispatch / wasmcp_describe_json run the tools, and
 * wasmcp_http fails (there is no host to ask).
 */
#ifndef WASMCP_H
#define WASMCP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this SDK speaks; wasmcp_abi_version returns it. */
#define WASMCP_ABI_VERSION 1

/* Limits of ABI v1, the same numbers as package abi. */
#define WASMCP_MAX_TOOL_NAME_LEN      128
#define WASMCP_MAX_TOOLS              1024
#define WASMCP_MAX_LOG_SIZE           (64 << 10)
#define WASMCP_MAX_RESOURCES          1024
#define WASMCP_MAX_RESOURCE_TEMPLATES 256
#define WASMCP_MAX_PROMPTS            1024
#define WASMCP_MAX_URI_LEN            2048
#define WASMCP_MAX_PROMPT_ARGUMENTS   64
#define WASMCP_MAX_COMPLETION_VALUES  100

/* Runs the block that follows once per instance, before the host asks for
 * the definitions: the place to call wasmcp_add_tool, wasmcp_add_resource,
 * wasmcp_add_resource_template and wasmcp_add_prompt. */
#define WASMCP_INIT __attribute__((constructor)) static void wasmcp_init_tools_(void)

/* ------------------------------------------------------------------------
 * Reading JSON
 * ------------------------------------------------------------------------ */

/* A view of one JSON value inside a larger text: no copy, no allocation. A
 * missing value has ptr == NULL. The arguments a handler receives are an
 * object the host has already validated against the tool's input schema, so
 * a field the schema requires is there with the type it declares. */
typedef struct wasmcp_json {
    const char *ptr;
    size_t len;
} wasmcp_json;

/* What kind of value a wasmcp_json is. WASMCP_JSON_NONE: missing or malformed. */
typedef enum wasmcp_json_kind {
    WASMCP_JSON_NONE,
    WASMCP_JSON_NULL,
    WASMCP_JSON_BOOL,
    WASMCP_JSON_NUMBER,
    WASMCP_JSON_STRING,
    WASMCP_JSON_ARRAY,
    WASMCP_JSON_OBJECT
} wasmcp_json_kind;

/* wasmcp_json_parse returns a view of the single JSON value text[0:len]
 * (surrounding white space allowed), or a missing value when it is not
 * exactly one valid JSON value. */
wasmcp_json wasmcp_json_parse(const char *text, size_t len);

/* wasmcp_json_kind_of reports the kind of v from its first byte. */
wasmcp_json_kind wasmcp_json_kind_of(wasmcp_json v);

/* wasmcp_json_get returns the value of member key of object obj, or a
 * missing value. With duplicate keys, the last one wins (as in Go's
 * encoding/json and JavaScript). Keys are compared after unescaping. */
wasmcp_json wasmcp_json_get(wasmcp_json obj, const char *key);

/* wasmcp_json_count returns the number of elements of an array or members
 * of an object, 0 for anything else. */
size_t wasmcp_json_count(wasmcp_json v);

/* wasmcp_json_index returns element i of array arr, or a missing value. */
wasmcp_json wasmcp_json_index(wasmcp_json arr, size_t i);

/* wasmcp_json_member returns member i of object obj: its key (the decoded
 * string, call memory) in *key and its value. False past the end. */
bool wasmcp_json_member(wasmcp_json obj, size_t i, const char **key, wasmcp_json *value);

/* wasmcp_json_string decodes a JSON string into call memory (NUL-terminated;
 * *len, when not NULL, gets the length, which counts any \u0000 inside).
 * NULL when v is not a string. */
const char *wasmcp_json_string(wasmcp_json v, size_t *len);

/* wasmcp_json_number stores the value of a JSON number in *out. */
bool wasmcp_json_number(wasmcp_json v, double *out);

/* wasmcp_json_bool stores the value of true or false in *out. */
bool wasmcp_json_bool(wasmcp_json v, bool *out);

/* Shortcuts for a member of an object: the value, or fallback when the
 * member is missing or of another type. */
const char *wasmcp_get_string(wasmcp_json obj, const char *key, const char *fallback);
double wasmcp_get_number(wasmcp_json obj, const char *key, double fallback);
bool wasmcp_get_bool(wasmcp_json obj, const char *key, bool fallback);

/* ------------------------------------------------------------------------
 * Writing JSON
 * ------------------------------------------------------------------------ */

/* A JSON writer. It places commas and colons itself: write a key, then its
 * value; open, fill and close objects and arrays. It never stops on an
 * error: it records it, and the SDK turns a failed writer into a tool error
 * naming the problem. Writers come from the SDK (wasmcp_result_structured,
 * wasmcp_writer_new); the fields are private. */
typedef struct wasmcp_writer {
    char *buf;
    size_t len, cap;
    uint64_t open_mask;   /* bit d: the container at depth d has an item */
    uint64_t object_mask; /* bit d: the container at depth d is an object */
    int depth;
    bool after_key;
    const char *error; /* first error, or NULL */
} wasmcp_writer;

/* wasmcp_writer_new returns an empty writer in call memory. */
wasmcp_writer *wasmcp_writer_new(void);
void wasmcp_w_object_begin(wasmcp_writer *w);
void wasmcp_w_object_end(wasmcp_writer *w);
void wasmcp_w_array_begin(wasmcp_writer *w);
void wasmcp_w_array_end(wasmcp_writer *w);
void wasmcp_w_key(wasmcp_writer *w, const char *key);
void wasmcp_w_string(wasmcp_writer *w, const char *s);
/* wasmcp_w_string_n writes s[0:n], which may contain NUL bytes. Invalid
 * UTF-8 becomes U+FFFD, as Go's encoding/json does. */
void wasmcp_w_string_n(wasmcp_writer *w, const char *s, size_t n);
/* wasmcp_w_number writes a finite number the way Go's encoding/json and
 * JavaScript do (12, 0.5, 1e+21); NaN and infinities are an error. */
void wasmcp_w_number(wasmcp_writer *w, double v);
void wasmcp_w_int(wasmcp_writer *w, long long v);
void wasmcp_w_bool(wasmcp_writer *w, bool v);
void wasmcp_w_null(wasmcp_writer *w);
/* wasmcp_w_raw writes json[0:n], which must be one valid JSON value. */
void wasmcp_w_raw(wasmcp_writer *w, const char *json, size_t n);
/* wasmcp_writer_json returns the text written so far (NUL-terminated) and
 * its length in *len; NULL when the writer failed or a container is open. */
const char *wasmcp_writer_json(const wasmcp_writer *w, size_t *len);

/* wasmcp_format_number writes v as wasmcp_w_number would into buf, NUL-
 * terminated, and returns buf ("null" for NaN and infinities). */
char *wasmcp_format_number(double v, char buf[32]);

/* wasmcp_format_decimal formats v for text, in call memory: the shortest
 * digits that read back as v, never in exponent notation (12, 0.5,
 * 1000000000000000000000, 0.00000015), as Go's strconv.FormatFloat(v, 'f',
 * -1, 64) does. */
const char *wasmcp_format_decimal(double v);

/* wasmcp_base64 encodes data[0:n] (standard alphabet, padded) into call
 * memory. */
const char *wasmcp_base64(const void *data, size_t n);

/* ------------------------------------------------------------------------
 * Results
 * ------------------------------------------------------------------------ */

/* The result a handler fills. Without any content or structured content
 * the host returns one empty text block. */
typedef struct wasmcp_result wasmcp_result;

/* Content blocks, in the order added. */
void wasmcp_result_text(wasmcp_result *res, const char *text);
void wasmcp_result_textf(wasmcp_result *res, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* wasmcp_result_image adds an image block; data is raw bytes (base64 encoded
 * here) of the given MIME type, such as "image/png". */
void wasmcp_result_image(wasmcp_result *res, const void *data, size_t len, const char *mime_type);
/* wasmcp_result_image_base64 adds an image block from data already base64
 * encoded. */
void wasmcp_result_image_base64(wasmcp_result *res, const char *base64, const char *mime_type);
/* wasmcp_result_audio adds an audio block from raw bytes. */
void wasmcp_result_audio(wasmcp_result *res, const void *data, size_t len, const char *mime_type);
/* A link to a resource the client may fetch. uri and name are required;
 * the other fields are left out when NULL (size when 0). */
typedef struct wasmcp_resource_link {
    const char *uri;
    const char *name;
    const char *title;
    const char *description;
    const char *mime_type;
    long long size;
} wasmcp_resource_link;

/* wasmcp_result_resource_link adds a resource_link block. */
void wasmcp_result_resource_link(wasmcp_result *res, const wasmcp_resource_link *link);
/* wasmcp_result_embedded_text adds a resource block embedding a text
 * resource; mime_type may be NULL. */
void wasmcp_result_embedded_text(wasmcp_result *res, const char *uri, const char *mime_type, const char *text);
/* wasmcp_result_embedded_blob adds a resource block embedding binary data
 * (base64 encoded here); mime_type may be NULL. */
void wasmcp_result_embedded_blob(wasmcp_result *res, const char *uri, const char *mime_type, const void *data,
                                 size_t len);
/* wasmcp_result_content adds a content block given as a JSON object. */
void wasmcp_result_content(wasmcp_result *res, const char *json);

/* wasmcp_result_structured returns the writer for the result's
 * structuredContent, which must receive exactly one JSON object. A tool with
 * an output schema fills it on success; the host mirrors it as a text block
 * when the result has no other content. */
wasmcp_writer *wasmcp_result_structured(wasmcp_result *res);

/* wasmcp_result_error marks the result as a tool error (isError) and adds a
 * text block with msg, for the model to read and perhaps correct. */
void wasmcp_result_error(wasmcp_result *res, const char *msg);
void wasmcp_result_errorf(wasmcp_result *res, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------------------
 * Tools
 * ------------------------------------------------------------------------ */

/* A handler receives its arguments (an object, validated against the input
 * schema) and fills res. */
typedef void (*wasmcp_handler)(wasmcp_json args, wasmcp_result *res);

/* A tool definition. Strings are copied by pointer: use literals or storage
 * that outlives the module. */
typedef struct wasmcp_tool {
    const char *name;          /* required: 1-128 of [A-Za-z0-9_.-], unique */
    const char *title;         /* optional */
    const char *description;   /* optional */
    const char *input_schema;  /* JSON object with "type":"object"; NULL: no parameters */
    const char *output_schema; /* optional JSON Schema object */
    const char *annotations;   /* optional MCP ToolAnnotations as a JSON object */
    wasmcp_handler handler;    /* required */
} wasmcp_tool;

/* wasmcp_add_tool registers a tool; call it from WASMCP_INIT. It returns
 * false, and logs why at critical level, for a definition the host would
 * refuse (bad or duplicate name, schema that is not a JSON object, input
 * schema without "type":"object", missing handler). A module with a refused
 * definition then fails to load with that log line as the reason. */
bool wasmcp_add_tool(const wasmcp_tool *tool);

/* ------------------------------------------------------------------------
 * Resources, resource templates, prompts and completion (resources.c,
 * prompts.c, uritemplate.c; ABI.md section 4, "Resources and prompts")
 *
 * A module of tools alone links none of this: the exports wasmcp_read,
 * wasmcp_prompt and wasmcp_complete reach it only once a definition is
 * registered.
 * ------------------------------------------------------------------------ */

/* JSON-RPC error codes a read, prompt or completion handler may give; the
 * host sends any other as WASMCP_ERROR_INTERNAL. */
#define WASMCP_ERROR_NOT_FOUND      (-32002) /* resource not found */
#define WASMCP_ERROR_INVALID_PARAMS (-32602) /* a bad argument, an unknown prompt */
#define WASMCP_ERROR_INTERNAL       (-32603)

/* The contents a read handler fills: one item or more, each text or binary.
 * Like a result, it lives in call memory. */
typedef struct wasmcp_read_result wasmcp_read_result;

/* wasmcp_read_text adds the text contents of the URI read, with the MIME
 * type of its definition; wasmcp_read_blob adds binary contents (base64
 * encoded here). */
void wasmcp_read_text(wasmcp_read_result *res, const char *text);
void wasmcp_read_textf(wasmcp_read_result *res, const char *format, ...) __attribute__((format(printf, 2, 3)));
void wasmcp_read_blob(wasmcp_read_result *res, const void *data, size_t len);
/* wasmcp_read_contents_text and _blob add an item of another URI (the
 * parts of a resource, say); mime_type may be NULL. */
void wasmcp_read_contents_text(wasmcp_read_result *res, const char *uri, const char *mime_type, const char *text);
void wasmcp_read_contents_blob(wasmcp_read_result *res, const char *uri, const char *mime_type, const void *data,
                               size_t len);
/* wasmcp_read_error makes the read fail with a JSON-RPC error (code
 * WASMCP_ERROR_NOT_FOUND, say) instead of contents. */
void wasmcp_read_error(wasmcp_read_result *res, int code, const char *msg);
void wasmcp_read_errorf(wasmcp_read_result *res, int code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* A read handler gets the URI read and, for a template, its variables: an
 * object of strings, percent-decoded, holding the variables the URI gives
 * ({} for a resource). */
typedef void (*wasmcp_read_handler)(const char *uri, wasmcp_json vars, wasmcp_read_result *res);

/* The values a completion handler suggests. */
typedef struct wasmcp_completion wasmcp_completion;

/* wasmcp_complete_value adds one value; past WASMCP_MAX_COMPLETION_VALUES
 * they are counted in has_more, not sent. */
void wasmcp_complete_value(wasmcp_completion *c, const char *value);
/* wasmcp_complete_total says how many values there are in all, when more
 * exist than were added. */
void wasmcp_complete_total(wasmcp_completion *c, long long total);
void wasmcp_complete_error(wasmcp_completion *c, int code, const char *msg);

/* A completion handler suggests values for argument (a prompt's argument,
 * or a template's variable) whose user typed value so far; context holds
 * the arguments already chosen, an object of strings ({} for none). */
typedef void (*wasmcp_complete_handler)(const char *argument, const char *value, wasmcp_json context,
                                        wasmcp_completion *c);

/* A resource: one URI. Strings are copied by pointer, as a tool's are.
 * With a handler, it makes the contents; without, text is the contents. */
typedef struct wasmcp_resource {
    const char *uri;         /* required: an absolute URI, scheme:..., no fragment, unique */
    const char *name;        /* required: 1-256 bytes */
    const char *title;       /* optional */
    const char *description; /* optional */
    const char *mime_type;   /* optional: type/subtype; "text/html;profile=mcp-app" for a ui:// view */
    long long size;          /* optional: the size of the contents in bytes; 0: not said */
    const char *annotations; /* optional MCP annotations as a JSON object */
    const char *icons;       /* optional MCP icons as a JSON array */
    const char *meta;        /* optional _meta as a JSON object */
    const char *text;        /* the contents when there is no handler */
    wasmcp_read_handler handler;
} wasmcp_resource;

/* A resource template: the URIs an RFC 6570 template matches (levels 1 to
 * 3 and the prefix modifier: {var}, {+path}, {#frag}, {.ext}, {/seg},
 * {;p}, {?q,lang}, {&more}, {var:3}; not the explode modifier *). The text
 * before its first expression holds the scheme. */
typedef struct wasmcp_resource_template {
    const char *uri_template; /* required, such as "file:///{+path}"; unique */
    const char *name;         /* required: 1-256 bytes */
    const char *title;
    const char *description;
    const char *mime_type; /* the MIME type of what wasmcp_read_text and _blob add */
    const char *annotations;
    const char *icons;
    const char *meta;
    wasmcp_read_handler handler;      /* required */
    wasmcp_complete_handler complete; /* optional: suggests values of its variables */
} wasmcp_resource_template;

/* wasmcp_add_resource and wasmcp_add_resource_template register a
 * definition; call them from WASMCP_INIT. Like wasmcp_add_tool, they
 * return false and log why for a definition the host would refuse, and
 * the module then fails to load with that reason. */
bool wasmcp_add_resource(const wasmcp_resource *r);
bool wasmcp_add_resource_template(const wasmcp_resource_template *t);

/* The role of a prompt message. */
typedef enum wasmcp_role { WASMCP_ROLE_USER, WASMCP_ROLE_ASSISTANT } wasmcp_role;

/* The messages a prompt handler fills, in call memory. Each function adds
 * one message holding one content block, as the wasmcp_result_ function of
 * the same name adds the block to a result. */
typedef struct wasmcp_prompt_result wasmcp_prompt_result;

void wasmcp_prompt_description(wasmcp_prompt_result *res, const char *description);
void wasmcp_prompt_text(wasmcp_prompt_result *res, wasmcp_role role, const char *text);
void wasmcp_prompt_textf(wasmcp_prompt_result *res, wasmcp_role role, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
void wasmcp_prompt_image(wasmcp_prompt_result *res, wasmcp_role role, const void *data, size_t len,
                         const char *mime_type);
void wasmcp_prompt_audio(wasmcp_prompt_result *res, wasmcp_role role, const void *data, size_t len,
                         const char *mime_type);
void wasmcp_prompt_resource_link(wasmcp_prompt_result *res, wasmcp_role role, const wasmcp_resource_link *link);
void wasmcp_prompt_embedded_text(wasmcp_prompt_result *res, wasmcp_role role, const char *uri, const char *mime_type,
                                 const char *text);
void wasmcp_prompt_embedded_blob(wasmcp_prompt_result *res, wasmcp_role role, const char *uri, const char *mime_type,
                                 const void *data, size_t len);
void wasmcp_prompt_content(wasmcp_prompt_result *res, wasmcp_role role, const char *json);
/* wasmcp_prompt_error makes the prompt fail with a JSON-RPC error instead
 * of messages (WASMCP_ERROR_INVALID_PARAMS for an argument it cannot use). */
void wasmcp_prompt_error(wasmcp_prompt_result *res, int code, const char *msg);
void wasmcp_prompt_errorf(wasmcp_prompt_result *res, int code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* A prompt handler gets its arguments, an object of strings holding every
 * required argument, and adds at least one message. */
typedef void (*wasmcp_prompt_handler)(wasmcp_json args, wasmcp_prompt_result *res);

/* One argument of a prompt; its value is a string. */
typedef struct wasmcp_prompt_argument {
    const char *name; /* required: 1-128 bytes, unique within the prompt */
    const char *title;
    const char *description;
    bool required;
} wasmcp_prompt_argument;

typedef struct wasmcp_prompt {
    const char *name; /* required: as a tool's name, unique among prompts */
    const char *title;
    const char *description;
    /* Its arguments, ending with an entry whose name is NULL; copied, so a
     * compound literal is fine. At most 64. */
    const wasmcp_prompt_argument *arguments;
    const char *icons;                /* optional MCP icons as a JSON array */
    const char *meta;                 /* optional _meta as a JSON object */
    wasmcp_prompt_handler handler;    /* required */
    wasmcp_complete_handler complete; /* optional: suggests argument values */
} wasmcp_prompt;

/* wasmcp_add_prompt registers a prompt; call it from WASMCP_INIT. It
 * refuses a definition as wasmcp_add_tool does. */
bool wasmcp_add_prompt(const wasmcp_prompt *p);

/* ------------------------------------------------------------------------
 * Permissions
 * ------------------------------------------------------------------------ */

/* One directory a module asks for, at an absolute guest path. */
typedef struct wasmcp_fs_permission {
    const char *path; /* where the guest opens it, such as "/data" */
    bool write;       /* ask for write access; read-only without it */
} wasmcp_fs_permission;

/* What a module asks the operator for beyond the closed sandbox (ABI.md
 * section 4). Lists end with a NULL entry (fs: an entry whose path is NULL)
 * and may be NULL themselves. */
typedef struct wasmcp_permissions {
    const wasmcp_fs_permission *fs; /* directories */
    const char *const *env;         /* names of environment variables */
    bool clock;                     /* the host's real clocks */
    bool random;                    /* a cryptographic random source */
    /* Origins to reach with wasmcp_http: "https://api.example.com",
     * "http://127.0.0.1:8080", a host starting with "*." for the subdomains
     * of a name, or "*" for whatever the operator's policy allows. */
    const char *const *net;
} wasmcp_permissions;

/* wasmcp_request_permissions adds p to the module's request, which the
 * Describe document carries; call it from WASMCP_INIT. Lists are appended
 * and flags set, so it may be called more than once. Lists and strings are
 * copied: compound literals are fine.
 *
 * The host grants the intersection of the request and the operator's policy,
 * never more; what is not granted fails when used (a file does not open, a
 * request is denied). Like wasmcp_add_tool, it returns false and logs why
 * for a request the host would refuse (a relative path, an empty name or
 * origin), and the module then fails to load with that reason.
 *
 *     WASMCP_INIT {
 *         wasmcp_request_permissions(&(wasmcp_permissions){
 *             .net = (const char *[]){"https://api.github.com", NULL},
 *         });
 *         wasmcp_add_tool(...);
 *     }
 */
bool wasmcp_request_permissions(const wasmcp_permissions *p);

/* ------------------------------------------------------------------------
 * Logging
 * ------------------------------------------------------------------------ */

/* Log levels, MCP's (syslog's) severities, least to most severe. */
typedef enum wasmcp_log_level {
    WASMCP_LOG_DEBUG,
    WASMCP_LOG_INFO,
    WASMCP_LOG_NOTICE,
    WASMCP_LOG_WARNING,
    WASMCP_LOG_ERROR,
    WASMCP_LOG_CRITICAL,
    WASMCP_LOG_ALERT,
    WASMCP_LOG_EMERGENCY
} wasmcp_log_level;

/* wasmcp_log sends one line to the host's log (stdout and stderr of a guest
 * are discarded). Lines over 64 KiB are truncated. */
void wasmcp_log(wasmcp_log_level level, const char *msg);
void wasmcp_logf(wasmcp_log_level level, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------------------
 * HTTP (http.c)
 * ------------------------------------------------------------------------ */

/* Statuses of wasmcp_http: ABI.md section 5. */
#define WASMCP_HTTP_OK      0 /* a server answered, whatever its HTTP status */
#define WASMCP_HTTP_FAILED  2 /* DNS, connection or TLS failed; response over maxResponse; too many redirects */
#define WASMCP_HTTP_INVALID 3 /* a bad method, header or URL: nothing was sent */
#define WASMCP_HTTP_TIMEOUT 4 /* the call's deadline passed or it was cancelled: the request was aborted */
#define WASMCP_HTTP_DENIED  5 /* the operator's net policy refused the origin or an address: nothing was sent */

/* One header line. A name may repeat. */
typedef struct wasmcp_http_header {
    const char *name;
    const char *value;
} wasmcp_http_header;

/* A request. Host, Content-Length, Transfer-Encoding, Connection, Te,
 * Trailer and Upgrade are the host's to write: a request setting one is
 * invalid. */
typedef struct wasmcp_http_request {
    const char *method;                /* NULL: GET */
    const char *url;                   /* an absolute http or https URL */
    const wasmcp_http_header *headers; /* sent in order */
    size_t nheaders;
    const void *body; /* any bytes; NULL: no body (body_len 0 with a body: an empty one) */
    size_t body_len;
} wasmcp_http_request;

/* A response, or why there is none. Everything it points to lives in call
 * memory (until the host starts the next call). When wasmcp_http fails, only
 * error is set; the other fields are zero. */
typedef struct wasmcp_http_response {
    int status;                        /* the HTTP status code */
    const char *url;                   /* the URL that answered, after redirects */
    const wasmcp_http_header *headers; /* sorted by name, a name repeated per value */
    size_t nheaders;
    const char *body; /* body_len bytes, any bytes, plus a NUL after them */
    size_t body_len;
    const char *error; /* NULL on success, else the host's message, such as
                        * "https://169.254.169.254 is not in plugin fetch's net policy" */
} wasmcp_http_response;

/* wasmcp_http makes one HTTP request through the host and fills *resp. It
 * returns WASMCP_HTTP_OK when a server answered, with any HTTP status (a 404
 * is OK; look at resp->status), or another WASMCP_HTTP_ status with the
 * host's message in resp->error. The host follows redirects (at most 5),
 * each within the operator's net policy for the plugin; the module asks for
 * the origins in its permissions (wasmcp_request_permissions, .net). The
 * request is not kept: req may point to anything the caller owns.
 *
 * Only a module that calls it imports the host's http_request (link http.c
 * with the rest of the SDK), so a module that never calls it still loads in
 * a host older than the function. The call waits for the whole response,
 * which counts against the call's deadline. */
int wasmcp_http(const wasmcp_http_request *req, wasmcp_http_response *resp);

/* wasmcp_http_header_get returns the value of the first response header
 * named name (compared without regard to case), or NULL. */
const char *wasmcp_http_header_get(const wasmcp_http_response *resp, const char *name);

/* ------------------------------------------------------------------------
 * Running tools without a host (unit tests)
 * ------------------------------------------------------------------------ */

/* wasmcp_describe_json returns the Describe document listing every tool,
 * or NULL when a definition was refused. */
const char *wasmcp_describe_json(size_t *len);

/* wasmcp_dispatch runs tool name on the arguments JSON and returns the
 * Result document, as the wasmcp_call export does. It stays valid until the
 * next dispatch. */
const char *wasmcp_dispatch(const char *name, size_t name_len, const char *args, size_t args_len, size_t *len);

/* wasmcp_dispatch_read, _prompt and _complete answer as the exports
 * wasmcp_read, wasmcp_prompt and wasmcp_complete do: the Read, Prompt or
 * Completion document, or an error document. Each stays valid until the
 * next dispatch. */
const char *wasmcp_dispatch_read(const char *uri, size_t uri_len, size_t *len);
const char *wasmcp_dispatch_prompt(const char *name, size_t name_len, const char *args, size_t args_len, size_t *len);
const char *wasmcp_dispatch_complete(const char *request, size_t request_len, size_t *len);

/* wasmcp_call_memory returns n bytes of call memory (freed when the host
 * starts the next call), or NULL. */
void *wasmcp_call_memory(size_t n);

#ifdef __cplusplus
}
#endif

#endif /* WASMCP_H */
