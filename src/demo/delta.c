/* delta.c: the delta engine of delta.h: table-driven field readers and the frame ring /
 * entity pool / sorted merge shared by the decoders. */
#include "delta.h"
#include "q3_local.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- field tables ---- */

/* The most bits one field takes: "changed", "not zero", the float's form bit and four
 * Huffman codes of at most 11 bits [DM68 6, 7]. */
#define Q3_FIELD_MAX_BITS (3 + 4 * 11)

/* dd_read_q3's fields while 8 whole bytes of the message are left from the cursor's byte:
 * one 64-bit load then holds at least 57 bits of real data (64 less the bit offset in the
 * byte, at most 7), more than a field takes (Q3_FIELD_MAX_BITS), so a field is read from
 * it with no check of the message's end; that load is the bound, proven once a field
 * (or a run of unchanged fields). Returns the next field; b->bit is past it. Hands back
 * at a field it does not do (a width not 1..32, the NYT code) with the cursor at its
 * start, so the checked loop reads it as before: the result is that loop's, bit for bit. */
static int read_q3_fast(q3_bits *b, const dd_table *t, int i, int count, uint8_t *base,
                        unsigned head)
{
    const uint8_t *p = b->r.p;
    const size_t len = b->r.len;
    size_t bit = b->bit;
    while (i < count && (bit >> 3) + 8 <= len) {
        const uint8_t *q = p + (bit >> 3);
        uint64_t w = q3_load8(q);
        unsigned avail = 64 - (unsigned)(bit & 7);
        w >>= bit & 7;
        if (!(w & 1)) { /* a run of unchanged fields: its zeros are all real data */
            unsigned z = (unsigned)q3_zero_run(w);
            if (z > avail)
                z = avail;
            if (z > (unsigned)(count - i))
                z = (unsigned)(count - i);
            bit += z;
            i += (int)z;
            avail -= z;
            if (i >= count || avail < Q3_FIELD_MAX_BITS)
                continue; /* (the next field from a fresh load) */
            w >>= z;
        }
        const dd_field *f = &t->f[i];
        int32_t v = 0;
        if (head == 1 || (w & 2)) {
            uint64_t x = w >> head;
            unsigned n, used = head;
            int sign = 0;
            if (f->kind != DD_Q3FLOAT) {
                sign = f->bits < 0;
                n = (unsigned)(sign ? -f->bits : f->bits);
                if (n == 0 || n > 32)
                    break; /* the checked loop flags it */
            } else {
                /* 1 and the 32 raw bits, or 0 and an integral value biased by 4096 */
                n = x & 1 ? 32 : Q3_SNAPPED_BITS;
                x >>= 1;
                used++;
            }
            unsigned raw = n & 7;
            uint32_t u = (uint32_t)x & ((1u << raw) - 1);
            used += raw;
            if (q3_huff_codes(x >> raw, raw, n, &u, &used) < n)
                break; /* the NYT code: the checked loop's tree walk reports it */
            v = q3_bits_value(u, n, sign);
            if (f->kind == DD_Q3FLOAT && n != 32) {
                float fx = (float)(v - (1 << (Q3_SNAPPED_BITS - 1)));
                memcpy(&v, &fx, 4);
            }
            bit += used;
        } else {
            bit += head; /* changed to zero */
        }
        memcpy(base + f->offset, &v, 4);
        i++;
    }
    b->bit = bit;
    return i;
}

/* The bit reader's inline forms (q3_local.h) keep this loop as fast as a hand-written
 * one: each field starts from one 64-bit peek, which skips a run of unchanged fields (0
 * bits) at once and yields the "changed", "not zero" and float-form bits without reading
 * them one by one. Past the end of the data the error is set, as a bit-by-bit read does.
 * The fields before a message's last 8 bytes go the faster way (read_q3_fast). */
