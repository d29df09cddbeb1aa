/* demo_unpack.h: demos inside containers, unpacked before a decoder sees them. */
#ifndef QD_DEMO_UNPACK_H
#define QD_DEMO_UNPACK_H

#include <stddef.h>
#include <stdint.h>

#include "../common/err.h"

typedef struct demo_unpacked {
    uint8_t *data;    /* malloc'd demo bytes with a spare 0 after them; NULL: not a container */
    size_t len;
    char member[256]; /* the demo's own name: the zip member, or the .gz file's without .gz */
    qd_error note;    /* code QD_OK, or the damage that ended a gzip stream early (its offset
                       * in the container): what came out before it is in data */
} demo_unpacked;

/* 1 when name ends in a demo's extension (case ignored): Quake's .dem, QuakeWorld's .qwd
 * and .mvd, Quake II's .dm2 and Q2PRO's .mvd2, Quake III's .dm3 and .dm_NN. */
int demo_is_demo_name(const char *name);

/* If data (a file named label) is a gzip stream or a zip archive, unpack the demo in it into
 * out: gzip members inflated in turn (a stream damaged or cut after some output keeps that
 * output and sets out->note); a zip must hold exactly one file with a demo's extension
 * (QD_ERR_UNSUPPORTED names how many it holds). At most max bytes come out (QD_ERR_LIMIT;
 * max 0: none).
 * Other bytes: QD_OK with out->data NULL. Errors name label and the container's offset. */
qd_err demo_unpack(const char *label, const uint8_t *data, size_t len, size_t max,
                   demo_unpacked *out, qd_error *err);

#endif
