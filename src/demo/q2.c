/* q2.c: the Quake II .dm2 decoder (protocols 26..34, R1Q2 35, Q2PRO 36 and Q2PRO's
 * extended-limits 3434..3436; client, network and server recordings).
 *
 * A .dm2 file is blocks of [int32 size][messages]; size -1 ends the demo and size 0 sits
 * between two levels [DM2 2.2]. A step decodes one block. A client recording's frame is
 * svc_frame, svc_playerinfo (delta against the delta frame's player state) and
 * svc_packetentities (delta against the delta frame's entities) [DM2 3.18..3.21]; the
 * frames live in a 16-slot ring [Q2CL cl_ents.c CL_ParseFrame] whose entity states share
 * one circular pool, all plain data in q2_state (q2_local.h), so a keyframe is a memcpy.
 * A server recording's frame is svc_frame with a frame number and every entity delta'd
 * from a zeroed state [Q2SV SV_RecordDemoMessage]. Q2PRO's extended demos [Q2X] are 34's
 * layout with wider fields, chosen by the protocol number (q2_ext_of): the differences are
 * the rows and readers marked [Q2X]. Relay (RLA) recordings and other protocols are refused
 * by name; 3.00's 25, whose message ids no public document gives, with that reason. */
#include "demo.h"
#include "demo_local.h"
#include "q2_local.h"
#include "q2_rules.h"
#include "../common/rd.h"
#include "../common/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <zlib.h>

#define Q2_STRING_MAX 2048 /* ReadString stops after 0x7FF bytes [DM2 2.3] */

/* What one step works with. */
typedef struct ctx {
    q2_state *s;
    cl_state *cl;
    const demo_trace *trace;
    qd_error *err;
    const uint8_t *data; /* the whole file, for the serverdata look-ahead */
    size_t len;
    rd_t r;              /* the messages of the current block */
    uint64_t base;       /* file offset of r's first byte */
    uint64_t msg_ofs;    /* file offset of the message being parsed */
    int done;            /* svc_disconnect ended the demo */
    unsigned cmd_extra;  /* 35, 36: the command byte's top 3 bits (svc_frame's EPS 4..6) */
    char esc[640];       /* trace only: an escaped copy of a string */
    char esc_b[160];     /* trace only: a second one, for a line with two */
} ctx;

/* id's messages, then R1Q2's and Q2PRO's from 21 [R1Q2]: one table, as every message
 * looks its name up. */
static const char *const svc_names[Q2_SVC_BASELINESTREAM + 1] = {
    "svc_bad", "svc_muzzleflash", "svc_muzzleflash2", "svc_temp_entity", "svc_layout",
    "svc_inventory", "svc_nop", "svc_disconnect", "svc_reconnect", "svc_sound", "svc_print",
    "svc_stufftext", "svc_serverdata", "svc_configstring", "svc_spawnbaseline",
    "svc_centerprint", "svc_download", "svc_playerinfo", "svc_packetentities",
    "svc_deltapacketentities", "svc_frame", "svc_zpacket", "svc_zdownload", "svc_gamestate",
    "svc_setting", "svc_configstringstream", "svc_baselinestream",
};
_Static_assert(Q2_SVC_ZPACKET == Q2_SVC_COUNT, "R1Q2's ids follow id's");

static const char *svc_name(int cmd)
{
    return cmd >= 0 && cmd <= Q2_SVC_BASELINESTREAM ? svc_names[cmd] : "svc_unknown";
}

/* ---- errors and trace ---- */

#define fail DEMO_FAIL

#define TRACE DEMO_TRACE

/* A string made printable for the trace (quotes, backslashes, control and high bytes
 * escaped). Only called inside TRACE. */
static const char *esc(ctx *c, const char *s)
{
    return demo_escape(c->esc, sizeof c->esc, s);
}

/* The same into the second buffer. */
static const char *esc_b(ctx *c, const char *s)
{
    return demo_escape(c->esc_b, sizeof c->esc_b, s);
}

/* The message ran past its block. */
static qd_err truncated(ctx *c, const char *what)
{
    return fail(c, QD_ERR_TRUNCATED, c->msg_ofs, "%s runs past the end of its block (%zu bytes)",
                what, c->r.len);
}

/* ---- field readers [DM2 2.3] ---- */

#define Q2_I23_MIN (-0x400000)
#define Q2_I23_MAX 0x3fffff

/* Q2PRO's int23 [Q2X] (msg.c MSG_ReadDeltaInt23): a word whose bit 0 clear makes the rest
 * a 15-bit delta from prev; set, one more byte and the 23 bits above bit 0 are the value.
 * A sum past the 23 bits (no writer makes one: it sends the value whole then) is clamped,
 * so coordinates stay where their differences cannot overflow. */
static inline int32_t read_i23(rd_t *r, int32_t prev)
{
    uint32_t w = rd_u16(r);
    if (w & 1) {
        w = (w | (uint32_t)rd_u8(r) << 16) >> 1;
        return (int32_t)(w ^ 0x400000u) - 0x400000;
    }
    int64_t v = (int64_t)prev + ((int32_t)((w >> 1) ^ 0x4000u) - 0x4000);
    return (int32_t)(v < Q2_I23_MIN ? Q2_I23_MIN : v > Q2_I23_MAX ? Q2_I23_MAX : v);
}

int32_t q2_read_i23(rd_t *r, int32_t prev) { return read_i23(r, prev); }

/* KMQuake2's coordinate [KMQ2] (common.c MSG_ReadCoordNew, MSG_ReadPMCoordNew): a byte of
 * bits 16..23, then a word of bits 0..15; a signed 24-bit count of 1/8 units. */
static int32_t read_coord24(rd_t *r)
{
    uint32_t hi = rd_u8(r), lo = rd_u16(r);
    return (int32_t)((hi << 16 | lo) ^ 0x800000u) - 0x800000;
}

/* A position by kind (Q2_POS_*): three shorts, three absolute int23 from Q2PRO's 3435
 * [Q2X] (MSG_ReadPos with MSG_ES_EXTENSIONS_2), or KMQuake2's three 24-bit coordinates. */
static void read_pos(rd_t *r, float v[3], int kind)
{
    for (int i = 0; i < 3; i++)
        v[i] = (float)(kind == Q2_POS_I23    ? read_i23(r, 0)
                       : kind == Q2_POS_KMQ2 ? read_coord24(r)
                                             : rd_s16(r)) *
               0.125f;
}

/* A direction is an index into the 162 vertex normals; larger is an error [DM2 2.3]. */
static int read_dir(rd_t *r)
{
    int d = rd_u8(r);
    return d < Q2_NUMVERTEXNORMALS ? d : -1;
}


/* ---- reads over bytes proved present ----
 * The entity delta's and player state's field readers are inlined twice: whole (a constant
 * in each copy), over a cursor *b into bytes that one check of the record's size, worked
 * out from its bits, proved all there; else through the bounded reader r, whose zeros and
 * sticky error past the end decide what a record cut short reads, as before. */

#if defined(__GNUC__)
#define Q2_INLINE static inline __attribute__((always_inline))
#else
#define Q2_INLINE static inline
#endif

/* An n-byte little-endian integer (n 1, 2 or 4): from *b, or the bounded reader's (0 past
 * the end, as rd_u8 .. rd_u32). */
Q2_INLINE uint32_t in_uint(rd_t *r, const uint8_t **b, int whole, unsigned n)
{
    const uint8_t *x = *b;
    if (whole)
        *b += n;
    else if (!(x = rd_bytes(r, n)))
        return 0;
    /* (each width spelt out: GCC kept a loop for 4, which a compiler merges into one load
     * written so) */
    if (n == 1)
        return x[0];
    if (n == 2)
        return (uint32_t)x[0] | (uint32_t)x[1] << 8;
    return (uint32_t)x[0] | (uint32_t)x[1] << 8 | (uint32_t)x[2] << 16 | (uint32_t)x[3] << 24;
}

/* A row of a field list (DD_ROW's columns; has: the mask's bit and alt) into dst: the
 * kinds Quake II's lists use, as dd_read_value reads them. */
Q2_INLINE void in_row(rd_t *r, const uint8_t **b, int whole, uint32_t has, uint32_t bit,
                      uint32_t alt, int kind, void *dst, unsigned size, unsigned n)
{
    for (unsigned k = 0; k < n; k++) {
        uint32_t v;
        if (kind == DD_PAIR) /* (each width a constant: its bytes read without a loop) */
            v = has == (bit | alt) ? in_uint(r, b, whole, 4)
                : has == bit       ? in_uint(r, b, whole, 1)
                                   : in_uint(r, b, whole, 2);
        else if (kind == DD_U16 || kind == DD_S16)
            v = in_uint(r, b, whole, 2);
        else
            v = in_uint(r, b, whole, 1);
        if (kind == DD_S16)
            v = (uint32_t)(int32_t)(int16_t)v;
        else if (kind == DD_S8)
            v = (uint32_t)(int32_t)(int8_t)v;
        dd_store_value((uint8_t *)dst + (size_t)k * size, size, v);
    }
}

/* The bytes of the fields bits 8j..8j+7 announce, for every value of that byte of a mask:
 * T8(0, w0..w7) is the 256 sums of the weights w of the bits set. */
#define T1(x, a) x, x + (a)
#define T2(x, a, b) T1(x, a), T1(x + (b), a)
#define T3(x, a, b, c) T2(x, a, b), T2(x + (c), a, b)
#define T4(x, a, b, c, d) T3(x, a, b, c), T3(x + (d), a, b, c)
#define T5(x, a, b, c, d, e) T4(x, a, b, c, d), T4(x + (e), a, b, c, d)
#define T6(x, a, b, c, d, e, f) T5(x, a, b, c, d, e), T5(x + (f), a, b, c, d, e)
#define T7(x, a, b, c, d, e, f, g) T6(x, a, b, c, d, e, f), T6(x + (g), a, b, c, d, e, f)
#define T8(x, a, b, c, d, e, f, g, h)                                                      \
    T7(x, a, b, c, d, e, f, g), T7(x + (h), a, b, c, d, e, f, g)

/* ---- entity deltas [DM2 3.15, 3.19], read by the delta engine (delta.h) ---- */

/* The fields of an entity delta, in the order of the wire [Q2CL CL_ParseDelta]:
 * (bit, alt, field, kind, size, count) rows for DD_ROW. The model indices are bytes, or
 * words under Q2PRO's extended U_MODEL16 [Q2X]: */
#define ENT_ROWS_MODELS(X, KIND)                                                           \
    X(Q2_U_MODEL, 0, model[0], KIND, 2, 1)                                                 \
    X(Q2_U_MODEL2, 0, model[1], KIND, 2, 1)                                                \
    X(Q2_U_MODEL3, 0, model[2], KIND, 2, 1)                                                \
    X(Q2_U_MODEL4, 0, model[3], KIND, 2, 1)
#define ENT_ROWS_FX(X)                                                                     \
    X(Q2_U_FRAME8, 0, frame, DD_U8, 2, 1)                                                  \
    X(Q2_U_FRAME16, 0, frame, DD_U16, 2, 1)                                                \
    X(Q2_U_SKIN8, Q2_U_SKIN16, skin, DD_PAIR, 4, 1)                                        \
    X(Q2_U_EFFECTS8, Q2_U_EFFECTS16, effects, DD_PAIR, 4, 1)                               \
    X(Q2_U_RENDERFX8, Q2_U_RENDERFX16, renderfx, DD_PAIR, 4, 1)
/* the origin: shorts, or Q2PRO's int23 deltas from 3435 (read_delta) */
#define ENT_ROWS_ORIGIN(X)                                                                 \
    X(Q2_U_ORIGIN1, 0, origin[0], DD_S16, 4, 1)                                            \
    X(Q2_U_ORIGIN2, 0, origin[1], DD_S16, 4, 1)                                            \
    X(Q2_U_ORIGIN3, 0, origin[2], DD_S16, 4, 1)
/* the angles (bytes, or Q2PRO's shorts: read_delta), the old origin (shorts, or absolute
 * int23 from 3435), the sound (a byte, or Q2PRO's extended word), then */
#define ENT_ROWS_OLDORIGIN(X) X(Q2_U_OLDORIGIN, 0, old_origin, DD_S16, 4, 3)
#define ENT_ROWS_SOUND(X) X(Q2_U_SOUND, 0, sound, DD_U8, 2, 1)
#define ENT_ROWS_EVENT(X) X(Q2_U_EVENT, 0, event, DD_U8, 1, 1)
/* and the solid: 16 bits, or 32 (Q2_ES_LONGSOLID: es_of); Q2PRO's extensions then add more
 * effects, alpha and scale [Q2X]. */

/* U_MOREBITS1..3 [DM2 3.15] */
static const dd_ladder ent_ladder = {
    1, 3, {{Q2_U_MOREBITS1, 8, 0}, {Q2_U_MOREBITS2, 16, 0}, {Q2_U_MOREBITS3, 24, 0}}};

/* The bit mask and number that start an entity delta; Q2PRO's extensions (es & Q2_ES_EXT)
 * add a fifth byte after U_MOREBITS4, bits 32..39 [Q2X] (msg.c MSG_ParseEntityBits).
 * Returns the number. */
static inline int read_ent_bits(rd_t *r, uint64_t *bits, unsigned es)
{
    dd_reader rd = {r, NULL, 0, 0};
    uint64_t b = dd_read_mask(&rd, &ent_ladder, 0);
    if ((es & Q2_ES_EXT) && (b & Q2_U_MOREBITS4))
        b |= (uint64_t)rd_u8(r) << 32;
    *bits = b;
    return (b & Q2_U_NUMBER16) ? rd_u16(r) : rd_u8(r);
}

int q2_read_ent_bits(rd_t *r, uint64_t *bits, unsigned es) { return read_ent_bits(r, bits, es); }

/* 0, or Q2PRO's extension level of protocol: 1 for 3434, 2 from 3435 [Q2X]. */
static int q2_ext_of(int32_t protocol)
{
    return protocol >= Q2_PROTOCOL_Q2PRO_EXT && protocol <= Q2_PROTOCOL_Q2PRO_EXT_FOG
               ? 1 + (protocol >= Q2_PROTOCOL_Q2PRO_EXT2)
               : 0;
}

/* The entity deltas' layout of protocol and minor (Q2_ES_*): R1Q2's long solid from 1905,
 * Q2PRO's long solid and (from 1018) short angles [R1Q2], the extended demos' extensions
 * [Q2X] (client.h CL_ES_EXTENDED_MASK; EXTENSIONS_2 from 3435). */
static unsigned es_of(int32_t protocol, int minor)
{
    int ext = q2_ext_of(protocol);
    if (ext)
        return Q2_ES_EXTENDED | (ext >= 2 ? Q2_ES_EXT2 : 0u);
    if (protocol == Q2_PROTOCOL_Q2PRO)
        return Q2_ES_LONGSOLID | (minor >= Q2_Q2PRO_SHORT_ANGLES ? Q2_ES_SHORTANGLES : 0u);
    return protocol == Q2_PROTOCOL_R1Q2 && minor >= Q2_R1Q2_LONGSOLID ? Q2_ES_LONGSOLID : 0u;
}

/* Effects, renderfx and Q2PRO's more effects: a byte, a word, or both bits a long. */
static uint32_t read_pair(rd_t *r, int lo, int hi)
{
    return lo && hi ? rd_u32(r) : lo ? rd_u8(r) : hi ? rd_u16(r) : 0;
}

/* The bytes of a delta of Quake II's own layout (es 0 or Q2_ES_LONGSOLID) by its mask's
 * bytes: the rows' sizes, old origin 6. Of a pair (skin, effects, renderfx) the byte counts
 * 1 and the word 3, so both make the long's 4; a word alone is counted one over, which only
 * sends a delta in the record's last bytes through the bounded reader. */
static const uint8_t ent_bytes[4][256] = {
    {T8(0, 2, 2, 1, 1, 1, 1, 0, 0)}, /* ORIGIN1, ORIGIN2, ANGLE2, ANGLE3, FRAME8, EVENT */
    {T8(0, 0, 2, 1, 1, 1, 0, 1, 0)}, /* ORIGIN3, ANGLE1, MODEL, RENDERFX8, EFFECTS8 */
    {T8(0, 1, 2, 3, 3, 1, 1, 1, 0)}, /* SKIN8, FRAME16, RENDERFX16, EFFECTS16, MODEL2..4 */
    {T8(0, 6, 3, 1, 2, 0, 0, 0, 0)}, /* OLDORIGIN, SKIN16, SOUND, SOLID */
};

/* Read the fields bits announce over *to, which holds a copy of the source (whole: see
 * in_uint; then es has neither Q2PRO's extensions nor its short angles). As the reference
 * client does, the old origin starts as the source's origin and the event lasts one frame
 * [Q2CL CL_ParseDelta]. */
Q2_INLINE void delta_fields(rd_t *r, q2_ent *to, int num, uint64_t bits64, unsigned es,
                            int whole)
{
    const uint8_t *b = r->p + r->pos;
    const uint32_t bits = (uint32_t)bits64, bits5 = (uint32_t)(bits64 >> 32);
    const int ext = !whole && (es & Q2_ES_EXT), ext2 = !whole && (es & Q2_ES_EXT2);
    static const uint32_t origin_bit[3] = {Q2_U_ORIGIN1, Q2_U_ORIGIN2, Q2_U_ORIGIN3};
    static const uint32_t angle_bit[3] = {Q2_U_ANGLE1, Q2_U_ANGLE2, Q2_U_ANGLE3};
    memcpy(to->old_origin, to->origin, sizeof to->old_origin);
    to->number = (uint16_t)num;
    to->event = 0;
#define READ_ROW(bit, alt, field, kind, size, n)                                           \
    if (bits & ((bit) | (alt)))                                                            \
        in_row(r, &b, whole, bits & ((bit) | (alt)), bit, alt, kind, &to->field, size, n);
    if (ext && (bits & Q2_U_MODEL16)) {
        ENT_ROWS_MODELS(READ_ROW, DD_U16)
    } else {
        ENT_ROWS_MODELS(READ_ROW, DD_U8)
    }
    ENT_ROWS_FX(READ_ROW)
    if (ext2) { /* from the source's origin [Q2X] (msg.c MSG_ReadDeltaCoord) */
        for (int i = 0; i < 3; i++)
            if (bits & origin_bit[i])
                to->origin[i] = read_i23(r, to->origin[i]);
    } else {
        ENT_ROWS_ORIGIN(READ_ROW)
    }
    /* Q2PRO's U_ANGLE16: a short per angle bit (msg.c MSG_ParseDeltaEntity) [R1Q2] */
    int shorts = !whole && (bits & Q2_U_ANGLE16) && (es & Q2_ES_SHORTANGLES);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 3
#endif
    for (int i = 0; i < 3; i++)
        if (bits & angle_bit[i])
            to->angles[i] = shorts ? (int16_t)in_uint(r, &b, whole, 2)
                                   : (int16_t)((int8_t)in_uint(r, &b, whole, 1) * 256);
    if (ext2 && (bits & Q2_U_OLDORIGIN)) {
        for (int i = 0; i < 3; i++)
            to->old_origin[i] = read_i23(r, 0);
    } else {
        ENT_ROWS_OLDORIGIN(READ_ROW)
    }
    if (ext && (bits & Q2_U_SOUND)) { /* 14 bits of index, then the loop's own bytes */
        unsigned w = rd_u16(r);
        to->sound = (uint16_t)(w & 0x3fff);
        rd_skip(r, (size_t)((w & Q2_XSOUND_VOLUME) != 0) + ((w & Q2_XSOUND_ATTENUATION) != 0));
    } else {
        ENT_ROWS_SOUND(READ_ROW)
    }
    ENT_ROWS_EVENT(READ_ROW)
#undef READ_ROW
    if (bits & Q2_U_SOLID)
        to->solid = (es & Q2_ES_LONGSOLID) ? in_uint(r, &b, whole, 4) : in_uint(r, &b, whole, 2);
    if (whole)
        r->pos = (size_t)(b - r->p);
    if (!ext)
        return;
    /* more effects (no neutral look: read past), alpha, scale [Q2X] */
    (void)read_pair(r, (bits & Q2_U_MOREFX8) != 0, (bits5 & Q2_U5_MOREFX16) != 0);
    if (bits & Q2_U_ALPHA)
        to->alpha = rd_u8(r);
    if (bits5 & Q2_U5_SCALE)
        to->scale = rd_u8(r);
}

