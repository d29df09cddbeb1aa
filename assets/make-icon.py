#!/usr/bin/env python3
# make-icon.py: draws assets/qdemo.png, qdemo's 128 x 128 desktop icon (a play sign over a
# rusty plate, a timeline under it), from nothing but this file (GPL-2.0-or-later, as qdemo).
# Python 3's standard library only: python3 assets/make-icon.py [out.png]
import math
import struct
import sys
import zlib

SIZE, SS = 128, 4  # pixels a side; samples a pixel side (anti-aliasing)


def rounded_box(x, y, x0, y0, x1, y1, r):
    """1 when (x, y) is inside the box [x0, x1] x [y0, y1] with corners of radius r."""
    cx = min(max(x, x0 + r), x1 - r)
    cy = min(max(y, y0 + r), y1 - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def in_triangle(x, y, a, b, c):
    def side(p, q):
        return (q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0])
    s1, s2, s3 = side(a, b), side(b, c), side(c, a)
    return (s1 >= 0 and s2 >= 0 and s3 >= 0) or (s1 <= 0 and s2 <= 0 and s3 <= 0)


def mix(c0, c1, t):
    return tuple(c0[i] + (c1[i] - c0[i]) * t for i in range(3))


def sample(x, y):
    """The colour (r, g, b, a), 0..1, at point (x, y) of the 128-unit square."""
    if not rounded_box(x, y, 4, 4, 124, 124, 22):
        return (0, 0, 0, 0)
    if not rounded_box(x, y, 7, 7, 121, 121, 19):  # the plate's rim
        return mix((0.78, 0.52, 0.26), (0.42, 0.25, 0.11), y / 128) + (1,)
    col = mix((0.40, 0.25, 0.13), (0.13, 0.08, 0.05), y / 128)
    # rivets in the plate's corners
    for rx, ry in ((18, 18), (110, 18), (18, 110), (110, 110)):
        d = math.hypot(x - rx, y - ry)
        if d <= 4:
            return mix((0.85, 0.62, 0.35), (0.30, 0.18, 0.08), d / 4) + (1,)
    # the play sign: an outline, then an orange body lit from above
    a, b, c = (44, 26), (44, 86), (96, 56)
    if in_triangle(x, y, (a[0] - 5, a[1] - 8), (b[0] - 5, b[1] + 8), (c[0] + 9, c[1])):
        col = (0.08, 0.04, 0.02)
    if in_triangle(x, y, a, b, c):
        col = mix((1.00, 0.80, 0.35), (0.85, 0.38, 0.08), (y - 26) / 60)
    # the timeline: a track, the part played in orange, the handle
    if rounded_box(x, y, 20, 100, 108, 106, 3):
        col = (1.00, 0.62, 0.18) if x <= 70 else (0.55, 0.50, 0.45)
    if math.hypot(x - 70, y - 103) <= 7:
        col = mix((1.0, 0.95, 0.85), (0.75, 0.65, 0.55), math.hypot(x - 68, y - 101) / 9)
    return col + (1,)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "assets/qdemo.png"
    rows = bytearray()
    for py in range(SIZE):
        rows.append(0)  # filter: none
        for px in range(SIZE):
            acc = [0.0, 0.0, 0.0, 0.0]
            for sy in range(SS):
                for sx in range(SS):
                    r, g, b, a = sample(px + (sx + 0.5) / SS, py + (sy + 0.5) / SS)
                    acc[0] += r * a
                    acc[1] += g * a
                    acc[2] += b * a
                    acc[3] += a
            n = SS * SS
            alpha = acc[3] / n
            rgb = [acc[i] / acc[3] if acc[3] else 0 for i in range(3)]
            rows += bytes(min(255, round(v * 255)) for v in rgb + [alpha])

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(bytes(rows), 9))
    png += chunk(b"IEND", b"")
    with open(out, "wb") as f:
        f.write(png)


if __name__ == "__main__":
    main()
