/* qw.c: the QuakeWorld decoders: .qwd client recordings and .mvd server multi-view recordings.
 *
 * Both are blocks around QW server messages. A .qwd block is [float time][byte type] and a
 * client move (dem_cmd), a network packet (dem_read) or the sequence numbers (dem_set)
 * [QWD 3]. An .mvd block is [byte time delta in ms][byte type] where the low 3 bits are the
 * dem_* type and the high 5 the player of dem_single/dem_stats; dem_multiple carries a 32-bit
 * player mask; then a 32-bit length and the messages [EZPROT dem_*, EZPARSE cl_demo.c
 * CL_GetDemoMessage]. A .qwd step decodes one block; an .mvd step decodes one frame: the
 * blocks from one non-zero time delta up to the next, the span ezQuake gives one sequence
 * number (cl_demo.c: incoming_sequence++ when msecsadded).
 *
 * Everything the decode needs between steps is in qw_state (qw_local.h): plain data, no
 * pointers. Packet entities are delta-compressed against an earlier frame of a 64-slot ring
 * [QWD 5.49], kept by the delta engine (delta.h): the ring's frames share the entity states
 * that did not change, so a frame costs what changed rather than a fixed 300 slots. */
#include "demo.h"
#include "demo_local.h"
#include "qw_local.h"
#include "quake_rules.h"
#include "../common/rd.h"
#include "../common/text.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* What one step works with. */
typedef struct ctx {
    qw_state *s;
    cl_state *cl;
    const demo_trace *trace;
    qd_error *err;
    rd_t r;            /* the messages of the current block */
    uint64_t base;     /* file offset of r's first byte */
    uint64_t msg_ofs;  /* file offset of the message being parsed */
    int kind;          /* .mvd block type (QW_DEM_*) */
    uint32_t to;       /* .mvd: player (single/stats) or mask (multiple) */
    int applies;       /* prints and view effects concern the followed player */
    int done;          /* a disconnect ended the demo */
    int seat;          /* PEXT_SPLITSCREEN: the seat the message is for (0: the recorded view) */
    int long_uleb;     /* an FTE ULEB128 ran past 10 bytes (the reader is then at its end) */
    char esc[2][640];  /* trace only: escaped copies of strings */
} ctx;

/* The entity delta's mask (delta.h): bits 0..15 the 16-bit word without the number and
 * the U_MOREBITS byte, bits 16..31 the FTE U_EVENMORE byte and its U_YETMORE byte. */
#define MORE(b) ((uint32_t)(b) << 16)

/* Classic packet entities use the first QW_ENT_POOL / QW_ENT_REFS entries of the store;
 * FTE's replacement deltas all of it, with frames of up to QW_RD_MAX_EDICTS (qw_local.h). */
static const dd_desc store_desc = {
    sizeof(qw_ent), offsetof(qw_ent, number), QW_ENT_POOL, QW_ENT_REFS, QW_UPDATE_BACKUP,
    QW_MAX_PACKET_ENTITIES, QW_ENT_YOUNG, NULL,
};
static const dd_desc store_desc_rd = {
    sizeof(qw_ent), offsetof(qw_ent, number), QW_RD_POOL, QW_RD_REFS, QW_UPDATE_BACKUP,
    QW_RD_MAX_EDICTS, QW_ENT_YOUNG, NULL,
};
_Static_assert(QW_RD_MAX_EDICTS + 512 <= CL_MAX_ENTITIES, "nails above the entities");
_Static_assert(QW_RD_POOL == 2 * QW_RD_HALF && QW_RD_REFS == 2 * QW_RD_HALF, "two halves");
_Static_assert(QW_RD_HALF >= QW_RD_MAX_EDICTS + QW_ENT_YOUNG, "a frame and the young span");

#define STORE(s)                                                                              \
    DD_VIEW(&(s)->store,                                                                      \
            (s)->fte_ext2 & QW_PEXT2_REPLACEMENTDELTAS ? &store_desc_rd : &store_desc)

/* A whole level 0/1 print line: an obituary or a pickup becomes an event. */
static void print_whole_line(void *ctx_cl, const char *line)
{
    cl_state *cl = ctx_cl;
    cl_event ev;
    if (qr_obituary(cl, line, &ev) || qr_pickup(line, cl_view_player(cl), &ev))
        cl_event_add(cl, &ev);
}

static const char *const svc_names[] = {
    "svc_bad", "svc_nop", "svc_disconnect", "svc_updatestat", "svc_version", "svc_setview",
    "svc_sound", "svc_time", "svc_print", "svc_stufftext", "svc_setangle", "svc_serverdata",
    "svc_lightstyle", "svc_updatename", "svc_updatefrags", "svc_clientdata", "svc_stopsound",
    "svc_updatecolors", "svc_particle", "svc_damage", "svc_spawnstatic", "svc_fte_spawnstatic2",
    "svc_spawnbaseline", "svc_temp_entity", "svc_setpause", "svc_fte_splitscreenconfig",
    "svc_centerprint",
    "svc_killedmonster", "svc_foundsecret", "svc_spawnstaticsound", "svc_intermission",
    "svc_finale", "svc_cdtrack", "svc_sellscreen", "svc_smallkick", "svc_bigkick",
    "svc_updateping", "svc_updateentertime", "svc_updatestatlong", "svc_muzzleflash",
    "svc_updateuserinfo", "svc_download", "svc_playerinfo", "svc_nails", "svc_chokecount",
    "svc_modellist", "svc_soundlist", "svc_packetentities", "svc_deltapacketentities",
    "svc_maxspeed", "svc_entgravity", "svc_setinfo", "svc_serverinfo", "svc_updatepl",
    "svc_nails2",
};

static const char *svc_name(int cmd)
{
    if (cmd >= 0 && cmd < (int)(sizeof svc_names / sizeof svc_names[0]))
        return svc_names[cmd];
    switch (cmd) {
    case QW_SVC_FTE_MODELLISTSHORT: return "svc_fte_modellistshort";
    case QW_SVC_FTE_SPAWNBASELINE2: return "svc_fte_spawnbaseline2";
    case QW_SVC_QIZMOVOICE: return "svc_qizmovoice";
    case QW_SVC_FTE_VOICECHAT: return "svc_fte_voicechat";
    case QW_SVC_FTE_SETANGLEDELTA: return "svc_fte_setangledelta";
    case QW_SVC_FTE_SOUNDEXTENDED: return "svc_fte_soundextended";
    case QW_SVC_FTE_SOUNDLISTSHORT: return "svc_fte_soundlistshort";
    case QW_SVC_FTE_LIGHTSTYLECOL: return "svc_fte_lightstylecol";
    case QW_SVC_FTE_PARTICLE2: return "svc_fte_particle2";
    case QW_SVC_FTE_PARTICLE3: return "svc_fte_particle3";
    case QW_SVC_FTE_PARTICLE4: return "svc_fte_particle4";
    case QW_SVC_FTE_CUSTOMTEMPENT: return "svc_fte_customtempent";
    case QW_SVC_FTE_SHOWPIC: return "svc_fte_showpic";
    case QW_SVC_FTE_HIDEPIC: return "svc_fte_hidepic";
    case QW_SVC_FTE_MOVEPIC: return "svc_fte_movepic";
    case QW_SVC_FTE_UPDATEPIC: return "svc_fte_updatepic";
    case QW_SVC_FTE_EFFECT: return "svc_fte_effect";
    case QW_SVC_FTE_EFFECT2: return "svc_fte_effect2";
    case QW_SVC_FTE_CSQCENTITIES: return "svc_fte_csqcentities";
    case QW_SVC_FTE_PRECACHE: return "svc_fte_precache";
    case QW_SVC_FTE_UPDATESTATSTRING: return "svc_fte_updatestatstring";
    case QW_SVC_FTE_UPDATESTATFLOAT: return "svc_fte_updatestatfloat";
    case QW_SVC_FTE_TRAILPARTICLES: return "svc_fte_trailparticles";
    case QW_SVC_FTE_POINTPARTICLES: return "svc_fte_pointparticles";
    case QW_SVC_FTE_POINTPARTICLES1: return "svc_fte_pointparticles1";
    case QW_SVC_FTE_CGAMEPACKET_SIZED: return "svc_fte_cgamepacket_sized";
    case QW_SVC_FTE_TEMP_ENTITY_SIZED: return "svc_fte_temp_entity_sized";
    case QW_SVC_FTE_CSQCENTITIES_SIZED: return "svc_fte_csqcentities_sized";
    case QW_SVC_FTE_SETANGLEBASE: return "svc_fte_setanglebase";
    case QW_SVC_FTE_SPAWNSTATICSOUND2: return "svc_fte_spawnstaticsound2";
    case QW_SVC_FTE_UPDATEENTITIES: return "svc_fte_updateentities";
    case QW_SVC_FTE_CHOOSESPLITCLIENT: return "svc_fte_choosesplitclient";
    case QW_SVC_FTE_SETINFOBLOB: return "svc_fte_setinfoblob";
    default: return "svc_unknown";
    }
}

/* Names of protocol extension bits, for refusals [FTEPROT]. */
static const char *pext_name(uint32_t bit)
{
    static const char *const n[32] = {
        "PEXT_SETVIEW", "PEXT_SCALE", "PEXT_LIGHTSTYLECOL", "PEXT_TRANS", "PEXT_VIEW2",
        "PEXT_BULLETENS", "PEXT_ACCURATETIMINGS", "PEXT_SOUNDDBL", "PEXT_FATNESS",
        "PEXT_HLBSP", "PEXT_TE_BULLET", "PEXT_HULLSIZE", "PEXT_MODELDBL", "PEXT_ENTITYDBL",
        "PEXT_ENTITYDBL2", "PEXT_FLOATCOORDS", "PEXT_VWEAPON", "PEXT_Q2BSP", "PEXT_Q3BSP",
        "PEXT_COLOURMOD", "PEXT_SPLITSCREEN", "PEXT_HEXEN2", "PEXT_SPAWNSTATIC2",
        "PEXT_CUSTOMTEMPEFFECTS", "PEXT_256PACKETENTITIES", "PEXT_unused25", "PEXT_SHOWPIC",
        "PEXT_SETATTACHMENT", "PEXT_unused28", "PEXT_CHUNKEDDOWNLOADS", "PEXT_CSQC",
        "PEXT_DPFLAGS"};
    for (int i = 0; i < 32; i++)
        if (bit == 1u << i)
            return n[i];
    return "?";
}

static const char *pext2_name(uint32_t bit)
{
    static const char *const n[11] = {
        "PEXT2_PRYDONCURSOR", "PEXT2_VOICECHAT", "PEXT2_SETANGLEDELTA", "PEXT2_REPLACEMENTDELTAS",
        "PEXT2_MAXPLAYERS", "PEXT2_PREDINFO", "PEXT2_NEWSIZEENCODING", "PEXT2_INFOBLOBS",
        "PEXT2_STUNAWARE", "PEXT2_VRINPUTS", "PEXT2_LERPTIME"};
    for (int i = 0; i < 11; i++)
        if (bit == 1u << i)
            return n[i];
    return "PEXT2_unknown";
}

static const char *mvd1_name(uint32_t bit)
{
    /* qwprot src/protocol.h: bit 7 is WEAPONPREDICTION, bit 8 SIMPLEPROJECTILE */
    static const char *const n[9] = {
        "MVD_PEXT1_FLOATCOORDS", "MVD_PEXT1_HIGHLAGTELEPORT", "MVD_PEXT1_SERVERSIDEWEAPON",
        "MVD_PEXT1_DEBUG_WEAPON", "MVD_PEXT1_DEBUG_ANTILAG", "MVD_PEXT1_HIDDEN_MESSAGES",
        "MVD_PEXT1_SERVERSIDEWEAPON2", "MVD_PEXT1_WEAPONPREDICTION", "MVD_PEXT1_SIMPLEPROJECTILE"};
    for (int i = 0; i < 9; i++)
        if (bit == 1u << i)
            return n[i];
    return "MVD_PEXT1_unknown";
}

/* ---- errors and trace ---- */

#define fail DEMO_FAIL

#define TRACE DEMO_TRACE

/* A string made printable for the trace: quotes, backslashes and control bytes escaped,
 * QW's coloured characters (128..255) as \xNN. Only called inside TRACE. */
static const char *esc(ctx *c, int slot, const char *s)
{
    return demo_escape(c->esc[slot], sizeof c->esc[slot], s);
}

/* The message ran past its block: a truncated or damaged packet. */
static qd_err truncated(ctx *c, const char *what)
{
    if (c->long_uleb)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs,
                    "%s: an FTE ULEB128 number longer than 10 bytes", what);
    return fail(c, QD_ERR_TRUNCATED, c->msg_ofs, "%s runs past the end of its block (%zu bytes)",
                what, c->r.len);
}

/* ---- field readers [QWD 3.4] ---- */

#define QW_INLINE static inline __attribute__((always_inline))

/* Bits set in 0..63: a message's length from its presence bits, checked once before its
 * fields are read unchecked (entity deltas, .mvd playerinfo). */
#define PC2(n) n, n + 1, n + 1, n + 2
#define PC4(n) PC2(n), PC2(n + 1), PC2(n + 1), PC2(n + 2)
static const uint8_t popcount6[64] = {PC4(0), PC4(1), PC4(1), PC4(2)};
#undef PC2
#undef PC4

static float rd_coord(rd_t *r) { return (float)rd_s16(r) * 0.125f; }
static float rd_angle16(rd_t *r) { return (float)rd_s16(r) * (360.0f / 65536.0f); }
static float angle8(int8_t a) { return (float)a * (360.0f / 256.0f); }

static float rd_float_coord(rd_t *r)
{
    float f = rd_f32(r);
    return isfinite(f) ? f : NAN;
}

/* A coordinate: a float with PEXT_FLOATCOORDS [QWEXT], else a 1/8 unit short. */
static inline __attribute__((always_inline)) float rd_qcoord(ctx *c)
{
    return c->s->fte_ext & QW_PEXT_FLOATCOORDS ? rd_float_coord(&c->r) : rd_coord(&c->r);
}

/* An angle in degrees: 16 bits with PEXT_FLOATCOORDS [QWEXT], else a byte. */
static float rd_qangle(ctx *c)
{
    return c->s->fte_ext & QW_PEXT_FLOATCOORDS ? rd_angle16(&c->r) : angle8(rd_s8(&c->r));
}

/* The same angle as qw_ent keeps it, in 1/65536 turns. */
static int16_t rd_qangle_raw(ctx *c)
{
    return c->s->fte_ext & QW_PEXT_FLOATCOORDS ? rd_s16(&c->r)
                                               : (int16_t)(rd_s8(&c->r) * 256);
}

static float ent_angle(int16_t a) { return (float)a * (360.0f / 65536.0f); }

/* Entity and player origins: floats with MVD_PEXT1_FLOATCOORDS [EZPARSE cl_ents.c
 * CL_ParseDelta, MSG_ReadFloatCoord] or PEXT_FLOATCOORDS, else 1/8 unit shorts. */
static float rd_entcoord(ctx *c)
{
    if ((c->s->mvd_ext & QW_MVD_PEXT1_FLOATCOORDS) || (c->s->fte_ext & QW_PEXT_FLOATCOORDS))
        return rd_float_coord(&c->r);
    return rd_coord(&c->r);
}

static int origin_ok(const float o[3])
{
    return isfinite(o[0]) && isfinite(o[1]) && isfinite(o[2]) && fabsf(o[0]) < 1e6f &&
           fabsf(o[1]) < 1e6f && fabsf(o[2]) < 1e6f;
}

/* ---- the client-state side ---- */

static float view_height(const qw_player *p)
{
    /* id QW client/view.c V_CalcRefdef: gib 8, dead -16, else 22 (DEFAULT_VIEWHEIGHT). */
    if (p->flags & CL_EF_GIBBED)
        return 8.0f;
    if (p->flags & CL_EF_DEAD)
        return -16.0f;
    return 22.0f;
}

static int player_active(const cl_state *cl, int i)
{
    return cl->players[i].active && !cl->players[i].spectator;
}

static void fill_stats(ctx *c, int slot);

/* .mvd: keep following the same player while it plays; else the first who does (whose
 * stats become the view's). */
static int pick_new_view_player(ctx *c);
static inline int pick_view_player(ctx *c)
{
    qw_state *s = c->s;
    if (s->view_player >= 0 && player_active(c->cl, s->view_player))
        return s->view_player;
    return pick_new_view_player(c);
}

static int pick_new_view_player(ctx *c)
{
    qw_state *s = c->s;
    s->view_player = -1;
    for (int i = 0; i < QW_MAX_CLIENTS; i++)
        if (player_active(c->cl, i)) {
            s->view_player = i;
            if (c->cl->players[i].has_stats)
                fill_stats(c, i);
            break;
        }
    return s->view_player;
}

/* A dead body by its look [EZPARSE cl_ents.c MVD_InitInterpolation]: player.mdl in a death
 * frame (41..102, ISDEAD) or the gibbed head. */
static int dead_look(const qw_state *s, unsigned model, unsigned frame)
{
    return (model && model == s->model_player && frame >= 41 && frame <= 102) ||
           (model && model == s->model_head);
}

/* 1 when the followed player vp's view must not turn from the frame before's, as ezQuake
 * leaves a player's angles uninterpolated [EZPARSE cl_ents.c MVD_InitInterpolation,
 * MVD_Interpolate]: it was not sent in this frame or the one before, it respawns (a dead
 * look left), is gibbed for the first time, moved over 150 units, or a svc_setangle named
 * it (mvd_fixangle); and when the view goes to another player. */
static int view_jumps(const qw_state *s, int vp)
{
    const qw_player *p = &s->players[vp];
    if (s->view_was != vp + 1 || !s->view_was_sent || p->seq != s->mvd_frames ||
        ((s->fixangle >> vp) & 1))
        return 1;
    int dead = dead_look(s, p->model, p->frame);
    int was_dead = dead_look(s, s->view_was_model, s->view_was_frame);
    if ((was_dead && !dead) || (s->model_head && p->model == s->model_head && !was_dead))
        return 1;
    float d2 = 0;
    for (int i = 0; i < 3; i++)
        d2 += (p->origin[i] - s->view_was_origin[i]) * (p->origin[i] - s->view_was_origin[i]);
    return d2 > 150.0f * 150.0f;
}

/* The recorded view: .qwd the recorder's; .mvd the first active player (the app may follow
 * any other through cl->players[i].entity), whose angles snap where view_jumps says. */
