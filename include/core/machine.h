#ifndef CORE_MACHINE_H
#define CORE_MACHINE_H

/*
 * The recovery state machine of one connector, as a pure transition
 * function: (machine, event, facts) -> (machine', actions). No wlroots, no
 * timers, no I/O: the driver (core/driver.h) executes the actions and feeds
 * their results back as events. doc/linkguard-recovery.7.scd is the
 * specification; tests/unit/test_machine.c checks it exhaustively.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linkguard/link.h>
#include <linkguard/mode.h>
#include <linkguard/policy.h>

/*
 * P2: at most MACHINE_BUDGET_MODESETS of linkguard's modesets (commits and
 * disables) in any MACHINE_BUDGET_WINDOW_MS. i915's 8b/10b ladder has 4
 * rates x 3 lane counts: a cascade from the top to RBR x1 takes at most 12
 * commits, one per rung, and never has to wait for the budget.
 */
#define MACHINE_BUDGET_MODESETS 12
#define MACHINE_BUDGET_WINDOW_MS 10000
/* Modes that failed in this process, each with the link it failed at (ring). */
#define MACHINE_MAX_FAILED 16
/* The sink's symbol errors are judged over a minute at most. */
#define MACHINE_ERRORS_WINDOW_MS 60000
/*
 * For MACHINE_WATCHFUL_POLLS x sink_poll_ms after a hotplug or a modeset
 * (a minute by default) the sink is read every sink_poll_ms, then every
 * MACHINE_IDLE_POLLS x. A failed read waits MACHINE_IDLE_POLLS x, twice
 * as long for each failure in a row, up to MACHINE_MAX_BACKOFF x that.
 */
#define MACHINE_WATCHFUL_POLLS 12
#define MACHINE_IDLE_POLLS 6
#define MACHINE_MAX_BACKOFF 8
/*
 * The read budget: at most MACHINE_READS_PER_MIN reads of a sink in any
 * minute (in any MACHINE_WATCHFUL_POLLS polls where sink_poll_ms is below
 * 5 s); a read due past it waits for the oldest to be that old. The
 * default schedule reads 12 times a minute at most (a read once settled,
 * then a poll every 5 s): the rest is for the unlock debounce's second
 * read and the reads after further events, which a storm of them (a
 * hotplug every settle_ms) would otherwise turn into two reads a second.
 */
#define MACHINE_READS_PER_MIN 20
#define MACHINE_READS_WINDOW_MS 60000

struct lg_machine_config {
	enum lg_policy policy;
	struct lg_policy_floors floors; // zero: none
	bool recover; // false: report only, never modeset
	uint32_t settle_ms; // a commit counts as held after this long
	uint32_t flap_count, flap_window_ms; // this many BADs in the window: flapping
	uint32_t max_tests; // candidates tested per plan
	uint32_t backoff_min_ms, backoff_max_ms; // failed and flapping retries
	bool link_errors_step_down; // symbol errors above the threshold: step down
	uint32_t link_errors_per_min; // the threshold per lane; 0: the link's BER
	uint32_t sink_settle_ms; // lanes unlocked at reads this far apart: dark
	bool read_sink; // the backend reads the sink's DPCD (READ_SINK)
	uint32_t sink_poll_ms; // 0: the sink is read only after events
};

void lg_machine_config_defaults(struct lg_machine_config *config);

