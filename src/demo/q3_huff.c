/* q3_huff.c: the Quake III message layer: the static Huffman tree, the bit reader on the
 * bounded reader, the delta field tables and the entity / playerState delta readers
 * [DM68 4, 6, 7]. Shared by the .dm_NN decoder (q3.c) and its tests. */
#include "q3_local.h"

#include <string.h>

/* The tree Huff_Init builds [DM68 7]: every byte added huffCounts[b] times to an adaptive
 * (FGK) tree that starts with the NYT node, in byte order. It is fixed after that, so it is
 * kept here as data rather than rebuilt (2.5 million updates) for every demo; it was
 * produced by running that construction over the spec's huffCounts table. */
/* [0] = next node when the bit is 0, [1] when it is 1: >= 0 an inner node, < 0 the leaf
 * of symbol -v - 1 (256 = NYT, never sent). Node 0 is the root. */
const int16_t q3_huff_nodes[Q3_HUFF_NODES][2] = {
    {1, 71}, {2, -1}, {3, 38}, {4, 19}, {5, 12}, {6, -196},
    {7, -118}, {8, 11}, {-209, 9}, {10, -244}, {-257, -248}, {-71, -147},
    {13, 14}, {-7, -66}, {-102, 15}, {16, 17}, {-72, -91}, {18, -19},
    {-242, -46}, {20, 26}, {21, 22}, {-127, -3}, {23, -126}, {-106, 24},
    {-92, 25}, {-252, -246}, {27, 32}, {28, 29}, {-238, -109}, {30, -96},
    {-18, 31}, {-220, -250}, {33, 35}, {34, -200}, {-177, -169}, {-48, 36},
    {37, -20}, {-224, -228}, {39, 56}, {40, 45}, {41, -256}, {-68, 42},
    {43, 44}, {-35, -63}, {-108, -142}, {46, 53}, {47, 52}, {48, 50},
    {49, -161}, {-44, -186}, {-41, 51}, {-218, -216}, {-193, -32}, {-10, 54},
    {-140, 55}, {-25, -47}, {57, 66}, {58, 60}, {59, -131}, {-111, -114},
    {61, -4}, {62, 64}, {63, -81}, {-164, -202}, {-16, 65}, {-42, -182},
    {-105, 67}, {68, -67}, {-98, 69}, {-62, 70}, {-188, -180}, {72, 172},
    {73, 124}, {74, 106}, {75, 89}, {76, 84}, {77, 80}, {-135, 78},
    {-143, 79}, {-212, -190}, {-103, 81}, {82, 83}, {-222, -240}, {-166, -178},
    {85, 86}, {-69, -5}, {87, -122}, {88, -56}, {-170, -236}, {90, 97},
    {91, 94}, {-6, 92}, {-226, 93}, {-60, -232}, {-70, 95}, {-225, 96},
    {-168, -245}, {98, 101}, {99, -54}, {100, -145}, {-158, -234}, {102, 105},
    {103, 104}, {-230, -45}, {-86, -76}, {-58, -201}, {107, 110}, {108, 109},
    {-197, -233}, {-130, -11}, {111, 115}, {112, -117}, {-120, 113}, {114, -59},
    {-227, -184}, {116, 120}, {-15, 117}, {118, 119}, {-214, -253}, {-160, -210},
    {-116, 121}, {122, 123}, {-154, -251}, {-162, -38}, {125, 139}, {126, -9},
    {127, 138}, {128, 131}, {129, -113}, {130, -94}, {-249, -239}, {132, 135},
    {133, 134}, {-203, -156}, {-150, -172}, {136, 137}, {-181, -243}, {-206, -37},
    {-17, -128}, {140, 154}, {141, -14}, {142, 148}, {143, 145}, {-55, 144},
    {-213, -39}, {146, 147}, {-192, -254}, {-26, -219}, {149, 151}, {-144, 150},
    {-176, -207}, {152, 153}, {-174, -36}, {-215, -40}, {155, 166}, {156, 162},
    {157, 160}, {158, 159}, {-208, -247}, {-205, -167}, {161, -77}, {-82, -189},
    {-195, 163}, {164, 165}, {-211, -165}, {-21, -223}, {167, -132}, {168, 170},
    {169, -73}, {-152, -179}, {-107, 171}, {-217, -221}, {173, 226}, {174, 207},
    {175, 193}, {176, 181}, {177, 180}, {178, -134}, {179, -194}, {-204, -187},
    {-30, -50}, {182, 186}, {183, -123}, {184, 185}, {-229, -237}, {-61, -24},
    {187, 190}, {188, 189}, {-74, -191}, {-146, -28}, {191, 192}, {-155, -171},
    {-87, -183}, {194, 199}, {-13, 195}, {-53, 196}, {197, 198}, {-34, -231},
    {-85, -185}, {200, 204}, {201, -112}, {202, 203}, {-43, -88}, {-163, -80},
    {-124, 205}, {-97, 206}, {-64, -22}, {208, -2}, {209, 213}, {-12, 210},
    {-121, 211}, {212, -141}, {-175, -90}, {214, 220}, {215, 218}, {216, 217},
    {-149, -23}, {-157, -153}, {219, -99}, {-27, -78}, {221, 224}, {222, 223},
    {-151, -173}, {-83, -84}, {-95, 225}, {-29, -159}, {227, 246}, {228, 238},
    {229, 236}, {230, 233}, {231, -136}, {-57, 232}, {-235, -199}, {-115, 234},
    {-93, 235}, {-79, -198}, {-49, 237}, {-137, -138}, {239, -33}, {240, 242},
    {-119, 241}, {-101, -52}, {-139, 243}, {244, 245}, {-89, -75}, {-241, -148},
    {247, 255}, {248, 253}, {249, 251}, {-133, 250}, {-110, -100}, {252, -65},
    {-31, -104}, {-255, 254}, {-125, -51}, {-129, -8},
};