/* KMQuake2's entity delta [KMQ2] (cl_ents.c CL_ParseDelta, common.c MSG_WriteDeltaEntity):
 * 34's order with every model index a word (bits 28, 29: two more models, read past), the
 * origin and old origin in 24-bit coordinates, the angles bytes (Q2_ES_KMQ2_ANGLE16:
 * words), the alpha (bit 31, x 255) after the old origin, the sound a word and its
 * attenuation (bit 30, read past) after it. The sound is kept only below
 * Q2_KMQ2_SOUND_BASE, the client's slots. */
static void kmq2_delta(rd_t *r, q2_ent *to, int num, uint32_t bits, unsigned es)
{
    static const uint32_t model_bit[6] = {Q2_U_MODEL,  Q2_U_MODEL2,      Q2_U_MODEL3,
                                          Q2_U_MODEL4, Q2_U_MODEL5_KMQ2, Q2_U_MODEL6_KMQ2};
    static const uint32_t origin_bit[3] = {Q2_U_ORIGIN1, Q2_U_ORIGIN2, Q2_U_ORIGIN3};
    static const uint32_t angle_bit[3] = {Q2_U_ANGLE1, Q2_U_ANGLE2, Q2_U_ANGLE3};
    memcpy(to->old_origin, to->origin, sizeof to->old_origin);
    to->number = (uint16_t)num;
    to->event = 0;
    for (int i = 0; i < 6; i++)
        if (bits & model_bit[i]) {
            unsigned m = rd_u16(r);
            if (i < 4)
                to->model[i] = (uint16_t)m;
        }
    if (bits & Q2_U_FRAME8)
        to->frame = rd_u8(r);
    if (bits & Q2_U_FRAME16)
        to->frame = rd_u16(r);
    if (bits & (Q2_U_SKIN8 | Q2_U_SKIN16))
        to->skin = read_pair(r, (bits & Q2_U_SKIN8) != 0, (bits & Q2_U_SKIN16) != 0);
    if (bits & (Q2_U_EFFECTS8 | Q2_U_EFFECTS16))
        to->effects = read_pair(r, (bits & Q2_U_EFFECTS8) != 0, (bits & Q2_U_EFFECTS16) != 0);
    if (bits & (Q2_U_RENDERFX8 | Q2_U_RENDERFX16))
        to->renderfx =
            read_pair(r, (bits & Q2_U_RENDERFX8) != 0, (bits & Q2_U_RENDERFX16) != 0);
    for (int i = 0; i < 3; i++)
        if (bits & origin_bit[i])
            to->origin[i] = read_coord24(r);
    for (int i = 0; i < 3; i++)
        if (bits & angle_bit[i])
            to->angles[i] = (es & Q2_ES_KMQ2_ANGLE16) ? (int16_t)rd_u16(r)
                                                      : (int16_t)((int8_t)rd_u8(r) * 256);
    for (int i = 0; (bits & Q2_U_OLDORIGIN) && i < 3; i++)
        to->old_origin[i] = read_coord24(r);
    if (bits & Q2_U_ALPHA_KMQ2)
        to->alpha = rd_u8(r);
    if (bits & Q2_U_SOUND) {
        unsigned snd = rd_u16(r);
        to->sound = (uint16_t)(snd < Q2_KMQ2_SOUND_BASE ? snd : 0);
    }
    if (bits & Q2_U_ATTENUAT_KMQ2)
        (void)rd_u8(r);
    if (bits & Q2_U_EVENT)
        to->event = rd_u8(r);
    if (bits & Q2_U_SOLID)
        to->solid = rd_u16(r);
}

/* One check of the delta's size when its layout is Quake II's own (ent_bytes, a solid of
 * 32 bits 2 more), then its fields read unchecked; else, or when the record may be cut
 * short, through the bounded reader (KMQuake2's by kmq2_delta). */
static void read_delta(rd_t *r, q2_ent *to, int num, uint64_t bits64, unsigned es)
{
    uint32_t bits = (uint32_t)bits64;
    if (!(es & (Q2_ES_EXT | Q2_ES_SHORTANGLES | Q2_ES_KMQ2))) {
        size_t need = (size_t)ent_bytes[0][bits & 0xff] + ent_bytes[1][bits >> 8 & 0xff] +
                      ent_bytes[2][bits >> 16 & 0xff] + ent_bytes[3][bits >> 24] +
                      ((es & Q2_ES_LONGSOLID) && (bits & Q2_U_SOLID) ? 2 : 0);
        if (need <= rd_left(r)) { /* (a reader in error is parked at its end: 0 left) */
            delta_fields(r, to, num, bits64, es, 1);
            return;
        }
    }
    if (es & Q2_ES_KMQ2)
        kmq2_delta(r, to, num, bits, es);
    else
        delta_fields(r, to, num, bits64, es, 0);
}

void q2_read_delta(rd_t *r, q2_ent *to, int num, uint64_t bits, unsigned es)
{
    read_delta(r, to, num, bits, es);
}

/* An extended demo's model or sound index past Q2PRO's limits [Q2X] (parse.c
 * CL_ParseDeltaEntity: "bad modelindex", "bad sound"; bytes never are): its value, with
 * *what naming it, else -1. */
static int ent_over_limits(const q2_ent *e, const char **what)
{
    for (int i = 0; i < 4; i++)
        if (e->model[i] >= Q2_MAX_MODELS_EXT) {
            *what = "model index";
            return e->model[i];
        }
    *what = "sound";
    return e->sound >= Q2_MAX_SOUNDS_EXT ? e->sound : -1;
}

/* 1 when entity e is within the limits (ent_over_limits finds nothing): inline, as every
 * delta read asks it. */
static inline int ent_within_limits(const q2_ent *e)
{
    /* (the model limit a power of two: every index under it when their or is) */
    _Static_assert((Q2_MAX_MODELS_EXT & (Q2_MAX_MODELS_EXT - 1)) == 0, "a power of two");
    return (e->model[0] | e->model[1] | e->model[2] | e->model[3]) < Q2_MAX_MODELS_EXT &&
           e->sound < Q2_MAX_SOUNDS_EXT;
}

/* An entity the packet does not mention: as before, its old origin where it was, and no
 * event (read_delta with no bits). Shared unless that changes it. */
static int carry(void *dst, const void *src)
{
    const q2_ent *from = src;
    if (!dst)
        return from->event != 0 || from->old_origin[0] != from->origin[0] ||
               from->old_origin[1] != from->origin[1] || from->old_origin[2] != from->origin[2];
    q2_ent *to = dst;
    memcpy(to->old_origin, from->origin, sizeof to->old_origin);
    to->event = 0;
    return 1;
}

static const dd_desc store_desc = {
    sizeof(q2_ent), offsetof(q2_ent, number), Q2_ENT_POOL, Q2_ENT_REFS, Q2_UPDATE_BACKUP,
    Q2_MAX_EDICTS, Q2_ENT_YOUNG, carry,
};

#define STORE(s) DD_VIEW(&(s)->store, &store_desc)

/* The player state fields, in the order of the wire [DM2 3.18]; the stats follow.
 * (bit, field, kind, size, count) rows for DD_ROW, in groups: where Q2PRO's extended demos
 * differ [Q2X] (read_ps) the group takes the wire kind, or read_ps reads it itself. */
#define PS_ROWS_TYPE(X) X(Q2_PS_M_TYPE, pm_type, DD_U8, 1, 1)
#define PS_ROWS_MOVE(X) /* shorts; int23 deltas from 3435 */                              \
    X(Q2_PS_M_ORIGIN, origin, DD_S16, 4, 3)                                                \
    X(Q2_PS_M_VELOCITY, velocity, DD_S16, 4, 3)
#define PS_ROWS_TIME(X, KIND) /* bytes; words from 3435 */                                \
    X(Q2_PS_M_TIME, pm_time, KIND, 2, 1)                                                   \
    X(Q2_PS_M_FLAGS, pm_flags, KIND, 2, 1)
#define PS_ROWS_VIEW(X)                                                                    \
    X(Q2_PS_M_GRAVITY, gravity, DD_S16, 2, 1)                                              \
    X(Q2_PS_M_DELTA_ANGLES, delta_angles, DD_S16, 2, 3)                                    \
    X(Q2_PS_VIEWOFFSET, viewoffset, DD_S8, 1, 3)                                           \
    X(Q2_PS_VIEWANGLES, viewangles, DD_S16, 2, 3)                                          \
    X(Q2_PS_KICKANGLES, kick_angles, DD_S8, 1, 3)
#define PS_ROWS_GUN(X, KIND) /* the gun's model: a byte; a word in 3434.. */               \
    X(Q2_PS_WEAPONINDEX, gunindex, KIND, 2, 1)                                             \
    X(Q2_PS_WEAPONFRAME, gunframe, DD_U8, 1, 1)                                            \
    X(Q2_PS_WEAPONFRAME, gunoffset, DD_S8, 1, 3)                                           \
    X(Q2_PS_WEAPONFRAME, gunangles, DD_S8, 1, 3)
/* then the blend (q2_read_blend: 3435.. a mask byte first) */
#define PS_ROWS_END(X) /* after the blend (and 3436's fog) */                             \
    X(Q2_PS_FOV, fov, DD_U8, 1, 1)                                                         \
    X(Q2_PS_RDFLAGS, rdflags, DD_U8, 1, 1)

/* ---- the client-state side ---- */

/* [Q2CL cl_ents.c CL_DeltaEntity]: an entity that was not in the last frame starts as its
 * state at old_origin (where the server had it the frame before: a new rocket's launcher,
 * as server/sv_world.c SV_LinkEdict and game/g_main.c G_RunFrame leave it; sv_ents.c
 * SV_WriteDeltaEntity sends it for every new entity), and CL_AddPacketEntities lerps that
 * to its origin over the frame; EV_OTHER_TELEPORT starts where it is. Q2PRO's client
 * (src/client/entities.c entity_update_new) starts EV_PLAYER_TELEPORT, RF_BEAM (whose
 * old_origin is the beam's end) and RF_FRAMELERP where they are too. */
void q2_entity_new(cl_state *cl, const q2_ent *q, cl_entstate *e)
{
    if (q->event == Q2_EV_PLAYER_TELEPORT || q->event == Q2_EV_OTHER_TELEPORT ||
        (q->renderfx & (Q2_RF_BEAM | Q2_RF_FRAMELERP))) {
        e->flags |= CL_EF_TELEPORT;
        cl_entity_update(cl, q->number, e);
        return;
    }
    float from[3];
    for (int i = 0; i < 3; i++)
        from[i] = (float)q->old_origin[i] * 0.125f;
    cl_entity_update_from(cl, q->number, e, from);
}

void q2_ps_view(const q2_pstate *ps, int playernum, cl_view *v)
{
    memset(v, 0, sizeof *v);
    v->view_entity = playernum + 1;
    v->player = playernum >= 0 && playernum < CL_MAX_PLAYERS ? playernum + 1 : 0;
    v->has_origin = 1;
    v->fov = ps->fov;
    v->dead = ps->pm_type == Q2_PM_DEAD;
    v->gibbed = ps->pm_type == Q2_PM_GIB;
    /* the eye: pmove origin + viewoffset; the angles: viewangles + kick [DM2 3.18]; [Q2CL
     * cl_ents.c CL_AddViewWeapon]: gun origin = vieworg + gunoffset, angles = viewangles +
     * gunangles; both sent as chars of 1/4 [DM2 3.18] */
#if defined(__SSE2__)
    /* The same conversions, products and sums four lanes at a time (as q2_ent_look; every
     * frame makes a view): the 12 chars from one load. A store's fourth lane lands on the
     * next field: origin's on angles[0] and gun_offset's on gun_angles[0], which the next
     * store writes; the angles' and gun_angles' fourth lanes are 0 x k + 0 = +0, as the
     * memset left punch[0] and xyspeed. */
    _Static_assert(offsetof(q2_pstate, kick_angles) == offsetof(q2_pstate, viewoffset) + 3 &&
                       offsetof(q2_pstate, gunoffset) == offsetof(q2_pstate, viewoffset) + 6 &&
                       offsetof(q2_pstate, gunangles) == offsetof(q2_pstate, viewoffset) + 9 &&
                       offsetof(q2_pstate, viewoffset) + 16 <= sizeof(q2_pstate) &&
                       offsetof(q2_pstate, viewangles) + 8 <= sizeof(q2_pstate),
                   "q2_pstate: the view's chars in a row, 16 bytes from viewoffset");
    _Static_assert(offsetof(cl_view, angles) == offsetof(cl_view, origin) + 12 &&
                       offsetof(cl_view, punch) == offsetof(cl_view, angles) + 12 &&
                       offsetof(cl_view, gun_angles) == offsetof(cl_view, gun_offset) + 12 &&
                       offsetof(cl_view, xyspeed) == offsetof(cl_view, gun_angles) + 12,
                   "cl_view: origin, angles, punch; gun_offset, gun_angles, xyspeed");
    const __m128i chars = _mm_loadu_si128((const __m128i *)ps->viewoffset);
    const __m128i three = _mm_set_epi32(0, -1, -1, -1); /* lanes 0..2 */
    const __m128 quarter = _mm_set1_ps(0.25f);
#define Q2_SEXT8(x) /* the low four chars of x as four int32 */                            \
    _mm_srai_epi32(_mm_unpacklo_epi16(_mm_unpacklo_epi8((x), (x)), _mm_unpacklo_epi8((x), (x))), 24)
#define Q2_CHARS(at, mask) /* chars at..at+3 from viewoffset, times 1/4 */                 \
    _mm_mul_ps(_mm_cvtepi32_ps(_mm_and_si128(Q2_SEXT8(_mm_srli_si128(chars, (at))), (mask))), \
               quarter)
    const __m128i all = _mm_set1_epi32(-1);
    __m128 o = _mm_mul_ps(_mm_cvtepi32_ps(_mm_loadu_si128((const __m128i *)ps->origin)),
                          _mm_set1_ps(0.125f));
    __m128i a16 = _mm_loadl_epi64((const __m128i *)ps->viewangles);
    __m128 a = _mm_mul_ps(
        _mm_cvtepi32_ps(_mm_and_si128(_mm_srai_epi32(_mm_unpacklo_epi16(a16, a16), 16), three)),
        _mm_set1_ps(360.0f / 65536.0f));
    _mm_storeu_ps(v->origin, _mm_add_ps(o, Q2_CHARS(0, all)));
    _mm_storeu_ps(v->angles, _mm_add_ps(a, Q2_CHARS(3, three)));
    _mm_storeu_ps(v->gun_offset, Q2_CHARS(6, all));
    _mm_storeu_ps(v->gun_angles, Q2_CHARS(9, three));
#undef Q2_CHARS
#undef Q2_SEXT8
#else
    for (int i = 0; i < 3; i++) {
        v->origin[i] = (float)ps->origin[i] * 0.125f + (float)ps->viewoffset[i] * 0.25f;
        v->angles[i] = (float)ps->viewangles[i] * (360.0f / 65536.0f) +
                       (float)ps->kick_angles[i] * 0.25f;
        v->gun_offset[i] = (float)ps->gunoffset[i] * 0.25f;
        v->gun_angles[i] = (float)ps->gunangles[i] * 0.25f;
    }
#endif
}

/* The previous shown frame, or NULL. */
static const dd_frame *last_frame(q2_state *s)
{
    if (s->last_emitted < 0)
        return NULL;
    const dd_frame *f = &s->store.frames[s->last_emitted];
    return f->valid ? f : NULL;
}

/* The player state of a ring frame. */
static const q2_pstate *frame_ps(const q2_state *s, const dd_frame *f)
{
    return &s->ps_ring[f->seq & Q2_UPDATE_MASK];
}

/* An image index from a stat slot, or 0 (no image) when out of range. */
static uint8_t image_kind(const q2_names *s, int index)
{
    return index > 0 && index < Q2_MAX_IMAGES_EXT ? s->image_kind[index] : 0;
}

void q2_fill_stats(const q2_names *s, const q2_pstate *ps, double t, cl_stats *st)
{
    memset(st, 0, sizeof *st);
    st->health = ps->stats[Q2_STAT_HEALTH];
    st->armor = ps->stats[Q2_STAT_ARMOR];
    st->ammo = ps->stats[Q2_STAT_AMMO];
    uint8_t k = image_kind(s, ps->stats[Q2_STAT_ARMOR_ICON]);
    if (Q2_NK_CLASS(k) == Q2_NK_ARMOR)
        st->armor_type = Q2_NK_VALUE(k);
    k = image_kind(s, ps->stats[Q2_STAT_AMMO_ICON]);
    if (Q2_NK_CLASS(k) == Q2_NK_AMMO) {
        st->ammo_type = Q2_NK_VALUE(k);
        st->ammo_of[st->ammo_type] = st->ammo;
    }
    st->weapon = s->model_weapon[ps->gunindex % Q2_MAX_MODELS_EXT];
    /* the view weapon's model and frame [DM2 3.18] */
    st->gun_model = (uint16_t)q2_model_slot(s, ps->gunindex);
    st->gun_frame = ps->gunframe;
    if (st->weapon)
        st->weapons = 1u << st->weapon;
    k = image_kind(s, ps->stats[Q2_STAT_TIMER_ICON]);
    if (Q2_NK_CLASS(k) == Q2_NK_POWERUP && Q2_NK_VALUE(k) < CL_PU_COUNT)
        st->powerup_end[Q2_NK_VALUE(k)] = (float)(t + ps->stats[Q2_STAT_TIMER]);
    st->score = ps->stats[Q2_STAT_FRAGS];
    if (ps->pm_type == Q2_PM_DEAD)
        st->flags |= CL_ST_DEAD;
    if (ps->pm_type == Q2_PM_GIB)
        st->flags |= CL_ST_DEAD | CL_ST_GIBBED;
    if (ps->pm_type == Q2_PM_SPECTATOR || ps->stats[Q2_STAT_SPECTATOR])
        st->flags |= CL_ST_SPECTATOR;
}

/* An event of kind with no actor or target and text (may be NULL). */
static void simple_event(cl_state *cl, int kind, const char *text)
{
    cl_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = (uint8_t)kind;
    ev.actor = ev.target = -1;
    if (text) { /* cut to fit */
        size_t n = strnlen(text, sizeof ev.text - 1);
        memcpy(ev.text, text, n);
        ev.text[n] = 0;
    }
    cl_event_add(cl, &ev);
}

/* The recorder picked up an item: STAT_PICKUP_STRING turned to CS_ITEMS + n [g_items.c
 * Touch_Item], the item's name in that configstring. */
static void pickup_event(ctx *c, const q2_pstate *ps, const q2_pstate *pps)
{
    int cs = ps->stats[Q2_STAT_PICKUP_STRING], items = q2_csmap_of(c->s->names.ext)->items;
    if (cs < items || cs >= items + Q2_MAX_ITEMS ||
        (pps && pps->stats[Q2_STAT_PICKUP_STRING] == cs))
        return;
    uint32_t ofs = c->s->names.item_ofs[cs - items];
    if (ofs == 0 || ofs >= c->len)
        return;
    cl_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = CL_EV_PICKUP;
    ev.actor = (int8_t)(c->s->playernum < CL_MAX_PLAYERS ? c->s->playernum : -1);
    ev.target = -1;
    rd_t r = rd_make(c->data + ofs, c->len - ofs);
    rd_str(&r, ev.text, sizeof ev.text);
    cl_event_add(c->cl, &ev);
}