int dd_read_q3(dd_reader *rd, const dd_table *t, int count, void *ent, int zero_bit)
{
    q3_bits *b = rd->b;
    uint8_t *base = ent;
    const unsigned head = zero_bit ? 2 : 1; /* "changed" [+ "not zero"] */
    if (count < 0 || count > t->n)
        return -1;
    int i0 = 0;
    if (!b->plain && !q3_bits_err(b))
        i0 = read_q3_fast(b, t, 0, count, base, head);
    for (int i = i0; i < count && !q3_bits_err(b); i++) {
        size_t avail;
        uint64_t w = q3_peek(b, &avail);
        if (avail && !(w & 1)) { /* a run of unchanged fields */
            size_t z = q3_zero_run(w);
            if (z > avail)
                z = avail;
            if (z > (size_t)(count - i))
                z = (size_t)(count - i);
            b->bit += z;
            i += (int)z;
            if (i >= count)
                break;
            if (z == avail) { /* the run goes on past what the peek saw */
                i--;
                continue;
            }
            w >>= z; /* else the next bit is a 1: field i changed */
            avail -= z;
        }
        const dd_field *f = &t->f[i];
        int32_t v = 0;
        if (avail < head) { /* the data ends within this field's flags: as a bit-by-bit
                             * read, "changed" is taken and a missing "not zero" reads 0 */
            b->bit += avail;
            b->r.err = 1;
            b->r.pos = b->r.len;
            if (avail)
                memcpy(base + f->offset, &v, 4);
            break;
        }
        /* changed; for an entity, bit 1 says whether the value is not zero */
        b->bit += head;
        if (!zero_bit || (w & 2)) {
            if (f->kind != DD_Q3FLOAT) {
                v = q3_read_bits_in(b, f->bits);
            } else {
                /* DD_Q3FLOAT: 1 and the 32 raw bits, or 0 and an integral value biased by
                 * 4096, stored as the float's bits */
                int raw32;
                if (avail > head) {
                    raw32 = (int)(w >> head & 1);
                    b->bit++;
                } else {
                    raw32 = q3_bit_in(b);
                }
                if (raw32) {
                    v = q3_read_bits_in(b, 32);
                } else {
                    float x = (float)(q3_read_bits_in(b, Q3_SNAPPED_BITS) -
                                      (1 << (Q3_SNAPPED_BITS - 1)));
                    memcpy(&v, &x, 4);
                }
            }
        }
        memcpy(base + f->offset, &v, 4);
    }
    return 0;
}

int dd_table_ok(const dd_table *t)
{
    uint32_t all = 0;
    for (unsigned i = 0; i < t->n; i++) {
        const dd_field *f = &t->f[i];
        uint32_t both = f->bit | f->alt;
        all |= both;
        if (f->size != 1 && f->size != 2 && f->size != 4)
            return 0;
        /* a bit shared with an earlier row must belong to the row just before */
        for (unsigned j = 0; both && j + 1 < i; j++)
            if ((t->f[j].bit | t->f[j].alt) & both)
                if ((t->f[i - 1].bit | t->f[i - 1].alt) != both ||
                    (t->f[j + 1].bit | t->f[j + 1].alt) != both)
                    return 0;
    }
    return all == t->all;
}

/* ---- frame ring, entity pool, merge ---- */

static uint8_t *pool_at(dd_store v, uint32_t abs_index)
{
    return v.pool + (size_t)(abs_index & (v.d->pool - 1)) * v.d->elem_size;
}

void dd_reset(dd_store v)
{
    memset(v.frames, 0, sizeof *v.frames * v.d->ring);
    v.h->shown_serial = 0;
}

/* dd_merge_begin, dd_young_span and dd_repeat are inline (delta.h). */

/* The pool entry a carried entry `ref` goes on with: itself, or a fresh copy when it is old
 * (so the pool can wrap under a frame that keeps it) or the format's fix-up changes it.
 * Kept out of the carry loop: it runs for few entries. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static uint32_t carry_entry(dd_merge *m, uint32_t ref, uint32_t *pool_head)
{
    const dd_desc *d = m->v.d;
    const uint8_t *src = pool_at(m->v, ref);
    if (*pool_head - ref <= dd_young_span(d) && !(d->carry && d->carry(NULL, src)))
        return ref;
    uint32_t nref = (*pool_head)++;
    uint8_t *dst = pool_at(m->v, nref);
    memcpy(dst, src, d->elem_size);
    if (d->carry)
        d->carry(dst, src);
    return nref;
}

/* 1 when the eight entries at refs, nums all go on as they are: each number below num16
 * (0x10000: any number) and each ref in [lo, lo + span). */
static inline int carry8_ok(const uint32_t *refs, const uint16_t *nums, uint32_t num16,
                            uint32_t lo, uint32_t span)
{
#if defined(__SSE2__)
    /* n >= num16 where num16 - n saturates to 0 (num16 0x10000: none); ref - lo >= span
     * unsigned as a signed compare with both sides' top bits flipped */
    __m128i n = _mm_loadu_si128((const __m128i *)nums);
    __m128i over = num16 > 0xffff ? _mm_setzero_si128()
                                  : _mm_cmpeq_epi16(_mm_subs_epu16(_mm_set1_epi16((short)num16), n),
                                                    _mm_setzero_si128());
    const __m128i flip = _mm_set1_epi32((int)0x80000000u), l = _mm_set1_epi32((int)lo),
                  sp = _mm_set1_epi32((int)(span ^ 0x80000000u));
    __m128i a = _mm_xor_si128(_mm_sub_epi32(_mm_loadu_si128((const __m128i *)refs), l), flip);
    __m128i b = _mm_xor_si128(_mm_sub_epi32(_mm_loadu_si128((const __m128i *)refs + 1), l), flip);
    __m128i in = _mm_and_si128(_mm_cmplt_epi32(a, sp), _mm_cmplt_epi32(b, sp));
    return _mm_movemask_epi8(over) == 0 && _mm_movemask_epi8(in) == 0xffff;
#else
    unsigned stop = 0;
    for (int k = 0; k < 8; k++)
        stop |= ((uint32_t)nums[k] >= num16) | (refs[k] - lo >= span);
    return !stop;
#endif
}

