/* SPDX-License-Identifier: MIT */
/*
 * zk/ntt/ntt.c — NTT domains and the public transforms (see zk/ntt/ntt.h), for
 * BLS12-381's Fr: zk/ntt/ntt_tmpl_pvt.h instantiated over cz_fr.  BN254's is
 * zk/ntt/bn254_ntt.c; both share the code and this design.
 *
 * Design.  Every transform is built from one kernel, the forward DFT done
 * as in-place radix-2 Cooley-Tukey butterflies with natural order in and
 * bit-reversed order out (zk/ntt_kernel.c), followed by a bit-reversal
 * permutation (zk/ntt_perm.c).  The others reuse it:
 *
 *   inverse        DFT^-1(a)[k] = (1/n) DFT(a)[(n-k) mod n]: forward, then one
 *                  pass that reverses indices and scales by 1/n.
 *   coset_forward  a[k] *= g^k, then forward.
 *   coset_inverse  forward, then a[k] <- a[(n-k) mod n] * g^-k / n.
 *   to_odd_coset   forward, a[k] <- a[(n-k) mod n] * g^k / n, forward.
 *
 * Cache blocking.  The first L-B levels (strides >= 2^B) run as passes of up
 * to K levels each: a pass gathers 2^K rows of 4 adjacent columns (32 KiB at
 * K = 8) into a buffer, does its K levels there and scatters them back, so
 * every pass streams the array once.  The last B levels run inside
 * contiguous blocks of 2^B elements (128 KiB at B = 12), which stay in L2.
 * n = 2^20 thus costs three streaming passes (one radix-2^8 pass, the
 * blocks, the permutation) instead of twenty.
 *
 * Cost, in Fr multiplications per element (L = log2 n): forward L/2 - 1
 * (one per butterfly, none in each level's block 0, whose twiddle is 1);
 * inverse L/2; coset_forward and coset_inverse L/2 + 1; to_odd_coset L.
 * Each butterfly also costs one addition and one subtraction.
 *
 * Twiddles.  tw[k] = omega_n^rev(k) for k < n/2 (rev over L-1 bits),
 * computed once per domain: n/2 multiplications and 16n bytes (4 GiB at
 * n = 2^28, half the data).  With the twiddles in bit-reversed order the
 * level with m blocks uses exactly tw[0 .. m), one per block, so every pass
 * reads the table sequentially and the columns of a pass share their
 * twiddles; no per-level copies are needed.
 *
 * Roots.  omega_{2^k} is snarkjs's (cz_fr_root_of_unity: 5^((r-1)/2^32)
 * squared 32-k times), not the generator-7 root of other libraries: both
 * give valid transforms, only this one gives snarkjs-compatible proofs.
 *
 * Threads.  Each pass is split into independent chunks of whole units
 * (column groups, blocks, tile pairs, index ranges) on the pool; passes are
 * separated by cz_pool_for's return.  Every element's arithmetic is the same
 * whatever the split, so results do not depend on the thread count.
 *
 * The vector path.  Both instances add the device stage's three
 * transforms and h = a·b - c on AVX-512 IFMA (cz_ntt_h_vec,
 * cz_bn254_ntt_h_vec): no permutation pass, eight elements a step, in the
 * caller's arrays; its design is zk/ntt/ntt_vec_tmpl_pvt.h's.  Their domains
 * hold 4n bytes more (the coset scale, cs and cg).
 *
 * Failure modes: domain creation fails for log2n > 28 (EINVAL) or when the
 * table cannot be allocated (ENOMEM); transforms cannot fail.
 */
#include "zk/ntt/ntt.h"

#define NT_FR cz_fr
#define NT(n) cz_ntt_##n
#define NT_DOMAIN cz_ntt_domain
#define NT_MAX_LOG2 CZ_NTT_MAX_LOG2
#define NT_VEC 1
#include "zk/ntt/ntt_tmpl_pvt.h"

#include "zk/field/bls12_381.h"

#define NT_VEC_MOD CZ_BLS12_381_R
#define NT_VEC_ONE CZ_BLS12_381_R_ONE
#define NT_VEC_INV CZ_BLS12_381_R_INV
#define NT_VEC_TIGHT 1
#include "zk/ntt/ntt_vec_tmpl_pvt.h"