/* 1 when some axis of a and b (three int32, 16 bytes readable at each: the structs' next
 * field) is more than lim apart, as abs(a[i] - b[i]) > lim: every frame asks it of the view
 * and every changed entity of its place before. */
static inline int apart3(const int32_t *a, const int32_t *b, int32_t lim)
{
#if defined(__SSE2__)
    __m128i d = _mm_sub_epi32(_mm_loadu_si128((const __m128i *)a),
                              _mm_loadu_si128((const __m128i *)b));
    __m128i out = _mm_or_si128(_mm_cmpgt_epi32(d, _mm_set1_epi32(lim)),
                               _mm_cmplt_epi32(d, _mm_set1_epi32(-lim)));
    return (_mm_movemask_ps(_mm_castsi128_ps(out)) & 7) != 0; /* (lane 3: the next field) */
#else
    return abs(a[0] - b[0]) > lim || abs(a[1] - b[1]) > lim || abs(a[2] - b[2]) > lim;
#endif
}

/* 1 when two players' stats are the same (every frame asks it): four 16-byte compares
 * and no early exit, rather than memcmp's eight-byte steps. */
static inline int same_stats(const int16_t a[Q2_MAX_STATS], const int16_t b[Q2_MAX_STATS])
{
#if defined(__SSE2__)
    _Static_assert(Q2_MAX_STATS * sizeof a[0] == 64, "32 stats");
    const __m128i *x = (const __m128i *)a, *y = (const __m128i *)b;
    __m128i eq = _mm_and_si128(
        _mm_and_si128(_mm_cmpeq_epi8(_mm_loadu_si128(x), _mm_loadu_si128(y)),
                      _mm_cmpeq_epi8(_mm_loadu_si128(x + 1), _mm_loadu_si128(y + 1))),
        _mm_and_si128(_mm_cmpeq_epi8(_mm_loadu_si128(x + 2), _mm_loadu_si128(y + 2)),
                      _mm_cmpeq_epi8(_mm_loadu_si128(x + 3), _mm_loadu_si128(y + 3))));
    return _mm_movemask_epi8(eq) == 0xffff;
#else
    return !memcmp(a, b, Q2_MAX_STATS * sizeof a[0]);
#endif
}

/* Open the client frame at demo time t. A client recording passes its player state: the
 * view snaps (the frame before is made to hold the same view) when the reference client
 * would not interpolate it: a move over 256 units on an axis [Q2CL cl_ents.c
 * CL_CalcViewValues] or a fresh teleport (PMF_TIME_TELEPORT newly set). */
static void frame_open(ctx *c, double t, const q2_pstate *ps)
{
    q2_state *s = c->s;
    const dd_frame *pf = ps ? last_frame(s) : NULL;
    const q2_pstate *pps = pf ? frame_ps(s, pf) : NULL;
    cl_frame_begin(c->cl, t);
    s->in_frame = 1;
    if (ps) {
        /* cl_set_view's store made in place (the view is 144 bytes, made every frame) */
        q2_ps_view(ps, s->playernum, &c->cl->view);
        _Static_assert(offsetof(q2_pstate, origin) + 16 <= sizeof(q2_pstate), "apart3");
        int snap = !pf;
        if (pps) {
            if (apart3(ps->origin, pps->origin, 256 * 8))
                snap = 1;
            if ((ps->pm_flags & Q2_PMF_TIME_TELEPORT) && !(pps->pm_flags & Q2_PMF_TIME_TELEPORT))
                snap = 1;
        }
        if (snap)
            cl_view_cut(c->cl); /* the frame before holds the same view */
        int same = pps && same_stats(pps->stats, ps->stats);
        /* the layout programs' own inputs (r_hud2.c) */
        _Static_assert(sizeof c->cl->layout.stats == sizeof ps->stats, "32 stats");
        memcpy(c->cl->layout.stats, ps->stats, sizeof ps->stats);
        c->cl->layout.has_stats = 1;
        if (s->playernum >= 0)
            cl_set_player_frags(c->cl, s->playernum, ps->stats[Q2_STAT_FRAGS]);
        /* Unchanged stats, weapon and pm_type: the named stats stand as they are (a
         * powerup's end too, rather than drift with t + the whole seconds left). */
        if (same && pps->gunindex == ps->gunindex && pps->pm_type == ps->pm_type)
            return;
        cl_stats st;
        q2_fill_stats(&s->names, ps, t, &st);
        cl_set_stats(c->cl, -1, &st);
        /* the intermission freezes the player [p_hud.c MoveClientToIntermission] */
        if (ps->pm_type == Q2_PM_FREEZE && (!pps || pps->pm_type != Q2_PM_FREEZE))
            simple_event(c->cl, CL_EV_INTERMISSION, NULL);
        pickup_event(c, ps, pps);
    }
}

static void frame_close(ctx *c)
{
    if (!c->s->in_frame)
        return;
    cl_frame_end(c->cl, 1);
    c->s->in_frame = 0;
}

/* 1 when a and b look the same: what the client state gets from an entity. */
static int same_look(const q2_ent *a, const q2_ent *b)
{
    return a->origin[0] == b->origin[0] && a->origin[1] == b->origin[1] &&
           a->origin[2] == b->origin[2] && a->angles[0] == b->angles[0] &&
           a->angles[1] == b->angles[1] && a->angles[2] == b->angles[2] &&
           a->model[0] == b->model[0] && a->model[1] == b->model[1] && a->frame == b->frame && a->skin == b->skin &&
           a->effects == b->effects && a->renderfx == b->renderfx && a->alpha == b->alpha &&
           a->scale == b->scale;
}

/* EF_* by look (the glows and trails the reference client adds for them [Q2CL cl_ents.c
 * CL_AddPacketEntities]) */
static const demo_fx_bit q2_fx[] = {
    {Q2_EF_ROTATE, CL_FX_ROTATE},
    {Q2_EF_GIB, CL_FX_BLOOD},
    {Q2_EF_GREENGIB, CL_FX_BLOOD},
    {Q2_EF_BLASTER, CL_FX_BLASTER},
    {Q2_EF_HYPERBLASTER, CL_FX_BLASTER},
    {Q2_EF_BLUEHYPERBLASTER, CL_FX_BLASTER},
    {Q2_EF_ROCKET, CL_FX_ROCKET},
    {Q2_EF_GRENADE, CL_FX_GRENADE},
    {Q2_EF_BFG, CL_FX_LIGHT_BRIGHT},
    {Q2_EF_IONRIPPER, CL_FX_LIGHT_DIM},
    {Q2_EF_PLASMA, CL_FX_PLASMA},
    {Q2_EF_TRACKER, CL_FX_TRACER},
    {Q2_EF_QUAD, CL_FX_GLOW_BLUE},
    {Q2_EF_PENT, CL_FX_GLOW_RED},
    {Q2_EF_FLAG1, CL_FX_FLAG_RED},
    {Q2_EF_FLAG2, CL_FX_FLAG_BLUE},
};

/* The recorded player's body as dead (CL_EF_DEAD) or gibbed (also CL_EF_GIBBED) by its
 * player state's pm_type [DM2 3.18 playerstate: PM_DEAD 2, PM_GIB 3]. The format says this
 * of the recorder alone: other bodies' entity states carry no such fact. */
static uint8_t body_flags(const q2_pstate *ps)
{
    return ps->pm_type == Q2_PM_GIB    ? CL_EF_DEAD | CL_EF_GIBBED
           : ps->pm_type == Q2_PM_DEAD ? CL_EF_DEAD
                                       : 0;
}

void q2_ent_look(const q2_ent *q, int max_clients, const q2_names *nm, uint32_t server_ms,
                 cl_entstate *e)
{
    memset(e, 0, sizeof *e);
#if defined(__SSE2__)
    /* the same conversions and products four lanes at a time (cvtdq2ps rounds as the
     * scalar conversion does; no lane's product depends on another's): origin, then the
     * angles sign-extended from their 16 bits; each store's fourth lane lands on the next
     * field, which the angles' store and the models below then write */
    _Static_assert(offsetof(q2_ent, old_origin) == offsetof(q2_ent, origin) + 12 &&
                       offsetof(q2_ent, sound) == offsetof(q2_ent, angles) + 6,
                   "q2_ent: 16 bytes from origin, 8 from angles");
    _Static_assert(offsetof(cl_entstate, angles) == 12 && offsetof(cl_entstate, model) == 24,
                   "cl_entstate: origin, angles, then the models");
    __m128 o = _mm_mul_ps(_mm_cvtepi32_ps(_mm_loadu_si128((const __m128i *)q->origin)),
                          _mm_set1_ps(0.125f));
    __m128i a16 = _mm_loadl_epi64((const __m128i *)q->angles);
    __m128 a = _mm_mul_ps(_mm_cvtepi32_ps(_mm_srai_epi32(_mm_unpacklo_epi16(a16, a16), 16)),
                          _mm_set1_ps(360.0f / 65536.0f));
    _mm_storeu_ps(e->origin, o);
    _mm_storeu_ps(e->angles, a);
#else
    for (int i = 0; i < 3; i++) {
        e->origin[i] = (float)q->origin[i] * 0.125f;
        e->angles[i] = (float)q->angles[i] * (360.0f / 65536.0f);
    }
#endif
    e->model = (uint16_t)q2_model_slot(nm, q->model[0]);
    e->model2 = (uint16_t)q2_model_slot(nm, q->model[1]);
    int client = q->skin & 0xff;
    /* [KMQ2] cl_ents.c CL_AddPacketEntities: MAX_MODELS - 1 */
    const unsigned custom = nm->ext == Q2_CSMAP_KMQ2 ? Q2_KMQ2_CUSTOM_MODEL : Q2_CUSTOM_MODEL;
    if (client < CL_MAX_PLAYERS && q->model[0] == custom)
        e->model = (uint16_t)(Q2_PLAYER_MODEL_SLOT + client);
    int vwep = q->skin >> 8 & 0xff; /* CL_AddPacketEntities: 0 or unknown is weapon.md2 */
    if (client < CL_MAX_PLAYERS && q->model[1] == custom)
        e->model2 = (uint16_t)(vwep >= 1 && vwep <= nm->num_vweps
                                   ? Q2_PLAYER_VWEP_SLOT + client * Q2_MAX_VWEPS + vwep - 1
                                   : Q2_PLAYER_WEAPON_SLOT + client);
    /* [Q2CL cl_ents.c CL_AddPacketEntities] autoanim = 2 * cl.time / 1000, cl.time being the
     * frame's server time (serverframe x 100 ms) as it is shown */
    uint32_t autoanim = server_ms / 500;
    if (q->effects & Q2_EF_ANIM01)
        e->frame = (uint16_t)(autoanim & 1);
    else if (q->effects & Q2_EF_ANIM23)
        e->frame = (uint16_t)(2 + (autoanim & 1));
    else if (q->effects & Q2_EF_ANIM_ALL)
        e->frame = (uint16_t)autoanim;
    else if (q->effects & Q2_EF_ANIM_ALLFAST)
        e->frame = (uint16_t)(server_ms / 100);
    else
        e->frame = q->frame;
    e->skin = (uint16_t)(q->skin & 0xff); /* skinnum >> 8 is the vwep model [DM2 3.15] */
    e->fx = demo_fx_map(q2_fx, sizeof q2_fx / sizeof q2_fx[0], q->effects);
    if (q->number >= 1 && q->number <= max_clients && q->number <= CL_MAX_PLAYERS)
        e->player = (uint8_t)q->number; /* client k's body is entity k + 1 */
    if (q->renderfx & Q2_RF_TRANSLUCENT)
        e->alpha = 77; /* 0.3, as the reference client draws it */
    if (q->alpha) /* Q2PRO extended U_ALPHA, U_SCALE: x 255, x 16 as the client's [Q2X] */
        e->alpha = q->alpha;
    e->scale = q->scale;
    if (q->renderfx & Q2_RF_FULLBRIGHT)
        e->flags |= CL_EF_FULLBRIGHT;
    if (q->renderfx & Q2_RF_SHELL_RED)
        e->fx |= CL_FX_GLOW_RED;
    if (q->renderfx & Q2_RF_SHELL_BLUE)
        e->fx |= CL_FX_GLOW_BLUE;
}

/* The first entry from k on of frame nf (delta'd from the frame shown last) that the
 * client cannot simply keep: one the delta read or a carry fixed up (not dd_shared), an
 * EF_ANIM* one (its frame moves with the clock) or the recorder's body when its look
 * changed (body_sent: its number, else -1); nf->count when none is. A loop of its own, so
 * that it runs in registers: it passes every entity a frame carries. */
static uint32_t kept_run(const q2_state *s, const dd_frame *nf, uint32_t k, int body_sent)
{
    /* (frames with no EF_ANIM* entity and no body to send walk the merge's list instead,
     * emit_entities: this runs for the others) */
    const uint32_t *refs = s->store.refs;
    const uint16_t *nums = s->store.ref_num;
    for (; k < nf->count; k++) { /* dd_shared, dd_ent and dd_num on q2's store */
        uint32_t at = (nf->first + k) & (Q2_ENT_REFS - 1), ref = refs[at];
        if ((int32_t)(ref - nf->made) >= 0 ||
            (s->store.pool[ref & (Q2_ENT_POOL - 1)].effects & Q2_EF_ANIM_ANY) ||
            nums[at] == body_sent)
            break;
    }
    return k;
}

/* Entity q of the frame shown, old its entry in the frame shown before (NULL: none) [Q2CL
 * cl_ents.c CL_AddPacketEntities]: kept when it looks as it did, else updated or new; body
 * the recorder's body's number, whose look body_now gives when body_changed. */
static void emit_one(ctx *c, const q2_ent *q, const q2_ent *old, int body, int body_changed,
                     uint8_t body_now)
{
    q2_state *s = c->s;
    /* cl_ents.c CL_AddPacketEntities / S_AddLoopSounds: an entity's sound loops */
    cl_entity_set_loop(c->cl, q->number, q->sound);
    if (old && !q->event && same_look(old, q) && !(q->effects & Q2_EF_ANIM_ANY) &&
        (q->number != body || !body_changed) && cl_entity_keep(c->cl, q->number))
        return;
    cl_entstate e;
    q2_ent_look(q, s->max_clients, &s->names,
                s->serverframe > 0 ? (uint32_t)s->serverframe * 100u : 0, &e);
    _Static_assert(offsetof(q2_ent, origin) + 16 <= sizeof(q2_ent), "apart3");
    int snap = old && (old->model[0] != q->model[0] || q->event == Q2_EV_PLAYER_TELEPORT ||
                       q->event == Q2_EV_OTHER_TELEPORT || apart3(q->origin, old->origin, 512 * 8));
    if (snap)
        e.flags = CL_EF_TELEPORT;
    if (q->number == body)
        e.flags |= body_now;
    if (old)
        cl_entity_update(c->cl, q->number, &e);
    else /* new to the frame: in from its old origin */
        q2_entity_new(c->cl, q, &e);
    cl_list_add(c->cl, q->number);
}

/* Send the frame's entities to the client. An entity snaps (CL_EF_TELEPORT) when it was not
 * in the previous frame, changed model, moved over 512 units on an axis, or carries a
 * teleport event [Q2CL cl_ents.c CL_DeltaEntity]. One that looks as in the previous frame
 * is only kept (cl_entity_keep), which is most of them. */
static void emit_entities(ctx *c, const dd_frame *new_frame, const uint16_t *gone, int ngone,
                          const uint16_t *rec_at, const void *const *rec_src, int nrec)
{
    q2_state *s = c->s;
    dd_store v = STORE(s);
    /* local copies: the client calls below cannot change them, so they stay in registers */
    const dd_frame nf_copy = *new_frame, *nf = &nf_copy;
    dd_frame pf_copy;
    const dd_frame *pf = last_frame(s);
    if (pf && pf->seq != nf->seq - 1 && s->isdemo != Q2_RECORD_SERVER)
        pf = NULL;
    if (pf) {
        pf_copy = *pf;
        pf = &pf_copy;
    }
    /* Entities carried from the frame shown last look as they did there: they are kept
     * without a look at their old state. */
    int keep_carried = pf && dd_from_shown(v, nf);
    /* The recorder's body (entity slot + 1) takes its dead look from the player state: when
     * that changed, the body is sent, not kept. */
    const int body = s->playernum >= 0 ? s->playernum + 1 : -1;
    const uint8_t body_now = body_flags(frame_ps(s, nf));
    const int body_changed = pf && body_flags(frame_ps(s, pf)) != body_now;
    /* Delta'd from the frame shown last with its removals known (ngone >= 0): the client
     * keeps the entities carried unchanged without a look at them (cl_list_keep_rest), as
     * every entity of that frame is in its last list; the removed ones leave it. */
    const int whole = keep_carried && ngone >= 0;
    int carried = 0;
    cl_list_begin(c->cl);
    for (int i = 0; whole && i < ngone; i++)
        cl_list_leave(c->cl, gone[i]);
    if (whole && !body_changed && !s->anim_read && nrec >= 0) {
        /* The merge listed the entries the delta made (dd_merge.rec_at: its puts) with
         * their entries in the frame shown, which is the source: every other entry was
         * carried, shared or copied with the fix-up (carry: event spent, old_origin, which
         * emit_one would keep as they are), so only those are looked at, with no pass over
         * the rest (kept_run) and no search for their old entries. */
        for (int r = 0; r < nrec; r++)
            emit_one(c, dd_ent(v, nf, rec_at[r]), rec_src[r], body, body_changed, body_now);
        cl_list_keep_rest(c->cl, (int)nf->count - nrec);
        return;
    }
    uint32_t pi = 0;
    for (uint32_t k = 0; k < nf->count; k++) {
        if (whole) {
            uint32_t next = kept_run(s, nf, k, body_changed ? body : -1);
            carried += (int)(next - k);
            if ((k = next) == nf->count)
                break;
        }
        /* an EF_ANIM* entity's frame moves with the clock: sent every frame */
        if (keep_carried && dd_shared(v, nf, k) &&
            !(((const q2_ent *)dd_ent(v, nf, k))->effects & Q2_EF_ANIM_ANY)) {
            int num = dd_num(v, nf, k);
            if (num != body || !body_changed) {
                if (whole) {
                    carried++;
                    continue;
                }
                if (cl_entity_keep(c->cl, num))
                    continue;
            }
        }
        const q2_ent *q = dd_ent(v, nf, k);
        const q2_ent *old = NULL;
        while (pf && pi < pf->count && dd_num(v, pf, pi) < q->number)
            pi++;
        if (pf && pi < pf->count && dd_num(v, pf, pi) == q->number)
            old = dd_ent(v, pf, pi);
        emit_one(c, q, old, body, body_changed, body_now);
    }
    if (whole)
        cl_list_keep_rest(c->cl, carried);
}

/* ---- svc_serverdata [DM2 3.13] ---- */

static const char *protocol_family(int32_t p)
{
    switch (p) {
    case Q2_PROTOCOL_300: return "Quake II 3.00, the test release";
    case Q2_PROTOCOL_R1Q2: return "R1Q2";
    case Q2_PROTOCOL_Q2PRO: return "Q2PRO";
    case Q2_PROTOCOL_Q2PRO_MVD: return "a Q2PRO multi-view demo";
    case Q2_PROTOCOL_KMQ2: return "KMQuake2";
    case Q2_PROTOCOL_Q2PRO_EXT: return "Q2PRO extended";
    case Q2_PROTOCOL_Q2PRO_EXT2: return "Q2PRO extended v2";
    case Q2_PROTOCOL_Q2PRO_EXT_FOG: return "Q2PRO extended v2 with player fog";
    case 2022:
    case 2023: return "the Quake II rerelease";
    default: return "not a protocol of id's Quake II";
    }
}

