/*
 * read.c - the JSON reader of the C SDK.
 *
 * The reader works on views (pointer + length) and never reads outside one,
 * whatever the bytes: the host validated the arguments, but a handler may
 * build views of its own. Decoded strings go to call memory.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Deeper nesting than this is refused rather than risking the stack. */
#define MAX_DEPTH 1000

static const char *skip_ws(const char *p, const char *e) {
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* skip_string returns the end of the string starting at p ('"'), or NULL. */
static const char *skip_string(const char *p, const char *e) {
    for (p++; p < e; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"') return p + 1;
        if (c < 0x20) return NULL;
        if (c != '\\') continue;
        if (++p == e) return NULL;
        switch (*p) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't': break;
        case 'u':
            if (e - p < 5) return NULL;
            for (int i = 1; i <= 4; i++)
                if (hex_digit(p[i]) < 0) return NULL;
            p += 4;
            break;
        default: return NULL;
        }
    }
    return NULL;
}

static const char *skip_digits(const char *p, const char *e) {
    const char *start = p;
    while (p < e && *p >= '0' && *p <= '9')
        p++;
    return p == start ? NULL : p;
}

/* skip_number follows JSON's grammar exactly: no '+', no leading zeros, no
 * bare '.', so that strtod never sees what JSON does not allow. */
static const char *skip_number(const char *p, const char *e) {
    if (p < e && *p == '-') p++;
    if (p < e && *p == '0')
        p++;
    else if (!(p = skip_digits(p, e)))
        return NULL;
    if (p < e && *p == '.' && !(p = skip_digits(p + 1, e))) return NULL;
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-')) p++;
        if (!(p = skip_digits(p, e))) return NULL;
    }
    return p;
}

static const char *skip_literal(const char *p, const char *e, const char *lit) {
    size_t n = strlen(lit);
    return (size_t)(e - p) >= n && memcmp(p, lit, n) == 0 ? p + n : NULL;
}

/* skip_value returns the end of the value starting at p (no leading white
 * space), or NULL when it is not valid JSON. */
static const char *skip_value(const char *p, const char *e, int depth) {
    if (p >= e) return NULL;
    switch (*p) {
    case '"': return skip_string(p, e);
    case 't': return skip_literal(p, e, "true");
    case 'f': return skip_literal(p, e, "false");
    case 'n': return skip_literal(p, e, "null");
    case '[':
    case '{': {
        char close = *p == '[' ? ']' : '}';
        if (depth >= MAX_DEPTH) return NULL;
        p = skip_ws(p + 1, e);
        if (p < e && *p == close) return p + 1;
        for (;;) {
            if (close == '}') {
                if (p >= e || *p != '"' || !(p = skip_string(p, e))) return NULL;
                p = skip_ws(p, e);
                if (p >= e || *p != ':') return NULL;
                p = skip_ws(p + 1, e);
            }
            if (!(p = skip_value(p, e, depth + 1))) return NULL;
            p = skip_ws(p, e);
            if (p >= e) return NULL;
            if (*p == close) return p + 1;
            if (*p != ',') return NULL;
            p = skip_ws(p + 1, e);
        }
    }
    default: return skip_number(p, e);
    }
}

wasmcp_json wasmcp_json_parse(const char *text, size_t len) {
    wasmcp_json none = {NULL, 0};
    if (!text) return none;
    const char *e = text + len, *p = skip_ws(text, e), *end = skip_value(p, e, 0);
    if (!end || skip_ws(end, e) != e) return none;
    return (wasmcp_json){p, (size_t)(end - p)};
}

wasmcp_json_kind wasmcp_json_kind_of(wasmcp_json v) {
    if (!v.ptr || v.len == 0) return WASMCP_JSON_NONE;
    switch (v.ptr[0]) {
    case 'n': return WASMCP_JSON_NULL;
    case 't':
    case 'f': return WASMCP_JSON_BOOL;
    case '"': return WASMCP_JSON_STRING;
    case '[': return WASMCP_JSON_ARRAY;
    case '{': return WASMCP_JSON_OBJECT;
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9': return WASMCP_JSON_NUMBER;
    }
    return WASMCP_JSON_NONE;
}

