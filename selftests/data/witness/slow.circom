pragma circom 2.0.0;

// fail.circom's behaviours in a circuit a key can be made for (every input
// is in a constraint): the assert fails for x >= 10, depth recurses in the
// witness code (past circom's stack: a trap), loops spins for a long time
// (a slow witness: e2e_wasmjobs's time limit, order and kill -9 tests).
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

template Slow() {
    signal input x;
    signal input depth;
    signal input loops;
    signal output y;
    signal d;
    signal l;
    signal dd;
    signal ll;

    assert(x < 10);
    d <-- down(depth);
    l <-- spin(loops);
    dd <== d * depth;
    ll <== l * loops;
    y <== x * x;
}

component main {public [x]} = Slow();
