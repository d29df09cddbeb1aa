/* q2_rules.c: Quake II's rules as tables: ClientObituary lines, chat lines, HUD icon and view
 * weapon names, temp entity kinds (facts from id's GPL Quake II 3.21 game/p_client.c,
 * game/g_items.c, client/cl_tent.c; phrases checked against realdata/dm2). */
#include "q2_rules.h"

#include <string.h>

/* ---- names ---- */

typedef struct name_kind {
    const char *name;
    uint8_t kind;
} name_kind;

/* HUD icons [g_items.c itemlist: icon of each armour, ammo and powerup]. */
static const name_kind images[] = {
    {"i_jacketarmor", Q2_NK_ARMOR | CL_ARMOR_LIGHT},
    {"i_combatarmor", Q2_NK_ARMOR | CL_ARMOR_MEDIUM},
    {"i_bodyarmor", Q2_NK_ARMOR | CL_ARMOR_HEAVY},
    {"i_powershield", Q2_NK_ARMOR | CL_ARMOR_SHIELD},
    {"i_powerscreen", Q2_NK_ARMOR | CL_ARMOR_SHIELD},
    {"a_shells", Q2_NK_AMMO | CL_AMMO_SHELLS},
    {"a_bullets", Q2_NK_AMMO | CL_AMMO_BULLETS},
    {"a_grenades", Q2_NK_AMMO | CL_AMMO_GRENADES},
    {"a_rockets", Q2_NK_AMMO | CL_AMMO_ROCKETS},
    {"a_cells", Q2_NK_AMMO | CL_AMMO_CELLS},
    {"a_slugs", Q2_NK_AMMO | CL_AMMO_SLUGS},
    {"p_quad", Q2_NK_POWERUP | CL_PU_QUAD},
    {"p_invulnerability", Q2_NK_POWERUP | CL_PU_INVULN},
    {"p_envirosuit", Q2_NK_POWERUP | CL_PU_SUIT},
    {"p_rebreather", Q2_NK_POWERUP | CL_PU_SUIT}, /* underwater air, as the suit gives */
};

/* View weapon models "models/weapons/v_<dir>/tris.md2" [g_items.c view_model]. */
static const name_kind view_models[] = {
    {"blast", CL_WP_BLASTER},       {"shotg", CL_WP_SHOTGUN},
    {"shotg2", CL_WP_SUPER_SHOTGUN}, {"machn", CL_WP_MACHINEGUN},
    {"chain", CL_WP_CHAINGUN},      {"handgr", CL_WP_HAND_GRENADE},
    {"launch", CL_WP_GRENADE_LAUNCHER}, {"rocket", CL_WP_ROCKET_LAUNCHER},
    {"hyperb", CL_WP_HYPERBLASTER}, {"rail", CL_WP_RAILGUN},
    {"bfg", CL_WP_BFG},
};

uint8_t q2_image_kind(const char *name)
{
    for (size_t i = 0; i < sizeof images / sizeof images[0]; i++)
        if (!strcmp(images[i].name, name))
            return images[i].kind;
    return 0;
}

uint8_t q2_model_weapon(const char *name)
{
    static const char prefix[] = "models/weapons/v_";
    if (strncmp(name, prefix, sizeof prefix - 1))
        return 0;
    const char *dir = name + sizeof prefix - 1, *slash = strchr(dir, '/');
    size_t n = slash ? (size_t)(slash - dir) : strlen(dir);
    for (size_t i = 0; i < sizeof view_models / sizeof view_models[0]; i++)
        if (strlen(view_models[i].name) == n && !strncmp(view_models[i].name, dir, n))
            return view_models[i].kind;
    return 0;
}

/* ---- obituaries [p_client.c ClientObituary] ----
 * A death by the world or oneself prints "<victim> <msg>.\n"; by another player
 * "<victim> <msg> <killer><msg2>\n". */

typedef struct obituary {
    const char *msg, *msg2; /* msg2 NULL: no killer (the line ends in ".") */
    uint8_t means, weapon;
} obituary;

