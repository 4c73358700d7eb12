/*
 * The recovery state machine (doc/linkguard-recovery.7.scd). Pure: every
 * side effect is an action for the driver, every answer comes back as an
 * event, so that tests/unit/test_machine.c can enumerate it.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <core/machine.h>
#include "mutant.h"

void lg_machine_config_defaults(struct lg_machine_config *config) {
	*config = (struct lg_machine_config){
		.policy = LG_POLICY_RESOLUTION_FIRST,
		.recover = true,
		.settle_ms = 500,
		.flap_count = 3,
		.flap_window_ms = 10000,
		.max_tests = 16,
		.backoff_min_ms = 1000,
		.backoff_max_ms = 60000,
		.sink_settle_ms = 2000,
	};
}

void lg_machine_init(struct lg_machine *m, const struct lg_machine_config *config) {
	*m = (struct lg_machine){ .config = config, .state = LG_LINK_GOOD };
}

void lg_machine_finish(struct lg_machine *m) {
	free(m->order);
	m->order = NULL;
	m->order_cap = 0;
}

static bool awaits_answer(const struct lg_action *action) {
	return action->type == LG_ACTION_PROBE || action->type == LG_ACTION_TEST ||
		action->type == LG_ACTION_COMMIT || action->type == LG_ACTION_READ_SINK;
}

static struct lg_action *emit(struct lg_actions *out, enum lg_action_type type) {
	// The transitions below emit at most MACHINE_MAX_ACTIONS each.
	assert(out->len < MACHINE_MAX_ACTIONS);
	struct lg_action *action = &out->list[out->len++];
	// One that awaits an answer stays last: the driver feeds its answer
	// once it carried out the others.
	if (out->len > 1 && awaits_answer(action - 1)) {
		*action = *(action - 1);
		action--;
	}
	*action = (struct lg_action){ .type = type };
	return action;
}

static struct lg_action *emit_mode(struct lg_actions *out, enum lg_action_type type,
		const struct lg_mode *mode, const char *why) {
	struct lg_action *action = emit(out, type);
	action->mode = *mode;
	action->has_mode = true;
	action->why = why;
	return action;
}

static bool at_requested(const struct lg_machine_facts *facts) {
	return facts->current != NULL && facts->requested != NULL &&
		lg_mode_same_timing(facts->current, facts->requested);
}

/* Symbol errors above the threshold degrade even the requested mode. */
static enum lg_link_state running_state(const struct lg_machine *m,
		const struct lg_machine_facts *facts) {
	return at_requested(facts) && !m->link_errors ?
		LG_LINK_GOOD : LG_LINK_DEGRADED;
}

static void set_state(struct lg_machine *m, struct lg_actions *out,
		enum lg_link_state state) {
	if (m->state == state) {
		return;
	}
	m->state = state;
	emit(out, LG_ACTION_STATE);
}

static uint64_t earlier(uint64_t due, uint64_t at) {
	return at != 0 && (due == 0 || at < due) ? at : due;
}

/*
 * The driver's one timer, for the earliest of the plan's timer, the hold
 * and the sink's next read; armed again only when that changes.
 */
static void sync_timer(struct lg_machine *m, struct lg_actions *out) {
	uint64_t due = m->timer != MACHINE_TIMER_NONE ? m->timer_ms : 0;
	due = earlier(due, m->holding ? m->hold_ms : 0);
	due = earlier(due, m->read_ms);
	if (due == m->armed_ms) {
		return;
	}
	m->armed_ms = due;
	// Zero cancels; a due timer fires at once.
	emit(out, LG_ACTION_ARM_TIMER)->ms =
		due == 0 ? 0 : due > m->now_ms ? (uint32_t)(due - m->now_ms) : 1;
}

static void arm(struct lg_machine *m,
		struct lg_actions *out, enum machine_timer kind, uint64_t ms) {
	m->timer = kind;
	m->timer_ms = m->now_ms + (ms > 0 ? ms : 1);
	sync_timer(m, out);
}

static void cancel_timer(struct lg_machine *m, struct lg_actions *out) {
	if (m->timer == MACHINE_TIMER_NONE) {
		return;
	}
	m->timer = MACHINE_TIMER_NONE;
	sync_timer(m, out);
}

/* A modeset trains the link afresh: what the sink reported before is past. */
static void forget_sink_reads(struct lg_machine *m) {
	m->sink_unlocked = false;
	m->errors_discard = true; // the next read counts the training
	m->window_open = false;
}

/*
 * The sink's read schedule. AUX traffic while the source trains the link
 * is what makes some docks fail their training: the sink is read once the
 * link settled, settle_ms after every hotplug event and every modeset
 * (linkguard's or the compositor's: the kernel trains the link inside that
 * blocking commit), never between a BAD and the commit that answers it,
 * never while a probe, a test or a commit awaits its answer.
 */
static bool can_read(const struct lg_machine *m, const struct lg_machine_facts *facts) {
	return m->config->read_sink && facts->connected && facts->has_output &&
		facts->enabled;
}

/* A hotplug event or a modeset: the link trains, read once it settled. */
static void link_changed(struct lg_machine *m, const struct lg_machine_facts *facts) {
	uint32_t settle_ms = m->config->settle_ms;
	m->changed_ms = facts->now_ms;
	m->read_ms = can_read(m, facts) ?
		facts->now_ms + (settle_ms > 0 ? settle_ms : 1) : 0;
}

/*
 * The poll: every sink_poll_ms for a while after a change, less often on
 * a quiet link, less often still while reads fail (a sink that does not
 * answer AUX costs the kernel's timeout); 0: no poll.
 */
static uint64_t poll_wait(const struct lg_machine *m, uint64_t now) {
	uint64_t poll_ms = m->config->sink_poll_ms;
	uint64_t polls = now - m->changed_ms < MACHINE_WATCHFUL_POLLS * poll_ms ?
		1 : MACHINE_IDLE_POLLS;
	if (m->failed_reads > 0) {
		polls = MACHINE_IDLE_POLLS << (m->failed_reads - 1);
	}
	return polls * poll_ms;
}

static void schedule_read(struct lg_machine *m, const struct lg_machine_facts *facts,
		uint64_t wait) {
	m->read_ms = can_read(m, facts) && wait > 0 ? facts->now_ms + wait : 0;
}

/*
 * The sink was read: the next read, sooner while the unlock debounce
 * waits for a second unlocked read.
 */
static void sink_was_read(struct lg_machine *m, const struct lg_machine_facts *facts) {
	uint64_t now = facts->now_ms;
	// Counted up to where the wait stops growing.
	if (facts->sink_errors == NULL) {
		m->failed_reads += 1u << m->failed_reads <= MACHINE_MAX_BACKOFF;
	} else {
		m->failed_reads = 0;
	}
	uint64_t unlocked_at = m->sink_unlocked_ms + m->config->sink_settle_ms;
	schedule_read(m, facts, !m->sink_unlocked ? poll_wait(m, now) :
		unlocked_at > now ? unlocked_at - now : 1);
}

/*
 * When the read budget allows the next read: now, or later. Its window is
 * a minute, or 12 polls where a compositor polls faster (its tests).
 */
static uint64_t budget_allows(const struct lg_machine *m, uint64_t now) {
	uint64_t oldest = m->read_at[m->read_head];
	if (oldest == 0) {
		return now;
	}
	uint64_t window = (uint64_t)MACHINE_WATCHFUL_POLLS * m->config->sink_poll_ms;
	if (window == 0 || window > MACHINE_READS_WINDOW_MS) {
		window = MACHINE_READS_WINDOW_MS;
	}
	return oldest + window > now ? oldest + window : now;
}

/*
 * The read is due: READ_SINK, unless a BAD waits for the commit that
 * answers it, or the session is away: then at the next poll, or once
 * settled where there is none (a read after an event is not lost); past
 * the budget, once it allows one.
 */
static bool read_due(struct lg_machine *m, const struct lg_machine_facts *facts,
		struct lg_actions *out) {
	uint64_t now = facts->now_ms;
	if (m->read_ms == 0 || m->read_ms > now) {
		return false;
	}
	if (!can_read(m, facts) || m->bad_pending || m->session_away ||
			m->await != MACHINE_AWAIT_NONE) {
		uint64_t wait = poll_wait(m, now);
		uint32_t settle_ms = m->config->settle_ms;
		schedule_read(m, facts, wait > 0 ? wait : settle_ms > 0 ? settle_ms : 1);
		return false;
	}
	uint64_t allowed = budget_allows(m, now);
	if (allowed > now) {
		m->read_ms = allowed;
		return false;
	}
	m->read_ms = 0; // its answer schedules the next
	m->read_at[m->read_head] = now;
	m->read_head = (m->read_head + 1) % MACHINE_READS_PER_MIN;
	emit(out, LG_ACTION_READ_SINK);
	return true;
}

