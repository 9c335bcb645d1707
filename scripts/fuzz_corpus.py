#!/usr/bin/env python3
"""Writes the seed corpora of the libFuzzer targets (fuzz/) from the tree.

  fuzz_corpus.py ROOT OUT

OUT/compile, OUT/run and OUT/translate: every MLIR test and example, split
into the chunks `-split-input-file` and `split-file` would make (the
local-view programs among them, test/Target/Cpp's, seed the translate
target). OUT/placements: the mesh /
shape / placement arguments of the dtensor-plan tests, one request per file
(the four lines dtensor-fuzz-placements reads). OUT/npy: small .npy files of
every dtype the reader takes, in each header version.
"""
import os
import re
import struct
import sys

root, out = sys.argv[1], sys.argv[2]


def write(kind, name, data):
    d = os.path.join(out, kind)
    os.makedirs(d, exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(d, name), mode) as f:
        f.write(data)


n = 0
for top in ("test", "examples"):
    for dirpath, _, files in sorted(os.walk(os.path.join(root, top))):
        for f in sorted(files):
            if not f.endswith(".mlir"):
                continue
            text = open(os.path.join(dirpath, f)).read()
            chunks = []
            for part in re.split(r"^// -----$", text, flags=re.M):
                chunks += re.split(r"^//--- .*$", part, flags=re.M)
            for chunk in chunks:
                if "func.func" not in chunk and "dtensor." not in chunk:
                    continue
                n += 1
                for kind in ("compile", "run", "translate"):
                    write(kind, f"seed{n:04d}.mlir", chunk)

requests = set()
arg = r"'([^']*)'|(\S+)"
for f in sorted(os.listdir(os.path.join(root, "test", "dtensor-plan"))):
    text = open(os.path.join(root, "test", "dtensor-plan", f)).read()
    for line in text.splitlines():
        opts = {}
        for m in re.finditer(r"--(mesh|shape|from|to|placements)[ =](?:" + arg + ")", line):
            opts[m.group(1)] = m.group(2) if m.group(2) is not None else m.group(3)
        if "mesh" in opts:
            frm = opts.get("from", opts.get("placements", "[R]"))
            requests.add((opts["mesh"], opts.get("shape", ""), frm, opts.get("to", frm)))
for i, r in enumerate(sorted(requests)):
    write("placements", f"seed{i:04d}.txt", "\n".join(r) + "\n")


def npy(descr, shape, payload, version=1):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join(f"{s}, " for s in shape) if len(shape) == 1 else ", ".join(map(str, shape)))
    size_fmt = "<H" if version == 1 else "<I"
    pre = 6 + 2 + struct.calcsize(size_fmt)
    pad = (64 - (pre + len(header) + 1) % 64) % 64
    header = header + " " * pad + "\n"
    return (b"\x93NUMPY" + bytes([version, 0]) + struct.pack(size_fmt, len(header))
            + header.encode() + payload)


samples = [
    ("<f4", (2, 3), struct.pack("<6f", *range(6))),
    ("<f8", (3,), struct.pack("<3d", 1.5, -2, 3)),
    ("<i8", (2, 2), struct.pack("<4q", 1, -2, 3, 4)),
    ("<i4", (4,), struct.pack("<4i", 1, 2, 3, 4)),
    ("|i1", (3,), bytes([1, 255, 3])),
    ("|b1", (2,), bytes([1, 0])),
    ("<f2", (2,), struct.pack("<2e", 1.0, -0.5)),
    ("<f4", (), struct.pack("<f", 7.0)),
    ("<f4", (0, 4), b""),
]
for i, (descr, shape, payload) in enumerate(samples):
    for version in (1, 2):
        write("npy", f"seed{i:02d}v{version}.npy", npy(descr, shape, payload, version))
print(f"fuzz corpus: {n} MLIR chunks, {len(requests)} plan requests, "
      f"{2 * len(samples)} .npy files in {out}")
