/* memread.h: a model read callback (mdl_read_fn) over one buffer in memory, served under a
 * few names: how the fuzz targets and tests hand their bytes to r_assets_load. */
#ifndef QD_MEMREAD_H
#define QD_MEMREAD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/model/model.h"

typedef struct memread {
    const uint8_t *data;
    size_t size;
    const char *names[6]; /* the names the buffer answers to; the rest are not found */
    const char *text_names[2], *texts[2]; /* ... and files of fixed text */
    const uint8_t *rest;  /* not NULL: what every other name reads (rest_size bytes) */
    size_t rest_size;
} memread;

/* mdl_read_fn over a memread: a malloc'd copy of the buffer for its names, of a text for
 * its name, of the rest for any other name when there is one. */
static qd_err memread_fn(void *ctx, const char *name, uint8_t **data, size_t *len, qd_error *err)
{
    const memread *m = ctx;
    for (int i = 0; i < 2 && m->text_names[i]; i++)
        if (strcmp(name, m->text_names[i]) == 0) {
            size_t n = strlen(m->texts[i]);
            if (!(*data = malloc(n ? n : 1)))
                return QD_ERR_NOMEM;
            memcpy(*data, m->texts[i], n);
            *len = n;
            return QD_OK;
        }
    int found = 0;
    for (int i = 0; i < 6 && m->names[i]; i++)
        found |= strcmp(name, m->names[i]) == 0;
    if (!found && !m->rest)
        return qd_fail(err, QD_ERR_NOT_FOUND, 0, "%s: not found", name);
    const uint8_t *src = found ? m->data : m->rest;
    size_t n = found ? m->size : m->rest_size;
    *data = malloc(n ? n : 1);
    if (!*data)
        return QD_ERR_NOMEM;
    if (n)
        memcpy(*data, src, n);
    *len = n;
    return QD_OK;
}

#endif
