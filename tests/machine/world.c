#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <core/names.h>
#include "oracle.h"
#include "world.h"

static void violate(struct world *w, const char *property, const char *detail) {
	if (w->violation == NULL) {
		w->violation = property;
		snprintf(w->detail, sizeof(w->detail), "%s", detail);
	}
}

/* The kernel's link choice, as the sim's backend tells the core. */
static bool world_link_for(void *data, const struct lg_mode *mode,
		struct lg_link_params *link) {
	struct world *w = data;
	return w->link.sink != NULL && sim_link_choose(&w->link, mode, link);
}

static void world_facts(void *data, struct lg_machine_facts *facts) {
	struct world *w = data;
	*facts = (struct lg_machine_facts){
		.now_ms = w->now,
		.connected = w->connected,
		.has_output = w->has_output,
		.enabled = w->enabled,
		.requested = w->has_requested ? &w->requested : NULL,
		.current = w->has_current ? &w->current : NULL,
		.previous = w->has_previous ? &w->previous : NULL,
		.recommended = w->has_recommend ? &w->recommend : NULL,
		.modes = &w->modes,
		.known_bad = &w->known_bad,
		.link_for = world_link_for,
		.link_data = w,
	};
}

/* With w->trace: what the machine asked of the kernel, and the answer. */
static bool traced(const struct world *w, const char *what, const struct lg_mode *mode,
		bool ok) {
	if (w->trace) {
		char buf[64];
		fprintf(stderr, "  %8llu %s %s: %s\n", (unsigned long long)w->now, what,
			mode != NULL ? lg_mode_format(mode, buf, sizeof(buf)) : "",
			ok ? "ok" : "failed");
	}
	return ok;
}

static enum lg_probe_result world_probe(void *data, bool *changed) {
	struct world *w = data;
	if (w->gone_at_probe) {
		// The sink left: the step ends unanswered, and the unplug is
		// fed once it is over (feed()), as src/recovery.c does.
		w->gone_at_probe = false;
		traced(w, "probe: gone", NULL, false);
		return LG_PROBE_GONE;
	}
	struct lg_mode_list list;
	lg_mode_list_init(&list);
	bool ok = traced(w, "probe", NULL, w->connected && sim_link_probe(&w->link, &list));
	*changed = !lg_mode_list_equal(&list, &w->modes);
	if (ok) {
		lg_mode_list_copy(&w->modes, &list);
	}
	lg_mode_list_finish(&list);
	return ok ? LG_PROBE_OK : LG_PROBE_FAILED;
}

static bool world_test(void *data, const struct lg_mode *mode) {
	struct world *w = data;
	return traced(w, "test", mode, w->connected && sim_link_mode_valid(&w->link, mode));
}

/*
 * A retry or the picture is due at the latest by at: P4's bound reaches
 * it, whatever comes meanwhile.
 */
static void expect_by(struct world *w, uint64_t at) {
	if (at > w->retry_by) {
		w->retry_by = at;
	}
}

/*
 * P4, P7, P8: something from outside the machine happened; also a fault
 * it hears of only through its next test.
 */
static void mark_fault(struct world *w) {
	w->last_fault_at = w->now;
	// Failed (reported), the retry after a fault comes at most as long
	// after it as it has failed by then plus backoff_min_ms, at most
	// backoff_max_ms.
	if (w->failed_since != WORLD_NEVER) {
		uint64_t wait = w->now - w->failed_since + w->config.backoff_min_ms;
		expect_by(w, w->now + (wait < w->config.backoff_max_ms ? wait :
			w->config.backoff_max_ms));
	}
	w->modesets_after_fault = 0;
	w->backoff_tried = false;
	w->fault_in_feed = true;
	w->sink_verdict = false;
}

/* A modeset, or the output gone: what the sink reported before is past. */
static void forget_sink_reads(struct world *w) {
	w->dark_read_at = WORLD_NEVER;
	w->errors_discard = true; // the next read counts the training
	w->window_at = WORLD_NEVER;
}

/* An output that runs: its sink may be read. */
static bool output_on(const struct world *w) {
	return w->connected && w->has_output && w->enabled;
}

/*
 * A hotplug event or a modeset (a commit, failed or not): the link trains,
 * and the machine reads the sink settle_ms later, not before.
 */
static void link_changed(struct world *w) {
	w->changed_at = w->now;
	w->read_due_at = output_on(w) ? w->now + (w->config.settle_ms > 0 ?
		w->config.settle_ms : 1) : WORLD_NEVER;
	if (!output_on(w)) {
		w->failed_reads = 0;
	}
}

/* P2: linkguard's modesets in any window of the budget; P7 after the last fault. */
static void record_modeset(struct world *w) {
	if (++w->modesets_after_fault > WORLD_MODESETS_AFTER_FAULT) {
		violate(w, "P7 two modesets after the last fault",
			"a third modeset after the last fault");
	}
	w->modeset_at[w->modeset_head] = w->now;
	w->modeset_head = (w->modeset_head + 1) % WORLD_MAX_COMMITS;
	if (w->modesets < WORLD_MAX_COMMITS) {
		w->modesets++;
	}
	uint32_t in_window = 0;
	for (uint32_t i = 0; i < w->modesets; i++) {
		in_window += w->now - w->modeset_at[i] < MACHINE_BUDGET_WINDOW_MS;
	}
	if (in_window > w->max_in_window) {
		w->max_in_window = in_window;
	}
	if (in_window > MACHINE_BUDGET_MODESETS) {
		violate(w, "P2 bounded modesets", "more modesets in the window than the budget");
	}
}

/* Whether the sink holds mode at the link i915 trains it at. */
static bool holds(const struct world *w, const struct lg_mode *mode) {
	uint32_t lock_max = w->link.lock_max_mbps;
	struct lg_link_params params;
	return sim_link_choose(&w->link, mode, &params) &&
		(lock_max == 0 || params.rate_mbps <= lock_max);
}

/*
 * Symbol errors per lane and minute above what DisplayPort allows a lane
 * at rate_mbps: a bit error rate of 10^-9, 0.06 x the rate.
 */
static bool over_threshold(uint64_t per_min, uint32_t rate_mbps) {
	return per_min * 100 > (uint64_t)rate_mbps * 6;
}

/*
 * Whether mode runs without symbol errors above the threshold at the link
 * i915 trains it at.
 */
static bool clean(const struct world *w, const struct lg_mode *mode) {
	struct lg_link_params params;
	return !sim_link_choose(&w->link, mode, &params) ||
		params.rate_mbps < w->link.errors_min_mbps ||
		!over_threshold(w->link.errors_per_min, params.rate_mbps);
}

/* The link i915 trains mode at now, by the oracle; zero: none. */
static struct lg_link_params oracle_params(const struct world *w, const struct lg_mode *mode) {
	struct lg_link_params link;
	const struct sim_sink *sink = w->link.sink;
	if (sink == NULL || !oracle_train_link(mode, sink->max_bpc, &w->link.max, &link)) {
		return (struct lg_link_params){0};
	}
	return link;
}

/*
 * That link as rate and lanes in one number, to key failures by (not their
 * product: HBR x4 is no HBR2 x2); 0: none.
 */
static uint64_t oracle_link(const struct world *w, const struct lg_mode *mode) {
	struct lg_link_params link = oracle_params(w, mode);
	return (uint64_t)link.rate_mbps << 8 | link.lanes;
}

/*
 * What P4 lets the machine avoid until a replug or retry: modes the kernel
 * trains at the link configuration mode trained at, or above.
 */
