/* test_pak.c: pak-loader tests: search-path order, lookups and listings over PAK and zip
 * bytes built here, hostile archives, and the real PAK and PK3 files. */
#include "../test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../../pak-loader/pak.h"

/* ---- byte builders ---------------------------------------------------------------------- */

typedef struct buf {
    uint8_t *p;
    size_t len, cap;
} buf_t;

static void put(buf_t *b, const void *d, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, d, n);
    b->len += n;
}

static void put16(buf_t *b, uint32_t v)
{
    uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    put(b, x, 2);
}

static void put32(buf_t *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(b, x, 4);
}

static void put64(buf_t *b, uint64_t v)
{
    put32(b, (uint32_t)v);
    put32(b, (uint32_t)(v >> 32));
}

static void set16(buf_t *b, size_t at, uint32_t v)
{
    b->p[at] = (uint8_t)v;
    b->p[at + 1] = (uint8_t)(v >> 8);
}

static void set32(buf_t *b, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->p[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

typedef struct member {
    const char *name;
    const char *data;
    int method;     /* zip: 0 stored, 8 deflate, anything else stored as is under that id */
    uint16_t flags; /* zip: general purpose flags */
    int zip64;      /* zip: sizes in a zip64 extra field */
} member_t;

#define M(name, data) {name, data, 0, 0, 0}
#define ZM(name, data, method) {name, data, method, 0, 0}

/* A Quake PAK: header, data, directory at the end. */
static buf_t make_pak(const member_t *m, int n)
{
    buf_t b = {0};
    uint32_t ofs[32];
    put(&b, "PACK", 4);
    put32(&b, 0);
    put32(&b, 0);
    for (int i = 0; i < n; i++) {
        ofs[i] = (uint32_t)b.len;
        put(&b, m[i].data, strlen(m[i].data));
    }
    uint32_t dirofs = (uint32_t)b.len;
    for (int i = 0; i < n; i++) {
        char name[56] = {0};
        memcpy(name, m[i].name, strlen(m[i].name) < 56 ? strlen(m[i].name) : 56);
        put(&b, name, 56);
        put32(&b, ofs[i]);
        put32(&b, (uint32_t)strlen(m[i].data));
    }
    set32(&b, 4, dirofs);
    set32(&b, 8, (uint32_t)n * 64);
    return b;
}

static size_t deflate_raw(const char *in, size_t n, uint8_t **out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    deflateInit2(&z, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    size_t cap = deflateBound(&z, (uLong)n);
    *out = malloc(cap);
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)n;
    z.next_out = *out;
    z.avail_out = (uInt)cap;
    deflate(&z, Z_FINISH);
    size_t len = z.total_out;
    deflateEnd(&z);
    return len;
}

/* Where make_zip put things, offsets from the start of the buffer. */
typedef struct zip_layout {
    size_t lfh[32], data[32], csize[32], cdh[32];
    size_t eocd;
} zip_layout;

/* A zip: prefix junk bytes, local headers and data, central directory, (zip64 end records,)
 * end record. Offsets inside are relative to the end of the prefix, as tools write them. */
static buf_t make_zip(const member_t *m, int n, size_t prefix, int zip64_end, zip_layout *lay)
{
    buf_t b = {0};
    zip_layout dummy;
    if (!lay)
        lay = &dummy;
    for (size_t i = 0; i < prefix; i++)
        put(&b, "x", 1);
    uint32_t crc[32], csz[32];
    for (int i = 0; i < n; i++) {
        size_t len = strlen(m[i].data);
        crc[i] = (uint32_t)crc32(0, (const Bytef *)m[i].data, (uInt)len);
        uint8_t *c = NULL;
        size_t cl = len;
        if (m[i].method == 8)
            cl = deflate_raw(m[i].data, len, &c);
        csz[i] = (uint32_t)cl;
        lay->lfh[i] = b.len;
        put32(&b, 0x04034b50);
        put16(&b, 20);
        put16(&b, m[i].flags);
        put16(&b, (uint32_t)m[i].method);
        put32(&b, 0); /* time, date */
        put32(&b, crc[i]);
        put32(&b, (uint32_t)cl);
        put32(&b, (uint32_t)len);
        put16(&b, (uint32_t)strlen(m[i].name));
        put16(&b, 0);
        put(&b, m[i].name, strlen(m[i].name));
        lay->data[i] = b.len;
        lay->csize[i] = cl;
        put(&b, c ? (const void *)c : (const void *)m[i].data, cl);
        free(c);
    }
    size_t cd_ofs = b.len - prefix;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(m[i].data);
        lay->cdh[i] = b.len;
        put32(&b, 0x02014b50);
        put16(&b, 20);
        put16(&b, 20);
        put16(&b, m[i].flags);
        put16(&b, (uint32_t)m[i].method);
        put32(&b, 0);
        put32(&b, crc[i]);
        put32(&b, m[i].zip64 ? 0xFFFFFFFFu : csz[i]);
        put32(&b, m[i].zip64 ? 0xFFFFFFFFu : (uint32_t)len);
        put16(&b, (uint32_t)strlen(m[i].name));
        put16(&b, m[i].zip64 ? 20 : 0);
        put16(&b, 0);
        put16(&b, 0);
        put16(&b, 0);
        put32(&b, 0);
        put32(&b, (uint32_t)(lay->lfh[i] - prefix));
        put(&b, m[i].name, strlen(m[i].name));
        if (m[i].zip64) {
            put16(&b, 1);
            put16(&b, 16);
            put64(&b, len);
            put64(&b, csz[i]);
        }
    }
    size_t cd_size = b.len - prefix - cd_ofs;
    if (zip64_end) {
        size_t at = b.len - prefix;
        put32(&b, 0x06064b50);
        put64(&b, 44);
        put16(&b, 45);
        put16(&b, 45);
        put32(&b, 0);
        put32(&b, 0);
        put64(&b, (uint64_t)n);
        put64(&b, (uint64_t)n);
        put64(&b, cd_size);
        put64(&b, cd_ofs);
        put32(&b, 0x07064b50);
        put32(&b, 0);
        put64(&b, at);
        put32(&b, 1);
    }
    lay->eocd = b.len;
    put32(&b, 0x06054b50);
    put32(&b, 0);
    put16(&b, zip64_end ? 0xFFFF : (uint32_t)n);
    put16(&b, zip64_end ? 0xFFFF : (uint32_t)n);
    put32(&b, zip64_end ? 0xFFFFFFFFu : (uint32_t)cd_size);
    put32(&b, zip64_end ? 0xFFFFFFFFu : (uint32_t)cd_ofs);
    put16(&b, 0);
    return b;
}

/* ---- file helpers ----------------------------------------------------------------------- */

/* test_tmpdir()/rel into buf. */
static const char *tpath(char *buf, size_t cap, const char *rel)
{
    snprintf(buf, cap, "%s/%s", test_tmpdir(), rel);
    return buf;
}

static void mkdirs(const char *path)
{
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            mkdir(tmp, 0777);
            *p = '/';
        }
    }
    mkdir(tmp, 0777);
}

/* Writes bytes to test_tmpdir()/rel, creating folders. */
static void twrite(const char *rel, const void *data, size_t len)
{
    char path[1024];
    tpath(path, sizeof path, rel);
    char *slash = strrchr(path, '/');
    *slash = 0;
    mkdirs(path);
    *slash = '/';
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, len, f);
        fclose(f);
    }
}

static void twrite_buf(const char *rel, buf_t *b)
{
    twrite(rel, b->p, b->len);
    free(b->p);
    b->p = NULL;
}

