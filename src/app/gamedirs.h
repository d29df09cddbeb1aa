/* gamedirs.h: finding the user's game installs without flags (issue #17). */
#ifndef QD_GAMEDIRS_H
#define QD_GAMEDIRS_H

#include "../client/cl.h"

#define GAME_DIRS_MAX 32

/* Where to look: root is prepended to the system folders ("" normally; a test's scratch
 * folder in tests), home is $HOME (NULL: no home folders), config_home $XDG_CONFIG_HOME
 * (NULL or empty: home/.config). */
typedef struct game_env {
    const char *root, *home, *config_home;
} game_env;

/* The install folders found, lowest priority first (each is a basedir holding the game's
 * folders: id1/, qw/, baseq2/, baseq3/, baseoa/ ...). */
typedef struct game_dirs {
    int n;
    char *dir[GAME_DIRS_MAX];
    int from_config[GAME_DIRS_MAX]; /* 1: a `basedir` line of qdemo.conf named it */
} game_dirs;

/* The folders that exist for game's data: Debian's packages, Steam's and GOG's default
 * folders, the engines' home folders, then the config file's `basedir GAME PATH` lines
 * (GAME quake, quakeworld, quake2, quake3, openarena or quakelive), in that order of
 * rising priority. Never fails: what cannot be read is not there. Free with
 * game_dirs_free. */
void game_dirs_find(cl_game game, const game_env *env, game_dirs *out);

/* env from $HOME and $XDG_CONFIG_HOME, root "". */
void game_env_from_process(game_env *env);

void game_dirs_free(game_dirs *d);

#endif
