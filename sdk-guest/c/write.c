/*
 * write.c - the JSON writer of the C SDK, number formatting and base64.
 *
 * The writer grows its buffer in call memory and records its first error
 * instead of stopping, so that a handler writes straight through and the SDK
 * reports a misuse once, as a tool error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Containers deeper than this would not fit the writer's bit masks. */
#define MAX_WRITE_DEPTH 63

void wasmcp_writer_init_(wasmcp_writer *w) { memset(w, 0, sizeof *w); }

wasmcp_writer *wasmcp_writer_new(void) {
    wasmcp_writer *w = wasmcp_call_memory(sizeof *w);
    if (w) wasmcp_writer_init_(w);
    return w;
}

void wasmcp_writer_fail_(wasmcp_writer *w, const char *err) {
    if (!w->error) w->error = err;
}

void wasmcp_w_put_(wasmcp_writer *w, const char *s, size_t n) {
    if (w->error) return;
    if (w->cap - w->len <= n) { /* keep one byte for the terminating NUL */
        size_t cap = w->cap ? w->cap : 256;
        while (cap - w->len <= n) {
            if (cap > SIZE_MAX / 2) {
                wasmcp_writer_fail_(w, "out of memory");
                return;
            }
            cap *= 2;
        }
        char *buf = wasmcp_call_realloc_(w->buf, cap);
        if (!buf) {
            wasmcp_writer_fail_(w, "out of memory");
            return;
        }
        w->buf = buf;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = 0;
}

static bool in_object(const wasmcp_writer *w) { return w->depth > 0 && (w->object_mask >> w->depth & 1); }

/* value_start writes the comma a value needs, or records why no value may
 * come here. */
static bool value_start(wasmcp_writer *w) {
    if (w->error) return false;
    if (w->after_key) {
        w->after_key = false;
        return true;
    }
    if (w->depth == 0) {
        if (w->len > 0) wasmcp_writer_fail_(w, "JSON writer: a second top-level value");
        return !w->error;
    }
    if (in_object(w)) {
        wasmcp_writer_fail_(w, "JSON writer: an object member without a key");
        return false;
    }
    if (w->open_mask >> w->depth & 1) wasmcp_w_put_(w, ",", 1);
    w->open_mask |= 1ull << w->depth;
    return !w->error;
}

static void begin(wasmcp_writer *w, char open, bool object) {
    if (!value_start(w)) return;
    if (w->depth == MAX_WRITE_DEPTH) {
        wasmcp_writer_fail_(w, "JSON writer: nesting too deep");
        return;
    }
    wasmcp_w_put_(w, &open, 1);
    w->depth++;
    w->open_mask &= ~(1ull << w->depth);
    if (object)
        w->object_mask |= 1ull << w->depth;
    else
        w->object_mask &= ~(1ull << w->depth);
}

static void end(wasmcp_writer *w, char close, bool object) {
    if (w->error) return;
    if (w->depth == 0 || in_object(w) != object || w->after_key) {
        wasmcp_writer_fail_(w, object ? "JSON writer: object end without a matching begin"
                                      : "JSON writer: array end without a matching begin");
        return;
    }
    wasmcp_w_put_(w, &close, 1);
    w->depth--;
}

void wasmcp_w_object_begin(wasmcp_writer *w) { begin(w, '{', true); }
void wasmcp_w_object_end(wasmcp_writer *w) { end(w, '}', true); }
void wasmcp_w_array_begin(wasmcp_writer *w) { begin(w, '[', false); }
void wasmcp_w_array_end(wasmcp_writer *w) { end(w, ']', false); }

/* utf8_len returns the length of the valid UTF-8 sequence at s[0:n], or 0. */
static size_t utf8_len(const unsigned char *s, size_t n) {
    unsigned char c = s[0];
    size_t len;
    uint32_t min;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, min = 0x10000;
    else
        return 0;
    if (n < len) return 0;
    uint32_t r = c & (0x3F >> (len - 1));
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        r = r << 6 | (s[i] & 0x3F);
    }
    if (r < min || r > 0x10FFFF || (r >= 0xD800 && r < 0xE000)) return 0;
    return len;
}

static void put_string(wasmcp_writer *w, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s, *e = p + n, *run = p;
    wasmcp_w_put_(w, "\"", 1);
    while (p < e) {
        unsigned char c = *p;
        const char *esc = NULL;
        char u[7];
        size_t len = 1;
        if (c == '"')
            esc = "\\\"";
        else if (c == '\\')
            esc = "\\\\";
        else if (c == '\n')
            esc = "\\n";
        else if (c == '\r')
            esc = "\\r";
        else if (c == '\t')
            esc = "\\t";
        else if (c < 0x20) {
            memcpy(u, "\\u00", 4);
            u[4] = hex[c >> 4], u[5] = hex[c & 15], u[6] = 0;
            esc = u;
        } else if (c >= 0x80 && !(len = utf8_len(p, (size_t)(e - p)))) {
            esc = "\\ufffd";
            len = 1;
        }
        if (!esc) {
            p += len;
            continue;
        }
        wasmcp_w_put_(w, (const char *)run, (size_t)(p - run));
        wasmcp_w_put_(w, esc, strlen(esc));
        p += len;
        run = p;
    }
    wasmcp_w_put_(w, (const char *)run, (size_t)(p - run));
    wasmcp_w_put_(w, "\"", 1);
}