/* Reads name as text into out; returns the error code. */
static qd_err read_text(const pak_fs *fs, const char *name, char *out, size_t cap)
{
    uint8_t *d;
    size_t n;
    qd_error e;
    out[0] = 0;
    qd_err r = pak_read(fs, name, &d, &n, &e);
    if (r)
        return r;
    snprintf(out, cap, "%s", (const char *)d); /* pak_read adds the NUL */
    free(d);
    return QD_OK;
}

/* Adds bytes as a memory archive and expects the given failure; the message is kept. */
static qd_err add_mem_err(const buf_t *b, qd_error *e)
{
    pak_fs *fs = pak_fs_open();
    memset(e, 0, sizeof *e);
    qd_err r = pak_fs_add_mem(fs, "t.bin", b->p, b->len, e);
    pak_fs_close(fs);
    return r;
}

/* ---- lookups ---------------------------------------------------------------------------- */

TEST(pak_lookup_case_and_separators)
{
    member_t m[] = {M("maps/E1M1.bsp", "bsp bytes"), M("progs/Player.mdl", "mdl")};
    buf_t b = make_pak(m, 2);
    pak_fs *fs = pak_fs_open();
    qd_error e;
    CHECK_EQ(pak_fs_add_mem(fs, "mem.pak", b.p, b.len, &e), QD_OK);
    pak_info info;
    CHECK(pak_find(fs, "maps/e1m1.bsp", &info));
    CHECK_STR(info.name, "maps/e1m1.bsp");
    CHECK_STR(info.source, "mem.pak");
    CHECK_EQ(info.kind, PAK_KIND_PAK);
    CHECK_EQ(info.size, 9);
    CHECK_EQ(info.offset, 12);
    CHECK(pak_find(fs, "MAPS/E1M1.BSP", NULL));
    CHECK(pak_find(fs, "maps\\e1m1.bsp", NULL));
    CHECK(pak_find(fs, "./maps/e1m1.bsp", NULL));
    CHECK(pak_find(fs, "maps//./e1m1.bsp", NULL));
    CHECK(pak_find(fs, "/progs/player.mdl", NULL));
    CHECK(!pak_find(fs, "maps/e1m2.bsp", NULL));
    CHECK(!pak_find(fs, "maps", NULL));
    CHECK(!pak_find(fs, "", NULL));
    char text[64];
    CHECK_EQ(read_text(fs, "Maps/e1m1.BSP", text, sizeof text), QD_OK);
    CHECK_STR(text, "bsp bytes");
    uint8_t *d = (uint8_t *)1;
    size_t n = 7;
    CHECK_EQ(pak_read(fs, "maps/none.bsp", &d, &n, &e), QD_ERR_NOT_FOUND);
    CHECK(d == NULL);
    CHECK_EQ(n, 0);
    pak_fs_close(fs);
    free(b.p);
}

TEST(pak_read_adds_nul_and_limit)
{
    member_t m[] = {M("a.txt", "0123456789abcdef"), M("empty.txt", "")};
    buf_t b = make_pak(m, 2);
    pak_fs *fs = pak_fs_open();
    qd_error e;
    CHECK_EQ(pak_fs_add_mem(fs, "mem.pak", b.p, b.len, &e), QD_OK);
    uint8_t *d;
    size_t n;
    CHECK_EQ(pak_read(fs, "a.txt", &d, &n, &e), QD_OK);
    CHECK_EQ(n, 16);
    CHECK_EQ(d[16], 0);
    free(d);
    CHECK_EQ(pak_read(fs, "empty.txt", &d, &n, &e), QD_OK);
    CHECK(d != NULL);
    CHECK_EQ(n, 0);
    CHECK_EQ(d[0], 0);
    free(d);
    pak_fs_set_max_file(fs, 10);
    CHECK_EQ(pak_read(fs, "a.txt", &d, &n, &e), QD_ERR_LIMIT);
    CHECK(d == NULL);
    pak_fs_set_max_file(fs, 0);
    CHECK_EQ(pak_read(fs, "a.txt", &d, &n, &e), QD_OK);
    free(d);
    pak_fs_close(fs);
    free(b.p);
}

TEST(pak_duplicates_inside_one_archive)
{
    /* Quake scans a PAK's directory from the front (first copy wins); Quake III's zip hash
     * chains find the last copy. */
    member_t m[] = {M("dup.txt", "first"), M("DUP.txt", "second")};
    buf_t p = make_pak(m, 2);
    buf_t z = make_zip(m, 2, 0, 0, NULL);
    pak_fs *fs = pak_fs_open();
    qd_error e;
    char t[32];
    CHECK_EQ(pak_fs_add_mem(fs, "p.pak", p.p, p.len, &e), QD_OK);
    CHECK_EQ(read_text(fs, "dup.txt", t, sizeof t), QD_OK);
    CHECK_STR(t, "first");
    CHECK_EQ(pak_fs_add_mem(fs, "z.pk3", z.p, z.len, &e), QD_OK);
    CHECK_EQ(read_text(fs, "dup.txt", t, sizeof t), QD_OK);
    CHECK_STR(t, "second");
    CHECK_EQ(pak_list(fs, "", NULL, NULL), 1);
    pak_fs_close(fs);
    free(p.p);
    free(z.p);
}

TEST(pak_dotdot_rejected)
{
    member_t m[] = {M("../evil.txt", "evil"), M("ok/../../x.txt", "evil"), M("good.txt", "good")};
    buf_t b = make_pak(m, 3);
    pak_fs *fs = pak_fs_open();
    qd_error e;
    CHECK_EQ(pak_fs_add_mem(fs, "mem.pak", b.p, b.len, &e), QD_OK);
    CHECK_EQ(pak_list(fs, NULL, NULL, NULL), 1);
    CHECK(!pak_find(fs, "../evil.txt", NULL));
    CHECK(!pak_find(fs, "evil.txt", NULL));
    CHECK(!pak_find(fs, "maps/../good.txt", NULL));
    CHECK(pak_find(fs, "good.txt", NULL));
    uint8_t *d;
    size_t n;
    CHECK_EQ(pak_read(fs, "maps/../good.txt", &d, &n, &e), QD_ERR_USAGE);
    CHECK(strstr(e.msg, "..") != NULL);
    CHECK_EQ(pak_read(fs, "..\\good.txt", &d, &n, &e), QD_ERR_USAGE);
    CHECK_EQ(pak_list(fs, "../", NULL, NULL), 0);
    /* "..x" is an ordinary name part */
    CHECK(!pak_find(fs, "..x/good.txt", NULL));
    const char *games[] = {".."};
    CHECK_EQ(pak_fs_add_basedir(fs, test_tmpdir(), games, 1, &e), QD_ERR_USAGE);
    CHECK_EQ(pak_fs_num_layers(fs), 1);
    pak_fs_close(fs);
    free(b.p);
}

