/* sdl_load.c: SDL2 opened with dlopen on first use, so only `play` ever loads it. */
#include "sdl_local.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

/* Each table entry: SDL's exported name and where its pointer goes in out_sdl_api. */
#define SYM(f) {"SDL_" #f, offsetof(out_sdl_api, f)}
static const struct {
    const char *name;
    size_t off;
} syms[] = {
    SYM(InitSubSystem),      SYM(QuitSubSystem),        SYM(GetError),
    SYM(free),               SYM(GetCurrentVideoDriver), SYM(SetHint),
    SYM(CreateWindow),       SYM(DestroyWindow),        SYM(GetWindowSize),
    SYM(GetWindowFlags),     SYM(GetDisplayUsableBounds), SYM(SetWindowFullscreen),
    SYM(SetWindowTitle),
    SYM(CreateRenderer),     SYM(DestroyRenderer),      SYM(GetRendererOutputSize),
    SYM(SetRenderDrawColor), SYM(RenderClear),          SYM(RenderCopy),
    SYM(RenderPresent),      SYM(CreateTexture),        SYM(DestroyTexture),
    SYM(SetTextureBlendMode), SYM(UpdateTexture),       SYM(SetRelativeMouseMode),
    SYM(PollEvent),          SYM(WaitEventTimeout),     SYM(GetModState),
    SYM(GetMouseState),
    SYM(OpenAudioDevice),    SYM(CloseAudioDevice),     SYM(PauseAudioDevice),
    SYM(QueueAudio),         SYM(GetQueuedAudioSize),   SYM(ClearQueuedAudio),
};
#undef SYM

/* every member is one function pointer, each filled from a dlsym() result (POSIX: a
 * function's address as void *, the same size) */
_Static_assert(sizeof(out_sdl_api) == sizeof syms / sizeof syms[0] * sizeof(void (*)(void)),
               "out_sdl_api and syms[] list the same functions");
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "dlsym gives function addresses");

qd_err out_sdl_load(const char *lib, out_sdl_api *api, qd_error *err)
{
    if (!lib || !api)
        return qd_fail(err, QD_ERR_USAGE, 0, "SDL: no library name");
    memset(api, 0, sizeof *api);
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        /* the loader's reason (a review: a damaged library, or one missing a library of
         * its own, was said to be not installed); the package named when it is not there */
        const char *why = dlerror();
        if (why && !strstr(why, "No such file"))
            return qd_fail(err, QD_ERR_OUTPUT, 0, "no window: %s cannot be loaded: %.200s", lib,
                           why);
        return qd_fail(err, QD_ERR_OUTPUT, 0,
                       "no window: %s cannot be loaded (install the Debian package %s)", lib,
                       OUT_SDL_PACKAGE);
    }
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *p = dlsym(h, syms[i].name);
        if (!p) {
            dlclose(h);
            memset(api, 0, sizeof *api);
            return qd_fail(err, QD_ERR_OUTPUT, 0, "no window: %s has no %s (SDL 2.0.5 or "
                           "newer is needed: the Debian package %s)", lib, syms[i].name,
                           OUT_SDL_PACKAGE);
        }
        memcpy((char *)api + syms[i].off, &p, sizeof p);
    }
    return QD_OK; /* h stays open: the pointers live as long as the process */
}

/* The process's one load of SDL: the library is process-wide, so is its table. */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static out_sdl_api loaded;
static qd_err load_err;
static qd_error load_error;

static void load_once(void) { load_err = out_sdl_load(OUT_SDL_LIBRARY, &loaded, &load_error); }

const out_sdl_api *out_sdl(qd_error *err)
{
    pthread_once(&once, load_once);
    if (load_err == QD_OK)
        return &loaded;
    if (err)
        *err = load_error;
    return NULL;
}
