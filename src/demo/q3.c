/* q3.c: the Quake III-family demo decoder (.dm_66 .. .dm_71).
 *
 * A demo is blocks of [int32 sequence][int32 length][length bytes of server message]; a
 * length of -1 ends it [DM68 3]. Each message is Huffman-coded (q3_huff.c) and starts with
 * the reliable acknowledge, then commands up to svc_EOF [DM68 10 Parse_DemoMessage]: the
 * first block carries svc_gamestate (configstrings, entity baselines), later ones
 * svc_serverCommand (reliable text commands) and svc_snapshot (the playerState and the
 * entities, delta-compressed against an earlier snapshot of a 32-slot ring) [DM68 10].
 * One step decodes one block. Protocols 66 and 67 (Quake III 1.29-1.31) share 68's field
 * tables [UDT]; 70 and 71 are ioquake3 / OpenArena builds of the same protocol. Quake Live's
 * 73, 90 and 91 frame, code and order their messages as 68 does, with other field tables and
 * numbers: each protocol's differences are a row of q3_proto.c, chosen by the serverinfo.
 *
 * Entity numbers: Q3 entity n is cl entity n + 1, so client k's body is cl entity k + 1
 * as in QuakeWorld, and cl entity 0 stays the world. Positions come from evaluating each
 * entity's trajectory at the snapshot's server time (bg_misc.c BG_EvaluateTrajectory).
 * One client frame per new server time; t = 0 at the first snapshot. A file that stops
 * without the end marker was cut off (udt_truncated.dm_68) and ends with an error. */
#include "demo.h"
#include "demo_local.h"
#include "q3_local.h"
#include "../common/dirs.h"
#include "../common/rd.h"
#include "../common/text.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <string.h>

/* The configstrings of one svc_gamestate, gathered before the level begins (the level's
 * title and player count are configstrings too). */
typedef struct gs_scratch {
    uint32_t ofs[Q3_MAX_CONFIGSTRINGS]; /* 0 = unset, else offset + 1 into data */
    uint32_t used;
    char data[65536];
    /* the baselines read, the state's only once the whole gamestate is (one that breaks
     * leaves the level before it as it was: a review) */
    q3_ent baselines[Q3_MAX_GENTITIES];
    uint16_t baselines_hw;
} gs_scratch;

/* Server commands of one message held until its snapshot (more run at once). */
#define Q3_PENDING_CMDS 64

/* What one step works with. */
typedef struct ctx {
    q3_state *s;
    const q3_proto *p;  /* the tables and numbers of s->protocol */
    cl_state *cl;
    const demo_trace *trace;
    qd_error *err;
    q3_bits b;          /* the current message */
    uint64_t base;      /* file offset of the message's first byte */
    uint64_t msg_ofs;   /* file offset of the command being parsed */
    int done;
    gs_scratch *gs;     /* only while a gamestate is parsed */
    int npending;       /* held server commands (pending) */
    int listener;       /* the snapshot's playerState's client (cg.snap->ps.clientNum) */
    char str[Q3_BIG_INFO_STRING];
    char esc[2][640];   /* trace only */
    /* the message's new server commands, each as the reader stood at its string: run when
     * the message's snapshot begins its frame, else at the message's end (run_pending);
     * written before read */
    q3_bits pending[Q3_PENDING_CMDS];
} ctx;

/* The snapshot ring and entity pool (q3_local.h): entries older than half the pool are
 * copied forward when carried, none needs a fix-up. */
static const dd_desc store_desc = {
    sizeof(q3_ent), offsetof(q3_ent, number), Q3_POOL, Q3_REFS, Q3_PACKET_BACKUP,
    Q3_MAX_SNAP_ENTITIES, Q3_POOL / 2, NULL,
};

#define STORE(s) DD_VIEW(&(s)->store, &store_desc)

/* ---- errors and trace ---- */

#define fail DEMO_FAIL

#define TRACE DEMO_TRACE

/* A string made printable for the trace. Only called inside TRACE. */
static const char *esc(ctx *c, int slot, const char *s)
{
    return demo_escape(c->esc[slot], sizeof c->esc[slot], s);
}

/* File offset of the byte the bit reader is in. */
static uint64_t here(const ctx *c)
{
    size_t byte = c->b.bit >> 3;
    if (byte >= c->b.r.len) /* read past its end: its last byte, inside its own block (the
                             * message's end is the next block's start, which the resync then
                             * took for the damage; a review) */
        byte = c->b.r.len ? c->b.r.len - 1 : 0;
    return c->base + byte;
}

/* The message ran past its end or held a bad code. */
static qd_err damaged(ctx *c, const char *what)
{
    if (c->b.bad_sym)
        return fail(c, QD_ERR_BAD_DATA, here(c), "bad Huffman code in %s", what);
    return fail(c, QD_ERR_TRUNCATED, here(c), "%s runs past the end of its message (%zu bytes)",
                what, c->b.r.len);
}

/* MSG_ReadString / MSG_ReadBigString [DM68 5]: Huffman bytes up to a NUL; '%' and bytes
 * over 127 (but in Quake Live 91 [QL]) become '.'. Excess characters are read and dropped. */
static size_t read_string(ctx *c, char *dst, size_t cap)
{
    size_t n = 0;
    if (c->b.plain)
        q3_bits_align(&c->b); /* ioEF-cmod's compat MSG_ReadString rounds to a byte [Q3OLD] */
    for (size_t i = 0; i < Q3_BIG_INFO_STRING * 4; i++) {
        int ch = q3_huff_byte(&c->b);
        if (q3_bits_err(&c->b) || ch == 0)
            break;
        if (ch == '%' || (ch > 127 && !c->p->high_ascii))
            ch = '.';
        if (n + 1 < cap)
            dst[n++] = (char)ch;
    }
    dst[n] = 0;
    return n;
}

/* ---- commands ---- */

/* The next token of *p (text.h qd_token: Cmd_TokenizeString's rules) into tok, and *p past
 * it. Returns 0 when there is none. */
static int next_token(const char **p, char *tok, size_t cap)
{
    const char *q = qd_token(*p, tok, cap, 0, NULL);
    if (!q)
        return 0;
    *p = q;
    return 1;
}

/* ---- configstrings ---- */

/* The world models of baseq3 1.32's bg_itemlist (game/bg_misc.c), by item index: an
 * ET_ITEM entity's modelindex is an index into that list, not a configstring. They are
 * registered in the cl model slots from Q3_ITEM_MODELS on, past the 256 CS_MODELS. */
#define Q3_ITEM_MODELS 256
#define Q3_EV_FIRE_WEAPON_68 23 /* bg_public.h entity_event_t EV_FIRE_WEAPON (66..71) */
#define Q3_WP_LIGHTNING 6       /* weapon_t WP_LIGHTNING */
#define Q3_WP_GRAPPLING_HOOK 10 /* weapon_t WP_GRAPPLING_HOOK */
#define Q3_EV_GLOBAL_TEAM_SOUND_68 47 /* EV_GLOBAL_TEAM_SOUND (66..71) */
#define Q3_EV_BULLET_HIT_WALL_68 49  /* EV_BULLET_HIT_WALL (66..71) */
#define Q3_EV_SHOTGUN_68 54          /* EV_SHOTGUN (66..71) */
#define Q3_EV_BULLET_HIT_FLESH_68 48 /* EV_BULLET_HIT_FLESH (66..71) */
#define Q3_EV_GIB_PLAYER_68 64       /* EV_GIB_PLAYER (66..71) */
#define Q3_EV_SCOREPLUM_68 65        /* EV_SCOREPLUM (66..71) */
#define Q3_EV_ITEM_RESPAWN_68 40        /* EV_ITEM_RESPAWN (66..71) */
#define Q3_EV_PLAYER_TELEPORT_IN_68 42  /* EV_PLAYER_TELEPORT_IN (66..71) */
#define Q3_EV_PLAYER_TELEPORT_OUT_68 43 /* EV_PLAYER_TELEPORT_OUT (66..71) */
#define Q3_SOLID_BMODEL 0xffffffu    /* bg_public.h SOLID_BMODEL: entityState.solid of a brush model */
#define Q3_WP_MACHINEGUN 2
#define Q3_WP_SHOTGUN 3
#define Q3_EV_GLOBAL_ITEM_PICKUP_68 20 /* EV_GLOBAL_ITEM_PICKUP (66..71) */
#define Q3_EF_PLAYER_EVENT 0x10 /* eFlags of an event entity: otherEntityNum's (66..71) */
static const char *const item_models[] = {
    NULL,
    "models/powerups/armor/shard.md3",
    "models/powerups/armor/armor_yel.md3",
    "models/powerups/armor/armor_red.md3",
    "models/powerups/health/small_cross.md3",
    "models/powerups/health/medium_cross.md3",
    "models/powerups/health/large_cross.md3",
    "models/powerups/health/mega_cross.md3",
    "models/weapons2/gauntlet/gauntlet.md3",
    "models/weapons2/shotgun/shotgun.md3",
    "models/weapons2/machinegun/machinegun.md3",
    "models/weapons2/grenadel/grenadel.md3",
    "models/weapons2/rocketl/rocketl.md3",
    "models/weapons2/lightning/lightning.md3",
    "models/weapons2/railgun/railgun.md3",
    "models/weapons2/plasma/plasma.md3",
    "models/weapons2/bfg/bfg.md3",
    "models/weapons2/grapple/grapple.md3",
    "models/powerups/ammo/shotgunam.md3",
    "models/powerups/ammo/machinegunam.md3",
    "models/powerups/ammo/grenadeam.md3",
    "models/powerups/ammo/plasmaam.md3",
    "models/powerups/ammo/lightningam.md3",
    "models/powerups/ammo/rocketam.md3",
    "models/powerups/ammo/railgunam.md3",
    "models/powerups/ammo/bfgam.md3",
    "models/powerups/holdable/teleporter.md3",
    "models/powerups/holdable/medkit.md3",
    "models/powerups/instant/quad.md3",
    "models/powerups/instant/enviro.md3",
    "models/powerups/instant/haste.md3",
    "models/powerups/instant/invis.md3",
    "models/powerups/instant/regen.md3",
    "models/powerups/instant/flight.md3",
    "models/flags/r_flag.md3",
    "models/flags/b_flag.md3",
};
#define NUM_ITEM_MODELS ((int)(sizeof item_models / sizeof item_models[0]))

/* The baseq3 item (an index of item_models) a protocol's bg_itemlist index stands for, 0
 * none. */
/* The playerState stats[] slots of the owned weapons, the armour and the dead player's
 * yaw: the protocol's, moved one on for the missionpack's numbering (q3_state.mp_version,
 * mp_fs_game) where the protocol's row is baseq3's. */
static int stat_shift(const ctx *c)
{
    return c->p->stat_weapons == 2 && (c->s->mp_version || c->s->mp_fs_game);
}
static int stat_weapons(const ctx *c) { return c->p->stat_weapons + stat_shift(c); }
static int stat_armor(const ctx *c) { return c->p->stat_armor + stat_shift(c); }

static int item_of(const q3_proto *p, int item)
{
    if (p->items)
        item = item >= 0 && item < p->num_items ? p->items[item] : 0;
    return item > 0 && item < NUM_ITEM_MODELS ? item : 0;
}

/* Player slot k's three meshes are registered at Q3_PLAYER_MODELS + 3k (lower, upper, head:
 * cgame CG_RegisterClientModelname loads models/players/<model>/lower.md3, upper.md3 and
 * models/players/<hmodel>/head.md3); a body entity shows the legs slot. */
#define Q3_PLAYER_MODELS 320
/* Missiles by weapon_t (bg_public.h) at Q3_MISSILE_MODELS + weapon: the missileModel that
 * ioquake3 cgame/cg_weapons.c CG_RegisterWeapon registers (plasma has no model, only the
 * sprite shader "sprites/plasma1", named here so the ball is not invisible). */
#define Q3_MISSILE_MODELS 512
#define Q3_ET_MISSILE 3
#define Q3_ET_PORTAL 6
static const char *const missile_models[] = {
    NULL, NULL, NULL, NULL,
    "models/ammo/grenade1.md3",      /* WP_GRENADE_LAUNCHER 4 */
    "models/ammo/rocket/rocket.md3", /* WP_ROCKET_LAUNCHER 5 */
    NULL, NULL,
    "sprites/plasma1",               /* WP_PLASMAGUN 8 */
    "models/weaphits/bfg.md3",       /* WP_BFG 9 */
    "models/ammo/rocket/rocket.md3", /* WP_GRAPPLING_HOOK 10 */
    "models/weaphits/nail.md3",      /* WP_NAILGUN 11 (missionpack) */
    "models/weaphits/proxmine.md3",  /* WP_PROX_LAUNCHER 12 (missionpack) */
};
#define NUM_MISSILE_MODELS ((int)(sizeof missile_models / sizeof missile_models[0]))
_Static_assert(Q3_ITEM_MODELS + CL_FLASH_SLOTS > Q3_PLAYER_MODELS + 3 * Q3_MAX_CLIENTS + CL_SKIN_SLOTS &&
                   Q3_ITEM_MODELS + 256 + CL_FLASH_SLOTS <= CL_MAX_MODELS,
               "flash slots overlap other models");
/* the hands and barrels of the weapons (items under 100) past their flashes, apart */
_Static_assert(NUM_ITEM_MODELS < 100 && CL_HAND_SLOTS == CL_FLASH_SLOTS + 100 &&
                   CL_BARREL_SLOTS == CL_HAND_SLOTS + 100 &&
                   Q3_ITEM_MODELS + NUM_ITEM_MODELS + CL_BARREL_SLOTS < CL_HAND_FALLBACK &&
                   CL_HAND_FALLBACK < CL_MAX_MODELS,
               "weapon part slots overlap");
_Static_assert(CL_Q3_IMPACT_MODELS > CL_HAND_FALLBACK && CL_Q3_GIB_MODELS == CL_Q3_IMPACT_MODELS + 3 &&
                   CL_Q3_GIB_MODELS + CL_Q3_GIBS == CL_Q3_BRASS_MODELS &&
                   CL_Q3_BRASS_MODELS + 2 <= CL_MAX_MODELS,
               "impact model slots overlap");
/* bg_misc.c bg_itemlist world_model[1]: the health items' spheres (items 4..7) and the
 * powerups' rings (28..33), past the brass */
static const char *const item_spheres[4] = {"small", "medium", "large", "mega"};
static const char *const item_rings[6] = {"quad", "enviro", "haste", "invis", "regen", "flight"};
/* cg_main.c redFlagBaseModel, blueFlagBaseModel, neutralFlagBaseModel: a team base
 * (ET_TEAM) of a game with the red and blue flags (cg_ents.c CG_TeamBase) */
#define Q3_FLAGBASE_MODELS 1727
#define Q3_ET_TEAM 12
#define Q3_ITEM_HEALTH_FIRST 4
#define Q3_ITEM_POWERUP_FIRST 28
_Static_assert(CL_Q3_ITEM_SPHERES == CL_Q3_BRASS_MODELS + 2 &&
                   CL_Q3_ITEM_RINGS == CL_Q3_ITEM_SPHERES + 4 &&
                   CL_Q3_TELEPORT_MODEL == CL_Q3_ITEM_RINGS + 6 &&
                   Q3_FLAGBASE_MODELS == CL_Q3_TELEPORT_MODEL + 1 &&
                   Q3_FLAGBASE_MODELS + 3 <= CL_MAX_MODELS &&
                   Q3_ITEM_POWERUP_FIRST + 6 <= NUM_ITEM_MODELS,
               "item second model slots overlap");
/* the players' skins (CL_SKIN_SLOTS past their meshes) lie past the missiles */
_Static_assert(Q3_PLAYER_MODELS + 3 * Q3_MAX_CLIENTS + CL_SKIN_SLOTS <= CL_MAX_MODELS &&
                   Q3_PLAYER_MODELS + CL_SKIN_SLOTS >=
                       Q3_MISSILE_MODELS + sizeof missile_models / sizeof missile_models[0],
               "player skin slots overlap other models");

/* The legs slot of client cn, 0 while its configstring is unset. */
static uint16_t player_model(const ctx *c, int cn)
{
    int mi = Q3_PLAYER_MODELS + 3 * cn;
    return mi < c->cl->level.num_models && c->cl->level.models[mi][0] ? (uint16_t)mi : 0;
}

/* "razor/default" -> model "razor", skin "default"; no slash: skin "default"; empty: cgame's
 * DEFAULT_MODEL "sarge" (cg_players.c CG_NewClientInfo). Names keep to [A-Za-z0-9_-] so a
 * configstring cannot build a path out of the models folder. */
static void split_model(const char *v, char *model, size_t mcap, char *skin, size_t scap)
{
    size_t n = 0, k = 0;
    const char *p = v;
    for (; *p && *p != '/'; p++)
        if (n + 1 < mcap && (isalnum((unsigned char)*p) || *p == '_' || *p == '-'))
            model[n++] = *p;
    model[n] = 0;
    if (*p == '/')
        for (p++; *p; p++)
            if (k + 1 < scap && (isalnum((unsigned char)*p) || *p == '_' || *p == '-'))
                skin[k++] = *p;
    skin[k] = 0;
    if (!n)
        snprintf(model, mcap, "sarge");
    if (!k)
        snprintf(skin, scap, "default");
}

/* The .skin of model slot mi, named as cgame's first try (cg_players.c
 * CG_FindClientModelFile, CG_FindClientHeadFile): models/players/<model>/<part>_<skin>_<team>
 * .skin for the legs and torso, models/players/<hmodel>/<hskin>/head_<team>.skin for the head
 * (team: default outside team games); the asset set tries cgame's other names
 * (mdl_player_skin_paths). None ("": the surfaces keep their own shaders) when that does not
 * fit a name. */
static void set_skin(ctx *c, int mi, const char *model, const char *part, const char *skin,
                     const char *team)
{
    char path[CL_NAME_LEN];
    int n = strcmp(part, "head") == 0
                ? snprintf(path, sizeof path, "models/players/%s/%s/head_%s.skin", model, skin,
                           team)
                : snprintf(path, sizeof path, "models/players/%s/%s_%s_%s.skin", model, part,
                           skin, team);
    cl_set_model(c->cl, mi + CL_SKIN_SLOTS, n > 0 && (size_t)n < sizeof path ? path : "");
}

/* cg_players.c CG_ColorFromString on the info's key: 1..7 as blue (1), green (2) and red (4)
 * bits, else white */
static void info_color(const char *info, const char *key, uint8_t rgb[3])
{
    char v[16];
    int n = qd_info_get(info, key, v, sizeof v) ? qd_atoi(v) : 0;
    rgb[0] = n < 1 || n > 7 || (n & 4) ? 255 : 0;
    rgb[1] = n < 1 || n > 7 || (n & 2) ? 255 : 0;
    rgb[2] = n < 1 || n > 7 || (n & 1) ? 255 : 0;
}

