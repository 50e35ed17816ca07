// SPDX-License-Identifier: MIT

// tools/peers/gnark-chain — cuzk's benchmark driver for the gnark peer: a
// benchmark reference, never part of cuzk's build and never a dependency of it.
//
// It proves, with Consensys gnark's Groth16 (its public API only), the circuit
// of cuzk's benchmark (tools/fixtures/circuits/mulchain.circom):
//
//	a private, b public; x[0] = a; x[i+1] = x[i]*x[i] + b for i < n; out = x[n] public
//
// with n = 2^K - 3 steps, so that the R1CS has about 2^K constraints (circom
// makes n; gnark n + 1, its `out == x[n]` being a constraint of its own) and
// the FFT domain is 2^K, as cuzk's.
//
//	gnark-chain -curve bn254|bls12-381 -log2 K setup -dir D
//	gnark-chain -curve bn254|bls12-381 -log2 K prove -dir D [-iters N] [-recompile] [-checked]
//
// setup compiles the circuit, runs groth16.Setup and writes the constraint
// system (cs.bin, gnark's CBOR), the proving key (pk.bin, uncompressed points:
// WriteRawTo) and the verifying key (vk.bin) to D, with meta.txt (curve, K).
// prove, in a fresh process, reads the constraint system (or compiles it again,
// -recompile), reads pk.bin (timed as "load"; UnsafeReadFrom, no subgroup
// checks, unless -checked), builds the witness for a = 3, b = 5, proves N times
// and verifies the last proof against vk.bin: it exits non-zero when it fails.
// Every stage prints one line, "gnark STAGE wall_ms=... cpu_ms=..." (cpu: the
// process's user + system time over every thread).  GOMAXPROCS is Go's:
// every core unless the environment says otherwise.
//
// Built by tools/peers/build-gnark.sh (GOPATH mode, no network), by hand.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/logger"
)

// Set by tools/peers/build-gnark.sh through -ldflags -X.
var (
	gnarkVersion = "unknown"
	gnarkCommit  = "unknown"
	cryptoCommit = "unknown"
)

// chain is the circuit.  Out comes before B, as circom orders its public
// signals (outputs, then public inputs).
type chain struct {
	A   frontend.Variable
	Out frontend.Variable `gnark:",public"`
	B   frontend.Variable `gnark:",public"`

	steps int
}

func (c *chain) Define(api frontend.API) error {
	x := c.A
	for i := 0; i < c.steps; i++ {
		x = api.Add(api.Mul(x, x), c.B)
	}
	api.AssertIsEqual(x, c.Out)
	return nil
}

// stamp measures one stage: wall time and the process's CPU time.
type stamp struct {
	wall time.Time
	cpu  time.Duration
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func maxRSSMiB() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss / 1024 // Linux: KiB
}

func start() stamp { return stamp{time.Now(), cpuTime()} }

func (s stamp) fields() string {
	w := time.Since(s.wall)
	c := cpuTime() - s.cpu
	return fmt.Sprintf("wall_ms=%.1f cpu_ms=%.1f", float64(w.Microseconds())/1000, float64(c.Microseconds())/1000)
}

func die(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "gnark-chain: "+format+"\n", args...)
	os.Exit(1)
}

func curveOf(name string) ecc.ID {
	switch name {
	case "bn254", "bn128":
		return ecc.BN254
	case "bls12-381", "bls12_381":
		return ecc.BLS12_381
	}
	die("unknown curve %q (bn254 or bls12-381)", name)
	return ecc.UNKNOWN
}

func compile(curve ecc.ID, steps int) constraint.ConstraintSystem {
	t := start()
	cs, err := frontend.Compile(curve.ScalarField(), r1cs.NewBuilder, &chain{steps: steps},
		frontend.WithCapacity(steps+1))
	if err != nil {
		die("compile: %v", err)
	}
	fmt.Printf("gnark compile %s constraints=%d public=%d secret=%d internal=%d\n", t.fields(),
		cs.GetNbConstraints(), cs.GetNbPublicVariables(), cs.GetNbSecretVariables(), cs.GetNbInternalVariables())
	return cs
}

func writeFile(path string, w io.WriterTo) int64 {
	f, err := os.Create(path)
	if err != nil {
		die("%v", err)
	}
	b := bufio.NewWriterSize(f, 1<<20)
	n, err := w.WriteTo(b)
	if err == nil {
		err = b.Flush()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		die("write %s: %v", path, err)
	}
	return n
}

// rawWriter adapts WriteRawTo to io.WriterTo.
type rawWriter struct {
	w interface {
		WriteRawTo(io.Writer) (int64, error)
	}
}

func (r rawWriter) WriteTo(w io.Writer) (int64, error) { return r.w.WriteRawTo(w) }

func readFile(path string, read func(io.Reader) (int64, error)) {
	f, err := os.Open(path)
	if err != nil {
		die("%v", err)
	}
	defer f.Close()
	if _, err := read(bufio.NewReaderSize(f, 1<<20)); err != nil {
		die("read %s: %v", path, err)
	}
}

