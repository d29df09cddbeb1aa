/* pak_archive.c: one search-path layer: the PAK and zip directory parsers, the folder indexer
 * and whole-file reading (stored and deflated zip members through zlib). */
#define _FILE_OFFSET_BITS 64
#include "pak_local.h"

#include "../src/common/file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "../src/common/rd.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

typedef unsigned long long ull;

/* Quake PAK layout (id's Quake common.c dpackheader_t/dpackfile_t, Quake II qfiles.h): a
 * 12-byte header "PACK", int32 dirofs, int32 dirlen; the directory is dirlen/64 entries of
 * char name[56], int32 filepos, int32 filelen. All little-endian. */
#define PAK_HEADER_LEN 12
#define PAK_DIRENT_LEN 64
#define PAK_NAME_LEN 56

/* Zip records, PKWARE APPNOTE.TXT 6.3.x: local file header (4.3.7), central directory
 * header (4.3.12), zip64 end of central directory record (4.3.14) and locator (4.3.15),
 * end of central directory record (4.3.16). */
#define ZIP_LFH_SIG 0x04034b50u
#define ZIP_LFH_LEN 30
#define ZIP_CDH_SIG 0x02014b50u
#define ZIP_CDH_LEN 46
#define ZIP64_EOCD_SIG 0x06064b50u
#define ZIP64_EOCD_LEN 56
#define ZIP64_LOC_SIG 0x07064b50u
#define ZIP64_LOC_LEN 20
#define ZIP_EOCD_SIG 0x06054b50u
#define ZIP_EOCD_LEN 22
#define ZIP_MAX_COMMENT 65535
#define ZIP64_EXTRA_ID 0x0001       /* APPNOTE 4.5.3 */
#define ZIP_FLAG_ENCRYPTED 0x0001   /* APPNOTE 4.4.4 bit 0 */
#define ZIP_FLAG_STRONG_ENC 0x0040  /* APPNOTE 4.4.4 bit 6 */
#define ZIP_METHOD_STORED 0         /* APPNOTE 4.4.5 */
#define ZIP_METHOD_DEFLATE 8

/* Deflate cannot expand by more than 1032:1 (zlib technical details, "Maximum Compression
 * Factor"), so a member declaring more than this is damaged and is refused before any
 * buffer is allocated for it. */
#define DEFLATE_MAX_RATIO 1032

/* pak_archive_read never returns more than this, whatever cap the caller asks for (the
 * inflate output window is a uInt). */
#define PAK_READ_HARD_MAX (1ull << 30)

#define READ_CHUNK 16384

/* Where an archive's bytes come from while parsing or reading: memory or an open fd. */
typedef struct src {
    const uint8_t *mem;
    int fd;
    uint64_t size;
    const char *label;
} src_t;

/* ---- names ---------------------------------------------------------------------------- */

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* A name that normalises to itself lower-cased: no '\', no empty, "." or ".." part (no '/'
 * or '.' at its start or after a '/'), no '/' at its end, and short enough for out. Its
 * length then, else -1 (out may hold part of it). Most archive names are such; each byte
 * is looked at once, without the parts' branches (an OpenArena pk3 search path's 5,020
 * names: 675 instructions a name through the parts). */
static int name_plain(const char *in, size_t in_len, char *out, size_t cap)
{
    if (in_len == 0 || in_len > PAK_MAX_NAME || in_len >= cap)
        return -1;
    unsigned bad = 0, slash = 1; /* (the start counts as after a '/') */
    size_t i = 0;
#if defined(__SSE2__)
    /* sixteen bytes at a time (names average 75 bytes): the same tests lane by lane, each
     * byte's "after a '/'" from the byte before it, the block before's last for the first */
    __m128i badv = _mm_setzero_si128(), prev = _mm_set1_epi8(-1); /* (its byte 15: the start) */
    const __m128i bs = _mm_set1_epi8('\\'), sl = _mm_set1_epi8('/'), dot = _mm_set1_epi8('.'),
                  to_a = _mm_set1_epi8((char)(128 - 'A')), z = _mm_set1_epi8((char)(-128 + 26)),
                  case_bit = _mm_set1_epi8(0x20);
    for (; i + 16 <= in_len; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(in + i));
        __m128i s = _mm_cmpeq_epi8(v, sl);
        __m128i after = _mm_or_si128(_mm_slli_si128(s, 1), _mm_srli_si128(prev, 15));
        badv = _mm_or_si128(badv, _mm_cmpeq_epi8(v, bs));
        badv = _mm_or_si128(badv, _mm_and_si128(after, _mm_or_si128(s, _mm_cmpeq_epi8(v, dot))));
        /* 'A'..'Z' moved to -128..-103 (signed): below -102 takes the case bit */
        __m128i up = _mm_cmplt_epi8(_mm_add_epi8(v, to_a), z);
        _mm_storeu_si128((__m128i *)(out + i), _mm_add_epi8(v, _mm_and_si128(up, case_bit)));
        prev = s;
    }
    bad = (unsigned)_mm_movemask_epi8(badv);
    slash = (unsigned)_mm_movemask_epi8(prev) >> 15 & 1;
#endif
    for (; i < in_len; i++) {
        unsigned c = (unsigned char)in[i], is_slash = c == '/';
        bad |= (c == '\\') | (slash & (is_slash | (c == '.')));
        slash = is_slash;
        out[i] = (char)(c + ((c - 'A' < 26u) << 5)); /* lower(): 'A'..'Z' + 32 */
    }
    if (bad | slash)
        return -1;
    out[in_len] = 0;
    return (int)in_len;
}

int pak_name_normalize(const char *in, size_t in_len, char *out, size_t cap)
{
    int plain = name_plain(in, in_len, out, cap);
    if (plain >= 0)
        return plain;
    size_t n = 0, i = 0;
    int too_long = 0; /* keep scanning: a later ".." still makes it PAK_NAME_DOTDOT */
    for (;;) {
        while (i < in_len && (in[i] == '/' || in[i] == '\\'))
            i++;
        size_t start = i;
        while (i < in_len && in[i] != '/' && in[i] != '\\')
            i++;
        size_t clen = i - start;
        if (clen == 0)
            break;
        if (clen == 1 && in[start] == '.')
            continue;
        if (clen == 2 && in[start] == '.' && in[start + 1] == '.')
            return PAK_NAME_DOTDOT;
        if (n) {
            if (n >= PAK_MAX_NAME || n + 1 >= cap)
                too_long = 1;
            else
                out[n++] = '/';
        }
        for (size_t k = 0; k < clen && !too_long; k++) {
            if (n >= PAK_MAX_NAME || n + 1 >= cap)
                too_long = 1;
            else
                out[n++] = lower(in[start + k]);
        }
    }
    if (too_long)
        return PAK_NAME_TOO_LONG;
    if (cap)
        out[n] = 0;
    return (int)n;
}

