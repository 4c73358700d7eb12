/*
 * libFuzzer target: the scenario parser takes arbitrary bytes and either
 * rejects them with a message or returns steps that satisfy its contract.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linkguard/log.h>
#include <sim/scenario.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	static bool quiet;
	if (!quiet) {
		lg_log_init(LG_SILENT, NULL);
		quiet = true;
	}
	struct sim_scenario scenario;
	if (!sim_scenario_parse("fuzz", (const char *)data, size, &scenario)) {
		return 0;
	}
	for (size_t i = 0; i < scenario.len; i++) {
		const struct sim_step *step = &scenario.steps[i];
		assert(i == 0 || scenario.steps[i - 1].at_ms <= step->at_ms);
		assert(memchr(step->connector, '\0', sizeof(step->connector)) != NULL);
		assert(step->verb != SIM_PLUG || step->sink != NULL);
		assert(step->verb != SIM_SWAP || step->sink != NULL);
	}
	sim_scenario_finish(&scenario);
	return 0;
}
