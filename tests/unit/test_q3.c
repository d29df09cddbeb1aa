/* test_q3.c: the Quake III .dm_NN decoder: the Huffman code and the delta readers on bits
 * built here (encoded with the same tree), a whole demo built here, and every real
 * .dm_66 .. .dm_73. The decoder is driven through its demo_decoder functions directly. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../src/demo/demo.h"
#include "../../src/demo/q3_local.h"
#include "../../src/render/render.h"
#include "../q3scan.h"
#include "../test.h"
#include "../testbuf.h"


/* ---- a bit writer: MSG_WriteBits [DM68 4] with the codes of q3_huff_nodes ---- */

typedef struct bw {
    uint8_t b[65536];
    size_t bit;
} bw;

static uint32_t code_bits[256];
static int code_len[256];

/* Walk the tree: each leaf's path, first bit in bit 0. */
static void make_codes(int node, uint32_t path, int depth)
{
    for (int k = 0; k < 2; k++) {
        int v = q3_huff_nodes[node][k];
        uint32_t p = path | (uint32_t)k << depth;
        if (v < 0) {
            if (v != -257) {
                code_bits[-v - 1] = p;
                code_len[-v - 1] = depth + 1;
            }
        } else {
            make_codes(v, p, depth + 1);
        }
    }
}

static void codes(void)
{
    if (!code_len[0])
        make_codes(0, 0, 0);
}

static void wbit(bw *w, int v)
{
    if (w->bit / 8 >= sizeof w->b)
        return;
    if (!(w->bit & 7))
        w->b[w->bit >> 3] = 0;
    w->b[w->bit >> 3] |= (uint8_t)((v & 1) << (w->bit & 7));
    w->bit++;
}

static void whuff(bw *w, int ch)
{
    codes();
    for (int i = 0; i < code_len[ch & 255]; i++)
        wbit(w, (int)(code_bits[ch & 255] >> i) & 1);
}

static void wbits(bw *w, int32_t value, int bits)
{
    unsigned n = (unsigned)(bits < 0 ? -bits : bits);
    uint32_t v = (uint32_t)value;
    if (n < 32)
        v &= (1u << n) - 1;
    unsigned raw = n & 7;
    for (unsigned i = 0; i < raw; i++, v >>= 1)
        wbit(w, (int)(v & 1));
    for (unsigned i = raw; i < n; i += 8, v >>= 8)
        whuff(w, (int)(v & 255));
}

static void wstr(bw *w, const char *s)
{
    do
        wbits(w, (unsigned char)*s, 8);
    while (*s++);
}

static size_t wbytes(const bw *w) { return (w->bit + 7) / 8; }

/* ---- Huffman ---- */

TEST(q3_huff_tree_is_complete)
{
    codes();
    /* Every byte has a code of 1..11 bits, the codes fill the tree (Kraft sum 1 with NYT),
     * and byte 0 (the commonest) is 2 bits: "0" then "1" [DM68 7 huffCounts]. */
    double kraft = 1.0 / 2048; /* the NYT leaf: 11 bits */
    for (int i = 0; i < 256; i++) {
        CHECK_MSG(code_len[i] >= 1 && code_len[i] <= 11, "byte %d: %d bits", i, code_len[i]);
        kraft += ldexp(1.0, -code_len[i]);
    }
    CHECK_MSG(fabs(kraft - 1.0) < 1e-12, "Kraft sum %f", kraft);
    CHECK_EQ(code_len[0], 2);
    CHECK_EQ(code_bits[0], 2);
}

TEST(q3_huff_known_patterns)
{
    /* Byte 0 is the bits 0,1: one byte 0b00000010 holds it; a 2-bit raw field before it
     * shifts it. */
    uint8_t one[1] = {0x02};
    q3_bits b;
    q3_bits_init(&b, one, 1);
    CHECK_EQ(q3_huff_byte(&b), 0);
    CHECK_EQ(b.bit, 2);
    CHECK(!q3_bits_err(&b));
    uint8_t two[1] = {0x0b}; /* raw bits 1,1 then 0,1 */
    q3_bits_init(&b, two, 1);
    CHECK_EQ(q3_read_bits(&b, 10), 3); /* 2 raw bits = 3, then byte 0 << 2 */
    CHECK_EQ(b.bit, 4);
    /* every byte, alone and in a run, decodes back */
    bw *w = calloc(1, sizeof *w);
    CHECK(w);
    for (int i = 0; i < 256; i++)
        wbits(w, i, 8);
    for (int i = 0; i < 256; i++)
        wbits(w, (i * 37) & 255, 8);
    q3_bits_init(&b, w->b, wbytes(w));
    for (int i = 0; i < 256; i++)
        CHECK_EQ(q3_read_bits(&b, 8), i);
    for (int i = 0; i < 256; i++)
        CHECK_EQ(q3_read_bits(&b, 8), (i * 37) & 255);
    CHECK(!q3_bits_err(&b));
    free(w);
}

/* ---- the reader bit by bit: the tree walk of q3_huff_nodes, as a reference for the
 * table-driven reader (same results, cursor, error flags, also at the end and on NYT) ---- */

typedef struct ref_bits {
    const uint8_t *p;
    size_t len, bit;
    int err, bad;
} ref_bits;

static int ref_bit(ref_bits *r)
{
    if (r->err || r->bit >> 3 >= r->len) {
        r->err = 1;
        return 0;
    }
    int v = (r->p[r->bit >> 3] >> (r->bit & 7)) & 1;
    r->bit++;
    return v;
}

static int ref_huff(ref_bits *r)
{
    int n = 0;
    for (int depth = 0; depth < 32; depth++) {
        int v = q3_huff_nodes[n][ref_bit(r)];
        if (r->err)
            return 0;
        if (v < 0) {
            if (v == -257) {
                r->bad = 1;
                return 0;
            }
            return -v - 1;
        }
        n = v;
    }
    r->bad = 1;
    return 0;
}

static int32_t ref_read_bits(ref_bits *r, int bits)
{
    unsigned n = (unsigned)(bits < 0 ? -bits : bits), raw = n & 7, i;
    uint32_t v = 0;
    for (i = 0; i < raw; i++)
        v |= (uint32_t)ref_bit(r) << i;
    for (i = raw; i < n; i += 8)
        v |= (uint32_t)ref_huff(r) << i;
    if (n < 32) {
        v &= (1u << n) - 1;
        if (bits < 0 && (v & (1u << (n - 1))))
            v |= ~((1u << n) - 1);
    }
    return (int32_t)v;
}

static uint32_t lcg(uint32_t *x)
{
    *x = *x * 1664525u + 1013904223u;
    return *x >> 8;
}

/* Random bytes, sometimes with the NYT code (eleven bits 0,0,0,0,0,0,0,0,1,0,0 from the
 * root, through nodes 1 .. 10) written at a random bit. */
static size_t random_msg(uint8_t *m, size_t cap, uint32_t *seed)
{
    size_t len = lcg(seed) % cap;
    for (size_t i = 0; i < len; i++)
        m[i] = (uint8_t)lcg(seed);
    if (len >= 2 && lcg(seed) % 4 == 0) {
        size_t at = lcg(seed) % (len * 8 - 10);
        if (at + 11 <= len * 8)
            for (int k = 0; k < 11; k++) {
                size_t bit = at + (size_t)k;
                int v = k == 8;
                m[bit >> 3] = (uint8_t)((m[bit >> 3] & ~(1u << (bit & 7))) | (unsigned)v << (bit & 7));
            }
    }
    return len;
}

TEST(q3_huff_table_equals_tree_walk)
{
    /* the NYT path really is the one random_msg writes */
    {
        int n = 0, v = 0;
        for (int k = 0; k < 11; k++) {
            v = q3_huff_nodes[n][k == 8];
            if (v < 0)
                break;
            n = v;
        }
        CHECK_EQ(v, -257);
    }
    static const int widths[] = {1, 2, 3, 4, 5, 7, 8, 9, 10, 13, 16, -16, 19, 24, 32, -8, 12};
    uint8_t m[48];
    uint32_t seed = 12345;
    for (int round = 0; round < 20000; round++) {
        size_t len = random_msg(m, sizeof m, &seed);
        q3_bits b;
        ref_bits r = {m, len, 0, 0, 0};
        q3_bits_init(&b, m, len);
        for (int op = 0; op < 64; op++) {
            int kind = (int)(lcg(&seed) % 4);
            int32_t got, want;
            if (kind == 0) {
                got = q3_bit(&b);
                want = ref_bit(&r);
            } else if (kind == 1) {
                got = q3_huff_byte(&b);
                want = ref_huff(&r);
            } else {
                int wd = widths[lcg(&seed) % (sizeof widths / sizeof widths[0])];
                got = q3_read_bits(&b, wd);
                want = ref_read_bits(&r, wd);
            }
            CHECK_MSG(got == want && b.bit == r.bit && b.r.err == r.err && b.bad_sym == r.bad,
                      "round %d op %d kind %d: %d vs %d, bit %zu vs %zu, err %d/%d vs %d/%d",
                      round, op, kind, got, want, b.bit, r.bit, b.r.err, b.bad_sym, r.err,
                      r.bad);
            if (r.err)
                break;
        }
    }
}

TEST(q3_delta_entity_equals_bitwise)
{
    /* the field walk skips runs of unchanged fields at once: it must read what a walk bit
     * by bit reads, up to the end of the message */
    uint8_t m[64];
    uint32_t seed = 777;
    for (int round = 0; round < 20000; round++) {
        size_t len = random_msg(m, sizeof m, &seed);
        /* mostly zero bits, as in real deltas */
        for (size_t i = 0; i < len; i++)
            if (lcg(&seed) % 3)
                m[i] &= (uint8_t)lcg(&seed);
        q3_bits b;
        q3_bits_init(&b, m, len);
        q3_ent from, to;
        memset(&from, 0, sizeof from);
        for (int i = 0; i < Q3_ES_COUNT; i++)
            from.f[i] = (int32_t)lcg(&seed);
        int ret = q3_read_delta_entity(&b, &from, &to, 5);
        /* the reference */
        ref_bits r = {m, len, 0, 0, 0};
        q3_ent want = from;
        int wret = 0;
        want.number = 5;
        if (ref_bit(&r)) {
            memset(&want, 0, sizeof want);
            want.number = Q3_ENTITYNUM_NONE;
            wret = 1;
        } else if (ref_bit(&r)) {
            int n = ref_read_bits(&r, 8);
            if (n > Q3_ES_COUNT) {
                wret = -1;
            } else {
                for (int i = 0; i < n && !r.err && !r.bad; i++) {
                    if (!ref_bit(&r))
                        continue;
                    if (!ref_bit(&r)) {
                        want.f[i] = 0;
                        continue;
                    }
                    int bits = q3_es_fields[i].bits;
                    if (bits) {
                        want.f[i] = ref_read_bits(&r, bits);
                    } else if (!ref_bit(&r)) {
                        float f = (float)(ref_read_bits(&r, 13) - 4096);
                        memcpy(&want.f[i], &f, 4);
                    } else {
                        want.f[i] = ref_read_bits(&r, 32);
                    }
                }
            }
        }
        CHECK_MSG(ret == wret && b.bit == r.bit && b.r.err == r.err && b.bad_sym == r.bad,
                  "round %d: ret %d vs %d, bit %zu vs %zu", round, ret, wret, b.bit, r.bit);
        if (ret == 0)
            CHECK_MSG(memcmp(to.f, want.f, sizeof to.f) == 0,
                      "round %d: fields differ", round);
    }
}

TEST(q3_read_bits_widths_and_signs)
{
    static const struct {
        int32_t v;
        int bits;
    } f[] = {{1, 1},       {0, 1},        {5, 3},         {1023, 10},       {-1, -8},
             {-300, -16},  {12345, 16},   {-7, -16},      {0x7ffff, 19},    {-123456, 32},
             {0x12345678, 32}, {4095, 13}, {-128, -8},    {127, -8}};
    bw *w = calloc(1, sizeof *w);
    CHECK(w);
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        wbits(w, f[i].v, f[i].bits);
    q3_bits b;
    q3_bits_init(&b, w->b, wbytes(w));
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        CHECK_MSG(q3_read_bits(&b, f[i].bits) == f[i].v, "field %zu: %d bits", i, f[i].bits);
    CHECK(!q3_bits_err(&b));
    /* past the end: zeros and a sticky error, never a read outside */
    for (int i = 0; i < 10; i++)
        CHECK_EQ(q3_read_bits(&b, 32), 0);
    CHECK(b.r.err);
    free(w);
}

/* ---- delta readers ---- */

/* A float field: integral values in 13 bits, others in 32. */
static void wfloat(bw *w, float f)
{
    int i = (int)f;
    if ((float)i == f && i + 4096 >= 0 && i + 4096 < 8192) {
        wbit(w, 0);
        wbits(w, i + 4096, 13);
    } else {
        uint32_t u;
        memcpy(&u, &f, 4);
        wbit(w, 1);
        wbits(w, (int32_t)u, 32);
    }
}

/* One entity field of an entity delta: changed, non-zero, value. */
static void wes(bw *w, int field, int32_t v, float f)
{
    wbit(w, 1);
    wbit(w, 1);
    if (q3_es_fields[field].bits)
        wbits(w, v, q3_es_fields[field].bits);
    else
        wfloat(w, f);
}

TEST(q3_delta_entity)
{
    bw *w = calloc(1, sizeof *w);
    CHECK(w);
    /* not removed, changed, 30 fields: trTime, trBase[0] 100 (13 bits), trBase[1] 0.5
     * (32 bits), eType cleared, modelindex 7 at field 29 */
    wbit(w, 0);
    wbit(w, 1);
    wbits(w, 30, 8);
    for (int i = 0; i < 30; i++) {
        if (i == Q3_ES_POS_TRTIME)
            wes(w, i, 5000, 0);
        else if (i == Q3_ES_POS_TRBASE0)
            wes(w, i, 0, 100.0f);
        else if (i == Q3_ES_POS_TRBASE1)
            wes(w, i, 0, 0.5f);
        else if (i == Q3_ES_POS_TRBASE2)
            wes(w, i, 0, -2000.0f);
        else if (i == Q3_ES_ETYPE) {
            wbit(w, 1);
            wbit(w, 0); /* set to zero */
        } else if (i == Q3_ES_MODELINDEX)
            wes(w, i, 7, 0);
        else
            wbit(w, 0);
    }
    /* a removal, then an unchanged one */
    wbit(w, 1);
    wbit(w, 0);
    wbit(w, 0);
    q3_ent from, to;
    memset(&from, 0, sizeof from);
    from.f[Q3_ES_ETYPE] = 3;
    from.f[Q3_ES_FRAME] = 9;
    q3_bits b;
    q3_bits_init(&b, w->b, wbytes(w));
    CHECK_EQ(q3_read_delta_entity(&b, &from, &to, 42), 0);
    CHECK_EQ(to.number, 42);
    CHECK_EQ(to.f[Q3_ES_POS_TRTIME], 5000);
    CHECK(q3_f(to.f[Q3_ES_POS_TRBASE0]) == 100.0f);
    CHECK(q3_f(to.f[Q3_ES_POS_TRBASE1]) == 0.5f);
    CHECK(q3_f(to.f[Q3_ES_POS_TRBASE2]) == -2000.0f);
    CHECK_EQ(to.f[Q3_ES_ETYPE], 0);
    CHECK_EQ(to.f[Q3_ES_MODELINDEX], 7);
    CHECK_EQ(to.f[Q3_ES_FRAME], 9); /* past the field count: kept */
    CHECK_EQ(q3_read_delta_entity(&b, &from, &to, 43), 1);
    CHECK_EQ(q3_read_delta_entity(&b, &from, &to, 44), 0);
    CHECK_EQ(to.f[Q3_ES_FRAME], 9);
    CHECK(!q3_bits_err(&b));
    /* a field count over the table is refused */
    memset(w, 0, sizeof *w);
    wbit(w, 0);
    wbit(w, 1);
    wbits(w, Q3_ES_COUNT + 1, 8);
    q3_bits_init(&b, w->b, wbytes(w));
    CHECK_EQ(q3_read_delta_entity(&b, NULL, &to, 1), -1);
    free(w);
}

