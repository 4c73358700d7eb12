/*
 * The modes a monitor did not hold on a connector (its link was lowered
 * below them, or a commit failed after a passing test), skipped by the
 * policy: conn->known_bad. With a state directory they are kept in the
 * store (core/store.h) across restarts, keyed by the monitor's identity
 * (its EDID) as the backend reports it, and the store decides at each
 * start which of them this process skips: never one for good.
 *
 * A start is the first known_bad_load() for a (connector, identity) in
 * this process: the connector's first output with that monitor. Within the
 * process a mode that failed stays skipped until the sink leaves
 * (known_bad_forget()): a replug tries every mode again, and a failure
 * after it counts towards the same start. A mode with a record that the
 * link holds is forgotten (known_bad_held(): the state machine decides
 * when a mode has held).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include <core/backend.h>
#include <core/known_bad.h>
#include <core/store.h>

/* One monitor that had its start on the connector in this process. */
struct known_bad_monitor {
	struct wl_list link; // known_bad.monitors
	char *identity; // NULL: the backend cannot tell monitors apart
	struct store_entries entries; // what is known of its modes
	// modes and links whose failure this start counted, and those it skips
	struct store_entries failed, skipped;
};

/*
 * known_bad.c's part of a connector, found through the listener it keeps
 * on the connector's destroy signal (as wl_resource_get_destroy_listener
 * finds a resource's).
 */
struct known_bad {
	struct lg_connector *conn;
	struct wl_list monitors; // known_bad_monitor.link
	struct known_bad_monitor *monitor; // the one plugged in now, or NULL
	struct wl_listener connector_destroy;
};

static void monitor_destroy(struct known_bad_monitor *monitor) {
	wl_list_remove(&monitor->link);
	store_entries_finish(&monitor->entries);
	store_entries_finish(&monitor->failed);
	store_entries_finish(&monitor->skipped);
	free(monitor->identity);
	free(monitor);
}

static void handle_connector_destroy(struct wl_listener *listener, void *data) {
	struct known_bad *kb = wl_container_of(listener, kb, connector_destroy);
	struct known_bad_monitor *monitor, *tmp;
	wl_list_for_each_safe(monitor, tmp, &kb->monitors, link) {
		monitor_destroy(monitor);
	}
	wl_list_remove(&kb->connector_destroy.link);
	free(kb);
}

/* conn's part, or NULL when it has none yet. wl_signal_get() only reads. */
static struct known_bad *known_bad_find(const struct lg_connector *conn) {
	struct wl_listener *listener = wl_signal_get(
		(struct wl_signal *)&conn->events.destroy, handle_connector_destroy);
	if (listener == NULL) {
		return NULL;
	}
	struct known_bad *kb = wl_container_of(listener, kb, connector_destroy);
	return kb;
}

static struct known_bad *known_bad_get(struct lg_connector *conn) {
	struct known_bad *kb = known_bad_find(conn);
	if (kb != NULL) {
		return kb;
	}
	kb = calloc(1, sizeof(*kb));
	if (kb == NULL) {
		lg_conn_log(conn, LG_ERROR, "allocation failed");
		return NULL;
	}
	kb->conn = conn;
	wl_list_init(&kb->monitors);
	kb->connector_destroy.notify = handle_connector_destroy;
	wl_signal_add(&conn->events.destroy, &kb->connector_destroy);
	return kb;
}

