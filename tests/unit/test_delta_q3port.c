/* test_delta_q3port.c: the delta engine's Quake III reader (delta.c dd_read_q3) over the
 * decoder's own tables (q3_huff.c q3_es_table / q3_ps_table), on messages written here bit by
 * bit. Expected values come from the wire format [DM68 4, 6], worked out next to each. */
#include <stdlib.h>
#include <string.h>

#include "../../src/demo/delta.h"
#include "../../src/demo/q3_local.h"
#include "../test.h"

/* ---- a writer: raw bits LSB first; a byte as its Huffman code, found in q3_huff_table
 * (an entry indexed by the next 11 bits holds length << 8 | byte: the low `length` bits of
 * any index that decodes to the byte are its code) ---- */

typedef struct wr {
    uint8_t b[256];
    size_t bit;
} wr;

static void put_raw(wr *w, uint32_t v, int n)
{
    for (int i = 0; i < n; i++, w->bit++)
        if (v >> i & 1)
            w->b[w->bit >> 3] |= (uint8_t)(1u << (w->bit & 7));
}

static void put_huff(wr *w, unsigned byte)
{
    for (unsigned idx = 0; idx < 2048; idx++) {
        unsigned e = q3_huff_table[idx];
        if (e && (e & 0xff) == byte) {
            put_raw(w, idx, (int)(e >> 8));
            return;
        }
    }
}

/* MSG_WriteBits: (n & 7) raw bits, then whole bytes as Huffman codes [DM68 4]. */
static void put_bits(wr *w, int32_t v, int bits)
{
    int n = bits < 0 ? -bits : bits, raw = n & 7;
    uint32_t u = (uint32_t)v;
    put_raw(w, u, raw);
    for (int i = raw; i < n; i += 8)
        put_huff(w, (u >> i) & 0xff);
}

static int32_t float_bits(float f)
{
    int32_t v;
    memcpy(&v, &f, 4);
    return v;
}

/* An integral float as the wire sends it: 0, then 13 bits of v + 4096 [DM68 6]. */
static void put_small_float(wr *w, int v)
{
    put_raw(w, 0, 1);
    put_bits(w, v + 4096, 13);
}

/* The wire widths of entityStateFields in Quake III 1.32 code/qcommon/msg.c [DM68 6], in
 * wire order (0: a float): written out here, not taken from q3_huff.c. */
static const int8_t es_width[Q3_ES_COUNT] = {
    32, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 8, 8, 8, 8, 10, 8, 19, 10, 8, 8, 0, 32, 8, 0, 0,
    0, 24, 16, 8, 10, 8, 8, 0, 0, 0, 8, 0, 32, 32, 32, 0, 0, 0, 0, 32, 0, 0, 0, 32, 16,
};

/* Every row of the entity table writes its own field: field i alone changed (and not
 * zero) lands in f[i] with the wire's width, and no other field moves. */
TEST(q3port_es_table_each_row_its_field)
{
    CHECK(dd_table_ok(&q3_es_table));
    CHECK_EQ(q3_es_table.n, Q3_ES_COUNT);
    for (int i = 0; i < Q3_ES_COUNT; i++) {
        wr w;
        memset(&w, 0, sizeof w);
        int bits = es_width[i];
        /* an int field of n bits: a value using its top bit, (1 << (n - 1)) | 5; a float:
         * the integral value i - 20 (i = 0 .. 50 gives -20 .. 30) */
        int32_t want = bits ? (int32_t)((1u << (bits - 1)) | 5u) : float_bits((float)(i - 20));
        if (bits == 32)
            want = (int32_t)0x80000005u;
        for (int k = 0; k < i; k++)
            put_raw(&w, 0, 1); /* unchanged */
        put_raw(&w, 1, 1);     /* changed */
        put_raw(&w, 1, 1);     /* not zero */
        if (bits)
            put_bits(&w, want, bits);
        else
            put_small_float(&w, i - 20);
        q3_bits b;
        q3_bits_init(&b, w.b, (w.bit + 7) / 8);
        dd_reader rd = {NULL, &b, 0, 0};
        q3_ent e;
        for (int k = 0; k < Q3_ES_COUNT; k++)
            e.f[k] = 7000 + k;
        CHECK_EQ(dd_read_q3(&rd, &q3_es_table, i + 1, &e, 1), 0);
        CHECK(!q3_bits_err(&b));
        CHECK_EQ(b.bit, w.bit);
        CHECK_MSG(e.f[i] == want, "row %d (%s): %d, want %d", i, q3_es_fields[i].name,
                  e.f[i], want);
        for (int k = 0; k < Q3_ES_COUNT; k++)
            if (k != i)
                CHECK_MSG(e.f[k] == 7000 + k, "row %d moved field %d", i, k);
    }
}

/* The player-state table has no "not zero" bit; its signed rows sign-extend
 * (weaponTime -16 bits, viewheight -8 bits), a float may come as 32 raw bits. */
