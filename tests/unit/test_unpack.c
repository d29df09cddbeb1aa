/* test_unpack.c: demos in containers (demo_unpack.c): gzip streams made here with zlib, zips
 * built here byte by byte, and a real LibreQuake demo inside them. Every expectation comes
 * from the bytes the test packed (the container must give them back) or the file format. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../../src/demo/demo.h"
#include "../../src/demo/demo_unpack.h"
#include "../../src/timeline/timeline.h"
#include "../test.h"
#include "../testbuf.h"

/* RFC 1952 through zlib: a gzip member of n bytes (level 6), appended to b. */
static void gzip_member(gbuf *b, const uint8_t *in, size_t n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    size_t cap = deflateBound(&z, (uLong)n);
    uint8_t *out = malloc(cap);
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    deflate(&z, Z_FINISH);
    gput(b, out, z.total_out);
    deflateEnd(&z);
    free(out);
}

/* A zip (APPNOTE 4.3) of stored members: local headers with their data, the central
 * directory, the end record. */
static void zip_stored(gbuf *b, const char *const *names, const uint8_t *const *data,
                       const size_t *lens, int n)
{
    uint32_t at[16];
    for (int i = 0; i < n && i < 16; i++) {
        at[i] = (uint32_t)b->len;
        g32(b, 0x04034b50);
        g16(b, 10); /* version needed */
        g16(b, 0);  /* flags */
        g16(b, 0);  /* stored */
        g32(b, 0);  /* time, date */
        g32(b, (uint32_t)crc32(0, data[i], (uInt)lens[i]));
        g32(b, (uint32_t)lens[i]);
        g32(b, (uint32_t)lens[i]);
        g16(b, (unsigned)strlen(names[i]));
        g16(b, 0);
        gput(b, names[i], strlen(names[i]));
        gput(b, data[i], lens[i]);
    }
    uint32_t cd = (uint32_t)b->len;
    n = n < 16 ? n : 16;
    for (int i = 0; i < n; i++) {
        g32(b, 0x02014b50);
        g16(b, 20);
        g16(b, 10);
        g16(b, 0);
        g16(b, 0);
        g32(b, 0);
        g32(b, (uint32_t)crc32(0, data[i], (uInt)lens[i]));
        g32(b, (uint32_t)lens[i]);
        g32(b, (uint32_t)lens[i]);
        g16(b, (unsigned)strlen(names[i]));
        g16(b, 0); /* extra */
        g16(b, 0); /* comment */
        g16(b, 0); /* disk */
        g16(b, 0); /* internal attributes */
        g32(b, 0); /* external attributes */
        g32(b, at[i]);
        gput(b, names[i], strlen(names[i]));
    }
    uint32_t cd_size = (uint32_t)b->len - cd;
    g32(b, 0x06054b50);
    g16(b, 0);
    g16(b, 0);
    g16(b, (unsigned)n);
    g16(b, (unsigned)n);
    g32(b, cd_size);
    g32(b, cd);
    g16(b, 0);
}

static uint8_t *real_demo(size_t *len)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, "librequake/dem/librequake_demo2.dem"))
        return NULL;
    return test_read_file(path, len);
}

/* Decode a demo to its end; the frame count, or -1 on an error (its code in *code). */
static int frames_of(demo_t *d, qd_err *code)
{
    static cl_state cl;
    cl_reset(&cl);
    int done = 0;
    qd_error err;
    *code = QD_OK;
    while (!done) {
        qd_err r = demo_step(d, &cl, NULL, &done, &err);
        if (r != QD_OK) {
            *code = r;
            break;
        }
    }
    return (int)cl.frame_count;
}

