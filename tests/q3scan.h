/* q3scan.h: the tests' own walk of a Quake III demo's framing, apart from qdemo's decoder
 * (only its Huffman bit reader, q3_local.h, is shared): blocks [seq][len][message] to the
 * -1/-1 end [DM68 3]; in each message, after the reliable acknowledge, server commands
 * (svc_serverCommand: seq, string) come before the svc_snapshot whose first field is the
 * server time [DM68 10]. Each command is handed over with the server time of its message's
 * snapshot (the last one before it when its message holds none; -1 before any). */
#ifndef QD_Q3SCAN_H
#define QD_Q3SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../src/demo/q3_local.h"

typedef struct q3scan {
    int blocks, snapshots, ended; /* snapshots: of a new server time */
    int32_t first, last;          /* their first and last server time */
} q3scan;

typedef void (*q3scan_fn)(void *ctx, int32_t server_ms, const char *command);

/* Called for each configstring of a gamestate: svc_gamestate (2), its 32-bit command
 * sequence, then svc_configstring (3) records of a 16-bit index and a string, before the
 * baselines [DM68 8]. */
typedef void (*q3scan_cs_fn)(void *ctx, int index, const char *value);

enum { Q3SCAN_CMDS = 16, Q3SCAN_LEN = 1024 };

/* The walk; fn gets each new server command, cs_fn each gamestate configstring (either may
 * be NULL), both with ctx. */
static inline void q3scan_file(const uint8_t *d, size_t len, q3scan *w, q3scan_fn fn,
                               q3scan_cs_fn cs_fn, void *ctx)
{
    static char cmds[Q3SCAN_CMDS][Q3SCAN_LEN];
    memset(w, 0, sizeof *w);
    size_t pos = 0;
    while (len - pos >= 8) {
        int32_t seq = (int32_t)(d[pos] | d[pos + 1] << 8 | d[pos + 2] << 16 |
                                (uint32_t)d[pos + 3] << 24);
        int32_t n = (int32_t)(d[pos + 4] | d[pos + 5] << 8 | d[pos + 6] << 16 |
                              (uint32_t)d[pos + 7] << 24);
        if (seq == -1 && n == -1) {
            w->ended = 1;
            return;
        }
        if (n <= 0 || (size_t)n > len - pos - 8)
            return;
        w->blocks++;
        q3_bits b;
        q3_bits_init(&b, d + pos + 8, (size_t)n);
        (void)q3_read_bits(&b, 32);
        int ncmd = 0;
        int32_t when = w->snapshots ? w->last : -1;
        for (int cmd = q3_read_bits(&b, 8); !q3_bits_err(&b); cmd = q3_read_bits(&b, 8)) {
            if (cmd == Q3_SVC_SERVERCOMMAND) {
                char *s = cmds[ncmd < Q3SCAN_CMDS ? ncmd : Q3SCAN_CMDS - 1];
                size_t k = 0;
                (void)q3_read_bits(&b, 32);
                for (int ch = q3_huff_byte(&b); ch && !q3_bits_err(&b); ch = q3_huff_byte(&b))
                    if (k + 1 < Q3SCAN_LEN)
                        s[k++] = (char)ch;
                s[k] = 0;
                ncmd += ncmd < Q3SCAN_CMDS;
            } else {
                if (cmd == Q3_SVC_GAMESTATE && cs_fn) {
                    static char v[16384];
                    (void)q3_read_bits(&b, 32);
                    while (q3_read_bits(&b, 8) == Q3_SVC_CONFIGSTRING && !q3_bits_err(&b)) {
                        int index = q3_read_bits(&b, 16);
                        size_t k = 0;
                        for (int ch = q3_huff_byte(&b); ch && !q3_bits_err(&b);
                             ch = q3_huff_byte(&b))
                            if (k + 1 < sizeof v)
                                v[k++] = (char)ch;
                        v[k] = 0;
                        cs_fn(ctx, index, v);
                    }
                }
                if (cmd == Q3_SVC_SNAPSHOT) {
                    int32_t t = q3_read_bits(&b, 32);
                    if (!w->snapshots || t > w->last)
                        w->snapshots++;
                    if (w->snapshots == 1)
                        w->first = t;
                    w->last = t;
                    when = t;
                }
                break; /* gamestate or snapshot: the rest is not needed */
            }
        }
        for (int i = 0; fn && i < ncmd; i++)
            fn(ctx, when, cmds[i]);
        pos += 8 + (size_t)n;
    }
}

/* The server times of the first eight commands holding text (q3scan_file's fn with this
 * as its ctx). */
typedef struct q3scan_find {
    const char *text;
    int32_t ms[8];
    int n;
} q3scan_find;

static inline void q3scan_find_fn(void *ctx, int32_t server_ms, const char *command)
{
    q3scan_find *f = ctx;
    if (strstr(command, f->text) && f->n < 8)
        f->ms[f->n++] = server_ms;
}

/* The demo times (seconds after the first snapshot) of the commands holding text in the
 * file at path, into t[0..8); their count, -1 when the file cannot be read. */
static inline int q3scan_times(const char *path, const char *text, double t[8])
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    static uint8_t buf[16 << 20];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    q3scan w;
    q3scan_find found = {text, {0}, 0};
    q3scan_file(buf, len, &w, q3scan_find_fn, NULL, &found);
    for (int i = 0; i < found.n; i++)
        t[i] = (found.ms[i] - w.first) / 1000.0;
    return found.n;
}

#endif
