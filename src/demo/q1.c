/* q1.c: the Quake .dem decoder: protocol 15 (Quake 1.01 to 1.09), FitzQuake 666 and RMQ 999.
 *
 * Sources of the format facts:
 * - [DEM]  "The unofficial DEM format description", Uwe Girlich, v1.0.9 and v1.0.2
 *          (../shared/specs/dem-quake1-v1.0.*.txt); section numbers below are v1.0.9's.
 * - [FITZ] Quake Wiki, "Fitzquake Protocol" (quakewiki.org/wiki/Fitzquake_Protocol): the 666
 *          additions (second bytes for model, frame and sound indices, 16-bit entity numbers
 *          in sounds, 16-bit ammo and armour, entity and weapon alpha, lerp-finish hints,
 *          baseline2/static2/staticsound2, fog and skybox messages).
 * The decoder keeps only what the wire format needs (baselines, the protocol, the read
 * position) in one plain struct, and emits everything else as cl_* updates. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../common/rd.h"
#include "delta.h"
#include "demo.h"
#include "demo_local.h"
#include "quake_rules.h"

/* [DEM] 7: message ids. */
enum {
    Q1_SVC_BAD = 0,
    Q1_SVC_NOP = 1,
    Q1_SVC_DISCONNECT = 2,
    Q1_SVC_UPDATESTAT = 3,
    Q1_SVC_VERSION = 4,
    Q1_SVC_SETVIEW = 5,
    Q1_SVC_SOUND = 6,
    Q1_SVC_TIME = 7,
    Q1_SVC_PRINT = 8,
    Q1_SVC_STUFFTEXT = 9,
    Q1_SVC_SETANGLE = 10,
    Q1_SVC_SERVERINFO = 11,
    Q1_SVC_LIGHTSTYLE = 12,
    Q1_SVC_UPDATENAME = 13,
    Q1_SVC_UPDATEFRAGS = 14,
    Q1_SVC_CLIENTDATA = 15,
    Q1_SVC_STOPSOUND = 16,
    Q1_SVC_UPDATECOLORS = 17,
    Q1_SVC_PARTICLE = 18,
    Q1_SVC_DAMAGE = 19,
    Q1_SVC_SPAWNSTATIC = 20,
    Q1_SVC_SPAWNBINARY = 21,
    Q1_SVC_SPAWNBASELINE = 22,
    Q1_SVC_TEMP_ENTITY = 23,
    Q1_SVC_SETPAUSE = 24,
    Q1_SVC_SIGNONNUM = 25,
    Q1_SVC_CENTERPRINT = 26,
    Q1_SVC_KILLEDMONSTER = 27,
    Q1_SVC_FOUNDSECRET = 28,
    Q1_SVC_SPAWNSTATICSOUND = 29,
    Q1_SVC_INTERMISSION = 30,
    Q1_SVC_FINALE = 31,
    Q1_SVC_CDTRACK = 32,
    Q1_SVC_SELLSCREEN = 33,
    Q1_SVC_CUTSCENE = 34, /* [DEM] 7.35: Quake 1.07 on */
    /* [FITZ] protocol 666 only */
    Q1_SVC_SKYBOX = 37,
    Q1_SVC_BF = 40,
    Q1_SVC_FOG = 41,
    Q1_SVC_SPAWNBASELINE2 = 42,
    Q1_SVC_SPAWNSTATIC2 = 43,
    Q1_SVC_SPAWNSTATICSOUND2 = 44,
};

#define Q1_PROTOCOL 15
#define Q1_PROTOCOL_FITZ 666
/* [RMQ] QuakeSpasm (sezero/quakespasm) Quake/protocol.h and cl_parse.c CL_ParseServerInfo:
 * protocol 999 is 666 with a long of protocol flags after the protocol in svc_serverinfo,
 * which choose how every coordinate and angle is sent (delta.h DD_PRFL_*). */
#define Q1_PROTOCOL_RMQ 999
#define Q1_RMQ_FLAGS_KNOWN                                                                 \
    (DD_PRFL_SHORTANGLE | DD_PRFL_FLOATANGLE | DD_PRFL_24BITCOORD | DD_PRFL_FLOATCOORD |   \
     DD_PRFL_EDICTSCALE | DD_PRFL_ALPHASANITY | DD_PRFL_INT32COORD)

/* [DEM] 7.36 updateentity bits; [FITZ] adds the extend bytes and what follows them. */
#define Q1_U_MOREBITS (1u << 0)
#define Q1_U_ORIGIN1 (1u << 1)
#define Q1_U_ORIGIN2 (1u << 2)
#define Q1_U_ORIGIN3 (1u << 3)
#define Q1_U_ANGLE2 (1u << 4)
#define Q1_U_NOLERP (1u << 5) /* [DEM] calls it "new" */
#define Q1_U_FRAME (1u << 6)
#define Q1_U_ANGLE1 (1u << 8)
#define Q1_U_ANGLE3 (1u << 9)
#define Q1_U_MODEL (1u << 10)
#define Q1_U_COLORMAP (1u << 11)
#define Q1_U_SKIN (1u << 12)
#define Q1_U_EFFECTS (1u << 13)
#define Q1_U_LONGENTITY (1u << 14)
#define Q1_U_EXTEND1 (1u << 15)
#define Q1_U_ALPHA (1u << 16)
#define Q1_U_FRAME2 (1u << 17)
#define Q1_U_MODEL2 (1u << 18)
#define Q1_U_LERPFINISH (1u << 19)
#define Q1_U_SCALE (1u << 20)
#define Q1_U_EXTEND2 (1u << 23)
/* Not on the wire: [FITZ] leaves bits 24..31 unused, and parse_update clears them. They
 * announce the 16-bit model and frame of a baseline (B_LARGEMODEL, B_LARGEFRAME). */
#define Q1_U_BASE_MODEL16 (1u << 24)
#define Q1_U_BASE_FRAME16 (1u << 25)

/* [DEM] 7.16 clientdata bits; [FITZ] the extend bytes and second bytes. */
#define Q1_SU_VIEWHEIGHT (1u << 0)
#define Q1_SU_IDEALPITCH (1u << 1)
#define Q1_SU_PUNCH1 (1u << 2)
#define Q1_SU_VELOCITY1 (1u << 5)
#define Q1_SU_ITEMS (1u << 9)
#define Q1_SU_WEAPONFRAME (1u << 12)
#define Q1_SU_ARMOR (1u << 13)
#define Q1_SU_WEAPON (1u << 14)
#define Q1_SU_EXTEND1 (1u << 15)
#define Q1_SU_WEAPON2 (1u << 16)
#define Q1_SU_ARMOR2 (1u << 17)
#define Q1_SU_AMMO2 (1u << 18)
#define Q1_SU_SHELLS2 (1u << 19)
#define Q1_SU_NAILS2 (1u << 20)
#define Q1_SU_ROCKETS2 (1u << 21)
#define Q1_SU_CELLS2 (1u << 22)
#define Q1_SU_EXTEND2 (1u << 23)
#define Q1_SU_WEAPONFRAME2 (1u << 24)
#define Q1_SU_WEAPONALPHA (1u << 25)

/* [FITZ] baseline2 bits and sound bits. */
#define Q1_B_LARGEMODEL 1u
#define Q1_B_LARGEFRAME 2u
#define Q1_B_ALPHA 4u
#define Q1_SND_VOLUME 1u
#define Q1_SND_ATTENUATION 2u
#define Q1_SND_LARGEENTITY 8u
#define Q1_SND_LARGESOUND 16u

/* [DEM] 7.4: stat indices. Items go to 15, where QuakeWorld keeps them too. */
enum {
    Q1_STAT_HEALTH = 0,
    Q1_STAT_WEAPON = 2,
    Q1_STAT_AMMO = 3,
    Q1_STAT_ARMOR = 4,
    Q1_STAT_WEAPONFRAME = 5,
    Q1_STAT_SHELLS = 6,
    Q1_STAT_NAILS = 7,
    Q1_STAT_ROCKETS = 8,
    Q1_STAT_CELLS = 9,
    Q1_STAT_ACTIVEWEAPON = 10,
    Q1_STAT_SECRETS = 13,
    Q1_STAT_MONSTERS = 14,
    Q1_STAT_ITEMS = 15,
};