static const obituary obituaries[] = {
    /* by the world */
    {"suicides", NULL, CL_MOD_SUICIDE, 0},
    {"cratered", NULL, CL_MOD_FALL, 0},
    {"was squished", NULL, CL_MOD_CRUSH, 0},
    {"sank like a rock", NULL, CL_MOD_WATER, 0},
    {"melted", NULL, CL_MOD_SLIME, 0},
    {"does a back flip into the lava", NULL, CL_MOD_LAVA, 0},
    {"blew up", NULL, CL_MOD_EXPLOSION, 0},
    {"found a way out", NULL, CL_MOD_TRIGGER, 0},
    {"saw the light", NULL, CL_MOD_TRIGGER, 0},
    {"got blasted", NULL, CL_MOD_TRIGGER, 0},
    {"was in the wrong place", NULL, CL_MOD_TRIGGER, 0},
    /* by oneself (his / her / its, himself / herself / itself by the model's gender) */
    {"tried to put the pin back in", NULL, CL_MOD_WEAPON, CL_WP_HAND_GRENADE},
    {"tripped on his own grenade", NULL, CL_MOD_SPLASH, CL_WP_GRENADE_LAUNCHER},
    {"tripped on her own grenade", NULL, CL_MOD_SPLASH, CL_WP_GRENADE_LAUNCHER},
    {"tripped on its own grenade", NULL, CL_MOD_SPLASH, CL_WP_GRENADE_LAUNCHER},
    {"blew himself up", NULL, CL_MOD_SPLASH, CL_WP_ROCKET_LAUNCHER},
    {"blew herself up", NULL, CL_MOD_SPLASH, CL_WP_ROCKET_LAUNCHER},
    {"blew itself up", NULL, CL_MOD_SPLASH, CL_WP_ROCKET_LAUNCHER},
    {"should have used a smaller gun", NULL, CL_MOD_WEAPON, CL_WP_BFG},
    {"killed himself", NULL, CL_MOD_SUICIDE, 0},
    {"killed herself", NULL, CL_MOD_SUICIDE, 0},
    {"killed itself", NULL, CL_MOD_SUICIDE, 0},
    /* by another player */
    {"was blasted by", "", CL_MOD_WEAPON, CL_WP_BLASTER},
    {"was gunned down by", "", CL_MOD_WEAPON, CL_WP_SHOTGUN},
    {"was blown away by", "'s super shotgun", CL_MOD_WEAPON, CL_WP_SUPER_SHOTGUN},
    {"was machinegunned by", "", CL_MOD_WEAPON, CL_WP_MACHINEGUN},
    {"was cut in half by", "'s chaingun", CL_MOD_WEAPON, CL_WP_CHAINGUN},
    {"was popped by", "'s grenade", CL_MOD_WEAPON, CL_WP_GRENADE_LAUNCHER},
    {"was shredded by", "'s shrapnel", CL_MOD_SPLASH, CL_WP_GRENADE_LAUNCHER},
    {"ate", "'s rocket", CL_MOD_WEAPON, CL_WP_ROCKET_LAUNCHER},
    {"almost dodged", "'s rocket", CL_MOD_SPLASH, CL_WP_ROCKET_LAUNCHER},
    {"was melted by", "'s hyperblaster", CL_MOD_WEAPON, CL_WP_HYPERBLASTER},
    {"was railed by", "", CL_MOD_WEAPON, CL_WP_RAILGUN},
    {"saw the pretty lights from", "'s BFG", CL_MOD_WEAPON, CL_WP_BFG},
    {"was disintegrated by", "'s BFG blast", CL_MOD_WEAPON, CL_WP_BFG},
    {"couldn't hide from", "'s BFG", CL_MOD_WEAPON, CL_WP_BFG},
    {"caught", "'s handgrenade", CL_MOD_WEAPON, CL_WP_HAND_GRENADE},
    {"didn't see", "'s handgrenade", CL_MOD_SPLASH, CL_WP_HAND_GRENADE},
    {"feels", "'s pain", CL_MOD_WEAPON, CL_WP_HAND_GRENADE},
    {"tried to invade", "'s personal space", CL_MOD_TELEFRAG, 0},
};

/* The length of the line without its trailing newline. */
static size_t line_len(const char *line)
{
    size_t n = strlen(line);
    return n && line[n - 1] == '\n' ? n - 1 : n;
}