void q3_bits_init(q3_bits *b, const uint8_t *p, size_t len)
{
    b->r = rd_make(p, len);
    b->bit = 0;
    b->bad_sym = 0;
}

int q3_bit(q3_bits *b)
{
    size_t byte = b->bit >> 3;
    if (b->r.err || byte >= b->r.len) {
        b->r.err = 1;
        return 0;
    }
    int v = (b->r.p[byte] >> (b->bit & 7)) & 1;
    b->bit++;
    return v;
}

int q3_huff_byte(q3_bits *b)
{
    int n = 0;
    /* At most 11 bits; the bound keeps the walk finite whatever the table holds. */
    for (int depth = 0; depth < 32; depth++) {
        int v = q3_huff_nodes[n][q3_bit(b)];
        if (b->r.err)
            return 0;
        if (v < 0) {
            if (v == -257) { /* the NYT leaf: no encoder sends it */
                b->bad_sym = 1;
                return 0;
            }
            return -v - 1;
        }
        if (v >= Q3_HUFF_NODES)
            break;
        n = v;
    }
    b->bad_sym = 1;
    return 0;
}

int32_t q3_read_bits(q3_bits *b, int bits)
{
    int sign = bits < 0;
    unsigned n = (unsigned)(sign ? -bits : bits);
    if (n == 0 || n > 32) {
        b->bad_sym = 1;
        return 0;
    }
    uint32_t v = 0;
    unsigned raw = n & 7, i;
    for (i = 0; i < raw; i++)
        v |= (uint32_t)q3_bit(b) << i;
    for (i = raw; i < n; i += 8)
        v |= (uint32_t)q3_huff_byte(b) << i;
    if (n < 32) {
        v &= (1u << n) - 1; /* a symbol's high bits past n are not the field's */
        if (sign && (v & (1u << (n - 1))))
            v |= ~((1u << n) - 1);
    }
    return (int32_t)v;
}

/* ---- delta field tables [DM68 6]: psTable and esTable of Quake III 1.32 (protocol 68),
 * which [UDT] also uses for 66 and 67 ---- */

const q3_field q3_es_fields[Q3_ES_COUNT] = {
    {"pos.trTime", 32}, {"pos.trBase[0]", 0}, {"pos.trBase[1]", 0}, {"pos.trDelta[0]", 0},
    {"pos.trDelta[1]", 0}, {"pos.trBase[2]", 0}, {"apos.trBase[1]", 0},
    {"pos.trDelta[2]", 0}, {"apos.trBase[0]", 0}, {"event", 10}, {"angles2[1]", 0},
    {"eType", 8}, {"torsoAnim", 8}, {"eventParm", 8}, {"legsAnim", 8},
    {"groundEntityNum", 10}, {"pos.trType", 8}, {"eFlags", 19}, {"otherEntityNum", 10},
    {"weapon", 8}, {"clientNum", 8}, {"angles[1]", 0}, {"pos.trDuration", 32},
    {"apos.trType", 8}, {"origin[0]", 0}, {"origin[1]", 0}, {"origin[2]", 0},
    {"solid", 24}, {"powerups", 16}, {"modelindex", 8}, {"otherEntityNum2", 10},
    {"loopSound", 8}, {"generic1", 8}, {"origin2[2]", 0}, {"origin2[0]", 0},
    {"origin2[1]", 0}, {"modelindex2", 8}, {"angles[0]", 0}, {"time", 32},
    {"apos.trTime", 32}, {"apos.trDuration", 32}, {"apos.trBase[2]", 0},
    {"apos.trDelta[0]", 0}, {"apos.trDelta[1]", 0}, {"apos.trDelta[2]", 0}, {"time2", 32},
    {"angles[2]", 0}, {"angles2[0]", 0}, {"angles2[2]", 0}, {"constantLight", 32},
    {"frame", 16},
};

