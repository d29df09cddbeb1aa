/* test_timeline.c: seeking gives the same client state as playing through, both ways. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>

#include "../../src/app/player.h"
#include "../../src/app/world.h"
#include "../../src/output/out.h"
#include "../../src/timeline/timeline.h"
#include "../test.h"

/* Everything the renderer reads of a state at time t, compared field by field. */
static int same_view(const cl_state *a, const cl_state *b, double t, char *why, size_t cap)
{
    if (a->frame_count != b->frame_count || a->time != b->time) {
        snprintf(why, cap, "frame %u@%.4f vs %u@%.4f", a->frame_count, a->time, b->frame_count,
                 b->time);
        return 0;
    }
    float oa[3], aa[3], ob[3], ab[3];
    cl_view_at(a, t, oa, aa);
    cl_view_at(b, t, ob, ab);
    if (memcmp(oa, ob, sizeof oa) || memcmp(aa, ab, sizeof aa)) {
        snprintf(why, cap, "view differs");
        return 0;
    }
    int n = a->num_entities > b->num_entities ? a->num_entities : b->num_entities;
    for (int i = 0; i < n; i++) {
        cl_entstate sa, sb;
        int na = 0, nb = 0;
        float fa = 0, fb = 0;
        int ha = cl_entity_at(a, i, t, &sa, &na, &fa);
        int hb = cl_entity_at(b, i, t, &sb, &nb, &fb);
        if (ha != hb || (ha && (memcmp(sa.origin, sb.origin, sizeof sa.origin) ||
                                memcmp(sa.angles, sb.angles, sizeof sa.angles) ||
                                sa.model != sb.model || sa.frame != sb.frame || na != nb ||
                                fa != fb))) {
            snprintf(why, cap, "entity %d differs", i);
            return 0;
        }
    }
    if (memcmp(a->stats, b->stats, sizeof a->stats) || a->num_statics != b->num_statics) {
        snprintf(why, cap, "stats or statics differ");
        return 0;
    }
    return 1;
}

static uint32_t rng = 12345;
static double rnd(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (double)(rng >> 8) / (double)(1u << 24);
}

/* Play from the start to each of many random times (in increasing order, reusing one
 * play-through) and compare with seeks in a random order on a second timeline. */
static void check_seek(const char *path, const char *name)
{
    qd_error err;
    demo_t *d1 = demo_open(path, &err), *d2 = demo_open(path, &err);
    CHECK(d1 && d2);
    timeline_t *play = tl_open(d1, 1.0, &err);
    timeline_t *seek = tl_open(d2, 1.0, &err);
    CHECK(play && seek);
    double t0 = tl_start(play), t1 = tl_end(play);
    enum { N = 40 };
    double times[N];
    for (int i = 0; i < N; i++)
        times[i] = t0 - 0.5 + (t1 - t0 + 1.0) * rnd();
    /* Seek order: random (back and forth). Play order: sorted. */
    static cl_state want[N];
    double sorted[N];
    memcpy(sorted, times, sizeof sorted);
    for (int i = 1; i < N; i++)
        for (int j = i; j > 0 && sorted[j] < sorted[j - 1]; j--) {
            double x = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = x;
        }
    for (int i = 0; i < N; i++)
        want[i] = *tl_state_at(play, sorted[i], &err);
    for (int i = 0; i < N; i++) {
        const cl_state *got = tl_state_at(seek, times[i], &err);
        int j = 0;
        while (sorted[j] != times[i])
            j++;
        char why[128];
        CHECK_MSG(same_view(got, &want[j], times[i], why, sizeof why), "%s t=%.3f: %s", name,
                  times[i], why);
    }
    tl_close(play);
    tl_close(seek);
}

static int each_demo(const char *sub, void (*fn)(const char *, const char *))
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", test_realdata(), sub);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && !test_failed()) {
        if (e->d_name[0] == '.')
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        fn(path, e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

TEST(timeline_seek_equals_play_dem)
{
    if (each_demo("dem", check_seek) == 0)
        SKIP("no realdata/dem");
}

/* Render hashes: a frame rendered after seeking equals the frame rendered after playing
 * there from the start, byte for byte. */
static void check_seek_render(const char *path, const char *name)
{
    qd_error err;
    demo_t *d1 = demo_open(path, &err), *d2 = demo_open(path, &err);
    CHECK(d1 && d2);
    timeline_t *play = tl_open(d1, 0, &err), *seek = tl_open(d2, 0, &err);
    CHECK(play && seek);
    app_opts o;
    memset(&o, 0, sizeof o);
    o.paks[o.num_paks++] = "assets"; /* e1m1 for the sample; others draw over the grid */
    app_world w;
    memset(&w, 0, sizeof w);
    static player pl;
    player_init(&pl, play, 96, 72);
    rast_fb *fb = rast_fb_new(96, 72);
    CHECK(fb);
    double t0 = tl_start(play), t1 = tl_end(play);
    enum { N = 12 };
    double times[N];
    uint64_t want[N];
    for (int i = 0; i < N; i++)
        times[i] = t0 + (t1 - t0) * (i + 0.37) / N; /* increasing: one play-through */
    for (int i = 0; i < N; i++) {
        const cl_state *cl = tl_state_at(play, times[i], &err);
        app_world_update(&w, &o, cl);
        r_camera cam;
        r_options opt;
        player_camera(&pl, cl, times[i], &cam);
        player_options(&pl, cl, &opt);
        r_render(w.assets, cl, times[i], &cam, &opt, fb);
        want[i] = out_fb_hash(fb);
    }
    for (int k = 0; k < N; k++) {
        int i = (k * 7 + 3) % N; /* back and forth */
        const cl_state *cl = tl_state_at(seek, times[i], &err);
        app_world_update(&w, &o, cl);
        r_camera cam;
        r_options opt;
        player_camera(&pl, cl, times[i], &cam);
        player_options(&pl, cl, &opt);
        r_render(w.assets, cl, times[i], &cam, &opt, fb);
        CHECK_MSG(out_fb_hash(fb) == want[i], "%s: frame at %.3f differs after a seek", name,
                  times[i]);
    }
    rast_fb_free(fb);
    app_world_free(&w);
    tl_close(play);
    tl_close(seek);
}

TEST(timeline_seek_render_equals_play_dem)
{
    if (each_demo("dem", check_seek_render) == 0)
        SKIP("no realdata/dem");
}

TEST(timeline_obituaries)
{
    CHECK(tl_is_obituary("Player was ax-murdered by Ranger"));
    CHECK(tl_is_obituary("Bob rides Alice's rocket"));
    CHECK(tl_is_obituary("Bob suicides"));
    CHECK(!tl_is_obituary("You got the shells"));
    CHECK(!tl_is_obituary("Bob: gg"));
}