/* The sink or its output is gone: nothing is known of the next one's errors. */
static void forget_verdict(struct lg_machine *m) {
	m->verdict_sent = false;
	m->link_errors = false;
}

static void end_plan(struct lg_machine *m) {
	m->plan = MACHINE_PLAN_NONE;
	m->plan_steps_down = false;
	m->await = MACHINE_AWAIT_NONE;
}

static uint32_t grow_backoff(const struct lg_machine *m) {
	const struct lg_machine_config *config = m->config;
	if (m->backoff_ms == 0 || LG_MUTANT(BACKOFF_NEVER_GROWS)) {
		return config->backoff_min_ms;
	}
	uint64_t next = (uint64_t)m->backoff_ms * 2;
	return next > config->backoff_max_ms ? config->backoff_max_ms : (uint32_t)next;
}

/*
 * The wait before a failed machine tries again (P1's bound after a
 * refusal): after a new fault backoff_min_ms, however far another fault
 * (a glitch burst) grew the backoff; after its own retry failed again the
 * doubled backoff, yet never more than the failures have lasted plus
 * backoff_min_ms (a retry that came early, at the session's return,
 * doubles nothing).
 */
static uint32_t failure_backoff(struct lg_machine *m, uint64_t now, bool again) {
	const struct lg_machine_config *config = m->config;
	if (!again) {
		m->failed_ms = now;
		return config->backoff_min_ms;
	}
	uint64_t bound = now - m->failed_ms + config->backoff_min_ms;
	uint32_t grown = grow_backoff(m);
	return grown < bound ? grown : (uint32_t)bound;
}

/* P2: how long until linkguard may modeset again; 0 is now. */
static uint64_t budget_wait(const struct lg_machine *m, uint64_t now) {
	if (m->modesets < MACHINE_BUDGET_MODESETS) {
		return 0;
	}
	// The ring is full: its oldest entry, where head points, must leave the window.
	uint64_t free_at = m->modeset_ms[m->modeset_head] + MACHINE_BUDGET_WINDOW_MS;
	return free_at > now ? free_at - now : 0;
}

/* P4: while flapping, the backoff paces a link that keeps failing. */
static uint64_t backoff_wait(const struct lg_machine *m, uint64_t now) {
	if (m->state != LG_LINK_FLAPPING || m->modesets == 0) {
		return 0;
	}
	// Quiet for a flap window, the link has stopped failing.
	uint64_t open_at = m->last_modeset_ms + m->backoff_ms;
	uint64_t quiet_at = m->last_fault_ms + m->config->flap_window_ms;
	if (quiet_at < open_at) {
		open_at = quiet_at;
	}
	return open_at > now ? open_at - now : 0;
}

/*
 * The budget, and the backoff, which never holds back the answer to a BAD:
 * a BAD link shows no picture, and wlroots' hotplug handler, which runs
 * after linkguard's, destroys the output of a link it reads BAD (two
 * modesets, and clients lose the wl_output).
 */
static uint64_t gate_wait(const struct lg_machine *m, enum machine_plan plan,
		uint64_t now) {
	uint64_t wait = budget_wait(m, now);
	if (plan == MACHINE_PLAN_BAD || plan == MACHINE_PLAN_STEP_DOWN) {
		return wait;
	}
	uint64_t backoff = backoff_wait(m, now);
	return backoff > wait ? backoff : wait;
}

static void record_modeset(struct lg_machine *m, uint64_t now) {
	m->modeset_ms[m->modeset_head] = now;
	m->modeset_head = (m->modeset_head + 1) % MACHINE_BUDGET_MODESETS;
	if (m->modesets < MACHINE_BUDGET_MODESETS) {
		m->modesets++;
	}
	m->last_modeset_ms = now;
}

/*
 * P2 counts a modeset from when its commit returned: the probe and tests
 * before it and the kernel's training take their time, and a window
 * counted from the event that planned it would let the budget's last
 * commit land in the same 10 s as the first one's end.
 */
static void modeset_returned(struct lg_machine *m, uint64_t now) {
	uint32_t last = (m->modeset_head + MACHINE_BUDGET_MODESETS - 1) %
		MACHINE_BUDGET_MODESETS;
	m->modeset_ms[last] = now;
	m->last_modeset_ms = now;
}

/*
 * P3: the last BAD was at a mode the kernel still fits. True when the link
 * flaps. A BAD is counted once, at the time it came, however late its plan.
 */
static bool flap_record(struct lg_machine *m) {
	uint64_t now = m->last_fault_ms;
	const uint32_t cap = sizeof(m->flap_ms) / sizeof(m->flap_ms[0]);
	uint32_t count = m->config->flap_count + LG_MUTANT(FLAP_COUNT_OFF_BY_ONE);
	if (count == 0) {
		return false;
	}
	if (count > cap) {
		count = cap;
	}
	uint32_t newest = (m->flap_head + cap - 1) % cap;
	if (m->flaps == 0 || m->flap_ms[newest] != now) {
		m->flap_ms[m->flap_head] = now;
		m->flap_head = (m->flap_head + 1) % cap;
		if (m->flaps < cap) {
			m->flaps++;
		}
	}
	if (m->flaps < count) {
		return false;
	}
	uint32_t oldest = (m->flap_head + cap - count) % cap;
	if (now - m->flap_ms[oldest] > m->config->flap_window_ms) {
		return false;
	}
	m->flaps = 0; // the next step needs count new BADs
	return true;
}

/* The flapping episode is over: no ceiling, no pacing. */
static void end_episode(struct lg_machine *m) {
	m->flaps = 0;
	m->stepped_down = false;
	m->pacing = false;
}

static void calm_down(struct lg_machine *m) {
	end_episode(m);
	m->stepped_up = false;
	if (!LG_MUTANT(BACKOFF_NEVER_RESETS)) {
		m->backoff_ms = 0;
	}
}

/* No fault for a flap window. */
static bool quiet(const struct lg_machine *m, const struct lg_machine_facts *facts) {
	return facts->now_ms - m->last_fault_ms >= m->config->flap_window_ms;
}

/* The link is quiet and runs the best mode it carries: the episode is over. */
static void rest(struct lg_machine *m, const struct lg_machine_facts *facts,
		struct lg_actions *out) {
	calm_down(m);
	set_state(m, out, running_state(m, facts));
	if (at_requested(facts) && m->fallen_back) {
		m->fallen_back = false;
		emit(out, LG_ACTION_RESTORED);
	}
}

/*
 * The link configuration the kernel trains mode at now; zero: unknown.
 * HBR x4 and HBR2 x2 carry as much, yet a mode that failed at one has not
 * failed at the other.
 */
static struct lg_link_params link_config(const struct lg_machine_facts *facts,
		const struct lg_mode *mode) {
	struct lg_link_params link;
	if (facts->link_for == NULL || !facts->link_for(facts->link_data, mode, &link)) {
		return (struct lg_link_params){0};
	}
	return link;
}

static bool same_link(const struct lg_link_params *a, const struct lg_link_params *b) {
	return a->rate_mbps == b->rate_mbps && a->lanes == b->lanes;
}

/* What that link carries, rate x lanes; 0: unknown. */
static uint64_t bandwidth(const struct lg_link_params *link) {
	return (uint64_t)link->rate_mbps * link->lanes;
}

static bool listed(const struct lg_mode_list *list, const struct lg_mode *mode) {
	return list != NULL && lg_mode_list_find(list, mode) >= 0;
}

static bool listed_timing(const struct lg_mode_list *list, const struct lg_mode *mode) {
	for (size_t i = 0; list != NULL && i < list->len; i++) {
		if (lg_mode_same_timing(&list->modes[i], mode)) {
			return true;
		}
	}
	return false;
}

/* What the policy plans from: the requested mode, else the sink's preferred. */
static const struct lg_mode *reference_mode(const struct lg_machine_facts *facts) {
	if (facts->requested != NULL) {
		return facts->requested;
	}
	const struct lg_mode_list *modes = facts->modes;
	for (size_t i = 0; i < modes->len; i++) {
		if (modes->modes[i].preferred) {
			return &modes->modes[i];
		}
	}
	return modes->len > 0 ? &modes->modes[0] : NULL;
}

/*
 * What a step down from the running mode goes below: the link the kernel
 * would train it at now, or the one it trained at where that is lower or
 * the kernel refuses it now (as while its atomic check refuses every mode).
 */