/* The active player whose name starts s (longest name first: "ab" and "ab c" both playing);
 * followed by a space when `space`. Returns the slot and *len the name's length, or -1. */
static int name_at(const cl_state *cl, const char *s, size_t n, int space, size_t *len)
{
    int best = -1;
    size_t best_len = 0;
    for (int i = 0; i < CL_MAX_PLAYERS; i++) {
        const cl_player *p = &cl->players[i];
        size_t k = strnlen(p->name, sizeof p->name);
        if (!p->active || k == 0 || k <= best_len || k + (space != 0) > n ||
            memcmp(s, p->name, k) || (space && s[k] != ' '))
            continue;
        best = i;
        best_len = k;
    }
    *len = best_len;
    return best;
}

/* Does rest (n bytes) match msg + tail exactly? Returns the bytes after msg, or NULL. */
static const char *after(const char *s, size_t n, const char *msg, size_t *left)
{
    size_t k = strlen(msg);
    if (k > n || memcmp(s, msg, k))
        return NULL;
    *left = n - k;
    return s + k;
}

int q2_obituary(const cl_state *cl, const char *line, cl_event *ev)
{
    size_t n = line_len(line), vlen;
    int victim = name_at(cl, line, n, 1, &vlen);
    if (victim < 0)
        return 0;
    const char *rest = line + vlen + 1;
    size_t rn = n - vlen - 1;
    for (size_t i = 0; i < sizeof obituaries / sizeof obituaries[0]; i++) {
        const obituary *o = &obituaries[i];
        size_t left, klen;
        const char *p = after(rest, rn, o->msg, &left);
        int killer = -1;
        if (!p)
            continue;
        if (!o->msg2) {
            if (left != 1 || p[0] != '.')
                continue;
        } else {
            if (left < 2 || p[0] != ' ')
                continue;
            killer = name_at(cl, p + 1, left - 1, 0, &klen);
            size_t k2 = strlen(o->msg2);
            if (killer < 0 || left - 1 - klen != k2 || memcmp(p + 1 + klen, o->msg2, k2))
                continue;
        }
        memset(ev, 0, sizeof *ev);
        ev->kind = CL_EV_FRAG;
        ev->means = o->means;
        ev->weapon = o->weapon;
        ev->actor = (int8_t)killer;
        ev->target = (int8_t)victim;
        return 1;
    }
    return 0;
}

/* Copy n bytes of s as the event's text (cut to fit). */
static void set_text(cl_event *ev, const char *s, size_t n)
{
    if (n > sizeof ev->text - 1)
        n = sizeof ev->text - 1;
    memcpy(ev->text, s, n);
    ev->text[n] = 0;
}

int q2_chat(const cl_state *cl, const char *line, cl_event *ev)
{
    /* [g_cmds.c Cmd_Say_f]: "name: text\n", team chat "(name): text\n" */
    size_t n = line_len(line), k;
    int team = n > 0 && line[0] == '(';
    const char *s = line + team;
    int who = name_at(cl, s, n - (size_t)team, 0, &k);
    const char *sep = team ? "): " : ": ";
    size_t sl = strlen(sep);
    if (who < 0 || (size_t)team + k + sl > n || memcmp(s + k, sep, sl))
        return 0;
    memset(ev, 0, sizeof *ev);
    ev->kind = CL_EV_CHAT;
    ev->actor = (int8_t)who;
    ev->target = -1;
    ev->flags = team ? CL_EVF_TEAM : 0;
    size_t start = (size_t)team + k + sl;
    set_text(ev, line + start, n - start);
    return 1;
}

/* ---- temp entities [cl_tent.c CL_ParseTEnt: what each type draws, and how long] ---- */

enum { FX_NONE, FX_BOOM, FX_PORT, FX_BLOOD, FX_RAIL, FX_TRAIL, FX_LASER, FX_CABLE, FX_BOLT,
       FX_SPLASH, FX_LIGHT, FX_HIT, FX_BOOM_ROCKET, FX_BOOM_GRENADE, FX_BOOM_BIG, FX_STYLES };