static void note_unheld(struct world *w, const struct lg_mode *mode) {
	struct lg_link_params link = oracle_params(w, mode);
	oracle_keep_lowest(&w->unheld_link, &link);
}

/* Whether the kernel trains mode below every configuration the sink did not hold. */
static bool below_unheld(const struct world *w, const struct lg_mode *mode) {
	struct lg_link_params link = oracle_params(w, mode);
	return oracle_link_below(&link, &w->unheld_link);
}

/* P4 evidence: mode failed at link, the world saw it. */
static void note_failed(struct world *w, const struct lg_mode *mode, uint64_t link) {
	for (uint32_t i = 0; i < w->n_failed; i++) {
		if (lg_mode_equal(&w->failed[i].mode, mode) && w->failed[i].link == link) {
			return;
		}
	}
	w->failed[w->failed_head] = (struct world_failure){ *mode, link };
	w->failed_head = (w->failed_head + 1) % WORLD_MAX_FAILED;
	if (w->n_failed < WORLD_MAX_FAILED) {
		w->n_failed++;
	}
}

/* Whether the world saw mode fail at the link it would train at now. */
static bool failed_here(const struct world *w, const struct lg_mode *mode) {
	uint64_t link = oracle_link(w, mode);
	for (uint32_t i = 0; i < w->n_failed; i++) {
		if (lg_mode_equal(&w->failed[i].mode, mode) && w->failed[i].link == link) {
			return true;
		}
	}
	return false;
}

/* The running mode held at its link: its failures there are past. */
static void forget_failed(struct world *w, const struct lg_mode *mode, uint64_t link) {
	for (uint32_t i = 0; i < w->n_failed; i++) {
		if (lg_mode_equal(&w->failed[i].mode, mode) && w->failed[i].link == link) {
			w->failed[i].link = UINT64_MAX; // a link no mode trains at
		}
	}
}

/* The kernel's answer to a training, with the link it tried before lowering. */
static void trained(struct world *w, const struct lg_mode *mode, uint64_t link,
		enum sim_train_result result) {
	if (result == SIM_LOWERED || result == SIM_REJECTED) {
		note_failed(w, mode, link);
	}
}

/* What the kernel does after a modeset trained the link. */
static void train(struct world *w, const struct lg_mode *mode) {
	uint64_t link = oracle_link(w, mode);
	enum sim_train_result result = sim_link_train(&w->link, mode);
	trained(w, mode, link, result);
	switch (result) {
	case SIM_TRAINED:
		// Trained, yet the sink does not hold it: the evidence the
		// machine may step down from (P4).
		if (!holds(w, mode)) {
			note_unheld(w, mode);
		}
		break;
	case SIM_RETRY:
		w->kernel_retry_at = w->now + 1;
		break;
	case SIM_LOWERED:
	case SIM_REJECTED:
		w->hotplug_at = w->now + 1;
		break;
	default:
		break;
	}
}

/*
 * P3: the step down of a flapping report, its first commit (after it, a
 * commit that failed leads to a fallback), to a mode the policy ranks
 * below the one that ran, lowers the link: by the oracle, the link i915
 * trains it at is below the running mode's (oracle_link_below()).
 * As for P4 and P8, away from a mode the world saw fail at its link, or
 * one the sink did not hold or erred at (the machine steps down by
 * bandwidth from those), is no flapping step down.
 */
static void check_step_down(struct world *w, const struct lg_mode *mode) {
	const struct sim_sink *sink = w->link.sink;
	bool flapped = w->flapped_in_run;
	w->flapped_in_run = false;
	if (!flapped || !w->has_current || !w->enabled ||
			!w->has_requested || sink == NULL || failed_here(w, &w->current) ||
			lg_mode_same_timing(&w->current, mode) ||
			!below_unheld(w, &w->current) ||
			!oracle_better(w->oracle_policy, &w->current, mode, &w->requested)) {
		return;
	}
	w->step_downs++;
	struct lg_link_params from = oracle_params(w, &w->current), to = oracle_params(w, mode);
	if (from.lanes == 0 || to.lanes == 0 || oracle_link_below(&to, &from)) {
		return;
	}
	char a[64], b[64], detail[160];
	snprintf(detail, sizeof(detail), "stepped down from %s (%u x %u) to %s (%u x %u)",
		lg_mode_format(&w->current, a, sizeof(a)), from.rate_mbps, from.lanes,
		lg_mode_format(mode, b, sizeof(b)), to.rate_mbps, to.lanes);
	violate(w, "P3 a step down lowers the link", detail);
}

/*
 * P3 for the sink: a step down after a dark link's report or an error
 * verdict at the running mode (the next commit, nothing from outside
 * between), to a mode the policy ranks below it, trains at a lower link
 * configuration (oracle_link_below()) than the running mode: one
 * the kernel trains at the same link buys the sink nothing. Away from a
 * mode the world saw fail at its link (a failed machine's backoff, which
 * the verdict does not hurry) is no step for the sink.
 */
static void check_sink_step_down(struct world *w, const struct lg_mode *mode) {
	bool verdict = w->sink_verdict;
	w->sink_verdict = false;
	if (!verdict || !w->has_current || !w->enabled || !w->has_requested ||
			failed_here(w, &w->current) || lg_mode_same_timing(&w->current, mode) ||
			!oracle_better(w->oracle_policy, &w->current, mode, &w->requested)) {
		return;
	}
	w->sink_step_downs++;
	struct lg_link_params from = oracle_params(w, &w->current), to = oracle_params(w, mode);
	if (from.lanes != 0 && oracle_link_below(&to, &from)) {
		return;
	}
	char a[64], b[64], detail[160];
	snprintf(detail, sizeof(detail), "the sink's step down from %s (%u x %u) to %s (%u x %u)",
		lg_mode_format(&w->current, a, sizeof(a)), from.rate_mbps, from.lanes,
		lg_mode_format(mode, b, sizeof(b)), to.rate_mbps, to.lanes);
	violate(w, "P3 a step down lowers the link", detail);
}

static bool world_commit(void *data, const struct lg_action *action) {
	struct world *w = data;
	const struct lg_mode *mode = &action->mode;
	record_modeset(w);
	// P8: on a link quiet for a flap window, never a mode the policy
	// ranks below the one that runs: GOOD, trained and held by the sink
	// (a backoff that answers an old BAD at last is no step down), known
	// bad last, as for P4: away from a mode the world saw fail at its
	// link is no step down.
	bool quiet = w->now - w->last_fault_at > w->config.flap_window_ms &&
		w->link.status == LG_LINK_STATUS_GOOD && sim_link_sink_locked(&w->link);
	w->quiet_commits += quiet && w->has_current && w->enabled && w->has_requested;
	if (quiet && w->has_current && w->enabled && w->has_requested &&
			(!failed_here(w, &w->current) || failed_here(w, mode)) &&
			oracle_better(w->oracle_policy, &w->current, mode, &w->requested)) {
		violate(w, "P8 no step down on a quiet link", "stepped down on a quiet link");
	}
	check_step_down(w, mode);
	check_sink_step_down(w, mode);
	if (!w->has_current || !lg_mode_equal(&w->current, mode)) {
		w->last_change_at = w->now;
	}
	if (w->fail_next_commit || !w->connected) {
		w->fail_next_commit = false;
		link_changed(w);
		note_failed(w, mode, oracle_link(w, mode));
		if (w->has_current && lg_mode_equal(mode, &w->current)) {
			w->hold_at = WORLD_NEVER; // it holds from its last failure
		}
		mark_fault(w); // the monitor did not take it: counts from here
		return traced(w, "commit", mode, false);
	}
	traced(w, "commit", mode, true);
	if (w->has_current && lg_mode_equal(&w->current, mode)) {
		w->same_mode_commits++;
	}
	// linkguard's commit trains the link, whatever ran: src/recovery.c
	// blanks the CRTC first where the kernel would make it no modeset.
	sim_link_off(&w->link);
	w->current = *mode;
	w->has_current = true;
	w->enabled = true;
	w->committed_in_run = true;
	w->bad_unanswered = false;
	forget_sink_reads(w);
	link_changed(w);
	w->stored = *mode; // through request_state, as the preload commits
	w->has_stored = true;
	train(w, mode);
	return true;
}