static void apply_player(ctx *c, int slot, const char *info)
{
    char name[64], team[16], v[64], model[32], skin[32], hmodel[32], hskin[32];
    int mi = Q3_PLAYER_MODELS + 3 * slot;
    if (!info[0]) {
        cl_set_player_name(c->cl, slot, "");
        cl_set_player_entity(c->cl, slot, -1);
        if (player_model(c, slot))
            for (int i = 0; i < 3; i++) {
                cl_set_model(c->cl, mi + i, "");
                cl_set_model(c->cl, mi + i + CL_SKIN_SLOTS, "");
            }
        return;
    }
    qd_info_get(info, "n", name, sizeof name);
    qd_info_get(info, "t", team, sizeof team);
    info_color(info, "c1", c->s->rail_rgb[slot]);
    info_color(info, "c2", c->s->rail2_rgb[slot]);
    /* An empty name still marks the slot used: the configstring is set. */
    cl_set_player_name(c->cl, slot, name[0] ? name : "?");
    cl_set_player_spectator(c->cl, slot, team[0] && qd_atoi(team) == 3);
    /* team_t (bg_public.h): TEAM_FREE 0, TEAM_RED 1, TEAM_BLUE 2, TEAM_SPECTATOR 3 */
    cl_set_player_team(c->cl, slot, qd_atoi(team));
    cl_set_player_entity(c->cl, slot, slot + 1);
    /* model and hmodel (bg_public.h CS_PLAYERS, g_client.c ClientUserinfoChanged) */
    qd_info_get(info, "model", v, sizeof v);
    split_model(v, model, sizeof model, skin, sizeof skin);
    if (!qd_info_get(info, "hmodel", v, sizeof v) || !v[0])
        snprintf(v, sizeof v, "%s/%s", model, skin);
    split_model(v, hmodel, sizeof hmodel, hskin, sizeof hskin);
    char path[CL_NAME_LEN], head[64];
    snprintf(path, sizeof path, "models/players/%s/lower.md3", model);
    cl_set_model(c->cl, mi, path);
    snprintf(path, sizeof path, "models/players/%s/upper.md3", model);
    cl_set_model(c->cl, mi + 1, path);
    snprintf(path, sizeof path, "models/players/%s/head.md3", hmodel);
    cl_set_model(c->cl, mi + 2, path);
    /* their skins: in team games the team's colour, "red" or "blue", else "default" */
    int t = qd_atoi(team);
    const char *ts = t == 1 ? "red" : t == 2 ? "blue" : "default";
    set_skin(c, mi, model, "lower", skin, ts);
    set_skin(c, mi + 1, model, "upper", skin, ts);
    set_skin(c, mi + 2, hmodel, "head", hskin, ts);
    snprintf(head, sizeof head, "%s/%s", hmodel, hskin);
    cl_set_player_look(c->cl, slot, model, skin, head);
}

/* One configstring's meaning for the client state (cl_level_begin was called). */
static void apply_cs(ctx *c, int index, const char *str)
{
    char v[256];
    const q3_proto *p = c->p;
    if (index == Q3_CS_SERVERINFO) {
        /* cg_main.c CG_ParseServerinfo: the limits the announcer counts down to */
        c->s->timelimit = qd_info_get(str, "timelimit", v, sizeof v) ? qd_atoi(v) : 0;
        c->s->fraglimit = qd_info_get(str, "fraglimit", v, sizeof v) ? qd_atoi(v) : 0;
        c->s->gametype = (uint8_t)(qd_info_get(str, "g_gametype", v, sizeof v) ? qd_atoi(v) & 255 : 0);
        /* cg_draw.c CG_DrawScores: a game of GT_CTF and on shows its capturelimit beside
         * the scores, others their fraglimit; GT_CTF alone shows the flags' states */
        int caps = qd_info_get(str, "capturelimit", v, sizeof v) ? qd_atoi(v) : 0;
        c->cl->score_limit = c->s->gametype >= p->gt_ctf ? caps : c->s->fraglimit;
        c->cl->ctf = c->s->gametype == p->gt_ctf;
        if (qd_info_get(str, "mapname", v, sizeof v) && v[0]) {
            char map[CL_NAME_LEN];
            snprintf(map, sizeof map, "maps/%.50s.bsp", v);
            cl_set_map(c->cl, map);
        }
    } else if (index >= p->cs_models && index < p->cs_models + Q3_MAX_MODELS) {
        cl_set_model(c->cl, index - p->cs_models, str);
    } else if (index >= p->cs_sounds && index < p->cs_sounds + Q3_MAX_SOUNDS) {
        cl_set_sound(c->cl, index - p->cs_sounds, str);
    } else if (index >= p->cs_players && index < p->cs_players + Q3_MAX_CLIENTS) {
        apply_player(c, index - p->cs_players, str);
    } else if (index == Q3_CS_SCORES1 || index == Q3_CS_SCORES2) {
        c->cl->team_score[index - Q3_CS_SCORES1] = qd_atoi(str);
    } else if (index == Q3_CS_SYSTEMINFO) {
        int fps = qd_info_get(str, "sv_fps", v, sizeof v) ? qd_atoi(v) : 0;
        c->s->unlagged_ms = (uint16_t)(fps > 0 && fps <= 1000 ? 1000 / fps : 0);
    } else if (index == Q3_CS_GAME_VERSION) {
        c->s->mp_version = !strncmp(str, "baseoa", 6);
    } else if (index == p->cs_flagstatus) {
        /* cg_servercmds.c CG_ConfigStringModified: the red flag's state is the first digit,
         * the blue's the second (0 at base, 1 taken, 2 dropped); cgame draws no icon for any
         * other value */
        int r = str[0] ? str[0] - '0' : -1, b = str[0] && str[1] ? str[1] - '0' : -1;
        c->cl->flag_status[0] = (int8_t)(r >= 0 && r <= 2 ? r : -1);
        c->cl->flag_status[1] = (int8_t)(b >= 0 && b <= 2 ? b : -1);
    } else if (index == p->cs_level_start) {
        /* cg_main.c CG_Init and cg_servercmds.c: cgs.levelStartTime; CG_DrawTimer shows
         * cg.time - levelStartTime */
        c->s->level_start = qd_atoi(str);
        c->s->have_level_start = str[0] != 0;
    }
}

static const char *gs_get(const gs_scratch *gs, int index)
{
    return gs->ofs[index] ? gs->data + gs->ofs[index] - 1 : "";
}

/* The protocol from the serverinfo's "protocol", else its "com_protocol" (ioquake3 1.36
 * sends only that: an OpenArena 0.8.8 server of it says com_protocol 71, and its clients
 * name their demos .dm_71), else 68; and its row of q3_proto.c. One without a row is
 * refused. */
static qd_err check_protocol(ctx *c, const char *serverinfo, uint64_t ofs)
{
    char v[32];
    int p = 68;
    if ((qd_info_get(serverinfo, "protocol", v, sizeof v) && v[0]) ||
        (qd_info_get(serverinfo, "com_protocol", v, sizeof v) && v[0]))
        p = qd_atoi(v);
    const q3_proto *row = q3_proto_find(p);
    if (c->s->old) {
        /* [Q3OLD] the file's shape picks the tables; a dm_48 file of protocol 43 numbers
         * its configstrings as dm3 does */
        if (p < 43 || p > 48)
            return fail(c, QD_ERR_UNSUPPORTED, ofs,
                        "protocol %d in a message without Huffman coding (only 43..48 send "
                        "one)", p);
        row = q3_proto_old(c->s->old);
        c->s->cs_dm3 = c->s->old == Q3_OLD_DM3 || p == 43;
    } else if (p >= 43 && p <= 48) {
        return fail(c, QD_ERR_UNSUPPORTED, ofs,
                    "protocol %d in a Huffman-coded message (43..48 send none)", p);
    }
    if (!row)
        return fail(c, QD_ERR_UNSUPPORTED, ofs,
                    "Quake III protocol %d is not supported (43..48, 66..71, and Quake "
                    "Live's 73, 90 and 91 are)", p);
    c->s->protocol = p;
    c->p = row;
    return QD_OK;
}

/* The level starts once the whole gamestate is read. */
static void begin_level(ctx *c)
{
    const gs_scratch *gs = c->gs;
    const char *si = gs_get(gs, Q3_CS_SERVERINFO);
    char v[256];
    int maxc = 0;
    if (qd_info_get(si, "sv_maxclients", v, sizeof v))
        maxc = qd_atoi(v);
    if (maxc <= 0 || maxc > Q3_MAX_CLIENTS)
        maxc = Q3_MAX_CLIENTS;
    cl_level_begin(c->cl, CL_GAME_Q3, c->s->protocol, maxc, gs_get(gs, Q3_CS_MESSAGE));
    c->cl->flag_status[0] = c->cl->flag_status[1] = -1; /* until CS_FLAGSTATUS says */
    c->s->have_view = 0; /* a new level's first view lerps from nothing */
    /* gametype_t (bg_public.h): GT_TEAM 3 and on are team games */
    c->s->team_game = qd_info_get(si, "g_gametype", v, sizeof v) && qd_atoi(v) >= 3;
    c->s->have_pers = 0;
    c->s->have_ps_events = 0;
    /* cg_main.c CG_Init clears cg: no announcement waits from the level before */
    c->s->sound_in = c->s->sound_out = 0;
    c->s->sound_time = 0;
    memset(c->s->sound_buffer, 0, sizeof c->s->sound_buffer);
    c->s->time_warned = c->s->frag_warned = 0; /* CG_Init */
    if (!qd_info_get(gs_get(gs, Q3_CS_SYSTEMINFO), "fs_game", v, sizeof v) || !v[0])
        qd_info_get(si, "fs_game", v, sizeof v);
    cl_set_gamedir(c->cl, v[0] ? v : "baseq3");
    c->s->mp_fs_game = !strcmp(v, "missionpack");
    c->s->unlagged_ms = 0; /* (until CS_SYSTEMINFO says) */
    c->s->plum_z = 0;      /* (cgame's statics start anew with its module) */
    /* CG_Init: no match clock and baseq3's numbering until this gamestate's
     * CS_LEVEL_START_TIME and CS_GAME_VERSION say (a gamestate may send neither) */
    c->s->level_start = 0;
    c->s->have_level_start = 0;
    c->s->mp_version = 0;
    q3_warmup_cs(c->cl, c->s, gs_get(gs, Q3_CS_WARMUP), 0); /* CG_SetConfigValues */
    for (int i = 0; i < Q3_MAX_CLIENTS; i++)
        cl_set_player_name(c->cl, i, "");
    for (int i = 0; i < Q3_MAX_CONFIGSTRINGS; i++)
        if (gs->ofs[i])
            apply_cs(c, i, gs_get(gs, i));
    for (int i = 1; i < NUM_ITEM_MODELS; i++) {
        cl_set_model(c->cl, Q3_ITEM_MODELS + i, item_models[i]);
        /* cg_weapons.c CG_RegisterWeapon: a weapon's flash, barrel and hand models are its
         * world model with "_flash", "_barrel" and "_hand" before the extension; any may be
         * missing (a weapon without a hand model takes the shotgun's) */
        size_t n = item_models[i] ? strlen(item_models[i]) : 0;
        if (n > 4 && n < CL_NAME_LEN - 8 && !strncmp(item_models[i], "models/weapons2/", 16) &&
            !strcmp(item_models[i] + n - 4, ".md3")) {
            static const struct {
                int slots;
                const char *part;
            } parts[] = {{CL_FLASH_SLOTS, "flash"}, {CL_HAND_SLOTS, "hand"},
                         {CL_BARREL_SLOTS, "barrel"}};
            for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
                char name[CL_NAME_LEN];
                snprintf(name, sizeof name, "%.*s_%s.md3", (int)(n - 4), item_models[i],
                         parts[k].part);
                cl_set_model(c->cl, Q3_ITEM_MODELS + i + parts[k].slots, name);
            }
        }
    }
    cl_set_model(c->cl, CL_HAND_FALLBACK, "models/weapons2/shotgun/shotgun_hand.md3");
    /* cg_main.c CG_RegisterGraphics: the impacts' models (ringFlashModel, bulletFlashModel) */
    cl_set_model(c->cl, CL_Q3_IMPACT_MODELS, "models/weaphits/ring02.md3");
    cl_set_model(c->cl, CL_Q3_IMPACT_MODELS + 1, "models/weaphits/bullet.md3");
    /* lightningExplosionModel: the lightning gun's beam's end */
    cl_set_model(c->cl, CL_Q3_IMPACT_MODELS + 2, "models/weaphits/crackle.md3");
    /* the gibs (cgs.media.gibAbdomen ...) */
    static const char *const gibs[CL_Q3_GIBS] = {"skull", "brain", "abdomen", "arm", "chest",
                                                 "fist", "foot", "forearm", "intestine", "leg"};
    for (int i = 0; i < CL_Q3_GIBS; i++) {
        char name[CL_NAME_LEN];
        snprintf(name, sizeof name, "models/gibs/%s.md3", gibs[i]);
        cl_set_model(c->cl, CL_Q3_GIB_MODELS + i, name);
    }
    /* machinegunBrassModel, shotgunBrassModel */
    cl_set_model(c->cl, CL_Q3_BRASS_MODELS, "models/weapons2/shells/m_shell.md3");
    cl_set_model(c->cl, CL_Q3_BRASS_MODELS + 1, "models/weapons2/shells/s_shell.md3");
    for (int i = 0; i < 4; i++) {
        char name[CL_NAME_LEN];
        snprintf(name, sizeof name, "models/powerups/health/%s_sphere.md3", item_spheres[i]);
        cl_set_model(c->cl, CL_Q3_ITEM_SPHERES + i, name);
    }
    for (int i = 0; i < 6; i++) {
        char name[CL_NAME_LEN];
        snprintf(name, sizeof name, "models/powerups/instant/%s_ring.md3", item_rings[i]);
        cl_set_model(c->cl, CL_Q3_ITEM_RINGS + i, name);
    }
    cl_set_model(c->cl, CL_Q3_TELEPORT_MODEL, "models/misc/telep.md3");
    static const char *const bases[3] = {"red", "blue", "ntrl"};
    for (int i = 0; i < 3; i++) {
        char name[CL_NAME_LEN];
        snprintf(name, sizeof name, "models/mapobjects/flagbase/%s_base.md3", bases[i]);
        cl_set_model(c->cl, Q3_FLAGBASE_MODELS + i, name);
    }
    for (int i = 1; i < NUM_MISSILE_MODELS; i++)
        if (missile_models[i])
            cl_set_model(c->cl, Q3_MISSILE_MODELS + i, missile_models[i]);
}

/* ---- svc_gamestate [DM68 10 Parse_GameState] ---- */

static qd_err parse_gamestate(ctx *c)
{
    q3_state *s = c->s;
    gs_scratch *gs = malloc(sizeof *gs);
    if (!gs)
        return fail(c, QD_ERR_NOMEM, c->msg_ofs, "no memory for a gamestate");
    memset(gs->ofs, 0, sizeof gs->ofs);
    gs->used = 0;
    gs->baselines_hw = 0;
    c->gs = gs;
    qd_err e = QD_OK;
    /* what check_protocol switches, put back if the gamestate breaks */
    const int was_protocol = s->protocol;
    const uint8_t was_cs_dm3 = s->cs_dm3;
    const q3_proto *was_p = c->p;
    const int32_t cmd_seq = q3_read_bits(&c->b, 32);
    int configstrings = 0, baselines = 0;
    for (;;) {
        uint64_t ofs = here(c);
        int cmd = q3_read_bits(&c->b, 8);
        if (q3_bits_err(&c->b)) {
            e = damaged(c, "svc_gamestate");
            goto out;
        }
        if (cmd == Q3_SVC_EOF || (s->old && cmd == Q3_SVC_BAD))
            break; /* [Q3OLD] svc_bad ends it too */
        if (cmd == Q3_SVC_CONFIGSTRING) {
            int index = q3_read_bits(&c->b, 16);
            size_t n = read_string(c, c->str, sizeof c->str);
            if (q3_bits_err(&c->b)) {
                e = damaged(c, "a configstring");
                goto out;
            }
            if (index < 0 || index >= Q3_MAX_CONFIGSTRINGS) {
                e = fail(c, QD_ERR_BAD_DATA, ofs, "configstring index %d out of range", index);
                goto out;
            }
            if (index == Q3_CS_SERVERINFO && (e = check_protocol(c, c->str, ofs)))
                goto out;
            if (s->cs_dm3 && (index = q3_dm3_cs(index)) < 0)
                continue; /* a slot 68 has no number for */
            if (n + 1 > sizeof gs->data - gs->used) {
                e = fail(c, QD_ERR_LIMIT, ofs, "gamestate configstrings over %zu bytes",
                         sizeof gs->data);
                goto out;
            }
            memcpy(gs->data + gs->used, c->str, n + 1);
            gs->ofs[index] = gs->used + 1;
            gs->used += (uint32_t)n + 1;
            configstrings++;
            if (c->trace) {
                c->msg_ofs = ofs;
                TRACE(c, "svc_configstring", "index=%d \"%s\"", index, esc(c, 0, c->str));
            }
        } else if (cmd == Q3_SVC_BASELINE) {
            int num = q3_read_bits(&c->b, Q3_GENTITYNUM_BITS);
            q3_ent tmp;
            int r = q3_read_delta_entity_by(&c->b, c->p->es, NULL, &tmp, num);
            if (q3_bits_err(&c->b)) {
                e = damaged(c, "a baseline");
                goto out;
            }
            if (r < 0) {
                e = fail(c, QD_ERR_BAD_DATA, ofs, "baseline %d: field count over %d", num,
                         c->p->es->n);
                goto out;
            }
            if (r == 0) {
                if (num >= gs->baselines_hw) { /* (entries between: cleared) */
                    memset(gs->baselines + gs->baselines_hw, 0,
                           (size_t)(num - gs->baselines_hw) * sizeof gs->baselines[0]);
                    gs->baselines_hw = (uint16_t)(num + 1);
                }
                gs->baselines[num] = tmp;
            }
            baselines++;
            if (c->trace) {
                c->msg_ofs = ofs;
                TRACE(c, "svc_baseline", "entity=%d model=%d", num,
                      (int)tmp.f[Q3_ES_MODELINDEX]);
            }
        } else {
            e = fail(c, QD_ERR_BAD_DATA, ofs, "command %d inside svc_gamestate", cmd);
            goto out;
        }
    }
    int32_t client_num = 0; /* [Q3OLD] not sent: the playerState's clientNum says */
    if (!s->old) {
        client_num = q3_read_bits(&c->b, 32);
        (void)q3_read_bits(&c->b, 32); /* checksumFeed */
    }
    if (q3_bits_err(&c->b)) {
        e = damaged(c, "svc_gamestate");
        goto out;
    }
    if (!gs->ofs[Q3_CS_SERVERINFO]) {
        e = fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_gamestate without a serverinfo");
        goto out;
    }
    s->client_num = client_num >= 0 && client_num < Q3_MAX_CLIENTS ? client_num : 0;
    s->cmd_seq = cmd_seq;
    memset(s->baselines, 0, (size_t)s->baselines_hw * sizeof s->baselines[0]);
    memcpy(s->baselines, gs->baselines, (size_t)gs->baselines_hw * sizeof s->baselines[0]);
    s->baselines_hw = gs->baselines_hw;
    /* A new level: the ring and the pool start over. */
    dd_reset(STORE(s));
    memset(s->ps_ring, 0, sizeof s->ps_ring);
    memset(s->ev_present, 0, sizeof s->ev_present);
    memset(s->ev_last, 0, sizeof s->ev_last);
    memset(s->ev_left_ms, 0, sizeof s->ev_left_ms);
    memset(s->tele_shown, 0, sizeof s->tele_shown);
    s->have_level = 1;
    s->rebase = s->have_time0;
    s->bcs_index = -1;
    begin_level(c);
    {
        char map[64];
        qd_info_get(gs_get(gs, Q3_CS_SERVERINFO), "mapname", map, sizeof map);
        TRACE(c, "svc_gamestate", "protocol=%d map=%s client=%d configstrings=%d baselines=%d",
              s->protocol, esc(c, 0, map), s->client_num, configstrings, baselines);
    }
out:
    if (e) { /* the level before goes on with its own tables */
        s->protocol = was_protocol;
        s->cs_dm3 = was_cs_dm3;
        c->p = was_p;
    }
    c->gs = NULL;
    free(gs);
    return e;
}