/* Iteration over a container: it_next stores the next member's key span
 * (objects) and value, and returns false at the end or on malformed input. */
typedef struct {
    const char *p, *e;
    char close;
    bool first, done;
} iter;

static bool it_start(iter *it, wasmcp_json v, char open) {
    if (!v.ptr || v.len < 2 || v.ptr[0] != open) return false;
    *it = (iter){v.ptr + 1, v.ptr + v.len, open == '{' ? '}' : ']', true, false};
    return true;
}

static bool it_next(iter *it, wasmcp_json *key, wasmcp_json *val) {
    if (it->done) return false;
    const char *p = skip_ws(it->p, it->e);
    if (p < it->e && *p == it->close) {
        it->done = true;
        return false;
    }
    if (!it->first) {
        if (p >= it->e || *p != ',') goto bad;
        p = skip_ws(p + 1, it->e);
    }
    it->first = false;
    if (it->close == '}') {
        const char *k = p;
        if (p >= it->e || *p != '"' || !(p = skip_string(p, it->e))) goto bad;
        *key = (wasmcp_json){k, (size_t)(p - k)};
        p = skip_ws(p, it->e);
        if (p >= it->e || *p != ':') goto bad;
        p = skip_ws(p + 1, it->e);
    }
    const char *v = p;
    if (!(p = skip_value(p, it->e, 1))) goto bad;
    *val = (wasmcp_json){v, (size_t)(p - v)};
    it->p = p;
    return true;
bad:
    it->done = true;
    return false;
}

static void put_utf8(char **q, uint32_t r) {
    unsigned char *o = (unsigned char *)*q;
    if (r < 0x80) {
        *o++ = (unsigned char)r;
    } else if (r < 0x800) {
        *o++ = (unsigned char)(0xC0 | r >> 6);
        *o++ = (unsigned char)(0x80 | (r & 0x3F));
    } else if (r < 0x10000) {
        *o++ = (unsigned char)(0xE0 | r >> 12);
        *o++ = (unsigned char)(0x80 | (r >> 6 & 0x3F));
        *o++ = (unsigned char)(0x80 | (r & 0x3F));
    } else {
        *o++ = (unsigned char)(0xF0 | r >> 18);
        *o++ = (unsigned char)(0x80 | (r >> 12 & 0x3F));
        *o++ = (unsigned char)(0x80 | (r >> 6 & 0x3F));
        *o++ = (unsigned char)(0x80 | (r & 0x3F));
    }
    *q = (char *)o;
}

static uint32_t hex4(const char *p) {
    return (uint32_t)(hex_digit(p[0]) << 12 | hex_digit(p[1]) << 8 | hex_digit(p[2]) << 4 | hex_digit(p[3]));
}

/* decode unescapes the string s (a validated span, quotes included) into
 * out, which has room for s.len bytes, and returns the decoded length. A
 * lone surrogate becomes U+FFFD, as in Go and JavaScript's TextEncoder. */
static size_t decode(wasmcp_json s, char *out) {
    const char *p = s.ptr + 1, *e = s.ptr + s.len - 1;
    char *q = out;
    while (p < e) {
        if (*p != '\\') {
            *q++ = *p++;
            continue;
        }
        p++;
        switch (*p++) {
        case 'b': *q++ = '\b'; break;
        case 'f': *q++ = '\f'; break;
        case 'n': *q++ = '\n'; break;
        case 'r': *q++ = '\r'; break;
        case 't': *q++ = '\t'; break;
        case 'u': {
            uint32_t r = hex4(p);
            p += 4;
            if (r >= 0xD800 && r < 0xDC00 && e - p >= 6 && p[0] == '\\' && p[1] == 'u') {
                uint32_t lo = hex4(p + 2);
                if (lo >= 0xDC00 && lo < 0xE000) {
                    r = 0x10000 + ((r - 0xD800) << 10) + (lo - 0xDC00);
                    p += 6;
                }
            }
            if (r >= 0xD800 && r < 0xE000) r = 0xFFFD;
            put_utf8(&q, r);
            break;
        }
        default: *q++ = p[-1]; /* '"', '\\', '/' */
        }
    }
    *q = 0;
    return (size_t)(q - out);
}