void wasmcp_w_key(wasmcp_writer *w, const char *key) {
    if (w->error) return;
    if (!in_object(w) || w->after_key) {
        wasmcp_writer_fail_(w, "JSON writer: a key outside an object");
        return;
    }
    if (w->open_mask >> w->depth & 1) wasmcp_w_put_(w, ",", 1);
    w->open_mask |= 1ull << w->depth;
    put_string(w, key, strlen(key));
    wasmcp_w_put_(w, ":", 1);
    w->after_key = true;
}

void wasmcp_w_string_n(wasmcp_writer *w, const char *s, size_t n) {
    if (value_start(w)) put_string(w, s, n);
}

void wasmcp_w_string(wasmcp_writer *w, const char *s) { wasmcp_w_string_n(w, s, s ? strlen(s) : 0); }

/* format writes finite v into q: the shortest digits that read back as v
 * (what Go's strconv and JavaScript print), in exponent form when
 * exponent_form and |v| < 1e-6 or >= 1e21 (Go's encoding/json and
 * JSON.stringify), else in plain decimal notation (strconv's 'f', -1). */
static char *format(double v, char *q, bool exponent_form) {
    char *start = q;
    if (v == 0) {
        strcpy(q, signbit(v) ? "-0" : "0");
        return start;
    }
    /* %.*e rounds correctly, so the first precision that round-trips gives
     * the shortest digits. */
    char e[40];
    for (int prec = 0; prec < 17; prec++) {
        snprintf(e, sizeof e, "%.*e", prec, v);
        if (strtod(e, NULL) == v) break;
    }
    /* e is [-]d[.ddd]e±x: collect the digits and the decimal exponent. */
    char digits[20] = {0}, *p = e;
    int nd = 0;
    if (*p == '-') *q++ = *p++;
    for (; *p != 'e'; p++)
        if (*p != '.') digits[nd++] = *p;
    int exp = atoi(p + 1);
    if (exponent_form && (exp < -6 || exp >= 21)) {
        *q++ = digits[0];
        if (nd > 1) {
            *q++ = '.';
            memcpy(q, digits + 1, (size_t)nd - 1), q += nd - 1;
        }
        q += sprintf(q, "e%c%d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    } else if (exp < 0) { /* 0.000ddd */
        *q++ = '0', *q++ = '.';
        for (int i = exp; i < -1; i++)
            *q++ = '0';
        memcpy(q, digits, (size_t)nd), q += nd;
    } else { /* ddd[.ddd], padded with zeros when the digits run out */
        for (int i = 0; i <= exp; i++)
            *q++ = i < nd ? digits[i] : '0';
        if (nd > exp + 1) {
            *q++ = '.';
            memcpy(q, digits + exp + 1, (size_t)(nd - exp - 1)), q += nd - exp - 1;
        }
    }
    *q = 0;
    return start;
}

char *wasmcp_format_number(double v, char buf[32]) {
    if (!isfinite(v)) {
        strcpy(buf, "null");
        return buf;
    }
    return format(v, buf, true);
}

const char *wasmcp_format_decimal(double v) {
    if (isnan(v)) return "NaN";
    if (isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    /* The longest: "-0.", 323 zeros, 17 digits (5e-324 and its neighbours). */
    char *buf = wasmcp_call_memory(352);
    return buf ? format(v, buf, false) : "(out of memory)";
}

void wasmcp_w_number(wasmcp_writer *w, double v) {
    if (!isfinite(v)) {
        wasmcp_writer_fail_(w, "JSON writer: NaN or infinity is not a JSON number");
        return;
    }
    char buf[32];
    if (value_start(w)) wasmcp_w_put_(w, buf, strlen(wasmcp_format_number(v, buf)));
}

void wasmcp_w_int(wasmcp_writer *w, long long v) {
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%lld", v);
    if (value_start(w)) wasmcp_w_put_(w, buf, (size_t)n);
}

void wasmcp_w_bool(wasmcp_writer *w, bool v) {
    if (value_start(w)) wasmcp_w_put_(w, v ? "true" : "false", v ? 4 : 5);
}

void wasmcp_w_null(wasmcp_writer *w) {
    if (value_start(w)) wasmcp_w_put_(w, "null", 4);
}

void wasmcp_w_raw(wasmcp_writer *w, const char *json, size_t n) {
    wasmcp_json v = wasmcp_json_parse(json, n);
    if (!v.ptr) {
        wasmcp_writer_fail_(w, "JSON writer: raw text is not one JSON value");
        return;
    }
    wasmcp_w_value_(w, v.ptr, v.len);
}

void wasmcp_w_value_(wasmcp_writer *w, const char *json, size_t n) {
    if (value_start(w)) wasmcp_w_put_(w, json, n);
}

const char *wasmcp_writer_json(const wasmcp_writer *w, size_t *len) {
    if (w->error || w->depth > 0 || w->after_key) return NULL;
    if (len) *len = w->len;
    return w->buf ? w->buf : "";
}

/* ---- base64 ------------------------------------------------------------ */

const char *wasmcp_base64(const void *data, size_t n) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *in = data;
    if (n > (SIZE_MAX - 1) / 4 * 3 - 3) return NULL;
    char *out = wasmcp_call_memory((n + 2) / 3 * 4 + 1), *q = out;
    if (!out) return NULL;
    size_t i = 0;
    for (; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        *q++ = alphabet[v >> 18], *q++ = alphabet[v >> 12 & 63];
        *q++ = alphabet[v >> 6 & 63], *q++ = alphabet[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
        *q++ = alphabet[v >> 18], *q++ = alphabet[v >> 12 & 63];
        *q++ = i + 1 < n ? alphabet[v >> 6 & 63] : '=';
        *q++ = '=';
    }
    *q = 0;
    return out;
}