enum lg_machine_event_type {
	LG_MACHINE_LINK_BAD, // link-status read BAD after a hotplug
	LG_MACHINE_TESTED, // result of LG_ACTION_TEST: ok
	LG_MACHINE_PROBED, // result of LG_ACTION_PROBE: ok, modes_changed
	LG_MACHINE_COMMITTED, // result of LG_ACTION_COMMIT: ok
	LG_MACHINE_TIMER, // the timer fired: what is due at facts.now_ms runs
	LG_MACHINE_HOTPLUG, // a hotplug event read link-status GOOD
	LG_MACHINE_PLUG, // a sink was connected
	LG_MACHINE_UNPLUG, // the sink left
	LG_MACHINE_SINK_SWAP, // another monitor on the connector
	LG_MACHINE_SESSION_AWAY, // the session lost DRM master (VT switch)
	LG_MACHINE_SESSION_BACK,
	LG_MACHINE_RETRY, // a client asks for the requested mode
	LG_MACHINE_RECOMMEND, // the compositor asks which mode a new output takes
	LG_MACHINE_OUTPUT_NEW, // an output drives the connector (facts.enabled false)
	LG_MACHINE_OUTPUT_GONE, // the output was destroyed
	LG_MACHINE_OUTPUT_DISABLED, // the compositor disabled the output
	LG_MACHINE_MODE_SET, // the compositor committed a mode; REQUESTED if its own
	/*
	 * Result of LG_ACTION_READ_SINK: facts.sink_unlocked and sink_errors
	 * (NULL: the read failed).
	 */
	LG_MACHINE_SINK_READ,
};

struct lg_machine_event {
	enum lg_machine_event_type type;
	bool ok; // TESTED, PROBED, COMMITTED
	bool modes_changed; // PROBED: the list differs from the one before
};

/* What a read of the sink's DPCD counted (SINK_READ). */
struct lg_sink_errors {
	uint32_t count[4]; // symbol errors per lane since the read before
	uint32_t valid; // a bit per lane whose count is valid (128b/132b: none)
	uint32_t rate_mbps; // of the link the sink trained
};

/* What the connector is, as the backend and the output report it. */
struct lg_machine_facts {
	uint64_t now_ms;
	bool connected, has_output, enabled;
	const struct lg_mode *requested; // NULL when nothing was asked yet
	const struct lg_mode *current; // NULL while the output runs no mode
	/*
	 * MODE_SET: the mode the output ran before the compositor's commit
	 * (NULL: none), and linkguard's recommendation for the output, until
	 * the compositor's first commit (NULL: none).
	 */
	const struct lg_mode *previous, *recommended;
	const struct lg_mode_list *modes; // the kernel's list at the last probe
	const struct lg_mode_list *known_bad; // modes this monitor did not hold
	/*
	 * SINK_READ: the sink reports lanes unlocked or not aligned, the
	 * output enabled and link-status GOOD (a 128b/132b link: never).
	 */
	bool sink_unlocked;
	const struct lg_sink_errors *sink_errors; // SINK_READ; NULL: the read failed
	/*
	 * The link the kernel would train mode at now (i915: the lowest rate,
	 * then the fewest lanes, that carry it); false when it would not or
	 * the backend cannot tell. NULL: never known.
	 */
	bool (*link_for)(void *data, const struct lg_mode *mode,
		struct lg_link_params *link);
	void *link_data;
	/*
	 * Whether mode, one of known_bad that failed at an earlier start, is
	 * skipped at link: it failed there, or the store knows no link. NULL:
	 * at every link.
	 */
	bool (*skipped_at)(void *data, const struct lg_mode *mode,
		const struct lg_link_params *link);
	void *skipped_data;
};

enum lg_failure {
	LG_FAILURE_NO_MODES, // the kernel lists no mode: disabled
	LG_FAILURE_ALL_REJECTED, // no listed mode passed its test and its commit
	LG_FAILURE_PROBE, // the forced probe failed
	LG_FAILURE_NONE_LOWER, // the sink lost lock; no smaller mode passed
};

