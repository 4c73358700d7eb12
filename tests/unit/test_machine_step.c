/*
 * One rule for every step down (linkguard-recovery(7), P3, SINK UNLOCKED,
 * LINK HEALTH): a sink that holds lock up to HBR only, or a cable that
 * errs at HBR2 and above, steps 4K60 down to the best mode the kernel
 * trains at a lower link configuration, in one step: 2560x1440@60 at HBR
 * x4, past 4K30, which i915 trains at HBR2 x4 as 4K60 (at 30 bpp). A
 * backend that cannot tell links (no link_for) keeps the pixel clock's
 * rule, one mode at a time. Driven through the driver, on a virtual
 * clock, the sink read as the machine asks.
 */
#include <stdbool.h>
#include "machine/fake.h"
#include "test.h"

static const struct lg_mode uhd60 = { 3840, 2160, 60000, 533250, true, false };
static const struct lg_mode uhd30 = { 3840, 2160, 30000, 297000, false, false };
static const struct lg_mode qhd60 = { 2560, 1440, 59951, 241500, false, false };
static const struct lg_mode fhd60 = { 1920, 1080, 60000, 148500, false, false };

/*
 * The links i915 trains them at on a 10 bpc HBR3 x4 sink, at the highest
 * bpp that fits, the lowest rate, then the fewest lanes (DESIGN.md): 4K60
 * at 30 bpp needs 16.0 Gbit/s, 4K30 8.9 (above HBR x4's 8.64), 1440p60
 * 7.2, 1080p60 4.5 (RBR x4 carries 5.18).
 */
static const struct fake_mode trains[] = {
	{ &uhd60, { .lanes = 4, .rate_mbps = 5400 } },
	{ &uhd30, { .lanes = 4, .rate_mbps = 5400 } },
	{ &qhd60, { .lanes = 4, .rate_mbps = 2700 } },
	{ &fhd60, { .lanes = 4, .rate_mbps = 1620 } },
};

/*
 * The 4K60 monitor running its preferred mode, its sink read every 5 s,
 * then two minutes of its dark link or its cable's errors: above HBR the
 * cable errs (errors), else the sink loses lock there.
 */
static void run(struct fake *fake, bool links, bool errors) {
	fake_init(fake, trains, sizeof(trains) / sizeof(trains[0]));
	fake->links = links;
	if (errors) {
		fake->cable_max_mbps = 2700;
	} else {
		fake->sink_max_mbps = 2700;
	}
	fake->config.read_sink = true;
	fake->config.sink_poll_ms = 5000;
	fake->config.link_errors_step_down = true;
	fake_start(fake);
	lg_driver_feed(&fake->driver, LG_MACHINE_MODE_SET);
	fake_advance(fake, 2 * 60 * 1000);
	fake_finish(fake);
}

/* The fallbacks went through modes, for reason. */
static void check_steps(const struct fake *fake, enum lg_fallback_reason reason,
		const struct lg_mode *const modes[], int n) {
	const struct fake_acts *fallbacks = &fake->acts[LG_ACTION_FALLBACK];
	check_int_eq(fallbacks->n, n);
	for (int i = 0; i < n && i < fallbacks->n && i < FAKE_MAX_ACTS; i++) {
		check(lg_mode_equal(&fallbacks->list[i].mode, modes[i]));
		check_int_eq(fallbacks->list[i].reason, reason);
	}
	check(lg_mode_equal(&fake->current, &qhd60));
}

static void test_lost_lock_steps_below_the_link(void) {
	struct fake fake;
	run(&fake, true, false);
	check_steps(&fake, LG_FALLBACK_SINK_UNLOCKED, (const struct lg_mode *const[]){ &qhd60 }, 1);
}

static void test_errors_step_below_the_link(void) {
	struct fake fake;
	run(&fake, true, true);
	check_steps(&fake, LG_FALLBACK_LINK_ERRORS, (const struct lg_mode *const[]){ &qhd60 }, 1);
}

/* Without the backend's links: the pixel clock, 4K30 on the way. */
static void test_lost_lock_by_pixel_clock_without_links(void) {
	struct fake fake;
	run(&fake, false, false);
	check_steps(&fake, LG_FALLBACK_SINK_UNLOCKED,
		(const struct lg_mode *const[]){ &uhd30, &qhd60 }, 2);
}

static void test_errors_by_pixel_clock_without_links(void) {
	struct fake fake;
	run(&fake, false, true);
	check_steps(&fake, LG_FALLBACK_LINK_ERRORS,
		(const struct lg_mode *const[]){ &uhd30, &qhd60 }, 2);
}

static const struct lg_mode hd60 = { 1280, 720, 60000, 74250, true, false };
static const struct lg_mode vga60 = { 640, 480, 59940, 25175, false, false };

/*
 * A lost lock's ceiling is a link configuration, not what it carries: a
 * sink that holds RBR only loses lock at 1280x720 on a dock's one lane of
 * HBR and steps to 640x480 at RBR x1. Once the dock gives the kernel two
 * lanes again, 1280x720 trains at RBR x2: more than HBR x1 carries, at a
 * rate the sink holds. The quiet period's step up takes it back, and the
 * sink holds it.
 */
static void test_lost_lock_ceiling_is_a_rate(void) {
	struct fake_mode one_lane[] = {
		{ &hd60, { .lanes = 1, .rate_mbps = 2700 } },
		{ &vga60, { .lanes = 1, .rate_mbps = 1620 } },
	};
	struct fake fake;
	fake_init(&fake, one_lane, sizeof(one_lane) / sizeof(one_lane[0]));
	fake.links = true;
	fake.sink_max_mbps = 1620;
	fake.config.read_sink = true;
	fake.config.sink_poll_ms = 5000;
	fake_start(&fake);
	lg_driver_feed(&fake.driver, LG_MACHINE_MODE_SET);
	for (int ms = 0; ms < 60 * 1000 && !lg_mode_equal(&fake.current, &vga60); ms += 100) {
		fake_advance(&fake, 100);
	}
	check(lg_mode_equal(&fake.current, &vga60));
	// The lanes are back before the quiet period after the step ends.
	one_lane[0].link = (struct lg_link_params){ .lanes = 2, .rate_mbps = 1620 };
	lg_driver_feed(&fake.driver, LG_MACHINE_HOTPLUG);
	fake_advance(&fake, 60 * 1000);
	check(lg_mode_equal(&fake.current, &hd60));
	fake_finish(&fake);
}

int main(void) {
	run_test(test_lost_lock_ceiling_is_a_rate);
	run_test(test_lost_lock_steps_below_the_link);
	run_test(test_errors_step_below_the_link);
	run_test(test_lost_lock_by_pixel_clock_without_links);
	run_test(test_errors_by_pixel_clock_without_links);
	return test_result();
}
