pragma circom 2.0.0;
include "circomlib/circuits/sha256/sha256.circom";

// circomlib's SHA-256 of a 64-bit message (one block): bits in, 256 bits out.
component main = Sha256(64);
