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
 * [QWD 5.49]; the ring's entity states live in one circular pool, so a frame costs what it
 * holds rather than a fixed 300 slots. */
#include "demo.h"
#include "qw_local.h"
#include "../common/rd.h"

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
} ctx;

static const char *const svc_names[] = {
    "svc_bad", "svc_nop", "svc_disconnect", "svc_updatestat", "svc_version", "svc_setview",
    "svc_sound", "svc_time", "svc_print", "svc_stufftext", "svc_setangle", "svc_serverdata",
    "svc_lightstyle", "svc_updatename", "svc_updatefrags", "svc_clientdata", "svc_stopsound",
    "svc_updatecolors", "svc_particle", "svc_damage", "svc_spawnstatic", "svc_fte_spawnstatic2",
    "svc_spawnbaseline", "svc_temp_entity", "svc_setpause", "svc_signonnum", "svc_centerprint",
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
    static const char *const n[8] = {
        "MVD_PEXT1_FLOATCOORDS", "MVD_PEXT1_HIGHLAGTELEPORT", "MVD_PEXT1_SERVERSIDEWEAPON",
        "MVD_PEXT1_DEBUG_WEAPON", "MVD_PEXT1_DEBUG_ANTILAG", "MVD_PEXT1_HIDDEN_MESSAGES",
        "MVD_PEXT1_SERVERSIDEWEAPON2", "MVD_PEXT1_SIMPLEPROJECTILE"};
    for (int i = 0; i < 8; i++)
        if (bit == 1u << i)
            return n[i];
    return "MVD_PEXT1_unknown";
}

/* ---- errors and trace ---- */

static qd_err fail(ctx *c, qd_err code, uint64_t ofs, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static qd_err fail(ctx *c, qd_err code, uint64_t ofs, const char *fmt, ...)
{
    char buf[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return qd_fail(c->err, code, ofs, "%s", buf);
}

static void trace_msg(ctx *c, const char *name, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void trace_msg(ctx *c, const char *name, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    c->trace->msg(c->trace->ctx, c->s->time, c->s->block, c->msg_ofs, name, buf);
}

/* Formats nothing unless somebody listens. */
#define TRACE(c, name, ...)                                                                    \
    do {                                                                                       \
        if ((c)->trace)                                                                        \
            trace_msg((c), (name), __VA_ARGS__);                                               \
    } while (0)

/* The message ran past its block: a truncated or damaged packet. */
static qd_err truncated(ctx *c, const char *what)
{
    return fail(c, QD_ERR_TRUNCATED, c->msg_ofs, "%s runs past the end of its block (%zu bytes)",
                what, c->r.len);
}

/* ---- field readers [QWD 3.4] ---- */

static float rd_coord(rd_t *r) { return (float)rd_s16(r) * 0.125f; }
static float rd_angle16(rd_t *r) { return (float)rd_s16(r) * (360.0f / 65536.0f); }
static float angle8(int8_t a) { return (float)a * (360.0f / 256.0f); }

/* Entity and player origins: floats with MVD_PEXT1_FLOATCOORDS [EZPARSE cl_ents.c
 * CL_ParseDelta, MSG_ReadFloatCoord], else 1/8 unit shorts. */
static float rd_entcoord(ctx *c)
{
    if (c->s->mvd_ext & QW_MVD_PEXT1_FLOATCOORDS) {
        float f = rd_f32(&c->r);
        return isfinite(f) ? f : NAN;
    }
    return rd_coord(&c->r);
}

static int origin_ok(const float o[3])
{
    return isfinite(o[0]) && isfinite(o[1]) && isfinite(o[2]) && fabsf(o[0]) < 1e6f &&
           fabsf(o[1]) < 1e6f && fabsf(o[2]) < 1e6f;
}

/* ---- the client-state side ---- */

static void frame_begin(ctx *c, double t)
{
    qw_state *s = c->s;
    s->time = t;
    s->in_frame = 1;
    s->frame_had_pe = 0;
    s->players_seen = 0;
    cl_frame_begin(c->cl, t);
}

static float view_height(const qw_player *p)
{
    /* id QW client/view.c V_CalcRefdef: gib 8, dead -16, else 22 (DEFAULT_VIEWHEIGHT). */
    if (p->flags & 2)
        return 8.0f;
    if (p->flags & 1)
        return -16.0f;
    return 22.0f;
}

static int player_active(const cl_state *cl, int i)
{
    return cl->players[i].active && !cl->players[i].spectator;
}

/* The recorded view: .qwd the recorder's; .mvd the first active player (the app may follow
 * any other through cl->players[i].entity). */
static void set_view(ctx *c)
{
    qw_state *s = c->s;
    cl_view v;
    memset(&v, 0, sizeof v);
    if (s->mvd) {
        int vp = s->view_player;
        if (vp < 0 || !player_active(c->cl, vp) || !s->players[vp].valid) {
            vp = -1;
            for (int i = 0; i < QW_MAX_CLIENTS; i++)
                if (player_active(c->cl, i) && s->players[i].valid) {
                    vp = i;
                    break;
                }
            s->view_player = vp;
        }
        if (vp < 0) {
            v.view_entity = -1;
        } else {
            v.view_entity = vp + 1;
            v.view_height = view_height(&s->players[vp]);
            memcpy(v.angles, s->players[vp].viewangles, sizeof v.angles);
        }
    } else {
        v.view_entity = s->playernum + 1;
        v.view_height = view_height(&s->players[s->playernum]);
        memcpy(v.angles, s->cmd_angles, sizeof v.angles);
    }
    if (s->intermission) {
        v.has_origin = 1;
        v.view_height = 0;
        memcpy(v.origin, s->inter_origin, sizeof v.origin);
        memcpy(v.angles, s->inter_angles, sizeof v.angles);
    }
    cl_set_view(c->cl, &v);
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
    e.colormap = (uint8_t)(num + 1);
    e.alpha = p->alpha;
    e.effects = p->effects;
    e.flags = CL_EF_PLAYER;
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
        e.angles[i] = angle8(q->angles[i]);
    e.model = q->model;
    e.frame = q->frame;
    e.skin = q->skin;
    e.colormap = q->colormap;
    e.effects = q->effects;
    e.alpha = q->trans;
    cl_entity_update(c->cl, q->number, &e);
}