const q3_field q3_ps_fields[Q3_PS_COUNT] = {
    {"commandTime", 32}, {"origin[0]", 0}, {"origin[1]", 0}, {"bobCycle", 8},
    {"velocity[0]", 0}, {"velocity[1]", 0}, {"viewangles[1]", 0}, {"viewangles[0]", 0},
    {"weaponTime", -16}, {"origin[2]", 0}, {"velocity[2]", 0}, {"legsTimer", 8},
    {"pm_time", -16}, {"eventSequence", 16}, {"torsoAnim", 8}, {"movementDir", 4},
    {"events[0]", 8}, {"legsAnim", 8}, {"events[1]", 8}, {"pm_flags", 16},
    {"groundEntityNum", 10}, {"weaponstate", 4}, {"eFlags", 16}, {"externalEvent", 10},
    {"gravity", 16}, {"speed", 16}, {"delta_angles[1]", 16}, {"externalEventParm", 8},
    {"viewheight", -8}, {"damageEvent", 8}, {"damageYaw", 8}, {"damagePitch", 8},
    {"damageCount", 8}, {"generic1", 8}, {"pm_type", 8}, {"delta_angles[0]", 16},
    {"delta_angles[2]", 16}, {"torsoTimer", 12}, {"eventParms[0]", 8},
    {"eventParms[1]", 8}, {"clientNum", 8}, {"weapon", 5}, {"viewangles[2]", 0},
    {"grapplePoint[0]", 0}, {"grapplePoint[1]", 0}, {"grapplePoint[2]", 0},
    {"jumppad_ent", 10}, {"loopSound", 16},
};

/* A float field: 0 then 13 bits (an integral value biased by 4096), or 1 then 32 raw bits. */
static int32_t read_float(q3_bits *b)
{
    if (!q3_bit(b)) {
        float f = (float)(q3_read_bits(b, Q3_SNAPPED_BITS) - (1 << (Q3_SNAPPED_BITS - 1)));
        int32_t v;
        memcpy(&v, &f, 4);
        return v;
    }
    return q3_read_bits(b, 32);
}

/* The changed fields of a table, up to the count announced; entity fields carry an extra
 * "not zero" bit [DM68 6 MSG_ReadDeltaEntity]. */
static void read_fields(q3_bits *b, const q3_field *tab, int count, int32_t *f, int zero_bit)
{
    for (int i = 0; i < count && !q3_bits_err(b); i++) {
        if (!q3_bit(b))
            continue;
        if (zero_bit && !q3_bit(b)) {
            f[i] = 0;
            continue;
        }
        f[i] = tab[i].bits ? q3_read_bits(b, tab[i].bits) : read_float(b);
    }
}

int q3_read_delta_entity(q3_bits *b, const q3_ent *from, q3_ent *to, int number)
{
    if (q3_bit(b)) {
        memset(to, 0, sizeof *to);
        to->number = Q3_ENTITYNUM_NONE;
        return 1;
    }
    if (from)
        memcpy(to, from, sizeof *to);
    else
        memset(to, 0, sizeof *to);
    to->number = (uint16_t)number;
    to->teleport = 0;
    if (!q3_bit(b))
        return 0;
    int n = q3_read_bits(b, 8);
    if (n > Q3_ES_COUNT)
        return -1;
    read_fields(b, q3_es_fields, n, to->f, 1);
    if (from && ((from->f[Q3_ES_EFLAGS] ^ to->f[Q3_ES_EFLAGS]) & Q3_EF_TELEPORT_BIT))
        to->teleport = 1;
    return 0;
}

/* One of the playerState arrays: a 16-bit mask, then a value per set bit. */
static void read_array(q3_bits *b, int32_t *a, int bits)
{
    if (!q3_bit(b))
        return;
    int mask = q3_read_bits(b, 16);
    for (int i = 0; i < 16; i++)
        if (mask & (1 << i))
            a[i] = q3_read_bits(b, bits);
}

int q3_read_delta_ps(q3_bits *b, const q3_ps *from, q3_ps *to)
{
    if (from)
        memcpy(to, from, sizeof *to);
    else
        memset(to, 0, sizeof *to);
    int n = q3_read_bits(b, 8);
    if (n > Q3_PS_COUNT)
        return -1;
    read_fields(b, q3_ps_fields, n, to->f, 0);
    if (!q3_bit(b))
        return 0;
    /* stats and persistant are signed shorts, ammo an unsigned short, powerups 32 bits */
    read_array(b, to->stats, -16);
    read_array(b, to->persistant, -16);
    read_array(b, to->ammo, 16);
    read_array(b, to->powerups, 32);
    return 0;
}
