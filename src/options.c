/* lg_options: linkguard's defaults, which a compositor may change. */
#include <linkguard/manager.h>
#include <core/machine.h>

/* The recovery machine's defaults are linkguard's (core/machine.h). */
void lg_options_init(struct lg_options *options) {
	struct lg_machine_config config;
	lg_machine_config_defaults(&config);
	*options = (struct lg_options){
		.policy = config.policy,
		.flap_count = config.flap_count,
		.flap_window_ms = config.flap_window_ms,
		.backoff_min_ms = config.backoff_min_ms,
		.backoff_max_ms = config.backoff_max_ms,
		.settle_ms = config.settle_ms,
		.max_tests = config.max_tests,
		.recover = config.recover,
		.allow_retry = true,
		.read_config = true,
		.sink_poll_ms = 5000,
		.sink_settle_ms = 2000,
		.link_errors_step_down = config.link_errors_step_down,
	};
}
