/* mdl_player.c: the text files of a Quake III player model: animation.cfg (which frames each
 * animation runs, at what rate) and .skin files (which shader each MD3 surface wears).
 *
 * Facts from ioquake3's public code (GPL-2.0), described, not copied: cgame/cg_players.c
 * CG_ParseAnimationFile and CG_RunLerpFrame, bg_public.h animNumber_t, renderergl1/tr_image.c
 * RE_RegisterSkin. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common/text.h"
#include "model_local.h"

/* text as a terminated copy (the token reader wants one); NULL when too long or no memory */
static char *terminated(const char *text, size_t len, const char *name, qd_error *err,
                        qd_err *e)
{
    if (len > MDL_PLAYER_MAX_FILE) {
        *e = qd_fail(err, QD_ERR_LIMIT, MDL_PLAYER_MAX_FILE, "%s: longer than %u bytes", name,
                     MDL_PLAYER_MAX_FILE);
        return NULL;
    }
    char *buf = malloc(len + 1);
    if (!buf) {
        *e = qd_fail(err, QD_ERR_NOMEM, 0, "%s: out of memory", name);
        return NULL;
    }
    if (len)
        memcpy(buf, text, len);
    buf[len] = 0;
    return buf;
}

static int is_number(const char *t)
{
    return (t[0] >= '0' && t[0] <= '9') || ((t[0] == '-' || t[0] == '.') && t[1]);
}

static void fixed_anims(mdl_anim *a)
{
    /* cgame derives these: walking backwards is walking reversed; the flag's own frames */
    a[MDL_ANIM_LEGS_BACKCR] = a[MDL_ANIM_LEGS_WALKCR];
    a[MDL_ANIM_LEGS_BACKCR].reversed = 1;
    a[MDL_ANIM_LEGS_BACKWALK] = a[MDL_ANIM_LEGS_WALK];
    a[MDL_ANIM_LEGS_BACKWALK].reversed = 1;
    a[MDL_ANIM_FLAG_RUN] = (mdl_anim){0, 16, 16, 15, 0, {0}};
    a[MDL_ANIM_FLAG_STAND] = (mdl_anim){16, 5, 0, 20, 0, {0}};
    a[MDL_ANIM_FLAG_STAND2RUN] = (mdl_anim){16, 5, 1, 15, 1, {0}};
}

static uint32_t clamp_frames(long v)
{
    return v < 0 ? 0 : v > MDL_MD3_MAX_FRAMES ? MDL_MD3_MAX_FRAMES : (uint32_t)v;
}

qd_err mdl_anims_parse(const char *text, size_t len, const char *name,
                       mdl_anim out[MDL_ANIM_COUNT], qd_error *err)
{
    memset(out, 0, sizeof(mdl_anim) * MDL_ANIM_COUNT);
    for (int i = 0; i < MDL_ANIM_COUNT; i++)
        out[i].fps = 1;
    fixed_anims(out);
    qd_err e = QD_OK;
    char *buf = terminated(text, len, name, err, &e);
    if (!buf)
        return e;
    char tok[64];
    const char *p = buf, *q;
    /* the keywords before the numbers; each pass eats at least one token */
    while ((q = qd_token(p, tok, sizeof tok, 0, NULL)) && !is_number(tok)) {
        int extra = strcmp(tok, "footsteps") == 0 || strcmp(tok, "sex") == 0   ? 1
                    : strcmp(tok, "headoffset") == 0                           ? 3
                                                                               : 0;
        p = q;
        for (int k = 0; k < extra && p; k++)
            p = qd_token(p, tok, sizeof tok, 0, NULL);
        if (!p)
            break;
    }
    long skip = 0;
    for (int i = 0; i < MDL_ANIM_FILE_COUNT && !e; i++) {
        long v[3];
        float fps = 0;
        for (int k = 0; k < 4 && !e; k++) {
            q = p ? qd_token(p, tok, sizeof tok, 0, NULL) : NULL;
            if (!q && k == 0 && i >= MDL_ANIM_TORSO_GETFLAG) {
                out[i] = out[MDL_ANIM_TORSO_GESTURE]; /* the team gestures may be left out */
                break;
            }
            if (!q || !is_number(tok)) {
                e = qd_fail(err, QD_ERR_BAD_DATA, (uint64_t)(p ? p - buf : (long)len),
                            "%s: animation %d: %s", name, i,
                            q ? "not a number" : "missing");
                break;
            }
            p = q;
            if (k < 3)
                v[k] = qd_atoi(tok);
            else
                fps = strtof(tok, NULL);
            if (k < 3)
                continue;
            mdl_anim *a = &out[i];
            if (i == MDL_ANIM_LEGS_WALKCR)
                skip = v[0] - (long)out[MDL_ANIM_TORSO_GESTURE].first;
            if (i >= MDL_ANIM_LEGS_WALKCR && i < MDL_ANIM_TORSO_GETFLAG)
                v[0] -= skip;
            a->first = clamp_frames(v[0]);
            a->reversed = v[1] < 0;
            a->num = clamp_frames(v[1] < 0 ? -v[1] : v[1]);
            a->loop = clamp_frames(v[2]);
            a->loop = a->loop > a->num ? a->num : a->loop;
            /* cgame: an fps of 0 is 1; qdemo also keeps it finite and at most 1000 */
            a->fps = !(fps > 0) ? 1 : fps > 1000 ? 1000 : fps;
        }
    }
    fixed_anims(out);
    free(buf);
    return e;
}

