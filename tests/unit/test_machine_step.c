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
#include <core/driver.h>
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
static const struct {
	const struct lg_mode *mode;
	struct lg_link_params link;
} trains[] = {
	{ &uhd60, { .lanes = 4, .rate_mbps = 5400 } },
	{ &uhd30, { .lanes = 4, .rate_mbps = 5400 } },
	{ &qhd60, { .lanes = 4, .rate_mbps = 2700 } },
	{ &fhd60, { .lanes = 4, .rate_mbps = 1620 } },
};

#define MAX_FALLBACKS 8

struct fake {
	struct lg_driver driver;
	struct lg_machine_config config;
	struct lg_mode_list modes, known_bad;
	struct lg_mode current;
	uint64_t now_ms, timer_ms; // timer_ms 0: not armed
	bool links; // the backend tells the link a mode trains at
	bool errors; // the cable errs at HBR2 and above, else the sink is dark there
	struct lg_action fallbacks[MAX_FALLBACKS];
	int n_fallbacks;
};

static struct lg_link_params trained(const struct lg_mode *mode) {
	for (size_t i = 0; i < sizeof(trains) / sizeof(trains[0]); i++) {
		if (lg_mode_equal(trains[i].mode, mode)) {
			return trains[i].link;
		}
	}
	return (struct lg_link_params){0};
}

static bool fake_link_for(void *data, const struct lg_mode *mode,
		struct lg_link_params *link) {
	*link = trained(mode);
	return link->rate_mbps != 0;
}

static void fake_facts(void *data, struct lg_machine_facts *facts) {
	struct fake *fake = data;
	*facts = (struct lg_machine_facts){
		.now_ms = fake->now_ms,
		.connected = true,
		.has_output = true,
		.enabled = true,
		.requested = &uhd60,
		.current = &fake->current,
		.modes = &fake->modes,
		.known_bad = &fake->known_bad,
		.link_for = fake->links ? fake_link_for : NULL,
		.link_data = fake,
	};
}

static enum lg_probe_result fake_probe(void *data, bool *changed) {
	*changed = false;
	return LG_PROBE_OK;
}

static bool fake_test(void *data, const struct lg_mode *mode) {
	return true;
}

static bool fake_commit(void *data, const struct lg_action *action) {
	struct fake *fake = data;
	fake->current = action->mode;
	return true;
}

/* What the sink reports of the link the running mode trained. */
static bool fake_read_sink(void *data, bool *unlocked, struct lg_sink_errors *errors) {
	const struct fake *fake = data;
	struct lg_link_params link = trained(&fake->current);
	bool above_hbr = link.rate_mbps > 2700;
	*unlocked = !fake->errors && above_hbr;
	*errors = (struct lg_sink_errors){ .valid = 0xf, .rate_mbps = link.rate_mbps };
	for (int lane = 0; lane < 4; lane++) {
		errors->count[lane] = fake->errors && above_hbr ? 10000 : 0;
	}
	return true;
}

static void fake_act(void *data, const struct lg_action *action) {
	struct fake *fake = data;
	if (action->type == LG_ACTION_ARM_TIMER) {
		fake->timer_ms = action->ms != 0 ? fake->now_ms + action->ms : 0;
	} else if (action->type == LG_ACTION_FALLBACK && fake->n_fallbacks < MAX_FALLBACKS) {
		fake->fallbacks[fake->n_fallbacks++] = *action;
	}
}

static const struct lg_driver_impl fake_impl = {
	.facts = fake_facts,
	.probe = fake_probe,
	.test = fake_test,
	.commit = fake_commit,
	.read_sink = fake_read_sink,
	.act = fake_act,
};

/* The clock moves to now + ms, the timer firing whenever it is due. */
static void advance(struct fake *fake, uint64_t ms) {
	uint64_t until = fake->now_ms + ms;
	while (fake->timer_ms != 0 && fake->timer_ms <= until) {
		fake->now_ms = fake->timer_ms;
		fake->timer_ms = 0;
		lg_driver_feed(&fake->driver, LG_MACHINE_TIMER);
	}
	fake->now_ms = until;
}

/*
 * The 4K60 monitor running its preferred mode, its sink read every 5 s,
 * then two minutes of its dark link or its cable's errors.
 */
static void run(struct fake *fake, bool links, bool errors) {
	*fake = (struct fake){ .current = uhd60, .now_ms = 1000, .links = links,
		.errors = errors };
	lg_machine_config_defaults(&fake->config);
	fake->config.read_sink = true;
	fake->config.sink_poll_ms = 5000;
	fake->config.link_errors_step_down = true;
	lg_mode_list_init(&fake->modes);
	lg_mode_list_init(&fake->known_bad);
	for (size_t i = 0; i < sizeof(trains) / sizeof(trains[0]); i++) {
		lg_mode_list_append(&fake->modes, trains[i].mode);
	}
	lg_driver_init(&fake->driver, &fake->config, &fake_impl, fake);
	lg_driver_feed(&fake->driver, LG_MACHINE_MODE_SET);
	advance(fake, 2 * 60 * 1000);
	lg_driver_finish(&fake->driver);
	lg_mode_list_finish(&fake->modes);
	lg_mode_list_finish(&fake->known_bad);
}

/* The fallbacks went through modes, for reason. */
static void check_steps(const struct fake *fake, enum lg_fallback_reason reason,
		const struct lg_mode *const modes[], int n) {
	check_int_eq(fake->n_fallbacks, n);
	for (int i = 0; i < n && i < fake->n_fallbacks; i++) {
		check(lg_mode_equal(&fake->fallbacks[i].mode, modes[i]));
		check_int_eq(fake->fallbacks[i].reason, reason);
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

int main(void) {
	run_test(test_lost_lock_steps_below_the_link);
	run_test(test_errors_step_below_the_link);
	run_test(test_lost_lock_by_pixel_clock_without_links);
	run_test(test_errors_by_pixel_clock_without_links);
	return test_result();
}