TEST(q3_delta_playerstate)
{
    bw *w = calloc(1, sizeof *w);
    CHECK(w);
    wbits(w, Q3_PS_VIEWHEIGHT + 1, 8);
    for (int i = 0; i <= Q3_PS_VIEWHEIGHT; i++) {
        if (i == Q3_PS_ORIGIN0) {
            wbit(w, 1);
            wfloat(w, 123.25f);
        } else if (i == Q3_PS_VIEWHEIGHT) {
            wbit(w, 1);
            wbits(w, -16, -8);
        } else if (i == Q3_PS_WEAPONTIME) {
            wbit(w, 1);
            wbits(w, -50, -16);
        } else {
            wbit(w, 0);
        }
    }
    wbit(w, 1);           /* arrays */
    wbit(w, 1);           /* stats */
    wbits(w, 0x0005, 16); /* stats 0 and 2 */
    wbits(w, -20, -16);
    wbits(w, 200, -16);
    wbit(w, 0);           /* persistant */
    wbit(w, 1);           /* ammo */
    wbits(w, 0x8000, 16);
    wbits(w, 65000, 16);
    wbit(w, 1);           /* powerups */
    wbits(w, 0x0002, 16);
    wbits(w, 123456789, 32);
    q3_ps from, to;
    memset(&from, 0, sizeof from);
    from.persistant[3] = 77;
    q3_bits b;
    q3_bits_init(&b, w->b, wbytes(w));
    CHECK_EQ(q3_read_delta_ps(&b, &from, &to), 0);
    CHECK(q3_f(to.f[Q3_PS_ORIGIN0]) == 123.25f);
    CHECK_EQ(to.f[Q3_PS_VIEWHEIGHT], -16);
    CHECK_EQ(to.f[Q3_PS_WEAPONTIME], -50);
    CHECK_EQ(to.stats[0], -20);
    CHECK_EQ(to.stats[2], 200);
    CHECK_EQ(to.persistant[3], 77);
    CHECK_EQ(to.ammo[15], 65000);
    CHECK_EQ(to.powerups[1], 123456789);
    CHECK(!q3_bits_err(&b));
    free(w);
}

/* ---- a whole demo built here ---- */

static void block(buf *m, int32_t seq, const bw *w)
{
    put32(m, (uint32_t)seq);
    put32(m, (uint32_t)wbytes(w));
    for (size_t i = 0; i < wbytes(w); i++)
        put8(m, w->b[i]);
}

static void cs(bw *w, int index, const char *s)
{
    wbits(w, Q3_SVC_CONFIGSTRING, 8);
    wbits(w, index, 16);
    wstr(w, s);
}

/* The game folder the built gamestates name (a test of baseq3's own cgame sets "baseq3"). */
static const char *built_fs_game = "cpma";
static const char *built_map = "q3dm17"; /* (and the map its serverinfo names) */

/* gamestate: serverinfo, systeminfo, message, a model, two players, and (baseline set) a
 * baseline for 100. */
static void build_gamestate_with(bw *w, int protocol, int baseline)
{
    char si[256];
    snprintf(si, sizeof si, "\\sv_maxclients\\8\\mapname\\%s\\protocol\\%d\\g_gametype\\0",
             built_map, protocol);
    wbits(w, 0, 32); /* reliable acknowledge */
    wbits(w, Q3_SVC_GAMESTATE, 8);
    wbits(w, 10, 32); /* server command sequence */
    cs(w, Q3_CS_SERVERINFO, si);
    char sys[64];
    snprintf(sys, sizeof sys, "\\sv_pure\\0\\fs_game\\%s", built_fs_game);
    cs(w, Q3_CS_SYSTEMINFO, sys);
    cs(w, Q3_CS_MESSAGE, "The Longest Yard");
    cs(w, Q3_CS_MODELS + 1, "*1");
    cs(w, Q3_CS_PLAYERS + 0, "n\\Recorder\\t\\0\\model\\sarge");
    cs(w, Q3_CS_PLAYERS + 3, "n\\Watcher\\t\\3");
    if (baseline) {
        wbits(w, Q3_SVC_BASELINE, 8);
        wbits(w, 100, Q3_GENTITYNUM_BITS);
        wbit(w, 0);
        wbit(w, 1);
        wbits(w, Q3_ES_MODELINDEX + 1, 8);
        for (int i = 0; i <= Q3_ES_MODELINDEX; i++) {
            if (i == Q3_ES_MODELINDEX)
                wes(w, i, 1, 0);
            else if (i == Q3_ES_POS_TRBASE0)
                wes(w, i, 0, 64.0f);
            else
                wbit(w, 0);
        }
    }
    wbits(w, Q3_SVC_EOF, 8);
    wbits(w, 0, 32); /* clientNum */
    wbits(w, 0, 32); /* checksumFeed */
    wbits(w, Q3_SVC_EOF, 8);
}

static void build_gamestate(bw *w, int protocol) { build_gamestate_with(w, protocol, 1); }

/* snapshot at serverTime t: the player at (x, 0, 0), entity 100 moving linearly (delta 0)
 * or unchanged (delta 1), entity 5 from nothing */
/* A playerState's arrays: stats changed, STAT_HEALTH alone, 100; the others unchanged. */
static void health_100(bw *w)
{
    wbit(w, 1);
    wbit(w, 1);
    wbits(w, 1, 16);
    wbits(w, 100, -16);
    wbit(w, 0);
    wbit(w, 0);
    wbit(w, 0);
}

static void build_snapshot(bw *w, int32_t t, int delta, float x)
{
    wbits(w, 0, 32);
    wbits(w, Q3_SVC_SNAPSHOT, 8);
    wbits(w, t, 32);
    wbits(w, delta, 8);
    wbits(w, 0, 8); /* snapFlags */
    wbits(w, 1, 8); /* areamask bytes */
    wbits(w, 255, 8);
    /* playerState: origin[0], then viewheight 26 */
    wbits(w, Q3_PS_VIEWHEIGHT + 1, 8);
    for (int i = 0; i <= Q3_PS_VIEWHEIGHT; i++) {
        if (i == Q3_PS_ORIGIN0) {
            wbit(w, 1);
            wfloat(w, x);
        } else if (i == Q3_PS_VIEWHEIGHT && !delta) {
            wbit(w, 1);
            wbits(w, 26, -8);
        } else {
            wbit(w, 0);
        }
    }
    health_100(w);
    if (!delta) {
        wbits(w, 5, Q3_GENTITYNUM_BITS); /* from its zero baseline: unchanged */
        wbit(w, 0);
        wbit(w, 0);
        wbits(w, 100, Q3_GENTITYNUM_BITS); /* TR_LINEAR from t, 100 u/s along y */
        wbit(w, 0);
        wbit(w, 1);
        wbits(w, Q3_ES_POS_TRTYPE + 1, 8);
        for (int i = 0; i <= Q3_ES_POS_TRTYPE; i++) {
            if (i == Q3_ES_POS_TRTIME)
                wes(w, i, t, 0);
            else if (i == Q3_ES_POS_TRDELTA1)
                wes(w, i, 0, 100.0f);
            else if (i == Q3_ES_POS_TRTYPE)
                wes(w, i, Q3_TR_LINEAR, 0);
            else
                wbit(w, 0);
        }
    } else {
        wbits(w, 5, Q3_GENTITYNUM_BITS); /* entity 5 removed, 100 kept unchanged */
        wbit(w, 1);
    }
    wbits(w, Q3_ENTITYNUM_NONE, Q3_GENTITYNUM_BITS);
    wbits(w, Q3_SVC_EOF, 8);
}

static void build_command(bw *w, int32_t seq, const char *text)
{
    wbits(w, 0, 32);
    wbits(w, Q3_SVC_SERVERCOMMAND, 8);
    wbits(w, seq, 32);
    wstr(w, text);
    wbits(w, Q3_SVC_EOF, 8);
}

static buf *build_demo(int protocol)
{
    buf *m = calloc(1, sizeof *m);
    bw *w = calloc(1, sizeof *w);
    if (!m || !w) {
        free(m);
        free(w);
        return NULL;
    }
    build_gamestate(w, protocol);
    block(m, 100, w);
    memset(w, 0, sizeof *w);
    build_snapshot(w, 5000, 0, 10.0f);
    block(m, 101, w);
    memset(w, 0, sizeof *w);
    build_command(w, 11, "print \"hello\n\"");
    block(m, 102, w);
    memset(w, 0, sizeof *w);
    build_command(w, 11, "print \"hello\n\""); /* resent: skipped */
    block(m, 103, w);
    memset(w, 0, sizeof *w);
    build_command(w, 12, "cs 547 \"n\\Renamed\\t\\1\"");
    block(m, 104, w);
    memset(w, 0, sizeof *w);
    build_snapshot(w, 5050, 4, 20.0f); /* delta from block 101 */
    block(m, 104 + 1, w);
    put32(m, 0xffffffffu);
    put32(m, 0xffffffffu);
    free(w);
    return m;
}

typedef struct run {
    void *state;
    cl_state *cl;
    qd_error err;
} run;

static int run_open(run *r, const uint8_t *data, size_t len)
{
    r->state = calloc(1, demo_q3_decoder.state_size);
    r->cl = malloc(sizeof *r->cl);
    if (!r->state || !r->cl)
        return 0;
    cl_reset(r->cl);
    memset(&r->err, 0, sizeof r->err);
    return demo_q3_decoder.init(r->state, data, len, &r->err) == QD_OK;
}

static void run_close(run *r)
{
    free(r->state);
    free(r->cl);
}

static qd_err run_all(run *r, const uint8_t *data, size_t len, const demo_trace *tr)
{
    int done = 0;
    qd_err e = QD_OK;
    for (size_t steps = 0; !done && e == QD_OK && steps <= len; steps++)
        e = demo_q3_decoder.step(r->state, data, len, r->cl, tr, &done, &r->err);
    return e;
}

/* A level whose snapshots span serverTime INT32_MIN + 1 .. INT32_MAX (4,294,967.294 s of
 * demo clock), then a second gamestate and three snapshots at 1000, 1050, 1100: the clock
 * goes on 50 ms after the first level's last frame and every snapshot is a frame (the
 * rebase was cut to 32 bits and wrapped, so the second level's snapshots all took the
 * same-frame path: 2 frames; found by a review). Times by hand from the serverTimes. */
TEST(q3_clock_goes_on_past_32_bits_of_milliseconds)
{
    buf *m = calloc(1, sizeof *m);
    bw *w = calloc(1, sizeof *w);
    CHECK(m && w);
    if (!m || !w) {
        free(m);
        free(w);
        return;
    }
    static const int32_t times[] = {INT32_MIN + 1, INT32_MAX, 1000, 1050, 1100};
    int seq = 100;
    for (int i = 0; i < 5; i++) {
        if (i == 0 || i == 2) {
            memset(w, 0, sizeof *w);
            build_gamestate(w, 68);
            block(m, seq++, w);
        }
        memset(w, 0, sizeof *w);
        build_snapshot(w, times[i], 0, 10.0f * (float)i);
        block(m, seq++, w);
    }
    put32(m, 0xffffffffu);
    put32(m, 0xffffffffu);
    run r;
    CHECK(run_open(&r, m->b, m->n));
    CHECK_EQ(run_all(&r, m->b, m->n, NULL), QD_OK);
    CHECK_EQ(r.cl->frame_count, 5);
    double first = ((double)INT32_MAX - (double)(INT32_MIN + 1)) / 1000.0;
    CHECK_MSG(fabs(r.cl->time - (first + 0.05 + 0.1)) < 1e-3, "clock %.3f", r.cl->time);
    run_close(&r);
    free(m);
    free(w);
}

static void count_msg(void *ctx, double t, uint32_t block, uint64_t offset, const char *name,
                      const char *detail)
{
    (void)t;
    (void)block;
    (void)offset;
    (void)detail;
    if (!strcmp(name, "svc_snapshot"))
        ((int *)ctx)[0]++;
    if (!strcmp(name, "svc_configstring"))
        ((int *)ctx)[1]++;
}

TEST(q3_built_demo)
{
    buf *m = build_demo(68);
    CHECK(m);
    CHECK_EQ(demo_q3_decoder.probe(m->b, m->n, "x.bin"), 9);
    run r;
    CHECK(run_open(&r, m->b, m->n));
    int counts[2] = {0, 0};
    demo_trace tr = {counts, count_msg};
    qd_err e = run_all(&r, m->b, m->n, &tr);
    CHECK_MSG(e == QD_OK, "%s at %llu", r.err.msg, (unsigned long long)r.err.offset);
    const cl_state *cl = r.cl;
    CHECK_EQ(counts[0], 2);
    CHECK_EQ(counts[1], 6);
    CHECK_EQ(demo_q3_decoder.protocol(r.state), 68);
    CHECK_EQ(cl->level.game, CL_GAME_Q3);
    CHECK_EQ(cl->level.max_clients, 8);
    CHECK_STR(cl->level.map, "maps/q3dm17.bsp");
    CHECK_STR(cl->level.title, "The Longest Yard");
    CHECK_STR(cl->level.gamedir, "cpma");
    CHECK_STR(cl->level.models[1], "*1");
    CHECK_STR(cl->players[0].name, "Recorder");
    CHECK(!cl->players[0].spectator);
    CHECK_STR(cl->players[3].name, "Renamed");
    CHECK(!cl->players[3].spectator);
    CHECK_EQ(cl->frame_count, 2);
    CHECK(fabs(cl->time - 0.05) < 1e-9);
    /* entity 100 (cl 101): baseline x 64, 100 u/s along y for 50 ms: y = 5 */
    cl_entstate es;
    int nf;
    float bl;
    CHECK(cl_entity_at(cl, 101, cl->time, &es, &nf, &bl));
    CHECK(fabsf(es.origin[0] - 64.0f) < 1e-4f);
    CHECK(fabsf(es.origin[1] - 5.0f) < 1e-4f);
    CHECK_EQ(es.model, 1);
    CHECK(!cl_entity_at(cl, 6, cl->time, &es, &nf, &bl)); /* entity 5 removed */
    /* the recorder: origin x 20, viewheight 26 carried over by the delta */
    CHECK_EQ(cl->view.view_entity, 1);
    CHECK(cl->view.has_origin);
    CHECK(fabsf(cl->view.origin[0] - 20.0f) < 1e-4f);
    CHECK(fabsf(cl->view.origin[2] - 26.0f) < 1e-4f);
    CHECK_EQ(cl_stats_of(cl, -1)->health, 100); /* STAT_HEALTH, slot 0 */
    CHECK_EQ(cl->message_count, 1);
    CHECK_STR(cl->messages[0].text, "hello");

    /* the same bytes with the trace off emit the same state, byte for byte */
    run q;
    CHECK(run_open(&q, m->b, m->n));
    CHECK_EQ(run_all(&q, m->b, m->n, NULL), QD_OK);
    CHECK(memcmp(q.cl, r.cl, sizeof *q.cl) == 0);
    run_close(&q);
    run_close(&r);
    free(m);
}

/* The test demo with protocol in its serverinfo is refused as unsupported, the error
 * saying why and pointing into the file. */
static void refused_protocol(int protocol, const char *why)
{
    buf *m = build_demo(protocol);
    CHECK(m);
    run r;
    CHECK(run_open(&r, m->b, m->n));
    qd_err e = run_all(&r, m->b, m->n, NULL);
    CHECK_EQ(e, QD_ERR_UNSUPPORTED);
    CHECK_MSG(strstr(r.err.msg, why) != NULL, "%s", r.err.msg);
    CHECK(r.err.offset >= 8 && r.err.offset < m->n);
    run_close(&r);
    free(m);
}

/* 72 is no protocol qdemo has tables for (Quake Live's 73, 90 and 91 are: test_ql.c). */
TEST(q3_refuses_unknown_protocol) { refused_protocol(72, "72"); }

/* A Huffman-coded file whose serverinfo says 48: 43..48 sent no Huffman coding [Q3OLD], so
 * the file and its protocol disagree, and it is refused with the reason (the other way
 * round, a plain file saying 68: test_q3old.c). */
TEST(q3_refuses_old_protocol_in_huffman_coding)
{
    refused_protocol(48, "protocol 48 in a Huffman-coded message");
}

/* Every cut of a demo ends with an error whose offset lies inside the copy; every flipped
 * byte gives an error or a clean end. */
static int check_damage(const uint8_t *data, size_t len, size_t stride)
{
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        return 0;
    int bad = 0;
    for (size_t n = 0; n < len && !bad; n += stride) {
        memcpy(copy, data, n);
        run r;
        if (!run_open(&r, copy, n)) {
            run_close(&r);
            break;
        }
        qd_err e = run_all(&r, copy, n, NULL);
        if (e == QD_OK || r.err.offset > n)
            bad = 1;
        run_close(&r);
    }
    for (size_t i = 0; i < len && !bad; i += stride) {
        memcpy(copy, data, len);
        copy[i] ^= 0x5a;
        run r;
        if (run_open(&r, copy, len)) {
            qd_err e = run_all(&r, copy, len, NULL);
            if (e != QD_OK && r.err.offset > len)
                bad = 2;
        }
        run_close(&r);
    }
    free(copy);
    return bad;
}

TEST(q3_built_demo_damage)
{
    buf *m = build_demo(68);
    CHECK(m);
    int bad = check_damage(m->b, m->n, 1);
    free(m);
    CHECK_EQ(bad, 0);
}