/* Each style's kind, life (s), light radius and colour. */
static const struct {
    uint8_t kind;
    float life, radius;
    uint8_t rgb[3];
    uint8_t style; /* an explosion's model (CL_BOOM_*) */
} fx_styles[FX_STYLES] = {
    /* (lives: their particles' longest, r_part.c; an explosion's model's, 19 frames of
     * 100 ms from 100 ms before it came: 1.7 s, r_md2.c) */
    [FX_BOOM] = {CL_FXK_EXPLOSION, 1.0f, 350, {255, 128, 64}, CL_BOOM_NONE},
    /* CL_ParseTEnt's ex_poly explosions: the model's last frame (1.7 s); their light 350
     * in 1 0.5 0.5 (the renderer fades it with the model) */
    [FX_BOOM_ROCKET] = {CL_FXK_EXPLOSION, 1.7f, 350, {255, 128, 128}, CL_BOOM_ROCKET},
    [FX_BOOM_GRENADE] = {CL_FXK_EXPLOSION, 1.7f, 350, {255, 128, 128}, CL_BOOM_GRENADE},
    [FX_BOOM_BIG] = {CL_FXK_EXPLOSION, 1.7f, 350, {255, 128, 128}, CL_BOOM_BIG},
    [FX_PORT] = {CL_FXK_TELEPORT, 0.5f, 0, {255, 255, 255}},
    [FX_BLOOD] = {CL_FXK_BLOOD, 0.8f, 0, {255, 255, 255}},
    [FX_RAIL] = {CL_FXK_BEAM_RAIL, 1.0f, 0, {255, 255, 255}},
    [FX_TRAIL] = {CL_FXK_TRAIL, 0.5f, 0, {255, 255, 255}},
    [FX_LASER] = {CL_FXK_BEAM_LASER, 0.1f, 0, {255, 255, 255}},
    [FX_CABLE] = {CL_FXK_BEAM_GRAPPLE, 0.1f, 0, {255, 255, 255}},
    [FX_BOLT] = {CL_FXK_BEAM_LIGHTNING, 0.1f, 0, {255, 255, 255}},
    [FX_SPLASH] = {CL_FXK_SPLASH, 0.3f, 0, {255, 255, 255}},
    [FX_LIGHT] = {CL_FXK_DLIGHT, 0.1f, 400, {255, 255, 255}},
    [FX_HIT] = {CL_FXK_IMPACT, 0.8f, 0, {255, 255, 255}},
};