TEST(pak_name_length_limits)
{
    char n255[300], n256[300];
    memset(n255, 'a', 255);
    n255[255] = 0;
    memcpy(n255, "dir/", 4);
    memset(n256, 'b', 256);
    n256[256] = 0;
    member_t m[] = {ZM(n255, "fits", 0), ZM(n256, "too long", 8)};
    buf_t z = make_zip(m, 2, 0, 0, NULL);
    pak_fs *fs = pak_fs_open();
    qd_error e;
    CHECK_EQ(pak_fs_add_mem(fs, "long.zip", z.p, z.len, &e), QD_OK);
    CHECK_EQ(pak_list(fs, "", NULL, NULL), 1);
    CHECK(pak_find(fs, n255, NULL));
    CHECK(!pak_find(fs, n256, NULL));
    uint8_t *d;
    size_t n;
    CHECK_EQ(pak_read(fs, n256, &d, &n, &e), QD_ERR_NOT_FOUND);
    CHECK_EQ(pak_list(fs, n256, NULL, NULL), 0);
    CHECK_EQ(pak_list(fs, "dir/", NULL, NULL), 1);
    CHECK_EQ(pak_list(fs, "/./", NULL, NULL), 1);
    CHECK_EQ(pak_read(fs, "./", &d, &n, &e), QD_ERR_USAGE);
    /* separators and "." parts do not count towards the limit */
    char padded[600];
    snprintf(padded, sizeof padded, "./././././././././././././././/%s", n255);
    CHECK(pak_find(fs, padded, NULL));
    /* a ".." after the limit is still a ".." */
    char dd[600];
    snprintf(dd, sizeof dd, "%s/x/../y", n256);
    CHECK_EQ(pak_read(fs, dd, &d, &n, &e), QD_ERR_USAGE);
    pak_fs_close(fs);
    free(z.p);
}

/* ---- listing ---------------------------------------------------------------------------- */

typedef struct list_ctx {
    char names[16][64];
    uint64_t sizes[16];
    int n;
} list_ctx;

static void collect(void *ctx, const char *name, uint64_t size)
{
    list_ctx *c = ctx;
    if (c->n < 16) {
        snprintf(c->names[c->n], sizeof c->names[0], "%s", name);
        c->sizes[c->n] = size;
    }
    c->n++;
}

/* Archive names that cross the sixteen-byte blocks pak_name_normalize reads at once: a
 * "//", a "/." part and a '\' on either side of a block's edge, a '\' inside one, capitals
 * at its first and last byte and in the tail, the ASCII neighbours of 'A'..'Z' ('@', '[',
 * '`', '{') and bytes over 0x7f kept as they are, a part starting with '.' (kept), a folder
 * entry (left out). The normalised names worked out by hand, in byte order (pak_list's). */
TEST(pak_names_across_sixteen_byte_blocks)
{
    member_t m[] = {
        M("ABCDEFGHIJKLMNO//PQRSTUVWXYZ[@`{.txt", "1"),
        M("0123456789ABCDE/./Fgh.TXT", "2"),
        M("0123456789abcdef\\0123456789ABCDEF\\z", "3"),
        M("dir/\xC1\xE9-UPPER-0123456789/File", "4"),
        M("Sixteen-Bytes-AB", "5"),
        M("0123456789abcdef0123456789abcde/", ""),
        M("0123456789abcdef0123456789abcde/.Hidden", "7"),
        M("0123456789ABCDEF0123456789ABCDEF/Q", "8"),
        M("0123456789ab\\cdefgh", "9"),
    };
    static const char *const want[] = {
        "0123456789ab/cdefgh",
        "0123456789abcde/fgh.txt",
        "0123456789abcdef/0123456789abcdef/z",
        "0123456789abcdef0123456789abcde/.hidden",
        "0123456789abcdef0123456789abcdef/q",
        "abcdefghijklmno/pqrstuvwxyz[@`{.txt",
        "dir/\xc1\xe9-upper-0123456789/file",
        "sixteen-bytes-ab",
    };
    buf_t z = make_zip(m, 9, 0, 0, NULL);
    pak_fs *fs = pak_fs_open();
    qd_error e;
    CHECK_EQ(pak_fs_add_mem(fs, "names.pk3", z.p, z.len, &e), QD_OK);
    list_ctx c = {0};
    CHECK_EQ(pak_list(fs, "", collect, &c), 8);
    for (int i = 0; i < 8 && i < c.n; i++)
        CHECK_STR(c.names[i], want[i]);
    char t[8];
    CHECK_EQ(read_text(fs, "0123456789ABCDEF0123456789ABCDEF/Q", t, sizeof t), QD_OK);
    CHECK_STR(t, "8");
    CHECK_EQ(read_text(fs, "abcdefghijklmno/pqrstuvwxyz[@`{.txt", t, sizeof t), QD_OK);
    CHECK_STR(t, "1");
    pak_fs_close(fs);
    free(z.p);
}

/* A zip directory out of order in several runs (the sort merges the runs already in
 * order): every name is found, and of a name twice the directory's last copy (Quake III's
 * FS_LoadZipFile). 32 names n00..n31 written in the order i * 7 mod 32 (runs of at most
 * five), then b/2, A/1, c/3, a/0, B/2 (runs b/2 | a/1 c/3 | a/0 b/2). */
TEST(pak_zip_directory_in_several_runs)
{
    static char names[32][8], data[32][8];
    member_t m[32];
    for (int i = 0; i < 32; i++) {
        int k = i * 7 % 32;
        snprintf(names[i], sizeof names[i], "n%02d", k);
        snprintf(data[i], sizeof data[i], "%d", k);
        m[i] = (member_t)M(names[i], data[i]);
    }
    buf_t z = make_zip(m, 32, 0, 0, NULL);
    member_t d[] = {M("b/2", "first"), M("A/1", "a1"), M("c/3", "c3"), M("a/0", "a0"),
                    M("B/2", "second")};
    buf_t zd = make_zip(d, 5, 0, 0, NULL);
    pak_fs *fs = pak_fs_open();
    qd_error e;
    CHECK_EQ(pak_fs_add_mem(fs, "runs.pk3", z.p, z.len, &e), QD_OK);
    CHECK_EQ(pak_fs_add_mem(fs, "dups.pk3", zd.p, zd.len, &e), QD_OK);
    CHECK_EQ(pak_list(fs, "", NULL, NULL), 32 + 4);
    char t[16], n[8], want[8];
    for (int k = 0; k < 32; k++) {
        snprintf(n, sizeof n, "n%02d", k);
        snprintf(want, sizeof want, "%d", k);
        CHECK_EQ(read_text(fs, n, t, sizeof t), QD_OK);
        CHECK_STR(t, want);
    }
    static const char *const found[][2] = {
        {"b/2", "second"}, {"a/1", "a1"}, {"a/0", "a0"}, {"c/3", "c3"}};
    for (size_t i = 0; i < sizeof found / sizeof found[0]; i++) {
        CHECK_EQ(read_text(fs, found[i][0], t, sizeof t), QD_OK);
        CHECK_STR(t, found[i][1]);
    }
    pak_fs_close(fs);
    free(z.p);
    free(zd.p);
}

/* A search path of two archives in memory, lo under hi. */
static pak_fs *two_layers(const buf_t *lo, const char *lo_name, const buf_t *hi,
                          const char *hi_name)
{
    pak_fs *fs = pak_fs_open();
    qd_error e;
    if (fs && (pak_fs_add_mem(fs, lo_name, lo->p, lo->len, &e) != QD_OK ||
               pak_fs_add_mem(fs, hi_name, hi->p, hi->len, &e) != QD_OK)) {
        pak_fs_close(fs);
        return NULL;
    }
    return fs;
}

/* ioquake3's listing order (files.c FS_ListFilteredFiles, which ScanAndLoadShaderFiles
 * takes the scripts in): the layers from the highest priority down, each archive's names
 * in its directory's order, a name once (its highest copy, listed where that layer lists
 * it). Worked out by hand from the two archives' directories. */