/* ---- real data ---- */

static const struct {
    const char *file;
    const char *map;
    const char *gamedir;
    int protocol;
} known[] = {
    {"openarena-data_missionpack_mp-pak0_boomtest.dm_68", "maps/cratere3.bsp", "missionpack", 68},
    {"udt_baseq3_1_map_2_matches.dm_68", "maps/Q3TOURNEY2.bsp", "baseq3", 68},
    {"udt_cpma_core_gameplay_dev.dm_68", "maps/cpm3a.bsp", "cpma", 68},
    {"udt_dm_68_team_chat.dm_68", "maps/Q3DM7.bsp", "baseq3", 68},
    {"udt_osp_chat.dm_68", "maps/cpm3a.bsp", "osp", 68},
    {"udt_truncated.dm_68", "maps/vpldm3.bsp", "cpma", 68},
    /* no "protocol" in its serverinfo, but "com_protocol\\71" (dump, index=0): an ioquake3
     * 1.36 recording (version "ioq3 1.36_GIT_e14a814"), so protocol 71 */
    {"udt_research_huffman_11785_151.dm_68", "maps/courage-b8.bsp", "cpma", 71},
    {"udt_2001_Duel2_Quakecon.dm_66", "maps/pro-q3tourney4.bsp", "osp", 66},
    {"udt_2002_Duel2_CPL_Nostromo.dm_67", "maps/pro-q3dm6.bsp", "osp", 67},
    {"openarena-081-misc_pak6-misc_flyby_oa_dm3.dm_70", "maps/OA_DM3.bsp", "baseq3", 70},
    {"openarena-088-data_pak6-patch088_demo088-test1.dm_71", "maps/oa_shouse.bsp", "baseq3", 71},
};

static void real_folder(const char *sub, int *files)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", test_realdata(), sub);
    DIR *d = opendir(dir);
    *files = 0;
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && !test_failed()) {
        size_t nl = strlen(de->d_name);
        if (nl < 6 || strncmp(de->d_name + nl - 6, ".dm_", 4) != 0)
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        size_t len;
        uint8_t *data = test_read_file(path, &len);
        CHECK_MSG(data != NULL, "cannot read %s", de->d_name);
        (*files)++;
        CHECK_MSG(demo_q3_decoder.probe(data, len, "noext") == 9, "%s: probe %d", de->d_name,
                  demo_q3_decoder.probe(data, len, "noext"));
        run r;
        CHECK(run_open(&r, data, len));
        qd_err e = run_all(&r, data, len, NULL);
        const cl_state *cl = r.cl;
        int truncated = strstr(de->d_name, "truncated") != NULL;
        if (truncated) {
            CHECK_MSG(e == QD_ERR_TRUNCATED, "%s: %d %s", de->d_name, e, r.err.msg);
            CHECK(r.err.offset <= len);
            CHECK_MSG(cl->frame_count > 200, "%s: %u frames", de->d_name, cl->frame_count);
        } else {
            CHECK_MSG(e == QD_OK, "%s: %s at %llu", de->d_name, r.err.msg,
                      (unsigned long long)r.err.offset);
            CHECK_EQ(demo_q3_decoder.offset(r.state), len);
            CHECK_MSG(cl->frame_count > 50, "%s: %u frames", de->d_name, cl->frame_count);
            CHECK(cl->view.has_origin);
        }
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
            if (strcmp(known[i].file, de->d_name))
                continue;
            CHECK_STR(cl->level.map, known[i].map);
            CHECK_STR(cl->level.gamedir, known[i].gamedir);
            CHECK_EQ(cl->level.protocol, known[i].protocol);
        }
        /* the demo's length from the file itself (q3scan.h: its first and last snapshot's
         * server times): the clock runs from 0 at the first to the last */
        if (!truncated) {
            q3scan w;
            q3scan_file(data, len, &w, NULL, NULL, NULL);
            CHECK_MSG(w.snapshots > 0 && fabs(cl->time - (w.last - w.first) / 1000.0) < 1e-6,
                      "%s: %.3f s, the file's snapshots span %.3f s", de->d_name, cl->time,
                      (w.last - w.first) / 1000.0);
        }
        run_close(&r);
        if (len < 70000) {
            CHECK_MSG(check_damage(data, len, len / 97 + 1) == 0, "%s: damage check",
                      de->d_name);
        }
        free(data);
    }
    closedir(d);
}

/* OpenArena's missionpack game (realdata's boomtest.dm_68: fs_game missionpack, its pak
 * names "missionpack/mp-pak0 baseoa/...") numbers the stats as the missionpack: its
 * stats[3] holds 6 in every snapshot, read before as the armour, which is the weapons
 * mask of the gauntlet (bit 1) and the machine gun (bit 2), a spawn's; stats[4], the
 * armour, stays 0. */
TEST(q3_realdata_missionpack_stats)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/dm_68/openarena-data_missionpack_mp-pak0_boomtest.dm_68",
             test_realdata());
    size_t len;
    uint8_t *data = test_read_file(path, &len);
    if (!data)
        SKIP("no boomtest.dm_68 in the real-data folder");
    run r;
    CHECK(run_open(&r, data, len));
    CHECK(run_all(&r, data, len, NULL) == QD_OK);
    const cl_stats *st = cl_stats_of(r.cl, -1);
    CHECK(st && (st->flags & CL_ST_VALID));
    CHECK_STR(r.cl->level.gamedir, "missionpack");
    CHECK_EQ(st->armor, 0);
    CHECK_EQ(st->weapons, (1u << CL_WP_MELEE) | (1u << CL_WP_MACHINEGUN));
    run_close(&r);
    free(data);
}

TEST(q3_realdata_dm68)
{
    int files;
    real_folder("dm_68", &files);
    if (!files && !test_failed())
        SKIP("no .dm_68 in the real-data folder");
}

TEST(q3_realdata_other_protocols)
{
    int total = 0, files;
    static const char *const subs[] = {"dm_66", "dm_67", "dm_70", "dm_71", "dm_73"};
    for (size_t i = 0; i < sizeof subs / sizeof subs[0] && !test_failed(); i++) {
        real_folder(subs[i], &files);
        total += files;
    }
    if (!total && !test_failed())
        SKIP("no .dm_66/67/70/71/73 in the real-data folder");
}

/* A copy of the decoder state resumes exactly where it was (keyframes). */
TEST(q3_state_copy_resumes)
{
    char path[1024];
    if (!test_realfile(path, sizeof path,
                       "dm_68/openarena-data_missionpack_mp-pak0_boomtest.dm_68"))
        SKIP("boomtest.dm_68 missing");
    size_t len;
    uint8_t *data = test_read_file(path, &len);
    CHECK(data);
    run a, b;
    CHECK(run_open(&a, data, len));
    CHECK(run_open(&b, data, len));
    int done = 0;
    for (int i = 0; i < 100 && !done; i++)
        CHECK(demo_q3_decoder.step(a.state, data, len, a.cl, NULL, &done, &a.err) == QD_OK);
    memcpy(b.state, a.state, demo_q3_decoder.state_size);
    memcpy(b.cl, a.cl, sizeof *a.cl);
    CHECK(run_all(&a, data, len, NULL) == QD_OK);
    CHECK(run_all(&b, data, len, NULL) == QD_OK);
    CHECK(memcmp(a.cl, b.cl, sizeof *a.cl) == 0);
    run_close(&a);
    run_close(&b);
    free(data);
}

/* A second gamestate (a new level) whose server time starts lower: the demo clock goes on. */
TEST(q3_second_level_keeps_clock)
{
    buf *m = calloc(1, sizeof *m);
    bw *w = calloc(1, sizeof *w);
    CHECK(m && w);
    build_gamestate(w, 68);
    block(m, 10, w);
    memset(w, 0, sizeof *w);
    build_snapshot(w, 90000, 0, 1.0f);
    block(m, 11, w);
    memset(w, 0, sizeof *w);
    build_snapshot(w, 91000, 0, 2.0f);
    block(m, 12, w);
    memset(w, 0, sizeof *w);
    build_gamestate(w, 68);
    block(m, 13, w);
    memset(w, 0, sizeof *w);
    build_snapshot(w, 1000, 0, 3.0f);
    block(m, 14, w);
    memset(w, 0, sizeof *w);
    build_snapshot(w, 1100, 1, 4.0f);
    block(m, 15, w);
    put32(m, 0xffffffffu);
    put32(m, 0xffffffffu);
    free(w);
    run r;
    CHECK(run_open(&r, m->b, m->n));
    qd_err e = run_all(&r, m->b, m->n, NULL);
    CHECK_MSG(e == QD_OK, "%s", r.err.msg);
    CHECK_EQ(r.cl->level_count, 2);
    CHECK_EQ(r.cl->frame_count, 4);
    CHECK_MSG(fabs(r.cl->time - 1.15) < 1e-6, "time %f", r.cl->time);
    CHECK(fabsf(r.cl->view.origin[0] - 4.0f) < 1e-4f);
    run_close(&r);
    free(m);
}

/* A snapshot's start at server time t with snapFlags flags: no delta, no areamask. */
static void snapshot_head_flags(bw *w, int32_t t, int flags)
{
    wbits(w, 0, 32);
    wbits(w, Q3_SVC_SNAPSHOT, 8);
    wbits(w, t, 32);
    wbits(w, 0, 8);
    wbits(w, flags, 8);
    wbits(w, 0, 8); /* no areamask */
}

/* ... and no flags. */
static void snapshot_head(bw *w, int32_t t) { snapshot_head_flags(w, t, 0); }

/* A snapshot whose playerState carries named stats (bg_public.h): pm_type PM_DEAD 3, weapon
 * WP_ROCKET_LAUNCHER 5; stats[STAT_HEALTH 0] -20, [STAT_WEAPONS 2] gauntlet 1 and rocket
 * launcher 5 bits, [STAT_ARMOR 3] 50; persistant[PERS_SCORE 0] 7; ammo[5] 12, ammo[3]
 * (shotgun) 9; powerups[PW_QUAD 1] ends at server ms 8000, [PW_REDFLAG 7] INT_MAX. */
/* A snapshot's head and its playerState's fields up to the weapon: pm_type pm, weapon
 * WP_ROCKET_LAUNCHER 5, viewheight 26; the arrays are the caller's. */
static void ps_snapshot_head(bw *w, int32_t t, int pm)
{
    snapshot_head(w, t);
    wbits(w, Q3_PS_WEAPON + 1, 8);
    for (int i = 0; i <= Q3_PS_WEAPON; i++) {
        int v = i == Q3_PS_PM_TYPE ? pm : i == Q3_PS_WEAPON ? 5 : i == Q3_PS_VIEWHEIGHT ? 26 : 0;
        wbit(w, v != 0);
        if (v)
            wbits(w, v, q3_ps_fields[i].bits);
    }
}

static void build_stats_snapshot(bw *w, int32_t t)
{
    ps_snapshot_head(w, t, 3);
    wbit(w, 1);
    wbit(w, 1); /* stats */
    wbits(w, 0x0d, 16);
    wbits(w, -20, -16);
    wbits(w, (1 << 1) | (1 << 5), -16);
    wbits(w, 50, -16);
    wbit(w, 1); /* persistant */
    wbits(w, 1, 16);
    wbits(w, 7, -16);
    wbit(w, 1); /* ammo */
    wbits(w, (1 << 3) | (1 << 5), 16);
    wbits(w, 9, 16);
    wbits(w, 12, 16);
    wbit(w, 1); /* powerups */
    wbits(w, (1 << 1) | (1 << 7), 16);
    wbits(w, 8000, 32);
    wbits(w, 0x7fffffff, 32);
    wbits(w, Q3_ENTITYNUM_NONE, Q3_GENTITYNUM_BITS);
    wbits(w, Q3_SVC_EOF, 8);
}

/* Append w to m as block seq and clear w; a command block. */
static void add_block(buf *m, bw *w, int32_t seq)
{
    block(m, seq, w);
    memset(w, 0, sizeof *w);
}

static void add_command(buf *m, bw *w, int32_t seq, const char *text)
{
    build_command(w, seq, text);
    add_block(m, w, seq);
}

/* A new demo holding the test gamestate as block 10, and an empty writer in *w (free both);
 * NULL when out of memory. */
static buf *start_built(bw **w)
{
    buf *m = calloc(1, sizeof *m);
    *w = calloc(1, sizeof **w);
    if (!m || !*w) {
        free(m);
        free(*w);
        return NULL;
    }
    build_gamestate(*w, 68);
    add_block(m, *w, 10);
    return m;
}

/* End m and decode it whole into r (run_close it). */
static int run_built(run *r, buf *m)
{
    put32(m, 0xffffffffu);
    put32(m, 0xffffffffu);
    return run_open(r, m->b, m->n) && run_all(r, m->b, m->n, NULL) == QD_OK;
}

/* A snapshot whose playerState has pm_type pm and STAT_HEALTH health alone. */
static void build_health_snapshot(bw *w, int32_t t, int pm, int health)
{
    ps_snapshot_head(w, t, pm);
    wbit(w, 1);
    wbit(w, 1); /* stats: health alone */
    wbits(w, 0x01, 16);
    wbits(w, health, -16);
    wbit(w, 0); /* persistant */
    wbit(w, 0); /* ammo */
    wbit(w, 0); /* powerups */
    wbits(w, Q3_ENTITYNUM_NONE, Q3_GENTITYNUM_BITS);
    wbits(w, Q3_SVC_EOF, 8);
}

/* A second gamestate's baselines are its own: entity 100's from the first level (model 1 at
 * x = 64, build_gamestate) must not stay for a level whose gamestate sends none, where an
 * entity sent from nothing starts from zeros (cl_parse.c CL_ParseGamestate clears
 * cl.entityBaselines). The snapshot moves 100 along y only, so its x is its baseline's: 64 on
 * the first level, 0 on the second. (The decoder clears only the baselines a gamestate set,
 * a fresh state's being zero already.) */
TEST(q3_second_level_baselines_cleared)
{
    bw *w;
    buf *m = start_built(&w);
    CHECK(m);
    build_snapshot(w, 90000, 0, 1.0f);
    add_block(m, w, 11);
    build_gamestate_with(w, 68, 0); /* the second level: no baseline */
    add_block(m, w, 12);
    build_snapshot(w, 1000, 0, 3.0f);
    block(m, 13, w);
    put32(m, 0xffffffffu);
    put32(m, 0xffffffffu);
    free(w);
    run r;
    CHECK(run_open(&r, m->b, m->n));
    int done = 0;
    for (int k = 0; k < 2; k++) /* the first gamestate, its snapshot */
        CHECK_EQ(demo_q3_decoder.step(r.state, m->b, m->n, r.cl, NULL, &done, &r.err), QD_OK);
    CHECK(r.cl->entities[101].active);
    CHECK_MSG(fabsf(r.cl->entities[101].cur.origin[0] - 64.0f) < 1e-3f, "x %f",
              r.cl->entities[101].cur.origin[0]);
    qd_err e = run_all(&r, m->b, m->n, NULL);
    CHECK_MSG(e == QD_OK, "%s", r.err.msg);
    CHECK_EQ(r.cl->level_count, 2);
    CHECK(r.cl->entities[101].active);
    CHECK_MSG(fabsf(r.cl->entities[101].cur.origin[0]) < 1e-3f, "x %f",
              r.cl->entities[101].cur.origin[0]);
    run_close(&r);
    free(m);
}

/* The recorder's body (entity 1: client 0) while alive, dead (health -20: drawn, the dead
 * player being seen from behind) and gibbed (health -50, under GIB_HEALTH -40:
 * BG_PlayerStateToEntityState makes it ET_INVISIBLE): gone, not its last pose kept. */
TEST(q3_gibbed_recorder_has_no_body)
{
    bw *w;
    buf *m = start_built(&w);
    CHECK(m);
    build_health_snapshot(w, 5000, 0, 100);
    add_block(m, w, 11);
    build_health_snapshot(w, 5050, 3, -20);
    add_block(m, w, 12);
    build_health_snapshot(w, 5100, 3, -50);
    add_block(m, w, 13);
    free(w);
    put32(m, 0xffffffffu);
    put32(m, 0xffffffffu);
    run r;
    CHECK(run_open(&r, m->b, m->n));
    int alive = 0, dead = 0, gibbed = 1, done = 0;
    for (int k = 0; k < 8 && !done; k++) {
        if (demo_q3_decoder.step(r.state, m->b, m->n, r.cl, NULL, &done, &r.err) != QD_OK)
            break;
        const cl_stats *st = cl_stats_of(r.cl, 0);
        if (!st || !(st->flags & CL_ST_VALID))
            continue;
        int body = r.cl->num_entities > 1 && r.cl->entities[1].active;
        if (st->health == 100)
            alive = body;
        else if (st->health == -20)
            dead = body;
        else if (st->health == -50)
            gibbed = body;
    }
    CHECK(alive && dead && !gibbed);
    run_close(&r);
    free(m);
}

