#!/usr/bin/env python3
"""Checks a headless-Chromium screenshot of a report: every chart box drew something.

usage: check_screenshot.py SHOT.png BOXES.json
BOXES.json is {"charts": [{"id", "x", "y", "w", "h"}...], "blank": {"x", "y", "w", "h"}} in CSS
pixels (device scale 1), measured in the same window by a copy of the report with a probe script.
A chart passes when at least 2% of its pixels differ from white and at least 30 pixels are
saturated colour (the data marks; axes and text are grey). The "blank" box (page margin) must
fail that test, so the check itself can tell drawn from undrawn. Standard library only.
"""
import json
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, width, height, ctype, depth = 8, b"", 0, 0, 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if depth != 8 or ctype not in (2, 6):
        raise SystemExit(f"{path}: unsupported PNG (bit depth {depth}, colour type {ctype})")
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        ftype = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ftype == 1:
                line[x] = (line[x] + a) & 255
            elif ftype == 2:
                line[x] = (line[x] + b) & 255
            elif ftype == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def ink(image, box):
    width, height, bpp, rows = image
    x0, y0 = max(0, int(box["x"])), max(0, int(box["y"]))
    x1, y1 = min(width, int(box["x"] + box["w"])), min(height, int(box["y"] + box["h"]))
    total = nonwhite = saturated = 0
    for y in range(y0, y1):
        row = rows[y]
        for x in range(x0, x1):
            r, g, b = row[x * bpp], row[x * bpp + 1], row[x * bpp + 2]
            total += 1
            if min(r, g, b) < 235:
                nonwhite += 1
            if max(r, g, b) - min(r, g, b) > 60:
                saturated += 1
    return total, nonwhite, saturated


def drew(stats):
    total, nonwhite, saturated = stats
    return total > 0 and nonwhite >= 0.02 * total and saturated >= 30


def main():
    image = read_png(sys.argv[1])
    with open(sys.argv[2]) as f:
        boxes = json.load(f)
    ok = True
    if not boxes["charts"]:
        print("no charts found in the page")
        ok = False
    for box in boxes["charts"]:
        stats = ink(image, box)
        verdict = "drew" if drew(stats) else "BLANK"
        print(f"{box['id']:>14}: {verdict} ({stats[1]} of {stats[0]} px inked, {stats[2]} coloured)")
        ok = ok and drew(stats)
    blank = ink(image, boxes["blank"])
    print(f"{'page margin':>14}: {'drew' if drew(blank) else 'blank'} (control, must be blank)")
    ok = ok and not drew(blank)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
