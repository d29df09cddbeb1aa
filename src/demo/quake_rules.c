/* quake_rules.c: QuakeC's rules shared by the Quake and QuakeWorld decoders.
 *
 * Facts, not code, from id's public sources: the stat slots and IT_* item bits are
 * quakedef.h's (QW bothdefs.h: the same values), the TE_* numbers protocol.h's, the obituary
 * and pickup phrases those printed by id1 / qw progs client.qc (ClientObituary), items.qc and
 * weapons.qc. */
#include "quake_rules.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "demo_local.h"

/* quakedef.h STAT_* */
enum {
    QR_STAT_HEALTH = 0, QR_STAT_WEAPON = 2, QR_STAT_AMMO = 3, QR_STAT_ARMOR = 4,
    QR_STAT_WEAPONFRAME = 5, QR_STAT_SHELLS = 6,
    QR_STAT_ACTIVEWEAPON = 10, QR_STAT_TOTALSECRETS = 11, QR_STAT_TOTALMONSTERS = 12,
    QR_STAT_SECRETS = 13, QR_STAT_MONSTERS = 14, QR_STAT_ITEMS = 15,
};

/* quakedef.h IT_* */
#define QR_IT_SHOTGUN 0x1u
#define QR_IT_SUPER_SHOTGUN 0x2u
#define QR_IT_NAILGUN 0x4u
#define QR_IT_SUPER_NAILGUN 0x8u
#define QR_IT_GRENADE_LAUNCHER 0x10u
#define QR_IT_ROCKET_LAUNCHER 0x20u
#define QR_IT_LIGHTNING 0x40u
#define QR_IT_AXE 0x1000u
#define QR_IT_ARMOR1 0x2000u
#define QR_IT_ARMOR2 0x4000u
#define QR_IT_ARMOR3 0x8000u
#define QR_IT_KEY1 0x20000u
#define QR_IT_KEY2 0x40000u
#define QR_IT_INVISIBILITY 0x80000u
#define QR_IT_INVULNERABILITY 0x100000u
#define QR_IT_SUIT 0x200000u
#define QR_IT_QUAD 0x400000u
#define QR_IT_SIGIL1 0x10000000u

/* Weapon item bits, the weapon each is and the ammunition it uses. */
static const struct {
    uint32_t bit;
    uint8_t weapon, ammo;
} weapon_bits[] = {
    {QR_IT_AXE, CL_WP_MELEE, CL_AMMO_NONE},
    {QR_IT_SHOTGUN, CL_WP_SHOTGUN, CL_AMMO_SHELLS},
    {QR_IT_SUPER_SHOTGUN, CL_WP_SUPER_SHOTGUN, CL_AMMO_SHELLS},
    {QR_IT_NAILGUN, CL_WP_NAILGUN, CL_AMMO_BULLETS},
    {QR_IT_SUPER_NAILGUN, CL_WP_SUPER_NAILGUN, CL_AMMO_BULLETS},
    {QR_IT_GRENADE_LAUNCHER, CL_WP_GRENADE_LAUNCHER, CL_AMMO_ROCKETS},
    {QR_IT_ROCKET_LAUNCHER, CL_WP_ROCKET_LAUNCHER, CL_AMMO_ROCKETS},
    {QR_IT_LIGHTNING, CL_WP_LIGHTNING, CL_AMMO_CELLS},
};
#define NUM_WEAPON_BITS (sizeof weapon_bits / sizeof weapon_bits[0])

/* protocol.h EF_* (QW's protocol.h adds the flags and glows) by look. EF_BRIGHTFIELD (a
 * particle field) has no CL_FX_* bit: dropped. ThreeWave CTF's team 1 is red, so EF_FLAG1
 * is the red flag. */
static const demo_fx_bit quake_fx[] = {
    {0x02, CL_FX_MUZZLE},    {0x04, CL_FX_LIGHT_BRIGHT}, {0x08, CL_FX_LIGHT_DIM},
    {0x10, CL_FX_FLAG_RED},  {0x20, CL_FX_FLAG_BLUE},    {0x40, CL_FX_GLOW_BLUE},
    {0x80, CL_FX_GLOW_RED},
};

