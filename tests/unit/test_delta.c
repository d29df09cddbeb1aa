/* test_delta.c: the delta engine (src/demo/delta.[ch]) on bytes and bits built by hand: the
 * four games' mask ladders and field tables, and the frame ring / pool / merge. Every
 * expected value is worked out in the comment next to it. */
#include <stddef.h>
#include <string.h>

#include "../../src/demo/delta.h"
#include "../../src/demo/q3_local.h"
#include "../test.h"

/* ---- field tables ---- */

/* A test entity, in the units the rows store. */
typedef struct t_ent {
    uint16_t number;
    uint16_t model;
    uint16_t frame;
    uint8_t angle;
    uint8_t alpha;
    float origin[3];
    uint32_t skin;
    uint16_t solid;
    uint8_t extra;
    uint8_t pad;
} t_ent;

#define ROW(name, bit, alt, field, kind, bits, size, count, opt)                          \
    {name, bit, alt, (uint16_t)offsetof(t_ent, field), kind, bits, size, count, opt}

/* Quake (q1.c's U_* numbers): U_MOREBITS 1<<0, U_ORIGIN1 1<<1, U_FRAME 1<<6, U_ANGLE1 1<<8,
 * U_MODEL 1<<10, FitzQuake U_EXTEND1 1<<15, U_FRAME2 1<<17, U_MODEL2 1<<18, U_LERPFINISH
 * 1<<19, U_EXTEND2 1<<23. */
static const dd_field q1_rows[] = {
    ROW("U_MODEL", 1u << 10, 0, model, DD_U8, 0, 2, 1, 0),
    ROW("U_FRAME", 1u << 6, 0, frame, DD_U8, 0, 2, 1, 0),
    ROW("U_ORIGIN1", 1u << 1, 0, origin[0], DD_COORD16, 0, 4, 1, 0),
    ROW("U_ANGLE1", 1u << 8, 0, angle, DD_U8, 0, 1, 1, 0),
    ROW("U_FRAME2", 1u << 17, 0, frame, DD_HI8, 0, 2, 1, DD_OPT_FITZ),
    ROW("U_MODEL2", 1u << 18, 0, model, DD_HI8, 0, 2, 1, DD_OPT_FITZ),
    ROW("U_LERPFINISH", 1u << 19, 0, pad, DD_SKIP, 1, 1, 1, DD_OPT_FITZ),
};
static const dd_table q1_table = {q1_rows, 7,
                                  1u << 10 | 1u << 6 | 1u << 1 | 1u << 8 | 1u << 17 |
                                      1u << 18 | 1u << 19,
                                  NULL};
static const dd_ladder q1_ladder = {
    0, 3, {{1u << 0, 8, 0}, {1u << 15, 16, DD_OPT_FITZ}, {1u << 23, 24, DD_OPT_FITZ}}};

TEST(delta_q1_ladder_with_fitz_extend)
{
    /* id byte 0xC3 = 0x80 (update) | U_FRAME 0x40 | U_ORIGIN1 0x02 | U_MOREBITS 0x01: the
     * seed is 0xC3 & 0x7f = 0x43. More bits 0x84: U_EXTEND1 (0x80 -> 1<<15) | U_MODEL (0x04
     * -> 1<<10). Extend byte 0x0A: U_LERPFINISH (0x08 -> 1<<19) | U_FRAME2 (0x02 -> 1<<17).
     * Mask = 0x43 | 0x8400 | 0x0A0000 = 0x0A8443. Then the number (0x05), the model (16),
     * the frame's low byte (0x34), origin[0] (0x0050 = 80 eighths = 10.0), the frame's high
     * byte (0x01: frame 0x0134 = 308), the lerp-finish byte (skipped) and a byte left over. */
    static const uint8_t b[] = {0x84, 0x0A, 0x05, 16, 0x34, 0x50, 0x00, 0x01, 0x99, 0x77};
    rd_t r = rd_make(b, sizeof b);
    dd_reader rd = {&r, NULL, DD_OPT_FITZ, 0};
    CHECK(dd_table_ok(&q1_table));
    uint32_t mask = dd_read_mask(&rd, &q1_ladder, 0xC3 & 0x7f);
    CHECK_EQ(mask, 0x0A8443);
    CHECK_EQ(rd_u8(&r), 5);
    t_ent e;
    memset(&e, 0, sizeof e);
    e.angle = 200; /* not announced: kept */
    dd_read_fields(&rd, &q1_table, mask, &e);
    CHECK(!r.err);
    CHECK_EQ(e.model, 16);
    CHECK_EQ(e.frame, 308);
    CHECK(e.origin[0] == 10.0f);
    CHECK_EQ(e.angle, 200);
    CHECK_EQ(r.pos, 9); /* the 0x77 is left */

    /* Without FitzQuake the extend byte is not part of the mask: 0x8443, and the next
     * byte (0x0A) is the entity number. */
    r = rd_make(b, sizeof b);
    rd.opts = 0;
    CHECK_EQ(dd_read_mask(&rd, &q1_ladder, 0x43), 0x8443);
    CHECK_EQ(r.pos, 1);
}

