#!/usr/bin/env python3
"""make-item-boxes.py: qdemo's own stand-ins for Quake's item boxes (maps/b_*.bsp), which no
free data set here provides: a box of the item's size, each face textured with a 32 x 32
picture drawn here (health: a red cross on white; ammo: the ammunition's colour with a band),
through the Quake palette (assets/palette.lmp), lit evenly. Writes assets/maps/b_*.bsp.

The BSP29 layout is id's bspfile.h as the Quake Wiki's "BSP (Quake)" page describes it: a
header of version 29 and 15 lumps (offset, length); planes, miptex, vertexes, visibility,
nodes, texinfo, faces, lighting, clipnodes, leafs, marksurfaces, edges, surfedges, models.
Each box is one node whose sides are both leaf 1 (empty, holding the six faces); leaf 0 is
the solid leaf every map has. Licence: GPL-2.0-or-later, as qdemo.

    python3 assets/items/make-item-boxes.py      (from the project root)
"""
import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PAL = open(os.path.join(ROOT, "palette.lmp"), "rb").read()
PALETTE = [tuple(PAL[3 * i:3 * i + 3]) for i in range(256)]


def nearest(rgb):
    """The palette index nearest rgb (the fullbright rows 224..255 left out: they would
    ignore the light)."""
    best, bi = None, 0
    for i, p in enumerate(PALETTE[:224]):
        d = sum((a - b) ** 2 for a, b in zip(p, rgb))
        if best is None or d < best:
            best, bi = d, i
    return bi