#define Q1_MAX_BLOCK 65536     /* FitzQuake raised the 8000-byte message limit; 64 KiB caps it */
#define Q1_MAX_CDTRACK_LINE 64 /* a longer first line is not a CD track */
#define Q1_MAX_PLAYERS 16      /* the engine's MAX_SCOREBOARD */

/* How clientdata's items field is sent ([DEM] 7.16: always from 1.07 on, only with bit
 * 0x0200 up to 1.06). Decided by the first clientdata that leaves the bit clear. */
enum { Q1_ITEMS_UNKNOWN, Q1_ITEMS_OLD, Q1_ITEMS_NEW };

typedef struct q1_state {
    uint64_t pos;        /* file offset of the next block */
    uint32_t block;      /* index of the next block */
    int32_t protocol;
    uint32_t prfl;       /* RMQ 999's protocol flags (DD_PRFL_*), 0 for 15 and 666 */
    int32_t max_clients;
    uint8_t items_mode;
    uint8_t rebase;      /* the next svc_time starts a new level: re-anchor demo time */
    uint8_t frame_open;
    uint8_t ended;       /* svc_disconnect, the recording's last message, was read */
    double time_base;    /* added to server time to give demo time */
    double last_time;    /* latest demo time emitted */
    float block_angles[3];
    qr_line line;                /* svc_print pieces of the line not yet ended */
    int32_t stats[QR_NUM_STATS]; /* the recorded view's raw stat slots */
    int32_t baseline_hw;         /* highest baseline written + 1: what a level start clears */
    cl_entstate baselines[CL_MAX_ENTITIES];
} q1_state;

/* The message name for `dump`. */
static const char *svc_name(int id)
{
    static const char *const names[] = {
        "svc_bad", "svc_nop", "svc_disconnect", "svc_updatestat", "svc_version",
        "svc_setview", "svc_sound", "svc_time", "svc_print", "svc_stufftext",
        "svc_setangle", "svc_serverinfo", "svc_lightstyle", "svc_updatename",
        "svc_updatefrags", "svc_clientdata", "svc_stopsound", "svc_updatecolors",
        "svc_particle", "svc_damage", "svc_spawnstatic", "svc_spawnbinary",
        "svc_spawnbaseline", "svc_temp_entity", "svc_setpause", "svc_signonnum",
        "svc_centerprint", "svc_killedmonster", "svc_foundsecret", "svc_spawnstaticsound",
        "svc_intermission", "svc_finale", "svc_cdtrack", "svc_sellscreen", "svc_cutscene",
    };
    if (id >= 0 && id < (int)(sizeof names / sizeof names[0]))
        return names[id];
    switch (id) {
    case Q1_SVC_SKYBOX: return "svc_skybox";
    case Q1_SVC_BF: return "svc_bf";
    case Q1_SVC_FOG: return "svc_fog";
    case Q1_SVC_SPAWNBASELINE2: return "svc_spawnbaseline2";
    case Q1_SVC_SPAWNSTATIC2: return "svc_spawnstatic2";
    case Q1_SVC_SPAWNSTATICSOUND2: return "svc_spawnstaticsound2";
    default: return id >= 0x80 ? "svc_updateentity" : "svc_unknown";
    }
}

/* [DEM] 6.4 */


/* A reading context for one block: the reader over the whole file, limited to the block. */
typedef struct q1_ctx {
    q1_state *st;
    rd_t r;                 /* r.len is the end of the block */
    cl_state *cl;
    const demo_trace *trace;
    qd_error *err;
    uint64_t msg_ofs;       /* offset of the message being parsed */
    int msg_id;
    char detail[1536];
    char esc[2][1200]; /* trace only: escaped copies of the demo's strings (a dump line is one
                       * line whatever a name holds: a review found names making fake lines
                       * and terminal escapes) */
} q1_ctx;

/* The first n characters of s made printable for a detail line (demo_escape) in buffer
 * slot 0 or 1 (cut before escaping: a cut after could split an escape; a review). */
static const char *esc(q1_ctx *c, int slot, const char *s, int n)
{
    char raw[300];
    snprintf(raw, sizeof raw, "%.*s", n < (int)sizeof raw - 1 ? n : (int)sizeof raw - 1, s);
    return demo_escape(c->esc[slot], sizeof c->esc[slot], raw);
}

#define DETAIL(c, ...)                                                                     \
    do {                                                                                   \
        if ((c)->trace)                                                                    \
            snprintf((c)->detail, sizeof (c)->detail, __VA_ARGS__);                        \
    } while (0)