static struct machine_ceiling running_ceiling(const struct lg_machine *m,
		const struct lg_machine_facts *facts) {
	const struct lg_link_params *ran = &m->running_link;
	struct lg_link_params now = link_config(facts, facts->current);
	bool ran_lower = bandwidth(ran) != 0 && bandwidth(ran) < bandwidth(&now);
	return (struct machine_ceiling){
		.link = bandwidth(&now) == 0 || ran_lower ? *ran : now,
		.clock_khz = facts->current->clock_khz,
	};
}

/*
 * P3, for every step down (flapping, a lost lock, symbol errors): mode is
 * under the ceiling. A smaller mode that i915 trains at the same link buys
 * no margin: only a lower link counts, one that carries less or runs its
 * lanes slower (a sink that loses lock at HBR holds RBR on more lanes once
 * the kernel has them again), and the pixel clock only where the backend
 * cannot tell links.
 */
static bool below_ceiling(const struct lg_machine_facts *facts,
		const struct machine_ceiling *ceiling, const struct lg_mode *mode) {
	struct lg_link_params link = link_config(facts, mode);
	if (bandwidth(&ceiling->link) != 0 && bandwidth(&link) != 0 &&
			!LG_MUTANT(STEP_DOWN_BY_PIXEL_CLOCK)) {
		return bandwidth(&link) < bandwidth(&ceiling->link) ||
			link.rate_mbps < ceiling->link.rate_mbps;
	}
	return mode->clock_khz < ceiling->clock_khz;
}

/*
 * The sink lost lock, or counted symbol errors, at a link configuration:
 * modes the kernel trains there or above stay behind the others until the
 * sink leaves, a client retries or the compositor sets a mode itself.
 */
static bool above_sink_ceiling(const struct lg_machine *m,
		const struct lg_machine_facts *facts, const struct lg_mode *mode) {
	return m->sink_ceiling.clock_khz != 0 &&
		!below_ceiling(facts, &m->sink_ceiling, mode);
}

/* P3: under the flapping step down's ceiling. */
static bool under_ceiling(const struct lg_machine *m,
		const struct lg_machine_facts *facts, const struct lg_mode *mode) {
	return !m->stepped_down || below_ceiling(facts, &m->ceiling, mode);
}

/*
 * P4: this monitor did not hold mode at the link the kernel would train it
 * at now. A mode that failed only at other links is tried here once; a
 * failure from an earlier start counts at the link the store keeps with
 * it, at any link where it keeps none (or the backend cannot say).
 */
static bool known_bad_here(const struct lg_machine *m,
		const struct lg_machine_facts *facts, const struct lg_mode *mode) {
	if (!listed(facts->known_bad, mode)) {
		return false;
	}
	if (LG_MUTANT(KNOWN_BAD_BY_MODE)) {
		return true;
	}
	struct lg_link_params link = link_config(facts, mode);
	bool failed_elsewhere = false;
	for (uint32_t i = 0; i < m->n_failed; i++) {
		if (!lg_mode_equal(&m->failed_mode[i], mode)) {
			continue;
		}
		// Where the backend tells links, no link is no match: a mode
		// failed where the kernel trained it nowhere (the ladder had
		// pruned it) and one it trains nowhere now (it refuses every
		// mode) are not at the same link.
		if (same_link(&m->failed_link[i], &link) &&
				(link.rate_mbps != 0 || facts->link_for == NULL)) {
			return true;
		}
		failed_elsewhere = true;
	}
	if (failed_elsewhere) {
		return false;
	}
	return facts->skipped_at == NULL || link.rate_mbps == 0 ||
		facts->skipped_at(facts->skipped_data, mode, &link);
}

/*
 * The monitor did not hold mode at link: the store remembers the mode. A
 * record is kept once, so that repeats do not push others out of the ring.
 */
static void add_known_bad(struct lg_machine *m, struct lg_actions *out,
		const struct lg_mode *mode, struct lg_link_params link, const char *why) {
	bool recorded = false;
	for (uint32_t i = 0; i < m->n_failed && !recorded; i++) {
		recorded = lg_mode_equal(&m->failed_mode[i], mode) &&
			same_link(&m->failed_link[i], &link);
	}
	if (!recorded) {
		m->failed_mode[m->failed_head] = *mode;
		m->failed_link[m->failed_head] = link;
		m->failed_head = (m->failed_head + 1) % MACHINE_MAX_FAILED;
		if (m->n_failed < MACHINE_MAX_FAILED) {
			m->n_failed++;
		}
	}
	emit_mode(out, LG_ACTION_KNOWN_BAD_ADD, mode, why)->link = link;
	// Failed while it runs (a retry's commit): it has held once it runs
	// settle_ms from now.
	if (m->holding && lg_mode_equal(mode, &m->hold_mode)) {
		m->holding = false;
	}
}

/*
 * The candidates, best first: the policy's ranking of the kernel's list,
 * from the requested mode (P4), in tiers: modes under the flapping
 * ceiling, then the others, then modes this monitor did not hold at the
 * link they would train at now, then modes at or above the sink's
 * ceiling. The later tiers are there for P1:
 * better a mode that may fail than a dark output.
 */
static bool build_order(struct lg_machine *m, const struct lg_machine_facts *facts) {
	const struct lg_mode_list *modes = facts->modes;
	m->order_len = 0;
	m->order_next = 0;
	const struct lg_mode *reference = reference_mode(facts);
	if (reference == NULL) {
		return true;
	}
	if (m->order_cap < modes->len) {
		size_t *order = realloc(m->order, modes->len * sizeof(*order));
		if (order == NULL) {
			return false;
		}
		m->order = order;
		m->order_cap = modes->len;
	}
	size_t *ranked = malloc((modes->len + 1) * sizeof(*ranked));
	if (ranked == NULL) {
		return false;
	}
	size_t n = lg_policy_rank(m->config->policy, &m->config->floors,
		reference, modes, NULL, ranked);
	for (int tier = 0; tier < 4; tier++) {
		for (size_t i = 0; i < n; i++) {
			const struct lg_mode *mode = &modes->modes[ranked[i]];
			bool bad = known_bad_here(m, facts, mode);
			int mode_tier = above_sink_ceiling(m, facts, mode) ? 3 : bad ? 2 :
				under_ceiling(m, facts, mode) ? 0 : 1;
			if (mode_tier == tier) {
				m->order[m->order_len++] = ranked[i];
			}
		}
	}
	free(ranked);
	return true;
}

static void begin_plan(struct lg_machine *m, enum machine_plan plan,
	const struct lg_machine_facts *facts, struct lg_actions *out);

static void fail(struct lg_machine *m, const struct lg_machine_facts *facts,
		struct lg_actions *out, enum lg_failure failure) {
	bool again = m->plan == MACHINE_PLAN_BACKOFF && m->state == LG_LINK_FAILED;
	end_plan(m);
	cancel_timer(m, out);
	if (failure == LG_FAILURE_NO_MODES && facts->enabled) {
		// Nothing can be tested at all: the only state with nothing to show.
		record_modeset(m, facts->now_ms);
		forget_sink_reads(m);
		m->read_ms = 0; // nothing to read until it runs again
		emit(out, LG_ACTION_DISABLE);
	}
	m->fallen_back = true;
	set_state(m, out, LG_LINK_FAILED);
	struct lg_action *action = emit(out, LG_ACTION_FAILED);
	action->failure = failure;
	m->backoff_ms = failure_backoff(m, facts->now_ms, again);
	action->ms = m->backoff_ms;
	// P1: giving up is a backoff that keeps trying, also where the sink
	// held no smaller mode: one that lost lock twice by chance holds the
	// mode again when retrained, one that cannot costs a modeset a backoff.
	arm(m, out, MACHINE_TIMER_BACKOFF, m->backoff_ms);
}

static void retry_result(struct lg_machine *m, struct lg_actions *out,
		enum lg_retry_result result) {
	end_plan(m);
	emit(out, LG_ACTION_RETRY_RESULT)->retry = result;
}

static void gate(struct lg_machine *m, const struct lg_machine_facts *facts,
		struct lg_actions *out, enum machine_plan plan, uint64_t wait) {
	end_plan(m);
	// Already waiting: the stronger plan goes when it opens, and sooner
	// where its own wait is shorter (a BAD waits for the budget only,
	// never for the backoff that held another plan).
	bool waiting = m->timer == MACHINE_TIMER_GATE;
	if (!waiting || plan > m->gated_plan) {
		m->gated_plan = plan;
	}
	if (!waiting || m->timer_ms > facts->now_ms + wait) {
		arm(m, out, MACHINE_TIMER_GATE, wait);
	}
}

