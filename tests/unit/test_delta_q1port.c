/* test_delta_q1port.c: what the Quake .dem port added to the delta engine (DD_ANGLE8,
 * DD_ROW_FULL), and q1.c's one entity table read for updates and baselines, on bytes built
 * by hand. Every expected value is worked out in the comment next to it. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/demo/delta.h"
#include "../../src/demo/demo.h"
#include "../test.h"
#include "../testbuf.h"

/* ---- engine ---- */

typedef struct p_ent {
    float angles[3];
    uint16_t frame;
    uint8_t alpha;
    uint8_t pad;
} p_ent;

/* Hook rows: a FitzQuake-like alpha, byte + 1. */
static void hook_alpha(dd_reader *rd, const dd_field *f, void *ent)
{
    (void)f;
    ((p_ent *)ent)->alpha = (uint8_t)(rd_u8(rd->r) + 1);
}

#define P_ROWS(X)                                                                          \
    X(1u << 0, angles[0], DD_ANGLE8, 0, 4, 1, 0)                                           \
    X(1u << 1, angles[1], DD_ANGLE8, 0, 4, 2, 0)                                           \
    X(1u << 2, pad, DD_SKIP, 3, 1, 1, 0)                                                   \
    X(1u << 3, alpha, DD_HOOK, 0, 1, 1, 0)                                                 \
    X(1u << 4, frame, DD_HI8, 0, 2, 1, DD_OPT_FITZ)
#define P_ROW(bit, field, kind, bits, size, n, opt) \
    DD_ROW_FULL(p_ent, bit, 0, field, kind, bits, size, n, opt),
static const dd_field p_rows[] = {P_ROWS(P_ROW)};
static const dd_table p_table = {p_rows, 5, 0x1f, hook_alpha};

TEST(delta_q1port_row_full_columns)
{
    /* DD_ROW_FULL keeps every column: the skip count 3, the element count 2, the option. */
    CHECK(dd_table_ok(&p_table));
    CHECK_EQ(p_rows[2].kind, DD_SKIP);
    CHECK_EQ(p_rows[2].bits, 3);
    CHECK_EQ(p_rows[1].count, 2);
    CHECK_EQ(p_rows[4].opt, DD_OPT_FITZ);
    CHECK_EQ(p_rows[3].offset, offsetof(p_ent, alpha));
    CHECK(!strcmp(p_rows[1].name, "angles[1]"));
}

TEST(delta_q1port_angle8_skip_hook)
{
    /* Mask 0x0f: angles[0] from 0x40 (64/256 turn = 90 degrees); angles[1..2] from 0xC0
     * (-64 = -90) and 0x01 (360/256 = 1.40625); 3 bytes skipped; the hook reads 0x10 and
     * stores 0x11. The FitzQuake row (bit 4) is not announced: frame keeps 0x1234. */
    static const uint8_t b[] = {0x40, 0xC0, 0x01, 0xAA, 0xBB, 0xCC, 0x10, 0x77};
    rd_t r = rd_make(b, sizeof b);
    dd_reader rd = {&r, NULL, DD_OPT_FITZ, 0};
    p_ent e = {{5.0f, 6.0f, 7.0f}, 0x1234, 0, 0};
    dd_read_fields(&rd, &p_table, 0x0f, &e);
    CHECK(!r.err);
    CHECK(e.angles[0] == 90.0f);
    CHECK(e.angles[1] == -90.0f);
    CHECK(e.angles[2] == 1.40625f);
    CHECK_EQ(e.alpha, 0x11);
    CHECK_EQ(e.frame, 0x1234);
    CHECK_EQ(r.pos, 7); /* the 0x77 is left */

    /* The same rows unrolled by DD_READ, mask 0x11: angles[0] from 0x77 (119/256 turn =
     * 167.34375 degrees), then the frame's high byte 0x02 under FitzQuake: 0x0234. */
    static const uint8_t c[] = {0x77, 0x02};
    r = rd_make(c, sizeof c);
    e.frame = 0x1234;
    uint32_t mask = 0x11;
#define P_READ(bit, field, kind, bits, size, n, opt) \
    DD_READ(&rd, &p_table, mask, &e, DD_ROW_FULL(p_ent, bit, 0, field, kind, bits, size, n, opt));
    P_ROWS(P_READ)
    CHECK(!r.err);
    CHECK(e.angles[0] == 167.34375f);
    CHECK_EQ(e.frame, 0x0234);

    /* Without the option the FitzQuake row (mask 0x10) is not read: the byte stays. */
    r = rd_make(c + 1, 1);
    rd.opts = 0;
    mask = 0x10;
    P_ROWS(P_READ)
#undef P_READ
    CHECK_EQ(r.pos, 0);
    CHECK_EQ(e.frame, 0x0234);

    /* A cut angle: zero and the error set. */
    r = rd_make(b, 0);
    dd_read_fields(&rd, &p_table, 0x01, &e);
    CHECK(r.err);
    CHECK(e.angles[0] == 0.0f);
}

/* ---- q1.c: one table for updates and baselines ---- */

