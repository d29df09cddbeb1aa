/* pak_local.h: pak-loader internals: one archive or folder layer, its parsers and reader. */
#ifndef PAK_LOCAL_H
#define PAK_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "../src/common/err.h"
#include "pak.h"

/* Caps beyond those in pak.h. */
#define PAK_MAX_ZIP_CD (128u << 20) /* bytes in one zip central directory */
#define PAK_MAX_DIRS (1u << 16)     /* subfolders visited in one folder tree */
#define PAK_MAX_DEPTH 32            /* folder nesting */

/* One file in a layer, in memory (never a view of file bytes). */
typedef struct pak_entry {
    const char *name;  /* normalised name, in the layer's name pool */
    const char *real;  /* folder: path relative to the folder as on disk; else NULL */
    uint64_t ofs;      /* PAK: data offset; zip: local header offset (prefix bias added) */
    uint64_t csize;    /* bytes stored in the archive */
    uint64_t size;     /* bytes once read */
    uint32_t crc;      /* zip: CRC-32 of the data */
    uint32_t index;    /* position in the archive's directory (tie-breaks duplicates) */
    uint32_t name_ofs; /* while building: offset of name in the pool */
    uint32_t real_ofs; /* while building: offset of real in the pool, or UINT32_MAX */
    uint16_t method;   /* zip: compression method (APPNOTE 4.4.5) */
    uint16_t flags;    /* zip: general purpose bit flag (APPNOTE 4.4.4) */
} pak_entry;

/* One layer of the search path: an archive (file or memory) or a folder tree. */
typedef struct pak_archive {
    pak_kind kind;
    char *path;          /* file or folder path, or the memory label */
    char label[112];     /* path shortened for messages */
    const uint8_t *mem;  /* memory-backed archive bytes, else NULL */
    uint64_t size;       /* archive size when opened */
    pak_entry *entries;  /* sorted by name, one per name */
    uint32_t count;
    char *pool;          /* NUL-terminated names */
    size_t pool_len, pool_cap;
    /* entries left out for their names (a ".." part, over PAK_MAX_NAME bytes): how many,
     * and the first PAK_UNUSABLE_KEPT names, printable, their ends kept (the extension), with
     * their reasons (pak_fs_unusable); NULL until one is */
    uint32_t unusable;
    struct pak_unusable *unusable_kept;
} pak_archive;

#define PAK_UNUSABLE_KEPT 8
struct pak_unusable {
    char name[96];
    int why; /* PAK_NAME_DOTDOT or PAK_NAME_TOO_LONG */
};

/* Opens a PAK or zip archive held in memory (not copied); label names it in messages. */
qd_err pak_archive_open_mem(const uint8_t *data, size_t len, const char *label,
                            pak_archive **out, qd_error *err);

/* Opens a PAK or zip archive file, reading its directory once. */
qd_err pak_archive_open_file(const char *path, pak_archive **out, qd_error *err);

/* Indexes the loose files of a folder and its subfolders (no archives are opened). */
qd_err pak_archive_open_folder(const char *path, pak_archive **out, qd_error *err);

/* Frees an archive; NULL is allowed. */
void pak_archive_close(pak_archive *a);

/* The entry for a normalised name, or NULL. */
const pak_entry *pak_archive_find(const pak_archive *a, const char *name);

/* The index of the first entry whose name is >= key (count when none). */
uint32_t pak_archive_lower_bound(const pak_archive *a, const char *key);

/* Reads entry e of a (an entry of a) whole into a malloc'd buffer with a NUL after it;
 * max_size caps the bytes returned (QD_ERR_LIMIT over it). */
qd_err pak_archive_read(const pak_archive *a, const pak_entry *e, uint64_t max_size,
                        uint8_t **data, size_t *len, qd_error *err);

#endif
