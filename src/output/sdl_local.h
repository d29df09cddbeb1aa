/* sdl_local.h: the SDL2 functions the window and the sound device call, loaded at run time.
 *
 * qdemo does not link SDL2: only `play` needs it, so the other commands start without loading
 * it and the ~50 libraries it pulls in. SDL's headers still give the types and constants. */
#ifndef QD_SDL_LOCAL_H
#define QD_SDL_LOCAL_H

#include <SDL.h>

#include "../common/err.h"

/* The shared library loaded and the Debian package that holds it (named when it is missing). */
#define OUT_SDL_LIBRARY "libSDL2-2.0.so.0"
#define OUT_SDL_PACKAGE "libsdl2-2.0-0"

/* One pointer per SDL function used, named as SDL names it without "SDL_". */
typedef struct out_sdl_api {
    int (*InitSubSystem)(Uint32 flags);
    void (*QuitSubSystem)(Uint32 flags);
    const char *(*GetError)(void);
    void (*free)(void *mem);
    const char *(*GetCurrentVideoDriver)(void);
    SDL_bool (*SetHint)(const char *name, const char *value);
    SDL_Window *(*CreateWindow)(const char *title, int x, int y, int w, int h, Uint32 flags);
    void (*DestroyWindow)(SDL_Window *win);
    void (*GetWindowSize)(SDL_Window *win, int *w, int *h);
    Uint32 (*GetWindowFlags)(SDL_Window *win);
    int (*GetDisplayUsableBounds)(int display, SDL_Rect *rect);
    int (*SetWindowFullscreen)(SDL_Window *win, Uint32 flags);
    void (*SetWindowTitle)(SDL_Window *win, const char *title);
    SDL_Renderer *(*CreateRenderer)(SDL_Window *win, int index, Uint32 flags);
    void (*DestroyRenderer)(SDL_Renderer *ren);
    int (*GetRendererOutputSize)(SDL_Renderer *ren, int *w, int *h);
    int (*SetRenderDrawColor)(SDL_Renderer *ren, Uint8 r, Uint8 g, Uint8 b, Uint8 a);
    int (*RenderClear)(SDL_Renderer *ren);
    int (*RenderCopy)(SDL_Renderer *ren, SDL_Texture *tex, const SDL_Rect *src,
                      const SDL_Rect *dst);
    void (*RenderPresent)(SDL_Renderer *ren);
    SDL_Texture *(*CreateTexture)(SDL_Renderer *ren, Uint32 format, int access, int w, int h);
    void (*DestroyTexture)(SDL_Texture *tex);
    int (*SetTextureBlendMode)(SDL_Texture *tex, SDL_BlendMode mode);
    int (*UpdateTexture)(SDL_Texture *tex, const SDL_Rect *rect, const void *pixels, int pitch);
    int (*SetRelativeMouseMode)(SDL_bool on);
    int (*PollEvent)(SDL_Event *ev);
    int (*WaitEventTimeout)(SDL_Event *ev, int timeout);
    SDL_Keymod (*GetModState)(void);
    Uint32 (*GetMouseState)(int *x, int *y);
    SDL_AudioDeviceID (*OpenAudioDevice)(const char *device, int iscapture,
                                         const SDL_AudioSpec *want, SDL_AudioSpec *got,
                                         int allowed_changes);
    void (*CloseAudioDevice)(SDL_AudioDeviceID dev);
    void (*PauseAudioDevice)(SDL_AudioDeviceID dev, int pause_on);
    int (*QueueAudio)(SDL_AudioDeviceID dev, const void *data, Uint32 len);
    Uint32 (*GetQueuedAudioSize)(SDL_AudioDeviceID dev);
    void (*ClearQueuedAudio)(SDL_AudioDeviceID dev);
} out_sdl_api;

/* The table, loaded from OUT_SDL_LIBRARY on the first call (thread-safe; the library stays
 * loaded until exit). NULL with err set (QD_ERR_OUTPUT, one line naming the library and the
 * package OUT_SDL_PACKAGE, or the missing function) when it cannot be loaded; every later
 * call gives the same answer. */
const out_sdl_api *out_sdl(qd_error *err);

/* Fill *api from the shared library named lib (dlopen'ed and kept open on success). QD_OK,
 * or QD_ERR_OUTPUT with one line in err naming lib (and OUT_SDL_PACKAGE when lib is missing)
 * or the first function it lacks. out_sdl()'s worker; the tests give it other names. */
qd_err out_sdl_load(const char *lib, out_sdl_api *api, qd_error *err);

#endif
