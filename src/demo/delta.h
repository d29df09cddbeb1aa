/* delta.h: the one delta engine of the demo decoders (internal to src/demo): entity and
 * player-state deltas read by field tables, and the frame ring / entity pool / sorted merge
 * the deltas are stored in, as plain data inside each decoder's state.
 *
 * Field tables. An entity delta is a presence mask, then the fields the mask announces in a
 * fixed order. The mask is assembled by a "ladder" of continuation bits (Quake U_MOREBITS and
 * FitzQuake U_EXTEND1/2, QuakeWorld U_MOREBITS and FTE U_EVENMORE/U_YETMORE, Quake II
 * U_MOREBITS1..3); each row of a table names its bit, how the wire holds the value and where
 * it goes in the decoder's own struct. Quake III's netField_t tables (a changed-field count,
 * then a bit per field) use the same rows with DD_Q3INT / DD_Q3FLOAT.
 *
 * Frame ring and pool (the model of Quake III's snapshots): frames[seq & (ring - 1)]; a
 * frame's entities are refs[first .. first + count) (mod refs), each an absolute index into
 * the pool, sorted by entity number. An entity carried unchanged from the delta source keeps
 * its pool entry, so a frame costs what changed. The engine keeps no pointers and no globals:
 * a dd_store is a view built on the stack over a decoder's DD_STORE struct. */
#ifndef QD_DELTA_H
#define QD_DELTA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "../common/err.h"
#include "../common/rd.h"

struct q3_bits;

/* ---- field tables ---- */

/* How the wire holds a field. DD_U8 .. DD_S32: an integer of that width, stored into the
 * field's `size` bytes (1, 2 or 4; wider values are truncated, as the C conversion does).
 * DD_F32: 4 raw bytes, a float. DD_COORD16: an int16 in 1/8 units, stored as a float (size 4).
 * DD_HI8: a byte into bits 8..15 of a 16-bit field (FitzQuake U_MODEL2 / U_FRAME2).
 * DD_SKIP: `bits` bytes dropped (FitzQuake U_LERPFINISH). DD_PAIR (Quake II): `bit` alone a
 * u8, `alt` alone a u16, both a u32. DD_Q3INT: `bits` wire bits (negative: signed) into an
 * int32. DD_Q3FLOAT: 0 and a 13-bit integral value biased by 4096, or 1 and 32 raw bits,
 * stored as the float's bit pattern. DD_HOOK: the table's hook reads it (QW U_MODEL with
 * MODELDBL, FitzQuake U_ALPHA). DD_ANGLE8: an int8 in 1/256 turns, stored as a float in
 * degrees (size 4; Quake [DEM] 6.4 MSG_ReadAngle). DD_QCOORD, DD_QANGLE: a coordinate or an
 * angle in the encoding the reader's prfl (RMQ protocol flags) names, stored as a float:
 * see dd_read_qcoord / dd_read_qangle. */
typedef enum dd_kind {
    DD_U8, DD_S8, DD_U16, DD_S16, DD_U32, DD_S32, DD_F32, DD_COORD16, DD_HI8, DD_SKIP,
    DD_PAIR, DD_Q3INT, DD_Q3FLOAT, DD_HOOK, DD_ANGLE8, DD_QCOORD, DD_QANGLE,
    DD_S8X256 /* a byte angle kept as a 16-bit one (1/65536 turns): the byte times 256 */
} dd_kind;

/* RMQ protocol 999's flags (QuakeSpasm Quake/protocol.h, PROTOCOL_RMQ): how coordinates and
 * angles are sent. Without any, coordinates are int16 in 1/8 units and angles int8 in 1/256
 * turns, as in protocols 15 and 666. */