/* OpenArena's game (CS_GAME_VERSION "baseoa-1") numbers the stats as the missionpack does
 * (bg_public.h statIndex_t with STAT_PERSISTANT_POWERUP at 2): the same snapshot as
 * q3_named_stats_and_team_scores (stats[2] = 1 << 1 | 1 << 5, stats[3] = 50) reads as no
 * armour (stats[4], not sent: 0) and the weapons of mask 50 = 1 << 1 | 1 << 4 | 1 << 5:
 * gauntlet, grenade and rocket launchers. Real data: demo088-test1.dm_71 and OpenArena
 * 0.8.8's own recordings hold such masks (238, 78, 6) where baseq3 keeps the armour. */
TEST(q3_openarena_stats_numbering)
{
    bw *w;
    buf *m = start_built(&w);
    CHECK(m);
    add_command(m, w, 11, "cs 20 \"baseoa-1\"");
    build_stats_snapshot(w, 5000);
    add_block(m, w, 12);
    free(w);
    run r;
    CHECK_MSG(run_built(&r, m), "%s", r.err.msg);
    const cl_stats *st = cl_stats_of(r.cl, 0);
    CHECK(st && (st->flags & CL_ST_VALID));
    CHECK_EQ(st->armor, 0);
    CHECK_EQ(st->weapons, (1u << CL_WP_MELEE) | (1u << CL_WP_GRENADE_LAUNCHER) |
                              (1u << CL_WP_ROCKET_LAUNCHER));
    CHECK_EQ(st->health, -20);
    run_close(&r);
    free(m);
}

TEST(q3_named_stats_and_team_scores)
{
    bw *w;
    buf *m = start_built(&w);
    CHECK(m);
    add_command(m, w, 11, "cs 6 \"4\""); /* CS_SCORES1: red 4 */
    add_command(m, w, 12, "cs 7 \"-2\""); /* CS_SCORES2: blue -2 */
    build_stats_snapshot(w, 5000);
    add_block(m, w, 13);
    free(w);
    run r;
    CHECK_MSG(run_built(&r, m), "%s", r.err.msg);
    const cl_stats *st = cl_stats_of(r.cl, 0); /* the recorder is client 0 */
    CHECK(st && (st->flags & CL_ST_VALID));
    CHECK_EQ(st->health, -20);
    CHECK_EQ(st->armor, 50);
    CHECK_EQ(st->weapon, CL_WP_ROCKET_LAUNCHER);
    CHECK_EQ(st->ammo, 12);
    CHECK_EQ(st->ammo_type, CL_AMMO_ROCKETS);
    CHECK_EQ(st->ammo_of[CL_AMMO_ROCKETS], 12);
    CHECK_EQ(st->ammo_of[CL_AMMO_SHELLS], 9);
    CHECK_EQ(st->weapons, (1u << CL_WP_MELEE) | (1u << CL_WP_ROCKET_LAUNCHER));
    CHECK_EQ(st->score, 7);
    CHECK(st->flags & CL_ST_DEAD);
    CHECK(fabsf(st->powerup_end[CL_PU_QUAD] - 3.0f) < 1e-6f); /* (8000 - 5000) ms */
    CHECK(st->powerup_end[CL_PU_FLAG] == -1);
    CHECK(st->powerup_end[CL_PU_HASTE] == 0);
    CHECK(r.cl->view.dead);
    CHECK_EQ(cl_view_player(r.cl), 0);
    CHECK_EQ(r.cl->team_score[0], 4);
    CHECK_EQ(r.cl->team_score[1], -2);
    CHECK(r.cl->entities[1].cur.flags & CL_EF_DEAD);
    run_close(&r);
    free(m);
}

/* A "cp" server command is a centre print event; a "chat" line from a known name names
 * its sender (g_cmds.c G_Say: "name^7: text" between \x19 escapes). */
TEST(q3_center_and_chat_events)
{
    bw *w;
    buf *m = start_built(&w);
    CHECK(m);
    add_command(m, w, 11, "cp \"Fight!\n\"");
    add_command(m, w, 12, "chat \"\x19Watcher^7\x19: hi\"");
    free(w);
    run r;
    CHECK_MSG(run_built(&r, m), "%s", r.err.msg);
    CHECK_EQ(r.cl->event_count, 2);
    const cl_event *a = cl_event_get(r.cl, 0), *b = cl_event_get(r.cl, 1);
    CHECK(a && b);
    CHECK_EQ(a->kind, CL_EV_CENTER);
    CHECK_STR(a->text, "Fight!");
    CHECK_EQ(b->kind, CL_EV_CHAT);
    CHECK_STR(b->text, "Watcher^7: hi");
    CHECK_EQ(b->actor, 3); /* "Watcher" is CS_PLAYERS + 3 */
    CHECK(!(b->flags & CL_EVF_TEAM));
    run_close(&r);
    free(m);
}

/* Through demo_step (which owns the stop): a Quake III demo cut inside its last message
 * stops at that block's header, and every later step repeats the error; a direct step
 * after the end marker reports the end again. */
TEST(q3_stays_stopped_after_error)
{
    buf *m = build_demo(68);
    CHECK(m);
    /* the file ends -1/-1 (8 bytes); cutting 11 bytes leaves the last message 3 short */
    size_t n = m->n - 11;
    qd_error err, again;
    demo_t *d = demo_open_with(&demo_q3_decoder, "cut.dm_68", m->b, n, &err);
    CHECK(d);
    cl_state *cl = malloc(sizeof *cl);
    CHECK(cl);
    cl_reset(cl);
    int done = 0, steps = 0;
    qd_err e;
    while ((e = demo_step(d, cl, NULL, &done, &err)) == QD_OK && !done && ++steps < 16) {
    }
    CHECK_EQ(e, QD_ERR_TRUNCATED);
    CHECK_MSG(strstr(err.msg, "only") != NULL, "%s", err.msg);
    CHECK(err.offset < n);
    CHECK_EQ(demo_step(d, cl, NULL, &done, &again), QD_ERR_TRUNCATED);
    CHECK_EQ(again.offset, err.offset);
    CHECK(!done);
    demo_close(d);

    run r;
    CHECK(run_open(&r, m->b, m->n));
    CHECK(run_all(&r, m->b, m->n, NULL) == QD_OK);
    done = 0;
    CHECK(demo_q3_decoder.step(r.state, m->b, m->n, r.cl, NULL, &done, &r.err) == QD_OK);
    CHECK(done);
    run_close(&r);
    free(cl);
    free(m);
}

/* One entity from its zero baseline: number, then (field, value) pairs for the int fields
 * given, the others unchanged (ascending fields; at most 8). */
static void write_entity(bw *w, int num, const int (*fv)[2], int n)
{
    wbits(w, num, Q3_GENTITYNUM_BITS);
    wbit(w, 0); /* not removed */
    wbit(w, 1); /* changed */
    int last = fv[n - 1][0];
    wbits(w, last + 1, 8);
    for (int i = 0, k = 0; i <= last; i++) {
        if (k < n && fv[k][0] == i) {
            wes(w, i, fv[k][1], 0);
            k++;
        } else {
            wbit(w, 0);
        }
    }
}

/* A snapshot whose playerState (client 0, the recorder) has legsAnim 22, torsoAnim 11 with
 * the toggle bit 128, eFlags EF_FIRING 0x100, weapon WP_ROCKET_LAUNCHER 5, powerups
 * PW_QUAD 1 and PW_REDFLAG 7; entity 2 a player (ET_PLAYER 1) of client 3 with legsAnim
 * 15 | 128, torsoAnim 7, WP_SHOTGUN 3, EF_FIRING, powerups 1 << PW_BLUEFLAG 8; entity 40 a
 * rocket (ET_MISSILE 3, weapon 5); entity 41 an item (ET_ITEM 2, item 1). bg_public.h. */
static void build_look_snapshot(bw *w, int32_t t)
{
    snapshot_head(w, t);
    wbits(w, Q3_PS_WEAPON + 1, 8);
    for (int i = 0; i <= Q3_PS_WEAPON; i++) {
        int v = i == Q3_PS_LEGSANIM      ? 22
                : i == Q3_PS_TORSOANIM   ? 128 | 11
                : i == Q3_PS_EFLAGS      ? 0x100
                : i == Q3_PS_WEAPON      ? 5
                : i == Q3_PS_VIEWHEIGHT  ? 26
                                         : 0;
        wbit(w, v != 0);
        if (v)
            wbits(w, v, q3_ps_fields[i].bits);
    }
    wbit(w, 1); /* arrays: only powerups */
    wbit(w, 0);
    wbit(w, 0);
    wbit(w, 0);
    wbit(w, 1);
    wbits(w, (1 << 1) | (1 << 7), 16);
    wbits(w, 8000, 32);
    wbits(w, 0x7fffffff, 32);
    static const int player[][2] = {{Q3_ES_ETYPE, 1},         {Q3_ES_TORSOANIM, 7},
                                    {Q3_ES_LEGSANIM, 128 | 15}, {Q3_ES_EFLAGS, 0x100},
                                    {Q3_ES_WEAPON, 3},        {Q3_ES_CLIENTNUM, 3},
                                    {Q3_ES_POWERUPS, 1 << 8}};
    static const int rocket[][2] = {{Q3_ES_ETYPE, 3}, {Q3_ES_WEAPON, 5}};
    static const int item[][2] = {{Q3_ES_ETYPE, 2}, {Q3_ES_MODELINDEX, 1}};
    write_entity(w, 2, player, 7);
    write_entity(w, 40, rocket, 2);
    write_entity(w, 41, item, 2);
    wbits(w, Q3_ENTITYNUM_NONE, Q3_GENTITYNUM_BITS);
    wbits(w, Q3_SVC_EOF, 8);
}

/* Plan 2.1: a body's legs / torso animations (frame / frame2, toggle bit kept), its held
 * weapon's model (model2, the weapon item's world model of bg_itemlist), its player slot
 * and the neutral fx of eFlags and powerups; missiles and items get their looks too. */
/* The test gamestate, then snapshot k of the n that build writes at server time 5000 + 50 k
 * as block 11 + k, decoded whole into r (run_close it; free *m). */
typedef void (*snap_fn)(bw *w, int32_t t);
static int run_snapshots(run *r, buf **m, const snap_fn *build, int n)
{
    memset(r, 0, sizeof *r);
    bw *w;
    *m = start_built(&w);
    if (!*m)
        return 0;
    for (int k = 0; k < n; k++) {
        build[k](w, 5000 + 50 * k);
        add_block(*m, w, 11 + k);
    }
    free(w);
    return run_built(r, *m);
}

TEST(q3_body_look_animations_weapon_fx)
{
    static const snap_fn build[] = {build_look_snapshot};
    run r;
    buf *m;
    CHECK_MSG(run_snapshots(&r, &m, build, 1), "%s", r.err.msg);
    const cl_state *cl = r.cl;
    /* the recorder's body, entity 1, from its playerState */
    const cl_entstate *b = &cl->entities[1].cur;
    CHECK(cl->entities[1].active);
    CHECK_EQ(b->frame, 22);
    CHECK_EQ(b->frame2, 128 | 11);
    CHECK_EQ(b->player, 1);
    CHECK(b->model2 > 0 && b->model2 < CL_MAX_MODELS);
    if (b->model2 > 0 && b->model2 < CL_MAX_MODELS)
        CHECK_STR(cl->level.models[b->model2], "models/weapons2/rocketl/rocketl.md3");
    CHECK_EQ(b->fx, CL_FX_MUZZLE | CL_FX_GLOW_BLUE | CL_FX_FLAG_RED);
    /* client 3's body: entity 2, cl entity 3 */
    const cl_entstate *p = &cl->entities[3].cur;
    CHECK(cl->entities[3].active);
    CHECK(p->flags & CL_EF_PLAYER);
    CHECK_EQ(p->frame, 128 | 15);
    CHECK_EQ(p->frame2, 7);
    CHECK_EQ(p->player, 4);
    CHECK(p->model2 > 0 && p->model2 < CL_MAX_MODELS);
    if (p->model2 > 0 && p->model2 < CL_MAX_MODELS)
        CHECK_STR(cl->level.models[p->model2], "models/weapons2/shotgun/shotgun.md3");
    CHECK_EQ(p->fx, CL_FX_MUZZLE | CL_FX_FLAG_BLUE);
    /* the rocket trails smoke, the item spins; neither is anyone's */
    CHECK_EQ(cl->entities[41].cur.fx, CL_FX_ROCKET);
    CHECK_EQ(cl->entities[41].cur.player, 0);
    CHECK_EQ(cl->entities[42].cur.fx, CL_FX_ROTATE);
    CHECK_EQ(cl->entities[42].cur.model2, 0);
    run_close(&r);
    free(m);
}

/* A snapshot after build_look_snapshot's that holds only its item (entity 41): no delta,
 * an empty playerState delta, the item from its zero baseline. */
static void build_item_only_snapshot(bw *w, int32_t t)
{
    snapshot_head(w, t);
    wbits(w, 0, 8); /* no playerState field changed */
    wbit(w, 0);     /* nor an array */
    static const int item[][2] = {{Q3_ES_ETYPE, 2}, {Q3_ES_MODELINDEX, 1}};
    write_entity(w, 41, item, 2);
    wbits(w, Q3_ENTITYNUM_NONE, Q3_GENTITYNUM_BITS);
    wbits(w, Q3_SVC_EOF, 8);
}

/* cgame draws a snapshot's entities and no others (cg_ents.c CG_AddPacketEntities walks
 * cg.snap->entities): a player's body the next snapshot leaves out (out of the recorder's
 * PVS, or a corpse the server unlinked, g_client.c BodySink) is gone, as the rocket is; the
 * item it keeps stays, and so does the recorder's body (from the playerState). */
TEST(q3_player_left_out_of_a_snapshot_is_gone)
{
    static const snap_fn build[] = {build_look_snapshot, build_item_only_snapshot};
    run r;
    buf *m;
    CHECK_MSG(run_snapshots(&r, &m, build, 2), "%s", r.err.msg);
    const cl_state *cl = r.cl;
    CHECK_EQ(cl->frame_count, 2);
    CHECK(cl->entities[1].active);  /* the recorder */
    CHECK(!cl->entities[3].active); /* client 3's body, entity 2 */
    CHECK(!cl->entities[41].active); /* the rocket, entity 40 */
    CHECK(cl->entities[42].active); /* the item, entity 41 */
    run_close(&r);
    free(m);
}

/* An entity delta from nothing for entity n: fields idx[0..k-1] (in increasing order) set
 * to their integer val or, for float fields, fv; the rest unchanged. */
static void wentity(bw *w, int n, const int *idx, const int32_t *val, const float *fv, int k)
{
    wbits(w, n, Q3_GENTITYNUM_BITS);
    wbit(w, 0);
    wbit(w, 1);
    wbits(w, idx[k - 1] + 1, 8);
    for (int i = 0, j = 0; i <= idx[k - 1]; i++) {
        if (j < k && idx[j] == i) {
            wes(w, i, val[j], fv[j]);
            j++;
        } else {
            wbit(w, 0);
        }
    }
}

/* A snapshot at 5000 of the test gamestate with the playerState unchanged and entities
 * written by fill, as block 11 of a new demo decoded into r. */
static int run_entities(run *r, void (*fill)(bw *w))
{
    memset(r, 0, sizeof *r); /* (its err is printed when this fails before run_open) */
    bw *w;
    buf *m = start_built(&w);
    if (!m)
        return 0;
    snapshot_head(w, 5000);
    wbits(w, 0, 8); /* playerState unchanged */
    wbit(w, 0);
    fill(w);
    wbits(w, Q3_ENTITYNUM_NONE, Q3_GENTITYNUM_BITS);
    wbits(w, Q3_SVC_EOF, 8);
    add_block(m, w, 11);
    free(w);
    int ok = run_built(r, m);
    free(m);
    return ok;
}

static void two_items(bw *w)
{
    static const int idx[3] = {Q3_ES_ETYPE, Q3_ES_EFLAGS, Q3_ES_MODELINDEX};
    static const int32_t shown[3] = {2, 0, 5}, hidden[3] = {2, 0x80, 5};
    static const float fv[3] = {0, 0, 0};
    wentity(w, 200, idx, shown, fv, 3);
    wentity(w, 201, idx, hidden, fv, 3);
}

/* Two items (ET_ITEM 2, modelindex 5: bg_itemlist's medium health) in one snapshot, the
 * second with EF_NODRAW (0x80, bg_public.h): picked up and waiting to respawn, which cgame's
 * CG_Item does not draw. The first shows the item's model, the second nothing. */