/* ---- svc_serverCommand ---- */

static void cmd_scores(ctx *c, const char *p)
{
    /* baseq3 1.32 g_cmds.c DeathmatchScoreboardMessage: "scores n red blue" then k
     * numbers per client (q3_proto score_fields), the first three clientNum, score and ping.
     * Other layouts are skipped. */
    char tok[64];
    const int k = c->p->score_fields;
    int v[3 + 18 * Q3_MAX_CLIENTS], n = 0;
    while (n < (int)(sizeof v / sizeof v[0]) && next_token(&p, tok, sizeof tok))
        v[n++] = qd_atoi(tok);
    if (next_token(&p, tok, sizeof tok) || n < 3 || v[0] < 0 || v[0] > Q3_MAX_CLIENTS ||
        k < 3 || k > 18 || n != 3 + k * v[0])
        return;
    for (int i = 0; i < v[0]; i++) {
        int slot = v[3 + k * i];
        if (slot >= 0 && slot < Q3_MAX_CLIENTS) {
            cl_set_player_frags(c->cl, slot, v[3 + k * i + 1]);
            cl_set_player_ping(c->cl, slot, v[3 + k * i + 2]);
        }
    }
}

/* A chat line or centre print as an event. The sender of a chat line is the player whose
 * name starts it (g_cmds.c G_Say: "name^7: text", tchat "(name^7) (location): text"),
 * else unknown. */
static void text_event(ctx *c, int kind, int team, const char *text)
{
    cl_event ce;
    memset(&ce, 0, sizeof ce);
    ce.kind = (uint8_t)kind;
    ce.flags = team ? CL_EVF_TEAM : 0;
    ce.actor = ce.target = -1;
    snprintf(ce.text, sizeof ce.text, "%s", text);
    if (kind == CL_EV_CHAT) {
        const char *p = text + (team && text[0] == '(');
        size_t best = 0;
        for (int i = 0; i < Q3_MAX_CLIENTS; i++) {
            const char *name = c->cl->players[i].name;
            size_t n = strlen(name), k = n;
            if (!(n > best && c->cl->players[i].active && !strncmp(p, name, n)))
                continue; /* (before the walk below: past a shorter text it read beyond the
                           * text's end; a review) */
            while (p[k] == '^' && p[k + 1]) /* the colour reset G_Say appends */
                k += 2;
            if (p[k] == ':' || p[k] == ')') {
                best = n;
                ce.actor = (int8_t)i;
            }
        }
    }
    cl_event_add(c->cl, &ce);
}

static qd_err run_command(ctx *c);
static qd_err run_pending(ctx *c);

/* A reliable text command [DM68 10 Parse_ServerCommand]: each is resent until acknowledged,
 * so one already seen is skipped. A new one is run when the cgame would run it:
 * cg_snapshot.c CG_TransitionSnapshot executes the commands up to the next snapshot's
 * serverCommandSequence (CG_ExecuteNewServerCommands, "before transitioning entities"), so
 * a command takes effect at the time of the snapshot of its own message, not of the one
 * before; a message without a new frame runs them at its end (run_pending). */
static qd_err parse_servercommand(ctx *c)
{
    q3_state *s = c->s;
    int32_t seq = q3_read_bits(&c->b, 32);
    const q3_bits at = c->b;
    read_string(c, c->str, Q3_MAX_STRING_CHARS);
    if (q3_bits_err(&c->b))
        return damaged(c, "svc_serverCommand");
    if (seq <= s->cmd_seq) {
        TRACE(c, "svc_serverCommand", "seq=%d (seen) \"%s\"", seq, esc(c, 0, c->str));
        return QD_OK;
    }
    /* A server resends at most MAX_RELIABLE_COMMANDS (64) unacknowledged commands
     * [DM68 10]; a sequence further ahead is damage (ioquake3's cgame would stop: "a
     * reliable command was cycled out"), and taking it would make every later command
     * "seen" until the next gamestate (a review: one flipped bit muted a level). After
     * skipped bytes (resynced) any jump is taken. */
    if (s->have_level && !s->resynced && (int64_t)seq - s->cmd_seq > Q3_MAX_RELIABLE_COMMANDS)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs,
                    "svc_serverCommand: sequence %d jumps from %d, over %d ahead", seq,
                    s->cmd_seq, Q3_MAX_RELIABLE_COMMANDS);
    s->cmd_seq = seq;
    TRACE(c, "svc_serverCommand", "seq=%d \"%s\"", seq, esc(c, 0, c->str));
    if (!s->have_level)
        return QD_OK;
    if (c->npending == Q3_PENDING_CMDS) {
        /* more than a server holds unacknowledged (MAX_RELIABLE_COMMANDS): those held run
         * now, before this one, so the commands keep their order (a review: the 65th ran
         * first and the older ones then undid it) */
        qd_err e = run_pending(c);
        if (e)
            return e;
    }
    c->pending[c->npending++] = at;
    return QD_OK;
}

/* The message's held commands, in order, now (re-read from where each string starts). */
static qd_err run_pending(ctx *c)
{
    const q3_bits here_b = c->b;
    qd_err e = QD_OK;
    for (int i = 0; i < c->npending && !e; i++) {
        c->b = c->pending[i];
        read_string(c, c->str, Q3_MAX_STRING_CHARS);
        e = run_command(c);
    }
    c->npending = 0;
    c->b = here_b;
    return e;
}

/* What a server command (in c->str) does to the client. */
static qd_err run_command(ctx *c)
{
    q3_state *s = c->s;
    const char *p = c->str;
    char cmd[32], arg[Q3_MAX_STRING_CHARS];
    if (!next_token(&p, cmd, sizeof cmd))
        return QD_OK;
    if (!strcmp(cmd, "print") || !strcmp(cmd, "cp") || !strcmp(cmd, "chat") ||
        !strcmp(cmd, "tchat")) {
        next_token(&p, arg, sizeof arg);
        /* chat lines wrap the name in \x19 (g_cmds.c EC), which cgame removes
         * (cg_servercmds.c CG_RemoveChatEscapeChar) */
        size_t n = 0;
        for (const char *q = arg; *q; q++)
            if (*q != '\x19')
                arg[n++] = *q;
        arg[n] = 0;
        while (n && arg[n - 1] == '\n')
            arg[--n] = 0;
        cl_msg_kind k = cmd[0] == 'p' ? CL_MSG_PRINT : cmd[0] == 'c' && cmd[1] == 'p'
                                                           ? CL_MSG_CENTER
                                                           : CL_MSG_CHAT;
        cl_message_add(c->cl, k, arg);
        if (k != CL_MSG_PRINT)
            text_event(c, k == CL_MSG_CENTER ? CL_EV_CENTER : CL_EV_CHAT, cmd[0] == 't', arg);
    } else if (!strcmp(cmd, "map_restart")) {
        s->time_warned = s->frag_warned = 0; /* cg_servercmds.c CG_MapRestart */
        q3_map_restart(c->cl, s);
    } else if (!strcmp(cmd, "cs") || !strcmp(cmd, "bcs0") || !strcmp(cmd, "bcs1") ||
               !strcmp(cmd, "bcs2")) {
        /* cs <index> <string>; a long one comes as bcs0 (start), bcs1 (more), bcs2 (end)
         * (cl_parse.c CL_GetServerCommand). */
        char num[16];
        next_token(&p, num, sizeof num);
        next_token(&p, arg, sizeof arg);
        int index = qd_atoi(num);
        if (index < 0 || index >= Q3_MAX_CONFIGSTRINGS)
            return QD_OK;
        if (s->cs_dm3 && (index = q3_dm3_cs(index)) < 0)
            return QD_OK;
        if (cmd[0] == 'c') {
            apply_cs(c, index, arg);
            if (index == Q3_CS_WARMUP) /* cg_servercmds.c CG_ConfigStringModified */
                q3_warmup_cs(c->cl, s, arg, 1);
            return QD_OK;
        }
        if (cmd[3] == '0') {
            s->bcs_index = index;
            s->bcs_len = 0;
            s->bcs[0] = 0;
        }
        if (s->bcs_index != index)
            return QD_OK;
        size_t n = strlen(arg);
        if (n > sizeof s->bcs - 1 - s->bcs_len)
            n = sizeof s->bcs - 1 - s->bcs_len;
        memcpy(s->bcs + s->bcs_len, arg, n);
        s->bcs_len += (uint32_t)n;
        s->bcs[s->bcs_len] = 0;
        if (cmd[3] == '2') {
            apply_cs(c, index, s->bcs);
            s->bcs_index = -1;
        }
    } else if (!strcmp(cmd, "scores")) {
        cmd_scores(c, p);
    }
    return QD_OK;
}

/* ---- svc_snapshot [DM68 10 Parse_Snapshot, Parse_PacketEntities] ---- */

/* An entity's trajectory (pos or apos) with its time on the demo clock: trTime minus the
 * server time of demo time 0. */
/* The trajectory type cgame evaluates: a client's body (number below MAX_CLIENTS) is moved
 * by TR_INTERPOLATE whatever it was sent with (cg_ents.c CG_CalcEntityLerpPositions with
 * cg_smoothClients 0, the default: its trBase lerped between snapshots), not extrapolated
 * along the TR_LINEAR_STOP g_smoothClients sends. */
static int pos_type(const q3_ent *e, int apos)
{
    if (!apos && e->number < Q3_MAX_CLIENTS)
        return Q3_TR_INTERPOLATE;
    return e->f[apos ? Q3_ES_APOS_TRTYPE : Q3_ES_POS_TRTYPE];
}

/* (the fields named as constants, each a load where indices from a table cost two: a
 * body's pos and apos every frame) */
static inline void traj_of(const ctx *c, int type, const int32_t *f, int time, int duration,
                           int base0, int base1, int base2, int delta0, int delta1, int delta2,
                           cl_traj *tr)
{
    memset(tr, 0, sizeof *tr);
    tr->type = (uint8_t)(type >= Q3_TR_STATIONARY && type <= Q3_TR_GRAVITY ? type
                                                                          : Q3_TR_STATIONARY);
    int64_t t0 = (int64_t)f[time] - c->s->time0;
    tr->t0_ms = (int32_t)(t0 < -2000000000 ? -2000000000 : t0 > 2000000000 ? 2000000000 : t0);
    tr->duration_ms = f[duration];
    tr->base[0] = q3_f(f[base0]);
    tr->base[1] = q3_f(f[base1]);
    tr->base[2] = q3_f(f[base2]);
    tr->delta[0] = q3_f(f[delta0]);
    tr->delta[1] = q3_f(f[delta1]);
    tr->delta[2] = q3_f(f[delta2]);
}

static void get_traj(const ctx *c, const q3_ent *e, int apos, cl_traj *tr)
{
    if (apos)
        traj_of(c, pos_type(e, 1), e->f, Q3_ES_APOS_TRTIME, Q3_ES_APOS_TRDURATION,
                Q3_ES_APOS_TRBASE0, Q3_ES_APOS_TRBASE1, Q3_ES_APOS_TRBASE2, Q3_ES_APOS_TRDELTA0,
                Q3_ES_APOS_TRDELTA1, Q3_ES_APOS_TRDELTA2, tr);
    else
        traj_of(c, pos_type(e, 0), e->f, Q3_ES_POS_TRTIME, Q3_ES_POS_TRDURATION,
                Q3_ES_POS_TRBASE0, Q3_ES_POS_TRBASE1, Q3_ES_POS_TRBASE2, Q3_ES_POS_TRDELTA0,
                Q3_ES_POS_TRDELTA1, Q3_ES_POS_TRDELTA2, tr);
}

/* eFlags and powerups by look (cg_players.c CG_PlayerPowerups, CG_PlayerFlag; the muzzle
 * of a firing lightning gun, cg_weapons.c) */
static const demo_fx_bit q3_eflags_fx[] = {{Q3_EF_FIRING, CL_FX_MUZZLE}};
#define Q3_FX_OF(table, bits) demo_fx_map((table), sizeof(table) / sizeof((table)[0]), (bits))

/* entityState.powerups bit of powerup_t pw (0: the protocol does not say which it is) */
static uint32_t pw_bit(int pw) { return pw > 0 && pw < 32 ? 1u << pw : 0; }

/* The item (bg_itemlist index, so model Q3_ITEM_MODELS + it) whose world model is weapon
 * wp's: the held weapon a body shows (model2). 0 none. */
static const uint8_t weapon_item[] = {0, 8, 10, 9, 11, 12, 13, 14, 15, 16, 17};
#define NUM_WEAPON_ITEMS ((int)sizeof weapon_item)

static uint16_t weapon_model(int wp)
{
    return (uint16_t)(wp > 0 && wp < NUM_WEAPON_ITEMS ? Q3_ITEM_MODELS + weapon_item[wp] : 0);
}

/* A body's look from its client's fields: legs (frame) and torso (frame2) animations with
 * their toggle bit kept (a restarted animation changes the value; the animation is
 * value & ~Q3_ANIM_TOGGLEBIT), the held weapon's model, the player slot, fx. */
/* entityState angles2[YAW] as a movement direction: 0..7, anything else 0. */
static int move_dir(float f)
{
    return f >= 0 && f <= 7 ? (int)f : 0;
}

static void body_look(const q3_proto *p, cl_entstate *st, int cn, int legs, int torso, int wp,
                      uint32_t eflags, uint32_t powerups, int dir)
{
    /* the movement direction (bg_pmove.c PM_SetMovementDir: 0..7) that turns the legs; a
     * dead body's is 0 (cg_players.c CG_PlayerAngles) */
    st->skin = (uint16_t)(dir >= 0 && dir <= 7 && !(eflags & Q3_EF_DEAD) ? dir : 0);
    st->frame = (uint16_t)(legs & 0xff);
    st->frame2 = (uint16_t)(torso & 0xff);
    st->model2 = weapon_model(wp);
    st->player = (uint8_t)(cn + 1);
    st->fx = Q3_FX_OF(q3_eflags_fx, eflags);
    if (powerups) { /* (most bodies have none: the table of this protocol's bits unmade) */
        const demo_fx_bit powerups_fx[] = {{pw_bit(p->pw_quad), CL_FX_GLOW_BLUE},
                                           {pw_bit(p->pw_redflag), CL_FX_FLAG_RED},
                                           {pw_bit(p->pw_blueflag), CL_FX_FLAG_BLUE}};
        st->fx |= Q3_FX_OF(powerups_fx, powerups);
    }
}

/* e at time at; a body's apos trajectory and its angles at that time may come made
 * (entity_swing's: known_apos, known_ang), else NULL. */
/* The loop a body or missile of weapon wp plays (cg_weapons.c CG_RegisterWeapon's
 * readySound, firingSound and missileSound): kind 0 a body not firing, 1 firing
 * (EF_FIRING), 2 a missile. cgame adds it on the entity's one loop, over its loopSound
 * (CG_AddPlayerWeapon for a body drawn as a model, CG_Missile). 0 none. */
static uint16_t weapon_loop(ctx *c, int wp, int kind)
{
    static const struct {
        int wp;
        const char *name[3];
    } loops[] = {
        {Q3_WP_GAUNTLET, {NULL, "sound/weapons/melee/fstrun.wav", NULL}},
        {Q3_WP_ROCKET_LAUNCHER, {NULL, NULL, "sound/weapons/rocket/rockfly.wav"}},
        {Q3_WP_LIGHTNING,
         {"sound/weapons/melee/fsthum.wav", "sound/weapons/lightning/lg_hum.wav", NULL}},
        {Q3_WP_RAILGUN,
         {"sound/weapons/railgun/rg_hum.wav", "sound/weapons/railgun/rg_hum.wav", NULL}},
        {Q3_WP_PLASMAGUN, {NULL, NULL, "sound/weapons/plasma/lasfly.wav"}},
        {Q3_WP_BFG,
         {"sound/weapons/bfg/bfg_hum.wav", "sound/weapons/bfg/bfg_hum.wav",
          "sound/weapons/rocket/rockfly.wav"}},
    };
    q3_state *s = c->s;
    if (wp <= 0 || wp >= 16 || kind < 0 || kind > 2)
        return 0;
    if (s->loop_level != c->cl->level_count + 1u) { /* (a new level: its slots anew) */
        memset(s->loop_slot, 0, sizeof s->loop_slot);
        s->loop_level = c->cl->level_count + 1u;
    }
    if (s->loop_slot[kind][wp])
        return s->loop_slot[kind][wp] == 0xffff ? 0 : s->loop_slot[kind][wp];
    const char *name = NULL;
    for (size_t i = 0; i < sizeof loops / sizeof loops[0]; i++)
        if (loops[i].wp == wp)
            name = loops[i].name[kind];
    int slot = name ? cl_sound_intern(c->cl, Q3_MAX_SOUNDS, name) : 0;
    s->loop_slot[kind][wp] = slot ? (uint16_t)slot : 0xffff;
    return (uint16_t)slot;
}

/* cg_weapons.c CG_RocketTrail: a flying rocket leaves a puff of smoke every 50 ms, each
 * fading over wiTrailTime (2 s), and the puffs stay when the rocket is gone (it explodes,
 * its entity turned ET_GENERAL, or it leaves the snapshot); a grenade does too
 * (CG_GrenadeTrail: wiTrailTime 700 ms) along its falling path, which each bounce starts
 * anew. The client keeps no entity then, nor the path before a bounce, so cl entity num's
 * flight, when it was a rocket's or grenade's, is logged as it ends or bounces (next: its
 * new trajectory, the same for a flight that goes on; NULL none): CL_FXK_TRAIL, origin
 * trBase, end trDelta (units a second), radius the seconds from trTime to now, style the
 * weapon, entity num (r_part.c r_q3_smoke lays the puffs). */
