#!/usr/bin/env python3
"""Writes an f32 .npy of shape ROWSxCOLS with small deterministic values.

    write_npy.py PATH ROWS COLS SEED

No numpy needed: one row is built and repeated with a shift per row, so even
a 2048x2048 weight takes a fraction of a second. For benchmarks only.
"""
import array
import struct
import sys


def main():
    path, rows, cols, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    row = array.array("f", [((i * 37 + seed * 11) % 101 - 50) * 2e-4 for i in range(cols + 101)])
    raw = row.tobytes()
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    pad = 64 - (10 + len(header) + 1) % 64
    header += " " * (pad % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        for r in range(rows):
            shift = (r * 7) % 101
            f.write(raw[shift * 4:(shift + cols) * 4])


if __name__ == "__main__":
    main()