#define DD_PRFL_SHORTANGLE (1u << 1)  /* angles: int16 in 1/65536 turns */
#define DD_PRFL_FLOATANGLE (1u << 2)  /* angles: float degrees */
#define DD_PRFL_24BITCOORD (1u << 3)  /* coords: int16 whole units + u8 in 1/255 */
#define DD_PRFL_FLOATCOORD (1u << 4)  /* coords: float */
#define DD_PRFL_EDICTSCALE (1u << 5)  /* U_SCALE may be sent (its byte is read either way) */
#define DD_PRFL_ALPHASANITY (1u << 6) /* alpha as the server keeps it: no wire change */
#define DD_PRFL_INT32COORD (1u << 7)  /* coords: int32 in 1/16 units */
#define DD_PRFL_MOREFLAGS (1u << 31)  /* more flags follow: no engine defines them */

/* Reader options a row may need (dd_field.opt; dd_reader.opts). */
#define DD_OPT_FITZ 1u     /* FitzQuake protocol 666 / RMQ 999 */
#define DD_OPT_FTE 2u      /* FTE extensions announced by the demo */

/* One row. Rows that share a bit (one bit announcing several fields, Quake II
 * PS_WEAPONFRAME) must be adjacent. */
typedef struct dd_field {
    const char *name;  /* for dumps and tests: "U_MODEL", "origin[0]" */
    uint32_t bit;      /* presence bit in the assembled mask (0 in Quake III tables) */
    uint32_t alt;      /* DD_PAIR's second bit, else 0 */
    uint16_t offset;   /* offsetof(the decoder's struct, field) */
    uint8_t kind;      /* dd_kind */
    int8_t bits;       /* DD_Q3INT wire width; DD_SKIP byte count; else 0 */
    uint8_t size;      /* destination width: 1, 2 or 4 bytes */
    uint8_t count;     /* consecutive elements read (vectors); 0 means 1 */
    uint8_t opt;       /* DD_OPT_* the row needs, 0 none */
} dd_field;

/* The continuation bits that assemble a mask: first_bytes bytes (little-endian) are read
 * and ORed over the seed; then each step, in order, reads one more byte into bits
 * shift..shift+7 when the mask so far has if_bit set (and the reader has the step's opt). */
typedef struct dd_ladder {
    uint8_t first_bytes;
    uint8_t n;
    struct dd_step {
        uint32_t if_bit;
        uint8_t shift, opt;
    } step[4];
} dd_ladder;

typedef struct dd_reader {
    rd_t *r;              /* byte formats (Quake, QuakeWorld, Quake II) */
    struct q3_bits *b;    /* Quake III */
    uint32_t opts;        /* DD_OPT_* */
    uint32_t prfl;        /* DD_PRFL_*: DD_QCOORD / DD_QANGLE encodings (RMQ 999), else 0 */
} dd_reader;

/* A coordinate in the encoding prfl names (QuakeSpasm common.c MSG_ReadCoord: float first,
 * then int32, then 24-bit, else int16 / 8). */
static inline float dd_read_qcoord(rd_t *r, uint32_t prfl)
{
    if (prfl & DD_PRFL_FLOATCOORD)
        return rd_f32(r);
    if (prfl & DD_PRFL_INT32COORD)
        return (float)rd_s32(r) * (1.0f / 16.0f);
    if (prfl & DD_PRFL_24BITCOORD) {
        float whole = (float)rd_s16(r);
        return whole + (float)rd_u8(r) * (1.0f / 255.0f);
    }
    return (float)rd_s16(r) * 0.125f;
}

/* An angle in degrees in the encoding prfl names (QuakeSpasm MSG_ReadAngle: float first, then
 * int16, else int8). */
static inline float dd_read_qangle(rd_t *r, uint32_t prfl)
{
    if (prfl & DD_PRFL_FLOATANGLE)
        return rd_f32(r);
    if (prfl & DD_PRFL_SHORTANGLE)
        return (float)rd_s16(r) * (360.0f / 65536.0f);
    return (float)rd_s8(r) * (360.0f / 256.0f);
}

typedef struct dd_table {
    const dd_field *f;
    uint16_t n;
    uint32_t all;         /* the OR of every row's bit and alt: the reader stops once no
                           * later row is announced */
    void (*hook)(dd_reader *rd, const dd_field *f, void *ent); /* DD_HOOK rows, or NULL */
} dd_table;

