#!/usr/bin/env python3
"""An independent model of the group-128 INT4 format (step3_w4a16/w4a16_formats.h), for golden vectors.

Group-128 is this tutorial's own format (GPTQ/AWQ style), so no outside program can vouch for its
bytes the way ggml vouches for Q4_0. This model is written from the format's definition, in plain
Python with every FP32 operation rounded as FP32 (a double result of one +, -, *, / on FP32 inputs,
rounded once to FP32, is the FP32 result) and fp16 rounding by the struct module (nearest, ties to
even). For one group of 128 values x:

    lo = min(0, min x), hi = max(0, max x)              the range, stretched to include 0
    s  = fp16((hi - lo) / 15)                            the scale, stored as fp16
    r  = 1 / s in FP32 (0 if s is 0)                     codes use the fp16 scale, not the FP32 one
    z  = clamp(round(-lo * r), 0, 15)                    zero point; round: nearest, ties away from 0
    q  = clamp(round(x * r) + z, 0, 15)                  codes, 8 per 32-bit word, low nibble first

usage: g128_model.py write DIR     write the golden cases (DIR/<case>.bin)
       g128_model.py check DIR     exit 1 unless DIR holds exactly what `write` would write

A case file holds the inputs, n float32 (n = 128 * groups), then per group its 16 code words
(uint32), its scale (fp16 bits, uint16) and its zero point (uint8), all little-endian.
"""
import math
import os
import random
import struct
import sys

GROUP = 128


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def fp16_bits(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def fp16_value(bits):
    return struct.unpack("<e", struct.pack("<H", bits))[0]


def round_half_away(v):
    return int(math.floor(abs(v) + 0.5)) * (1 if v >= 0 else -1)


def clamp(v, lo, hi):
    return max(lo, min(hi, v))


def quantize_group(x):
    lo = min(0.0, min(x))
    hi = max(0.0, max(x))
    s_bits = fp16_bits(f32(f32(hi - lo) / 15.0))
    s = fp16_value(s_bits)
    r = f32(1.0 / s) if s > 0 else 0.0
    z = clamp(round_half_away(f32(-lo * r)), 0, 15)
    codes = [clamp(round_half_away(f32(v * r)) + z, 0, 15) for v in x]
    words = [sum(codes[w * 8 + i] << (4 * i) for i in range(8)) for w in range(GROUP // 8)]
    return words, s_bits, z


def as_f32(values):
    return [f32(v) for v in values]


def cases():
    """Name -> the values of the case (a multiple of 128), each distribution a reason to exist."""
    rng = random.Random(20261201)
    out = {}
    out["normal"] = as_f32(rng.gauss(0, 1) for _ in range(8 * GROUP))
    outliers = [rng.gauss(0, 1) for _ in range(4 * GROUP)]
    for i in range(0, len(outliers), 97):
        outliers[i] *= 40.0
    out["outliers"] = as_f32(outliers)
    out["positive"] = as_f32(rng.uniform(0.5, 2.0) for _ in range(2 * GROUP))  # lo = 0: z = 0
    out["negative"] = as_f32(-rng.uniform(0.5, 2.0) for _ in range(2 * GROUP))  # hi = 0: z = 15
    out["constant_and_zero"] = as_f32([3.0] * GROUP + [-3.0] * GROUP + [0.0] * GROUP)
    # Values on the half steps of the grid: x·r lands near k + 1/2, where the rounding rule decides.
    ties = []
    for g in range(2):
        step = 0.25 * (g + 1)
        ties += [(k % 16 - 7.5) * step for k in range(GROUP - 2)] + [-7.5 * step, 7.5 * step]
    out["half_steps"] = as_f32(ties)
    out["tiny"] = as_f32(rng.gauss(0, 1e-6) for _ in range(2 * GROUP))  # s is an fp16 subnormal
    out["large"] = as_f32(rng.gauss(0, 3e4) for _ in range(GROUP))      # s near fp16's top
    out["skewed"] = as_f32(rng.uniform(-0.1, 3.0) for _ in range(2 * GROUP))  # z small but not 0
    return out


def encode(values):
    blob = struct.pack("<%df" % len(values), *values)
    for g in range(0, len(values), GROUP):
        words, s_bits, z = quantize_group(values[g:g + GROUP])
        blob += struct.pack("<16IHB", *words, s_bits, z)
    return blob


def main(argv):
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if len(argv) != 3 or argv[1] not in ("write", "check"):
        print("usage: g128_model.py write|check DIR (--help: the format and the files)", file=sys.stderr)
        return 2
    mode, folder = argv[1], argv[2]
    expected = {name + ".bin": encode(values) for name, values in cases().items()}
    if mode == "write":
        os.makedirs(folder, exist_ok=True)
        for name, blob in expected.items():
            with open(os.path.join(folder, name), "wb") as f:
                f.write(blob)
        print("wrote %d cases to %s" % (len(expected), folder))
        return 0
    present = sorted(f for f in os.listdir(folder) if f.endswith(".bin")) if os.path.isdir(folder) else []
    bad = [n for n in expected if n not in present or open(os.path.join(folder, n), "rb").read() != expected[n]]
    bad += [n for n in present if n not in expected]
    for n in bad:
        print("differs from the model: %s" % n)
    print("%d cases, %d differ" % (len(expected), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