void mdl_anim_frames(const mdl_anim *a, double elapsed, uint32_t *f0, uint32_t *f1,
                     float *lerp)
{
    double x = elapsed > 0 && elapsed < 1e7 ? elapsed * a->fps : 0;
    if (!isfinite(x) || x < 0) /* (an fps of +inf or NaN: the first frame) */
        x = 0;
    double k = floor(x);
    *lerp = (float)(x - k);
    uint32_t n = a->num, idx[2];
    /* a loop longer than the animation loops all of it (the parser never makes one; the
     * function's contract allows it, and n - loop wrapped: found by a review) */
    const uint32_t loop = a->loop < n ? a->loop : n;
    for (int j = 0; j < 2; j++) {
        double f = k + j;
        if (n && f >= n) {
            if (loop)
                f = fmod(f - n, loop) + (n - loop);
            else
                f = n - 1;
        }
        uint32_t i = n ? (uint32_t)f : 0;
        idx[j] = a->reversed && n ? a->first + n - 1 - i : a->first + i;
    }
    if (n && !loop && k >= n - 1)
        *lerp = 0; /* held at the end */
    *f0 = idx[0];
    *f1 = idx[1];
}

qd_err mdl_md3_skin(const mdl_md3 *m, char (*shaders)[64], const char *text, size_t len,
                    const char *name, qd_error *err)
{
    qd_err e = QD_OK;
    char *buf = terminated(text, len, name, err, &e);
    if (!buf)
        return e;
    char *line = buf;
    while (line && *line && !e) {
        char *end = strchr(line, '\n');
        if (end)
            *end = 0;
        char *comma = strchr(line, ',');
        if (comma) {
            *comma = 0;
            char *surf = line, *shader = comma + 1;
            while (*surf && isspace((unsigned char)*surf))
                surf++;
            size_t sl = strlen(shader);
            while (sl && isspace((unsigned char)shader[sl - 1]))
                shader[--sl] = 0;
            while (*shader && isspace((unsigned char)*shader))
                shader++, sl--;
            if (strlen(surf) >= 64 || sl >= 64)
                e = qd_fail(err, QD_ERR_LIMIT, (uint64_t)(line - buf),
                            "%s: a name longer than 63 bytes", name);
            else if (strncmp(surf, "tag_", 4) != 0 && sl)
                for (uint32_t i = 0; i < m->num_surfaces; i++)
                    if (strcasecmp(m->surfaces[i].name, surf) == 0)
                        memcpy(shaders[i], shader, sl + 1);
        }
        line = end ? end + 1 : NULL;
    }
    free(buf);
    return e;
}

/* ---- which files a player's skin is ----------------------------------------------------
 * A player's skin slot is named as cgame's first try (q3.c): a body part
 * "models/players/M/P_S_T.skin" (P lower or upper, S the skin, T default, red or blue) or a
 * head "models/players/H/S/head_T.skin". cgame then tries the other forms in an order
 * (OpenArena gamecode and ioquake3 code/cgame/cg_players.c CG_FindClientModelFile and
 * CG_FindClientHeadFile, without Team Arena's team-name folders): for a body part
 * M/P_S_T, then M/P_S (no team) or M/P_T (a team), then both again under
 * "characters/"; for a head H/S/head_T, then H/head_S or H/head_T, then both again under
 * "heads/". */

