"""MLIR text shared by the writers of global-view programs (dtensor_mlir.torch,
dtensor_mlir.builder): element types and float literals, written once."""

import math

#: Float element types, MLIR spelling.
FLOAT_TYPES = ("f32", "f64", "f16", "bf16")


def is_float(dtype: str) -> bool:
    return dtype in FLOAT_TYPES


def float_literal(v: float, dtype: str) -> str:
    """An MLIR float literal of `v` in `dtype` (hex bit patterns for
    infinities and NaN, which have no decimal spelling)."""
    if math.isinf(v):
        pos = {"f32": "0x7F800000", "f64": "0x7FF0000000000000", "f16": "0x7C00",
               "bf16": "0x7F80"}[dtype]
        neg = {"f32": "0xFF800000", "f64": "0xFFF0000000000000", "f16": "0xFC00",
               "bf16": "0xFF80"}[dtype]
        return pos if v > 0 else neg
    if math.isnan(v):
        return {"f32": "0x7FC00000", "f64": "0x7FF8000000000000", "f16": "0x7E00",
                "bf16": "0x7FC0"}[dtype]
    text = repr(float(v))
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + ("e" + exponent if exponent else "")