uint16_t qr_entity_fx_map(uint32_t effects)
{
    return demo_fx_map(quake_fx, sizeof quake_fx / sizeof quake_fx[0], effects);
}

static int16_t clamp16(int32_t v) { return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v); }

void qr_fill_stats(const int32_t raw[QR_NUM_STATS], int32_t score, cl_stats *out)
{
    static const uint8_t ammo_kind[4] = {CL_AMMO_SHELLS, CL_AMMO_BULLETS, CL_AMMO_ROCKETS,
                                         CL_AMMO_CELLS}; /* STAT_SHELLS..STAT_CELLS */
    uint32_t items = (uint32_t)raw[QR_STAT_ITEMS];
    uint32_t active = (uint32_t)raw[QR_STAT_ACTIVEWEAPON];
    memset(out, 0, sizeof *out);
    out->health = clamp16(raw[QR_STAT_HEALTH]);
    out->armor = clamp16(raw[QR_STAT_ARMOR]);
    out->ammo = clamp16(raw[QR_STAT_AMMO]);
    for (int i = 0; i < 4; i++)
        out->ammo_of[ammo_kind[i]] = clamp16(raw[QR_STAT_SHELLS + i]);
    out->armor_type = items & QR_IT_ARMOR3   ? CL_ARMOR_HEAVY
                      : items & QR_IT_ARMOR2 ? CL_ARMOR_MEDIUM
                      : items & QR_IT_ARMOR1 ? CL_ARMOR_LIGHT
                                             : CL_ARMOR_NONE;
    for (size_t i = 0; i < NUM_WEAPON_BITS; i++) {
        if (items & weapon_bits[i].bit)
            out->weapons |= 1u << weapon_bits[i].weapon;
        if (active == weapon_bits[i].bit) {
            out->weapon = weapon_bits[i].weapon;
            out->ammo_type = weapon_bits[i].ammo;
        }
    }
    if (active && !out->weapon)
        out->weapon = CL_WP_OTHER; /* a mod's weapon bit */
    else if (out->weapon)
        out->weapons |= 1u << out->weapon; /* mods may hold a weapon without its item bit */
    if (items & QR_IT_KEY1)
        out->items |= CL_IT_KEY_SILVER;
    if (items & QR_IT_KEY2)
        out->items |= CL_IT_KEY_GOLD;
    for (int n = 0; n < 4; n++)
        if (items & (QR_IT_SIGIL1 << n))
            out->items |= CL_IT_SIGIL(n);
    /* Quake sends only that a powerup is held, not until when. */
    out->powerup_end[CL_PU_QUAD] = items & QR_IT_QUAD ? -1.0f : 0.0f;
    out->powerup_end[CL_PU_INVULN] = items & QR_IT_INVULNERABILITY ? -1.0f : 0.0f;
    out->powerup_end[CL_PU_INVIS] = items & QR_IT_INVISIBILITY ? -1.0f : 0.0f;
    out->powerup_end[CL_PU_SUIT] = items & QR_IT_SUIT ? -1.0f : 0.0f;
    out->score = score;
    out->monsters = clamp16(raw[QR_STAT_MONSTERS]);
    out->monsters_total = clamp16(raw[QR_STAT_TOTALMONSTERS]);
    out->secrets = clamp16(raw[QR_STAT_SECRETS]);
    out->secrets_total = clamp16(raw[QR_STAT_TOTALSECRETS]);
    /* the view weapon's model index and frame ([DEM] 7.4 STAT_WEAPON, STAT_WEAPONFRAME) */
    out->gun_model = (uint16_t)(raw[QR_STAT_WEAPON] > 0 && raw[QR_STAT_WEAPON] < 65536
                                    ? raw[QR_STAT_WEAPON] : 0);
    out->gun_frame = (uint16_t)(raw[QR_STAT_WEAPONFRAME] > 0 && raw[QR_STAT_WEAPONFRAME] < 65536
                                    ? raw[QR_STAT_WEAPONFRAME] : 0);
    if (out->health <= 0)
        out->flags |= CL_ST_DEAD;
}

/* ---- obituaries ---- */

/* %v the victim's name, %k the killer's. */
typedef struct obituary {
    const char *text;
    uint8_t means, weapon;
    uint8_t teamkill;
} obituary;