/* A printable copy of archive name bytes for a message. */
static const char *printable(char *dst, size_t cap, const uint8_t *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n && s[i] && o + 1 < cap; i++)
        dst[o++] = s[i] >= 0x20 && s[i] < 0x7f ? (char)s[i] : '?';
    dst[o] = 0;
    return dst;
}

/* An entry left out for its name (why: pak_name_normalize's PAK_NAME_*): counted, the
 * first few kept for a message (pak_fs_unusable), a long name by its end ("..." and its
 * last bytes: a review saw a cut name lose its extension). */
static void left_out(pak_archive *a, const uint8_t *name, size_t n, int why)
{
    uint32_t k = a->unusable++;
    if (k >= PAK_UNUSABLE_KEPT)
        return;
    if (!a->unusable_kept &&
        !(a->unusable_kept = calloc(PAK_UNUSABLE_KEPT, sizeof *a->unusable_kept)))
        return; /* (only a message's detail is lost) */
    struct pak_unusable *u = &a->unusable_kept[k];
    const size_t room = sizeof u->name - 1;
    if (n > room) {
        memcpy(u->name, "...", 3);
        printable(u->name + 3, sizeof u->name - 3, name + n - (room - 3), room - 3);
    } else {
        printable(u->name, sizeof u->name, name, n);
    }
    u->why = why;
}

/* ---- archive memory --------------------------------------------------------------------- */

static pak_archive *archive_new(pak_kind kind, const char *path)
{
    pak_archive *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    size_t n = strlen(path);
    a->path = malloc(n + 1);
    if (!a->path) {
        free(a);
        return NULL;
    }
    memcpy(a->path, path, n + 1);
    a->kind = kind;
    if (n < sizeof a->label)
        memcpy(a->label, path, n + 1);
    else
        snprintf(a->label, sizeof a->label, "...%s", path + n - (sizeof a->label - 4));
    return a;
}

void pak_archive_close(pak_archive *a)
{
    if (!a)
        return;
    free(a->entries);
    free(a->pool);
    free(a->path);
    free(a->unusable_kept);
    free(a);
}

/* Appends n bytes of s and a NUL to the name pool; 0 when out of memory or over 4 GiB. */
static int pool_add(pak_archive *a, const char *s, size_t n, uint32_t *ofs)
{
    if (n + 1 > UINT32_MAX - a->pool_len)
        return 0;
    if (a->pool_len + n + 1 > a->pool_cap) {
        size_t cap = a->pool_cap ? a->pool_cap : 4096;
        while (cap < a->pool_len + n + 1)
            cap *= 2;
        char *p = realloc(a->pool, cap);
        if (!p)
            return 0;
        a->pool = p;
        a->pool_cap = cap;
    }
    memcpy(a->pool + a->pool_len, s, n);
    a->pool[a->pool_len + n] = 0;
    *ofs = (uint32_t)a->pool_len;
    a->pool_len += n + 1;
    return 1;
}