/* QuakeWorld (qw.c): a u16 word, number = word & 511; U_ORIGIN1 1<<9, U_MOREBITS 1<<15; the
 * more-bits byte at bits 0..7: U_MODEL 1<<2, FTE U_EVENMORE 1<<7; the even-more byte at
 * 16..23: U_FTE_TRANS 1<<17, U_FTE_YETMORE 1<<23; the yet-more byte at 24..31 (a field at
 * 1<<26 here). */
static const dd_field qw_rows[] = {
    ROW("U_MODEL", 1u << 2, 0, model, DD_U8, 0, 2, 1, 0),
    ROW("U_ORIGIN1", 1u << 9, 0, origin[0], DD_COORD16, 0, 4, 1, 0),
    ROW("U_FTE_TRANS", 1u << 17, 0, alpha, DD_U8, 0, 1, 1, DD_OPT_FTE),
    ROW("yetmore", 1u << 26, 0, extra, DD_U8, 0, 1, 1, DD_OPT_FTE),
};
static const dd_table qw_table = {qw_rows, 4, 1u << 2 | 1u << 9 | 1u << 17 | 1u << 26, NULL};
static const dd_ladder qw_ladder = {
    0, 3, {{1u << 15, 0, 0}, {1u << 7, 16, DD_OPT_FTE}, {1u << 23, 24, DD_OPT_FTE}}};

TEST(delta_qw_word_with_fte_evenmore_yetmore)
{
    /* word 0x832C = U_MOREBITS 0x8000 | U_ORIGIN1 0x0200 | number 300 (0x12C): seed 0x8200.
     * More 0x84 = U_EVENMORE | U_MODEL; even-more 0x82 = YETMORE (0x80 -> 1<<23) | TRANS (0x02
     * -> 1<<17); yet-more 0x04 -> 1<<26. Mask = 0x8200 | 0x84 | 0x820000 | 0x04000000 =
     * 0x04828284. Fields: model 42, origin[0] 0xFFF0 = -16 eighths = -2.0, alpha 0x80,
     * extra 0x11. */
    static const uint8_t b[] = {0x2C, 0x83, 0x84, 0x82, 0x04, 42, 0xF0, 0xFF, 0x80, 0x11};
    rd_t r = rd_make(b, sizeof b);
    dd_reader rd = {&r, NULL, DD_OPT_FTE, 0};
    CHECK(dd_table_ok(&qw_table));
    uint32_t word = rd_u16(&r);
    CHECK_EQ(word & 511, 300);
    uint32_t mask = dd_read_mask(&rd, &qw_ladder, word & ~511u);
    CHECK_EQ(mask, 0x04828284);
    t_ent e;
    memset(&e, 0, sizeof e);
    dd_read_fields(&rd, &qw_table, mask, &e);
    CHECK(!r.err);
    CHECK_EQ(e.model, 42);
    CHECK(e.origin[0] == -2.0f);
    CHECK_EQ(e.alpha, 0x80);
    CHECK_EQ(e.extra, 0x11);
    CHECK_EQ(rd_left(&r), 0);
}