/* Whether a mode of list passes its test, known-bad ones left out if asked. */
static bool passes(const struct world *w, const struct lg_mode_list *list,
		const struct lg_mode_list *skip) {
	for (size_t i = 0; i < list->len; i++) {
		if (skip != NULL && lg_mode_list_find(skip, &list->modes[i]) >= 0) {
			continue;
		}
		if (sim_link_mode_valid(&w->link, &list->modes[i])) {
			return true;
		}
	}
	return false;
}

/* Whether the sink holds some mode of list. */
static bool holds_one(const struct world *w, const struct lg_mode_list *list) {
	for (size_t i = 0; i < list->len; i++) {
		if (holds(w, &list->modes[i])) {
			return true;
		}
	}
	return false;
}

/* P5: reports say what happened, after it happened. */
static void check_report(struct world *w, const struct lg_action *action) {
	switch (action->type) {
	case LG_ACTION_STATE:
		if (w->driver.machine.state == LG_LINK_RETRAINING && !w->committed_in_run) {
			violate(w, "P5 truthful reports", "retraining reported before a commit");
		}
		if (w->driver.machine.state != LG_LINK_FAILED) {
			w->failed_since = WORLD_NEVER;
		} else if (w->failed_since == WORLD_NEVER) {
			w->failed_since = w->now;
		}
		return;
	case LG_ACTION_STEP_UP:
		w->last_fallback = action->mode;
		w->has_last_fallback = true;
		return;
	case LG_ACTION_FALLBACK:
		w->fallbacks++;
		w->last_fallback = action->mode;
		w->has_last_fallback = true;
		if (!w->committed_in_run || !w->has_current ||
				!lg_mode_equal(&action->mode, &w->current)) {
			violate(w, "P5 truthful reports", "fallback reported before its commit");
		}
		return;
	case LG_ACTION_FAILED:
		w->failures++;
		// A plan of its own timer (a backoff, a gate, a step up) failed
		// with nothing new from outside, not even a commit that failed:
		// the backoff has had its chance.
		w->backoff_tried = w->backoff_tried ||
			(w->feeding == LG_MACHINE_TIMER && !w->fault_in_feed);
		if (action->failure == LG_FAILURE_NO_MODES && w->modes.len > 0) {
			violate(w, "P5 truthful reports", "'no mode' with modes listed");
		}
		// A mode whose commit failed after its test is known bad now.
		if (action->failure == LG_FAILURE_ALL_REJECTED &&
				passes(w, &w->modes, &w->known_bad) &&
				w->modes.len <= w->config.max_tests) {
			violate(w, "P5 truthful reports", "'none could be set' while one passes");
		}
		return;
	default:
		return;
	}
}

static void world_act(void *data, const struct lg_action *action) {
	struct world *w = data;
	if (w->trace) {
		char buf[64];
		fprintf(stderr, "  %8llu action %d %s (%s) ms=%u state=%s\n",
			(unsigned long long)w->now, action->type,
			action->has_mode ? lg_mode_format(&action->mode, buf, sizeof(buf)) : "",
			action->why != NULL ? action->why : "", action->ms,
			lg_link_state_name(w->driver.machine.state));
	}
	check_report(w, action);
	switch (action->type) {
	case LG_ACTION_ARM_TIMER:
		w->timer_at = action->ms == 0 ? WORLD_NEVER : w->now + action->ms;
		return;
	case LG_ACTION_ERROR_RATES:
		w->got_rates = true;
		w->got_verdict = action->verdict;
		w->got_over = action->over;
		if (!w->reading) {
			violate(w, "sink error verdict", "a verdict without a read");
		}
		return;
	case LG_ACTION_SINK_DARK:
		w->dark_reported = true;
		if (!w->reading) {
			violate(w, "sink unlock debounce", "a dark link reported without a read");
		}
		return;
	case LG_ACTION_DISABLE:
		record_modeset(w);
		forget_sink_reads(w);
		w->read_due_at = WORLD_NEVER;
		if (w->modes.len > 0) {
			violate(w, "P1 never dark", "disabled while the kernel lists modes");
		}
		w->enabled = false;
		w->has_current = false;
		sim_link_off(&w->link);
		return;
	case LG_ACTION_FLAPPING:
		w->flapping_reports++;
		w->flapped_in_run = true;
		w->glitches = 0;
		return;
	case LG_ACTION_RECOMMEND:
		w->has_recommend = action->has_mode;
		w->recommend = action->mode;
		return;
	case LG_ACTION_RETRY_RESULT:
		w->retry_result = action->retry;
		return;
	case LG_ACTION_REQUESTED:
		w->requested = action->mode;
		w->has_requested = true;
		return;
	case LG_ACTION_KNOWN_BAD_ADD:
		if (lg_mode_list_find(&w->known_bad, &action->mode) < 0) {
			lg_mode_list_append(&w->known_bad, &action->mode);
		}
		return;
	case LG_ACTION_KNOWN_BAD_HELD:;
		ssize_t i = lg_mode_list_find(&w->known_bad, &action->mode);
		if (i >= 0) {
			w->known_bad.modes[i] = w->known_bad.modes[--w->known_bad.len];
		}
		return;
	default:
		return;
	}
}

static bool world_read_sink(void *data, bool *unlocked, struct lg_sink_errors *errors);
static void judge_read(struct world *w);

static const struct lg_driver_impl world_impl = {
	.facts = world_facts,
	.probe = world_probe,
	.test = world_test,
	.commit = world_commit,
	.read_sink = world_read_sink,
	.act = world_act,
};

/* The sink monitor decodes 8b/10b links only (core/dpcd.h). */
static bool sink_readable(const struct world *w) {
	return w->link.params.rate_mbps < 10000;
}

/* A link the kernel trained and reports GOOD that the sink does not hold. */
static bool sink_dark(const struct world *w) {
	return w->connected && w->has_output && w->enabled && !w->session_away &&
		w->link.status == LG_LINK_STATUS_GOOD && w->link.trained &&
		sink_readable(w) && !sim_link_sink_locked(&w->link);
}

static bool errors_now(const struct world *w) {
	return w->connected && w->enabled && sink_readable(w) &&
		over_threshold(sim_link_error_rate(&w->link), w->link.params.rate_mbps);
}

/* A verdict on the errors is due: they changed, or go on at another mode. */
static bool verdict_due(const struct world *w) {
	bool errors = errors_now(w);
	return errors != w->link_errors || (errors && w->has_current &&
		!lg_mode_same_timing(&w->current, &w->verdict_mode));
}

/*
 * Reads that matter, from the link as it is now: of a dark link, of a link
 * read unlocked once, of a link whose error verdict is due. The others
 * find what the last one found.
 */
static bool read_wanted(const struct world *w) {
	return sink_dark(w) || w->dark_read_at != WORLD_NEVER || verdict_due(w);
}

/*
 * The known-bad hold, from the world's evidence: a mode that failed runs,
 * link-status GOOD, good or degraded: once it has held for the settle time
 * since it came to rest there or last failed, it is no longer skipped.
 */