TEST(q3_item_nodraw_draws_nothing)
{
    run r;
    CHECK_MSG(run_entities(&r, two_items), "%s", r.err.msg);
    const cl_entity *shown = &r.cl->entities[201], *hidden = &r.cl->entities[202];
    CHECK(shown->active);
    CHECK(shown->cur.model > 0 && shown->cur.model < r.cl->level.num_models);
    CHECK_STR(r.cl->level.models[shown->cur.model], "models/powerups/health/medium_cross.md3");
    CHECK_EQ(hidden->cur.model, 0);
    run_close(&r);
}

static void moving_player(bw *w)
{
    /* entity 3 (client 3, "Watcher"): ET_PLAYER 1, angles2[YAW] 2.0 (a float field) */
    static const int idx[3] = {Q3_ES_ANGLES2_1, Q3_ES_ETYPE, Q3_ES_CLIENTNUM};
    static const int32_t val[3] = {0, 1, 3};
    static const float fv[3] = {2.0f, 0, 0};
    wentity(w, 3, idx, val, fv, 3);
}

/* A player's movement direction (entityState angles2[YAW], 0..7) reaches the body's state
 * (cl_entstate.skin for Quake III players), which turns its legs. */
TEST(q3_player_movement_dir)
{
    run r;
    CHECK_MSG(run_entities(&r, moving_player), "%s", r.err.msg);
    const cl_entity *e = &r.cl->entities[4];
    CHECK(e->active && (e->cur.flags & CL_EF_PLAYER));
    CHECK_EQ(e->cur.player, 4);
    CHECK_EQ(e->cur.skin, 2);
    run_close(&r);
}

static void body_and_corpse(bw *w)
{
    /* entity 3, client 3's live body: yaw 0 (apos trBase[YAW]), ET_PLAYER 1, LEGS_IDLE 22,
     * TORSO_STAND 11, powerups 1 << PW_BATTLESUIT 2; entity 64, its corpse in the body
     * queue (g_client.c CopyToBodyQue: the same clientNum, EF_DEAD 0x1, powerups 0): yaw
     * 170, BOTH_DEAD1 1 (bg_public.h) */
    static const int idx[6] = {Q3_ES_APOS_TRBASE1, Q3_ES_ETYPE, Q3_ES_TORSOANIM,
                               Q3_ES_LEGSANIM, Q3_ES_CLIENTNUM, Q3_ES_POWERUPS};
    static const int32_t live[6] = {0, 1, 11, 22, 3, 1 << 2};
    static const float live_f[6] = {0, 0, 0, 0, 0, 0};
    wentity(w, 3, idx, live, live_f, 6);
    static const int cidx[6] = {Q3_ES_APOS_TRBASE1, Q3_ES_ETYPE, Q3_ES_TORSOANIM,
                                Q3_ES_LEGSANIM, Q3_ES_EFLAGS, Q3_ES_CLIENTNUM};
    static const int32_t dead[6] = {0, 1, 1, 1, 1, 3};
    static const float dead_f[6] = {170, 0, 0, 0, 0, 0};
    wentity(w, 64, cidx, dead, dead_f, 6);
}

/* cgame turns every body on its own (cg_players.c CG_PlayerAngles, cent->pe) and gives it
 * its own powerups' shells (CG_AddRefEntityWithPowerups): a corpse beside its respawned
 * player must not turn the player's legs to the corpse's yaw nor take away its battle
 * suit. The live body, new to the client, starts aligned with its view (CG_ResetPlayerEntity):
 * legs and torso at yaw 0; its shells the battle suit's. */
TEST(q3_corpse_does_not_turn_its_player)
{
    run r;
    CHECK_MSG(run_entities(&r, body_and_corpse), "%s", r.err.msg);
    const cl_player *p = &r.cl->players[3];
    CHECK(r.cl->entities[4].active && r.cl->entities[65].active);
    CHECK(p->body_ok);
    CHECK(fabsf(p->body[1][0]) < 1e-3f); /* the legs' yaw */
    CHECK(fabsf(p->body[1][1]) < 1e-3f); /* the torso's */
    CHECK_EQ(p->shells, CL_SHELL_BATTLESUIT);
    run_close(&r);
}

/* A snapshot at t (no delta, the playerState unchanged) holding the entities fill writes. */
static void entity_snapshot(bw *w, int32_t t, void (*fill)(bw *w))
{
    snapshot_head(w, t);
    wbits(w, 0, 8);
    wbit(w, 0);
    if (fill)
        fill(w);
    wbits(w, Q3_ENTITYNUM_NONE, Q3_GENTITYNUM_BITS);
    wbits(w, Q3_SVC_EOF, 8);
}

/* Client 3's body (entity 3, ET_PLAYER 1) at trBase x, eFlags eflags (fields in wire order). */
static void body_at_x(bw *w, float x, int eflags)
{
    static const int idx[4] = {Q3_ES_POS_TRBASE0, Q3_ES_ETYPE, Q3_ES_EFLAGS, Q3_ES_CLIENTNUM};
    const int32_t val[4] = {0, 1, eflags, 3};
    const float fv[4] = {x, 0, 0, 0};
    if (eflags)
        wentity(w, 3, idx, val, fv, 4);
    else { /* (eFlags left at the baseline's 0) */
        static const int idx3[3] = {Q3_ES_POS_TRBASE0, Q3_ES_ETYPE, Q3_ES_CLIENTNUM};
        const int32_t val3[3] = {0, 1, 3};
        const float fv3[3] = {x, 0, 0};
        wentity(w, 3, idx3, val3, fv3, 3);
    }
}
static void body_10_tele(bw *w) { body_at_x(w, 10, Q3_EF_TELEPORT_BIT); }
static void body_110_tele(bw *w) { body_at_x(w, 110, Q3_EF_TELEPORT_BIT); }
static void body_110(bw *w) { body_at_x(w, 110, 0); }
static void snap_body_10_tele(bw *w, int32_t t) { entity_snapshot(w, t, body_10_tele); }
static void snap_body_110_tele(bw *w, int32_t t) { entity_snapshot(w, t, body_110_tele); }
static void snap_body_110(bw *w, int32_t t) { entity_snapshot(w, t, body_110); }

/* cg_snapshot.c CG_SetNextSnap snaps an entity whose EF_TELEPORT_BIT (0x4) toggled against
 * the state shown (cent->currentState), not against the delta's source: two snapshots
 * from nothing (each against the zero baseline) whose body keeps the bit set move it from
 * x 10 to 110, which halfway between them is 60; when the second clears the bit, a
 * teleport, it is at 110 from the start. */
TEST(q3_teleport_bit_against_the_state_shown)
{
    static const snap_fn kept[] = {snap_body_10_tele, snap_body_110_tele},
                         toggled[] = {snap_body_10_tele, snap_body_110};
    const snap_fn *runs[2] = {kept, toggled};
    const float want[2] = {60, 110};
    for (int k = 0; k < 2; k++) {
        run r;
        buf *m;
        CHECK_MSG(run_snapshots(&r, &m, runs[k], 2), "%s", r.err.msg);
        cl_entstate st;
        CHECK(cl_entity_at(r.cl, 4, 0.025, &st, NULL, NULL));
        CHECK_MSG(fabsf(st.origin[0] - want[k]) < 1e-3f, "case %d: x %g, want %g", k,
                  (double)st.origin[0], (double)want[k]);
        run_close(&r);
        free(m);
    }
}

static void stopping_bodies(bw *w)
{
    /* TR_LINEAR_STOP 3 (bg_public.h trType_t) from x 100 at 320 units a second since server
     * ms 4970 for 50 ms (g_smoothClients' BG_PlayerStateToEntityStateExtraPolate): entity
     * 3, client 3's body, and entity 70, a body of client 3 that is not its client entity */
    static const int idx[7] = {Q3_ES_POS_TRTIME, Q3_ES_POS_TRBASE0, Q3_ES_POS_TRDELTA0,
                               Q3_ES_ETYPE,      Q3_ES_POS_TRTYPE,  Q3_ES_CLIENTNUM,
                               Q3_ES_POS_TRDURATION};
    static const int32_t val[7] = {4970, 0, 0, 1, 3, 3, 50};
    static const float fv[7] = {0, 100, 320, 0, 0, 0, 0};
    wentity(w, 3, idx, val, fv, 7);
    wentity(w, 70, idx, val, fv, 7);
}

/* cg_ents.c CG_CalcEntityLerpPositions with cg_smoothClients 0 (the default) moves a
 * client's body (number below MAX_CLIENTS 64) by TR_INTERPOLATE, at its trBase, whatever
 * trajectory it came with; other entities follow theirs: at the snapshot (server ms 5000)
 * the body is at 100, entity 70 at 100 + 320 x 0.030 = 109.6. */
TEST(q3_client_bodies_interpolate)
{
    run r;
    CHECK_MSG(run_entities(&r, stopping_bodies), "%s", r.err.msg);
    CHECK(fabsf(r.cl->entities[4].cur.origin[0] - 100) < 1e-3f);
    CHECK(fabsf(r.cl->entities[71].cur.origin[0] - 109.6f) < 1e-3f);
    run_close(&r);
}

static void firing_body(bw *w)
{
    /* client 3's body with EV_FIRE_WEAPON 23 (bg_public.h, 1.32) and event bits 0x100 */
    static const int idx[3] = {Q3_ES_EVENT, Q3_ES_ETYPE, Q3_ES_CLIENTNUM};
    static const int32_t val[3] = {23 | 0x100, 1, 3};
    static const float fv[3] = {0, 0, 0};
    wentity(w, 3, idx, val, fv, 3);
}
static void snap_firing(bw *w, int32_t t) { entity_snapshot(w, t, firing_body); }
static void snap_empty(bw *w, int32_t t) { entity_snapshot(w, t, NULL); }

/* cg_snapshot.c CG_ResetEntity forgets an entity's last event only when it was last seen
 * more than EVENT_VALID_MSEC (300, bg_public.h) before: a body out of the snapshot for 50
 * ms comes back with the same event and fires it not again (one muzzle flash,
 * cg_weapons.c CG_FireWeapon); back after 350 ms it fires it again (two). */
TEST(q3_event_not_fired_again_after_a_short_absence)
{
    static const snap_fn brief[] = {snap_firing, snap_empty, snap_firing},
                         longer[] = {snap_firing, snap_empty, snap_empty, snap_empty,
                                     snap_empty,  snap_empty, snap_empty, snap_firing};
    const snap_fn *runs[2] = {brief, longer};
    const int n[2] = {3, 8}, want[2] = {1, 2};
    for (int k = 0; k < 2; k++) {
        run r;
        buf *m;
        CHECK_MSG(run_snapshots(&r, &m, runs[k], n[k]), "%s", r.err.msg);
        int flashes = 0;
        const cl_fxlog *log = &r.cl->fxlog;
        for (uint32_t i = 0; i < log->fx_count && i < CL_FX_LOG; i++)
            flashes += log->fx[i].kind == CL_FXK_MUZZLE && log->fx[i].entity == 4;
        CHECK_MSG(flashes == want[k], "case %d: %d flashes, want %d", k, flashes, want[k]);
        run_close(&r);
        free(m);
    }
}

static void humming_bodies(bw *w)
{
    /* client 3's body with the railgun (WP_RAILGUN 7), client 5's firing the lightning gun
     * (WP_LIGHTNING 6, EF_FIRING 0x100), a rocket (ET_MISSILE 3, WP_ROCKET_LAUNCHER 5) and a
     * grenade (WP_GRENADE_LAUNCHER 4); bg_public.h */
    static const int idx[4] = {Q3_ES_ETYPE, Q3_ES_EFLAGS, Q3_ES_WEAPON, Q3_ES_CLIENTNUM};
    static const int32_t rail[4] = {1, 0, 7, 3}, lg[4] = {1, 0x100, 6, 5};
    static const float fv[4] = {0, 0, 0, 0};
    wentity(w, 3, idx, rail, fv, 4);
    wentity(w, 5, idx, lg, fv, 4);
    static const int midx[2] = {Q3_ES_ETYPE, Q3_ES_WEAPON};
    static const int32_t rocket[2] = {3, 5}, grenade[2] = {3, 4};
    wentity(w, 40, midx, rocket, fv, 2);
    wentity(w, 41, midx, grenade, fv, 2);
}

/* cg_weapons.c: a body's world weapon plays its readySound, or its firingSound while it fires
 * (CG_AddPlayerWeapon), and a missile its missileSound (CG_Missile), on the entity's loop
 * (CG_RegisterWeapon: the railgun's rg_hum, the lightning gun's lg_hum firing, the rocket's
 * rockfly; the grenade none). */
TEST(q3_weapon_and_missile_loops)
{
    run r;
    CHECK_MSG(run_entities(&r, humming_bodies), "%s", r.err.msg);
    static const struct {
        int ent;
        const char *name;
    } want[] = {{4, "sound/weapons/railgun/rg_hum.wav"},
                {6, "sound/weapons/lightning/lg_hum.wav"},
                {41, "sound/weapons/rocket/rockfly.wav"},
                {42, NULL}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        int s = r.cl->entities[want[k].ent].loop_sound;
        if (want[k].name)
            CHECK_MSG(s > 0 && s < r.cl->level.num_sounds &&
                          !strcmp(r.cl->level.sounds[s], want[k].name),
                      "entity %d", want[k].ent);
        else
            CHECK_EQ(s, 0);
    }
    run_close(&r);
}

static void rail_event(bw *w)
{
    /* an event-only entity (eType ET_EVENTS 13 + EV_RAILTRAIL 53, 1.32 bg_public.h) of
     * client 5 */
    static const int idx[2] = {Q3_ES_ETYPE, Q3_ES_CLIENTNUM};
    static const int32_t val[2] = {13 + 53, 5};
    static const float fv[2] = {0, 0};
    wentity(w, 100, idx, val, fv, 2);
}

/* cg_weapons.c CG_RailTrail draws the trail in its shooter's color1, from the userinfo's "c1"
 * (cg_players.c CG_ColorFromString: 1..7 as blue 1, green 2 and red 4 bits, else white):
 * client 5's "c1" 6 is green and red (yellow); unset, white. */
TEST(q3_rail_trail_in_its_shooters_colour)
{
    static const char *const c1[2] = {"cs 549 \"n\\Railer\\c1\\6\"", "cs 549 \"n\\Railer\""};
    static const uint8_t want[2][3] = {{255, 255, 0}, {255, 255, 255}};
    for (int k = 0; k < 2; k++) {
        bw *w;
        buf *m = start_built(&w);
        CHECK(m);
        add_command(m, w, 11, c1[k]); /* CS_PLAYERS 544 + 5 */
        entity_snapshot(w, 5000, rail_event);
        add_block(m, w, 12);
        free(w);
        run r;
        CHECK_MSG(run_built(&r, m), "%s", r.err.msg);
        int rails = 0;
        const cl_fxlog *log = &r.cl->fxlog;
        for (uint32_t i = 0; i < log->fx_count && i < CL_FX_LOG; i++)
            if (log->fx[i].kind == CL_FXK_BEAM_RAIL) {
                rails++;
                CHECK(!memcmp(log->fx[i].rgb, want[k], 3));
            }
        CHECK_EQ(rails, 1);
        run_close(&r);
        free(m);
    }
}

/* A snapshot at t (no delta) whose playerState holds the fields of ps (indexes Q3_PS_*, up
 * to Q3_PS_WEAPON; 0 is not sent), no stats arrays and no entities. */
static void build_ps_snapshot(bw *w, int32_t t, const int32_t ps[Q3_PS_WEAPON + 1])
{
    snapshot_head(w, t);
    wbits(w, Q3_PS_WEAPON + 1, 8);
    for (int i = 0; i <= Q3_PS_WEAPON; i++) {
        wbit(w, ps[i] != 0);
        if (ps[i])
            wbits(w, ps[i], q3_ps_fields[i].bits);
    }
    wbit(w, 0); /* no stats arrays */
    wbits(w, Q3_ENTITYNUM_NONE, Q3_GENTITYNUM_BITS);
    wbits(w, Q3_SVC_EOF, 8);
}

/* A snapshot at t whose playerState holds row's eventSequence, events[0], events[1],
 * externalEvent (its parm 20 when set), clientNum, weapon and eFlags, viewheight 26. */
static void ps_event_snapshot(bw *w, int32_t t, const int32_t row[7])
{
    int32_t ps[Q3_PS_WEAPON + 1] = {0};
    ps[Q3_PS_EVENTSEQUENCE] = row[0];
    ps[Q3_PS_EVENTS0] = row[1];
    ps[Q3_PS_EVENTS1] = row[2];
    ps[Q3_PS_EXTERNALEVENT] = row[3];
    ps[Q3_PS_EXTERNALEVENTPARM] = row[3] ? 20 : 0;
    ps[Q3_PS_CLIENTNUM] = row[4];
    ps[Q3_PS_WEAPON] = row[5];
    ps[Q3_PS_EFLAGS] = row[6];
    ps[Q3_PS_VIEWHEIGHT] = 26;
    build_ps_snapshot(w, t, ps);
}

