/* app_info.c: the `info` and `dump` commands, the search path for a demo's game, and
 * error reporting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/file.h"
#include "../common/text.h"
#include "../model/model.h"
#include "../render/render.h"
#include "../sound/snd.h"

#include "app.h"

/* s as printable text: bytes outside 32..126 as \xNN (names from demos and file names
 * reach the terminal: a review found escapes that set its title or cleared it, and names
 * that broke a line in two). */
void app_put_text(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p >= 32 && *p < 127)
            fputc(*p, f);
        else
            fprintf(f, "\\x%02x", *p);
}

/* One "  missing: NAME" line of plain info. */
static void put_missing(const char *name)
{
    fputs("  missing: ", stdout);
    app_put_text(stdout, name);
    fputc('\n', stdout);
}

void app_report(const char *file, const qd_error *e)
{
    fputs("qdemo: ", stderr);
    app_put_text(stderr, file);
    fprintf(stderr, ": offset %llu: %s: ", (unsigned long long)e->offset, qd_strerror(e->code));
    app_put_text(stderr, e->msg);
    fputc('\n', stderr);
}

/* Add one -p argument: a folder or an archive file. stat never opens, so a FIFO cannot
 * block here; pak_fs_add_file refuses anything but a regular file. */
static qd_err add_pak(pak_fs *fs, const char *path, qd_error *err)
{
    struct stat st;
    int is_dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    return is_dir ? pak_fs_add_game_dir(fs, path, err) : pak_fs_add_file(fs, path, err);
}

int app_check_paks(app_opts *o)
{
    for (int i = 0; i < o->num_paks; i++) {
        struct stat st;
        if (stat(o->paks[i], &st) == 0 && !S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
            qd_error e;
            qd_fail(&e, QD_ERR_IO, 0, "-p takes a PAK/PK3 file or a folder, not %s",
                    qd_file_kind(st.st_mode));
            app_report(o->paks[i], &e);
            return -1;
        }
    }
    pak_fs *fs = pak_fs_open();
    if (!fs)
        return 0;
    int kept = 0, dropped = 0;
    for (int i = 0; i < o->num_paks; i++) {
        qd_error e = {0};
        if (add_pak(fs, o->paks[i], &e) == QD_OK) {
            o->paks[kept++] = o->paks[i];
            continue;
        }
        fprintf(stderr, "qdemo: warning: %s: offset %llu: %s: %s; left out of the search path\n",
                o->paks[i], (unsigned long long)e.offset, qd_strerror(e.code), e.msg);
        dropped++;
    }
    o->num_paks = kept;
    pak_fs_close(fs);
    return dropped;
}

/* The game folders a level reads under a basedir: the game's own, then the demo's mod folder
 * (a plain name only). Returns how many (at most 4). */
static int level_games(const cl_level *lvl, const char *games[4])
{
    int n = 0;
    const char *mod = lvl && lvl->gamedir[0] ? lvl->gamedir : NULL;
    switch (lvl ? lvl->game : CL_GAME_NONE) {
    case CL_GAME_QW:
        games[n++] = "id1";
        games[n++] = "qw";
        break;
    case CL_GAME_Q2:
        games[n++] = "baseq2";
        break;
    case CL_GAME_Q3:
        games[n++] = "baseq3";
        games[n++] = "baseoa";
        break;
    default:
        games[n++] = "id1";
        break;
    }
    if (mod && strchr(mod, '/') == NULL && strstr(mod, "..") == NULL) {
        int dup = 0;
        for (int i = 0; i < n; i++)
            dup |= strcmp(games[i], mod) == 0;
        if (!dup)
            games[n++] = mod;
    }
    return n;
}

int app_autodetect(const app_opts *o)
{
    const char *off = getenv("QDEMO_NO_AUTODETECT");
    return !o->no_autodetect && !(off && *off && strcmp(off, "0") != 0);
}

/* An installed qdemo's own data: the bundled LibreQuake models and pictures in
 * <prefix>/share/qdemo beside <prefix>/bin/qdemo (make install puts them there), found from
 * the running program's path so the install can move. A new string, or NULL when absent. */
