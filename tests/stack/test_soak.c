/*
 * Fault soak: thousands of random link failures, heals, flaps, unplugs,
 * replugs, sink swaps and refused modesets across several connectors at
 * once, then every cable healed and every sink replugged. Afterwards each
 * connector must run its sink's preferred mode on a good link, no output
 * may have been destroyed but by an unplug, and the modesets must stay
 * bounded by the events (no loop). Meanwhile linkctl processes ask for
 * retries and come and go, some killed with their retry pending; at the end
 * a new client must see what the compositor has. The sanitizer build checks
 * for leaks.
 *
 * LINKGUARD_SOAK_EVENTS (default 10000) and LINKGUARD_SOAK_SEED change the
 * run; a failure prints the seed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include <wlr/types/wlr_output.h>
#include <linkguard/log.h>
#include <core/recovery.h>
#include "harness.h"
#include "soak_clients.h"
#include "test.h"

#define N_CONNECTORS 4
#define STEP_MS 2

static const char *const sinks[] = { "4k60", "1440p144", "1080p60-rbr" };
static const char *const rates[] = { "rbr", "hbr", "hbr2", "hbr3" };
static const char *const lanes[] = { "1", "2", "4" };

struct soak_connector {
	bool plugged, rejecting;
	const char *sink;
};

struct soak {
	uint64_t rng;
	char *text;
	size_t len, cap;
	struct soak_connector conns[N_CONNECTORS];
	int events, unplugs;
};

static uint32_t next_random(struct soak *soak) {
	// xorshift64*: reproducible from the seed alone.
	soak->rng ^= soak->rng >> 12;
	soak->rng ^= soak->rng << 25;
	soak->rng ^= soak->rng >> 27;
	return (uint32_t)((soak->rng * 2685821657736338717ULL) >> 32);
}

#define PICK(soak, array) array[next_random(soak) % (sizeof(array) / sizeof(array[0]))]

static void emit(struct soak *soak, const char *fmt, ...) {
	char line[128];
	va_list args;
	va_start(args, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, args);
	va_end(args);
	if (soak->len + n + 1 > soak->cap) {
		soak->cap = (soak->cap + n + 1) * 2;
		soak->text = realloc(soak->text, soak->cap);
	}
	memcpy(soak->text + soak->len, line, n + 1);
	soak->len += n;
}

static void generate_event(struct soak *soak, int ms) {
	int i = next_random(soak) % N_CONNECTORS;
	struct soak_connector *c = &soak->conns[i];
	uint32_t dice = next_random(soak) % 100;
	if (!c->plugged) {
		c->sink = PICK(soak, sinks);
		c->plugged = true;
		emit(soak, "%d plug DP-%d %s\n", ms, i + 1, c->sink);
	} else if (dice < 35) {
		emit(soak, "%d cable DP-%d %s lanes=%s\n", ms, i + 1,
			PICK(soak, rates), PICK(soak, lanes));
	} else if (dice < 55) {
		emit(soak, "%d heal DP-%d\n", ms, i + 1);
	} else if (dice < 72) {
		emit(soak, "%d flap DP-%d %u 1ms\n", ms, i + 1, next_random(soak) % 3 + 1);
	} else if (dice < 82) {
		c->plugged = false;
		soak->unplugs++;
		emit(soak, "%d unplug DP-%d\n", ms, i + 1);
	} else if (dice < 92) {
		c->sink = PICK(soak, sinks);
		soak->unplugs++;
		emit(soak, "%d swap DP-%d %s\n", ms, i + 1, c->sink);
	} else {
		c->rejecting = !c->rejecting;
		emit(soak, "%d reject DP-%d %s\n", ms, i + 1, c->rejecting ? "on" : "off");
	}
	soak->events++;
}

/* Heals every cable and replugs every sink: the link must come back. */
static void generate_ending(struct soak *soak, int ms) {
	for (int i = 0; i < N_CONNECTORS; i++) {
		struct soak_connector *c = &soak->conns[i];
		emit(soak, "%d reject DP-%d off\n", ms, i + 1);
		emit(soak, "%d heal DP-%d\n", ms, i + 1);
		if (c->plugged) {
			emit(soak, "%d unplug DP-%d\n", ms, i + 1);
			soak->unplugs++;
		}
	}
	for (int i = 0; i < N_CONNECTORS; i++) {
		struct soak_connector *c = &soak->conns[i];
		emit(soak, "%d plug DP-%d %s\n", ms + 50, i + 1,
			c->sink != NULL ? c->sink : sinks[i % 3]);
	}
	emit(soak, "%d end\n", ms + 400);
}

struct soak_run {
	struct soak *soak;
	struct soak_clients clients;
};

static void tick(void *data) {
	struct soak_run *run = data;
	soak_clients_tick(&run->clients, next_random(run->soak));
}

/* What `linkctl --json` says of name: state and current mode. */
static int32_t int_member(struct json_object *obj, const char *key) {
	struct json_object *value;
	return json_object_object_get_ex(obj, key, &value) ?
		json_object_get_int(value) : -1;
}