TEST(unpack_gzip_gives_back_the_demo_and_plays_as_the_plain_file)
{
    size_t n;
    uint8_t *dem = real_demo(&n);
    if (!dem)
        SKIP("no librequake/dem/librequake_demo2.dem");
    gbuf gz = {0};
    gzip_member(&gz, dem, n);
    CHECK(gz.len < n); /* it is compressed */
    demo_unpacked u;
    qd_error err = {0};
    CHECK_EQ(demo_unpack("dir/x.dem.gz", gz.p, gz.len, 1u << 30, &u, &err), QD_OK);
    CHECK(u.data && u.len == n && memcmp(u.data, dem, n) == 0);
    CHECK_STR(u.member, "x.dem");
    CHECK_EQ(u.note.code, QD_OK);
    free(u.data);

    qd_err c1, c2;
    demo_t *plain = demo_open_mem("x.dem", dem, n, &err);
    demo_t *packed = demo_open_file_mem("dir/x.dem.gz", gz.p, gz.len, &err);
    CHECK(plain && packed);
    if (plain && packed) {
        CHECK_STR(demo_path(packed), "dir/x.dem.gz:x.dem");
        CHECK_EQ(demo_size(packed), n);
        int f1 = frames_of(plain, &c1), f2 = frames_of(packed, &c2);
        CHECK(f1 > 100);
        CHECK_EQ(f2, f1);
        CHECK_EQ(c2, c1);
    }
    demo_close(plain);
    demo_close(packed);
    free(gz.p);
    free(dem);
}

/* gzip -d's rule (RFC 1952 2.2): a file of several members is their contents in turn. */
TEST(unpack_gzip_members_follow_each_other)
{
    static const uint8_t a[] = "first member, ", b[] = "second member";
    gbuf gz = {0};
    gzip_member(&gz, a, sizeof a - 1);
    gzip_member(&gz, b, sizeof b - 1);
    demo_unpacked u;
    qd_error err = {0};
    CHECK_EQ(demo_unpack("m.gz", gz.p, gz.len, 1000, &u, &err), QD_OK);
    CHECK(u.data && u.len == sizeof a - 1 + sizeof b - 1);
    if (u.data)
        CHECK(memcmp(u.data, "first member, second member", u.len) == 0);
    CHECK_STR(u.member, "m");
    free(u.data);
    free(gz.p);
}

/* Bytes after the last member that are no member (a damaged second member's first byte)
 * are left out, as gzip -d does, and now said with their offset (a review: the rest of
 * the demo was lost in silence); zeros after it (padding) say nothing. */
TEST(unpack_gzip_trailing_bytes_said)
{
    static const uint8_t a[] = "first member, ", b[] = "second member";
    gbuf gz = {0};
    gzip_member(&gz, a, sizeof a - 1);
    size_t second = gz.len;
    gzip_member(&gz, b, sizeof b - 1);
    gz.p[second] ^= 1; /* 1f -> 1e */
    demo_unpacked u;
    qd_error err = {0};
    CHECK_EQ(demo_unpack("m.gz", gz.p, gz.len, 1000, &u, &err), QD_OK);
    CHECK(u.data && u.len == sizeof a - 1);
    CHECK_MSG(u.note.code == QD_ERR_BAD_DATA && u.note.offset == second &&
                  strstr(u.note.msg, "after the last gzip member"),
              "%d %llu %s", u.note.code, (unsigned long long)u.note.offset, u.note.msg);
    free(u.data);
    /* zeros after one member: nothing said */
    gz.len = second;
    for (int i = 0; i < 16; i++)
        gz.p[gz.len++] = 0;
    CHECK_EQ(demo_unpack("m.gz", gz.p, gz.len, 1000, &u, &err), QD_OK);
    CHECK(u.data && u.len == sizeof a - 1 && u.note.code == QD_OK);
    free(u.data);
    free(gz.p);
}

/* A Quake III demo whose first sequence number is 559,903 (its bytes 1f 8b 08, gzip's mark)
 * or 67,324,752 ("PK\3\4") is the demo, not a damaged container (a review: refused at
 * "gzip data damaged at byte 25"): udt_osp_chat.dm_68 with its first sequence number so
 * set opens and decodes as the file itself does, to its last frame. */