/* The mask a ladder announces, over `seed` (the bits the caller read itself). Reads past
 * the end yield 0 bits and leave rd->r's error set. Inline: a constant ladder unrolls. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint32_t dd_read_mask(dd_reader *rd, const dd_ladder *l, uint32_t seed)
{
    uint32_t m = seed;
    for (unsigned i = 0; i < l->first_bytes; i++)
        m |= (uint32_t)rd_u8(rd->r) << (8 * i);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 4
#endif
    for (unsigned i = 0; i < l->n; i++) {
        const struct dd_step *s = &l->step[i];
        if ((m & s->if_bit) && (!s->opt || (rd->opts & s->opt)))
            m |= (uint32_t)rd_u8(rd->r) << s->shift;
    }
    return m;
}

/* ---- dd_read_fields' steps, inline with it ---- */

#if defined(__GNUC__)
#define DD_INLINE static inline __attribute__((always_inline))
#else
#define DD_INLINE static inline
#endif

DD_INLINE void dd_store_value(uint8_t *dst, unsigned size, uint32_t v)
{
    if (size == 1) {
        uint8_t x = (uint8_t)v;
        memcpy(dst, &x, 1);
    } else if (size == 2) {
        uint16_t x = (uint16_t)v;
        memcpy(dst, &x, 2);
    } else {
        memcpy(dst, &v, 4);
    }
}

/* One value of a byte-format row into dst (dd_read_fields' step). */
DD_INLINE void dd_read_value(dd_reader *rd, const dd_field *f, uint32_t has, uint8_t *dst)
{
    rd_t *r = rd->r;
    uint32_t v;
    switch (f->kind) {
    case DD_U8: v = rd_u8(r); break;
    case DD_S8: v = (uint32_t)(int32_t)rd_s8(r); break;
    case DD_S8X256: v = (uint32_t)(int32_t)rd_s8(r) * 256u; break;
    case DD_U16: v = rd_u16(r); break;
    case DD_S16: v = (uint32_t)(int32_t)rd_s16(r); break;
    case DD_U32:
    case DD_S32:
    case DD_F32: v = rd_u32(r); break;
    case DD_COORD16: {
        float x = (float)rd_s16(r) * 0.125f;
        memcpy(&v, &x, 4);
        break;
    }
    case DD_HI8: {
        uint16_t old;
        memcpy(&old, dst, 2);
        v = (uint32_t)(old & 0xff) | (uint32_t)rd_u8(r) << 8;
        break;
    }
    case DD_PAIR:
        if (has == (f->bit | f->alt))
            v = rd_u32(r);
        else if (has == f->bit)
            v = rd_u8(r);
        else
            v = rd_u16(r);
        break;
    case DD_ANGLE8: {
        float x = (float)rd_s8(r) * (360.0f / 256.0f);
        memcpy(&v, &x, 4);
        break;
    }
    case DD_QCOORD: {
        float x = dd_read_qcoord(r, rd->prfl);
        memcpy(&v, &x, 4);
        break;
    }
    case DD_QANGLE: {
        float x = dd_read_qangle(r, rd->prfl);
        memcpy(&v, &x, 4);
        break;
    }
    default: /* DD_SKIP; Q3 kinds have no byte form */
        rd_skip(r, f->kind == DD_SKIP && f->bits > 0 ? (size_t)f->bits : 0);
        return;
    }
    dd_store_value(dst, f->size, v);
}

/* Row f (announced: has = mask & (bit | alt)) into ent. */
DD_INLINE void dd_read_row(dd_reader *rd, const dd_table *t, const dd_field *f,
                               uint32_t has, void *ent)
{
    if (f->kind == DD_HOOK) {
        if (t->hook)
            t->hook(rd, f, ent);
        return;
    }
    uint8_t *dst = (uint8_t *)ent + f->offset;
    unsigned n = f->count ? f->count : 1;
    for (unsigned k = 0; k < n; k++)
        dd_read_value(rd, f, has, dst + (size_t)k * f->size);
}

