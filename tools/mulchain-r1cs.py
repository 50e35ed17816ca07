#!/usr/bin/env python3
# tools/mulchain-r1cs.py — tools/fixtures/circuits/mulchain.circom's .r1cs and witness, written
# directly: the same bytes circom 2 (--prime bn128, its default simplification) writes for
# MulChain(2^K - 3) and that `snarkjs wtns calculate` writes for {"a": A, "b": B}, without
# compiling the circuit (circom2's wasm build takes minutes at 2^18 and longer at 2^20).
#
#   tools/mulchain-r1cs.py [--prime bn128|bls12381] K OUT.r1cs OUT.wtns [A B]
#
# A, B default 3 and 5; the prime (circom's --prime) bn128, BN254's scalar field, unless named.
#
# The circuit: x[0] = a, x[i+1] = x[i]^2 + b for n = 2^K - 3 steps, out = x[n], b public.
# Wires: 0 the constant one, 1 out, 2 b, 3 a = x[0], 3 + i = x[i] for 0 < i < n: 2^K wires.
# Constraint i: (-x[i]) * (x[i]) = b - x[i+1] (circom's form; a side's terms in the order of
# their wire numbers' little-endian bytes, as circom writes them: wire 256 before wire 2).  Labels: circom
# keeps x[0]'s label (4) for the signal it merged into a, so wire w >= 4 has label w + 1.
# Formats: iden3's binary container (docs/formats.md; zk/io/iden3bin.c reads it), values
# little-endian in standard form.  tools/bn128-key.sh uses this above 2^16; selftests compare
# its bytes with circom's at small K.
import struct
import sys

PRIMES = {   # the scalar fields r, as circom names them
    "bn128": 21888242871839275222246405745257275088548364400416034343698204186575808495617,
    "bls12381": 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001,
}
R = PRIMES["bn128"]


def fe(v):
    return (v % R).to_bytes(32, "little")


def section(kind, body):
    return struct.pack("<IQ", kind, len(body)) + body


def main():
    global R
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "--prime":
        if args[1] not in PRIMES:
            sys.exit("mulchain-r1cs.py: --prime %s: not bn128 or bls12381" % args[1])
        R = PRIMES[args[1]]
        args = args[2:]
    if len(args) not in (3, 5):
        sys.exit("usage: mulchain-r1cs.py [--prime bn128|bls12381] K OUT.r1cs OUT.wtns [A B]")
    k = int(args[0])
    if not 3 <= k <= 28:
        sys.exit("mulchain-r1cs.py: K must be 3..28 (2^K wires)")
    a, b = (int(args[3]), int(args[4])) if len(args) == 5 else (3, 5)
    n = (1 << k) - 3
    nwires = 1 << k

    def wire(i):                        # x[i]
        return 1 if i == n else 3 + i

    one, minus = fe(1), fe(-1)
    term = struct.Struct("<I32s").pack
    rows = []
    for i in range(n):
        x, y = wire(i), wire(i + 1)
        c = sorted([(2, one), (y, minus)], key=lambda t: struct.pack("<I", t[0]))   # circom's order
        rows.append(b"".join((struct.pack("<I", 1), term(x, minus), struct.pack("<I", 1), term(x, one),
                              struct.pack("<I", 2), term(*c[0]), term(*c[1]))))
    header = struct.pack("<I", 32) + R.to_bytes(32, "little") + struct.pack("<IIIIQI", nwires, 1, 1, 1, n + 5, n)
    labels = struct.pack("<%dQ" % nwires, *[w if w < 4 else w + 1 for w in range(nwires)])
    with open(args[1], "wb") as f:
        f.write(b"r1cs" + struct.pack("<II", 1, 3))
        f.write(section(2, b"".join(rows)))
        f.write(section(1, header))
        f.write(section(3, labels))
    xs = [a % R]
    for i in range(n):
        xs.append((xs[-1] * xs[-1] + b) % R)
    vals = [1, xs[n], b % R, a % R] + xs[1:n]
    with open(args[2], "wb") as f:
        f.write(b"wtns" + struct.pack("<II", 2, 2))
        f.write(section(1, struct.pack("<I", 32) + R.to_bytes(32, "little") + struct.pack("<I", nwires)))
        f.write(section(2, b"".join(fe(v) for v in vals)))


if __name__ == "__main__":
    main()