TEST(unpack_demo_that_looks_like_a_container)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, "dm_68/udt_osp_chat.dm_68"))
        SKIP("no realdata/dm_68/udt_osp_chat.dm_68");
    size_t len = 0;
    uint8_t *d = test_read_file(path, &len);
    CHECK(d && len > 16);
    if (!d)
        return;
    double want = -1;
    qd_error err = {0};
    demo_t *plain = demo_open_file_mem("osp.dm_68", d, len, &err);
    timeline_t *tl = plain ? tl_open(plain, 0, &err) : NULL;
    CHECK(tl != NULL);
    if (tl)
        want = tl_end(tl) - tl_start(tl);
    tl_close(tl);
    static const uint32_t seqs[2] = {559903u, 67324752u};
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 4; i++)
            d[i] = (uint8_t)(seqs[k] >> (8 * i));
        demo_t *dm = demo_open_file_mem("seq.dm_68", d, len, &err);
        CHECK_MSG(dm != NULL, "%u: %s", seqs[k], err.msg);
        timeline_t *t2 = dm ? tl_open(dm, 0, &err) : NULL;
        CHECK(t2 && tl_complete(t2));
        if (t2)
            CHECK_MSG(fabs(tl_end(t2) - tl_start(t2) - want) < 1e-9, "%u: %f", seqs[k],
                      tl_end(t2) - tl_start(t2));
        tl_close(t2);
    }
    free(d);
}

/* A cut download: what inflated before the cut is kept, and the note says where it was cut
 * (the file's length: zlib had no more input). A cut inside the gzip header gives nothing
 * and fails. */
TEST(unpack_gzip_cut_keeps_what_came_out)
{
    uint8_t plain[20000];
    for (size_t i = 0; i < sizeof plain; i++)
        plain[i] = (uint8_t)(i * 7 + (i >> 5)); /* compresses, but not to nothing */
    gbuf gz = {0};
    gzip_member(&gz, plain, sizeof plain);
    size_t cut = gz.len / 2;
    demo_unpacked u;
    qd_error err = {0};
    CHECK_EQ(demo_unpack("c.dem.gz", gz.p, cut, 1u << 20, &u, &err), QD_OK);
    CHECK(u.data && u.len > 0 && u.len < sizeof plain);
    if (u.data)
        CHECK(memcmp(u.data, plain, u.len) == 0);
    CHECK_EQ(u.note.code, QD_ERR_TRUNCATED);
    CHECK_EQ(u.note.offset, cut);
    free(u.data);
    CHECK(demo_unpack("c.dem.gz", gz.p, 5, 1u << 20, &u, &err) != QD_OK);
    CHECK(!u.data);
    free(gz.p);
}

/* The output cap holds against a bomb: 1 MiB of zeros is about 1 KiB of gzip. */
TEST(unpack_gzip_output_is_capped)
{
    uint8_t *zeros = calloc(1, 1u << 20);
    gbuf gz = {0};
    gzip_member(&gz, zeros, 1u << 20);
    CHECK(gz.len < 4096);
    demo_unpacked u;
    qd_error err = {0};
    CHECK_EQ(demo_unpack("bomb.dem.gz", gz.p, gz.len, 65536, &u, &err), QD_ERR_LIMIT);
    CHECK(!u.data);
    CHECK_EQ(demo_unpack("bomb.dem.gz", gz.p, gz.len, 1u << 20, &u, &err), QD_OK);
    CHECK(u.data && u.len == 1u << 20);
    free(u.data);
    free(gz.p);
    /* Caps under the first buffer's 64 KiB (a review found the first buffer overran them,
     * and past it the buffer's doubling never ended): 5,000 and 200,000 bytes out against
     * 1,000 and 4,096 are over; exactly 1,000 against 1,000 is not; a cap of 0 takes none. */
    static const size_t outs[] = {5000, 200000, 1000, 10, 1000, 1001},
                        caps[] = {1000, 4096, 1000, 0, 1000, 1000};
    static const qd_err want[] = {QD_ERR_LIMIT, QD_ERR_LIMIT, QD_OK,
                                  QD_ERR_LIMIT, QD_OK,        QD_ERR_LIMIT};
    for (int i = 0; i < 6; i++) {
        gbuf g = {0};
        gzip_member(&g, zeros, outs[i]);
        if (i >= 4) /* an empty member after: exactly the cap is not over it (a review) */
            gzip_member(&g, zeros, 0);
        CHECK_EQ(demo_unpack("small.dem.gz", g.p, g.len, caps[i], &u, &err), want[i]);
        CHECK(want[i] == QD_OK ? u.data && u.len == outs[i] : !u.data);
        free(u.data);
        free(g.p);
    }
    free(zeros);
}

