/*
 * uritemplate.c - RFC 6570 URI templates, read backwards: which variables
 * make a template expand to a given URI.
 *
 * A URI matches when some values of the variables expand to it exactly, as
 * RFC 6570 expands them: a value holds the characters its operator leaves
 * as they are (unreserved ones; for + and #, reserved ones too) and
 * percent-encoded bytes. Levels 1 to 3 and the prefix modifier are read;
 * the explode modifier is refused when the template is parsed. Where a URI
 * could split in several ways, earlier variables take as much as they can
 * (file:///{+dir}/{name} reads a/b/c as dir a/b, name c), and a variable
 * that is left out of the URI is left out of the variables.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct op {
    char c;            /* the operator character; 0 for none */
    const char *first; /* written before the first value */
    const char *sep;   /* written between values */
    bool named;        /* values are written name=value */
    bool empty_eq;     /* an empty named value is written name= (else name) */
    bool reserved;     /* reserved characters stay as they are */
} op;

static const op ops[] = {
    {0, "", ",", false, false, false},    {'+', "", ",", false, false, true},   {'#', "#", ",", false, false, true},
    {'.', ".", ".", false, false, false}, {'/', "/", "/", false, false, false}, {';', ";", ";", true, false, false},
    {'?', "?", "&", true, true, false},   {'&', "&", "&", true, true, false},
};

typedef struct var {
    const char *name;
    size_t len;
    int max; /* the prefix modifier's length, or 0 */
} var;

/* A part is a literal (o NULL) or an expression of nvars variables from
 * vars[first]. state is the index of its first memo state. */
typedef struct part {
    const op *o;
    const char *lit;
    size_t len, first, nvars, state;
} part;

struct wasmcp_uritemplate {
    part *parts;
    size_t nparts;
    var *vars;
    size_t nvars, nstates;
};

static bool is_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool pct(const char *p, const char *e) { return e - p >= 3 && p[0] == '%' && hex(p[1]) >= 0 && hex(p[2]) >= 0; }

/* parse_var reads one varspec from p to e (exclusive) into v. */
static const char *parse_var(const char *p, const char *e, var *v) {
    v->name = p;
    bool dot_ok = false;
    while (p < e && *p != ':' && *p != '*') {
        if (*p == '.' && dot_ok) {
            dot_ok = false;
            p++;
        } else if (is_alnum(*p) || *p == '_') {
            dot_ok = true;
            p++;
        } else if (pct(p, e)) {
            dot_ok = true;
            p += 3;
        } else {
            return "a variable name holds a character other than letters, digits, _, . and %XX";
        }
    }
    v->len = (size_t)(p - v->name);
    if (!v->len || !dot_ok) return "a variable name is empty or ends with '.'";
    v->max = 0;
    if (p < e && *p == '*') return "the explode modifier (*) is not supported: use {+var} for a path";
    if (p < e) { /* ':' and 1 to 4 digits, the first not 0 */
        if (++p == e || *p == '0' || e - p > 4) return "a prefix modifier must be :1 to :9999";
        for (; p < e; p++) {
            if (*p < '0' || *p > '9') return "a prefix modifier must be :1 to :9999";
            v->max = v->max * 10 + (*p - '0');
        }
    }
    return NULL;
}

