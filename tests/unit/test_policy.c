#include "policy_test.h"
#include "test.h"

static const struct lg_mode uhd60 = MODE(3840, 2160, 60000, 533250);
static const struct lg_mode uhd30 = MODE(3840, 2160, 30000, 297000);
static const struct lg_mode qhd60 = MODE(2560, 1440, 59951, 241500);
static const struct lg_mode fhd60 = MODE(1920, 1080, 60000, 148500);
static const struct lg_mode hd60 = MODE(1280, 720, 60000, 74250);
static const struct lg_mode xga60 = MODE(1024, 768, 60004, 65000);
static const struct lg_mode vga60 = MODE(640, 480, 59940, 25175);

static const struct lg_mode *first(enum lg_policy policy,
		const struct lg_mode *requested, const struct lg_mode_list *list,
		const struct lg_mode_list *known_bad) {
	return rank_first(policy, NULL, requested, list, known_bad);
}

/* A 4K60 monitor after the kernel fell back to HBR x4: 4K60 is pruned. */
static const struct lg_mode pruned_at_hbr_x4[] = {
	uhd30, qhd60, fhd60, hd60, xga60, vga60,
};

static void test_resolution_first_keeps_4k_at_30hz(void) {
	struct lg_mode_list list = list_of(pruned_at_hbr_x4, 6);
	const struct lg_mode *m = first(LG_POLICY_RESOLUTION_FIRST, &uhd60, &list, NULL);
	check(m != NULL && lg_mode_equal(m, &uhd30));
	lg_mode_list_finish(&list);
}

static void test_refresh_first_keeps_60hz(void) {
	struct lg_mode_list list = list_of(pruned_at_hbr_x4, 6);
	const struct lg_mode *m = first(LG_POLICY_REFRESH_FIRST, &uhd60, &list, NULL);
	check(m != NULL && lg_mode_equal(m, &qhd60));
	lg_mode_list_finish(&list);
}

static void test_requested_still_listed_comes_first(void) {
	const struct lg_mode modes[] = { fhd60, uhd30, uhd60, qhd60 };
	struct lg_mode_list list = list_of(modes, 4);
	check(lg_mode_equal(first(LG_POLICY_RESOLUTION_FIRST, &uhd60, &list, NULL), &uhd60));
	check(lg_mode_equal(first(LG_POLICY_REFRESH_FIRST, &uhd60, &list, NULL), &uhd60));
	lg_mode_list_finish(&list);
}

static void test_known_bad_requested_is_skipped(void) {
	const struct lg_mode modes[] = { uhd60, uhd30, qhd60 };
	struct lg_mode_list list = list_of(modes, 3);
	struct lg_mode_list bad = list_of(&uhd60, 1);
	size_t order[3];
	size_t n = lg_policy_rank(LG_POLICY_RESOLUTION_FIRST, NULL, &uhd60, &list, &bad, order);
	check_int_eq(n, 2);
	check(lg_mode_equal(&list.modes[order[0]], &uhd30));
	lg_mode_list_finish(&list);
	lg_mode_list_finish(&bad);
}

static void test_full_order_resolution_first(void) {
	struct lg_mode_list list = list_of(pruned_at_hbr_x4, 6);
	size_t order[6];
	size_t n = lg_policy_rank(LG_POLICY_RESOLUTION_FIRST, NULL, &uhd60, &list, NULL, order);
	check_int_eq(n, 6);
	// Same size, then 16:9 by area, then the rest (4:3) by area.
	const struct lg_mode *expected[] = { &uhd30, &qhd60, &fhd60, &hd60, &xga60, &vga60 };
	for (size_t i = 0; i < n && i < 6; i++) {
		check(lg_mode_equal(&list.modes[order[i]], expected[i]));
	}
	lg_mode_list_finish(&list);
}

