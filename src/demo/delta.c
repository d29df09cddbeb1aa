/* delta.c: the delta engine of delta.h: table-driven field readers and the frame ring /
 * entity pool / sorted merge shared by the decoders. */
#include "delta.h"
#include "q3_local.h"

#include <string.h>

/* ---- field tables ---- */

uint32_t dd_read_mask(dd_reader *rd, const dd_ladder *l, uint32_t seed)
{
    uint32_t m = seed;
    for (unsigned i = 0; i < l->first_bytes; i++)
        m |= (uint32_t)rd_u8(rd->r) << (8 * i);
    for (unsigned i = 0; i < l->n; i++) {
        const struct dd_step *s = &l->step[i];
        if ((m & s->if_bit) && (!s->opt || (rd->opts & s->opt)))
            m |= (uint32_t)rd_u8(rd->r) << s->shift;
    }
    return m;
}

static void store(uint8_t *dst, unsigned size, uint32_t v)
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

/* One value of a byte-format row into dst. */
static void read_one(dd_reader *rd, const dd_field *f, uint32_t has, uint8_t *dst)
{
    rd_t *r = rd->r;
    uint32_t v;
    switch (f->kind) {
    case DD_U8: v = rd_u8(r); break;
    case DD_S8: v = (uint32_t)(int32_t)rd_s8(r); break;
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
    default: /* DD_SKIP; Q3 kinds have no byte form */
        rd_skip(r, f->kind == DD_SKIP && f->bits > 0 ? (size_t)f->bits : 0);
        return;
    }
    store(dst, f->size, v);
}

void dd_read_fields(dd_reader *rd, const dd_table *t, uint32_t mask, void *ent)
{
    uint8_t *base = ent;
    uint32_t left = mask & t->all;
    const dd_field *f = t->f, *end = t->f + t->n;
    for (; left && f < end; f++) {
        uint32_t both = f->bit | f->alt, has = mask & both;
        if (f + 1 == end || (f[1].bit | f[1].alt) != both)
            left &= ~both;
        if (!has || (f->opt && !(rd->opts & f->opt)))
            continue;
        if (f->kind == DD_HOOK) {
            if (t->hook)
                t->hook(rd, f, ent);
            continue;
        }
        unsigned n = f->count ? f->count : 1;
        for (unsigned k = 0; k < n; k++)
            read_one(rd, f, has, base + f->offset + (size_t)k * f->size);
    }
}

/* The number of 0 bits from the Q3 reader's cursor, at most max, without reading them. */
static int q3_zero_run(const struct q3_bits *b, int max)
{
    size_t bit = b->bit;
    int n = 0;
    while (n < max && (bit >> 3) < b->r.len) {
        uint8_t byte = (uint8_t)(b->r.p[bit >> 3] >> (bit & 7));
        if (byte) {
            while (n < max && !(byte & 1)) {
                byte >>= 1;
                n++;
            }
            return n;
        }
        int step = 8 - (int)(bit & 7);
        n += step;
        bit += (size_t)step;
    }
    return n < max ? n : max;
}

static int32_t q3_float(struct q3_bits *b)
{
    if (!q3_bit(b)) {
        float f = (float)(q3_read_bits(b, Q3_SNAPPED_BITS) - (1 << (Q3_SNAPPED_BITS - 1)));
        int32_t v;
        memcpy(&v, &f, 4);
        return v;
    }
    return q3_read_bits(b, 32);
}