/* TE_* (q_shared.h temp_event_t, protocol 34 numbering) to a style. */
static const uint8_t te_style[56] = {
    FX_HIT,   /* 0 GUNSHOT */        FX_BLOOD, /* 1 BLOOD */
    FX_HIT,   /* 2 BLASTER */        FX_RAIL,  /* 3 RAILTRAIL */
    FX_HIT,   /* 4 SHOTGUN */        FX_BOOM_ROCKET, /* 5 EXPLOSION1 */
    FX_BOOM_GRENADE, /* 6 EXPLOSION2 */     FX_BOOM_ROCKET, /* 7 ROCKET_EXPLOSION */
    FX_BOOM_GRENADE, /* 8 GRENADE_EXPLOSION */ FX_HIT, /* 9 SPARKS */
    FX_SPLASH, /* 10 SPLASH */       FX_TRAIL, /* 11 BUBBLETRAIL */
    FX_HIT,   /* 12 SCREEN_SPARKS */ FX_HIT,   /* 13 SHIELD_SPARKS */
    FX_HIT,   /* 14 BULLET_SPARKS */ FX_HIT,   /* 15 LASER_SPARKS */
    FX_CABLE, /* 16 PARASITE_ATTACK */ FX_BOOM_ROCKET, /* 17 ROCKET_EXPLOSION_WATER */
    FX_BOOM_GRENADE, /* 18 GRENADE_EXPLOSION_WATER */ FX_CABLE, /* 19 MEDIC_CABLE_ATTACK */
    FX_BOOM,  /* 20 BFG_EXPLOSION */ FX_BOOM,  /* 21 BFG_BIGEXPLOSION */
    FX_PORT,  /* 22 BOSSTPORT */     FX_LASER, /* 23 BFG_LASER */
    FX_CABLE, /* 24 GRAPPLE_CABLE */ FX_HIT,   /* 25 WELDING_SPARKS */
    FX_BLOOD, /* 26 GREENBLOOD */    FX_TRAIL, /* 27 BLUEHYPERBLASTER */
    FX_BOOM_ROCKET, /* 28 PLASMA_EXPLOSION */ FX_HIT, /* 29 TUNNEL_SPARKS */
    FX_HIT,   /* 30 BLASTER2 */      FX_NONE,  /* 31 RAILTRAIL2 */
    FX_TRAIL, /* 32 FLAME */         FX_BOLT,  /* 33 LIGHTNING */
    FX_TRAIL, /* 34 DEBUGTRAIL */    FX_BOOM_ROCKET, /* 35 PLAIN_EXPLOSION */
    FX_LIGHT, /* 36 FLASHLIGHT */    FX_LASER, /* 37 FORCEWALL */
    FX_LASER, /* 38 HEATBEAM */      FX_LASER, /* 39 MONSTER_HEATBEAM */
    FX_HIT,   /* 40 STEAM */         FX_TRAIL, /* 41 BUBBLETRAIL2 */
    FX_BLOOD, /* 42 MOREBLOOD */     FX_HIT,   /* 43 HEATBEAM_SPARKS */
    FX_HIT,   /* 44 HEATBEAM_STEAM */ FX_HIT,  /* 45 CHAINFIST_SMOKE */
    FX_HIT,   /* 46 ELECTRIC_SPARKS */ FX_BOOM, /* 47 TRACKER_EXPLOSION */
    FX_PORT,  /* 48 TELEPORT_EFFECT */ FX_PORT, /* 49 DBALL_GOAL */
    FX_PORT,  /* 50 WIDOWBEAMOUT */  FX_BOOM,  /* 51 NUKEBLAST */
    FX_HIT,   /* 52 WIDOWSPLASH */   FX_BOOM_BIG, /* 53 EXPLOSION1_BIG */
    FX_BOOM_ROCKET, /* 54 EXPLOSION1_NP */ FX_HIT,   /* 55 FLECHETTE */
};

int q2_temp_fx(int type, int protocol, cl_fxev *fx)
{
    if (type < 0 || type >= (int)sizeof te_style)
        return 0;
    int st = te_style[type];
    /* before protocol 32 (3.15) 26 was TE_PLASMATRAIL and 27 TE_GREENBLOOD */
    if (protocol < 32 && (type == 26 || type == 27))
        st = type == 26 ? FX_TRAIL : FX_BLOOD;
    if (st == FX_NONE)
        return 0;
    fx->kind = fx_styles[st].kind;
    fx->life = fx_styles[st].life;
    fx->radius = fx_styles[st].radius;
    fx->style = fx_styles[st].style;
    memcpy(fx->rgb, fx_styles[st].rgb, sizeof fx->rgb);
    return 1;
}

/* cl_fx.c CL_ParseMuzzleFlash: each MZ_* weapon's sounds, the first on CHAN_WEAPON at once;
 * the machine gun's and chaingun's are "machgf1b".."machgf5b", picked at random there */