/* A look ahead at the level's set-up: *r the next block of the file from *pos (its messages
 * to read next), 0 when there is none or it is the 64th (*blocks counts them). */
static int next_block(const uint8_t *data, size_t len, rd_t *r, size_t *pos, int *blocks)
{
    if (len - *pos < 4 || ++*blocks >= 64)
        return 0;
    rd_t h = rd_make(data + *pos, len - *pos);
    uint32_t size = rd_u32(&h);
    if (size == 0 || size > Q2_MAX_BLOCK || size > len - *pos - 4)
        return 0;
    *r = rd_make(data + *pos + 4, size);
    *pos += 4 + size;
    return 1;
}

/* CS_MAXCLIENTS (index maxclients) from the configstrings that follow svc_serverdata: the
 * rest of this block (r) and the blocks after it (from pos), as long as configstrings come.
 * 0 when absent. */
static int find_maxclients(const uint8_t *data, size_t len, rd_t r, size_t pos, int maxclients)
{
    char str[Q2_STRING_MAX];
    for (int blocks = 0; blocks < 64;) {
        if (rd_left(&r) == 0) {
            if (!next_block(data, len, &r, &pos, &blocks))
                return 0;
            continue;
        }
        if (rd_u8(&r) != Q2_SVC_CONFIGSTRING)
            return 0;
        int index = rd_s16(&r);
        rd_str(&r, str, sizeof str);
        if (r.err)
            return 0;
        if (index == maxclients)
            return demo_small_atoi(str);
    }
    return 0;
}

/* 1 when the messages after svc_serverdata read cleanly with entity layout es, as far as
 * they are the level's set-up (configstrings, baselines, text) in this block (r) and the
 * blocks after it (from pos): up to the first svc_frame, another message or 64 blocks.
 * *angles counts the baselines that sent an angle. */
static int setup_reads(const uint8_t *data, size_t len, rd_t r, size_t pos, unsigned es,
                       int *angles)
{
    char str[Q2_STRING_MAX];
    *angles = 0;
    for (int blocks = 0; blocks < 64;) {
        if (rd_left(&r) == 0) {
            if (!next_block(data, len, &r, &pos, &blocks))
                return 1;
            continue;
        }
        switch (rd_u8(&r)) {
        case Q2_SVC_CONFIGSTRING:
            (void)rd_s16(&r);
            /* fall through */
        case Q2_SVC_STUFFTEXT:
        case Q2_SVC_CENTERPRINT:
            rd_str(&r, str, sizeof str);
            break;
        case Q2_SVC_PRINT:
            (void)rd_u8(&r);
            rd_str(&r, str, sizeof str);
            break;
        case Q2_SVC_NOP:
            break;
        case Q2_SVC_SPAWNBASELINE: {
            uint64_t bits;
            q2_ent e;
            memset(&e, 0, sizeof e);
            int num = read_ent_bits(&r, &bits, es);
            if (num <= 0 || num >= Q2_MAX_EDICTS_EXT || (bits & Q2_U_REMOVE))
                return 0;
            *angles += (bits & (Q2_U_ANGLE1 | Q2_U_ANGLE2 | Q2_U_ANGLE3)) != 0;
            kmq2_delta(&r, &e, num, (uint32_t)bits, es);
            break;
        }
        case Q2_SVC_FRAME:
            return !r.err;
        default:
            return 0;
        }
        if (r.err)
            return 0;
    }
    return 1;
}

/* KMQuake2's entity layout [KMQ2]: its builds send the entities' angles as bytes (as the
 * realdata demo, and Knightmare's cl_ents.c) or, later ones (MaxED's common.c
 * MSG_WriteDeltaEntity), as words, under the same protocol number. The baselines after
 * svc_serverdata are written by the same code: the words when they read cleanly and the
 * bytes do not, else the bytes. */
static unsigned kmq2_es(const ctx *c, size_t ahead)
{
    int a8, a16;
    if (setup_reads(c->data, c->len, c->r, ahead, Q2_ES_KMQ2, &a8) || !a8)
        return Q2_ES_KMQ2;
    if (setup_reads(c->data, c->len, c->r, ahead, Q2_ES_KMQ2 | Q2_ES_KMQ2_ANGLE16, &a16))
        return Q2_ES_KMQ2 | Q2_ES_KMQ2_ANGLE16;
    return Q2_ES_KMQ2;
}

static void level_reset(q2_state *s)
{
    dd_reset(STORE(s));
    memset(s->ps_ring, 0, sizeof s->ps_ring);
    memset(s->baselines, 0, s->baseline_hw * sizeof s->baselines[0]); /* the rest is zero */
    s->baseline_hw = 0;
    memset(&s->names, 0, sizeof s->names);
    s->last_emitted = -1;
    s->pending = s->have_ps = 0;
    if (s->frames) {
        s->time_base = s->time + 0.1; /* the next level goes on one frame later */
        s->have_frame0 = 0;
    }
}

static int decoded_protocol(int32_t proto)
{
    return (proto >= Q2_PROTOCOL_MIN && proto <= Q2_PROTOCOL_MAX) ||
           proto == Q2_PROTOCOL_R1Q2 || proto == Q2_PROTOCOL_Q2PRO || q2_ext_of(proto) ||
           proto == Q2_PROTOCOL_KMQ2;
}

/* The configstring maps [DM2 3.14], [Q2X] (shared.h CS_* and MAX_CONFIGSTRINGS with and
 * without USE_PROTOCOL_EXTENSIONS; q2proto MAX_CONFIGSTRINGS_EXTENDED 13630). */
static const q2_csmap cs_maps[3] = {
    {Q2_CS_MAXCLIENTS, Q2_CS_MODELS, Q2_CS_SOUNDS, Q2_CS_IMAGES, Q2_CS_LIGHTS, Q2_CS_ITEMS,
     Q2_CS_PLAYERSKINS, Q2_CS_GENERAL, Q2_MAX_CONFIGSTRINGS},
    {60, 62, 62 + Q2_MAX_MODELS_EXT, 62 + Q2_MAX_MODELS_EXT + Q2_MAX_SOUNDS_EXT,
     62 + Q2_MAX_MODELS_EXT + Q2_MAX_SOUNDS_EXT + Q2_MAX_IMAGES_EXT, 12350 + 256,
     12350 + 2 * 256, 12350 + 3 * 256, 12350 + 3 * 256 + 512},
    /* KMQuake2 [KMQ2] q_shared.h: CS_SOUNDS 8224 .. CS_GENERAL 19232, then CS_PAKFILE (the
     * map's .pk3), MAX_CONFIGSTRINGS 19745 */
    {Q2_CS_MAXCLIENTS, Q2_CS_MODELS, 8224, 16416, 18464, 18720, 18976, 19232, 19745},
};
_Static_assert(8224 == Q2_CS_MODELS + Q2_MAX_MODELS_EXT && 16416 == 8224 + Q2_MAX_SOUNDS_KMQ2 &&
                   18464 == 16416 + Q2_MAX_IMAGES_EXT,
               "KMQuake2's map: 8192 models and sounds, 2048 images");
_Static_assert(Q2_CS_MODELS + Q2_MAX_MODELS == Q2_CS_SOUNDS, "id's map");

const q2_csmap *q2_csmap_of(int map)
{
    return &cs_maps[map == Q2_CSMAP_Q2PRO || map == Q2_CSMAP_KMQ2 ? map : Q2_CSMAP_ID];
}

/* Why a protocol of id's own is not decoded: what of it no public document gives
 * (q2_local.h Q2_PROTOCOL_300). "" for the others. */
static const char *undocumented(int32_t p)
{
    return p == Q2_PROTOCOL_300 ? ": no public document gives its message ids (3.05 reordered "
                                  "them) or its svc_spawnbaseline layout"
                                : "";
}

static qd_err check_protocol(ctx *c, int32_t proto)
{
    if (decoded_protocol(proto))
        return QD_OK;
    return fail(c, QD_ERR_UNSUPPORTED, c->msg_ofs,
                "Quake II demo, protocol %d (%s): not supported%s; qdemo decodes protocols "
                "26..34, R1Q2's 35, Q2PRO's 36, KMQuake2's 56 and Q2PRO's extended 3434..3436",
                (int)proto, protocol_family(proto), undocumented(proto));
}

/* What R1Q2 and Q2PRO add to svc_serverdata [R1Q2]: 35 a byte (an "enhanced" server), the
 * minor version, and from 1903 a byte of advanced deltas and one of the strafe-jump hack;
 * 36 the minor version, a byte of server state, then from 1024 a flags word, before it
 * three bytes (strafe jump, QW mode, water jump). Returns the minor version, or -1 after
 * failing. */
static int serverdata_tail(ctx *c, int32_t proto)
{
    rd_t *r = &c->r;
    int minor = 0;
    if (proto == Q2_PROTOCOL_R1Q2) {
        (void)rd_u8(r);
        minor = rd_u16(r);
        if (minor >= 1903)
            rd_skip(r, 2);
    } else if (proto == Q2_PROTOCOL_Q2PRO) {
        minor = rd_u16(r);
        (void)rd_u8(r);
        if (!r->err && minor < 1015) {
            fail(c, QD_ERR_UNSUPPORTED, c->msg_ofs,
                 "svc_serverdata: Q2PRO minor version %d (1015 and later are decoded)", minor);
            return -1;
        }
        if (minor >= Q2_Q2PRO_EXTENDED_LIMITS) {
            unsigned pflags = rd_u16(r);
            if (!r->err && (pflags & Q2_Q2PRO_PF_EXTENSIONS)) {
                /* a raw protocol-36 stream of an extended game; Q2PRO's own demos of one are
                 * 3434..3436, which qdemo decodes [Q2X] */
                fail(c, QD_ERR_UNSUPPORTED, c->msg_ofs,
                     "svc_serverdata: Q2PRO's extended limits (protocol flag 0x%x) in a raw "
                     "protocol 36 stream, which qdemo does not decode (it decodes Q2PRO's "
                     "extended demos, 3434..3436)", pflags);
                return -1;
            }
        } else {
            rd_skip(r, 3);
        }
    }
    return minor;
}

/* Where an svc_serverdata's look for its level's set-up (find_maxclients, setup_reads) goes
 * on after the rest of its message (c->r): the blocks after this one, once a block. Another
 * in the same block looks no further than its own messages (c->len: no block): each
 * svc_zpacket's inflated body ends there, so a block of a thousand zpackets holding a
 * serverdata each read the same 64 blocks a thousand times (4 MB: 5 s; a review). */
static size_t ahead_from(ctx *c)
{
    q2_state *s = c->s;
    if (s->ahead_mark == s->pos + 1)
        return c->len;
    s->ahead_mark = s->pos + 1;
    return (size_t)s->pos;
}

static qd_err parse_serverdata(ctx *c)
{
    q2_state *s = c->s;
    rd_t *r = &c->r;
    char gamedir[64], level[CL_NAME_LEN];
    int32_t proto = rd_s32(r);
    qd_err e = check_protocol(c, proto);
    if (e)
        return e;
    int32_t servercount = rd_s32(r);
    int isdemo = rd_u8(r);
    rd_str(r, gamedir, sizeof gamedir);
    int playernum = rd_s16(r);
    rd_str(r, level, sizeof level);
    int minor = serverdata_tail(c, proto);
    if (minor < 0)
        return QD_ERR_UNSUPPORTED;
    if (r->err)
        return truncated(c, "svc_serverdata");
    if (isdemo == Q2_RECORD_RELAY)
        return fail(c, QD_ERR_UNSUPPORTED, c->msg_ofs,
                    "svc_serverdata: a Relay (RLA) recording, which qdemo does not decode");
    if (isdemo != Q2_RECORD_NETWORK && isdemo != Q2_RECORD_CLIENT && isdemo != Q2_RECORD_SERVER)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_serverdata: recording type %d", isdemo);
    if (isdemo != Q2_RECORD_SERVER && playernum == -1) { /* (the name escaped: one line) */
        char shown[300];
        return fail(c, QD_ERR_UNSUPPORTED, c->msg_ofs,
                    "svc_serverdata: a cinematic (\"%s\"), not a game recording",
                    demo_escape(shown, sizeof shown, level));
    }
    if (isdemo != Q2_RECORD_SERVER && (playernum < 0 || playernum >= 256))
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_serverdata: player slot %d", playernum);
    frame_close(c);
    s->protocol = proto;
    s->minor = minor;
    s->ext = (uint8_t)q2_ext_of(proto);
    s->kmq2 = proto == Q2_PROTOCOL_KMQ2;
    const size_t ahead = ahead_from(c);
    s->es = (uint8_t)(s->kmq2 ? kmq2_es(c, ahead) : es_of(proto, minor));
    s->pos_kind = (uint8_t)(s->kmq2 ? Q2_POS_KMQ2 : s->ext >= 2 ? Q2_POS_I23 : Q2_POS_SHORT);
    s->fog = proto >= Q2_PROTOCOL_Q2PRO_EXT_FOG && s->ext;
    s->max_edicts = s->ext || s->kmq2 ? Q2_MAX_EDICTS_EXT : Q2_MAX_EDICTS;
    s->servercount = servercount;
    s->isdemo = (uint8_t)isdemo;
    s->playernum = isdemo == Q2_RECORD_SERVER ? -1 : playernum;
    s->have_level = 1;
    level_reset(s);
    s->names.ext = (uint8_t)(s->kmq2 ? Q2_CSMAP_KMQ2 : s->ext ? Q2_CSMAP_Q2PRO : Q2_CSMAP_ID);
    s->max_clients = find_maxclients(c->data, c->len, *r, ahead,
                                     q2_csmap_of(s->names.ext)->maxclients);
    cl_level_begin(c->cl, CL_GAME_Q2, proto, s->max_clients, level);
    cl_set_gamedir(c->cl, gamedir[0] ? gamedir : "baseq2");
    TRACE(c, "svc_serverdata",
          "protocol=%d servercount=%d isdemo=%d gamedir=\"%s\" player=%d maxclients=%d "
          "level=\"%s\" minor=%d",
          (int)proto, (int)servercount, isdemo, esc_b(c, gamedir), playernum,
          (int)s->max_clients, esc(c, level), minor);
    return QD_OK;
}

/* ---- svc_configstring [DM2 3.14] ---- */

/* n bytes of s appended to the string dst (cap bytes) at *at, cut as snprintf cuts (what
 * fits, then the NUL); 0 when cut. The sound and player model names are built this way,
 * not by snprintf: a frame starts several sounds, a level names every player's models. */
static int append(char *dst, size_t cap, size_t *at, const char *s, size_t n)
{
    size_t k = n < cap - 1 - *at ? n : cap - 1 - *at;
    memcpy(dst + *at, s, k);
    *at += k;
    dst[*at] = 0;
    return k == n;
}

/* Client slot's body, skin and weapon model slots from "model/skin" (Q2_PLAYER_MODEL_SLOT);
 * an empty or malformed look clears them (a model or skin name is one path element). */
static void player_models(cl_state *cl, const q2_names *nm, int slot, const char *look)
{
    if (slot >= CL_MAX_PLAYERS)
        return;
    const char *sl = strchr(look, '/');
    int ok = sl && sl > look && sl[1] && !strchr(sl + 1, '/') && !strchr(look, '.') &&
             strlen(look) < CL_NAME_LEN - 24;
    if (!ok && Q2_PLAYER_MODEL_SLOT + slot >= cl->level.num_models)
        return; /* nothing to clear */
    /* "players/<model>/" then the file: as snprintf "players/%.*s/..." made them (append) */
    char dir[CL_NAME_LEN] = "", body[CL_NAME_LEN] = "", weapon[CL_NAME_LEN] = "",
         skin[CL_NAME_LEN] = "";
    size_t dir_n = 0;
    if (ok) {
        (void)(append(dir, sizeof dir, &dir_n, "players/", 8) &&
               append(dir, sizeof dir, &dir_n, look, (size_t)(sl - look)) &&
               append(dir, sizeof dir, &dir_n, "/", 1));
        size_t at = dir_n;
        memcpy(body, dir, dir_n + 1);
        append(body, sizeof body, &at, "tris.md2", 8);
        at = dir_n;
        memcpy(weapon, dir, dir_n + 1);
        append(weapon, sizeof weapon, &at, "weapon.md2", 10);
        at = dir_n;
        memcpy(skin, dir, dir_n + 1);
        (void)(append(skin, sizeof skin, &at, sl + 1, strlen(sl + 1)) &&
               append(skin, sizeof skin, &at, ".pcx", 4));
    }
    cl_set_model(cl, Q2_PLAYER_MODEL_SLOT + slot, body);
    cl_set_model(cl, Q2_PLAYER_WEAPON_SLOT + slot, weapon);
    cl_set_model(cl, Q2_PLAYER_MODEL_SLOT + slot + CL_SKIN_SLOTS, skin);
    for (int k = 0; k < Q2_MAX_VWEPS; k++) {
        char w[CL_NAME_LEN] = "";
        if (ok && k < nm->num_vweps) {
            const char *v = cl->level.models[nm->vwep_model[k]] + 1;
            size_t at = dir_n;
            memcpy(w, dir, dir_n + 1);
            append(w, sizeof w, &at, v, strnlen(v, CL_NAME_LEN - 24));
        }
        int at = Q2_PLAYER_VWEP_SLOT + slot * Q2_MAX_VWEPS + k;
        if (w[0] || at < cl->level.num_models)
            cl_set_model(cl, at, w);
    }
}

/* The "#" CS_MODELS names in index order (their client slots: below 256, and an extended
 * map's from Q2_EXT_MODEL_SLOT) after a "#" name came or went; every player's view weapons
 * named anew when the list changed (a "#" name may come after the skins). */
static void vweps(cl_state *cl, q2_names *nm)
{
    uint8_t old_n = nm->num_vweps;
    uint16_t old[Q2_MAX_VWEPS];
    memcpy(old, nm->vwep_model, sizeof old);
    nm->num_vweps = 0;
    for (int i = 1; i < cl->level.num_models && nm->num_vweps < Q2_MAX_VWEPS; i++) {
        if (i == Q2_MAX_MODELS) {
            if (!nm->ext)
                break;
            i = Q2_EXT_MODEL_SLOT;
            if (i >= cl->level.num_models)
                break;
        }
        if (cl->level.models[i][0] == '#' && cl->level.models[i][1])
            nm->vwep_model[nm->num_vweps++] = (uint16_t)i;
    }
    if (old_n == nm->num_vweps && memcmp(old, nm->vwep_model, old_n * sizeof old[0]) == 0)
        return;
    for (int p = 0; p < CL_MAX_PLAYERS; p++)
        if (cl->players[p].model[0]) {
            char look[2 * CL_NAME_LEN + 2];
            snprintf(look, sizeof look, "%s/%s", cl->players[p].model, cl->players[p].skin);
            player_models(cl, nm, p, look);
        }
}