static char *installed_data(void)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0 || (size_t)n >= sizeof exe - 1)
        return NULL;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = 0; /* the bin folder */
    char *data = qd_path_join(exe, "../share/qdemo");
    struct stat st;
    if (data && (stat(data, &st) != 0 || !S_ISDIR(st.st_mode))) {
        free(data);
        data = NULL;
    }
    return data;
}

void app_game_folders(const app_opts *o, const cl_level *lvl, game_dirs *out)
{
    memset(out, 0, sizeof *out);
    if (app_autodetect(o)) {
        game_env env;
        game_env_from_process(&env);
        game_dirs_find(lvl ? lvl->game : CL_GAME_NONE, &env, out);
    }
    if (o->basedir && out->n == GAME_DIRS_MAX) {
        /* -b is always searched, last (it wins): the found folder searched first makes room
         * (a review: 32 configured folders dropped -b in silence, and the last of them was
         * then reported as -b) */
        free(out->dir[0]);
        memmove(out->dir, out->dir + 1, sizeof out->dir[0] * (GAME_DIRS_MAX - 1));
        memmove(out->from_config, out->from_config + 1,
                sizeof out->from_config[0] * (GAME_DIRS_MAX - 1));
        out->n--;
    }
    if (o->basedir) {
        char *copy = strdup(o->basedir);
        if (copy) {
            out->from_config[out->n] = 0;
            out->dir[out->n++] = copy;
        }
    }
}

pak_fs *app_search_path(const app_opts *o, const cl_level *lvl, qd_error *err)
{
    return app_search_path_folders(o, lvl, err, NULL);
}

pak_fs *app_search_path_folders(const app_opts *o, const cl_level *lvl, qd_error *err,
                                game_dirs *folders)
{
    if (folders)
        memset(folders, 0, sizeof *folders);
    pak_fs *fs = pak_fs_open();
    if (!fs)
        return NULL;
    qd_error e1;
    int failed = 0;
    const char *games[4];
    int n = level_games(lvl, games);
    char *own = app_autodetect(o) ? installed_data() : NULL;
    if (own) /* below everything: any game's own files win */
        (void)pak_fs_add_file(fs, own, &e1);
    free(own);
    game_dirs dirs;
    app_game_folders(o, lvl, &dirs);
    for (int i = 0; i < dirs.n; i++) {
        /* a damaged archive in a found install is left out quietly; -b's are reported */
        int named = o->basedir && i == dirs.n - 1;
        if (pak_fs_add_basedir(fs, dirs.dir[i], games, n, &e1) != QD_OK && named &&
            !failed) {
            failed = 1;
            if (err)
                *err = e1;
        }
    }
    if (folders)
        *folders = dirs; /* (the caller frees them) */
    else
        game_dirs_free(&dirs);
    for (int i = 0; i < o->num_paks; i++) {
        if (add_pak(fs, o->paks[i], &e1) != QD_OK && !failed) {
            failed = 1;
            if (err)
                *err = e1;
        }
    }
    return fs;
}

/* JSON string: Quake text uses the high bit for a second colour and low codes for
 * special glyphs; show their plain ASCII forms. */
/* Textures a present map names without holding their pixels (Quake: a miptex kept in an
 * external WAD or cut off), as "map: texture"; the textured mode draws those faces flat.
 * At most TEX_LIST_MAX are listed. */
#define TEX_LIST_MAX 4096
typedef struct tex_list {
    int n;
    char **names;
} tex_list;

/* Adds "map: texture" to out; 0 when out of memory or full. */
static int tex_add(tex_list *out, const char *map, const char *name)
{
    if (out->n >= TEX_LIST_MAX)
        return 0;
    char **grown = realloc(out->names, (size_t)(out->n + 1) * sizeof *grown);
    size_t cap = strlen(map) + strlen(name) + 3;
    char *s = malloc(cap);
    if (!grown || !s) {
        free(s);
        out->names = grown ? grown : out->names;
        return 0;
    }
    snprintf(s, cap, "%s: %s", map, name);
    out->names = grown;
    out->names[out->n++] = s;
    return 1;
}