static void watch_hold(struct world *w) {
	enum lg_link_state state = w->driver.machine.state;
	bool running = w->has_current && w->enabled &&
		w->link.status == LG_LINK_STATUS_GOOD &&
		(state == LG_LINK_GOOD || state == LG_LINK_DEGRADED) &&
		(lg_mode_list_find(&w->known_bad, &w->current) >= 0 ||
		failed_here(w, &w->current));
	if (running && w->hold_at != WORLD_NEVER && lg_mode_equal(&w->holding, &w->current)) {
		return; // still waiting
	}
	w->hold_at = WORLD_NEVER;
	if (running) {
		w->holding = w->current;
		w->hold_at = w->now + w->config.settle_ms;
	}
}

static void held(struct world *w) {
	forget_failed(w, &w->holding, oracle_link(w, &w->holding));
	if (lg_mode_list_find(&w->known_bad, &w->holding) >= 0) {
		violate(w, "known-bad hold", "a mode that held for the settle time "
			"is still known bad");
	}
}

/* P1 applies: an output the compositor drives, the session ours, recovery on. */
static bool picture_due(const struct world *w) {
	return w->connected && w->has_output && !w->session_away && w->config.recover &&
		!w->link.retrain_disabled;
}

/*
 * P1's bound from the end of a refusal to the picture: backoff_min_ms plus
 * how long the kernel refused every mode the sink holds (or the output was
 * dark before), at most backoff_max_ms.
 */
static uint64_t refusal_bound(const struct world *w) {
	uint64_t bound = w->refused_ms + w->config.backoff_min_ms;
	return bound < w->config.backoff_max_ms ? bound : w->config.backoff_max_ms;
}

/* P4's bound: the last mode change comes at most this long after the last fault. */
static uint64_t rest_bound(const struct world *w) {
	uint64_t bound = w->config.flap_window_ms + w->config.settle_ms;
	// A retry, or the picture, due later than that (expect_by()).
	if (w->retry_by > w->last_fault_at + bound) {
		bound = w->retry_by - w->last_fault_at;
	}
	return bound;
}

/* P2: when the budget lets linkguard modeset again, by the world's count. */
static uint64_t budget_free_at(const struct world *w) {
	if (w->modesets < MACHINE_BUDGET_MODESETS) {
		return 0;
	}
	uint32_t oldest = (w->modeset_head + WORLD_MAX_COMMITS - MACHINE_BUDGET_MODESETS) %
		WORLD_MAX_COMMITS;
	return w->modeset_at[oldest] + MACHINE_BUDGET_WINDOW_MS;
}

/*
 * Whether the kernel takes a mode the sink holds: the start and end of
 * refusals, on a connected output, the session ours or not.
 */
static void watch_fit(struct world *w) {
	bool due = w->connected && w->has_output && w->config.recover;
	bool fits = due && world_mode_fits(w);
	if (fits && w->fits_since == WORLD_NEVER) {
		w->fits_since = w->now;
		if (w->unfit_since != WORLD_NEVER) {
			// Dark since before it, the refusal counts from then; a
			// shorter refusal after a longer one does not make the
			// longer one's retry due sooner.
			uint64_t start = w->dark_since < w->unfit_since ?
				w->dark_since : w->unfit_since;
			w->refused_ms = w->now - start;
			expect_by(w, w->now + refusal_bound(w));
		}
		w->unfit_since = WORLD_NEVER;
	} else if (!fits) {
		w->fits_since = WORLD_NEVER;
		if (!due) {
			w->unfit_since = WORLD_NEVER;
		} else if (w->unfit_since == WORLD_NEVER) {
			w->unfit_since = w->now;
		}
	}
}

/*
 * P1's deadline: dark (disabled or BAD) while the kernel takes a mode the
 * sink holds, the picture is due after the last of: it went dark, the
 * kernel took a mode again, the last fault (the machine hears of a BAD at
 * the uevent after it); at most as long after as it has been dark by
 * then plus backoff_min_ms, and at most backoff_max_ms; never before the
 * budget lets linkguard modeset (P2).
 */
static void watch_lit(struct world *w) {
	// Dark while the session was away is dark all the same.
	bool dark = w->connected && w->has_output && w->config.recover &&
		!w->link.retrain_disabled &&
		(!w->enabled || w->link.status == LG_LINK_STATUS_BAD);
	if (!dark) {
		w->dark_since = WORLD_NEVER;
		w->lit_due = WORLD_NEVER;
		return;
	}
	if (w->dark_since == WORLD_NEVER) {
		w->dark_since = w->now;
	}
	// The kernel's event after a training it failed is a fault still
	// to come: the deadline counts from it.
	if (!picture_due(w) || w->fits_since == WORLD_NEVER ||
			w->hotplug_at != WORLD_NEVER || w->kernel_retry_at != WORLD_NEVER) {
		w->lit_due = WORLD_NEVER;
		return;
	}
	uint64_t from = w->fits_since > w->dark_since ? w->fits_since : w->dark_since;
	from = w->last_fault_at > from ? w->last_fault_at : from;
	uint64_t wait = from - w->dark_since + w->config.backoff_min_ms;
	uint64_t due = from + (wait < w->config.backoff_max_ms ? wait : w->config.backoff_max_ms);
	uint64_t free_at = budget_free_at(w);
	w->lit_due = due > free_at ? due : free_at;
	expect_by(w, w->lit_due);
}

static void watch(struct world *w) {
	watch_fit(w);
	watch_lit(w);
}

/* P1's deadline passed: dark still, while a mode fits, is a violation. */
static void judge_lit(struct world *w) {
	watch(w);
	if (w->lit_due > w->now) {
		return;
	}
	w->lit_due = WORLD_NEVER;
	char detail[160];
	snprintf(detail, sizeof(detail), "dark since %llu ms, a mode taken since %llu ms, "
		"the last refusal %llu ms long: still dark at %llu ms",
		(unsigned long long)w->dark_since, (unsigned long long)w->fits_since,
		(unsigned long long)w->refused_ms, (unsigned long long)w->now);
	violate(w, "P1 never dark", detail);
}

static void feed(struct world *w, enum lg_machine_event_type type) {
	if (w->trace) {
		fprintf(stderr, "%8llu event %s\n", (unsigned long long)w->now,
			lg_machine_event_name(type));
	}
	w->committed_in_run = false;
	w->flapped_in_run = false;
	if (type != LG_MACHINE_TIMER) {
		mark_fault(w);
	}
	w->feeding = type;
	w->fault_in_feed = false;
	bool present = lg_driver_feed(&w->driver, type);
	if (w->reading) {
		judge_read(w);
	}
	watch_hold(w);
	watch_lit(w);
	if (!present) {
		world_unplug(w);
	}
}

void world_init(struct world *w, const char *sink) {
	*w = (struct world){
		.timer_at = WORLD_NEVER,
		.hotplug_at = WORLD_NEVER,
		.kernel_retry_at = WORLD_NEVER,
		.read_due_at = WORLD_NEVER,
		.dark_read_at = WORLD_NEVER,
		.window_at = WORLD_NEVER,
		.hold_at = WORLD_NEVER,
		.dark_since = WORLD_NEVER,
		.fits_since = WORLD_NEVER,
		.unfit_since = WORLD_NEVER,
		.failed_since = WORLD_NEVER,
		.lit_due = WORLD_NEVER,
		.link = { .name = "DP-1" },
	};
	for (size_t i = 0; i < WORLD_READS_PER_MIN; i++) {
		w->read_at[i] = WORLD_NEVER;
	}
	lg_machine_config_defaults(&w->config);
	w->config.link_errors_step_down = true;
	w->config.read_sink = true;
	w->config.sink_poll_ms = WORLD_SINK_POLL_MS;
	w->oracle_policy = w->config.policy;
	lg_driver_init(&w->driver, &w->config, &world_impl, w);
	lg_mode_list_init(&w->modes);
	lg_mode_list_init(&w->known_bad);
	world_plug(w, sink);
}

