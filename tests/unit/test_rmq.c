/* test_rmq.c: RMQ protocol 999 (QuakeSpasm's): svc_serverinfo's protocol flags choose how
 * coordinates and angles are sent. Demos built here with each encoding, values written by
 * hand; the flags qdemo does not know refused by name; LibreQuake's real 999 demo decoded
 * whole, one baseline checked against its own bytes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/demo/demo.h"
#include "../test.h"
#include "../testbuf.h"

#define SHORTANGLE (1u << 1) /* QuakeSpasm Quake/protocol.h PRFL_* */
#define FLOATANGLE (1u << 2)
#define COORD24 (1u << 3)
#define FLOATCOORD (1u << 4)
#define INT32COORD (1u << 7)
#define MOREFLAGS (1u << 31)

/* One coordinate and one angle as the flags send them. */
static void put_coord(buf *m, uint32_t fl, float v)
{
    if (fl & FLOATCOORD) {
        putf(m, v);
    } else if (fl & INT32COORD) {
        put32(m, (uint32_t)(int32_t)lroundf(v * 16));
    } else if (fl & COORD24) { /* whole units, then 1/255ths */
        float whole = floorf(v);
        put16(m, (int)whole);
        put8(m, (unsigned)lroundf((v - whole) * 255));
    } else {
        put16(m, (int)lroundf(v * 8));
    }
}
static void put_angle(buf *m, uint32_t fl, float deg)
{
    if (fl & FLOATANGLE)
        putf(m, deg);
    else if (fl & SHORTANGLE)
        put16(m, (int)lroundf(deg * 65536 / 360));
    else
        put8(m, (unsigned)lroundf(deg * 256 / 360) & 255);
}

/* "-1\n", then one block: serverinfo 999 with flags fl, setview 1, a baseline of entity 1
 * at (x, y, z) facing yaw; a second block: time 1.0, an update moving it to x2. */
static size_t build(buf *f, uint32_t fl, float x, float y, float z, float yaw, float x2)
{
    memset(f, 0, sizeof *f);
    memcpy(f->b, "-1\n", 3);
    f->n = 3;
    buf m = {{0}, 0};
    put8(&m, 11); /* svc_serverinfo */
    put32(&m, 999);
    put32(&m, fl);
    put8(&m, 1);
    put8(&m, 0);
    putstr(&m, "RMQ");
    putstr(&m, "maps/rmq.bsp");
    putstr(&m, "progs/player.mdl");
    putstr(&m, "");
    putstr(&m, "");
    put8(&m, 5); /* svc_setview */
    put16(&m, 1);
    put8(&m, 22); /* svc_spawnbaseline: ent, model, frame, colormap, skin, origin/angle x3 */
    put16(&m, 1);
    put8(&m, 2);
    put8(&m, 0);
    put8(&m, 0);
    put8(&m, 0);
    float o[3] = {x, y, z}, a[3] = {0, yaw, 0};
    for (int i = 0; i < 3; i++) {
        put_coord(&m, fl, o[i]);
        put_angle(&m, fl, a[i]);
    }
    put32(f, (uint32_t)m.n);
    for (int i = 0; i < 3; i++)
        putf(f, 0);
    putbuf(f, &m);
    m.n = 0;
    put8(&m, 7); /* svc_time */
    putf(&m, 1.0f);
    put8(&m, 0x80 | 0x02); /* fast update, U_ORIGIN1 */
    put8(&m, 1);
    put_coord(&m, fl, x2);
    put32(f, (uint32_t)m.n);
    for (int i = 0; i < 3; i++)
        putf(f, 0);
    putbuf(f, &m);
    return f->n;
}

/* Decode to the end; the entity-1 state of the last frame into *s, the baseline's in *b. */
static qd_err run(const buf *f, cl_entstate *s, qd_error *err)
{
    demo_t *d = demo_open_mem("rmq.dem", f->b, f->n, err);
    if (!d)
        return err->code;
    static cl_state cl;
    cl_reset(&cl);
    int done = 0;
    qd_err r = QD_OK;
    for (int g = 0; !done && r == QD_OK && g < 100; g++)
        r = demo_step(d, &cl, NULL, &done, err);
    if (r == QD_OK && !cl_entity_at(&cl, 1, cl.time, s, NULL, NULL))
        r = QD_ERR_BAD_DATA;
    demo_close(d);
    return r;
}