/* A layout program into its slot of cl_layout, cut at its size. */
static void layout_copy(char dst[CL_LAYOUT_LEN], const char *src)
{
    size_t n = strlen(src);
    n = n < CL_LAYOUT_LEN - 1 ? n : CL_LAYOUT_LEN - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* The scores a scoreboard layout shows (g_cmds.c DeathmatchScoreboardMessage: "client x y
 * clientnum score ping time" for each player; the CTF one's "ctf x y clientnum score ping"):
 * the other players' only scores a Quake II demo holds, as the game shows them then (the
 * recorder's comes with every frame, STAT_FRAGS). The program read as cl_scrn.c
 * SCR_ExecuteLayoutString reads it, each command taking its arguments (so a `string`'s text
 * is never a command). */
static void layout_scores(cl_state *cl, int self, const char *prog)
{
    static const struct {
        const char *name;
        int args;
    } cmds[] = {{"xl", 1}, {"xr", 1}, {"xv", 1}, {"yt", 1}, {"yb", 1}, {"yv", 1}, {"pic", 1},
                {"picn", 1}, {"num", 2}, {"string", 1}, {"string2", 1}, {"cstring", 1},
                {"cstring2", 1}, {"if", 1}, {"client", 5}, {"ctf", 5}};
    char t[64], v[6][16];
    while ((prog = qd_token(prog, t, sizeof t, 0, NULL)) != NULL) {
        int c = 0, n = (int)(sizeof cmds / sizeof cmds[0]);
        while (c < n && strcmp(t, cmds[c].name))
            c++;
        if (c == n)
            continue; /* (hnum, anum, rnum, endif and what it does not know: no arguments) */
        int args = cmds[c].args + !strcmp(t, "client"), k = 0; /* (client: and its time) */
        for (; k < args && (prog = qd_token(prog, v[k], sizeof v[k], 0, NULL)) != NULL; k++)
            ;
        if (k < args)
            return;
        int who = qd_atoi(v[2]);
        if (cmds[c].args == 5 && who >= 0 && who < CL_MAX_PLAYERS && who != self &&
            cl->players[who].active) {
            cl_set_player_frags(cl, who, qd_atoi(v[3]));
            cl_set_player_ping(cl, who, qd_atoi(v[4]));
        }
    }
}

void q2_configstring(cl_state *cl, q2_names *nm, int index, char *str, uint32_t str_ofs)
{
    const q2_csmap *cs = q2_csmap_of(nm->ext);
    if (index >= cs->models && index < cs->sounds) {
        int n = index - cs->models, slot = q2_model_slot(nm, n);
        int was_vwep = slot && slot < cl->level.num_models && cl->level.models[slot][0] == '#';
        if (slot) /* an extended index past the client's slots is not shown */
            cl_set_model(cl, slot, str);
        nm->model_weapon[n] = q2_model_weapon(str);
        if (was_vwep || str[0] == '#')
            vweps(cl, nm);
        if (n == 1) {
            cl_set_map(cl, str); /* the world: "maps/q2dm1.bsp" */
            char text[2 * CL_NAME_LEN + 2];
            snprintf(text, sizeof text, "%s %s", cl->level.map, cl->level.title);
            simple_event(cl, CL_EV_LEVEL, text);
        }
    } else if (index >= cs->sounds && index < cs->images) {
        if (index - cs->sounds < (nm->ext == Q2_CSMAP_KMQ2 ? Q2_KMQ2_SOUND_BASE
                                                         : Q2_EXT_SOUND_BASE))
            cl_set_sound(cl, index - cs->sounds, str);
    } else if (index >= cs->images && index < cs->lights) {
        int n = index - cs->images;
        nm->image_kind[n] = q2_image_kind(str);
        /* the layout programs' images: the first CL_LAYOUT_IMAGES (an extended map's
         * others are not drawn by `pic`) */
        char *img = n < CL_LAYOUT_IMAGES ? cl->layout.images[n] : NULL;
        size_t len = strlen(str); /* a name too long for the slot is left out */
        if (img && len < sizeof cl->layout.images[0])
            memcpy(img, str, len + 1);
        else if (img)
            img[0] = 0;
    } else if (index == Q2_CS_STATUSBAR) {
        layout_copy(cl->layout.statusbar, str);
    } else if (index == Q2_CS_SKY) {
        snprintf(cl->level.sky, sizeof cl->level.sky, "%s", str);
    } else if (index >= cs->items && index < cs->items + Q2_MAX_ITEMS) {
        /* the name is read back from the file when picked up (pickup_event) */
        nm->item_ofs[index - cs->items] = str_ofs;
    } else if (index >= cs->lights && index < cs->items) {
        cl_set_lightstyle(cl, index - cs->lights, str);
    } else if (index >= cs->playerskins && index < cs->general) {
        /* "name\model/skin" */
        int slot = index - cs->playerskins;
        char *bs = strchr(str, '\\');
        if (bs)
            *bs = 0;
        cl_set_player_name(cl, slot, str);
        cl_set_player_entity(cl, slot, str[0] ? slot + 1 : -1);
        if (bs) {
            *bs = '\\';
            char *sl = strchr(bs + 1, '/');
            if (sl)
                *sl = 0;
            cl_set_player_look(cl, slot, bs + 1, sl ? sl + 1 : "", "");
            if (sl)
                *sl = '/';
        }
        player_models(cl, nm, slot, bs ? bs + 1 : "");
    }
}

static qd_err parse_configstring(ctx *c)
{
    rd_t *r = &c->r;
    char str[Q2_STRING_MAX];
    int index = rd_s16(r);
    rd_str(r, str, sizeof str);
    if (r->err)
        return truncated(c, "svc_configstring");
    /* [Q2CL cl_parse.c CL_ParseConfigString]: i < 0 || i >= MAX_CONFIGSTRINGS (13630 in
     * an extended demo [Q2X]) */
    int end = q2_csmap_of(c->s->names.ext)->end;
    if (index < 0 || index >= end)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_configstring: index %d over %d", index,
                    end - 1);
    /* the string's file offset (item names are read back from there); none for one
     * inflated from an svc_zpacket */
    q2_configstring(c->cl, &c->s->names, index, str,
                    c->s->in_zpacket ? 0u : (uint32_t)(c->msg_ofs + 3));
    TRACE(c, "svc_configstring", "index=%d string=\"%s\"", index, esc(c, str));
    return QD_OK;
}

/* ---- svc_spawnbaseline [DM2 3.15] ---- */

/* Baseline num (checked by the caller) zeroed, for a delta from nothing to fill. */
static q2_ent *baseline_slot(q2_state *s, int num)
{
    if ((uint32_t)num >= s->baseline_hw)
        s->baseline_hw = (uint32_t)num + 1;
    q2_ent *b = &s->baselines[num];
    memset(b, 0, sizeof *b);
    return b;
}

static qd_err parse_baseline(ctx *c)
{
    rd_t *r = &c->r;
    uint64_t bits;
    int num = read_ent_bits(r, &bits, c->s->es);
    if (r->err)
        return truncated(c, "svc_spawnbaseline");
    if (num >= c->s->max_edicts)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_spawnbaseline: entity %d over %d", num,
                    c->s->max_edicts - 1);
    q2_ent *b = baseline_slot(c->s, num);
    read_delta(r, b, num, bits, c->s->es);
    if (r->err)
        return truncated(c, "svc_spawnbaseline");
    const char *what;
    int over = ent_over_limits(b, &what);
    if (over >= 0)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_spawnbaseline: entity %d: %s %d",
                    num, what, over);
    TRACE(c, "svc_spawnbaseline", "ent=%d bits=0x%08llx model=%d origin=%.1f,%.1f,%.1f", num,
          (unsigned long long)bits, b->model[0], b->origin[0] * 0.125, b->origin[1] * 0.125,
          b->origin[2] * 0.125);
    return QD_OK;
}

/* ---- svc_frame [DM2 3.21, Q2CL CL_ParseFrame] ---- */

static qd_err parse_playerinfo(ctx *c);
static qd_err parse_packetentities(ctx *c, int cmd);

static qd_err parse_frame(ctx *c)
{
    q2_state *s = c->s;
    rd_t *r = &c->r;
    if (!s->have_level)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_frame before svc_serverdata");
    if (s->pending)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs,
                    "svc_frame while the frame before lacks its entities");
    frame_close(c);
    int32_t serverframe, deltaframe = -1;
    int suppress = 0, areabytes = 0;
    int packed = s->protocol == Q2_PROTOCOL_R1Q2 || s->protocol == Q2_PROTOCOL_Q2PRO;
    s->eps = 0;
    if (packed && s->isdemo != Q2_RECORD_SERVER) {
        /* [R1Q2] CL_ParseFrame: the frame in 27 bits and how far back its source is in 5
         * (31: none); a byte of suppress count or frame flags with EPS bits 0..3 above, the
         * command byte's top bits EPS 4..6; the area bits; then the player state and the
         * entities, without their own command bytes */
        uint32_t w = rd_u32(r);
        serverframe = (int32_t)(w & ((1u << Q2_FRAMENUM_BITS) - 1));
        unsigned back = w >> Q2_FRAMENUM_BITS;
        deltaframe = back == 31 ? -1 : serverframe - (int32_t)back;
        unsigned fl = rd_u8(r);
        suppress = (int)(fl & 15);
        s->eps = (fl >> 4) | (c->cmd_extra << 4);
        areabytes = rd_u8(r);
        if (areabytes > Q2_MAX_AREABYTES)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_frame: %d area bytes over %d",
                        areabytes, Q2_MAX_AREABYTES);
        rd_skip(r, (size_t)areabytes);
    } else if (s->isdemo == Q2_RECORD_SERVER) {
        serverframe = rd_s32(r);
    } else {
        serverframe = rd_s32(r);
        deltaframe = rd_s32(r);
        if (s->protocol != 26)
            suppress = rd_u8(r);
        areabytes = rd_u8(r);
        if (areabytes > Q2_MAX_AREABYTES)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_frame: %d area bytes over %d",
                        areabytes, Q2_MAX_AREABYTES);
        rd_skip(r, (size_t)areabytes);
    }
    if (r->err)
        return truncated(c, "svc_frame");
    if (serverframe < 0)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_frame: frame number %d",
                    (int)serverframe);
    s->serverframe = serverframe;
    s->deltaframe = deltaframe;
    s->cur_valid = 1;
    if (deltaframe > 0) {
        /* The source must still be in the ring and its entities in the pool, with room
         * for a whole new frame after them [Q2CL: "Delta frame too old"]. */
        dd_store v = STORE(s);
        const dd_frame *old = dd_slot(v, (uint32_t)deltaframe);
        if ((!old->valid || old->seq != (uint32_t)deltaframe) && s->resynced) {
            /* Its source was in the damaged bytes: the newest frame kept stands in (most
             * of a delta's entities are the same), so the demo plays on past the damage. */
            const dd_frame *best = NULL;
            for (int i = 0; i < Q2_UPDATE_BACKUP; i++) {
                const dd_frame *f = &v.frames[i];
                if (f->valid && (int32_t)f->seq < serverframe &&
                    (!best || f->seq > best->seq))
                    best = f;
            }
            if (best) {
                deltaframe = (int32_t)best->seq;
                s->deltaframe = deltaframe;
            }
        }
        if (!dd_source(v, (uint32_t)deltaframe)) {
            s->cur_valid = 0;
            s->deltaframe = -1; /* parsed against nothing, then not shown */
            s->bad_deltas++;
        }
    }
    if (!s->have_frame0) {
        s->frame0 = serverframe;
        s->have_frame0 = 1;
    }
    double t = s->time_base + (double)((int64_t)serverframe - s->frame0) * 0.1;
    if (s->frames && t < s->time)
        t = s->time;
    s->time = t;
    s->frames++;
    s->pending = 1;
    s->have_ps = 0;
    if (s->isdemo == Q2_RECORD_SERVER)
        frame_open(c, t, NULL);
    TRACE(c, "svc_frame", "serverframe=%d deltaframe=%d suppress=%d areabytes=%d%s",
          (int)serverframe, (int)deltaframe, suppress, areabytes,
          s->cur_valid ? "" : " (delta source gone: not shown)");
    if (packed && s->isdemo != Q2_RECORD_SERVER) {
        qd_err e = parse_playerinfo(c);
        return e ? e : parse_packetentities(c, Q2_SVC_PACKETENTITIES);
    }
    return QD_OK;
}

/* ---- sounds the client starts itself [Q2CL cl_fx.c, cl_tent.c] ---- */

/* A number standing in for the engine's rand(): a hash of values a seek meets again (the
 * server frame and two of the caller's), so an export repeats and a seek hears what playing
 * heard. */
static uint32_t roll(const q2_state *s, uint32_t a, uint32_t b)
{
    uint32_t h = (uint32_t)s->serverframe * 0x9e3779b1u ^ (a + 1) * 0x85ebca6bu ^
                 (b + 1) * 0xc2b2ae35u;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    return h ^ (h >> 16);
}

/* The precache slot of sound name started on entity ent [Q2CL snd_dma.c S_StartSound]: a
 * "*" name is the entity's player model's own, "#players/<model>/<name>", the model from its
 * CS_PLAYERSKINS "name\model/skin", "male" when there is none (S_RegisterSexedSound; the file
 * falls back to the male one when the model lacks it, snd_load.c); slot (its server index,
 * or 0 to add name past the server's) else. 0 when there is no room. */
static int sound_slot(ctx *c, const char *name, int ent, int slot)
{
    const q2_csmap *cs = q2_csmap_of(c->s->names.ext);
    /* the client's own from past the server's (KMQuake2's from Q2_KMQ2_SOUND_BASE) */
    int first = c->s->kmq2 ? Q2_KMQ2_SOUND_BASE : cs->images - cs->sounds;
    if (first > Q2_EXT_SOUND_BASE)
        first = Q2_EXT_SOUND_BASE; /* (the extended map's 2048) */
    char sexed[CL_NAME_LEN];
    if (name[0] == '*') {
        const char *model = ent >= 1 && ent <= c->s->max_clients && ent <= CL_MAX_PLAYERS
                                ? c->cl->players[ent - 1].model
                                : "";
        const char *m = model[0] ? model : "male";
        size_t at = 0;
        if (append(sexed, sizeof sexed, &at, "#players/", 9) &&
            append(sexed, sizeof sexed, &at, m, strlen(m)) &&
            append(sexed, sizeof sexed, &at, "/", 1) &&
            append(sexed, sizeof sexed, &at, name + 1, strlen(name + 1))) {
            int at = cl_sound_intern(c->cl, first, sexed);
            if (at)
                return at;
        }
    }
    return slot ? slot : cl_sound_intern(c->cl, first, name);
}

/* Start snd as the client's S_StartSound does: on entity ent (<= 0: none) and from org
 * (NULL: where the entity is, followed), at volume vol (0..1), its "%d" variant picked by
 * r; the name goes on a precache slot past the server's (none left: silent). */
static void start_sound(ctx *c, const q2_snd *snd, uint32_t r, int ent, float vol,
                        const float *org)
{
    int var = snd->variants ? (int)(r % snd->variants) : 0, slot = 0;
    /* (a "*" sound's slot depends on the entity's model: not kept) */
    int keep = snd->name[0] != '*';
    /* (keyed by the name: the tables' entries are copied, their names are static) An open
     * table: from the key's hash, the slot holding it, else the first empty or stale one (a
     * level before) is where it goes, else (Q2_SFX_PROBE full slots) the first. Its size
     * and the probes make a miss a key's first use in a level whatever the names'
     * addresses are (a 5-minute duel starts some 20 keys; a direct-mapped table of 32 under
     * the address's low bits missed 8 times as often, by where the linker put the names). */
    const uint32_t level = c->cl->level_count;
    const uint32_t key = (uint32_t)((uintptr_t)snd->name >> 3) ^ (uint32_t)var << 24;
    unsigned h = (unsigned)((key * 0x9e3779b1u) >> (32 - Q2_SFX_BITS)), put = h;
    int hit = 0;
    for (int k = 0; keep && k < Q2_SFX_PROBE; k++, h = (h + 1) & (Q2_SFX_SLOTS - 1)) {
        const q2_sfx *e = &c->s->sfx[h];
        if (!e->snd || e->level != level) { /* (the key is in no later slot) */
            put = h;
            break;
        }
        if (e->snd == snd->name && e->var == var) {
            hit = 1;
            break;
        }
    }
    if (hit) {
        slot = c->s->sfx[h].slot;
    } else {
        char name[CL_NAME_LEN], digits[12];
        const char *pct = strstr(snd->name, "%d");
        size_t at = 0, nd = 0;
        if (pct && snd->variants) { /* the variant's number, 1 up, in place of the %d */
            for (unsigned v = (unsigned)var + 1; v; v /= 10)
                digits[sizeof digits - ++nd] = (char)('0' + v % 10);
            (void)(append(name, sizeof name, &at, snd->name, (size_t)(pct - snd->name)) &&
                   append(name, sizeof name, &at, digits + sizeof digits - nd, nd) &&
                   append(name, sizeof name, &at, pct + 2, strlen(pct + 2)));
        } else {
            append(name, sizeof name, &at, snd->name, strlen(snd->name));
        }
        slot = sound_slot(c, name, ent, 0);
        if (keep && slot) {
            c->s->sfx[put].snd = snd->name;
            c->s->sfx[put].var = (uint8_t)var;
            c->s->sfx[put].level = level;
            c->s->sfx[put].slot = (uint16_t)slot;
        }
    }
    if (!slot)
        return;
    cl_sound so;
    memset(&so, 0, sizeof so);
    so.sound = (uint16_t)slot;
    so.entity = (int16_t)(ent > 0 ? ent : -1);
    so.channel = snd->chan;
    so.volume = (uint8_t)(vol * 255 + 0.5f);
    so.attenuation = snd->att;
    if (org) {
        memcpy(so.origin, org, sizeof so.origin);
        so.has_origin = 1;
    }
    cl_sound_add_after(c->cl, &so, snd->delay);
}

/* The sounds of the events of a frame shown [Q2CL cl_ents.c CL_FireEntityEvents, cl_fx.c
 * CL_EntityEvent]: only an entity the frame sent can hold one (a carried one's is cleared,
 * read_delta), so those listed are all. */
static void frame_events(ctx *c, const dd_frame *nf, const uint16_t *evented, int n)
{
    dd_store v = STORE(c->s);
    uint32_t k = 0;
    for (int i = 0; i < n; i++) {
        while (k < nf->count && dd_num(v, nf, k) < evented[i])
            k++;
        if (k == nf->count || dd_num(v, nf, k) != evented[i])
            continue;
        const q2_ent *q = dd_ent(v, nf, k);
        q2_snd snd;
        if (q->event && q2_event_sound(q->event, &snd))
            start_sound(c, &snd, roll(c->s, q->number, q->event), q->number, 1.0f, NULL);
    }
}

/* ---- svc_playerinfo [DM2 3.18] ---- */

static inline uint64_t read_stats(rd_t *r, int16_t stats[Q2_MAX_STATS], int ext2);

/* The player state's fields after the move's origin and velocity, as 34 sends them, in the
 * layouts that read them one by one (R1Q2, Q2PRO, KMQuake2): pm_time .. the view offset. */
static void ps_move_tail(rd_t *r, q2_pstate *ps, unsigned flags)
{
    if (flags & Q2_PS_M_TIME)
        ps->pm_time = rd_u8(r);
    if (flags & Q2_PS_M_FLAGS)
        ps->pm_flags = rd_u8(r);
    if (flags & Q2_PS_M_GRAVITY)
        ps->gravity = rd_s16(r);
    for (int i = 0; (flags & Q2_PS_M_DELTA_ANGLES) && i < 3; i++)
        ps->delta_angles[i] = rd_s16(r);
    for (int i = 0; (flags & Q2_PS_VIEWOFFSET) && i < 3; i++)
        ps->viewoffset[i] = rd_s8(r);
}

/* ... and the blend, fov and refdef flags, which come before the stats. */
static void ps_screen(rd_t *r, q2_pstate *ps, unsigned flags)
{
    for (int i = 0; (flags & Q2_PS_BLEND) && i < 4; i++)
        ps->blend[i] = rd_u8(r);
    if (flags & Q2_PS_FOV)
        ps->fov = rd_u8(r);
    if (flags & Q2_PS_RDFLAGS)
        ps->rdflags = rd_u8(r);
}

/* R1Q2 / Q2PRO's player state [R1Q2] (msg.c MSG_ParseDeltaPlayerstate_Enhanced): 34's
 * flags and order, the frame's EPS bits adding origin z, velocity z, the view's roll, the
 * gun's offset and angles (the weapon frame bit now carries only the frame), the stats
 * only with EPS_STATS, and (36) the client number last. Returns the stat bits read. */