void world_copy(struct world *dst, const struct world *src) {
	*dst = *src;
	dst->driver.machine.config = &dst->config;
	dst->driver.data = dst;
	struct lg_machine *m = &dst->driver.machine;
	if (src->driver.machine.order != NULL) {
		m->order = malloc(m->order_cap * sizeof(*m->order));
		memcpy(m->order, src->driver.machine.order, m->order_cap * sizeof(*m->order));
	}
	lg_mode_list_init(&dst->modes);
	lg_mode_list_copy(&dst->modes, &src->modes);
	lg_mode_list_init(&dst->known_bad);
	lg_mode_list_copy(&dst->known_bad, &src->known_bad);
}

void world_finish(struct world *w) {
	lg_driver_finish(&w->driver);
	lg_mode_list_finish(&w->modes);
	lg_mode_list_finish(&w->known_bad);
}

/* As backend/drm: a uevent for the connector, link-status read. */
static void hotplug(struct world *w) {
	if (!w->connected || !w->has_output || w->session_away) {
		return;
	}
	link_changed(w);
	if (w->link.status != LG_LINK_STATUS_BAD) {
		feed(w, LG_MACHINE_HOTPLUG);
		return;
	}
	w->bad_unanswered = true;
	// P3 evidence: a BAD at a link the kernel did not lower, at a mode
	// it still takes.
	if (w->link.trained && w->has_current &&
			sim_link_mode_valid(&w->link, &w->current)) {
		w->glitch_at[w->glitches++ % 16] = w->now;
	}
	feed(w, LG_MACHINE_LINK_BAD);
}

void world_glitch(struct world *w) {
	if (sim_link_glitch(&w->link)) {
		w->hotplug_at = w->now + 1;
	}
	watch_lit(w);
}

void world_set_cable(struct world *w, const struct lg_link_params *cable) {
	uint64_t link = w->has_current ? oracle_link(w, &w->current) : 0;
	enum sim_train_result result = sim_link_set_cable(&w->link, cable);
	if (w->has_current) {
		trained(w, &w->current, link, result);
	}
	if (result == SIM_RETRY) {
		w->kernel_retry_at = w->now + 1;
	} else if (result == SIM_LOWERED) {
		w->hotplug_at = w->now + 1;
	}
	watch(w);
}

void world_reject_all(struct world *w, bool on) {
	w->link.reject_all = on;
	mark_fault(w);
	watch(w);
}

void world_lose_lock(struct world *w, uint32_t above_mbps) {
	sim_link_lose_lock(&w->link, above_mbps);
	watch(w);
}

void world_set_errors(struct world *w, uint32_t per_min) {
	sim_link_set_errors(&w->link, per_min);
}

void world_heal(struct world *w) {
	sim_link_heal_sink(&w->link);
	world_set_cable(w, &(struct lg_link_params){ 0 });
}

void world_unplug(struct world *w) {
	if (!w->connected) {
		return;
	}
	sim_link_unplug(&w->link);
	forget_sink_reads(w);
	w->bad_unanswered = false;
	w->verdict_sent = false; // nothing known of the next sink's errors
	w->link_errors = false;
	w->connected = false;
	w->glitches = 0; // a replug is a new link: its flaps count afresh
	w->unheld_link = (struct lg_link_params){0};
	lg_mode_list_clear(&w->modes);
	lg_mode_list_clear(&w->known_bad);
	w->n_failed = 0; // as known_bad_forget(): a replug tries every mode
	w->failed_head = 0;
	feed(w, LG_MACHINE_UNPLUG);
	w->has_output = false;
	w->has_recommend = false;
	w->enabled = false;
	w->has_current = false;
	link_changed(w); // no read until another output runs
	feed(w, LG_MACHINE_OUTPUT_GONE);
	watch(w);
}

/*
 * The requested mode rule, from the world's evidence: a mode the compositor
 * commits is linkguard's when it is the recommendation for the new output,
 * the fallback that ran applied once more (labwc's late request_state), or
 * on an output that ran none linkguard's last mode off the requested one
 * (sway's stored configuration); its own choice otherwise.
 */
static bool linkguards(const struct world *w, const struct lg_mode *mode) {
	if (w->has_recommend && lg_mode_same_timing(&w->recommend, mode)) {
		return true;
	}
	if (w->has_current && w->enabled) {
		return !lg_mode_same_timing(&w->current, &w->requested) &&
			lg_mode_same_timing(&w->current, mode);
	}
	return w->has_last_fallback && lg_mode_same_timing(&w->last_fallback, mode);
}

/* The compositor commits mode, its own choice or one of linkguard's. */
static void enable(struct world *w, const struct lg_mode *mode) {
	if (!w->connected || !w->has_output) {
		return;
	}
	bool becomes = !w->has_requested || !linkguards(w, mode);
	struct lg_mode expected = becomes ? *mode : w->requested;
	w->has_previous = w->has_current && w->enabled;
	w->previous = w->current;
	w->current = *mode;
	w->has_current = true;
	w->enabled = true;
	w->stored = *mode;
	w->has_stored = true;
	w->bad_unanswered = false;
	forget_sink_reads(w);
	link_changed(w);
	train(w, mode);
	feed(w, LG_MACHINE_MODE_SET);
	w->has_previous = false;
	w->has_recommend = false;
	if (!w->has_requested || !lg_mode_same_timing(&w->requested, &expected)) {
		violate(w, "requested mode rule", becomes ?
			"the compositor's own mode did not become the requested one" :
			"linkguard's mode replaced the requested one");
	}
}

/*
 * A new output: enabled at the stored mode when asked and listed,
 * else at linkguard's recommendation.
 */
static void plug(struct world *w, const char *name, bool at_stored) {
	const struct sim_sink *sink = sim_sink_find(name);
	const struct sim_sink *before = w->link.sink;
	if (w->connected) {
		world_unplug(w);
	}
	sim_link_plug(&w->link, sink);
	w->connected = true;
	link_changed(w);
	feed(w, LG_MACHINE_PLUG);
	if (before != NULL && before != sink) {
		// Another monitor (lg_connector_set_description): nothing asked
		// of the last one applies.
		w->has_requested = false;
		w->has_last_fallback = false;
		lg_mode_list_clear(&w->known_bad);
		w->bad_unanswered = false;
		feed(w, LG_MACHINE_SINK_SWAP);
	}
	w->has_output = true;
	sim_link_probe(&w->link, &w->modes);
	watch_fit(w);
	feed(w, LG_MACHINE_OUTPUT_NEW);
	ssize_t stored = at_stored && w->has_stored ?
		lg_mode_list_find(&w->modes, &w->stored) : -1;
	if (stored >= 0) {
		// The output's mode of that timing, as sway picks it from the
		// output's list: this monitor's, with its own flags.
		struct lg_mode mode = w->modes.modes[stored];
		enable(w, &mode);
		return;
	}
	// The recommendation, as lg_manager_recommend_state() asks for it.
	w->has_recommend = false;
	feed(w, LG_MACHINE_RECOMMEND);
	if (w->has_recommend) {
		struct lg_mode recommend = w->recommend;
		enable(w, &recommend);
	}
}