/* A snapshot at t (snapFlags flags, no entities) whose playerState is client `client` at
 * origin (x, 0, 0), eFlags eflags, viewheight 26. */
static void view_snapshot(bw *w, int32_t t, float x, int eflags, int client, int flags)
{
    snapshot_head_flags(w, t, flags);
    wbits(w, Q3_PS_WEAPON + 1, 8);
    for (int i = 0; i <= Q3_PS_WEAPON; i++) {
        int v = i == Q3_PS_EFLAGS ? eflags : i == Q3_PS_CLIENTNUM ? client
                : i == Q3_PS_VIEWHEIGHT ? 26 : 0;
        if (i == Q3_PS_ORIGIN0) {
            wbit(w, 1);
            wfloat(w, x);
        } else {
            wbit(w, v != 0);
            if (v)
                wbits(w, v, q3_ps_fields[i].bits);
        }
    }
    wbit(w, 0); /* no stats arrays */
    wbits(w, Q3_ENTITYNUM_NONE, Q3_GENTITYNUM_BITS);
    wbits(w, Q3_SVC_EOF, 8);
}

/* cg_snapshot.c CG_SetNextSnap: the view is not interpolated into a playerState that
 * toggled EF_TELEPORT_BIT (0x4, bg_public.h), follows another client, or whose snapshot
 * toggled SNAPFLAG_SERVERCOUNT (4, q_shared.h); otherwise it is (CG_InterpolatePlayerState).
 * Two snapshots 50 ms apart, the eye moving from x 0 to 1000: halfway between them the eye
 * is at 500 when nothing cuts, at 0 when something does (CG_InterpolatePlayerState then
 * returns cg.snap's playerState whole: the older one, until the newer one's time), and at
 * 1000 at the second snapshot's time either way. */
TEST(q3_view_cuts_at_teleport_follow_and_restart)
{
    static const struct {
        int eflags, client, flags;
        float x;
    } second[] = {{0, 0, 0, 500}, {4, 0, 0, 0}, {0, 3, 0, 0}, {0, 0, 4, 0}};
    for (size_t k = 0; k < sizeof second / sizeof second[0]; k++) {
        bw *w;
        buf *m = start_built(&w);
        CHECK(m);
        view_snapshot(w, 5000, 0, 0, 0, 0);
        add_block(m, w, 11);
        view_snapshot(w, 5050, 1000, second[k].eflags, second[k].client, second[k].flags);
        add_block(m, w, 12);
        free(w);
        run r;
        CHECK_MSG(run_built(&r, m), "%s", r.err.msg);
        float o[3], a[3];
        cl_view_at(r.cl, 0.025, o, a);
        CHECK_MSG(fabsf(o[0] - second[k].x) < 1e-3f, "case %zu: eye x %g, want %g", k,
                  (double)o[0], (double)second[k].x);
        cl_view_at(r.cl, 0.05, o, a);
        CHECK_MSG(fabsf(o[0] - 1000) < 1e-3f, "case %zu: eye x %g at the second", k,
                  (double)o[0]);
        run_close(&r);
        free(m);
    }
}

/* A client state reset for a Quake III level, or NULL (no memory). */
static cl_state *fresh_q3_state(void)
{
    cl_state *cl = calloc(1, sizeof *cl);
    if (cl) {
        cl_reset(cl);
        cl->level.game = CL_GAME_Q3;
    }
    return cl;
}

/* cg_playerstate.c CG_TransitionPlayerState and cg_view.c CG_OffsetFirstPersonView: a
 * change of ps.viewheight (26 standing, 12 crouched) is eased out over DUCK_TIME (100 ms)
 * from the snapshot that made it, the eye lowered by duckChange (DUCK_TIME - dt) /
 * DUCK_TIME; between two snapshots cgame lerps the origin only, the view height is the
 * older one's. Feet at z 100: snapshots at 1.0 s (standing), 1.05 (crouched: change -14)
 * and 1.1 (crouched). At 1.025 the eye is the standing one's, 126 (not the lerp of 126 and
 * 112); at 1.075 it is 112 + 14 x 0.075 / 0.1 = 122.5; at 1.1, 112 + 14 x 0.5 = 119. */
TEST(q3_view_height_eased_as_cgame_ducks)
{
    cl_state *cl = fresh_q3_state();
    CHECK(cl);
    if (!cl)
        return;
    static const struct {
        double t;
        float eye, duck;
    } f[] = {{1.0, 26, 0}, {1.05, 12, -14}, {1.1, 12, 0}};
    static const struct {
        int after;
        double t;
        float z;
    } want[] = {{1, 1.025, 126}, {2, 1.075, 122.5f}, {2, 1.1, 119}};
    for (int k = 0, w = 0; k < 3; k++) {
        cl_frame_begin(cl, f[k].t);
        cl_view v;
        memset(&v, 0, sizeof v);
        v.has_origin = 1;
        v.origin[2] = 100 + f[k].eye;
        v.eye_height = f[k].eye;
        v.duck = f[k].duck;
        cl_set_view(cl, &v);
        cl_frame_end(cl, CL_DROP_ALL);
        for (; w < 3 && want[w].after == k; w++) {
            float o[3], a[3];
            cl_view_at(cl, want[w].t, o, a);
            CHECK_MSG(fabsf(o[2] - want[w].z) < 1e-3f, "at %.3f: eye z %g, want %g", want[w].t,
                      (double)o[2], (double)want[w].z);
        }
    }
    free(cl);
}

/* cg_view.c CG_DrawActiveFrame: cg.renderingThirdPerson when cg.snap's STAT_HEALTH is
 * under 1, and cg.snap is the older snapshot until the newer one's time (cgame lerps the
 * origin and angles only, CG_InterpolatePlayerState). Snapshots at 1.0 s (alive) and 1.05
 * s (dead): between them the camera is still the first-person one (not pivoted), at 1.05
 * the dead player's from behind (pivoted about the eye). qdemo turned to the death camera
 * from the snapshot before: a frame of the game's first-person view seen from behind. */
TEST(q3_death_camera_from_the_death_snapshot_on)
{
    cl_state *cl = fresh_q3_state();
    CHECK(cl);
    if (!cl)
        return;
    for (int k = 0; k < 2; k++) {
        cl_frame_begin(cl, k ? 1.05 : 1.0);
        cl_view v;
        memset(&v, 0, sizeof v);
        v.has_origin = 1;
        v.origin[2] = 100;
        v.dead = (uint8_t)k;
        v.dead_yaw = 90;
        cl_set_view(cl, &v);
        cl_frame_end(cl, CL_DROP_ALL);
    }
    r_camera cam;
    r_camera_from_view(cl, 1.025, &cam);
    CHECK_MSG(!cam.pivoted, "third person before the death's snapshot");
    r_camera_from_view(cl, 1.05, &cam);
    CHECK_MSG(cam.pivoted, "first person at the death's snapshot");
    free(cl);
}

/* cg_playerstate.c CG_TransitionPlayerState and cg_view.c CG_DamageFeedback: a new
 * damageEvent with a damageCount kicks the view, damage x 40 / health (under 40 health, as
 * here with no stats: x 1) clamped to 5..10 degrees, from the direction AngleVectors of
 * (damagePitch, damageYaw) x 360 / 255 points away from: pitched by -kick x its part along
 * the view, rolled by kick x its part to the view's left; yaw and pitch both 255 pitch the
 * view up by the kick. CG_OffsetFirstPersonView eases it in over 100 ms from the
 * snapshot's time and out over the next 400. Snapshots at 0, 0.05 (the damage) and 0.1 s
 * (the same damageEvent: no new kick), the view looking along +x:
 * - count 8 from yaw 0: dir (-1, 0, 0), front -1: pitch +8 (down), no roll;
 * - count 30 from yaw byte 64 (90.35 degrees): kick 10, dir (0.0062, -1.0, 0): roll
 *   -10.0, pitch -0.06;
 * - count 8, yaw and pitch 255: pitch -8;
 * - a new damageEvent with count 0: none.
 * At 0.1 s the kick is at half (50 ms in), at 0.15 whole, at 0.35 half again, at 0.55 none. */
TEST(q3_damage_kicks_the_view)
{
    static const struct {
        int count, yaw, pitch;
        float kick_pitch, kick_roll;
    } c[] = {{8, 0, 0, 8, 0}, {30, 64, 0, -0.062f, -10}, {8, 255, 255, -8, 0}, {0, 0, 0, 0, 0}};
    static const struct {
        double t;
        float part;
    } at[] = {{0.1, 0.5f}, {0.15, 1}, {0.35, 0.5f}, {0.55, 0}};
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        bw *w;
        buf *m = start_built(&w);
        CHECK(m);
        for (int n = 0; n < 3; n++) {
            int32_t ps[Q3_PS_WEAPON + 1] = {0};
            ps[Q3_PS_VIEWHEIGHT] = 26;
            if (n > 0) {
                ps[Q3_PS_DAMAGEEVENT] = 1;
                ps[Q3_PS_DAMAGECOUNT] = c[k].count;
                ps[Q3_PS_DAMAGEYAW] = c[k].yaw;
                ps[Q3_PS_DAMAGEPITCH] = c[k].pitch;
            }
            build_ps_snapshot(w, 5000 + 50 * n, ps);
            add_block(m, w, 11 + n);
        }
        free(w);
        run r;
        CHECK_MSG(run_built(&r, m), "%s", r.err.msg);
        for (size_t j = 0; j < sizeof at / sizeof at[0]; j++) {
            r_camera cam;
            r_camera_from_view(r.cl, at[j].t, &cam);
            float p = at[j].part * c[k].kick_pitch, q = at[j].part * c[k].kick_roll;
            CHECK_MSG(fabsf(cam.angles[0] - p) < 0.01f && fabsf(cam.angles[2] - q) < 0.01f,
                      "case %zu at %.2f: pitch %g roll %g, want %g %g", k, at[j].t,
                      (double)cam.angles[0], (double)cam.angles[2], (double)p, (double)q);
        }
        run_close(&r);
        free(m);
    }
}

/* The recorder's own events come in its playerState (cg_playerstate.c
 * CG_CheckPlayerstateEvents), never as entities. entity_event_t (bg_public.h, 1.32): EV_JUMP
 * 14, EV_FIRE_WEAPON 23, EV_PAIN 56; weapon_t WP_MACHINEGUN 2, WP_ROCKET_LAUNCHER 5. Six
 * snapshots 50 ms apart, the recorder client 0 (sarge) then following client 3:
 *   A seq 5, events {14, 23}: the first playerState, nothing fires;
 *   B seq 6, events[5 & 1] 23 new: one machine gun shot;
 *   C seq 8, events {14, 23} at 6 and 7: a jump and a shot;
 *   D seq 8 again, externalEvent EV_PAIN with toggle bit 0x100, parm 20: pain25_1;
 *   E the same externalEvent (nothing), clientNum 3, seq 12: a new player, nothing fires;
 *   F seq 13, events[12 & 1] 23 with the rocket launcher: client 3's shot.
 * So three fire sounds (two machine gun, one rocket) and three muzzle flashes on entities
 * 1, 1 and 4 (client + 1), one jump and one pain sound of sarge's. */
TEST(q3_playerstate_events)
{
    bw *w;
    buf *m = start_built(&w);
    CHECK(m);
    static const int32_t snaps[6][7] = {
        {5, 14, 23, 0, 0, 2, 0},          {6, 14, 23, 0, 0, 2, 0},
        {8, 14, 23, 0, 0, 2, 0},          {8, 14, 23, 56 | 0x100, 0, 2, 0},
        {12, 14, 23, 56 | 0x100, 3, 5, 0}, {13, 23, 23, 56 | 0x100, 3, 5, 0}};
    for (int k = 0; k < 6; k++) {
        ps_event_snapshot(w, 1000 + 50 * k, snaps[k]);
        add_block(m, w, 11 + k);
    }
    free(w);
    run r;
    CHECK_MSG(run_built(&r, m), "%s", r.err.msg);
    int mg = 0, rocket = 0, jump = 0, pain = 0, other = 0;
    const cl_fxlog *log = &r.cl->fxlog;
    for (uint32_t i = 0; i < log->sound_count && i < CL_SOUND_LOG; i++) {
        const cl_sound *s = &log->sounds[i];
        const char *n = r.cl->level.sounds[s->sound];
        if (strstr(n, "sound/weapons/machinegun/machgf") == n && s->entity == 1)
            mg++;
        else if (!strcmp(n, "sound/weapons/rocket/rocklf1a.wav") && s->entity == 4)
            rocket++;
        else if (!strcmp(n, "sound/player/sarge/jump1.wav") && s->entity == 1)
            jump++;
        else if (!strcmp(n, "sound/player/sarge/pain25_1.wav") && s->entity == 1)
            pain++;
        else
            other++;
    }
    CHECK_EQ(mg, 2);
    CHECK_EQ(rocket, 1);
    CHECK_EQ(jump, 1);
    CHECK_EQ(pain, 1);
    CHECK_EQ(other, 0);
    int flashes[8] = {0}, nflash = 0;
    for (uint32_t i = 0; i < log->fx_count && i < CL_FX_LOG; i++)
        if (log->fx[i].kind == CL_FXK_MUZZLE && nflash < 8)
            flashes[nflash++] = log->fx[i].entity;
    CHECK_EQ(nflash, 3);
    CHECK(flashes[0] == 1 && flashes[1] == 1 && flashes[2] == 4);
    run_close(&r);
    free(m);
}

/* The announcer of baseq3's cgame around a warmup (bg_public.h CS_WARMUP 5): "cs 5 4000"
 * starts a countdown to server time 4000, which cg_servercmds.c CG_ParseWarmup greets with
 * "prepare"; cg_draw.c CG_DrawWarmup then counts whole seconds (4000 - time) / 1000, toward
 * zero, and says "three", "two", "one" as they become 2, 1, 0. Snapshots every 500 ms from
 * server time 1000 (demo time 0): 3, 2 at 1500 (0.5 s), 2, 1 at 2500 (1.5 s), 1, 0 at 3500
 * (2.5 s), 0, 0 (-500 / 1000), then past the start the countdown ends without a word. A
 * map_restart after "cs 5 \"\"" (no warmup) says "fight" (CG_MapRestart) at 4.0 s. */
TEST(q3_warmup_countdown_and_fight)
{
    bw *w;
    built_fs_game = "baseq3";
    buf *m = start_built(&w);
    built_fs_game = "cpma";
    CHECK(m);
    add_command(m, w, 11, "cs 5 \"4000\"");
    int seq = 12;
    for (int k = 0; k < 9; k++) {
        int32_t ps[Q3_PS_WEAPON + 1] = {0};
        ps[Q3_PS_VIEWHEIGHT] = 26;
        build_ps_snapshot(w, 1000 + 500 * k, ps);
        add_block(m, w, seq++);
    }
    add_command(m, w, seq++, "cs 5 \"\"");
    add_command(m, w, seq++, "map_restart");
    free(w);
    run r;
    CHECK_MSG(run_built(&r, m), "%s", r.err.msg);
    static const struct {
        const char *name;
        double t;
    } want[] = {{"sound/feedback/prepare.wav", 0},  {"sound/feedback/three.wav", 0.5},
                {"sound/feedback/two.wav", 1.5},    {"sound/feedback/one.wav", 2.5},
                {"sound/feedback/fight.wav", 4.0}};
    const cl_fxlog *log = &r.cl->fxlog;
    CHECK_EQ(log->sound_count, 5);
    for (uint32_t i = 0; i < log->sound_count && i < 5; i++) {
        const cl_sound *s = &log->sounds[i];
        CHECK_STR(r.cl->level.sounds[s->sound], want[i].name);
        CHECK_MSG(fabs(s->t0 - want[i].t) < 1e-6, "%s at %.3f", want[i].name, s->t0);
    }
    const cl_message *last = &r.cl->messages[(r.cl->message_count - 1) % CL_MAX_PRINTS];
    CHECK(r.cl->message_count > 0 && last->kind == CL_MSG_CENTER);
    CHECK_STR(last->text, "FIGHT!");
    run_close(&r);
    free(m);
}

/* A hostile serverTime near INT32_MAX (0x7fffff00) with a CTF announcement due: the queue's
 * next start (the time plus CG_PlayBufferedSounds' 750 ms) must not overflow (UBSan in the
 * sanitizer run); the announcement (an ET_EVENTS 13 + EV_GLOBAL_TEAM_SOUND 47 entity, parm
 * GTS_REDTEAM_SCORED 8) is still heard: sound/teamplay/voc_red_scores.wav. */
