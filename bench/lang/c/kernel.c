/* The bench's CPU-bound work in C: lang/kernel/kernel.go, line for line. */
#include "kernel.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t *p;
    size_t len;
} buffer;

static void append(buffer *b, const char *s, size_t n) {
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void append_uint(buffer *b, uint64_t v) {
    char tmp[20];
    int i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    append(b, tmp + i, sizeof tmp - (size_t)i);
}

enum { KEY_OTHER, KEY_ID, KEY_N };

static uint64_t scan(const uint8_t *b, size_t len) {
    uint64_t sum = 0, id = 0;
    int key = KEY_OTHER;
    for (size_t i = 0; i < len;) {
        uint8_t c = b[i];
        if (c == '"') {
            size_t start = i + 1;
            i = start;
            while (i < len && b[i] != '"') {
                if (b[i] == '\\') i++;
                i++;
            }
            size_t end = i;
            i++; /* the closing quote */
            if (i < len && b[i] == ':') {
                if (end - start == 2 && b[start] == 'i' && b[start + 1] == 'd')
                    key = KEY_ID;
                else if (end - start == 1 && b[start] == 'n')
                    key = KEY_N;
                else
                    key = KEY_OTHER;
            }
        } else if (c >= '0' && c <= '9') {
            uint64_t v = 0;
            while (i < len && b[i] >= '0' && b[i] <= '9') {
                v = v * 10 + (uint64_t)(b[i] - '0');
                i++;
            }
            if (key == KEY_ID)
                id = v;
            else if (key == KEY_N && v % 3 == 0)
                sum += id;
        } else {
            i++;
        }
    }
    return sum;
}

uint64_t kernel_scan(int n) {
    buffer b = {malloc(48 * (size_t)n + 2), 0};
    append(&b, "[", 1);
    for (int i = 0; i < n; i++) {
        if (i > 0) append(&b, ",", 1);
        append(&b, "{\"id\":", 6);
        append_uint(&b, (uint64_t)i);
        append(&b, ",\"name\":\"item-", 14);
        append_uint(&b, (uint64_t)i);
        append(&b, "\",\"n\":", 6);
        append_uint(&b, (uint64_t)i * 7919 % 10007);
        append(&b, "}", 1);
    }
    append(&b, "]", 1);
    uint64_t r = scan(b.p, b.len) + b.len;
    free(b.p);
    return r;
}

static int32_t myers(const int32_t *a, int32_t n, const int32_t *b, int32_t m) {
    int32_t limit = n + m;
    int32_t *v = calloc(2 * (size_t)limit + 2, sizeof *v);
    int32_t off = limit + 1;
    for (int32_t d = 0; d <= limit; d++) {
        for (int32_t k = -d; k <= d; k += 2) {
            int32_t x;
            if (k == -d || (k != d && v[off + k - 1] < v[off + k + 1]))
                x = v[off + k + 1];
            else
                x = v[off + k - 1] + 1;
            int32_t y = x - k;
            while (x < n && y < m && a[x] == b[y]) {
                x++;
                y++;
            }
            v[off + k] = x;
            if (x >= n && y >= m) {
                free(v);
                return d;
            }
        }
    }
    free(v);
    return limit;
}

uint64_t kernel_diff(int n) {
    int32_t *a = malloc((size_t)n * sizeof *a);
    int32_t *b = malloc(((size_t)n + (size_t)n / 50 + 1) * sizeof *b);
    int32_t m = 0;
    for (int32_t i = 0; i < n; i++) {
        a[i] = i;
        if (i % 50 != 17) {
            b[m++] = i;
            continue;
        }
        switch (i / 50 % 3) {
        case 0:
            b[m++] = -i - 1;
            break;
        case 1: /* dropped */
            break;
        case 2:
            b[m++] = i;
            b[m++] = -i - 1;
            break;
        }
    }
    uint64_t r = (uint64_t)myers(a, n, b, m);
    free(a);
    free(b);
    return r;
}