static void flight_ended(ctx *c, int num, const cl_traj *next)
{
    if (num <= 0 || num >= CL_MOTION_ENTITIES || !c->cl->motion_slot[num])
        return;
    const cl_entity *ce = &c->cl->entities[num];
    const cl_traj *tr = &c->cl->motion[c->cl->motion_slot[num] - 1].pos[1];
    double flown = c->cl->time - tr->t0_ms / 1000.0;
    int rocket = (ce->cur.fx & CL_FX_ROCKET) && tr->type == CL_TR_LINEAR,
        grenade = (ce->cur.fx & CL_FX_GRENADE) && tr->type == CL_TR_GRAVITY;
    if (!(rocket || grenade) || !(ce->cur.flags & CL_EF_TRAJ) || !(flown > 0 && flown < 60))
        return;
    if (next && next->type == tr->type && next->t0_ms == tr->t0_ms &&
        !memcmp(next->base, tr->base, sizeof tr->base) &&
        !memcmp(next->delta, tr->delta, sizeof tr->delta))
        return; /* the same flight goes on */
    cl_fxev fx;
    memset(&fx, 0, sizeof fx);
    fx.kind = CL_FXK_TRAIL;
    fx.style = rocket ? Q3_WP_ROCKET_LAUNCHER : Q3_WP_GRENADE_LAUNCHER;
    fx.life = rocket ? 2.0f : 0.7f;
    fx.entity = (int16_t)num; /* (whose: a grenade's bounces are one flight) */
    fx.radius = (float)flown;
    memcpy(fx.origin, tr->base, sizeof fx.origin);
    memcpy(fx.end, tr->delta, sizeof fx.end);
    cl_fx_add(c->cl, &fx);
}

/* How far ahead of the clock an unlagged cgame draws entity e (OpenArena's cg_ents.c
 * CG_CalcEntityLerpPositions, "unlagged - projectile nudge"; facts only): a missile but the
 * grappling hook by one server frame (1000 / sv_fps ms) when the recorder fired it
 * (otherEntityNum is cg.clientNum, the gamestate's), and by cg_projectileNudge (0 by
 * default) plus that when another did, but for another's grenade; nothing else. The game
 * then stops it at what its trace meets from where it is at the clock (the renderer's
 * r_entity_at, at the map's solid). */
static uint16_t missile_lead(const ctx *c, const q3_ent *e)
{
    int wp = e->f[Q3_ES_WEAPON];
    if (e->f[Q3_ES_ETYPE] != Q3_ET_MISSILE || wp == Q3_WP_GRAPPLING_HOOK)
        return 0;
    if (e->f[Q3_ES_OTHERENTITYNUM] == c->s->client_num || wp != Q3_WP_GRENADE_LAUNCHER)
        return c->s->unlagged_ms;
    return 0;
}

static void emit_entity(ctx *c, const q3_ent *e, int teleport, double at,
                        const cl_traj *known_apos, const float known_ang[3])
{
    cl_entstate st;
    cl_traj pos, own;
    const cl_traj *apos = known_apos ? known_apos : &own;
    memset(&st, 0, sizeof st);
    get_traj(c, e, 0, &pos);
    /* BG_EvaluateTrajectory at the snapshot's time; the renderer evaluates them again at its
     * own time (cl_entity_at), as cgame draws a missile between snapshots */
    cl_traj_eval(&pos, at, st.origin);
    if (known_apos) {
        memcpy(st.angles, known_ang, sizeof st.angles);
    } else {
        get_traj(c, e, 1, &own);
        cl_traj_eval(&own, at, st.angles);
        own.lead_ms = missile_lead(c, e);
    }
    pos.lead_ms = missile_lead(c, e);
    /* modelindex names a CS_MODELS slot for ET_GENERAL and ET_MOVER (cg_ents.c CG_General,
     * CG_Mover) and a bg_itemlist entry for ET_ITEM (CG_Item). Missiles get their model
     * from the weapon (CG_Missile), players from their client's configstring (CG_Player). */
    int type = e->f[Q3_ES_ETYPE], mi = e->f[Q3_ES_MODELINDEX] & 0xff;
    int wp = e->f[Q3_ES_WEAPON], cn = e->f[Q3_ES_CLIENTNUM];
    if (type == Q3_ET_MOVER && (uint32_t)e->f[Q3_ES_SOLID] == Q3_SOLID_BMODEL) {
        /* cg_ents.c CG_Mover: a brush mover's modelindex is the map's inline model
         * (SV_SetBrushModel: the number after '*'), not a CS_MODELS slot */
        st.model = (uint16_t)mi;
        st.flags |= CL_EF_BMODEL;
    } else if (type == Q3_ET_GENERAL || type == Q3_ET_MOVER) {
        st.model = (uint16_t)mi;
    }
    else if (type == Q3_ET_ITEM && (mi = item_of(c->p, mi)) > 0 &&
             !(e->f[Q3_ES_EFLAGS] & Q3_EF_NODRAW)) {
        st.model = (uint16_t)(Q3_ITEM_MODELS + mi);
        /* cg_ents.c CG_Item: a health item or powerup draws its second model too */
        if (mi >= Q3_ITEM_HEALTH_FIRST && mi < Q3_ITEM_HEALTH_FIRST + 4)
            st.model2 = (uint16_t)(CL_Q3_ITEM_SPHERES + mi - Q3_ITEM_HEALTH_FIRST);
        else if (mi >= Q3_ITEM_POWERUP_FIRST && mi < Q3_ITEM_POWERUP_FIRST + 6)
            st.model2 = (uint16_t)(CL_Q3_ITEM_RINGS + mi - Q3_ITEM_POWERUP_FIRST);
    }
    else if (type == Q3_ET_MISSILE && wp > 0 && wp < NUM_MISSILE_MODELS && missile_models[wp])
        st.model = (uint16_t)(Q3_MISSILE_MODELS + wp);
    else if (type == Q3_ET_TEAM && (c->s->gametype == 4 || c->s->gametype == 5 ||
                                    c->s->gametype == 9)) {
        /* cg_ents.c CG_TeamBase in a game of the team flags (GT_CTF 4; OpenArena's
         * CG_UsesTeamFlags: also one-flag CTF 5 and CTF elimination 9): the base of the
         * team of modelindex (TEAM_RED 1, TEAM_BLUE 2, else the neutral one) */
        st.model = (uint16_t)(Q3_FLAGBASE_MODELS + (mi == 1 ? 0 : mi == 2 ? 1 : 2));
        /* (turned by its entityState.angles: AnglesToAxis(cent->currentState.angles)) */
        st.angles[0] = q3_f(e->f[Q3_ES_ANGLES0]);
        st.angles[1] = q3_f(e->f[Q3_ES_ANGLES1]);
        st.angles[2] = q3_f(e->f[Q3_ES_ANGLES2]);
        for (int j = 0; j < 3; j++)
            st.angles[j] = isfinite(st.angles[j]) && fabsf(st.angles[j]) < 1e6f ? st.angles[j] : 0;
    }
    else if (type == Q3_ET_PLAYER && cn >= 0 && cn < Q3_MAX_CLIENTS)
        st.model = player_model(c, cn);
    st.frame = (uint16_t)e->f[Q3_ES_FRAME];
    if (type == Q3_ET_ITEM)
        st.fx = CL_FX_ROTATE; /* cg_ents.c CG_Item spins every item */
    else if (type == Q3_ET_MISSILE)
        st.fx = wp == Q3_WP_ROCKET_LAUNCHER    ? CL_FX_ROCKET
                : wp == Q3_WP_GRENADE_LAUNCHER ? CL_FX_GRENADE
                : wp == Q3_WP_PLASMAGUN        ? CL_FX_PLASMA
                                               : 0;
    if (type == Q3_ET_PLAYER) {
        if (cn >= 0 && cn < Q3_MAX_CLIENTS)
            body_look(c->p, &st, cn, e->f[Q3_ES_LEGSANIM], e->f[Q3_ES_TORSOANIM], wp,
                      (uint32_t)e->f[Q3_ES_EFLAGS], (uint32_t)e->f[Q3_ES_POWERUPS],
                      move_dir(q3_f(e->f[Q3_ES_ANGLES2_1])));
        st.flags |= CL_EF_PLAYER | (e->f[Q3_ES_EFLAGS] & Q3_EF_DEAD ? CL_EF_DEAD : 0);
    }
    if (teleport)
        st.flags |= CL_EF_TELEPORT;
    if (type == Q3_ET_PORTAL) {
        /* cg_ents.c CG_Portal: the camera at origin2, looking along eventParm's direction,
         * rolled by clientNum / 256 of a turn, turning when powerups is set (at frame
         * degrees a second, or swinging) */
        cl_portal p;
        memset(&p, 0, sizeof p);
        p.entity = e->number + 1;
        p.camera[0] = q3_f(e->f[Q3_ES_ORIGIN2_0]);
        p.camera[1] = q3_f(e->f[Q3_ES_ORIGIN2_1]);
        p.camera[2] = q3_f(e->f[Q3_ES_ORIGIN2_2]);
        qd_byte_to_dir(e->f[Q3_ES_EVENTPARM], p.dir);
        p.roll = (float)(int)((double)(cn & 255) / 256.0 * 360);
        p.swing = (uint16_t)e->f[Q3_ES_POWERUPS];
        p.speed = (uint16_t)e->f[Q3_ES_FRAME];
        cl_portal_set(c->cl, &p);
    } else if (c->cl->num_portals) {
        cl_portal_drop(c->cl, e->number + 1); /* (a portal's number taken by another) */
    }
    /* a rocket or grenade shown in the snapshot before that is one no more, or a grenade
     * that bounced: the smoke of its flight so far stays */
    if (c->s->ev_present[e->number >> 3] >> (e->number & 7) & 1)
        flight_ended(c, e->number + 1, st.fx & (CL_FX_ROCKET | CL_FX_GRENADE) ? &pos : NULL);
    cl_entity_update_traj(c->cl, e->number + 1, &st, &pos, apos);
    /* cg_ents.c CG_EntityEffects: an entity with a loopSound plays it where it is; a body's
     * weapon hum and a missile's flight take the loop over (weapon_loop) */
    int loop = e->f[Q3_ES_LOOPSOUND];
    uint16_t over = type == Q3_ET_PLAYER
                        ? weapon_loop(c, wp, (e->f[Q3_ES_EFLAGS] & Q3_EF_FIRING) != 0)
                    : type == Q3_ET_MISSILE ? weapon_loop(c, wp, 2)
                                            : 0;
    cl_entity_set_loop(c->cl, e->number + 1,
                       over ? over : (uint16_t)(loop > 0 && loop < Q3_MAX_SOUNDS ? loop : 0));
}

/* The recorder's own body, which the playerState stands for (it is never in the entity
 * list), and its view. */
static int ps_client(const ctx *c, const q3_ps *ps)
{
    int cn = ps->f[Q3_PS_CLIENTNUM];
    return cn < 0 || cn >= Q3_MAX_CLIENTS ? c->s->client_num : cn;
}

/* weapon_t (bg_public.h) as cl_weapon, and the ammunition kind each uses */
static const uint8_t q3_weapon[] = {
    CL_WP_NONE, CL_WP_MELEE, CL_WP_MACHINEGUN, CL_WP_SHOTGUN, CL_WP_GRENADE_LAUNCHER,
    CL_WP_ROCKET_LAUNCHER, CL_WP_LIGHTNING, CL_WP_RAILGUN, CL_WP_PLASMA, CL_WP_BFG,
    CL_WP_GRAPPLE, CL_WP_NAILGUN, CL_WP_PROX, CL_WP_CHAINGUN};
static const uint8_t q3_weapon_ammo[] = {
    CL_AMMO_NONE, CL_AMMO_NONE, CL_AMMO_BULLETS, CL_AMMO_SHELLS, CL_AMMO_GRENADES,
    CL_AMMO_ROCKETS, CL_AMMO_OTHER, CL_AMMO_SLUGS, CL_AMMO_CELLS, CL_AMMO_OTHER,
    CL_AMMO_NONE, CL_AMMO_BULLETS, CL_AMMO_GRENADES, CL_AMMO_BULLETS};
#define Q3_NUM_WEAPONS ((int)sizeof q3_weapon)
/* powerup_t (bg_public.h) PW_QUAD 1 .. PW_NEUTRALFLAG 9 as cl_powerup */
static const int8_t q3_powerup[] = {-1, CL_PU_QUAD, CL_PU_SUIT, CL_PU_HASTE, CL_PU_INVIS,
                                    CL_PU_REGEN, CL_PU_FLIGHT, CL_PU_FLAG, CL_PU_FLAG,
                                    CL_PU_FLAG};

static int16_t clamp16(int32_t v) { return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v); }

/* An ammo count as the game reads it: the wire's 16 bits (read unsigned, as the DM68 document
 * does) are a signed short in 1.32's msg.c MSG_ReadShort, so the gauntlet's -1 (g_client.c
 * ClientSpawn) stays -1 and cg_draw.c CG_DrawStatusBar's "ammo > -1" hides its count. */
static int16_t ammo16(int32_t v)
{
    v &= 0xffff;
    return (int16_t)(v >= 0x8000 ? v - 0x10000 : v);
}

/* The playerState's named stats [DM68 6] (bg_public.h statIndex_t, persEnum_t): health,
 * armour, the held weapon and its ammunition, owned weapons, powerup ends (server ms ->
 * demo time; a flag is held until INT_MAX, "end unknown"), score, dead and spectator. */
static void ps_stats_make(const ctx *c, const q3_ps *ps, cl_stats *st);

static void ps_stats(const ctx *c, const q3_ps *ps, cl_stats *st)
{
    q3_state *s = c->s;
    q3_stats_key key;
    key.pm = ps->f[Q3_PS_PM_TYPE];
    key.weapon = ps->f[Q3_PS_WEAPON];
    key.score = ps->persistant[Q3_PERS_SCORE];
    key.team = ps->persistant[Q3_PERS_TEAM];
    key.time0 = s->time0;
    key.stat_armor = stat_armor(c);
    key.stat_weapons = stat_weapons(c);
    memcpy(key.stats, ps->stats, sizeof key.stats);
    memcpy(key.ammo, ps->ammo, sizeof key.ammo);
    memcpy(key.powerups, ps->powerups, sizeof key.powerups);
    if (s->stats_cached && !memcmp(&key, &s->stats_key, sizeof key)) {
        memcpy(st, &s->stats_made, sizeof *st); /* (padding too: the state's bytes) */
        return;
    }
    ps_stats_make(c, ps, st);
    s->stats_key = key;
    memcpy(&s->stats_made, st, sizeof *st);
    s->stats_cached = 1;
}

/* ps_stats' work: what it reads is all in its key. */
static void ps_stats_make(const ctx *c, const q3_ps *ps, cl_stats *st)
{
    memset(st, 0, sizeof *st);
    int pm = ps->f[Q3_PS_PM_TYPE], wp = ps->f[Q3_PS_WEAPON];
    st->health = clamp16(ps->stats[Q3_STAT_HEALTH]);
    st->armor = clamp16(ps->stats[stat_armor(c)]);
    if (wp > 0 && wp < Q3_NUM_WEAPONS) {
        st->weapon = q3_weapon[wp];
        st->ammo_type = q3_weapon_ammo[wp];
        st->ammo = ammo16(ps->ammo[wp]);
    }
    st->gun_model = weapon_model(wp); /* the view weapon: the held weapon's world model */
    /* (read once: the stores below may alias it, so the compiler would read it again each
     * turn, and work out its index each time) */
    const int32_t owned = ps->stats[stat_weapons(c)];
    for (int i = 1; i < Q3_NUM_WEAPONS; i++) {
        if (owned & (1 << i))
            st->weapons |= 1u << q3_weapon[i];
        /* by kind: the ammunition of the first weapon of that kind */
        int k = q3_weapon_ammo[i];
        if (k != CL_AMMO_NONE && k != CL_AMMO_OTHER && !st->ammo_of[k])
            st->ammo_of[k] = ammo16(ps->ammo[i]);
    }
    for (int i = 1; i < (int)sizeof q3_powerup; i++) {
        int32_t end = ps->powerups[i];
        float *dst = &st->powerup_end[q3_powerup[i]];
        if (end <= 0)
            continue;
        if (end >= 0x7fffffff - 1000000) /* INT_MAX: held until dropped */
            *dst = -1;
        else if (*dst >= 0)
            *dst = (float)(((double)end - c->s->time0) / 1000.0);
    }
    st->score = ps->persistant[Q3_PERS_SCORE];
    if (pm == Q3_PM_DEAD || st->health <= 0)
        st->flags |= CL_ST_DEAD;
    if (pm == Q3_PM_SPECTATOR || ps->persistant[Q3_PERS_TEAM] == 3)
        st->flags |= CL_ST_SPECTATOR;
}

static void ps_events(ctx *c, const q3_ps *ps, int cn, const float org[3], int firing);

/* The flags the recorder holds (PW_REDFLAG 1, PW_BLUEFLAG 2) for the CTF announcer. */
static void ps_flags_of(ctx *c, const q3_ps *ps)
{
    c->s->ps_flags = (uint8_t)((c->p->pw_redflag && c->p->pw_redflag < 16 &&
                                ps->powerups[c->p->pw_redflag]) |
                               (c->p->pw_blueflag && c->p->pw_blueflag < 16 &&
                                ps->powerups[c->p->pw_blueflag]) << 1);
}

/* The shells a body's powerups draw (CL_SHELL_*): bg_public.h powerup_t PW_BATTLESUIT 2,
 * PW_INVIS 4, PW_REGEN 5, the numbers of every protocol whose quad is 1 (Quake Live 73 and
 * 90 keep them; 91's are not known: none). bits: 1 << powerup. */
static uint8_t shells_of(const ctx *c, uint32_t bits)
{
    if (c->p->pw_quad != 1)
        return 0;
    return (uint8_t)((bits & 1u << 2 ? CL_SHELL_BATTLESUIT : 0) |
                     (bits & 1u << 5 ? CL_SHELL_REGEN : 0) | (bits & 1u << 4 ? CL_SHELL_INVIS : 0));
}

/* What floats over a live body (CL_FLOAT_*) by its eFlags, in cg_players.c
 * CG_PlayerSprites' order: EF_CONNECTION 0x2000, EF_TALK 0x1000, then the awards
 * EF_AWARD_IMPRESSIVE 0x8000, _EXCELLENT 0x8, _GAUNTLET 0x40, _DEFEND 0x10000, _ASSIST
 * 0x20000, _CAP 0x800 (bg_public.h of 1.32, Quake Live's the same; the older protocols
 * number their flags otherwise: none). */
#define FLOAT_ROWS(X)                                                                      \
    X(0x2000, CL_FLOAT_CONNECTION) X(0x1000, CL_FLOAT_TALK) X(0x8000, CL_FLOAT_IMPRESSIVE)  \
    X(0x8, CL_FLOAT_EXCELLENT) X(0x40, CL_FLOAT_GAUNTLET) X(0x10000, CL_FLOAT_DEFEND)       \
    X(0x20000, CL_FLOAT_ASSIST) X(0x800, CL_FLOAT_CAPTURE)
static uint8_t float_of(const ctx *c, uint32_t eflags)
{
#define FLOAT_ROW(bit, kind) {bit, kind},
#define FLOAT_BIT(bit, kind) | (bit)
    static const struct {
        uint32_t bit;
        uint8_t kind;
    } order[] = {FLOAT_ROWS(FLOAT_ROW)};
    /* the table's flags at once: most bodies carry none */
    const uint32_t any = 0u FLOAT_ROWS(FLOAT_BIT);
#undef FLOAT_ROW
#undef FLOAT_BIT
    if (c->s->old || !(eflags & any))
        return CL_FLOAT_NONE;
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
        if (eflags & order[k].bit)
            return order[k].kind;
    return CL_FLOAT_NONE;
}
#undef FLOAT_ROWS