static uint32_t read_ps_eps(ctx *c, q2_pstate *ps, unsigned flags)
{
    rd_t *r = &c->r;
    uint32_t eps = c->s->eps;
    if (flags & Q2_PS_M_TYPE)
        ps->pm_type = rd_u8(r);
    if (flags & Q2_PS_M_ORIGIN) {
        ps->origin[0] = rd_s16(r);
        ps->origin[1] = rd_s16(r);
    }
    if (eps & Q2_EPS_M_ORIGIN2)
        ps->origin[2] = rd_s16(r);
    if (flags & Q2_PS_M_VELOCITY) {
        ps->velocity[0] = rd_s16(r);
        ps->velocity[1] = rd_s16(r);
    }
    if (eps & Q2_EPS_M_VELOCITY2)
        ps->velocity[2] = rd_s16(r);
    ps_move_tail(r, ps, flags);
    if (flags & Q2_PS_VIEWANGLES) {
        ps->viewangles[0] = rd_s16(r);
        ps->viewangles[1] = rd_s16(r);
    }
    if (eps & Q2_EPS_VIEWANGLE2)
        ps->viewangles[2] = rd_s16(r);
    for (int i = 0; (flags & Q2_PS_KICKANGLES) && i < 3; i++)
        ps->kick_angles[i] = rd_s8(r);
    if (flags & Q2_PS_WEAPONINDEX)
        ps->gunindex = rd_u8(r);
    if (flags & Q2_PS_WEAPONFRAME)
        ps->gunframe = rd_u8(r);
    for (int i = 0; (eps & Q2_EPS_GUNOFFSET) && i < 3; i++)
        ps->gunoffset[i] = rd_s8(r);
    for (int i = 0; (eps & Q2_EPS_GUNANGLES) && i < 3; i++)
        ps->gunangles[i] = rd_s8(r);
    ps_screen(r, ps, flags);
    uint32_t statbits = 0;
    if (eps & Q2_EPS_STATS)
        statbits = (uint32_t)read_stats(r, ps->stats, 0);
    if ((eps & Q2_EPS_CLIENTNUM) && c->s->protocol == Q2_PROTOCOL_Q2PRO) {
        /* the player the view follows (a spectator's chase target) */
        int cn = c->s->minor >= Q2_Q2PRO_CLIENTNUM_SHORT ? rd_s16(r) : rd_u8(r);
        if (!r->err && cn >= 0 && cn < 256 && c->s->isdemo != Q2_RECORD_SERVER)
            c->s->playernum = cn;
    }
    return statbits;
}

/* KMQuake2's player state [KMQ2] (cl_ents.c CL_ParsePlayerstate, sv_ents.c
 * SV_WritePlayerstateToClient) under its 32-bit flags: 34's order with the move origin in
 * 24-bit coordinates, the gun a word and a second gun's word after it (read past), the
 * gun's offset and angles after either gun's frame byte, then the gun skins and the five
 * move speeds (bits 15, 18..23: a word each, read past) before the blend. The stats: 256
 * under a 32-bit mask whose bit i & 31 sends stat i (the writer's shift by i past 31 is
 * x86's, by i mod 32), in order; the client keeps the first 32. Returns the mask. */
static uint32_t read_ps_kmq2(ctx *c, q2_pstate *ps, uint32_t flags)
{
    rd_t *r = &c->r;
    if (flags & Q2_PS_M_TYPE)
        ps->pm_type = rd_u8(r);
    for (int i = 0; (flags & Q2_PS_M_ORIGIN) && i < 3; i++)
        ps->origin[i] = read_coord24(r);
    for (int i = 0; (flags & Q2_PS_M_VELOCITY) && i < 3; i++)
        ps->velocity[i] = rd_s16(r);
    ps_move_tail(r, ps, flags);
    for (int i = 0; (flags & Q2_PS_VIEWANGLES) && i < 3; i++)
        ps->viewangles[i] = rd_s16(r);
    for (int i = 0; (flags & Q2_PS_KICKANGLES) && i < 3; i++)
        ps->kick_angles[i] = rd_s8(r);
    if (flags & Q2_PS_WEAPONINDEX)
        ps->gunindex = rd_u16(r);
    if (flags & Q2_PS_WEAPONINDEX2_KMQ2)
        (void)rd_u16(r);
    if (flags & (Q2_PS_WEAPONFRAME | Q2_PS_WEAPONFRAME2_KMQ2)) {
        if (flags & Q2_PS_WEAPONFRAME)
            ps->gunframe = rd_u8(r);
        if (flags & Q2_PS_WEAPONFRAME2_KMQ2)
            (void)rd_u8(r);
        for (int i = 0; i < 3; i++)
            ps->gunoffset[i] = rd_s8(r);
        for (int i = 0; i < 3; i++)
            ps->gunangles[i] = rd_s8(r);
    }
    rd_skip(r, 2 * (size_t)__builtin_popcount(flags & Q2_PS_WORDS_KMQ2));
    ps_screen(r, ps, flags);
    uint32_t statbits = rd_u32(r);
    for (int i = 0; statbits && i < Q2_KMQ2_STATS && !r->err; i++)
        if (statbits >> (i & 31) & 1) {
            int16_t v = rd_s16(r);
            if (i < Q2_MAX_STATS)
                ps->stats[i] = v;
        }
    return statbits;
}

/* Q2PRO's extended player state [Q2X]: the fog (3436, q2proto extdemo reader; msg.c
 * MSG_ReadFog), read past: a bits byte, then colour (3 bytes), density and sky factor (two
 * words), height density, height falloff (words), start and end colours (3 bytes each),
 * start and end distances (int23). */
static inline void skip_fog(rd_t *r)
{
    static const uint8_t size[6] = {3, 4, 2, 2, 3, 3};
    unsigned bits = rd_u8(r);
    for (int i = 0; i < 6; i++)
        if (bits >> i & 1)
            rd_skip(r, size[i]);
    for (int i = 6; i < 8; i++)
        if (bits >> i & 1)
            (void)read_i23(r, 0);
}

void q2_skip_fog(rd_t *r) { skip_fog(r); }

/* A varint stat mask (3435..): 7 bits a byte, low first, while the top bit is set
 * (msg.c MSG_ReadVarInt64); at most 10 bytes. */
static uint64_t read_varint64(rd_t *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        unsigned b = rd_u8(r);
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
    }
    return v;
}

static inline void read_blend(rd_t *r, uint8_t blend[4], int ext2)
{
    unsigned m = ext2 ? rd_u8(r) : 0x0fu; /* 3435..: bits 0..3 the blend, 4..7 the damage's */
    for (int i = 0; i < 8; i++)
        if (m >> i & 1) {
            uint8_t v = rd_u8(r);
            if (i < 4)
                blend[i] = v;
        }
}

void q2_read_blend(rd_t *r, uint8_t blend[4], int ext2) { read_blend(r, blend, ext2); }

/* The values statbits announces (stats 32..63 read past: the client keeps 32). */
static inline void read_stat_values(rd_t *r, int16_t stats[Q2_MAX_STATS], uint64_t statbits)
{
    for (; statbits; statbits &= statbits - 1) { /* the set bits, lowest first */
        int i = __builtin_ctzll(statbits);
        int16_t v = rd_s16(r);
        if (i < Q2_MAX_STATS)
            stats[i] = v;
    }
}

static inline uint64_t read_stats(rd_t *r, int16_t stats[Q2_MAX_STATS], int ext2)
{
    uint64_t statbits = ext2 ? read_varint64(r) : rd_u32(r);
    read_stat_values(r, stats, statbits);
    return statbits;
}

uint64_t q2_read_stats(rd_t *r, int16_t stats[Q2_MAX_STATS], int ext2)
{
    return read_stats(r, stats, ext2);
}

/* read_ps's reads (whole: see in_uint; then the layout is 26..34's). */
Q2_INLINE uint32_t ps_fields(ctx *c, q2_pstate *ps, unsigned flags, int whole)
{
    /* a copy of the reader, put back at the end: the byte stores into *ps could alias
     * c->r, which the compiler would then read again after each field */
    rd_t lr = c->r, *r = &lr;
    const uint8_t *b = r->p + r->pos;
    const int ext = whole ? 0 : c->s->ext;
    if (ext && c->s->fog && (flags & Q2_PS_MOREBITS))
        flags |= (unsigned)rd_u8(r) << 16;
#define READ_ROW(bit, field, kind, size, n)                                                \
    if (flags & (bit))                                                                     \
        in_row(r, &b, whole, flags & (bit), bit, 0, kind, &ps->field, size, n);
    PS_ROWS_TYPE(READ_ROW)
    if (ext >= 2) {
        for (int i = 0; (flags & Q2_PS_M_ORIGIN) && i < 3; i++)
            ps->origin[i] = read_i23(r, ps->origin[i]);
        for (int i = 0; (flags & Q2_PS_M_VELOCITY) && i < 3; i++)
            ps->velocity[i] = read_i23(r, ps->velocity[i]);
        PS_ROWS_TIME(READ_ROW, DD_U16)
    } else {
        PS_ROWS_MOVE(READ_ROW)
        PS_ROWS_TIME(READ_ROW, DD_U8)
    }
    PS_ROWS_VIEW(READ_ROW)
    if (ext) {
        PS_ROWS_GUN(READ_ROW, DD_U16)
        ps->gunindex &= (1u << Q2_GUNINDEX_BITS) - 1;
    } else {
        PS_ROWS_GUN(READ_ROW, DD_U8)
    }
    if ((flags & Q2_PS_BLEND) && whole)
        in_row(r, &b, 1, Q2_PS_BLEND, Q2_PS_BLEND, 0, DD_U8, ps->blend, 1, 4);
    else if (flags & Q2_PS_BLEND)
        read_blend(r, ps->blend, ext >= 2);
    if (flags & Q2_PS_FOG)
        skip_fog(r);
    PS_ROWS_END(READ_ROW)
#undef READ_ROW
    uint64_t statbits = ext >= 2 ? read_varint64(r) : in_uint(r, &b, whole, 4);
    if (whole)
        r->pos = (size_t)(b - r->p);
    read_stat_values(r, ps->stats, statbits);
    c->r = lr;
    return (uint32_t)statbits;
}

/* The bytes of 26..34's player state by its flags' two bytes (M_TYPE .. VIEWOFFSET,
 * VIEWANGLES .. RDFLAGS; WEAPONFRAME's 7 are the frame, the gun's offset and angles). */
static const uint8_t ps_bytes[2][256] = {
    {T8(0, 1, 6, 6, 1, 1, 2, 6, 3)},
    {T8(0, 6, 3, 4, 1, 1, 7, 1, 0)},
};

/* The player state of 26..34 [DM2 3.18] and of Q2PRO's extended demos [Q2X] (q2proto
 * q2pro_extdemo_client_read_playerstate): 3434 sends the gun's model as a word (13 bits:
 * the top 3 are its skin); 3435 origin and velocity as int23 deltas, pm_time and pm_flags
 * as words, the blend under a mask byte (then the damage blend, read past) and the stats
 * under a varint mask of 64 (stats 32..63 read past: the client keeps 32); 3436 a flags
 * byte more (PS_MOREBITS) whose bit 16 sends fog. Returns the stat bits read (of 0..31).
 * 26..34's fields and stat mask are checked once (ps_bytes), then read unchecked (whole:
 * see in_uint); the stats' values, which the mask announces, through the bounded reader. */
static uint32_t read_ps(ctx *c, q2_pstate *ps, unsigned flags)
{
    size_t need = (size_t)ps_bytes[0][flags & 0xff] + ps_bytes[1][flags >> 8 & 0xff] + 4;
    if (!c->s->ext && need <= rd_left(&c->r)) /* (a reader in error has 0 left) */
        return ps_fields(c, ps, flags, 1);
    return ps_fields(c, ps, flags, 0);
}

static qd_err parse_playerinfo(ctx *c)
{
    q2_state *s = c->s;
    rd_t *r = &c->r;
    if (s->isdemo == Q2_RECORD_SERVER || !s->pending || s->have_ps)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_playerinfo out of place");
    /* read over s->ps in place (no copy in and out): a read cut short leaves have_ps 0, so
     * no frame of this level takes s->ps until a player state is read whole
     * (packetentities needs have_ps; only a server recording's frames store it without,
     * and their player state is not shown: playernum -1, frame_open without one) */
    q2_pstate *ps = &s->ps;
    if (s->deltaframe > 0)
        *ps = s->ps_ring[s->deltaframe & Q2_UPDATE_MASK];
    else
        memset(ps, 0, sizeof *ps);
    unsigned flags = s->kmq2 ? rd_u32(r) : rd_u16(r); /* [KMQ2]: a long */
    uint32_t statbits = 0;
    if (s->kmq2)
        statbits = read_ps_kmq2(c, ps, flags);
    else if (s->protocol == Q2_PROTOCOL_R1Q2 || s->protocol == Q2_PROTOCOL_Q2PRO)
        statbits = read_ps_eps(c, ps, flags);
    else
        statbits = read_ps(c, ps, flags);
    if (r->err)
        return truncated(c, "svc_playerinfo");
    s->have_ps = 1;
    if (s->cur_valid)
        frame_open(c, s->time, ps);
    if (c->trace) { /* the stats sent: "stats=1:100,3:12" (slot:value) */
        char sent[32 * 12] = "";
        size_t n = 0;
        for (uint32_t i = 0; i < Q2_MAX_STATS && n < sizeof sent - 12; i++)
            if (statbits >> i & 1)
                n += (size_t)snprintf(sent + n, sizeof sent - n, "%s%u:%d", n ? "," : "",
                                      (unsigned)i, ps->stats[i]);
        TRACE(c, "svc_playerinfo", "flags=0x%04x statbits=0x%08x origin=%.1f,%.1f,%.1f "
              "pm_type=%d pm_flags=0x%02x stats=%s",
              flags, (unsigned)statbits, ps->origin[0] * 0.125, ps->origin[1] * 0.125,
              ps->origin[2] * 0.125, ps->pm_type, ps->pm_flags, sent[0] ? sent : "-");
    }
    return QD_OK;
}

/* ---- svc_packetentities [DM2 3.19], merged with the delta frame's list as the reference
 * client does [Q2CL cl_ents.c CL_ParsePacketEntities] ---- */

static qd_err packetentities(ctx *c, int cmd, dd_merge *m);

static qd_err parse_packetentities(ctx *c, int cmd)
{
    q2_state *s = c->s;
    int server = s->isdemo == Q2_RECORD_SERVER;
    if (!s->pending || (!server && !s->have_ps))
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s out of place", svc_name(cmd));
    /* A server recording deltas every entity from a zeroed state [Q2SV]. */
    dd_store v = STORE(s);
    const dd_frame *old = NULL;
    if (!server && s->deltaframe > 0)
        old = dd_slot(v, (uint32_t)s->deltaframe);
    dd_merge m;
    dd_merge_begin(&m, v, old, (uint32_t)s->serverframe);
    qd_err e = packetentities(c, cmd, &m);
    /* what the merge wrote, kept or abandoned, is below its heads (one merge moves them by
     * at most 2 x Q2_MAX_EDICTS, so a mark capped at the size never misses a wrap) */
    if (m.pool_head > s->pool_hw)
        s->pool_hw = m.pool_head < Q2_ENT_POOL ? m.pool_head : Q2_ENT_POOL;
    if (m.ref_head > s->ref_hw)
        s->ref_hw = m.ref_head < Q2_ENT_REFS ? m.ref_head : Q2_ENT_REFS;
    return e;
}

/* The entities of the open frame, merged by m (begun by parse_packetentities). */
static qd_err packetentities(ctx *c, int cmd, dd_merge *m)
{
    q2_state *s = c->s;
    rd_t *r = &c->r;
    int server = s->isdemo == Q2_RECORD_SERVER;
    dd_store v = STORE(s);
    int changed = 0, removed = 0, prev = 0;
    uint16_t gone[Q2_MAX_EDICTS]; /* the old entries removed (emit_entities) */
    int ngone = 0;
    uint16_t evented[Q2_MAX_EDICTS]; /* the entities sent with an event (frame_events) */
    int nevented = 0;
    uint16_t rec_at[Q2_MAX_EDICTS]; /* the frame's own entries (emit_entities) */
    const void *rec_src[Q2_MAX_EDICTS];
    m->rec_at = rec_at;
    m->rec_src = rec_src;
    m->rec_n = 0;
    m->rec_cap = Q2_MAX_EDICTS;
    for (;;) {
        /* (inside an svc_zpacket r is the inflated body: the zpacket's own offset) */
        /* (its offset for the failures below, made only by them) */
        const size_t ent_pos = r->pos;
#define ENT_OFS (c->s->in_zpacket ? c->msg_ofs : c->base + ent_pos)
        uint64_t bits;
        int num = read_ent_bits(r, &bits, s->es);
        if (r->err)
            return truncated(c, svc_name(cmd));
        if (num >= s->max_edicts)
            return fail(c, QD_ERR_BAD_DATA, ENT_OFS, "%s: entity %d over %d", svc_name(cmd), num,
                        s->max_edicts - 1);
        if (num == 0)
            break;
        if (num <= prev)
            return fail(c, QD_ERR_BAD_DATA, ENT_OFS, "%s: entity %d after %d, out of order",
                        svc_name(cmd), num, prev);
        prev = num;
        dd_merge_carry(m, num); /* unchanged since the delta frame */
        if (bits & Q2_U_REMOVE) {
            /* The reference client steps past the old entry whatever its number. */
            int gone_num = dd_merge_oldnum(m);
            if (gone_num != DD_NONE && ngone >= 0 && ngone < Q2_MAX_EDICTS)
                gone[ngone++] = (uint16_t)gone_num;
            else if (gone_num != DD_NONE)
                ngone = -1; /* (never: a frame holds Q2_MAX_EDICTS) */
            dd_merge_skip(m);
            removed++;
            continue;
        }
        static const q2_ent null_ent;
        const q2_ent *from = dd_merge_old(m, num), *src = from;
        if (!from)
            from = server ? &null_ent : &s->baselines[num];
        q2_ent *to = dd_merge_put(m, num);
        if (!to)
            break;
        dd_merge_record(m, m->nf.count - 1u, src);
        *to = *from;
        read_delta(r, to, num, bits, s->es);
        s->anim_read |= (to->effects & Q2_EF_ANIM_ANY) != 0; /* (emit_entities) */
        changed++;
        if (to->event && nevented < Q2_MAX_EDICTS)
            evented[nevented++] = (uint16_t)num;
        if (r->err)
            return truncated(c, svc_name(cmd));
        const char *field;
        int over = ent_within_limits(to) ? -1 : ent_over_limits(to, &field);
        if (over >= 0)
            return fail(c, QD_ERR_BAD_DATA, ENT_OFS, "%s: entity %d: %s %d", svc_name(cmd), num, field,
                        over);
    }
#undef ENT_OFS
    const dd_frame *nf = dd_merge_end(m, s->cur_valid);
    if (!nf) /* an extended demo's frame past the store's 1024 (Q2PRO sends at most 512) */
        return fail(c, QD_ERR_LIMIT, c->msg_ofs, "%s: over %d entities in a frame", svc_name(cmd),
                    Q2_MAX_EDICTS);
    int slot = s->serverframe & Q2_UPDATE_MASK;
    s->ps_ring[slot] = s->ps;
    s->pending = 0;
    if (nf->valid)
        s->resynced = 0; /* whole again: deltas must name their real source */
    if (nf->valid) {
        emit_entities(c, nf, gone, ngone, m->rec_at, m->rec_src,
                      m->rec_at ? (int)m->rec_n : -1);
        frame_events(c, nf, evented, nevented);
        s->last_emitted = slot;
        dd_shown(v, nf);
    } else {
        s->last_emitted = -1;
        dd_shown(v, NULL);
    }
    unsigned n = nf->count;
    TRACE(c, svc_name(cmd), "entities=%u changed=%d removed=%d", (unsigned)n, changed, removed);
    return QD_OK;
}