static void test_same_size_highest_refresh_not_above(void) {
	const struct lg_mode qhd144 = MODE(2560, 1440, 143973, 586590);
	const struct lg_mode qhd120 = MODE(2560, 1440, 119998, 497750);
	const struct lg_mode fhd144 = MODE(1920, 1080, 144001, 325080);
	const struct lg_mode modes[] = { qhd60, fhd144, qhd120 };
	struct lg_mode_list list = list_of(modes, 3);
	check(lg_mode_equal(first(LG_POLICY_RESOLUTION_FIRST, &qhd144, &list, NULL), &qhd120));
	check(lg_mode_equal(first(LG_POLICY_REFRESH_FIRST, &qhd144, &list, NULL), &fhd144));
	lg_mode_list_finish(&list);
}

static void test_aspect_ratio_beats_larger_area(void) {
	const struct lg_mode ultrawide = MODE(2560, 1080, 60000, 185580);
	const struct lg_mode small_ultrawide = MODE(1280, 540, 60000, 46395);
	const struct lg_mode modes[] = { fhd60, small_ultrawide };
	struct lg_mode_list list = list_of(modes, 2);
	check(lg_mode_equal(first(LG_POLICY_RESOLUTION_FIRST, &ultrawide, &list, NULL),
		&small_ultrawide));
	lg_mode_list_finish(&list);
}

static void test_unusable_modes_are_never_candidates(void) {
	struct lg_mode interlaced = MODE(1920, 1080, 60000, 74250);
	interlaced.interlaced = true;
	const struct lg_mode zero_clock = MODE(3840, 2160, 30000, 0);
	const struct lg_mode zero_size = MODE(0, 2160, 30000, 297000);
	const struct lg_mode zero_refresh = MODE(3840, 2160, 0, 297000);
	const struct lg_mode modes[] = { interlaced, zero_clock, zero_size,
		zero_refresh, hd60, hd60 };
	struct lg_mode_list list = list_of(modes, 6);
	size_t order[6];
	size_t n = lg_policy_rank(LG_POLICY_RESOLUTION_FIRST, NULL, &uhd60, &list, NULL, order);
	check_int_eq(n, 1); // hd60 once: duplicates collapse
	check(n == 1 && lg_mode_equal(&list.modes[order[0]], &hd60));
	lg_mode_list_finish(&list);
}

static void test_preferred_breaks_ties(void) {
	struct lg_mode cea = MODE(1920, 1080, 60000, 148500);
	struct lg_mode reduced_blanking = MODE(1920, 1080, 60000, 138500);
	reduced_blanking.preferred = true;
	const struct lg_mode modes[] = { cea, reduced_blanking };
	struct lg_mode_list list = list_of(modes, 2);
	check(lg_mode_equal(first(LG_POLICY_RESOLUTION_FIRST, &uhd60, &list, NULL),
		&reduced_blanking));
	lg_mode_list_finish(&list);
}

static void test_empty_list_has_no_candidate(void) {
	struct lg_mode_list list;
	lg_mode_list_init(&list);
	size_t order[1];
	check_int_eq(lg_policy_rank(LG_POLICY_RESOLUTION_FIRST, NULL, &uhd60, &list, NULL, order), 0);
	lg_mode_list_finish(&list);
}

static void test_without_requested_largest_first(void) {
	struct lg_mode_list list = list_of(pruned_at_hbr_x4, 6);
	check(lg_mode_equal(first(LG_POLICY_RESOLUTION_FIRST, NULL, &list, NULL), &uhd30));
	lg_mode_list_finish(&list);
}

int main(void) {
	run_test(test_resolution_first_keeps_4k_at_30hz);
	run_test(test_refresh_first_keeps_60hz);
	run_test(test_requested_still_listed_comes_first);
	run_test(test_known_bad_requested_is_skipped);
	run_test(test_full_order_resolution_first);
	run_test(test_same_size_highest_refresh_not_above);
	run_test(test_aspect_ratio_beats_larger_area);
	run_test(test_unusable_modes_are_never_candidates);
	run_test(test_preferred_breaks_ties);
	run_test(test_empty_list_has_no_candidate);
	run_test(test_without_requested_largest_first);
	return test_result();
}
