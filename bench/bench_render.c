/* bench_render.c: rendering and export speed (filled in when the renderer lands). */
#include "bench.h"

void bench_render(void) { bench_out("\n(render benchmark: renderer not built yet)\n"); }
void bench_export(void) { bench_out("\n(export benchmark: exporter not built yet)\n"); }