/* ---- svc_temp_entity [DM2 3.4] ---- */

enum { TE_POINT, TE_IMPACT, TE_LINE, TE_SPECIAL, TE_ENT_LINE, TE_BAD, TE_ENT_COUNT, TE_SHORT };

static int te_class(int type, int protocol)
{
    switch (type) {
    case 5: case 6: case 7: case 8: case 17: case 18: case 20: case 21: case 22: case 28:
    case 35: case 45: case 47: case 48: case 49: case 51: case 52: case 53: case 54:
        return TE_POINT;
    case 0: case 1: case 2: case 4: case 9: case 12: case 13: case 14: case 30: case 42:
    case 43: case 44: case 46: case 55:
        return TE_IMPACT;
    case 3: case 11: case 23: case 34: case 41:
        return TE_LINE;
    case 26: /* TE_GREENBLOOD from 3.15, TE_PLASMATRAIL before */
        return protocol >= 32 ? TE_IMPACT : TE_LINE;
    case 27: /* TE_BLUEHYPERBLASTER from 3.15, TE_GREENBLOOD before */
        return protocol >= 32 ? TE_LINE : TE_IMPACT;
    case 10: case 15: case 25: case 29:
        return TE_SPECIAL;
    case 16: case 19: case 38: case 39:
        return TE_ENT_LINE;
    default:
        return TE_BAD;
    }
}

/* The temp entities Q2PRO's extended demos add [Q2X] (parse.c CL_ParseTEntPacket,
 * q2proto_read_gamemsg.inc): the rerelease's 56..63 and TE_DAMAGE_DEALT (128). */
static int te_class_q2x(int type)
{
    switch (type) {
    case 56: case 58: /* TE_BLUEHYPERBLASTER_2, TE_BERSERK_SLAM */
        return TE_IMPACT;
    case 57: /* TE_BFG_ZAP */
        return TE_LINE;
    case 59: case 61: /* TE_GRAPPLE_CABLE_2, TE_LIGHTNING_BEAM */
        return TE_ENT_LINE;
    case 60: /* TE_POWER_SPLASH: entity, count */
        return TE_ENT_COUNT;
    case 62: case 63: /* TE_EXPLOSION1_NL, TE_EXPLOSION2_NL */
        return TE_POINT;
    case 128: /* TE_DAMAGE_DEALT: a short */
        return TE_SHORT;
    default:
        return TE_BAD;
    }
}

/* KMQuake2's temp entities [KMQ2] (cl_tempent.c CL_ParseTEnt): TE_BLUEHYPERBLASTER (27) a
 * position and a direction (id's: two positions), TE_RAILTRAIL2 (31) two positions,
 * TE_REDBLASTER (56) and TE_SHOCKSPLASH (57) a position and a direction; id's cls else. */
static int te_class_kmq2(int type, int cls)
{
    switch (type) {
    case 27: case 56: case 57:
        return TE_IMPACT;
    case 31:
        return TE_LINE;
    default:
        return cls;
    }
}

static qd_err parse_temp_entity(ctx *c)
{
    q2_state *s = c->s;
    rd_t *r = &c->r;
    const int ext = s->ext;
    demo_temp te;
    memset(&te, 0, sizeof te);
    te.entity = -1;
    int type = rd_u8(r), dir = 0, count = 0, style = 0;
    float scratch[3];
    te.type = type;
    int cls = te_class(type, s->protocol);
    if (cls == TE_BAD && ext)
        cls = te_class_q2x(type);
    if (s->kmq2)
        cls = te_class_kmq2(type, cls);
    switch (cls) {
    case TE_POINT:
        read_pos(r, te.origin, s->pos_kind);
        break;
    case TE_IMPACT:
        read_pos(r, te.origin, s->pos_kind);
        dir = read_dir(r);
        break;
    case TE_LINE:
        read_pos(r, te.origin, s->pos_kind);
        read_pos(r, te.end, s->pos_kind);
        break;
    case TE_SPECIAL: /* splash, laser/welding/tunnel sparks */
        count = rd_u8(r);
        read_pos(r, te.origin, s->pos_kind);
        dir = read_dir(r);
        style = rd_u8(r);
        break;
    case TE_ENT_LINE: /* parasite/medic cable, heat beams */
        te.entity = rd_s16(r);
        read_pos(r, te.origin, s->pos_kind);
        read_pos(r, te.end, s->pos_kind);
        break;
    case TE_ENT_COUNT:
        te.entity = rd_s16(r);
        count = rd_u8(r);
        break;
    case TE_SHORT:
        count = rd_s16(r);
        break;
    default:
        switch (type) {
        case 24: /* TE_GRAPPLE_CABLE: entity, start, end, offset */
            te.entity = rd_s16(r);
            read_pos(r, te.origin, s->pos_kind);
            read_pos(r, te.end, s->pos_kind);
            read_pos(r, scratch, s->pos_kind);
            break;
        case 32: /* TE_FLAME: entity, count, start, origin, pos1..4 [DM2 3.4] */
            te.entity = rd_s16(r);
            count = rd_s16(r);
            read_pos(r, te.origin, s->pos_kind);
            read_pos(r, te.end, s->pos_kind);
            for (int i = 0; i < 4; i++)
                read_pos(r, scratch, s->pos_kind);
            break;
        case 33: /* TE_LIGHTNING: two entities, start, end [Q2CL CL_ParseLightning] */
            te.entity = rd_s16(r);
            (void)rd_s16(r);
            read_pos(r, te.origin, s->pos_kind);
            read_pos(r, te.end, s->pos_kind);
            break;
        case 36: /* TE_FLASHLIGHT: origin, entity */
            read_pos(r, te.origin, s->pos_kind);
            te.entity = rd_s16(r);
            break;
        case 37: /* TE_FORCEWALL: start, end, colour. The spec reads a short; the reference
                  * client reads a byte [Q2CL cl_tent.c CL_ParseTEnt], and so do we. */
            read_pos(r, te.origin, s->pos_kind);
            read_pos(r, te.end, s->pos_kind);
            style = rd_u8(r);
            break;
        case 40: { /* TE_STEAM: id, count, origin, dir, colour, magnitude, [wait] */
            int id = rd_s16(r);
            count = rd_u8(r);
            read_pos(r, te.origin, s->pos_kind);
            dir = read_dir(r);
            style = rd_u8(r);
            (void)rd_s16(r);
            if (id != -1)
                (void)rd_s32(r);
            break;
        }
        case 50: /* TE_WIDOWBEAMOUT: id, origin */
            (void)rd_s16(r);
            read_pos(r, te.origin, s->pos_kind);
            break;
        default: /* TE_RAILTRAIL2 (31) and unknown types */
            if (r->err)
                return truncated(c, "svc_temp_entity");
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_temp_entity: bad type %d", type);
        }
    }
    if (r->err)
        return truncated(c, "svc_temp_entity");
    if (dir < 0)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_temp_entity: direction out of range");
    cl_fxev fx;
    memset(&fx, 0, sizeof fx);
    if (q2_temp_fx(type, s->protocol, &fx)) {
        memcpy(fx.origin, te.origin, sizeof fx.origin);
        memcpy(fx.end, te.end, sizeof fx.end);
        fx.entity = (int16_t)(te.entity >= 0 && te.entity < s->max_edicts ? te.entity : -1);
        if (fx.kind != CL_FXK_EXPLOSION) /* (an explosion's is its model: q2_temp_fx) */
            fx.style = (uint8_t)style;
        cl_fx_add(c->cl, &fx);
    }
    q2_snd snd;
    int where;
    /* the place stands in for the entity in the roll: a temp entity has none */
    uint32_t place = (uint32_t)(int32_t)(te.origin[0] * 8) * 73856093u ^
                     (uint32_t)(int32_t)(te.origin[1] * 8) * 19349663u ^
                     (uint32_t)(int32_t)(te.origin[2] * 8) * 83492791u;
    if (q2_temp_sound(type, s->protocol, style, roll(s, place, (uint32_t)type), &snd, &where)) {
        int ent = where == Q2_TS_ENTITY && te.entity > 0 && te.entity < s->max_edicts;
        if (where != Q2_TS_ENTITY || ent)
            start_sound(c, &snd, 0, ent ? te.entity : 0, 1.0f,
                        ent ? NULL : where == Q2_TS_END ? te.end : te.origin);
    }
    TRACE(c, "svc_temp_entity", "type=%d ent=%d origin=%.1f,%.1f,%.1f end=%.1f,%.1f,%.1f "
          "dir=%d count=%d style=%d",
          type, (int)te.entity, te.origin[0], te.origin[1], te.origin[2], te.end[0], te.end[1],
          te.end[2], dir, count, style);
    return QD_OK;
}

/* ---- svc_sound [DM2 3.10] ---- */

static qd_err parse_sound(ctx *c)
{
    rd_t *r = &c->r;
    const int ext = c->s->ext;
    unsigned mask = rd_u8(r);
    /* an extended demo's SND_INDEX16: a word [Q2X] (parse.c CL_ParseStartSoundPacket);
     * always a word in KMQuake2's [KMQ2] (cl_parse.c CL_ParseStartSoundPacket) */
    int num = c->s->kmq2 || (ext && (mask & Q2_SND_INDEX16)) ? rd_u16(r) : rd_u8(r);
    int vol = 255, attn = 64, ofs = 0, ent = 0, chan = 0;
    float pos[3] = {0, 0, 0};
    if (mask & Q2_SND_VOLUME)
        vol = rd_u8(r);
    if (mask & Q2_SND_ATTENUATION)
        attn = rd_u8(r);
    if (mask & Q2_SND_OFFSET)
        ofs = rd_u8(r);
    if (mask & Q2_SND_ENT) {
        unsigned ec = rd_u16(r);
        ent = (int)(ec >> 3);
        chan = (int)(ec & 7);
    }
    if (mask & Q2_SND_POS)
        read_pos(r, pos, c->s->pos_kind);
    if (r->err)
        return truncated(c, "svc_sound");
    if (ent > Q2_MAX_EDICTS && !ext && !c->s->kmq2)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_sound: entity %d over %d", ent,
                    Q2_MAX_EDICTS);
    /* [Q2X] "bad index"; a byte never is */
    const int max_sounds = c->s->kmq2 ? Q2_MAX_SOUNDS_KMQ2 : Q2_MAX_SOUNDS_EXT;
    if (num >= max_sounds)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_sound: sound %d over %d", num,
                    max_sounds - 1);
    if (c->s->kmq2 && num >= Q2_KMQ2_SOUND_BASE)
        num = 0; /* a server sound the client has no slot for (Q2_KMQ2_SOUND_BASE): silent */
    cl_sound snd;
    memset(&snd, 0, sizeof snd);
    snd.sound = (uint16_t)num;
    if (num > 0 && num < c->cl->level.num_sounds && c->cl->level.sounds[num][0] == '*')
        snd.sound = (uint16_t)sound_slot(c, c->cl->level.sounds[num], ent, num);
    snd.entity = (int16_t)((mask & Q2_SND_ENT) ? ent : -1);
    snd.channel = (uint8_t)chan;
    snd.volume = (uint8_t)vol;
    snd.attenuation = (uint8_t)attn;
    if (mask & Q2_SND_POS) {
        memcpy(snd.origin, pos, sizeof snd.origin);
        snd.has_origin = 1;
    }
    /* [Q2CL cl_parse.c CL_ParseStartSoundPacket]: ofs is milliseconds, and S_StartSound
     * begins the sound that much later (snd_dma.c: start + timeofs * dma.speed) */
    cl_sound_add_after(c->cl, &snd, ofs / 1000.0);
    TRACE(c, "svc_sound", "sound=%d vol=%d attn=%d ofs=%d ent=%d chan=%d pos=%.1f,%.1f,%.1f",
          num, vol, attn, ofs, ent, chan, pos[0], pos[1], pos[2]);
    return QD_OK;
}

/* ---- events and effects of the small messages ---- */

/* A muzzle flash on entity ent (1..Q2_MAX_EDICTS-1), style the MZ_* / MZ2_* weapon number
 * (a player's with its silenced bit), with its sounds for a player's (player 1). */
static void muzzle_flash(ctx *c, int ent, int style, int player)
{
    /* its light (yquake2 cl_effects.c CL_ParseMuzzleFlash, facts only): radius 200 (a
     * silenced shot's 100, the chaingun's 200, 225, 250 by burst; the renderer adds
     * rand() & 31), in the weapon's colour (x 255); a monster's (CL_AddMuzzleFlash2) 200
     * and mostly yellow. The tracker's negative light is left out (0). */
    static const uint8_t mz_rgb[36][3] = {
        [0] = {255, 255, 0},    /* BLASTER */       [1] = {255, 255, 0},    /* MACHINEGUN */
        [2] = {255, 255, 0},    /* SHOTGUN */       [3] = {255, 64, 0},     /* CHAINGUN1 */
        [4] = {255, 128, 0},    /* CHAINGUN2 */     [5] = {255, 255, 0},    /* CHAINGUN3 */
        [6] = {128, 128, 255},  /* RAILGUN */       [7] = {255, 128, 51},   /* ROCKET */
        [8] = {255, 128, 0},    /* GRENADE */       [9] = {0, 255, 0},      /* LOGIN */
        [10] = {255, 0, 0},     /* LOGOUT */        [11] = {255, 255, 0},   /* RESPAWN */
        [12] = {0, 255, 0},     /* BFG */           [13] = {255, 255, 0},   /* SSHOTGUN */
        [14] = {255, 255, 0},   /* HYPERBLASTER */  [16] = {255, 128, 128}, /* IONRIPPER */
        [17] = {0, 0, 255},     /* BLUEHYPERBLASTER */ [18] = {255, 128, 128}, /* PHALANX */
        [30] = {230, 179, 0},   /* ETF_RIFLE */     [32] = {255, 255, 0},   /* SHOTGUN2 */
        [34] = {0, 255, 0},     /* BLASTER2 */      /* [35] TRACKER: -1 -1 -1, left out */
    };
    int mz = style & ~Q2_MZ_SILENCED;
    float radius = !player                    ? 200
                   : style & Q2_MZ_SILENCED   ? 100
                   : mz == 4                  ? 225
                   : mz == 5                  ? 250
                                              : 200;
    if (player) {
        q2_snd snd[3];
        int loud, n = q2_muzzle_sounds(style & ~Q2_MZ_SILENCED, snd, &loud);
        /* [Q2CL cl_fx.c CL_ParseMuzzleFlash]: a silenced shot at volume 0.2 */
        float vol = (style & Q2_MZ_SILENCED) && !loud ? 0.2f : 1.0f;
        for (int i = 0; i < n; i++)
            start_sound(c, &snd[i], roll(c->s, (uint32_t)ent, (uint32_t)i), ent, vol, NULL);
        style &= ~Q2_MZ_SILENCED;
    }
    cl_fxev fx;
    memset(&fx, 0, sizeof fx);
    fx.kind = CL_FXK_MUZZLE;
    fx.life = 0.1f;
    fx.radius = radius;
    if (!player)
        fx.rgb[0] = fx.rgb[1] = 255;
    else if (mz < 36)
        memcpy(fx.rgb, mz_rgb[mz], sizeof fx.rgb);
    fx.entity = (int16_t)ent;
    fx.style = (uint8_t)style;
    if (ent < CL_MAX_ENTITIES && c->cl->entities[ent].active)
        memcpy(fx.origin, c->cl->entities[ent].cur.origin, sizeof fx.origin);
    cl_fx_add(c->cl, &fx);
}

/* [q_shared.h PRINT_MEDIUM 1]: obituaries; PRINT_CHAT 3: "name: text". */
void q2_print(cl_state *cl, int level, const char *text)
{
    cl_message_add(cl, level == 3 ? CL_MSG_CHAT : CL_MSG_PRINT, text);
    cl_event ev;
    if ((level == 1 && q2_obituary(cl, text, &ev)) || (level == 3 && q2_chat(cl, text, &ev)))
        cl_event_add(cl, &ev);
}

/* ---- one message ---- */

static qd_err parse_messages(ctx *c);

/* svc_zpacket [R1Q2] CL_ParseZPacket: the compressed and the inflated length (16 bits
 * each), then raw deflate (no zlib header) of whole messages, parsed in turn. */
static qd_err parse_zpacket(ctx *c)
{
    q2_state *s = c->s;
    rd_t *r = &c->r;
    if (s->in_zpacket)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_zpacket inside an svc_zpacket");
    unsigned in_len = rd_u16(r), out_len = rd_u16(r);
    const uint8_t *in = rd_bytes(r, in_len);
    if (!in)
        return truncated(c, "svc_zpacket");
    if (out_len == 0)
        return QD_OK;
    uint8_t *out = malloc(out_len);
    if (!out)
        return fail(c, QD_ERR_NOMEM, c->msg_ofs, "svc_zpacket: no memory for %u bytes",
                    out_len);
    z_stream z;
    memset(&z, 0, sizeof z);
    int zr = inflateInit2(&z, -MAX_WBITS);
    if (zr == Z_OK) {
        z.next_in = (Bytef *)(uintptr_t)in;
        z.avail_in = in_len;
        z.next_out = out;
        z.avail_out = out_len;
        zr = inflate(&z, Z_FINISH);
    }
    size_t got = z.total_out;
    inflateEnd(&z);
    if (zr != Z_STREAM_END || got != out_len) {
        free(out);
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs,
                    "svc_zpacket: its %u bytes of deflate do not inflate to the %u it names "
                    "(%s)", in_len, out_len, zr == Z_STREAM_END ? "other length" : "bad data");
    }
    TRACE(c, "svc_zpacket", "compressed=%u inflated=%u", in_len, out_len);
    rd_t outer = c->r;
    c->r = rd_make(out, out_len);
    s->in_zpacket = 1;
    qd_err e = parse_messages(c);
    s->in_zpacket = 0;
    c->r = outer;
    free(out);
    return e;
}

/* Q2PRO's svc_gamestate halves [R1Q2] CL_ParseGamestate: configstrings (a 16-bit index and
 * its string) up to the index MAX_CONFIGSTRINGS; baselines (an entity delta from nothing)
 * up to entity 0. */
static qd_err gamestate_configstrings(ctx *c)
{
    rd_t *r = &c->r;
    char str[Q2_STRING_MAX];
    for (;;) {
        int index = rd_u16(r);
        if (r->err)
            return truncated(c, "svc_gamestate");
        if (index == Q2_MAX_CONFIGSTRINGS)
            return QD_OK;
        if (index > Q2_MAX_CONFIGSTRINGS)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_gamestate: configstring %d over %d",
                        index, Q2_MAX_CONFIGSTRINGS - 1);
        rd_str(r, str, sizeof str);
        if (r->err)
            return truncated(c, "svc_gamestate");
        q2_configstring(c->cl, &c->s->names, index, str, 0);
    }
}

static qd_err gamestate_baselines(ctx *c)
{
    rd_t *r = &c->r;
    for (;;) {
        uint64_t bits;
        int num = read_ent_bits(r, &bits, 0);
        if (r->err)
            return truncated(c, "svc_gamestate");
        if (num == 0)
            return QD_OK;
        if (num >= Q2_MAX_EDICTS)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_gamestate: baseline %d over %d",
                        num, Q2_MAX_EDICTS - 1);
        q2_ent *b = baseline_slot(c->s, num);
        read_delta(r, b, num, bits, c->s->es);
        if (r->err)
            return truncated(c, "svc_gamestate");
    }
}