TEST(pak_list_search_order_as_ioquake3)
{
    member_t lo[] = {M("scripts/z.shader", "1"), M("scripts/b.shader", "22"),
                     M("scripts/a.shader", "333"), M("maps/x.bsp", "m")};
    member_t hi[] = {M("scripts/m.shader", "4444"), M("SCRIPTS/B.SHADER", "55555"),
                     M("scripts/c.shader", "666666")};
    buf_t a = make_zip(lo, 4, 0, 0, NULL);
    buf_t b = make_zip(hi, 3, 0, 0, NULL);
    pak_fs *fs = two_layers(&a, "lo.pk3", &b, "hi.pk3");
    CHECK(fs != NULL);
    list_ctx c = {.n = 0};
    CHECK_EQ(pak_list_search_order(fs, "scripts/", collect, &c), 5);
    static const char *const want[] = {"scripts/m.shader", "scripts/b.shader", "scripts/c.shader",
                                       "scripts/z.shader", "scripts/a.shader"};
    for (int i = 0; i < 5 && i < c.n; i++)
        CHECK_STR(c.names[i], want[i]);
    CHECK_EQ(c.sizes[1], 5); /* b: the higher copy */
    CHECK_EQ(pak_list_search_order(fs, "", NULL, NULL), 6);
    CHECK_EQ(pak_list_search_order(fs, "../", NULL, NULL), 0);
    pak_fs_close(fs);
    free(a.p);
    free(b.p);
}

TEST(pak_list_prefix)
{
    member_t lo[] = {M("maps/e1m2.bsp", "low"), M("maps/e1m1.bsp", "low copy"),
                     M("mapsx/a.bsp", "x"), M("progs/a.mdl", "m")};
    member_t hi[] = {M("MAPS/E1M1.BSP", "high"), M("maps/b/c.bsp", "c"), M("sound/a.wav", "w")};
    buf_t a = make_pak(lo, 4);
    buf_t b = make_zip(hi, 3, 0, 0, NULL);
    pak_fs *fs = two_layers(&a, "lo.pak", &b, "hi.pk3");
    CHECK(fs != NULL);
    list_ctx c = {.n = 0};
    CHECK_EQ(pak_list(fs, "maps/", collect, &c), 3);
    CHECK_EQ(c.n, 3);
    CHECK_STR(c.names[0], "maps/b/c.bsp");
    CHECK_STR(c.names[1], "maps/e1m1.bsp");
    CHECK_EQ(c.sizes[1], 4); /* the higher copy's size */
    CHECK_STR(c.names[2], "maps/e1m2.bsp");
    memset(&c, 0, sizeof c);
    CHECK_EQ(pak_list(fs, "MAPS", collect, &c), 4); /* no trailing slash: mapsx too */
    CHECK_STR(c.names[3], "mapsx/a.bsp");
    memset(&c, 0, sizeof c);
    CHECK_EQ(pak_list(fs, "", collect, &c), 6);
    CHECK_STR(c.names[0], "maps/b/c.bsp");
    CHECK_STR(c.names[5], "sound/a.wav");
    CHECK_EQ(pak_list(fs, NULL, NULL, NULL), 6);
    CHECK_EQ(pak_list(fs, "maps\\e1", NULL, NULL), 2);
    CHECK_EQ(pak_list(fs, "nothing/", NULL, NULL), 0);
    pak_fs_close(fs);
    free(a.p);
    free(b.p);
}

/* ---- search-path order ------------------------------------------------------------------ */

TEST(pak_priority_numeric_pak_order)
{
    const char *names[] = {"pak0", "pak1", "pak2", "pak10"};
    for (int i = 0; i < 4; i++) {
        char which[32], only[32], rel[128];
        snprintf(which, sizeof which, "%s", names[i]);
        snprintf(only, sizeof only, "only_%s.txt", names[i]);
        member_t m[] = {M("which.txt", which), M(only, which), M("below10.txt", which)};
        buf_t b = make_pak(m, i == 3 ? 2 : 3);
        snprintf(rel, sizeof rel, "prio/game/%s.pak", names[i]);
        twrite_buf(rel, &b);
    }
    member_t up[] = {M("upper.txt", "PAK3")};
    buf_t b = make_pak(up, 1);
    twrite_buf("prio/game/PAK3.PAK", &b); /* extension and prefix in any case */
    char dir[512];
    tpath(dir, sizeof dir, "prio/game");
    pak_fs *fs = pak_fs_open();
    qd_error e;
    CHECK_EQ(pak_fs_add_game_dir(fs, dir, &e), QD_OK);
    char t[64];
    CHECK_EQ(read_text(fs, "which.txt", t, sizeof t), QD_OK);
    CHECK_STR(t, "pak10");
    CHECK_EQ(read_text(fs, "below10.txt", t, sizeof t), QD_OK);
    CHECK_STR(t, "pak2");
    CHECK_EQ(read_text(fs, "only_pak0.txt", t, sizeof t), QD_OK);
    CHECK_STR(t, "pak0");
    CHECK_EQ(read_text(fs, "upper.txt", t, sizeof t), QD_OK);
    /* layers: pak0 pak1 pak2 PAK3 pak10, then the loose folder */
    CHECK_EQ(pak_fs_num_layers(fs), 6);
    const char *want[] = {"pak0.pak", "pak1.pak", "pak2.pak", "PAK3.PAK", "pak10.pak"};
    for (int i = 0; i < 5; i++) {
        pak_kind k;
        const char *src = pak_fs_layer(fs, i, &k, NULL);
        CHECK(src != NULL);
        CHECK_STR(strrchr(src, '/') + 1, want[i]);
        CHECK_EQ(k, PAK_KIND_PAK);
    }
    pak_kind k;
    uint32_t files;
    CHECK(strcmp(pak_fs_layer(fs, 5, &k, &files), dir) == 0);
    CHECK_EQ(k, PAK_KIND_FOLDER);
    CHECK_EQ(files, 5); /* the archives themselves are loose files too */
    CHECK(pak_fs_layer(fs, 6, NULL, NULL) == NULL);
    pak_info info;
    CHECK(pak_find(fs, "which.txt", &info));
    CHECK_EQ(info.layer, 4);
    pak_fs_close(fs);
}

TEST(pak_loose_files_over_archives)
{
    member_t m[] = {M("a.txt", "from pak"), M("maps/x.bsp", "pak bsp"), M("b.txt", "pak b")};
    buf_t b = make_pak(m, 3);
    twrite_buf("loose/game/pak0.pak", &b);
    twrite("loose/game/a.txt", "loose a", 7);
    twrite("loose/game/Maps/X.BSP", "loose bsp", 9);
    twrite("loose/game/.hidden/c.txt", "hidden", 6);
    char dir[512];
    tpath(dir, sizeof dir, "loose/game");
    pak_fs *fs = pak_fs_open();
    qd_error e;
    CHECK_EQ(pak_fs_add_game_dir(fs, dir, &e), QD_OK);
    char t[64];
    CHECK_EQ(read_text(fs, "a.txt", t, sizeof t), QD_OK);
    CHECK_STR(t, "loose a");
    CHECK_EQ(read_text(fs, "maps/x.bsp", t, sizeof t), QD_OK);
    CHECK_STR(t, "loose bsp");
    CHECK_EQ(read_text(fs, "b.txt", t, sizeof t), QD_OK);
    CHECK_STR(t, "pak b");
    CHECK(!pak_find(fs, ".hidden/c.txt", NULL));
    pak_info info;
    CHECK(pak_find(fs, "MAPS/x.bsp", &info));
    CHECK_EQ(info.kind, PAK_KIND_FOLDER);
    CHECK_EQ(info.size, 9);
    CHECK(strcmp(info.source, dir) == 0);
    pak_fs_close(fs);
}

