#ifndef TESTS_MACHINE_WORLD_H
#define TESTS_MACHINE_WORLD_H

/*
 * One connector on a virtual clock: the recovery state machine and its
 * driver (src/), the kernel as the sim's pure link model (backend/sim's
 * sim_link), and a compositor reduced to what it does to an output. Time
 * only moves when the test says so. Every action the machine takes is
 * checked against the properties of doc/linkguard-recovery.7.scd as it
 * happens; the first violation is kept in world.violation.
 */

#include <stdbool.h>
#include <stdint.h>
#include <core/driver.h>
#include <sim/link.h>

#define WORLD_NEVER UINT64_MAX
#define WORLD_MAX_COMMITS 64
/*
 * The sink's reads: settle_ms after every hotplug or modeset, then every
 * sink_poll_ms for WORLD_WATCHFUL_POLLS polls, then every WORLD_IDLE_POLLS;
 * a failed read doubles the wait from WORLD_IDLE_POLLS x, up to
 * WORLD_MAX_BACKOFF_POLLS x. Symbol errors are judged over a minute at most.
 */
#define WORLD_SINK_POLL_MS 5000
#define WORLD_WATCHFUL_POLLS 12
#define WORLD_IDLE_POLLS 6
#define WORLD_MAX_BACKOFF_POLLS 48
#define WORLD_ERRORS_WINDOW_MS 60000
/* The read budget: at most this many reads in any minute (polled every 5 s). */
#define WORLD_READS_PER_MIN 20
#define WORLD_READS_WINDOW_MS 60000
/*
 * P7: at most this many of linkguard's modesets after the last fault (the
 * return to the best mode, and one more if that fails).
 */
#define WORLD_MODESETS_AFTER_FAULT 2
/* Modes the world saw fail, each at the link it failed at (ring). */
#define WORLD_MAX_FAILED 32

/* A mode that failed to train, or whose commit failed, at a link (rate x lanes). */
struct world_failure {
	struct lg_mode mode;
	uint64_t link; // 0: the oracle knows of no link that carries it
};

struct world {
	struct lg_machine_config config;
	// the policy the oracle judges by; the machine's is config.policy
	// (a mutation check sets them apart)
	enum lg_policy oracle_policy;
	struct lg_driver driver;
	struct sim_link link;
	uint64_t now;

	bool connected, has_output, enabled, session_away;
	bool has_requested, has_current;
	struct lg_mode requested, current;
	struct lg_mode_list modes; // the list at the last probe
	struct lg_mode_list known_bad;
	// what the compositor stored as its configuration: its own modes and
	// linkguard's (sway's handle_request_state stores those too), and
	// linkguard's last mode off the requested one (a fallback, a step up)
	bool has_stored, has_last_fallback;
	struct lg_mode stored, last_fallback;
	// MODE_SET: what the output ran before the compositor's commit
	bool has_previous;
	struct lg_mode previous;
	bool fail_next_commit; // fault: the next commit fails after its test
	bool gone_at_probe; // fault: the sink leaves as the next forced probe runs
	bool has_recommend; // until the compositor's commit
	struct lg_mode recommend;
	enum lg_retry_result retry_result;

	uint64_t timer_at; // the machine's timer
	uint64_t hotplug_at; // the kernel's uevent after link-status BAD
	uint64_t kernel_retry_at; // i915's retry at the same parameters
	// The sink's read schedule, from the world's facts: the last hotplug
	// or modeset, a BAD fed that no commit or modeset answered yet, the
	// failed reads in a row, and when the machine must read next
	// (WORLD_NEVER: no read may come)
	uint64_t changed_at, read_due_at;
	bool bad_unanswered;
	uint32_t failed_reads;
	// The last WORLD_READS_PER_MIN reads' times, oldest at read_head
	// (WORLD_NEVER: none)
	uint64_t read_at[WORLD_READS_PER_MIN];
	uint32_t read_head;
	bool reading; // the machine's READ_SINK was answered in this run
	// The unlock debounce, from the reads: the first since the last
	// modeset that found the sink unlocked; the read being fed is the
	// second, the sink settle time after it: the machine must report it
	uint64_t dark_read_at;
	bool expect_dark, dark_reported;
	// a known-bad mode that runs and holds until then is no longer
	// skipped: the machine must have said so
	uint64_t hold_at;
	struct lg_mode holding;
	// The error verdict, from the counts the reads find (errors_per_min
	// x the time since the read before): a minute's window from window_at
	// (WORLD_NEVER: none open), the first read after a modeset discarded.
	// The rates are due when the window is full or a lane passed the
	// threshold (0.06 x the rate, the BER of 10^-9); a verdict with them
	// when it changes or the errors go on at another mode
	uint64_t last_read_at, window_at;
	uint32_t window_errors[4];
	bool errors_discard;
	bool verdict_sent, link_errors; // the last verdict due
	struct lg_mode verdict_mode; // the mode it was due at
	struct lg_sink_errors read_errors; // what the read being fed counted
	bool expect_rates, expect_verdict, got_rates, got_verdict, got_over;

