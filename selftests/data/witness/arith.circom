pragma circom 2.0.0;

// Inputs as circom users write them: a scalar, a 2x3 array (nested in the
// JSON, flattened in circom's order), a value given negative or in hex.
// out = a*b + sum(m[i][j] * (i + 1)), and a log() line.
template Arith() {
    signal input a;
    signal input b;
    signal input m[2][3];
    signal output out;
    signal ab;
    var s = 0;

    ab <== a * b;
    for (var i = 0; i < 2; i++) {
        for (var j = 0; j < 3; j++) {
            s += m[i][j] * (i + 1);
        }
    }
    out <== ab + s;
    log("arith", out);
}

component main {public [a]} = Arith();