TEST(pak_pk3_name_order)
{
    const char *files[] = {"zz.pk3", "a.pk3", "B.pk3", "c.PK3"};
    for (int i = 0; i < 4; i++) {
        member_t m[] = {ZM("x.cfg", files[i], 8), M(files[i], "own")};
        buf_t b = make_zip(m, i == 0 ? 1 : 2, 0, 0, NULL);
        char rel[128];
        snprintf(rel, sizeof rel, "pk3order/game/%s", files[i]);
        twrite_buf(rel, &b);
    }
    member_t pm[] = {M("x.cfg", "pak9"), M("only_pak.cfg", "pak9")};
    buf_t b = make_pak(pm, 2);
    twrite_buf("pk3order/game/pak9.pak", &b);
    char dir[512];
    tpath(dir, sizeof dir, "pk3order/game");
    pak_fs *fs = pak_fs_open();
    qd_error e;
    CHECK_EQ(pak_fs_add_game_dir(fs, dir, &e), QD_OK);
    char t[64];
    CHECK_EQ(read_text(fs, "x.cfg", t, sizeof t), QD_OK);
    CHECK_STR(t, "zz.pk3"); /* a < B < c.PK3 < zz, case-insensitively; pk3 over pak */
    CHECK_EQ(read_text(fs, "only_pak.cfg", t, sizeof t), QD_OK);
    CHECK_STR(t, "pak9");
    const char *want[] = {"pak9.pak", "a.pk3", "B.pk3", "c.PK3", "zz.pk3"};
    for (int i = 0; i < 5; i++) {
        const char *src = pak_fs_layer(fs, i, NULL, NULL);
        CHECK(src != NULL);
        CHECK_STR(strrchr(src, '/') + 1, want[i]);
    }
    pak_info info;
    /* B.pk3 holds a member of that name too; the loose file wins */
    CHECK(pak_find(fs, "b.pk3", &info));
    CHECK_EQ(info.kind, PAK_KIND_FOLDER);
    pak_fs_close(fs);
}

TEST(pak_game_dir_over_base_dir)
{
    member_t id[] = {M("gfx.wad", "id1"), M("base_only.txt", "id1")};
    member_t qw[] = {M("gfx.wad", "qw")};
    buf_t a = make_pak(id, 2);
    buf_t b = make_pak(qw, 1);
    twrite_buf("base/ID1/pak0.pak", &a);
    twrite_buf("base/qw/pak0.pak", &b);
    twrite("base/notadir", "x", 1);
    char base[512];
    tpath(base, sizeof base, "base");
    pak_fs *fs = pak_fs_open();
    qd_error e;
    const char *games[] = {"id1", "missing", "QW", "notadir"};
    CHECK_EQ(pak_fs_add_basedir(fs, base, games, 4, &e), QD_OK);
    char t[64];
    CHECK_EQ(read_text(fs, "gfx.wad", t, sizeof t), QD_OK);
    CHECK_STR(t, "qw");
    CHECK_EQ(read_text(fs, "base_only.txt", t, sizeof t), QD_OK);
    CHECK_STR(t, "id1");
    CHECK_EQ(pak_fs_num_layers(fs), 4); /* id1 pak0, id1 folder, qw pak0, qw folder */
    pak_fs_close(fs);

    /* a bad game name is skipped, the others still added */
    fs = pak_fs_open();
    const char *bad[] = {"id1", "../base", "qw"};
    CHECK_EQ(pak_fs_add_basedir(fs, base, bad, 3, &e), QD_ERR_USAGE);
    CHECK(strstr(e.msg, "../base") != NULL);
    CHECK_EQ(read_text(fs, "gfx.wad", t, sizeof t), QD_OK);
    CHECK_STR(t, "qw");
    pak_fs_close(fs);

    /* the other order: id1 on top */
    fs = pak_fs_open();
    const char *rev[] = M("qw", "id1");
    CHECK_EQ(pak_fs_add_basedir(fs, base, rev, 2, &e), QD_OK);
    CHECK_EQ(read_text(fs, "gfx.wad", t, sizeof t), QD_OK);
    CHECK_STR(t, "id1");
    pak_fs_close(fs);

    fs = pak_fs_open();
    char nobase[512];
    tpath(nobase, sizeof nobase, "no-such-base");
    CHECK_EQ(pak_fs_add_basedir(fs, nobase, games, 1, &e), QD_ERR_IO);
    CHECK_EQ(pak_fs_add_game_dir(fs, nobase, &e), QD_ERR_IO);
    CHECK_EQ(pak_fs_num_layers(fs), 0);
    pak_fs_close(fs);
}

TEST(pak_folder_symlink_loops_and_case_picks)
{
    twrite("links/game/maps/a.bsp", "a", 1);
    char p[512], q[512];
    symlink("..", tpath(p, sizeof p, "links/game/maps/up"));    /* loops to its parent */
    symlink(".", tpath(p, sizeof p, "links/game/maps/self"));   /* loops to itself */
    symlink("a.bsp", tpath(p, sizeof p, "links/game/maps/b.bsp")); /* a linked file counts */
    pak_fs *fs = pak_fs_open();
    qd_error e;
    CHECK_EQ(pak_fs_add_file(fs, tpath(p, sizeof p, "links/game"), &e), QD_OK);
    CHECK_EQ(pak_list(fs, "", NULL, NULL), 2);
    CHECK(pak_find(fs, "maps/b.bsp", NULL));
    pak_fs_close(fs);

    /* 17 folders d0..d16, each of 15 files, each (but the last) with two links a and b to
     * the next: a folder reached again by another link is not read again, so the tree holds
     * its 255 files once each, under the first path: d0's, a's, a/a's ... (a review: every
     * path was entered, 65,536 folders, 13 s and 144 MB) */
    for (int i = 0; i <= 16; i++)
        for (int k = 0; k < 15; k++) {
            char rel[64];
            snprintf(rel, sizeof rel, "dag/d%d/m%d.mdl", i, k);
            twrite(rel, "m", 1);
        }
    for (int i = 0; i < 16; i++) {
        char rel[64], to[32];
        snprintf(to, sizeof to, "../d%d", i + 1);
        snprintf(rel, sizeof rel, "dag/d%d/a", i);
        symlink(to, tpath(p, sizeof p, rel));
        snprintf(rel, sizeof rel, "dag/d%d/b", i);
        symlink(to, tpath(p, sizeof p, rel));
    }
    fs = pak_fs_open();
    CHECK_EQ(pak_fs_add_file(fs, tpath(p, sizeof p, "dag/d0"), &e), QD_OK);
    CHECK_EQ(pak_list(fs, "", NULL, NULL), 255);
    CHECK(pak_find(fs, "a/a/a/m3.mdl", NULL) && !pak_find(fs, "b/m3.mdl", NULL));
    pak_fs_close(fs);

    /* two folders differing only in case: the exact spelling is chosen */
    member_t lo[] = {M("which.txt", "upper")};
    member_t hi[] = {M("which.txt", "exact")};
    buf_t a = make_pak(lo, 1);
    buf_t b = make_pak(hi, 1);
    twrite_buf("cases/BASEQ3/pak0.pak", &a);
    twrite_buf("cases/baseq3/pak0.pak", &b);
    tpath(q, sizeof q, "cases");
    fs = pak_fs_open();
    const char *games[] = {"baseq3"};
    CHECK_EQ(pak_fs_add_basedir(fs, q, games, 1, &e), QD_OK);
    char t[32];
    CHECK_EQ(read_text(fs, "which.txt", t, sizeof t), QD_OK);
    CHECK_STR(t, "exact");
    pak_fs_close(fs);
    fs = pak_fs_open();
    const char *other[] = {"BaseQ3"}; /* no exact match: the first in byte order */
    CHECK_EQ(pak_fs_add_basedir(fs, q, other, 1, &e), QD_OK);
    CHECK_EQ(read_text(fs, "which.txt", t, sizeof t), QD_OK);
    CHECK_STR(t, "upper");
    pak_fs_close(fs);
}

