#ifndef TESTS_POLICY_TEST_H
#define TESTS_POLICY_TEST_H

/* What the fallback policy's tests share: mode lists and the first pick. */

#include <linkguard/policy.h>

#define MODE(w, h, r, c) { .width = w, .height = h, .refresh_mhz = r, .clock_khz = c }

static inline struct lg_mode_list list_of(const struct lg_mode *modes, size_t n) {
	struct lg_mode_list list;
	lg_mode_list_init(&list);
	for (size_t i = 0; i < n; i++) {
		lg_mode_list_append(&list, &modes[i]);
	}
	return list;
}

/* The policy's first candidate, or NULL; lists of up to 64 modes. */
static inline const struct lg_mode *rank_first(enum lg_policy policy,
		const struct lg_policy_floors *floors, const struct lg_mode *requested,
		const struct lg_mode_list *list, const struct lg_mode_list *known_bad) {
	size_t order[64];
	size_t n = lg_policy_rank(policy, floors, requested, list, known_bad, order);
	return n > 0 ? &list->modes[order[0]] : NULL;
}

#endif
