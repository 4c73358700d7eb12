#ifndef TESTS_TEST_H
#define TESTS_TEST_H

/*
 * A minimal test harness: each test executable runs its cases with
 * run_test() and exits non-zero when any check failed.
 */

#include <stdio.h>
#include <stdlib.h>

static int test_failures;

#define check(cond) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #cond); \
			test_failures++; \
		} \
	} while (0)

#define check_int_eq(a, b) \
	do { \
		long long _a = (long long)(a), _b = (long long)(b); \
		if (_a != _b) { \
			fprintf(stderr, "%s:%d: check failed: %s == %s (%lld != %lld)\n", \
				__FILE__, __LINE__, #a, #b, _a, _b); \
			test_failures++; \
		} \
	} while (0)

#define run_test(fn) \
	do { \
		int _before = test_failures; \
		fn(); \
		fprintf(stderr, "%s %s\n", test_failures == _before ? "ok  " : "FAIL", \
			#fn); \
	} while (0)

static inline int test_result(void) {
	return test_failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/*
 * Opens NAME for a generated search's failing program, in
 * $LINKGUARD_SCENARIO_OUT (where scripts/test collects them) if set, else
 * the working directory; its path in path. NULL, said in path, when it
 * cannot.
 */
static inline FILE *test_program_open(const char *name, char *path, size_t size) {
	const char *dir = getenv("LINKGUARD_SCENARIO_OUT");
	snprintf(path, size, "%s%s%s", dir != NULL ? dir : "", dir != NULL ? "/" : "", name);
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		snprintf(path, size, "(not written: %m)");
	}
	return f;
}

#endif