static void commit(struct lg_machine *m, const struct lg_machine_facts *facts,
		struct lg_actions *out, const struct lg_mode *mode, const char *why) {
	uint64_t wait = budget_wait(m, facts->now_ms);
	if (wait > 0) {
		if (m->plan == MACHINE_PLAN_RETRY) {
			retry_result(m, out, LG_RETRY_UNAVAILABLE);
			return;
		}
		gate(m, facts, out, m->plan, wait);
		return;
	}
	record_modeset(m, facts->now_ms);
	m->plan_mode = *mode;
	m->await = MACHINE_AWAIT_COMMIT;
	emit_mode(out, LG_ACTION_COMMIT, mode, why);
}

/* P4: the link is quiet once a flap window has passed since the last fault. */
static uint64_t quiet_ms(const struct lg_machine *m, uint64_t now) {
	uint64_t quiet_at = m->last_fault_ms + m->config->flap_window_ms;
	return quiet_at > now ? quiet_at - now : 1;
}

/*
 * The sink lost lock again at the mode that ran, or counted errors there:
 * only modes the kernel trains at a lower link configuration (known-bad
 * ones too, last). Not when the same mode's retrain itself failed: the
 * sink did not show it cannot hold it.
 */
static bool steps_down_only(const struct lg_machine *m) {
	return m->plan_steps_down && m->plan_has_from;
}

static void next_candidate(struct lg_machine *m, const struct lg_machine_facts *facts,
		struct lg_actions *out) {
	while (m->order_next < m->order_len && m->tests < m->config->max_tests) {
		const struct lg_mode *mode = &facts->modes->modes[m->order[m->order_next++]];
		if (m->plan_same_tested && m->plan_has_from &&
				lg_mode_equal(mode, &m->plan_from)) {
			continue; // its test failed already
		}
		if (steps_down_only(m) && !below_ceiling(facts, &m->plan_ceiling, mode)) {
			continue; // the sink did not hold the link that ran
		}
		m->tests++;
		m->plan_mode = *mode;
		m->await = MACHINE_AWAIT_CANDIDATE_TEST;
		emit_mode(out, LG_ACTION_TEST, mode, "candidate");
		return;
	}
	if (m->plan == MACHINE_PLAN_RECOMMEND) {
		// No opinion for the compositor; if it finds no mode either, the
		// backoff turns the output on once the kernel takes one (P1).
		emit(out, LG_ACTION_RECOMMEND);
	}
	if (m->plan == MACHINE_PLAN_ERRORS) {
		// Nothing at a lower link passes: the running mode stays,
		// the errors stay reported, no modeset.
		end_plan(m);
		if (m->state == LG_LINK_BAD) {
			// The sink lost lock while this plan waited at the gate:
			// its modeset was to retrain the link, and none came.
			begin_plan(m, MACHINE_PLAN_UNLOCKED, facts, out);
			return;
		}
		if (m->stepped_down) {
			// The plan cancelled the quiet period's timer: again.
			arm(m, out, MACHINE_TIMER_QUIET, quiet_ms(m, facts->now_ms));
		}
		return;
	}
	// A retrain for the sink that found nothing the kernel takes is no
	// step down that found nothing smaller.
	fail(m, facts, out, facts->modes->len == 0 ? LG_FAILURE_NO_MODES :
		m->plan == MACHINE_PLAN_UNLOCKED && steps_down_only(m) ?
		LG_FAILURE_NONE_LOWER : LG_FAILURE_ALL_REJECTED);
}

static void candidates(struct lg_machine *m, const struct lg_machine_facts *facts,
		struct lg_actions *out) {
	if (!build_order(m, facts)) {
		fail(m, facts, out, LG_FAILURE_PROBE);
		return;
	}
	next_candidate(m, facts, out);
}

static void probe(struct lg_machine *m, struct lg_actions *out) {
	m->await = MACHINE_AWAIT_PROBE;
	emit(out, LG_ACTION_PROBE);
}

/*
 * The link keeps failing at a mode it can carry: step down to a mode that
 * the kernel trains at a lower link (begin_step_down()), and space modesets
 * by a backoff, which doubles each time the link flaps again after a step
 * back up, and at each flap back at the best mode.
 */
static void enter_flapping(struct lg_machine *m, struct lg_actions *out) {
	// What begin_step_down() decides next.
	bool paced = m->stepped_down || m->pacing;
	if (m->backoff_ms == 0 || m->stepped_up || paced) {
		m->backoff_ms = grow_backoff(m);
	}
	m->stepped_up = false;
	set_state(m, out, LG_LINK_FLAPPING);
	struct lg_action *action = emit(out, LG_ACTION_FLAPPING);
	action->ms = m->backoff_ms;
	action->why = paced ? "as often below the link it stepped down from: "
		"back to the best mode, no further step down" :
		"stepping down to a lower link";
}

/*
 * P3: one step down per flapping episode, below the link of the mode that
 * ran (a glitch is no training failure: the kernel lowered nothing). When
 * the link flaps as much below it, bandwidth is not the cause: the best
 * mode again, no further step down, until a quiet period.
 */
static void begin_step_down(struct lg_machine *m, const struct lg_machine_facts *facts) {
	if (m->stepped_down || m->pacing) {
		m->stepped_down = false;
		m->pacing = true;
		m->plan = MACHINE_PLAN_BAD;
		return;
	}
	m->plan = MACHINE_PLAN_STEP_DOWN;
	if (facts->current == NULL) {
		return;
	}
	m->stepped_down = true;
	m->ceiling = running_ceiling(m, facts);
}

/*
 * The sink lost lock again at the mode retrained for it, within the flap
 * window of the loss before: retraining does not hold it.
 */
static bool unlocked_again(const struct lg_machine *m,
		const struct lg_machine_facts *facts) {
	return m->unlock_retrained && facts->current != NULL &&
		lg_mode_same_timing(facts->current, &m->unlock_mode) &&
		facts->now_ms - m->unlock_ms <= m->config->flap_window_ms;
}

/*
 * A modeset that starts over (a client's retry, the compositor's own) or
 * a new sink or output: the sink's lost lock before it says nothing of
 * the mode it trains.
 */
static void forget_unlock(struct lg_machine *m) {
	m->unlock_retrained = false;
	m->unlock_step_down = false;
}

static bool can_act(const struct lg_machine *m, const struct lg_machine_facts *facts) {
	return m->config->recover && facts->connected && facts->has_output &&
		!m->session_away;
}

static void begin_plan(struct lg_machine *m, enum machine_plan plan,
		const struct lg_machine_facts *facts, struct lg_actions *out) {
	if (!can_act(m, facts)) {
		return;
	}
	if (plan != MACHINE_PLAN_RECOMMEND && plan != MACHINE_PLAN_RETRY) {
		uint64_t wait = gate_wait(m, plan, facts->now_ms);
		if (wait > 0) {
			gate(m, facts, out, plan, wait);
			return;
		}
		cancel_timer(m, out);
	}
	if (quiet(m, facts)) {
		// A plan that waited until the link was quiet: the flapping
		// episode is over, this plan goes to the best mode (P4), and
		// a step down that waited answers its BAD instead (P8).
		end_episode(m);
		if (plan == MACHINE_PLAN_STEP_DOWN && !LG_MUTANT(STEP_DOWN_ON_QUIET_LINK)) {
			plan = MACHINE_PLAN_BAD;
		}
		// A retrain for the sink that waited on a fallback: the
		// modeset goes straight to the best mode, as BAD's would (P7).
		if (plan == MACHINE_PLAN_UNLOCKED && !m->unlock_step_down &&
				!at_requested(facts)) {
			plan = MACHINE_PLAN_BAD;
		}
	}
	m->plan = plan;
	m->plan_steps_down = plan == MACHINE_PLAN_ERRORS ||
		(plan == MACHINE_PLAN_UNLOCKED && m->unlock_step_down);
	if (plan != MACHINE_PLAN_UNLOCKED) {
		m->unlock_step_down = false; // this plan's modeset answers it
	}
	m->plan_has_from = facts->current != NULL;
	if (facts->current != NULL) {
		m->plan_from = *facts->current;
		m->plan_ceiling = running_ceiling(m, facts);
	}
	m->plan_from_link = m->running_link;
	m->plan_same_tested = false;
	m->plan_probed = false;
	m->requested_rejected = false;
	m->order_len = 0;
	m->tests = 0;
	switch (plan) {
	case MACHINE_PLAN_STEP_DOWN:
		begin_step_down(m, facts);
		probe(m, out);
		return;
	case MACHINE_PLAN_BAD:
		// At the requested mode there is nothing better to plan for: the
		// same mode first, without a probe (the kernel may still fit it at
		// a lower bpp). On a fallback the list may have grown (P4).
		if (at_requested(facts) && !known_bad_here(m, facts, facts->current)) {
			m->await = MACHINE_AWAIT_SAME_TEST;
			emit_mode(out, LG_ACTION_TEST, facts->current, "same mode");
			return;
		}
		m->unlock_step_down = false;
		probe(m, out);
		return;
	case MACHINE_PLAN_UNLOCKED:
		if (!m->unlock_step_down) {
			// A modeset retrains the link the driver lost.
			m->unlock_retrained = true;
			m->unlock_mode = *facts->current;
			// The window runs from when the sink was seen unlocked,
			// not from this retrain: the budget may hold it back for
			// seconds, while the sink reports the same loss again.
			m->unlock_ms = m->unlock_seen_ms;
			m->await = MACHINE_AWAIT_SAME_TEST;
			emit_mode(out, LG_ACTION_TEST, facts->current, "same mode");
			return;
		}
		m->unlock_step_down = false;
		probe(m, out);
		return;
	case MACHINE_PLAN_RECOMMEND:
		candidates(m, facts, out);
		return;
	default:
		probe(m, out);
		return;
	}
}

