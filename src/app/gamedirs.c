/* gamedirs.c: where the user's games are, found without flags: the config file, then the
 * folders the engines, Debian's packages, Steam and GOG install to. */
#include "gamedirs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/file.h"
#include "../common/text.h"

/* Which family of installs a game's data lives in. */
typedef enum family { FAM_QUAKE, FAM_QUAKE2, FAM_QUAKE3, FAM_COUNT } family;

static family family_of(cl_game g)
{
    return g == CL_GAME_Q2 ? FAM_QUAKE2 : g == CL_GAME_Q3 ? FAM_QUAKE3 : FAM_QUAKE;
}

/* The config file's game names (a `basedir GAME PATH` line) and their families. */
static const struct {
    const char *name;
    family fam;
} config_games[] = {
    {"quake", FAM_QUAKE},   {"quakeworld", FAM_QUAKE}, {"quake2", FAM_QUAKE2},
    {"quake3", FAM_QUAKE3}, {"openarena", FAM_QUAKE3}, {"quakelive", FAM_QUAKE3},
};

/* Where installs are, lowest priority first: the system's packages, the stores' folders,
 * then the engines' own folders in the user's home (their downloads and mods win). Paths
 * starting "~/" are under $HOME, the others under the root. Sources: Debian's
 * game-data-packager installs Quake to /usr/share/games/quake, Quake II to .../quake2 and
 * Quake III to .../quake3 (its documentation); the openarena packages install to
 * /usr/share/games/openarena (their file lists); Steam's library is
 * ~/.local/share/Steam/steamapps/common/<game name as the store names it> (~/.steam/steam
 * links there on older clients; Flathub's Steam keeps its data in the app's folder,
 * ~/.var/app/com.valvesoftware.Steam/.local/share/Steam, as every Flatpak app does); GOG's Linux installers default to ~/GOG Games/<title>; the
 * engines' home folders are named in their READMEs (QuakeSpasm ~/.quakespasm, Ironwail
 * ~/.ironwail, vkQuake ~/.vkquake, ezQuake ~/.ezquake, FTE ~/.fte, Yamagi Quake II ~/.yq2,
 * Q2PRO ~/.q2pro, ioquake3 ~/.q3a, OpenArena ~/.openarena). */
static const char *const quake_dirs[] = {
    "/usr/share/games/quake",
    "/usr/local/games/quake",
    "~/.local/share/Steam/steamapps/common/Quake",
    "~/.steam/steam/steamapps/common/Quake",
    "~/.var/app/com.valvesoftware.Steam/.local/share/Steam/steamapps/common/Quake",
    "~/GOG Games/Quake",
    "~/.quakespasm",
    "~/.ironwail",
    "~/.vkquake",
    "~/.ezquake",
    "~/.fte",
    NULL,
};
static const char *const quake2_dirs[] = {
    "/usr/share/games/quake2",
    "/usr/local/games/quake2",
    "~/.local/share/Steam/steamapps/common/Quake 2",
    "~/.steam/steam/steamapps/common/Quake 2",
    "~/.var/app/com.valvesoftware.Steam/.local/share/Steam/steamapps/common/Quake 2",
    "~/GOG Games/Quake II",
    "~/.yq2",
    "~/.q2pro",
    "~/.quake2",
    NULL,
};
static const char *const quake3_dirs[] = {
    "/usr/share/games/quake3",
    "/usr/share/games/openarena",
    "/usr/local/games/quake3",
    "~/.local/share/Steam/steamapps/common/Quake 3 Arena",
    "~/.steam/steam/steamapps/common/Quake 3 Arena",
    "~/.var/app/com.valvesoftware.Steam/.local/share/Steam/steamapps/common/Quake 3 Arena",
    "~/.local/share/Steam/steamapps/common/Quake Live",
    "~/.steam/steam/steamapps/common/Quake Live",
    "~/.var/app/com.valvesoftware.Steam/.local/share/Steam/steamapps/common/Quake Live",
    "~/GOG Games/Quake III Arena",
    "~/.q3a",
    "~/.openarena",
    NULL,
};

/* Drop entry i of out, the later ones moving down. */
static void drop_dir(game_dirs *out, int i)
{
    free(out->dir[i]);
    for (int k = i; k + 1 < out->n; k++) {
        out->dir[k] = out->dir[k + 1];
        out->from_config[k] = out->from_config[k + 1];
    }
    out->n--;
}

