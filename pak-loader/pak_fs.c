/* pak_fs.c: the search path: stacking game folders, archives and folders, then lookups,
 * whole-file reads and listings across the stack. */
#include "pak_local.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PAK_MAX_LAYERS 65536
#define PAK_MAX_BASEDIR_NAMES 65536

struct pak_fs {
    pak_archive **layers; /* [0] is searched last, [count - 1] first */
    int count, cap;
    uint64_t max_file;
};

pak_fs *pak_fs_open(void)
{
    pak_fs *fs = calloc(1, sizeof *fs);
    if (fs)
        fs->max_file = PAK_MAX_FILE_DEFAULT;
    return fs;
}

void pak_fs_close(pak_fs *fs)
{
    if (!fs)
        return;
    for (int i = 0; i < fs->count; i++)
        pak_archive_close(fs->layers[i]);
    free(fs->layers);
    free(fs);
}

void pak_fs_set_max_file(pak_fs *fs, uint64_t max_bytes)
{
    if (fs)
        fs->max_file = max_bytes ? max_bytes : PAK_MAX_FILE_DEFAULT;
}

int pak_fs_num_layers(const pak_fs *fs) { return fs ? fs->count : 0; }

uint32_t pak_fs_unusable(const pak_fs *fs, uint32_t i, char *name, size_t cap, int *why)
{
    uint32_t n = 0;
    if (name && cap)
        name[0] = 0;
    if (why)
        *why = 0;
    for (int l = 0; fs && l < fs->count; l++) {
        const pak_archive *a = fs->layers[l];
        uint32_t kept = a->unusable_kept ? (a->unusable < PAK_UNUSABLE_KEPT ? a->unusable
                                                                           : PAK_UNUSABLE_KEPT)
                                         : 0;
        if (i < kept) {
            if (name && cap)
                snprintf(name, cap, "%s", a->unusable_kept[i].name);
            if (why)
                *why = a->unusable_kept[i].why;
            i = UINT32_MAX; /* (found: the rest only counted) */
        } else if (i != UINT32_MAX) {
            i -= kept;
        }
        n += a->unusable;
    }
    return n;
}

const char *pak_fs_layer(const pak_fs *fs, int i, pak_kind *kind, uint32_t *files)
{
    if (!fs || i < 0 || i >= fs->count)
        return NULL;
    if (kind)
        *kind = fs->layers[i]->kind;
    if (files)
        *files = fs->layers[i]->count;
    return fs->layers[i]->path;
}

/* Puts a on top of the stack; on failure a is closed. */
static qd_err push_layer(pak_fs *fs, pak_archive *a, qd_error *err)
{
    if (fs->count == fs->cap) {
        int cap = fs->cap ? fs->cap * 2 : 16;
        pak_archive **n = cap <= PAK_MAX_LAYERS ? realloc(fs->layers, (size_t)cap * sizeof *n)
                                                : NULL;
        if (!n) {
            qd_err e = qd_fail(err, cap > PAK_MAX_LAYERS ? QD_ERR_LIMIT : QD_ERR_NOMEM, 0,
                               "%s: cannot add a layer to the search path (%d layers)",
                               a->label, fs->count);
            pak_archive_close(a);
            return e;
        }
        fs->layers = n;
        fs->cap = cap;
    }
    fs->layers[fs->count++] = a;
    return QD_OK;
}

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

static int casecmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        unsigned char x = (unsigned char)lower(*a), y = (unsigned char)lower(*b);
        if (x != y || !x)
            return x - y;
    }
}

static int ends_with_ci(const char *s, const char *ext)
{
    size_t n = strlen(s), m = strlen(ext);
    return n > m && casecmp(s + n - m, ext) == 0;
}

static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (p) {
        memcpy(p, dir, a);
        p[a] = '/';
        memcpy(p + a + 1, name, b + 1);
    }
    return p;
}

/* An archive in a game folder, in the order it goes on the stack. */
typedef struct cand {
    char *name;
    int group;           /* 0 pakN.pak, 1 other *.pak, 2 *.pk3 */
    const char *digits;  /* group 0: N without leading zeros */
    size_t ndigits;
} cand_t;