TEST(unpack_zip_of_one_demo_opens_it)
{
    size_t n;
    uint8_t *dem = real_demo(&n);
    if (!dem)
        SKIP("no librequake/dem/librequake_demo2.dem");
    static const uint8_t readme[] = "recorded on a Tuesday";
    const char *names[] = {"README.txt", "demos/Final.DEM"};
    const uint8_t *data[] = {readme, dem};
    size_t lens[] = {sizeof readme - 1, n};
    gbuf z = {0};
    zip_stored(&z, names, data, lens, 2);
    demo_unpacked u;
    qd_error err = {0};
    CHECK_EQ(demo_unpack("d.zip", z.p, z.len, 1u << 30, &u, &err), QD_OK);
    CHECK(u.data && u.len == n && memcmp(u.data, dem, n) == 0);
    CHECK_STR(u.member, "demos/final.dem"); /* the pak-loader's normalised name */
    free(u.data);
    demo_t *d = demo_open_file_mem("d.zip", z.p, z.len, &err);
    CHECK(d);
    if (d)
        CHECK_EQ(demo_get_format(d), DEMO_FMT_DEM);
    demo_close(d);
    free(z.p);
    free(dem);
}

/* A zip of no demo or of several is refused, naming what it holds. */
TEST(unpack_zip_of_none_or_several_is_refused)
{
    static const uint8_t a[] = "x", b[] = "y";
    const char *names[] = {"a.qwd", "b.dm_68", "notes.dm_"};
    const uint8_t *data[] = {a, b, a};
    size_t lens[] = {1, 1, 1};
    gbuf z = {0};
    zip_stored(&z, names, data, lens, 3);
    demo_unpacked u;
    qd_error err = {0};
    CHECK_EQ(demo_unpack("two.zip", z.p, z.len, 1000, &u, &err), QD_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "2 demos") && strstr(err.msg, "a.qwd") && strstr(err.msg, "b.dm_68"));
    free(z.p);
    gbuf y = {0};
    zip_stored(&y, names + 2, data + 2, lens + 2, 1); /* ".dm_" has no digits: not a demo */
    CHECK_EQ(demo_unpack("none.zip", y.p, y.len, 1000, &u, &err), QD_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "no demo"));
    free(y.p);
    /* a demo whose name the loader cannot take (a ".." part) is named, with why (a review:
     * "no demo"); beside a usable demo it is simply not counted */
    const char *odd[] = {"../x.dem", "b.dm_68"};
    const uint8_t *odd_data[] = {a, b};
    gbuf o = {0};
    zip_stored(&o, odd, odd_data, lens, 1);
    CHECK_EQ(demo_unpack("odd.zip", o.p, o.len, 1000, &u, &err), QD_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "\"../x.dem\"") && strstr(err.msg, "\"..\" part"));
    free(o.p);
    gbuf o2 = {0};
    zip_stored(&o2, odd, odd_data, lens, 2);
    CHECK_EQ(demo_unpack("odd2.zip", o2.p, o2.len, 1000, &u, &err), QD_OK);
    CHECK_STR(u.member, "b.dm_68");
    free(u.data);
    free(o2.p);
    /* another left-out name before it, and one long enough that a cut copy lost its
     * extension (the review's two cases): the demo is still the one named, by its end */
    char longname[160];
    snprintf(longname, sizeof longname, "../%0120d.dem", 0);
    const char *two[] = {"../readme.txt", "../x.dem"}, *one_long[] = {longname};
    const char *const *sets[2] = {two, one_long};
    const char *want[2] = {"\"../x.dem\"", "0000.dem\""};
    for (int k = 0; k < 2; k++) {
        gbuf m = {0};
        zip_stored(&m, sets[k], odd_data, lens, k == 0 ? 2 : 1);
        CHECK_EQ(demo_unpack("more.zip", m.p, m.len, 1000, &u, &err), QD_ERR_UNSUPPORTED);
        CHECK_MSG(strstr(err.msg, want[k]) != NULL, "%s", err.msg);
        free(m.p);
    }
    /* the demo the ninth left-out name, past the eight the loader keeps: not "no demo" but
     * how many names were not read (before: "the zip holds no demo") */
    const char *nine[9] = {"../a", "../b", "../c", "../d", "../e", "../f", "../g", "../h",
                           "../x.dem"};
    const uint8_t *nine_data[9] = {a, a, a, a, a, a, a, a, a};
    size_t nine_lens[9] = {lens[0], lens[0], lens[0], lens[0], lens[0],
                           lens[0], lens[0], lens[0], lens[0]};
    gbuf g = {0};
    zip_stored(&g, nine, nine_data, nine_lens, 9);
    CHECK_EQ(demo_unpack("nine.zip", g.p, g.len, 1000, &u, &err), QD_ERR_UNSUPPORTED);
    CHECK_MSG(strstr(err.msg, "9 of its names are not read") && !strstr(err.msg, "holds no demo ("),
              "%s", err.msg);
    free(g.p);
}