static int info_list(void *ctx, const char *prefix,
                     void (*fn)(void *u, const char *name, uint64_t size), void *u)
{
    return pak_list_search_order((const pak_fs *)ctx, prefix, fn, u);
}

/* A Quake III weapon's flash, hand or barrel model, or an item's second model (a health
 * item's sphere, a powerup's ring): cgame does without one that is not there (r_assets.c;
 * OpenArena has no invis_ring.md3). */
static int optional_flash(const char *name)
{
    static const struct {
        const char *dir, *end;
    } parts[] = {{"models/weapons2/", "_flash.md3"},
                 {"models/weapons2/", "_hand.md3"},
                 {"models/weapons2/", "_barrel.md3"},
                 {"models/powerups/health/", "_sphere.md3"},
                 {"models/powerups/instant/", "_ring.md3"}};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        size_t d = strlen(parts[i].dir), k = strlen(parts[i].end);
        if (!strncmp(name, parts[i].dir, d) && n > k && !strcmp(name + n - k, parts[i].end))
            return 1;
    }
    return 0;
}

/* A Quake III sprite: a shader named like a model, with no file of its own (r_assets.c). */
static int is_sprite_shader(const char *name)
{
    return strncmp(name, "sprites/", 8) == 0 && !strchr(name, '.');
}

/* A Quake III player's skin slot (q3.c names it as cgame's first try): found when any of
 * cgame's names for it is there, or, when none is, the one of the player cgame draws then
 * (r_q3_players: "sarge"), so a skin counts as missing only when the game shows nothing. */
static int any_found(const pak_fs *fs, char (*paths)[64], int n)
{
    for (int k = 0; k < n; k++)
        if (pak_find(fs, paths[k], NULL))
            return 1;
    return 0;
}

static int player_skin_path(const pak_fs *fs, const char *name, char out[64])
{
    char paths[4][64], fb[64];
    int n = mdl_player_skin_paths(name, paths, 4);
    if (n && !any_found(fs, paths, n) && mdl_player_fallback_skin(name, "sarge", fb))
        n = mdl_player_skin_paths(fb, paths, 4);
    for (int k = 0; k < n; k++)
        if (pak_find(fs, paths[k], NULL)) {
            memcpy(out, paths[k], 64);
            return 1;
        }
    return 0;
}

/* The image files a Quake III map's shaders name are only looked up, not decoded: info
 * asks which are there. An image on the search path reads as this 1x1 TGA (uncompressed
 * true colour, 32 bits, top-left origin: 18 header bytes and one BGRA pixel), anything else
 * (the shader scripts) as itself. An image that is there but damaged counts as present. */
static const uint8_t tiny_tga[22] = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 32, 8,
                                     128, 128, 128, 255};

static int image_ext(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && (!strcasecmp(name + n - 4, ".tga") || !strcasecmp(name + n - 4, ".jpg") ||
                     !strcasecmp(name + n - 4, ".png"));
}

static qd_err probe_read(void *ctx, const char *name, uint8_t **data, size_t *len,
                         qd_error *err)
{
    if (!image_ext(name))
        return pak_read((const pak_fs *)ctx, name, data, len, err);
    if (!pak_find((const pak_fs *)ctx, name, NULL))
        return qd_fail(err, QD_ERR_NOT_FOUND, 0, "%s: not found", name);
    *data = malloc(sizeof tiny_tga);
    if (!*data)
        return qd_fail(err, QD_ERR_NOMEM, 0, "%s: out of memory", name);
    memcpy(*data, tiny_tga, sizeof tiny_tga);
    *len = sizeof tiny_tga;
    return QD_OK;
}

/* The map's bytes, read once: served (a copy) for its name, the rest from the search path. */
typedef struct held_map {
    pak_fs *fs;
    const char *name;
    const uint8_t *data;
    size_t len;
} held_map;

static qd_err held_read(void *ctx, const char *name, uint8_t **data, size_t *len,
                        qd_error *err)
{
    const held_map *h = ctx;
    if (strcmp(name, h->name) != 0)
        return pak_read(h->fs, name, data, len, err);
    *data = malloc(h->len ? h->len : 1);
    if (!*data)
        return qd_fail(err, QD_ERR_NOMEM, 0, "%s: out of memory", name);
    memcpy(*data, h->data, h->len);
    *len = h->len;
    return QD_OK;
}