TEST(rmq_each_coordinate_and_angle_encoding)
{
    static const struct {
        uint32_t fl;
        float x, y, z, yaw, x2; /* values each encoding holds exactly */
    } cases[] = {
        {0, 100.5f, -2000.125f, 64, 90, 101},                       /* as 666: 1/8, 1/256 turn */
        {INT32COORD | SHORTANGLE, 70000.0625f, -3.5f, 12, 45, 70001}, /* librequake_demo3's */
        {COORD24, 300, -17, 5, 180, 301},                            /* whole units */
        {FLOATCOORD | FLOATANGLE, 12345.678f, 0.001f, -9.75f, 123.456f, -4},
        {FLOATCOORD | SHORTANGLE, 1.25f, 2.5f, 3.75f, 270, 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        static buf f;
        build(&f, cases[i].fl, cases[i].x, cases[i].y, cases[i].z, cases[i].yaw, cases[i].x2);
        cl_entstate s;
        qd_error err = {0};
        qd_err r = run(&f, &s, &err);
        CHECK_MSG(r == QD_OK, "flags 0x%x: %s", cases[i].fl, err.msg);
        if (r != QD_OK)
            continue;
        CHECK_MSG(s.origin[0] == cases[i].x2 && s.origin[1] == cases[i].y &&
                      s.origin[2] == cases[i].z,
                  "flags 0x%x: origin %f %f %f", cases[i].fl, s.origin[0], s.origin[1],
                  s.origin[2]);
        float turn = fmodf(s.angles[1] - cases[i].yaw + 720.0f, 360.0f); /* 180 == -180 */
        CHECK_MSG(turn < 1e-3f || turn > 360.0f - 1e-3f, "flags 0x%x: yaw %f", cases[i].fl,
                  s.angles[1]);
    }
}

/* A flag that would change the wire in a way no engine documents (more flag words) is
 * refused by name at the serverinfo, not guessed. */
TEST(rmq_unknown_flags_refused)
{
    static buf f;
    build(&f, MOREFLAGS | INT32COORD, 1, 2, 3, 0, 4);
    cl_entstate s;
    qd_error err = {0};
    CHECK_EQ(run(&f, &s, &err), QD_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "RMQ protocol flags") != NULL);
}

/* The origin `dump` shows for one entity's svc_spawnbaseline. */
typedef struct baseline_seen {
    int ent, found;
    float origin[3];
} baseline_seen;

static void on_msg(void *ctx, double t, uint32_t block, uint64_t offset, const char *name,
                   const char *detail)
{
    baseline_seen *b = ctx;
    (void)t;
    (void)block;
    (void)offset;
    int ent;
    if (b->found || strcmp(name, "svc_spawnbaseline") != 0 ||
        sscanf(detail, "ent=%d", &ent) != 1 || ent != b->ent)
        return;
    const char *o = strstr(detail, "origin=");
    b->found = o && sscanf(o, "origin=%f,%f,%f", &b->origin[0], &b->origin[1],
                           &b->origin[2]) == 3;
}

/* LibreQuake's demo3 (RMQ, flags 0x82: int32 coordinates in 1/16 units, int16 angles): the
 * whole file decodes to its end marker; the baseline at byte 3116 (an svc_spawnbaseline: id
 * 22, entity 12, then model, frame, colormap, skin, and origin/angle triples of 4 + 2 bytes)
 * shows the origin its own bytes give when read by hand here. */
TEST(rmq_librequake_demo3_decodes)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, "librequake/dem/librequake_demo3.dem"))
        SKIP("no librequake/dem/librequake_demo3.dem");
    size_t n;
    unsigned char *d = test_read_file(path, &n);
    CHECK(d && n > 3200);
    if (!d || n <= 3200)
        return;
    CHECK(d[57] == 11 && d[58] == 0xe7 && d[59] == 0x03); /* serverinfo, protocol 999 */
    CHECK_EQ(d[62] | d[63] << 8 | d[64] << 16 | (uint32_t)d[65] << 24, 0x82u);
    CHECK_EQ(d[3116], 22);
    int ent = d[3117] | d[3118] << 8;
    float want[3];
    for (int i = 0; i < 3; i++) {
        const unsigned char *p = d + 3123 + 6 * i;
        int32_t v = (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                              (uint32_t)p[3] << 24);
        want[i] = (float)v / 16.0f;
    }
    qd_error err = {0};
    demo_t *dm = demo_open_mem("librequake_demo3.dem", d, n, &err);
    CHECK(dm);
    if (!dm) {
        free(d);
        return;
    }
    static cl_state cl;
    cl_reset(&cl);
    baseline_seen seen = {ent, 0, {0, 0, 0}};
    demo_trace tr = {&seen, on_msg};
    int done = 0, saw;
    qd_err r = QD_OK;
    while (!done && r == QD_OK)
        r = demo_step(dm, &cl, &tr, &done, &err);
    saw = seen.found;
    CHECK(want[0] == seen.origin[0] && want[1] == seen.origin[1] && want[2] == seen.origin[2]);
    CHECK_MSG(r == QD_OK, "%s", err.msg);
    CHECK(saw);
    CHECK_EQ(demo_protocol(dm), 999);
    CHECK(demo_check_end(dm, &err) == QD_OK);
    CHECK(strcmp(cl.level.map, "maps/lqdm3.bsp") == 0);
    demo_close(dm);
    free(d);
}
