pragma circom 2.0.0;

// A circuit whose assert fails for x >= 10, and whose witness code can be
// made to recurse without bound (depth) or to loop for a long time (spin).
function down(n) {
    if (n == 0) {
        return 0;
    }
    return down(n - 1) + 1;
}

function spin(n) {
    var s = 0;
    for (var i = 0; i < n; i++) {
        s = s + i * i;
    }
    return s;
}

template Fail() {
    signal input x;
    signal input depth;
    signal input loops;
    signal output y;
    signal d;
    signal l;

    assert(x < 10);
    d <-- down(depth);
    l <-- spin(loops);
    y <== x * x + d * 0 + l * 0;
}

component main = Fail();
