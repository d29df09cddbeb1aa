/* bench.h: helpers shared by the benchmark sections. */
#ifndef QD_BENCH_H
#define QD_BENCH_H

/* printf to stdout and to the table file ($QDEMO_BENCH_OUT) */
void bench_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double bench_now(void);
const char *bench_realdata(void);
/* Files under realdata/sub ending in one of exts (NULL-terminated), sorted; returns count. */
int bench_list(const char *sub, const char *const *exts, char names[][512], int max);

/* bench_render.c: rendering speed along a real demo's camera path. */
void bench_render(void);
/* The same, textured, on an OpenArena map along an OpenArena demo (skipped without them). */
void bench_render_q3(void);
/* Issue #12's row: an OpenArena bot match's bodies as models (skipped without the data). */
void bench_render_players(void);
void bench_render_players_quake(void);
/* `qdemo-bench frames`: frames textured frames of w x h along demo's camera path (search
 * path pak), evenly spaced over the demo, one line "k hash" each (FNV-1a of the colour
 * bytes): a fixed workload for callgrind and a byte-identity check. 0, or 1 on failure. */
int bench_render_frames(const char *demo, const char *pak, int w, int h, int frames,
                        int threads);
/* bench_export.c: export speed to PNG and y4m. */
void bench_export(void);

/* bench_process.c: start-up cost, peak memory, and the peers side by side. */
void bench_process(void);
/* The qdemo binary the bench runs: $QDEMO (make bench sets it), else build/qdemo. */
const char *bench_qdemo(void);
/* Run argv (output to /dev/null, in folder cwd when not NULL) and wait: its CPU seconds
 * (user + system), and its peak resident set in KiB into *rss when rss is not NULL; -1 when
 * it could not run or did not exit 0. */
double bench_run_cpu(char *const argv[], const char *cwd, long *rss);
/* `qdemo-bench rusage CMD...` (bench_process.c): CMD's peak memory, from a fresh image. */
int bench_rusage_main(char *const argv[]);
/* "met" or "NOT met", for a row's target. */
const char *bench_met(int ok);

#endif