static void classify(cand_t *c)
{
    const char *s = c->name;
    c->group = ends_with_ci(s, ".pk3") ? 2 : 1;
    if (c->group == 1 && lower(s[0]) == 'p' && lower(s[1]) == 'a' && lower(s[2]) == 'k') {
        const char *d = s + 3, *e = d;
        while (*e >= '0' && *e <= '9')
            e++;
        if (e > d && casecmp(e, ".pak") == 0) {
            while (d + 1 < e && *d == '0')
                d++;
            c->group = 0;
            c->digits = d;
            c->ndigits = (size_t)(e - d);
        }
    }
}

/* pakN.pak numerically (Quake's COM_AddGameDirectory adds pak0, pak1, ... each above the
 * last), then other .pak by name (Q2PRO loads every *.pak, pakN first), then .pk3 by name
 * case-insensitively (ioquake3's FS_AddGameDirectory sorts them and a later one overrides). */
static int cmp_cand(const void *x, const void *y)
{
    const cand_t *a = x, *b = y;
    if (a->group != b->group)
        return a->group - b->group;
    if (a->group == 0) {
        if (a->ndigits != b->ndigits)
            return a->ndigits < b->ndigits ? -1 : 1;
        int c = memcmp(a->digits, b->digits, a->ndigits);
        if (c)
            return c;
    }
    int c = casecmp(a->name, b->name);
    return c ? c : strcmp(a->name, b->name);
}

qd_err pak_fs_add_game_dir(pak_fs *fs, const char *dir, qd_error *err)
{
    if (!fs || !dir)
        return qd_fail(err, QD_ERR_USAGE, 0, "pak_fs_add_game_dir: no search path or folder");
    DIR *d = opendir(dir);
    if (!d)
        return qd_fail(err, QD_ERR_IO, 0, "%s: cannot list folder: %s", dir, strerror(errno));
    cand_t *c = NULL;
    size_t n = 0, cap = 0;
    qd_err e = QD_OK;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' ||
            !(ends_with_ci(de->d_name, ".pak") || ends_with_ci(de->d_name, ".pk3")))
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            cand_t *nn = nc <= PAK_MAX_LAYERS ? realloc(c, nc * sizeof *nn) : NULL;
            if (!nn) {
                e = qd_fail(err, nc > PAK_MAX_LAYERS ? QD_ERR_LIMIT : QD_ERR_NOMEM, 0,
                            "%s: too many archives", dir);
                break;
            }
            c = nn;
            cap = nc;
        }
        memset(&c[n], 0, sizeof c[n]);
        if (!(c[n].name = strdup(de->d_name))) {
            e = qd_fail(err, QD_ERR_NOMEM, 0, "%s: out of memory", dir);
            break;
        }
        classify(&c[n]);
        n++;
    }
    closedir(d);
    if (!e && n > 1)
        qsort(c, n, sizeof *c, cmp_cand);
    qd_err first = QD_OK;
    for (size_t i = 0; i < n && !e; i++) {
        char *path = join(dir, c[i].name);
        struct stat st;
        if (!path) {
            e = qd_fail(err, QD_ERR_NOMEM, 0, "%s: out of memory", dir);
        } else if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            qd_error one;
            pak_archive *a;
            qd_err r = pak_archive_open_file(path, &a, &one);
            if (!r)
                e = push_layer(fs, a, err);
            else if (!first) {
                first = r;
                if (err)
                    *err = one;
            }
        }
        free(path);
    }
    for (size_t i = 0; i < n; i++)
        free(c[i].name);
    free(c);
    if (e)
        return e;
    /* Loose files go above every archive of their own folder, as in Quake III, so a loose
     * file overrides (Quake's and Quake II's COM_AddGameDirectory put pakN.pak above them). */
    qd_error one;
    pak_archive *a;
    qd_err r = pak_archive_open_folder(dir, &a, &one);
    if (!r)
        r = push_layer(fs, a, &one);
    if (r) {
        if (err)
            *err = one;
        return r;
    }
    return first;
}

qd_err pak_fs_add_file(pak_fs *fs, const char *path, qd_error *err)
{
    if (!fs || !path)
        return qd_fail(err, QD_ERR_USAGE, 0, "pak_fs_add_file: no search path or file");
    struct stat st;
    if (stat(path, &st) != 0)
        return qd_fail(err, QD_ERR_IO, 0, "%s: %s", path, strerror(errno));
    pak_archive *a;
    qd_err e = S_ISDIR(st.st_mode) ? pak_archive_open_folder(path, &a, err)
                                   : pak_archive_open_file(path, &a, err);
    return e ? e : push_layer(fs, a, err);
}