/* dm3's persistant slots as 68's [Q3OLD] (UDT look_up_tables.cpp PersStats_3 against
 * PersStats_48_68): 0..4 the same, its PERS_ATTACKER 7 is 68's 6, killed, impressive and
 * excellent counts 8..10 the same, the gauntlet frag count 11 is 68's 13; the rest (68's
 * attackee armour, defend, assist, captures) dm3 does not have. */
static void dm3_persistant(int32_t out[16], const int32_t in[16])
{
    memset(out, 0, 16 * sizeof out[0]);
    memcpy(out, in, 5 * sizeof out[0]);
    out[6] = in[7];
    memcpy(out + 8, in + 8, 3 * sizeof out[0]);
    out[13] = in[11];
}

/* cg_playerstate.c CG_TransitionPlayerState: a playerState of the same client whose
 * damageEvent changed with a damageCount kicks the view (cg_view.c CG_DamageFeedback): by
 * damage x 40 / health (health under 40: x 1), 5 to 10 degrees; from the damage's
 * direction (damageYaw and damagePitch, 255 / 360ths; both 255: straight down, a fall) as
 * seen along the view, pitched away by the part in front and rolled by the part to the
 * left, from the snapshot's time (cg.damageTime); the view's angles stand in for the last
 * drawn frame's axes. */
static void damage_kick(ctx *c, const q3_ps *ps, int cn, const float ang[3])
{
    q3_state *s = c->s;
    int event = ps->f[Q3_PS_DAMAGEEVENT], count = ps->f[Q3_PS_DAMAGECOUNT];
    int same = s->have_view && cn == s->view_client;
    int kicked = same && event != s->view_damage_event && count;
    s->view_damage_event = event;
    if (!same) {
        s->dmg_pitch = s->dmg_roll = 0;
        s->dmg_time = 0;
    }
    if (!kicked)
        return;
    int health = ps->stats[Q3_STAT_HEALTH];
    float kick = (float)count * (health < 40 ? 1.0f : 40.0f / (float)health);
    kick = kick < 5 ? 5 : kick > 10 ? 10 : kick;
    int yb = ps->f[Q3_PS_DAMAGEYAW], pb = ps->f[Q3_PS_DAMAGEPITCH];
    if (yb == 255 && pb == 255) {
        s->dmg_roll = 0;
        s->dmg_pitch = -kick;
    } else {
        const float d2r = (float)M_PI / 180;
        float dp = (float)pb / 255.0f * 360 * d2r, dy = (float)yb / 255.0f * 360 * d2r;
        float dir[3] = {-cosf(dp) * cosf(dy), -cosf(dp) * sinf(dy), sinf(dp)};
        float vp = ang[0] * d2r, vy = ang[1] * d2r;
        float front = dir[0] * cosf(vp) * cosf(vy) + dir[1] * cosf(vp) * sinf(vy) -
                      dir[2] * sinf(vp);
        float left = -dir[0] * sinf(vy) + dir[1] * cosf(vy);
        s->dmg_roll = kick * left;
        s->dmg_pitch = -kick * front;
    }
    s->dmg_time = c->cl->time;
}

/* Bit i set for each v[i] not 0 (i < 16). */
static uint32_t nonzero_bits16(const int32_t v[16])
{
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    uint32_t eq = 0;
    for (int k = 0; k < 4; k++) {
        __m128i x = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(v + 4 * k)), zero);
        eq |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(x)) << (4 * k);
    }
    return ~eq & 0xffffu;
#else
    uint32_t bits = 0;
    for (int i = 0; i < 16; i++)
        if (v[i])
            bits |= 1u << i;
    return bits;
#endif
}

static void emit_ps(ctx *c, const q3_ps *ps, int body)
{
    q3_ps ps68;
    if (c->s->old == Q3_OLD_DM3) {
        ps68 = *ps;
        dm3_persistant(ps68.persistant, ps->persistant);
        ps = &ps68;
    }
    int cn = ps_client(c, ps);
    int pm = ps->f[Q3_PS_PM_TYPE];
    float org[3] = {q3_f(ps->f[Q3_PS_ORIGIN0]), q3_f(ps->f[Q3_PS_ORIGIN1]),
                    q3_f(ps->f[Q3_PS_ORIGIN2])};
    float ang[3] = {q3_f(ps->f[Q3_PS_VIEWANGLES0]), q3_f(ps->f[Q3_PS_VIEWANGLES1]),
                    q3_f(ps->f[Q3_PS_VIEWANGLES2])};
    for (int i = 0; i < 3; i++) {
        if (!isfinite(org[i]) || fabsf(org[i]) > 1e7f)
            org[i] = 0;
        if (!isfinite(ang[i]) || fabsf(ang[i]) > 1e7f)
            ang[i] = 0;
    }
    /* bg_misc.c BG_PlayerStateToEntityState: a body at or under GIB_HEALTH (-40) is
     * ET_INVISIBLE, its gibs drawn instead (shown since a dead player is seen from behind) */
    if (body && pm != Q3_PM_SPECTATOR && pm != Q3_PM_INTERMISSION &&
        pm != Q3_PM_SPINTERMISSION && ps->stats[Q3_STAT_HEALTH] > -40) {
        cl_entstate st;
        memset(&st, 0, sizeof st);
        memcpy(st.origin, org, sizeof org);
        st.angles[1] = ang[1];
        st.model = player_model(c, cn);
        /* as the server sets entityState.powerups from them */
        uint32_t powerups = nonzero_bits16(ps->powerups);
        body_look(c->p, &st, cn, ps->f[Q3_PS_LEGSANIM], ps->f[Q3_PS_TORSOANIM],
                  ps->f[Q3_PS_WEAPON],
                  (uint32_t)ps->f[Q3_PS_EFLAGS] | (pm == Q3_PM_DEAD ? Q3_EF_DEAD : 0), powerups,
                  ps->f[Q3_PS_MOVEMENTDIR]);
        st.flags = CL_EF_PLAYER | (pm == Q3_PM_DEAD ? CL_EF_DEAD : 0);
        if ((ps->f[Q3_PS_EFLAGS] ^ c->s->last_eflags) & Q3_EF_TELEPORT_BIT)
            st.flags |= CL_EF_TELEPORT;
        const float vel[3] = {q3_f(ps->f[Q3_PS_VELOCITY0]), q3_f(ps->f[Q3_PS_VELOCITY1]),
                              q3_f(ps->f[Q3_PS_VELOCITY2])};
        if (cn >= 0 && cn < Q3_MAX_CLIENTS) {
            c->cl->players[cn].shells = shells_of(c, powerups);
            c->cl->players[cn].float_sprite = float_of(c, (uint32_t)ps->f[Q3_PS_EFLAGS]);
        }
        q3_body_swing(c->cl, cn, ang[1], ang[0], ps->f[Q3_PS_LEGSANIM], ps->f[Q3_PS_TORSOANIM],
                      ps->f[Q3_PS_MOVEMENTDIR], pm == Q3_PM_DEAD,
                      (st.flags & CL_EF_TELEPORT) != 0, vel);
        c->s->last_eflags = ps->f[Q3_PS_EFLAGS];
        cl_entity_update(c->cl, cn + 1, &st);
        /* its weapon's hum too: cgame draws the recorder's body (unseen in first person)
         * with its world weapon, whose CG_AddPlayerWeapon adds it */
        cl_entity_set_loop(c->cl, cn + 1,
                           weapon_loop(c, ps->f[Q3_PS_WEAPON],
                                       (ps->f[Q3_PS_EFLAGS] & Q3_EF_FIRING) != 0));
    } else if (body && ps->stats[Q3_STAT_HEALTH] <= -40 && cn >= 0 && cn < Q3_MAX_CLIENTS) {
        /* gibbed: its body goes (a player's entity stays through frames that leave it out,
         * cl_frame_end: its last pose, standing with its gun, would be seen from behind) */
        cl_entity_remove(c->cl, cn + 1);
    }
    cl_view v;
    memset(&v, 0, sizeof v);
    v.view_entity = cn + 1;
    v.has_origin = 1;
    memcpy(v.origin, org, sizeof org);
    v.origin[2] += (float)ps->f[Q3_PS_VIEWHEIGHT];
    /* cg_playerstate.c CG_TransitionPlayerState: cg.duckChange, the new viewheight less
     * the one before for the same client (a crouch, a death, a respawn), eased out by
     * CG_OffsetFirstPersonView; none in third person (a dead player's camera) */
    int vh = ps->f[Q3_PS_VIEWHEIGHT];
    v.eye_height = vh >= -1024 && vh <= 1024 ? (float)vh : 0;
    if (c->s->have_view && cn == c->s->view_client && pm != Q3_PM_DEAD)
        v.duck = v.eye_height - c->cl->prev_view.eye_height; /* (the frame before's) */
    memcpy(v.angles, ang, sizeof ang);
    v.dead = pm == Q3_PM_DEAD;
    /* bg_public.h statIndex_t: STAT_DEAD_YAW follows STAT_ARMOR in baseq3's and the
     * missionpack's numbering alike (g_combat.c player_die sets it to the killer's
     * direction) */
    if (stat_armor(c) + 1 < 16)
        v.dead_yaw = (float)ps->stats[stat_armor(c) + 1];
    v.player = cn + 1;
    damage_kick(c, ps, cn, ang);
    v.dmg_pitch = c->s->dmg_pitch;
    v.dmg_roll = c->s->dmg_roll;
    v.dmg_time = c->s->dmg_time;
    /* cg_view.c CG_CalcViewValues: the bob cycle and the speed across the ground, which
     * move the first-person weapon (cg_weapons.c CG_CalculateWeaponPosition) */
    v.bob_cycle = (uint8_t)ps->f[Q3_PS_BOBCYCLE];
    float vx = q3_f(ps->f[Q3_PS_VELOCITY0]), vy = q3_f(ps->f[Q3_PS_VELOCITY1]);
    float xy = sqrtf(vx * vx + vy * vy);
    v.xyspeed = isfinite(xy) && xy < 10000 ? xy : 0;
    cl_set_view(c->cl, &v);
    /* cg_snapshot.c CG_SetNextSnap: no lerp into a playerState that toggled
     * EF_TELEPORT_BIT (a teleporter, a respawn), follows another client, or whose
     * snapshot toggled SNAPFLAG_SERVERCOUNT (a map_restart): the view cuts there
     * (CG_InterpolatePlayerState), as the bodies' snaps do */
    q3_state *s = c->s;
    /* the playerState before, as cg.predictedPlayerEntity was last drawn (ps_events) */
    int firing = s->have_view && s->view_client == cn && (s->view_eflags & Q3_EF_FIRING);
    if (s->have_view && (((ps->f[Q3_PS_EFLAGS] ^ s->view_eflags) & Q3_EF_TELEPORT_BIT) ||
                         cn != s->view_client ||
                         ((s->snap_flags ^ s->view_snapflags) & Q3_SNAPFLAG_SERVERCOUNT)))
        cl_view_hold(c->cl);
    s->view_eflags = ps->f[Q3_PS_EFLAGS];
    s->view_client = cn;
    s->view_snapflags = s->snap_flags;
    s->have_view = 1;
    cl_stats st;
    ps_stats(c, ps, &st);
    cl_set_stats(c->cl, -1, &st);
    cl_set_player_frags(c->cl, cn, ps->persistant[Q3_PERS_SCORE]);
    int inter = pm == Q3_PM_INTERMISSION || pm == Q3_PM_SPINTERMISSION;
    cl_set_intermission(c->cl, inter);
    if (inter && !c->s->was_intermission) {
        cl_event ce;
        memset(&ce, 0, sizeof ce);
        ce.kind = CL_EV_INTERMISSION;
        ce.actor = ce.target = -1;
        cl_event_add(c->cl, &ce);
    }
    c->s->was_intermission = (uint8_t)inter;
    int32_t now = (int32_t)((int64_t)c->s->time0 + llround(c->s->time * 1000.0));
    if (!inter) /* cg_draw.c CG_Draw2D draws the warmup out of the intermission */
        q3_warmup_tick(c->cl, c->s, now);
    ps_flags_of(c, ps);
    q3_buffered_sounds(c->cl, c->s, now); /* cg_view.c CG_DrawActiveFrame, every frame */
    /* cg_playerstate.c CG_TransitionPlayerState: the local sounds of the same client's
     * playerState, out of the intermission and not as a spectator */
    if (c->s->have_pers && c->s->pers_client == cn && !inter &&
        ps->persistant[Q3_PERS_TEAM] != 3)
        q3_local_sounds(c->cl, ps->persistant, c->s->pers, c->s->team_game);
    memcpy(c->s->pers, ps->persistant, sizeof c->s->pers);
    c->s->pers_client = cn;
    c->s->have_pers = 1;
    c->listener = cn;
    ps_events(c, ps, cn, org, firing);
    if (!inter)
        q3_limit_sounds(c->cl, c->s);
}

static void entity_event(ctx *c, const q3_ent *e, int ev, int firing);

/* An entity_event_t value of the demo's numbering as 68's [Q3OLD]. */
static int event_68(const ctx *c, int ev)
{
    return c->s->old == Q3_OLD_DM3 ? q3_dm3_event(ev) : ev;
}

/* The recorder's entity as its playerState events fire on it (ps_events). */
static void ps_event_ent(q3_ent *e, const q3_ps *ps, int cn, const float org[3])
{
    memset(e, 0, sizeof *e);
    e->number = (uint16_t)cn;
    e->f[Q3_ES_ETYPE] = Q3_ET_PLAYER;
    e->f[Q3_ES_CLIENTNUM] = cn;
    e->f[Q3_ES_WEAPON] = ps->f[Q3_PS_WEAPON];
    e->f[Q3_ES_EFLAGS] = ps->f[Q3_PS_EFLAGS];
    memcpy(&e->f[Q3_ES_POS_TRBASE0], &org[0], 4);
    memcpy(&e->f[Q3_ES_POS_TRBASE1], &org[1], 4);
    memcpy(&e->f[Q3_ES_POS_TRBASE2], &org[2], 4);
    /* its angles as the predicted entity's lerpAngles: the view's */
    e->f[Q3_ES_APOS_TRBASE0] = ps->f[Q3_PS_VIEWANGLES0];
    e->f[Q3_ES_APOS_TRBASE1] = ps->f[Q3_PS_VIEWANGLES1];
    e->f[Q3_ES_APOS_TRBASE2] = ps->f[Q3_PS_VIEWANGLES2];
}

/* cg_playerstate.c CG_CheckPlayerstateEvents: the recorder's own events (weapon fire,
 * footsteps, jumps, pain, pickups) are never sent as entities to it or to a spectator
 * following that player (sv_snapshot.c leaves out the entity of ps.clientNum and g_active.c
 * SendPendingPredictableEvents' temporary entity skips that client): they come in the
 * playerState, as events[eventSequence & 1] (MAX_PS_EVENTS 2, bg_misc.c
 * BG_AddPredictableEventToPlayerstate) and externalEvent with its toggle bits. An event is
 * new when its sequence number is past the last playerState's, or when the slot of a
 * sequence both saw holds another event. The events fire on the player's entity at its
 * origin, as BG_PlayerStateToEntityState would make it; a change of followed player
 * starts afresh (CG_TransitionPlayerState copies ps to ops). firing: EF_FIRING in the
 * playerState before (entity_event). */
static void ps_events(ctx *c, const q3_ps *ps, int cn, const float org[3], int firing)
{
    q3_state *s = c->s;
    int seq = ps->f[Q3_PS_EVENTSEQUENCE], ext = ps->f[Q3_PS_EXTERNALEVENT];
    int ev[2] = {ps->f[Q3_PS_EVENTS0], ps->f[Q3_PS_EVENTS1]};
    int parm[2] = {ps->f[Q3_PS_EVENTPARMS0], ps->f[Q3_PS_EVENTPARMS1]};
    if (s->have_ps_events && s->ps_ev_client == cn) {
        q3_ent e; /* made at the first event that fires (most snapshots have none) */
        int made = 0;
        if (ext && ext != s->ps_ev_ext) {
            int ev68 = event_68(c, ext & ~Q3_EV_EVENT_BITS);
            if (ev68 > 0) {
                ps_event_ent(&e, ps, cn, org);
                made = 1;
                e.f[Q3_ES_EVENTPARM] = ps->f[Q3_PS_EXTERNALEVENTPARM];
                e.f[Q3_ES_EVENT] = ext;
                entity_event(c, &e, ev68, firing);
            }
        }
        /* a sequence that jumped by more than two lost the events between (the ring holds
         * two): only the two it holds fire */
        for (int i = seq - 2; i < seq; i++) {
            int k = i & 1;
            if (i >= s->ps_ev_seq || (i > s->ps_ev_seq - 2 && ev[k] != s->ps_ev[k])) {
                int ev68 = event_68(c, ev[k] & ~Q3_EV_EVENT_BITS);
                if (ev68 <= 0)
                    continue;
                if (!made)
                    ps_event_ent(&e, ps, cn, org);
                made = 1;
                e.f[Q3_ES_EVENTPARM] = parm[k];
                /* with its sequence's bits, as BG_PlayerStateToEntityState sends it */
                e.f[Q3_ES_EVENT] = (ev[k] & ~Q3_EV_EVENT_BITS) | (i & 3) << 8;
                entity_event(c, &e, ev68, firing);
            }
        }
    }
    s->have_ps_events = 1;
    s->ps_ev_client = cn;
    s->ps_ev_seq = seq;
    s->ps_ev[0] = ev[0];
    s->ps_ev[1] = ev[1];
    s->ps_ev_ext = ext;
}

/* meansOfDeath_t (bg_public.h) MOD_UNKNOWN 0 .. MOD_TRIGGER_HURT 22 as cl_means and the
 * weapon of a CL_MOD_WEAPON death */
static const uint8_t q3_mod[][2] = {
    {CL_MOD_UNKNOWN, 0}, {CL_MOD_WEAPON, CL_WP_SHOTGUN}, {CL_MOD_WEAPON, CL_WP_MELEE},
    {CL_MOD_WEAPON, CL_WP_MACHINEGUN}, {CL_MOD_WEAPON, CL_WP_GRENADE_LAUNCHER},
    {CL_MOD_SPLASH, CL_WP_GRENADE_LAUNCHER}, {CL_MOD_WEAPON, CL_WP_ROCKET_LAUNCHER},
    {CL_MOD_SPLASH, CL_WP_ROCKET_LAUNCHER}, {CL_MOD_WEAPON, CL_WP_PLASMA},
    {CL_MOD_SPLASH, CL_WP_PLASMA}, {CL_MOD_WEAPON, CL_WP_RAILGUN},
    {CL_MOD_WEAPON, CL_WP_LIGHTNING}, {CL_MOD_WEAPON, CL_WP_BFG}, {CL_MOD_SPLASH, CL_WP_BFG},
    {CL_MOD_WATER, 0}, {CL_MOD_SLIME, 0}, {CL_MOD_LAVA, 0}, {CL_MOD_CRUSH, 0},
    {CL_MOD_TELEFRAG, 0}, {CL_MOD_FALL, 0}, {CL_MOD_SUICIDE, 0}, {CL_MOD_TRIGGER, 0},
    {CL_MOD_TRIGGER, 0}};

