/* fuzz_pak.c: libFuzzer target for pak-loader: arbitrary bytes as a PAK or zip archive held
 * in memory (the PAK directory parser, the zip end-record/central-directory parsers), then
 * every listed member read whole (stored, deflated, damaged) and a few odd lookups. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../pak-loader/pak.h"

#define FUZZ_MAX_READS 64
#define FUZZ_MAX_FILE (1u << 20)

typedef struct fuzz_ctx {
    const pak_fs *fs;
    size_t size;
    int reads;
} fuzz_ctx;

static void read_member(void *ctx, const char *name, uint64_t size)
{
    fuzz_ctx *c = ctx;
    (void)size;
    if (c->reads++ >= FUZZ_MAX_READS)
        return;
    pak_info info;
    if (!pak_find(c->fs, name, &info))
        abort(); /* every listed name must be found */
    uint8_t *data;
    size_t len;
    qd_error err;
    if (pak_read(c->fs, name, &data, &len, &err) == QD_OK) {
        if (len != info.size || data[len] != 0)
            abort(); /* a read returns the directory's size, NUL-terminated */
        free(data);
    } else if (data || len || err.offset > c->size || !err.msg[0]) {
        abort(); /* a failed read leaves nothing behind and names a byte of the archive */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pak_fs *fs = pak_fs_open();
    if (!fs)
        return 0;
    pak_fs_set_max_file(fs, FUZZ_MAX_FILE);
    qd_error err;
    if (pak_fs_add_mem(fs, "fuzz.pk3", data, size, &err) == QD_OK) {
        fuzz_ctx c = {fs, size, 0};
        int n = pak_list(fs, "", read_member, &c);
        if (n < 0)
            abort();
        pak_list(fs, "maps/", NULL, NULL);
        if (pak_list_search_order(fs, "", NULL, NULL) != n)
            abort(); /* the same names, in another order */
        pak_find(fs, "../x", NULL);
        pak_find(fs, "Maps\\E1M1.BSP", NULL);
    } else if (err.offset > size || !err.msg[0]) {
        abort(); /* a refusal says why and where, inside the archive */
    }
    pak_fs_close(fs);
    return 0;
}