TEST(pak_add_file_kinds)
{
    member_t m[] = {M("s.txt", "stored"), ZM("d.txt", "deflated deflated deflated", 8)};
    buf_t z = make_zip(m, 2, 0, 0, NULL);
    twrite_buf("kinds/odd_name.dat", &z); /* told apart by content, not extension */
    twrite("kinds/folder/inner.pk3", "not opened as an archive", 24);
    twrite("kinds/folder/loose.txt", "loose", 5);
    twrite("kinds/garbage.pak", "this is not an archive at all", 29);
    char p[512];
    pak_fs *fs = pak_fs_open();
    qd_error e;
    CHECK_EQ(pak_fs_add_file(fs, tpath(p, sizeof p, "kinds/odd_name.dat"), &e), QD_OK);
    CHECK_EQ(pak_fs_add_file(fs, tpath(p, sizeof p, "kinds/folder"), &e), QD_OK);
    CHECK_EQ(pak_fs_add_file(fs, tpath(p, sizeof p, "kinds/garbage.pak"), &e), QD_ERR_BAD_DATA);
    CHECK(strstr(e.msg, "garbage.pak") != NULL);
    CHECK_EQ(pak_fs_add_file(fs, tpath(p, sizeof p, "kinds/missing.pk3"), &e), QD_ERR_IO);
    CHECK_EQ(pak_fs_num_layers(fs), 2);
    char t[64];
    CHECK_EQ(read_text(fs, "d.txt", t, sizeof t), QD_OK);
    CHECK_STR(t, "deflated deflated deflated");
    CHECK_EQ(read_text(fs, "loose.txt", t, sizeof t), QD_OK);
    CHECK_STR(t, "loose");
    pak_info info;
    CHECK(pak_find(fs, "inner.pk3", &info));
    CHECK_EQ(info.kind, PAK_KIND_FOLDER);
    CHECK(pak_find(fs, "s.txt", &info));
    CHECK_EQ(info.kind, PAK_KIND_ZIP);
    CHECK_EQ(info.layer, 0);
    pak_fs_close(fs);
}

TEST(pak_game_dir_keeps_going_past_a_bad_archive)
{
    member_t good[] = {M("good.txt", "good")};
    buf_t b = make_pak(good, 1);
    twrite_buf("partial/game/pak0.pak", &b);
    buf_t bad = make_pak(good, 1);
    set32(&bad, 4, 5000); /* directory past the end */
    twrite_buf("partial/game/pak1.pak", &bad);
    twrite("partial/game/loose.txt", "loose", 5);
    char dir[512];
    tpath(dir, sizeof dir, "partial/game");
    pak_fs *fs = pak_fs_open();
    qd_error e;
    CHECK_EQ(pak_fs_add_game_dir(fs, dir, &e), QD_ERR_TRUNCATED);
    CHECK(strstr(e.msg, "pak1.pak") != NULL);
    CHECK_EQ(e.offset, 4); /* the header field holding the offset: 5000 is past the file */
    CHECK(pak_find(fs, "good.txt", NULL));
    CHECK(pak_find(fs, "loose.txt", NULL));
    CHECK_EQ(pak_fs_num_layers(fs), 2);
    pak_fs_close(fs);
}

/* ---- zip members ------------------------------------------------------------------------ */

static char big_text[20000];

static const char *make_big_text(void)
{
    if (!big_text[0]) {
        size_t o = 0;
        for (int i = 0; o + 40 < sizeof big_text; i++)
            o += (size_t)snprintf(big_text + o, sizeof big_text - o, "line %d of the test\n",
                                  i * 7919 % 1000);
    }
    return big_text;
}

TEST(pak_zip_stored_and_deflate)
{
    const char *big = make_big_text();
    member_t m[] = {M("Stored.TXT", "stored bytes"),
                    ZM("dir/deflated.txt", big, 8),
                    M("dir/", ""), /* a folder entry: skipped */
                    ZM("empty.txt", "", 8)};
    zip_layout lay;
    buf_t z = make_zip(m, 4, 0, 0, &lay);
    CHECK(lay.csize[1] < strlen(big) / 4); /* really compressed */
    pak_fs *fs = pak_fs_open();
    qd_error e;
    CHECK_EQ(pak_fs_add_mem(fs, "z.pk3", z.p, z.len, &e), QD_OK);
    CHECK_EQ(pak_list(fs, "", NULL, NULL), 3);
    uint8_t *d;
    size_t n;
    CHECK_EQ(pak_read(fs, "stored.txt", &d, &n, &e), QD_OK);
    CHECK_EQ(n, 12);
    CHECK(memcmp(d, "stored bytes", 12) == 0);
    free(d);
    CHECK_EQ(pak_read(fs, "DIR/DEFLATED.TXT", &d, &n, &e), QD_OK);
    CHECK_EQ(n, strlen(big));
    CHECK(memcmp(d, big, n) == 0);
    CHECK_EQ(d[n], 0);
    free(d);
    CHECK_EQ(pak_read(fs, "empty.txt", &d, &n, &e), QD_OK);
    CHECK_EQ(n, 0);
    free(d);
    pak_info info;
    CHECK(pak_find(fs, "dir/deflated.txt", &info));
    CHECK_EQ(info.size, strlen(big));
    CHECK_EQ(info.offset, lay.lfh[1]);
    CHECK(!pak_find(fs, "dir", NULL));
    pak_fs_close(fs);
    free(z.p);
}

TEST(pak_zip_appended_and_zip64)
{
    /* Bytes before the zip shift every offset (a BSP with a zip behind it). */
    member_t m[] = {ZM("maps/x.lit", "lit data lit data", 8), M("locs/x.loc", "loc")};
    buf_t z = make_zip(m, 2, 1000, 0, NULL);
    pak_fs *fs = pak_fs_open();
    qd_error e;
    CHECK_EQ(pak_fs_add_mem(fs, "x.bsp", z.p, z.len, &e), QD_OK);
    char t[64];
    CHECK_EQ(read_text(fs, "maps/x.lit", t, sizeof t), QD_OK);
    CHECK_STR(t, "lit data lit data");
    CHECK_EQ(read_text(fs, "locs/x.loc", t, sizeof t), QD_OK);
    CHECK_STR(t, "loc");
    free(z.p);

    /* zip64 end records and zip64 sizes in the extra field (APPNOTE 4.3.14, 4.5.3) */
    member_t m64[] = {{"a64.txt", "zip64 sizes", 8, 0, 1}, M("b64.txt", "plain")};
    buf_t z64 = make_zip(m64, 2, 0, 1, NULL);
    CHECK_EQ(pak_fs_add_mem(fs, "z64.zip", z64.p, z64.len, &e), QD_OK);
    CHECK_EQ(read_text(fs, "a64.txt", t, sizeof t), QD_OK);
    CHECK_STR(t, "zip64 sizes");
    CHECK_EQ(read_text(fs, "b64.txt", t, sizeof t), QD_OK);
    CHECK_STR(t, "plain");
    /* and with junk in front, where the recorded zip64 offset is wrong by the junk */
    buf_t z64p = make_zip(m64, 2, 77, 1, NULL);
    CHECK_EQ(pak_fs_add_mem(fs, "z64p.zip", z64p.p, z64p.len, &e), QD_OK);
    CHECK_EQ(read_text(fs, "a64.txt", t, sizeof t), QD_OK);
    CHECK_STR(t, "zip64 sizes");
    pak_fs_close(fs);
    free(z64.p);
    free(z64p.p);

    /* a zip64 entry without its extra field: its 20 bytes become the entry comment */
    zip_layout lay;
    buf_t bad = make_zip(m64, 1, 0, 0, &lay);
    set16(&bad, lay.cdh[0] + 30, 0);
    set16(&bad, lay.cdh[0] + 32, 20);
    CHECK_EQ(add_mem_err(&bad, &e), QD_ERR_BAD_DATA);
    CHECK(strstr(e.msg, "zip64") != NULL);
    free(bad.p);
}