/* The parts of a skin slot's name, 0 when it is not one of the two forms. */
static int skin_parts(const char *name, char *dir, size_t dcap, char *part, size_t pcap,
                      char *skin, size_t scap, char *team, size_t tcap)
{
    static const char pre[] = "models/players/";
    size_t n = strlen(name), k = sizeof pre - 1;
    if (n <= k + 5 || strncmp(name, pre, k) != 0 || strcmp(name + n - 5, ".skin") != 0)
        return 0;
    const char *rest = name + k, *end = name + n - 5, *slash = strrchr(rest, '/');
    const char *us = memchr(slash ? slash : rest, '_', (size_t)(end - (slash ? slash : rest)));
    const char *last = NULL;
    for (const char *p = end; p > (slash ? slash : rest); p--)
        if (p[-1] == '_') {
            last = p;
            break;
        }
    if (!slash || !us || !last)
        return 0;
    const char *first_slash = memchr(rest, '/', (size_t)(slash - rest) + 1);
    int head = first_slash != slash; /* H/S/head_T */
    size_t plen = (size_t)(us - slash - 1), tlen = (size_t)(end - last);
    if (plen + 1 > pcap || tlen + 1 > tcap)
        return 0;
    memcpy(part, slash + 1, plen);
    part[plen] = 0;
    memcpy(team, last, tlen);
    team[tlen] = 0;
    if (strcmp(team, "default") && strcmp(team, "red") && strcmp(team, "blue"))
        return 0;
    size_t dlen = (size_t)((head ? first_slash : slash) - rest), slen;
    const char *s;
    if (head) {
        if (strcmp(part, "head") != 0 || us + 1 != last)
            return 0; /* head_T only */
        s = first_slash + 1;
        slen = (size_t)(slash - s);
    } else {
        if (us + 1 > last - 1)
            return 0; /* P_S_T: a skin between */
        s = us + 1;
        slen = (size_t)(last - 1 - s);
    }
    if (dlen + 1 > dcap || slen + 1 > scap || !dlen || !slen || memchr(rest, '/', dlen) ||
        memchr(s, '/', slen))
        return 0;
    memcpy(dir, rest, dlen);
    dir[dlen] = 0;
    memcpy(skin, s, slen);
    skin[slen] = 0;
    return head ? 2 : 1;
}

int mdl_player_skin_paths(const char *name, char (*out)[64], int max)
{
    char dir[64], part[16], skin[64], team[16];
    int kind = skin_parts(name, dir, sizeof dir, part, sizeof part, skin, sizeof skin, team,
                          sizeof team);
    if (!kind || max < 4)
        return 0;
    const char *other = strcmp(team, "default") == 0 ? skin : team;
    const char *folder = kind == 2 ? "heads/" : "characters/";
    int n = 0;
    for (int f = 0; f < 2; f++) {
        const char *sub = f ? folder : "";
        int a = kind == 2 ? snprintf(out[n], 64, "models/players/%s%s/%s/head_%s.skin", sub, dir,
                                     skin, team)
                          : snprintf(out[n], 64, "models/players/%s%s/%s_%s_%s.skin", sub, dir,
                                     part, skin, team);
        n += a > 0 && a < 64;
        int b = snprintf(out[n], 64, "models/players/%s%s/%s_%s.skin", sub, dir, part, other);
        n += b > 0 && b < 64;
    }
    return n;
}

int mdl_player_fallback_skin(const char *name, const char *model, char out[64])
{
    char dir[64], part[16], skin[64], team[16];
    int kind = skin_parts(name, dir, sizeof dir, part, sizeof part, skin, sizeof skin, team,
                          sizeof team);
    if (!kind)
        return 0;
    /* cgame: DEFAULT_MODEL with skin "default" outside team games; in team games
     * DEFAULT_TEAM_MODEL keeping the skin name (its lookup then finds P_T) */
    const char *s = strcmp(team, "default") == 0 ? "default" : skin;
    int r = kind == 2 ? snprintf(out, 64, "models/players/%s/%s/head_%s.skin", model, s, team)
                      : snprintf(out, 64, "models/players/%s/%s_%s_%s.skin", model, part, s, team);
    return r > 0 && r < 64;
}