/* A Quake III map's shaders whose image is not on the search path, as the textured mode
 * resolves them (r_assets_q3_textures, with the images only looked up: probe_read), from
 * the map's bytes (data, len) and a lean asset set (r_assets_load_names: no lightmaps,
 * face colours or triangle runs, which name nothing). */
static void missing_q3(pak_fs *fs, const char *map, const uint8_t *data, size_t len,
                       const app_models *m, tex_list *out)
{
    cl_level *lvl = calloc(1, sizeof *lvl);
    if (!lvl)
        return;
    snprintf(lvl->map, sizeof lvl->map, "%s", map);
    lvl->num_models = 1;
    /* the sprites (a shader each, no file: cgame's "sprites/plasma1") resolve with it */
    for (int i = 0; m && i < m->n && lvl->num_models < CL_MAX_MODELS; i++)
        if (is_sprite_shader(m->names[i]))
            snprintf(lvl->models[lvl->num_models++], CL_NAME_LEN, "%s", m->names[i]);
    held_map h = {fs, lvl->map, data, len};
    r_assets *a = r_assets_load_names(lvl, held_read, &h, NULL);
    const char *name;
    if (a && r_assets_q3_textures(a, probe_read, info_list, fs, NULL) == QD_OK)
        for (int k = 0; (name = r_assets_missing_texture(a, k)) && tex_add(out, map, name); k++)
            ;
    r_assets_free(a);
    free(lvl);
}

/* The textures of map file name that the textured mode cannot find. */
static void bsp_missing(pak_fs *fs, const char *name, const app_models *m, tex_list *out)
{
    uint8_t *data = NULL;
    size_t len = 0;
    mdl_bsp *b = NULL;
    qd_error e;
    if (pak_read(fs, name, &data, &len, NULL) == QD_OK) {
        /* Quake III's (ioq3 qfiles.h: "IBSP", BSP_VERSION 46): its asset set loads it */
        if (len >= 8 && memcmp(data, "IBSP\x2e\0\0\0", 8) == 0)
            missing_q3(fs, name, data, len, m, out);
        else if (mdl_bsp_load(data, len, name, NULL, &b, &e) == QD_OK)
            for (uint32_t k = 0; b->format <= MDL_BSP_Q1_2PSB && k < b->num_textures; k++) {
                const mdl_texture *t = &b->textures[k];
                if (t->name[0] && !t->mips[0] && !tex_add(out, name, t->name))
                    break;
            }
    }
    mdl_bsp_free(b);
    free(data);
}

/* Every precached .bsp that is there, and the level's map when the precache list lacks it
 * (Quake III lists only the map's submodels). */
static void missing_textures(pak_fs *fs, const app_models *m, const int *missing,
                             const char *map, tex_list *out)
{
    int listed = 0;
    for (int i = 0; fs && i < m->n; i++) {
        size_t nl = strlen(m->names[i]);
        listed |= strcmp(m->names[i], map) == 0;
        if ((missing && missing[i]) || nl < 4 || strcmp(m->names[i] + nl - 4, ".bsp") != 0)
            continue;
        bsp_missing(fs, m->names[i], m, out);
    }
    if (fs && !listed && map[0] && pak_find(fs, map, NULL))
        bsp_missing(fs, map, m, out);
}

static void json_str(FILE *f, const char *s)
{
    /* most names need no escape: written whole (a call a character was a fifth of `info`
     * on a small demo) */
    const unsigned char *q = (const unsigned char *)s;
    while (*q >= 32 && *q < 127 && *q != '"' && *q != '\\')
        q++;
    fputc('"', f);
    fwrite(s, 1, (size_t)(q - (const unsigned char *)s), f);
    for (const unsigned char *p = q; *p; p++) {
        unsigned c = *p & 0x7f;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c < 32 || c == 127)
            fputc(c >= 18 && c <= 27 ? (int)('0' + c - 18) : '.', f); /* Quake's digit glyphs */
        else
            fputc((int)c, f);
    }
    fputc('"', f);
}