TEST(q3_team_sound_at_the_end_of_server_time)
{
    bw *w;
    built_fs_game = "baseq3";
    buf *m = start_built(&w);
    built_fs_game = "cpma";
    CHECK(m);
    int fv[2][2] = {{Q3_ES_ETYPE, 13 + 47}, {Q3_ES_EVENTPARM, 8}};
    if (fv[0][0] > fv[1][0]) { /* write_entity wants the fields in table order */
        int t0 = fv[0][0], t1 = fv[0][1];
        fv[0][0] = fv[1][0], fv[0][1] = fv[1][1];
        fv[1][0] = t0, fv[1][1] = t1;
    }
    for (int k = 0; k < 2; k++) {
        snapshot_head(w, 0x7fffff00 + 50 * k);
        wbits(w, Q3_PS_VIEWHEIGHT + 1, 8);
        for (int i = 0; i <= Q3_PS_VIEWHEIGHT; i++) {
            wbit(w, i == Q3_PS_VIEWHEIGHT);
            if (i == Q3_PS_VIEWHEIGHT)
                wbits(w, 26, -8);
        }
        wbit(w, 0);
        if (k == 0)
            write_entity(w, 70, (const int(*)[2])fv, 2);
        wbits(w, Q3_ENTITYNUM_NONE, Q3_GENTITYNUM_BITS);
        wbits(w, Q3_SVC_EOF, 8);
        add_block(m, w, 11 + k);
    }
    free(w);
    run r;
    CHECK_MSG(run_built(&r, m), "%s", r.err.msg);
    int heard = 0;
    for (uint32_t i = 0; i < r.cl->fxlog.sound_count && i < CL_SOUND_LOG; i++)
        heard += !strcmp(r.cl->level.sounds[r.cl->fxlog.sounds[i].sound],
                         "sound/teamplay/voc_red_scores.wav");
    CHECK_EQ(heard, 1);
    run_close(&r);
    free(m);
}

/* ---- events that make sounds and effects (cg_event.c CG_EntityEvent) ---- */

/* An entity of an event test at trBase x 100: number, eType, event (with its toggle bits),
 * eventParm, eFlags, otherEntityNum, weapon and clientNum; a field at 0 is not sent. */
typedef struct ev_ent {
    int num, type, event, parm, eflags, other, weapon, client;
} ev_ent;

static void write_ev_ent(bw *w, const ev_ent *e)
{
    const int field[7] = {Q3_ES_EVENT,          Q3_ES_ETYPE,  Q3_ES_EVENTPARM, Q3_ES_EFLAGS,
                          Q3_ES_OTHERENTITYNUM, Q3_ES_WEAPON, Q3_ES_CLIENTNUM};
    const int v[7] = {e->event, e->type, e->parm, e->eflags, e->other, e->weapon, e->client};
    int idx[8] = {Q3_ES_POS_TRBASE0}, k = 1;
    int32_t val[8] = {0};
    float fv[8] = {100};
    for (int i = 0; i < 7; i++)
        if (v[i]) {
            idx[k] = field[i];
            val[k] = v[i];
            fv[k++] = 0;
        }
    wentity(w, e->num, idx, val, fv, k);
}

/* Snapshots 50 ms apart from server time 5000, the playerState the zero one (client 0),
 * snapshot k holding the entities of snaps[k] (numbers ascending, ending at num 0), decoded
 * whole into r (run_close it). */
static int run_event_snapshots(run *r, const ev_ent (*snaps)[4], int n)
{
    memset(r, 0, sizeof *r);
    bw *w;
    buf *m = start_built(&w);
    if (!m)
        return 0;
    for (int k = 0; k < n; k++) {
        snapshot_head(w, 5000 + 50 * k);
        wbits(w, 0, 8);
        wbit(w, 0);
        for (int i = 0; i < 4 && snaps[k][i].num; i++)
            write_ev_ent(w, &snaps[k][i]);
        wbits(w, Q3_ENTITYNUM_NONE, Q3_GENTITYNUM_BITS);
        wbits(w, Q3_SVC_EOF, 8);
        add_block(m, w, 11 + k);
    }
    free(w);
    int ok = run_built(r, m);
    free(m);
    return ok;
}

/* The logged sound starts named name (on entity ent, or any when ent is -2). */
static int sounds_named(const cl_state *cl, const char *name, int ent)
{
    int n = 0;
    const cl_fxlog *log = &cl->fxlog;
    for (uint32_t i = 0; i < log->sound_count && i < CL_SOUND_LOG; i++) {
        const cl_sound *s = &log->sounds[i];
        n += !strcmp(cl->level.sounds[s->sound], name) && (ent == -2 || s->entity == ent);
    }
    return n;
}

/* cg_weapons.c CG_MissileHitWall: an explosion's light lasts its duration, 600 ms but for
 * the rocket's 1000. EV_MISSILE_MISS 51 on temporary entities (ET_EVENTS 13 + 51) of weapon
 * WP_GRENADE_LAUNCHER 4, WP_ROCKET_LAUNCHER 5 and WP_BFG 9 (bg_public.h). */
TEST(q3_explosion_light_lasts_by_weapon)
{
    static const ev_ent snaps[1][4] = {{{100, 13 + 51, 0, 0, 0, 0, 4, 0},
                                        {101, 13 + 51, 0, 0, 0, 0, 5, 0},
                                        {102, 13 + 51, 0, 0, 0, 0, 9, 0}}};
    run r;
    CHECK_MSG(run_event_snapshots(&r, snaps, 1), "%s", r.err.msg);
    float life[10] = {0};
    const cl_fxlog *log = &r.cl->fxlog;
    for (uint32_t i = 0; i < log->fx_count && i < CL_FX_LOG; i++)
        if (log->fx[i].kind == CL_FXK_EXPLOSION && log->fx[i].style < 10)
            life[log->fx[i].style] = log->fx[i].life;
    CHECK_MSG(fabsf(life[4] - 0.6f) < 1e-6f, "grenade %g", (double)life[4]);
    CHECK_MSG(fabsf(life[5] - 1.0f) < 1e-6f, "rocket %g", (double)life[5]);
    CHECK_MSG(fabsf(life[9] - 0.6f) < 1e-6f, "bfg %g", (double)life[9]);
    run_close(&r);
}

/* cg_event.c CG_EntityEvent: the impact sounds cgame plays itself, at the impact
 * (trap_S_StartSound(origin, ENTITYNUM_WORLD, ...), no entity to follow), named by
 * cg_main.c CG_RegisterSounds (sfx_rockexp sound/weapons/rocket/rocklx1a.wav, sfx_plasmaexp
 * sound/weapons/plasma/plasmx1a.wav, sfx_ric1..3 sound/weapons/machinegun/ric1..3.wav) and
 * cg_weapons.c CG_RegisterWeapon (sfx_lghit1..3 sound/weapons/lightning/lg_hit, lg_hit2,
 * lg_hit3.wav); the same names are in OpenArena's pak0. By cg_weapons.c CG_MissileHitWall's
 * weapon switch (rocket, grenade, BFG rockexp; plasma, railgun plasmaexp; lightning lghit;
 * machine gun ric; shotgun none), reached from EV_MISSILE_MISS 51 and _METAL 52,
 * EV_MISSILE_HIT 50 only for the grenade, rocket, plasma and BFG (CG_MissileHitPlayer),
 * EV_RAILTRAIL 53 when eventParm is not 255, EV_BULLET_HIT_WALL 49 (CG_Bullet), and not
 * EV_BULLET_HIT_FLESH 48. Temporary entities ET_EVENTS 13 + event; weapon_t (bg_public.h)
 * 3 shotgun, 4 grenade, 5 rocket, 6 lightning, 8 plasma, 9 BFG. */
TEST(q3_impact_sounds_by_weapon)
{
    static const ev_ent snaps[3][4] = {
        {{100, 13 + 51, 0, 0, 0, 0, 4, 0},
         {101, 13 + 52, 0, 0, 0, 0, 5, 0},
         {102, 13 + 51, 0, 0, 0, 0, 8, 0},
         {103, 13 + 51, 0, 0, 0, 0, 9, 0}},
        {{104, 13 + 50, 0, 0, 0, 0, 5, 0},
         {105, 13 + 50, 0, 0, 0, 0, 6, 0},
         {106, 13 + 51, 0, 0, 0, 0, 3, 0},
         {107, 13 + 53, 0, 10, 0, 0, 7, 0}},
        {{108, 13 + 53, 0, 255, 0, 0, 7, 0},
         {109, 13 + 49, 0, 10, 0, 0, 0, 0},
         {110, 13 + 48, 0, 10, 0, 0, 0, 0},
         {111, 13 + 51, 0, 10, 0, 0, 6, 0}}};
    run r;
    CHECK_MSG(run_event_snapshots(&r, snaps, 3), "%s", r.err.msg);
    const cl_state *cl = r.cl;
    CHECK_EQ(sounds_named(cl, "sound/weapons/rocket/rocklx1a.wav", -1), 4);
    CHECK_EQ(sounds_named(cl, "sound/weapons/plasma/plasmx1a.wav", -1), 2);
    int ric = 0, lg = 0;
    for (int k = 1; k <= 3; k++) {
        char n[64];
        snprintf(n, sizeof n, "sound/weapons/machinegun/ric%d.wav", k);
        ric += sounds_named(cl, n, -1);
    }
    lg += sounds_named(cl, "sound/weapons/lightning/lg_hit.wav", -1);
    lg += sounds_named(cl, "sound/weapons/lightning/lg_hit2.wav", -1);
    lg += sounds_named(cl, "sound/weapons/lightning/lg_hit3.wav", -1);
    CHECK_EQ(ric, 1);
    CHECK_EQ(lg, 1);
    CHECK_EQ(cl->fxlog.sound_count, 8);
    for (uint32_t i = 0; i < cl->fxlog.sound_count && i < CL_SOUND_LOG; i++) {
        const cl_sound *s = &cl->fxlog.sounds[i];
        CHECK(s->has_origin && fabsf(s->origin[0] - 100) < 1e-3f && s->entity == -1);
    }
    run_close(&r);
}

/* cg_weapons.c CG_FireWeapon: the lightning gun sounds its flashSound
 * (sound/weapons/lightning/lg_fire.wav) only on the initial press, when the entity was not
 * firing as last drawn (cent->pe.lightningFiring: CG_AddPlayerWeapon sets it from eFlags
 * EF_FIRING 0x100, bg_public.h); its muzzle flash comes with every EV_FIRE_WEAPON 23.
 * Client 3's body (ET_PLAYER 1, WP_LIGHTNING 6) fires in snapshots 0, 1, 2 with EF_FIRING
 * held, lets go in 3 and fires again in 4: two fire sounds, four flashes. The recorder
 * (client 0, its playerState: CG_CheckPlayerstateEvents on cg.predictedPlayerEntity) not
 * firing, then firing twice with EF_FIRING held: one sound, two flashes. */
TEST(q3_lightning_sounds_on_the_initial_press)
{
    static const ev_ent snaps[5][4] = {{{3, 1, 23 | 0x100, 0, 0x100, 0, 6, 3}},
                                       {{3, 1, 23 | 0x200, 0, 0x100, 0, 6, 3}},
                                       {{3, 1, 23 | 0x300, 0, 0x100, 0, 6, 3}},
                                       {{3, 1, 0, 0, 0, 0, 6, 3}},
                                       {{3, 1, 23 | 0x100, 0, 0x100, 0, 6, 3}}};
    run r;
    CHECK_MSG(run_event_snapshots(&r, snaps, 5), "%s", r.err.msg);
    CHECK_EQ(sounds_named(r.cl, "sound/weapons/lightning/lg_fire.wav", 4), 2);
    int flashes = 0;
    for (uint32_t i = 0; i < r.cl->fxlog.fx_count && i < CL_FX_LOG; i++)
        flashes += r.cl->fxlog.fx[i].kind == CL_FXK_MUZZLE && r.cl->fxlog.fx[i].entity == 4;
    CHECK_EQ(flashes, 4);
    run_close(&r);

    bw *w;
    buf *m = start_built(&w);
    CHECK(m);
    static const int32_t ps_snaps[3][7] = {
        {5, 0, 0, 0, 0, 6, 0}, {6, 0, 23, 0, 0, 6, 0x100}, {7, 23, 23, 0, 0, 6, 0x100}};
    for (int k = 0; k < 3; k++) {
        ps_event_snapshot(w, 1000 + 50 * k, ps_snaps[k]);
        add_block(m, w, 11 + k);
    }
    free(w);
    CHECK_MSG(run_built(&r, m), "%s", r.err.msg);
    CHECK_EQ(sounds_named(r.cl, "sound/weapons/lightning/lg_fire.wav", 1), 1);
    flashes = 0;
    for (uint32_t i = 0; i < r.cl->fxlog.fx_count && i < CL_FX_LOG; i++)
        flashes += r.cl->fxlog.fx[i].kind == CL_FXK_MUZZLE && r.cl->fxlog.fx[i].entity == 1;
    CHECK_EQ(flashes, 2);
    run_close(&r);
    free(m);
}

/* cg_event.c CG_EntityEvent: EV_ITEM_PICKUP 19 of a powerup or team item (bg_misc.c
 * bg_itemlist 28 item_quad, IT_POWERUP) plays cgs.media.n_healthSound
 * (sound/items/n_health.wav, cg_main.c) at the picker, for the broadcast EV_GLOBAL_ITEM_PICKUP
 * 20 plays the item's pickup_sound (sound/items/quaddamage.wav) on cg.snap->ps.clientNum,
 * "from the player's head so it never diminishes", and so does EV_GLOBAL_SOUND 46 its
 * configstring sound (eventParm 5): on the listener's entity (client 0 + 1), which
 * snd_dma.c plays at full volume, and with no attenuation. Client 3's body picks the quad up;
 * the broadcasts are temporary entities (ET_EVENTS 13 + event). */
TEST(q3_powerup_pickup_and_global_sounds_on_the_listener)
{
    static const ev_ent snaps[1][4] = {{{3, 1, 19 | 0x100, 28, 0, 0, 0, 3},
                                        {100, 13 + 20, 0, 28, 0, 0, 0, 0},
                                        {101, 13 + 46, 0, 5, 0, 0, 0, 0}}};
    run r;
    CHECK_MSG(run_event_snapshots(&r, snaps, 1), "%s", r.err.msg);
    const cl_state *cl = r.cl;
    CHECK_EQ(sounds_named(cl, "sound/items/n_health.wav", 4), 1);
    CHECK_EQ(sounds_named(cl, "sound/items/quaddamage.wav", -2), 1);
    CHECK_EQ(sounds_named(cl, "sound/items/quaddamage.wav", 1), 1);
    int global = 0;
    for (uint32_t i = 0; i < cl->fxlog.sound_count && i < CL_SOUND_LOG; i++) {
        const cl_sound *s = &cl->fxlog.sounds[i];
        if (!strcmp(cl->level.sounds[s->sound], "sound/items/quaddamage.wav") || s->sound == 5) {
            CHECK_EQ(s->entity, 1);
            CHECK_EQ(s->attenuation, 0);
            global += s->sound == 5;
        }
    }
    CHECK_EQ(global, 1);
    CHECK_EQ(cl->fxlog.sound_count, 3);
    run_close(&r);
}

/* cg_event.c CG_CheckEvents: a temporary event entity with EF_PLAYER_EVENT (0x10,
 * bg_public.h; g_active.c SendPendingPredictableEvents sends a player's second predictable
 * event so) fires with currentState.number set to otherEntityNum, the player: its
 * EV_FIRE_WEAPON 23 sound (WP_ROCKET_LAUNCHER 5: sound/weapons/rocket/rocklf1a.wav) starts
 * on client 3's body (entity 3, cl entity 4), not on the temporary entity. CG_FireWeapon
 * sets muzzleFlashTime on the temporary entity's centity, which draws no weapon: no flash. */
TEST(q3_player_event_fires_on_the_player)
{
    static const ev_ent snaps[1][4] = {{{3, 1, 0, 0, 0, 0, 5, 3},
                                        {100, 13 + 23, 0, 0, 0x10, 3, 5, 3}}};
    run r;
    CHECK_MSG(run_event_snapshots(&r, snaps, 1), "%s", r.err.msg);
    CHECK_EQ(sounds_named(r.cl, "sound/weapons/rocket/rocklf1a.wav", 4), 1);
    CHECK_EQ(r.cl->fxlog.sound_count, 1);
    int flashes = 0;
    for (uint32_t i = 0; i < r.cl->fxlog.fx_count && i < CL_FX_LOG; i++)
        flashes += r.cl->fxlog.fx[i].kind == CL_FXK_MUZZLE;
    CHECK_EQ(flashes, 0);
    run_close(&r);
}