static void set_view(ctx *c)
{
    qw_state *s = c->s;
    /* made in place (as cl_set_view would copy it whole): nothing below reads the view */
    cl_view *v = &c->cl->view;
    memset(v, 0, sizeof *v);
    int snap = 0;
    if (s->mvd) {
        int vp = pick_view_player(c);
        if (vp < 0) {
            v->view_entity = -1;
            s->view_was = 0;
        } else {
            const qw_player *p = &s->players[vp];
            v->view_entity = vp + 1;
            v->view_height = view_height(p);
            v->dead = (p->flags & CL_EF_DEAD) != 0;
            v->gibbed = (p->flags & CL_EF_GIBBED) != 0;
            memcpy(v->angles, p->viewangles, sizeof v->angles);
            snap = view_jumps(s, vp);
            s->view_was = vp + 1;
            memcpy(s->view_was_origin, p->origin, sizeof s->view_was_origin);
            s->view_was_model = p->model;
            s->view_was_frame = p->frame;
            s->view_was_sent = p->seq == s->mvd_frames;
        }
        s->fixangle = 0;
    } else {
        v->view_entity = s->playernum + 1;
        const qw_player *p = &s->players[s->playernum];
        v->view_height = view_height(p);
        v->dead = (p->flags & CL_EF_DEAD) != 0;
        v->gibbed = (p->flags & CL_EF_GIBBED) != 0;
        memcpy(v->angles, s->cmd_angles, sizeof v->angles);
    }
    if (s->intermission) {
        v->has_origin = 1;
        v->view_height = 0;
        memcpy(v->origin, s->inter_origin, sizeof v->origin);
        memcpy(v->angles, s->inter_angles, sizeof v->angles);
    }
    if (snap)
        cl_view_cut(c->cl);
}

static void frame_begin(ctx *c, double t)
{
    qw_state *s = c->s;
    s->time = t;
    s->in_frame = 1;
    s->frame_had_pe = 0;
    s->players_seen = 0;
    cl_frame_begin(c->cl, t);
    /* ezQuake plays an MVD a frame ahead: a frame is read once the demo time passes the
     * frame before's (cl_demo.c CL_PeekDemoTime, CL_DemoShouldWeReadNextMessage), its
     * entities then move towards it (MVD_Interpolate) and its temporary entities, muzzle
     * flashes and sounds begin there (CL_ParseTEnt, CL_MuzzleFlash stamp the time of the
     * read); qdemo shows a frame's entity set from the frame before's time on too, so its
     * effects begin there as well (README, Fidelity: ezQuake captured at up to 1000 shots
     * a second). At most 1 s before (a hostile file's gap). */
    double lead = c->cl->time - c->cl->prev_time;
    c->cl->event_lead = s->mvd && lead > 0 ? (lead < 1 ? lead : 1) : 0;
    if (s->mvd && s->protocol)
        pick_view_player(c);
}

static void frame_end(ctx *c)
{
    qw_state *s = c->s;
    if (!s->in_frame)
        return;
    if (s->frame_had_pe) {
        /* A player left out of a packet is out of sight [EZPARSE cl_ents.c CL_LinkPlayers:
         * messagenum != parsecount]. */
        uint32_t gone = s->players_visible & ~s->players_seen;
        for (int i = 0; gone; i++, gone >>= 1)
            if (gone & 1)
                cl_entity_remove(c->cl, i + 1);
        s->players_visible &= s->players_seen;
    }
    if (s->protocol)
        set_view(c);
    cl_frame_end(c->cl, s->frame_had_pe);
    s->in_frame = 0;
}

static void emit_player(ctx *c, int num, double t)
{
    qw_state *s = c->s;
    const qw_player *p = &s->players[num];
    cl_entstate e;
    memset(&e, 0, sizeof e);
    memcpy(e.origin, p->origin, sizeof e.origin);
    /* The body pitches a third of the view [EZPARSE cl_ents.c CL_LinkPlayers]. */
    e.angles[0] = -p->viewangles[0] / 3.0f;
    e.angles[1] = p->viewangles[1];
    e.model = p->model;
    e.frame = p->frame;
    e.skin = p->skin;
    e.player = (uint8_t)(num + 1);
    e.alpha = p->alpha;
    e.scale = p->scale;
    e.fx = p->fx;
    e.flags = (uint8_t)(CL_EF_PLAYER | p->flags); /* dead, gibbed: cl_body_view's eye */
    cl_entity_update_at(c->cl, num + 1, &e, t);
    if (!(s->players_visible & (1u << num)) && c->cl->players[num].entity != num + 1)
        cl_set_player_entity(c->cl, num, num + 1);
    s->players_seen |= 1u << num;
    s->players_visible |= 1u << num;
}

static void emit_entity(ctx *c, const qw_ent *q)
{
    if (q->number == 0)
        return;
    cl_entstate e;
    memset(&e, 0, sizeof e);
    memcpy(e.origin, q->origin, sizeof e.origin);
    for (int i = 0; i < 3; i++)
        e.angles[i] = ent_angle(q->angles[i]);
    e.model = q->model;
    e.frame = q->frame;
    e.skin = q->skin;
    e.player = q->colormap;
    e.fx = q->fx;
    e.alpha = q->trans;
    e.scale = q->scale;
    cl_entity_update(c->cl, q->number, &e);
}

/* ---- info strings: "\key\value\key\value" (common/text.h) ---- */

static void apply_user_key(ctx *c, int slot, const char *key, const char *val)
{
    qw_state *s = c->s;
    if (!strcmp(key, "name")) {
        cl_set_player_name(c->cl, slot, val);
    } else if (!strcmp(key, "topcolor")) {
        s->top[slot] = (uint8_t)(qd_atoi(val) & 15);
        cl_set_player_colors(c->cl, slot, s->top[slot], s->bottom[slot]);
    } else if (!strcmp(key, "bottomcolor")) {
        s->bottom[slot] = (uint8_t)(qd_atoi(val) & 15);
        cl_set_player_colors(c->cl, slot, s->top[slot], s->bottom[slot]);
    } else if (!strcmp(key, "*spectator")) {
        cl_set_player_spectator(c->cl, slot, qd_atoi(val) != 0);
    } else if (!strcmp(key, "team")) {
        /* KTX team names; other names have no neutral colour */
        cl_set_player_team(c->cl, slot, !strcmp(val, "red") ? CL_TEAM_RED
                                        : !strcmp(val, "blue") ? CL_TEAM_BLUE
                                                               : CL_TEAM_NONE);
        cl_set_player_team_name(c->cl, slot, val);
    } else if (!strcmp(key, "skin")) {
        cl_set_player_look(c->cl, slot, "player", val[0] ? val : "base", "");
    }
}

static void apply_userinfo(ctx *c, int slot, const char *info)
{
    static const char *const keys[] = {"name", "topcolor", "bottomcolor", "*spectator", "team",
                                       "skin"};
    char val[64];
    for (int i = 0; i < 6; i++) {
        qd_info_get(info, keys[i], val, sizeof val);
        apply_user_key(c, slot, keys[i], val);
    }
}

/* ---- svc_serverdata [QWD 5.12], extension words [EZPARSE cl_parse.c CL_ParseServerData] ---- */

static qd_err check_ext(ctx *c, const char *what, uint32_t have, uint32_t supported,
                        const char *(*name)(uint32_t))
{
    uint32_t bad = have & ~supported;
    if (!bad)
        return QD_OK;
    uint32_t bit = bad & (~bad + 1u);
    return fail(c, QD_ERR_UNSUPPORTED, c->msg_ofs, "unsupported %s extension bit 0x%08x (%s)",
                what, (unsigned)bit, name(bit));
}

static void level_reset(qw_state *s)
{
    memset(s->players, 0, sizeof s->players);
    dd_reset(STORE(s));
    memset(s->baselines, 0, s->baselines_hw * sizeof s->baselines[0]); /* the rest is 0 */
    s->baselines_hw = 0;
    s->players_seen = s->players_visible = 0;
    s->last_pe_frame = -1;
    s->ue_last = -1;
    memset(s->cte_defined, 0, sizeof s->cte_defined);
    s->model_player = s->model_spike = s->model_head = 0;
    s->num_models = s->num_sounds = 0;
    s->intermission = 0;
    s->view_player = -1;
    s->blob_slot = -1;
    memset(s->stats[QW_MAX_CLIENTS], 0, sizeof s->stats[QW_MAX_CLIENTS]); /* as cl's view */
}

static qd_err parse_serverdata(ctx *c)
{
    qw_state *s = c->s;
    rd_t *r = &c->r;
    uint32_t fte = 0, fte2 = 0, mvd1 = 0, word = 0;
    int i;
    for (i = 0; i < 8; i++) {
        word = rd_u32(r);
        if (word == QW_PROTOCOL_FTE)
            fte = rd_u32(r);
        else if (word == QW_PROTOCOL_FTE2)
            fte2 = rd_u32(r);
        else if (word == QW_PROTOCOL_MVD1)
            mvd1 = rd_u32(r);
        else
            break;
    }
    if (r->err)
        return truncated(c, "svc_serverdata");
    if (i == 8)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_serverdata: too many extension words");
    int32_t proto = (int32_t)word;
    if (proto < QW_PROTOCOL_MIN || proto > QW_PROTOCOL_MAX)
        return fail(c, QD_ERR_UNSUPPORTED, c->msg_ofs,
                    "svc_serverdata: protocol %d (QuakeWorld 24..28 are decoded)", (int)proto);
    qd_err e;
    if ((e = check_ext(c, "FTE", fte, QW_PEXT_SUPPORTED, pext_name)) != QD_OK ||
        (e = check_ext(c, "FTE2", fte2, QW_PEXT2_SUPPORTED, pext2_name)) != QD_OK ||
        (e = check_ext(c, "MVD1", mvd1, QW_MVD_PEXT1_SUPPORTED, mvd1_name)) != QD_OK)
        return e;
    if (s->mvd && (mvd1 & QW_MVD_PEXT1_FLOATCOORDS))
        /* ezQuake's .mvd playerinfo reads 2-byte coords whatever this bit says; without a
         * real file to settle it, refuse rather than guess. */
        return fail(c, QD_ERR_UNSUPPORTED, c->msg_ofs,
                    "unsupported MVD1 extension bit 0x00000001 (MVD_PEXT1_FLOATCOORDS) in an .mvd");
    int32_t servercount = rd_s32(r);
    char gamedir[64], title[CL_NAME_LEN];
    rd_str(r, gamedir, sizeof gamedir);
    int playernum = -1, spectator = 0, slots = QW_MAX_CLIENTS, seats = 1;
    uint8_t seat_player[QW_MAX_SEATS] = {0};
    if (fte2 & QW_PEXT2_MAXPLAYERS) {
        /* [QWEXT 1.2] FTE CLQW_ParseServerData: the server's player slots, then (.qwd) a
         * byte of seats (128: spectator, unless PEXT2_VRINPUTS [FTEEXT]) and each seat's
         * slot; the first seat is the view */
        slots = rd_u8(r);
        if (!s->mvd) {
            seats = rd_u8(r);
            if (!(fte2 & QW_PEXT2_VRINPUTS)) {
                spectator = (seats & 128) != 0;
                seats &= 127;
            }
            if ((seats < 1 || seats > QW_MAX_SEATS) && !r->err)
                return fail(c, QD_ERR_BAD_DATA, c->msg_ofs,
                            "svc_serverdata: %d seats (FTE's clients have 1 to %d)", seats,
                            QW_MAX_SEATS);
            for (int k = 0; k < seats; k++)
                seat_player[k] = rd_u8(r);
            playernum = seat_player[0];
        }
        if (slots > QW_MAX_CLIENTS && !r->err)
            return fail(c, QD_ERR_UNSUPPORTED, c->msg_ofs,
                        "svc_serverdata: %d player slots (PEXT2_MAXPLAYERS; qdemo holds %d)",
                        slots, QW_MAX_CLIENTS);
        if (!s->mvd && playernum >= slots && !r->err)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs,
                        "svc_serverdata: player slot %d of %d", playernum, slots);
    }
    if (s->mvd) {
        (void)rd_f32(r); /* the server's time at the start [EZPARSE CL_ParseServerData] */
        spectator = 1;
    } else if (!(fte2 & QW_PEXT2_MAXPLAYERS)) {
        playernum = rd_u8(r);
        if (playernum & 128) {
            spectator = 1;
            playernum &= 127;
        }
        seat_player[0] = (uint8_t)playernum;
        /* PEXT_SPLITSCREEN [FTEEXT]: a byte per further seat (128: spectator) up to a 128 */
        while ((fte & QW_PEXT_SPLITSCREEN) && !r->err) {
            int b = rd_u8(r);
            if (b == 128 || r->err)
                break;
            if (seats == QW_MAX_SEATS)
                return fail(c, QD_ERR_BAD_DATA, c->msg_ofs,
                            "svc_serverdata: over %d seats (FTE's MAX_SPLITS)", QW_MAX_SEATS);
            seat_player[seats++] = (uint8_t)(b & 127);
        }
    }
    rd_str(r, title, sizeof title);
    if (proto >= 25)
        rd_skip(r, 10 * 4); /* movevars: gravity .. entgravity */
    if (r->err)
        return truncated(c, "svc_serverdata");
    if (!s->mvd && playernum >= QW_MAX_CLIENTS)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_serverdata: player slot %d", playernum);
    for (int k = 1; !s->mvd && k < seats; k++)
        if (seat_player[k] >= slots || seat_player[k] >= QW_MAX_CLIENTS)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_serverdata: seat %d: player slot %d",
                        k, seat_player[k]);

    s->protocol = proto;
    s->fte_ext = fte;
    s->fte_ext2 = fte2;
    s->mvd_ext = mvd1;
    s->playernum = playernum;
    s->spectator = (uint8_t)spectator;
    s->slots = (uint8_t)slots;
    s->num_seats = (uint8_t)(s->mvd ? 0 : seats);
    memcpy(s->seat_player, seat_player, sizeof s->seat_player);
    level_reset(s);
    cl_level_begin(c->cl, CL_GAME_QW, proto, QW_MAX_CLIENTS, title);
    cl_set_gamedir(c->cl, gamedir);
    if (s->in_frame)
        cl_frame_begin(c->cl, s->time); /* cl_level_begin closed the open frame */
    TRACE(c, "svc_serverdata",
          "protocol=%d fte=0x%08x fte2=0x%08x mvd1=0x%08x servercount=%d gamedir=\"%s\" "
          "slots=%d player=%d spectator=%d seats=%d title=\"%s\"",
          (int)proto, (unsigned)fte, (unsigned)fte2, (unsigned)mvd1, (int)servercount,
          esc(c, 0, gamedir), slots, playernum, spectator, (int)s->num_seats, esc(c, 1, title));
    return QD_OK;
}

/* ---- svc_modellist / svc_soundlist [QWD 5.46-47], svc_fte_modellistshort [EZPARSE
 * CL_ParseModellist]: from protocol 26 a start index, names stored from start+1, then the
 * index to ask for next (0 at the end). ---- */

static void note_model(ctx *c, int n, const char *name)
{
    cl_set_model(c->cl, n, name);
    if (n == 1) {
        cl_set_map(c->cl, name); /* the map is model 1: "maps/dm4.bsp" */
        char level[CL_TEXT_LEN];
        snprintf(level, sizeof level, "%.63s %.63s", c->cl->level.map, c->cl->level.title);
        qr_text_event(c->cl, CL_EV_LEVEL, level);
    }
    if (!strcmp(name, "progs/player.mdl"))
        c->s->model_player = (uint16_t)n;
    else if (!strcmp(name, "progs/spike.mdl"))
        c->s->model_spike = (uint16_t)n;
    else if (!strcmp(name, "progs/h_player.mdl"))
        c->s->model_head = (uint16_t)n;
}

static qd_err parse_list(ctx *c, int sounds, int wide)
{
    qw_state *s = c->s;
    rd_t *r = &c->r;
    const char *what = sounds ? "svc_soundlist" : wide ? "svc_fte_modellistshort" : "svc_modellist";
    int limit = sounds ? 256 : (s->fte_ext & QW_PEXT_MODELDBL) ? CL_MAX_MODELS : 256;
    char name[CL_NAME_LEN];
    int n = 0, first = 0, next = 0, count = 0;
    if (s->protocol >= 26)
        n = first = wide ? rd_u16(r) : rd_u8(r);
    for (;;) {
        rd_str(r, name, sizeof name);
        if (r->err)
            return truncated(c, what);
        if (!name[0])
            break;
        if (++n >= limit)
            return fail(c, QD_ERR_LIMIT, c->msg_ofs, "%s: index %d over %d", what, n, limit - 1);
        const char *nm = name[0] == '/' ? name + 1 : name; /* ezQuake's fix for a server bug */
        if (sounds)
            cl_set_sound(c->cl, n, nm);
        else
            note_model(c, n, nm);
        count++;
    }
    if (s->protocol >= 26)
        next = rd_u8(r);
    if (r->err)
        return truncated(c, what);
    if (sounds)
        s->num_sounds = (uint16_t)n;
    else
        s->num_models = (uint16_t)n;
    TRACE(c, what, "first=%d count=%d next=%d", first, count, next);
    return QD_OK;
}

/* ---- packet entities [QWD 5.48-49], FTE bits [EZPARSE cl_ents.c CL_ParseDelta,
 * CL_ParsePacketEntities] ---- */

/* The ladder after the word: U_MOREBITS, then U_EVENMORE (any FTE extension) and
 * U_YETMORE [EZPARSE cl_ents.c CL_ParsePacketEntities]. */
static const dd_ladder ent_ladder = {
    0, 3,
    {{QW_U_MOREBITS, 0, 0}, {QW_U_FTE_EVENMORE, 16, DD_OPT_FTE}, {MORE(QW_U_FTE_YETMORE), 24, 0}}};
/* A removal carries its extra number bits only under PEXT_ENTITYDBL, without U_YETMORE. */
static const dd_ladder remove_ladder_dbl = {
    0, 2, {{QW_U_MOREBITS, 0, 0}, {QW_U_FTE_EVENMORE, 16, 0}}};

/* The header of one entity delta after its 16-bit word: the mask its ladder announces
 * (MORE() bits: the FTE bytes). Returns the full entity number. */
static int delta_header(ctx *c, unsigned word, uint32_t *mask)
{
    const qw_state *s = c->s;
    dd_reader rd = {&c->r, NULL, s->fte_ext ? DD_OPT_FTE : 0, 0};
    /* each call with a constant ladder: it unrolls */
    if (!(word & QW_U_REMOVE))
        *mask = dd_read_mask(&rd, &ent_ladder, word & ~511u);
    else if (s->fte_ext & QW_PEXT_ENTITYDBL)
        *mask = dd_read_mask(&rd, &remove_ladder_dbl, word & ~511u);
    else
        *mask = word & ~511u;
    int num = (int)(word & 511);
    if (*mask & MORE(QW_U_FTE_ENTITYDBL))
        num += 512;
    if (*mask & MORE(QW_U_FTE_ENTITYDBL2))
        num += 1024;
    return num;
}

