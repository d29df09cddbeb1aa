/* mdl_common.c: the palette, the average-colour helper and the entities-text parser shared
 * by the model loaders. */
#include <stdlib.h>
#include <string.h>

#include "model_local.h"

int mdl_palette_from_lmp(const uint8_t *data, size_t len, uint32_t out[256])
{
    if (!data || len < 768) {
        mdl_palette_grey(out);
        return 0;
    }
    for (int i = 0; i < 256; i++)
        out[i] = MDL_RGB(data[i * 3], data[i * 3 + 1], data[i * 3 + 2]);
    return 1;
}

void mdl_palette_grey(uint32_t out[256])
{
    for (int i = 0; i < 256; i++)
        out[i] = MDL_RGB(i, i, i);
}

void *mdl_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    return calloc(n ? n : 1, size ? size : 1);
}

qd_err mdl_file_fail(const mdl_file *f, qd_err code, uint64_t ofs, const char *what)
{
    return qd_fail(f->err, code, ofs, "%s: %s", f->name, what);
}

void mdl_copy_name(char *dst, size_t cap, const char *src, size_t n)
{
    size_t i = 0;
    for (; i < n && i + 1 < cap && src[i]; i++)
        dst[i] = src[i];
    dst[i] = 0;
}

uint32_t mdl_average_color(const uint8_t *pix, size_t n, const uint32_t palette[256],
                           int skip255, float *coverage)
{
    uint64_t r = 0, g = 0, b = 0, count = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = pix[i];
        if (skip255 && c == 255)
            continue;
        uint32_t p = palette ? palette[c] : MDL_RGB(c, c, c);
        r += p & 255;
        g += p >> 8 & 255;
        b += p >> 16 & 255;
        count++;
    }
    if (coverage)
        *coverage = n ? (float)count / (float)n : 0.0f;
    if (!count)
        return MDL_GREY;
    return MDL_RGB((unsigned)((r + count / 2) / count), (unsigned)((g + count / 2) / count),
                   (unsigned)((b + count / 2) / count));
}

const char *mdl_ent_token(const char *p, char *tok, size_t cap, int *quoted)
{
    size_t n = 0;
    *quoted = 0;
    tok[0] = 0;
    for (;;) {
        while (*p && (unsigned char)*p <= ' ')
            p++;
        if (!*p)
            return NULL;
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                p++;
            continue;
        }
        break;
    }
    if (*p == '"') {
        *quoted = 1;
        p++;
        while (*p && *p != '"') {
            if (n + 1 < cap)
                tok[n++] = *p;
            p++;
        }
        if (*p == '"')
            p++;
    } else if (*p == '{' || *p == '}') {
        tok[n++] = *p++;
    } else {
        while ((unsigned char)*p > ' ' && *p != '{' && *p != '}' && *p != '"') {
            if (n + 1 < cap)
                tok[n++] = *p;
            p++;
        }
    }
    tok[n] = 0;
    return p;
}

/* Quake's entities text: { "key" "value" ... } blocks. While one entity is read, its
 * classname and the wanted key's value are kept; at its closing brace the classname is
 * compared. */
#define ENT_TOKEN 1024

int mdl_entity_value(const char *entities, const char *classname, int nth, const char *key,
                     char *out, size_t cap)
{
    static const size_t tokcap = ENT_TOKEN;
    char tok[ENT_TOKEN], cls[ENT_TOKEN], val[ENT_TOKEN], k[ENT_TOKEN];
    const char *p = entities;
    int quoted, seen = 0;
    if (cap)
        out[0] = 0;
    if (!p || !cap)
        return 0;
    while ((p = mdl_ent_token(p, tok, tokcap, &quoted)) != NULL) {
        if (quoted || strcmp(tok, "{") != 0)
            continue; /* stray token between entities: skip it */
        int have_val = 0;
        cls[0] = 0;
        val[0] = 0;
        for (;;) {
            p = mdl_ent_token(p, k, tokcap, &quoted);
            if (!p || (!quoted && strcmp(k, "}") == 0))
                break;
            if (!quoted && strcmp(k, "{") == 0)
                break; /* damaged text: an entity never closed */
            p = mdl_ent_token(p, tok, tokcap, &quoted);
            if (!p)
                break;
            if (strcmp(k, "classname") == 0)
                mdl_copy_name(cls, sizeof cls, tok, sizeof tok);
            if (strcmp(k, key) == 0 && !have_val) {
                mdl_copy_name(val, sizeof val, tok, sizeof tok);
                have_val = 1;
            }
        }
        if ((!classname || strcmp(cls, classname) == 0) && seen++ == nth) {
            if (!have_val)
                return 0;
            mdl_copy_name(out, cap, val, sizeof val);
            return 1;
        }
        if (!p)
            break;
    }
    return 0;
}