/* Quake II (q2_local.h): U_ORIGIN1 1<<0, U_MOREBITS1 1<<7, U_MODEL 1<<11, U_MOREBITS2 1<<15,
 * U_SKIN8 1<<16, U_MOREBITS3 1<<23, U_SKIN16 1<<25, U_SOLID 1<<27. */
#define Q2_ROWS(X)                                                                         \
    X(1u << 11, 0, model, DD_U8, 2, 1)                                                     \
    X(1u << 16, 1u << 25, skin, DD_PAIR, 4, 1)                                             \
    X(1u << 0, 0, origin[0], DD_COORD16, 4, 1)                                             \
    X(1u << 27, 0, solid, DD_U16, 2, 1)
#define AS_ROW(bit, alt, field, kind, size, n) DD_ROW(t_ent, bit, alt, field, kind, size, n),
static const dd_field q2_rows[] = {Q2_ROWS(AS_ROW)};
static const dd_table q2_table = {q2_rows, 4, 1u << 11 | 1u << 16 | 1u << 25 | 1u << 0 | 1u << 27,
                                  NULL};
static const dd_ladder q2_ladder = {
    1, 3, {{1u << 7, 8, 0}, {1u << 15, 16, 0}, {1u << 23, 24, 0}}};

/* The unrolled reader of the same rows (what q2.c does). */
static void q2_read_unrolled(dd_reader *rd, uint32_t mask, t_ent *e)
{
#define READ_ROW(bit, alt, field, kind, size, n)                                           \
    DD_READ(rd, NULL, mask, e, DD_ROW(t_ent, bit, alt, field, kind, size, n));
    Q2_ROWS(READ_ROW)
#undef READ_ROW
}

TEST(delta_q2_morebits3_chain)
{
    /* 0x81 = U_MOREBITS1 | U_ORIGIN1; 0x88 -> bits 8..15: U_MOREBITS2 (0x80) | U_MODEL (0x08);
     * 0x81 -> 16..23: U_MOREBITS3 | U_SKIN8; 0x0A -> 24..31: U_SOLID (0x08) | U_SKIN16 (0x02).
     * Mask 0x0A818881; number 0x2A (no U_NUMBER16). Fields in wire order: model 7; skin with
     * both bits: a u32 0x04030201; origin[0] 8 eighths = 1.0; solid 0x1234. */
    static const uint8_t b[] = {0x81, 0x88, 0x81, 0x0A, 0x2A, 7,    0x01,
                                0x02, 0x03, 0x04, 0x08, 0x00, 0x34, 0x12};
    for (int pass = 0; pass < 2; pass++) {
        rd_t r = rd_make(b, sizeof b);
        dd_reader rd = {&r, NULL, 0, 0};
        CHECK(dd_table_ok(&q2_table));
        uint32_t mask = dd_read_mask(&rd, &q2_ladder, 0);
        CHECK_EQ(mask, 0x0A818881);
        CHECK_EQ(rd_u8(&r), 0x2A);
        t_ent e;
        memset(&e, 0, sizeof e);
        if (pass == 0)
            dd_read_fields(&rd, &q2_table, mask, &e);
        else
            q2_read_unrolled(&rd, mask, &e);
        CHECK(!r.err);
        CHECK_EQ(e.model, 7);
        CHECK_EQ(e.skin, 0x04030201);
        CHECK(e.origin[0] == 1.0f);
        CHECK_EQ(e.solid, 0x1234);
        CHECK_EQ(rd_left(&r), 0);
    }
    /* The pair alone: U_SKIN8 reads a byte (0xFE), U_SKIN16 a u16 (0xBEEF). */
    static const uint8_t b8[] = {0xFE}, b16[] = {0xEF, 0xBE};
    t_ent e;
    memset(&e, 0, sizeof e);
    rd_t r = rd_make(b8, 1);
    dd_reader rd = {&r, NULL, 0, 0};
    dd_read_fields(&rd, &q2_table, 1u << 16, &e);
    CHECK_EQ(e.skin, 0xFE);
    r = rd_make(b16, 2);
    q2_read_unrolled(&rd, 1u << 25, &e);
    CHECK_EQ(e.skin, 0xBEEF);
    /* Data that ends inside a field: the reader's error is set, nothing crashes. */
    r = rd_make(b, 7);
    uint32_t mask = dd_read_mask(&rd, &q2_ladder, 0);
    (void)rd_u8(&r);
    dd_read_fields(&rd, &q2_table, mask, &e);
    CHECK(r.err);
}

