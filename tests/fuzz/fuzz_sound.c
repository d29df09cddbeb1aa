/* fuzz_sound.c: libFuzzer target for the sound loader: any bytes as a WAV or OGG Vorbis file
 * (chosen by the first bytes, then each decoder directly), and again with a small room
 * (snd_decode_max, a nearly full bank's: the decode stops part way). The bank's lookup by
 * name and the mixer are not reached from here. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/sound/snd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    snd_sample s;
    qd_error e;
    if (snd_decode(data, size, &s, &e) == QD_OK) {
        /* a decoded sound is whole: every sample readable */
        volatile int32_t sum = 0;
        for (uint32_t i = 0; i < s.len; i++)
            sum += s.pcm[i];
        snd_sample_free(&s);
    }
    /* the decoder snd_decode did not pick, on the same bytes */
    int ogg = size >= 4 && !memcmp(data, "OggS", 4);
    if ((ogg ? snd_decode_wav(data, size, &s, &e) : snd_decode_ogg(data, size, &s, &e)) == QD_OK)
        snd_sample_free(&s);
    /* a room of 1..4096 samples from the input's size */
    if (snd_decode_max(data, size, (uint32_t)(size % 4096) + 1, &s, &e) == QD_OK) {
        if (s.len > size % 4096 + 1)
            abort(); /* longer than the room it was given */
        snd_sample_free(&s);
    }
    return 0;
}
