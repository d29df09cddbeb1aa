/* deadscan.h: the tests' own reading of who is dead when, straight from a demo's bytes by the
 * formats' rules and independent of qdemo's decoders: QuakeWorld .mvd svc_playerinfo DF_DEAD /
 * DF_GIB bits, Quake II svc_frame + svc_playerinfo pm_type. Bounded reads; a file that does
 * not parse gives what was read before the damage. */
#ifndef QD_DEADSCAN_H
#define QD_DEADSCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t ds_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- QuakeWorld .mvd ----
 * Blocks (mvdsv sv_demo.c): a byte of milliseconds since the last block, a byte of type
 * (low 3 bits: 2 dem_set + 8 bytes; 3 dem_multiple + a 32-bit player mask; 1, 4, 5, 6
 * dem_read/single/stats/all), a 32-bit length and the messages. mvdsv writes a frame's
 * svc_playerinfo (42) messages first in their block: player byte, 16-bit DF_* flags, frame
 * byte, then a short per DF_ORIGIN (1 << 0..2) and DF_ANGLES (1 << 3..5) bit, a byte per
 * DF_MODEL (1 << 11), DF_SKINNUM (1 << 7), DF_EFFECTS (1 << 6), DF_WEAPONFRAME (1 << 10).
 * DF_DEAD is 1 << 8, DF_GIB 1 << 9 (QW protocol.h). Stats blocks and a dem_multiple to
 * nobody (MVD_PEXT1_HIDDEN_MESSAGES data) hold no playerinfo. Short coordinates: a file
 * with MVD_PEXT1_FLOATCOORDS is not for this reader. */

/* A walk over an .mvd's blocks (the layout above), the one being looked at in its fields. */
typedef struct ds_mvd_walk {
    size_t pos;
    uint64_t ms;         /* the block's time, in milliseconds since the file's start */
    unsigned type;       /* its type byte */
    const uint8_t *msg;  /* its messages (NULL for a dem_set) */
    uint32_t len;        /* their length */
    uint32_t to_mask;    /* a dem_multiple's players (1 for the rest) */
} ds_mvd_walk;

/* The next block at or before demo time t (seconds) into w; 0 past t, at the end or on
 * damage. */
static inline int ds_mvd_next(const uint8_t *d, size_t n, double t, ds_mvd_walk *w)
{
    size_t p = w->pos;
    if (n - p < 2 || (double)(w->ms + d[p]) * 0.001 > t)
        return 0;
    w->ms += d[p];
    w->type = d[p + 1];
    unsigned kind = w->type & 7u;
    p += 2;
    w->msg = NULL;
    w->len = 0;
    w->to_mask = 1;
    if (kind == 2) {
        w->pos = n - p < 8 ? n : p + 8;
        return 1;
    }
    if (kind == 3) {
        if (n - p < 4)
            return 0;
        w->to_mask = ds_le32(d + p);
        p += 4;
    }
    if (kind == 0 || n - p < 4)
        return 0;
    w->len = ds_le32(d + p);
    p += 4;
    if (w->len > n - p)
        return 0;
    w->msg = d + p;
    w->pos = p + w->len;
    return 1;
}

#define DS_DEAD 1u /* DF_DEAD */
#define DS_GIB 2u  /* DF_GIB */

/* bits[slot] (slot < 32) = DS_DEAD | DS_GIB of the player's last svc_playerinfo at or before
 * demo time t (seconds since the file's start), 0 when none. Returns the playerinfos read. */
static inline int ds_mvd_dead_at(const uint8_t *d, size_t n, double t, uint8_t bits[32])
{
    ds_mvd_walk w = {0};
    int count = 0;
    memset(bits, 0, 32);
    while (ds_mvd_next(d, n, t, &w)) {
        const uint8_t *m = w.msg;
        if (!m || (w.type & 7u) == 5 || w.to_mask == 0)
            continue;
        size_t i = 0;
        while (w.len - i >= 5 && m[i] == 42) {
            unsigned slot = m[i + 1], flags = m[i + 2] | (unsigned)m[i + 3] << 8;
            size_t need = 5;
            for (unsigned b = 0; b < 6; b++)
                need += (flags >> b & 1u) * 2u;
            need += !!(flags & 1u << 11) + !!(flags & 1u << 7) + !!(flags & 1u << 6) +
                    !!(flags & 1u << 10);
            if (need > w.len - i)
                break;
            if (slot < 32)
                bits[slot] = (uint8_t)(flags >> 8 & 3u);
            count++;
            i += need;
        }
    }
    return count;
}