TEST(q3port_ps_table_signs_and_floats)
{
    CHECK(dd_table_ok(&q3_ps_table));
    CHECK_EQ(q3_ps_table.n, Q3_PS_COUNT);
    wr w;
    memset(&w, 0, sizeof w);
    /* fields 0 .. Q3_PS_VIEWHEIGHT: commandTime 1000 (32 bits), origin[0] 0.5f as 32 raw
     * bits, weaponTime -1234, viewheight -5; the rest unchanged */
    for (int i = 0; i <= Q3_PS_VIEWHEIGHT; i++) {
        if (i == Q3_PS_COMMANDTIME) {
            put_raw(&w, 1, 1);
            put_bits(&w, 1000, 32);
        } else if (i == Q3_PS_ORIGIN0) {
            put_raw(&w, 1, 1);
            put_raw(&w, 1, 1); /* the 32-bit form */
            put_bits(&w, float_bits(0.5f), 32);
        } else if (i == Q3_PS_WEAPONTIME) {
            put_raw(&w, 1, 1);
            put_bits(&w, -1234, -16); /* 0xFB2E in 16 bits */
        } else if (i == Q3_PS_VIEWHEIGHT) {
            put_raw(&w, 1, 1);
            put_bits(&w, -5, -8); /* 0xFB */
        } else {
            put_raw(&w, 0, 1);
        }
    }
    q3_bits b;
    q3_bits_init(&b, w.b, (w.bit + 7) / 8);
    dd_reader rd = {NULL, &b, 0, 0};
    q3_ps ps;
    memset(&ps, 0, sizeof ps);
    ps.f[Q3_PS_ORIGIN1] = 77;
    CHECK_EQ(dd_read_q3(&rd, &q3_ps_table, Q3_PS_VIEWHEIGHT + 1, &ps, 0), 0);
    CHECK(!q3_bits_err(&b));
    CHECK_EQ(b.bit, w.bit);
    CHECK_EQ(ps.f[Q3_PS_COMMANDTIME], 1000);
    CHECK(q3_f(ps.f[Q3_PS_ORIGIN0]) == 0.5f);
    CHECK_EQ(ps.f[Q3_PS_ORIGIN1], 77);
    CHECK_EQ(ps.f[Q3_PS_WEAPONTIME], -1234);
    CHECK_EQ(ps.f[Q3_PS_VIEWHEIGHT], -5);
}

/* A count over the table reads nothing; "changed" then "zero" clears a field. */
TEST(q3port_count_over_table_and_zero_bit)
{
    static const uint8_t m[] = {0x01, 0xff};
    q3_bits b;
    q3_bits_init(&b, m, sizeof m);
    dd_reader rd = {NULL, &b, 0, 0};
    q3_ent e;
    memset(&e, 0, sizeof e);
    e.f[0] = 42;
    CHECK_EQ(dd_read_q3(&rd, &q3_es_table, Q3_ES_COUNT + 1, &e, 1), -1);
    CHECK_EQ(b.bit, 0);
    CHECK_EQ(e.f[0], 42);
    /* byte 0x01: bit 0 = 1 (pos.trTime changed), bit 1 = 0 (it is zero) */
    CHECK_EQ(dd_read_q3(&rd, &q3_es_table, 1, &e, 1), 0);
    CHECK_EQ(e.f[0], 0);
    CHECK_EQ(b.bit, 2);
    CHECK(!q3_bits_err(&b));
}

/* The zero-run skip: a run that starts mid-byte and crosses the 64 bits one peek sees
 * stops at the changed field; a run past the end of the data sets the error and changes
 * nothing. */
TEST(q3port_zero_run_across_peek_and_end)
{
    wr w;
    memset(&w, 0, sizeof w);
    put_raw(&w, 0x15, 5);  /* 5 bits the caller read before: 10101b */
    put_raw(&w, 0, 32);    /* fields 0..31 unchanged */
    put_raw(&w, 0, 16);    /* fields 32..47 unchanged: 48 zeros from bit 5 */
    put_raw(&w, 1, 1);     /* field 48 (angles2[2], a float) changed */
    put_raw(&w, 1, 1);     /* not zero */
    put_small_float(&w, -3);
    put_raw(&w, 0, 2);     /* fields 49, 50 unchanged */
    memset(w.b + (w.bit + 7) / 8, 0, 8);
    q3_bits b;
    q3_bits_init(&b, w.b, (w.bit + 7) / 8);
    b.bit = 5;
    dd_reader rd = {NULL, &b, 0, 0};
    q3_ent e;
    memset(&e, 0, sizeof e);
    CHECK_EQ(dd_read_q3(&rd, &q3_es_table, Q3_ES_COUNT, &e, 1), 0);
    CHECK(!q3_bits_err(&b));
    CHECK_EQ(b.bit, w.bit);
    CHECK(q3_f(e.f[Q3_ES_ANGLES2_2]) == -3.0f);
    for (int k = 0; k < Q3_ES_COUNT; k++)
        if (k != Q3_ES_ANGLES2_2)
            CHECK_EQ(e.f[k], 0);

    /* 51 fields announced over 3 zero bytes (24 bits): the data ends inside the run */
    static const uint8_t z[] = {0, 0, 0};
    q3_bits_init(&b, z, sizeof z);
    e.f[Q3_ES_FRAME] = 9;
    CHECK_EQ(dd_read_q3(&rd, &q3_es_table, Q3_ES_COUNT, &e, 1), 0);
    CHECK(q3_bits_err(&b));
    CHECK_EQ(e.f[Q3_ES_FRAME], 9);
}