	// evidence for the checks
	// P4: what failed where; a mode is known bad only at the link it failed at
	struct world_failure failed[WORLD_MAX_FAILED];
	uint32_t n_failed, failed_head;
	uint64_t modeset_at[WORLD_MAX_COMMITS]; // ring of linkguard's modesets
	uint32_t modesets, modeset_head, max_in_window;
	bool committed_in_run; // a commit succeeded in the current driver run
	bool flapped_in_run; // the machine reported flapping in it
	uint64_t glitch_at[16]; // BADs fed at an unchanged link since the last step down
	uint32_t glitches;
	// the lowest link configuration (by what it carries, by the oracle)
	// the sink did not hold a mode at, or erred at, right after it
	// trained; zero: none since the last replug or retry
	struct lg_link_params unheld_link;
	// a dark or error verdict at the running mode, nothing from outside and
	// no commit since: a step down now is one for the sink (P3)
	bool sink_verdict;
	bool has_dark; // a read reported the sink's lost lock at dark_mode at dark_at
	struct lg_mode dark_mode;
	uint64_t dark_at;
	uint32_t flapping_reports, fallbacks, failures, same_mode_commits;
	// commits P3 judged (a step down while flapping, one for the sink's
	// lost lock or errors) and P8 (on a quiet link)
	uint32_t step_downs, sink_step_downs, quiet_commits;
	// P4, P7, P8: the last event from outside the machine (a BAD, an
	// unlock or error verdict, a plug, a retry, a mode set: anything but
	// its own timer), linkguard's modesets since, and the last that
	// changed the mode
	uint64_t last_fault_at, last_change_at;
	uint32_t modesets_after_fault;
	// where the ending was first judged: from the last fault to the last
	// mode change, and linkguard's modesets after the last fault
	bool judged;
	uint64_t judged_after_ms;
	uint32_t judged_modesets;
	// P1: failed again at a timer of its own since the last fault: its
	// backoff has had its chance
	bool backoff_tried;
	// P1's bound, on the world's clock: since when the output is dark
	// (disabled or BAD; WORLD_NEVER: lit), since when the kernel takes a
	// mode the sink holds (WORLD_NEVER: none) and since when it took none
	// (WORLD_NEVER: it takes one, or no output), how long the last such
	// refusal lasted, and the deadline for the picture (WORLD_NEVER: none)
	uint64_t dark_since, fits_since, unfit_since, refused_ms, lit_due;
	uint64_t failed_since; // reported failed since (WORLD_NEVER: not failed)
	// the latest retry or picture due so far (P1's deadlines, a refusal's
	// retry, a failed machine's retry after a fault): P4's bound reaches it
	uint64_t retry_by;
	enum lg_machine_event_type feeding; // the event the machine is given
	bool fault_in_feed; // and something from outside came meanwhile
	bool trace; // every event and action on stderr
	const char *violation;
	char detail[160];
};

void world_init(struct world *w, const char *sink);
/* A deep copy, for enumeration that shares prefixes. */
void world_copy(struct world *dst, const struct world *src);
void world_finish(struct world *w);

/* The kernel's side. */
void world_glitch(struct world *w); // BAD without lowering
void world_set_cable(struct world *w, const struct lg_link_params *cable);
void world_reject_all(struct world *w, bool on);
/* The sink's side: lock held up to a rate only, and a marginal cable. */
void world_lose_lock(struct world *w, uint32_t above_mbps);
void world_set_errors(struct world *w, uint32_t per_min);
/* The cable holds anything and the sink is healthy again. */
void world_heal(struct world *w);
void world_unplug(struct world *w);
void world_plug(struct world *w, const char *sink); // a sink appears; the compositor enables it
/*
 * The same monitor again, into a compositor that starts the output at the
 * mode it stored when the kernel lists it, else at linkguard's
 * recommendation (sway).
 */
void world_replug_stored(struct world *w);
/* The session. */
void world_session(struct world *w, bool active);
/* The session leaves, the link glitches meanwhile, the session is back. */
void world_vt_switch(struct world *w);
/* A client. */
enum lg_retry_result world_retry(struct world *w);
/* The compositor commits mode of its own (a user's choice). */
void world_mode_set(struct world *w, const struct lg_mode *mode);
/*
 * The compositor commits the mode that runs once more: linkguard's last
 * request_state, handled late (labwc).
 */
void world_apply_late(struct world *w);
void world_disable(struct world *w);

/* Runs due events up to now + ms, in time order. */
void world_advance(struct world *w, uint64_t ms);
/* Runs the next due event (timer or kernel), if any; false when none. */
bool world_tick(struct world *w);
/* Runs events until nothing is pending or max_ms passed. */
void world_settle(struct world *w, uint64_t max_ms);

/* The standing checks (P1 never dark, P4 best mode when idle). */
void world_check_now(struct world *w);
/* The kernel takes a mode that the sink holds. */
bool world_mode_fits(const struct world *w);
/*
 * By the world's own clock and facts: the spec's deadline after the last
 * fault has passed, and no kernel event, hold or read that matters is
 * pending. The machine's timer is not asked.
 */
bool world_idle(const struct world *w);

/* How a world left alone ends; each but the last is judged. */
enum world_ending {
	WORLD_ENDS_AT_PICK, // good or degraded at the pick: P1, P4 and its bound
	WORLD_ENDS_NOTHING_FITS, // the kernel takes no mode the sink holds: P1
	WORLD_ENDS_OFF, // unplugged: nothing to show
	WORLD_ENDS_UNJUDGED, // none of these: a violation
	WORLD_N_ENDINGS,
};

extern const char *const world_ending_names[WORLD_N_ENDINGS];
/*
 * Judges a world left alone (world_settle(), then world_check_now()): off,
 * or nothing the kernel takes that the sink holds (P1 lets it be dark), or
 * idle at the policy's pick with the last mode change within P4's bound
 * after the last fault; anything else is a violation.
 */
enum world_ending world_judge_ending(struct world *w);
/*
 * Leaves w alone for up to ms: judged at P4's deadline (world_settle(),
 * world_check_now(), world_judge_ending()), and again after the machine's
 * longest timers (backoff_max_ms and a flap window) ran once more.
 */
enum world_ending world_leave_alone(struct world *w, uint64_t ms);

#endif