static void handle_link_bad(struct lg_machine *m, const struct lg_machine_facts *facts,
		struct lg_actions *out) {
	if (!facts->connected || !facts->has_output) {
		return;
	}
	if (!m->config->recover) {
		m->bad_pending = true;
		set_state(m, out, LG_LINK_BAD);
		return;
	}
	if (!facts->enabled && m->state != LG_LINK_FAILED) {
		return; // the compositor turned it off: nothing to retrain
	}
	m->bad_pending = true;
	m->last_fault_ms = facts->now_ms;
	if (m->state != LG_LINK_FLAPPING && m->state != LG_LINK_FAILED) {
		set_state(m, out, LG_LINK_BAD);
	}
	if (m->session_away) {
		return; // answered when the session is back
	}
	// Within the budget's wait or the backoff, the link failed again at
	// the mode it was left at: that counts as a flap too (P3), when it
	// comes; its plan does not count it again.
	bool gated = m->timer == MACHINE_TIMER_GATE ||
		budget_wait(m, facts->now_ms) > 0 || backoff_wait(m, facts->now_ms) > 0;
	if (gated && facts->current != NULL && flap_record(m)) {
		enter_flapping(m, out);
		begin_plan(m, MACHINE_PLAN_STEP_DOWN, facts, out);
		return;
	}
	begin_plan(m, MACHINE_PLAN_BAD, facts, out);
}

static const char *step_why(enum machine_plan plan) {
	switch (plan) {
	case MACHINE_PLAN_STEP_DOWN:
		return "flapping: a mode at a lower link";
	case MACHINE_PLAN_UNLOCKED:
		return "the sink lost lock: a mode at a lower link";
	case MACHINE_PLAN_ERRORS:
		return "symbol errors: a mode at a lower link";
	default:
		return "candidate passed its test";
	}
}

static void handle_tested(struct lg_machine *m, const struct lg_machine_event *event,
		const struct lg_machine_facts *facts, struct lg_actions *out) {
	if (m->await == MACHINE_AWAIT_SAME_TEST) {
		if (!event->ok) {
			m->plan_same_tested = true;
			m->requested_rejected = facts->requested != NULL &&
				lg_mode_same_timing(facts->current, facts->requested);
			probe(m, out);
			return;
		}
		// An unlock is no BAD: a second one at this mode steps down
		// (handle_sink_unlocked) under the sink ceiling.
		if (m->plan != MACHINE_PLAN_UNLOCKED && flap_record(m)) {
			enter_flapping(m, out);
			begin_step_down(m, facts);
			if (!m->pacing) {
				probe(m, out);
				return;
			}
		}
		commit(m, facts, out, facts->current, "same mode passed its test");
		return;
	}
	if (m->await != MACHINE_AWAIT_CANDIDATE_TEST) {
		return;
	}
	const struct lg_mode mode = m->plan_mode;
	if (!event->ok) {
		if (facts->requested != NULL && lg_mode_same_timing(&mode, facts->requested)) {
			m->requested_rejected = true;
		}
		if (m->plan == MACHINE_PLAN_RETRY) {
			retry_result(m, out, LG_RETRY_REJECTED);
			return;
		}
		next_candidate(m, facts, out);
		return;
	}
	if (m->plan == MACHINE_PLAN_RECOMMEND) {
		end_plan(m);
		emit_mode(out, LG_ACTION_RECOMMEND, &mode, "candidate passed its test");
		return;
	}
	if (m->plan == MACHINE_PLAN_STEP_UP && facts->current != NULL &&
			lg_mode_equal(&mode, facts->current)) {
		// Nothing better than what runs passes: no modeset for it (P8).
		// Only a quiet link ends the episode (a step up the
		// compositor's fallback asked for comes after settle_ms); the
		// step down's ceiling holds until then.
		end_plan(m);
		if (quiet(m, facts)) {
			rest(m, facts, out);
			return;
		}
		set_state(m, out, running_state(m, facts));
		if (m->stepped_down) {
			// The compositor's modeset cancelled the quiet period's
			// timer: again, or the ceiling would hold for good.
			arm(m, out, MACHINE_TIMER_QUIET, quiet_ms(m, facts->now_ms));
		}
		return;
	}
	commit(m, facts, out, &mode, step_why(m->plan));
}

static void handle_probed(struct lg_machine *m, const struct lg_machine_event *event,
		const struct lg_machine_facts *facts, struct lg_actions *out) {
	if (m->await != MACHINE_AWAIT_PROBE) {
		return;
	}
	if (!event->ok) {
		if (m->plan == MACHINE_PLAN_RETRY) {
			retry_result(m, out, LG_RETRY_UNAVAILABLE);
		} else if (facts->connected) {
			fail(m, facts, out, LG_FAILURE_PROBE);
		} else {
			end_plan(m); // an unplug, not a failure
		}
		return;
	}
	m->plan_probed = true;
	// The list changed by a rung of the kernel's ladder, not by the link
	// a compositor's modeset trained since the last probe.
	bool lowered = event->modes_changed && !m->list_stale;
	m->list_stale = false;
	if (m->plan == MACHINE_PLAN_RETRY) {
		m->plan_mode = *facts->requested;
		m->await = MACHINE_AWAIT_CANDIDATE_TEST;
		emit_mode(out, LG_ACTION_TEST, facts->requested, "retry");
		return;
	}
	// A BAD on a fallback with the list as it was: the link failed at a
	// mode the kernel still fits, a flap (P3), not a rung of the ladder.
	if (m->plan == MACHINE_PLAN_BAD && m->bad_pending && !lowered &&
			facts->current != NULL && listed(facts->modes, facts->current) &&
			flap_record(m)) {
		enter_flapping(m, out);
		begin_step_down(m, facts);
	}
	if (facts->modes->len == 0) {
		fail(m, facts, out, LG_FAILURE_NO_MODES);
		return;
	}
	candidates(m, facts, out);
}

/* Why the requested mode is not the one committed. */
static enum lg_fallback_reason fallback_reason(const struct lg_machine *m,
		const struct lg_machine_facts *facts) {
	switch (m->plan) {
	case MACHINE_PLAN_STEP_DOWN:
		return LG_FALLBACK_FLAPPING;
	case MACHINE_PLAN_UNLOCKED:
		return LG_FALLBACK_SINK_UNLOCKED;
	case MACHINE_PLAN_ERRORS:
		return LG_FALLBACK_LINK_ERRORS;
	default:
		break;
	}
	if (!listed_timing(facts->modes, facts->requested)) {
		return LG_FALLBACK_MODE_PRUNED;
	}
	if (m->requested_rejected) {
		return LG_FALLBACK_TEST_FAILED;
	}
	// Not tried: skipped as known bad, or above the flapping ceiling.
	return known_bad_here(m, facts, facts->requested) ?
		LG_FALLBACK_KNOWN_BAD : LG_FALLBACK_FLAPPING;
}

/* Whether the policy ranks a above b as fallbacks for the requested mode. */
static bool ranks_above(const struct lg_machine *m, const struct lg_machine_facts *facts,
		const struct lg_mode *a, const struct lg_mode *b) {
	struct lg_mode pair[] = { *b, *a };
	const struct lg_mode_list list = { .modes = pair, .len = 2, .cap = 2 };
	size_t order[2];
	size_t n = lg_policy_rank(m->config->policy, &m->config->floors,
		facts->requested, &list, NULL, order);
	return n > 0 && order[0] == 1;
}

/*
 * Whether the policy ranks mode above the mode the plan started from (the
 * plan's tiers aside): a step up, reported as one and never as a fallback,
 * although the requested mode does not run yet.
 */