/* name's state and current mode in linkctl --json's document. */
static bool client_view(const char *json, const char *name, char *state,
		size_t size, int32_t *width, int32_t *height, int32_t *refresh) {
	struct json_object *doc = json_tokener_parse(json), *connectors, *mode;
	bool found = false;
	if (doc == NULL || !json_object_object_get_ex(doc, "connectors", &connectors)) {
		json_object_put(doc);
		return false;
	}
	for (size_t i = 0; i < json_object_array_length(connectors) && !found; i++) {
		struct json_object *c = json_object_array_get_idx(connectors, i), *v;
		if (!json_object_object_get_ex(c, "name", &v) ||
				strcmp(json_object_get_string(v), name) != 0 ||
				!json_object_object_get_ex(c, "state", &v) ||
				!json_object_object_get_ex(c, "current_mode", &mode)) {
			continue;
		}
		snprintf(state, size, "%s", json_object_get_string(v));
		*width = int_member(mode, "width");
		*height = int_member(mode, "height");
		*refresh = int_member(mode, "refresh_mhz");
		found = true;
	}
	json_object_put(doc);
	return found;
}

static int env_int(const char *name, int fallback) {
	const char *value = getenv(name);
	return value != NULL ? atoi(value) : fallback;
}

int main(int argc, char *argv[]) {
	if (argc != 2) {
		fprintf(stderr, "usage: %s LINKCTL\n", argv[0]);
		return 1;
	}
	struct soak soak = {
		.rng = (uint64_t)env_int("LINKGUARD_SOAK_SEED", 20261203) | 1,
	};
	int events = env_int("LINKGUARD_SOAK_EVENTS", 10000);
	int ms = 0;
	for (; soak.events < events; ms += STEP_MS) {
		generate_event(&soak, ms);
	}
	generate_ending(&soak, ms + 100);

	struct harness h;
	check(harness_init(&h, NULL));
	lg_log_init(LG_ERROR, NULL); // 10^4 events: keep the log readable
	struct soak_run run = { .soak = &soak };
	check(soak_clients_init(&run.clients, &h, argv[1]));
	h.tick = tick;
	h.tick_data = &run;
	check(harness_run(&h, soak.text, 500));
	// The last retries settle before anything is compared.
	h.tick = NULL;
	soak_clients_stop(&run.clients);
	harness_dispatch_for(&h, 300);
	char *json = soak_clients_json(&run.clients);
	check(json != NULL);

	for (int i = 0; i < N_CONNECTORS; i++) {
		char name[8];
		snprintf(name, sizeof(name), "DP-%d", i + 1);
		struct harness_connector *hc = harness_connector(&h, name);
		check(hc != NULL);
		if (hc == NULL) {
			continue;
		}
		struct lg_connector *conn = hc->conn;
		check(conn->connected && conn->output != NULL && conn->output->enabled);
		check_int_eq(conn->state, LG_LINK_GOOD);
		check_int_eq(conn->link_status, LG_LINK_STATUS_GOOD);
		check(conn->modes.len > 0 &&
			lg_mode_same_timing(&conn->current, &conn->modes.modes[0]));
		check(lg_mode_same_timing(&conn->current, &conn->requested));
		check(recovery_idle(conn));
		// A client that connected now sees what the compositor has.
		char state[16] = "";
		int32_t width = 0, height = 0, refresh = 0;
		check(json != NULL && client_view(json, name, state, sizeof(state),
			&width, &height, &refresh));
		check(strcmp(state, lg_link_state_name(conn->state)) == 0);
		check(width == conn->current.width && height == conn->current.height &&
			refresh == conn->current.refresh_mhz);
	}
	free(json);
	for (int i = 0; i < h.n_fallbacks && i < HARNESS_MAX_EVENTS; i++) {
		check(!lg_mode_same_timing(&h.fallbacks[i].from, &h.fallbacks[i].to));
	}
	// Outputs go only with an unplug; the last ones are alive.
	check_int_eq(h.outputs_destroyed, soak.unplugs);
	check_int_eq(h.outputs_created - h.outputs_destroyed, N_CONNECTORS);
	// A ladder has 12 rungs: more modesets than that per event is a loop.
	check(h.modesets <= 12 * soak.events);
	check(run.clients.started > 0 && run.clients.killed > 0);
	fprintf(stderr, "soak: seed %d, %d events, %d modesets, %d fallbacks, "
		"%d failed, %d restored, %d outputs created, %d linkctl retry "
		"clients (%d killed mid-way)\n",
		env_int("LINKGUARD_SOAK_SEED", 20261203), soak.events, h.modesets,
		h.n_fallbacks, h.n_failed, h.n_restored, h.outputs_created,
		run.clients.started, run.clients.killed);
	soak_clients_finish(&run.clients);
	harness_finish(&h);
	rmdir(run.clients.runtime_dir);
	free(soak.text);
	return test_result();
}
