#ifndef TESTS_MACHINE_RNG_H
#define TESTS_MACHINE_RNG_H

/*
 * xorshift64*: the generated-program tests' randomness, seeded so that a
 * failing seed repeats (rng_seed(seed, program) gives each program its own
 * stream).
 */

#include <stdint.h>

static uint64_t rng_state;

static inline void rng_seed(uint64_t seed, uint64_t program) {
	rng_state = seed * 0x9E3779B97F4A7C15ULL + program + 1;
}

static inline uint64_t rng(void) {
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

/* Uniform enough below n for test programs. */
static inline uint64_t below(uint64_t n) {
	return rng() % n;
}

#endif