/* Reads name from zip bytes b; returns the error code (message in e). */
static qd_err zip_read_err(const buf_t *b, const char *name, qd_error *e)
{
    pak_fs *fs = pak_fs_open();
    memset(e, 0, sizeof *e);
    qd_err r = pak_fs_add_mem(fs, "h.pk3", b->p, b->len, e);
    if (!r) {
        uint8_t *d = (uint8_t *)1;
        size_t n = 1;
        r = pak_read(fs, name, &d, &n, e);
        if (r && (d != NULL || n != 0))
            r = QD_ERR_COUNT; /* a failed read must leave nothing behind */
        free(r ? NULL : d);
    }
    pak_fs_close(fs);
    return r;
}

TEST(pak_zip_hostile_members)
{
    const char *big = make_big_text();
    member_t m[] = {ZM("d.txt", big, 8), M("s.txt", "stored text")};
    zip_layout lay;
    buf_t z = make_zip(m, 2, 0, 0, &lay);
    qd_error e;
    CHECK_EQ(zip_read_err(&z, "d.txt", &e), QD_OK);

    /* bad deflate data: block type 3 is reserved (RFC 1951 3.2.3) */
    buf_t t = {0};
    put(&t, z.p, z.len);
    t.p[lay.data[0]] = 0xFF;
    CHECK_EQ(zip_read_err(&t, "d.txt", &e), QD_ERR_BAD_DATA);
    CHECK(strstr(e.msg, "deflate") != NULL);
    CHECK(strstr(e.msg, "h.pk3") != NULL);
    CHECK_EQ(e.offset >= lay.data[0] && e.offset <= lay.data[0] + lay.csize[0], 1);

    /* declared size one byte short / one byte long */
    memcpy(t.p, z.p, z.len);
    set32(&t, lay.cdh[0] + 24, (uint32_t)strlen(big) - 1);
    CHECK_EQ(zip_read_err(&t, "d.txt", &e), QD_ERR_BAD_DATA);
    CHECK(strstr(e.msg, "inflates to") != NULL);
    set32(&t, lay.cdh[0] + 24, (uint32_t)strlen(big) - 2);
    CHECK_EQ(zip_read_err(&t, "d.txt", &e), QD_ERR_BAD_DATA);
    CHECK(strstr(e.msg, "more than") != NULL);
    set32(&t, lay.cdh[0] + 24, (uint32_t)strlen(big) + 1);
    CHECK_EQ(zip_read_err(&t, "d.txt", &e), QD_ERR_BAD_DATA);
    CHECK(strstr(e.msg, "inflates to") != NULL);

    /* a declared size no deflate stream of that length could reach */
    set32(&t, lay.cdh[0] + 24, 0x7FFFFFFF);
    CHECK_EQ(zip_read_err(&t, "d.txt", &e), QD_ERR_LIMIT); /* over the 256 MiB default */
    set32(&t, lay.cdh[0] + 24, 200u << 20);
    CHECK_EQ(zip_read_err(&t, "d.txt", &e), QD_ERR_BAD_DATA);

    /* stored member whose sizes disagree */
    memcpy(t.p, z.p, z.len);
    set32(&t, lay.cdh[1] + 24, 5);
    CHECK_EQ(zip_read_err(&t, "s.txt", &e), QD_ERR_BAD_DATA);

    /* CRC mismatch */
    memcpy(t.p, z.p, z.len);
    set32(&t, lay.cdh[1] + 16, 0x12345678);
    CHECK_EQ(zip_read_err(&t, "s.txt", &e), QD_ERR_BAD_DATA);
    CHECK(strstr(e.msg, "CRC") != NULL);

    /* encrypted, and a method we do not decode */
    memcpy(t.p, z.p, z.len);
    set16(&t, lay.cdh[1] + 8, 1);
    CHECK_EQ(zip_read_err(&t, "s.txt", &e), QD_ERR_UNSUPPORTED);
    CHECK(strstr(e.msg, "encrypted") != NULL);
    memcpy(t.p, z.p, z.len);
    set16(&t, lay.cdh[1] + 10, 12);
    CHECK_EQ(zip_read_err(&t, "s.txt", &e), QD_ERR_UNSUPPORTED);
    CHECK(strstr(e.msg, "bzip2") != NULL);

    /* local header signature damaged */
    memcpy(t.p, z.p, z.len);
    t.p[lay.lfh[1]] = 'X';
    CHECK_EQ(zip_read_err(&t, "s.txt", &e), QD_ERR_BAD_DATA);
    CHECK_EQ(e.offset, lay.lfh[1]);

    /* deflate stream cut short: the central directory says fewer compressed bytes */
    memcpy(t.p, z.p, z.len);
    set32(&t, lay.cdh[0] + 20, (uint32_t)lay.csize[0] / 2);
    qd_err r = zip_read_err(&t, "d.txt", &e);
    CHECK(r == QD_ERR_TRUNCATED || r == QD_ERR_BAD_DATA);
    free(t.p);
    free(z.p);
}

TEST(pak_zip_hostile_directories)
{
    member_t m[] = {M("a.txt", "aaaa"), ZM("b.txt", "bbbb", 8)};
    zip_layout lay;
    buf_t z = make_zip(m, 2, 0, 0, &lay);
    buf_t t = {0};
    put(&t, z.p, z.len);
    qd_error e;

    /* more entries than the directory holds */
    set16(&t, lay.eocd + 8, 3);
    set16(&t, lay.eocd + 10, 3);
    CHECK_EQ(add_mem_err(&t, &e), QD_ERR_TRUNCATED);
    /* central directory claimed past the end record */
    memcpy(t.p, z.p, z.len);
    set32(&t, lay.eocd + 16, 0x7FFFFFF0);
    CHECK_EQ(add_mem_err(&t, &e), QD_ERR_BAD_DATA);
    CHECK(strstr(e.msg, "central directory") != NULL);
    CHECK_EQ(e.offset, lay.eocd);
    /* directory smaller than its entries */
    memcpy(t.p, z.p, z.len);
    set32(&t, lay.eocd + 12, 60);
    CHECK(add_mem_err(&t, &e) != QD_OK);
    /* a damaged central header signature */
    memcpy(t.p, z.p, z.len);
    t.p[lay.cdh[1]] = 'Q';
    CHECK_EQ(add_mem_err(&t, &e), QD_ERR_BAD_DATA);
    CHECK_EQ(e.offset, lay.cdh[1]);
    /* a local header offset past the end */
    memcpy(t.p, z.p, z.len);
    set32(&t, lay.cdh[1] + 42, 0x7FFFFFF0);
    CHECK_EQ(add_mem_err(&t, &e), QD_ERR_TRUNCATED);
    CHECK(strstr(e.msg, "b.txt") != NULL);
    /* a name length running past the directory */
    memcpy(t.p, z.p, z.len);
    set16(&t, lay.cdh[1] + 28, 0xFFFF);
    CHECK_EQ(add_mem_err(&t, &e), QD_ERR_TRUNCATED);
    /* multi-disk */
    memcpy(t.p, z.p, z.len);
    set16(&t, lay.eocd + 4, 1);
    CHECK_EQ(add_mem_err(&t, &e), QD_ERR_UNSUPPORTED);
    /* cut anywhere: never a crash, never success with a broken directory */
    for (size_t cut = 0; cut < z.len; cut++) {
        buf_t c = {z.p, cut, cut};
        pak_fs *fs = pak_fs_open();
        if (pak_fs_add_mem(fs, "cut.zip", c.p, c.len, &e) == QD_OK) {
            uint8_t *d;
            size_t n;
            if (pak_read(fs, "b.txt", &d, &n, &e) == QD_OK)
                free(d);
        }
        pak_fs_close(fs);
    }
    /* a comment after the end record, and junk after that */
    buf_t c = {0};
    put(&c, z.p, z.len);
    set16(&c, lay.eocd + 20, 5);
    put(&c, "hello", 5);
    CHECK_EQ(add_mem_err(&c, &e), QD_OK);
    put(&c, "junk", 4);
    CHECK_EQ(add_mem_err(&c, &e), QD_OK);
    free(c.p);
    /* no end record at all */
    buf_t g = {0};
    for (int i = 0; i < 3000; i++)
        put(&g, "PK", 2);
    CHECK_EQ(add_mem_err(&g, &e), QD_ERR_BAD_DATA);
    CHECK(strstr(e.msg, "not an archive") != NULL);
    free(g.p);
    free(t.p);
    free(z.p);
}