/* Carry the old entries numbered below num. An entry is simply shared when it is young
 * (>= pool_head - young_span) and older than the source frame (< made: entries the source
 * made itself may need the fix-up; a shared one was asked when first carried): one range
 * check; the rest go through carry_entry. Carried entries keep the source's order, so
 * `sorted` is decided at the run's first entry (a source out of order makes the new frame
 * count as out of order too). The loop keeps its cursors in locals: it runs for most
 * entities of most frames. */
qd_err dd_merge_carry_run(dd_merge *m, int num)
{
    const dd_frame *from = m->from;
    if (!from || m->err)
        return m->err;
    const dd_desc *d = m->v.d;
    /* without a fix-up the source's own entries are shared like older ones */
    const uint32_t rmask = d->refs - 1, ocount = from->count,
                   made = d->carry ? from->made : m->pool_head;
    const uint32_t young = dd_young_span(d), oi0 = m->oi;
    uint32_t lo = m->pool_head - young; /* shared: [lo, made) */
    uint32_t span = (int32_t)(made - lo) > 0 ? made - lo : 0;
    uint32_t *refs = m->v.refs;
    uint16_t *ref_num = m->v.ref_num;
    /* at most max_ents - count more: past that the frame is over its limit */
    uint32_t end = ocount - oi0 > d->max_ents - m->nf.count ? oi0 + (d->max_ents - m->nf.count)
                                                             : ocount;
    uint32_t oi = oi0, slot = (from->first + oi0) & rmask, ns = m->ref_head & rmask;
    if (oi < end && ref_num[slot] < num && (m->last_num >= ref_num[slot] || !from->sorted))
        m->nf.sorted = 0;
    /* Eight at a time while eight entries in a row (neither side wrapping) all go on as
     * they are: numbered below num and shared. A test with no early exit over a fixed
     * eight, and one copy; an eight that fails the test, and the last few, go entry by
     * entry as before. (The new frame's refs are ahead of the source's by at
     * least the entries left to carry, so the eight read are whole before any is written.)
     * num's 16 bits: every uint16_t number is below a larger one. */
    const uint32_t num16 = num > 0xffff ? 0x10000u : (uint32_t)(num < 0 ? 0 : num);
#define EIGHT_FIT (end - oi >= 8 && slot <= rmask + 1 - 8 && ns <= rmask + 1 - 8)
    for (;;) {
        while (EIGHT_FIT && carry8_ok(refs + slot, ref_num + slot, num16, lo, span)) {
            memcpy(refs + ns, refs + slot, 8 * sizeof *refs);
            memcpy(ref_num + ns, ref_num + slot, 8 * sizeof *ref_num);
            oi += 8;
            slot = (slot + 8) & rmask;
            ns = (ns + 8) & rmask;
        }
        /* an eight that failed the test one by one, or the rest */
        uint32_t stop = EIGHT_FIT ? oi + 8 : end;
        for (; oi < stop; oi++, slot = (slot + 1) & rmask, ns = (ns + 1) & rmask) {
            uint16_t n = ref_num[slot];
            if (n >= num)
                goto done;
            uint32_t ref = refs[slot];
            if (ref - lo >= span) {
                /* (a copy is not listed: it looks as its source, dd_merge.rec_at) */
                ref = carry_entry(m, ref, &m->pool_head);
                lo = m->pool_head - young;
                span = (int32_t)(made - lo) > 0 ? made - lo : 0;
            }
            refs[ns] = ref;
            ref_num[ns] = n;
        }
        if (oi >= end)
            break;
    }
#undef EIGHT_FIT
done:
    if (oi > oi0)
        m->last_num = ref_num[(slot - 1) & rmask];
    if (oi == end && oi < ocount && ref_num[slot] < num)
        m->err = QD_ERR_LIMIT;
    m->ref_head += oi - oi0;
    m->nf.count = (uint16_t)(m->nf.count + (oi - oi0));
    m->oi = oi;
    m->oldnum = oi < ocount ? ref_num[slot] : DD_NONE;
    m->oldref = refs[slot];
    return m->err;
}

void dd_merge_skip(dd_merge *m)
{
    if (m->from && m->oi < m->from->count)
        dd_merge_seek_old(m, m->oi + 1);
}

const dd_frame *dd_merge_end(dd_merge *m, int valid)
{
    if (dd_merge_carry_run(m, DD_NONE))
        return NULL;
    dd_hdr *h = m->v.h;
    h->pool_head = m->pool_head;
    h->ref_head = m->ref_head;
    if (++h->serial == 0)
        h->serial = 1;
    m->nf.serial = h->serial;
    m->nf.valid = (uint8_t)(valid != 0);
    dd_frame *f = dd_slot(m->v, m->nf.seq);
    *f = m->nf;
    return f;
}