static bool ranks_above_from(const struct lg_machine *m,
		const struct lg_machine_facts *facts, const struct lg_mode *mode) {
	return m->plan_has_from && ranks_above(m, facts, mode, &m->plan_from);
}

static void handle_committed(struct lg_machine *m, const struct lg_machine_event *event,
		const struct lg_machine_facts *facts, struct lg_actions *out) {
	if (m->await != MACHINE_AWAIT_COMMIT) {
		return;
	}
	const struct lg_mode mode = m->plan_mode;
	modeset_returned(m, facts->now_ms);
	// A failed commit may have trained nothing; the sink is left alone
	// for the settle time all the same.
	link_changed(m, facts);
	// The retrain for the sink's lost lock counts while its mode runs,
	// retrained: a failed commit of it retrained nothing (the sink reports
	// the same loss again), and after another mode a loss is a first one.
	if (m->unlock_retrained &&
			event->ok != lg_mode_same_timing(&mode, &m->unlock_mode)) {
		m->unlock_retrained = false;
	}
	if (!event->ok) {
		// Failed after its test passed: the monitor does not take it.
		add_known_bad(m, out, &mode, link_config(facts, &mode), "commit failed");
		if (m->plan == MACHINE_PLAN_RETRY) {
			retry_result(m, out, LG_RETRY_REJECTED);
			return;
		}
		if (!m->plan_probed) {
			// The same mode, unprobed: the others are still to be seen.
			m->plan_same_tested = true;
			probe(m, out);
			return;
		}
		next_candidate(m, facts, out);
		return;
	}
	m->bad_pending = false;
	forget_sink_reads(m);
	m->running_link = link_config(facts, &mode);
	if (m->plan == MACHINE_PLAN_STEP_UP) {
		m->stepped_up = true;
	}
	if (m->plan == MACHINE_PLAN_RETRY) {
		// An explicit request overrides the flapping backoff and what
		// the sink did not hold.
		calm_down(m);
		forget_unlock(m);
		m->sink_ceiling = (struct machine_ceiling){0};
		emit(out, LG_ACTION_RETRY_RESULT)->retry = LG_RETRY_COMMITTED;
		set_state(m, out, LG_LINK_RETRAINING);
	} else if (m->state != LG_LINK_FLAPPING) {
		set_state(m, out, LG_LINK_RETRAINING);
	}
	if (facts->requested != NULL && !lg_mode_same_timing(&mode, facts->requested) &&
			!(m->plan_has_from && lg_mode_same_timing(&mode, &m->plan_from))) {
		struct lg_action *action = emit(out, ranks_above_from(m, facts, &mode) ?
			LG_ACTION_STEP_UP : LG_ACTION_FALLBACK);
		action->reason = fallback_reason(m, facts);
		action->mode = mode;
		action->has_mode = true;
		action->from = m->plan_has_from ? m->plan_from : *facts->requested;
		m->fallen_back = true;
		m->has_off_requested = true;
		m->off_requested = mode;
		if (action->reason == LG_FALLBACK_MODE_PRUNED ||
				action->reason == LG_FALLBACK_TEST_FAILED) {
			// The link could not carry it: remembered for the next start.
			bool ran = m->plan_has_from &&
				lg_mode_same_timing(&m->plan_from, facts->requested);
			add_known_bad(m, out, facts->requested, ran ? m->plan_from_link :
				link_config(facts, facts->requested),
				"the link could not carry it");
		}
	}
	if (steps_down_only(m) && !lg_mode_same_timing(&mode, &m->plan_from) &&
			!above_sink_ceiling(m, facts, &m->plan_from)) {
		m->sink_ceiling = m->plan_ceiling;
	}
	end_plan(m);
	arm(m, out, MACHINE_TIMER_SETTLE, m->config->settle_ms);
}

static void handle_settled(struct lg_machine *m, const struct lg_machine_facts *facts,
		struct lg_actions *out) {
	if (m->state == LG_LINK_RETRAINING) {
		set_state(m, out, running_state(m, facts));
	}
	// A mode retrained for a sink that lost lock has not shown it holds:
	// the sink tells later than the settle time.
	bool doubted = m->unlock_retrained && facts->requested != NULL &&
		lg_mode_same_timing(facts->requested, &m->unlock_mode);
	if (at_requested(facts) && !doubted) {
		emit_mode(out, LG_ACTION_KNOWN_BAD_HELD, facts->requested, "held");
		if (m->fallen_back && m->state == LG_LINK_GOOD) {
			m->fallen_back = false;
			emit(out, LG_ACTION_RESTORED);
		}
	}
	// Under the sink's ceiling the settle time proves nothing (the sink
	// tells later): the backoff is reset once the link is quiet.
	if (m->state == LG_LINK_FLAPPING || m->stepped_down || m->sink_ceiling.clock_khz != 0) {
		arm(m, out, MACHINE_TIMER_QUIET, quiet_ms(m, facts->now_ms));
		return;
	}
	if (!LG_MUTANT(BACKOFF_NEVER_RESETS)) {
		m->backoff_ms = 0;
	}
}

/*
 * Off the requested mode at a mode the policy ranks below another of the
 * kernel's list (the compositor set a fallback of linkguard's that the
 * link has outgrown): a plan would step up. After a compositor's modeset
 * the list may be of another link: the plan probes, and makes no modeset
 * when nothing better passes.
 */
static bool below_pick(struct lg_machine *m, const struct lg_machine_facts *facts) {
	if (facts->requested == NULL || facts->current == NULL || at_requested(facts) ||
			!can_act(m, facts)) {
		return false;
	}
	if (m->list_stale) {
		return true;
	}
	if (!build_order(m, facts) || m->order_len == 0) {
		return false;
	}
	// A mode the policy ranks lower comes first only by the plan's tiers
	// (a sink ceiling the running mode is above): the running mode works,
	// and a modeset to that one would step down on a quiet link (P8).
	const struct lg_mode *pick = &facts->modes->modes[m->order[0]];
	return !lg_mode_same_timing(pick, facts->current) &&
		ranks_above(m, facts, pick, facts->current);
}

/*
 * P4, P7: quiet for a flap window since the last fault. One plan straight
 * to the policy's pick, never one mode per quiet period; the backoff is
 * kept until that mode has held, so that a flap right after it doubles it.
 */
static void handle_quiet(struct lg_machine *m, const struct lg_machine_facts *facts,
		struct lg_actions *out) {
	end_episode(m);
	if (below_pick(m, facts)) {
		begin_plan(m, MACHINE_PLAN_STEP_UP, facts, out);
		return;
	}
	if (LG_MUTANT(MODESET_AFTER_QUIET) && facts->current != NULL &&
			can_act(m, facts)) {
		commit(m, facts, out, facts->current, "quiet");
		return;
	}
	rest(m, facts, out);
}

/* The plan's timer, if it is due. */
static void plan_timer(struct lg_machine *m, const struct lg_machine_facts *facts,
		struct lg_actions *out) {
	if (m->timer_ms > facts->now_ms) {
		return; // the hold's time or the read's, not the plan's
	}
	enum machine_timer kind = m->timer;
	m->timer = MACHINE_TIMER_NONE;
	switch (kind) {
	case MACHINE_TIMER_NONE:
		return;
	case MACHINE_TIMER_SETTLE:
		handle_settled(m, facts, out);
		return;
	case MACHINE_TIMER_GATE:;
		enum machine_plan plan = m->gated_plan;
		m->gated_plan = MACHINE_PLAN_NONE;
		begin_plan(m, plan, facts, out);
		return;
	case MACHINE_TIMER_BACKOFF:
		begin_plan(m, MACHINE_PLAN_BACKOFF, facts, out);
		return;
	case MACHINE_TIMER_QUIET:
		handle_quiet(m, facts, out);
		return;
	case MACHINE_TIMER_STEP_UP:
		begin_plan(m, MACHINE_PLAN_STEP_UP, facts, out);
		return;
	}
}

static void handle_timer(struct lg_machine *m, const struct lg_machine_facts *facts,
		struct lg_actions *out) {
	m->armed_ms = 0; // it fired
	if (m->holding && m->hold_ms != 0 && m->hold_ms <= facts->now_ms) {
		m->hold_ms = 0;
		emit_mode(out, LG_ACTION_KNOWN_BAD_HELD, &m->hold_mode, "ran at rest");
	}
	// The plan's time, if due too, comes after the read's answer: what
	// the sink trained goes with a commit that held.
	if (!read_due(m, facts, out)) {
		plan_timer(m, facts, out);
	}
}