static qd_err bad(q1_ctx *c, qd_err code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Fail the decode at the current message: "svc_name: reason". */
static qd_err bad(q1_ctx *c, qd_err code, const char *fmt, ...)
{
    char why[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return qd_fail(c->err, code, c->msg_ofs, "%s: %s", svc_name(c->msg_id), why);
}

/* FitzQuake's messages and bits: protocols 666 and 999 */
static int fitz(const q1_ctx *c) { return c->st->protocol >= Q1_PROTOCOL_FITZ; }
/* [DEM] 6.4 coordinates and angles, in RMQ's encodings when its flags say so */
static float read_coord(q1_ctx *c) { return dd_read_qcoord(&c->r, c->st->prfl); }
static float read_angle(q1_ctx *c) { return dd_read_qangle(&c->r, c->st->prfl); }

static uint8_t alpha_decode(uint8_t a)
{
    /* [FITZ] alpha 0 means "default" (opaque); 1..255 map to 0..1. */
    if (a == 0)
        return 255;
    return (uint8_t)(((unsigned)a - 1u) * 255u / 254u);
}

static qd_err check_entity(q1_ctx *c, long num)
{
    if (num < 0 || num >= CL_MAX_ENTITIES)
        return bad(c, QD_ERR_LIMIT, "entity number %ld is over qdemo's limit of 8192", num);
    return QD_OK;
}

static qd_err check_model(q1_ctx *c, long model)
{
    if (model < 0 || model >= CL_MAX_MODELS)
        return bad(c, QD_ERR_BAD_DATA, "model index %ld is out of range", model);
    return QD_OK;
}

/* [DEM] 7.12 */
static qd_err parse_serverinfo(q1_ctx *c)
{
    rd_t *r = &c->r;
    int32_t protocol = rd_s32(r);
    if (r->err)
        return QD_OK;
    if (protocol != Q1_PROTOCOL && protocol != Q1_PROTOCOL_FITZ && protocol != Q1_PROTOCOL_RMQ)
        return bad(c, QD_ERR_UNSUPPORTED, "unknown protocol %ld (qdemo reads 15, 666 and 999)",
                   (long)protocol);
    uint32_t prfl = protocol == Q1_PROTOCOL_RMQ ? rd_u32(r) : 0;
    if (prfl & ~(uint32_t)Q1_RMQ_FLAGS_KNOWN)
        return bad(c, QD_ERR_UNSUPPORTED, "RMQ protocol flags 0x%lx name encodings qdemo does not "
                   "know (it reads 0x%lx)", (unsigned long)prfl,
                   (unsigned long)Q1_RMQ_FLAGS_KNOWN);
    c->st->protocol = protocol;
    c->st->prfl = prfl;
    int max_clients = rd_u8(r);
    int multi = rd_u8(r);
    char title[CL_TEXT_LEN];
    rd_str(r, title, sizeof title);
    if (max_clients < 1 || max_clients > Q1_MAX_PLAYERS)
        return bad(c, QD_ERR_BAD_DATA, "maxclients %ld is out of range 1..16", (long)max_clients);
    c->st->max_clients = max_clients;
    cl_level_begin(c->cl, CL_GAME_Q1, protocol, max_clients, title);
    cl_set_gamedir(c->cl, "id1");
    c->cl->view.view_height = 22; /* [DEM] 7.16: the default view_ofs_z */
    int max_models = protocol != Q1_PROTOCOL ? CL_MAX_MODELS : 256;
    int max_sounds = protocol != Q1_PROTOCOL ? CL_MAX_SOUNDS : 256;
    char name[CL_TEXT_LEN];
    int nmodels = 0, nsounds = 0;
    for (;;) {
        rd_str(r, name, sizeof name);
        if (r->err || !name[0])
            break;
        if (++nmodels >= max_models)
            return bad(c, QD_ERR_LIMIT, "more than %ld models", (long)max_models - 1);
        cl_set_model(c->cl, nmodels, name);
        if (nmodels == 1)
            cl_set_map(c->cl, name);
    }
    for (;;) {
        rd_str(r, name, sizeof name);
        if (r->err || !name[0])
            break;
        if (++nsounds >= max_sounds)
            return bad(c, QD_ERR_LIMIT, "more than %ld sounds", (long)max_sounds - 1);
        cl_set_sound(c->cl, nsounds, name);
    }
    /* only the written ones: the 320 KB array stays untouched where no baseline came */
    memset(c->st->baselines, 0, (size_t)c->st->baseline_hw * sizeof c->st->baselines[0]);
    c->st->baseline_hw = 0;
    memset(c->st->stats, 0, sizeof c->st->stats); /* cl_level_begin cleared the view's */
    c->st->line.len = 0;
    c->st->rebase = 1;
    if (!r->err) {
        char level[CL_TEXT_LEN];
        snprintf(level, sizeof level, "%.63s %.180s", c->cl->level.map, title);
        qr_text_event(c->cl, CL_EV_LEVEL, level);
    }
    DETAIL(c, "protocol=%d maxclients=%d multi=%d title=\"%s\" map=\"%s\" models=%d sounds=%d",
           (int)protocol, max_clients, multi, esc(c, 0, title, 100),
           esc(c, 1, c->cl->level.map, 63),
           nmodels, nsounds);
    return QD_OK;
}

/* The recorded view's player slot (0 in single player), -1 when unknown. */
static int view_slot(const q1_ctx *c)
{
    int slot = c->cl->view.view_entity - 1;
    return slot >= 0 && slot < c->st->max_clients ? slot : -1;
}

/* A raw stat slot changed (the named stats follow from them: fill_stats). */
static void set_stat(q1_ctx *c, int index, int32_t value)
{
    if (index < 0 || index >= QR_NUM_STATS)
        return;
    c->st->stats[index] = value;
}

/* The named stats from the raw slots: once per message that changes them. */
static void fill_stats(q1_ctx *c)
{
    cl_stats st;
    int slot = view_slot(c);
    qr_fill_stats(c->st->stats, slot >= 0 ? c->cl->players[slot].frags : 0, &st);
    cl_set_stats(c->cl, -1, &st);
}

/* [DEM] 7.16 clientdata. Returns the parse with the items field present or not. */
static void clientdata_fields(rd_t *r, uint32_t bits, int with_items, int fitzq, int32_t *v)
{
    /* v: 0 viewheight 1 idealpitch 2..4 punch 5..7 velocity 8 items 9 weaponframe
     * 10 armor 11 weapon 12 health 13 ammo 14..17 shells..cells 18 activeweapon 19 alpha */
    v[0] = bits & Q1_SU_VIEWHEIGHT ? rd_s8(r) : 22;
    v[1] = bits & Q1_SU_IDEALPITCH ? rd_s8(r) : 0;
    for (int i = 0; i < 3; i++) {
        v[2 + i] = bits & (Q1_SU_PUNCH1 << i) ? rd_s8(r) : 0;
        v[5 + i] = bits & (Q1_SU_VELOCITY1 << i) ? rd_s8(r) * 16 : 0;
    }
    v[8] = with_items ? (int32_t)rd_u32(r) : 0x4001; /* [DEM]: the old default */
    v[9] = bits & Q1_SU_WEAPONFRAME ? rd_u8(r) : 0;
    v[10] = bits & Q1_SU_ARMOR ? rd_u8(r) : 0;
    v[11] = bits & Q1_SU_WEAPON ? rd_u8(r) : 0;
    v[12] = rd_s16(r);
    v[13] = rd_u8(r);
    for (int i = 0; i < 4; i++)
        v[14 + i] = rd_u8(r);
    v[18] = rd_u8(r);
    v[19] = 0;
    if (fitzq) {
        if (bits & Q1_SU_WEAPON2)
            v[11] |= rd_u8(r) << 8;
        if (bits & Q1_SU_ARMOR2)
            v[10] |= rd_u8(r) << 8;
        if (bits & Q1_SU_AMMO2)
            v[13] |= rd_u8(r) << 8;
        for (int i = 0; i < 4; i++)
            if (bits & (Q1_SU_SHELLS2 << i))
                v[14 + i] |= rd_u8(r) << 8;
        if (bits & Q1_SU_WEAPONFRAME2)
            v[9] |= rd_u8(r) << 8;
        if (bits & Q1_SU_WEAPONALPHA)
            v[19] = rd_u8(r);
    }
}

/* How believable one reading of a clientdata is: the block goes on at its end or at a
 * message id (2 points), the health is a game's health (1), the active weapon is one
 * weapon bit or the axe's 0 ([DEM] 7.16 table 6) (1), and the items hold that weapon and
 * none of the bits [DEM] table 5 says are always 0 (+1, or -2). A reading without items
 * cannot contradict itself there and gets the +1. */
static int clientdata_score(const rd_t *r, const int32_t *v, int with_items)
{
    if (r->err)
        return -1;
    int score = 0;
    if (r->pos == r->len) {
        score += 2;
    } else {
        uint8_t id = r->p[r->pos];
        if (id >= 0x80 || (id >= 1 && id <= Q1_SVC_SPAWNSTATICSOUND2 && id != Q1_SVC_SPAWNBINARY))
            score += 2;
    }
    if (v[12] >= -200 && v[12] <= 300)
        score++;
    if ((v[18] & (v[18] - 1)) == 0)
        score++;
    if (!with_items) {
        score++;
    } else {
        uint32_t items = (uint32_t)v[8];
        uint32_t need = v[18] ? (uint32_t)v[18] : 0x1000u; /* IT_AXE */
        if (items & 0x0f800000u)
            score -= 2;
        else if (items & need)
            score++;
    }
    return score;
}

static qd_err parse_clientdata(q1_ctx *c)
{
    rd_t *r = &c->r;
    /* [DEM] 7.16 a 16-bit mask; [FITZ] SU_EXTEND1, SU_EXTEND2 */
    static const dd_ladder ladder = {
        2, 2, {{Q1_SU_EXTEND1, 16, DD_OPT_FITZ}, {Q1_SU_EXTEND2, 24, DD_OPT_FITZ}}};
    dd_reader rd = {r, NULL, fitz(c) ? DD_OPT_FITZ : 0u, 0}; /* clientdata sends no coords */
    uint32_t bits = dd_read_mask(&rd, &ladder, 0);
    int with_items = 1;
    if (!(bits & Q1_SU_ITEMS)) {
        if (c->st->items_mode == Q1_ITEMS_UNKNOWN) {
            /* Try both readings once; keep the one after which the block still parses. */
            int32_t va[20], vb[20];
            rd_t a = *r, b = *r;
            clientdata_fields(&a, bits, 1, fitz(c), va);
            clientdata_fields(&b, bits, 0, fitz(c), vb);
            c->st->items_mode = clientdata_score(&b, vb, 0) > clientdata_score(&a, va, 1)
                                    ? Q1_ITEMS_OLD
                                    : Q1_ITEMS_NEW;
        }
        with_items = c->st->items_mode == Q1_ITEMS_NEW;
    }
    int32_t v[20];
    clientdata_fields(r, bits, with_items, fitz(c), v);
    if (r->err)
        return QD_OK;
    cl_state *cl = c->cl;
    cl->view.view_height = (float)v[0];
    for (int i = 0; i < 3; i++) {
        cl->view.punch[i] = (float)v[2 + i];
        cl->view.velocity[i] = (float)v[5 + i];
    }
    set_stat(c, Q1_STAT_ITEMS, v[8]);
    set_stat(c, Q1_STAT_WEAPONFRAME, v[9]);
    set_stat(c, Q1_STAT_ARMOR, v[10]);
    set_stat(c, Q1_STAT_WEAPON, v[11]);
    set_stat(c, Q1_STAT_HEALTH, v[12]);
    set_stat(c, Q1_STAT_AMMO, v[13]);
    for (int i = 0; i < 4; i++)
        set_stat(c, Q1_STAT_SHELLS + i, v[14 + i]);
    set_stat(c, Q1_STAT_ACTIVEWEAPON, v[18]);
    fill_stats(c);
    DETAIL(c, "bits=0x%x viewheight=%d punch=%d,%d,%d items=0x%x health=%d armor=%d ammo=%d "
              "weapon=%d",
           (unsigned)bits, (int)v[0], (int)v[2], (int)v[3], (int)v[4], (unsigned)v[8],
           (int)v[12], (int)v[10], (int)v[13], (int)v[18]);
    return QD_OK;
}

/* ---- entity fields, read by the delta engine (delta.h) ---- */

/* U_ALPHA, the one DD_HOOK row. */
static void read_alpha(dd_reader *rd, const dd_field *f, void *ent)
{
    (void)f;
    ((cl_entstate *)ent)->alpha = alpha_decode(rd_u8(rd->r));
}

/* The fields of an updateentity in wire order ([DEM] 7.36, then [FITZ]'s after U_ANGLE3),
 * with the baseline's 16-bit model and frame rows where a baseline has them ([DEM] 7.21,
 * [FITZ] spawnbaseline2: model, frame, colormap, skin, then origin and angle in turn, then
 * alpha): (bit, field, kind, skip bytes, size) rows for DD_ROW_FULL. The FitzQuake rows
 * (ENT_ROWS_FITZ) need no option: only the ladder's FitzQuake steps announce their bits. */
#define ENT_ROWS(X) ENT_ROWS_ID(X) ENT_ROWS_FITZ(X)
#define ENT_ROWS_ID(X)                                                                     \
    X(Q1_U_MODEL, model, DD_U8, 0, 2)                                                      \
    X(Q1_U_BASE_MODEL16, model, DD_U16, 0, 2)                                              \
    X(Q1_U_FRAME, frame, DD_U8, 0, 2)                                                      \
    X(Q1_U_BASE_FRAME16, frame, DD_U16, 0, 2)                                              \
    X(Q1_U_COLORMAP, player, DD_U8, 0, 1)                                                  \
    X(Q1_U_SKIN, skin, DD_U8, 0, 2)                                                        \
    X(Q1_U_EFFECTS, fx, DD_U8, 0, 2) /* EF_*: mapped */                                    \
    X(Q1_U_ORIGIN1, origin[0], DD_COORD16, 0, 4)                                           \
    X(Q1_U_ANGLE1, angles[0], DD_ANGLE8, 0, 4)                                             \
    X(Q1_U_ORIGIN2, origin[1], DD_COORD16, 0, 4)                                           \
    X(Q1_U_ANGLE2, angles[1], DD_ANGLE8, 0, 4)                                             \
    X(Q1_U_ORIGIN3, origin[2], DD_COORD16, 0, 4)                                           \
    X(Q1_U_ANGLE3, angles[2], DD_ANGLE8, 0, 4)
#define ENT_ROWS_FITZ(X)                                                                   \
    X(Q1_U_ALPHA, alpha, DD_HOOK, 0, 1)                                                    \
    X(Q1_U_SCALE, scale, DD_U8, 0, 1)                                                      \
    X(Q1_U_FRAME2, frame, DD_HI8, 0, 2)                                                    \
    X(Q1_U_MODEL2, model, DD_HI8, 0, 2)                                                    \
    X(Q1_U_LERPFINISH, flags, DD_SKIP, 1, 1) /* a lerp hint, not kept */

#define ENT_ROW(bit, field, kind, skip, size) \
    DD_ROW_FULL(cl_entstate, bit, 0, field, kind, skip, size, 1, 0),
static const dd_field ent_fields[] = {ENT_ROWS(ENT_ROW)};
#undef ENT_ROW
#define ENT_BIT(bit, field, kind, skip, size) | (bit)
static const dd_table ent_table = {ent_fields, sizeof ent_fields / sizeof ent_fields[0],
                                   0 ENT_ROWS(ENT_BIT), read_alpha};
/* The same rows for RMQ 999: coordinates and angles in the encodings its flags name. */
#define RMQ_KIND(kind) ((kind) == DD_COORD16 ? DD_QCOORD : (kind) == DD_ANGLE8 ? DD_QANGLE : (kind))
#define ENT_ROW_RMQ(bit, field, kind, skip, size) \
    DD_ROW_FULL(cl_entstate, bit, 0, field, RMQ_KIND(kind), skip, size, 1, 0),
static const dd_field ent_fields_rmq[] = {ENT_ROWS(ENT_ROW_RMQ)};
#undef ENT_ROW_RMQ
static const dd_table ent_table_rmq = {ent_fields_rmq,
                                       sizeof ent_fields_rmq / sizeof ent_fields_rmq[0],
                                       0 ENT_ROWS(ENT_BIT), read_alpha};
#undef ENT_BIT

/* [DEM] 7.36 U_MOREBITS; [FITZ] U_EXTEND1, U_EXTEND2 (seeded with the id's low 7 bits). */
static const dd_ladder ent_ladder = {0, 3,
                                     {{Q1_U_MOREBITS, 8, 0},
                                      {Q1_U_EXTEND1, 16, DD_OPT_FITZ},
                                      {Q1_U_EXTEND2, 24, DD_OPT_FITZ}}};

static dd_reader ent_reader(q1_ctx *c)
{
    return (dd_reader){&c->r, NULL, fitz(c) ? DD_OPT_FITZ : 0u, c->st->prfl};
}

/* [DEM] 7.21, 7.23; [FITZ] the version-2 forms with a bits byte: the update's rows, from
 * zero, under the mask the baseline's layout gives. */
static qd_err read_baseline(q1_ctx *c, int version, cl_entstate *s)
{
    dd_reader rd = ent_reader(c);
    unsigned bits = version == 2 ? rd_u8(&c->r) : 0;
    uint32_t mask = Q1_U_COLORMAP | Q1_U_SKIN | Q1_U_ORIGIN1 | Q1_U_ORIGIN2 | Q1_U_ORIGIN3 |
                    Q1_U_ANGLE1 | Q1_U_ANGLE2 | Q1_U_ANGLE3;
    mask |= bits & Q1_B_LARGEMODEL ? Q1_U_BASE_MODEL16 : Q1_U_MODEL;
    mask |= bits & Q1_B_LARGEFRAME ? Q1_U_BASE_FRAME16 : Q1_U_FRAME;
    mask |= bits & Q1_B_ALPHA ? Q1_U_ALPHA : 0;
    memset(s, 0, sizeof *s);
    s->alpha = 255;
    dd_read_fields(&rd, rd.prfl ? &ent_table_rmq : &ent_table, mask, s);
    return check_model(c, s->model);
}

static void detail_state(q1_ctx *c, const char *prefix, long num, const cl_entstate *s)
{
    DETAIL(c, "%s%ld model=%u frame=%u skin=%u colormap=%u origin=%.1f,%.1f,%.1f "
              "angles=%.1f,%.1f,%.1f",
           prefix, num, s->model, s->frame, s->skin, s->player, s->origin[0], s->origin[1],
           s->origin[2], s->angles[0], s->angles[1], s->angles[2]);
}

/* [DEM] 7.36 */
static qd_err parse_update(q1_ctx *c, uint8_t id)
{
    rd_t *r = &c->r;
    dd_reader rd = ent_reader(c);
    uint32_t bits = dd_read_mask(&rd, &ent_ladder, id & 0x7fu);
    uint32_t fields = bits & ~(Q1_U_BASE_MODEL16 | Q1_U_BASE_FRAME16);
    long num = bits & Q1_U_LONGENTITY ? rd_u16(r) : rd_u8(r);
    qd_err e = check_entity(c, num);
    if (e)
        return e;
    cl_entstate s = c->st->baselines[num];
#define ENT_READ(bit, field, kind, skip, size)                                             \
    DD_READ(&rd, &ent_table, fields, &s,                                                   \
            DD_ROW_FULL(cl_entstate, bit, 0, field, kind, skip, size, 1, 0));
#define ENT_READ_RMQ(bit, field, kind, skip, size) ENT_READ(bit, field, RMQ_KIND(kind), skip, size)
    if (rd.prfl) { /* RMQ's coordinates and angles by its flags */
        ENT_ROWS(ENT_READ_RMQ)
    } else if (rd.opts & DD_OPT_FITZ) { /* protocol 15 updates skip [FITZ]'s rows in one test */
        ENT_ROWS(ENT_READ)
    } else {
        ENT_ROWS_ID(ENT_READ)
    }
#undef ENT_READ
#undef ENT_READ_RMQ
    if (r->err)
        return QD_OK;
    if ((e = check_model(c, s.model)))
        return e;
    s.fx = qr_entity_fx(s.fx); /* the wire's EF_* byte (the baseline has none) */
    s.flags = 0;
    if (bits & Q1_U_NOLERP)
        s.flags |= CL_EF_TELEPORT;
    /* cl_main.c CL_RelinkEntities: a move of over 100 units along any axis since the last
     * message is a teleport, not a motion */
    if (num < (uint32_t)c->cl->num_entities && c->cl->entities[num].active) {
        const float *o = c->cl->entities[num].cur.origin;
        float dx = fabsf(s.origin[0] - o[0]), dy = fabsf(s.origin[1] - o[1]),
              dz = fabsf(s.origin[2] - o[2]);
        if ((dx > dy ? dx : dy) > 100 || dz > 100)
            s.flags |= CL_EF_TELEPORT;
    }
    if (num >= 1 && num <= c->st->max_clients)
        s.flags |= CL_EF_PLAYER;
    if (!c->st->frame_open) {
        /* An update outside a timed frame (some recorders put them before svc_time). */
        cl_frame_begin(c->cl, c->st->last_time);
        c->st->frame_open = 1;
    }
    cl_entity_update(c->cl, (int)num, &s);
    if (s.fx & CL_FX_MUZZLE) /* its light lives 0.1 s, whatever the server's frame rate */
        qr_muzzle_flash(c->cl, (int)num, s.origin, s.angles, 16);
    if (c->trace) {
        char pre[32];
        snprintf(pre, sizeof pre, "bits=0x%x ent=", (unsigned)bits);
        detail_state(c, pre, num, &s);
    }
    return QD_OK;
}

/* [DEM] 7.24; TE_EXPLOSION2 and TE_BEAM are 1.08's. */
static qd_err parse_temp_entity(q1_ctx *c)
{
    rd_t *r = &c->r;
    demo_temp te;
    memset(&te, 0, sizeof te);
    te.type = rd_u8(r);
    te.entity = -1;
    switch (te.type) {
    case 0: case 1: case 2: case 3: case 4: case 7: case 8: case 10: case 11:
        for (int i = 0; i < 3; i++)
            te.origin[i] = read_coord(c);
        break;
    case 5: case 6: case 9: case 13:
        te.entity = rd_s16(r);
        for (int i = 0; i < 3; i++)
            te.origin[i] = read_coord(c);
        for (int i = 0; i < 3; i++)
            te.end[i] = read_coord(c);
        break;
    case 12:
        for (int i = 0; i < 3; i++)
            te.origin[i] = read_coord(c);
        te.end[0] = (float)rd_u8(r); /* colour start and length (R_ParticleExplosion2's) */
        te.end[1] = (float)rd_u8(r);
        break;
    default:
        return bad(c, QD_ERR_BAD_DATA, "unknown temporary entity type %ld", (long)te.type);
    }
    cl_fxev fx;
    if (!r->err) {
        if (qr_temp_fx(CL_GAME_Q1, te.type, te.entity, te.origin, te.end, &fx))
            cl_fx_add(c->cl, &fx);
        qr_temp_sound(c->cl, CL_GAME_Q1, te.type, te.origin, (uint32_t)c->msg_ofs);
    }
    DETAIL(c, "type=%u ent=%d origin=%.1f,%.1f,%.1f", (unsigned)te.type, te.entity, te.origin[0],
           te.origin[1], te.origin[2]);
    return QD_OK;
}

/* view.c V_ParseDamage: the view's kick from a hit (armour save, health taken) that came
 * from `from`: count = the two halved, at least 10; roll by its side (v_kickroll 0.6) and
 * pitch by its front (v_kickpitch 0.6) against the view entity's facing, for v_kicktime
 * 0.5 s. (Its red screen tint is not drawn.) */
static void damage_kick(cl_state *cl, int save, int take, const float from[3])
{
    float count = save * 0.5f + take * 0.5f, d[3], len = 0;
    if (count < 10)
        count = 10;
    /* its tint: 3 percent a point of count on what is left, at most 150; pink when the armour
     * took more, red-pink with some armour, red without */
    cl_view *v = &cl->view;
    double since = cl->time - v->dmg_time;
    float left = v->dmg_percent - 150 * (float)(since > 0 ? since : 0);
    v->dmg_percent = (left > 0 ? left : 0) + 3 * count;
    if (v->dmg_percent > 150)
        v->dmg_percent = 150;
    static const uint8_t tint[3][3] = {{200, 100, 100}, {220, 50, 50}, {255, 0, 0}};
    memcpy(v->dmg_rgb, tint[save > take ? 0 : save ? 1 : 2], 3);
    v->dmg_roll = v->dmg_pitch = 0;
    v->dmg_time = cl->time;
    cl_entstate s;
    if (!cl_entity_at(cl, cl->view.view_entity, cl->time, &s, NULL, NULL))
        return;
    for (int i = 0; i < 3; i++) {
        d[i] = from[i] - s.origin[i];
        len += d[i] * d[i];
    }
    len = sqrtf(len);
    if (!(len > 0) || !isfinite(len))
        return;
    float yaw = s.angles[1] * (float)(M_PI / 180), pitch = s.angles[0] * (float)(M_PI / 180),
          roll = s.angles[2] * (float)(M_PI / 180);
    /* AngleVectors: forward and right of the entity's angles */
    float sy = sinf(yaw), cy = cosf(yaw), sp = sinf(pitch), cp = cosf(pitch), sr = sinf(roll),
          cr = cosf(roll);
    float fwd[3] = {cp * cy, cp * sy, -sp},
          right[3] = {-sr * sp * cy + cr * sy, -sr * sp * sy - cr * cy, -sr * cp};
    float side = (d[0] * right[0] + d[1] * right[1] + d[2] * right[2]) / len,
          front = (d[0] * fwd[0] + d[1] * fwd[1] + d[2] * fwd[2]) / len;
    cl->view.dmg_roll = count * side * 0.6f;
    cl->view.dmg_pitch = count * front * 0.6f;
}

static qd_err check_player(q1_ctx *c, long slot)
{
    if (slot < 0 || slot >= c->st->max_clients)
        return bad(c, QD_ERR_BAD_DATA, "player slot %ld is not below maxclients", slot);
    return QD_OK;
}

/* One whole print line: an obituary, a pickup or a plain print. */
static void print_line(q1_ctx *c, const char *line)
{
    cl_event ev;
    if (qr_obituary(c->cl, line, &ev) || qr_pickup(line, view_slot(c), &ev))
        cl_event_add(c->cl, &ev);
}

/* A whole line of svc_print: a line starting with byte 1 is chat. */
static void print_whole_line(void *ctx, const char *line)
{
    q1_ctx *c = ctx;
    if (line[0] == 1) {
        cl_event ev;
        qr_chat(c->cl, line + 1, &ev);
        cl_event_add(c->cl, &ev);
    } else {
        print_line(c, line);
    }
}

/* svc_print: Quake sends lines in pieces (sprint per word); join them into whole lines. */
static void print_pieces(q1_ctx *c, const char *text)
{
    qr_line_feed(&c->st->line, text, print_whole_line, c);
}

/* One message; c->msg_id is set. */
static qd_err parse_message(q1_ctx *c, int *end_of_demo)
{
    rd_t *r = &c->r;
    cl_state *cl = c->cl;
    q1_state *st = c->st;
    int id = c->msg_id;
    char text[2048];
    qd_err e = QD_OK;
    c->detail[0] = 0;

    if (id >= 0x80)
        return parse_update(c, (uint8_t)id);
    if (st->protocol == 0 && id != Q1_SVC_SERVERINFO && id != Q1_SVC_PRINT &&
        id != Q1_SVC_NOP && id != Q1_SVC_DISCONNECT && id != Q1_SVC_STUFFTEXT &&
        id != Q1_SVC_CENTERPRINT && id != Q1_SVC_VERSION && id != Q1_SVC_CDTRACK &&
        id != Q1_SVC_TIME && id != Q1_SVC_SIGNONNUM)
        return bad(c, QD_ERR_BAD_DATA, "message before svc_serverinfo (id %d)", id);

    switch (id) {
    case Q1_SVC_NOP:
        break;
    case Q1_SVC_DISCONNECT:
        *end_of_demo = 1;
        break;
    case Q1_SVC_UPDATESTAT: {
        int index = rd_u8(r);
        int32_t value = rd_s32(r);
        if (!r->err && index > 31)
            return bad(c, QD_ERR_BAD_DATA, "stat index %d is over 31", index);
        set_stat(c, index, value);
        fill_stats(c);
        DETAIL(c, "stat=%d value=%d", index, (int)value);
        break;
    }
    case Q1_SVC_VERSION: {
        int32_t v = rd_s32(r);
        if (!r->err && v != Q1_PROTOCOL && v != Q1_PROTOCOL_FITZ && v != Q1_PROTOCOL_RMQ)
            return bad(c, QD_ERR_UNSUPPORTED, "unknown protocol %ld", (long)v);
        DETAIL(c, "protocol=%d", (int)v);
        break;
    }
    case Q1_SVC_SETVIEW: {
        long ent = rd_u16(r);
        if ((e = check_entity(c, ent)))
            return e;
        cl_set_view_entity(cl, (int)ent);
        DETAIL(c, "ent=%ld", ent);
        break;
    }
    case Q1_SVC_SOUND: {
        unsigned mask = rd_u8(r);
        unsigned volume = mask & Q1_SND_VOLUME ? rd_u8(r) : 255;        /* DEFAULT_SOUND_PACKET_VOLUME */
        unsigned atten = mask & Q1_SND_ATTENUATION ? rd_u8(r) : 64;     /* 1.0 x 64, as sent */
        long ent, chan, snd;
        if (fitz(c) && (mask & Q1_SND_LARGEENTITY)) {
            ent = rd_u16(r);
            chan = rd_u8(r);
        } else {
            unsigned ec = rd_u16(r);
            ent = ec >> 3;
            chan = ec & 7;
        }
        snd = fitz(c) && (mask & Q1_SND_LARGESOUND) ? rd_u16(r) : rd_u8(r);
        float o[3];
        for (int i = 0; i < 3; i++)
            o[i] = read_coord(c);
        if (!r->err) {
            cl_sound snd_ev;
            memset(&snd_ev, 0, sizeof snd_ev);
            for (int i = 0; i < 3; i++)
                snd_ev.origin[i] = o[i];
            snd_ev.has_origin = 1;
            snd_ev.sound = (uint16_t)snd;
            snd_ev.entity = (int16_t)(ent < CL_MAX_ENTITIES ? ent : -1);
            snd_ev.channel = (uint8_t)chan;
            snd_ev.volume = (uint8_t)volume;
            snd_ev.attenuation = (uint8_t)atten; /* sent as attenuation x 64 */
            cl_sound_add(cl, &snd_ev);
        }
        DETAIL(c, "ent=%ld chan=%ld sound=%ld (%s) origin=%.1f,%.1f,%.1f", ent, chan, snd,
               esc(c, 0, snd > 0 && snd < CL_MAX_SOUNDS ? cl->level.sounds[snd] : "?", 63), o[0],
               o[1], o[2]);
        break;
    }
    case Q1_SVC_TIME: {
        float t = rd_f32(r);
        if (r->err)
            break;
        if (!(t == t) || t < -1e6f || t > 1e7f)
            /* Printed as a double: a float this far out does not fit a long. */
            return bad(c, QD_ERR_BAD_DATA, "time %g is not a sane number of seconds", (double)t);
        if (st->rebase) {
            st->time_base = st->last_time - (double)t;
            st->rebase = 0;
        }
        double dt = st->time_base + (double)t;
        cl->level.has_server_time = 1;
        cl->level.server_time0 = st->time_base;
        if (dt < st->last_time)
            dt = st->last_time; /* demo time never runs backwards */
        if (st->frame_open)
            cl_frame_end(cl, CL_DROP_ALL);
        cl_frame_begin(cl, dt);
        cl_set_view_angles(cl, st->block_angles);
        st->frame_open = 1;
        st->last_time = dt;
        DETAIL(c, "time=%.3f", (double)t);
        break;
    }
    case Q1_SVC_PRINT:
    case Q1_SVC_CENTERPRINT:
    case Q1_SVC_STUFFTEXT:
    case Q1_SVC_FINALE:
    case Q1_SVC_CUTSCENE:
    case Q1_SVC_SKYBOX:
        rd_str(r, text, sizeof text);
        if (r->err)
            break;
        /* the "bf" command (V_BonusFlash_f: an item picked up) starts the bonus tint */
        for (const char *l = text; id == Q1_SVC_STUFFTEXT && l; l = strchr(l, '\n'), l = l ? l + 1 : l)
            if (l[0] == 'b' && l[1] == 'f' && (l[2] == '\n' || l[2] == 0 || l[2] == ';' || l[2] == ' '))
                cl->view.bonus_time = cl->time > 0 ? cl->time : 1e-9;
        if (id == Q1_SVC_PRINT) { /* say and say_team lines start with byte 1 */
            cl_message_add(cl, text[0] == 1 ? CL_MSG_CHAT : CL_MSG_PRINT, text[0] == 1 ? text + 1 : text);
            print_pieces(c, text);
        } else if (id == Q1_SVC_CENTERPRINT || id == Q1_SVC_FINALE || id == Q1_SVC_CUTSCENE) {
            cl_message_add(cl, CL_MSG_CENTER, text);
            if (text[0])
                qr_text_event(cl, CL_EV_CENTER, text);
        }
        if (id == Q1_SVC_FINALE || id == Q1_SVC_CUTSCENE) {
            cl_set_intermission(cl, id == Q1_SVC_FINALE ? CL_INTER_FINALE : CL_INTER_CUTSCENE);
            qr_text_event(cl, CL_EV_INTERMISSION, "");
        }
        if (c->trace) {
            size_t n = strlen(text);
            while (n && (text[n - 1] == '\n' || text[n - 1] == '\r'))
                text[--n] = 0;
            for (char *p = text; *p; p++) /* Quake's font uses the high bit for colour */
                if ((unsigned char)*p >= 128 || *p == '\n')
                    *p = (char)(((unsigned char)*p & 0x7f) < 32 ? ' ' : (*p & 0x7f));
            DETAIL(c, "text=\"%s\"", esc(c, 0, text, 280));
        }
        break;
    case Q1_SVC_SETANGLE: {
        float a[3];
        for (int i = 0; i < 3; i++)
            a[i] = read_angle(c);
        DETAIL(c, "angles=%.1f,%.1f,%.1f", a[0], a[1], a[2]);
        break;
    }
    case Q1_SVC_SERVERINFO:
        if (st->frame_open) {
            cl_frame_end(cl, CL_DROP_ALL);
            st->frame_open = 0;
        }
        return parse_serverinfo(c);
    case Q1_SVC_LIGHTSTYLE: {
        int style = rd_u8(r);
        rd_str(r, text, sizeof text);
        if (!r->err && style >= CL_MAX_LIGHTSTYLES)
            return bad(c, QD_ERR_BAD_DATA, "light style %d is over 63", style);
        cl_set_lightstyle(cl, style, text);
        DETAIL(c, "style=%d pattern=\"%s\"", style, esc(c, 0, text, 64));
        break;
    }
    case Q1_SVC_UPDATENAME: {
        int slot = rd_u8(r);
        rd_str(r, text, sizeof text);
        if (r->err)
            break;
        if ((e = check_player(c, slot)))
            return e;
        cl_set_player_name(cl, slot, text);
        cl_set_player_entity(cl, slot, slot + 1);
        cl_set_player_look(cl, slot, "player", "base", ""); /* Quake has one player model */
        DETAIL(c, "player=%d name=\"%s\"", slot, esc(c, 0, text, 64));
        break;
    }
    case Q1_SVC_UPDATEFRAGS: {
        int slot = rd_u8(r);
        int frags = rd_s16(r);
        if (r->err)
            break;
        if ((e = check_player(c, slot)))
            return e;
        cl_set_player_frags(cl, slot, frags);
        if (slot == view_slot(c))
            fill_stats(c);
        DETAIL(c, "player=%d frags=%d", slot, frags);
        break;
    }
    case Q1_SVC_CLIENTDATA:
        return parse_clientdata(c);
    case Q1_SVC_STOPSOUND: {
        unsigned ec = rd_u16(r);
        DETAIL(c, "ent=%u chan=%u", ec >> 3, ec & 7);
        break;
    }
    case Q1_SVC_UPDATECOLORS: {
        int slot = rd_u8(r);
        int colors = rd_u8(r);
        if (r->err)
            break;
        if ((e = check_player(c, slot)))
            return e;
        cl_set_player_colors(cl, slot, colors >> 4, colors & 15);
        if (cl->level.max_clients > 1 && cl->players[slot].active) /* teamplay: pants colour */
            cl_set_player_team(cl, slot, (colors & 15) == 4   ? CL_TEAM_RED
                                         : (colors & 15) == 13 ? CL_TEAM_BLUE
                                                               : CL_TEAM_NONE);
        DETAIL(c, "player=%d shirt=%d pants=%d", slot, colors >> 4, colors & 15);
        break;
    }
    case Q1_SVC_PARTICLE: {
        float o[3];
        for (int i = 0; i < 3; i++)
            o[i] = read_coord(c);
        /* cl_parse.c CL_ParseParticleEffect: a direction in 16ths, a count (255: the
         * explosion's 1024) and a colour, for R_RunParticleEffect (r_part.c) */
        cl_fxev fx;
        memset(&fx, 0, sizeof fx);
        fx.kind = CL_FXK_PARTICLES;
        for (int i = 0; i < 3; i++) {
            fx.origin[i] = o[i];
            fx.end[i] = (float)rd_s8(r) / 16;
        }
        int count = rd_u8(r);
        fx.entity = (int16_t)(count == 255 ? 1024 : count);
        fx.style = rd_u8(r);
        fx.life = count == 255 ? 0.8f : 0.4f; /* its particles' longest (r_part.c) */
        if (!r->err)
            cl_fx_add(cl, &fx);
        DETAIL(c, "origin=%.1f,%.1f,%.1f", o[0], o[1], o[2]);
        break;
    }
    case Q1_SVC_DAMAGE: {
        int save = rd_u8(r), take = rd_u8(r);
        float o[3];
        for (int i = 0; i < 3; i++)
            o[i] = read_coord(c);
        if (!r->err)
            damage_kick(cl, save, take, o);
        DETAIL(c, "save=%d take=%d from=%.1f,%.1f,%.1f", save, take, o[0], o[1], o[2]);
        break;
    }
    case Q1_SVC_SPAWNSTATIC:
    case Q1_SVC_SPAWNSTATIC2: {
        cl_entstate s;
        if ((e = read_baseline(c, id == Q1_SVC_SPAWNSTATIC2 ? 2 : 1, &s)))
            return e;
        if (!r->err)
            cl_static_add(cl, &s);
        detail_state(c, "static=", cl->num_statics - 1, &s);
        break;
    }
    case Q1_SVC_SPAWNBASELINE:
    case Q1_SVC_SPAWNBASELINE2: {
        long ent = rd_u16(r);
        if ((e = check_entity(c, ent)))
            return e;
        cl_entstate s;
        if ((e = read_baseline(c, id == Q1_SVC_SPAWNBASELINE2 ? 2 : 1, &s)))
            return e;
        if (!r->err) {
            st->baselines[ent] = s;
            if (ent >= st->baseline_hw)
                st->baseline_hw = (int32_t)ent + 1;
        }
        detail_state(c, "ent=", ent, &s);
        break;
    }
    case Q1_SVC_TEMP_ENTITY:
        return parse_temp_entity(c);
    case Q1_SVC_SETPAUSE: {
        int p = rd_u8(r);
        cl_set_paused(cl, p);
        DETAIL(c, "paused=%d", p);
        break;
    }
    case Q1_SVC_SIGNONNUM: {
        int s = rd_u8(r);
        DETAIL(c, "signon=%d", s);
        break;
    }
    case Q1_SVC_KILLEDMONSTER:
        /* (in unsigned: a stat the demo set to INT32_MAX overflowed; a review) */
        set_stat(c, Q1_STAT_MONSTERS, (int32_t)((uint32_t)st->stats[Q1_STAT_MONSTERS] + 1u));
        fill_stats(c);
        break;
    case Q1_SVC_FOUNDSECRET:
        set_stat(c, Q1_STAT_SECRETS, (int32_t)((uint32_t)st->stats[Q1_STAT_SECRETS] + 1u));
        fill_stats(c);
        break;
    case Q1_SVC_SPAWNSTATICSOUND:
    case Q1_SVC_SPAWNSTATICSOUND2: {
        float o[3];
        for (int i = 0; i < 3; i++)
            o[i] = read_coord(c);
        long snd = id == Q1_SVC_SPAWNSTATICSOUND2 ? rd_u16(r) : rd_u8(r);
        cl_static_sound ss = {{o[0], o[1], o[2]}, (uint16_t)snd, 0, 0};
        ss.volume = rd_u8(r);      /* 0..255 */
        ss.attenuation = rd_u8(r); /* x64, as sent */
        if (!r->err)
            cl_static_sound_add(cl, &ss);
        DETAIL(c, "sound=%ld origin=%.1f,%.1f,%.1f", snd, o[0], o[1], o[2]);
        break;
    }
    case Q1_SVC_INTERMISSION:
        cl_set_intermission(cl, CL_INTER_SHOW);
        qr_text_event(cl, CL_EV_INTERMISSION, "");
        break;
    case Q1_SVC_CDTRACK: {
        int from = rd_u8(r), to = rd_u8(r);
        DETAIL(c, "track=%d loop=%d", from, to);
        break;
    }
    case Q1_SVC_SELLSCREEN:
    case Q1_SVC_BF:
        break;
    case Q1_SVC_FOG: {
        if (!fitz(c))
            return bad(c, QD_ERR_BAD_DATA, "message id %d is not in protocol 15", id);
        int density = rd_u8(r);
        rd_skip(r, 3 + 2); /* red, green, blue, fade time */
        DETAIL(c, "density=%d", density);
        break;
    }
    default:
        return bad(c, QD_ERR_BAD_DATA, "unknown message id %d", id);
    }
    if (id >= Q1_SVC_SKYBOX && !fitz(c))
        return bad(c, QD_ERR_BAD_DATA, "message id %d is not in protocol 15", id);
    return QD_OK;
}

/* ---- the container: CD track line, then blocks ([DEM] 6.1, 6.2) ---- */

static int cut_first_block(const uint8_t *data, size_t len, size_t pos);

/* Is there a plausible block header at pos? */
static int plausible_block(const uint8_t *data, size_t len, size_t pos)
{
    rd_t r = rd_make(data, len);
    rd_seek(&r, pos);
    uint32_t size = rd_u32(&r);
    rd_skip(&r, 12);
    return !r.err && size <= Q1_MAX_BLOCK && size <= rd_left(&r);
}

/* Where the first block starts. [DEM] 6.1: Quake 1.09 reads bytes up to '\n'; older
 * versions use fscanf("%i\n"), which also allows no CD track at all. Prefer the 1.09
 * reading, and take the fscanf one when only it gives a sane first block. */
static int find_first_block(const uint8_t *data, size_t len, size_t *start)
{
    size_t nl = 0;
    while (nl < len && nl < Q1_MAX_CDTRACK_LINE && data[nl] != '\n')
        nl++;
    if (nl < len && data[nl] == '\n' &&
        (plausible_block(data, len, nl + 1) || cut_first_block(data, len, nl + 1))) {
        *start = nl + 1;
        return 1;
    }
    size_t p = 0;
    while (p < len && (data[p] == ' ' || data[p] == '\t' || data[p] == '\r' || data[p] == '\n'))
        p++;
    if (p < len && (data[p] == '-' || data[p] == '+'))
        p++;
    size_t digits = p;
    while (p < len && data[p] >= '0' && data[p] <= '9')
        p++;
    if (p > digits) {
        while (p < len && (data[p] == ' ' || data[p] == '\t' || data[p] == '\r' ||
                           data[p] == '\n'))
            p++;
    } else {
        p = 0;
    }
    if (plausible_block(data, len, p) || cut_first_block(data, len, p)) {
        *start = p;
        return 1;
    }
    return 0;
}

/* Is there a block at pos that the file ends inside, whose first message is one a recording
 * starts with (2 for svc_serverinfo naming protocol 15, 666 or 999, 1 for another signon
 * message)? The start of a recording cut short. */
static int cut_first_block(const uint8_t *data, size_t len, size_t pos)
{
    rd_t r = rd_make(data, len);
    rd_seek(&r, pos);
    uint32_t size = rd_u32(&r);
    rd_skip(&r, 12);
    int id = rd_u8(&r);
    if (r.err || size == 0 || size > Q1_MAX_BLOCK || id < 1 || id > Q1_SVC_SPAWNSTATICSOUND2)
        return 0;
    int32_t protocol = rd_s32(&r);
    return id == Q1_SVC_SERVERINFO && !r.err &&
                   (protocol == Q1_PROTOCOL || protocol == Q1_PROTOCOL_FITZ ||
                    protocol == Q1_PROTOCOL_RMQ)
               ? 2
               : 1;
}

static int q1_probe(const uint8_t *data, size_t len, const char *filename)
{
    size_t start;
    int ext = 0;
    if (filename) {
        size_t n = strlen(filename);
        ext = n >= 4 && (strcmp(filename + n - 4, ".dem") == 0 ||
                         strcmp(filename + n - 4, ".DEM") == 0);
    }
    if (!find_first_block(data, len, &start))
        return ext ? 1 : 0;
    if (cut_first_block(data, len, start) == 2)
        return 9;
    /* The first message of a real recording is serverinfo, print or a signon message. */
    if (start + 16 < len) {
        uint8_t id = data[start + 16];
        if (id == Q1_SVC_SERVERINFO)
            return 9;
        if (id >= 1 && id <= Q1_SVC_SPAWNSTATICSOUND2)
            return ext ? 6 : 3;
    }
    return ext ? 2 : 1;
}

static qd_err q1_init(void *state, const uint8_t *data, size_t len, qd_error *err)
{
    q1_state *st = state;
    size_t start;
    if (!find_first_block(data, len, &start))
        return qd_fail(err, len < 17 ? QD_ERR_TRUNCATED : QD_ERR_BAD_DATA, 0,
                       "no CD track line and first block found (not a Quake .dem?)");
    st->pos = start;
    st->max_clients = 1;
    return QD_OK;
}

static qd_err q1_step(void *state, const uint8_t *data, size_t len, cl_state *cl,
                      const demo_trace *trace, int *done, qd_error *err)
{
    q1_state *st = state;
    *done = 0;
    if (st->ended || st->pos == len) { /* a state saved at the end may be restored */
        *done = 1;
        return QD_OK;
    }
    rd_t r = rd_make(data, len);
    rd_seek(&r, (size_t)st->pos);
    uint64_t block_ofs = st->pos;
    uint32_t size = rd_u32(&r);
    float angles[3];
    for (int i = 0; i < 3; i++)
        angles[i] = rd_f32(&r);
    if (r.err)
        return qd_fail(err, QD_ERR_TRUNCATED, block_ofs,
                       "block %u header is cut off (%zu bytes left)", st->block,
                       len - (size_t)block_ofs);
    if (size > Q1_MAX_BLOCK)
        return qd_fail(err, QD_ERR_BAD_DATA, block_ofs,
                       "block %u says it holds %u bytes (over the 65536 limit)", st->block,
                       size);
    if (size > rd_left(&r))
        return qd_fail(err, QD_ERR_TRUNCATED, block_ofs,
                       "block %u of %u bytes is cut off after %zu bytes", st->block, size,
                       rd_left(&r));
    for (int i = 0; i < 3; i++)
        if (!(angles[i] == angles[i]) || angles[i] > 1e6f || angles[i] < -1e6f)
            angles[i] = 0;
    memcpy(st->block_angles, angles, sizeof angles);

    q1_ctx c;
    c.st = st;
    c.cl = cl;
    c.trace = trace;
    c.err = err;
    c.r = rd_make(data, r.pos + size);
    c.r.pos = r.pos;
    if (trace) {
        char d[96];
        snprintf(d, sizeof d, "size=%u angles=%.2f,%.2f,%.2f", size, angles[0], angles[1],
                 angles[2]);
        trace->msg(trace->ctx, st->last_time, st->block, block_ofs, "block", d);
    }
    int had_frame = 0, end = 0;
    /* The view angles belong to the block's frame; without svc_time they apply at once. */
    while (c.r.pos < c.r.len && !end) {
        c.msg_ofs = c.r.pos;
        c.msg_id = rd_u8(&c.r);
        int was_open = st->frame_open;
        qd_err e = parse_message(&c, &end);
        if (!e && c.r.err)
            e = qd_fail(err, QD_ERR_TRUNCATED, c.msg_ofs, "%s: runs past the end of block %u",
                        svc_name(c.msg_id), st->block);
        if (e) /* demo_step closes the frame left open and stops, or resumes (q1_resume) */
            return e;
        if (st->frame_open && (!was_open || c.msg_id == Q1_SVC_TIME))
            had_frame = 1;
        if (trace)
            trace->msg(trace->ctx, st->last_time, st->block, c.msg_ofs, svc_name(c.msg_id),
                       c.detail);
    }
    if (!had_frame)
        cl_set_view_angles(cl, angles);
    if (st->frame_open) {
        cl_frame_end(cl, CL_DROP_ALL);
        st->frame_open = 0;
    }
    st->pos = block_ofs + 16 + size;
    st->block++;
    if (end) {
        st->ended = 1;
        *done = 1;
    }
    return QD_OK;
}

static uint64_t q1_offset(const void *state) { return ((const q1_state *)state)->pos; }
static int q1_protocol(const void *state) { return ((const q1_state *)state)->protocol; }
static int q1_ended(const void *state) { return ((const q1_state *)state)->ended; }

/* [DEM] 6.2: int32 size, 3 float angles, then a message whose first byte is a server
 * message id. */
static int q1_block_at(const uint8_t *data, size_t len, uint64_t pos, int strict,
                       uint64_t *size)
{
    if (pos >= len)
        return DEMO_BLOCK_NONE;
    rd_t r = rd_make(data + pos, len - (size_t)pos);
    uint32_t n = rd_u32(&r);
    for (int i = 0; i < 3; i++) {
        float a = rd_f32(&r);
        if (!(a > -1e5f && a < 1e5f))
            return DEMO_BLOCK_NONE;
    }
    if (r.err || n == 0 || n > Q1_MAX_BLOCK)
        return DEMO_BLOCK_NONE;
    if (n > rd_left(&r))
        return DEMO_BLOCK_CUT;
    int id = rd_u8(&r);
    if (strict && (id == 0 || (id > Q1_SVC_SPAWNSTATICSOUND2 && id < 0x80)))
        return DEMO_BLOCK_NONE;
    *size = 16 + (uint64_t)n;
    return DEMO_BLOCK_WHOLE;
}

static void q1_resume(void *state, uint64_t pos)
{
    q1_state *st = state;
    st->frame_open = 0; /* demo.c closed the client's frame */
    st->pos = pos;
    st->block++;
}

const demo_decoder demo_q1_decoder = {
    .name = "Quake .dem",
    .format = DEMO_FMT_DEM,
    .state_size = sizeof(q1_state),
    .probe = q1_probe,
    .init = q1_init,
    .step = q1_step,
    .offset = q1_offset,
    .protocol = q1_protocol,
    .ended = q1_ended,
    .block_at = q1_block_at,
    .resume = q1_resume,
};