static int cmp_entry(const void *x, const void *y)
{
    const pak_entry *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* cmp_entry's a < b (the one order, inlined into the merges) */
static inline int entry_before(const pak_entry *a, const pak_entry *b)
{
    return cmp_entry(a, b) < 0;
}

/* Sorts e[0..n) as qsort with cmp_entry would (a total order: the indices differ), by
 * merging the runs already in order. An archive's directory is mostly in order (zip -r
 * writes a folder's files together): OpenArena's nine pk3s hold 5,029 files in 144 runs.
 * The merges move 4-byte positions, and the entries are put in their places once at the
 * end, cycle by cycle (12 bytes an entry besides them, where a copy of the entries would
 * take 64). 0 when out of memory (e is then as it was). */
static int sort_runs(pak_entry *e, uint32_t n)
{
    if (n < 2)
        return 1;
    uint32_t *starts = malloc(((size_t)n + 1) * sizeof *starts),
             *pos = malloc((size_t)n * sizeof *pos), *tmp = malloc((size_t)n * sizeof *tmp);
    if (!starts || !pos || !tmp) {
        free(starts);
        free(pos);
        free(tmp);
        return 0;
    }
    uint32_t runs = 0;
    starts[runs++] = 0;
    pos[0] = 0;
    for (uint32_t i = 1; i < n; i++) {
        pos[i] = i;
        if (entry_before(&e[i], &e[i - 1]))
            starts[runs++] = i;
    }
    starts[runs] = n;
    uint32_t *src = pos, *dst = tmp;
    while (runs > 1) {
        uint32_t out = 0;
        for (uint32_t r = 0; r < runs; r += 2) {
            uint32_t lo = starts[r], mid = starts[r + 1],
                     hi = r + 2 <= runs ? starts[r + 2] : mid;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = entry_before(&e[src[j]], &e[src[i]]) ? src[j++] : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
            starts[out++] = lo;
        }
        starts[out] = n;
        runs = out;
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    /* place k takes the entry at src[k]: each cycle of places moved along once, a place
     * done marked by src[k] = k */
    for (uint32_t k = 0; k < n; k++) {
        if (src[k] == k)
            continue;
        pak_entry first = e[k];
        uint32_t at = k;
        while (src[at] != k) {
            uint32_t from = src[at];
            e[at] = e[from];
            src[at] = at;
            at = from;
        }
        e[at] = first;
        src[at] = at;
    }
    free(starts);
    free(pos);
    free(tmp);
    return 1;
}

/* Points names into the finished pool, sorts by name and keeps one entry per name: the
 * first in directory order, or the last when keep_last is set. */
static void finalize(pak_archive *a, int keep_last)
{
    for (uint32_t i = 0; i < a->count; i++) {
        pak_entry *e = &a->entries[i];
        e->name = a->pool + e->name_ofs;
        e->real = e->real_ofs == UINT32_MAX ? NULL : a->pool + e->real_ofs;
    }
    if (a->count > 1 && !sort_runs(a->entries, a->count))
        qsort(a->entries, a->count, sizeof a->entries[0], cmp_entry);
    uint32_t out = 0;
    for (uint32_t i = 0; i < a->count; i++) {
        if (out && strcmp(a->entries[out - 1].name, a->entries[i].name) == 0) {
            if (keep_last)
                a->entries[out - 1] = a->entries[i];
            continue;
        }
        a->entries[out++] = a->entries[i];
    }
    a->count = out;
}

uint32_t pak_archive_lower_bound(const pak_archive *a, const char *key)
{
    uint32_t lo = 0, hi = a->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (strcmp(a->entries[mid].name, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const pak_entry *pak_archive_find(const pak_archive *a, const char *name)
{
    uint32_t i = pak_archive_lower_bound(a, name);
    if (i < a->count && strcmp(a->entries[i].name, name) == 0)
        return &a->entries[i];
    return NULL;
}

/* ---- byte sources ----------------------------------------------------------------------- */

/* Reads exactly n bytes at ofs; the range is checked against the size first. */
static qd_err src_read(const src_t *s, uint64_t ofs, void *buf, size_t n, qd_error *err)
{
    if (ofs > s->size || n > s->size - ofs) /* the error names a byte inside the file */
        return qd_fail(err, QD_ERR_TRUNCATED, ofs < s->size ? ofs : s->size,
                       "%s: %zu bytes at offset %llu run past the end of the file (size %llu)",
                       s->label, n, (ull)ofs, (ull)s->size);
    if (s->mem) {
        memcpy(buf, s->mem + ofs, n);
        return QD_OK;
    }
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(s->fd, (uint8_t *)buf + done, n - done, (off_t)(ofs + done));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return qd_fail(err, QD_ERR_IO, ofs + done, "%s: read failed at offset %llu: %s",
                           s->label, (ull)(ofs + done), strerror(errno));
        }
        if (r == 0)
            return qd_fail(err, QD_ERR_TRUNCATED, ofs + done,
                           "%s: file ends at offset %llu, shorter than when it was added",
                           s->label, (ull)(ofs + done));
        done += (size_t)r;
    }
    return QD_OK;
}

/* Reads n bytes at ofs into a new buffer (at least 1 byte allocated). */
static qd_err src_alloc_read(const src_t *s, uint64_t ofs, size_t n, uint8_t **out,
                             qd_error *err)
{
    *out = NULL;
    uint8_t *b = malloc(n ? n : 1);
    if (!b)
        return qd_fail(err, QD_ERR_NOMEM, ofs, "%s: out of memory for %zu bytes", s->label, n);
    qd_err e = src_read(s, ofs, b, n, err);
    if (e) {
        free(b);
        return e;
    }
    *out = b;
    return QD_OK;
}

static uint64_t get_u64(rd_t *r)
{
    uint64_t lo = rd_u32(r);
    uint64_t hi = rd_u32(r);
    return lo | hi << 32;
}

/* ---- PAK -------------------------------------------------------------------------------- */

static qd_err parse_pak(pak_archive *a, const src_t *s, qd_error *err)
{
    uint8_t hdr[PAK_HEADER_LEN];
    if (s->size < PAK_HEADER_LEN)
        return qd_fail(err, QD_ERR_TRUNCATED, 0,
                       "%s: file is %llu bytes, shorter than the 12-byte PACK header",
                       s->label, (ull)s->size);
    qd_err e = src_read(s, 0, hdr, sizeof hdr, err);
    if (e)
        return e;
    rd_t r = rd_make(hdr, sizeof hdr);
    rd_skip(&r, 4); /* "PACK", checked by the caller */
    uint32_t dirofs = rd_u32(&r);
    uint32_t dirlen = rd_u32(&r);
    if (dirofs > INT32_MAX)
        return qd_fail(err, QD_ERR_BAD_DATA, 4, "%s: directory offset %d is negative", s->label,
                       (int)(int32_t)dirofs);
    if (dirlen > INT32_MAX)
        return qd_fail(err, QD_ERR_BAD_DATA, 8, "%s: directory length %d is negative", s->label,
                       (int)(int32_t)dirlen);
    if (dirlen % PAK_DIRENT_LEN)
        return qd_fail(err, QD_ERR_BAD_DATA, 8,
                       "%s: directory length %u is not a multiple of the 64-byte entry",
                       s->label, dirlen);
    uint32_t count = dirlen / PAK_DIRENT_LEN;
    if (count > PAK_MAX_ENTRIES)
        return qd_fail(err, QD_ERR_LIMIT, 8, "%s: directory has %u entries, over the cap of %u",
                       s->label, count, PAK_MAX_ENTRIES);
    if ((uint64_t)dirofs + dirlen > s->size)
        return qd_fail(err, QD_ERR_TRUNCATED, dirofs < s->size ? dirofs : 4,
                       "%s: directory at offset %u (%u bytes) runs past the end of the file "
                       "(size %llu)",
                       s->label, dirofs, dirlen, (ull)s->size);
    uint8_t *dir;
    e = src_alloc_read(s, dirofs, dirlen, &dir, err);
    if (e)
        return e;
    a->entries = calloc(count ? count : 1, sizeof a->entries[0]);
    if (!a->entries) {
        free(dir);
        return qd_fail(err, QD_ERR_NOMEM, dirofs, "%s: out of memory for %u entries", s->label,
                       count);
    }
    rd_t d = rd_make(dir, dirlen);
    for (uint32_t i = 0; i < count; i++) {
        uint64_t eofs = (uint64_t)dirofs + (uint64_t)i * PAK_DIRENT_LEN;
        const uint8_t *raw = rd_bytes(&d, PAK_NAME_LEN);
        uint32_t fpos = rd_u32(&d);
        uint32_t flen = rd_u32(&d);
        if (d.err || !raw)
            break; /* cannot happen: dirlen is count * 64 */
        const uint8_t *nul = memchr(raw, 0, PAK_NAME_LEN);
        size_t nlen = nul ? (size_t)(nul - raw) : PAK_NAME_LEN;
        char shown[PAK_NAME_LEN + 1];
        if (fpos > INT32_MAX || flen > INT32_MAX || (uint64_t)fpos + flen > s->size) {
            e = qd_fail(err, QD_ERR_TRUNCATED, eofs + PAK_NAME_LEN,
                       "%s: entry %u \"%s\" at offset %u (%u bytes) runs past the end of "
                       "the file (size %llu)",
                       s->label, i, printable(shown, sizeof shown, raw, nlen), fpos, flen,
                       (ull)s->size);
            break;
        }
        char norm[PAK_MAX_NAME + 1];
        int norm_len = pak_name_normalize((const char *)raw, nlen, norm, sizeof norm);
        if (norm_len < 0)
            left_out(a, raw, nlen, norm_len);
        if (norm_len <= 0)
            continue; /* empty, too long or ".." names can never be looked up */
        pak_entry *en = &a->entries[a->count];
        if (!pool_add(a, norm, strlen(norm), &en->name_ofs)) {
            e = qd_fail(err, QD_ERR_NOMEM, eofs, "%s: out of memory for names", s->label);
            break;
        }
        en->real_ofs = UINT32_MAX;
        en->ofs = fpos;
        en->csize = en->size = flen;
        en->index = i;
        a->count++;
    }
    free(dir);
    if (e)
        return e;
    /* Quake's COM_FindFile scans a pack's directory from the start: the first copy wins. */
    finalize(a, 0);
    return QD_OK;
}

/* ---- zip -------------------------------------------------------------------------------- */

/* Values from the end of central directory records. */
typedef struct zip_end {
    uint64_t eocd_at;  /* where the (zip64) end record that follows the directory starts */
    uint64_t entries;
    uint64_t cd_size;
    uint64_t cd_ofs;   /* as recorded: relative to the zip's start */
} zip_end;

/* Finds and reads the end of central directory record, scanning back from the end of the
 * file over at most a 65535-byte comment (APPNOTE 4.3.16), then the zip64 records when the
 * 16/32-bit fields are saturated (4.3.14, 4.3.15). */
static qd_err zip_find_end(const src_t *s, zip_end *z, int *no_record, qd_error *err)
{
    if (s->size < ZIP_EOCD_LEN) {
        *no_record = 1;
        return qd_fail(err, QD_ERR_BAD_DATA, 0,
                       "%s: file is %llu bytes, too short for a zip end of central directory "
                       "record",
                       s->label, (ull)s->size);
    }
    /* Most archives end with their end record (no comment): the record the search below
     * finds first, read alone (22 bytes, not 64 KiB an archive: 590 KB of reads over
     * OpenArena's nine pk3s). */
    uint8_t rec[ZIP_EOCD_LEN];
    qd_err e = src_read(s, s->size - ZIP_EOCD_LEN, rec, sizeof rec, err);
    if (e)
        return e;
    uint64_t eocd = s->size - ZIP_EOCD_LEN;
    rd_t r = rd_make(rec, sizeof rec);
    uint32_t sig = rd_u32(&r);
    rd_seek(&r, 20); /* the comment's length */
    if (sig != ZIP_EOCD_SIG || rd_u16(&r) != 0) {
        size_t tail_len = s->size < ZIP_EOCD_LEN + ZIP_MAX_COMMENT
                              ? (size_t)s->size
                              : ZIP_EOCD_LEN + ZIP_MAX_COMMENT;
        uint64_t tail_ofs = s->size - tail_len;
        uint8_t *tail;
        e = src_alloc_read(s, tail_ofs, tail_len, &tail, err);
        if (e)
            return e;
        r = rd_make(tail, tail_len);
        /* Prefer a record whose comment ends exactly at the end of the file; else the last
         * one whose comment fits (some tools leave bytes after the archive). */
        size_t found = SIZE_MAX, fits = SIZE_MAX;
        for (size_t p = tail_len - ZIP_EOCD_LEN + 1; p-- > 0;) {
            rd_seek(&r, p);
            if (rd_u32(&r) != ZIP_EOCD_SIG)
                continue;
            rd_seek(&r, p + 20);
            size_t clen = rd_u16(&r);
            if (p + ZIP_EOCD_LEN + clen == tail_len) {
                found = p;
                break;
            }
            if (p + ZIP_EOCD_LEN + clen < tail_len && fits == SIZE_MAX)
                fits = p;
        }
        if (found == SIZE_MAX)
            found = fits;
        if (found == SIZE_MAX) {
            free(tail);
            *no_record = 1;
            return qd_fail(err, QD_ERR_BAD_DATA, tail_ofs,
                           "%s: no zip end of central directory record in the last %zu bytes",
                           s->label, tail_len);
        }
        memcpy(rec, tail + found, sizeof rec);
        free(tail);
        eocd = tail_ofs + found;
    }
    r = rd_make(rec, sizeof rec);
    rd_seek(&r, 4);
    uint16_t disk = rd_u16(&r);
    uint16_t cd_disk = rd_u16(&r);
    uint16_t n_disk = rd_u16(&r);
    uint16_t n_total = rd_u16(&r);
    uint32_t cd_size = rd_u32(&r);
    uint32_t cd_ofs = rd_u32(&r);
    z->eocd_at = eocd;
    z->entries = n_total;
    z->cd_size = cd_size;
    z->cd_ofs = cd_ofs;
    int disks_differ = disk != 0 || cd_disk != 0 || n_disk != n_total;

    int saturated = n_total == 0xFFFF || n_disk == 0xFFFF || cd_size == 0xFFFFFFFFu ||
                    cd_ofs == 0xFFFFFFFFu || disk == 0xFFFF || cd_disk == 0xFFFF;
    if (saturated && eocd >= ZIP64_LOC_LEN) {
        uint8_t loc[ZIP64_LOC_LEN];
        e = src_read(s, eocd - ZIP64_LOC_LEN, loc, sizeof loc, err);
        if (e)
            return e;
        rd_t l = rd_make(loc, sizeof loc);
        if (rd_u32(&l) == ZIP64_LOC_SIG) {
            uint32_t z64_disk = rd_u32(&l);
            uint64_t z64_ofs = get_u64(&l);
            uint32_t ndisks = rd_u32(&l);
            uint64_t limit = eocd - ZIP64_LOC_LEN;
            /* The recorded offset is relative to the zip's start; when bytes come before
             * the zip, the record is found just before the locator instead. */
            uint64_t at = UINT64_MAX;
            uint8_t rec[ZIP64_EOCD_LEN];
            rd_t q;
            if (limit >= ZIP64_EOCD_LEN && z64_ofs <= limit - ZIP64_EOCD_LEN) {
                if ((e = src_read(s, z64_ofs, rec, sizeof rec, err)))
                    return e;
                q = rd_make(rec, sizeof rec);
                if (rd_u32(&q) == ZIP64_EOCD_SIG)
                    at = z64_ofs;
            }
            if (at == UINT64_MAX && limit >= ZIP64_EOCD_LEN) {
                if ((e = src_read(s, limit - ZIP64_EOCD_LEN, rec, sizeof rec, err)))
                    return e;
                q = rd_make(rec, sizeof rec);
                if (rd_u32(&q) == ZIP64_EOCD_SIG)
                    at = limit - ZIP64_EOCD_LEN;
            }
            if (at == UINT64_MAX)
                return qd_fail(err, QD_ERR_BAD_DATA, eocd - ZIP64_LOC_LEN,
                               "%s: zip64 locator at offset %llu points at %llu, where there "
                               "is no zip64 end of central directory record",
                               s->label, (ull)(eocd - ZIP64_LOC_LEN), (ull)z64_ofs);
            q = rd_make(rec, sizeof rec);
            rd_skip(&q, 4 + 8 + 2 + 2); /* signature, record size, versions */
            uint32_t d64 = rd_u32(&q);
            uint32_t cd64 = rd_u32(&q);
            uint64_t nd64 = get_u64(&q);
            z->entries = get_u64(&q);
            z->cd_size = get_u64(&q);
            z->cd_ofs = get_u64(&q);
            z->eocd_at = at;
            disks_differ = z64_disk != 0 || ndisks > 1 || d64 != 0 || cd64 != 0 ||
                           nd64 != z->entries;
        }
    }
    if (disks_differ)
        return qd_fail(err, QD_ERR_UNSUPPORTED, eocd,
                       "%s: zip archive spans several disks (end record at offset %llu)",
                       s->label, (ull)eocd);
    return QD_OK;
}

/* Finds the zip64 extended information extra field (APPNOTE 4.5.3) and reads the values
 * whose 32-bit fields are saturated, in the order the note gives. 0 when absent/short. */
static int zip64_extra(const uint8_t *x, size_t xlen, uint64_t *usize, uint64_t *csize,
                       uint64_t *lofs)
{
    rd_t r = rd_make(x, xlen);
    while (rd_left(&r) >= 4) {
        uint16_t id = rd_u16(&r);
        uint16_t len = rd_u16(&r);
        const uint8_t *b = rd_bytes(&r, len);
        if (!b)
            return 0;
        if (id != ZIP64_EXTRA_ID)
            continue;
        rd_t f = rd_make(b, len);
        if (*usize == 0xFFFFFFFFu)
            *usize = get_u64(&f);
        if (*csize == 0xFFFFFFFFu)
            *csize = get_u64(&f);
        if (*lofs == 0xFFFFFFFFu)
            *lofs = get_u64(&f);
        return !f.err;
    }
    return 0;
}

static qd_err parse_zip(pak_archive *a, const src_t *s, int *no_record, qd_error *err)
{
    zip_end z = {0, 0, 0, 0};
    qd_err e = zip_find_end(s, &z, no_record, err);
    if (e)
        return e;
    if (z.entries > PAK_MAX_ENTRIES)
        return qd_fail(err, QD_ERR_LIMIT, z.eocd_at,
                       "%s: zip directory has %llu entries, over the cap of %u", s->label,
                       (ull)z.entries, PAK_MAX_ENTRIES);
    if (z.cd_size > PAK_MAX_ZIP_CD)
        return qd_fail(err, QD_ERR_LIMIT, z.eocd_at,
                       "%s: zip central directory is %llu bytes, over the cap of %u", s->label,
                       (ull)z.cd_size, PAK_MAX_ZIP_CD);
    if (z.cd_ofs > z.eocd_at || z.cd_size > z.eocd_at - z.cd_ofs)
        return qd_fail(err, QD_ERR_BAD_DATA, z.eocd_at,
                       "%s: central directory at offset %llu (%llu bytes) runs into its end "
                       "record at offset %llu",
                       s->label, (ull)z.cd_ofs, (ull)z.cd_size, (ull)z.eocd_at);
    /* Bytes before the zip (a BSP with a zip appended, a self-extractor) shift every
     * recorded offset by the same amount; minizip's unzOpen calls it
     * byte_before_the_zipfile and works it out the same way. */
    uint64_t bias = z.eocd_at - (z.cd_ofs + z.cd_size);
    uint64_t cd_at = z.cd_ofs + bias;
    if (z.cd_size < z.entries * ZIP_CDH_LEN)
        return qd_fail(err, QD_ERR_TRUNCATED, cd_at,
                       "%s: central directory at offset %llu is %llu bytes, too small for its "
                       "%llu entries",
                       s->label, (ull)cd_at, (ull)z.cd_size, (ull)z.entries);
    uint8_t *cd;
    if ((e = src_alloc_read(s, cd_at, (size_t)z.cd_size, &cd, err)))
        return e;
    /* (every field of an entry counted is set below, so not zeroed first: 0.3 M
     * instructions over OpenArena's nine pk3s; the names' pool sized at once from the
     * directory: normalising never lengthens a name, and each takes a NUL) */
    a->entries = malloc((z.entries ? (size_t)z.entries : 1) * sizeof a->entries[0]);
    if (a->entries && !a->pool && z.cd_size > ZIP_CDH_LEN * z.entries) {
        a->pool_cap = (size_t)(z.cd_size - ZIP_CDH_LEN * z.entries + z.entries) + 1;
        a->pool = malloc(a->pool_cap);
        if (!a->pool)
            a->pool_cap = 0;
    }
    if (!a->entries) {
        free(cd);
        return qd_fail(err, QD_ERR_NOMEM, cd_at, "%s: out of memory for %llu entries", s->label,
                       (ull)z.entries);
    }
    rd_t r = rd_make(cd, (size_t)z.cd_size);
    for (uint32_t i = 0; i < z.entries; i++) {
        uint64_t rec = cd_at + r.pos;
        uint32_t sig = rd_u32(&r);
        if (!r.err && sig != ZIP_CDH_SIG) {
            e = qd_fail(err, QD_ERR_BAD_DATA, rec,
                       "%s: entry %u: no central directory header at offset %llu",
                       s->label, i, (ull)rec);
            break;
        }
        rd_skip(&r, 4); /* version made by, version needed */
        uint16_t flags = rd_u16(&r);
        uint16_t method = rd_u16(&r);
        rd_skip(&r, 4); /* time, date */
        uint32_t crc = rd_u32(&r);
        uint64_t csize = rd_u32(&r);
        uint64_t usize = rd_u32(&r);
        uint16_t nlen = rd_u16(&r);
        uint16_t xlen = rd_u16(&r);
        uint16_t clen = rd_u16(&r);
        rd_skip(&r, 2 + 2 + 4); /* disk start, internal and external attributes */
        uint64_t lofs = rd_u32(&r);
        const uint8_t *name = rd_bytes(&r, nlen);
        const uint8_t *extra = rd_bytes(&r, xlen);
        rd_skip(&r, clen);
        if (r.err) {
            e = qd_fail(err, QD_ERR_TRUNCATED, rec,
                       "%s: entry %u at offset %llu runs past the end of the central "
                       "directory (%llu bytes at %llu)",
                       s->label, i, (ull)rec, (ull)z.cd_size, (ull)cd_at);
            break;
        }
        char shown[64];
        if ((csize == 0xFFFFFFFFu || usize == 0xFFFFFFFFu || lofs == 0xFFFFFFFFu) &&
            !zip64_extra(extra, xlen, &usize, &csize, &lofs)) {
            e = qd_fail(err, QD_ERR_BAD_DATA, rec,
                       "%s: entry %u \"%s\" has zip64 sizes but no zip64 extra field",
                       s->label, i, printable(shown, sizeof shown, name, nlen));
            break;
        }
        /* Folder entries end in a separator; names with a NUL or a ".." never match. */
        if (nlen == 0 || name[nlen - 1] == '/' || name[nlen - 1] == '\\' ||
            memchr(name, 0, nlen))
            continue;
        char norm[PAK_MAX_NAME + 1];
        int norm_len = pak_name_normalize((const char *)name, nlen, norm, sizeof norm);
        if (norm_len < 0)
            left_out(a, name, nlen, norm_len);
        if (norm_len <= 0)
            continue;
        uint64_t at = lofs + bias;
        if (lofs > s->size || bias > s->size - lofs || ZIP_LFH_LEN > s->size - at ||
            csize > s->size - at - ZIP_LFH_LEN) {
            e = qd_fail(err, QD_ERR_TRUNCATED, rec,
                       "%s: entry %u \"%s\" at offset %llu (%llu bytes) runs past the end "
                       "of the file (size %llu)",
                       s->label, i, printable(shown, sizeof shown, name, nlen),
                       (ull)(lofs + bias), (ull)csize, (ull)s->size);
            break;
        }
        pak_entry *en = &a->entries[a->count];
        if (!pool_add(a, norm, (size_t)norm_len, &en->name_ofs)) {
            e = qd_fail(err, QD_ERR_NOMEM, rec, "%s: out of memory for names", s->label);
            break;
        }
        en->real_ofs = UINT32_MAX;
        en->ofs = at;
        en->csize = csize;
        en->size = usize;
        en->crc = crc;
        en->method = method;
        en->flags = flags;
        en->index = i;
        a->count++;
    }
    free(cd);
    if (e)
        return e;
    /* Quake III's FS_LoadZipFile pushes each entry on the front of its hash chain, so the
     * last copy of a name in the central directory is the one found. */
    finalize(a, 1);
    return QD_OK;
}

/* ---- opening ---------------------------------------------------------------------------- */

static qd_err parse_any(pak_archive *a, const src_t *s, qd_error *err)
{
    uint8_t magic[4] = {0};
    if (s->size >= 4) {
        qd_err e = src_read(s, 0, magic, 4, err);
        if (e)
            return e;
    }
    if (memcmp(magic, "PACK", 4) == 0) {
        a->kind = PAK_KIND_PAK;
        return parse_pak(a, s, err);
    }
    a->kind = PAK_KIND_ZIP;
    int no_record = 0;
    qd_err e = parse_zip(a, s, &no_record, err);
    if (no_record)
        return qd_fail(err, QD_ERR_BAD_DATA, 0,
                       "%s: not an archive: no \"PACK\" header and no zip end of central "
                       "directory record",
                       s->label);
    return e;
}

qd_err pak_archive_open_mem(const uint8_t *data, size_t len, const char *label,
                            pak_archive **out, qd_error *err)
{
    *out = NULL;
    pak_archive *a = archive_new(PAK_KIND_ZIP, label ? label : "(memory)");
    if (!a)
        return qd_fail(err, QD_ERR_NOMEM, 0, "out of memory");
    a->mem = data ? data : (const uint8_t *)"";
    a->size = data ? len : 0;
    src_t s = {a->mem, -1, a->size, a->label};
    qd_err e = parse_any(a, &s, err);
    if (e) {
        pak_archive_close(a);
        return e;
    }
    *out = a;
    return QD_OK;
}

qd_err pak_archive_open_file(const char *path, pak_archive **out, qd_error *err)
{
    *out = NULL;
    pak_archive *a = archive_new(PAK_KIND_ZIP, path);
    if (!a)
        return qd_fail(err, QD_ERR_NOMEM, 0, "out of memory");
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        qd_err e = qd_fail(err, QD_ERR_IO, 0, "%s: cannot open: %s", a->label, strerror(errno));
        if (fd >= 0)
            close(fd);
        pak_archive_close(a);
        return e;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        qd_err e = qd_fail(err, QD_ERR_IO, 0, "%s: not a regular file", a->label);
        pak_archive_close(a);
        return e;
    }
    a->size = (uint64_t)st.st_size;
    src_t s = {NULL, fd, a->size, a->label};
    qd_err e = parse_any(a, &s, err);
    close(fd);
    if (e) {
        pak_archive_close(a);
        return e;
    }
    *out = a;
    return QD_OK;
}

/* ---- folders ---------------------------------------------------------------------------- */

typedef struct scan {
    pak_archive *a;
    char path[4096];
    size_t root_len;
    uint32_t cap;   /* entries allocated */
    uint32_t dirs;  /* folders visited */
    qd_error *err;
    /* every folder entered, by device and inode (open addressing, SCAN_SEEN slots): a
     * folder reached again by another link is not read again (a review: two links a level
     * to the next, 17 levels deep, entered the last one 65,536 times: 13 s and 144 MB for a
     * tree of 255 files) */
    struct scan_seen {
        dev_t dev;
        ino_t ino;
        int used;
    } *seen;
} scan_t;

#define SCAN_SEEN (2u * PAK_MAX_DIRS) /* a power of two, over the folders visited */

/* Record folder (dev, ino) as entered; 0 when it was before. */
static int scan_first_visit(scan_t *sc, dev_t dev, ino_t ino)
{
    uint64_t h = ((uint64_t)dev * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)ino * 0xc2b2ae3d27d4eb4full);
    uint32_t i = (uint32_t)(h >> 40) & (SCAN_SEEN - 1);
    while (sc->seen[i].used) {
        if (sc->seen[i].dev == dev && sc->seen[i].ino == ino)
            return 0;
        i = (i + 1) & (SCAN_SEEN - 1);
    }
    sc->seen[i].dev = dev;
    sc->seen[i].ino = ino;
    sc->seen[i].used = 1;
    return 1;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static qd_err add_folder_file(scan_t *sc, uint64_t size)
{
    pak_archive *a = sc->a;
    const char *rel = sc->path + sc->root_len + 1;
    char norm[PAK_MAX_NAME + 1];
    if (pak_name_normalize(rel, strlen(rel), norm, sizeof norm) <= 0)
        return QD_OK;
    if (a->count >= PAK_MAX_ENTRIES)
        return qd_fail(sc->err, QD_ERR_LIMIT, 0, "%s: more than %u files", a->label,
                       PAK_MAX_ENTRIES);
    if (a->count == sc->cap) {
        uint32_t cap = sc->cap ? sc->cap * 2 : 256;
        pak_entry *n = realloc(a->entries, cap * sizeof *n);
        if (!n)
            return qd_fail(sc->err, QD_ERR_NOMEM, 0, "%s: out of memory", a->label);
        a->entries = n;
        sc->cap = cap;
    }
    pak_entry *e = &a->entries[a->count];
    memset(e, 0, sizeof *e);
    if (!pool_add(a, norm, strlen(norm), &e->name_ofs) ||
        !pool_add(a, rel, strlen(rel), &e->real_ofs))
        return qd_fail(sc->err, QD_ERR_NOMEM, 0, "%s: out of memory", a->label);
    e->size = e->csize = size;
    e->index = a->count;
    a->count++;
    return QD_OK;
}

/* Indexes sc->path (depth levels below the root), names sorted so the result is the same
 * whatever order the file system lists them in. Dot-files are skipped; a subfolder that is
 * one of its own ancestors (a symlink loop) is not entered. */
static qd_err scan_folder(scan_t *sc, int depth)
{
    DIR *d = opendir(sc->path);
    if (!d) {
        if (depth == 0)
            return qd_fail(sc->err, QD_ERR_IO, 0, "%s: cannot list folder: %s", sc->a->label,
                           strerror(errno));
        return QD_OK;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    qd_err e = QD_OK;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            char **nn = nc <= PAK_MAX_ENTRIES ? realloc(names, nc * sizeof *nn) : NULL;
            if (!nn) {
                e = qd_fail(sc->err, nc > PAK_MAX_ENTRIES ? QD_ERR_LIMIT : QD_ERR_NOMEM, 0,
                            "%s: too many files in one folder", sc->a->label);
                break;
            }
            names = nn;
            cap = nc;
        }
        if (!(names[n] = strdup(de->d_name))) {
            e = qd_fail(sc->err, QD_ERR_NOMEM, 0, "%s: out of memory", sc->a->label);
            break;
        }
        n++;
    }
    closedir(d);
    if (!e && n > 1)
        qsort(names, n, sizeof *names, cmp_str);
    size_t base = strlen(sc->path);
    for (size_t i = 0; i < n && !e; i++) {
        size_t nl = strlen(names[i]);
        if (base + 1 + nl >= sizeof sc->path)
            continue;
        sc->path[base] = '/';
        memcpy(sc->path + base + 1, names[i], nl + 1);
        struct stat st;
        if (stat(sc->path, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                if (depth + 1 < PAK_MAX_DEPTH && sc->dirs < PAK_MAX_DIRS &&
                    scan_first_visit(sc, st.st_dev, st.st_ino)) { /* (an ancestor too) */
                    sc->dirs++;
                    e = scan_folder(sc, depth + 1);
                }
            } else if (S_ISREG(st.st_mode)) {
                e = add_folder_file(sc, (uint64_t)st.st_size);
            }
        }
        sc->path[base] = 0;
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return e;
}

qd_err pak_archive_open_folder(const char *path, pak_archive **out, qd_error *err)
{
    *out = NULL;
    scan_t *sc = calloc(1, sizeof *sc);
    pak_archive *a = archive_new(PAK_KIND_FOLDER, path);
    if (!sc || !a) {
        free(sc);
        pak_archive_close(a);
        return qd_fail(err, QD_ERR_NOMEM, 0, "out of memory");
    }
    sc->a = a;
    sc->err = err;
    if (!(sc->seen = calloc(SCAN_SEEN, sizeof *sc->seen))) {
        free(sc);
        pak_archive_close(a);
        return qd_fail(err, QD_ERR_NOMEM, 0, "out of memory");
    }
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    struct stat st;
    qd_err e;
    if (n + 2 >= sizeof sc->path)
        e = qd_fail(err, QD_ERR_USAGE, 0, "%s: path too long", a->label);
    else if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        e = qd_fail(err, QD_ERR_IO, 0, "%s: not a folder", a->label);
    else {
        memcpy(sc->path, path, n);
        sc->path[n] = 0;
        sc->root_len = n;
        scan_first_visit(sc, st.st_dev, st.st_ino);
        e = scan_folder(sc, 0);
    }
    free(sc->seen);
    free(sc);
    if (e) {
        pak_archive_close(a);
        return e;
    }
    finalize(a, 0); /* two names differing only in case: the first in byte order wins */
    *out = a;
    return QD_OK;
}

/* ---- reading ---------------------------------------------------------------------------- */

static const char *method_name(unsigned m)
{
    switch (m) { /* APPNOTE 4.4.5 */
    case 1: return "shrink";
    case 2: case 3: case 4: case 5: return "reduce";
    case 6: return "implode";
    case 9: return "deflate64";
    case 12: return "bzip2";
    case 14: return "LZMA";
    case 93: return "zstd";
    case 95: return "xz";
    case 98: return "PPMd";
    case 99: return "AE-x encryption";
    default: return "unknown";
    }
}

static qd_err inflate_member(const pak_archive *a, const src_t *s, const pak_entry *e,
                             uint64_t data_at, uint8_t *buf, qd_error *err)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) /* raw deflate: no zlib header in a zip */
        return qd_fail(err, QD_ERR_NOMEM, data_at, "%s: cannot start inflate", a->label);
    uint8_t in[READ_CHUNK];
    uint64_t left = e->csize, pos = data_at;
    z.next_out = buf;
    z.avail_out = (uInt)(e->size + 1); /* one spare byte shows a longer stream */
    qd_err res = QD_OK;
    for (;;) {
        if (z.avail_in == 0 && left > 0) {
            size_t n = left < sizeof in ? (size_t)left : sizeof in;
            if ((res = src_read(s, pos, in, n, err)))
                break;
            pos += n;
            left -= n;
            z.next_in = in;
            z.avail_in = (uInt)n;
        }
        int ret = inflate(&z, Z_NO_FLUSH);
        uint64_t at = pos - z.avail_in;
        if (ret == Z_STREAM_END)
            break;
        if (ret == Z_OK)
            continue;
        if (ret == Z_MEM_ERROR) {
            res = qd_fail(err, QD_ERR_NOMEM, at, "%s: out of memory inflating \"%s\"", a->label,
                          e->name);
        } else if (ret == Z_BUF_ERROR && z.avail_out == 0) {
            res = qd_fail(err, QD_ERR_BAD_DATA, at,
                          "%s: \"%s\" inflates to more than the %llu bytes its directory entry "
                          "says",
                          a->label, e->name, (ull)e->size);
        } else if (ret == Z_BUF_ERROR) {
            res = qd_fail(err, QD_ERR_TRUNCATED, at,
                          "%s: \"%s\": deflate data ends at offset %llu before its end of "
                          "stream",
                          a->label, e->name, (ull)at);
        } else {
            res = qd_fail(err, QD_ERR_BAD_DATA, at,
                          "%s: \"%s\": bad deflate data near offset %llu (%s)", a->label,
                          e->name, (ull)at, z.msg ? z.msg : "inflate error");
        }
        break;
    }
    if (!res && z.total_out != e->size)
        res = qd_fail(err, QD_ERR_BAD_DATA, data_at,
                      "%s: \"%s\" inflates to %lu bytes, its directory entry says %llu",
                      a->label, e->name, (unsigned long)z.total_out, (ull)e->size);
    inflateEnd(&z);
    return res;
}