/* The incident is over: the sink or the output it concerned is gone. */
static void drop_incident(struct lg_machine *m, struct lg_actions *out) {
	end_plan(m);
	cancel_timer(m, out);
	m->gated_plan = MACHINE_PLAN_NONE;
	m->bad_pending = false;
	forget_unlock(m);
	forget_sink_reads(m);
}

static void handle_retry(struct lg_machine *m, const struct lg_machine_facts *facts,
		struct lg_actions *out) {
	// A retry waits for the link to settle; one of its own is under way.
	// With the budget spent (P2) it could not commit: nothing is probed
	// or tested for it.
	if (!can_act(m, facts) || facts->requested == NULL ||
			m->state == LG_LINK_BAD || m->timer == MACHINE_TIMER_SETTLE ||
			budget_wait(m, facts->now_ms) > 0) {
		emit(out, LG_ACTION_RETRY_RESULT)->retry = LG_RETRY_UNAVAILABLE;
		return;
	}
	begin_plan(m, MACHINE_PLAN_RETRY, facts, out);
}

/*
 * The requested mode rule: whether the mode the compositor committed is
 * linkguard's rather than its own choice. It is when it is the
 * recommendation for a new output, the fallback that ran before the commit
 * applied once more (a request_state the compositor handled late, as labwc
 * does), or linkguard's last mode off the requested one on an output that
 * ran none (sway stores a request_state as its configuration and applies
 * it to the replugged output).
 */
static bool linkguards_mode(const struct lg_machine *m,
		const struct lg_machine_facts *facts) {
	const struct lg_mode *mode = facts->current;
	const struct lg_mode *previous = facts->previous;
	bool took_recommendation = facts->recommended != NULL &&
		lg_mode_same_timing(facts->recommended, mode);
	bool kept_fallback = previous != NULL && facts->requested != NULL &&
		!lg_mode_same_timing(previous, facts->requested) &&
		lg_mode_same_timing(previous, mode);
	bool restarted_at_fallback = previous == NULL && m->has_off_requested &&
		lg_mode_same_timing(&m->off_requested, mode);
	if (LG_MUTANT(REQUESTED_FORGOTTEN_AFTER_FALLBACK)) {
		return took_recommendation;
	}
	return took_recommendation || kept_fallback || restarted_at_fallback;
}

static void handle_mode_set(struct lg_machine *m, const struct lg_machine_facts *given,
		struct lg_actions *out) {
	// The compositor's own choice becomes the requested mode; the rest of
	// the step sees it so.
	struct lg_machine_facts facts_now = *given;
	const struct lg_machine_facts *facts = &facts_now;
	if (given->current != NULL &&
			(given->requested == NULL || !linkguards_mode(m, given))) {
		emit_mode(out, LG_ACTION_REQUESTED, given->current, "the compositor's own");
		facts_now.requested = given->current;
	}
	// A compositor's modeset trains the link afresh, maybe at another
	// link than the list at the last probe was read at.
	end_plan(m);
	m->list_stale = true;
	if (facts->current != NULL) {
		m->running_link = link_config(facts, facts->current);
	}
	m->bad_pending = false;
	forget_unlock(m);
	forget_sink_reads(m);
	m->sink_ceiling = (struct machine_ceiling){0};
	if (m->state == LG_LINK_FLAPPING && m->timer == MACHINE_TIMER_QUIET) {
		return;
	}
	if (m->state == LG_LINK_FLAPPING) {
		arm(m, out, MACHINE_TIMER_QUIET, quiet_ms(m, facts->now_ms));
		return;
	}
	cancel_timer(m, out);
	m->gated_plan = MACHINE_PLAN_NONE;
	set_state(m, out, running_state(m, facts));
	if (at_requested(facts) && m->fallen_back) {
		m->fallen_back = false;
		emit(out, LG_ACTION_RESTORED);
	}
	if (below_pick(m, facts)) {
		// A fallback the compositor set, as it stored it (P4): once
		// the link has settled, a plan from the requested mode.
		arm(m, out, MACHINE_TIMER_STEP_UP, m->config->settle_ms);
	}
}

/*
 * The sink reports its lanes unlocked or not aligned with link-status GOOD:
 * the driver lost the link without telling (amdgpu, nouveau and msm retrain
 * inside the driver; i915 once it set retrain_disabled). The same mode
 * first, as for BAD: a modeset retrains the link. Dark again at that mode
 * within the flap window: the modes the kernel trains at a lower link
 * configuration than that one (the flapping step's rule, below_ceiling()),
 * which becomes the sink's ceiling; nothing is pruned, the sink's list is
 * the one to choose from. The budget and the flap count bound it as any BAD.
 */
static void handle_sink_unlocked(struct lg_machine *m,
		const struct lg_machine_facts *facts, struct lg_actions *out) {
	if (!facts->connected || !facts->has_output || !facts->enabled ||
			facts->current == NULL || !m->config->recover || m->session_away) {
		return;
	}
	// A recovery under way retrains the link with its modeset; a failed
	// one tries again at its backoff, not at every read of the sink.
	if (m->await != MACHINE_AWAIT_NONE || m->state == LG_LINK_BAD ||
			m->state == LG_LINK_FAILED) {
		return;
	}
	m->last_fault_ms = facts->now_ms;
	if (m->state != LG_LINK_FLAPPING) {
		set_state(m, out, LG_LINK_BAD);
	}
	// Judged now, kept until the plan begins: it may wait at the gate
	// longer than the window, while the sink keeps reporting.
	m->unlock_step_down = m->unlock_step_down || unlocked_again(m, facts);
	m->unlock_seen_ms = facts->now_ms;
	begin_plan(m, MACHINE_PLAN_UNLOCKED, facts, out);
}

/*
 * The sink's symbol error verdict (m->link_errors): above the threshold
 * the link is degraded even at the requested mode, before the picture
 * fails. With link_errors_step_down each verdict above it steps down once,
 * to a mode the kernel trains at a lower link configuration, within the
 * budget, as for a lost lock.
 */
static void handle_link_health(struct lg_machine *m,
		const struct lg_machine_facts *facts, struct lg_actions *out) {
	bool settled = m->plan == MACHINE_PLAN_NONE && m->timer != MACHINE_TIMER_SETTLE &&
		m->timer != MACHINE_TIMER_GATE &&
		(m->state == LG_LINK_GOOD || m->state == LG_LINK_DEGRADED);
	if (!settled || !facts->enabled || facts->current == NULL) {
		return;
	}
	set_state(m, out, running_state(m, facts));
	if (m->link_errors) {
		m->last_fault_ms = facts->now_ms;
	}
	if (m->link_errors && m->config->link_errors_step_down) {
		begin_plan(m, MACHINE_PLAN_ERRORS, facts, out);
	}
}

/*
 * Symbol errors per lane and minute above which the link is degraded.
 * DisplayPort asks 8b/10b links for a bit error rate of 10^-9 or better;
 * a bit error corrupts at least one 10-bit symbol, so at the compliance
 * limit a lane at R Mbit/s counts up to R x 10^6 x 10^-9 x 60 = 0.06 R
 * symbol errors a minute: 97 at RBR, 162 at HBR, 324 at HBR2, 486 at HBR3.
 * A cable above that is out of specification: sparkles, then lost lock.
 */
static uint32_t errors_threshold(const struct lg_machine *m,
		const struct lg_sink_errors *errors) {
	uint32_t configured = m->config->link_errors_per_min;
	return configured != 0 ? configured : errors->rate_mbps * 6 / 100;
}

static void open_window(struct lg_machine *m, uint64_t now) {
	m->window_open = true;
	m->window_ms = now;
	memset(m->window_errors, 0, sizeof(m->window_errors));
}

/*
 * The sink's error verdict. The counters are cleared by every read: each
 * read's counts add to a minute's window. The rates come when the window
 * is full, or as soon as a lane passed the threshold within it; the
 * verdict with them when it changes, and again while the errors go on at
 * another mode (after a step down). The first read after a modeset holds
 * the training's errors: it only opens the window.
 */
