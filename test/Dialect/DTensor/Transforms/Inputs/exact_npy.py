"""Writes the inputs of a layer stack on which every plan computes the same
bits: a permutation matrix (each matmul output is one input element, however
the contraction is split) and a matrix of halves.

    exact_npy.py DIR ROWS WIDTH     -> DIR/x.npy (ROWS x WIDTH), DIR/perm.npy
"""
import os
import struct
import sys


def write(path, rows, cols, value):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as out:
        out.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        out.write(struct.pack("<%df" % (rows * cols),
                              *[value(i, j) for i in range(rows) for j in range(cols)]))


def main():
    directory, rows, width = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.makedirs(directory, exist_ok=True)
    write(os.path.join(directory, "x.npy"), rows, width,
          lambda i, j: ((i * 7 + j * 3) % 11 - 5) / 2.0)
    write(os.path.join(directory, "perm.npy"), width, width,
          lambda i, j: 1.0 if j == (i * 5 + 3) % width else 0.0)


if __name__ == "__main__":
    main()
