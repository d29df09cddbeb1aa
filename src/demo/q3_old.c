/* q3_old.c: what Quake III 1.1x-1.27 (protocols 43..48, .dm3 and .dm_48 files) send
 * differently from 68: plain-bit deltas with a mask index for entities and a bit a field
 * for the playerState, and dm3's numbering of events and configstrings, turned into 68's.
 * Sources: [Q3OLD] in q3_local.h (UberDemoTools, with CDP agreeing). */
#include <string.h>

#include "q3_local.h"

/* UDT message.cpp KnownBitMasks (the same in CDP's Entity.cs KnownBitmasks); UDT notes
 * "same values for dm3 and dm_48 confirmed". Row 0, 60 80 00 ..: rows 5, 6 and 15 of the
 * old tables, pos.trBase[0], pos.trBase[1] and apos.trBase[1]: a player moving and turning. */
const uint8_t q3_old_masks[31][7] = {
    {0x60, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00}, {0x60, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
    {0x60, 0xC0, 0x00, 0x00, 0x00, 0x00, 0x00}, {0xE1, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00},
    {0x60, 0x80, 0x00, 0x00, 0x00, 0x10, 0x00}, {0xE0, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00},
    {0xE0, 0xC0, 0x00, 0x00, 0x00, 0x00, 0x00}, {0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00},
    {0x40, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00}, {0x20, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00},
    {0x60, 0x80, 0x00, 0x00, 0x01, 0x00, 0x00}, {0xED, 0x07, 0x00, 0x00, 0x00, 0x80, 0x00},
    {0xE0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, {0xED, 0x07, 0x00, 0x00, 0x00, 0x30, 0x00},
    {0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, {0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
    {0xE0, 0xC0, 0x00, 0x00, 0x00, 0x10, 0x00}, {0x60, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00},
    {0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, {0xE1, 0x00, 0x00, 0x00, 0x04, 0x20, 0x00},
    {0xE1, 0x00, 0xC0, 0x01, 0x20, 0x20, 0x00}, {0xE0, 0xC0, 0x00, 0x00, 0x01, 0x00, 0x00},
    {0x60, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00}, {0x40, 0xC0, 0x00, 0x00, 0x00, 0x00, 0x00},
    {0x60, 0xC0, 0x00, 0x00, 0x01, 0x00, 0x00}, {0x60, 0xC0, 0x00, 0x00, 0x00, 0x10, 0x00},
    {0x60, 0x80, 0x00, 0x00, 0x01, 0x00, 0x01}, {0x60, 0x80, 0x00, 0x00, 0x00, 0x30, 0x00},
    {0xE0, 0x80, 0x00, 0x00, 0x00, 0x10, 0x00}, {0x20, 0xC0, 0x00, 0x00, 0x00, 0x00, 0x00},
    {0x60, 0x80, 0x00, 0x00, 0x00, 0x00, 0x02},
};

/* A field's value: a float as a bit, then its 32 bits (1) or 13 bits less 4096 (0), with no
 * "zero" bit before (UDT ReadFloat; CDP ReadDeltaFloatOld); an integer as its bits, signed
 * when the row says so. */
static int32_t old_value(q3_bits *b, const dd_field *f)
{
    if (f->kind == DD_Q3FLOAT) {
        if (q3_bit_in(b))
            return q3_read_bits_in(b, 32);
        float v = (float)(q3_read_bits_in(b, 13) - 4096);
        int32_t i;
        memcpy(&i, &v, 4);
        return i;
    }
    return q3_read_bits_in(b, f->bits);
}

static void put(void *state, const dd_field *f, int32_t v)
{
    memcpy((uint8_t *)state + f->offset, &v, 4);
}

void q3_old_entity_fields(q3_bits *b, const dd_table *es, q3_ent *to)
{
    uint8_t mask[7];
    int index = q3_read_bits_in(b, 5);
    if (index == 31) {
        /* the explicit mask: six bytes, then the rest of the table's rows (50: 2, 51: 3) */
        for (int i = 0; i < 6; i++)
            mask[i] = (uint8_t)q3_read_bits_in(b, 8);
        int rest = es->n > 48 ? es->n - 48 : 1;
        mask[6] = (uint8_t)q3_read_bits_in(b, rest > 8 ? 8 : rest);
    } else {
        memcpy(mask, q3_old_masks[index], sizeof mask);
    }
    for (int i = 0; i < es->n && i < 56; i++)
        if (mask[i >> 3] >> (i & 7) & 1)
            put(to, &es->f[i], old_value(b, &es->f[i]));
}

void q3_old_ps_fields(q3_bits *b, const dd_table *ps, q3_ps *to)
{
    for (int i = 0; i < ps->n; i++)
        if (q3_bit_in(b))
            put(to, &ps->f[i], old_value(b, &ps->f[i]));
}

int q3_dm3_event(int ev)
{
    /* ConvertEntityEventNumber3to68_helper: 0..46 (EV_NONE .. EV_GLOBAL_SOUND) the same;
     * 47..50 (bullet hits, missile hit and miss) 48..51; 51..62 (rail trail .. gib) 53..64,
     * EV_OBITUARY 58 -> 60; EV_DEBUG_LINE 63 -> 74, EV_TAUNT 64 -> 76 */
    if (ev >= 0 && ev <= 46)
        return ev;
    if (ev >= 47 && ev <= 50)
        return ev + 1;
    if (ev >= 51 && ev <= 62)
        return ev + 2;
    return ev == 63 ? 74 : ev == 64 ? 76 : 0;
}

int q3_dm3_cs(int index)
{
    /* ConfigStringIndices_3: 0..11 as 68; GAME_VERSION 12, LEVEL_START_TIME 13, INTERMISSION
     * 14, FLAGSTATUS 15 (68: 20..23); 16..26 unknown (the converter drops them); items,
     * models and sounds at 68's; 128 player slots from 544 (68 has 64), so the locations
     * start at 672 (68: 608) */
    if (index < 0 || index >= Q3_MAX_CONFIGSTRINGS)
        return -1;
    if (index <= 11)
        return index;
    if (index <= 15)
        return index + 8;
    if (index <= 26)
        return -1;
    if (index < Q3_CS_PLAYERS + Q3_MAX_CLIENTS)
        return index;
    if (index < Q3_CS_PLAYERS + 128)
        return -1;
    return index - 64;
}