/* A compositor that enables a new output at linkguard's recommendation. */
void world_plug(struct world *w, const char *name) {
	plug(w, name, false);
}

void world_replug_stored(struct world *w) {
	if (w->link.sink != NULL) {
		plug(w, w->link.sink->name, true);
	}
}

void world_session(struct world *w, bool active) {
	w->session_away = !active;
	watch_fit(w);
	feed(w, active ? LG_MACHINE_SESSION_BACK : LG_MACHINE_SESSION_AWAY);
	if (active) {
		hotplug(w); // backend/drm looks at every connector again
	}
}

void world_vt_switch(struct world *w) {
	world_session(w, false);
	world_glitch(w);
	world_advance(w, 5);
	world_session(w, true);
}

enum lg_retry_result world_retry(struct world *w) {
	w->retry_result = LG_RETRY_UNAVAILABLE;
	// A committed retry tries what the sink did not hold: only what its
	// own commit shows counts from here. A refused one forgets nothing.
	struct lg_link_params unheld = w->unheld_link;
	w->unheld_link = (struct lg_link_params){0};
	feed(w, LG_MACHINE_RETRY);
	if (w->retry_result == LG_RETRY_COMMITTED) {
		w->glitches = 0; // an explicit request starts the count afresh
	} else {
		oracle_keep_lowest(&w->unheld_link, &unheld);
	}
	return w->retry_result;
}

void world_mode_set(struct world *w, const struct lg_mode *mode) {
	enable(w, mode);
}

void world_apply_late(struct world *w) {
	if (w->has_current && w->enabled) {
		struct lg_mode running = w->current;
		enable(w, &running);
	}
}

void world_disable(struct world *w) {
	if (!w->has_output) {
		return;
	}
	w->enabled = false;
	w->has_current = false;
	sim_link_off(&w->link);
	forget_sink_reads(w);
	link_changed(w);
	w->bad_unanswered = false;
	feed(w, LG_MACHINE_OUTPUT_DISABLED);
}

/*
 * What the counters hold at a read: errors_per_min x the time since the
 * read before, on each trained lane of an 8b/10b link (whole errors since
 * the clock's start, so that a minute of reads counts a minute's).
 */
static void count_errors(struct world *w) {
	struct lg_sink_errors *errors = &w->read_errors;
	*errors = (struct lg_sink_errors){ .rate_mbps = w->link.params.rate_mbps };
	if (w->link.trained && sink_readable(w)) {
		uint64_t per_min = sim_link_error_rate(&w->link);
		uint64_t count = per_min * w->now / WORLD_ERRORS_WINDOW_MS -
			per_min * w->last_read_at / WORLD_ERRORS_WINDOW_MS;
		for (uint32_t lane = 0; lane < w->link.params.lanes && lane < 4; lane++) {
			errors->valid |= 1u << lane;
			errors->count[lane] = count < UINT32_MAX ? (uint32_t)count : UINT32_MAX;
		}
	}
	w->last_read_at = w->now;
}

/*
 * The error verdict due at this read, from its counts: rates when a
 * minute's window is full or a lane passed 0.06 x the rate in it (a bit
 * error rate of 10^-9), a verdict with them when it changes or the errors
 * go on at another mode.
 */
static void judge_errors(struct world *w) {
	const struct lg_sink_errors *errors = &w->read_errors;
	w->expect_rates = false;
	w->expect_verdict = false;
	if (w->errors_discard || errors->valid == 0) {
		w->errors_discard = false;
		w->window_at = w->now;
		memset(w->window_errors, 0, sizeof(w->window_errors));
		return;
	}
	if (w->window_at == WORLD_NEVER) {
		w->window_at = w->now;
		memset(w->window_errors, 0, sizeof(w->window_errors));
	}
	// A minute's count: a window the reads stretched past a minute
	// scaled down to one.
	uint64_t elapsed = w->now - w->window_at;
	uint64_t span = elapsed > WORLD_ERRORS_WINDOW_MS ? elapsed : WORLD_ERRORS_WINDOW_MS;
	bool over = false;
	for (uint32_t lane = 0; lane < 4; lane++) {
		w->window_errors[lane] += errors->count[lane];
		over = over || over_threshold((uint64_t)w->window_errors[lane] *
			WORLD_ERRORS_WINDOW_MS / span, errors->rate_mbps);
	}
	if (!over && elapsed < WORLD_ERRORS_WINDOW_MS) {
		return;
	}
	w->expect_rates = true;
	w->window_at = w->now;
	memset(w->window_errors, 0, sizeof(w->window_errors));
	bool moved = w->has_current && !lg_mode_same_timing(&w->current, &w->verdict_mode);
	if (w->verdict_sent && over == w->link_errors && !(over && moved)) {
		return;
	}
	w->expect_verdict = true;
	w->verdict_sent = true;
	w->link_errors = over;
	w->verdict_mode = w->has_current ? w->current : (struct lg_mode){0};
	if (over && w->config.link_errors_step_down && w->has_current) {
		note_unheld(w, &w->current);
	}
}

/*
 * The wait before the next read: sink_poll_ms for a while after a change,
 * then longer; longer still after failed reads.
 */
static uint64_t poll_wait(const struct world *w) {
	uint64_t poll_ms = w->config.sink_poll_ms;
	uint64_t polls = w->now - w->changed_at < WORLD_WATCHFUL_POLLS * poll_ms ?
		1 : WORLD_IDLE_POLLS;
	if (w->failed_reads > 0) {
		polls = WORLD_IDLE_POLLS;
		for (uint32_t i = 1; i < w->failed_reads && polls < WORLD_MAX_BACKOFF_POLLS; i++) {
			polls *= 2;
		}
	}
	return polls * poll_ms;
}

/*
 * The sink read schedule, from the world's facts: a read only of an output
 * that runs, its session ours, never between a BAD and the commit that
 * answers it, never within settle_ms of a hotplug or a modeset, and at
 * the poll cadence, neither sooner nor later.
 */
static void check_read(struct world *w) {
	if (!output_on(w) || w->session_away) {
		violate(w, "sink read schedule", "a read of an output that is off, "
			"gone or not the session's");
	} else if (w->bad_unanswered) {
		violate(w, "sink read schedule", "a read between a BAD and the commit "
			"that answers it");
	} else if (w->now < w->changed_at + w->config.settle_ms) {
		violate(w, "sink read schedule", "a read within settle_ms of a hotplug "
			"or a modeset");
	} else if (w->now != w->read_due_at) {
		violate(w, "sink read schedule", "a read off the poll cadence");
	} else if (w->read_at[w->read_head] != WORLD_NEVER &&
			w->now - w->read_at[w->read_head] < WORLD_READS_WINDOW_MS) {
		violate(w, "sink read schedule", "more reads in a minute than the "
			"budget");
	}
	w->read_at[w->read_head] = w->now;
	w->read_head = (w->read_head + 1) % WORLD_READS_PER_MIN;
}

/*
 * The machine's READ_SINK: what the sink reports, with what the machine
 * must make of it (judge_read(), once its answer ran). As src/sink.c, a
 * link the kernel reports BAD is not read (no AUX): a failed read.
 */
