/* SPDX-License-Identifier: MIT */
/*
 * zk/groth16/groth16_setup.c — an INSECURE single-party Groth16 setup for
 * development and benchmarks (`cuzk devsetup`): the toxic waste τ, α, β, γ,
 * δ is derived from a seed, so whoever knows the seed can forge proofs.
 *
 * The key has the layout snarkjs's `groth16 setup` produces, so the snarkjs
 * prover and ours both work with it:
 *   A_i = u_i(τ)·G1, B1_i = v_i(τ)·G1, B2_i = v_i(τ)·G2
 *   IC_i = (β·u_i + α·v_i + w_i)(τ)/γ·G1 (public),  C_i = …/δ·G1 (private)
 *   H_j such that Σ d_j·H_j = h(τ)·Z(τ)/δ·G1 for d_j = (a·b − c)(x_j), the
 *   prover's values on the odd coset x_j = ω_2n·ω^j.  There Z(x_j) = −2, so
 *   h(x_j) = −d_j/2 and, with the coset's Lagrange basis,
 *   H_j = (τ^2n − 1)·x_j / (2n·δ·(τ − x_j))·G1.
 * Rows n_rows .. n_rows + npub of A carry the public signals (one coefficient
 * 1 each), as snarkjs adds them, so that A's columns for public inputs are
 * linearly independent.
 */
#include "zk/groth16/groth16.h"
#include "zk/groth16/cs.h"
#include "zk/msm/fixed_base.h"

/* The code is zk/groth16/groth16_setup_tmpl_pvt.h, shared with BN254
 * (zk/groth16/bn254_groth16_setup.c); this is the BLS12-381 instance. */
#define SU_G16(n) cz_groth16_##n
#define SU_CS(n) cz_cs_##n
#define SU_CS_T cz_cs
#define SU_FR cz_fr
#define SU_G1 cz_g1
#define SU_G2 cz_g2
#define SU_TWO_ADICITY CZ_FR_TWO_ADICITY
#include "zk/groth16/groth16_setup_tmpl_pvt.h"

