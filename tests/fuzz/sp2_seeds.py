#!/usr/bin/env python3
# sp2_seeds.py: writes the SP2 seeds of fuzz_mdl into tests/fuzz/corpus/mdl/: a Quake II
# sprite (IDS2 version 2) followed by the PCX its frames' pictures read (fuzz_mdl.c).
#
#   tests/fuzz/sp2_seeds.py [OUT_DIR]
import os
import struct
import sys


def pcx(w, h, line, flat=False):
    """An 8-bit RLE PCX (version 5) of w x h, line bytes a row (a pad byte when w + 1),
    pixels a diagonal ramp (flat: one index, a few bytes a row), index 255 (see-through) in
    one corner, its palette a ramp."""
    head = struct.pack("<4B4H", 0x0A, 5, 1, 8, 0, 0, w - 1, h - 1)
    head += struct.pack("<2H", 72, 72) + bytes(48) + bytes([0, 1])
    head += struct.pack("<2H", line, 1) + bytes(128 - len(head) - 4)
    rows = b""
    for y in range(h):
        row = bytes(255 if x == y == 0 else 40 if flat else (x + y) * 9 % 192 for x in range(w))
        row += bytes(line - w)
        out = b""
        x = 0
        while x < line:
            n = 1
            while x + n < line and n < 63 and row[x + n] == row[x]:
                n += 1
            if n > 1 or row[x] >= 0xC0:
                out += bytes([0xC0 | n, row[x]])
            else:
                out += row[x:x + 1]
            x += n
        rows += out
    pal = b"\x0c" + bytes(c for i in range(256) for c in (i, i, 255 - i))
    assert len(head) == 128
    return head + rows + pal


def sp2(frames):
    """frames: (width, height, origin_x, origin_y, picture name) each."""
    out = b"IDS2" + struct.pack("<iI", 2, len(frames))
    for w, h, ox, oy, name in frames:
        out += struct.pack("<IIii", w, h, ox, oy) + name.encode().ljust(64, b"\0")
    return out


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/fuzz/corpus/mdl"
    seeds = {
        "synthetic_sp2_one_pcx.sp2":
            sp2([(8, 6, 4, 3, "sprites/s_fuzz_0.pcx")]) + pcx(8, 6, 8),
        "synthetic_sp2_same_pcx_twice.sp2":
            sp2([(8, 6, 4, 3, "sprites/s_fuzz_0.pcx"), (8, 6, 2, 6, "sprites/s_fuzz_1.pcx"),
                 (8, 6, -4, 0, "sprites/s_fuzz_0.pcx")]) + pcx(8, 6, 8),
        "synthetic_sp2_odd_width_pad.sp2":
            sp2([(7, 5, 3, 2, "sprites/s_fuzz_0.pcx")]) + pcx(7, 5, 8),
        # fuzz_mdl's room of 4 MiB run out: a picture of 1,024,000 pixels and four copies
        # fit, the fifth copy does not, two other names read it whole and are refused (each
        # costing its bytes), the last is left unread
        "synthetic_sp2_past_the_room.sp2":
            sp2([(64, 64, 32, 32, "sprites/s_big_0.pcx")] * 5 +
                [(64, 64, 32, 32, "sprites/s_big_%d.pcx" % k) for k in (1, 2, 3)]) +
            pcx(1024, 1000, 1024, flat=True),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


main()