/* fuzz_unpack's finding (tests/crashers/unpack/zip-data-offset-past-end): the zip's one
 * entry has its local header at offset 0 (central directory at 1157, offset field read with
 * a hex dump), whose name and extra lengths (61406 + 51276) put the data at 112712 in a file
 * of 1230 bytes. It is refused as truncated, and the error names the local header (0), a
 * byte inside the file, not 112712. */
TEST(unpack_zip_data_past_the_end_names_a_byte_inside)
{
    size_t n = 0;
    unsigned char *d = test_read_file("tests/crashers/unpack/zip-data-offset-past-end", &n);
    if (!d)
        SKIP("run from the project root");
    CHECK_EQ(n, 1230);
    demo_unpacked u;
    qd_error err = {0};
    CHECK_EQ(demo_unpack("x.zip", d, n, 1u << 20, &u, &err), QD_ERR_TRUNCATED);
    CHECK_EQ(err.offset, 0);
    CHECK(strstr(err.msg, "112712") && strstr(err.msg, "runs past the end"));
    CHECK(!u.data);
    free(d);
}

/* Bytes that are neither are left alone. */
TEST(unpack_other_bytes_pass_through)
{
    static const uint8_t dem[] = "-1\n\x10\0\0\0";
    demo_unpacked u;
    qd_error err = {0};
    CHECK_EQ(demo_unpack("a.dem", dem, sizeof dem - 1, 1000, &u, &err), QD_OK);
    CHECK(!u.data);
}

/* Issue #17's check: a real `.mvd.gz` and a real `.dm_68` alone in a zip decode to the same
 * frames and the same end as the plain files. */
static void same_as_plain(const char *rel, int zip)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, rel))
        return;
    size_t n;
    uint8_t *raw = test_read_file(path, &n);
    if (!raw)
        return;
    gbuf packed = {0};
    const char *base = strrchr(rel, '/') + 1;
    char label[300];
    if (zip) {
        const char *names[] = {base};
        const uint8_t *data[] = {raw};
        size_t lens[] = {n};
        zip_stored(&packed, names, data, lens, 1);
        snprintf(label, sizeof label, "%s.zip", base);
    } else {
        gzip_member(&packed, raw, n);
        snprintf(label, sizeof label, "%s.gz", base);
    }
    qd_error err = {0};
    demo_t *plain = demo_open_mem(base, raw, n, &err);
    demo_t *other = demo_open_file_mem(label, packed.p, packed.len, &err);
    CHECK_MSG(plain && other, "%s: %s", label, err.msg);
    if (plain && other) {
        qd_err c1, c2;
        int f1 = frames_of(plain, &c1), f2 = frames_of(other, &c2);
        CHECK_MSG(f1 > 0 && f1 == f2 && c1 == c2, "%s: %d/%d frames", label, f1, f2);
        CHECK_EQ(demo_get_format(other), demo_get_format(plain));
        CHECK_EQ(demo_protocol(other), demo_protocol(plain));
    }
    demo_close(plain);
    demo_close(other);
    free(packed.p);
    free(raw);
}

TEST(unpack_real_mvd_gz_and_zipped_dm68)
{
    char path[1024];
    if (!test_realfile(path, sizeof path, "mvd/mvdparser_ffa_5_dm4_20240501-1229.mvd") ||
        !test_realfile(path, sizeof path, "dm_68/udt_dm_68_team_chat.dm_68"))
        SKIP("no mvdparser_ffa_5_dm4 .mvd or udt_dm_68_team_chat in realdata");
    same_as_plain("mvd/mvdparser_ffa_5_dm4_20240501-1229.mvd", 0);
    same_as_plain("dm_68/udt_dm_68_team_chat.dm_68", 1);
}