/* The field reader bit by bit through the public reader (q3_bit, q3_read_bits): what
 * dd_read_q3 must give, its 64-bit fast path included (delta.c read_q3_fast), at any
 * length of the data. */
static void read_fields_slowly(q3_bits *b, const dd_table *t, int count, int32_t *f,
                               int zero_bit)
{
    for (int i = 0; i < count && !q3_bits_err(b); i++) {
        int changed = q3_bit(b);
        if (q3_bits_err(b))
            break;
        if (!changed)
            continue;
        int32_t v = 0;
        if (!zero_bit || q3_bit(b)) {
            if (t->f[i].kind != DD_Q3FLOAT) {
                v = q3_read_bits(b, t->f[i].bits);
            } else if (q3_bit(b)) {
                v = q3_read_bits(b, 32);
            } else {
                v = float_bits((float)(q3_read_bits(b, Q3_SNAPPED_BITS) - 4096));
            }
        }
        f[i] = v;
    }
}

/* Random deltas over both tables (fixed seed), some with a NYT code in a value, read whole
 * and cut at every byte: the fields, the cursor and the error as the bit-by-bit read. */
TEST(q3port_fast_fields_as_bit_by_bit)
{
    unsigned nyt = 0;
    while (nyt < 2048 && q3_huff_table[nyt])
        nyt++;
    CHECK(nyt < 2048);
    uint32_t seed = 12345;
#define RND() (seed = seed * 1103515245u + 12345u, seed >> 8)
    for (int round = 0; round < 400 && !test_failed(); round++) {
        int ents = round & 1;
        const dd_table *t = ents ? &q3_es_table : &q3_ps_table;
        wr w;
        memset(&w, 0, sizeof w);
        int count = 0, bad = round % 7 == 3 ? (int)(RND() % t->n) : -1;
        for (int i = 0; i < t->n && w.bit < 1500; i++, count++) {
            const dd_field *fd = &t->f[i];
            unsigned r = RND() % 8;
            if (r < 4) { /* unchanged: runs of zeros */
                put_raw(&w, 0, 1);
                continue;
            }
            put_raw(&w, 1, 1);
            if (ents)
                put_raw(&w, r != 4, 1);
            if (ents && r == 4)
                continue; /* changed to zero */
            if (i == bad) { /* a value's first code is the NYT's */
                if (fd->kind == DD_Q3FLOAT)
                    put_raw(&w, 1, 1);
                int n = fd->kind == DD_Q3FLOAT ? 32 : fd->bits < 0 ? -fd->bits : fd->bits;
                put_raw(&w, 0, n & 7);
                put_raw(&w, nyt, 11);
                put_raw(&w, RND(), 24);
                count++;
                break;
            }
            uint32_t u = RND() ^ RND() << 16;
            if (fd->kind != DD_Q3FLOAT) {
                put_bits(&w, (int32_t)u, fd->bits);
            } else if (r == 5) {
                put_small_float(&w, (int)(u % 8192) - 4096);
            } else {
                put_raw(&w, 1, 1);
                put_bits(&w, (int32_t)u, 32);
            }
        }
        size_t full = (w.bit + 7) / 8;
        for (size_t len = 0; len <= full + 9 && len <= sizeof w.b; len++) {
            q3_bits b1, b2;
            q3_bits_init(&b1, w.b, len);
            q3_bits_init(&b2, w.b, len);
            q3_ps x1, x2; /* (the larger of the two states) */
            memset(&x1, 0x5a, sizeof x1);
            memset(&x2, 0x5a, sizeof x2);
            dd_reader rd = {NULL, &b1, 0, 0};
            CHECK_EQ(dd_read_q3(&rd, t, count, x1.f, ents), 0);
            read_fields_slowly(&b2, t, count, x2.f, ents);
            CHECK_EQ(b1.bit, b2.bit);
            CHECK_EQ(q3_bits_err(&b1), q3_bits_err(&b2));
            CHECK(!memcmp(x1.f, x2.f, sizeof x1.f));
            if (test_failed()) {
                fprintf(stderr, "round %d, %zu of %zu bytes\n", round, len, full);
                break;
            }
        }
    }
#undef RND
}
