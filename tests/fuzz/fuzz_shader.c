/* fuzz_shader.c: libFuzzer target for the shader script parser: any bytes as a script, then
 * a lookup of the first shader's name and of a name that is not there. */
#include <stdint.h>
#include <string.h>

#include "../../src/model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mdl_shader_set set = {0};
    qd_error err = {0};
    (void)mdl_shader_parse(&set, (const char *)data, size, "fuzz.shader", &err);
    (void)mdl_shader_parse(&set, (const char *)data, size / 2, "half.shader", &err);
    if (set.count) {
        char name[64];
        memcpy(name, set.list[0].name, sizeof name);
        /* (a name with an extension is looked up without it, as ioq3's R_FindShader does:
         * a shader so named is never found) */
        const char *dot = strrchr(name, '.'), *slash = strrchr(name, '/');
        const mdl_shader *s = mdl_shader_find(&set, name);
        if (!s && !(dot && (!slash || slash < dot)))
            __builtin_trap();
    }
    (void)mdl_shader_find(&set, "textures/none/such");
    mdl_shader_set_clear(&set);
    return 0;
}