/* Read the fields `mask` announces, in table order, over *ent (which holds the delta
 * source): fields not announced keep their value. Rows whose opt the reader lacks are not
 * read. Errors (the data ends) are left in rd->r. Inline so that a decoder's constant table
 * unrolls into straight code (the speed of a hand-written ladder). */
static inline void dd_read_fields(dd_reader *rd, const dd_table *t, uint32_t mask, void *ent)
{
    uint32_t left = mask & t->all;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 64
#endif
    for (unsigned i = 0; i < t->n; i++) {
        const dd_field *f = &t->f[i];
        uint32_t both = f->bit | f->alt;
        if (!(left & both))
            continue; /* not announced, or a shared bit already read */
        if (i + 1 == t->n || (t->f[i + 1].bit | t->f[i + 1].alt) != both)
            left &= ~both;
        if (!f->opt || (rd->opts & f->opt))
            dd_read_row(rd, t, f, mask & both, ent);
        if (!left)
            break;
    }
}

/* The same, unrolled by the compiler for a decoder's constant list of rows (X-macro):
 * DD_ROW makes a row from constants, DD_READ reads one such row when `mask` announces it.
 * A decoder's hot reader is a run of DD_READ over its list, as fast as a hand-written
 * ladder; dd_read_fields serves tables built at run time and tests. */
