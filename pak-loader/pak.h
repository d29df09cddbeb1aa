/* pak.h: the game file search path: Quake PAK files, PK3/zip archives and plain folders. */
#ifndef PAK_H
#define PAK_H

#include <stddef.h>
#include <stdint.h>

#include "../src/common/err.h"

/* A search path: a stack of layers (archives and folders), the last added on top. Every
 * archive's directory and every folder's file list is read once, when it is added; reads
 * re-open the file. Owns all its memory; the strings it hands out live until pak_fs_close.
 * A pak_fs is not changed by lookups and reads, so several threads may read at once. */
typedef struct pak_fs pak_fs;

/* What holds a file. */
typedef enum pak_kind {
    PAK_KIND_FOLDER, /* a loose file in a folder */
    PAK_KIND_PAK,    /* a Quake/Quake II "PACK" archive */
    PAK_KIND_ZIP     /* a zip archive (.pk3, .zip, or zip bytes appended to another file) */
} pak_kind;

/* Where pak_find found a name. */
typedef struct pak_info {
    const char *source; /* the archive file or folder as it was added (or the memory label) */
    const char *name;   /* the stored name, normalised: lower case, '/' separators */
    pak_kind kind;
    int layer;          /* position on the search path, 0 = lowest priority */
    uint64_t size;      /* bytes pak_read returns (a folder's file: its size when added) */
    uint64_t offset;    /* PAK: data offset; zip: local header offset; folder: 0 */
} pak_info;

/* Caps on hostile input. */
#define PAK_MAX_ENTRIES (1u << 20)      /* entries in one archive or files in one folder tree */
#define PAK_MAX_NAME 255                /* bytes in one normalised name */
#define PAK_MAX_FILE_DEFAULT (256u << 20) /* bytes pak_read returns for one file, by default */

/* A new, empty search path, or NULL when out of memory. */
pak_fs *pak_fs_open(void);

/* Frees fs and everything it handed out (pak_info strings); NULL is allowed. */
void pak_fs_close(pak_fs *fs);

/* Sets the largest file pak_read will return (0 restores PAK_MAX_FILE_DEFAULT); bigger
 * files give QD_ERR_LIMIT. */
void pak_fs_set_max_file(pak_fs *fs, uint64_t max_bytes);

/* Adds a game folder on top of everything added before, the way the engines stack one:
 * lowest first, its pakN.pak in numeric order (pak10 over pak2 over pak1 over pak0), then any
 * other *.pak by name, then *.pk3 by name (a later name wins, as in Quake III), and on top
 * the loose files of the folder and its subfolders. Extensions match in any case. A damaged
 * archive is left out and the rest are still added; the first such error is returned (its
 * message names the archive and the byte offset). QD_ERR_IO if dir cannot be listed. */
qd_err pak_fs_add_game_dir(pak_fs *fs, const char *dir, qd_error *err);

/* Adds one archive (PAK or zip, told apart by content, not by extension) or, for a folder,
 * its loose files only, on top of everything added before. Zip bytes appended to another
 * file (a BSP with its .lit in a zip behind it) are found too. */
qd_err pak_fs_add_file(pak_fs *fs, const char *path, qd_error *err);

/* Adds archive bytes held in memory (PAK or zip) on top; label names it in pak_info and in
 * messages. The bytes are not copied and must outlive fs. */
qd_err pak_fs_add_mem(pak_fs *fs, const char *label, const uint8_t *data, size_t len,
                      qd_error *err);

/* For each name in games, in order (later ones win), adds basedir/<game> as a game folder,
 * matching the folder name in any case (an exact match preferred). Missing games are
 * skipped silently. A game name that is not a plain folder name (empty, ".", "..", or with
 * a separator) is skipped and QD_ERR_USAGE returned once the rest are added. QD_ERR_IO if
 * basedir cannot be listed. Damaged archives: as pak_fs_add_game_dir. */
qd_err pak_fs_add_basedir(pak_fs *fs, const char *basedir, const char *const *games,
                          int ngames, qd_error *err);

/* Looks a name up, case-insensitively, with '/' or '\' separators; a leading "./" or "/" is
 * ignored. Returns 1 and fills info (if not NULL) with the highest-priority copy; 0 when the
 * name is absent, empty, longer than PAK_MAX_NAME or has a ".." component. */
int pak_find(const pak_fs *fs, const char *name, pak_info *info);

/* Reads a whole file from the highest-priority layer holding it into a malloc'd buffer the
 * caller frees, with a NUL after the data (not counted in len). On failure *data is NULL and
 * *len 0: QD_ERR_NOT_FOUND if absent, QD_ERR_USAGE for a name with a ".." component,
 * QD_ERR_LIMIT over the size cap, QD_ERR_UNSUPPORTED for encrypted members or compression
 * other than stored/deflate, QD_ERR_BAD_DATA / QD_ERR_TRUNCATED for damage (bad deflate
 * data, a length or CRC that does not match the directory), QD_ERR_IO. */
qd_err pak_read(const pak_fs *fs, const char *name, uint8_t **data, size_t *len,
                qd_error *err);

/* Calls fn (may be NULL) once for every visible name starting with prefix (normalised like a
 * lookup; "" or NULL for all), in byte order of the normalised names, with the size of the
 * highest-priority copy. Returns how many names there are, or -1 when out of memory. */
int pak_list(const pak_fs *fs, const char *prefix,
             void (*fn)(void *ctx, const char *name, uint64_t size), void *ctx);

/* pak_list's names in the order ioquake3's FS_ListFiles gives them (files.c
 * FS_ListFilteredFiles): the layers from the highest priority down, each archive's names in
 * its directory's order (a folder's by name), each name once, with its highest-priority
 * copy. ioquake3 joins the shader scripts in the reverse of that order and takes a shader's
 * first definition (tr_shader.c ScanAndLoadShaderFiles, FindShaderInShaderText), so reading
 * them in this order the last definition read is the one the game draws. */
int pak_list_search_order(const pak_fs *fs, const char *prefix,
                          void (*fn)(void *ctx, const char *name, uint64_t size), void *ctx);

/* The number of layers on the search path. */
int pak_fs_num_layers(const pak_fs *fs);

/* Layer i (0 = lowest priority): returns its source path (NULL if i is out of range) and
 * sets *kind and *files (each may be NULL). */
const char *pak_fs_layer(const pak_fs *fs, int i, pak_kind *kind, uint32_t *files);

/* Entries of fs's archives left out for their names (a ".." part, or longer than
 * PAK_MAX_NAME): how many. The i-th of the few kept (the first 8 of each archive, lowest
 * layer first; a long one as "..." and its end), printable and cut to cap, goes into name
 * and its reason (PAK_NAME_DOTDOT or PAK_NAME_TOO_LONG) into *why, or "" and 0 past them
 * (name and why may be NULL). */
uint32_t pak_fs_unusable(const pak_fs *fs, uint32_t i, char *name, size_t cap, int *why);

/* Normalises a name into out (cap >= PAK_MAX_NAME + 1) as every look-up does: '\' to '/',
 * empty and "." components dropped, ASCII lower case, so two names of one file are one
 * string. Returns its length (0 for a name with no parts), PAK_NAME_TOO_LONG, or
 * PAK_NAME_DOTDOT for a name with a ".." component. */
#define PAK_NAME_TOO_LONG (-1)
#define PAK_NAME_DOTDOT (-2)
int pak_name_normalize(const char *in, size_t in_len, char *out, size_t cap);

#endif