enum lg_action_type {
	LG_ACTION_PROBE, // forced probe; answer with PROBED
	LG_ACTION_TEST, // atomic test of mode; answer with TESTED
	LG_ACTION_COMMIT, // modeset to mode with link-status GOOD; COMMITTED
	LG_ACTION_READ_SINK, // read the sink's DPCD; answer with SINK_READ
	LG_ACTION_DISABLE, // turn the output off
	LG_ACTION_ARM_TIMER, // (re)arm the one timer: ms; 0 cancels it
	LG_ACTION_STATE, // the state changed: tell clients
	LG_ACTION_FALLBACK, // reason, from, mode
	// reason (why not the requested mode yet), from, mode: a better mode
	// than from, not yet the requested one
	LG_ACTION_STEP_UP,
	LG_ACTION_RESTORED, // back at the requested mode
	LG_ACTION_FAILED, // failure; retrying after ms
	LG_ACTION_FLAPPING, // entered or stepped further down; next look after ms
	LG_ACTION_REQUESTED, // mode becomes the requested mode
	LG_ACTION_RECOMMEND, // mode for the new output (has_mode false: none)
	LG_ACTION_KNOWN_BAD_ADD, // the monitor did not hold mode at link (zero: not known)
	LG_ACTION_KNOWN_BAD_HELD, // the link held mode
	LG_ACTION_RETRY_RESULT, // enum lg_retry_result in retry
	LG_ACTION_SINK_DARK, // the sink lost the link, reported unlocked for ms
	// a minute's symbol errors per lane (rates); with verdict, whether they
	// are above threshold (over)
	LG_ACTION_ERROR_RATES,
};

/* At most one action that awaits an answer (PROBE, TEST, COMMIT, READ_SINK): last. */
#define MACHINE_MAX_ACTIONS 12

struct lg_action {
	enum lg_action_type type;
	struct lg_mode mode, from;
	bool has_mode;
	struct lg_link_params link; // KNOWN_BAD_ADD
	uint32_t ms;
	enum lg_fallback_reason reason;
	enum lg_failure failure;
	enum lg_retry_result retry;
	uint32_t rates[4], threshold; // ERROR_RATES
	bool verdict, over;
	const char *why; // for the log: a static string
};

struct lg_actions {
	struct lg_action list[MACHINE_MAX_ACTIONS];
	size_t len;
};

/* In rising priority: a gated plan gives way to a stronger one. */
enum machine_plan {
	MACHINE_PLAN_NONE,
	// the sink lost lock: retrain, then step down (any other plan's
	// modeset retrains the link too)
	MACHINE_PLAN_UNLOCKED,
	MACHINE_PLAN_STEP_UP, // quiet again, or a fallback the compositor set: toward requested
	MACHINE_PLAN_ERRORS, // symbol errors: a mode at a lower link
	MACHINE_PLAN_BACKOFF, // failed: try again
	MACHINE_PLAN_BAD, // answer link-status BAD
	MACHINE_PLAN_STEP_DOWN, // flapping: a mode at a lower link
	MACHINE_PLAN_RETRY, // a client's retry: the requested mode or nothing
	MACHINE_PLAN_RECOMMEND, // a new output's first mode: no commit
};

/*
 * What a step down goes below: the link configuration the kernel trained a
 * mode at that did not hold, or, where the backend cannot tell links (a
 * zero link), that mode's pixel clock. Zero: none.
 */
struct machine_ceiling {
	struct lg_link_params link;
	uint32_t clock_khz;
};

enum machine_await {
	MACHINE_AWAIT_NONE,
	MACHINE_AWAIT_SAME_TEST,
	MACHINE_AWAIT_PROBE,
	MACHINE_AWAIT_CANDIDATE_TEST,
	MACHINE_AWAIT_COMMIT,
};

enum machine_timer {
	MACHINE_TIMER_NONE,
	MACHINE_TIMER_SETTLE, // a commit waits to count as held
	MACHINE_TIMER_GATE, // a plan waits for the modeset budget or backoff
	MACHINE_TIMER_BACKOFF, // failed: the next try
	MACHINE_TIMER_QUIET, // flapping: a quiet period before stepping up
	MACHINE_TIMER_STEP_UP, // the compositor set a fallback: step up once settled
};

struct lg_machine {
	const struct lg_machine_config *config;
	enum lg_link_state state;
	bool session_away;
	bool bad_pending; // a BAD no commit has answered yet
	bool fallen_back; // off the requested mode since the last restored
	// linkguard's last mode off the requested one: a fallback or a step up
	bool has_off_requested;
	struct lg_mode off_requested;