static qd_err check_more(ctx *c, unsigned more)
{
    static const struct {
        unsigned bit;
        uint32_t ext;
        const char *name;
    } known[] = {
        {QW_U_FTE_SCALE, QW_PEXT_SCALE, "U_FTE_SCALE"},
        {QW_U_FTE_TRANS, QW_PEXT_TRANS, "U_FTE_TRANS"},
        {QW_U_FTE_FATNESS, QW_PEXT_FATNESS, "U_FTE_FATNESS"},
        {QW_U_FTE_MODELDBL, QW_PEXT_MODELDBL, "U_FTE_MODELDBL"},
        {QW_U_FTE_ENTITYDBL, QW_PEXT_ENTITYDBL, "U_FTE_ENTITYDBL"},
        {QW_U_FTE_ENTITYDBL2, QW_PEXT_ENTITYDBL2, "U_FTE_ENTITYDBL2"},
        {QW_U_FTE_COLOURMOD, QW_PEXT_COLOURMOD, "U_FTE_COLOURMOD"},
        {QW_U_FTE_DRAWFLAGS, QW_PEXT_HEXEN2, "U_FTE_DRAWFLAGS"},
        {QW_U_FTE_ABSLIGHT, QW_PEXT_HEXEN2, "U_FTE_ABSLIGHT"},
        {QW_U_FTE_DPFLAGS, QW_PEXT_DPFLAGS, "U_FTE_DPFLAGS"},
        {QW_U_FTE_TAGINFO, QW_PEXT_SETATTACHMENT, "U_FTE_TAGINFO"},
        {QW_U_FTE_LIGHT, QW_PEXT_DPFLAGS, "U_FTE_LIGHT"},
        {QW_U_FTE_EFFECTS16, QW_PEXT_DPFLAGS, "U_FTE_EFFECTS16"},
    };
    unsigned rest = more & ~QW_U_FTE_YETMORE;
    if (!rest)
        return QD_OK; /* (most deltas: no FTE bits) */
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (!(rest & known[i].bit))
            continue;
        if (!(c->s->fte_ext & known[i].ext))
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs,
                        "entity delta bit %s without its protocol extension", known[i].name);
        rest &= ~known[i].bit;
    }
    if (rest) {
        unsigned bit = rest & (~rest + 1u);
        return fail(c, QD_ERR_UNSUPPORTED, c->msg_ofs,
                    "unsupported FTE entity delta bit 0x%04x (U_FTE_*, not in this demo's "
                    "extensions)", bit);
    }
    return QD_OK;
}

/* The fields of an entity delta in the order of the wire [EZPARSE cl_ents.c CL_ParseDelta]:
 * (bit, alt, field, kind, size, count) rows for DD_ROW; COORD is how origins travel. */
#define ENT_ROWS(X, COORD, ANGLE)                                                          \
    X(QW_U_MODEL, MORE(QW_U_FTE_MODELDBL), model, DD_HOOK, 2, 1)                           \
    X(QW_U_FRAME, 0, frame, DD_U8, 2, 1)                                                   \
    X(QW_U_COLORMAP, 0, colormap, DD_U8, 1, 1)                                             \
    X(QW_U_SKIN, 0, skin, DD_U8, 1, 1)                                                     \
    X(QW_U_EFFECTS, 0, fx, DD_U8, 2, 1)                                                    \
    X(QW_U_ORIGIN1, 0, origin[0], COORD, 4, 1)                                             \
    X(QW_U_ANGLE1, 0, angles[0], ANGLE, 2, 1)                                              \
    X(QW_U_ORIGIN2, 0, origin[1], COORD, 4, 1)                                             \
    X(QW_U_ANGLE2, 0, angles[1], ANGLE, 2, 1)                                              \
    X(QW_U_ORIGIN3, 0, origin[2], COORD, 4, 1)                                             \
    X(QW_U_ANGLE3, 0, angles[2], ANGLE, 2, 1)                                              \
    X(MORE(QW_U_FTE_SCALE), 0, scale, DD_U8, 1, 1)                                         \
    X(MORE(QW_U_FTE_TRANS), 0, trans, DD_U8, 1, 1)                                         \
    X(MORE(QW_U_FTE_FATNESS), 0, fatness, DD_S8, 1, 1)

/* The reader the U_MODEL hook sees: it needs the whole mask. */
typedef struct qw_reader {
    dd_reader rd; /* first: the hook gets a pointer to it */
    uint32_t mask;
} qw_reader;

/* U_MODEL: a byte, + 256 with U_FTE_MODELDBL; U_FTE_MODELDBL alone: a short. */
static void model_hook(dd_reader *rd, const dd_field *f, void *ent)
{
    const qw_reader *q = (const qw_reader *)rd;
    qw_ent *e = ent;
    (void)f;
    if (q->mask & QW_U_MODEL) {
        unsigned m = rd_u8(rd->r);
        e->model = (uint16_t)((q->mask & MORE(QW_U_FTE_MODELDBL)) ? m + 256 : m);
    } else {
        e->model = rd_u16(rd->r);
    }
}

#define TABLE_ROW(bit, alt, field, kind, size, n) DD_ROW(qw_ent, bit, alt, field, kind, size, n),
static const dd_field ent_fields[] = {ENT_ROWS(TABLE_ROW, DD_COORD16, DD_S8X256)};
#undef TABLE_ROW
#define ROW_BITS(bit, alt, field, kind, size, n) (bit) | (alt) |
static const dd_table ent_table = {
    ent_fields, sizeof ent_fields / sizeof ent_fields[0],
    ENT_ROWS(ROW_BITS, DD_COORD16, DD_S8X256) 0u, model_hook};
#undef ROW_BITS

/* One row's value from a cursor over bytes known to be there, as dd_read_value reads and
 * stores it (a constant kind and size: it folds to the one read). The hook's row, U_MODEL,
 * is a byte here: the mask has no U_FTE_MODELDBL. */
QW_INLINE void ent_value(const uint8_t **b, dd_kind kind, unsigned size, void *dst)
{
    const uint8_t *x = *b;
    uint32_t v;
    float f;
    switch (kind) {
    case DD_F32: memcpy(&v, x, 4); *b += 4; break;
    case DD_COORD16:
        f = (float)(int16_t)(x[0] | x[1] << 8) * 0.125f;
        memcpy(&v, &f, 4);
        *b += 2;
        break;
    case DD_S16: v = (uint32_t)(int32_t)(int16_t)(x[0] | x[1] << 8); *b += 2; break;
    case DD_S8X256: v = (uint32_t)(int32_t)(int8_t)x[0] * 256u; *b += 1; break;
    case DD_S8: v = (uint32_t)(int32_t)(int8_t)x[0]; *b += 1; break;
    default: v = x[0]; *b += 1; break; /* DD_U8, DD_HOOK */
    }
    dd_store_value(dst, size, v);
}

/* The fields of a delta without FTE bits (most), when all its bytes are there: read
 * without a check each, the reader moved once. */
#define WHOLE_ROW(bit, alt, field, kind, size, n) \
    if (mask & (bit))                             \
        ent_value(&b, kind, size, &to->field);
#define ENT_WHOLE(COORD, ANGLE)                                                            \
    QW_INLINE void ent_whole_##COORD##_##ANGLE(rd_t *r, qw_ent *to, uint16_t mask)        \
    {                                                                                      \
        const uint8_t *b = r->p + r->pos;                                                  \
        ENT_ROWS(WHOLE_ROW, COORD, ANGLE)                                                  \
        r->pos = (size_t)(b - r->p);                                                       \
    }
ENT_WHOLE(DD_F32, DD_S16)
ENT_WHOLE(DD_F32, DD_S8X256)
ENT_WHOLE(DD_COORD16, DD_S8X256)
#undef ENT_WHOLE
#undef WHOLE_ROW

/* Read the fields mask announces over *to, which holds a copy of the source. Origins are
 * floats with MVD_PEXT1_FLOATCOORDS [EZPARSE cl_ents.c CL_ParseDelta, MSG_ReadFloatCoord],
 * else 1/8 unit shorts. */
static void delta_fields(ctx *c, qw_ent *to, int num, uint32_t mask)
{
    qw_reader q = {{&c->r, NULL, 0, 0}, mask};
    to->number = (uint16_t)num;
    const int fte_floats = (c->s->fte_ext & QW_PEXT_FLOATCOORDS) != 0;
    const int floats = fte_floats || (c->s->mvd_ext & QW_MVD_PEXT1_FLOATCOORDS);
    if (!(mask >> 16)) {
        /* The length from the bits: a byte for each of the angles (2 with PEXT_FLOATCOORDS),
         * model, colormap, skin, effects and frame, 2 for an origin (4 as a float); none for
         * U_SOLID and the ladder's bits. A delta cut short is read below, as before. */
        unsigned angles = popcount6[mask & 3] + popcount6[mask >> 12 & 1];
        unsigned origins = popcount6[mask >> 9 & 7];
        size_t need = angles * (fte_floats ? 2u : 1u) + popcount6[mask >> 2 & 15] +
                      popcount6[mask >> 13 & 1] + origins * (floats ? 4u : 2u);
        if (need <= rd_left(&c->r)) {
            if (fte_floats)
                ent_whole_DD_F32_DD_S16(&c->r, to, (uint16_t)mask);
            else if (floats)
                ent_whole_DD_F32_DD_S8X256(&c->r, to, (uint16_t)mask);
            else
                ent_whole_DD_COORD16_DD_S8X256(&c->r, to, (uint16_t)mask);
            if (mask & QW_U_EFFECTS)
                to->fx = qr_entity_fx(to->fx);
            return;
        }
    }
#define READ_ROW(bit, alt, field, kind, size, n) \
    DD_READ(&q.rd, &ent_table, mask, to, DD_ROW(qw_ent, bit, alt, field, kind, size, n));
    if (fte_floats) {
        ENT_ROWS(READ_ROW, DD_F32, DD_S16)
    } else if (floats) {
        ENT_ROWS(READ_ROW, DD_F32, DD_S8X256)
    } else {
        ENT_ROWS(READ_ROW, DD_COORD16, DD_S8X256)
    }
#undef READ_ROW
    /* FTE's bits past the table's, in CLQW_ParseDelta's order [QWEXT 3.3]: Hexen II's draw
     * flags and light, the colour tint, DarkPlaces' flags, an attachment, a light, the
     * effects' high byte (not shown: the low byte holds Quake's) */
    rd_t *r = &c->r;
    if (mask & MORE(QW_U_FTE_DRAWFLAGS))
        rd_skip(r, 1);
    if (mask & MORE(QW_U_FTE_ABSLIGHT))
        rd_skip(r, 1);
    if (mask & MORE(QW_U_FTE_COLOURMOD))
        for (int i = 0; i < 3; i++)
            to->colourmod[i] = rd_u8(r);
    if (mask & MORE(QW_U_FTE_DPFLAGS))
        rd_skip(r, 1);
    if (mask & MORE(QW_U_FTE_TAGINFO))
        rd_skip(r, 4);
    if (mask & MORE(QW_U_FTE_LIGHT))
        rd_skip(r, 10);
    if (mask & MORE(QW_U_FTE_EFFECTS16))
        rd_skip(r, 1);
    if (mask & QW_U_EFFECTS) /* the byte is mapped once, here, not at every emit */
        to->fx = qr_entity_fx(to->fx);
}

static qd_err over_limit(ctx *c, const char *what)
{
    return fail(c, QD_ERR_LIMIT, c->msg_ofs, "%s: over %d entities", what,
                c->s->fte_ext2 & QW_PEXT2_REPLACEMENTDELTAS ? QW_RD_MAX_EDICTS
                                                             : QW_MAX_PACKET_ENTITIES);
}

/* Merged with the source frame by the delta engine (delta.h); QuakeWorld's own rules for
 * dropping an update (FlushEntityPacket) stay here. */
static qd_err parse_packetentities(ctx *c, int delta)
{
    qw_state *s = c->s;
    rd_t *r = &c->r;
    const char *what = delta ? "svc_deltapacketentities" : "svc_packetentities";
    uint32_t newseq = s->mvd ? s->mvd_frames : s->in_seq;
    int flush = 0, from = -1;
    dd_store v = STORE(s);
    const dd_frame *old = NULL;
    if (delta) {
        from = rd_u8(r);
        /* A source frame the file never held (the recording began after it) is empty,
         * as in a client's freshly cleared ring: everything comes from the baselines. */
        if (s->mvd) {
            /* An .mvd always deltas from its previous frame; the byte is the server's
             * own counter [EZPARSE CL_ParsePacketEntities: mvdplayback]. */
            if (s->last_pe_frame >= 0)
                old = &v.frames[s->last_pe_frame];
        } else {
            const dd_frame *f = dd_slot(v, (uint32_t)from);
            if (f->valid) {
                /* Held but not that frame, or too old: QW drops the update
                 * (FlushEntityPacket) and keeps showing the last frame. */
                if ((f->seq & 0xff) == (uint32_t)from && newseq - f->seq < QW_UPDATE_BACKUP - 1)
                    old = f;
                else
                    flush = 1;
            }
        }
        /* Its states overwritten in the pool since: dropped. */
        if (old && !dd_usable(v, old))
            flush = 1;
    }
    int changed = 0, removed = 0;
    /* What the frame changed, for a frame kept whole but for them (cl_list_keep_rest):
     * the entities it sent and the ones it removed. Past these arrays' room (only with more
     * entities than a classic frame holds), every entity is sent or kept one by one. */
    const qw_ent *sent[QW_MAX_PACKET_ENTITIES];
    uint16_t gone[QW_MAX_PACKET_ENTITIES];
    int nsent = 0, ngone = 0, listed = 1;
    const dd_frame *stored;
    /* A delta that names nothing (its end word right away; half the frames of an .mvd)
     * from a source it may use: the frame repeats its source, as the merge below would
     * find, without building the merge. */
    if (old && !flush && rd_left(r) >= 2 && !r->p[r->pos] && !r->p[r->pos + 1]) {
        r->pos += 2;
        stored = dd_repeat(v, old, newseq, 1);
        goto store_done;
    }
    dd_merge m;
    dd_merge_begin(&m, v, flush ? NULL : old, newseq);

    for (;;) {
        unsigned word = rd_u16(r);
        if (r->err)
            return truncated(c, what);
        if (!word)
            break;
        uint32_t mask;
        int num = delta_header(c, word, &mask);
        if (r->err)
            return truncated(c, what);
        qd_err e = check_more(c, mask >> 16);
        if (e)
            return e;
        if (flush) {
            qw_ent scratch = {0};
            if (!(word & QW_U_REMOVE))
                delta_fields(c, &scratch, num, mask);
            continue;
        }
        if (dd_merge_carry(&m, num)) /* the old entities numbered below this one */
            return over_limit(c, what);
        const qw_ent *src = dd_merge_old(&m, num);
        if (word & QW_U_REMOVE) {
            if (src) {
                dd_merge_skip(&m);
                if (ngone < QW_MAX_PACKET_ENTITIES)
                    gone[ngone++] = (uint16_t)num;
                else
                    listed = 0;
            } else if (!delta) {
                flush = 1; /* U_REMOVE on a full update: dropped as QW does */
            }
            removed++;
            continue;
        }
        if (!src)
            src = &s->baselines[num];
        qw_ent *dst = dd_merge_put(&m, num);
        if (!dst)
            return over_limit(c, what);
        *dst = *src;
        delta_fields(c, dst, num, mask);
        if (!origin_ok(dst->origin))
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s: entity %d has a non-finite origin",
                        what, num);
        if (nsent < QW_MAX_PACKET_ENTITIES)
            sent[nsent++] = dst;
        else
            listed = 0;
        changed++;
    }
    if (r->err)
        return truncated(c, what);
    if (flush) {
        s->flushed++;
        TRACE(c, what, "from=%d seq=%u dropped=1 (delta source not held)", from, (unsigned)newseq);
        return QD_OK;
    }
    stored = dd_merge_end(&m, 1);
store_done:
    if (!stored)
        return over_limit(c, what);
    const dd_frame nf = *stored;
    if (s->mvd)
        s->last_pe_frame = (int32_t)(newseq & QW_UPDATE_MASK);
    const int first_list = !s->frame_had_pe;
    s->frame_had_pe = 1;
    /* An .mvd deltas from the frame it showed last: the entities carried unchanged from it
     * only need to be kept, not sent again. */
    int keep = s->mvd && old != NULL && dd_from_shown(v, &nf);
    cl_list_begin(c->cl);
    if (keep && listed && first_list && nf.sorted) {
        /* The frame's first list (nothing touched yet): the client keeps the rest of the
         * list before without a look at it, so the frame costs what it sent. Every entity
         * of the old frame is in the client's last list (it was sent or kept there) but
         * number 0, which is never sent. Only for a frame in order: one that names an
         * entity out of order holds it twice (carried, and sent again), and the count of
         * the carried would take it for two entities kept. */
        dd_shown(v, stored);
        int carried = (int)nf.count - nsent;
        if (nf.count && dd_num(v, &nf, 0) == 0 && !(nsent && sent[0]->number == 0))
            carried--;
        for (int i = 0; i < ngone; i++)
            cl_list_leave(c->cl, gone[i]);
        for (int i = 0; i < nsent; i++) {
            emit_entity(c, sent[i]);
            cl_list_add(c->cl, sent[i]->number);
        }
        cl_list_keep_rest(c->cl, carried);
        TRACE(c, what, "from=%d seq=%u entities=%u changed=%d removed=%d", from,
              (unsigned)newseq, (unsigned)nf.count, changed, removed);
        return QD_OK;
    }
    /* A .qwd deltas from the last frame the client acknowledged, often not the one shown
     * last: an entity equal to its entry in that one (while it is whole in the ring) is
     * unchanged for the client too (as in q3.c's emit_frame). */
    const dd_frame *sh = keep || !nf.sorted ? NULL : dd_shown_frame(v);
    uint32_t shi = 0;
    dd_shown(v, stored);
    for (uint32_t i = 0; i < nf.count; i++) {
        /* a kept entity's state is not even looked at: its ref holds its number */
        if (keep && dd_shared(v, &nf, i) && cl_entity_keep(c->cl, dd_num(v, &nf, i)))
            continue;
        const qw_ent *q = dd_ent(v, &nf, i);
        int num = dd_num(v, &nf, i);
        if (sh && dd_same_as_shown(v, sh, &shi, num, q) && cl_entity_keep(c->cl, num))
            continue;
        emit_entity(c, q);
        cl_list_add(c->cl, num);
    }
    TRACE(c, what, "from=%d seq=%u entities=%u changed=%d removed=%d", from, (unsigned)newseq,
          (unsigned)nf.count, changed, removed);
    return QD_OK;
}

/* ---- FTE's replacement deltas (PEXT2_REPLACEMENTDELTAS) [QWEXT 4] ---- */

/* An entity number in FTE's big form (common.c MSG_ReadBigEntity): a short; with its top
 * bit set, its other 15 bits are the high part above one more byte. */
static unsigned rd_big_entity(rd_t *r)
{
    unsigned n = rd_u16(r);
    if (n & 0x8000)
        n = (n & 0x7fffu) << 8 | rd_u8(r);
    return n;
}

/* An entity number past what qdemo holds under replacement deltas (qw_local.h). */
static qd_err rd_over(ctx *c, const char *what, unsigned num)
{
    return fail(c, QD_ERR_LIMIT, c->msg_ofs,
                "%s: entity %u (qdemo holds entities 0..%d; FTE's limit is 262143)", what, num,
                QW_RD_MAX_EDICTS - 1);
}

/* An unsigned LEB128 (FTE common.c MSG_ReadULEB128, PEXT2_LERPTIME): 7 bits a byte, the
 * lowest first, bit 7 set while more follow. FTE reads on without a limit; past 10 bytes (64
 * bits) no real number goes, so the reader is stopped there and the message is refused. The
 * value is cut to its low 32 bits. */
static uint32_t rd_uleb(ctx *c)
{
    rd_t *r = &c->r;
    uint64_t v = 0;
    for (unsigned i = 0; i < 10; i++) {
        unsigned b = rd_u8(r);
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80))
            return (uint32_t)v;
    }
    if (!r->err) {
        c->long_uleb = 1;
        r->err = 1; /* a sticky stop: the caller reports it as truncated() does */
        r->pos = r->len;
    }
    return (uint32_t)v;
}

