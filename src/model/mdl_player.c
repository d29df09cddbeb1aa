/* mdl_player.c: the text files of a Quake III player model: animation.cfg (which frames each
 * animation runs, at what rate) and .skin files (which shader each MD3 surface wears).
 *
 * Facts from ioquake3's public code (GPL-2.0), described, not copied: cgame/cg_players.c
 * CG_ParseAnimationFile and CG_RunLerpFrame, bg_public.h animNumber_t, renderergl1/tr_image.c
 * RE_RegisterSkin. */
#include <ctype.h>
#include <math.h>
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
    double k = floor(x);
    *lerp = (float)(x - k);
    uint32_t n = a->num, idx[2];
    for (int j = 0; j < 2; j++) {
        double f = k + j;
        if (n && f >= n) {
            if (a->loop)
                f = fmod(f - n, a->loop) + (n - a->loop);
            else
                f = n - 1;
        }
        uint32_t i = n ? (uint32_t)f : 0;
        idx[j] = a->reversed && n ? a->first + n - 1 - i : a->first + i;
    }
    if (n && !a->loop && k >= n - 1)
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
