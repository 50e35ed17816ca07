// circom 0.5 syntax (e2e_wasmjobs compiles it with the pinned circom@0.5.46):
// a witness that spins for a while (loops), so a kill -9 lands while circom
// 0.5 input jobs are being computed.
function spin(n) {
    var s = 0;
    for (var i = 0; i < n; i++) {
        s = s + i * i;
    }
    return s;
}

template Slow05() {
    signal input x;
    signal input loops;
    signal output y;
    signal l;
    signal ll;
    l <-- spin(loops);
    ll <== l * loops;
    y <== x * x + ll * 0;
}

component main = Slow05();