	enum machine_plan plan, gated_plan;
	enum machine_await await;
	struct lg_mode plan_from; // what ran when the plan began
	bool plan_has_from;
	// only modes the kernel trains below plan_ceiling, plan_from's link
	bool plan_steps_down;
	struct machine_ceiling plan_ceiling;
	bool plan_same_tested; // the same mode was tested (and failed)
	bool plan_probed; // the list is fresh: candidates come from it
	bool list_stale; // a compositor's modeset since the last probe
	bool requested_rejected; // the requested mode failed its test in this plan
	struct lg_mode plan_mode; // the candidate under test or commit
	size_t *order; // candidates: indices into facts.modes
	size_t order_len, order_cap, order_next;
	uint32_t tests;

	// The plan's timer, due at timer_ms, the hold (known-bad modes)
	// and the sink's next read: the one timer the driver arms is for the
	// earliest, armed_ms (0: none). now_ms: the step's time.
	enum machine_timer timer;
	uint64_t timer_ms, armed_ms, now_ms;
	// The mode that runs at rest since hold_ms - settle_ms: at hold_ms
	// it is remembered as held (0: it was)
	bool holding;
	struct lg_mode hold_mode;
	uint64_t hold_ms;
	// The sink's next read is due at read_ms (0: none); changed_ms: the
	// last hotplug or modeset; failed_reads: in a row
	uint64_t read_ms, changed_ms;
	uint32_t failed_reads;
	// The last reads' times (ring; 0: none), for the read budget
	uint64_t read_at[MACHINE_READS_PER_MIN];
	uint32_t read_head;

	// P2: when linkguard's last modesets were (ring), and the backoff
	uint64_t modeset_ms[MACHINE_BUDGET_MODESETS];
	uint32_t modesets, modeset_head;
	uint64_t last_modeset_ms;
	uint32_t backoff_ms; // flapping: gap between modesets; failed: next try
	uint64_t failed_ms; // when the failures the backoff retries began

	// P3: BADs at a mode that still fits (ring)
	uint64_t flap_ms[16];
	uint32_t flaps, flap_head;
	// P3: one step down per flapping episode, to modes the kernel trains
	// below the ceiling: the link of the mode that flapped
	bool stepped_down;
	struct machine_ceiling ceiling;
	// P3: it flapped as much below the ceiling: bandwidth is not the
	// cause; the best mode, retrains paced by the backoff
	bool pacing;
	bool stepped_up; // the last plan stepped up: a flap now doubles the backoff
	// P4, P8: the last BAD, unlock or error verdict; quiet a flap window after it
	uint64_t last_fault_ms;
	// The link configuration (zero: unknown) the running mode trained at,
	// and the running mode's when the plan began
	struct lg_link_params running_link, plan_from_link;
	// P4: modes that failed in this process, each at the link it failed
	// at; known-bad only there (ring)
	struct lg_mode failed_mode[MACHINE_MAX_FAILED];
	struct lg_link_params failed_link[MACHINE_MAX_FAILED];
	uint32_t n_failed, failed_head;

	// unlock_mode was retrained for the unlock seen at unlock_ms; lost
	// again there within the flap window: the unlocked plan steps down.
	// unlock_seen_ms: the last unlock seen, which a retrain may answer late
	bool unlock_retrained, unlock_step_down;
	// The sink lost lock or counted errors at this link configuration
	struct machine_ceiling sink_ceiling;
	struct lg_mode unlock_mode;
	uint64_t unlock_ms, unlock_seen_ms;
	// The first read since the last modeset that found the sink unlocked
	bool sink_unlocked;
	uint64_t sink_unlocked_ms;
	// The sink's symbol errors per lane since window_ms (window_open);
	// the first read after a modeset counts its training: discarded
	bool errors_discard, window_open;
	uint64_t window_ms;
	uint32_t window_errors[4];
	// The last verdict: errors above the threshold, at verdict_mode
	bool verdict_sent, link_errors;
	struct lg_mode verdict_mode;
};

void lg_machine_init(struct lg_machine *m, const struct lg_machine_config *config);
void lg_machine_finish(struct lg_machine *m);

/* The transition function. out is cleared first. */
void lg_machine_step(struct lg_machine *m, const struct lg_machine_event *event,
	const struct lg_machine_facts *facts, struct lg_actions *out);

#endif