/* An impact's effect at org (cg_weapons.c CG_MissileHitWall's explosion) of weapon w for
 * life seconds: end is org plus the surface's normal, from the event's direction byte
 * (g_missile.c and g_weapon.c send DirToByte of the plane hit; cg_event.c ByteToDir, zero
 * for a byte past 161); no light (radius 0) unless the caller gives one. */
static void impact_fx(const q3_ent *e, int w, float life, const float org[3], cl_fxev *fx)
{
    memset(fx, 0, sizeof *fx);
    fx->kind = CL_FXK_EXPLOSION;
    fx->style = (uint8_t)(w & 0xff);
    fx->life = life;
    fx->entity = -1;
    float dir[3];
    qd_byte_to_dir(e->f[Q3_ES_EVENTPARM], dir);
    for (int k = 0; k < 3; k++) {
        fx->origin[k] = org[k];
        fx->end[k] = org[k] + dir[k];
    }
}

/* The wall mark an impact leaves (cg_weapons.c CG_MissileHitWall's CG_ImpactMark): at the
 * explosion's place with its normal, white, or a rail's in its shooter's colour (ioq3:
 * cgs.clientinfo[clientNum].color1); which mark and how big goes by the weapon (r_q3mark.c).
 * None without a normal (a direction byte past 161: a mark needs the plane it lies on). */
static void impact_mark(cl_state *cl, const cl_fxev *boom, const uint8_t rgb[3])
{
    float n2 = 0;
    for (int k = 0; k < 3; k++)
        n2 += (boom->end[k] - boom->origin[k]) * (boom->end[k] - boom->origin[k]);
    if (!(n2 > 0.5f))
        return;
    cl_fxev m = *boom;
    m.kind = CL_FXK_IMPACT;
    m.radius = 0;
    memcpy(m.rgb, rgb, 3);
    cl_mark_add(cl, &m);
}

/* cg_effects.c CG_Bleed: a body hit at org bleeds for 500 ms (entity: the body's client
 * entity, whose own view does not show it) */
static void bleed(cl_state *cl, const float org[3], int entity)
{
    cl_fxev fx;
    memset(&fx, 0, sizeof fx);
    fx.kind = CL_FXK_BLOOD;
    fx.life = 0.5f;
    fx.entity = (int16_t)(entity > 0 && entity < CL_MAX_ENTITIES ? entity : -1);
    memcpy(fx.origin, org, sizeof fx.origin);
    memcpy(fx.end, org, sizeof fx.end);
    cl_fx_add(cl, &fx);
}

/* cg_weapons.c CG_ShotgunFire (EV_SHOTGUN, 54 in 66..71): CG_ShotgunPattern's pellets from
 * pos.trBase along origin2 (g_weapon.c: the shooter's forward x 4096, snapped) with the
 * seed eventParm (g_weapon.c: rand() & 255), logged with the marks: the renderer traces them
 * through the map (r_q3mark.c). CG_ShotgunPellet's trace stops at a body too (MASK_SHOT:
 * CONTENTS_BODY, CONTENTS_CORPSE): the map is not here, the bodies are, so here each pellet
 * is tried against every other player's box as the client last drew it (bg_pmove.c's
 * standing box, -15 -15 -24 to 15 15 32), and the blast notes which meet one and how far
 * the nearest is. */
static void shotgun_blast(ctx *c, const q3_ent *e, const float org[3])
{
    float fwd[3] = {q3_f(e->f[Q3_ES_ORIGIN2_0]), q3_f(e->f[Q3_ES_ORIGIN2_1]),
                    q3_f(e->f[Q3_ES_ORIGIN2_2])};
    float len = sqrtf(fwd[0] * fwd[0] + fwd[1] * fwd[1] + fwd[2] * fwd[2]), ends[QD_Q3_PELLETS][3];
    if (!(len > 1e-3f) || !isfinite(len))
        return;
    for (int j = 0; j < 3; j++)
        fwd[j] /= len;
    int seed = e->f[Q3_ES_EVENTPARM];
    if (!qd_q3_pellet_ends(org, fwd, seed, ends))
        return;
    cl_fxev fx;
    memset(&fx, 0, sizeof fx);
    fx.kind = CL_FXK_SHOTGUN;
    fx.style = (uint8_t)seed;
    for (int j = 0; j < 3; j++) {
        fx.origin[j] = org[j];
        fx.end[j] = org[j] + fwd[j];
    }
    const cl_state *cl = c->cl;
    int shooter = e->f[Q3_ES_OTHERENTITYNUM] + 1, n = cl->num_entities;
    float nearest = INFINITY, first[QD_Q3_PELLETS];
    int body[QD_Q3_PELLETS];
    for (int k = 0; k < QD_Q3_PELLETS; k++) {
        first[k] = 2;
        body[k] = 0;
    }
    for (int i = 1; i < n && i < CL_MAX_ENTITIES; i++) {
        const cl_entity *b = &cl->entities[i];
        if (i == shooter || !b->active || !(b->cur.flags & CL_EF_PLAYER))
            continue;
        static const float lo[3] = {-15, -15, -24}, hi[3] = {15, 15, 32};
        for (int k = 0; k < QD_Q3_PELLETS; k++) {
            /* the slabs: where the segment is inside each pair of the box's planes */
            float t0 = 0, t1 = 1;
            for (int j = 0; j < 3 && t0 <= t1; j++) {
                float d = ends[k][j] - org[j], a = b->cur.origin[j] + lo[j] - org[j],
                      z = b->cur.origin[j] + hi[j] - org[j];
                if (fabsf(d) < 1e-9f) {
                    if (a > 0 || z < 0)
                        t1 = -1;
                    continue;
                }
                float ta = a / d, tz = z / d;
                if (ta > tz) {
                    float x = ta;
                    ta = tz;
                    tz = x;
                }
                t0 = ta > t0 ? ta : t0;
                t1 = tz < t1 ? tz : t1;
            }
            if (t0 <= t1) {
                fx.entity = (int16_t)(fx.entity | 1 << k);
                float d = t0 * QD_Q3_PELLET_RANGE;
                nearest = d < nearest ? d : nearest;
                if (t0 < first[k]) {
                    first[k] = t0;
                    body[k] = i;
                }
            }
        }
    }
    fx.radius = fx.entity ? nearest : 0;
    cl_mark_add(c->cl, &fx);
    /* a pellet that meets a body (CG_ShotgunPellet: CG_MissileHitPlayer) bleeds where it
     * enters; one with a wall before it bleeds behind the wall, where the wall hides it */
    for (int k = 0; k < QD_Q3_PELLETS; k++)
        if (body[k]) {
            float at[3];
            for (int j = 0; j < 3; j++)
                at[j] = org[j] + (ends[k][j] - org[j]) * first[k];
            bleed(c->cl, at, body[k]);
        }
}

/* One entity event (cg_event.c CG_EntityEvent) as a neutral event, effect or sound. firing:
 * the entity had EF_FIRING as last drawn (cgame's cent->pe.lightningFiring, which
 * cg_weapons.c CG_AddPlayerWeapon sets each frame). */
static void entity_event(ctx *c, const q3_ent *e, int ev, int firing)
{
    float org[3];
    cl_traj tr;
    get_traj(c, e, 0, &tr);
    cl_traj_eval(&tr, c->cl->time, org);
    const q3_proto *p = c->p;
    int player_event = e->f[Q3_ES_ETYPE] >= Q3_ET_EVENTS &&
                       (e->f[Q3_ES_EFLAGS] & Q3_EF_PLAYER_EVENT);
    if (ev == Q3_EV_FIRE_WEAPON_68 && c->cl->level.protocol <= 71 && !player_event) {
        /* cg_weapons.c CG_FireWeapon: the muzzle flash for MUZZLE_FLASH_TIME, 20 ms
         * (r_md3.c draws the weapon's flash model at its tag_flash while it lasts); a
         * player event's goes to the temporary entity's centity, which draws no weapon */
        cl_fxev fx;
        memset(&fx, 0, sizeof fx);
        fx.kind = CL_FXK_MUZZLE;
        fx.entity = (int16_t)(e->number + 1);
        fx.life = 0.02f;
        fx.style = (uint8_t)e->f[Q3_ES_WEAPON];
        memcpy(fx.origin, org, sizeof org);
        cl_fx_add(c->cl, &fx);
    }
    if (ev == Q3_EV_FIRE_WEAPON_68 && c->cl->level.protocol <= 71 &&
        (e->f[Q3_ES_WEAPON] == Q3_WP_MACHINEGUN || e->f[Q3_ES_WEAPON] == Q3_WP_SHOTGUN)) {
        /* cg_weapons.c CG_FireWeapon: the weapon's ejectBrassFunc (cg_brassTime 2500 > 0),
         * from the centity's lerpOrigin turned by its lerpAngles (the recorder's: its view
         * angles, ps_events sets them); the renderer throws the shells (r_q3mark.c) */
        cl_traj at;
        get_traj(c, e, 1, &at);
        cl_fxev fx;
        memset(&fx, 0, sizeof fx);
        fx.kind = CL_FXK_BRASS;
        fx.entity = (int16_t)(e->number + 1);
        fx.life = (float)CL_FX_WINDOW;
        fx.style = (uint8_t)e->f[Q3_ES_WEAPON];
        memcpy(fx.origin, org, sizeof org);
        cl_traj_eval(&at, c->cl->time, fx.end);
        for (int j = 0; j < 3; j++)
            if (!isfinite(fx.end[j]) || fabsf(fx.end[j]) > 1e6f)
                fx.end[j] = 0;
        if (fx.style == Q3_WP_SHOTGUN)
            cl_mark_add(c->cl, &fx); /* (its shells lie 7.5 to 10 s: the marks' 10 s log) */
        else
            cl_fx_add(c->cl, &fx);
    }
    if (ev == p->ev_obituary) {
        /* g_combat.c player_die: otherEntityNum the victim, otherEntityNum2 the killer
         * (ENTITYNUM_WORLD: none), eventParm the means of death */
        int target = e->f[Q3_ES_OTHERENTITYNUM], killer = e->f[Q3_ES_OTHERENTITYNUM2];
        int mod = e->f[Q3_ES_EVENTPARM];
        cl_event ce;
        memset(&ce, 0, sizeof ce);
        ce.kind = CL_EV_FRAG;
        ce.target = (int8_t)(target >= 0 && target < Q3_MAX_CLIENTS ? target : -1);
        ce.actor = (int8_t)(killer >= 0 && killer < Q3_MAX_CLIENTS ? killer : -1);
        if (mod >= 0 && mod < (int)(sizeof q3_mod / sizeof q3_mod[0])) {
            ce.means = q3_mod[mod][0];
            ce.weapon = q3_mod[mod][1];
        }
        cl_event_add(c->cl, &ce);
    } else if (ev >= p->ev_missile_hit && ev <= p->ev_missile_hit + 2) {
        /* cg_weapons.c CG_MissileHitWall: an explosion where the missile stopped, for its
         * duration: 600 ms, the rocket's 1000 */
        cl_fxev fx;
        int w = e->f[Q3_ES_WEAPON];
        if (ev == p->ev_missile_hit) /* CG_MissileHitPlayer: CG_Bleed first */
            bleed(c->cl, org, e->f[Q3_ES_OTHERENTITYNUM] + 1);
        impact_fx(e, w, w == Q3_WP_ROCKET_LAUNCHER ? 1.0f : 0.6f, org, &fx);
        fx.radius = 300;
        /* its lightColor: 1, 0.75, 0 for the rocket, the function's 1, 1, 0 otherwise */
        fx.rgb[0] = 255;
        fx.rgb[1] = w == Q3_WP_ROCKET_LAUNCHER ? 191 : 255;
        cl_fx_add(c->cl, &fx);
        /* a mark for every miss; of a hit (cg_weapons.c CG_MissileHitPlayer) only the
         * grenade's, rocket's, plasma's and BFG's, and Team Arena's nail gun's, proximity
         * mine's and chain gun's (11, 12, 13), whose hits call CG_MissileHitWall too */
        static const uint8_t white[3] = {255, 255, 255};
        if (ev != p->ev_missile_hit || w == Q3_WP_GRENADE_LAUNCHER ||
            w == Q3_WP_ROCKET_LAUNCHER || w == Q3_WP_PLASMAGUN || w == Q3_WP_BFG ||
            (w >= 11 && w <= 13))
            impact_mark(c->cl, &fx, white);
        q3_event_sound(c->cl, e, ev, org); /* its sound: q3_sound.c */
    } else if (ev == p->ev_railtrail) {
        /* CG_RailTrail from origin2 (the muzzle) to pos.trBase; cg_railTrailTime 400 ms */
        cl_fxev fx;
        memset(&fx, 0, sizeof fx);
        fx.kind = CL_FXK_BEAM_RAIL;
        /* cg_railTrailTime: 400 ms in ioquake3's cgame, 600 in OpenArena's */
        fx.life = c->s->unlagged_ms ? 0.6f : 0.4f;
        fx.entity = -1;
        int shooter = e->f[Q3_ES_CLIENTNUM]; /* its colour 1 (CG_RailTrail's ci->color1) */
        int known = shooter >= 0 && shooter < Q3_MAX_CLIENTS;
        if (known)
            memcpy(fx.rgb, c->s->rail_rgb[shooter], 3);
        else
            fx.rgb[0] = fx.rgb[1] = fx.rgb[2] = 255;
        memcpy(fx.end, org, sizeof org);
        fx.origin[0] = q3_f(e->f[Q3_ES_ORIGIN2_0]);
        fx.origin[1] = q3_f(e->f[Q3_ES_ORIGIN2_1]);
        fx.origin[2] = q3_f(e->f[Q3_ES_ORIGIN2_2]);
        for (int i = 0; i < 3; i++)
            if (!isfinite(fx.origin[i]) || fabsf(fx.origin[i]) > 1e7f)
                fx.origin[i] = org[i];
        /* cg_weapons.c CG_RailTrail: the start 4 units down; with cg_oldRail (1 in
         * ioquake3's cgame) both ends 8 more "so it isn't exactly in center"; OpenArena's
         * cgame (cg_oldRail 0; an unlagged game, q3_state.unlagged_ms) keeps the core where
         * it is and lays a spiral of discs in colour 2 around it (CL_FXK_RAIL_RINGS) */
        int rings = c->s->unlagged_ms != 0;
        fx.origin[2] -= rings ? 4 : 12;
        fx.end[2] -= rings ? 0 : 8;
        cl_fx_add(c->cl, &fx);
        cl_fxev core = fx;
        if (rings) {
            float len2 = 0;
            for (int i = 0; i < 3; i++)
                len2 += (fx.end[i] - fx.origin[i]) * (fx.end[i] - fx.origin[i]);
            fx.kind = CL_FXK_RAIL_RINGS;
            /* the last disc's life: (its distance along the rail / 2) + 600 ms */
            fx.life = (float)(sqrt(len2) / 2000.0 + 0.6);
            if (known)
                memcpy(fx.rgb, c->s->rail2_rgb[shooter], 3);
            cl_fx_add(c->cl, &fx);
        }
        /* cg_event.c: the rail's end explodes unless it met a no-impact surface (eventParm
         * 255): CG_MissileHitWall's ring in the shooter's colour, 600 ms */
        if (e->f[Q3_ES_EVENTPARM] != 255) {
            cl_fxev hit;
            impact_fx(e, Q3_WP_RAILGUN, 0.6f, org, &hit);
            memcpy(hit.rgb, core.rgb, sizeof hit.rgb); /* (colour 1, CG_MissileHitWall) */
            cl_fx_add(c->cl, &hit);
            impact_mark(c->cl, &hit, core.rgb);
        }
        q3_event_sound(c->cl, e, ev, org); /* the impact's sound: q3_sound.c */
    } else if (ev == Q3_EV_SHOTGUN_68 && c->cl->level.protocol <= 71) {
        shotgun_blast(c, e, org);
    } else if (ev == Q3_EV_GIB_PLAYER_68 && c->cl->level.protocol <= 71) {
        /* cg_event.c: CG_GibPlayer at the body's place; the gibs fly and lie for 5 to 8 s,
         * the renderer throws them through the map (r_q3mark.c), so the gibbing is logged
         * with the marks */
        cl_fxev fx;
        memset(&fx, 0, sizeof fx);
        fx.kind = CL_FXK_GIBS;
        fx.entity = (int16_t)(e->number + 1);
        memcpy(fx.origin, org, sizeof fx.origin);
        memcpy(fx.end, org, sizeof fx.end);
        cl_mark_add(c->cl, &fx);
    } else if (ev == Q3_EV_SCOREPLUM_68 && c->cl->level.protocol <= 71) {
        /* cg_event.c EV_SCOREPLUM -> cg_effects.c CG_ScorePlum (cg_scorePlums 1): the
         * score (entityState.time) rising from where it was made, for 4 s, when it is the
         * viewed player's (otherEntityNum is cg.predictedPlayerState.clientNum; the server
         * sends it to that player's view alone, SVF_SINGLECLIENT); one within 20 units of
         * the height of the one before starts 20 lower (lastPos) */
        if (e->f[Q3_ES_OTHERENTITYNUM] == c->listener) {
            cl_fxev fx;
            memset(&fx, 0, sizeof fx);
            fx.kind = CL_FXK_SCORE_PLUM;
            fx.entity = -1;
            fx.radius = (float)e->f[Q3_ES_TIME];
            memcpy(fx.origin, org, sizeof fx.origin);
            memcpy(fx.end, org, sizeof fx.end);
            if (org[2] >= c->s->plum_z - 20 && org[2] <= c->s->plum_z + 20)
                fx.origin[2] -= 20;
            c->s->plum_z = org[2];
            cl_mark_add(c->cl, &fx);
        }
    } else if (ev == Q3_EV_BULLET_HIT_FLESH_68 && c->cl->level.protocol <= 71) {
        /* cg_event.c CG_Bullet with flesh: CG_Bleed at the hit, on the body eventParm */
        bleed(c->cl, org, e->f[Q3_ES_EVENTPARM] + 1);
    } else if (ev == Q3_EV_BULLET_HIT_WALL_68 && c->cl->level.protocol <= 71) {
        /* cg_event.c CG_Bullet: the machine gun's impact (CG_MissileHitWall: its puff for
         * 600 ms); a tracer now and then (cg_tracerChance, random) is not drawn */
        cl_fxev fx;
        impact_fx(e, Q3_WP_MACHINEGUN, 0.6f, org, &fx);
        cl_fx_add(c->cl, &fx);
        static const uint8_t white[3] = {255, 255, 255};
        impact_mark(c->cl, &fx, white);
        q3_event_sound(c->cl, e, ev, org);
    } else if (ev == Q3_EV_GLOBAL_TEAM_SOUND_68 && c->cl->level.protocol <= 71) {
        q3_team_sound(c->cl, c->s, e->f[Q3_ES_EVENTPARM]);
    } else if (ev == p->ev_general_sound || ev == p->ev_global_sound) {
        /* cg_event.c CG_EntityEvent: EV_GLOBAL_SOUND plays "from the player's head so it
         * never diminishes", on cg.snap->ps.clientNum (the listener's entity, which the
         * mixer plays at full volume), with no attenuation */
        int snd = e->f[Q3_ES_EVENTPARM], global = ev == p->ev_global_sound;
        if (snd > 0 && snd < Q3_MAX_SOUNDS) {
            cl_sound so;
            memset(&so, 0, sizeof so);
            so.sound = (uint16_t)snd;
            so.entity = (int16_t)((global ? c->listener : e->number) + 1);
            so.volume = 255;
            so.attenuation = global ? 0 : 64;
            so.has_origin = !global;
            memcpy(so.origin, org, sizeof org);
            cl_sound_add(c->cl, &so);
        }
    } else if (ev == Q3_EV_ITEM_RESPAWN_68 && c->cl->level.protocol <= 71) {
        /* cg_event.c: cent->miscTime = cg.time, "scale up from this" (cg_ents.c CG_Item:
         * over ITEM_SCALEUP_TIME, 1000 ms), and its sound */
        cl_fxev fx;
        memset(&fx, 0, sizeof fx);
        fx.kind = CL_FXK_ITEM_RESPAWN;
        fx.entity = (int16_t)(e->number + 1);
        fx.life = 1.0f;
        memcpy(fx.origin, org, sizeof fx.origin);
        memcpy(fx.end, org, sizeof fx.end);
        cl_fx_add(c->cl, &fx);
        q3_event_sound(c->cl, e, ev, org);
    } else if ((ev == Q3_EV_PLAYER_TELEPORT_IN_68 || ev == Q3_EV_PLAYER_TELEPORT_OUT_68) &&
               c->cl->level.protocol <= 71) {
        /* cg_event.c: its sound and cg_effects.c CG_SpawnEffect where the player goes in or
         * comes out (and every spawn: g_client.c ClientSpawn's EV_PLAYER_TELEPORT_IN):
         * teleportEffectModel with the teleportEffect shader, 24 units down, 500 ms */
        cl_fxev fx;
        memset(&fx, 0, sizeof fx);
        fx.kind = CL_FXK_TELEPORT;
        fx.style = ev == Q3_EV_PLAYER_TELEPORT_OUT_68; /* (1: where the player left) */
        fx.entity = -1;
        fx.life = 0.5f;
        memcpy(fx.origin, org, sizeof fx.origin);
        memcpy(fx.end, org, sizeof fx.end);
        cl_fx_add(c->cl, &fx);
        q3_event_sound(c->cl, e, ev, org);
    } else if (ev == Q3_EV_GLOBAL_ITEM_PICKUP_68 && c->cl->level.protocol <= 71) {
        /* the same for a powerup's pickup sound: on the listener's entity (q3_sound.c) */
        q3_ent on = *e;
        on.number = (uint16_t)c->listener;
        q3_event_sound(c->cl, &on, ev, org);
    } else if (!(ev == Q3_EV_FIRE_WEAPON_68 && e->f[Q3_ES_WEAPON] == Q3_WP_LIGHTNING &&
                 firing)) {
        /* weapon, item and player sounds: q3_sound.c; the lightning gun sounds only on
         * its initial press (cg_weapons.c CG_FireWeapon), the hum goes on while it fires */
        q3_event_sound(c->cl, e, ev, org);
    }
}