func setup(curve ecc.ID, curveName string, k, steps int, dir string) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		die("%v", err)
	}
	cs := compile(curve, steps)

	t := start()
	pk, vk, err := groth16.Setup(cs)
	if err != nil {
		die("setup: %v", err)
	}
	fmt.Printf("gnark setup %s\n", t.fields())

	t = start()
	ncs := writeFile(filepath.Join(dir, "cs.bin"), cs)
	npk := writeFile(filepath.Join(dir, "pk.bin"), rawWriter{pk})
	nvk := writeFile(filepath.Join(dir, "vk.bin"), vk)
	meta := fmt.Sprintf("curve=%s\nlog2=%d\nsteps=%d\n", curveName, k, steps)
	if err := os.WriteFile(filepath.Join(dir, "meta.txt"), []byte(meta), 0o644); err != nil {
		die("%v", err)
	}
	fmt.Printf("gnark write %s cs_bytes=%d pk_bytes=%d vk_bytes=%d\n", t.fields(), ncs, npk, nvk)
}

func checkMeta(dir, curveName string, k int) {
	b, err := os.ReadFile(filepath.Join(dir, "meta.txt"))
	if err != nil {
		die("%v (run setup first)", err)
	}
	want := map[string]string{"curve": curveName, "log2": strconv.Itoa(k)}
	for _, line := range strings.Split(string(b), "\n") {
		kv := strings.SplitN(line, "=", 2)
		if len(kv) == 2 && want[kv[0]] != "" && want[kv[0]] != kv[1] {
			die("%s holds %s=%s, not %s", dir, kv[0], kv[1], want[kv[0]])
		}
	}
}

func prove(curve ecc.ID, curveName string, k, steps int, dir string, iters int, recompile, checked bool) {
	checkMeta(dir, curveName, k)
	var cs constraint.ConstraintSystem
	if recompile {
		cs = compile(curve, steps)
	} else {
		t := start()
		cs = groth16.NewCS(curve)
		readFile(filepath.Join(dir, "cs.bin"), cs.ReadFrom)
		fmt.Printf("gnark cs_load %s constraints=%d\n", t.fields(), cs.GetNbConstraints())
	}

	t := start()
	pk := groth16.NewProvingKey(curve)
	if checked {
		readFile(filepath.Join(dir, "pk.bin"), pk.ReadFrom)
	} else {
		readFile(filepath.Join(dir, "pk.bin"), pk.UnsafeReadFrom)
	}
	fmt.Printf("gnark load %s checked=%v\n", t.fields(), checked)

	t = start()
	field := curve.ScalarField()
	a, b := big.NewInt(3), big.NewInt(5)
	x := new(big.Int).Set(a)
	for i := 0; i < steps; i++ {
		x.Mul(x, x).Add(x, b).Mod(x, field)
	}
	w, err := frontend.NewWitness(&chain{A: a, B: b, Out: x}, field)
	if err != nil {
		die("witness: %v", err)
	}
	pub, err := w.Public()
	if err != nil {
		die("public witness: %v", err)
	}
	fmt.Printf("gnark witness %s\n", t.fields())

	var proof groth16.Proof
	for i := 1; i <= iters; i++ {
		t = start()
		proof, err = groth16.Prove(cs, pk, w)
		if err != nil {
			die("prove: %v", err)
		}
		fmt.Printf("gnark prove %d %s\n", i, t.fields())
	}

	t = start()
	vk := groth16.NewVerifyingKey(curve)
	readFile(filepath.Join(dir, "vk.bin"), vk.ReadFrom)
	if err := groth16.Verify(proof, vk, pub); err != nil {
		fmt.Printf("gnark verify %s verify=FAILED\n", t.fields())
		die("verify: %v", err)
	}
	fmt.Printf("gnark verify %s verify=ok max_rss_mib=%d\n", t.fields(), maxRSSMiB())
}

func main() {
	curveName := flag.String("curve", "bn254", "bn254 or bls12-381")
	k := flag.Int("log2", 10, "K: 2^K - 3 steps, domain 2^K")
	verbose := flag.Bool("v", false, "gnark's own log on stderr")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: %s [-curve C] [-log2 K] [-v] setup -dir D\n"+
			"       %s [-curve C] [-log2 K] [-v] prove -dir D [-iters N] [-recompile] [-checked]\n",
			os.Args[0], os.Args[0])
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if *k < 3 || *k > 28 {
		die("-log2 %d out of range (3..28)", *k)
	}
	if *verbose {
		logger.SetOutput(os.Stderr)
	} else {
		logger.Disable()
	}
	curve := curveOf(*curveName)
	steps := (1 << uint(*k)) - 3

	sub := flag.NewFlagSet(flag.Arg(0), flag.ExitOnError)
	dir := sub.String("dir", "", "directory of cs.bin, pk.bin, vk.bin, meta.txt")
	iters := sub.Int("iters", 1, "proofs to make (prove)")
	recompile := sub.Bool("recompile", false, "compile the circuit instead of reading cs.bin (prove)")
	checked := sub.Bool("checked", false, "read pk.bin with subgroup checks (ReadFrom, not UnsafeReadFrom)")
	sub.Parse(flag.Args()[1:])
	if *dir == "" {
		die("%s needs -dir D", flag.Arg(0))
	}

	fmt.Printf("gnark version=%s commit=%s gnark-crypto=%s go=%s gomaxprocs=%d curve=%s log2=%d steps=%d\n",
		gnarkVersion, gnarkCommit, cryptoCommit, runtime.Version(), runtime.GOMAXPROCS(0), *curveName, *k, steps)
	switch flag.Arg(0) {
	case "setup":
		setup(curve, *curveName, *k, steps, *dir)
	case "prove":
		if *iters < 1 {
			die("-iters %d: at least 1", *iters)
		}
		prove(curve, *curveName, *k, steps, *dir, *iters, *recompile, *checked)
	default:
		flag.Usage()
		os.Exit(2)
	}
}