/* stats[0..32) of player slot from its dem_stats blocks (type 5 | slot << 3) at or before
 * demo time t: svc_updatestat (3: stat byte, value byte, [QWD] 5.4) and svc_updatestatlong (stat
 * byte, 32-bit value: 0x26, [QWD] 5.39), the only messages mvdsv writes in them.
 * Returns the stat messages read; a stat never sent stays 0. */
static inline int ds_mvd_stats_at(const uint8_t *d, size_t n, double t, int slot,
                                  int32_t stats[32])
{
    ds_mvd_walk w = {0};
    int count = 0;
    memset(stats, 0, 32 * sizeof stats[0]);
    while (ds_mvd_next(d, n, t, &w)) {
        if (!w.msg || (w.type & 7u) != 5 || (int)(w.type >> 3) != slot)
            continue;
        for (size_t i = 0; i < w.len; count++) {
            const uint8_t *m = w.msg + i;
            if (m[0] == 3 && w.len - i >= 3) {
                if (m[1] < 32)
                    stats[m[1]] = m[2];
                i += 3;
            } else if (m[0] == 0x26 && w.len - i >= 6) {
                if (m[1] < 32)
                    stats[m[1]] = (int32_t)ds_le32(m + 2);
                i += 6;
            } else {
                break;
            }
        }
    }
    return count;
}

/* ---- Quake II .dm2 ----
 * Blocks: a 32-bit length (-1 ends) and the messages. A frame is svc_frame (20): the 32-bit
 * serverframe, the 32-bit deltaframe (-1, or an earlier frame), protocol 34's suppress byte,
 * the areabits length byte and bytes; then svc_playerinfo (17): 16-bit PS_* flags, and the
 * pm_type byte first when PS_M_TYPE (1) is set, else it stays as in the delta source
 * ([DM2 3.18, 3.21]). The frame is found by that shape (a serverframe above the last one and
 * its delta source just before it): no other message need be understood. Frames are 0.1 s
 * apart (10 Hz servers): the first one found is time 0. */
typedef struct ds_q2_run {
    double t0, t1; /* [t0, t1): the frames with this pm_type */
    int pm_type;
} ds_q2_run;

/* The runs of frames whose pm_type is not PM_NORMAL (0), at most cap; returns how many. */
static inline int ds_q2_pm_runs(const uint8_t *d, size_t n, ds_q2_run *runs, int cap)
{
    size_t pos = 0;
    int64_t last = -1, first = -1;
    int pm = 0, nruns = 0;
    double since = 0;
    while (n - pos >= 4) {
        uint32_t len = ds_le32(d + pos);
        pos += 4;
        if (len == 0xffffffffu || len > n - pos)
            break;
        const uint8_t *m = d + pos;
        pos += len;
        for (size_t i = 0; len >= 12 && i <= len - 12; i++) {
            if (m[i] != 20)
                continue;
            int32_t sf = (int32_t)ds_le32(m + i + 1), df = (int32_t)ds_le32(m + i + 5);
            if (sf <= last || (df != -1 && df != sf - 1))
                continue;
            size_t j = i + 10; /* past the suppress byte */
            j += 1u + m[j];
            if (j + 3 > len || m[j] != 17)
                continue;
            unsigned flags = m[j + 1] | (unsigned)m[j + 2] << 8;
            if (first < 0)
                first = sf;
            last = sf;
            double t = (double)(sf - first) * 0.1;
            int now = (flags & 1u) && j + 3 < len ? m[j + 3] : pm;
            if (now != pm) {
                if (pm != 0 && nruns < cap)
                    runs[nruns++] = (ds_q2_run){since, t, pm};
                pm = now;
                since = t;
            }
            i = j;
        }
    }
    return nruns;
}

#endif