static qd_err read_archive_member(const pak_archive *a, const src_t *s, const pak_entry *e,
                                  uint8_t *buf, qd_error *err)
{
    uint64_t data_at = e->ofs;
    if (a->kind == PAK_KIND_ZIP) {
        uint8_t lfh[ZIP_LFH_LEN];
        qd_err r = src_read(s, e->ofs, lfh, sizeof lfh, err);
        if (r)
            return r;
        rd_t h = rd_make(lfh, sizeof lfh);
        uint32_t sig = rd_u32(&h);
        rd_skip(&h, 22); /* versions, flags, method, time, date, crc, sizes: the central
                            directory's copies are the ones to trust (APPNOTE 4.4.4 bit 3) */
        uint16_t nlen = rd_u16(&h);
        uint16_t xlen = rd_u16(&h);
        if (sig != ZIP_LFH_SIG)
            return qd_fail(err, QD_ERR_BAD_DATA, e->ofs,
                           "%s: \"%s\": no local file header at offset %llu", a->label,
                           e->name, (ull)e->ofs);
        data_at = e->ofs + ZIP_LFH_LEN + nlen + xlen;
        if (data_at > s->size || e->csize > s->size - data_at) /* named at its header */
            return qd_fail(err, QD_ERR_TRUNCATED, data_at < s->size ? data_at : e->ofs,
                           "%s: \"%s\": data at offset %llu (%llu bytes) runs past the end of "
                           "the file (size %llu)",
                           a->label, e->name, (ull)data_at, (ull)e->csize, (ull)s->size);
    }
    qd_err r;
    if (a->kind == PAK_KIND_PAK || e->method == ZIP_METHOD_STORED) {
        if (e->csize != e->size)
            return qd_fail(err, QD_ERR_BAD_DATA, data_at,
                           "%s: \"%s\" is stored as %llu bytes but its directory entry says "
                           "%llu",
                           a->label, e->name, (ull)e->csize, (ull)e->size);
        r = src_read(s, data_at, buf, (size_t)e->size, err);
    } else {
        r = inflate_member(a, s, e, data_at, buf, err);
    }
    if (r || a->kind != PAK_KIND_ZIP)
        return r;
    uLong crc = crc32(0L, Z_NULL, 0);
    for (uint64_t done = 0; done < e->size;) {
        uInt n = e->size - done > (1u << 30) ? (1u << 30) : (uInt)(e->size - done);
        crc = crc32(crc, buf + done, n);
        done += n;
    }
    if ((uint32_t)crc != e->crc)
        return qd_fail(err, QD_ERR_BAD_DATA, e->ofs,
                       "%s: \"%s\" has CRC-32 %08x, its directory entry says %08x", a->label,
                       e->name, (unsigned)crc, (unsigned)e->crc);
    return QD_OK;
}