/* The commands R1Q2 (35) and Q2PRO (36) add [R1Q2]. */
static qd_err parse_r1q2(ctx *c, int cmd)
{
    q2_state *s = c->s;
    rd_t *r = &c->r;
    const char *name = svc_name(cmd);
    qd_err e = QD_OK;
    switch (cmd) {
    case Q2_SVC_ZPACKET:
        return parse_zpacket(c);
    case Q2_SVC_ZDOWNLOAD: {
        /* a chunk of a download: size, percent (R1Q2: and the inflated size), the bytes */
        int size = rd_s16(r);
        (void)rd_u8(r);
        if (s->protocol == Q2_PROTOCOL_R1Q2)
            (void)rd_u16(r);
        if (size > 0)
            rd_skip(r, (size_t)size);
        if (r->err)
            return truncated(c, name);
        TRACE(c, name, "size=%d", size);
        return QD_OK;
    }
    case Q2_SVC_SETTING: {
        int32_t index = rd_s32(r), value = rd_s32(r);
        if (r->err)
            return truncated(c, name);
        TRACE(c, name, "index=%d value=%d", (int)index, (int)value);
        return QD_OK;
    }
    case Q2_SVC_GAMESTATE:
        if (s->protocol == Q2_PROTOCOL_R1Q2)
            /* R1Q2's svc_playerupdate: positions of the frame's other players, whose count
             * only the live client knows */
            return fail(c, QD_ERR_UNSUPPORTED, c->msg_ofs,
                        "R1Q2's svc_playerupdate (23), which a recording cannot be read past");
        if ((e = gamestate_configstrings(c)) == QD_OK)
            e = gamestate_baselines(c);
        break;
    case Q2_SVC_CONFIGSTRINGSTREAM:
        e = gamestate_configstrings(c);
        break;
    case Q2_SVC_BASELINESTREAM:
        e = gamestate_baselines(c);
        break;
    default:
        break;
    }
    if (!e)
        TRACE(c, name, "%s", "");
    return e;
}

static qd_err parse_message(ctx *c, int cmd)
{
    q2_state *s = c->s;
    rd_t *r = &c->r;
    const char *name = svc_name(cmd);
    char text[Q2_STRING_MAX];
    int a, b;
    if (!s->have_level && cmd != Q2_SVC_SERVERDATA && cmd != Q2_SVC_NOP &&
        cmd != Q2_SVC_PRINT && cmd != Q2_SVC_STUFFTEXT && cmd != Q2_SVC_CENTERPRINT)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s before svc_serverdata", name);
    switch (cmd) {
    case Q2_SVC_MUZZLEFLASH:
    case Q2_SVC_MUZZLEFLASH2: /* [DM2 3.2, 3.3] */
        a = s->ext || s->kmq2 ? rd_u16(r) : rd_s16(r); /* [KMQ2] cl_lights.c: unsigned */
        b = rd_u8(r);
        if (r->err)
            return truncated(c, name);
        if (s->ext && cmd == Q2_SVC_MUZZLEFLASH2) {
            /* the entity word's top 3 bits are the monster flash's bits 8..10 [Q2X]
             * (parse.c CL_ParseMuzzleFlashPacket); qdemo keeps the low byte as the style */
            a &= (1 << Q2_ENTITYNUM_BITS) - 1;
        }
        /* [Q2CL cl_fx.c CL_ParseMuzzleFlash]: i < 1 || i >= MAX_EDICTS */
        if (a < 1 || a >= s->max_edicts)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s: entity %d", name, a);
        muzzle_flash(c, a, b, cmd == Q2_SVC_MUZZLEFLASH);
        TRACE(c, name, "ent=%d value=%d", a, b);
        return QD_OK;
    case Q2_SVC_TEMP_ENTITY:
        return parse_temp_entity(c);
    case Q2_SVC_LAYOUT: /* [DM2 3.5] */
        rd_str(r, text, sizeof text);
        if (r->err)
            return truncated(c, name);
        TRACE(c, name, "text=\"%s\"", esc(c, text));
        layout_copy(c->cl->layout.layout, text);
        layout_scores(c->cl, c->s->playernum, text);
        return QD_OK;
    case Q2_SVC_INVENTORY: { /* [DM2 3.6]: 256 shorts */
        const uint8_t *inv = rd_bytes(r, 512);
        if (!inv)
            return truncated(c, name);
        if (c->trace) {
            int items = 0;
            for (int i = 0; i < 512; i += 2)
                items += (inv[i] | inv[i + 1]) != 0;
            TRACE(c, name, "items=%d", items);
        }
        return QD_OK;
    }
    case Q2_SVC_NOP: /* [DM2 3.7] */
        TRACE(c, name, "%s", "");
        return QD_OK;
    case Q2_SVC_DISCONNECT: /* [DM2 3.8]: the end of the game */
        c->done = 1;
        TRACE(c, name, "%s", "");
        return QD_OK;
    case Q2_SVC_RECONNECT: /* [DM2 3.9]: the next level follows */
        TRACE(c, name, "%s", "");
        return QD_OK;
    case Q2_SVC_SOUND:
        return parse_sound(c);
    case Q2_SVC_PRINT: /* [DM2 3.11] */
        a = rd_u8(r);
        rd_str(r, text, sizeof text);
        if (r->err)
            return truncated(c, name);
        q2_print(c->cl, a, text);
        TRACE(c, name, "level=%d text=\"%s\"", a, esc(c, text));
        return QD_OK;
    case Q2_SVC_STUFFTEXT: /* [DM2 3.12] */
        rd_str(r, text, sizeof text);
        if (r->err)
            return truncated(c, name);
        TRACE(c, name, "text=\"%s\"", esc(c, text));
        return QD_OK;
    case Q2_SVC_SERVERDATA:
        return parse_serverdata(c);
    case Q2_SVC_CONFIGSTRING:
        return parse_configstring(c);
    case Q2_SVC_SPAWNBASELINE:
        return parse_baseline(c);
    case Q2_SVC_CENTERPRINT: /* [DM2 3.16] */
        rd_str(r, text, sizeof text);
        if (r->err)
            return truncated(c, name);
        cl_message_add(c->cl, CL_MSG_CENTER, text);
        simple_event(c->cl, CL_EV_CENTER, text);
        TRACE(c, name, "text=\"%s\"", esc(c, text));
        return QD_OK;
    case Q2_SVC_DOWNLOAD: /* [DM2 3.17]: -1 is "no such file" */
        a = rd_s16(r);
        b = rd_u8(r);
        if (r->err)
            return truncated(c, name);
        if (a < -1)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_download: size %d", a);
        if (a > 0 && s->protocol >= 32)
            rd_skip(r, (size_t)a);
        if (r->err)
            return truncated(c, name);
        TRACE(c, name, "size=%d percent=%d", a, b);
        return QD_OK;
    case Q2_SVC_PLAYERINFO:
        return parse_playerinfo(c);
    case Q2_SVC_PACKETENTITIES:
    case Q2_SVC_DELTAPACKETENTITIES:
        /* The spec leaves deltapacketentities' body unknown [DM2 3.20]; servers never send
         * it, and it is read as packetentities. */
        return parse_packetentities(c, cmd);
    case Q2_SVC_FRAME:
        return parse_frame(c);
    case Q2_SVC_SETTING: /* also read in an extended demo [Q2X] (q2proto extdemo reader) */
        if (s->ext)
            return parse_r1q2(c, cmd);
        /* fall through */
    case Q2_SVC_ZPACKET:
        if (s->kmq2) { /* KMQuake2's svc_fog [KMQ2] (cl_parse.c CL_ParseFog): 10 bytes */
            if (!rd_bytes(r, 10))
                return truncated(c, "svc_fog");
            TRACE(c, "svc_fog", "%s", "");
            return QD_OK;
        }
        /* fall through */
    case Q2_SVC_ZDOWNLOAD:
    case Q2_SVC_GAMESTATE:
    case Q2_SVC_CONFIGSTRINGSTREAM:
    case Q2_SVC_BASELINESTREAM:
        if (s->protocol == Q2_PROTOCOL_R1Q2 || s->protocol == Q2_PROTOCOL_Q2PRO)
            return parse_r1q2(c, cmd);
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s (%d) in a protocol %d demo", name,
                    cmd, (int)s->protocol);
    default: /* svc_bad and ids past svc_frame (Relay's unicast bit included) */
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "unknown server message %d (%s)", cmd,
                    name);
    }
}

/* ---- blocks [DM2 2.2] ---- */

/* The messages of c->r to its end (or svc_disconnect). In 35 and 36 a command is the low 5
 * bits of its byte; the top 3 are svc_frame's EPS bits 4..6 [R1Q2]. Inside an svc_zpacket
 * every message is placed at the zpacket's own offset. */
static qd_err parse_messages(ctx *c)
{
    int packed = c->s->protocol == Q2_PROTOCOL_R1Q2 || c->s->protocol == Q2_PROTOCOL_Q2PRO;
    while (rd_left(&c->r) > 0 && !c->done) {
        if (!c->s->in_zpacket)
            c->msg_ofs = c->base + c->r.pos;
        int cmd = rd_u8(&c->r);
        c->cmd_extra = 0;
        if (packed) {
            c->cmd_extra = (unsigned)cmd >> Q2_SVCCMD_BITS;
            cmd &= (1 << Q2_SVCCMD_BITS) - 1;
        }
        /* a frame's three messages straight to their readers (parse_message's own checks
         * hold for them once a level is on: its frame, a big one with a 1 KB buffer, cost
         * more than their switch) */
        qd_err e = !c->s->have_level                  ? parse_message(c, cmd)
                   : cmd == Q2_SVC_PACKETENTITIES      ? parse_packetentities(c, cmd)
                   : cmd == Q2_SVC_PLAYERINFO          ? parse_playerinfo(c)
                   : cmd == Q2_SVC_FRAME               ? parse_frame(c)
                                                       : parse_message(c, cmd);
        if (e)
            return e;
        if (c->r.err)
            return truncated(c, svc_name(cmd));
    }
    return QD_OK;
}

static qd_err parse_block(ctx *c, const uint8_t *data, size_t len)
{
    q2_state *s = c->s;
    size_t pos = (size_t)s->pos;
    c->msg_ofs = pos;
    if (len - pos < 4)
        return fail(c, QD_ERR_TRUNCATED, pos, "block header cut off (%zu bytes left)", len - pos);
    rd_t h = rd_make(data + pos, 4);
    uint32_t size = rd_u32(&h);
    if (size == 0xffffffffu) {
        s->pos = pos + 4;
        s->ended = 1;
        c->done = 1;
        TRACE(c, "end", "%s", "");
        return QD_OK;
    }
    if (size == 0) { /* between two levels */
        s->pos = pos + 4;
        TRACE(c, "level_end", "%s", "");
        return QD_OK;
    }
    if (size > Q2_MAX_BLOCK)
        return fail(c, QD_ERR_BAD_DATA, pos, "block size %u over %u", (unsigned)size,
                    (unsigned)Q2_MAX_BLOCK);
    if (size > len - pos - 4)
        return fail(c, QD_ERR_TRUNCATED, pos, "block of %u bytes cut off at %zu",
                    (unsigned)size, len - pos - 4);
    c->base = pos + 4;
    c->r = rd_make(data + pos + 4, size);
    s->pos = pos + 4 + size;
    qd_err e = parse_messages(c);
    if (e)
        return e;
    if (s->pending)
        return fail(c, QD_ERR_BAD_DATA, pos, "svc_frame without its %s in block %u",
                    s->have_ps || s->isdemo == Q2_RECORD_SERVER ? "packet entities"
                                                                : "player info",
                    (unsigned)s->block);
    frame_close(c);
    return QD_OK;
}

/* ---- the decoder interface ---- */

/* The first block's first message, when it is svc_serverdata whose fields all fit in the
 * block (or in the file, when the file ends inside the first block) (a recording type Quake II knows, both strings terminated): its protocol, else 0. */
static int32_t first_protocol(const uint8_t *data, size_t len)
{
    if (len < 9 || data[4] != Q2_SVC_SERVERDATA)
        return 0;
    rd_t h = rd_make(data, len);
    uint32_t size = rd_u32(&h);
    if (size < 5 || size > Q2_MAX_BLOCK)
        return 0;
    if (size > len - 4) /* a file cut inside its first block: read what is there */
        size = (uint32_t)(len - 4);
    rd_t r = rd_make(data + 5, size - 1);
    int32_t proto = rd_s32(&r);
    rd_skip(&r, 4);
    int isdemo = rd_u8(&r);
    if (isdemo != Q2_RECORD_NETWORK && isdemo != Q2_RECORD_CLIENT &&
        isdemo != Q2_RECORD_SERVER && isdemo != Q2_RECORD_RELAY)
        return 0;
    char str[CL_NAME_LEN];
    rd_str(&r, str, sizeof str);
    rd_skip(&r, 2);
    rd_str(&r, str, sizeof str);
    return r.err ? 0 : proto;
}

/* Do the blocks from the start chain like .dm2 blocks [DM2 2.2] (sizes 1..Q2_MAX_BLOCK, the
 * end marker or the file's end after them; the last may be cut off)? */
static int blocks_chain(const uint8_t *data, size_t len)
{
    size_t pos = 0;
    for (int i = 0; i < 8 && len - pos >= 4; i++) {
        rd_t h = rd_make(data + pos, 4);
        uint32_t size = rd_u32(&h);
        if (size == 0xffffffffu)
            return 1;
        if (size == 0 || size > Q2_MAX_BLOCK)
            return 0;
        if (size > len - pos - 4)
            return 1;
        pos += 4 + size;
    }
    return 1;
}

/* The protocol of a first block from the 3.00 test release (protocol 25), whose message ids
 * differ (q2_local.h Q2_PROTOCOL_300): its first message taken as serverdata under another
 * id, protocol 25 in the first four bytes after it as in every later serverdata [DM2 3.13]
 * (an assumption: 3.00's layout is unpublished). 0 when the bytes are not that. */
static int32_t first_protocol_300(const uint8_t *data, size_t len)
{
    if (len < 9 || data[4] == Q2_SVC_SERVERDATA || !blocks_chain(data, len))
        return 0;
    rd_t h = rd_make(data + 5, 4);
    return rd_s32(&h) == Q2_PROTOCOL_300 ? Q2_PROTOCOL_300 : 0;
}

static qd_err q2_init(void *state, const uint8_t *data, size_t len, qd_error *err)
{
    q2_state *s = state;
    s->playernum = -1;
    s->last_emitted = -1;
    int32_t p = first_protocol(data, len);
    if (!p)
        p = first_protocol_300(data, len);
    if (p && !decoded_protocol(p)) {
        ctx c;
        memset(&c, 0, sizeof c);
        c.err = err;
        c.msg_ofs = 4;
        s->protocol = p; /* `info` reports what the file is, refused or not */
        return check_protocol(&c, p);
    }
    return QD_OK;
}

/* demo_decoder.clear: the state as all zeros, written only up to its marks (q2_state
 * baseline_hw, pool_hw, ref_hw), so a rewind costs what the decode used rather than the
 * 800 KB of a state sized for Q2PRO's extended limits. */
static void q2_clear(void *state)
{
    q2_state *s = state;
    uint8_t *b = state;
    /* each big array: where it starts, its bytes written (a mark past its end: all of it),
     * its size; everything around them is cleared whole */
    const size_t arr[4][3] = {
        {offsetof(q2_state, store.refs), s->ref_hw * sizeof s->store.refs[0],
         sizeof s->store.refs},
        {offsetof(q2_state, store.ref_num), s->ref_hw * sizeof s->store.ref_num[0],
         sizeof s->store.ref_num},
        {offsetof(q2_state, store.pool), s->pool_hw * sizeof s->store.pool[0],
         sizeof s->store.pool},
        {offsetof(q2_state, baselines), s->baseline_hw * sizeof s->baselines[0],
         sizeof s->baselines},
    };
    size_t at = 0;
    for (int i = 0; i < 4; i++) {
        memset(b + at, 0, arr[i][0] - at);
        memset(b + arr[i][0], 0, arr[i][1] < arr[i][2] ? arr[i][1] : arr[i][2]);
        at = arr[i][0] + arr[i][2];
    }
    memset(b + at, 0, sizeof *s - at);
}

static qd_err q2_step(void *state, const uint8_t *data, size_t len, cl_state *cl,
                      const demo_trace *trace, int *done, qd_error *err)
{
    q2_state *s = state;
    *done = 0;
    if (s->pos >= len) { /* no end marker: the file simply ends after a whole block */
        *done = 1;
        return QD_OK;
    }
    ctx c;
    c.s = s;
    c.cl = cl;
    c.trace = trace && trace->msg ? trace : NULL;
    c.err = err;
    c.data = data;
    c.len = len;
    c.base = 0;
    c.msg_ofs = 0;
    c.done = 0;
    qd_err e = parse_block(&c, data, len);
    s->block++;
    if (e) /* demo_step closes the frame left open and stops, or resumes (q2_resume) */
        return e;
    if (c.done) {
        frame_close(&c);
        *done = 1;
    }
    return QD_OK;
}

static uint64_t q2_offset(const void *state) { return ((const q2_state *)state)->pos; }

static int q2_protocol(const void *state) { return ((const q2_state *)state)->protocol; }
static int q2_ended(const void *state) { return ((const q2_state *)state)->ended; }

/* [DM2 2.2]: int32 size, then messages (a known id first); size 0 between levels, 0xFFFFFFFF
 * the end. */
static int q2_block_at(const uint8_t *data, size_t len, uint64_t pos, int strict,
                       uint64_t *size)
{
    if (pos >= len || len - pos < 4)
        return DEMO_BLOCK_NONE;
    rd_t h = rd_make(data + pos, 4);
    uint32_t n = rd_u32(&h);
    *size = 4;
    if (n == 0xffffffffu)
        return DEMO_BLOCK_END;
    if (n == 0)
        return DEMO_BLOCK_WHOLE;
    if (n > Q2_MAX_BLOCK)
        return DEMO_BLOCK_NONE;
    if (n > len - pos - 4)
        return DEMO_BLOCK_CUT;
    /* a block's first message: a known id; R1Q2/Q2PRO (35/36) pack svc_frame's extra bits
     * into the id's top 3 bits and add ids up to svc_baselinestream (the protocol is not
     * known here: a stricter test refused every block of such a demo after damage, a
     * review) */
    int id = data[pos + 4];
    if (strict && (id == Q2_SVC_BAD || (id & 31) > Q2_SVC_BASELINESTREAM))
        return DEMO_BLOCK_NONE;
    *size = 4 + (uint64_t)n;
    return DEMO_BLOCK_WHOLE;
}

static void q2_resume(void *state, uint64_t pos)
{
    q2_state *s = state;
    s->in_frame = 0; /* demo.c closed the client's frame */
    s->pending = 0;
    s->pos = pos;
    s->resynced = 1;
}

/* ---- detection ---- */

static int has_dm2_ext(const char *name)
{
    const char *dot = name ? strrchr(name, '.') : NULL;
    if (!dot)
        return 0;
    return (dot[1] == 'd' || dot[1] == 'D') && (dot[2] == 'm' || dot[2] == 'M') && dot[3] == '2' &&
           dot[4] == 0;
}

/* Content evidence: the first block starts with svc_serverdata naming a Quake II protocol
 * (9; also for a later or foreign protocol, which init then refuses by name); the extension alone
 * is weak (1). */
static int q2_probe(const uint8_t *data, size_t len, const char *filename)
{
    int32_t p = first_protocol(data, len);
    if (p >= Q2_PROTOCOL_MIN && p <= Q2_PROTOCOL_MAX)
        return 9;
    if (p >= Q2_PROTOCOL_300 && p <= 4096)
        return 9;
    if (first_protocol_300(data, len))
        return 8;
    return has_dm2_ext(filename) ? 1 : 0;
}

const demo_decoder demo_q2_decoder = {
    "dm2", DEMO_FMT_DM2, sizeof(q2_state), q2_probe, q2_init, q2_step, q2_offset, q2_protocol, q2_ended,
    q2_block_at, q2_resume, NULL, 0, q2_clear,
};