/* What a replacement delta says of a player beyond its entity state: the view angles it
 * carried (UFP_VIEWANGLE) or implied (new body angles), per axis in `set`. */
typedef struct fte_view {
    unsigned set; /* bit i: view[i] */
    float view[3];
} fte_view;

/* One entity's replacement delta over *to, which holds the entity's previous state
 * (have_old) or anything (then the delta starts from nothing, or from baseline with
 * UF_RESET), in FTE's order (cl_ents.c CLFTE_ReadDelta). With PEXT2_LERPTIME [FTEEXT] the
 * frame, model, skin (less 64), colormap, flags, effects, base bone and frame, tag index
 * (less 1), light style, trail and emit effects and second model are ULEB128s, bit 9
 * announces a lerp time (a ULEB128 after the angles) and EFFECTS2 is an error. Fields qdemo
 * does not show are read past. */
static qd_err read_fte_delta(ctx *c, qw_ent *to, const qw_ent *baseline, int have_old, int num,
                             fte_view *fv, const char *what)
{
    rd_t *r = &c->r;
    const qw_state *s = c->s;
    uint32_t bits = rd_u8(r);
    if (bits & QW_UF_EXTEND1)
        bits |= (uint32_t)rd_u8(r) << 8;
    if (bits & QW_UF_EXTEND2)
        bits |= (uint32_t)rd_u8(r) << 16;
    if (bits & QW_UF_EXTEND3)
        bits |= (uint32_t)rd_u8(r) << 24;
    if (r->err)
        return truncated(c, what);
    int lt = (s->fte_ext2 & QW_PEXT2_LERPTIME) != 0;
    uint32_t fatal = QW_UF_EXTEND4 | QW_UF_UNUSED1 | (lt ? QW_UF_EFFECTS2 : 0);
    if (bits & fatal)
        return fail(c, QD_ERR_UNSUPPORTED, c->msg_ofs,
                    "%s: entity %d: replacement delta bit 0x%08x (FTE ends the game on it)", what,
                    num, (unsigned)(bits & fatal));
    if (bits & QW_UF_RESET)
        *to = *baseline;
    else if (!have_old)
        memset(to, 0, sizeof *to); /* FTE: a new entity without its reset starts empty */
    to->number = (uint16_t)num;
    int wide = !lt && (bits & QW_UF_16BIT);
    if (bits & QW_UF_FRAME)
        to->frame = (uint16_t)(lt ? rd_uleb(c) : wide ? rd_u16(r) : rd_u8(r));
    /* origins: floats with EZPEXT1_FLOATENTCOORDS (MVD1 bit 0), else the stream's coordinate */
    for (int i = 0; i < 3; i++)
        if (bits & (i < 2 ? QW_UF_ORIGINXY : QW_UF_ORIGINZ))
            to->origin[i] = rd_entcoord(c);
    /* a predicted entity's angles are 16-bit unless PEXT2_PREDINFO sends the view apart */
    int a16 = (bits & QW_UF_PREDINFO) && !(s->fte_ext2 & QW_PEXT2_PREDINFO);
    if (bits & QW_UF_ANGLESXZ) {
        to->angles[0] = a16 ? rd_s16(r) : rd_qangle_raw(c);
        to->angles[2] = a16 ? rd_s16(r) : rd_qangle_raw(c);
    }
    if (bits & QW_UF_ANGLESY)
        to->angles[1] = a16 ? rd_s16(r) : rd_qangle_raw(c);
    uint32_t fx = 0;
    int has_fx = 1;
    if (lt) {
        if (bits & QW_UF_16BIT)
            (void)rd_uleb(c); /* ms to the end of the lerp: qdemo lerps by frame times */
        if (bits & QW_UF_EFFECTS)
            fx = rd_uleb(c);
        else
            has_fx = 0;
    } else if ((bits & (QW_UF_EFFECTS | QW_UF_EFFECTS2)) == (QW_UF_EFFECTS | QW_UF_EFFECTS2))
        fx = rd_u32(r);
    else if (bits & QW_UF_EFFECTS2)
        fx = rd_u16(r);
    else if (bits & QW_UF_EFFECTS)
        fx = rd_u8(r);
    else
        has_fx = 0;
    if (has_fx)
        to->fx = qr_entity_fx(fx & 0xff); /* Quake's EF_ byte; FTE's higher bits not shown */
    unsigned pred = 0;
    fv->set = 0;
    if (bits & QW_UF_PREDINFO) {
        pred = rd_u8(r);
        rd_skip(r, 2 * (size_t)((pred & QW_UFP_FORWARD) != 0) +
                       2 * (size_t)((pred & QW_UFP_SIDE) != 0) +
                       2 * (size_t)((pred & QW_UFP_UP) != 0) +
                       (size_t)((pred & QW_UFP_MOVETYPE) != 0) +
                       4 * (size_t)((pred & QW_UFP_VELOCITYXY) != 0) +
                       2 * (size_t)((pred & QW_UFP_VELOCITYZ) != 0) +
                       (size_t)((pred & QW_UFP_MSEC) != 0));
        if (s->fte_ext2 & QW_PEXT2_PREDINFO) {
            if (pred & QW_UFP_VIEWANGLE) { /* shorts in 1/65536 turns */
                if (bits & QW_UF_ANGLESXZ) {
                    fv->view[0] = ent_angle(rd_s16(r));
                    fv->view[2] = ent_angle(rd_s16(r));
                    fv->set |= 5;
                }
                if (bits & QW_UF_ANGLESY) {
                    fv->view[1] = ent_angle(rd_s16(r));
                    fv->set |= 2;
                }
            }
        } else if (pred & QW_UFP_VIEWANGLE) { /* UFP_WEAPONFRAME_OLD: 7 bits, 7 more */
            if (rd_u8(r) & 0x80)
                rd_skip(r, 1);
        }
    }
    if (!((pred & QW_UFP_VIEWANGLE) && (s->fte_ext2 & QW_PEXT2_PREDINFO))) {
        /* no view sent: FTE takes it from the body, a predicted body's pitch a third */
        if (bits & QW_UF_ANGLESXZ) {
            fv->view[0] = ent_angle(to->angles[0]) * ((bits & QW_UF_PREDINFO) ? -3.0f : -1.0f);
            fv->view[2] = ent_angle(to->angles[2]);
            fv->set |= 5;
        }
        if (bits & QW_UF_ANGLESY) {
            fv->view[1] = ent_angle(to->angles[1]);
            fv->set |= 2;
        }
    }
    if (bits & QW_UF_MODEL)
        to->model = (uint16_t)(lt ? rd_uleb(c) : wide ? rd_u16(r) : rd_u8(r));
    if (bits & QW_UF_SKIN) /* FTE sends skins from -64 up as ULEB128s biased by 64 */
        to->skin = (uint8_t)(lt ? rd_uleb(c) - 64u : wide ? rd_u16(r) : rd_u8(r));
    if (bits & QW_UF_COLORMAP)
        to->colormap = (uint8_t)(lt ? rd_uleb(c) : rd_u8(r));
    if (bits & QW_UF_SOLID) {
        if (s->fte_ext2 & QW_PEXT2_NEWSIZEENCODING) {
            /* 0 none, 1 bsp, 2 and 3 the hulls, 16 a packed size (short), 32 a long */
            unsigned enc = rd_u8(r);
            if (enc == 16)
                rd_skip(r, 2);
            else if (enc == 32)
                rd_skip(r, 4);
            else if (enc > 3 && !r->err)
                return fail(c, QD_ERR_BAD_DATA, c->msg_ofs,
                            "%s: entity %d: solid encoding %u", what, num, enc);
        } else {
            rd_skip(r, 2);
        }
    }
    if (bits & QW_UF_FLAGS)
        (void)(lt ? rd_uleb(c) : rd_u8(r));
    if (bits & QW_UF_ALPHA)
        to->trans = rd_u8(r);
    if (bits & QW_UF_SCALE)
        to->scale = rd_u8(r);
    if (bits & QW_UF_BONEDATA) {
        unsigned fl = rd_u8(r);
        if (fl & 0x80)
            rd_skip(r, 14 * (size_t)rd_u8(r)); /* bones of 7 shorts */
        if (fl & 0x40) { /* base bone byte, base frame short; ULEB128s */
            if (lt) {
                (void)rd_uleb(c);
                (void)rd_uleb(c);
            } else {
                rd_skip(r, 3);
            }
        }
        if ((fl & 0x3f) && !r->err)
            return fail(c, QD_ERR_UNSUPPORTED, c->msg_ofs,
                        "%s: entity %d: bone data flags 0x%02x", what, num, fl);
    }
    if (bits & QW_UF_DRAWFLAGS) {
        /* Hexen II's draw flags; light modes MLS_ADDLIGHT (6) and MLS_ABSLIGHT (7) of their
         * low three bits bring a light byte (FTE protocol.h MLS_*) */
        if ((rd_u8(r) & 7) >= 6)
            rd_skip(r, 1);
    }
    if (bits & QW_UF_TAGINFO) { /* entity, tag index (a ULEB128 one above it) */
        (void)rd_big_entity(r);
        (void)(lt ? rd_uleb(c) : rd_u8(r));
    }
    if (bits & QW_UF_LIGHT) { /* four shorts, style, flags */
        rd_skip(r, 4 * 2);
        (void)(lt ? rd_uleb(c) : rd_u8(r));
        rd_skip(r, 1);
    }
    if (bits & QW_UF_TRAILEFFECT) {
        if (lt) { /* trail, emit */
            (void)rd_uleb(c);
            (void)rd_uleb(c);
        } else if (rd_u16(r) & 0x8000) {
            rd_skip(r, 2); /* an emit effect too */
        }
    }
    if (bits & QW_UF_COLORMOD)
        for (int i = 0; i < 3; i++)
            to->colourmod[i] = rd_u8(r);
    if (bits & QW_UF_GLOW)
        rd_skip(r, 5);
    if (bits & QW_UF_FATNESS)
        to->fatness = rd_s8(r);
    if (bits & QW_UF_MODELINDEX2)
        (void)(lt ? rd_uleb(c) : wide ? rd_u16(r) : rd_u8(r));
    if (bits & QW_UF_GRAVITYDIR)
        rd_skip(r, 2);
    if (r->err)
        return truncated(c, what);
    if (!origin_ok(to->origin))
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s: entity %d has a non-finite origin",
                    what, num);
    return QD_OK;
}

/* A player's state from its entity in a replacement-delta frame (players are entities
 * 1..32 there [QWEXT 4.4]): placed, turned by its view, drawn as svc_playerinfo's are. */
static void fte_player(ctx *c, const qw_ent *q)
{
    qw_state *s = c->s;
    int slot = q->number - 1;
    qw_player *p = &s->players[slot];
    memcpy(p->origin, q->origin, sizeof p->origin);
    p->model = q->model;
    p->frame = (uint8_t)q->frame;
    p->skin = q->skin;
    p->fx = q->fx;
    p->alpha = q->trans;
    p->scale = q->scale;
    p->flags = 0;
    p->time = s->time;
    p->valid = 1;
    emit_player(c, slot, s->time);
}

/* svc_fte_updateentities [QWEXT 4.1] (FTE cl_ents.c CLFTE_ParseEntities): the server's time
 * (a float), then entity numbers (a short: bit 15 a removal, bit 14 a byte more above its
 * low 14 bits) until a 0, each but a removal followed by its delta. Entities not named keep
 * their state. The frame deltas from the newest valid one; without one (the recording began
 * later, or it was too old) it is valid only once a removal of entity 0, "forget every
 * entity", came in it. Numbers must rise, as FTE's server writes them. */
static qd_err parse_updateentities(ctx *c)
{
    qw_state *s = c->s;
    rd_t *r = &c->r;
    const char *what = "svc_fte_updateentities";
    if (!(s->fte_ext2 & QW_PEXT2_REPLACEMENTDELTAS))
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s without PEXT2_REPLACEMENTDELTAS", what);
    uint32_t seq = ++s->ue_seq;
    dd_store v = STORE(s);
    const dd_frame *old = NULL;
    if (s->ue_last >= 0) {
        const dd_frame *f = &v.frames[s->ue_last];
        /* still the frame it was, usable, and not the slot this one goes to */
        if (f->seq == seq - 1 && dd_usable(v, f) && (f->seq & QW_UPDATE_MASK) != (seq & QW_UPDATE_MASK))
            old = f;
    }
    int valid = old != NULL;
    fte_view views[QW_MAX_CLIENTS];
    for (int i = 0; i < QW_MAX_CLIENTS; i++)
        views[i].set = 0;
    (void)rd_f32(r); /* the server's time: qdemo keeps the demo's clock */
    /* Frames take the two halves of the pool and ref ring in turn (qw_local.h): the one a
     * frame deltas from is never written over, and as entries older than the young span are
     * copied forward, a packed keyframe holds at most two frames' states. */
    v.h->pool_head = (v.h->pool_head + QW_RD_HALF - 1) & ~(uint32_t)(QW_RD_HALF - 1);
    v.h->ref_head = (v.h->ref_head + QW_RD_HALF - 1) & ~(uint32_t)(QW_RD_HALF - 1);
    dd_merge m;
    dd_merge_begin(&m, v, old, seq);
    int last = -1;
    for (;;) {
        unsigned n = rd_u16(r);
        int remove = (n & 0x8000) != 0;
        unsigned num = n & 0x4000 ? (n & 0x3fffu) | (unsigned)rd_u8(r) << 14 : n & 0x7fffu;
        if (r->err)
            return truncated(c, what);
        if (!num && !remove)
            break;
        if (remove && !num) { /* forget every entity: the frame starts over, valid */
            dd_merge_begin(&m, v, NULL, seq);
            old = NULL;
            valid = 1;
            last = -1;
            continue;
        }
        if ((int)num <= last)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s: entity %u after %d", what, num,
                        last);
        if (num >= QW_RD_MAX_EDICTS)
            return rd_over(c, what, num);
        last = (int)num;
        if (dd_merge_carry(&m, (int)num))
            return over_limit(c, what);
        const qw_ent *src = dd_merge_old(&m, (int)num);
        if (remove) {
            if (src)
                dd_merge_skip(&m);
            continue;
        }
        qw_ent prev = src ? *src : s->baselines[num];
        qw_ent *dst = dd_merge_put(&m, (int)num);
        if (!dst)
            return over_limit(c, what);
        *dst = prev;
        fte_view fv;
        qd_err e = read_fte_delta(c, dst, &s->baselines[num], src != NULL, (int)num, &fv, what);
        if (e)
            return e;
        if (num >= 1 && num <= s->slots) /* applied once the frame is known to be shown */
            views[num - 1] = fv;
    }
    if (!valid) {
        /* FTE shows nothing until a reset makes the frames whole again */
        s->ue_last = -1;
        s->flushed++;
        TRACE(c, what, "seq=%u dropped=1 (no frame to delta from, no reset)", (unsigned)seq);
        return QD_OK;
    }
    const dd_frame *stored = dd_merge_end(&m, 1);
    if (!stored)
        return over_limit(c, what);
    const dd_frame nf = *stored;
    for (int k = 0; k < s->slots && k < QW_MAX_CLIENTS; k++)
        for (int i = 0; i < 3; i++)
            if (views[k].set >> i & 1)
                s->players[k].viewangles[i] = views[k].view[i];
    s->ue_last = (int32_t)(seq & QW_UPDATE_MASK);
    s->frame_had_pe = 1;
    dd_shown(v, stored);
    for (uint32_t i = 0; i < nf.count; i++) {
        const qw_ent *q = dd_ent(v, &nf, i);
        if (q->number >= 1 && q->number <= s->slots) /* FTE: up to allocated_client_slots */
            fte_player(c, q);
        else
            emit_entity(c, q);
    }
    TRACE(c, what, "seq=%u entities=%u", (unsigned)seq, (unsigned)nf.count);
    return QD_OK;
}

/* svc_spawnbaseline [QWD 5.23] and svc_spawnstatic [QWD 5.21]: byte model, frame, colormap,
 * skin, then coord+angle per axis (plain coords: MVD_PEXT1_FLOATCOORDS covers only deltas). */
static void read_baseline(ctx *c, qw_ent *e)
{
    rd_t *r = &c->r;
    memset(e, 0, sizeof *e);
    e->model = rd_u8(r);
    e->frame = rd_u8(r);
    e->colormap = rd_u8(r);
    e->skin = rd_u8(r);
    for (int i = 0; i < 3; i++) {
        e->origin[i] = rd_qcoord(c);
        e->angles[i] = rd_qangle_raw(c);
    }
}

static void add_static(ctx *c, const qw_ent *q)
{
    cl_entstate e;
    memset(&e, 0, sizeof e);
    memcpy(e.origin, q->origin, sizeof e.origin);
    for (int i = 0; i < 3; i++)
        e.angles[i] = ent_angle(q->angles[i]);
    e.model = q->model;
    e.frame = q->frame;
    e.skin = q->skin;
    e.alpha = q->trans;
    cl_static_add(c->cl, &e);
}

/* svc_fte_spawnbaseline2 / svc_fte_spawnstatic2: an entity delta from nothing
 * [EZPARSE cl_parse.c CL_ParseSpawnBaseline2, CL_ParseStatic(true)]. */
static qd_err read_delta_from_null(ctx *c, qw_ent *out, const char *what)
{
    if (!(c->s->fte_ext & QW_PEXT_SPAWNSTATIC2))
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s without PEXT_SPAWNSTATIC2", what);
    unsigned word = rd_u16(&c->r);
    uint32_t mask;
    int num = delta_header(c, word & ~QW_U_REMOVE, &mask);
    qd_err e = check_more(c, mask >> 16);
    if (e)
        return e;
    memset(out, 0, sizeof *out);
    delta_fields(c, out, num, mask);
    if (c->r.err)
        return truncated(c, what);
    if (!origin_ok(out->origin))
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s: non-finite origin", what);
    return QD_OK;
}

/* ---- players ---- */

/* A usercmd delta from the null command [EZPARSE com_msg.c MSG_ReadDeltaUsercmd]:
 * protocol <= 26 always sends angle 2 and byte moves, msec only with bit 7. */
static void read_usercmd(ctx *c, float angles[3])
{
    rd_t *r = &c->r;
    unsigned bits = rd_u8(r);
    size_t moves = (size_t)((bits & QW_CM_FORWARD) != 0) + (size_t)((bits & QW_CM_SIDE) != 0) +
                   (size_t)((bits & QW_CM_UP) != 0);
    angles[0] = angles[1] = angles[2] = 0;
    if (c->s->protocol <= 26) {
        if (bits & QW_CM_ANGLE1)
            angles[0] = rd_angle16(r);
        angles[1] = rd_angle16(r);
        if (bits & QW_CM_ANGLE3)
            angles[2] = rd_angle16(r);
        rd_skip(r, moves); /* signed bytes */
    } else {
        if (bits & QW_CM_ANGLE1)
            angles[0] = rd_angle16(r);
        if (bits & QW_CM_ANGLE2)
            angles[1] = rd_angle16(r);
        if (bits & QW_CM_ANGLE3)
            angles[2] = rd_angle16(r);
        rd_skip(r, 2 * moves); /* shorts */
    }
    if (bits & QW_CM_BUTTONS)
        rd_skip(r, 1);
    if (bits & QW_CM_IMPULSE)
        rd_skip(r, 1);
    if (c->s->protocol >= 27 || (bits & 0x80))
        rd_skip(r, 1); /* msec */
}