/* Append a copy of path to out, the last place being the highest priority, unless absent.
 * A folder already there by any name (the same device and inode: Steam's usual
 * ~/.steam/steam link) is there once: a found one stays where it was, one a qdemo.conf line
 * names moves up to that line's place; full, a found folder is left out and a line's takes
 * the lowest place's (later lines win; a review: both were dropped in silence). */
static void add_dir(game_dirs *out, const char *path, int from_config)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return;
    for (int i = 0; i < out->n; i++) {
        struct stat o;
        if (strcmp(out->dir[i], path) == 0 ||
            (stat(out->dir[i], &o) == 0 && o.st_dev == st.st_dev && o.st_ino == st.st_ino)) {
            if (!from_config)
                return;
            drop_dir(out, i);
            break;
        }
    }
    if (out->n >= GAME_DIRS_MAX) {
        if (!from_config)
            return;
        drop_dir(out, 0);
    }
    char *copy = strdup(path);
    if (!copy)
        return;
    out->dir[out->n] = copy;
    out->from_config[out->n] = from_config;
    out->n++;
}

/* prefix + rest in a new string (NULL when out of memory). */
static char *cat2(const char *prefix, const char *rest)
{
    size_t n = strlen(prefix) + strlen(rest) + 1;
    char *s = malloc(n);
    if (s)
        qd_concat(s, n, prefix, rest);
    return s;
}

/* The config file's `basedir GAME PATH` lines for fam, in file order (later lines win).
 * Blank lines and lines starting with '#' are skipped; other lines are ignored quietly (a
 * newer qdemo may know more keys). A PATH starting "~/" is under home. */
static void read_config(game_dirs *out, const char *file, family fam, const char *home)
{
    uint8_t *data;
    size_t len;
    qd_error err;
    qd_err r = qd_read_input(file, 1u << 20, &data, &len, &err);
    if (r == QD_ERR_LIMIT) /* (read as none, but said: a review found it silent) */
        fprintf(stderr, "qdemo: %s: not read: %s\n", file, err.msg);
    if (r != QD_OK)
        return; /* no config: nothing to add */
    char *p = (char *)data, *end = p + len;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *line_end = nl ? nl : end;
        *line_end = 0;
        char key[16], game[16];
        int skip = 0;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p && *p != '#' && sscanf(p, "%15s %15s %n", key, game, &skip) == 2 && skip > 0 &&
            strcmp(key, "basedir") == 0) {
            char *path = p + skip;
            size_t n = strlen(path);
            while (n && (path[n - 1] == ' ' || path[n - 1] == '\t' || path[n - 1] == '\r'))
                path[--n] = 0;
            for (size_t i = 0; i < sizeof config_games / sizeof config_games[0]; i++) {
                if (strcmp(game, config_games[i].name) != 0 || config_games[i].fam != fam)
                    continue;
                char *full = strncmp(path, "~/", 2) == 0 && home ? cat2(home, path + 1)
                                                                  : strdup(path);
                if (full)
                    add_dir(out, full, 1);
                free(full);
            }
        }
        p = line_end + 1;
    }
    free(data);
}

void game_dirs_find(cl_game game, const game_env *env, game_dirs *out)
{
    memset(out, 0, sizeof *out);
    family fam = family_of(game);
    const char *const *list = fam == FAM_QUAKE2 ? quake2_dirs
                              : fam == FAM_QUAKE3 ? quake3_dirs
                                                  : quake_dirs;
    const char *root = env && env->root ? env->root : "";
    const char *home = env && env->home && env->home[0] ? env->home : NULL;
    for (int i = 0; list[i]; i++) {
        int in_home = strncmp(list[i], "~/", 2) == 0;
        if (in_home && !home)
            continue;
        char *path = in_home ? cat2(home, list[i] + 1) : cat2(root, list[i]);
        if (path)
            add_dir(out, path, 0);
        free(path);
    }
    /* the config file last: what the user named wins over what was found */
    char *conf = NULL;
    if (env && env->config_home && env->config_home[0])
        conf = cat2(env->config_home, "/qdemo/qdemo.conf");
    else if (home)
        conf = cat2(home, "/.config/qdemo/qdemo.conf");
    if (conf)
        read_config(out, conf, fam, home);
    free(conf);
}

void game_env_from_process(game_env *env)
{
    env->root = "";
    env->home = getenv("HOME");
    env->config_home = getenv("XDG_CONFIG_HOME");
}

void game_dirs_free(game_dirs *d)
{
    for (int i = 0; i < d->n; i++)
        free(d->dir[i]);
    memset(d, 0, sizeof *d);
}