#define DD_ROW(T, bit, alt, field, kind, size, count)                                      \
    {#field, (bit), (alt), (uint16_t)offsetof(T, field), (kind), 0, (size), (count), 0}
#define DD_READ(rd, t, mask, ent, ...)                                                     \
    do {                                                                                   \
        static const dd_field dd_f_ = __VA_ARGS__;                                         \
        uint32_t dd_has_ = (mask) & (dd_f_.bit | dd_f_.alt);                               \
        if (dd_has_ && (!dd_f_.opt || ((rd)->opts & dd_f_.opt)))                           \
            dd_read_row((rd), (t), &dd_f_, dd_has_, (ent));                                \
    } while (0)

/* A row with every column (DD_ROW leaves bits and opt 0): DD_SKIP's byte count, a row
 * that needs a reader option. */
#define DD_ROW_FULL(T, bit, alt, field, kind, bits, size, count, opt)                      \
    {#field, (bit), (alt), (uint16_t)offsetof(T, field), (kind), (bits), (size), (count), (opt)}

/* Quake III MSG_ReadDeltaEntity / MSG_ReadDeltaPlayerstate's field part: `count` fields
 * (lastChanged), each a "changed" bit, then (zero_bit: entities) a "not zero" bit, then the
 * value, over *ent. Returns 0, or -1 when count is over the table (nothing read). Errors are
 * left in rd->b. */
int dd_read_q3(dd_reader *rd, const dd_table *t, int count, void *ent, int zero_bit);

/* 1 when the table keeps the rules above (all matches its rows, rows sharing a bit are
 * adjacent, sizes 1/2/4): for tests. */
int dd_table_ok(const dd_table *t);

/* ---- frame ring, entity pool, merge ---- */

typedef struct dd_frame { /* 28 bytes */
    uint32_t seq;         /* the game's frame number (Q2 serverframe, QW sequence, Q3 seq) */
    uint32_t serial;      /* names the frame: 1 + frames stored before it (never 0) */
    uint32_t src_serial;  /* serial of the frame it was delta'd from, 0 none */
    uint32_t first;       /* absolute index into refs */
    uint32_t oldest;      /* no pool index it refers to is older (made - young) */
    uint32_t made;        /* the pool head when it was begun: entries >= made are its own */
    uint16_t count;
    uint8_t valid;        /* may be shown and used as a delta source */
    uint8_t sorted;       /* entity numbers strictly increase */
} dd_frame;

typedef struct dd_hdr {
    uint32_t pool_head, ref_head; /* absolute indices of the next free entry / ref */
    uint32_t serial;              /* of the newest frame stored */
    uint32_t shown_serial;        /* of the frame the client got last, 0 none */
} dd_hdr;

/* A decoder's store, plain data (memcpy-able). POOL, REFS and RING are powers of two. */
#define DD_STORE(T, POOL, REFS, RING)                                                      \
    struct {                                                                               \
        dd_hdr h;                                                                          \
        dd_frame frames[RING];                                                             \
        uint32_t refs[REFS];                                                               \
        uint16_t ref_num[REFS]; /* each ref's entity number: merges skip the pool */      \
        T pool[POOL];                                                                      \
    }

/* Constant per format. */
typedef struct dd_desc {
    uint32_t elem_size, number_offset;   /* pool element; its uint16 entity number */
    uint32_t pool, refs, ring, max_ents; /* powers of two but max_ents; pool >= 2 * max_ents */
    uint32_t young;                      /* entries older than this many pool entries are
                                          * copied forward when carried (0: pool / 4) */
    /* An entry carried into a new frame unchanged may need a fix-up (Quake II: no event,
     * old_origin = origin). With dst NULL: 1 when src needs one. Else dst holds a copy of
     * src to fix. NULL: entries are always shared. Asked only about entries the source
     * frame made itself: a shared entry was asked about when it was first carried (so a
     * fixed-up entry must answer 0). */
    int (*carry)(void *dst, const void *src);
} dd_desc;

/* A view of one store, built on the stack for a call (DD_VIEW). */
typedef struct dd_store {
    dd_hdr *h;
    dd_frame *frames;
    uint32_t *refs;
    uint16_t *ref_num;
    uint8_t *pool;
    const dd_desc *d;
} dd_store;

#define DD_VIEW(st, desc)                                                                  \
    ((dd_store){&(st)->h, (st)->frames, (st)->refs, (st)->ref_num, (uint8_t *)(st)->pool,  \
                (desc)})

/* Forget every frame (a new level); the pool and ref heads go on. */
void dd_reset(dd_store v);

/* The ring slot seq falls in (whatever it holds). */
static inline dd_frame *dd_slot(dd_store v, uint32_t seq)
{
    return &v.frames[seq & (v.d->ring - 1)];
}

/* 1 when f is valid and none of its refs or pool entries can be overwritten by one more
 * frame of max_ents entities (the age limit of a delta source). */
static inline int dd_usable(dd_store v, const dd_frame *f)
{
    const dd_desc *d = v.d;
    return f->valid && v.h->pool_head + d->max_ents - f->oldest <= d->pool &&
           v.h->ref_head + d->max_ents - f->first <= d->refs;
}

/* The frame seq as a delta source: its slot if it holds seq, valid and usable, else NULL. */
static inline const dd_frame *dd_source(dd_store v, uint32_t seq)
{
    const dd_frame *f = dd_slot(v, seq);
    return f->seq == seq && dd_usable(v, f) ? f : NULL;
}

/* Entry i (< f->count) of frame f, and its entity number. */
static inline const void *dd_ent(dd_store v, const dd_frame *f, uint32_t i)
{
    return v.pool + (size_t)(v.refs[(f->first + i) & (v.d->refs - 1)] & (v.d->pool - 1)) *
                        v.d->elem_size;
}

static inline int dd_num(dd_store v, const dd_frame *f, uint32_t i)
{
    return v.ref_num[(f->first + i) & (v.d->refs - 1)];
}

/* Record f as the frame the client got last (NULL: none). */
static inline void dd_shown(dd_store v, const dd_frame *f)
{
    v.h->shown_serial = f ? f->serial : 0;
}

/* The frame the client got last, sorted and still whole in the ring (dd_usable), or NULL:
 * what an entity of a frame delta'd from another one can be compared with. */
static inline const dd_frame *dd_shown_frame(dd_store v)
{
    for (uint32_t i = 0; v.h->shown_serial && i < v.d->ring; i++) {
        const dd_frame *f = &v.frames[i];
        if (f->serial == v.h->shown_serial)
            return f->sorted && dd_usable(v, f) ? f : NULL;
    }
    return NULL;
}

/* 1 when two entries hold the same bytes: one pool entry for both (carried unchanged) is
 * equal without reading it. */
static inline int dd_same_entry(dd_store v, const void *was, const void *ent)
{
    return was == ent || !memcmp(was, ent, v.d->elem_size);
}

/* 1 when entity num, whose state is ent, has the same bytes in the shown frame sh
 * (dd_shown_frame): the caller walks its sorted frame in order, *at carrying the place in
 * sh from one call to the next (start it at 0). */
static inline int dd_same_as_shown(dd_store v, const dd_frame *sh, uint32_t *at, int num,
                                   const void *ent)
{
    while (*at < sh->count && dd_num(v, sh, *at) < num)
        (*at)++;
    if (*at >= sh->count || dd_num(v, sh, *at) != num)
        return 0;
    return dd_same_entry(v, dd_ent(v, sh, *at), ent);
}

/* Sorted frame f against the shown frame sh (dd_shown_frame), in one walk of both lists:
 * changed[i] 1 where f's entry i is new or differs from its entry in sh (dd_same_entry),
 * and the numbers of sh's entries missing from f (the removals) into gone, in order;
 * returns how many. changed holds f->count entries and gone sh->count. What a decoder needs
 * to keep a frame that was not delta'd from the shown one as if it were (its unchanged
 * entities kept whole, cl_list_keep_rest). */
static inline int dd_diff_shown(dd_store v, const dd_frame *f, const dd_frame *sh,
                                uint8_t *changed, uint16_t *gone)
{
    /* (the lists' places in locals: the byte stores into changed may alias the frames, and
     * each dd_num would read them again; the same ref is the same entry, no compare) */
    const uint32_t rmask = v.d->refs - 1, fc = f->count, sc = sh->count;
    const uint32_t ff = f->first, sf = sh->first;
    const uint32_t *refs = v.refs;
    const uint16_t *nums = v.ref_num;
    uint32_t j = 0;
    int ngone = 0;
    for (uint32_t i = 0; i < fc;) {
#if defined(__SSE2__)
        /* Eight entries in a row of both frames (neither side wrapping) with the same
         * numbers and the same pool entries: eight unchanged, none gone, as the steps below
         * find them one by one. A frame delta'd from an older one than the shown (most of
         * the Quake Live duel's) shares most of its entries with it so (dm_73: ~35
         * instructions an entity one by one). An eight that fails goes one by one. */
        if (fc - i >= 8 && sc - j >= 8 && ((ff + i) & rmask) <= rmask + 1 - 8 &&
            ((sf + j) & rmask) <= rmask + 1 - 8) {
            const uint32_t a8 = (ff + i) & rmask, b8 = (sf + j) & rmask;
            const __m128i n = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(nums + a8)),
                                              _mm_loadu_si128((const __m128i *)(nums + b8)));
            const __m128i r0 = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(refs + a8)),
                                               _mm_loadu_si128((const __m128i *)(refs + b8)));
            const __m128i r1 =
                _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(refs + a8) + 1),
                                _mm_loadu_si128((const __m128i *)(refs + b8) + 1));
            /* (all 16 bytes of each compare set: the lanes' widths need not line up) */
            if (_mm_movemask_epi8(_mm_and_si128(n, _mm_and_si128(r0, r1))) == 0xffff) {
                memset(changed + i, 0, 8);
                i += 8;
                j += 8;
                continue;
            }
        }
        const uint32_t stop = fc - i > 8 ? i + 8 : fc;