/* .qwd svc_playerinfo [QWD 5.43], flags [EZPARSE cl_ents.c CL_ParsePlayerinfo]: in the
 * extended regime (PEXT_TRANS for ezQuake; FTE adds SCALE, FATNESS and HULLSIZE [QWEXT 3.4])
 * bit 15 announces a third flag byte and ONGROUND/SOLID move to bits 22/23; without it bits
 * 14/15 are ZQuake's PF_ONGROUND/PF_SOLID, which carry no data. */
#define QW_PEXT_EXTRA_PFS (QW_PEXT_TRANS | QW_PEXT_SCALE | QW_PEXT_FATNESS | QW_PEXT_HULLSIZE)
static qd_err parse_playerinfo_qwd(ctx *c)
{
    qw_state *s = c->s;
    rd_t *r = &c->r;
    int num = rd_u8(r);
    uint32_t flags = rd_u16(r);
    if (s->fte_ext & QW_PEXT_EXTRA_PFS) {
        if (flags & QW_PF_EXTRA_PFS)
            flags |= (uint32_t)rd_u8(r) << 16;
        /* With data, each under its extension: HULLSIZE_Z (14), SCALE (16), TRANS_Z (17),
         * FATNESS (18), COLOURMOD (19). Without data: ONGROUND (22), SOLID (23). */
        uint32_t bad = flags & ((1u << 20) | (1u << 21) | 0xff000000u);
        static const struct {
            uint32_t flag, ext;
        } need[] = {{QW_PF_HULLSIZE_Z, QW_PEXT_HULLSIZE}, {QW_PF_SCALE, QW_PEXT_SCALE},
                    {QW_PF_TRANS_Z, QW_PEXT_TRANS},       {QW_PF_FATNESS, QW_PEXT_FATNESS},
                    {QW_PF_COLOURMOD, QW_PEXT_COLOURMOD}};
        for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
            if ((flags & need[i].flag) && !(s->fte_ext & need[i].ext))
                bad |= need[i].flag;
        if (bad)
            return fail(c, QD_ERR_UNSUPPORTED, c->msg_ofs,
                        "svc_playerinfo: unsupported FTE player flag 0x%06x", (unsigned)bad);
    } else {
        flags &= 0x3fffu; /* ZQuake's ONGROUND/SOLID */
    }
    if (r->err)
        return truncated(c, "svc_playerinfo");
    if (num >= QW_MAX_CLIENTS)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_playerinfo: player %d", num);
    qw_player *p = &s->players[num];
    for (int i = 0; i < 3; i++)
        p->origin[i] = rd_entcoord(c);
    p->frame = rd_u8(r);
    double t = s->time;
    if (flags & QW_PF_MSEC) {
        /* The move was this many ms old when sent [EZPARSE state_time]. */
        t -= rd_u8(r) * 0.001;
    }
    if (flags & QW_PF_COMMAND)
        read_usercmd(c, p->viewangles);
    for (int i = 0; i < 3; i++)
        if (flags & (QW_PF_VELOCITY1 << i))
            rd_skip(r, 2);
    p->model = (flags & QW_PF_MODEL) ? rd_u8(r) : s->model_player;
    p->skin = (flags & QW_PF_SKINNUM) ? rd_u8(r) : 0;
    if ((s->fte_ext & QW_PEXT_MODELDBL) && (p->skin & 128) && (flags & QW_PF_MODEL)) {
        p->model = (uint16_t)(p->model + 256);
        p->skin &= 127;
    }
    p->fx = qr_entity_fx((flags & QW_PF_EFFECTS) ? rd_u8(r) : 0);
    p->weaponframe = (flags & QW_PF_WEAPONFRAME) ? rd_u8(r) : 0;
    /* FTE's extras in the order CLQW_ParsePlayerinfo reads them [QWEXT 3.4] (the flags were
     * checked against the extensions above) */
    /* FTE sends a player's scale x 50 (CLQW_ParsePlayerinfo reads the byte / 50); kept as the
     * entities' 16 = 1.0 */
    unsigned scale50 = (flags & QW_PF_SCALE) ? rd_u8(r) : 0;
    p->scale = (uint8_t)(scale50 ? (scale50 * 16 + 25) / 50 > 255 ? 255 : (scale50 * 16 + 25) / 50
                                 : 0);
    p->alpha = (flags & QW_PF_TRANS_Z) ? rd_u8(r) : 0;
    if (flags & QW_PF_FATNESS)
        rd_skip(r, 1);
    if (flags & QW_PF_HULLSIZE_Z)
        rd_skip(r, 1);
    if (flags & QW_PF_COLOURMOD)
        rd_skip(r, 3);
    if (r->err)
        return truncated(c, "svc_playerinfo");
    if (!origin_ok(p->origin))
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_playerinfo: non-finite origin");
    p->flags = (uint8_t)(((flags & QW_PF_DEAD) ? CL_EF_DEAD : 0) |
                         ((flags & QW_PF_GIB) ? CL_EF_GIBBED : 0));
    if (num == s->playernum && !(flags & QW_PF_COMMAND))
        memcpy(p->viewangles, s->cmd_angles, sizeof p->viewangles);
    p->time = t;
    p->valid = 1;
    emit_player(c, num, t);
    TRACE(c, "svc_playerinfo", "player=%d flags=0x%x origin=%.1f,%.1f,%.1f frame=%d model=%d",
          num, (unsigned)flags, p->origin[0], p->origin[1], p->origin[2], p->frame, p->model);
    return QD_OK;
}

/* Reads of an .mvd playerinfo's fields: from a cursor over bytes checked once to be all
 * there (whole, a constant in each caller: two forms), else through the bounded reader,
 * whose zeros and sticky error past the end then decide what is read, as before. */
QW_INLINE unsigned pi_u8(rd_t *r, const uint8_t **b, int whole)
{
    return whole ? *(*b)++ : rd_u8(r);
}

QW_INLINE int16_t pi_s16(rd_t *r, const uint8_t **b, int whole)
{
    if (!whole)
        return rd_s16(r);
    const uint8_t *x = *b;
    *b += 2;
    return (int16_t)(x[0] | x[1] << 8);
}

QW_INLINE float pi_coord(rd_t *r, const uint8_t **b, int floats, int whole)
{
    if (!whole)
        return floats ? rd_float_coord(r) : rd_coord(r);
    if (!floats)
        return (float)pi_s16(r, b, 1) * 0.125f;
    float f;
    memcpy(&f, *b, 4);
    *b += 4;
    return isfinite(f) ? f : NAN;
}

/* The fields the DF_* bits announce, over the player's last state. */
QW_INLINE void playerinfo_mvd_fields(ctx *c, qw_player *p, unsigned flags, int whole)
{
    rd_t *r = &c->r;
    const uint8_t *b = r->p + r->pos;
    const int floats = (c->s->fte_ext & QW_PEXT_FLOATCOORDS) != 0; /* [QWEXT] */
    const int modeldbl = (c->s->fte_ext & QW_PEXT_MODELDBL) != 0;
    if (flags & QW_DF_ORIGIN)
        p->origin[0] = pi_coord(r, &b, floats, whole);
    if (flags & (QW_DF_ORIGIN << 1))
        p->origin[1] = pi_coord(r, &b, floats, whole);
    if (flags & (QW_DF_ORIGIN << 2))
        p->origin[2] = pi_coord(r, &b, floats, whole);
    if (flags & QW_DF_ANGLES)
        p->viewangles[0] = (float)pi_s16(r, &b, whole) * (360.0f / 65536.0f);
    if (flags & (QW_DF_ANGLES << 1))
        p->viewangles[1] = (float)pi_s16(r, &b, whole) * (360.0f / 65536.0f);
    if (flags & (QW_DF_ANGLES << 2))
        p->viewangles[2] = (float)pi_s16(r, &b, whole) * (360.0f / 65536.0f);
    int got_model = (flags & QW_DF_MODEL) != 0;
    if (got_model)
        p->model = (uint16_t)pi_u8(r, &b, whole);
    if (flags & QW_DF_SKINNUM) {
        p->skin = (uint8_t)pi_u8(r, &b, whole);
        if (modeldbl && (p->skin & 128) && got_model) {
            p->skin &= 127;
            p->model = (uint16_t)(p->model + 256);
        }
    }
    if (flags & QW_DF_EFFECTS)
        p->fx = qr_entity_fx(pi_u8(r, &b, whole));
    if (flags & QW_DF_WEAPONFRAME)
        p->weaponframe = (uint8_t)pi_u8(r, &b, whole);
    if (whole)
        r->pos = (size_t)(b - r->p);
}

/* .mvd svc_playerinfo [EZPARSE cl_ents.c CL_ParsePlayerinfo, mvdplayback]: DF_* bits say
 * which fields changed against the player's last state; origins per axis, view angles as
 * 16-bit angles, then model, skin, effects, weaponframe. */
static qd_err parse_playerinfo_mvd(ctx *c)
{
    qw_state *s = c->s;
    rd_t *r = &c->r;
    const uint8_t *h = rd_bytes(r, 4); /* player, flags, frame */
    if (!h)
        return truncated(c, "svc_playerinfo");
    int num = h[0];
    unsigned flags = (unsigned)(h[1] | h[2] << 8);
    unsigned frame = h[3];
    if (num >= QW_MAX_CLIENTS)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_playerinfo: player %d", num);
    if (flags & 0xf000u)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_playerinfo: unknown DF_ bits 0x%04x",
                    flags & 0xf000u);
    qw_player *p = &s->players[num];
    /* A state older than the ring counts as none [EZPARSE: parsecount - sequence >=
     * UPDATE_BACKUP - 1 gives a zeroed dummy]. */
    if (!p->valid || s->mvd_frames - p->seq >= QW_UPDATE_BACKUP - 1)
        memset(p, 0, sizeof *p);
    p->frame = (uint8_t)frame;
    /* The message's length from its bits: 2 bytes an origin (4 with floats) or angle, 1
     * each of effects, skin (bits 6, 7), weaponframe and model (10, 11); none for DEAD and
     * GIB (8, 9). Checked once, then read unchecked; a message cut short is read as before. */
    size_t need = 2u * popcount6[flags & 63] + popcount6[flags >> 6 & 0x33];
    if (s->fte_ext & QW_PEXT_FLOATCOORDS)
        need += 2u * popcount6[flags & 7];
    if (need <= rd_left(r))
        playerinfo_mvd_fields(c, p, flags, 1);
    else
        playerinfo_mvd_fields(c, p, flags, 0);
    if (r->err)
        return truncated(c, "svc_playerinfo");
    /* Old mvd/qtv recordings leave the model 0 (ezQuake cl_fix_mvd): the player's model
     * while none was sent since the state began. A model 0 that was sent stays (the
     * intermission: the progs set every player's modelindex to 0, and they vanish). */
    p->model_sent |= (flags & QW_DF_MODEL) != 0;
    if (!p->model_sent && !p->model && !c->cl->players[num].spectator)
        p->model = s->model_player;
    p->flags = (uint8_t)(((flags & QW_DF_DEAD) ? CL_EF_DEAD : 0) |
                         ((flags & QW_DF_GIB) ? CL_EF_GIBBED : 0));
    p->time = s->time;
    p->seq = s->mvd_frames;
    p->valid = 1;
    emit_player(c, num, s->time);
    TRACE(c, "svc_playerinfo", "player=%d flags=0x%x origin=%.1f,%.1f,%.1f frame=%u model=%d",
          num, flags, p->origin[0], p->origin[1], p->origin[2], frame, p->model);
    return QD_OK;
}

/* Nails are drawn as entities just above the highest entity number the negotiated
 * extensions allow (512, 1024 with PEXT_ENTITYDBL, 2048 with ENTITYDBL2, 7680 with
 * replacement deltas): unindexed
 * svc_nails at base + i (they snap), indexed svc_nails2 at base + 256 + num (they lerp).
 * The lowest base keeps the client's entity range, and its per-frame scan, short. */
static int nail_base(const qw_state *s)
{
    if (s->fte_ext2 & QW_PEXT2_REPLACEMENTDELTAS) /* its entities go up to 7679 */
        return QW_RD_MAX_EDICTS;
    if (s->fte_ext & QW_PEXT_ENTITYDBL2)
        return 2048;
    return (s->fte_ext & QW_PEXT_ENTITYDBL) ? 1024 : 512;
}

/* svc_nails [QWD 5.44] and svc_nails2 (mvdsv: a byte index before each nail): 12-bit
 * coords * 2 - 4096, a 4-bit pitch and an 8-bit yaw [EZPARSE cl_ents.c CL_ParseProjectiles]. */
static qd_err parse_nails(ctx *c, int indexed)
{
    qw_state *s = c->s;
    rd_t *r = &c->r;
    const char *what = indexed ? "svc_nails2" : "svc_nails";
    if (indexed && !s->mvd)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_nails2 outside an .mvd");
    int count = rd_u8(r);
    for (int i = 0; i < count; i++) {
        int num = indexed ? rd_u8(r) : i;
        const uint8_t *b = rd_bytes(r, 6);
        if (!b)
            return truncated(c, what);
        cl_entstate e;
        memset(&e, 0, sizeof e);
        e.origin[0] = (float)((((b[0] + ((b[1] & 15) << 8))) << 1) - 4096);
        e.origin[1] = (float)((((b[1] >> 4) + (b[2] << 4)) << 1) - 4096);
        e.origin[2] = (float)((((b[3] + ((b[4] & 15) << 8))) << 1) - 4096);
        e.angles[0] = 360.0f * (float)(b[4] >> 4) / 16.0f;
        e.angles[1] = 360.0f * (float)b[5] / 256.0f;
        e.model = s->model_spike;
        if (!indexed)
            e.flags = CL_EF_TELEPORT; /* nails are not matched between packets */
        cl_entity_update(c->cl, nail_base(s) + (indexed ? 256 : 0) + num, &e);
    }
    if (r->err)
        return truncated(c, what);
    TRACE(c, what, "count=%d", count);
    return QD_OK;
}

/* svc_temp_entity [QWD 5.24]; with PEXT_TE_BULLET [FTEEXT] FTE's TE_BULLET (14) and
 * TE_SUPERBULLET (15), an origin each (cl_tent.c CL_ParseTEnt), which FTE's server sends
 * clients without the bit as TE_SPIKE and TE_SUPERSPIKE (pr_cmds.c SV_point_tempentity):
 * they are logged as those. */
static qd_err parse_temp_entity(ctx *c)
{
    rd_t *r = &c->r;
    demo_temp te;
    memset(&te, 0, sizeof te);
    te.entity = -1;
    int type = rd_u8(r), count = 0;
    te.type = type;
    switch (type) {
    case 0: case 1: case 3: case 4: case 7: case 8: case 10: case 11: case 13:
        break;
    case 5: case 6: case 9: /* lightning: entity, start, end */
        te.entity = rd_s16(r);
        break;
    case 2: case 12: /* gunshot, blood: a particle count (20 each: cl_tent.c) */
        count = rd_u8(r);
        break;
    case 14: case 15: /* FTE ends the game on 14 without the bit */
        if (c->s->fte_ext & QW_PEXT_TE_BULLET)
            break;
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs,
                    "svc_temp_entity: type %d (FTE's TE_BULLET) without PEXT_TE_BULLET", type);
    default:
        if (r->err)
            return truncated(c, "svc_temp_entity");
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_temp_entity: unknown type %d", type);
    }
    for (int i = 0; i < 3; i++)
        te.origin[i] = rd_qcoord(c);
    if (type == 5 || type == 6 || type == 9)
        for (int i = 0; i < 3; i++)
            te.end[i] = rd_qcoord(c);
    if (r->err)
        return truncated(c, "svc_temp_entity");
    cl_fxev fx;
    int id_type = type == 14 || type == 15 ? type - 14 : type;
    if (qr_temp_fx(CL_GAME_QW, id_type, te.entity, te.origin,
                   type == 5 || type == 6 || type == 9 ? te.end : NULL, &fx)) {
        fx.count = (uint8_t)count;
        cl_fx_add(c->cl, &fx);
    }
    qr_temp_sound(c->cl, CL_GAME_QW, id_type, te.origin, (uint32_t)c->msg_ofs);
    TRACE(c, "svc_temp_entity", "type=%d origin=%.1f,%.1f,%.1f", type, te.origin[0], te.origin[1],
          te.origin[2]);
    return QD_OK;
}

/* svc_download [QWD 5.42]; with PEXT_CHUNKEDDOWNLOADS a 32-bit chunk number, and either a
 * 1024-byte chunk or (negative) a total size and a name [EZPARSE CL_ParseChunkedDownload]. */
static qd_err parse_download(ctx *c)
{
    rd_t *r = &c->r;
    char name[CL_NAME_LEN];
    if (c->s->fte_ext & QW_PEXT_CHUNKEDDOWNLOADS) {
        int32_t chunk = rd_s32(r);
        if (chunk < 0) {
            int32_t total = rd_s32(r);
            rd_str(r, name, sizeof name);
            TRACE(c, "svc_download", "chunk=%d total=%d name=\"%s\"", (int)chunk, (int)total,
                  esc(c, 0, name));
        } else {
            rd_skip(r, 1024);
            TRACE(c, "svc_download", "chunk=%d", (int)chunk);
        }
    } else {
        int size = rd_s16(r);
        int percent = rd_u8(r);
        if (size == -2)
            rd_str(r, name, sizeof name); /* a redirect to another name */
        else if (size > 0)
            rd_skip(r, (size_t)size);
        else if (size < -2)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_download: size %d", size);
        TRACE(c, "svc_download", "size=%d percent=%d", size, percent);
    }
    if (r->err)
        return truncated(c, "svc_download");
    return QD_OK;
}

/* ---- the message loop ---- */

/* 1 when player slot sits at a .qwd's further split-screen seat (1..). */
static int is_seat_player(const qw_state *s, int slot)
{
    for (int k = 1; k < s->num_seats; k++)
        if (s->seat_player[k] == slot)
            return 1;
    return 0;
}

/* The player a seat-aimed message concerns [FTEEXT]: -1 the recorded view (seat 0), a
 * .qwd's further seat's player slot, -2 none (a seat its serverdata did not name, or an
 * .mvd's, whose stats go by block). */
static int seat_slot(const ctx *c)
{
    if (!c->seat)
        return -1;
    if (c->s->mvd || c->seat >= c->s->num_seats)
        return -2;
    return c->s->seat_player[c->seat];
}

/* The named stats of player slot (-1: the .qwd recorder) from the raw slots: a .qwd keeps
 * the recorder's in the extra row, its further seats' in their own rows. */
static void fill_stats(ctx *c, int slot)
{
    qw_state *s = c->s;
    int view = s->mvd ? s->view_player : s->playernum;
    if (slot < 0)
        slot = view;
    if (slot < 0 || slot >= QW_MAX_CLIENTS)
        return;
    int seat = !s->mvd && slot != view; /* a .qwd's further seat */
    if (seat && !is_seat_player(s, slot))
        return;
    int raw = s->mvd || seat ? slot : QW_MAX_CLIENTS;
    cl_stats st;
    qr_fill_stats(s->stats[raw], c->cl->players[slot].frags, &st);
    if (c->cl->players[slot].spectator || (!s->mvd && !seat && s->spectator))
        st.flags = (uint8_t)((st.flags & ~CL_ST_DEAD) | CL_ST_SPECTATOR); /* no health */
    if (s->mvd || seat)
        cl_set_stats(c->cl, slot, &st);
    if (slot == view)
        cl_set_stats(c->cl, -1, &st);
}