static const obituary obituaries[] = {
    /* killed by another player, by the killer's weapon */
    {"%v was ax-murdered by %k", CL_MOD_WEAPON, CL_WP_MELEE, 0},
    {"%v chewed on %k's boomstick", CL_MOD_WEAPON, CL_WP_SHOTGUN, 0},
    {"%v ate 2 loads of %k's buckshot", CL_MOD_WEAPON, CL_WP_SUPER_SHOTGUN, 0},
    {"%v was nailed by %k", CL_MOD_WEAPON, CL_WP_NAILGUN, 0},
    {"%v was body pierced by %k", CL_MOD_WEAPON, CL_WP_NAILGUN, 0},
    {"%v was punctured by %k", CL_MOD_WEAPON, CL_WP_SUPER_NAILGUN, 0},
    {"%v was perforated by %k", CL_MOD_WEAPON, CL_WP_SUPER_NAILGUN, 0},
    {"%v eats %k's pineapple", CL_MOD_WEAPON, CL_WP_GRENADE_LAUNCHER, 0},
    {"%v was gibbed by %k's grenade", CL_MOD_WEAPON, CL_WP_GRENADE_LAUNCHER, 0},
    {"%v rides %k's rocket", CL_MOD_WEAPON, CL_WP_ROCKET_LAUNCHER, 0},
    {"%v was gibbed by %k's rocket", CL_MOD_WEAPON, CL_WP_ROCKET_LAUNCHER, 0},
    {"%v was brutalized by %k's quad rocket", CL_MOD_WEAPON, CL_WP_ROCKET_LAUNCHER, 0},
    {"%v was smeared by %k's quad rocket", CL_MOD_WEAPON, CL_WP_ROCKET_LAUNCHER, 0},
    {"%v accepts %k's shaft", CL_MOD_WEAPON, CL_WP_LIGHTNING, 0},
    {"%v accepts %k's discharge", CL_MOD_DISCHARGE, CL_WP_LIGHTNING, 0},
    {"%v drains %k's batteries", CL_MOD_DISCHARGE, CL_WP_LIGHTNING, 0},
    {"%v gets a natural disaster from %k", CL_MOD_DISCHARGE, CL_WP_LIGHTNING, 0},
    {"%v was telefragged by %k", CL_MOD_TELEFRAG, CL_WP_NONE, 0},
    {"%v was telefragged by %k's teammate", CL_MOD_TELEFRAG, CL_WP_NONE, 1},
    {"Satan's power deflects %v's telefrag", CL_MOD_TELEFRAG, CL_WP_NONE, 0},
    /* KTX servers' own lines, as printed in mvd/mvdparser_2on2_sf_vs_red_frobodm2_220104-0915.mvd
     * (the weapon is not named, so none is claimed) */
    {"%v was telefragged by his teammate", CL_MOD_TELEFRAG, CL_WP_NONE, 1},
    {"%v was lead poisoned by %k", CL_MOD_UNKNOWN, CL_WP_NONE, 0},
    {"%k rips %v a new one", CL_MOD_UNKNOWN, CL_WP_NONE, 0},
    {"%v was squished by %k", CL_MOD_CRUSH, CL_WP_NONE, 0},
    {"%v squished a teammate", CL_MOD_CRUSH, CL_WP_NONE, 1},
    /* killed by a teammate (the victim's name is not printed) */
    {"%k mows down a teammate", CL_MOD_UNKNOWN, CL_WP_NONE, 1},
    {"%k checks his glasses", CL_MOD_UNKNOWN, CL_WP_NONE, 1},
    {"%k gets a frag for the other team", CL_MOD_UNKNOWN, CL_WP_NONE, 1},
    {"%k loses another friend", CL_MOD_UNKNOWN, CL_WP_NONE, 1},
    /* no killer */
    {"%v becomes bored with life", CL_MOD_SUICIDE, CL_WP_ROCKET_LAUNCHER, 0},
    {"%v checks if his weapon is loaded", CL_MOD_SUICIDE, CL_WP_ROCKET_LAUNCHER, 0},
    {"%v tries to put the pin back in", CL_MOD_SUICIDE, CL_WP_GRENADE_LAUNCHER, 0},
    {"%v discovers blast radius", CL_MOD_SUICIDE, CL_WP_ROCKET_LAUNCHER, 0},
    {"%v discharges into the water", CL_MOD_DISCHARGE, CL_WP_LIGHTNING, 0},
    {"%v discharges into the slime", CL_MOD_DISCHARGE, CL_WP_LIGHTNING, 0},
    {"%v discharges into the lava", CL_MOD_DISCHARGE, CL_WP_LIGHTNING, 0},
    {"%v electrocutes himself", CL_MOD_DISCHARGE, CL_WP_LIGHTNING, 0},
    {"%v heats up the water", CL_MOD_DISCHARGE, CL_WP_LIGHTNING, 0},
    {"%v suicides", CL_MOD_SUICIDE, CL_WP_NONE, 0},
    {"%v sleeps with the fishes", CL_MOD_WATER, CL_WP_NONE, 0},
    {"%v sucks it down", CL_MOD_WATER, CL_WP_NONE, 0},
    {"%v gulped a load of slime", CL_MOD_SLIME, CL_WP_NONE, 0},
    {"%v can't exist on slime alone", CL_MOD_SLIME, CL_WP_NONE, 0},
    {"%v burst into flames", CL_MOD_LAVA, CL_WP_NONE, 0},
    {"%v turned into hot slag", CL_MOD_LAVA, CL_WP_NONE, 0},
    {"%v visits the Volcano God", CL_MOD_LAVA, CL_WP_NONE, 0},
    {"%v cratered", CL_MOD_FALL, CL_WP_NONE, 0},
    {"%v fell to his death", CL_MOD_FALL, CL_WP_NONE, 0},
    {"%v was squished", CL_MOD_CRUSH, CL_WP_NONE, 0},
    {"%v tried to leave", CL_MOD_TRIGGER, CL_WP_NONE, 0},
    {"%v was spiked", CL_MOD_TRIGGER, CL_WP_NONE, 0},
    {"%v was zapped", CL_MOD_TRIGGER, CL_WP_NONE, 0},
    {"%v ate a lavaball", CL_MOD_TRIGGER, CL_WP_NONE, 0},
    {"%v blew up", CL_MOD_EXPLOSION, CL_WP_NONE, 0},
    {"%v died", CL_MOD_UNKNOWN, CL_WP_NONE, 0},
};
#define NUM_OBITUARIES (sizeof obituaries / sizeof obituaries[0])