/* The length of the UTF-8 sequence at p (RFC 3629: no overlong forms, no surrogates, at most
 * U+10FFFF), 0 when the bytes there are not one. */
static int utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    int n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4
                                                                                          : 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) ||
        (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
        return 0;
    return n;
}

/* A file system path as a JSON string: not demo text (json_str keeps Quake's 7-bit
 * characters), so UTF-8 is kept as it is (a review: "josé" came out as "josC)"), control
 * characters escaped and a byte that is no UTF-8 written as U+FFFD. */
static void json_path(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = *p >= 0x80 ? utf8_len(p) : 1;
        if (n > 1)
            fwrite(p, 1, (size_t)n, f);
        else if (!n)
            fputs("\\ufffd", f);
        else if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 32 || *p == 127)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
        p += n ? n : 1;
    }
    fputc('"', f);
}

/* The n strings as JSON array elements, comma-separated (no brackets); paths with json_path. */
static void json_strs_as(char *const *names, int n, void (*put)(FILE *, const char *))
{
    for (int i = 0; i < n; i++) {
        if (i)
            fputs(", ", stdout);
        put(stdout, names[i]);
    }
}

static void json_strs(char *const *names, int n) { json_strs_as(names, n, json_str); }

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* Grow names and the hash set to hold one more name; 0 when out of memory or full. */
static int models_grow(app_models *m)
{
    if (m->n < m->cap)
        return 1;
    if (m->cap >= APP_MAX_MODEL_NAMES)
        return 0;
    int ncap = m->cap ? m->cap * 2 : 256;
    void *nn = realloc(m->names, (size_t)ncap * CL_NAME_LEN);
    if (!nn)
        return 0;
    m->names = nn;
    uint32_t nslots = (uint32_t)ncap * 4;
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return 0;
    for (int i = 0; i < m->n; i++) {
        uint32_t h = name_hash(m->names[i]) & (nslots - 1);
        while (slots[h])
            h = (h + 1) & (nslots - 1);
        slots[h] = (uint32_t)i + 1;
    }
    free(m->slots);
    m->slots = slots;
    m->nslots = nslots;
    m->cap = ncap;
    return 1;
}

static int models_add(app_models *m, const char *name)
{
    if (!name[0] || name[0] == '*')
        return 1;
    if (m->nslots) {
        uint32_t h = name_hash(name) & (m->nslots - 1);
        for (; m->slots[h]; h = (h + 1) & (m->nslots - 1))
            if (strcmp(m->names[m->slots[h] - 1], name) == 0)
                return 1;
    }
    if (!models_grow(m))
        return 0;
    qd_concat(m->names[m->n], CL_NAME_LEN, name, "");
    uint32_t h = name_hash(m->names[m->n]) & (m->nslots - 1);
    while (m->slots[h])
        h = (h + 1) & (m->nslots - 1);
    m->slots[h] = (uint32_t)++m->n;
    return 1;
}

/* The players' skins as cgame finds them (player_skin_path), each listed once; a skin no
 * name of which is there stays as named (cgame's first try). */
static void skins_as_found(const pak_fs *fs, app_models *m)
{
    app_models out = {0};
    for (int i = 0; i < m->n; i++) {
        char path[64];
        const char *name = m->names[i];
        if (player_skin_path(fs, name, path))
            name = path;
        if (!models_add(&out, name)) {
            app_models_free(&out);
            return; /* out of memory: the names stay as the demo gave them */
        }
    }
    app_models_free(m);
    *m = out;
}

int app_models_update(app_models *m, const cl_state *cl)
{
    if (m->have_gen && m->gen == cl->model_gen)
        return 1;
    m->rebuilds++;
    for (int i = 1; i < cl->level.num_models; i++)
        if (cl->level.models[i][0] != '#' && !models_add(m, cl->level.models[i]))
            return 0; /* "#w_x.md2": Quake II's view weapon names, each player's own file */
    m->gen = cl->model_gen;
    m->have_gen = 1;
    return 1;
}

void app_models_free(app_models *m)
{
    free(m->names);
    free(m->slots);
    memset(m, 0, sizeof *m);
}