/* A raw stat slot of player slot (.mvd) or of the recorder (-1, .qwd) changed. */
static void set_stat(ctx *c, int slot, int index, int32_t value)
{
    c->s->stats[slot < 0 ? QW_MAX_CLIENTS : slot][index] = value;
    fill_stats(c, slot);
}

/* ---- FTE's own messages [FTESVC] ---- */

/* FTE's variable-length integer (common.c MSG_ReadUInt64): the leading 1 bits of the first
 * byte count the bytes that follow, most significant first, below its remaining bits. */
static uint64_t rd_fte_uint(rd_t *r)
{
    unsigned v = rd_u8(r), n = 0;
    while (n < 8 && (v & (0x80u >> n)))
        n++;
    uint64_t x = n < 8 ? v & (0xffu >> (n + 1)) : 0;
    for (unsigned i = 0; i < n; i++)
        x = x << 8 | rd_u8(r);
    return x;
}

/* An entity number as FTE's client reads one (MSGCL_ReadEntity): the big form under
 * replacement deltas, else a short. */
static unsigned rd_fte_entity(ctx *c)
{
    return c->s->fte_ext2 & QW_PEXT2_REPLACEMENTDELTAS ? rd_big_entity(&c->r) : rd_u16(&c->r);
}

static void skip_coords(ctx *c, int n)
{
    for (int i = 0; i < n; i++)
        (void)rd_qcoord(c);
}

/* A base64 digit as FTE reads one (common.c Base64_Decode): + or - 62, / or _ 63, others 0. */
static unsigned base64_digit(char ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return (unsigned)(ch - 'A');
    if (ch >= 'a' && ch <= 'z')
        return (unsigned)(ch - 'a') + 26;
    if (ch >= '0' && ch <= '9')
        return (unsigned)(ch - '0') + 52;
    return ch == '+' || ch == '-' ? 62 : ch == '/' || ch == '_' ? 63 : 0;
}

/* An info key as svcfte_setinfoblob sends it (FTE common.c InfoBuf_DecodeString): a first
 * byte 0xFF means base64 (groups of four digits, '=' or the end stops), else as it is. */
static void info_key(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    if ((uint8_t)in[0] != 0xff) {
        n = strlen(in) < cap ? strlen(in) : cap - 1;
        memcpy(out, in, n);
        out[n] = 0;
        return;
    }
    const char *p = in + 1, *end = p + strlen(p);
    while (p + 1 < end && n + 3 < cap) {
        unsigned v = base64_digit(p[0]) << 18 | base64_digit(p[1]) << 12;
        p += 2;
        out[n++] = (char)(v >> 16);
        if (p >= end || *p == '=')
            break;
        v |= base64_digit(*p++) << 6;
        out[n++] = (char)(v >> 8 & 0xff);
        if (p >= end || *p == '=')
            break;
        v |= base64_digit(*p++);
        out[n++] = (char)(v & 0xff);
    }
    out[n] = 0;
}

/* svcfte_setinfoblob [FTEEXT] (FTE cl_parse.c CL_ParseSetInfoBlob): a slot byte (0 the
 * serverinfo, n player n - 1), the key, a long (bit 31: the last chunk; the rest the
 * chunk's offset in the value), a short size and the chunk. FTE's server sends only values
 * a plain svc_setinfo cannot carry (64 bytes or more, or odd bytes), one key's chunks in a
 * row (sv_send.c SV_SyncInfoBuf); a chunk that does not continue the value drops it
 * (common.c InfoBuf_SyncReceive). A player's value is applied when whole, cut to qdemo's
 * buffers; the serverinfo is read past as svc_serverinfo is. */
static qd_err parse_setinfoblob(ctx *c, const char *name)
{
    qw_state *s = c->s;
    rd_t *r = &c->r;
    char raw[CL_TEXT_LEN], key[sizeof s->blob_key];
    if (!(s->fte_ext2 & QW_PEXT2_INFOBLOBS))
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s without PEXT2_INFOBLOBS", name);
    unsigned slot = rd_u8(r);
    rd_str(r, raw, sizeof raw);
    uint32_t word = rd_u32(r);
    unsigned size = rd_u16(r);
    const uint8_t *data = rd_bytes(r, size);
    if (r->err)
        return truncated(c, name);
    info_key(raw, key, sizeof key);
    uint32_t offset = word & 0x7fffffffu;
    int last = (word >> 31) != 0;
    if (offset == 0) {
        s->blob_slot = (int16_t)slot;
        memcpy(s->blob_key, key, sizeof key);
        s->blob_len = 0;
    } else if (s->blob_slot != (int)slot || strcmp(s->blob_key, key) || offset != s->blob_len) {
        s->blob_slot = -1;
        TRACE(c, name, "slot=%u key=\"%s\" offset=%u dropped=1", slot, esc(c, 0, key),
              (unsigned)offset);
        return QD_OK;
    }
    for (unsigned i = 0; i < size && s->blob_len + i + 1 < sizeof s->blob_val; i++)
        s->blob_val[s->blob_len + i] = (char)data[i];
    s->blob_len += size;
    s->blob_val[s->blob_len < sizeof s->blob_val ? s->blob_len : sizeof s->blob_val - 1] = 0;
    if (last) {
        if (slot >= 1 && slot <= QW_MAX_CLIENTS) /* FTE ignores players past its own */
            apply_user_key(c, (int)slot - 1, s->blob_key, s->blob_val);
        s->blob_slot = -1;
    }
    TRACE(c, name, "slot=%u key=\"%s\" offset=%u size=%u last=%d", slot, esc(c, 0, key),
          (unsigned)offset, size, last);
    return QD_OK;
}

/* svcfte_splitscreenconfig [FTEEXT] (FTE cl_parse.c): a seat count and each seat's player
 * (no spectator bit); seats past FTE's four are read and dropped. Seat 0 is the view. */
static qd_err parse_seats(ctx *c, const char *name)
{
    qw_state *s = c->s;
    rd_t *r = &c->r;
    uint8_t seat_player[QW_MAX_SEATS];
    unsigned n = rd_u8(r);
    for (unsigned i = 0; i < n; i++) {
        unsigned p = rd_u8(r);
        if (i < QW_MAX_SEATS)
            seat_player[i] = (uint8_t)p;
        if (p >= QW_MAX_CLIENTS && i < QW_MAX_SEATS && !r->err)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s: seat %u: player slot %u", name, i,
                        p);
    }
    if (r->err)
        return truncated(c, name);
    if (!s->mvd && n > 0) {
        s->num_seats = (uint8_t)(n < QW_MAX_SEATS ? n : QW_MAX_SEATS);
        memcpy(s->seat_player, seat_player, s->num_seats);
        s->playernum = s->seat_player[0];
    }
    TRACE(c, name, "seats=%u", n);
    return QD_OK;
}

/* The messages FTE's extensions add (those qdemo reads; the rest are unknown). Their effects
 * qdemo does not show (particles, pictures, custom effects, float stats) are read past. */
static qd_err parse_fte_message(ctx *c, int cmd, const char *name)
{
    qw_state *s = c->s;
    cl_state *cl = c->cl;
    rd_t *r = &c->r;
    char text[CL_TEXT_LEN];
    switch (cmd) {
    case QW_SVC_FTE_CHOOSESPLITCLIENT: /* with the bit a prefix parse_messages takes */
    case QW_SVC_FTE_SPLITSCREENCONFIG:
        if (!(s->fte_ext & QW_PEXT_SPLITSCREEN) || cmd == QW_SVC_FTE_CHOOSESPLITCLIENT)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s without PEXT_SPLITSCREEN", name);
        return parse_seats(c, name);
    case QW_SVC_FTE_SETINFOBLOB:
        return parse_setinfoblob(c, name);
    case QW_SVC_SETVIEW: { /* the entity the view follows (FTE parses it whatever was agreed) */
        unsigned e = rd_fte_entity(c);
        if (r->err)
            return truncated(c, name);
        TRACE(c, name, "entity=%u", e);
        return QD_OK;
    }
    case QW_SVC_FTE_SOUNDEXTENDED: {
        /* CLNQ_ParseStartSoundPacket: a flag byte (0x04: FTE's integer above it), volume,
         * attenuation, pitch, time offset, velocity, speed, the entity and channel (0x08:
         * an entity and a channel byte, else a short of entity << 3 | channel), the sound
         * (0x10: a short), the origin */
        uint64_t mask = rd_u8(r);
        if (mask & 0x04)
            mask |= rd_fte_uint(r) << 8;
        cl_sound snd;
        memset(&snd, 0, sizeof snd);
        snd.volume = mask & 0x01 ? rd_u8(r) : 255;
        snd.attenuation = mask & 0x02 ? rd_u8(r) : 64;
        rd_skip(r, (mask & 0x80 ? 1u : 0u) + (mask & 0x40 ? 2u : 0u) + (mask & 0x100 ? 6u : 0u) +
                       (mask & 0x20 ? 2u : 0u));
        unsigned ent, chan;
        if (mask & 0x08) {
            ent = rd_fte_entity(c);
            chan = rd_u8(r);
        } else {
            unsigned w = rd_u16(r);
            ent = w >> 3;
            chan = w & 7;
        }
        unsigned sound = mask & 0x10 ? rd_u16(r) : rd_u8(r);
        for (int i = 0; i < 3; i++)
            snd.origin[i] = rd_qcoord(c);
        if (r->err)
            return truncated(c, name);
        snd.has_origin = 1;
        snd.sound = (uint16_t)sound;
        snd.entity = (int16_t)(ent < 32768 ? ent : 0);
        snd.channel = (uint8_t)(chan & 7);
        cl_sound_add(cl, &snd);
        TRACE(c, name, "entity=%u channel=%u sound=%u", ent, chan, sound);
        return QD_OK;
    }
    case QW_SVC_FTE_SOUNDLISTSHORT:
        return parse_list(c, 1, 1);
    case QW_SVC_FTE_LIGHTSTYLECOL: {
        /* a style byte, a byte of bits (0x40: a byte more of style; 0x80: a short per colour
         * bit 0..2 set), the pattern: the colour is not shown */
        if (!(s->fte_ext & QW_PEXT_LIGHTSTYLECOL))
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s without PEXT_LIGHTSTYLECOL", name);
        unsigned style = rd_u8(r), bits = rd_u8(r);
        if (bits & 0x40)
            style |= (unsigned)rd_u8(r) << 8;
        if (bits & 0x80)
            rd_skip(r, 2u * ((bits & 1) + (bits >> 1 & 1) + (bits >> 2 & 1)));
        rd_str(r, text, sizeof text);
        if (r->err)
            return truncated(c, name);
        if (style < 64)
            cl_set_lightstyle(cl, (int)style, text);
        TRACE(c, name, "style=%u bits=0x%02x pattern=\"%s\"", style, bits, esc(c, 0, text));
        return QD_OK;
    }
    case QW_SVC_FTE_PARTICLE2: /* origin, two float vectors, colour, count, effect */
        skip_coords(c, 3);
        rd_skip(r, 24 + 4);
        break;
    case QW_SVC_FTE_PARTICLE3: /* origin, a box of three bytes, colour, count, effect */
        skip_coords(c, 3);
        rd_skip(r, 3 + 4);
        break;
    case QW_SVC_FTE_PARTICLE4: /* origin, radius, colour, count, effect */
        skip_coords(c, 3);
        rd_skip(r, 1 + 4);
        break;
    case QW_SVC_FTE_CUSTOMTEMPENT: {
        /* cl_tent.c CL_ParseCustomTEnt: type 255 defines an effect (id, netstyle, name, its
         * stain and glow fields); any other type spawns a defined one, laid out by its
         * netstyle (64 persistent: a short id, bit 15 a removal; an origin; 128 a beam's
         * end; 1 a count; 32 a velocity, else 2 a direction byte) */
        if (!(s->fte_ext & QW_PEXT_CUSTOMTEMPEFFECTS))
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s without PEXT_CUSTOMTEMPEFFECTS",
                        name);
        unsigned type = rd_u8(r);
        if (type == 255) {
            unsigned id = rd_u8(r), style = rd_u8(r);
            rd_str(r, text, sizeof text);
            if (style & 4)
                rd_skip(r, 4);
            if (style & 8)
                rd_skip(r, 5 + (style & 16 ? 3 : 0));
            if (r->err)
                return truncated(c, name);
            if (id == 255)
                return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s: effect id 255", name);
            s->cte_style[id] = (uint8_t)style;
            s->cte_defined[id >> 3] |= (uint8_t)(1u << (id & 7));
            TRACE(c, name, "define=%u style=0x%02x name=\"%s\"", id, style, esc(c, 0, text));
            return QD_OK;
        }
        if (!(s->cte_defined[type >> 3] >> (type & 7) & 1)) {
            if (r->err)
                return truncated(c, name);
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s: effect %u was never defined", name,
                        type);
        }
        unsigned style = s->cte_style[type];
        if ((style & 64) && (rd_u16(r) & 0x8000)) {
            if (r->err)
                return truncated(c, name);
            return QD_OK; /* a persistent effect removed */
        }
        skip_coords(c, style & 128 ? 6 : 3);
        if (style & 1)
            rd_skip(r, 1);
        if (style & 32)
            skip_coords(c, 3);
        else if (style & 2)
            rd_skip(r, 1);
        break;
    }
    case QW_SVC_FTE_SHOWPIC: /* position, name, picture, x, y */
    case QW_SVC_FTE_MOVEPIC: /* position, name, x, y */
        if (!(s->fte_ext & QW_PEXT_SHOWPIC))
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s without PEXT_SHOWPIC", name);
        rd_skip(r, 1);
        rd_str(r, text, sizeof text);
        if (cmd == QW_SVC_FTE_SHOWPIC)
            rd_str(r, text, sizeof text);
        rd_skip(r, 4);
        break;
    case QW_SVC_FTE_HIDEPIC:   /* name */
    case QW_SVC_FTE_UPDATEPIC: /* name, picture */
        if (!(s->fte_ext & QW_PEXT_SHOWPIC))
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s without PEXT_SHOWPIC", name);
        rd_str(r, text, sizeof text);
        if (cmd == QW_SVC_FTE_UPDATEPIC)
            rd_str(r, text, sizeof text);
        break;
    case QW_SVC_FTE_EFFECT: /* origin, model byte, start frame, frames, rate */
        skip_coords(c, 3);
        rd_skip(r, 4);
        break;
    case QW_SVC_FTE_EFFECT2: /* origin, model short, start frame short, frames, rate */
        skip_coords(c, 3);
        rd_skip(r, 6);
        break;
    case QW_SVC_FTE_CSQCENTITIES:
    case QW_SVC_FTE_CGAMEPACKET:
        /* their bytes are the mod's own, with no size: only its client-side code reads them */
        return fail(c, QD_ERR_UNSUPPORTED, c->msg_ofs,
                    "%s (PEXT_CSQC): the mod's client-side data, which qdemo cannot read", name);
    case QW_SVC_FTE_PRECACHE: {
        /* a short (top two bits: 0 a model, 0x8000 a sound, 0x4000 a particle effect;
         * the rest its index) and the name, late in the level */
        unsigned code = rd_u16(r);
        rd_str(r, text, sizeof text);
        if (r->err)
            return truncated(c, name);
        unsigned idx = code & 0x3fff;
        if ((code & 0xc000) == 0 && idx > 1 && idx < CL_MAX_MODELS) /* 1, the map, stays */
            note_model(c, (int)idx, text);
        else if ((code & 0xc000) == 0x8000 && idx > 0 && idx < CL_MAX_SOUNDS)
            cl_set_sound(cl, (int)idx, text);
        TRACE(c, name, "code=0x%04x name=\"%s\"", code, esc(c, 0, text));
        return QD_OK;
    }
    case QW_SVC_FTE_UPDATESTATSTRING: /* stat, string */
        rd_skip(r, 1);
        rd_str(r, text, sizeof text);
        break;
    case QW_SVC_FTE_UPDATESTATFLOAT: /* stat, float */
        rd_skip(r, 5);
        break;
    case QW_SVC_FTE_TRAILPARTICLES: /* entity, effect, start, end */
        (void)rd_fte_entity(c);
        rd_skip(r, 2);
        skip_coords(c, 6);
        break;
    case QW_SVC_FTE_POINTPARTICLES: /* effect, origin, direction, count */
        rd_skip(r, 2);
        skip_coords(c, 6);
        rd_skip(r, 2);
        break;
    case QW_SVC_FTE_POINTPARTICLES1: /* effect, origin */
        rd_skip(r, 2);
        skip_coords(c, 3);
        break;
    case QW_SVC_FTE_CGAMEPACKET_SIZED: /* a short size, the mod's bytes */
        rd_skip(r, rd_u16(r));
        break;
    case QW_SVC_FTE_TEMP_ENTITY_SIZED: /* a short size (bit 15: NetQuake's form), an effect */
        rd_skip(r, rd_u16(r) & 0x7fffu);
        break;
    case QW_SVC_FTE_CSQCENTITIES_SIZED:
        /* entity numbers (bit 15 a removal; under replacement deltas bit 14 a byte more)
         * until a 0, each update followed by a short size and the mod's bytes */
        for (;;) {
            unsigned w = rd_u16(r);
            if (r->err)
                return truncated(c, name);
            int remove = (w & 0x8000) != 0;
            unsigned num = w & 0x7fffu;
            if ((s->fte_ext2 & QW_PEXT2_REPLACEMENTDELTAS) && (w & 0x4000))
                num = (w & 0x3fffu) | (unsigned)rd_u8(r) << 14;
            if (!num && !remove)
                break;
            if (!remove)
                rd_skip(r, rd_u16(r));
        }
        break;
    case QW_SVC_FTE_SETANGLEBASE: { /* flags; a short per bit 0..2 */
        unsigned fl = rd_u8(r);
        rd_skip(r, 2u * ((fl & 1) + (fl >> 1 & 1) + (fl >> 2 & 1)));
        break;
    }
    case QW_SVC_FTE_SPAWNSTATICSOUND2: {
        /* flags (bit 0: a short sound, a ULEB128 with PEXT2_LERPTIME [FTEEXT]), origin,
         * sound, volume, attenuation */
        unsigned fl = rd_u8(r);
        if ((fl & ~1u) && !r->err)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s: flags 0x%02x", name, fl);
        cl_static_sound ss;
        memset(&ss, 0, sizeof ss);
        for (int i = 0; i < 3; i++)
            ss.origin[i] = rd_qcoord(c);
        if (!(fl & 1))
            ss.sound = rd_u8(r);
        else
            ss.sound = (uint16_t)(s->fte_ext2 & QW_PEXT2_LERPTIME ? rd_uleb(c) : rd_u16(r));
        ss.volume = rd_u8(r);
        ss.attenuation = rd_u8(r);
        if (r->err)
            return truncated(c, name);
        cl_static_sound_add(cl, &ss);
        TRACE(c, name, "sound=%u", (unsigned)ss.sound);
        return QD_OK;
    }
    default:
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "unknown server message %d (%s)", cmd, name);
    }
    if (r->err)
        return truncated(c, name);
    TRACE(c, name, "%s", "");
    return QD_OK;
}

