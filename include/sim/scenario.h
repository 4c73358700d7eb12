#ifndef SIM_SCENARIO_H
#define SIM_SCENARIO_H

/*
 * Scenario files drive the simulated link. One step per line:
 *
 *   # comment                          blank lines are fine too
 *   <time> plug   <conn> <sink> [source=<rate>x<lanes>]
 *   <time> unplug <conn>
 *   <time> cable  <conn> <rate>|any [lanes=<n>]   the cable's limit
 *   <time> heal   <conn>               the cable holds anything again
 *   <time> flap   <conn> <count> <interval>       count link glitches
 *   <time> swap   <conn> <sink>        another monitor on the same connector
 *   <time> reject <conn> on|off        fault: the kernel refuses every mode
 *   <time> end                         the scenario is over
 *
 * Times count from when the scenario is loaded: "1500", "1500ms" or "1.5s",
 * never decreasing from line to line (a flap's later glitches may interleave
 * with the lines after it). Sinks: 4k60, 1440p144, 1080p60-rbr. Rates: rbr, hbr,
 * hbr2, hbr3, uhbr10, uhbr13.5, uhbr20. A connector must be plugged before
 * any other step names it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linkguard/link.h>
#include <sim/sink.h>

#define SIM_NAME_MAX 32

enum sim_verb {
	SIM_PLUG,
	SIM_UNPLUG,
	SIM_CABLE,
	SIM_HEAL,
	SIM_GLITCH, // one of a flap's glitches
	SIM_SWAP,
	SIM_REJECT,
	SIM_END,
};

struct sim_step {
	uint64_t at_ms;
	enum sim_verb verb;
	char connector[SIM_NAME_MAX];
	const struct sim_sink *sink; // plug, swap
	struct lg_link_params params; // plug: source limit; cable: cable limit
	bool on; // reject
	size_t seq; // order in the file
};

struct sim_scenario {
	struct sim_step *steps; // sorted by time; flaps expanded
	size_t len;
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