/* The active players' slots, longest name first. Returns how many. */
static int players_by_length(const cl_state *cl, int order[CL_MAX_PLAYERS],
                             size_t len[CL_MAX_PLAYERS])
{
    int n = 0;
    for (int i = 0; i < CL_MAX_PLAYERS; i++) {
        if (!cl->players[i].active || !cl->players[i].name[0])
            continue;
        size_t l = strnlen(cl->players[i].name, sizeof cl->players[i].name);
        int j = n++;
        for (; j > 0 && len[j - 1] < l; j--) {
            order[j] = order[j - 1];
            len[j] = len[j - 1];
        }
        order[j] = i;
        len[j] = l;
    }
    return n;
}

typedef struct names {
    const cl_state *cl;
    int n;
    int order[CL_MAX_PLAYERS];
    size_t len[CL_MAX_PLAYERS];
} names;

/* Whether tpl at p is a name's place (%v or %k). */
static int is_place(const char *p) { return p[0] == '%' && (p[1] == 'v' || p[1] == 'k'); }

/* 1 when each literal run of tpl (its text around %v and %k) is somewhere in line: a match
 * needs them all, and most lines hold none, so the names are not tried for them (every
 * line tried every name at every template's places: 16 players named "a" and a demo of
 * "a" lines took 1.5 s a MB; a review). */
static int literals_in(const char *tpl, const char *line)
{
    char run[64];
    while (*tpl) {
        size_t n = 0;
        while (tpl[n] && !is_place(tpl + n))
            n++;
        if (n) { /* (a longer run's first 63 bytes must be there too) */
            size_t c = n < sizeof run ? n : sizeof run - 1;
            memcpy(run, tpl, c);
            run[c] = 0;
            if (!strstr(line, run))
                return 0;
        }
        tpl += n;
        if (*tpl)
            tpl += 2;
    }
    return 1;
}