static qd_err parse_message(ctx *c, int cmd)
{
    qw_state *s = c->s;
    cl_state *cl = c->cl;
    rd_t *r = &c->r;
    const char *name = svc_name(cmd);
    char text[CL_TEXT_LEN], text2[CL_TEXT_LEN];
    int a, b;
    float f;

    /* Before svc_serverdata only the messages that need no protocol make sense. */
    if (!s->protocol && cmd != QW_SVC_SERVERDATA && cmd != QW_SVC_STUFFTEXT &&
        cmd != QW_SVC_PRINT && cmd != QW_SVC_NOP && cmd != QW_SVC_DISCONNECT &&
        cmd != QW_SVC_CENTERPRINT && cmd != QW_SVC_SERVERINFO && cmd != QW_SVC_CDTRACK)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s (%d) before svc_serverdata", name, cmd);

    switch (cmd) {
    case QW_SVC_NOP:
        TRACE(c, name, "%s", "");
        break;
    case QW_SVC_DISCONNECT:
        /* An .mvd's ends with "EndOfDemo"; more data after it is the next map
         * [EZPARSE svc_disconnect, MVD_FILE_PLAYBACK]. */
        text[0] = 0;
        if (s->mvd && rd_left(r) > 0)
            rd_str(r, text, sizeof text);
        if (!s->mvd)
            c->done = 1;
        s->ended = 1;
        TRACE(c, name, "text=\"%s\"", esc(c, 0, text));
        break;
    case QW_SVC_UPDATESTAT:
    case QW_SVC_UPDATESTATLONG:
        a = rd_u8(r);
        b = cmd == QW_SVC_UPDATESTAT ? rd_u8(r) : rd_s32(r);
        if (r->err)
            return truncated(c, name);
        if (a >= QW_MAX_STATS)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s: stat %d is invalid", name, a);
        if (s->mvd && (c->kind == QW_DEM_STATS || c->kind == QW_DEM_SINGLE))
            set_stat(c, (int)c->to, a, b);
        else if (s->mvd || seat_slot(c) != -2)
            set_stat(c, s->mvd ? -1 : seat_slot(c), a, b);
        TRACE(c, name, "stat=%d value=%d", a, b);
        break;
    case QW_SVC_SOUND: {
        unsigned ch = rd_u16(r);
        unsigned volume = ch & 0x8000 ? rd_u8(r) : 255; /* DEFAULT_SOUND_PACKET_VOLUME */
        unsigned atten = ch & 0x4000 ? rd_u8(r) : 64;   /* attenuation x 64, as sent */
        a = rd_u8(r);
        cl_sound snd;
        memset(&snd, 0, sizeof snd);
        for (int i = 0; i < 3; i++)
            snd.origin[i] = rd_qcoord(c);
        if (r->err)
            return truncated(c, name);
        snd.has_origin = 1;
        snd.sound = (uint16_t)a;
        snd.entity = (int16_t)((ch >> 3) & 1023);
        snd.channel = (uint8_t)(ch & 7);
        snd.volume = (uint8_t)volume;
        snd.attenuation = (uint8_t)atten;
        cl_sound_add(cl, &snd);
        TRACE(c, name, "entity=%u channel=%u sound=%d", (ch >> 3) & 1023, ch & 7, a);
        break;
    }
    case QW_SVC_PRINT:
        a = rd_u8(r);
        rd_str(r, text, sizeof text);
        if (r->err)
            return truncated(c, name);
        if (a == 3) {
            /* Chat is for every watcher, whoever an .mvd block sends it to; copies of one
             * line to several players in one frame count once. */
            uint32_t h = 2166136261u;
            for (const char *p = text; *p; p++)
                h = (h ^ (uint8_t)*p) * 16777619u;
            if (!(h == c->s->last_chat_hash && c->s->last_chat_time == c->s->time)) {
                cl_message_add(cl, CL_MSG_CHAT, text);
                cl_event ev;
                qr_chat(cl, text, &ev);
                cl_event_add(cl, &ev);
            }
            c->s->last_chat_hash = h;
            c->s->last_chat_time = c->s->time;
        } else if (c->applies) {
            cl_message_add(cl, CL_MSG_PRINT, text);
            /* obituaries are level 1 (PRINT_MEDIUM), pickups level 0; KTX sends a line in
             * pieces (names, verb, "'s rocket\n"), so whole lines are matched */
            if (a <= 1)
                qr_line_feed(&c->s->print_line, text, print_whole_line, cl);
        }
        TRACE(c, name, "level=%d text=\"%s\"", a, esc(c, 0, text));
        break;
    case QW_SVC_CENTERPRINT:
    case QW_SVC_FINALE:
        rd_str(r, text, sizeof text);
        if (r->err)
            return truncated(c, name);
        if (c->applies && !c->seat) {
            cl_message_add(cl, CL_MSG_CENTER, text);
            if (text[0])
                qr_text_event(cl, CL_EV_CENTER, text);
        }
        if (cmd == QW_SVC_FINALE) {
            cl_set_intermission(cl, 1);
            qr_text_event(cl, CL_EV_INTERMISSION, "");
        }
        TRACE(c, name, "text=\"%s\"", esc(c, 0, text));
        break;
    case QW_SVC_STUFFTEXT:
        rd_str(r, text, sizeof text);
        if (r->err)
            return truncated(c, name);
        TRACE(c, name, "text=\"%s\"", esc(c, 0, text));
        break;
    case QW_SVC_SETANGLE: {
        /* An .mvd (and MVD_PEXT1_HIGHLAGTELEPORT) puts a byte first: the player or the
         * reason [EZPARSE svc_setangle]. */
        int who = -1;
        float ang[3];
        if (s->mvd || (s->mvd_ext & QW_MVD_PEXT1_HIGHLAGTELEPORT))
            who = rd_u8(r);
        for (int i = 0; i < 3; i++)
            ang[i] = rd_qangle(c);
        if (r->err)
            return truncated(c, name);
        if (!s->mvd && !c->seat)
            memcpy(s->cmd_angles, ang, sizeof ang);
        if (s->mvd && who >= 0 && who < QW_MAX_CLIENTS) /* [EZPARSE mvd_fixangle] */
            s->fixangle |= 1u << who;
        TRACE(c, name, "byte=%d angles=%.1f,%.1f,%.1f", who, ang[0], ang[1], ang[2]);
        break;
    }
    case QW_SVC_SERVERDATA:
        return parse_serverdata(c);
    case QW_SVC_LIGHTSTYLE:
        a = rd_u8(r);
        rd_str(r, text, sizeof text);
        if (r->err)
            return truncated(c, name);
        if (a >= 64)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_lightstyle: style %d > 63", a);
        cl_set_lightstyle(cl, a, text);
        TRACE(c, name, "style=%d pattern=\"%s\"", a, esc(c, 0, text));
        break;
    case QW_SVC_UPDATEFRAGS:
        a = rd_u8(r);
        b = rd_s16(r);
        if (r->err)
            return truncated(c, name);
        if (a >= QW_MAX_CLIENTS)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_updatefrags: player %d", a);
        cl_set_player_frags(cl, a, b);
        fill_stats(c, a);
        TRACE(c, name, "player=%d frags=%d", a, b);
        break;
    case QW_SVC_STOPSOUND:
        a = rd_u16(r);
        if (r->err)
            return truncated(c, name);
        TRACE(c, name, "entity=%d channel=%d", (a >> 3) & 1023, a & 7);
        break;
    case QW_SVC_DAMAGE:
        a = rd_u8(r);
        b = rd_u8(r);
        rd_skip(r, s->fte_ext & QW_PEXT_FLOATCOORDS ? 12 : 6); /* where it came from */
        if (r->err)
            return truncated(c, name);
        TRACE(c, name, "armor=%d blood=%d", a, b);
        break;
    case QW_SVC_SPAWNSTATIC:
    case QW_SVC_FTE_SPAWNSTATIC2: {
        qw_ent e;
        if (cmd == QW_SVC_SPAWNSTATIC) {
            read_baseline(c, &e);
            if (r->err)
                return truncated(c, name);
        } else if (s->fte_ext2 & QW_PEXT2_REPLACEMENTDELTAS) {
            /* a replacement delta from nothing, without a number (FTE CLFTE_ParseBaseline) */
            static const qw_ent none;
            fte_view fv;
            qd_err err = read_fte_delta(c, &e, &none, 0, 0, &fv, name);
            if (err)
                return err;
        } else {
            qd_err err = read_delta_from_null(c, &e, name);
            if (err)
                return err;
        }
        add_static(c, &e);
        TRACE(c, name, "model=%d origin=%.1f,%.1f,%.1f", e.model, e.origin[0], e.origin[1],
              e.origin[2]);
        break;
    }
    case QW_SVC_SPAWNBASELINE:
    case QW_SVC_FTE_SPAWNBASELINE2: {
        qw_ent e;
        if (cmd == QW_SVC_SPAWNBASELINE) {
            a = rd_u16(r);
            read_baseline(c, &e);
            if (r->err)
                return truncated(c, name);
            if (a >= QW_MAX_EDICTS)
                return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_spawnbaseline: entity %d", a);
            e.number = (uint16_t)a;
        } else if (s->fte_ext2 & QW_PEXT2_REPLACEMENTDELTAS) {
            /* the entity (big form), a replacement delta from nothing */
            unsigned num = rd_big_entity(r);
            if (r->err)
                return truncated(c, name);
            if (num >= QW_RD_MAX_EDICTS)
                return rd_over(c, name, num);
            static const qw_ent none;
            fte_view fv;
            qd_err err = read_fte_delta(c, &e, &none, 0, (int)num, &fv, name);
            if (err)
                return err;
        } else {
            qd_err err = read_delta_from_null(c, &e, name);
            if (err)
                return err;
        }
        s->baselines[e.number] = e;
        if (e.number >= s->baselines_hw)
            s->baselines_hw = (uint16_t)(e.number + 1);
        TRACE(c, name, "entity=%d model=%d origin=%.1f,%.1f,%.1f", e.number, e.model, e.origin[0],
              e.origin[1], e.origin[2]);
        break;
    }
    case QW_SVC_TEMP_ENTITY:
        return parse_temp_entity(c);
    case QW_SVC_SETPAUSE:
        a = rd_u8(r);
        if (r->err)
            return truncated(c, name);
        cl_set_paused(cl, a);
        TRACE(c, name, "paused=%d", a);
        break;
    case QW_SVC_KILLEDMONSTER:
    case QW_SVC_FOUNDSECRET:
        a = cmd == QW_SVC_KILLEDMONSTER ? 14 : 13; /* STAT_MONSTERS, STAT_SECRETS */
        b = seat_slot(c);
        if (b != -2)
            set_stat(c, b, a,
                     (int32_t)((uint32_t)s->stats[b < 0 ? QW_MAX_CLIENTS : b][a] + 1u)); /* (a
                     * stat the demo set to INT32_MAX overflowed in int; a review) */
        TRACE(c, name, "%s", "");
        break;
    case QW_SVC_SPAWNSTATICSOUND: {
        cl_static_sound ss;
        memset(&ss, 0, sizeof ss);
        for (int i = 0; i < 3; i++)
            ss.origin[i] = rd_qcoord(c);
        a = rd_u8(r);
        ss.sound = (uint16_t)a;
        ss.volume = rd_u8(r);      /* 0..255 */
        ss.attenuation = rd_u8(r); /* x64, as sent */
        if (r->err)
            return truncated(c, name);
        cl_static_sound_add(cl, &ss);
        TRACE(c, name, "sound=%d", a);
        break;
    }
    case QW_SVC_INTERMISSION: {
        float org[3], ang[3];
        for (int i = 0; i < 3; i++)
            org[i] = rd_qcoord(c);
        for (int i = 0; i < 3; i++)
            ang[i] = rd_qangle(c);
        if (r->err)
            return truncated(c, name);
        if (!c->seat) { /* a further seat's camera is not the recorded view */
            memcpy(s->inter_origin, org, sizeof org);
            memcpy(s->inter_angles, ang, sizeof ang);
        }
        if (!s->intermission)
            qr_text_event(cl, CL_EV_INTERMISSION, "");
        s->intermission = 1;
        cl_set_intermission(cl, 1);
        TRACE(c, name, "origin=%.1f,%.1f,%.1f", org[0], org[1], org[2]);
        break;
    }
    case QW_SVC_CDTRACK:
        a = rd_u8(r);
        if (r->err)
            return truncated(c, name);
        TRACE(c, name, "track=%d", a);
        break;
    case QW_SVC_SELLSCREEN:
    case QW_SVC_SMALLKICK:
    case QW_SVC_BIGKICK:
        TRACE(c, name, "%s", "");
        break;
    case QW_SVC_UPDATEPING:
    case QW_SVC_UPDATEPL:
    case QW_SVC_UPDATEENTERTIME:
        a = rd_u8(r);
        if (cmd == QW_SVC_UPDATEPING)
            b = rd_s16(r);
        else if (cmd == QW_SVC_UPDATEPL)
            b = rd_u8(r);
        else {
            /* seconds on the server as a float: only a sane one is turned into an int */
            float ft = rd_f32(r);
            b = isfinite(ft) && fabsf(ft) < 1e9f ? (int)ft : 0;
        }
        if (r->err)
            return truncated(c, name);
        if (a >= QW_MAX_CLIENTS)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s: player %d", name, a);
        if (cmd == QW_SVC_UPDATEPING)
            cl_set_player_ping(cl, a, b);
        TRACE(c, name, "player=%d value=%d", a, b);
        break;
    case QW_SVC_MUZZLEFLASH:
        /* the entity in FTE's big form under replacement deltas [QWEXT 4.2] */
        a = s->fte_ext2 & QW_PEXT2_REPLACEMENTDELTAS ? (int)rd_big_entity(r) : rd_s16(r);
        if (r->err)
            return truncated(c, name);
        /* ezQuake cl_parse.c CL_MuzzleFlash: a player's, at its origin, 18 units along its
         * view */
        if (a >= 1 && a <= QW_MAX_CLIENTS && s->players[a - 1].valid)
            qr_muzzle_flash(c->cl, a, s->players[a - 1].origin, s->players[a - 1].viewangles, 0);
        TRACE(c, name, "entity=%d", a);
        break;
    case QW_SVC_UPDATEUSERINFO: {
        char info[1024];
        a = rd_u8(r);
        b = rd_s32(r);
        rd_str(r, info, sizeof info);
        if (r->err)
            return truncated(c, name);
        if (a >= QW_MAX_CLIENTS)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_updateuserinfo: player %d", a);
        apply_userinfo(c, a, info);
        TRACE(c, name, "player=%d userid=%d info=\"%s\"", a, b, esc(c, 0, info));
        break;
    }
    case QW_SVC_SETINFO:
        a = rd_u8(r);
        rd_str(r, text, sizeof text);
        rd_str(r, text2, sizeof text2);
        if (r->err)
            return truncated(c, name);
        if (a >= QW_MAX_CLIENTS)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_setinfo: player %d", a);
        apply_user_key(c, a, text, text2);
        TRACE(c, name, "player=%d key=\"%s\" value=\"%s\"", a, esc(c, 0, text),
              esc(c, 1, text2));
        break;
    case QW_SVC_SERVERINFO:
        rd_str(r, text, sizeof text);
        rd_str(r, text2, sizeof text2);
        if (r->err)
            return truncated(c, name);
        TRACE(c, name, "key=\"%s\" value=\"%s\"", esc(c, 0, text), esc(c, 1, text2));
        break;
    case QW_SVC_DOWNLOAD:
        return parse_download(c);
    case QW_SVC_PLAYERINFO:
        return s->mvd ? parse_playerinfo_mvd(c) : parse_playerinfo_qwd(c);
    case QW_SVC_NAILS:
    case QW_SVC_NAILS2:
        return parse_nails(c, cmd == QW_SVC_NAILS2);
    case QW_SVC_CHOKECOUNT:
        a = rd_u8(r);
        if (r->err)
            return truncated(c, name);
        TRACE(c, name, "count=%d", a);
        break;
    case QW_SVC_MODELLIST:
    case QW_SVC_SOUNDLIST:
        return parse_list(c, cmd == QW_SVC_SOUNDLIST, 0);
    case QW_SVC_FTE_MODELLISTSHORT:
        if (!(s->fte_ext & QW_PEXT_MODELDBL))
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s without PEXT_MODELDBL", name);
        return parse_list(c, 0, 1);
    case QW_SVC_PACKETENTITIES:
    case QW_SVC_DELTAPACKETENTITIES:
        /* replacement deltas replace these; their frames would share one ring */
        if (s->fte_ext2 & QW_PEXT2_REPLACEMENTDELTAS)
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s under PEXT2_REPLACEMENTDELTAS", name);
        return parse_packetentities(c, cmd == QW_SVC_DELTAPACKETENTITIES);
    case QW_SVC_FTE_UPDATEENTITIES:
        return parse_updateentities(c);
    case QW_SVC_FTE_SETANGLEDELTA:
        /* three 16-bit angles added to the view [QWEXT 3.10]; the recorded view's angles
         * come from the demo's moves, which hold the sum already */
        if (!(s->fte_ext2 & QW_PEXT2_SETANGLEDELTA))
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s without PEXT2_SETANGLEDELTA", name);
        rd_skip(r, 6);
        if (r->err)
            return truncated(c, name);
        TRACE(c, name, "%s", "");
        break;
    case QW_SVC_MAXSPEED:
    case QW_SVC_ENTGRAVITY:
        f = rd_f32(r);
        if (r->err)
            return truncated(c, name);
        TRACE(c, name, "value=%g", (double)f);
        break;
    case QW_SVC_QIZMOVOICE:
        if (s->fte_ext & QW_PEXT_CSQC) /* 83 is FTE's cgamepacket then [FTESVC] */
            return parse_fte_message(c, QW_SVC_FTE_CGAMEPACKET, "svc_fte_cgamepacket");
        rd_skip(r, 34); /* two header bytes and 32 of voice [EZPARSE CL_ParseQizmoVoice] */
        if (r->err)
            return truncated(c, name);
        TRACE(c, name, "%s", "");
        break;
    case QW_SVC_FTE_VOICECHAT:
        /* sender, gen, seq, 16-bit size, data [FTE snd_voip.c S_Voip_Parse] */
        if (!(s->fte_ext2 & QW_PEXT2_VOICECHAT))
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "%s without PEXT2_VOICECHAT", name);
        a = rd_u8(r);
        rd_skip(r, 2);
        b = rd_u16(r);
        rd_skip(r, (size_t)b);
        if (r->err)
            return truncated(c, name);
        TRACE(c, name, "sender=%d bytes=%d", a, b);
        break;
    default:
        return parse_fte_message(c, cmd, name);
    }
    return QD_OK;
}

