/* audio.c: the window's sound device through SDL2: 16-bit stereo samples queued by the player. */
#include <SDL.h>
#include <stdlib.h>

#include "out.h"

struct out_audio {
    SDL_AudioDeviceID dev;
};

out_audio *out_audio_open(int rate, qd_error *err)
{
    if (SDL_InitSubSystem(SDL_INIT_AUDIO) != 0) {
        qd_fail(err, QD_ERR_IO, 0, "no audio: %s", SDL_GetError());
        return NULL;
    }
    SDL_AudioSpec want, got;
    SDL_zero(want);
    want.freq = rate;
    want.format = AUDIO_S16SYS;
    want.channels = 2;
    want.samples = 1024;
    out_audio *a = calloc(1, sizeof *a);
    if (a)
        a->dev = SDL_OpenAudioDevice(NULL, 0, &want, &got, 0);
    if (!a || !a->dev) {
        qd_fail(err, QD_ERR_IO, 0, "no audio device: %s", a ? SDL_GetError() : "out of memory");
        free(a);
        SDL_QuitSubSystem(SDL_INIT_AUDIO);
        return NULL;
    }
    SDL_PauseAudioDevice(a->dev, 0);
    return a;
}

void out_audio_queue(out_audio *a, const int16_t *frames, uint32_t n)
{
    if (a && n)
        SDL_QueueAudio(a->dev, frames, n * 4);
}

uint32_t out_audio_queued(const out_audio *a) { return a ? SDL_GetQueuedAudioSize(a->dev) / 4 : 0; }

void out_audio_clear(out_audio *a)
{
    if (a)
        SDL_ClearQueuedAudio(a->dev);
}

void out_audio_close(out_audio *a)
{
    if (!a)
        return;
    SDL_CloseAudioDevice(a->dev);
    SDL_QuitSubSystem(SDL_INIT_AUDIO);
    free(a);
}