/* Quake III: fields of 4, 3 .. bits (under 8: raw bits, no Huffman byte). */
typedef struct t_q3 {
    int32_t f[12];
} t_q3;
#define Q3ROW(i, bits) {"f" #i, 0, 0, (uint16_t)(4 * (i)), DD_Q3INT, bits, 4, 1, 0}
static const dd_field q3_rows[] = {
    Q3ROW(0, 4), Q3ROW(1, 3), Q3ROW(2, 3), Q3ROW(3, 3), Q3ROW(4, 3),  Q3ROW(5, 3),
    Q3ROW(6, 3), Q3ROW(7, 3), Q3ROW(8, 3), Q3ROW(9, 3), Q3ROW(10, -5), Q3ROW(11, 6),
};
static const dd_table q3_table = {q3_rows, 12, 0, NULL};

TEST(delta_q3_table_with_zero_run)
{
    /* 12 fields (lastChanged), entity style (a "not zero" bit), bits LSB first:
     * bits 0..9: 0 (ten unchanged fields: one zero run);
     * bit 10: 1 (f10 changed), bit 11: 1 (not zero), bits 12..16: f10's 5 signed bits,
     * 10110b = 22 -> 22 - 32 = -10 (bit 12 = 0, 13 = 1, 14 = 1, 15 = 0, 16 = 1);
     * bit 17: 1 (f11 changed), bit 18: 0 (zero: f11 = 0).
     * Byte 0 = 0x00; byte 1 = bits 8..15 = 0,0,1,1,0,1,1,0 = 0x6C; byte 2 = bits 16..18 =
     * 1,1,0 = 0x03. 19 bits are read. */
    static const uint8_t b[] = {0x00, 0x6C, 0x03};
    q3_bits bits;
    q3_bits_init(&bits, b, sizeof b);
    dd_reader rd = {NULL, &bits, 0, 0};
    t_q3 e;
    for (int i = 0; i < 12; i++)
        e.f[i] = 100 + i;
    CHECK_EQ(dd_read_q3(&rd, &q3_table, 12, &e, 1), 0);
    CHECK(!q3_bits_err(&bits));
    CHECK_EQ(bits.bit, 19);
    CHECK_EQ(e.f[10], -10);
    CHECK_EQ(e.f[11], 0);
    for (int i = 0; i < 10; i++)
        CHECK_EQ(e.f[i], 100 + i);

    /* A count of 12 over two zero bytes: all unchanged, 12 bits consumed. */
    static const uint8_t z[] = {0x00, 0x00};
    q3_bits_init(&bits, z, sizeof z);
    CHECK_EQ(dd_read_q3(&rd, &q3_table, 12, &e, 1), 0);
    CHECK_EQ(bits.bit, 12);
    CHECK(!q3_bits_err(&bits));
    /* A player-state style table (no zero bit): bit 0 = 1 (f0 changed), bits 1..4 = f0 =
     * 1011b = 11 (byte 0x17 = 0001 0111: bits 0,1,2 = 1, bit 3 = 0, bit 4 = 1). */
    static const uint8_t p[] = {0x17};
    q3_bits_init(&bits, p, sizeof p);
    CHECK_EQ(dd_read_q3(&rd, &q3_table, 1, &e, 0), 0);
    CHECK_EQ(e.f[0], 11);
    CHECK_EQ(bits.bit, 5);
    /* More fields than the table holds: refused before any read. */
    q3_bits_init(&bits, p, sizeof p);
    CHECK_EQ(dd_read_q3(&rd, &q3_table, 13, &e, 0), -1);
    CHECK_EQ(bits.bit, 0);
}

