/* test_delta_qwport.c: the delta engine's ladder in QuakeWorld's shape (qw.c): a seed from
 * the 16-bit word, U_MOREBITS's byte ORed into its low bits, FTE bytes above 16. */
#include <string.h>

#include "../../src/demo/delta.h"
#include "../test.h"

/* QuakeWorld's numbers [ezQuake protocol.h]: U_MOREBITS 1<<15 (in the word), U_EVENMORE
 * 1<<7 (in the MOREBITS byte), U_YETMORE 1<<7 of the EVENMORE byte (bit 23 once shifted
 * by 16). */
static const dd_ladder qw_ladder = {
    0, 3, {{1u << 15, 0, 0}, {1u << 7, 16, DD_OPT_FTE}, {1u << 23, 24, 0}}};

TEST(delta_qw_ladder)
{
    static const uint8_t bytes[] = {0x84, 0x88, 0x04};
    rd_t r = rd_make(bytes, sizeof bytes);
    dd_reader rd = {&r, NULL, DD_OPT_FTE, 0};
    /* seed 0xa000 (U_MOREBITS, U_FRAME); 0x84 in bits 0..7 (EVENMORE, U_MODEL); 0x88 in
     * 16..23 (YETMORE, MODELDBL); 0x04 in 24..31: 0x0488a084 */
    CHECK_EQ(dd_read_mask(&rd, &qw_ladder, 0xa000u), 0x0488a084u);
    CHECK_EQ(r.pos, 3);
    CHECK(!r.err);

    /* without an FTE extension U_EVENMORE announces nothing: one byte read */
    r = rd_make(bytes, sizeof bytes);
    rd.opts = 0;
    CHECK_EQ(dd_read_mask(&rd, &qw_ladder, 0xa000u), 0xa084u);
    CHECK_EQ(r.pos, 1);

    /* no U_MOREBITS in the word: nothing read, the seed as it is */
    r = rd_make(bytes, sizeof bytes);
    rd.opts = DD_OPT_FTE;
    CHECK_EQ(dd_read_mask(&rd, &qw_ladder, 0x2000u), 0x2000u);
    CHECK_EQ(r.pos, 0);

    /* cut after the MOREBITS byte: the missing bytes are 0, the error is left set */
    r = rd_make(bytes, 2);
    CHECK_EQ(dd_read_mask(&rd, &qw_ladder, 0xa000u), 0x0088a084u);
    CHECK(r.err);
}

/* ---- dd_repeat: a frame that changed nothing ---- */

typedef struct r_elem {
    uint16_t number;
    uint16_t v;
} r_elem;

/* pool 16, refs 16, ring 4, at most 4 entities a frame, shared entries at most 8 old */
typedef DD_STORE(r_elem, 16, 16, 4) r_store;
static const dd_desc r_desc = {sizeof(r_elem), 0, 16, 16, 4, 4, 8, NULL};

static int r_fix(void *dst, const void *src)
{
    (void)dst;
    (void)src;
    return 1; /* every entry the source made wants a fix-up: the repeat must merge */
}
static const dd_desc r_fix_desc = {sizeof(r_elem), 0, 16, 16, 4, 4, 8, r_fix};

/* Frame 1 from nothing: 3 (30) and 7 (70); shown. */
static const dd_frame *r_first(dd_store v)
{
    dd_merge m;
    dd_merge_begin(&m, v, NULL, 1);
    r_elem *a = dd_merge_put(&m, 3), *b = dd_merge_put(&m, 7);
    *a = (r_elem){3, 30};
    *b = (r_elem){7, 70};
    const dd_frame *f = dd_merge_end(&m, 1);
    dd_shown(v, f);
    return f;
}

TEST(delta_repeat_shares_refs)
{
    static r_store st;
    memset(&st, 0, sizeof st);
    dd_store v = DD_VIEW(&st, &r_desc);
    const dd_frame *f1 = r_first(v);
    CHECK_EQ(st.h.pool_head, 2);
    CHECK_EQ(st.h.ref_head, 2);
    /* frame 2 = frame 1: no ref and no pool entry taken, both entries shared */
    const dd_frame *f2 = dd_repeat(v, f1, 2, 1);
    CHECK(f2 && dd_source(v, 2) == f2);
    CHECK_EQ(st.h.pool_head, 2);
    CHECK_EQ(st.h.ref_head, 2);
    CHECK_EQ(f2->count, 2);
    CHECK_EQ(f2->serial, 2);
    CHECK_EQ(f2->src_serial, 1);
    CHECK(dd_from_shown(v, f2));
    CHECK(dd_shared(v, f2, 0) && dd_shared(v, f2, 1));
    CHECK_EQ(dd_num(v, f2, 1), 7);
    CHECK_EQ(((const r_elem *)dd_ent(v, f2, 1))->v, 70);
    /* frame 3 from 2: 7 becomes 71, 3 carried: one pool entry, two refs */
    dd_merge m;
    dd_merge_begin(&m, v, f2, 3);
    CHECK_EQ(dd_merge_carry(&m, 7), QD_OK);
    r_elem *e = dd_merge_put(&m, 7);
    *e = (r_elem){7, 71};
    const dd_frame *f3 = dd_merge_end(&m, 1);
    CHECK(f3);
    CHECK_EQ(st.h.pool_head, 3);
    CHECK_EQ(st.h.ref_head, 4);
    CHECK(dd_shared(v, f3, 0) && !dd_shared(v, f3, 1));
    CHECK_EQ(((const r_elem *)dd_ent(v, f3, 0))->v, 30);
    CHECK_EQ(((const r_elem *)dd_ent(v, f3, 1))->v, 71);
}

TEST(delta_repeat_with_fixup_merges)
{
    static r_store st;
    memset(&st, 0, sizeof st);
    dd_store v = DD_VIEW(&st, &r_fix_desc);
    const dd_frame *f1 = r_first(v);
    /* the fix-up asks for fresh copies: two new refs and two new pool entries */
    const dd_frame *f2 = dd_repeat(v, f1, 2, 1);
    CHECK(f2);
    CHECK_EQ(st.h.ref_head, 4);
    CHECK_EQ(st.h.pool_head, 4);
    CHECK_EQ(f2->count, 2);
    CHECK(!dd_shared(v, f2, 0) && !dd_shared(v, f2, 1));
}