/* Does line match tpl whole, names at %v and %k? Sets *v and *k to the slots used. A place
 * with only text after it takes a name of exactly the length left: the others are not
 * compared. */
static int match(const names *nm, const char *tpl, const char *line, int *v, int *k)
{
    for (;;) {
        if (is_place(tpl)) {
            const char *rest = tpl + 2;
            int last = 1;
            for (const char *q = rest; *q && last; q++)
                last = !is_place(q);
            size_t left = strlen(line), tail = strlen(rest);
            if (last && left < tail)
                return 0;
            for (int i = 0; i < nm->n; i++) {
                if (last && nm->len[i] != left - tail)
                    continue;
                const char *name = nm->cl->players[nm->order[i]].name;
                if (strncmp(line, name, nm->len[i]))
                    continue;
                if (match(nm, tpl + 2, line + nm->len[i], v, k)) {
                    *(tpl[1] == 'v' ? v : k) = nm->order[i];
                    return 1;
                }
            }
            return 0;
        }
        if (*tpl != *line)
            return 0;
        if (!*tpl)
            return 1;
        tpl++;
        line++;
    }
}

/* line without leading spaces and trailing newlines and spaces, in buf. A print that ends
 * "\n " leaves its space at the start of the next line (overkill.mvd's "electrocutes
 * himself.\n " before an obituary). */
static const char *trimmed(const char *line, char *buf, size_t cap)
{
    while (*line == ' ')
        line++;
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' '))
        n--;
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, line, n);
    buf[n] = 0;
    return buf;
}

/* Each template's shape, for the tests before its names are tried: the literal text before
 * its first place (head) and after its last (tail), and the shortest line it matches (its
 * literals and a byte a name). Made once, before main (obit_shapes). */
static struct obit_shape {
    uint8_t head, tail, min_len;
} obit_shape[NUM_OBITUARIES];

#if defined(__GNUC__)
__attribute__((constructor))
#endif
static void obit_shapes(void)
{
    for (size_t i = 0; i < NUM_OBITUARIES; i++) {
        const char *t = obituaries[i].text;
        size_t n = strlen(t), head = 0, last = 0, places = 0;
        while (head < n && !is_place(t + head))
            head++;
        for (size_t j = 0; j + 1 < n; j++)
            if (is_place(t + j))
                places++, last = j + 2;
        obit_shape[i].head = (uint8_t)head;
        obit_shape[i].tail = (uint8_t)(n - last);
        obit_shape[i].min_len = (uint8_t)(n - places); /* (2 bytes a place, 1 a name) */
    }
}

/* Whether line (len bytes) can be template i: long enough, and its head and tail there. */
static int obit_shape_fits(size_t i, const char *line, size_t len)
{
    const struct obit_shape *sh = &obit_shape[i];
    const char *t = obituaries[i].text;
    if (!sh->min_len || len < sh->min_len) /* (no shapes made: the full test alone) */
        return sh->min_len == 0;
    return memcmp(line, t, sh->head) == 0 &&
           memcmp(line + len - sh->tail, t + strlen(t) - sh->tail, sh->tail) == 0;
}

int qr_obituary(const cl_state *cl, const char *line, cl_event *ev)
{
    char buf[CL_TEXT_LEN];
    names nm;
    nm.cl = cl;
    nm.n = -1; /* the names by length: made when a template's text is all there */
    trimmed(line, buf, sizeof buf);
    const size_t len = strlen(buf);
    if (!strchr(buf, ' '))
        return 0; /* every template has a space */
    for (size_t i = 0; i < NUM_OBITUARIES; i++) {
        int v = -1, k = -1;
        if (!obit_shape_fits(i, buf, len) || !literals_in(obituaries[i].text, buf))
            continue;
        if (nm.n < 0)
            nm.n = players_by_length(cl, nm.order, nm.len);
        if (!nm.n)
            return 0;
        if (!match(&nm, obituaries[i].text, buf, &v, &k))
            continue;
        memset(ev, 0, sizeof *ev);
        ev->kind = CL_EV_FRAG;
        ev->means = obituaries[i].means;
        ev->weapon = obituaries[i].weapon;
        ev->actor = (int8_t)k;
        ev->target = (int8_t)v;
        if (obituaries[i].teamkill)
            ev->flags |= CL_EVF_TEAMKILL;
        snprintf(ev->text, sizeof ev->text, "%.79s", buf);
        return 1;
    }
    return 0;
}

