/*
 * Known-bad modes from an earlier start (linkguard-recovery(7), PROBED):
 * the machine skips such a mode at the link the store keeps with it, tries
 * it at another, and skips it at every link where the store keeps none.
 * The first mode a new output's recommendation tests says which.
 */
#include <stdbool.h>
#include <core/machine.h>
#include "machine/step.h"
#include "test.h"

static const struct lg_mode uhd60 = { 3840, 2160, 60000, 533250, true, false };
static const struct lg_mode uhd30 = { 3840, 2160, 30000, 297000, false, false };
static const struct lg_link_params hbr2x4 = { .lanes = 4, .rate_mbps = 5400 };
static const struct lg_link_params hbr3x2 = { .lanes = 2, .rate_mbps = 8100 };

/* The kernel, and the store of the starts before. */
struct fake {
	struct lg_link_params now; // where the kernel trains every mode now
	bool link_kept; // the store keeps 4K60 at HBR2 x4; false: at no link (v2)
};

static bool fake_link_for(void *data, const struct lg_mode *mode,
		struct lg_link_params *link) {
	const struct fake *fake = data;
	*link = fake->now;
	return true;
}

static bool fake_skipped_at(void *data, const struct lg_mode *mode,
		const struct lg_link_params *link) {
	const struct fake *fake = data;
	return !fake->link_kept ||
		(link->rate_mbps == hbr2x4.rate_mbps && link->lanes == hbr2x4.lanes);
}

/* The first mode the recommendation for a new output tests. */
static struct lg_mode first_tested(struct fake *fake) {
	struct lg_mode_list modes, known_bad;
	lg_mode_list_init(&modes);
	lg_mode_list_init(&known_bad);
	lg_mode_list_append(&modes, &uhd60);
	lg_mode_list_append(&modes, &uhd30);
	lg_mode_list_append(&known_bad, &uhd60);
	struct lg_machine_facts facts = {
		.now_ms = 1,
		.connected = true,
		.has_output = true,
		.requested = &uhd60,
		.modes = &modes,
		.known_bad = &known_bad,
		.link_for = fake_link_for,
		.link_data = fake,
		.skipped_at = fake_skipped_at,
		.skipped_data = fake,
	};
	struct lg_actions out;
	machine_step_once(LG_MACHINE_RECOMMEND, &facts, &out);
	struct lg_mode tested = {0};
	for (size_t i = 0; i < out.len; i++) {
		if (out.list[i].type == LG_ACTION_TEST) {
			tested = out.list[i].mode;
		}
	}
	check(out.len > 0 && out.list[out.len - 1].type == LG_ACTION_TEST);
	lg_mode_list_finish(&modes);
	lg_mode_list_finish(&known_bad);
	return tested;
}

static void test_skipped_where_it_failed(void) {
	struct fake fake = { .now = hbr2x4, .link_kept = true };
	struct lg_mode tested = first_tested(&fake);
	check(lg_mode_equal(&tested, &uhd30));
}

/* The dock's two HBR3 lanes: a link 4K60 never failed at. */
static void test_tried_at_another_link(void) {
	struct fake fake = { .now = hbr3x2, .link_kept = true };
	struct lg_mode tested = first_tested(&fake);
	check(lg_mode_equal(&tested, &uhd60));
}

/* A store of an older version keeps no link: skipped at every link. */
static void test_skipped_everywhere_without_a_link(void) {
	struct fake fake = { .now = hbr3x2, .link_kept = false };
	struct lg_mode tested = first_tested(&fake);
	check(lg_mode_equal(&tested, &uhd30));
}

int main(void) {
	run_test(test_skipped_where_it_failed);
	run_test(test_tried_at_another_link);
	run_test(test_skipped_everywhere_without_a_link);
	return test_result();
}