#else
        const uint32_t stop = fc;
#endif
        for (; i < stop; i++) {
            const uint32_t a = (ff + i) & rmask;
            const int num = nums[a];
            while (j < sc && nums[(sf + j) & rmask] < num)
                gone[ngone++] = nums[(sf + j++) & rmask];
            int same = 0;
            if (j < sc && nums[(sf + j) & rmask] == num) {
                const uint32_t b = (sf + j) & rmask;
                same = refs[b] == refs[a] ||
                       dd_same_entry(v, dd_ent(v, sh, j), dd_ent(v, f, i));
                j++;
            }
            changed[i] = (uint8_t)!same;
        }
    }
    while (j < sc)
        gone[ngone++] = nums[(sf + j++) & rmask];
    return ngone;
}

/* 1 when f was delta'd from the frame the client got last: then its shared entries
 * (dd_shared) are what the client already has (keep). */
static inline int dd_from_shown(dd_store v, const dd_frame *f)
{
    return f->src_serial && f->src_serial == v.h->shown_serial;
}

/* 1 when entry i of f is a pool entry of an earlier frame, carried unchanged. 0 for what
 * the delta read, and also for a carried entry copied forward or fixed up (dd_desc.carry):
 * a caller treats those as changed and compares them itself. */
static inline int dd_shared(dd_store v, const dd_frame *f, uint32_t i)
{
    return (int32_t)(v.refs[(f->first + i) & (v.d->refs - 1)] - f->made) < 0;
}