wasmcp_uritemplate *wasmcp_uritemplate_parse_(const char *text, const char **why) {
    size_t braces = 0, commas = 0;
    for (const char *p = text; *p; p++)
        braces += *p == '{', commas += *p == ',';
    wasmcp_uritemplate *t = calloc(1, sizeof *t);
    if (t) {
        t->parts = calloc(2 * braces + 1, sizeof *t->parts);
        t->vars = calloc(braces + commas + 1, sizeof *t->vars);
    }
    if (!t || !t->parts || !t->vars) {
        *why = "out of memory";
        goto fail;
    }
    for (const char *p = text; *p;) {
        part *pt = &t->parts[t->nparts++];
        pt->state = t->nstates;
        if (*p != '{') {
            pt->lit = p;
            while (*p && *p != '{' && *p != '}')
                p++;
            if (*p == '}') {
                *why = "a '}' without its '{'";
                goto fail;
            }
            pt->len = (size_t)(p - pt->lit);
            t->nstates++;
            continue;
        }
        const char *e = strchr(++p, '}'), *brace = strchr(p, '{');
        if (!e || (brace && brace < e)) {
            *why = "a '{' without its '}'";
            goto fail;
        }
        pt->o = &ops[0];
        for (size_t i = 1; i < sizeof ops / sizeof *ops && pt->o == &ops[0]; i++)
            if (*p == ops[i].c) pt->o = &ops[i], p++;
        if (p < e && strchr("=,!@|", *p)) {
            *why = "the operators = , ! @ | are reserved";
            goto fail;
        }
        pt->first = t->nvars;
        for (;;) {
            const char *comma = memchr(p, ',', (size_t)(e - p));
            const char *end = comma ? comma : e;
            var *v = &t->vars[t->nvars];
            if ((*why = parse_var(p, end, v))) goto fail;
            for (size_t i = 0; i < t->nvars; i++)
                if (t->vars[i].len == v->len && memcmp(t->vars[i].name, v->name, v->len) == 0) {
                    *why = "a variable appears twice";
                    goto fail;
                }
            t->nvars++;
            pt->nvars++;
            if (!comma) break;
            p = comma + 1;
        }
        t->nstates += 2 * pt->nvars; /* each variable, before or after the first value */
        p = e + 1;
    }
    return t;
fail:
    if (t) free(t->parts), free(t->vars);
    free(t);
    return NULL;
}

bool wasmcp_uritemplate_has_var_(const wasmcp_uritemplate *t, const char *name) {
    size_t n = strlen(name);
    for (size_t i = 0; i < t->nvars; i++)
        if (t->vars[i].len == n && memcmp(t->vars[i].name, name, n) == 0) return true;
    return false;
}

/* ---- matching ---------------------------------------------------------- */

typedef struct matcher {
    const wasmcp_uritemplate *t;
    const char *u;
    size_t n;
    unsigned char *failed; /* a bit per state and position: known not to match */
    size_t *cap;           /* per variable: start and end, or start SIZE_MAX */
} matcher;

static bool allowed(char c, bool reserved) {
    if (is_alnum(c) || strchr("-._~", c)) return c != 0;
    return reserved && c && strchr(":/?#[]@!$&'()*+,;=", c);
}

static bool has(const matcher *m, size_t pos, const char *s, size_t len) {
    return m->n - pos >= len && memcmp(m->u + pos, s, len) == 0;
}

static bool match(matcher *m, size_t pi, size_t vi, bool started, size_t pos);

/* value tries the values that may start at pos for variable vi of part pi,
 * longest first, and then the rest of the template after each. */
static bool value(matcher *m, size_t pi, size_t vi, size_t pos) {
    const part *pt = &m->t->parts[pi];
    const var *v = &m->t->vars[pt->first + vi];
    size_t end = pos, step;
    for (int chars = 0; end < m->n; end += step) {
        if (pct(m->u + end, m->u + m->n))
            step = 3;
        else if (allowed(m->u[end], pt->o->reserved))
            step = 1;
        else
            break;
        /* The prefix modifier counts characters: a UTF-8 continuation byte
         * is part of the one before. */
        int b = step == 3 ? hex(m->u[end + 1]) << 4 | hex(m->u[end + 2]) : 0;
        if (b < 0x80 || b >= 0xC0) {
            if (v->max && chars == v->max) break;
            chars++;
        }
    }
    for (size_t q = end + 1; q-- > pos;) {
        /* Every '%' in the span starts a triplet: no end falls inside one. */
        if ((q > pos && m->u[q - 1] == '%') || (q > pos + 1 && m->u[q - 2] == '%')) continue;
        if (match(m, pi, vi + 1, true, q)) {
            m->cap[2 * (pt->first + vi)] = pos;
            m->cap[2 * (pt->first + vi) + 1] = q;
            return true;
        }
    }
    return false;
}