TEST(delta_table_rules)
{
    /* `all` must be the OR of the rows; rows sharing a bit must be adjacent. */
    static const dd_field split[] = {
        ROW("a", 1, 0, model, DD_U8, 0, 2, 1, 0),
        ROW("b", 2, 0, frame, DD_U8, 0, 2, 1, 0),
        ROW("a again", 1, 0, angle, DD_U8, 0, 1, 1, 0),
    };
    dd_table t = {split, 3, 3, NULL};
    CHECK(!dd_table_ok(&t));
    t.n = 2;
    CHECK(dd_table_ok(&t));
    t.all = 1;
    CHECK(!dd_table_ok(&t));
}

/* ---- frame ring, pool, merge ---- */

typedef struct t_elem {
    uint16_t number;
    uint8_t event;
    uint8_t pad;
    int32_t v;
} t_elem;

/* pool 16, refs 32, ring 4, at most 4 entities a frame, shared entries at most 4 old */
typedef DD_STORE(t_elem, 16, 32, 4) t_store;
static const dd_desc t_desc = {sizeof(t_elem), 0, 16, 32, 4, 4, 4, NULL};

static t_elem *put(dd_merge *m, int num, int v)
{
    t_elem *e = dd_merge_put(m, num);
    if (e) {
        memset(e, 0, sizeof *e);
        e->number = (uint16_t)num;
        e->v = v;
    }
    return e;
}

static int ent_v(dd_store v, const dd_frame *f, uint32_t i)
{
    return ((const t_elem *)dd_ent(v, f, i))->v;
}

TEST(delta_merge_carry_removal_out_of_order)
{
    static t_store st;
    memset(&st, 0, sizeof st);
    dd_store v = DD_VIEW(&st, &t_desc);
    dd_merge m;
    /* frame 1 from nothing: 3 (30), 7 (70), 9 (90) */
    dd_merge_begin(&m, v, NULL, 1);
    put(&m, 3, 30);
    put(&m, 7, 70);
    put(&m, 9, 90);
    const dd_frame *f1 = dd_merge_end(&m, 1);
    CHECK(f1);
    CHECK_EQ(f1->count, 3);
    CHECK(f1->sorted);
    CHECK_EQ(st.h.pool_head, 3);
    CHECK(!dd_shared(v, f1, 0));

    /* frame 2 from 1: 7 removed, 8 new (80); 3 and 9 carried (shared, no new pool entry) */
    CHECK(dd_source(v, 1) == f1);
    dd_merge_begin(&m, v, f1, 2);
    CHECK_EQ(dd_merge_carry(&m, 7), QD_OK);
    CHECK(dd_merge_old(&m, 7) != NULL);
    dd_merge_skip(&m);
    CHECK_EQ(dd_merge_carry(&m, 8), QD_OK);
    CHECK(dd_merge_old(&m, 8) == NULL);
    put(&m, 8, 80);
    const dd_frame *f2 = dd_merge_end(&m, 1);
    CHECK(f2);
    CHECK_EQ(f2->count, 3);
    CHECK_EQ(dd_num(v, f2, 0), 3);
    CHECK_EQ(dd_num(v, f2, 1), 8);
    CHECK_EQ(dd_num(v, f2, 2), 9);
    CHECK_EQ(ent_v(v, f2, 0), 30);
    CHECK_EQ(ent_v(v, f2, 1), 80);
    CHECK_EQ(ent_v(v, f2, 2), 90);
    CHECK(dd_shared(v, f2, 0) && !dd_shared(v, f2, 1) && dd_shared(v, f2, 2));
    CHECK_EQ(st.h.pool_head, 4); /* only 8 took an entry */
    CHECK(dd_ent(v, f2, 0) == dd_ent(v, f1, 0));
    CHECK_EQ(f2->src_serial, f1->serial);

    /* the client got frame 2: a frame from it keeps its shared entries */
    dd_shown(v, f2);
    /* frame 3 from 2: 9 updated (91) from its old entry, then 5 (out of order: sorted 0) */
    dd_merge_begin(&m, v, f2, 3);
    dd_merge_carry(&m, 9);
    const t_elem *old9 = dd_merge_old(&m, 9);
    CHECK(old9 && old9->v == 90);
    put(&m, 9, old9->v + 1);
    dd_merge_carry(&m, 5);
    put(&m, 5, 50);
    const dd_frame *f3 = dd_merge_end(&m, 1);
    CHECK(f3);
    CHECK_EQ(f3->count, 4); /* 3, 8 carried; 9, 5 read */
    CHECK_EQ(dd_num(v, f3, 3), 5);
    CHECK_EQ(ent_v(v, f3, 2), 91);
    CHECK(!f3->sorted);
    CHECK(dd_from_shown(v, f3));
    CHECK(dd_shared(v, f3, 0) && dd_shared(v, f3, 1) && !dd_shared(v, f3, 2));

    /* frame 4 from 3 with a fifth entity: over max_ents (4), refused; heads unchanged */
    uint32_t ph = st.h.pool_head, rh = st.h.ref_head;
    dd_merge_begin(&m, v, f3, 4);
    dd_merge_carry(&m, 10);
    CHECK(put(&m, 10, 100) == NULL);
    CHECK(dd_merge_end(&m, 1) == NULL);
    CHECK_EQ(m.err, QD_ERR_LIMIT);
    CHECK_EQ(st.h.pool_head, ph);
    CHECK_EQ(st.h.ref_head, rh);

    /* plain data: a copy of the store (a keyframe) merges as the original does */
    static t_store copy;
    memcpy(&copy, &st, sizeof st);
    dd_store cv = DD_VIEW(&copy, &t_desc);
    dd_merge_begin(&m, cv, dd_source(cv, 3), 5);
    const dd_frame *c5 = dd_merge_end(&m, 1);
    CHECK(c5 && c5->count == 4 && dd_num(cv, c5, 3) == 5 && ent_v(cv, c5, 2) == 91);
}