static qd_err read_folder_file(const pak_archive *a, const pak_entry *e, uint64_t max,
                               uint8_t **data, size_t *len, qd_error *err)
{
    size_t pl = strlen(a->path), rl = strlen(e->real);
    char *path = malloc(pl + rl + 2);
    if (!path)
        return qd_fail(err, QD_ERR_NOMEM, 0, "out of memory");
    memcpy(path, a->path, pl);
    path[pl] = '/';
    memcpy(path + pl + 1, e->real, rl + 1);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    free(path);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        qd_err r = qd_fail(err, QD_ERR_IO, 0, "%s: cannot open %s: %s", a->label, e->real,
                           fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        return r;
    }
    uint64_t size = (uint64_t)st.st_size;
    if (size > max) {
        close(fd);
        return qd_fail(err, QD_ERR_LIMIT, 0, "%s: %s is %llu bytes, over the %llu-byte limit",
                       a->label, e->real, (ull)size, (ull)max);
    }
    int ok = qd_read_fd(fd, (size_t)size, data, len);
    int en = errno;
    close(fd);
    if (ok)
        return QD_OK;
    if (en == ENOMEM)
        return qd_fail(err, QD_ERR_NOMEM, 0, "%s: out of memory for %s", a->label, e->real);
    size_t at = *len;
    *len = 0;
    return qd_fail(err, QD_ERR_IO, at, "%s: reading %s: %s", a->label, e->real, strerror(en));
}

