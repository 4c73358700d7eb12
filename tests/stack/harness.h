#ifndef TESTS_SCENARIO_HARNESS_H
#define TESTS_SCENARIO_HARNESS_H

/*
 * Core + sim on a real wl_event_loop with wlroots' headless backend and the
 * pixman renderer: a compositor reduced to what linkguard touches. It
 * enables every new output with linkguard's recommendation and records what
 * happens, for the scenario tests to assert on.
 */

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>
#include <linkguard/manager.h>

struct wlr_output;

#define HARNESS_MAX_EVENTS 64

struct harness_connector {
	struct lg_connector *conn;
	enum lg_link_state states[HARNESS_MAX_EVENTS]; // every state entered
	uint64_t state_usec[HARNESS_MAX_EVENTS]; // CLOCK_MONOTONIC, when
	int n_states;
	struct wl_listener state_change;
	struct wl_listener destroy;
	struct wl_list link;
};

/* The mode a compositor stored for an output name (stores_requests). */
struct harness_config {
	char name[32];
	int32_t width, height, refresh_mhz;
};

#define HARNESS_MAX_CONFIGS 4

/* A commit that set a mode or enabled an output, and what it left. */
struct harness_commit {
	struct wlr_output *output;
	bool enabled;
	int32_t width, height, refresh_mhz;
	uint64_t usec; // CLOCK_MONOTONIC
};

struct harness {
	struct wl_display *display;
	struct wl_event_loop *loop;
	struct wlr_backend *backend;
	struct wlr_renderer *renderer;
	struct wlr_allocator *allocator;
	struct lg_manager *manager;
	struct lg_sim *sim;
	bool scenario_done;
	bool stock_compositor; // new outputs ignore linkguard's recommendation
	/*
	 * Like sway: a request_state's mode becomes the output's configuration
	 * (sway's handle_request_state stores it), which a new output of that
	 * name starts at; without one, at linkguard's recommendation.
	 */
	bool stores_requests;
	struct harness_config configs[HARNESS_MAX_CONFIGS];
	int n_configs;
	void (*tick)(void *data); // called between dispatches in harness_run
	void *tick_data;

	int outputs_created, outputs_destroyed;
	int requests; // request_state events, applied at once like sway
	int modesets; // commits that set a mode or enabled an output
	struct harness_commit commits[HARNESS_MAX_EVENTS]; // the first modesets
	/*
	 * CLOCK_MONOTONIC: the last time, between two dispatches, that a
	 * connector's link-status read BAD, and the end of the scenario (P7).
	 */
	uint64_t last_bad_usec, done_usec;
	struct lg_fallback fallbacks[HARNESS_MAX_EVENTS];
	int n_fallbacks, n_restored, n_failed;
	uint64_t failed_usec[HARNESS_MAX_EVENTS]; // CLOCK_MONOTONIC, the first failures

	struct wl_list connectors; // harness_connector.link
	struct wl_list outputs; // harness_output.link

	struct wl_listener new_output;
	struct wl_listener new_connector;
	struct wl_listener fallback;
	struct wl_listener restored;
	struct wl_listener failed;
	struct wl_listener scenario_done_listener;
};

/* No logging from the harnesses set up from now on (benchmarks, fuzzing). */
void harness_quiet(void);
/* options may be NULL: fast test defaults (100 ms settle, flap 3 in 3 s). */
bool harness_init(struct harness *h, const struct lg_options *options);
/*
 * The same without the sim and not started: for tests that bring their own
 * source of link events, then call wlr_backend_start(h->backend).
 */
bool harness_init_headless(struct harness *h, const struct lg_options *options);
void harness_finish(struct harness *h);
/*
 * Loads the scenario text and runs the event loop until the scenario is done
 * and then linger_ms more. Returns false on a parse error or a timeout.
 */
bool harness_run(struct harness *h, const char *scenario, int linger_ms);
/* The same with a scenario file. */
bool harness_run_file(struct harness *h, const char *path, int linger_ms);
/*
 * Runs the event loop until until(data) holds or max_ms passed; whether it
 * held (if not, says so on stderr).
 */
bool harness_dispatch_until(struct harness *h, bool (*until)(void *data),
	void *data, int max_ms);
/* Runs the event loop for ms milliseconds. */
void harness_dispatch_for(struct harness *h, int ms);
/* The last fault: the later of the last BAD seen and the scenario's end. */
uint64_t harness_last_fault_usec(const struct harness *h);
/* The modesets of output (NULL: any) committed after usec. */
int harness_commits_after(const struct harness *h, const struct wlr_output *output,
	uint64_t usec);
struct harness_connector *harness_connector(struct harness *h, const char *name);
/* The configuration stored for an output name (stores_requests), or NULL. */
struct harness_config *harness_config(struct harness *h, const char *name);
/* width x height at refresh_hz, rounded to the nearest Hz. */
bool harness_mode_is(const struct lg_mode *mode, int32_t width, int32_t height,
	int32_t refresh_hz);
/* Whether the connector went through state at some point. */
bool harness_state_seen(const struct harness_connector *hc, enum lg_link_state state);
/* Whether the connector went through exactly these states, in order. */
bool harness_states_were(struct harness_connector *hc,
	const enum lg_link_state *states, int n);

#endif