/* Quake II's fix-up: an entry with an event loses it when carried. */
static int t_carry(void *dst, const void *src)
{
    const t_elem *s = src;
    if (!dst)
        return s->event != 0;
    ((t_elem *)dst)->event = 0;
    return 1;
}
static const dd_desc t_fix_desc = {sizeof(t_elem), 0, 16, 32, 4, 4, 4, t_carry};

TEST(delta_merge_carry_fixup)
{
    static t_store st;
    memset(&st, 0, sizeof st);
    dd_store v = DD_VIEW(&st, &t_fix_desc);
    dd_merge m;
    dd_merge_begin(&m, v, NULL, 1);
    put(&m, 4, 40)->event = 6;
    const dd_frame *f1 = dd_merge_end(&m, 1);
    /* frame 2 carries 4: a fixed-up copy (one more pool entry, event 0, not shared) */
    dd_merge_begin(&m, v, f1, 2);
    const dd_frame *f2 = dd_merge_end(&m, 1);
    CHECK_EQ(st.h.pool_head, 2);
    CHECK_EQ(((const t_elem *)dd_ent(v, f2, 0))->event, 0);
    CHECK_EQ(ent_v(v, f2, 0), 40);
    CHECK(!dd_shared(v, f2, 0));
    CHECK_EQ(((const t_elem *)dd_ent(v, f1, 0))->event, 6); /* frame 1 unchanged */
    /* frame 3 carries it again: now clean, shared */
    dd_merge_begin(&m, v, f2, 3);
    const dd_frame *f3 = dd_merge_end(&m, 1);
    CHECK_EQ(st.h.pool_head, 2);
    CHECK(dd_shared(v, f3, 0));
}

