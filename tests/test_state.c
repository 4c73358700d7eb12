#include <core/state.h>
#include "test.h"

static void test_bad_then_commit_then_settle_at_requested_is_good(void) {
	enum lg_link_state s = LG_LINK_GOOD;
	s = lg_link_state_next(s, LG_EVENT_LINK_BAD, true);
	check_int_eq(s, LG_LINK_BAD);
	s = lg_link_state_next(s, LG_EVENT_RECOVERY_COMMITTED, true);
	check_int_eq(s, LG_LINK_RETRAINING);
	s = lg_link_state_next(s, LG_EVENT_SETTLED, true);
	check_int_eq(s, LG_LINK_GOOD);
}

static void test_settling_on_a_fallback_is_degraded(void) {
	enum lg_link_state s = lg_link_state_next(LG_LINK_RETRAINING, LG_EVENT_SETTLED, false);
	check_int_eq(s, LG_LINK_DEGRADED);
}

static void test_bad_while_retraining_is_a_cascade(void) {
	check_int_eq(lg_link_state_next(LG_LINK_RETRAINING, LG_EVENT_LINK_BAD, false),
		LG_LINK_BAD);
}

static void test_no_mode_fails(void) {
	check_int_eq(lg_link_state_next(LG_LINK_BAD, LG_EVENT_NO_MODE, false),
		LG_LINK_FAILED);
}

static void test_flapping_ignores_bad_and_commits_until_hold_expires(void) {
	enum lg_link_state s = lg_link_state_next(LG_LINK_GOOD, LG_EVENT_FLAP, true);
	check_int_eq(s, LG_LINK_FLAPPING);
	check_int_eq(lg_link_state_next(s, LG_EVENT_LINK_BAD, true), LG_LINK_FLAPPING);
	check_int_eq(lg_link_state_next(s, LG_EVENT_RECOVERY_COMMITTED, true),
		LG_LINK_FLAPPING);
	check_int_eq(lg_link_state_next(s, LG_EVENT_SETTLED, true), LG_LINK_FLAPPING);
	check_int_eq(lg_link_state_next(s, LG_EVENT_MODE_SET, true), LG_LINK_FLAPPING);
	check_int_eq(lg_link_state_next(s, LG_EVENT_HOLD_EXPIRED, false), LG_LINK_DEGRADED);
	check_int_eq(lg_link_state_next(s, LG_EVENT_HOLD_EXPIRED, true), LG_LINK_GOOD);
}

static void test_compositor_modeset_restores_failed(void) {
	check_int_eq(lg_link_state_next(LG_LINK_FAILED, LG_EVENT_MODE_SET, true),
		LG_LINK_GOOD);
	check_int_eq(lg_link_state_next(LG_LINK_DEGRADED, LG_EVENT_MODE_SET, true),
		LG_LINK_GOOD);
}

static void test_disable_keeps_failed(void) {
	check_int_eq(lg_link_state_next(LG_LINK_FAILED, LG_EVENT_DISABLED, false),
		LG_LINK_FAILED);
	check_int_eq(lg_link_state_next(LG_LINK_DEGRADED, LG_EVENT_DISABLED, false),
		LG_LINK_GOOD);
}

static void test_stray_settle_and_hold_change_nothing(void) {
	check_int_eq(lg_link_state_next(LG_LINK_GOOD, LG_EVENT_SETTLED, false), LG_LINK_GOOD);
	check_int_eq(lg_link_state_next(LG_LINK_FAILED, LG_EVENT_HOLD_EXPIRED, true),
		LG_LINK_FAILED);
}

static void test_flap_needs_count_bads_within_window(void) {
	struct lg_flap_history h = {0};
	check(!lg_flap_record(&h, 1000, 3, 10000));
	check(!lg_flap_record(&h, 2000, 3, 10000));
	check(lg_flap_record(&h, 3000, 3, 10000));
}

static void test_spread_out_bads_are_not_a_flap(void) {
	struct lg_flap_history h = {0};
	check(!lg_flap_record(&h, 0, 3, 10000));
	check(!lg_flap_record(&h, 6000, 3, 10000));
	check(!lg_flap_record(&h, 12000, 3, 10000)); // the first fell out
	check(lg_flap_record(&h, 13000, 3, 10000));
}

static void test_flap_history_wraps_and_resets(void) {
	struct lg_flap_history h = {0};
	for (uint64_t t = 0; t < 100; t++) {
		lg_flap_record(&h, t * 100000, 3, 10000);
	}
	check(!lg_flap_record(&h, 10000000, 3, 1000));
	check(lg_flap_record(&h, 10000001, 3, 200000)); // three within 200 s
	lg_flap_reset(&h);
	check(!lg_flap_record(&h, 10000002, 3, 100000));
	check(!lg_flap_record(&h, 10000003, 0, 100000)); // count 0: never flapping
	check(lg_flap_record(&h, 10000004, 100, 100000) == false); // clamped, too few yet
}

static void test_unplug_ends_the_incident(void) {
	check_int_eq(lg_link_state_next(LG_LINK_FLAPPING, LG_EVENT_DISCONNECTED, false),
		LG_LINK_GOOD);
	check_int_eq(lg_link_state_next(LG_LINK_RETRAINING, LG_EVENT_DISCONNECTED, false),
		LG_LINK_GOOD);
	check_int_eq(lg_link_state_next(LG_LINK_FAILED, LG_EVENT_DISCONNECTED, false),
		LG_LINK_FAILED);
}

int main(void) {
	run_test(test_bad_then_commit_then_settle_at_requested_is_good);
	run_test(test_settling_on_a_fallback_is_degraded);
	run_test(test_bad_while_retraining_is_a_cascade);
	run_test(test_no_mode_fails);
	run_test(test_flapping_ignores_bad_and_commits_until_hold_expires);
	run_test(test_compositor_modeset_restores_failed);
	run_test(test_disable_keeps_failed);
	run_test(test_stray_settle_and_hold_change_nothing);
	run_test(test_flap_needs_count_bads_within_window);
	run_test(test_spread_out_bads_are_not_a_flap);
	run_test(test_flap_history_wraps_and_resets);
	run_test(test_unplug_ends_the_incident);
	return test_result();
}