static const struct mz_sounds {
    uint8_t mz, n, loud;
    q2_snd snd[3];
} mz_sounds[] = {
#define MZ_NOW(name) {name, Q2_CHAN_WEAPON, Q2_ATT_NORM, 0, 0}
#define MZ_MACHG(delay) {"weapons/machgf%db.wav", Q2_CHAN_WEAPON, Q2_ATT_NORM, 5, delay}
    {0, 1, 0, {MZ_NOW("weapons/blastf1a.wav")}},                 /* MZ_BLASTER */
    {1, 1, 0, {MZ_MACHG(0)}},                                     /* MZ_MACHINEGUN */
    {2, 2, 0, {MZ_NOW("weapons/shotgf1b.wav"),                   /* MZ_SHOTGUN */
               {"weapons/shotgr1b.wav", Q2_CHAN_AUTO, Q2_ATT_NORM, 0, 0.1f}}},
    {3, 1, 0, {MZ_MACHG(0)}},                                     /* MZ_CHAINGUN1 */
    {4, 2, 0, {MZ_MACHG(0), MZ_MACHG(0.05f)}},                    /* MZ_CHAINGUN2 */
    {5, 3, 0, {MZ_MACHG(0), MZ_MACHG(0.033f), MZ_MACHG(0.066f)}}, /* MZ_CHAINGUN3 */
    {6, 1, 0, {MZ_NOW("weapons/railgf1a.wav")}},                 /* MZ_RAILGUN */
    {7, 2, 0, {MZ_NOW("weapons/rocklf1a.wav"),                   /* MZ_ROCKET */
               {"weapons/rocklr1b.wav", Q2_CHAN_AUTO, Q2_ATT_NORM, 0, 0.1f}}},
    {8, 2, 0, {MZ_NOW("weapons/grenlf1a.wav"),                   /* MZ_GRENADE */
               {"weapons/grenlr1b.wav", Q2_CHAN_AUTO, Q2_ATT_NORM, 0, 0.1f}}},
    {9, 1, 1, {MZ_NOW("weapons/grenlf1a.wav")}},                 /* MZ_LOGIN */
    {10, 1, 1, {MZ_NOW("weapons/grenlf1a.wav")}},                /* MZ_LOGOUT */
    {11, 1, 1, {MZ_NOW("weapons/grenlf1a.wav")}},                /* MZ_RESPAWN */
    {12, 1, 0, {MZ_NOW("weapons/bfg__f1y.wav")}},                /* MZ_BFG */
    {13, 1, 0, {MZ_NOW("weapons/sshotf1b.wav")}},                /* MZ_SSHOTGUN */
    {14, 1, 0, {MZ_NOW("weapons/hyprbf1a.wav")}},                /* MZ_HYPERBLASTER */
    {16, 1, 0, {MZ_NOW("weapons/rippfire.wav")}},                /* MZ_IONRIPPER */
    {17, 1, 0, {MZ_NOW("weapons/hyprbf1a.wav")}},                /* MZ_BLUEHYPERBLASTER */
    {18, 1, 0, {MZ_NOW("weapons/plasshot.wav")}},                /* MZ_PHALANX */
    {30, 1, 0, {MZ_NOW("weapons/nail1.wav")}},                   /* MZ_ETF_RIFLE */
    {32, 1, 0, {MZ_NOW("weapons/shotg2.wav")}},                  /* MZ_SHOTGUN2 */
    {34, 1, 0, {MZ_NOW("weapons/blastf1a.wav")}},                /* MZ_BLASTER2 */
    {35, 1, 0, {MZ_NOW("weapons/disint2.wav")}},                 /* MZ_TRACKER */
#undef MZ_NOW
#undef MZ_MACHG
};

int q2_muzzle_sounds(int mz, q2_snd out[3], int *loud)
{
    for (size_t i = 0; i < sizeof mz_sounds / sizeof mz_sounds[0]; i++)
        if (mz_sounds[i].mz == mz) {
            memcpy(out, mz_sounds[i].snd, sizeof mz_sounds[i].snd);
            *loud = mz_sounds[i].loud;
            return mz_sounds[i].n;
        }
    *loud = 0;
    return 0; /* MZ_ITEMRESPAWN, MZ_HEATBEAM, the nukes: light only */
}