TEST(delta_ring_age_limits)
{
    static t_store st;
    memset(&st, 0, sizeof st);
    dd_store v = DD_VIEW(&st, &t_desc);
    dd_merge m;

    /* The slot: seq 5 lands where seq 1 was (5 & 3 == 1). */
    dd_merge_begin(&m, v, NULL, 1);
    const dd_frame *f1 = dd_merge_end(&m, 1);
    CHECK(dd_source(v, 1) == f1);
    dd_merge_begin(&m, v, NULL, 5);
    dd_merge_end(&m, 1);
    CHECK(dd_source(v, 1) == NULL);
    CHECK(dd_source(v, 5) != NULL);
    /* invalid frames are no source */
    dd_merge_begin(&m, v, NULL, 6);
    dd_merge_end(&m, 0);
    CHECK(dd_source(v, 6) == NULL);

    /* Pool age: with young 4 a frame's oldest is made - 4, usable while pool_head + 4 -
     * (made - 4) <= 16, i.e. pool_head - made <= 8. Frame A (seq 8) made at 0 with 4 new
     * entries: pool 4, then B (4 new): pool 8 (usable), then C: pool 12 (too old). */
    dd_reset(v);
    memset(&st.h, 0, sizeof st.h);
    dd_merge_begin(&m, v, NULL, 8);
    for (int i = 1; i <= 4; i++)
        put(&m, i, i);
    dd_merge_end(&m, 1);
    CHECK(dd_source(v, 8) != NULL);
    dd_merge_begin(&m, v, NULL, 9);
    for (int i = 1; i <= 4; i++)
        put(&m, i, i);
    dd_merge_end(&m, 1);
    CHECK(dd_source(v, 8) != NULL);
    dd_merge_begin(&m, v, NULL, 10);
    for (int i = 1; i <= 4; i++)
        put(&m, i, i);
    dd_merge_end(&m, 1);
    CHECK(dd_source(v, 8) == NULL);

    /* Ref age: frames that carry everything take refs, no pool. Usable while ref_head + 4 -
     * first <= 32. A (4 refs from 0) then six carrying frames: ref_head 28 (usable), a
     * seventh: 32 (too old). */
    dd_reset(v);
    memset(&st.h, 0, sizeof st.h);
    dd_merge_begin(&m, v, NULL, 0);
    for (int i = 1; i <= 4; i++)
        put(&m, i, 10 * i);
    dd_frame a = *dd_merge_end(&m, 1);
    const dd_frame *prev = dd_slot(v, 0);
    for (uint32_t seq = 1; seq <= 7; seq++) {
        dd_merge_begin(&m, v, prev, seq);
        prev = dd_merge_end(&m, 1);
        CHECK(prev && prev->count == 4 && dd_shared(v, prev, 3));
        CHECK_EQ(st.h.pool_head, 4);
        CHECK_EQ(dd_usable(v, &a), seq <= 6);
    }

    /* Copy forward: entries older than young (4) are copied when carried. A' (seq 20) puts
     * 1 and 2 at pool 4, 5; B' (seq 21, from nothing) puts 4 more: pool 10. C' (seq 22) from
     * A': pool_head - made = 10 - 4 = 6 <= 8, usable; its entries are 6 and 5 old (> 4):
     * copied to 10 and 11, values kept, not shared. */
    dd_merge_begin(&m, v, NULL, 20);
    put(&m, 1, 11);
    put(&m, 2, 22);
    dd_merge_end(&m, 1);
    dd_merge_begin(&m, v, NULL, 21);
    for (int i = 1; i <= 4; i++)
        put(&m, i, i);
    dd_merge_end(&m, 1);
    const dd_frame *src = dd_source(v, 20);
    CHECK(src != NULL);
    dd_merge_begin(&m, v, src, 22);
    const dd_frame *c = dd_merge_end(&m, 1);
    CHECK_EQ(st.h.pool_head, 12);
    CHECK(c && !dd_shared(v, c, 0) && !dd_shared(v, c, 1));
    CHECK_EQ(ent_v(v, c, 0), 11);
    CHECK_EQ(ent_v(v, c, 1), 22);
}