/* cg_event.c CG_CheckEvents: a temporary event entity (eType ET_EVENTS + n) fires n when
 * it shows up; another entity fires when its event value (with the toggle bits) changes. */
static void check_event(ctx *c, const q3_ent *e, int32_t server_time, uint8_t *now_present)
{
    q3_state *s = c->s;
    int n = e->number, type = e->f[Q3_ES_ETYPE];
    int was = (s->ev_present[n >> 3] >> (n & 7)) & 1;
    now_present[n >> 3] |= (uint8_t)(1 << (n & 7));
    /* cg_snapshot.c CG_ResetEntity: an entity back after more than EVENT_VALID_MSEC forgets
     * its last event; one back sooner (out of the PVS for a moment) fires it not again */
    if (!was && (int64_t)server_time - s->ev_left_ms[n] > Q3_EVENT_VALID_MSEC)
        s->ev_last[n] = 0;
    int ev = -1;
    /* dm3 has no ET_TEAM: its ET_EVENTS is 12 [Q3OLD] */
    int et_events = s->old == Q3_OLD_DM3 ? Q3_ET_EVENTS - 1 : Q3_ET_EVENTS;
    if (type >= et_events) {
        if (s->ev_last[n] != (uint16_t)type)
            ev = event_68(c, type - et_events);
        s->ev_last[n] = (uint16_t)type;
    } else {
        uint16_t v = (uint16_t)e->f[Q3_ES_EVENT];
        if ((v & ~Q3_EV_EVENT_BITS) && s->ev_last[n] != v)
            ev = event_68(c, v & ~Q3_EV_EVENT_BITS);
        s->ev_last[n] = v;
    }
    if (ev <= 0)
        return;
    int firing = 0;
    if (ev == Q3_EV_FIRE_WEAPON_68) { /* its state as last drawn, still the client's */
        cl_entity shown;
        cl_entity_settled(c->cl, n + 1, &shown);
        firing = (shown.cur.fx & CL_FX_MUZZLE) != 0; /* EF_FIRING (q3_eflags_fx) */
    }
    /* a player's event sent as a temporary entity fires as the player's (its number set
     * to otherEntityNum); the centity, and so lightningFiring, stays the temporary one's */
    int other = e->f[Q3_ES_OTHERENTITYNUM];
    if (type >= et_events && (e->f[Q3_ES_EFLAGS] & Q3_EF_PLAYER_EVENT) &&
        c->cl->level.protocol <= 71 && other >= 0 && other < Q3_MAX_GENTITIES) {
        q3_ent on = *e;
        on.number = (uint16_t)other;
        entity_event(c, &on, ev, firing);
        return;
    }
    entity_event(c, e, ev, firing);
}

/* 1 when a trajectory type moves the entity in time (TR_LINEAR_STOP until it stops). */
static int type_moves(int type)
{
    return type == Q3_TR_LINEAR || type == Q3_TR_LINEAR_STOP || type == Q3_TR_SINE ||
           type == Q3_TR_GRAVITY;
}

/* q3_ent.still: not a body (whose swing steps every frame), and neither trajectory moves
 * it: the same at every time, so an entity the delta left as it was shown is kept whole
 * without a further look (emit_frame). */
static uint8_t entity_still(const q3_ent *e)
{
    return e->f[Q3_ES_ETYPE] != Q3_ET_PLAYER && !type_moves(pos_type(e, 0)) &&
           !type_moves(pos_type(e, 1));
}

/* The trajectory gives the same result at serverTimes t1 and t2 (cl_traj_eval): it does not
 * depend on the time, or it is a TR_LINEAR_STOP that had stopped at both. */
static int traj_same(const q3_ent *e, int apos, int32_t t1, int32_t t2)
{
    int type = pos_type(e, apos);
    if (type == Q3_TR_LINEAR_STOP) {
        int64_t end = (int64_t)e->f[apos ? Q3_ES_APOS_TRTIME : Q3_ES_POS_TRTIME] +
                      e->f[apos ? Q3_ES_APOS_TRDURATION : Q3_ES_POS_TRDURATION];
        return t1 >= end && t2 >= end;
    }
    return type != Q3_TR_LINEAR && type != Q3_TR_SINE && type != Q3_TR_GRAVITY;
}

/* A body's legs and torso turning after its view (q3_body.c), every frame it is in, kept or
 * not: the view is its apos trajectory at t; a body new to the frame or teleported starts
 * aligned. Only a client's live body, whose entity number is its client number
 * (g_client.c ClientSpawn): its corpse (CopyToBodyQue: a body-queue entity with the same
 * clientNum, powerups cleared) turns on its own in cgame (cent->pe), so it must not step
 * the slot's swing or shells (the renderer draws it from its own angles). */
static int entity_swing(ctx *c, const q3_ent *e, double t, int reset, cl_traj *apos,
                        float ang[3])
{
    int cn = e->f[Q3_ES_CLIENTNUM], n = e->number;
    if (cn < 0 || cn >= Q3_MAX_CLIENTS || n != cn)
        return 0;
    c->cl->players[cn].shells = shells_of(c, (uint32_t)e->f[Q3_ES_POWERUPS]);
    c->cl->players[cn].float_sprite = float_of(c, (uint32_t)e->f[Q3_ES_EFLAGS]);
    get_traj(c, e, 1, apos);
    cl_traj_eval(apos, t, ang);
    const float vel[3] = {q3_f(e->f[Q3_ES_POS_TRDELTA0]), q3_f(e->f[Q3_ES_POS_TRDELTA1]),
                          q3_f(e->f[Q3_ES_POS_TRDELTA2])};
    q3_body_swing(c->cl, cn, ang[1], ang[0], e->f[Q3_ES_LEGSANIM], e->f[Q3_ES_TORSOANIM],
                  move_dir(q3_f(e->f[Q3_ES_ANGLES2_1])),
                  (e->f[Q3_ES_EFLAGS] & Q3_EF_DEAD) != 0, reset, vel);
    return 1;
}

/* From entry i of f on, the entries emit_frame keeps without a look (untouched by the
 * delta, still, neither the recorder's body cn nor the one shown last): counted into
 * *carried. Returns the first entry that needs the look (f->count: none). Its own loop,
 * out of emit_frame's many live values, keeps its state in registers (about half the
 * instructions an entry). */
static uint32_t still_run(dd_store v, const dd_frame *f, uint32_t i, const uint8_t *fresh,
                          int cn, int shown_cn, int *carried)
{
    int k = 0;
    for (; i < f->count && !fresh[i]; i++) {
        const q3_ent *e = dd_ent(v, f, i);
        if (!e->still || e->number == cn || e->number == shown_cn)
            break;
        k++;
    }
    *carried += k;
    return i;
}

/* dd_diff_shown out of line: inline, its loop took registers from emit_frame's own. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int diff_shown(dd_store v, const dd_frame *f, const dd_frame *sh, uint8_t *changed,
                      uint16_t *gone)
{
    return dd_diff_shown(v, f, sh, changed, gone);
}

/* The level's clock (CS_LEVEL_START_TIME) on the demo's. */
static void set_clock(ctx *c)
{
    c->cl->has_clock = c->s->have_level_start;
    c->cl->clock_start = ((double)c->s->level_start - c->s->time0) / 1000.0;
}

/* Show snapshot f (serverTime server_time). fresh[i] tells whether the delta touched entity
 * i (an entity it did not touch is its source's state); old_sorted whether the source's
 * entity numbers increase. When f was delta'd from the snapshot the client got last
 * (dd_from_shown), an untouched entity whose trajectories give the same at the new time is
 * only kept: it would be sent exactly as it was. Excluded, as their client state may not
 * be that entity's last state: entities under a teleport flag (which snaps), the
 * recorder's body (the playerState overwrites it), and frames with repeated entity
 * numbers. */
static void emit_frame(ctx *c, const dd_frame *f, int32_t server_time, const q3_ps *ps,
                       int old_sorted, const uint8_t *fresh, const uint16_t *gone, int ngone)
{
    q3_state *s = c->s;
    dd_store v = STORE(s);
    if (!s->have_time0) {
        s->have_time0 = 1;
        s->time0 = server_time;
    } else if (s->rebase) {
        /* the first snapshot of a later level: its server time may start anywhere, so the
         * demo clock goes on one nominal frame (50 ms) after the last frame */
        s->time0 = (int64_t)server_time - (int64_t)llround(s->time * 1000.0) - 50;
    }
    s->rebase = 0;
    c->cl->level.server_time0 = -(double)s->time0 / 1000.0; /* (serverTime 0 on the demo's clock) */
    c->cl->level.has_server_time = 1;
    double t = ((double)server_time - s->time0) / 1000.0;
    if (s->frames && t <= s->time) {
        /* A snapshot of the same server frame (a server sends one per client packet when
         * the client's rate allows, udt_baseq3_1_map_2_matches.dm_68 has three per frame):
         * the world is the same, only the recorder's playerState moved on. Time never
         * steps back. */
        (void)run_pending(c);
        set_clock(c);
        emit_ps(c, ps, 0);
        return;
    }
    s->time = t;
    s->frames++;
    int cn = ps_client(c, ps);
    c->listener = cn;
    int keep = dd_from_shown(v, f) && old_sorted && f->sorted;
    /* Not delta'd from the shown snapshot (a server deltas from the last one the client
     * acknowledged, often a few back: most of the Quake Live duel's snapshots), but that
     * snapshot is still whole in the ring: an entity equal to its entry there, field for
     * field, is unchanged for the client too, as an untouched one is below, and the shown
     * snapshot's entities missing here are its removals. Found so in one walk of both
     * sorted lists (dd_diff_shown), the frame is kept as one delta'd from the shown one:
     * the walk costs a few instructions an entity where each entity's own look at the shown
     * one cost about 150. */
    uint8_t same_fresh[Q3_MAX_SNAP_ENTITIES];
    uint16_t same_gone[Q3_MAX_SNAP_ENTITIES];
    const dd_frame *sh = keep || !f->sorted ? NULL : dd_shown_frame(v);
    if (sh && sh->count <= Q3_MAX_SNAP_ENTITIES && f->count <= Q3_MAX_SNAP_ENTITIES) {
        ngone = diff_shown(v, f, sh, same_fresh, same_gone);
        fresh = same_fresh;
        gone = same_gone;
        keep = 1;
    }
    cl_frame_begin(c->cl, t);
    /* Delta'd from the shown snapshot, every entity of it is in the client's last list
     * (emitted and listed, or kept) and its removals are known: the untouched entities that
     * would be kept are kept whole (cl_list_keep_rest) without a look at their client state.
     * Their events need no look either: unchanged since the snapshot that fired them. */
    cl_list_begin(c->cl);
    for (int i = 0; keep && i < ngone; i++)
        cl_list_leave(c->cl, gone[i] + 1);
    int carried = 0;
    (void)run_pending(c); /* the message's commands, at this frame's time */
    set_clock(c);         /* (a level start among them counts from now) */
    /* cg_snapshot.c CG_TransitionSnapshot sets cg.snap before CG_CheckEvents: the events of
     * this snapshot see this playerState's flags (the CTF announcer) */
    ps_flags_of(c, ps);
    /* The entities of this snapshot. Kept from the shown one (keep), they are the shown
     * one's (ev_present) less its removals and with the entities the loop looks at (each
     * one either untouched, so in the shown snapshot, or set by check_event) */
    uint8_t present[sizeof s->ev_present];
    if (keep) {
        memcpy(present, s->ev_present, sizeof present);
        for (int i = 0; i < ngone; i++)
            present[gone[i] >> 3] &= (uint8_t)~(1u << (gone[i] & 7));
    } else {
        memset(present, 0, sizeof present);
    }
    for (uint32_t i = 0; i < f->count; i++) {
        if (keep) { /* most of a frame: untouched still entities, passed in a tight loop */
            i = still_run(v, f, i, fresh, cn, s->shown_cn, &carried);
            if (i >= f->count)
                break;
        }
        const q3_ent *e = dd_ent(v, f, i);
        int n = e->number, untouched = keep && !fresh[i];
        cl_traj apos; /* a body's view, made once for the swing and the emit */
        float ang[3];
        /* a teleport: EF_TELEPORT_BIT toggled against the state shown (CG_SetNextSnap);
         * none in an entity the delta left as it was shown */
        int tele = 0, was = untouched || ((s->ev_present[n >> 3] >> (n & 7)) & 1);
        if (!untouched) {
            uint8_t bit = (uint8_t)(1 << (n & 7)),
                    tb = (e->f[Q3_ES_EFLAGS] & Q3_EF_TELEPORT_BIT) ? bit : 0;
            tele = was && (s->tele_shown[n >> 3] & bit) != tb;
            s->tele_shown[n >> 3] = (uint8_t)((s->tele_shown[n >> 3] & ~bit) | tb);
        }
        int made = e->f[Q3_ES_ETYPE] == Q3_ET_PLAYER &&
                   entity_swing(c, e, t, tele || !was, &apos, ang);
        int kept = untouched && !tele && e->number != cn && e->number != s->shown_cn &&
                   traj_same(e, 0, s->shown_time, server_time) &&
                   traj_same(e, 1, s->shown_time, server_time);
        if (kept && keep) {
            carried++;
            continue;
        }
        check_event(c, e, server_time, present);
        if (kept && cl_entity_keep(c->cl, e->number + 1))
            continue;
        emit_entity(c, e, tele, t, made ? &apos : NULL, made ? ang : NULL);
        cl_list_add(c->cl, e->number + 1);
    }
    if (keep)
        cl_list_keep_rest(c->cl, carried);
    /* An entity that left was last shown at shown_time (its events, check_event). Sixteen
     * bytes of the two bitmaps at a time, where most hold no leaver (flight_ended reads
     * neither map). */
    for (size_t k = 0; k < sizeof present; k += 16) {
#if defined(__SSE2__)
        const __m128i left = _mm_andnot_si128(_mm_loadu_si128((const __m128i *)(present + k)),
                                              _mm_loadu_si128((const __m128i *)(s->ev_present + k)));
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(left, _mm_setzero_si128())) == 0xffff)
            continue;
#endif
        for (size_t h = k; h < k + 16; h += 8) {
            uint64_t was, now;
            memcpy(&was, s->ev_present + h, 8);
            memcpy(&now, present + h, 8);
            for (uint64_t gone = was & ~now; gone; gone &= gone - 1) {
                size_t n = h * 8 + (size_t)__builtin_ctzll(gone);
                s->ev_left_ms[n] = s->shown_time;
                flight_ended(c, (int)n + 1, NULL);
            }
        }
    }
    memcpy(s->ev_present, present, sizeof present);
    emit_ps(c, ps, 1);
    cl_frame_end(c->cl, CL_DROP_ALL);
    dd_shown(v, f);
    s->shown_time = server_time;
    s->shown_cn = cn;
}

/* The delta source of the snapshot in block seq, delta blocks back (0: none): its ring
 * frame, or after damage (resynced) the newest usable one in its stead. NULL with *valid 0
 * when it is gone: the snapshot is parsed against nothing and not shown [DM68 10]. */
static const dd_frame *delta_source(q3_state *s, int delta, int *valid)
{
    dd_store v = STORE(s);
    *valid = 1;
    if (!delta)
        return NULL;
    const dd_frame *old = dd_source(v, (uint32_t)s->seq - (uint32_t)delta);
    if (old || !s->resynced) {
        *valid = old != NULL;
        return old;
    }
    /* Its source was in the damaged bytes: the newest snapshot kept stands in, so the demo
     * plays on past the damage. */
    for (int i = 0; i < Q3_PACKET_BACKUP; i++) {
        const dd_frame *k = &v.frames[i];
        if ((int32_t)k->seq < s->seq && dd_usable(v, k) &&
            (!old || (int32_t)k->seq > (int32_t)old->seq))
            old = k;
    }
    *valid = old != NULL;
    return old;
}