/* ---- pickups, chat ---- */

int qr_pickup(const char *line, int actor, cl_event *ev)
{
    static const char *const prefixes[] = {"You got the ", "You get ", "You receive ",
                                           "You got "};
    char buf[CL_TEXT_LEN];
    trimmed(line, buf, sizeof buf);
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t n = strlen(prefixes[i]);
        if (strncmp(buf, prefixes[i], n) || !buf[n])
            continue;
        memset(ev, 0, sizeof *ev);
        ev->kind = CL_EV_PICKUP;
        ev->actor = (int8_t)(actor >= 0 && actor < CL_MAX_PLAYERS ? actor : -1);
        ev->target = -1;
        snprintf(ev->text, sizeof ev->text, "%.79s", buf + n);
        return 1;
    }
    return 0;
}

int qr_chat(const cl_state *cl, const char *line, cl_event *ev)
{
    char buf[CL_TEXT_LEN];
    trimmed(line, buf, sizeof buf);
    memset(ev, 0, sizeof *ev);
    ev->kind = CL_EV_CHAT;
    ev->actor = -1;
    ev->target = -1;
    const char *p = buf;
    if (*p == '(') { /* say_team: "(name): text" */
        ev->flags |= CL_EVF_TEAM;
        p++;
    }
    const char *text = buf;
    int order[CL_MAX_PLAYERS];
    size_t len[CL_MAX_PLAYERS];
    int n = players_by_length(cl, order, len);
    const char *sep = ev->flags & CL_EVF_TEAM ? "): " : ": ";
    for (int i = 0; i < n; i++) {
        if (strncmp(p, cl->players[order[i]].name, len[i]) ||
            strncmp(p + len[i], sep, strlen(sep)))
            continue;
        ev->actor = (int8_t)order[i];
        text = p + len[i] + strlen(sep);
        break;
    }
    snprintf(ev->text, sizeof ev->text, "%.79s", text);
    return 1;
}

void qr_text_event(cl_state *cl, cl_event_kind kind, const char *text)
{
    cl_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = (uint8_t)kind;
    ev.actor = ev.target = -1;
    snprintf(ev.text, sizeof ev.text, "%.79s", text);
    cl_event_add(cl, &ev);
}

/* ---- temporary entities ---- */

/* A point an effect can be drawn at: finite and inside +-1e6 units (a protocol-999 or FTE
 * float coordinate can be anything; a beam's direction from NaN is NaN). */
static int fx_point_ok(const float v[3])
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]) && fabsf(v[0]) < 1e6f &&
           fabsf(v[1]) < 1e6f && fabsf(v[2]) < 1e6f;
}

int qr_temp_fx(cl_game game, int type, int entity, const float origin[3], const float end[3],
               cl_fxev *out)
{
    memset(out, 0, sizeof *out);
    if (!fx_point_ok(origin) || (end && !fx_point_ok(end)))
        return 0; /* nowhere to draw it */
    out->entity = -1;
    out->style = (uint8_t)type;
    switch (type) {
    case 0: case 1: case 2: case 7: case 8: /* spike, superspike, gunshot, wiz/knight spike */
        out->kind = CL_FXK_IMPACT;
        out->life = 0.5f;
        break;
    case 3: case 4: /* explosion: R_ParticleExplosion and a 350 light; tarbaby: no light;
                     * (life: their particles' longest, r_part.c) */
        out->kind = CL_FXK_EXPLOSION;
        out->life = type == 3 ? 0.8f : 1.4f;
        out->radius = type == 3 ? 350 : 0;
        out->rgb[0] = 255, out->rgb[1] = 192, out->rgb[2] = 64;
        break;
    case 5: case 6: case 9: /* lightning 1..3: a beam from the entity, 0.2 s */
        out->kind = CL_FXK_BEAM_LIGHTNING;
        out->life = 0.2f;
        out->entity = (int16_t)entity;
        break;
    case 10: /* lava splash (its particles last up to 2.62 s) */
        out->kind = CL_FXK_SPLASH;
        out->life = 2.7f;
        break;
    case 11: /* teleport splash */
        out->kind = CL_FXK_TELEPORT;
        out->life = 1.0f;
        break;
    case 12: /* Quake: explosion2 (coloured); QuakeWorld: blood */
        out->kind = game == CL_GAME_QW ? CL_FXK_BLOOD : CL_FXK_EXPLOSION;
        out->life = game == CL_GAME_QW ? 0.5f : 0.8f;
        out->radius = game == CL_GAME_QW ? 0 : 350;
        break;
    case 13: /* Quake: beam (1.08); QuakeWorld: lightning blood */
        out->kind = game == CL_GAME_QW ? CL_FXK_BLOOD : CL_FXK_BEAM_LIGHTNING;
        out->life = game == CL_GAME_QW ? 0.5f : 0.2f;
        if (game != CL_GAME_QW)
            out->entity = (int16_t)entity;
        break;
    default:
        return 0;
    }
    for (int i = 0; i < 3; i++) {
        out->origin[i] = origin[i];
        out->end[i] = end ? end[i] : origin[i];
    }
    return 1;
}

