/* audio.c: the window's sound device through SDL2 (loaded at run time, sdl_local.h): 16-bit
 * stereo samples queued by the player. */
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "sdl_local.h"

struct out_audio {
    const out_sdl_api *sdl;
    SDL_AudioDeviceID dev;
};

out_audio *out_audio_open(int rate, qd_error *err)
{
    const out_sdl_api *sdl = out_sdl(err);
    if (!sdl)
        return NULL;
    if (sdl->InitSubSystem(SDL_INIT_AUDIO) != 0) {
        qd_fail(err, QD_ERR_IO, 0, "no audio: %s", sdl->GetError());
        return NULL;
    }
    SDL_AudioSpec want, got;
    memset(&want, 0, sizeof want);
    want.freq = rate;
    want.format = AUDIO_S16SYS;
    want.channels = 2;
    want.samples = 1024;
    out_audio *a = calloc(1, sizeof *a);
    if (a) {
        a->sdl = sdl;
        a->dev = sdl->OpenAudioDevice(NULL, 0, &want, &got, 0);
    }
    if (!a || !a->dev) {
        qd_fail(err, QD_ERR_IO, 0, "no audio device: %s", a ? sdl->GetError() : "out of memory");
        free(a);
        sdl->QuitSubSystem(SDL_INIT_AUDIO);
        return NULL;
    }
    sdl->PauseAudioDevice(a->dev, 0);
    return a;
}

void out_audio_queue(out_audio *a, const int16_t *frames, uint32_t n)
{
    if (a && n)
        a->sdl->QueueAudio(a->dev, frames, n * 4);
}

uint32_t out_audio_queued(const out_audio *a)
{
    return a ? a->sdl->GetQueuedAudioSize(a->dev) / 4 : 0;
}

void out_audio_clear(out_audio *a)
{
    if (a)
        a->sdl->ClearQueuedAudio(a->dev);
}

void out_audio_close(out_audio *a)
{
    if (!a)
        return;
    a->sdl->CloseAudioDevice(a->dev);
    a->sdl->QuitSubSystem(SDL_INIT_AUDIO);
    free(a);
}