static bool same_identity(const char *a, const char *b) {
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

/* Where the store keeps this monitor's modes, or NULL: memory only. */
static const char *store_dir(const struct known_bad *kb) {
	const struct known_bad_monitor *monitor = kb->monitor;
	return monitor != NULL && monitor->identity != NULL ?
		kb->conn->manager->options.state_dir : NULL;
}

static void save(struct known_bad *kb) {
	const char *dir = store_dir(kb);
	if (dir != NULL) {
		store_save(dir, kb->conn->name, kb->monitor->identity,
			&kb->monitor->entries);
	}
}

static void log_start(struct lg_connector *conn, const struct store_entry *entry,
		bool skipped) {
	char mode[64], when[32] = "an unknown time", link[32] = "";
	time_t last = (time_t)entry->last_failed;
	struct tm tm;
	if (entry->last_failed > 0 && localtime_r(&last, &tm) != NULL) {
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	}
	if (entry->link.rate_mbps != 0) {
		snprintf(link, sizeof(link), " on %u lanes at %u Mbit/s",
			(unsigned)entry->link.lanes, (unsigned)entry->link.rate_mbps);
	}
	lg_conn_log(conn, LG_INFO, "%s %s: it failed at %u start(s) in a row%s, "
		"last at %s", skipped ? "skipping" : "trying again",
		lg_mode_format(&entry->mode, mode, sizeof(mode)),
		(unsigned)entry->failed_starts, link, when);
}

/* This monitor's start: which of the modes the store holds are skipped. */
static void start(struct known_bad *kb) {
	const char *dir = store_dir(kb);
	struct known_bad_monitor *monitor = kb->monitor;
	if (dir == NULL) {
		return;
	}
	store_load(dir, kb->conn->name, monitor->identity, &monitor->entries);
	if (monitor->entries.len == 0) {
		return;
	}
	for (size_t i = 0; i < monitor->entries.len; i++) {
		struct store_entry *entry = &monitor->entries.entries[i];
		bool skipped = store_entry_start(entry);
		if (skipped && lg_mode_list_find(&kb->conn->known_bad, &entry->mode) < 0) {
			lg_mode_list_append(&kb->conn->known_bad, &entry->mode);
		}
		if (skipped) {
			store_entries_get(&monitor->skipped, &entry->mode, &entry->link);
		}
		log_start(kb->conn, entry, skipped);
	}
	save(kb);
}

/*
 * The monitor on the connector now, its start run when it has not had one
 * in this process; NULL out of memory.
 */
static struct known_bad_monitor *current_monitor(struct lg_connector *conn) {
	struct known_bad *kb = known_bad_get(conn);
	if (kb == NULL) {
		return NULL;
	}
	const char *identity = connector_identity(conn);
	if (kb->monitor != NULL && same_identity(kb->monitor->identity, identity)) {
		return kb->monitor;
	}
	struct known_bad_monitor *monitor;
	wl_list_for_each(monitor, &kb->monitors, link) {
		if (same_identity(monitor->identity, identity)) {
			kb->monitor = monitor;
			return monitor;
		}
	}
	monitor = calloc(1, sizeof(*monitor));
	if (monitor == NULL || (identity != NULL &&
			(monitor->identity = strdup(identity)) == NULL)) {
		lg_conn_log(conn, LG_ERROR, "allocation failed");
		free(monitor);
		return NULL;
	}
	store_entries_init(&monitor->entries);
	store_entries_init(&monitor->failed);
	store_entries_init(&monitor->skipped);
	wl_list_insert(&kb->monitors, &monitor->link);
	kb->monitor = monitor;
	start(kb);
	return monitor;
}

void known_bad_load(struct lg_connector *conn) {
	current_monitor(conn);
}

void known_bad_add(struct lg_connector *conn, const struct lg_mode *mode,
		const struct lg_link_params *link) {
	struct known_bad_monitor *monitor = current_monitor(conn);
	if (lg_mode_list_find(&conn->known_bad, mode) < 0) {
		lg_mode_list_append(&conn->known_bad, mode);
	}
	if (monitor == NULL) {
		return;
	}
	struct store_entry *entry = store_entries_get(&monitor->entries, mode, link);
	if (entry == NULL) {
		return;
	}
	bool first = store_entries_find(&monitor->failed, mode, link) == NULL;
	if (first) {
		store_entries_get(&monitor->failed, mode, link);
	}
	store_entry_failed(entry, time(NULL), first);
	save(known_bad_find(conn));
	// Clients see the skipped modes and when each last failed.
	connector_changed(conn);
}

void known_bad_forget(struct lg_connector *conn) {
	// The caller announces the change with the disconnection.
	lg_mode_list_clear(&conn->known_bad);
}

/* Removes every entry of mode, at any link; whether there was one. */
static bool remove_mode(struct store_entries *entries, const struct lg_mode *mode) {
	bool removed = false;
	struct store_entry *entry;
	while ((entry = store_entries_find(entries, mode, NULL)) != NULL) {
		store_entries_remove(entries, entry);
		removed = true;
	}
	return removed;
}

void known_bad_held(struct lg_connector *conn, const struct lg_mode *mode) {
	bool changed = false;
	ssize_t i = lg_mode_list_find(&conn->known_bad, mode);
	if (i >= 0) {
		struct lg_mode_list *list = &conn->known_bad;
		memmove(&list->modes[i], &list->modes[i + 1],
			(list->len - (size_t)i - 1) * sizeof(*list->modes));
		list->len--;
		changed = true;
	}
	struct known_bad *kb = known_bad_find(conn);
	struct known_bad_monitor *monitor = kb != NULL ? kb->monitor : NULL;
	// At every link: it held at one, so the others' failures were the
	// link's, not the mode's. A failure after this success is a first
	// one again.
	if (monitor != NULL && remove_mode(&monitor->entries, mode)) {
		save(kb);
		changed = true;
	}
	if (monitor != NULL) {
		remove_mode(&monitor->failed, mode);
		remove_mode(&monitor->skipped, mode);
	}
	if (changed) {
		char buf[64];
		lg_conn_log(conn, LG_INFO, "the link held %s: no longer skipped",
			lg_mode_format(mode, buf, sizeof(buf)));
		connector_changed(conn);
	}
}

int64_t known_bad_last_failed(const struct lg_connector *conn,
		const struct lg_mode *mode) {
	const struct known_bad *kb = known_bad_find(conn);
	const struct store_entries *entries = kb != NULL && kb->monitor != NULL ?
		&kb->monitor->entries : NULL;
	int64_t last = 0;
	for (size_t i = 0; entries != NULL && i < entries->len; i++) {
		const struct store_entry *entry = &entries->entries[i];
		if (lg_mode_equal(&entry->mode, mode) && entry->last_failed > last) {
			last = entry->last_failed;
		}
	}
	return last;
}

bool known_bad_skipped_at(const struct lg_connector *conn, const struct lg_mode *mode,
		const struct lg_link_params *link) {
	const struct known_bad *kb = known_bad_find(conn);
	if (kb == NULL || kb->monitor == NULL ||
			lg_mode_list_find(&conn->known_bad, mode) < 0) {
		return false;
	}
	const struct lg_link_params any = {0};
	const struct store_entries *skipped = &kb->monitor->skipped;
	return store_entries_find(skipped, mode, &any) != NULL ||
		(link != NULL && store_entries_find(skipped, mode, link) != NULL);
}