TEST(pak_pak_hostile_directories)
{
    member_t m[] = {M("a.txt", "aaaa"), M("b.txt", "bbbbbbbb")};
    buf_t z = make_pak(m, 2);
    size_t dirofs = z.len - 128;
    buf_t t = {0};
    put(&t, z.p, z.len);
    qd_error e;
    CHECK_EQ(add_mem_err(&t, &e), QD_OK);

    /* directory offset past the end */
    set32(&t, 4, 100000);
    CHECK_EQ(add_mem_err(&t, &e), QD_ERR_TRUNCATED);
    CHECK_EQ(e.offset, 4); /* the header field: an error names a byte inside the file */
    CHECK(strstr(e.msg, "t.bin: directory at offset 100000") != NULL);
    /* huge count */
    memcpy(t.p, z.p, z.len);
    set32(&t, 8, 0x7FFFFFC0);
    CHECK_EQ(add_mem_err(&t, &e), QD_ERR_LIMIT);
    /* a count within the cap that runs past the end */
    set32(&t, 8, 1000 * 64);
    CHECK_EQ(add_mem_err(&t, &e), QD_ERR_TRUNCATED);
    /* negative offset and length; a length that is not whole entries */
    memcpy(t.p, z.p, z.len);
    set32(&t, 4, 0x80000000u);
    CHECK_EQ(add_mem_err(&t, &e), QD_ERR_BAD_DATA);
    memcpy(t.p, z.p, z.len);
    set32(&t, 8, 0xFFFFFFC0u);
    CHECK_EQ(add_mem_err(&t, &e), QD_ERR_BAD_DATA);
    memcpy(t.p, z.p, z.len);
    set32(&t, 8, 100);
    CHECK_EQ(add_mem_err(&t, &e), QD_ERR_BAD_DATA);
    /* an entry past the end, and one that overflows 32 bits */
    memcpy(t.p, z.p, z.len);
    set32(&t, dirofs + 64 + 60, 1u << 30);
    CHECK_EQ(add_mem_err(&t, &e), QD_ERR_TRUNCATED);
    CHECK(strstr(e.msg, "entry 1 \"b.txt\"") != NULL);
    CHECK_EQ(e.offset, dirofs + 64 + 56);
    memcpy(t.p, z.p, z.len);
    set32(&t, dirofs + 56, 0x7FFFFFFF);
    set32(&t, dirofs + 60, 0x7FFFFFFF);
    CHECK_EQ(add_mem_err(&t, &e), QD_ERR_TRUNCATED);
    memcpy(t.p, z.p, z.len);
    set32(&t, dirofs + 56, 0xFFFFFFF0u);
    CHECK_EQ(add_mem_err(&t, &e), QD_ERR_TRUNCATED);
    /* a name filling all 56 bytes with no NUL */
    memcpy(t.p, z.p, z.len);
    memset(t.p + dirofs, 'n', 56);
    CHECK_EQ(add_mem_err(&t, &e), QD_OK);
    /* too short for a header; an empty directory */
    buf_t s = {0};
    put(&s, "PACK\0\0\0", 7);
    CHECK_EQ(add_mem_err(&s, &e), QD_ERR_TRUNCATED);
    free(s.p);
    buf_t empty = make_pak(m, 0);
    CHECK_EQ(add_mem_err(&empty, &e), QD_OK);
    free(empty.p);
    /* every cut of a valid PAK */
    for (size_t cut = 0; cut < z.len; cut++) {
        buf_t c = {z.p, cut, cut};
        qd_err r = add_mem_err(&c, &e);
        CHECK(r != QD_OK);
    }
    free(t.p);
    free(z.p);
}

/* ---- real data -------------------------------------------------------------------------- */

TEST(pak_real_libq2_test_pak)
{
    char path[512];
    if (!test_realfile(path, sizeof path, "pak/libq2_testdata_test.pak"))
        SKIP("realdata pak/libq2_testdata_test.pak missing");
    pak_fs *fs = pak_fs_open();
    qd_error e;
    CHECK_EQ(pak_fs_add_file(fs, path, &e), QD_OK);
    list_ctx c = {.n = 0};
    CHECK_EQ(pak_list(fs, "", collect, &c), 2);
    CHECK_STR(c.names[0], "test.cfg");
    CHECK_EQ(c.sizes[0], 15);
    CHECK_STR(c.names[1], "test2.cfg");
    CHECK_EQ(c.sizes[1], 13);
    char t[64];
    CHECK_EQ(read_text(fs, "TEST.cfg", t, sizeof t), QD_OK);
    CHECK_STR(t, "say \"hi there\"\n");
    CHECK_EQ(read_text(fs, "test2.cfg", t, sizeof t), QD_OK);
    CHECK_STR(t, "say blahblah\n");
    pak_info info;
    CHECK(pak_find(fs, "test2.cfg", &info));
    CHECK_EQ(info.kind, PAK_KIND_PAK);
    CHECK_EQ(info.offset, 27);
    pak_fs_close(fs);
}

TEST(pak_real_fteqw_distort_pk3)
{
    char path[512];
    if (!test_realfile(path, sizeof path, "pk3/fteqw_specs_distort.pk3"))
        SKIP("realdata pk3/fteqw_specs_distort.pk3 missing");
    pak_fs *fs = pak_fs_open();
    qd_error e;
    CHECK_EQ(pak_fs_add_file(fs, path, &e), QD_OK);
    list_ctx c = {.n = 0};
    CHECK_EQ(pak_list(fs, NULL, collect, &c), 2);
    CHECK_STR(c.names[0], "distort.cfg");
    CHECK_EQ(c.sizes[0], 558);
    CHECK_STR(c.names[1], "shaders/distort.shader");
    CHECK_EQ(c.sizes[1], 1003);
    uint8_t *d;
    size_t n;
    CHECK_EQ(pak_read(fs, "shaders/distort.shader", &d, &n, &e), QD_OK);
    CHECK_EQ(n, 1003);
    CHECK(memcmp(d, "\r\nparticledistortbeam\r\n{", 24) == 0);
    CHECK_EQ(crc32(0, d, (uInt)n), 0x2089d663);
    free(d);
    CHECK_EQ(pak_read(fs, "distort.cfg", &d, &n, &e), QD_OK);
    CHECK_EQ(n, 558);
    CHECK(memcmp(d, "r_part t_grenade\r\n{", 19) == 0);
    free(d);
    pak_info info;
    CHECK(pak_find(fs, "Shaders/Distort.shader", &info));
    CHECK_EQ(info.kind, PAK_KIND_ZIP);
    pak_fs_close(fs);
}