qd_err pak_archive_read(const pak_archive *a, const pak_entry *e, uint64_t max_size,
                        uint8_t **data, size_t *len, qd_error *err)
{
    *data = NULL;
    *len = 0;
    if (max_size == 0 || max_size > PAK_READ_HARD_MAX)
        max_size = PAK_READ_HARD_MAX;
    if (a->kind == PAK_KIND_FOLDER)
        return read_folder_file(a, e, max_size, data, len, err);
    if (e->size > max_size)
        return qd_fail(err, QD_ERR_LIMIT, e->ofs,
                       "%s: \"%s\" is %llu bytes, over the %llu-byte limit", a->label, e->name,
                       (ull)e->size, (ull)max_size);
    if (a->kind == PAK_KIND_ZIP) {
        if (e->flags & (ZIP_FLAG_ENCRYPTED | ZIP_FLAG_STRONG_ENC))
            return qd_fail(err, QD_ERR_UNSUPPORTED, e->ofs, "%s: \"%s\" is encrypted", a->label,
                           e->name);
        if (e->method != ZIP_METHOD_STORED && e->method != ZIP_METHOD_DEFLATE)
            return qd_fail(err, QD_ERR_UNSUPPORTED, e->ofs,
                           "%s: \"%s\" uses compression method %u (%s); only stored (0) and "
                           "deflate (8) are supported",
                           a->label, e->name, e->method, method_name(e->method));
        if (e->method == ZIP_METHOD_DEFLATE && e->size / DEFLATE_MAX_RATIO > e->csize + 1)
            return qd_fail(err, QD_ERR_BAD_DATA, e->ofs,
                           "%s: \"%s\" declares %llu bytes, more than %llu deflated bytes can "
                           "hold",
                           a->label, e->name, (ull)e->size, (ull)e->csize);
    }
    src_t s = {a->mem, -1, a->size, a->label};
    if (!a->mem) {
        s.fd = open(a->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        struct stat st;
        if (s.fd < 0 || fstat(s.fd, &st) != 0) {
            qd_err r = qd_fail(err, QD_ERR_IO, 0, "%s: cannot open: %s", a->label,
                               strerror(errno));
            if (s.fd >= 0)
                close(s.fd);
            return r;
        }
        if ((uint64_t)st.st_size != a->size) {
            close(s.fd);
            return qd_fail(err, QD_ERR_IO, 0,
                           "%s: changed since it was added (%llu bytes then, %llu now)",
                           a->label, (ull)a->size, (ull)st.st_size);
        }
    }
    uint8_t *buf = malloc((size_t)e->size + 1);
    if (!buf) {
        if (s.fd >= 0)
            close(s.fd);
        return qd_fail(err, QD_ERR_NOMEM, e->ofs, "%s: out of memory for \"%s\"", a->label,
                       e->name);
    }
    qd_err r = read_archive_member(a, &s, e, buf, err);
    if (s.fd >= 0)
        close(s.fd);
    if (r) {
        free(buf);
        return r;
    }
    buf[e->size] = 0;
    *data = buf;
    *len = (size_t)e->size;
    return QD_OK;
}