/* The sounds of the level that no file on the search path holds (as snd_bank_find would look
 * for them: the game's sound folder; Quake III also the .ogg of a .wav), in a new list of
 * pointers into lvl; *n their count. */
static const char **missing_sounds(const pak_fs *fs, const cl_level *lvl, int *n)
{
    *n = 0;
    const char **out = calloc((size_t)(lvl->num_sounds > 0 ? lvl->num_sounds : 1), sizeof *out);
    for (int i = 1; out && i < lvl->num_sounds && i < CL_MAX_SOUNDS; i++) {
        const char *name = lvl->sounds[i];
        char file[CL_NAME_LEN + 16];
        /* "*name", Quake II's "#players/...": a player's own sound, by model, that falls
         * back to the male one */
        if (!name[0] || name[0] == '*' || (lvl->game == CL_GAME_Q2 && name[0] == '#'))
            continue;
        int found = snd_file_name(lvl->game, name, file, sizeof file) && fs &&
                    pak_find(fs, file, NULL);
        size_t len = strlen(file);
        if (!found && lvl->game == CL_GAME_Q3 && len > 4 &&
            strcmp(file + len - 4, ".wav") == 0) {
            memcpy(file + len - 4, ".ogg", 4);
            found = fs && pak_find(fs, file, NULL);
        }
        if (!found)
            out[(*n)++] = name;
    }
    return out;
}