def picture(kind):
    """32 x 32 palette indices: the box's face."""
    body = {"health": (200, 196, 188), "shells": (150, 40, 24), "nails": (120, 124, 128),
            "rockets": (96, 80, 40), "cells": (60, 64, 72), "explob": (140, 60, 24)}[kind]
    band = {"health": None, "shells": (208, 168, 48), "nails": (64, 66, 70),
            "rockets": (176, 48, 32), "cells": (224, 200, 40), "explob": (220, 190, 40)}[kind]
    edge = tuple(max(0, c - 60) for c in body)
    px = []
    for y in range(32):
        for x in range(32):
            c = body
            if kind == "health":
                if (12 <= x < 20 and 6 <= y < 26) or (6 <= x < 26 and 12 <= y < 20):
                    c = (184, 24, 20)
            elif 12 <= y < 20:
                c = band
                if kind in ("cells", "explob") and (x // 4) % 2 == 0:
                    c = (40, 36, 20)
            if x in (0, 31) or y in (0, 31):
                c = edge
            px.append(nearest(c))
    return bytes(px)


def mips(p):
    """The four mip levels of a 32 x 32 picture (each the top-left texel of its block)."""
    out = [p]
    for k in (1, 2, 3):
        n = 32 >> k
        out.append(bytes(p[(y << k) * 32 + (x << k)] for y in range(n) for x in range(n)))
    return out


def box(name, size, kind):
    sx, sy, sz = size
    lumps = [b""] * 15
    lumps[0] = b'{\n"classname" "worldspawn"\n}\n\0'
    # planes: +x -x +y -y +z -z through the box's faces (type 0, 1, 2: axial)
    planes = [((1, 0, 0), sx, 0), ((1, 0, 0), 0, 0), ((0, 1, 0), sy, 1), ((0, 1, 0), 0, 1),
              ((0, 0, 1), sz, 2), ((0, 0, 1), 0, 2)]
    lumps[1] = b"".join(struct.pack("<4fi", *n, d, t) for n, d, t in planes)
    tex = mips(picture(kind))
    head = struct.pack("<16sII4I", kind.encode(), 32, 32, 40, 40 + 1024, 40 + 1280, 40 + 1344)
    miptex = head + b"".join(tex)
    lumps[2] = struct.pack("<ii", 1, 8) + miptex
    verts = [(x, y, z) for z in (0, sz) for y in (0, sy) for x in (0, sx)]
    lumps[3] = b"".join(struct.pack("<3f", *v) for v in verts)
    # faces, each a loop of four vertex indices wound clockwise seen from outside (Quake's
    # front side), its plane and side, and texture axes across the face
    def v(x, y, z):
        return verts.index((x, y, z))
    faces = [
        (0, 0, [v(sx, 0, 0), v(sx, 0, sz), v(sx, sy, sz), v(sx, sy, 0)], (0, 1, 0), (0, 0, -1)),
        (1, 1, [v(0, 0, 0), v(0, sy, 0), v(0, sy, sz), v(0, 0, sz)], (0, 1, 0), (0, 0, -1)),
        (2, 0, [v(0, sy, 0), v(sx, sy, 0), v(sx, sy, sz), v(0, sy, sz)], (1, 0, 0), (0, 0, -1)),
        (3, 1, [v(0, 0, 0), v(0, 0, sz), v(sx, 0, sz), v(sx, 0, 0)], (1, 0, 0), (0, 0, -1)),
        (4, 0, [v(0, 0, sz), v(0, sy, sz), v(sx, sy, sz), v(sx, 0, sz)], (1, 0, 0), (0, -1, 0)),
        (5, 1, [v(0, 0, 0), v(sx, 0, 0), v(sx, sy, 0), v(0, sy, 0)], (1, 0, 0), (0, -1, 0)),
    ]
    texinfo, facebytes, edges, surfedges, light = b"", b"", [(0, 0)], [], b""
    for i, (plane, side, loop, s_axis, t_axis) in enumerate(faces):
        # s and t in texels from the face's own corner, so the picture sits whole on it
        pts = [verts[k] for k in loop]
        s0 = -min(sum(a * b for a, b in zip(p, s_axis)) for p in pts)
        t0 = -min(sum(a * b for a, b in zip(p, t_axis)) for p in pts)
        height = max(sum(a * b for a, b in zip(p, t_axis)) for p in pts) + t0
        if height < 32:  # a low side shows the picture's middle rows (its band)
            t0 += (32 - height) // 2
        texinfo += struct.pack("<8fii", *s_axis, s0, *t_axis, t0, 0, 0)
        first = len(surfedges)
        for a, b in zip(loop, loop[1:] + loop[:1]):
            edges.append((a, b))
            surfedges.append(len(edges) - 1)
        # lightmap: one sample per 16 texels plus one, each axis, evenly bright
        ext_s = max(sum(a * b for a, b in zip(p, s_axis)) for p in pts) + s0
        # Quake's CalcSurfaceExtents: floor(min / 16) .. ceil(max / 16), plus one
        lo_t = min(sum(a * b for a, b in zip(p, t_axis)) for p in pts) + t0
        hi_t = max(sum(a * b for a, b in zip(p, t_axis)) for p in pts) + t0
        n = (int(ext_s) // 16 + 1) * (-(-int(hi_t) // 16) - int(lo_t) // 16 + 1)
        lightofs = len(light)
        light += bytes([80]) * n  # a little over the colormap's unlit row (64 here)
        facebytes += struct.pack("<hhihh4Bi", plane, side, first, 4, i, 0, 255, 255, 255,
                                 lightofs)
    lumps[4] = b""
    lumps[5] = struct.pack("<ihh3h3hHH", 0, -2, -2, 0, 0, 0, sx, sy, sz, 0, 6)
    lumps[6] = texinfo
    lumps[7] = facebytes
    lumps[8] = light
    lumps[9] = b""
    lumps[10] = (struct.pack("<ii3h3hHH4B", -2, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) +
                 struct.pack("<ii3h3hHH4B", -1, -1, 0, 0, 0, sx, sy, sz, 0, 6, 0, 0, 0, 0))
    lumps[11] = struct.pack("<6H", *range(6))
    lumps[12] = b"".join(struct.pack("<HH", a, b) for a, b in edges)
    lumps[13] = b"".join(struct.pack("<i", e) for e in surfedges)
    lumps[14] = struct.pack("<9f4iiii", 0, 0, 0, sx, sy, sz, 0, 0, 0, 0, 0, 0, 0, 1, 0, 6)
    out = bytearray(struct.pack("<i", 29) + b"\0" * 120)
    for i, data in enumerate(lumps):
        while len(out) % 4:
            out.append(0)
        struct.pack_into("<ii", out, 4 + 8 * i, len(out), len(data))
        out += data
    with open(os.path.join(ROOT, "maps", name + ".bsp"), "wb") as f:
        f.write(out)


# Quake's items.qc names: small and large boxes of each ammunition, the three health boxes;
# misc.qc's exploding box (misc_explobox, 32 x 32 x 64)
for name, size, kind in [("b_bh10", (32, 32, 16), "health"), ("b_bh25", (32, 32, 16), "health"),
                         ("b_bh100", (32, 32, 32), "health"),
                         ("b_shell0", (32, 32, 16), "shells"), ("b_shell1", (32, 32, 24), "shells"),
                         ("b_nail0", (32, 32, 16), "nails"), ("b_nail1", (32, 32, 24), "nails"),
                         ("b_rock0", (32, 32, 16), "rockets"), ("b_rock1", (32, 32, 24), "rockets"),
                         ("b_batt0", (32, 32, 16), "cells"), ("b_batt1", (32, 32, 24), "cells"),
                         ("b_explob", (32, 32, 64), "explob")]:
    box(name, size, kind)
