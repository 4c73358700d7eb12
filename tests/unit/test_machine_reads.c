/*
 * The sink's read schedule (src/machine.c, linkguard/backend.h's enum
 * lg_sink_reads): a polled sink is read once settled after a change and
 * every sink_poll_ms for a minute, then less often; a sink read at events
 * only, once settled after each; and none more than MACHINE_READS_PER_MIN
 * times in any minute, however many events come. Driven through the
 * driver on a virtual clock, counting the reads it asks for.
 */
#include <stdbool.h>
#include <core/driver.h>
#include "test.h"

static const struct lg_mode uhd60 = { 3840, 2160, 60000, 533250, true, false };

#define MAX_READS 512

struct fake {
	struct lg_driver driver;
	struct lg_machine_config config;
	struct lg_mode_list modes, known_bad;
	uint64_t now_ms, timer_ms; // timer_ms 0: not armed
	bool away; // the session lost DRM master
	uint64_t read_ms[MAX_READS]; // when each read was asked for
	int reads;
};

static void fake_facts(void *data, struct lg_machine_facts *facts) {
	struct fake *fake = data;
	*facts = (struct lg_machine_facts){
		.now_ms = fake->now_ms,
		.connected = true,
		.has_output = true,
		.enabled = true,
		.requested = &uhd60,
		.current = &uhd60,
		.modes = &fake->modes,
		.known_bad = &fake->known_bad,
	};
}

static enum lg_probe_result fake_probe(void *data, bool *changed) {
	return LG_PROBE_OK;
}

static bool fake_test(void *data, const struct lg_mode *mode) {
	return true;
}

static bool fake_commit(void *data, const struct lg_action *action) {
	return true;
}

/* A sink that holds its link: locked, no errors. */
static bool fake_read_sink(void *data, bool *unlocked, struct lg_sink_errors *errors) {
	struct fake *fake = data;
	if (fake->reads < MAX_READS) {
		fake->read_ms[fake->reads] = fake->now_ms;
	}
	fake->reads++;
	*unlocked = false;
	*errors = (struct lg_sink_errors){ .valid = 0xf, .rate_mbps = 5400 };
	return true;
}

static void fake_act(void *data, const struct lg_action *action) {
	struct fake *fake = data;
	if (action->type == LG_ACTION_ARM_TIMER) {
		fake->timer_ms = action->ms != 0 ? fake->now_ms + action->ms : 0;
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

/* The 4K60 monitor at its preferred mode; poll_ms 0: read at events only. */
static void fake_init(struct fake *fake, uint32_t poll_ms) {
	*fake = (struct fake){ .now_ms = 1000 };
	lg_machine_config_defaults(&fake->config);
	fake->config.read_sink = true;
	fake->config.sink_poll_ms = poll_ms;
	lg_mode_list_init(&fake->modes);
	lg_mode_list_init(&fake->known_bad);
	lg_mode_list_append(&fake->modes, &uhd60);
	lg_driver_init(&fake->driver, &fake->config, &fake_impl, fake);
	lg_driver_feed(&fake->driver, LG_MACHINE_OUTPUT_NEW);
}

static void fake_finish(struct fake *fake) {
	lg_driver_finish(&fake->driver);
	lg_mode_list_finish(&fake->modes);
	lg_mode_list_finish(&fake->known_bad);
}

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

/* Reads asked for in [from, from + ms). */
static int reads_within(const struct fake *fake, uint64_t from, uint64_t ms) {
	int n = 0;
	for (int i = 0; i < fake->reads && i < MAX_READS; i++) {
		n += fake->read_ms[i] >= from && fake->read_ms[i] < from + ms;
	}
	return n;
}

/* The most reads asked for in any minute: one starting at each read. */
static int most_in_a_minute(const struct fake *fake) {
	int most = 0;
	for (int i = 0; i < fake->reads && i < MAX_READS; i++) {
		int n = reads_within(fake, fake->read_ms[i], MACHINE_READS_WINDOW_MS);
		most = n > most ? n : most;
	}
	return most;
}

/*
 * The default schedule, left alone: once settled, then 12 polls 5 s
 * apart, then one every 6 polls: 12 reads a minute at most, well within
 * the budget, which is for events.
 */
static void test_polled_sink_default_schedule(void) {
	struct fake fake;
	fake_init(&fake, 5000);
	uint64_t start = fake.now_ms;
	advance(&fake, 5 * 60000);
	uint64_t watchful = fake.config.settle_ms + 12 * 5000;
	check_int_eq(reads_within(&fake, start, watchful + 1), 13);
	check_int_eq(reads_within(&fake, start + 2 * 60000, 60000), 2);
	check_int_eq(most_in_a_minute(&fake), 12);
	fake_finish(&fake);
}

/* At events only: one read once settled after each, none between. */
static void test_events_only_read_once_per_event(void) {
	struct fake fake;
	fake_init(&fake, 0);
	advance(&fake, 60000);
	check_int_eq(fake.reads, 1);
	check_int_eq(fake.read_ms[0], 1000 + fake.config.settle_ms);
	lg_driver_feed(&fake.driver, LG_MACHINE_HOTPLUG);
	advance(&fake, 10 * 60000);
	check_int_eq(fake.reads, 2);
	fake_finish(&fake);
}

/*
 * A read due while the session is away is not lost where there is no
 * poll: it comes once the session is back.
 */
static void test_events_only_read_waits_for_the_session(void) {
	struct fake fake;
	fake_init(&fake, 0);
	lg_driver_feed(&fake.driver, LG_MACHINE_SESSION_AWAY);
	advance(&fake, 5000);
	check_int_eq(fake.reads, 0);
	lg_driver_feed(&fake.driver, LG_MACHINE_SESSION_BACK);
	advance(&fake, 5000);
	check_int_eq(fake.reads, 1);
	fake_finish(&fake);
}

/*
 * A storm of hotplug events (GOOD), each once the last one's read was
 * due: without the budget one read each, 100 a minute. Counted over a
 * simulated minute, and over every minute of three.
 */
static void storm(uint32_t poll_ms) {
	struct fake fake;
	fake_init(&fake, poll_ms);
	uint64_t start = fake.now_ms;
	for (int i = 0; i < 300; i++) {
		advance(&fake, 600);
		lg_driver_feed(&fake.driver, LG_MACHINE_HOTPLUG);
	}
	// The budget binds: the evidence that the storm asked for more.
	check_int_eq(reads_within(&fake, start, 60000), MACHINE_READS_PER_MIN);
	check_int_eq(most_in_a_minute(&fake), MACHINE_READS_PER_MIN);
	// And the last read of the budget's minute is not lost.
	int reads = fake.reads;
	advance(&fake, 2 * 60000);
	check(fake.reads > reads);
	check(most_in_a_minute(&fake) <= MACHINE_READS_PER_MIN);
	fake_finish(&fake);
}

static void test_budget_holds_in_a_storm_polled(void) {
	storm(5000);
}

static void test_budget_holds_in_a_storm_events_only(void) {
	storm(0);
}

int main(void) {
	run_test(test_polled_sink_default_schedule);
	run_test(test_events_only_read_once_per_event);
	run_test(test_events_only_read_waits_for_the_session);
	run_test(test_budget_holds_in_a_storm_polled);
	run_test(test_budget_holds_in_a_storm_events_only);
	return test_result();
}