int app_info(const app_opts *o)
{
    qd_error err = {0};
    demo_t *d = demo_open(o->demo, &err);
    if (!d) {
        if (o->json) {
            printf("{\"format\": \"unknown\", \"protocol\": 0, \"protocol_name\": null, "
                   "\"map\": \"\", \"duration_s\": 0, "
                   "\"frames\": 0, \"players\": [], \"models\": [], \"models_missing\": [], \"textures_missing\": [], \"sounds_missing\": [], "
                   "\"damaged\": [], \"complete\": false, \"error\": ");
            char line[400];
            snprintf(line, sizeof line, "offset %llu: %s: %s", (unsigned long long)err.offset,
                     qd_strerror(err.code), err.msg);
            json_str(stdout, line);
            printf("}\n");
        }
        app_report(o->demo, &err);
        return err.code == QD_ERR_USAGE ? APP_EXIT_USAGE : APP_EXIT_INPUT;
    }
    cl_state *cl = qd_alloc_bulk_zero(sizeof *cl, demo_size(d)); /* (file.h) */
    if (!cl) {
        demo_close(d);
        return APP_EXIT_INPUT;
    }
    cl_reset_zeroed(cl);
    app_models models = {0};
    char first_map[CL_NAME_LEN] = "", first_title[CL_NAME_LEN] = "";
    uint32_t levels_seen = 0;
    double first_time = -1;
    qd_err r = QD_OK;
    int done = 0;
    uint32_t frames = 0;
    while (!done) {
        uint32_t before = cl->frame_count;
        r = demo_step(d, cl, NULL, &done, &err);
        if (cl->frame_count != before) {
            frames += cl->frame_count - before;
            if (first_time < 0)
                first_time = cl->prev_time < cl->time && before > 0 ? cl->prev_time : cl->time;
        }
        if (cl->level_count != levels_seen) {
            levels_seen = cl->level_count;
            if (!first_map[0]) { /* (and its title: a review found the last level's) */
                snprintf(first_map, sizeof first_map, "%s", cl->level.map);
                snprintf(first_title, sizeof first_title, "%s", cl->level.title);
            }
        }
        app_models_update(&models, cl);
        if (r != QD_OK)
            break;
    }
    if (r == QD_OK)
        r = demo_check_end(d, &err); /* cut at a block boundary: not complete */
    int ndamaged = demo_num_damaged(d);
    if (ndamaged > 0) { /* blocks skipped: report the first damage */
        err = demo_damaged(d, 0)->why;
        r = err.code;
    }
    double duration = first_time >= 0 ? cl->time - first_time : 0;
    const char *map = first_map[0] ? first_map : cl->level.map;
    const char *title = first_map[0] ? first_title : cl->level.title;

    game_dirs folders;
    pak_fs *fs = app_search_path_folders(o, &cl->level, NULL, &folders);
    if (fs)
        skins_as_found(fs, &models);
    int *missing = calloc((size_t)(models.n ? models.n : 1), sizeof *missing);
    for (int i = 0; i < models.n && missing; i++)
        missing[i] = !is_sprite_shader(models.names[i]) && /* sprites: textures */
                     !optional_flash(models.names[i]) &&
                     (!fs || !pak_find(fs, models.names[i], NULL));
    tex_list tex = {0};
    missing_textures(fs, &models, missing, map, &tex);
    int nsnd_missing = 0;
    const char **snd_missing = missing_sounds(fs, &cl->level, &nsnd_missing);

    if (o->json) {
        printf("{\"format\": ");
        char fmt[16];
        if (demo_get_format(d) == DEMO_FMT_DM3 && demo_protocol(d) > 0)
            snprintf(fmt, sizeof fmt, "dm_%d", demo_protocol(d));
        else
            snprintf(fmt, sizeof fmt, "%s", demo_format_name(demo_get_format(d)));
        json_str(stdout, fmt);
        printf(", \"protocol\": %d, \"protocol_name\": ", demo_protocol(d));
        if (demo_protocol_name(d))
            json_str(stdout, demo_protocol_name(d));
        else
            printf("null");
        printf(", \"map\": ");
        json_str(stdout, map);
        printf(", \"title\": ");
        json_str(stdout, title);
        printf(", \"gamedir\": ");
        json_str(stdout, cl->level.gamedir);
        printf(", \"game_folders\": [");
        json_strs_as(folders.dir, folders.n, json_path);
        printf("]");
        printf(", \"duration_s\": %.3f, \"frames\": %u, \"players\": [", duration, frames);
        int first = 1;
        for (int i = 0; i < CL_MAX_PLAYERS; i++) {
            if (!cl->players[i].active)
                continue;
            printf(first ? "{\"name\": " : ", {\"name\": ");
            json_str(stdout, cl->players[i].name);
            if (cl->players[i].frags_known)
                printf(", \"frags\": %d}", (int)cl->players[i].frags);
            else /* (not sent: Quake III's other players without a "scores" command) */
                printf(", \"frags\": null}");
            first = 0;
        }
        printf("], \"models\": [");
        for (int i = 0; i < models.n; i++) {
            if (i)
                fputs(", ", stdout);
            json_str(stdout, models.names[i]);
        }
        printf("], \"models_missing\": [");
        first = 1;
        for (int i = 0; i < models.n; i++) {
            if (!missing || !missing[i])
                continue;
            if (!first)
                fputs(", ", stdout);
            json_str(stdout, models.names[i]);
            first = 0;
        }
        printf("], \"textures_missing\": [");
        json_strs(tex.names, tex.n);
        printf("], \"sounds_missing\": [");
        json_strs((char *const *)snd_missing, nsnd_missing);
        printf("], \"damaged\": [");
        for (int i = 0; i < ndamaged; i++) {
            const demo_damage *g = demo_damaged(d, i);
            printf("%s{\"offset\": %llu, \"length\": %llu, \"reason\": ", i ? ", " : "",
                   (unsigned long long)g->offset, (unsigned long long)g->length);
            char line[300];
            snprintf(line, sizeof line, "%s: %s", qd_strerror(g->why.code), g->why.msg);
            json_str(stdout, line);
            printf("}");
        }
        printf("], \"complete\": %s, \"error\": ", r == QD_OK ? "true" : "false");
        if (r == QD_OK) {
            printf("null");
        } else {
            char line[400];
            snprintf(line, sizeof line, "offset %llu: %s: %s", (unsigned long long)err.offset,
                     qd_strerror(err.code), err.msg);
            json_str(stdout, line);
        }
        printf("}\n");
    } else {
        printf("file:      ");
        app_put_text(stdout, o->demo);
        printf("\n");
        printf("format:    %s, protocol %d", demo_format_name(demo_get_format(d)),
               demo_protocol(d));
        if (demo_protocol_name(d))
            printf(" (%s)", demo_protocol_name(d));
        printf("\n");
        printf("map:       ");
        app_put_text(stdout, map);
        if (title[0]) {
            printf(" (");
            for (const char *p = title; *p; p++) { /* (DEL too: a review) */
                int ch = *p & 0x7f;
                putchar(ch >= 32 && ch < 127 ? ch : ' ');
            }
            printf(")");
        }
        printf("\nduration:  %.3f s, %u frames\n", duration, frames);
        for (int i = folders.n - 1; i >= 0; i--) { /* the first wins */
            fputs(i == folders.n - 1 ? "game data: " : "           ", stdout);
            app_put_text(stdout, folders.dir[i]); /* (a review: printed raw) */
            puts(folders.from_config[i] ? " (qdemo.conf)"
                 : o->basedir && i == folders.n - 1 ? "" : " (found)");
        }
        printf("players:  ");
        for (int i = 0; i < CL_MAX_PLAYERS; i++) {
            if (!cl->players[i].active)
                continue;
            printf(" ");
            json_str(stdout, cl->players[i].name);
            if (cl->players[i].frags_known)
                printf(" (%d)", (int)cl->players[i].frags);
            else
                printf(" (?)");
        }
        int nmiss = 0;
        for (int i = 0; i < models.n; i++)
            nmiss += missing && missing[i];
        printf("\nmodels:    %d, missing %d\n", models.n, nmiss);
        for (int i = 0; i < models.n; i++)
            if (missing && missing[i])
                put_missing(models.names[i]);
        if (tex.n)
            printf("textures:  %d missing (drawn flat)\n", tex.n);
        for (int i = 0; i < tex.n; i++)
            put_missing(tex.names[i]);
        if (nsnd_missing)
            printf("sounds:    %d missing (silent)\n", nsnd_missing);
        for (int i = 0; i < nsnd_missing; i++)
            put_missing(snd_missing[i]);
        for (int i = 0; i < ndamaged; i++) {
            const demo_damage *g = demo_damaged(d, i);
            printf("damaged:   bytes %llu..%llu skipped: %s\n", (unsigned long long)g->offset,
                   (unsigned long long)(g->offset + g->length), g->why.msg);
        }
        printf("complete:  %s\n", r == QD_OK ? "yes" : "no");
    }
    if (r != QD_OK)
        app_report(o->demo, &err);
    free(missing);
    for (int i = 0; i < tex.n; i++)
        free(tex.names[i]);
    free(tex.names);
    app_models_free(&models);
    free(snd_missing);
    game_dirs_free(&folders);
    pak_fs_close(fs);
    free(cl);
    demo_close(d);
    return r == QD_OK ? APP_EXIT_OK : APP_EXIT_INPUT;
}