/* cg_event.c CG_EntityEvent picks a footstep by rand() & 3 (sound/player/footsteps/step1..4
 * .wav, cg_main.c) and cg_weapons.c CG_FireWeapon a machine gun shot by rand() % 4
 * (machgf1b..4b.wav, CG_RegisterWeapon): every one of the four in turn. Client 3's body
 * steps (EV_FOOTSTEP 1) and fires (EV_FIRE_WEAPON 23, WP_MACHINEGUN 2, as client 5's body,
 * entity 5) in 16 snapshots 50 ms apart, the event's toggle bits counting: each of the four
 * samples of both is heard. */
TEST(q3_variant_sounds_use_all_four)
{
    ev_ent snaps[16][4];
    memset(snaps, 0, sizeof snaps);
    for (int k = 0; k < 16; k++) {
        snaps[k][0] = (ev_ent){3, 1, 1 | (k & 3) << 8, 0, 0, 0, 0, 3};
        snaps[k][1] = (ev_ent){5, 1, 23 | (k & 3) << 8, 0, 0, 0, 2, 5};
    }
    run r;
    CHECK_MSG(run_event_snapshots(&r, (const ev_ent(*)[4])snaps, 16), "%s", r.err.msg);
    for (int v = 1; v <= 4; v++) {
        char step[64], mg[64];
        snprintf(step, sizeof step, "sound/player/footsteps/step%d.wav", v);
        snprintf(mg, sizeof mg, "sound/weapons/machinegun/machgf%db.wav", v);
        CHECK_MSG(sounds_named(r.cl, step, 4) > 0, "no %s", step);
        CHECK_MSG(sounds_named(r.cl, mg, 6) > 0, "no %s", mg);
    }
    run_close(&r);
}

/* ---- damage in commands, gamestates and block headers (review findings, 2026-12-02) ---- */

/* m ended with the end marker and decoded through the demo layer (damaged blocks skipped):
 * player 3's name at the end, the damaged ranges, whether it ran to its end marker, and
 * entity 100's x (-1 when absent). 0 when it stopped on an error or memory ran out. */
static int layer_run(buf *m, char *name, size_t cap, int *damaged, int *ended, double *x100)
{
    put32(m, 0xffffffffu);
    put32(m, 0xffffffffu);
    qd_error err;
    demo_t *d = demo_open_with(&demo_q3_decoder, "t.dm_68", m->b, m->n, &err);
    cl_state *cl = malloc(sizeof *cl);
    if (!d || !cl) {
        demo_close(d);
        free(cl);
        return 0;
    }
    cl_reset(cl);
    int done = 0;
    qd_err e = QD_OK;
    for (size_t k = 0; !done && e == QD_OK && k <= m->n; k++)
        e = demo_step(d, cl, NULL, &done, &err);
    snprintf(name, cap, "%s", cl->players[3].name);
    *damaged = demo_num_damaged(d);
    *ended = done && demo_ended(d);
    *x100 = cl->entities[101].active ? cl->entities[101].cur.origin[0] : -1;
    demo_close(d);
    free(cl);
    return e == QD_OK;
}

/* The test gamestate (command sequence 10) as block 10 and a snapshot at 5000 as block 11;
 * *w empty (free both). NULL when out of memory. */
static buf *start_level(bw **w)
{
    buf *m = start_built(w);
    if (m) {
        build_snapshot(*w, 5000, 0, 1.0f);
        add_block(m, *w, 11);
    }
    return m;
}

/* m (from start_level) run to its end: the damaged ranges, player 3's name, entity 100's x
 * as said; then m and w freed. */
static void check_level(buf *m, bw *w, int want_damaged, const char *want_name, double want_x)
{
    char name[64] = "";
    int damaged = -1, ended = 0;
    double x = -2;
    CHECK(layer_run(m, name, sizeof name, &damaged, &ended, &x));
    free(w);
    free(m);
    CHECK_EQ(damaged, want_damaged);
    CHECK(ended);
    CHECK_MSG(!strcmp(name, want_name), "name %s, want %s", name, want_name);
    CHECK_MSG(fabs(x - want_x) < 1e-3, "entity 100 at x %f, want %f", x, want_x);
}

/* A svc_serverCommand over 64 ahead of the last (sequence 200 after 11: a damaged number)
 * is damage, skipped: the next genuine command, 12, still runs. Before the fix 200 was
 * taken, 12 was "seen" and the player kept the damaged command's name. (Entity 100 is
 * where the snapshot put it: x 64 from its baseline.) */
TEST(q3_command_sequence_jump_is_damage)
{
    bw *w;
    buf *m = start_level(&w);
    CHECK(m);
    add_command(m, w, 11, "cs 547 \"n\\One\\t\\1\"");
    add_command(m, w, 200, "cs 547 \"n\\Bad\\t\\1\"");
    add_command(m, w, 12, "cs 547 \"n\\Two\\t\\1\"");
    check_level(m, w, 1, "Two", 64);
}

/* 65 new commands in one message (a server holds 64 unacknowledged): they take effect in
 * order, so the 65th's name stays. Before the fix the 65th ran first and the 64 held ones
 * ran after it: the name of the 64th. */
TEST(q3_commands_past_a_message_keep_their_order)
{
    bw *w;
    buf *m = start_level(&w);
    CHECK(m);
    wbits(w, 0, 32);
    for (int k = 1; k <= 65; k++) {
        char text[64];
        snprintf(text, sizeof text, "cs 547 \"n\\P%d\\t\\1\"", k);
        wbits(w, Q3_SVC_SERVERCOMMAND, 8);
        wbits(w, 10 + k, 32);
        wstr(w, text);
    }
    wbits(w, Q3_SVC_EOF, 8);
    add_block(m, w, 12);
    check_level(m, w, 0, "P65", 64);
}

/* A block whose sequence is damaged to -1, its length intact: skipped as damage, and the
 * demo goes on to its real end marker (the command after it runs). Before the fix it was
 * taken for the end marker: the demo ended there, "complete", the rest unread. */
TEST(q3_sequence_minus_one_mid_file_is_damage)
{
    bw *w;
    buf *m = start_level(&w);
    CHECK(m);
    add_command(m, w, -1, "cs 547 \"n\\Bad\\t\\1\""); /* (its number: the block's -1) */
    add_command(m, w, 13, "cs 547 \"n\\Two\\t\\1\"");
    check_level(m, w, 1, "Two", 64);
}

/* A block header whose length is damaged to -1 (its sequence, 12, intact) mid-file: damage,
 * skipped, and the demo goes on to its real end marker (the command after it runs). Before
 * the fix any length of -1 was taken for the end marker: the demo ended there, "complete".
 * (The recorder's marker is -1 -1, cl_main.c CL_StopRecord_f.) */
TEST(q3_length_minus_one_mid_file_is_damage)
{
    bw *w;
    buf *m = start_level(&w);
    CHECK(m);
    put32(m, 12);
    put32(m, 0xffffffffu);
    add_command(m, w, 13, "cs 547 \"n\\Two\\t\\1\"");
    check_level(m, w, 1, "Two", 64);
}

/* Damage just before an end marker of one -1 (a sequence, then -1, as the file's last 8
 * bytes: the end by q3_block's rule): skipped, the command after it runs and the demo is
 * complete. Before the fix the resync's framing check (q3_block_at) knew only -1 -1, found
 * no whole chain there, and the decode stopped at the damage (a review). */
TEST(q3_damage_before_a_one_sided_end_marker_is_skipped)
{
    bw *w;
    buf *m = start_level(&w);
    CHECK(m);
    if (!m)
        return;
    put32(m, 12);
    put32(m, 0x7fffffffu); /* a damaged length */
    add_command(m, w, 13, "cs 547 \"n\\Two\\t\\1\"");
    put32(m, 4907);
    put32(m, 0xffffffffu);
    qd_error err;
    demo_t *d = demo_open_with(&demo_q3_decoder, "t.dm_68", m->b, m->n, &err);
    cl_state *cl = malloc(sizeof *cl);
    CHECK(d && cl);
    if (d && cl) {
        cl_reset(cl);
        int done = 0;
        qd_err e = QD_OK;
        for (size_t k = 0; !done && e == QD_OK && k <= m->n; k++)
            e = demo_step(d, cl, NULL, &done, &err);
        CHECK_EQ(e, QD_OK);
        CHECK(done && demo_ended(d));
        CHECK_EQ(demo_num_damaged(d), 1);
        CHECK_MSG(!strcmp(cl->players[3].name, "Two"), "name %s", cl->players[3].name);
    }
    demo_close(d);
    free(cl);
    free(w);
    free(m);
}

/* A second gamestate that breaks (protocol 73 in its serverinfo, command sequence 5000,
 * then a command 9 no gamestate holds) is damage, and the level before goes on whole: its
 * protocol 68 tables, its command sequence (the next command, 11, runs) and its baseline
 * (entity 100 at x 64 from a snapshot that sends it from its baseline). Before the fix the
 * broken gamestate had switched the tables to 73's, taken 5000 (11 "seen") and cleared the
 * baselines (x 0). */
TEST(q3_broken_gamestate_keeps_the_level)
{
    bw *w;
    buf *m = start_level(&w);
    CHECK(m);
    wbits(w, 0, 32);
    wbits(w, Q3_SVC_GAMESTATE, 8);
    wbits(w, 5000, 32);
    cs(w, Q3_CS_SERVERINFO, "\\sv_maxclients\\8\\mapname\\q3dm17\\protocol\\73");
    wbits(w, 9, 8); /* no such command in a gamestate */
    wbits(w, Q3_SVC_EOF, 8);
    add_block(m, w, 12);
    add_command(m, w, 11, "cs 547 \"n\\Two\\t\\1\"");
    build_snapshot(w, 5100, 0, 2.0f); /* from nothing: entity 100 from its baseline */
    add_block(m, w, 14);
    check_level(m, w, 1, "Two", 64);
}

/* A message holding a whole server command (sequence 11: a new name) and then damage (a
 * command byte 15, which no protocol has): the message is skipped as damage, and the
 * command, read whole before it, still runs (its sequence is taken, so its resends would be
 * "seen"). Before the fix it was held for the message's end and dropped with the message. */
TEST(q3_command_before_damage_in_its_message_runs)
{
    bw *w;
    buf *m = start_level(&w);
    CHECK(m);
    wbits(w, 0, 32);
    wbits(w, Q3_SVC_SERVERCOMMAND, 8);
    wbits(w, 11, 32);
    wstr(w, "cs 547 \"n\\One\\t\\1\"");
    wbits(w, 15, 8);
    add_block(m, w, 12);
    add_command(m, w, 11, "cs 547 \"n\\Resent\\t\\1\""); /* a resend: seen */
    check_level(m, w, 1, "One", 64);
}

/* A level whose command sets CS_LEVEL_START_TIME (21, "4000") and CS_GAME_VERSION (20,
 * "baseoa-1": OpenArena's numbering of the weapons' stat), then a second whole gamestate
 * that sends neither: the new level has no match clock and baseq3's numbering, as cgame's
 * CG_Init starts with both cleared. The first half alone shows the clock (from 4000 ms: 0:00
 * at 1 s before the first snapshot's 5000). Before the fix the second level kept the
 * first's clock and numbering. */
static buf *level_with_clock(bw **w, int second_gamestate)
{
    buf *m = start_level(w);
    if (!m)
        return NULL;
    add_command(m, *w, 11, "cs 21 \"4000\"");
    add_command(m, *w, 12, "cs 20 \"baseoa-1\"");
    build_snapshot(*w, 5100, 0, 1.0f);
    add_block(m, *w, 13);
    if (second_gamestate) {
        wbits(*w, 0, 32);
        wbits(*w, Q3_SVC_GAMESTATE, 8);
        wbits(*w, 12, 32);
        cs(*w, Q3_CS_SERVERINFO, "\\sv_maxclients\\8\\mapname\\q3dm6\\protocol\\68");
        wbits(*w, Q3_SVC_EOF, 8);
        wbits(*w, 0, 32);
        wbits(*w, 0, 32);
        wbits(*w, Q3_SVC_EOF, 8);
        add_block(m, *w, 14);
        build_snapshot(*w, 9000, 0, 2.0f);
        add_block(m, *w, 15);
    }
    put32(m, 0xffffffffu);
    put32(m, 0xffffffffu);
    return m;
}

TEST(q3_new_gamestate_forgets_the_level_clock)
{
    for (int second = 0; second <= 1; second++) {
        bw *w;
        buf *m = level_with_clock(&w, second);
        CHECK(m);
        if (!m)
            return;
        run r;
        CHECK(run_open(&r, m->b, m->n) && run_all(&r, m->b, m->n, NULL) == QD_OK);
        if (!second) {
            CHECK(r.cl->has_clock);
            CHECK_MSG(fabs(r.cl->clock_start - -1.0) < 1e-9, "clock_start %f", r.cl->clock_start);
        } else {
            CHECK_MSG(!r.cl->has_clock, "the second level kept the first's clock (%f)",
                      r.cl->clock_start);
            CHECK(!strcmp(r.cl->level.map, "maps/q3dm6.bsp"));
        }
        CHECK_EQ(((q3_state *)r.state)->mp_version, !second);
        run_close(&r);
        free(w);
        free(m);
    }
}

/* A snapshot at t whose playerState stands at (x, y, z) looking along yaw, 26 units up,
 * health 100, with no entity. */
static void posed_snapshot(bw *w, int32_t t, float x, float y, float z, float yaw)
{
    snapshot_head(w, t);
    wbits(w, Q3_PS_VIEWHEIGHT + 1, 8);
    for (int i = 0; i <= Q3_PS_VIEWHEIGHT; i++) {
        float f = i == Q3_PS_ORIGIN0 ? x : i == Q3_PS_ORIGIN1 ? y : i == Q3_PS_ORIGIN2 ? z
                  : i == Q3_PS_VIEWANGLES1 ? yaw : 0;
        int v = i == Q3_PS_VIEWHEIGHT ? 26 : 0;
        wbit(w, f != 0 || v != 0);
        if (f != 0)
            wfloat(w, f);
        else if (v)
            wbits(w, v, q3_ps_fields[i].bits);
    }
    health_100(w);
    wbits(w, Q3_ENTITYNUM_NONE, Q3_GENTITYNUM_BITS);
    wbits(w, Q3_SVC_EOF, 8);
}

/* A player's new model on the same map reloads the level's models, the map and its images
 * taken from the set loaded before (world.c, r_assets_load_from: a review saw each such
 * change read and decode the whole level again); what is drawn is a fresh load's. A demo
 * made here on OpenArena's oa_dm3 (the recorder at an info_player_deathmatch of its entity
 * lump, (512, 896, 40) facing 270) whose player 3 becomes major at 5.05 s (`cs 547`): the
 * frame at 5.05 s of a render from 5.0 s, drawn with the set taken over, has the pixels of
 * a render from 5.05 s, loaded fresh. */
TEST(q3_same_map_model_change_draws_a_fresh_load)
{
    const char *q = getenv("QDEMO");
    if (!q || !*q || access(q, X_OK) != 0)
        SKIP("run with QDEMO set (make test)");
    if (access("/usr/share/games/openarena/baseoa/pak1-maps.pk3", R_OK) != 0)
        SKIP("OpenArena is not installed");
    built_map = "oa_dm3";
    built_fs_game = "baseoa";
    bw *w;
    buf *m = start_built(&w);
    built_map = "q3dm17";
    built_fs_game = "cpma";
    CHECK(m != NULL);
    if (!m)
        return;
    posed_snapshot(w, 5000, 512, 896, 40, 270);
    add_block(m, w, 11);
    add_command(m, w, 11, "cs 547 \"n\\Watcher\\t\\0\\model\\major\"");
    posed_snapshot(w, 5050, 512, 896, 40, 270);
    add_block(m, w, 12);
    posed_snapshot(w, 5100, 512, 896, 40, 270);
    add_block(m, w, 13);
    put32(m, 0xffffffffu);
    put32(m, 0xffffffffu);
    char dir[1024], path[1100], out[4096], a[1200], b[1200];
    snprintf(dir, sizeof dir, "%s/samemodel", test_tmpdir());
    CHECK_EQ(test_capture(out, sizeof out, "mkdir -p '%s'", dir), 0);
    snprintf(path, sizeof path, "%s/change.dm_68", dir);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        fwrite(m->b, 1, m->n, f);
        fclose(f);
    }
    free(m);
    free(w);
    for (int k = 0; k < 2; k++)
        CHECK_EQ(test_capture(out, sizeof out,
                              "%s render '%s' --no-autodetect -p /usr/share/games/openarena/baseoa "
                              "-o '%s/r%d' --size 160x120 --fps 20 --from %s --to 0.1 -q 2>&1",
                              q, path, dir, k, k ? "0.05" : "0"),
                 0);
    snprintf(a, sizeof a, "%s/r0/000001.png", dir);
    snprintf(b, sizeof b, "%s/r1/000000.png", dir);
    CHECK(test_same_pixels(a, b));
}
