"""A tiny ONNX writer for the CLI test scripts: the protobuf wire format by hand, so that the
scripts build their small models without the Python onnx package. Field numbers are onnx.proto's.

    PYTHONPATH=tests/cli python3 -c 'from tiny_onnx import *; model(...)'
"""
import struct

FLOAT, INT64, BOOL, DOUBLE = 1, 7, 9, 11  # TensorProto.DataType


def varint(n):
    n &= (1 << 64) - 1  # negative int64 values take ten bytes, as protobuf writes them
    b = bytearray()
    while True:
        x = n & 0x7F
        n >>= 7
        if n:
            b.append(x | 0x80)
        else:
            b.append(x)
            return bytes(b)


def key(field, wire): return varint(field << 3 | wire)
def vint(field, n): return key(field, 0) + varint(n)


def ld(field, payload):  # a length-delimited field: bytes, a string or a nested message
    if isinstance(payload, str): payload = payload.encode()
    return key(field, 2) + varint(len(payload)) + payload


def value_info(name, elem, dims):  # dims: ints, or strings for symbolic dims
    shape = b"".join(ld(1, vint(1, d) if isinstance(d, int) else ld(2, d)) for d in dims)
    return ld(1, name) + ld(2, ld(1, vint(1, elem) + ld(2, shape)))


def int64_tensor(name, values):  # a 1-D initializer
    return vint(1, len(values)) + vint(2, INT64) + b"".join(vint(7, v) for v in values) + ld(8, name)


def float_tensor(name, values, dims=None):  # an initializer in raw_data, 1-D unless dims are given
    dims = [len(values)] if dims is None else dims
    return (b"".join(vint(1, d) for d in dims) + vint(2, FLOAT) + ld(9, struct.pack(f"<{len(values)}f", *values)) +
            ld(8, name))


def write_npy(path, values, shape=None):  # a float32 .npy file, 1-D unless a shape is given
    shape = [len(values)] if shape is None else shape
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % "".join(f"{d}," for d in shape)
    header += " " * (63 - len(header)) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() +
                struct.pack(f"<{len(values)}f", *values))


def attr_int(name, v): return ld(1, name) + vint(20, 2) + vint(3, v)
def attr_graph(name, g): return ld(1, name) + vint(20, 5) + ld(6, g)


def node(op, ins, outs, name, attrs=b"", domain=""):  # attrs: ld(5, attr_...) fields
    b = b"".join(ld(1, i) for i in ins) + b"".join(ld(2, o) for o in outs) + ld(3, name) + ld(4, op) + attrs
    if domain: b += ld(7, domain)
    return b


def model(path, nodes, inputs, outputs, inits=(), opsets=(("", 13),)):  # writes an IR version 8 model
    g = b"".join(ld(1, n) for n in nodes) + ld(2, "g") + b"".join(ld(5, t) for t in inits)
    g += b"".join(ld(11, v) for v in inputs) + b"".join(ld(12, v) for v in outputs)
    m = vint(1, 8) + ld(7, g) + b"".join(ld(8, ld(1, d) + vint(2, v)) for d, v in opsets)
    with open(path, "wb") as f:
        f.write(m)
