/*
 * The incident ring (src/history.c) against the simplest model of it: every
 * incident ever pushed, in an array that never forgets. After each push the
 * ring must hold exactly the model's last min(n, LG_HISTORY_LEN), oldest
 * first, and nothing past them. Sequences of every length up to five times
 * the ring (every wrap point), with generated incidents.
 */
#include <inttypes.h>
#include <string.h>
#include <core/history.h>
#include "machine/rng.h"
#include "test.h"

#define MAX_PUSHES (5 * LG_HISTORY_LEN + 3)

static struct lg_incident generate(uint32_t serial) {
	struct lg_incident incident = {
		.reason = (enum lg_incident_reason)below(LG_INCIDENT_RETRY + 1),
		.outcome = (enum lg_incident_outcome)below(LG_INCIDENT_GONE + 1),
		.mode_before = { .width = (int32_t)below(8000), .height = (int32_t)below(5000),
			.refresh_mhz = (int32_t)below(240000) },
		.mode_after = { .width = (int32_t)below(8000), .height = (int32_t)below(5000),
			.refresh_mhz = (int32_t)below(240000) },
		.link_before = { .lanes = 1u << below(3), .rate_mbps = (uint32_t)below(20000) },
		.link_after = { .lanes = 1u << below(3), .rate_mbps = (uint32_t)below(20000) },
		.when = { .tv_sec = (time_t)rng(), .tv_nsec = (long)below(1000000000) },
		// Unique: two pushes are never mistaken for each other.
		.duration_ms = serial,
	};
	return incident;
}

static bool same(const struct lg_incident *a, const struct lg_incident *b) {
	return a->reason == b->reason && a->outcome == b->outcome &&
		lg_mode_equal(&a->mode_before, &b->mode_before) &&
		lg_mode_equal(&a->mode_after, &b->mode_after) &&
		memcmp(&a->link_before, &b->link_before, sizeof(a->link_before)) == 0 &&
		memcmp(&a->link_after, &b->link_after, sizeof(a->link_after)) == 0 &&
		a->when.tv_sec == b->when.tv_sec && a->when.tv_nsec == b->when.tv_nsec &&
		a->duration_ms == b->duration_ms;
}

/* The ring against the model's n pushes; false at the first difference. */
static bool matches(const struct lg_history *history,
		const struct lg_incident *model, size_t n) {
	size_t kept = n < LG_HISTORY_LEN ? n : LG_HISTORY_LEN;
	if (lg_history_len(history) != kept) {
		fprintf(stderr, "after %zu pushes: %zu kept, want %zu\n", n,
			lg_history_len(history), kept);
		return false;
	}
	for (size_t i = 0; i < kept; i++) {
		const struct lg_incident *got = lg_history_at(history, i);
		const struct lg_incident *want = &model[n - kept + i];
		if (got == NULL || !same(got, want)) {
			fprintf(stderr, "after %zu pushes: entry %zu is push %" PRIu32
				", want push %" PRIu32 "\n", n, i,
				got != NULL ? got->duration_ms : UINT32_MAX, want->duration_ms);
			return false;
		}
	}
	for (size_t past = kept; past < kept + 3; past++) {
		if (lg_history_at(history, past) != NULL) {
			fprintf(stderr, "after %zu pushes: entry %zu past the end\n", n, past);
			return false;
		}
	}
	return true;
}

static void test_empty_history_has_nothing(void) {
	struct lg_history history;
	lg_history_init(&history);
	check_int_eq(lg_history_len(&history), 0);
	check(lg_history_at(&history, 0) == NULL);
	check(lg_history_at(&history, SIZE_MAX) == NULL);
}

static void test_ring_keeps_the_last_32_of_every_length(void) {
	static struct lg_incident model[MAX_PUSHES];
	size_t checked = 0;
	for (uint64_t seed = 1; seed <= 8; seed++) {
		for (size_t length = 0; length <= MAX_PUSHES; length++) {
			rng_seed(seed, length);
			struct lg_history history;
			lg_history_init(&history);
			for (size_t n = 0; n < length; n++) {
				model[n] = generate((uint32_t)n);
				lg_history_push(&history, &model[n]);
				checked++;
				if (!matches(&history, model, n + 1)) {
					fprintf(stderr, "seed %" PRIu64 ", length %zu\n", seed, length);
					check(false);
					return;
				}
			}
			check(matches(&history, model, length));
		}
	}
	// Every length up to 5 rings and 3 over, 8 seeds: (0 + ... + 163) * 8.
	check_int_eq(checked, 8 * (MAX_PUSHES * (MAX_PUSHES + 1) / 2));
}

/* The ring copies: changing what was pushed changes nothing kept. */
static void test_push_copies(void) {
	struct lg_history history;
	lg_history_init(&history);
	struct lg_incident incident = generate(7);
	lg_history_push(&history, &incident);
	struct lg_incident pushed = incident;
	incident.duration_ms = 8;
	incident.mode_after.width = 1;
	check(same(lg_history_at(&history, 0), &pushed));
}

int main(void) {
	rng_seed(0, 0);
	run_test(test_empty_history_has_nothing);
	run_test(test_ring_keeps_the_last_32_of_every_length);
	run_test(test_push_copies);
	return test_result();
}
