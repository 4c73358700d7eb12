/*
 * The sink's read schedule (src/machine.c, linkguard/backend.h's enum
 * lg_sink_reads): a polled sink is read once settled after a change and
 * every sink_poll_ms for a minute, then less often; a sink read at events
 * only, once settled after each; and none more than MACHINE_READS_PER_MIN
 * times in any minute, however many events come. Driven through the
 * driver on a virtual clock, counting the reads it asks for.
 */
#include <stdbool.h>
#include "machine/fake.h"
#include "test.h"

static const struct lg_mode uhd60 = { 3840, 2160, 60000, 533250, true, false };

/* A sink that holds its link: locked, no errors. */
static const struct fake_mode trains[] = {
	{ &uhd60, { .lanes = 4, .rate_mbps = 5400 } },
};

/* The 4K60 monitor at its preferred mode; poll_ms 0: read at events only. */
static void init(struct fake *fake, uint32_t poll_ms) {
	fake_init(fake, trains, sizeof(trains) / sizeof(trains[0]));
	fake->config.read_sink = true;
	fake->config.sink_poll_ms = poll_ms;
	fake_start(fake);
	lg_driver_feed(&fake->driver, LG_MACHINE_OUTPUT_NEW);
}

/* Reads asked for in [from, from + ms). */
static int reads_within(const struct fake *fake, uint64_t from, uint64_t ms) {
	int n = 0;
	for (int i = 0; i < fake->reads && i < FAKE_MAX_READS; i++) {
		n += fake->read_ms[i] >= from && fake->read_ms[i] < from + ms;
	}
	return n;
}

/* The most reads asked for in any minute: one starting at each read. */
static int most_in_a_minute(const struct fake *fake) {
	int most = 0;
	for (int i = 0; i < fake->reads && i < FAKE_MAX_READS; i++) {
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
	init(&fake, 5000);
	uint64_t start = fake.now_ms;
	fake_advance(&fake, 5 * 60000);
	uint64_t watchful = fake.config.settle_ms + 12 * 5000;
	check_int_eq(reads_within(&fake, start, watchful + 1), 13);
	check_int_eq(reads_within(&fake, start + 2 * 60000, 60000), 2);
	check_int_eq(most_in_a_minute(&fake), 12);
	fake_finish(&fake);
}

/* At events only: one read once settled after each, none between. */
static void test_events_only_read_once_per_event(void) {
	struct fake fake;
	init(&fake, 0);
	fake_advance(&fake, 60000);
	check_int_eq(fake.reads, 1);
	check_int_eq(fake.read_ms[0], 1000 + fake.config.settle_ms);
	lg_driver_feed(&fake.driver, LG_MACHINE_HOTPLUG);
	fake_advance(&fake, 10 * 60000);
	check_int_eq(fake.reads, 2);
	fake_finish(&fake);
}

/*
 * A read due while the session is away is not lost where there is no
 * poll: it comes once the session is back.
 */
static void test_events_only_read_waits_for_the_session(void) {
	struct fake fake;
	init(&fake, 0);
	lg_driver_feed(&fake.driver, LG_MACHINE_SESSION_AWAY);
	fake_advance(&fake, 5000);
	check_int_eq(fake.reads, 0);
	lg_driver_feed(&fake.driver, LG_MACHINE_SESSION_BACK);
	fake_advance(&fake, 5000);
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
	init(&fake, poll_ms);
	uint64_t start = fake.now_ms;
	for (int i = 0; i < 300; i++) {
		fake_advance(&fake, 600);
		lg_driver_feed(&fake.driver, LG_MACHINE_HOTPLUG);
	}
	// The budget binds: the evidence that the storm asked for more.
	check_int_eq(reads_within(&fake, start, 60000), MACHINE_READS_PER_MIN);
	check_int_eq(most_in_a_minute(&fake), MACHINE_READS_PER_MIN);
	// And the last read of the budget's minute is not lost.
	int reads = fake.reads;
	fake_advance(&fake, 2 * 60000);
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
