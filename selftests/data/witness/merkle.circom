pragma circom 2.0.0;
include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/mux1.circom";

// A Merkle proof of depth D with Poseidon: the leaf, its siblings and the
// path bits (0: the node is the left child) give the root, the output.
template Merkle(D) {
    signal input leaf;
    signal input siblings[D];
    signal input bits[D];
    signal output root;
    component h[D];
    component mx[D];
    signal node[D + 1];

    node[0] <== leaf;
    for (var i = 0; i < D; i++) {
        bits[i] * (bits[i] - 1) === 0;
        mx[i] = MultiMux1(2);
        mx[i].c[0][0] <== node[i];
        mx[i].c[0][1] <== siblings[i];
        mx[i].c[1][0] <== siblings[i];
        mx[i].c[1][1] <== node[i];
        mx[i].s <== bits[i];
        h[i] = Poseidon(2);
        h[i].inputs[0] <== mx[i].out[0];
        h[i].inputs[1] <== mx[i].out[1];
        node[i + 1] <== h[i].out;
    }
    root <== node[D];
}

component main = Merkle(4);