static qd_err over_limit(ctx *c)
{
    return fail(c, QD_ERR_LIMIT, here(c), "snapshot over %d entities", Q3_MAX_SNAP_ENTITIES);
}

static qd_err parse_snapshot(ctx *c)
{
    q3_state *s = c->s;
    if (!s->have_level)
        return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_snapshot before svc_gamestate");
    if (s->old == Q3_OLD_DM3)
        (void)q3_read_bits(&c->b, 32); /* [Q3OLD] the client command sequence */
    /* (the inline reader where a snapshot reads: its constant widths fold it) */
    int32_t server_time = q3_read_bits_in(&c->b, 32);
    int delta = q3_read_bits_in(&c->b, 8), valid;
    const dd_frame *old = delta_source(s, delta, &valid);
    int old_sorted = old && old->sorted;
    int flags = q3_read_bits_in(&c->b, 8);
    int area = q3_read_bits_in(&c->b, 8);
    if (area > Q3_MAX_AREA_BYTES)
        return fail(c, QD_ERR_BAD_DATA, here(c), "areamask of %d bytes (at most %d)", area,
                    Q3_MAX_AREA_BYTES);
    if (c->b.plain)
        q3_bits_align(&c->b); /* ioEF-cmod's compat MSG_ReadData rounds to a byte [Q3OLD] */
    for (int i = 0; i < area; i++)
        (void)q3_read_bits_in(&c->b, 8);
    q3_ps ps;
    const q3_ps *ps_from = old ? &s->ps_ring[old->seq & Q3_PACKET_MASK] : NULL;
    if (q3_read_delta_ps_by(&c->b, c->p->ps, ps_from, &ps) < 0)
        return fail(c, QD_ERR_BAD_DATA, here(c), "playerState field count over %d",
                    c->p->ps->n);
    if (q3_bits_err(&c->b))
        return damaged(c, "svc_snapshot playerState");

    /* The entities: the new list is the old one merged with the numbered updates. */
    dd_merge m;
    dd_merge_begin(&m, STORE(s), old, (uint32_t)s->seq);
    uint8_t fresh[Q3_MAX_SNAP_ENTITIES]; /* entity i was read from the message */
    memset(fresh, 0, sizeof fresh);
    uint16_t gone[Q3_MAX_SNAP_ENTITIES]; /* the source's entities the message removed */
    int ngone = 0;
    int named = 0; /* entities the message named (changed or removed) */
    for (;;) {
        int num = q3_read_bits_in(&c->b, Q3_GENTITYNUM_BITS);
        if (q3_bits_err(&c->b))
            return damaged(c, "svc_snapshot entities");
        int last = num == Q3_ENTITYNUM_NONE;
        if (last && !named && old)
            break; /* all unchanged: dd_repeat below, nothing carried */
        /* old entities before num are unchanged */
        if (dd_merge_carry(&m, last ? DD_NONE : num))
            return over_limit(c);
        if (last)
            break;
        const q3_ent *from = dd_merge_old(&m, num);
        q3_ent e;
        const q3_ent *base = from ? from : &s->baselines[num];
        int r = q3_read_delta_entity_by(&c->b, c->p->es, base, &e, num);
        if (q3_bits_err(&c->b))
            return damaged(c, "svc_snapshot entities");
        if (r < 0)
            return fail(c, QD_ERR_BAD_DATA, here(c), "entity %d: field count over %d", num,
                        c->p->es->n);
        named++;
        if (r == 1) { /* removed */
            if (from) {
                dd_merge_skip(&m);
                if (ngone < Q3_MAX_SNAP_ENTITIES) /* (each was one of the source's) */
                    gone[ngone++] = (uint16_t)num;
            }
            continue;
        }
        q3_ent *to = dd_merge_put(&m, num);
        if (!to)
            return over_limit(c);
        fresh[m.nf.count - 1] = 1;
        e.still = entity_still(&e);
        *to = e;
    }
    /* Nothing named (a second snapshot of the same server frame, most often): the new
     * snapshot shares the old one's refs instead of copying them. */
    const dd_frame *f = old && !named ? dd_repeat(STORE(s), old, (uint32_t)s->seq, valid)
                                      : dd_merge_end(&m, valid);
    if (!f) /* cannot happen: the rest was carried above (or shared) */
        return over_limit(c);
    s->ps_ring[f->seq & Q3_PACKET_MASK] = ps;
    if (valid)
        s->resynced = 0; /* whole again: deltas must name their real source */
    /* the raw playerState numbers a HUD shows (bg_public.h stats[STAT_HEALTH],
     * stats[STAT_ARMOR], weapon, ammo[weapon], persistant[PERS_SCORE]) and its events
     * (eventSequence: events[0],events[1], externalEvent) */
    TRACE(c, "svc_snapshot",
          "serverTime=%d delta=%d flags=%d entities=%d client=%d health=%d armor=%d "
          "weapon=%d ammo=%d score=%d events=%d:%d,%d external=%d%s",
          server_time, delta, flags, f->count, ps.f[Q3_PS_CLIENTNUM],
          ps.stats[Q3_STAT_HEALTH], ps.stats[stat_armor(c)], ps.f[Q3_PS_WEAPON],
          ps.f[Q3_PS_WEAPON] >= 0 && ps.f[Q3_PS_WEAPON] < 16 ? ps.ammo[ps.f[Q3_PS_WEAPON]] : 0,
          ps.persistant[Q3_PERS_SCORE], ps.f[Q3_PS_EVENTSEQUENCE], ps.f[Q3_PS_EVENTS0],
          ps.f[Q3_PS_EVENTS1], ps.f[Q3_PS_EXTERNALEVENT], valid ? "" : " (delta source gone)");
    s->snap_flags = flags;
    if (valid)
        emit_frame(c, f, server_time, &s->ps_ring[f->seq & Q3_PACKET_MASK], old_sorted, fresh,
                   gone, ngone);
    return QD_OK;
}

/* ---- one block ---- */

static const char *svc_name(int cmd)
{
    static const char *const n[] = {"svc_bad",      "svc_nop",           "svc_gamestate",
                                    "svc_configstring", "svc_baseline", "svc_serverCommand",
                                    "svc_download", "svc_snapshot",      "svc_EOF"};
    return cmd >= 0 && cmd < 9 ? n[cmd] : "svc_unknown";
}

static qd_err parse_message(ctx *c)
{
    if (c->s->old != Q3_OLD_DM3)
        (void)q3_read_bits_in(&c->b, 32); /* reliableAcknowledge (dm3 has none [Q3OLD]) */
    for (;;) {
        if (c->b.plain) { /* [Q3OLD] each command starts on a byte; the data's end ends it */
            q3_bits_align(&c->b);
            if (!q3_bits_left(&c->b))
                return q3_bits_err(&c->b) ? damaged(c, "the message") : run_pending(c);
        }
        c->msg_ofs = here(c);
        int cmd = q3_read_bits_in(&c->b, 8);
        if (q3_bits_err(&c->b))
            return damaged(c, "the message");
        qd_err e = QD_OK;
        switch (cmd) {
        case Q3_SVC_EOF:
            return run_pending(c);
        case Q3_SVC_BAD:
            if (c->s->old)
                return run_pending(c); /* [Q3OLD] svc_bad ends a message */
            return fail(c, QD_ERR_BAD_DATA, c->msg_ofs, "svc_bad (0) in a demo message");
        case Q3_SVC_NOP:
            break;
        case Q3_SVC_GAMESTATE:
            e = run_pending(c); /* (the level they were sent in, before the new one) */
            if (!e)
                e = parse_gamestate(c);
            break;
        case Q3_SVC_SERVERCOMMAND:
            e = parse_servercommand(c);
            break;
        case Q3_SVC_SNAPSHOT:
            e = parse_snapshot(c);
            break;
        default:
            return fail(c, cmd == 9 || cmd == 10 ? QD_ERR_UNSUPPORTED : QD_ERR_BAD_DATA,
                        c->msg_ofs, "%s (%d) in a demo message",
                        cmd == 9 || cmd == 10 ? "ioquake3 svc_voip" : svc_name(cmd), cmd);
        }
        if (e)
            return e;
    }
}

static qd_err q3_block(ctx *c, const uint8_t *data, size_t len, int *done)
{
    q3_state *s = c->s;
    uint64_t at = s->pos;
    if (at >= len) /* Q3 writes the marker when a recording stops (cl_main.c CL_StopRecord_f) */
        return fail(c, QD_ERR_TRUNCATED, at,
                    "end marker missing: the demo ends after block %u without the -1/-1 "
                    "end block", s->block);
    rd_t h = rd_make(data + at, len - at);
    int32_t seq = rd_s32(&h);
    int32_t n = rd_s32(&h);
    if (h.err)
        return fail(c, QD_ERR_TRUNCATED, at, "block %u: header cut off (%zu bytes left)",
                    s->block, (size_t)(len - at));
    /* the end: -1 -1 (cl_main.c CL_StopRecord_f writes both; CL_ReadDemoMessage looks only
     * at the length), or either -1 in the file's last 8 bytes. Elsewhere a sequence or a
     * length of -1 alone is damage, skipped like any (reviews: one damaged sequence, then
     * one damaged length, ended the demo there in silence; a sequence of -1 taken as a
     * message left every later snapshot without its delta source). */
    if ((n == -1 && seq == -1) || ((n == -1 || seq == -1) && len - at == 8)) {
        s->pos = at + 8;
        s->ended = 1;
        *done = 1;
        TRACE(c, "end", "end of demo marker");
        return QD_OK;
    }
    if (n == -1) /* (a review: a damaged length of -1 had ended the demo there in silence) */
        return fail(c, QD_ERR_BAD_DATA, at + 4, "block %u: length -1 (an end marker's) after "
                    "sequence %d, %llu bytes before the file's end", s->block, seq,
                    (unsigned long long)(len - at));
    if (n <= 0 || n > Q3_MAX_MSGLEN)
        return fail(c, QD_ERR_BAD_DATA, at + 4, "block %u: message length %d (1..%d)", s->block,
                    n, Q3_MAX_MSGLEN);
    if (seq == -1)
        return fail(c, QD_ERR_BAD_DATA, at, "block %u: sequence -1 (an end marker's) before a "
                    "%d-byte message", s->block, n);
    if ((size_t)n > rd_left(&h))
        return fail(c, QD_ERR_TRUNCATED, at, "block %u: %d-byte message, only %zu bytes left",
                    s->block, n, rd_left(&h));
    s->seq = seq;
    c->base = at + 8;
    q3_bits_init(&c->b, data + at + 8, (size_t)n);
    c->b.plain = s->old != Q3_OLD_NONE;
    s->pos = at + 8 + (uint64_t)n;
    qd_err e = parse_message(c);
    if (e && c->npending) {
        /* The commands read whole before the damage still run, at the message's end (their
         * sequence numbers are taken: resent, they would be "seen"; a review). The error
         * reported is the damage's. */
        qd_error keep = *c->err;
        (void)run_pending(c);
        *c->err = keep;
    }
    return e;
}

/* ---- the decoder interface ---- */

static int plain_shape(const uint8_t *data, size_t len);
static int huffman_gamestate(const uint8_t *data, size_t len);

static qd_err q3_init(void *state, const uint8_t *data, size_t len, qd_error *err)
{
    (void)err;
    q3_state *s = state;
    s->bcs_index = -1;
    /* [Q3OLD] the first block tells a 43..48 file (plain bits) from a 66-on one */
    s->old = (uint8_t)(huffman_gamestate(data, len) ? Q3_OLD_NONE : plain_shape(data, len));
    return QD_OK;
}

static qd_err q3_step(void *state, const uint8_t *data, size_t len, cl_state *cl,
                      const demo_trace *trace, int *done, qd_error *err)
{
    q3_state *s = state;
    *done = 0;
    if (s->ended) { /* demo_step stops after the end; a direct caller sees the end again */
        *done = 1;
        return QD_OK;
    }
    /* on the stack (about 9.7 KB, the big-configstring buffer): no allocation a message;
     * str and esc are written before they are read */
    ctx cx, *c = &cx;
    memset(c, 0, offsetof(ctx, str));
    c->s = s;
    c->p = s->old ? q3_proto_old(s->old) : q3_proto_find(s->protocol);
    if (!c->p)
        c->p = q3_proto_68();
    c->cl = cl;
    c->trace = trace && trace->msg ? trace : NULL;
    c->err = err;
    qd_err e = q3_block(c, data, len, done);
    s->block++;
    return e; /* demo_step stops here, or resumes (q3_resume) */
}

static uint64_t q3_offset(const void *state) { return ((const q3_state *)state)->pos; }

static int q3_protocol(const void *state) { return ((const q3_state *)state)->protocol; }
static int q3_ended(const void *state) { return ((const q3_state *)state)->ended; }

/* [DM68]: int32 sequence, int32 size, size bytes of Huffman-coded message; -1/-1 the end. */
static int q3_block_at(const uint8_t *data, size_t len, uint64_t pos, int strict,
                       uint64_t *size)
{
    (void)strict; /* the framing is all there is to check */
    if (pos >= len || len - pos < 8)
        return DEMO_BLOCK_NONE;
    rd_t h = rd_make(data + pos, 8);
    int32_t seq = rd_s32(&h);
    int32_t n = rd_s32(&h);
    *size = 8;
    if ((seq == -1 && n == -1) || ((seq == -1 || n == -1) && len - pos == 8))
        return DEMO_BLOCK_END; /* (q3_block's rule: a review found them apart) */
    if (seq < 0 || n <= 0 || n > Q3_MAX_MSGLEN)
        return DEMO_BLOCK_NONE;
    if ((uint64_t)n > len - pos - 8)
        return DEMO_BLOCK_CUT;
    *size = 8 + (uint64_t)n;
    return DEMO_BLOCK_WHOLE;
}

static void q3_resume(void *state, uint64_t pos)
{
    q3_state *s = state; /* demo.c closed the client's frame */
    s->pos = pos;
    s->resynced = 1;
}

/* ---- detection ---- */

/* The protocol the extension .dm_NN names (43..48, 66..73, 90, 91; .dm3 43), or 0. */
static int ext_protocol(const char *name)
{
    if (!name)
        return 0;
    size_t n = strlen(name);
    if (n >= 4 && name[n - 4] == '.' && (name[n - 3] | 32) == 'd' && (name[n - 2] | 32) == 'm' &&
        name[n - 1] == '3')
        return 43;
    if (n < 6)
        return 0;
    const char *e = name + n - 6;
    if (e[0] != '.' || (e[1] != 'd' && e[1] != 'D') || (e[2] != 'm' && e[2] != 'M') ||
        e[3] != '_' || e[4] < '0' || e[4] > '9' || e[5] < '0' || e[5] > '9')
        return 0;
    int p = (e[4] - '0') * 10 + (e[5] - '0');
    return (p >= 43 && p <= 48) || (p >= 66 && p <= 73) || p == 90 || p == 91 ? p : 0;
}

/* The first block's message and how much of it the file holds; 0 when its header is not a
 * block's. */
static size_t first_message(const uint8_t *data, size_t len, const uint8_t **msg)
{
    rd_t h = rd_make(data, len);
    int32_t seq = rd_s32(&h);
    int32_t n = rd_s32(&h);
    if (h.err || seq < 0 || n <= 0 || n > Q3_MAX_MSGLEN)
        return 0;
    /* A file cut inside its first block still shows its gamestate: decode what is there. */
    *msg = data + 8;
    return (size_t)n < rd_left(&h) ? (size_t)n : rd_left(&h);
}

/* The first message decodes, through the Huffman code, to svc_gamestate followed by a
 * configstring or the end of the gamestate (after up to 8 server commands). */
static int huffman_gamestate(const uint8_t *data, size_t len)
{
    const uint8_t *m;
    size_t have = first_message(data, len, &m);
    if (!have)
        return 0;
    q3_bits b;
    q3_bits_init(&b, m, have);
    (void)q3_read_bits(&b, 32);
    int cmd = q3_read_bits(&b, 8);
    for (int i = 0; i < 8 && cmd == Q3_SVC_SERVERCOMMAND && !q3_bits_err(&b); i++) {
        (void)q3_read_bits(&b, 32);
        int ch;
        int k = 0;
        do
            ch = q3_huff_byte(&b);
        while (ch && !q3_bits_err(&b) && ++k < Q3_MAX_STRING_CHARS);
        cmd = q3_read_bits(&b, 8);
    }
    if (cmd != Q3_SVC_GAMESTATE)
        return 0;
    (void)q3_read_bits(&b, 32);
    int next = q3_read_bits(&b, 8);
    if (q3_bits_err(&b))
        return 0;
    if (next == Q3_SVC_CONFIGSTRING) {
        int index = q3_read_bits(&b, 16);
        return !q3_bits_err(&b) && index >= 0 && index < Q3_MAX_CONFIGSTRINGS;
    }
    return next == Q3_SVC_BASELINE || next == Q3_SVC_EOF;
}

/* [Q3OLD] The shape of a first message in plain bits, or Q3_OLD_NONE: it starts (dm3 at
 * once, dm_48 after its 32-bit reliableAcknowledge), after up to 8 server commands, with
 * svc_gamestate, its 32-bit command sequence and a configstring whose text is printable up
 * to its NUL or the file's end, at least 8 characters with a backslash among them (an
 * info string: the serverinfo comes first). */
static int plain_shape(const uint8_t *data, size_t len)
{
    const uint8_t *m;
    size_t have = first_message(data, len, &m);
    for (int shape = Q3_OLD_DM3; have && shape <= Q3_OLD_48; shape++) {
        size_t at = shape == Q3_OLD_48 ? 4 : 0;
        for (int k = 0; k < 8 && at < have && m[at] == Q3_SVC_SERVERCOMMAND; k++) {
            for (at += 5; at < have && m[at]; at++)
                ;
            at++;
        }
        if (at >= have || have - at < 8 || m[at] != Q3_SVC_GAMESTATE ||
            m[at + 5] != Q3_SVC_CONFIGSTRING || (m[at + 6] | m[at + 7] << 8) >= Q3_MAX_CONFIGSTRINGS)
            continue;
        size_t k = at + 8, start = k;
        int slash = 0;
        for (; k < have && m[k] >= 32 && m[k] < 127; k++)
            slash |= m[k] == '\\';
        if ((k == have || m[k] == 0) && k - start >= 8 && slash)
            return shape;
    }
    return Q3_OLD_NONE;
}

/* Content evidence: a first block of sane size (possibly cut off by the file's end) whose
 * message is a gamestate's start, Huffman-coded (66 on) or in plain bits (43..48) (9). The
 * extension alone is weak (1). */
static int q3_probe(const uint8_t *data, size_t len, const char *filename)
{
    if (huffman_gamestate(data, len) || plain_shape(data, len))
        return 9;
    return ext_protocol(filename) ? 1 : 0;
}

const demo_decoder demo_q3_decoder = {
    "dm3", DEMO_FMT_DM3, sizeof(q3_state), q3_probe, q3_init, q3_step, q3_offset, q3_protocol, q3_ended,
    q3_block_at, q3_resume, NULL, 0, NULL,
};