#define DD_NONE 0x7fffffff /* "past the last entity" */

/* The sorted merge of a delta against its source frame (on the caller's stack). The heads
 * move only at dd_merge_end: a merge abandoned on an error leaves the store as it was. */
typedef struct dd_merge {
    dd_store v;
    const dd_frame *from; /* NULL: a delta from nothing (baselines) */
    uint32_t oi;          /* the next old entry */
    int oldnum;           /* its number, DD_NONE past the last (or no source): kept with oi,
                           * so the tests each entity makes of it are one load */
    uint32_t oldref;      /* and its pool entry (when oldnum is not DD_NONE) */
    uint32_t pool_head, ref_head;
    int last_num;         /* number of the newest entry of nf, -1 none */
    dd_frame nf;
    qd_err err;           /* sticky: QD_ERR_LIMIT over max_ents */
    /* Optional (NULL: none), set by the caller after dd_merge_begin: the entries the
     * delta made (dd_merge_put's, which the caller records: it knows the source,
     * dd_merge_record) in the order made, which is their order in the new frame: each
     * one's place (rec_at) and its source entry (rec_src, NULL for none), rec_n of them, at
     * most rec_cap (past that rec_at is set to NULL: no list). The entries not listed were
     * carried: the source's, shared (dd_shared), or a carried entry's copy (moved forward
     * for its age, or the format's fix-up, dd_desc.carry), which a client takes as the
     * source's unchanged entry: so a fix-up may change only what a client does not show
     * (Quake II: a spent event, old_origin). */
    uint16_t *rec_at;
    const void **rec_src;
    uint32_t rec_n, rec_cap;
} dd_merge;

/* A frame shares only entries at most young_span older than the pool head (older ones are
 * copied forward), so none of its entries is older than made - young_span: that bound is
 * its `oldest`, and it stays usable while fewer than pool - young - max_ents entries
 * follow. */
static inline uint32_t dd_young_span(const dd_desc *d)
{
    return d->young ? d->young : d->pool / 4;
}

/* Step m->oi to old entry oi (at most the source's count) and note its number and ref. */
static inline void dd_merge_seek_old(dd_merge *m, uint32_t oi)
{
    m->oi = oi;
    if (m->from && oi < m->from->count) {
        const uint32_t at = (m->from->first + oi) & (m->v.d->refs - 1);
        m->oldnum = m->v.ref_num[at];
        m->oldref = m->v.refs[at];
    } else {
        m->oldnum = DD_NONE;
    }
}

/* Start the frame seq delta'd from `from` (NULL or a frame dd_source returned). Inline, as
 * dd_repeat: a call took the view by value, which GCC built on the stack from eight-byte
 * stores and read back sixteen bytes at a time, a store-forwarding stall a call (three a
 * Quake III snapshot: dm_68 decodes in 100 ms against 110 with the calls). */
static inline void dd_merge_begin(dd_merge *m, dd_store v, const dd_frame *from,
                                  uint32_t seq)
{
    memset(m, 0, sizeof *m);
    m->v = v;
    m->from = from;
    m->pool_head = v.h->pool_head;
    m->ref_head = v.h->ref_head;
    m->nf.seq = seq;
    m->nf.src_serial = from ? from->serial : 0;
    m->nf.first = m->ref_head;
    m->nf.oldest = m->pool_head - dd_young_span(v.d);
    m->nf.made = m->pool_head;
    m->nf.sorted = 1;
    m->last_num = -1;
    dd_merge_seek_old(m, 0);
}