/* One block of a FitzQuake 666 demo: serverinfo, spawnbaseline2 and spawnstatic2 with
 * 16-bit model and frame, a time, then the update `upd`, then svc_nop. */
static void fitz_demo(buf *f, const uint8_t *upd, size_t n)
{
    memset(f, 0, sizeof *f);
    memcpy(f->b, "-1\n", 3);
    f->n = 3;
    buf m = {{0}, 0};
    put8(&m, 11); /* svc_serverinfo [DEM] 7.12 */
    put32(&m, 666);
    put8(&m, 1);
    put8(&m, 0);
    putstr(&m, "t");
    putstr(&m, "maps/t.bsp");
    putstr(&m, "");
    putstr(&m, "");
    for (int id = 42; id <= 43; id++) { /* spawnbaseline2 of entity 3, spawnstatic2 */
        put8(&m, (unsigned)id);
        if (id == 42)
            put16(&m, 3);
        put8(&m, 1 | 2);   /* B_LARGEMODEL | B_LARGEFRAME */
        put16(&m, 0x0102); /* model 258 */
        put16(&m, 0x0203); /* frame 515 */
        put8(&m, 4);       /* colormap */
        put8(&m, 5);       /* skin */
        putcoord(&m, 8);   /* origin[0], angles[0] 0x20: 45 degrees */
        put8(&m, 0x20);
        putcoord(&m, 16);
        put8(&m, 0);
        putcoord(&m, -8);
        put8(&m, 0);
    }
    put8(&m, 7); /* svc_time 1.0 */
    putf(&m, 1.0f);
    memcpy(m.b + m.n, upd, n);
    m.n += n;
    put8(&m, 1); /* svc_nop: the update must end exactly here */
    put32(f, (uint32_t)m.n);
    for (int i = 0; i < 3; i++)
        putf(f, 0);
    memcpy(f->b + f->n, m.b, m.n);
    f->n += m.n;
}

TEST(delta_q1port_fitz_update_and_baseline2)
{
    /* id 0x91: update | U_ANGLE2 0x10 | U_MOREBITS 0x01. More bits 0xA5: U_ANGLE1 (1<<8),
     * U_MODEL (1<<10), U_EFFECTS (1<<13), U_EXTEND1 (1<<15). Extend1 0x9C: U_MODEL2 (1<<18),
     * U_LERPFINISH (1<<19), U_SCALE (1<<20), U_EXTEND2 (1<<23). Extend2 0x03: bits 24, 25,
     * unused in 666: nothing more is read. Entity 3. Then in wire order: model 0x05,
     * effects 0x08, angle1 0x40 (90), angle2 0xC0 (-90), scale 32, model's high byte 0x01
     * (model 0x0105 = 261), the lerp-finish byte (dropped). */
    static const uint8_t upd[] = {0x91, 0xA5, 0x9C, 0x03, 3, 0x05, 0x08, 0x40, 0xC0, 32,
                                  0x01, 0x77};
    static buf f;
    fitz_demo(&f, upd, sizeof upd);
    qd_error err;
    demo_t *d = demo_open_mem("port.dem", f.b, f.n, &err);
    CHECK(d != NULL);
    if (!d)
        return;
    cl_state *cl = malloc(sizeof *cl);
    cl_reset(cl);
    int done = 0;
    qd_err r = QD_OK;
    for (int guard = 0; !done && r == QD_OK && guard < 100; guard++)
        r = demo_step(d, cl, NULL, &done, &err);
    CHECK_EQ(r, QD_OK);
    CHECK_EQ(demo_offset(d), f.n); /* the whole block parsed */
    /* The static: the baseline's layout as sent, alpha opaque (no B_ALPHA). */
    CHECK_EQ(cl->num_statics, 1);
    const cl_entstate *st = &cl->statics[0];
    CHECK_EQ(st->model, 258);
    CHECK_EQ(st->frame, 515);
    CHECK_EQ(st->player, 4); /* the colormap byte: player slot + 1 */
    CHECK_EQ(st->skin, 5);
    CHECK_EQ(st->alpha, 255);
    CHECK(st->origin[0] == 8.0f && st->origin[1] == 16.0f && st->origin[2] == -8.0f);
    CHECK(st->angles[0] == 45.0f && st->angles[1] == 0.0f);
    /* Entity 3: its baseline (the same fields) under the update. */
    cl_entstate s;
    CHECK(cl_entity_at(cl, 3, 1.0, &s, NULL, NULL));
    CHECK_EQ(s.model, 261);
    CHECK_EQ(s.frame, 515);
    CHECK_EQ(s.player, 4);
    CHECK_EQ(s.skin, 5);
    CHECK_EQ(s.fx, CL_FX_LIGHT_DIM); /* effects 8: protocol.h EF_DIMLIGHT */
    CHECK_EQ(s.scale, 32);
    CHECK_EQ(s.alpha, 255);
    CHECK(s.origin[0] == 8.0f && s.origin[1] == 16.0f && s.origin[2] == -8.0f);
    CHECK(s.angles[0] == 90.0f && s.angles[1] == -90.0f && s.angles[2] == 0.0f);
    free(cl);
    demo_close(d);
}