void qr_temp_sound(cl_state *cl, cl_game game, int type, const float origin[3], uint32_t pick)
{
    static const char *const ric[4] = {"weapons/ric3.wav", "weapons/ric1.wav",
                                       "weapons/ric2.wav", "weapons/ric3.wav"};
    const char *name = NULL;
    pick = pick * 2654435761u; /* (spread the bits: the tests below take the low ones) */
    switch (type) {
    case 0: case 1: /* spike, superspike: tink1 four times in five, else ric1..3 */
        name = (pick >> 16) % 5 ? "weapons/tink1.wav" : ric[(pick >> 8) & 3];
        break;
    case 3: case 4: /* explosion, tarbaby explosion */
        name = "weapons/r_exp3.wav";
        break;
    case 7:
        name = "wizard/hit.wav";
        break;
    case 8:
        name = "hknight/hit.wav";
        break;
    case 12: /* Quake's explosion2; QuakeWorld's blood has none */
        name = game == CL_GAME_QW ? NULL : "weapons/r_exp3.wav";
        break;
    default:
        break;
    }
    /* the server's slot of that name when it precached it, else one after its list (the
     * client loads its own, CL_InitTEnts) */
    int slot = name ? cl_sound_intern(cl, 1, name) : 0;
    if (!slot)
        return;
    cl_sound so; /* S_StartSound(-1, 0, sfx, pos, 1, 1): no entity, full volume, ATTN_NORM */
    memset(&so, 0, sizeof so);
    so.sound = (uint16_t)slot;
    so.entity = -1;
    so.volume = 255;
    so.attenuation = 64;
    so.has_origin = 1;
    memcpy(so.origin, origin, sizeof so.origin);
    cl_sound_add(cl, &so);
}

void qr_muzzle_flash(cl_state *cl, int entity, const float origin[3], const float angles[3],
                     float up)
{
    cl_fxev fx;
    memset(&fx, 0, sizeof fx);
    fx.kind = CL_FXK_MUZZLE;
    fx.entity = (int16_t)entity;
    fx.life = 0.1f;
    fx.radius = 200;
    float yaw = angles[1] * (float)(M_PI / 180), pitch = angles[0] * (float)(M_PI / 180);
    fx.origin[0] = origin[0] + 18 * cosf(yaw) * cosf(pitch);
    fx.origin[1] = origin[1] + 18 * sinf(yaw) * cosf(pitch);
    fx.origin[2] = origin[2] + up - 18 * sinf(pitch);
    memcpy(fx.end, fx.origin, sizeof fx.end);
    cl_fx_add(cl, &fx);
}

void qr_line_feed(qr_line *l, const char *text, void (*on_line)(void *ctx, const char *line),
                  void *ctx)
{
    for (const char *p = text; *p; p++) {
        if (*p != '\n') {
            if (l->len < sizeof l->text - 1)
                l->text[l->len++] = *p;
            continue;
        }
        l->text[l->len] = 0;
        on_line(ctx, l->text);
        l->len = 0;
    }
}
