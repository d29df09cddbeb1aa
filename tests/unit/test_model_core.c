/* test_model_core.c: the map loader core that Quake (BSP29, BSP2) and Quake II (IBSP 38) share:
 * one tree check with one depth cap and one error offset (the node record at fault). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/model/model.h"
#include "../test.h"
#include "../testbuf.h"

enum { CORE_Q1, CORE_BSP2, CORE_Q2 };

/* Lump numbers and record sizes from id's bspfile.h (Quake: planes 1, nodes 5, leafs 10,
 * models 14 of 15) and yquake2 files.h (Quake II: planes 1, nodes 4, leafs 8, models 13 of
 * 19); BSP2's nodes from ericw-tools bspfile.hh (bsp2_dnode_t, 44 bytes). */
typedef struct core_fmt {
    int nlumps, planes, nodes, leafs, models;
    uint32_t node_rec;
} core_fmt;

static const core_fmt core_fmts[] = {
    [CORE_Q1] = {15, 1, 5, 10, 14, 24},
    [CORE_BSP2] = {15, 1, 5, 10, 14, 44},
    [CORE_Q2] = {19, 1, 4, 8, 13, 28},
};

/* A map holding one plane, one solid leaf, a world model on node 0 and a chain of nn nodes:
 * node k's front child is node k + 1 (the last one's the leaf), its back child the leaf. So
 * node k lies k levels below the root. *nodes_ofs gets where the nodes lump starts. */
static uint8_t *chain_map(int fmt, uint32_t nn, size_t *len, uint32_t *nodes_ofs)
{
    const core_fmt *f = &core_fmts[fmt];
    gbuf l[19] = {{0}};
    gf32(&l[f->planes], 0), gf32(&l[f->planes], 0), gf32(&l[f->planes], 1);
    gf32(&l[f->planes], 0), g32(&l[f->planes], 2);
    for (uint32_t k = 0; k < nn; k++) {
        gbuf *n = &l[f->nodes];
        g32(n, 0); /* plane */
        uint32_t front = k + 1 < nn ? k + 1 : UINT32_MAX;
        if (fmt == CORE_Q1) { /* uint16 children: 65535 - c is leaf c */
            g16(n, front == UINT32_MAX ? 0xffff : front);
            g16(n, 0xffff);
            for (int j = 0; j < 6 + 2; j++)
                g16(n, 0); /* bounds, face range */
        } else {               /* int32 children: -(c + 1) is file leaf c */
            g32(n, front == UINT32_MAX ? UINT32_MAX : front);
            g32(n, UINT32_MAX);
            for (int j = 0; j < 6; j++) {
                if (fmt == CORE_BSP2)
                    gf32(n, 0);
                else
                    g16(n, 0);
            }
            for (int j = 0; j < 2; j++) {
                if (fmt == CORE_BSP2)
                    g32(n, 0);
                else
                    g16(n, 0);
            }
        }
    }
    gbuf *lf = &l[f->leafs];
    g32(lf, (uint32_t)-2); /* contents: solid */
    if (fmt == CORE_Q2) {
        g16(lf, 0xffff); /* cluster -1 */
        for (int j = 0; j < 1 + 6 + 4; j++)
            g16(lf, 0); /* area, bounds, face and brush ranges */
    } else {
        g32(lf, UINT32_MAX); /* visofs -1 */
        for (int j = 0; j < (fmt == CORE_BSP2 ? 6 * 4 + 8 : 6 * 2 + 4); j++)
            g8(lf, 0); /* bounds, mark range */
        g32(lf, 0);    /* ambient levels */
    }
    gbuf *m = &l[f->models];
    for (int j = 0; j < 9; j++)
        gf32(m, 0); /* mins, maxs, origin */
    g32(m, 0);      /* headnode */
    if (fmt != CORE_Q2)
        for (int j = 0; j < 4; j++)
            g32(m, 0); /* clip hulls, visleafs */
    g32(m, 0), g32(m, 0); /* face range */

    /* header: Quake's version or BSP2's ident; Quake II's ident and version */
    size_t head = (fmt == CORE_Q2 ? 8 : 4) + (size_t)f->nlumps * 8, total = head;
    for (int i = 0; i < f->nlumps; i++)
        total += l[i].len;
    gbuf out = {0};
    if (fmt == CORE_Q2)
        gput(&out, "IBSP", 4), g32(&out, 38);
    else if (fmt == CORE_BSP2)
        gput(&out, "BSP2", 4);
    else
        g32(&out, 29);
    size_t at = head;
    for (int i = 0; i < f->nlumps; i++) {
        if (i == f->nodes)
            *nodes_ofs = (uint32_t)at;
        g32(&out, (uint32_t)at), g32(&out, (uint32_t)l[i].len);
        at += l[i].len;
    }
    for (int i = 0; i < f->nlumps; i++) {
        if (l[i].len)
            gput(&out, l[i].p, l[i].len);
        free(l[i].p);
    }
    *len = total;
    return out.p;
}

TEST(model_core_tree_depth_cap_names_the_node)
{
    static const char *const names[] = {"BSP29", "BSP2", "IBSP38"};
    for (int fmt = CORE_Q1; fmt <= CORE_Q2; fmt++) {
        size_t len;
        uint32_t nodes_ofs = 0;
        qd_error err = {0};
        mdl_bsp *b = NULL;
        /* MDL_BSP_MAX_DEPTH + 1 nodes: the deepest is MDL_BSP_MAX_DEPTH below the root */
        uint8_t *d = chain_map(fmt, MDL_BSP_MAX_DEPTH + 1, &len, &nodes_ofs);
        qd_err e = mdl_bsp_load(d, len, "chain", NULL, &b, &err);
        CHECK_MSG(e == QD_OK && b, "%s: %s", names[fmt], err.msg);
        if (b) {
            CHECK_EQ(b->num_nodes, MDL_BSP_MAX_DEPTH + 1);
            /* Quake's leaf 0 is the file's leaf 0; Quake II's file leaf 0 becomes leaf 1 */
            CHECK_EQ(b->nodes[MDL_BSP_MAX_DEPTH].children[0], fmt == CORE_Q2 ? -2 : -1);
            CHECK_EQ(b->nodes[0].children[0], 1);
        }
        mdl_bsp_free(b);
        free(d);
        /* one more: node MDL_BSP_MAX_DEPTH's child goes past the cap; its record is named */
        d = chain_map(fmt, MDL_BSP_MAX_DEPTH + 2, &len, &nodes_ofs);
        e = mdl_bsp_load(d, len, "chain", NULL, &b, &err);
        CHECK_MSG(e == QD_ERR_LIMIT && !b, "%s: %s", names[fmt], qd_strerror(e));
        uint64_t want = nodes_ofs + (uint64_t)MDL_BSP_MAX_DEPTH * core_fmts[fmt].node_rec;
        CHECK_MSG(err.offset == want, "%s: offset %llu, want %llu (%s)", names[fmt],
                  (unsigned long long)err.offset, (unsigned long long)want, err.msg);
        mdl_bsp_free(b);
        free(d);
    }
}
