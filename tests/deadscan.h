/* deadscan.h: the tests' own reading of who is dead when, straight from a demo's bytes by the
 * formats' rules and independent of qdemo's decoders: QuakeWorld .mvd svc_playerinfo DF_DEAD /
 * DF_GIB bits, Quake II svc_frame + svc_playerinfo pm_type. Bounded reads; a file that does
 * not parse gives what was read before the damage. */
#ifndef QD_DEADSCAN_H
#define QD_DEADSCAN_H

#include <stddef.h>
#include <stdint.h>

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

#define DS_DEAD 1u /* DF_DEAD */
#define DS_GIB 2u  /* DF_GIB */

/* bits[slot] (slot < 32) = DS_DEAD | DS_GIB of the player's last svc_playerinfo at or before
 * demo time t (seconds since the file's start), 0 when none. Returns the playerinfos read. */
static inline int ds_mvd_dead_at(const uint8_t *d, size_t n, double t, uint8_t bits[32])
{
    size_t pos = 0;
    uint64_t ms = 0;
    int count = 0;
    for (int i = 0; i < 32; i++)
        bits[i] = 0;
    while (n - pos >= 2) {
        unsigned kind = d[pos + 1] & 7u;
        ms += d[pos];
        pos += 2;
        if ((double)ms * 0.001 > t)
            break;
        if (kind == 2) {
            pos = n - pos < 8 ? n : pos + 8;
            continue;
        }
        uint32_t to_mask = 1;
        if (kind == 3) {
            if (n - pos < 4)
                break;
            to_mask = ds_le32(d + pos);
            pos += 4;
        }
        if (kind == 0 || n - pos < 4)
            break;
        uint32_t len = ds_le32(d + pos);
        pos += 4;
        if (len > n - pos)
            break;
        const uint8_t *m = d + pos;
        pos += len;
        if (kind == 5 || to_mask == 0)
            continue;
        size_t i = 0;
        while (len - i >= 5 && m[i] == 42) {
            unsigned slot = m[i + 1], flags = m[i + 2] | (unsigned)m[i + 3] << 8;
            size_t need = 5;
            for (unsigned b = 0; b < 6; b++)
                need += (flags >> b & 1u) * 2u;
            need += !!(flags & 1u << 11) + !!(flags & 1u << 7) + !!(flags & 1u << 6) +
                    !!(flags & 1u << 10);
            if (need > len - i)
                break;
            if (slot < 32)
                bits[slot] = (uint8_t)(flags >> 8 & 3u);
            count++;
            i += need;
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