/* present tries variable vi of part pi as written at pos. */
static bool present(matcher *m, size_t pi, size_t vi, bool started, size_t pos) {
    const part *pt = &m->t->parts[pi];
    const char *lead = started ? pt->o->sep : pt->o->first;
    if (!has(m, pos, lead, strlen(lead))) return false;
    pos += strlen(lead);
    if (!pt->o->named) return value(m, pi, vi, pos);
    const var *v = &m->t->vars[pt->first + vi];
    if (!has(m, pos, v->name, v->len)) return false;
    pos += v->len;
    if (has(m, pos, "=", 1)) return value(m, pi, vi, pos + 1);
    if (pt->o->empty_eq || !match(m, pi, vi + 1, true, pos)) return false;
    m->cap[2 * (pt->first + vi)] = m->cap[2 * (pt->first + vi) + 1] = pos;
    return true;
}

/* match reports whether the URI from pos is an expansion of the template
 * from variable vi of part pi, started telling whether the part has written
 * a value already. Failures are remembered, so that no state is tried twice
 * at a position: the work grows with the URI's length squared at most. */
static bool match(matcher *m, size_t pi, size_t vi, bool started, size_t pos) {
    if (pi == m->t->nparts) return pos == m->n;
    const part *pt = &m->t->parts[pi];
    if (pt->o && vi == pt->nvars) return match(m, pi + 1, 0, false, pos);
    size_t bit = (pt->state + (pt->o ? 2 * vi + started : 0)) * (m->n + 1) + pos;
    if (m->failed[bit / 8] >> (bit % 8) & 1) return false;
    bool ok = pt->o ? present(m, pi, vi, started, pos) || match(m, pi, vi + 1, started, pos)
                    : has(m, pos, pt->lit, pt->len) && match(m, pi + 1, 0, false, pos + pt->len);
    if (!ok) m->failed[bit / 8] |= (unsigned char)(1u << (bit % 8));
    return ok;
}

bool wasmcp_uritemplate_match_(const wasmcp_uritemplate *t, const char *uri, size_t len, wasmcp_writer *vars) {
    matcher m = {t, uri, len, NULL, NULL};
    size_t bits = t->nstates * (len + 1);
    if (t->nstates && bits / t->nstates != len + 1) return false;
    m.failed = wasmcp_call_memory(bits / 8 + 1);
    m.cap = wasmcp_call_memory((2 * t->nvars + 1) * sizeof *m.cap);
    if (!m.failed || !m.cap) return false;
    memset(m.failed, 0, bits / 8 + 1);
    for (size_t i = 0; i < 2 * t->nvars; i++)
        m.cap[i] = SIZE_MAX;
    if (!match(&m, 0, 0, false, 0)) return false;
    wasmcp_w_object_begin(vars);
    for (size_t i = 0; i < t->nvars; i++) {
        if (m.cap[2 * i] == SIZE_MAX) continue;
        const char *p = uri + m.cap[2 * i], *e = uri + m.cap[2 * i + 1];
        char *name = wasmcp_call_memory(t->vars[i].len + 1), *val = wasmcp_call_memory((size_t)(e - p) + 1), *q = val;
        if (!name || !val) return false;
        memcpy(name, t->vars[i].name, t->vars[i].len);
        name[t->vars[i].len] = 0;
        for (; p < e; q++) {
            if (*p == '%') {
                *q = (char)(hex(p[1]) << 4 | hex(p[2]));
                p += 3;
            } else {
                *q = *p++;
            }
        }
        wasmcp_w_key(vars, name);
        wasmcp_w_string_n(vars, val, (size_t)(q - val));
    }
    wasmcp_w_object_end(vars);
    return true;
}