/* The number of the next old entry, DD_NONE past the last. */
static inline int dd_merge_oldnum(const dd_merge *m)
{
    return m->oldnum;
}


qd_err dd_merge_carry_run(dd_merge *m, int num);

/* Carry every old entry numbered below num (DD_NONE: all) into the new frame. Returns
 * QD_ERR_LIMIT once the frame would exceed max_ents. (Inline: most calls carry nothing or
 * go straight to the loop.) */
static inline qd_err dd_merge_carry(dd_merge *m, int num)
{
    return dd_merge_oldnum(m) < num ? dd_merge_carry_run(m, num) : m->err;
}

/* The next old entry when it is numbered num, else NULL (nothing moves). */
static inline const void *dd_merge_old(const dd_merge *m, int num)
{
    return dd_merge_oldnum(m) == num
               ? m->v.pool + (size_t)(m->oldref & (m->v.d->pool - 1)) * m->v.d->elem_size
               : NULL;
}

/* Step past the next old entry, whatever its number (a removal). */
void dd_merge_skip(dd_merge *m);

/* A fresh pool entry for entity num in the new frame, for the caller to fill (copy its
 * source, dd_merge_old's entry or a baseline, first: it is still intact; then set the
 * number); steps past the old entry numbered num if it is next. Returns NULL (m->err
 * QD_ERR_LIMIT) once the frame would exceed max_ents. */
static inline void *dd_merge_put(dd_merge *m, int num)
{
    const dd_desc *d = m->v.d;
    if (m->err || m->nf.count >= d->max_ents) {
        m->err = QD_ERR_LIMIT;
        return NULL;
    }
    uint32_t ref = m->pool_head++, slot = m->ref_head++ & (d->refs - 1);
    if (dd_merge_oldnum(m) == num)
        dd_merge_seek_old(m, m->oi + 1);
    if (m->last_num >= num)
        m->nf.sorted = 0;
    m->last_num = num;
    m->v.refs[slot] = ref;
    m->v.ref_num[slot] = (uint16_t)num;
    m->nf.count++;
    return m->v.pool + (size_t)(ref & (d->pool - 1)) * d->elem_size;
}

/* List the entry at place `at` of the new frame, from source entry src (NULL: none). */
static inline void dd_merge_record(dd_merge *m, uint32_t at, const void *src)
{
    if (!m->rec_at)
        return;
    if (m->rec_n >= m->rec_cap) {
        m->rec_at = NULL; /* (more than the frame can hold: no list) */
        return;
    }
    m->rec_at[m->rec_n] = (uint16_t)at;
    m->rec_src[m->rec_n++] = src;
}

/* Carry the rest and store the frame in its ring slot with `valid`. Returns it, or NULL
 * with m->err set. */
const dd_frame *dd_merge_end(dd_merge *m, int valid);

/* Store frame seq as `from` unchanged (a delta that named no entity; from as for
 * dd_merge_begin, not NULL): without a carry fix-up (dd_desc.carry NULL) it shares from's
 * refs, so it costs no ref and no pool entry and every entry counts as shared (dd_shared);
 * else it is a merge that changes nothing. Returns the stored frame, or NULL as
 * dd_merge_end. */
static inline const dd_frame *dd_repeat(dd_store v, const dd_frame *from, uint32_t seq,
                                        int valid)
{
    if (v.d->carry) {
        dd_merge m;
        dd_merge_begin(&m, v, from, seq);
        return dd_merge_end(&m, valid);
    }
    dd_frame nf = *from;
    nf.seq = seq;
    nf.src_serial = from->serial;
    nf.made = v.h->pool_head; /* made nothing: every entry is older */
    if (++v.h->serial == 0)
        v.h->serial = 1;
    nf.serial = v.h->serial;
    nf.valid = (uint8_t)(valid != 0);
    dd_frame *f = dd_slot(v, seq);
    *f = nf;
    return f;
}

#endif