int dd_read_q3(dd_reader *rd, const dd_table *t, int count, void *ent, int zero_bit)
{
    struct q3_bits *b = rd->b;
    uint8_t *base = ent;
    if (count < 0 || count > t->n)
        return -1;
    for (int i = 0; i < count && !q3_bits_err(b); i++) {
        int z = q3_zero_run(b, count - i);
        if (z) { /* a run of unchanged fields, skipped at once */
            b->bit += (size_t)z;
            i += z - 1;
            continue;
        }
        if (!q3_bit(b))
            continue; /* only at the end of the data: the error is set */
        const dd_field *f = &t->f[i];
        int32_t v = 0;
        if (!zero_bit || q3_bit(b))
            v = f->kind == DD_Q3FLOAT ? q3_float(b) : q3_read_bits(b, f->bits);
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

dd_frame *dd_slot(dd_store v, uint32_t seq) { return &v.frames[seq & (v.d->ring - 1)]; }

int dd_usable(dd_store v, const dd_frame *f)
{
    const dd_desc *d = v.d;
    return f->valid && v.h->pool_head + d->max_ents - f->oldest <= d->pool &&
           v.h->ref_head + d->max_ents - f->first <= d->refs;
}

const dd_frame *dd_source(dd_store v, uint32_t seq)
{
    const dd_frame *f = dd_slot(v, seq);
    return f->seq == seq && dd_usable(v, f) ? f : NULL;
}

void dd_shown(dd_store v, const dd_frame *f) { v.h->shown_serial = f ? f->serial : 0; }

int dd_keepable(dd_store v, const dd_frame *f, const uint8_t *fresh, uint32_t i)
{
    return !fresh[i] && f->src_serial && f->src_serial == v.h->shown_serial;
}

void dd_merge_begin(dd_merge *m, dd_store v, const dd_frame *from, uint32_t seq,
                    uint8_t *fresh)
{
    memset(m, 0, sizeof *m);
    m->v = v;
    m->from = from;
    m->fresh = fresh;
    m->pool_head = v.h->pool_head;
    m->ref_head = v.h->ref_head;
    m->nf.seq = seq;
    m->nf.src_serial = from ? from->serial : 0;
    m->nf.first = m->ref_head;
    m->nf.oldest = m->pool_head;
    m->nf.sorted = 1;
}

int dd_merge_oldnum(const dd_merge *m)
{
    return m->from && m->oi < m->from->count ? dd_num(m->v, m->from, m->oi) : DD_NONE;
}

/* Append pool entry `ref` for entity num to the new frame. */
static int add_ref(dd_merge *m, uint32_t ref, int num, uint8_t fresh)
{
    const dd_desc *d = m->v.d;
    dd_frame *f = &m->nf;
    if (f->count >= d->max_ents) {
        m->err = QD_ERR_LIMIT;
        return 0;
    }
    uint32_t slot = m->ref_head++ & (d->refs - 1);
    if (f->count && m->v.ref_num[(slot - 1) & (d->refs - 1)] >= num)
        f->sorted = 0;
    m->v.refs[slot] = ref;
    m->v.ref_num[slot] = (uint16_t)num;
    if ((int32_t)(ref - f->oldest) < 0)
        f->oldest = ref;
    m->fresh[f->count++] = fresh;
    return 1;
}

/* Carry old entry oi: shared, or copied when it is old (so the pool can wrap) or needs the
 * format's fix-up. */
static void carry_one(dd_merge *m)
{
    const dd_desc *d = m->v.d;
    uint32_t ref = m->v.refs[(m->from->first + m->oi) & (d->refs - 1)];
    int num = dd_num(m->v, m->from, m->oi);
    const uint8_t *src = pool_at(m->v, ref);
    m->oi++;
    if (m->pool_head - ref > d->pool / 2 || (d->carry && d->carry(NULL, src))) {
        if (m->nf.count >= d->max_ents) {
            m->err = QD_ERR_LIMIT;
            return;
        }
        uint32_t nref = m->pool_head++;
        uint8_t *dst = pool_at(m->v, nref);
        memcpy(dst, src, d->elem_size);
        if (d->carry)
            d->carry(dst, src);
        ref = nref;
    }
    add_ref(m, ref, num, 0);
}

qd_err dd_merge_carry(dd_merge *m, int num)
{
    while (!m->err && dd_merge_oldnum(m) < num)
        carry_one(m);
    return m->err;
}

const void *dd_merge_old(const dd_merge *m, int num)
{
    return dd_merge_oldnum(m) == num ? dd_ent(m->v, m->from, m->oi) : NULL;
}

void dd_merge_skip(dd_merge *m)
{
    if (m->from && m->oi < m->from->count)
        m->oi++;
}

void *dd_merge_put(dd_merge *m, int num, const void *src)
{
    const dd_desc *d = m->v.d;
    if (m->err || m->nf.count >= d->max_ents) {
        m->err = QD_ERR_LIMIT;
        return NULL;
    }
    uint32_t ref = m->pool_head++;
    uint8_t *dst = pool_at(m->v, ref);
    if (src)
        memmove(dst, src, d->elem_size);
    else
        memset(dst, 0, d->elem_size);
    uint16_t n16 = (uint16_t)num;
    memcpy(dst + d->number_offset, &n16, 2);
    if (dd_merge_oldnum(m) == num)
        m->oi++;
    add_ref(m, ref, num, 1);
    return dst;
}

const dd_frame *dd_merge_end(dd_merge *m, int valid)
{
    if (dd_merge_carry(m, DD_NONE))
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