static bool world_read_sink(void *data, bool *unlocked, struct lg_sink_errors *errors) {
	struct world *w = data;
	check_read(w);
	w->reading = true;
	w->expect_dark = false;
	w->expect_rates = false;
	w->expect_verdict = false;
	w->dark_reported = false;
	w->got_rates = false;
	w->got_verdict = false;
	*unlocked = false;
	bool read = w->connected && w->link.status == LG_LINK_STATUS_GOOD;
	w->failed_reads = read ? 0 : w->failed_reads + (w->failed_reads < 8);
	if (!read) {
		w->dark_read_at = WORLD_NEVER; // the debounce starts over
		w->read_due_at = w->now + poll_wait(w);
		return false;
	}
	count_errors(w);
	judge_errors(w);
	bool dark = sink_dark(w);
	if (!dark) {
		w->dark_read_at = WORLD_NEVER;
	} else if (w->dark_read_at == WORLD_NEVER) {
		w->dark_read_at = w->now;
	} else if (w->now - w->dark_read_at >= w->config.sink_settle_ms) {
		w->expect_dark = true;
		w->dark_read_at = WORLD_NEVER; // a report starts over
	}
	// The machine sees a loss at the read that reports it: dark again
	// there at the same mode within the flap window, retrained or not,
	// the spec lets it step down from that mode.
	if (w->expect_dark && w->has_dark && lg_mode_equal(&w->dark_mode, &w->current) &&
			w->now - w->dark_at <= w->config.flap_window_ms) {
		note_unheld(w, &w->current);
	}
	if (w->expect_dark) {
		w->has_dark = true;
		w->dark_mode = w->current;
		w->dark_at = w->now;
	}
	// Sooner while a second unlocked read is awaited.
	uint64_t unlocked_at = w->dark_read_at + w->config.sink_settle_ms;
	w->read_due_at = w->now + (w->dark_read_at == WORLD_NEVER ? poll_wait(w) :
		unlocked_at > w->now ? unlocked_at - w->now : 1);
	// A read is a fault once it shows a dark link or brings a verdict.
	if (w->expect_dark || w->expect_verdict) {
		mark_fault(w);
		w->sink_verdict = w->expect_dark || (w->expect_verdict && w->link_errors &&
			w->config.link_errors_step_down);
	}
	*unlocked = dark;
	*errors = w->read_errors;
	return true;
}

/*
 * Lanes unlocked at two reads the sink settle time apart, with no modeset
 * between, are a dark link the machine must report at the second, and
 * never before; the rates and the verdict are the counts the reads found.
 */
static void judge_read(struct world *w) {
	w->reading = false;
	if (w->dark_reported != w->expect_dark) {
		violate(w, "sink unlock debounce", w->expect_dark ?
			"unlocked at two reads the sink settle time apart, not reported" :
			"a dark link reported before two unlocked reads");
	}
	if (w->got_rates != w->expect_rates || w->got_verdict != w->expect_verdict ||
			(w->expect_verdict && w->got_over != w->link_errors)) {
		violate(w, "sink error verdict", "the rates or the verdict differ from "
			"the counts the reads found");
	}
	w->expect_dark = false;
	w->expect_verdict = false;
}

/*
 * A read was due and none came: right while a BAD waits for its commit or
 * the session is away (the machine tries again at the next poll), wrong
 * otherwise.
 */
static void read_missed(struct world *w) {
	if (!output_on(w)) {
		w->read_due_at = WORLD_NEVER;
		return;
	}
	if (w->bad_unanswered || w->session_away) {
		w->read_due_at = w->now + poll_wait(w);
		return;
	}
	// The budget spent: the read comes once the oldest is a minute old.
	uint64_t oldest = w->read_at[w->read_head];
	if (oldest != WORLD_NEVER && w->now - oldest < WORLD_READS_WINDOW_MS) {
		w->read_due_at = oldest + WORLD_READS_WINDOW_MS;
		return;
	}
	violate(w, "sink read schedule", "a read due at the poll cadence did not come");
	w->read_due_at = WORLD_NEVER;
}

static uint64_t next_due(const struct world *w) {
	const uint64_t at[] = {
		w->timer_at, w->hotplug_at, w->kernel_retry_at, w->read_due_at, w->hold_at,
		w->lit_due,
	};
	uint64_t due = WORLD_NEVER;
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		if (at[i] < due) {
			due = at[i];
		}
	}
	return due;
}

/* Runs the event due at w->now; kernel events first, as they were queued first. */
static void run_due(struct world *w) {
	if (w->kernel_retry_at <= w->now) {
		w->kernel_retry_at = WORLD_NEVER;
		uint64_t link = w->has_current ? oracle_link(w, &w->current) : 0;
		enum sim_train_result result = sim_link_retry(&w->link);
		if (w->has_current) {
			trained(w, &w->current, link, result);
		}
		if (result == SIM_LOWERED) {
			w->hotplug_at = w->now + 1;
		}
		return;
	}
	if (w->hotplug_at <= w->now) {
		w->hotplug_at = WORLD_NEVER;
		hotplug(w);
		watch_fit(w); // a link the kernel lowered may list nothing more
		return;
	}
	if (w->timer_at <= w->now) {
		w->timer_at = WORLD_NEVER;
		feed(w, LG_MACHINE_TIMER);
		return;
	}
	if (w->hold_at <= w->now) {
		w->hold_at = WORLD_NEVER;
		held(w);
		return;
	}
	if (w->read_due_at <= w->now) {
		read_missed(w);
		return;
	}
	if (w->lit_due <= w->now) {
		judge_lit(w);
	}
}

bool world_tick(struct world *w) {
	uint64_t due = next_due(w);
	if (due == WORLD_NEVER) {
		return false;
	}
	if (due > w->now) {
		w->now = due;
	}
	run_due(w);
	return true;
}

void world_advance(struct world *w, uint64_t ms) {
	uint64_t end = w->now + ms;
	for (int guard = 0; guard < 100000; guard++) {
		uint64_t due = next_due(w);
		if (due > end) {
			break;
		}
		if (due > w->now) {
			w->now = due;
		}
		run_due(w);
	}
	w->now = end;
}

/*
 * P4's deadline: the last mode change within its bound after the last
 * fault, and the settle time for it to show it held (the state it reports).
 */
static uint64_t rest_at(const struct world *w) {
	return w->last_fault_at + rest_bound(w) + w->config.settle_ms;
}

/* Runs due events, the clock stopping at P4's deadline too, until idle. */
void world_settle(struct world *w, uint64_t max_ms) {
	uint64_t end = w->now + max_ms;
	for (int guard = 0; guard < 100000 && !world_idle(w); guard++) {
		uint64_t due = next_due(w);
		uint64_t rest = rest_at(w);
		if (rest > w->now && rest < due) {
			due = rest;
		}
		if (due > end) {
			break;
		}
		if (due > w->now) {
			w->now = due;
		}
		run_due(w);
	}
}

/*
 * The spec's deadline after the last fault (P4's bound) has passed, and
 * nothing the world expects is pending: no kernel event, no hold, no
 * picture due (P1), no read that matters. The machine's timer may still be
 * armed: whatever it brings later is judged as it comes.
 */
bool world_idle(const struct world *w) {
	return w->hotplug_at == WORLD_NEVER && w->kernel_retry_at == WORLD_NEVER &&
		w->hold_at == WORLD_NEVER && w->lit_due == WORLD_NEVER && !read_wanted(w) &&
		w->now >= rest_at(w);
}

bool world_mode_fits(const struct world *w) {
	struct lg_mode_list list;
	lg_mode_list_init(&list);
	sim_link_probe(&w->link, &list);
	bool fits = passes(w, &list, NULL) && holds_one(w, &list);
	lg_mode_list_finish(&list);
	return fits;
}