/* Long carries (dd_merge_carry_run takes eight entries at a time where it can): 400 frames
 * of up to 48 entities, each delta'd from the one before with random updates, removals and
 * additions, checked against a plain model of which entities exist and their values (an
 * updated or new entity's value is its number x 1000 plus the frame). The refs ring (128)
 * wraps every few frames, under runs of eight too; with young 64 the pool's older entries
 * are copied forward inside runs; with the fix-up a carried entry's event is cleared. The
 * merge's list of the entries the delta made (dd_merge.rec_at, which q2.c's emit walks
 * instead of the whole frame) is checked against the model's updates and a search of the
 * source frame. */
typedef DD_STORE(t_elem, 256, 128, 4) t_big_store;
static const dd_desc t_big_desc = {sizeof(t_elem), 0, 256, 128, 4, 48, 64, NULL};
static const dd_desc t_big_fix_desc = {sizeof(t_elem), 0, 256, 128, 4, 48, 64, t_carry};

static int long_carries(const dd_desc *desc)
{
    static t_big_store st;
    memset(&st, 0, sizeof st);
    dd_store v = DD_VIEW(&st, desc);
    int val[64] = {0}, fresh[64] = {0}, have[64] = {0};
    uint32_t rng = 12345, count = 0;
    const dd_frame *prev = NULL;
    for (uint32_t seq = 1; seq <= 400; seq++) {
        dd_merge m;
        dd_merge_begin(&m, v, prev, seq);
        /* the merge's own entries listed (dd_merge.rec_at), checked after the frame */
        uint16_t rec_at[48];
        const void *rec_src[48];
        m.rec_at = rec_at;
        m.rec_src = rec_src;
        m.rec_cap = 48;
        for (int n = 0; n < 64; n++) {
            rng = rng * 1664525u + 1013904223u;
            uint32_t r = rng >> 24; /* 0..255 */
            fresh[n] = 0;
            if (have[n] && r < 12) { /* removed */
                if (dd_merge_carry(&m, n) || !dd_merge_old(&m, n))
                    return 0;
                dd_merge_skip(&m);
                have[n] = 0;
                count--;
            } else if ((have[n] && r < 40) || (!have[n] && r < 16 && count < 48)) {
                if (dd_merge_carry(&m, n) || (dd_merge_old(&m, n) != NULL) != have[n])
                    return 0;
                const void *src = dd_merge_old(&m, n);
                t_elem *e = put(&m, n, n * 1000 + (int)seq);
                if (!e)
                    return 0;
                dd_merge_record(&m, m.nf.count - 1u, src);
                e->event = 1;
                count += !have[n];
                have[n] = fresh[n] = 1;
                val[n] = n * 1000 + (int)seq;
            }
        }
        const dd_frame *f = dd_merge_end(&m, 1);
        if (!f || f->count != count || !f->sorted || !m.rec_at)
            return 0;
        /* listed: exactly the entries the frame's puts made, in order, each with the
         * source frame's entry of its number (NULL when that frame had none); a carried
         * entry, shared or copied (for its age, or the fix-up), is not */
        uint32_t r = 0;
        for (uint32_t k = 0; k < f->count; k++) {
            if (!fresh[dd_num(v, f, k)])
                continue;
            if (dd_shared(v, f, k))
                return 0;
            if (r >= m.rec_n || rec_at[r] != k)
                return 0;
            const void *want = NULL;
            for (uint32_t j = 0; prev && j < prev->count; j++)
                if (dd_num(v, prev, j) == dd_num(v, f, k))
                    want = dd_ent(v, prev, j);
            if (rec_src[r] != want)
                return 0;
            r++;
        }
        if (r != m.rec_n)
            return 0;
        uint32_t i = 0;
        for (int n = 0; n < 64; n++) {
            if (!have[n])
                continue;
            const t_elem *e = dd_ent(v, f, i);
            if (dd_num(v, f, i) != n || e->number != n || e->v != val[n])
                return 0;
            /* the fix-up clears a carried event; without one it stays */
            if (e->event != (fresh[n] || !desc->carry))
                return 0;
            i++;
        }
        prev = f;
    }
    return 1;
}

TEST(delta_merge_long_carries_match_a_model)
{
    CHECK(long_carries(&t_big_desc));
    CHECK(long_carries(&t_big_fix_desc));
}