static bool is_string(wasmcp_json v) {
    return v.ptr && v.len >= 2 && v.ptr[0] == '"' && skip_string(v.ptr, v.ptr + v.len) == v.ptr + v.len;
}

const char *wasmcp_json_string(wasmcp_json v, size_t *len) {
    if (!is_string(v)) return NULL;
    char *out = wasmcp_call_memory(v.len);
    if (!out) return NULL;
    size_t n = decode(v, out);
    if (len) *len = n;
    return out;
}

/* key_equals compares a key span with key, decoding only when the span holds
 * an escape. */
static bool key_equals(wasmcp_json k, const char *key) {
    size_t n = strlen(key);
    if (!memchr(k.ptr, '\\', k.len)) return k.len == n + 2 && memcmp(k.ptr + 1, key, n) == 0;
    size_t len;
    const char *s = wasmcp_json_string(k, &len);
    return s && len == n && memcmp(s, key, n) == 0;
}

wasmcp_json wasmcp_json_get(wasmcp_json obj, const char *key) {
    wasmcp_json found = {NULL, 0}, k, v;
    iter it;
    if (!key || !it_start(&it, obj, '{')) return found;
    while (it_next(&it, &k, &v))
        if (key_equals(k, key)) found = v;
    return found;
}

size_t wasmcp_json_count(wasmcp_json v) {
    iter it;
    wasmcp_json k, x;
    size_t n = 0;
    if (!it_start(&it, v, '{') && !it_start(&it, v, '[')) return 0;
    while (it_next(&it, &k, &x))
        n++;
    return n;
}

wasmcp_json wasmcp_json_index(wasmcp_json arr, size_t i) {
    iter it;
    wasmcp_json k, v;
    if (it_start(&it, arr, '['))
        for (size_t n = 0; it_next(&it, &k, &v); n++)
            if (n == i) return v;
    return (wasmcp_json){NULL, 0};
}

bool wasmcp_json_member(wasmcp_json obj, size_t i, const char **key, wasmcp_json *value) {
    iter it;
    wasmcp_json k, v;
    if (it_start(&it, obj, '{'))
        for (size_t n = 0; it_next(&it, &k, &v); n++)
            if (n == i) {
                const char *s = wasmcp_json_string(k, NULL);
                if (!s) return false;
                if (key) *key = s;
                if (value) *value = v;
                return true;
            }
    return false;
}

bool wasmcp_json_number(wasmcp_json v, double *out) {
    if (!v.ptr || v.len == 0 || skip_number(v.ptr, v.ptr + v.len) != v.ptr + v.len) return false;
    char small[64], *s = v.len < sizeof small ? small : wasmcp_call_memory(v.len + 1);
    if (!s) return false;
    memcpy(s, v.ptr, v.len);
    s[v.len] = 0;
    *out = strtod(s, NULL);
    return true;
}

bool wasmcp_json_bool(wasmcp_json v, bool *out) {
    if (v.ptr && v.len == 4 && memcmp(v.ptr, "true", 4) == 0)
        *out = true;
    else if (v.ptr && v.len == 5 && memcmp(v.ptr, "false", 5) == 0)
        *out = false;
    else
        return false;
    return true;
}

const char *wasmcp_get_string(wasmcp_json obj, const char *key, const char *fallback) {
    const char *s = wasmcp_json_string(wasmcp_json_get(obj, key), NULL);
    return s ? s : fallback;
}

double wasmcp_get_number(wasmcp_json obj, const char *key, double fallback) {
    double d;
    return wasmcp_json_number(wasmcp_json_get(obj, key), &d) ? d : fallback;
}

bool wasmcp_get_bool(wasmcp_json obj, const char *key, bool fallback) {
    bool b;
    return wasmcp_json_bool(wasmcp_json_get(obj, key), &b) ? b : fallback;
}
