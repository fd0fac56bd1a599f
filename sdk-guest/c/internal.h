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

#ifndef __wasm__
/* Natively (the SDK's unit tests), wasmcp_http hands its request document to
 * this function instead of the host: it returns the status and points *reply
 * at the reply, which wasmcp_http copies. While it is NULL, every request
 * fails, saying it needs a host. */
extern uint32_t (*wasmcp_native_http_)(const char *req, size_t len, const char **reply, size_t *reply_len);
#endif

#endif /* WASMCP_INTERNAL_H */