int q2_temp_sound(int type, int protocol, int splash, uint32_t roll, q2_snd *out, int *where)
{
    /* cl_tent.c CL_RegisterTEntSounds' names; every one at volume 1, CHAN 0, ATTN_NORM
     * unless said */
    static const char *const ric[3] = {"world/ric1.wav", "world/ric2.wav", "world/ric3.wav"};
    static const char *const spark[4] = {"world/spark5.wav", "world/spark6.wav",
                                         "world/spark7.wav", "world/spark7.wav"};
    const char *rockexp = "weapons/rocklx1a.wav", *grenexp = "weapons/grenlx1a.wav",
               *watrexp = "weapons/xpld_wat.wav", *lashit = "weapons/lashit.wav";
    memset(out, 0, sizeof *out);
    out->att = Q2_ATT_NORM;
    *where = Q2_TS_ORIGIN;
    if (protocol < 32 && (type == 26 || type == 27))
        return 0; /* TE_PLASMATRAIL and TE_GREENBLOOD before 3.15: silent */
    switch (type) {
    case 0:  /* TE_GUNSHOT */
    case 14: /* TE_BULLET_SPARKS: rand() & 15 of 1..3 gives ric1..3, else nothing */
        if ((roll & 15) < 1 || (roll & 15) > 3)
            return 0;
        out->name = ric[(roll & 15) - 1];
        return 1;
    case 10: /* TE_SPLASH of SPLASH_SPARKS (1): rand() & 3 of 0, 1, else spark5, 6, 7 */
        if (splash != 1)
            return 0;
        out->name = spark[roll & 3];
        out->att = Q2_ATT_STATIC;
        return 1;
    case 2:  /* TE_BLASTER */
    case 12: /* TE_SCREEN_SPARKS */
    case 13: /* TE_SHIELD_SPARKS */
    case 30: /* TE_BLASTER2 */
    case 41: /* TE_BUBBLETRAIL2 */
    case 43: /* TE_HEATBEAM_SPARKS */
    case 44: /* TE_HEATBEAM_STEAM */
    case 46: /* TE_ELECTRIC_SPARKS */
    case 55: /* TE_FLECHETTE */
        out->name = lashit;
        return 1;
    case 3: /* TE_RAILTRAIL: at the trail's end */
        out->name = "weapons/railgf1a.wav";
        *where = Q2_TS_END;
        return 1;
    case 6:  /* TE_EXPLOSION2 */
    case 8:  /* TE_GRENADE_EXPLOSION */
        out->name = grenexp;
        return 1;
    case 17: /* TE_ROCKET_EXPLOSION_WATER */
    case 18: /* TE_GRENADE_EXPLOSION_WATER */
        out->name = watrexp;
        return 1;
    case 5:  /* TE_EXPLOSION1 */
    case 7:  /* TE_ROCKET_EXPLOSION */
    case 28: /* TE_PLASMA_EXPLOSION */
    case 35: /* TE_PLAIN_EXPLOSION */
    case 53: /* TE_EXPLOSION1_BIG */
    case 54: /* TE_EXPLOSION1_NP */
        out->name = rockexp;
        return 1;
    case 22: /* TE_BOSSTPORT: heard everywhere */
        out->name = "misc/bigtele.wav";
        out->att = Q2_ATT_NONE;
        return 1;
    case 33: /* TE_LIGHTNING: on its source entity, CHAN_WEAPON */
        out->name = "weapons/tesla.wav";
        out->chan = Q2_CHAN_WEAPON;
        *where = Q2_TS_ENTITY;
        return 1;
    case 47: /* TE_TRACKER_EXPLOSION */
        out->name = "weapons/disrupthit.wav";
        return 1;
    default:
        return 0;
    }
}

int q2_event_sound(int ev, q2_snd *out)
{
    /* entity_event_t (q_shared.h): 1 EV_ITEM_RESPAWN .. 6 EV_PLAYER_TELEPORT; the footsteps
     * are cl_tent.c's cl_sfx_footsteps "player/step1..4.wav", picked by rand() & 3 */
    static const q2_snd snd[7] = {
        {NULL, 0, 0, 0, 0},
        {"items/respawn1.wav", Q2_CHAN_WEAPON, Q2_ATT_IDLE, 0, 0}, /* EV_ITEM_RESPAWN */
        {"player/step%d.wav", Q2_CHAN_BODY, Q2_ATT_NORM, 4, 0},    /* EV_FOOTSTEP */
        {"player/land1.wav", Q2_CHAN_AUTO, Q2_ATT_NORM, 0, 0},     /* EV_FALLSHORT */
        {"*fall2.wav", Q2_CHAN_AUTO, Q2_ATT_NORM, 0, 0},           /* EV_FALL */
        {"*fall1.wav", Q2_CHAN_AUTO, Q2_ATT_NORM, 0, 0},           /* EV_FALLFAR */
        {"misc/tele1.wav", Q2_CHAN_WEAPON, Q2_ATT_IDLE, 0, 0},     /* EV_PLAYER_TELEPORT */
    };
    if (ev < 1 || ev > 6)
        return 0; /* EV_NONE, EV_OTHER_TELEPORT (7): silent */
    *out = snd[ev];
    return 1;
}