/* Parse every message of the block in c->r. */
static qd_err parse_messages(ctx *c)
{
    c->s->ended = 0; /* only a disconnect as the last message ends the recording */
    /* (the reader is fresh and every message that leaves it in error ends the loop: at its
     * top a byte is left and no error set, so the command byte is read without a check) */
    while (c->r.pos < c->r.len) {
        c->msg_ofs = c->base + c->r.pos;
        int cmd = c->r.p[c->r.pos++];
        c->seat = 0;
        if (cmd == QW_SVC_FTE_CHOOSESPLITCLIENT && c->s->protocol &&
            (c->s->fte_ext & QW_PEXT_SPLITSCREEN)) {
            /* [FTEEXT] a seat (modulo FTE's MAX_SPLITS), then the message for it */
            c->seat = rd_u8(&c->r) % QW_MAX_SEATS;
            cmd = rd_u8(&c->r);
            if (c->r.err)
                return truncated(c, "svc_fte_choosesplitclient");
            if (cmd == QW_SVC_FTE_CHOOSESPLITCLIENT)
                return fail(c, QD_ERR_BAD_DATA, c->msg_ofs,
                            "svc_fte_choosesplitclient twice (FTE takes one seat prefix)");
            TRACE(c, "svc_fte_choosesplitclient", "seat=%d", c->seat);
        }
        /* the messages of nearly every .mvd frame straight to their parsers (the same
         * checks as parse_message's, without entering its big frame four times a frame) */
        qd_err e;
        const qw_state *s = c->s;
        if (cmd == QW_SVC_PLAYERINFO && s->mvd && s->protocol)
            e = parse_playerinfo_mvd(c);
        else if (cmd == QW_SVC_DELTAPACKETENTITIES && s->protocol &&
                 !(s->fte_ext2 & QW_PEXT2_REPLACEMENTDELTAS))
            e = parse_packetentities(c, 1);
        else
            e = parse_message(c, cmd);
        if (e)
            return e;
        if (c->r.err)
            return truncated(c, svc_name(cmd));
    }
    c->seat = 0;
    return QD_OK;
}

/* ---- .qwd blocks [QWD 3] ---- */

/* A connectionless packet [QWD 4]: one command byte and its text. */
static qd_err parse_connectionless(ctx *c)
{
    rd_t *r = &c->r;
    char text[CL_TEXT_LEN];
    c->msg_ofs = c->base + r->pos;
    int id = rd_u8(r);
    if (r->err)
        return truncated(c, "connectionless packet");
    switch (id) {
    case 2: /* svc_disconnect "EndOfDemo": the end of the recording */
        rd_str(r, text, sizeof text);
        c->done = 1;
        c->s->ended = 1;
        TRACE(c, "disconnect", "text=\"%s\"", esc(c, 0, text));
        return QD_OK;
    case 'B':
    case 'c':
    case 'n':
        rd_str(r, text, sizeof text);
        if (id == 'n')
            cl_message_add(c->cl, CL_MSG_PRINT, text);
        TRACE(c, id == 'B' ? "client_command" : id == 'c' ? "challenge" : "console",
              "text=\"%s\"", esc(c, 0, text));
        return QD_OK;
    case 'j':
    case 'k':
        TRACE(c, id == 'j' ? "connect" : "ping", "%s", "");
        return QD_OK;
    default:
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "unknown connectionless packet 0x%02x", id);
    }
}

static qd_err qwd_block(ctx *c, const uint8_t *data, size_t len)
{
    qw_state *s = c->s;
    size_t pos = (size_t)s->pos;
    if (len - pos < 5)
        return fail(c, QD_ERR_TRUNCATED, pos, "block header cut off (%zu bytes left)", len - pos);
    rd_t h = rd_make(data + pos, len - pos);
    float ft = rd_f32(&h);
    int type = rd_u8(&h);
    if (!isfinite(ft))
        return fail(c, QD_ERR_BAD_DATA, pos, "block time is not a number");
    if (!s->started) {
        s->time0 = ft;
        s->started = 1;
    }
    double t = (double)ft - s->time0;
    if (!(fabs(t) < 1e7)) /* 115 days: no recording is that long */
        return fail(c, QD_ERR_BAD_DATA, pos, "block time %g s is not a sane time", t);
    if (t < s->time) /* demo time never runs backwards, as the other decoders keep it (a
                      * block time set back made the duration negative; a review) */
        t = s->time;
    c->msg_ofs = pos;
    switch (type) {
    case QW_DEM_CMD: {
        /* A user command as the client stored it: a 24-byte usercmd_t and the 3 float view
         * angles [QWD 3.1; EZPARSE CL_WriteDemoCmd]. */
        const uint8_t *b = rd_bytes(&h, 36);
        if (!b)
            return fail(c, QD_ERR_TRUNCATED, pos, "dem_cmd block cut off");
        rd_t a = rd_make(b + 24, 12);
        float ang[3];
        for (int i = 0; i < 3; i++)
            ang[i] = rd_f32(&a);
        if (isfinite(ang[0]) && isfinite(ang[1]) && isfinite(ang[2]))
            memcpy(s->cmd_angles, ang, sizeof ang);
        s->time = t;
        s->pos = pos + 41;
        TRACE(c, "dem_cmd", "angles=%.1f,%.1f,%.1f", ang[0], ang[1], ang[2]);
        return QD_OK;
    }
    case QW_DEM_SET:
        if (len - pos < 13)
            return fail(c, QD_ERR_TRUNCATED, pos, "dem_set block cut off");
        s->out_seq = rd_u32(&h);
        s->in_seq = rd_u32(&h);
        s->pos = pos + 13;
        TRACE(c, "dem_set", "outgoing=%u incoming=%u", (unsigned)s->out_seq, (unsigned)s->in_seq);
        return QD_OK;
    case QW_DEM_READ:
        break;
    default:
        return fail(c, QD_ERR_BAD_DATA, pos + 4, "unknown block type %d", type);
    }
    uint32_t size = rd_u32(&h);
    if (h.err)
        return fail(c, QD_ERR_TRUNCATED, pos, "dem_read header cut off");
    if (size < 4 || size > QW_MAX_BLOCK)
        return fail(c, QD_ERR_BAD_DATA, pos + 5, "dem_read block size %u", (unsigned)size);
    if (size > len - pos - 9)
        return fail(c, QD_ERR_TRUNCATED, pos + 5, "dem_read block of %u bytes cut off at %zu",
                    (unsigned)size, len - pos - 9);
    c->base = pos + 9;
    c->r = rd_make(data + pos + 9, size);
    s->pos = pos + 9 + size;
    uint32_t seq1 = rd_u32(&c->r);
    s->time = t;
    if (seq1 == 0xffffffffu)
        return parse_connectionless(c);
    if (size < 8)
        return fail(c, QD_ERR_BAD_DATA, pos + 5, "game packet of %u bytes", (unsigned)size);
    uint32_t seq2 = rd_u32(&c->r);
    (void)seq2;
    s->in_seq = seq1 & 0x7fffffffu;
    c->applies = 1;
    frame_begin(c, t);
    qd_err e = parse_messages(c);
    if (e)
        return e;
    frame_end(c);
    return QD_OK;
}

/* ---- .mvd blocks ---- */

static qd_err mvd_frame(ctx *c, const uint8_t *data, size_t len, int *done)
{
    qw_state *s = c->s;
    int first = 1;
    for (;;) {
        size_t pos = (size_t)s->pos;
        if (pos >= len) {
            frame_end(c);
            *done = 1;
            return QD_OK;
        }
        if (len - pos < 2)
            return fail(c, QD_ERR_TRUNCATED, pos, "block header cut off");
        unsigned dt = data[pos], type = data[pos + 1];
        if (!first && dt != 0)
            break; /* the next frame starts here */
        unsigned kind = type & 7, to = type >> 3;
        if (first) {
            s->mvd_ms += dt;
            s->mvd_frames++;
            frame_begin(c, (double)s->mvd_ms * 0.001);
            first = 0;
        }
        c->msg_ofs = pos;
        rd_t h = rd_make(data + pos + 2, len - pos - 2);
        uint32_t mask = 0;
        switch (kind) {
        case QW_DEM_SET:
            s->out_seq = rd_u32(&h);
            s->in_seq = rd_u32(&h);
            if (h.err)
                return fail(c, QD_ERR_TRUNCATED, pos, "dem_set block cut off");
            s->pos = pos + 10;
            TRACE(c, "dem_set", "outgoing=%u incoming=%u", (unsigned)s->out_seq,
                  (unsigned)s->in_seq);
            s->block++;
            continue;
        case QW_DEM_MULTIPLE:
            mask = rd_u32(&h);
            break;
        case QW_DEM_READ:
        case QW_DEM_SINGLE:
        case QW_DEM_STATS:
        case QW_DEM_ALL:
            break;
        default: /* dem_cmd belongs to .qwd [EZPARSE: "mvd demos should not contain dem_cmd"] */
            return fail(c, QD_ERR_BAD_DATA, pos + 1, "block type %u in an .mvd", kind);
        }
        uint32_t size = rd_u32(&h);
        if (h.err)
            return fail(c, QD_ERR_TRUNCATED, pos, "block header cut off");
        size_t hdr = 2 + (kind == QW_DEM_MULTIPLE ? 8u : 4u);
        if (size > QW_MAX_BLOCK)
            return fail(c, QD_ERR_BAD_DATA, pos + hdr - 4, "block size %u", (unsigned)size);
        if (size > len - pos - hdr)
            return fail(c, QD_ERR_TRUNCATED, pos + hdr - 4, "block of %u bytes cut off at %zu",
                        (unsigned)size, len - pos - hdr);
        c->base = pos + hdr;
        c->r = rd_make(data + pos + hdr, size);
        s->pos = pos + hdr + size;
        c->kind = (int)(kind == QW_DEM_READ ? QW_DEM_ALL : kind);
        c->to = kind == QW_DEM_MULTIPLE ? mask : to;
        if (kind == QW_DEM_MULTIPLE && mask == 0 && (s->mvd_ext & QW_MVD_PEXT1_HIDDEN_MESSAGES)) {
            /* mvdsv's hidden data (antilag, usercmds, weapon scripts), for nobody
             * [EZPROT MVD_PEXT1_HIDDEN_MESSAGES]. */
            TRACE(c, "hidden", "bytes=%u", (unsigned)size);
            s->block++;
            continue;
        }
        if (kind == QW_DEM_SINGLE || kind == QW_DEM_STATS)
            c->applies = (int)to == s->view_player;
        else if (kind == QW_DEM_MULTIPLE)
            c->applies = s->view_player >= 0 && (mask >> s->view_player) & 1;
        else
            c->applies = 1;
        qd_err e = parse_messages(c);
        if (e)
            return e;
        s->block++;
    }
    frame_end(c);
    return QD_OK;
}

/* ---- the decoder interface ---- */

static qd_err qw_init(void *state, const uint8_t *data, size_t len, qd_error *err, int mvd)
{
    (void)data;
    (void)err;
    (void)len;
    qw_state *s = state;
    s->mvd = (uint8_t)mvd;
    s->playernum = 0;
    level_reset(s);
    return QD_OK;
}

static qd_err qwd_init(void *state, const uint8_t *data, size_t len, qd_error *err)
{
    return qw_init(state, data, len, err, 0);
}

static qd_err mvd_init(void *state, const uint8_t *data, size_t len, qd_error *err)
{
    return qw_init(state, data, len, err, 1);
}

static qd_err qw_step(void *state, const uint8_t *data, size_t len, cl_state *cl,
                      const demo_trace *trace, int *done, qd_error *err)
{
    qw_state *s = state;
    *done = 0;
    ctx c;
    memset(&c, 0, offsetof(ctx, esc)); /* esc is written before it is read */
    c.s = s;
    c.cl = cl;
    c.trace = trace && trace->msg ? trace : NULL;
    c.err = err;
    qd_err e;
    if (s->mvd) {
        e = mvd_frame(&c, data, len, done);
    } else if (s->pos >= len) {
        *done = 1;
        e = QD_OK;
    } else {
        e = qwd_block(&c, data, len);
        s->block++;
        if (!e && (c.done || s->pos >= len))
            *done = 1;
    }
    return e; /* on an error demo_step closes the frame left open and stops, or resumes */
}

static uint64_t qw_offset(const void *state) { return ((const qw_state *)state)->pos; }

static int qw_protocol(const void *state) { return ((const qw_state *)state)->protocol; }
static int qw_ended(const void *state) { return ((const qw_state *)state)->ended; }

/* [QWD 3]: float time, byte type; dem_cmd 36 bytes, dem_set 8, dem_read int32 size + data. */
static int qwd_block_at(const uint8_t *data, size_t len, uint64_t pos, int strict,
                        uint64_t *size)
{
    (void)strict; /* the framing is all there is to check */
    if (pos >= len || len - pos < 5)
        return DEMO_BLOCK_NONE;
    rd_t h = rd_make(data + pos, len - (size_t)pos);
    float t = rd_f32(&h);
    int type = rd_u8(&h);
    if (!isfinite(t) || t < 0 || t > 1e8f)
        return DEMO_BLOCK_NONE;
    uint64_t n;
    if (type == QW_DEM_CMD) {
        n = 41;
    } else if (type == QW_DEM_SET) {
        n = 13;
    } else if (type == QW_DEM_READ) {
        uint32_t m = rd_u32(&h);
        if (h.err || m < 4 || m > QW_MAX_BLOCK)
            return DEMO_BLOCK_NONE;
        n = 9 + (uint64_t)m;
    } else {
        return DEMO_BLOCK_NONE;
    }
    if (n > len - pos)
        return DEMO_BLOCK_CUT;
    *size = n;
    return DEMO_BLOCK_WHOLE;
}

/* .mvd: byte time delta, byte type (low 3 bits the kind); dem_set 8 bytes, dem_multiple an
 * int32 mask then int32 size + data, the others int32 size + data. */
static int mvd_block_at(const uint8_t *data, size_t len, uint64_t pos, int strict,
                        uint64_t *size)
{
    (void)strict; /* the framing is all there is to check */
    if (pos >= len || len - pos < 2)
        return DEMO_BLOCK_NONE;
    unsigned kind = data[pos + 1] & 7;
    if (kind == QW_DEM_CMD || kind == 7)
        return DEMO_BLOCK_NONE;
    uint64_t n = 10;
    if (kind != QW_DEM_SET) {
        size_t hdr = kind == QW_DEM_MULTIPLE ? 10 : 6;
        if (len - pos < hdr)
            return DEMO_BLOCK_CUT;
        rd_t h = rd_make(data + pos + hdr - 4, 4);
        uint32_t m = rd_u32(&h);
        if (m > QW_MAX_BLOCK)
            return DEMO_BLOCK_NONE;
        n = hdr + (uint64_t)m;
    }
    if (n > len - pos)
        return DEMO_BLOCK_CUT;
    *size = n;
    return DEMO_BLOCK_WHOLE;
}

static void qw_resume(void *state, uint64_t pos)
{
    qw_state *s = state;
    s->in_frame = 0; /* demo.c closed the client's frame */
    s->pos = pos;
}

/* ---- detection ---- */

static int ends_with(const char *name, const char *ext)
{
    if (!name)
        return 0;
    size_t n = strlen(name), e = strlen(ext);
    if (n < e)
        return 0;
    for (size_t i = 0; i < e; i++) {
        char a = name[n - e + i];
        if (a >= 'A' && a <= 'Z')
            a = (char)(a - 'A' + 'a');
        if (a != ext[i])
            return 0;
    }
    return 1;
}

/* 1 when m starts with svc_serverdata naming a QW protocol (after extension words). */
static int serverdata_ok(const uint8_t *m, size_t n)
{
    rd_t r = rd_make(m, n);
    if (rd_u8(&r) != QW_SVC_SERVERDATA)
        return 0;
    for (int i = 0; i < 8; i++) {
        uint32_t w = rd_u32(&r);
        if (r.err)
            return 0;
        if (w == QW_PROTOCOL_FTE || w == QW_PROTOCOL_FTE2 || w == QW_PROTOCOL_MVD1) {
            rd_skip(&r, 4);
            continue;
        }
        return w >= QW_PROTOCOL_MIN && w <= QW_PROTOCOL_MAX && !r.err;
    }
    return 0;
}

/* 1 when svc_serverdata with a QW protocol appears in the first bytes of a packet (a print
 * or a stufftext may come first). */
static int has_serverdata(const uint8_t *m, size_t n)
{
    if (n > 4096)
        n = 4096;
    for (size_t i = 0; i + 5 <= n; i++)
        if (m[i] == QW_SVC_SERVERDATA && serverdata_ok(m + i, n - i))
            return 1;
    return 0;
}

/* Content evidence: a chain of valid blocks, and svc_serverdata naming protocol 24..28 in
 * one of the first game packets (9); a valid chain alone is weak (2 with the extension). */
static int qwd_probe(const uint8_t *data, size_t len, const char *filename)
{
    int ext = ends_with(filename, ".qwd");
    size_t pos = 0;
    for (int blocks = 0; blocks < 64 && pos + 5 <= len; blocks++) {
        rd_t h = rd_make(data + pos, len - pos);
        float t = rd_f32(&h);
        int type = rd_u8(&h);
        if (!isfinite(t) || t < 0 || t > 1e8f)
            return ext;
        if (type == QW_DEM_CMD) {
            pos += 41;
        } else if (type == QW_DEM_SET) {
            pos += 13;
        } else if (type == QW_DEM_READ) {
            uint32_t size = rd_u32(&h);
            if (h.err || size < 4 || size > QW_MAX_BLOCK || size > len - pos - 9)
                return ext;
            uint32_t seq = rd_u32(&h);
            if (seq != 0xffffffffu && size >= 8 && has_serverdata(data + pos + 17, size - 8))
                return 9;
            pos += 9 + size;
        } else {
            return ext;
        }
    }
    return ext ? 2 : 0;
}

static int mvd_probe(const uint8_t *data, size_t len, const char *filename)
{
    int ext = ends_with(filename, ".mvd");
    size_t pos = 0;
    for (int blocks = 0; blocks < 64 && pos + 2 <= len; blocks++) {
        unsigned kind = data[pos + 1] & 7;
        rd_t h = rd_make(data + pos + 2, len - pos - 2);
        if (kind == QW_DEM_SET) {
            pos += 10;
            continue;
        }
        if (kind == QW_DEM_CMD || kind == 7)
            return ext;
        if (kind == QW_DEM_MULTIPLE)
            rd_skip(&h, 4);
        uint32_t size = rd_u32(&h);
        size_t hdr = kind == QW_DEM_MULTIPLE ? 10 : 6;
        if (h.err || size > QW_MAX_BLOCK || size > len - pos - hdr)
            return ext;
        if (has_serverdata(data + pos + hdr, size))
            return 9;
        pos += hdr + size;
    }
    return ext ? 2 : 0;
}

const demo_decoder demo_qwd_decoder = {
    "qwd", DEMO_FMT_QWD, sizeof(qw_state), qwd_probe, qwd_init, qw_step, qw_offset, qw_protocol, qw_ended,
    qwd_block_at, qw_resume, NULL, QW_REWIND_CLEAR, NULL,
};

const demo_decoder demo_mvd_decoder = {
    "mvd", DEMO_FMT_MVD, sizeof(qw_state), mvd_probe, mvd_init, qw_step, qw_offset, qw_protocol, qw_ended,
    mvd_block_at, qw_resume, NULL, QW_REWIND_CLEAR, NULL,
};