static void count_errors(struct lg_machine *m, const struct lg_machine_facts *facts,
		struct lg_actions *out) {
	const struct lg_sink_errors *errors = facts->sink_errors;
	uint64_t now = facts->now_ms;
	if (errors == NULL) {
		return;
	}
	if (m->errors_discard || errors->valid == 0) {
		m->errors_discard = false;
		open_window(m, now);
		return;
	}
	if (!m->window_open) {
		open_window(m, now);
	}
	uint32_t threshold = errors_threshold(m, errors);
	// A window cut short is judged by its count, which already passed a
	// minute's allowance; one the reads stretched past a minute by its
	// count per minute.
	uint64_t elapsed = now - m->window_ms;
	uint64_t span = elapsed > MACHINE_ERRORS_WINDOW_MS ?
		elapsed : MACHINE_ERRORS_WINDOW_MS;
	bool over = false;
	for (uint32_t lane = 0; lane < 4; lane++) {
		if (errors->valid & (1u << lane)) {
			m->window_errors[lane] += errors->count[lane];
			over = over || (uint64_t)m->window_errors[lane] *
				MACHINE_ERRORS_WINDOW_MS / span > threshold;
		}
	}
	if (!over && elapsed < MACHINE_ERRORS_WINDOW_MS) {
		return;
	}
	struct lg_action *action = emit(out, LG_ACTION_ERROR_RATES);
	action->threshold = threshold;
	for (uint32_t lane = 0; lane < 4; lane++) {
		// A window cut short by the threshold is scaled to a minute too:
		// its count alone already passed a minute's allowance.
		uint64_t per_min = (uint64_t)m->window_errors[lane] *
			MACHINE_ERRORS_WINDOW_MS / (elapsed > 0 ? elapsed : 1);
		action->rates[lane] = per_min > UINT32_MAX ? UINT32_MAX : (uint32_t)per_min;
	}
	open_window(m, now);
	if (LG_MUTANT(ERROR_VERDICT_INVERTED)) {
		over = !over;
	}
	bool moved = facts->current != NULL &&
		!lg_mode_same_timing(facts->current, &m->verdict_mode);
	if (m->verdict_sent && over == m->link_errors && !(over && moved)) {
		return;
	}
	m->verdict_sent = true;
	m->verdict_mode = facts->current != NULL ? *facts->current : (struct lg_mode){0};
	m->link_errors = over;
	action->verdict = true;
	action->over = over;
	handle_link_health(m, facts, out);
}

/*
 * The sink's unlock debounce: lanes unlocked at two reads sink_settle_ms
 * apart, with no modeset between (one trains the link afresh), are a dark
 * link; a read that finds them locked starts over, and so does a report.
 * One unlocked read is no verdict: the sink may still be locking.
 */
static void handle_sink_read(struct lg_machine *m,
		const struct lg_machine_facts *facts, struct lg_actions *out) {
	// A verdict's plan may be under way after this: the dark link is
	// still reported, and waits for it (handle_sink_unlocked()).
	count_errors(m, facts, out);
	bool at_once = LG_MUTANT(UNLOCK_WITHOUT_DEBOUNCE) && facts->sink_unlocked;
	if (!at_once && (!facts->sink_unlocked || !m->sink_unlocked)) {
		m->sink_unlocked = facts->sink_unlocked;
		m->sink_unlocked_ms = facts->now_ms;
		return;
	}
	uint64_t unlocked = facts->now_ms - m->sink_unlocked_ms;
	if (!at_once && unlocked < m->config->sink_settle_ms) {
		return;
	}
	m->sink_unlocked = false;
	emit(out, LG_ACTION_SINK_DARK)->ms =
		unlocked < UINT32_MAX ? (uint32_t)unlocked : UINT32_MAX;
	handle_sink_unlocked(m, facts, out);
}

/*
 * The known-bad hold: a mode that runs at rest (good or degraded, which a
 * test or a failed commit leaves alone) for settle_ms has held, also where
 * the compositor set it (a start or a replug at a mode that failed before),
 * and is remembered so: the store forgets its failures, and ignores a mode
 * it has no record of. A failure comes within that time (i915 trains
 * during the modeset and reports BAD from its worker right after).
 */
static void watch_hold(struct lg_machine *m, const struct lg_machine_facts *facts,
		struct lg_actions *out) {
	bool at_rest = facts->connected && facts->enabled && facts->current != NULL &&
		(m->state == LG_LINK_GOOD || m->state == LG_LINK_DEGRADED);
	bool same = m->holding && at_rest && lg_mode_equal(&m->hold_mode, facts->current);
	if (!same) { // else still running, or held already
		m->holding = at_rest;
		if (at_rest) {
			uint32_t settle_ms = m->config->settle_ms;
			m->hold_mode = *facts->current;
			m->hold_ms = facts->now_ms + (settle_ms > 0 ? settle_ms : 1);
		}
	}
	// Also after the timer fired for one of the two: armed for the other.
	sync_timer(m, out);
}

static void dispatch(struct lg_machine *m, const struct lg_machine_event *event,
		const struct lg_machine_facts *facts, struct lg_actions *out) {
	switch (event->type) {
	case LG_MACHINE_LINK_BAD:
		link_changed(m, facts);
		handle_link_bad(m, facts, out);
		return;
	case LG_MACHINE_HOTPLUG:
		link_changed(m, facts);
		return;
	case LG_MACHINE_TESTED:
		handle_tested(m, event, facts, out);
		return;
	case LG_MACHINE_PROBED:
		handle_probed(m, event, facts, out);
		return;
	case LG_MACHINE_COMMITTED:
		handle_committed(m, event, facts, out);
		return;
	case LG_MACHINE_TIMER:
		handle_timer(m, facts, out);
		return;
	case LG_MACHINE_PLUG:
	case LG_MACHINE_OUTPUT_NEW:
		link_changed(m, facts);
		return;
	case LG_MACHINE_UNPLUG:
	case LG_MACHINE_SINK_SWAP:
		drop_incident(m, out);
		forget_verdict(m);
		calm_down(m);
		m->sink_ceiling = (struct machine_ceiling){0};
		// known_bad.c forgets them with the sink
		m->n_failed = 0;
		m->failed_head = 0;
		if (event->type == LG_MACHINE_SINK_SWAP) {
			m->fallen_back = false;
			m->has_off_requested = false;
		}
		// FAILED stays, so that a replug that works is reported restored.
		if (m->state != LG_LINK_FAILED) {
			set_state(m, out, LG_LINK_GOOD);
		}
		return;
	case LG_MACHINE_SESSION_AWAY:
		m->session_away = true;
		end_plan(m);
		cancel_timer(m, out);
		return;
	case LG_MACHINE_SESSION_BACK:
		m->session_away = false;
		if (m->bad_pending || m->state == LG_LINK_FAILED) {
			begin_plan(m, m->bad_pending ? MACHINE_PLAN_BAD :
				MACHINE_PLAN_BACKOFF, facts, out);
			return;
		}
		// What the timer dropped while away was to bring: a commit
		// that settles, the quiet period that lifts a ceiling.
		if (m->state == LG_LINK_RETRAINING) {
			arm(m, out, MACHINE_TIMER_SETTLE, m->config->settle_ms);
		} else if (m->state == LG_LINK_FLAPPING || m->stepped_down ||
				m->sink_ceiling.clock_khz != 0) {
			arm(m, out, MACHINE_TIMER_QUIET, quiet_ms(m, facts->now_ms));
		}
		return;
	case LG_MACHINE_RETRY:
		handle_retry(m, facts, out);
		return;
	case LG_MACHINE_RECOMMEND:
		if (!facts->connected || !facts->has_output) {
			emit(out, LG_ACTION_RECOMMEND);
			return;
		}
		if (facts->requested == NULL) {
			const struct lg_mode *reference = reference_mode(facts);
			if (reference == NULL) {
				emit(out, LG_ACTION_RECOMMEND);
				fail(m, facts, out, LG_FAILURE_NO_MODES);
				return;
			}
			// What the compositor would have picked: a retry goes back to it.
			emit_mode(out, LG_ACTION_REQUESTED, reference, "preferred");
		}
		m->plan = MACHINE_PLAN_RECOMMEND;
		m->plan_has_from = false;
		m->plan_same_tested = false;
		m->tests = 0;
		candidates(m, facts, out);
		return;
	case LG_MACHINE_OUTPUT_GONE:
		drop_incident(m, out);
		forget_verdict(m);
		return;
	case LG_MACHINE_OUTPUT_DISABLED:
		drop_incident(m, out);
		if (m->state != LG_LINK_FAILED) {
			set_state(m, out, LG_LINK_GOOD);
		}
		return;
	case LG_MACHINE_MODE_SET:
		link_changed(m, facts);
		handle_mode_set(m, facts, out);
		return;
	case LG_MACHINE_SINK_READ:
		handle_sink_read(m, facts, out);
		sink_was_read(m, facts);
		if (m->await == MACHINE_AWAIT_NONE) {
			plan_timer(m, facts, out);
		}
		return;
	}
}

void lg_machine_step(struct lg_machine *m, const struct lg_machine_event *event,
		const struct lg_machine_facts *facts, struct lg_actions *out) {
	out->len = 0;
	m->now_ms = facts->now_ms;
	dispatch(m, event, facts, out);
	if (!can_read(m, facts)) {
		m->read_ms = 0; // read again after the next change
		m->failed_reads = 0;
	}
	watch_hold(m, facts, out);
}