qd_err pak_fs_add_mem(pak_fs *fs, const char *label, const uint8_t *data, size_t len,
                      qd_error *err)
{
    if (!fs)
        return qd_fail(err, QD_ERR_USAGE, 0, "pak_fs_add_mem: no search path");
    pak_archive *a;
    qd_err e = pak_archive_open_mem(data, len, label, &a, err);
    return e ? e : push_layer(fs, a, err);
}

static int cmp_name(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

qd_err pak_fs_add_basedir(pak_fs *fs, const char *basedir, const char *const *games,
                          int ngames, qd_error *err)
{
    if (!fs || !basedir || (ngames > 0 && !games) || ngames < 0)
        return qd_fail(err, QD_ERR_USAGE, 0, "pak_fs_add_basedir: bad arguments");
    DIR *d = opendir(basedir);
    if (!d)
        return qd_fail(err, QD_ERR_IO, 0, "%s: cannot list folder: %s", basedir,
                       strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    qd_err e = QD_OK;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        int wanted = 0;
        for (int g = 0; g < ngames && !wanted; g++)
            wanted = games[g] && casecmp(de->d_name, games[g]) == 0;
        if (!wanted)
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 8;
            char **nn = nc <= PAK_MAX_BASEDIR_NAMES ? realloc(names, nc * sizeof *nn) : NULL;
            if (!nn) {
                e = qd_fail(err, QD_ERR_LIMIT, 0, "%s: too many folders", basedir);
                break;
            }
            names = nn;
            cap = nc;
        }
        if (!(names[n] = strdup(de->d_name))) {
            e = qd_fail(err, QD_ERR_NOMEM, 0, "%s: out of memory", basedir);
            break;
        }
        n++;
    }
    closedir(d);
    if (!e && n > 1)
        qsort(names, n, sizeof *names, cmp_name);
    qd_err first = QD_OK;
    for (int g = 0; g < ngames && !e; g++) {
        const char *s = games[g];
        if (!s || !*s || strchr(s, '/') || strchr(s, '\\') || strcmp(s, ".") == 0 ||
            strcmp(s, "..") == 0) {
            if (!first)
                first = qd_fail(err, QD_ERR_USAGE, 0,
                                "game folder name \"%.100s\" is not a plain name", s ? s : "");
            continue;
        }
        /* An exact match first, else the first case-insensitive match in byte order. */
        char *path = NULL;
        for (int pass = 0; pass < 2 && !path && !e; pass++) {
            for (size_t i = 0; i < n && !path; i++) {
                if (pass == 0 ? strcmp(names[i], games[g]) != 0
                              : casecmp(names[i], games[g]) != 0)
                    continue;
                if (!(path = join(basedir, names[i]))) {
                    e = qd_fail(err, QD_ERR_NOMEM, 0, "%s: out of memory", basedir);
                    break;
                }
                if (!is_dir(path)) {
                    free(path);
                    path = NULL;
                }
            }
        }
        if (e)
            break;
        if (!path)
            continue; /* a missing game folder is not an error */
        qd_error one;
        qd_err r = pak_fs_add_game_dir(fs, path, &one);
        free(path);
        if (r && !first) {
            first = r;
            if (err)
                *err = one;
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return e ? e : first;
}

/* ---- lookups ---------------------------------------------------------------------------- */

int pak_find(const pak_fs *fs, const char *name, pak_info *info)
{
    char norm[PAK_MAX_NAME + 1];
    if (!fs || !fs->count || !name ||
        pak_name_normalize(name, strlen(name), norm, sizeof norm) <= 0)
        return 0;
    for (int i = fs->count - 1; i >= 0; i--) {
        const pak_archive *a = fs->layers[i];
        const pak_entry *e = pak_archive_find(a, norm);
        if (!e)
            continue;
        if (info) {
            info->source = a->path;
            info->name = e->name;
            info->kind = a->kind;
            info->layer = i;
            info->size = e->size;
            info->offset = a->kind == PAK_KIND_FOLDER ? 0 : e->ofs;
        }
        return 1;
    }
    return 0;
}

qd_err pak_read(const pak_fs *fs, const char *name, uint8_t **data, size_t *len,
                qd_error *err)
{
    if (data)
        *data = NULL;
    if (len)
        *len = 0;
    if (!fs || !name || !data || !len)
        return qd_fail(err, QD_ERR_USAGE, 0, "pak_read: missing argument");
    char norm[PAK_MAX_NAME + 1];
    int n = pak_name_normalize(name, strlen(name), norm, sizeof norm);
    if (n == PAK_NAME_DOTDOT)
        return qd_fail(err, QD_ERR_USAGE, 0, "\"%.120s\": names may not have a \"..\" part",
                       name);
    if (n == PAK_NAME_TOO_LONG)
        return qd_fail(err, QD_ERR_NOT_FOUND, 0, "\"%.120s...\": not found (name too long)",
                       name);
    if (n == 0)
        return qd_fail(err, QD_ERR_USAGE, 0, "\"%.120s\": not a file name", name);
    for (int i = fs->count - 1; i >= 0; i--) {
        const pak_entry *e = pak_archive_find(fs->layers[i], norm);
        if (e)
            return pak_archive_read(fs->layers[i], e, fs->max_file, data, len, err);
    }
    return qd_fail(err, QD_ERR_NOT_FOUND, 0, "%s: not found on the search path", norm);
}

typedef struct item {
    const char *name;
    uint64_t size;
    int layer;
    uint32_t index; /* position in its archive's directory */
} item_t;

static int cmp_item(const void *x, const void *y)
{
    const item_t *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    return b->layer - a->layer; /* highest layer first */
}

/* ioquake3's FS_ListFilteredFiles order: the layers from the highest priority down, each
 * in its directory's order. */
static int cmp_search(const void *x, const void *y)
{
    const item_t *a = x, *b = y;
    if (a->layer != b->layer)
        return b->layer - a->layer;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* pak_list and pak_list_search_order: the names once each (the highest-priority copy), by
 * name or (search_order) as ioquake3 lists them. */
static int list_names(const pak_fs *fs, const char *prefix, int search_order,
                      void (*fn)(void *ctx, const char *name, uint64_t size), void *ctx)
{
    if (!fs)
        return 0;
    char pre[PAK_MAX_NAME + 2] = "";
    size_t plen = 0;
    if (prefix && *prefix) {
        int n = pak_name_normalize(prefix, strlen(prefix), pre, PAK_MAX_NAME + 1);
        if (n < 0)
            return 0; /* ".." or too long: no name can start with it */
        plen = (size_t)n; /* 0: only separators and "." parts, so everything */
        char last = prefix[strlen(prefix) - 1];
        if (plen && (last == '/' || last == '\\')) {
            pre[plen++] = '/';
            pre[plen] = 0;
        }
    }
    size_t total = 0;
    for (int i = 0; i < fs->count; i++) {
        const pak_archive *a = fs->layers[i];
        for (uint32_t k = pak_archive_lower_bound(a, pre);
             k < a->count && strncmp(a->entries[k].name, pre, plen) == 0; k++)
            total++;
    }
    if (total == 0)
        return 0;
    if (total > INT32_MAX)
        return -1;
    item_t *items = malloc(total * sizeof *items);
    if (!items)
        return -1;
    size_t n = 0;
    for (int i = 0; i < fs->count; i++) {
        const pak_archive *a = fs->layers[i];
        for (uint32_t k = pak_archive_lower_bound(a, pre);
             k < a->count && strncmp(a->entries[k].name, pre, plen) == 0; k++) {
            items[n].name = a->entries[k].name;
            items[n].size = a->entries[k].size;
            items[n].layer = i;
            items[n].index = a->entries[k].index;
            n++;
        }
    }
    qsort(items, n, sizeof *items, cmp_item);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (!i || strcmp(items[i - 1].name, items[i].name) != 0)
            items[kept++] = items[i];
    if (search_order)
        qsort(items, kept, sizeof *items, cmp_search);
    for (size_t i = 0; fn && i < kept; i++)
        fn(ctx, items[i].name, items[i].size);
    free(items);
    return (int)kept;
}

int pak_list(const pak_fs *fs, const char *prefix,
             void (*fn)(void *ctx, const char *name, uint64_t size), void *ctx)
{
    return list_names(fs, prefix, 0, fn, ctx);
}

int pak_list_search_order(const pak_fs *fs, const char *prefix,
                          void (*fn)(void *ctx, const char *name, uint64_t size), void *ctx)
{
    return list_names(fs, prefix, 1, fn, ctx);
}
