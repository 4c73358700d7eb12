#ifndef SIM_SCENARIO_H
#define SIM_SCENARIO_H

/*
 * Scenario files drive the simulated link. One step per line; '#' starts a
 * comment, blank lines are fine:
 *
 *   <time> plug   <conn> <sink> [source=<rate>x<lanes>] [mst]  a sink appears
 *   <time> unplug <conn>
 *   <time> cable  <conn> <rate>|any [lanes=<n>]   the most the cable trains
 *   <time> heal   <conn>                          the cable holds anything,
 *                                                 the sink holds lock, no errors
 *   <time> dark   <conn> [<rate>]                 the sink loses lock, link-status
 *                                                 GOOD, no uevent: once (the next
 *                                                 training regains it) or, with
 *                                                 a rate, above that rate
 *   <time> errors <conn> <count>                  the cable makes count symbol
 *                                                 errors per lane and minute at
 *                                                 the running rate and above
 *   <time> flap   <conn> <count> <interval>       count glitches, apart
 *   <time> swap   <conn> <sink>                   unplug + plug another sink
 *   <time> reject <conn> on|off                   the kernel refuses any mode
 *   <time> replug <conn> [stored]                 the same sink again; with
 *                                                 stored, into a compositor
 *                                                 that starts it at the mode
 *                                                 it stored (sway)
 *   <time> retry  <conn>                          a client asks for the
 *                                                 requested mode
 *   <time> commit-fails <conn>                    the next commit fails after
 *                                                 its test passed
 *   <time> vt-switch <conn>                       the session leaves, the link
 *                                                 glitches, the session is back
 *   <time> mode   <conn> <n>                      the user sets the sink's
 *                                                 n-th mode (from 0, modulo
 *                                                 the list's length)
 *   <time> end                                    scenario_done fires here
 *   <time> wait   <name>                          the scenario's clock stops
 *                                                 here until a file <name>
 *                                                 exists in $XDG_RUNTIME_DIR
 *
 * Times count from when the scenario is loaded and never decrease from line
 * to line: "1500" or "1500ms" (milliseconds), "2s" or "1.5s" (seconds, up to
 * three decimals). A flap's later glitches may interleave with the lines
 * after it. Sinks: 4k60, 1440p144, 1080p60-rbr, uhbr-8k. Rates: rbr, hbr,
 * hbr2, hbr3, uhbr10, uhbr13.5, uhbr20; lanes 1, 2 or 4. The source limit
 * defaults to UHBR20 x4. "mst" puts the sink behind an MST branch: i915
 * then trains the maximum link and lowers it in bandwidth order (see
 * dp/i915.h); a swap keeps the port's source limit and MST flag. A
 * connector must be plugged on an earlier line before any other verb names
 * it. The virtual-clock replay of tests/unit/test_convergence.c runs every verb;
 * the sim on the headless stack has no client, compositor or session of
 * its own and skips retry, commit-fails, vt-switch and mode with a log
 * line. A wait is a test's cue: the test creates the file once it has seen
 * what it waits for (a log line, a client's event), and the steps after the
 * wait keep their distance from it, however long it held; the virtual clock
 * has no test to wait for and runs on. A file with any error is rejected whole: "file:line: reason" is
 * logged and nothing of it is scheduled.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linkguard/link.h>
#include <sim/sink.h>

#define SIM_NAME_MAX 32
#define SIM_WAITS_MAX 16

enum sim_verb {
	SIM_PLUG,
	SIM_UNPLUG,
	SIM_CABLE,
	SIM_HEAL,
	SIM_GLITCH, // one of a flap's glitches
	SIM_SWAP,
	SIM_REJECT,
	SIM_DARK,
	SIM_ERRORS,
	SIM_REPLUG,
	SIM_CLIENT_RETRY,
	SIM_COMMIT_FAILS,
	SIM_VT_SWITCH,
	SIM_MODE,
	SIM_END,
};

struct sim_step {
	uint64_t at_ms;
	enum sim_verb verb;
	char connector[SIM_NAME_MAX];
	const struct sim_sink *sink; // plug, swap
	// plug: source limit; cable: cable limit; dark: rate (0: once)
	struct lg_link_params params;
	uint32_t count; // errors: per lane and minute; mode: index into the sink's
	bool mst; // plug: the sink is behind an MST branch
	bool on; // reject; replug: at the stored mode
	size_t seq; // order in the file
};

struct sim_wait {
	uint64_t at_ms;
	size_t seq; // the steps before it: earlier, or as early and seq below
	char name[SIM_NAME_MAX]; // a file in $XDG_RUNTIME_DIR
};

struct sim_scenario {
	struct sim_step *steps; // sorted by time; flaps expanded
	size_t len;
	struct sim_wait waits[SIM_WAITS_MAX]; // in file order
	size_t n_waits;
};

/*
 * Parses a scenario; name is used in messages ("name:line: reason"). On any
 * error nothing is returned and the message is logged.
 */
bool sim_scenario_parse(const char *name, const char *text, size_t size,
	struct sim_scenario *scenario);
bool sim_scenario_load(const char *path, struct sim_scenario *scenario);
void sim_scenario_finish(struct sim_scenario *scenario);

#endif