static void dump_msg(void *ctx, double t, uint32_t block, uint64_t offset, const char *name,
                     const char *detail)
{
    (void)ctx;
    printf("%10.3f %6u %8llu %-22s %s\n", t, block, (unsigned long long)offset, name,
           detail ? detail : "");
}

int app_dump(const app_opts *o)
{
    qd_error err = {0};
    demo_t *d = demo_open(o->demo, &err);
    if (!d) {
        app_report(o->demo, &err);
        return APP_EXIT_INPUT;
    }
    cl_state *cl = qd_alloc_bulk_zero(sizeof *cl, demo_size(d)); /* (file.h) */
    if (!cl) {
        demo_close(d);
        return APP_EXIT_INPUT;
    }
    cl_reset_zeroed(cl);
    printf("# ");
    app_put_text(stdout, o->demo);
    printf(": %s\n#      time  block   offset message                details\n",
           demo_format_name(demo_get_format(d)));
    demo_trace tr = {NULL, dump_msg};
    int done = 0;
    qd_err r = QD_OK;
    while (!done && r == QD_OK)
        r = demo_step(d, cl, &tr, &done, &err);
    fflush(stdout);
    if (r != QD_OK)
        app_report(o->demo, &err);
    free(cl);
    demo_close(d);
    return r == QD_OK ? APP_EXIT_OK : APP_EXIT_INPUT;
}