void world_check_now(struct world *w) {
	// P1: connected, driven, the session ours, a mode that passes its
	// test, yet dark (disabled or BAD) with nothing scheduled.
	struct lg_mode_list list;
	lg_mode_list_init(&list);
	sim_link_probe(&w->link, &list);
	bool fits = passes(w, &list, NULL);
	bool dark = !w->enabled || w->link.status == LG_LINK_STATUS_BAD;
	// A link the sink does not hold is dark too, while it holds a mode
	// the kernel lists at the rate the kernel would train it.
	if (sink_dark(w) && holds_one(w, &list)) {
		dark = true;
	}
	if (w->connected && w->has_output && !w->session_away && fits && dark &&
			!w->link.retrain_disabled && world_idle(w) &&
			w->config.recover) {
		violate(w, "P1 never dark", "dark with a mode that fits and nothing scheduled");
	}
	// P1: failed, while the kernel takes a mode the sink holds, once its
	// backoff has tried again with nothing new from outside.
	if (w->driver.machine.state == LG_LINK_FAILED && w->backoff_tried &&
			w->connected && w->has_output && !w->session_away &&
			world_mode_fits(w) && !w->link.retrain_disabled && w->config.recover) {
		violate(w, "P1 never dark", "failed while a mode fits, after its backoff");
	}
	// P3: BADs at a link the kernel did not lower, flap_count within the
	// window (the specification's count), are answered by flapping.
	uint32_t n = w->glitches < 16 ? w->glitches : 16, recent = 0;
	for (uint32_t i = 0; i < n; i++) {
		recent += w->now - w->glitch_at[i] <= w->config.flap_window_ms;
	}
	if (recent >= w->config.flap_count &&
			w->driver.machine.state != LG_LINK_FLAPPING) {
		violate(w, "P3 flapping answered", "glitches within the window not answered");
	}
	// P4: idle, while the kernel takes a mode the sink holds, the episode
	// is over (good, or degraded by the sink's errors) and the mode is the
	// policy's pick for the kernel's list.
	const struct sim_sink *sink = w->link.sink;
	enum lg_link_state state = w->driver.machine.state;
	struct lg_mode pick;
	bool judged = world_idle(w) && picture_due(w) && w->enabled && w->has_current &&
		!w->link.reject_all && fits;
	if (judged && state != LG_LINK_GOOD && state != LG_LINK_DEGRADED &&
			world_mode_fits(w)) {
		char detail[160];
		snprintf(detail, sizeof(detail), "%s %llu ms after the last fault, past "
			"its bound", lg_link_state_name(state),
			(unsigned long long)(w->now - w->last_fault_at));
		violate(w, "P4 best mode for the link", detail);
	}
	if (judged && (state == LG_LINK_GOOD || state == LG_LINK_DEGRADED)) {
		struct lg_mode_list expected, skipped;
		lg_mode_list_init(&expected);
		oracle_list(sink, &w->link.max, &expected);
		lg_mode_list_init(&skipped);
		// Known bad: what the world saw fail at the link it would train
		// at now, never what the machine says it remembers; a mode that
		// runs and holds is not held against itself. Nor what the sink
		// cannot hold or sees errors at, nor what the kernel trains at a
		// link configuration not below one (oracle_link_below()) the sink did
		// not hold a mode at when trained (the machine steps down from
		// those until a replug or retry): the link's truth and the
		// world's evidence, not the machine's own ceiling. A sink that
		// lost lock once holds its mode again when retrained.
		for (size_t i = 0; i < list.len; i++) {
			const struct lg_mode *mode = &list.modes[i];
			bool fine = holds(w, mode) &&
				(!w->config.link_errors_step_down || clean(w, mode)) &&
				below_unheld(w, mode);
			if ((!fine || failed_here(w, mode)) &&
					!lg_mode_equal(&list.modes[i], &w->current)) {
				lg_mode_list_append(&skipped, &list.modes[i]);
			}
		}
		// Of the listed modes, those the kernel's atomic check takes.
		struct lg_mode_list trainable;
		lg_mode_list_init(&trainable);
		for (size_t i = 0; i < expected.len; i++) {
			if (oracle_trains(&expected.modes[i], &w->link.max, w->link.mst)) {
				lg_mode_list_append(&trainable, &expected.modes[i]);
			}
		}
		if (!lg_mode_list_equal(&expected, &list)) {
			violate(w, "oracle", "the kernel's list differs from the DP formulas'");
		} else if (oracle_pick(w->oracle_policy, w->has_requested ? &w->requested : NULL,
				&trainable, &skipped, &pick) && !lg_mode_equal(&pick, &w->current)) {
			char a[64], b[64];
			snprintf(w->detail, sizeof(w->detail), "runs %s, the pick is %s",
				lg_mode_format(&w->current, a, sizeof(a)),
				lg_mode_format(&pick, b, sizeof(b)));
			if (w->violation == NULL) {
				w->violation = "P4 best mode for the link";
			}
		}
		lg_mode_list_finish(&expected);
		lg_mode_list_finish(&trainable);
		lg_mode_list_finish(&skipped);
	}
	lg_mode_list_finish(&list);
}

const char *const world_ending_names[WORLD_N_ENDINGS] = {
	"at the pick within P4's bound", "nothing the sink holds is taken", "off",
	"unjudged",
};

enum world_ending world_judge_ending(struct world *w) {
	enum lg_link_state state = w->driver.machine.state;
	bool shows = w->enabled && (state == LG_LINK_GOOD || state == LG_LINK_DEGRADED);
	enum world_ending ending = !w->connected || !w->has_output ? WORLD_ENDS_OFF :
		!world_mode_fits(w) ? WORLD_ENDS_NOTHING_FITS :
		world_idle(w) && shows ? WORLD_ENDS_AT_PICK : WORLD_ENDS_UNJUDGED;
	if (ending == WORLD_ENDS_UNJUDGED) {
		char detail[160];
		snprintf(detail, sizeof(detail), "left alone %s, %s, while a mode fits",
			lg_link_state_name(state), world_idle(w) ? "idle" : "busy");
		violate(w, "every ending judged", detail);
	}
	uint64_t after = w->last_change_at > w->last_fault_at ?
		w->last_change_at - w->last_fault_at : 0;
	if (!w->judged) {
		w->judged = true;
		w->judged_after_ms = after;
		w->judged_modesets = w->modesets_after_fault;
	}
	if (ending == WORLD_ENDS_AT_PICK && after > rest_bound(w)) {
		char detail[160];
		snprintf(detail, sizeof(detail), "the last mode change came %llu ms after "
			"the last fault (bound %llu ms)", (unsigned long long)after,
			(unsigned long long)rest_bound(w));
		violate(w, "P4 within a quiet period", detail);
	}
	return ending;
}

enum world_ending world_leave_alone(struct world *w, uint64_t ms) {
	uint64_t end = w->now + ms;
	world_settle(w, ms);
	world_check_now(w);
	enum world_ending ending = world_judge_ending(w);
	// Then the machine's longest timers (a backoff, a quiet period)
	// once more: whatever it does is judged as it comes, and the ending
	// again if it did anything but read.
	uint64_t rest = (uint64_t)w->config.backoff_max_ms + w->config.flap_window_ms;
	if (w->violation == NULL && end > w->now) {
		uint32_t head = w->modeset_head, modesets = w->modesets;
		enum lg_link_state state = w->driver.machine.state;
		bool enabled = w->enabled;
		world_advance(w, end - w->now < rest ? end - w->now : rest);
		if (head != w->modeset_head || modesets != w->modesets ||
				state != w->driver.machine.state || enabled != w->enabled) {
			world_check_now(w);
			ending = world_judge_ending(w);
		}
	}
	return ending;
}
