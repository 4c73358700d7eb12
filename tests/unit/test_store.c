/*
 * The known-bad-mode store (src/store.c) and the known-bad modes of a
 * connector over many starts (src/known_bad.c): round trips, v1 files,
 * bad files, and the retry schedule checked against a model over every
 * sequence of what a start can bring.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <core/known_bad.h>
#include <core/store.h>
#include <linkguard/backend.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include "test.h"

static const struct lg_mode uhd60 = { 3840, 2160, 60000, 533250, true, false };
static const struct lg_mode uhd30 = { 3840, 2160, 30000, 297000, false, false };
/* Where a mode failed: two links, or not known. */
static const struct lg_link_params hbr2x4 = { .lanes = 4, .rate_mbps = 5400 };
static const struct lg_link_params hbr3x2 = { .lanes = 2, .rate_mbps = 8100 };
static const struct lg_link_params any_link = {0};

static char dir[64];

static void fresh_dir(void) {
	snprintf(dir, sizeof(dir), "/tmp/lg-store-XXXXXX");
	check(mkdtemp(dir) != NULL);
}

static void remove_tree(const char *path) {
	DIR *d = opendir(path);
	struct dirent *e;
	while (d != NULL && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
			continue;
		}
		char sub[512];
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		if (unlink(sub) != 0) {
			remove_tree(sub);
		}
	}
	if (d != NULL) {
		closedir(d);
	}
	rmdir(path);
}

static void remove_dir(void) {
	remove_tree(dir);
}

static void file_path(char *path, size_t size) {
	snprintf(path, size, "%s/known-bad", dir);
}

static void write_file(const char *text) {
	char path[128];
	file_path(path, sizeof(path));
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

/* The file's text (static buffer). */
static const char *read_back(void) {
	static char text[4096];
	char path[128];
	file_path(path, sizeof(path));
	FILE *f = fopen(path, "r");
	size_t len = f != NULL ? fread(text, 1, sizeof(text) - 1, f) : 0;
	text[len] = '\0';
	if (f != NULL) {
		fclose(f);
	}
	return text;
}

static size_t load(const char *connector, const char *identity,
		struct store_entries *entries) {
	store_entries_finish(entries);
	check(store_load(dir, connector, identity, entries));
	return entries->len;
}

static struct store_entry entry(const struct lg_mode *mode, uint32_t failed,
		int64_t last, uint32_t skipped) {
	return (struct store_entry){ .mode = *mode, .failed_starts = failed,
		.last_failed = last, .skipped_starts = skipped };
}

static void add(struct store_entries *entries, struct store_entry e) {
	struct store_entry *slot = store_entries_get(entries, &e.mode, &e.link);
	check(slot != NULL);
	if (slot != NULL) {
		*slot = e;
	}
}

static bool entry_is(const struct store_entry *e, const struct lg_mode *mode,
		uint32_t failed, int64_t last, uint32_t skipped) {
	return e != NULL && lg_mode_equal(&e->mode, mode) &&
		e->failed_starts == failed && e->last_failed == last &&
		e->skipped_starts == skipped;
}

static void test_round_trip(void) {
	fresh_dir();
	struct store_entries in, out;
	store_entries_init(&in);
	store_entries_init(&out);
	add(&in, entry(&uhd60, 3, 1750000000, 1));
	add(&in, entry(&uhd30, 1, 1750000123, 0));
	// The same mode at two links: two entries, each with its counts.
	struct store_entry at_hbr2 = entry(&uhd60, 2, 1750000200, 0);
	at_hbr2.link = hbr2x4;
	add(&in, at_hbr2);
	check_int_eq(in.len, 3);
	check(store_save(dir, "DP-1", "DEL-A0B1-ABC", &in));
	check_int_eq(load("DP-1", "DEL-A0B1-ABC", &out), 3);
	check(entry_is(store_entries_find(&out, &uhd60, &any_link), &uhd60, 3, 1750000000, 1));
	check(entry_is(store_entries_find(&out, &uhd30, &any_link), &uhd30, 1, 1750000123, 0));
	check(entry_is(store_entries_find(&out, &uhd60, &hbr2x4), &uhd60, 2, 1750000200, 0));
	check(store_entries_find(&out, &uhd60, &hbr3x2) == NULL);
	check(strcmp(read_back(), "# linkguard known-bad modes v3\n"
		"DP-1 DEL-A0B1-ABC 3840x2160@60000/533250 any 3 1750000000 1\n"
		"DP-1 DEL-A0B1-ABC 3840x2160@30000/297000 any 1 1750000123 0\n"
		"DP-1 DEL-A0B1-ABC 3840x2160@60000/533250 5400x4 2 1750000200 0\n") == 0);
	// Another monitor, or the same one on another connector: nothing.
	check_int_eq(load("DP-1", "DEL-A0B1-XYZ", &out), 0);
	check_int_eq(load("DP-2", "DEL-A0B1-ABC", &out), 0);
	store_entries_finish(&in);
	store_entries_finish(&out);
	remove_dir();
}

static void test_other_entries_kept(void) {
	fresh_dir();
	struct store_entries one, none, out;
	store_entries_init(&one);
	store_entries_init(&none);
	store_entries_init(&out);
	add(&one, entry(&uhd60, 2, 1750000000, 0));
	check(store_save(dir, "DP-1", "A", &one));
	check(store_save(dir, "DP-2", "B", &one));
	check(store_save(dir, "DP-1", "A", &none));
	check_int_eq(load("DP-1", "A", &out), 0);
	check_int_eq(load("DP-2", "B", &out), 1);
	check(entry_is(&out.entries[0], &uhd60, 2, 1750000000, 0));
	// No temporary file is left behind.
	DIR *d = opendir(dir);
	int files = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		files += e->d_name[0] != '.';
	}
	closedir(d);
	check_int_eq(files, 1);
	store_entries_finish(&one);
	store_entries_finish(&none);
	store_entries_finish(&out);
	remove_dir();
}

/*
 * A file version 1 wrote: each line is one failure at the file's
 * modification time; the next write turns the whole file into v3, other
 * keys' lines included.
 */
static void test_v1_file_is_migrated(void) {
	fresh_dir();
	write_file("# linkguard known-bad modes v1\n"
		"DP-1 A 3840x2160@60000/533250\n"
		"DP-2 B 3840x2160@30000/297000\n"
		"DP-2 B 3840x2160@30000/297000 2 3 4\n"); // a v2 line: malformed here
	char path[128];
	file_path(path, sizeof(path));
	const struct timespec times[2] = { { 1700000000, 0 }, { 1700000000, 0 } };
	check(utimensat(AT_FDCWD, path, times, 0) == 0);
	struct store_entries out, none;
	store_entries_init(&out);
	store_entries_init(&none);
	check_int_eq(load("DP-1", "A", &out), 1);
	check(entry_is(&out.entries[0], &uhd60, 1, 1700000000, 0));
	check(store_save(dir, "DP-1", "A", &none));
	check(strcmp(read_back(), "# linkguard known-bad modes v3\n"
		"DP-2 B 3840x2160@30000/297000 any 1 1700000000 0\n") == 0);
	check_int_eq(load("DP-2", "B", &out), 1);
	check(entry_is(&out.entries[0], &uhd30, 1, 1700000000, 0));
	store_entries_finish(&out);
	store_entries_finish(&none);
	remove_dir();
}

/*
 * A file version 2 wrote keeps no link: its modes failed at a link not
 * known, and count at every one; the next write turns it into v3.
 */
static void test_v2_file_counts_at_any_link(void) {
	fresh_dir();
	write_file("# linkguard known-bad modes v2\n"
		"DP-1 A 3840x2160@60000/533250 2 1700000000 1\n"
		"DP-1 A 3840x2160@30000/297000 5400x4 1 1700000000 0\n"); // a v3 line: malformed here
	struct store_entries out, none;
	store_entries_init(&out);
	store_entries_init(&none);
	check_int_eq(load("DP-1", "A", &out), 1);
	check(entry_is(store_entries_find(&out, &uhd60, &any_link), &uhd60, 2, 1700000000, 1));
	check(store_save(dir, "DP-2", "B", &none));
	check(strcmp(read_back(), "# linkguard known-bad modes v3\n"
		"DP-1 A 3840x2160@60000/533250 any 2 1700000000 1\n") == 0);
	store_entries_finish(&out);
	store_entries_finish(&none);
	remove_dir();
}

static void test_bad_files_are_ignored(void) {
	fresh_dir();
	struct store_entries out;
	store_entries_init(&out);
	check_int_eq(load("DP-1", "A", &out), 0); // no file yet

	write_file("# linkguard known-bad modes v2\n"
		"garbage\n"
		"DP-1 A 3840x2160@60000/533250\n" // a v1 line in a v2 file
		"DP-1 A 3840x2160@60000/533250 1 2 3 extra\n"
		"DP-1 A 3840x2160@0/1 1 2 3\n"
		"DP-1 A -5x2160@60000/1 1 2 3\n"
		"DP-1 A 3840x2160@60000/533250 0 2 3\n" // no failure: not an entry
		"DP-1 A 3840x2160@60000/533250 -1 2 3\n"
		"DP-1 A 3840x2160@60000/533250 4294967296 2 3\n"
		"DP-1 A 3840x2160@60000/533250 1 99999999999999999999 3\n"
		"DP-1 A 3840x2160@60000/533250 1 2 +3\n"
		"DP-1 A 3840x2160@60000/533250 1 2 3x\n"
		"DP-1 A 3840x2160@30000/297000 4294967295 9223372036854775807 7\n"
		"DP-1 A 3840x2160@30000/297000 1 1 1\n" // a duplicate: the first wins
		"DP-1 A 3840x21"); // truncated mid-write by something else
	check_int_eq(load("DP-1", "A", &out), 1);
	check(entry_is(&out.entries[0], &uhd30, 4294967295u, INT64_MAX, 7));

	// v3: a link that is none.
	write_file("# linkguard known-bad modes v3\n"
		"DP-1 A 3840x2160@60000/533250 5400x3 1 2 3\n"
		"DP-1 A 3840x2160@60000/533250 0x4 1 2 3\n"
		"DP-1 A 3840x2160@60000/533250 hbr2 1 2 3\n"
		"DP-1 A 3840x2160@60000/533250 5400x4x 1 2 3\n"
		"DP-1 A 3840x2160@60000/533250 1 2 3\n" // a v2 line in a v3 file
		"DP-1 A 3840x2160@30000/297000 8100x2 1 2 3\n");
	check_int_eq(load("DP-1", "A", &out), 1);
	check(entry_is(store_entries_find(&out, &uhd30, &hbr3x2), &uhd30, 1, 2, 3));

	// An unknown version, or no header at all: not ours to read.
	write_file("# linkguard known-bad modes v4\n"
		"DP-1 A 3840x2160@30000/297000 any 1 2 3\n");
	check_int_eq(load("DP-1", "A", &out), 0);
	write_file("DP-1 A 3840x2160@30000/297000 1 2 3\n");
	check_int_eq(load("DP-1", "A", &out), 0);
	write_file("");
	check_int_eq(load("DP-1", "A", &out), 0);

	char *big = malloc(STORE_MAX_BYTES + 2);
	memset(big, '#', STORE_MAX_BYTES + 1);
	big[STORE_MAX_BYTES + 1] = '\0';
	write_file(big);
	free(big);
	check_int_eq(load("DP-1", "A", &out), 0);

	char path[128];
	file_path(path, sizeof(path));
	unlink(path);
	check(mkdir(path, 0700) == 0); // unreadable: a directory
	check_int_eq(load("DP-1", "A", &out), 0);
	struct store_entries one;
	store_entries_init(&one);
	add(&one, entry(&uhd60, 1, 1, 0));
	check(!store_save(dir, "DP-1", "A", &one)); // cannot replace a directory
	check(!store_save(dir, "DP 1", "A", &one)); // a key that would split
	check(!store_load(dir, "DP-1", "", &out));
	store_entries_finish(&one);
	store_entries_finish(&out);
	remove_dir();
}

/*
 * XDG_STATE_HOME (or ~/.local/state) need not exist yet: the store creates
 * every missing directory on the way, 0700 as the XDG base directory spec
 * asks, and leaves existing ones as they were.
 */
static void test_missing_parents_are_created(void) {
	fresh_dir();
	check(chmod(dir, 0755) == 0);
	char state_dir[128];
	snprintf(state_dir, sizeof(state_dir), "%s/home/.local/state/linkguard", dir);
	struct store_entries one, out;
	store_entries_init(&one);
	store_entries_init(&out);
	add(&one, entry(&uhd60, 1, 1, 0));
	check(store_save(state_dir, "DP-1", "A", &one));
	check(store_load(state_dir, "DP-1", "A", &out));
	check_int_eq(out.len, 1);
	const char *created[] = { "/home", "/home/.local", "/home/.local/state",
		"/home/.local/state/linkguard" };
	for (size_t i = 0; i < sizeof(created) / sizeof(created[0]); i++) {
		char path[160];
		snprintf(path, sizeof(path), "%s%s", dir, created[i]);
		struct stat st = {0};
		check(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
		check_int_eq(st.st_mode & 07777, 0700);
	}
	struct stat st = {0};
	check(stat(dir, &st) == 0);
	check_int_eq(st.st_mode & 07777, 0755); // existing: untouched
	// A path through a file cannot be made; logged, nothing crashes.
	char through_file[160];
	snprintf(through_file, sizeof(through_file),
		"%s/home/.local/state/linkguard/known-bad/x", dir);
	check(!store_save(through_file, "DP-1", "A", &one));
	store_entries_finish(&one);
	store_entries_finish(&out);
	remove_dir();
}

/* A writer replacing the file all the time: every read sees a whole file. */
static void test_concurrent_writer(void) {
	fresh_dir();
	struct store_entries one, two, out;
	store_entries_init(&one);
	store_entries_init(&two);
	store_entries_init(&out);
	add(&one, entry(&uhd60, 1, 1, 0));
	add(&two, entry(&uhd60, 1, 1, 0));
	add(&two, entry(&uhd30, 1, 1, 0));
	check(store_save(dir, "DP-1", "A", &two));
	pid_t child = fork();
	if (child == 0) {
		for (int i = 0;; i++) {
			store_save(dir, "DP-1", "A", i % 2 ? &one : &two);
		}
	}
	int torn = 0;
	for (int i = 0; i < 300; i++) {
		size_t n = load("DP-1", "A", &out);
		torn += n != 1 && n != 2;
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	check_int_eq(torn, 0);
	store_entries_finish(&one);
	store_entries_finish(&two);
	store_entries_finish(&out);
	remove_dir();
}

/* --- a connector over many starts (src/known_bad.c) ------------------- */

/*
 * One process's view of DP-1: a connector with the fields known_bad.c
 * reads, a backend that only names the monitor, and the manager's state
 * directory (NULL: memory only).
 */
struct process {
	struct lg_manager manager;
	struct lg_connector conn;
	struct wl_listener state_change;
	int changes; // state_change emissions
};

static const char *monitor = "4k60";

static const char *fake_identity(struct lg_connector *conn) {
	return monitor;
}

static const struct lg_connector_impl fake_impl = {
	.get_identity = fake_identity,
};

static void handle_state_change(struct wl_listener *listener, void *data) {
	struct process *p = wl_container_of(listener, p, state_change);
	p->changes++;
}

static void process_start(struct process *p, const char *state_dir) {
	*p = (struct process){0};
	p->manager.options.state_dir = state_dir;
	p->conn.impl = &fake_impl;
	p->conn.manager = &p->manager;
	p->conn.name = "DP-1";
	wl_signal_init(&p->conn.events.state_change);
	wl_signal_init(&p->conn.events.destroy);
	lg_mode_list_init(&p->conn.known_bad);
	p->state_change.notify = handle_state_change;
	wl_signal_add(&p->conn.events.state_change, &p->state_change);
	known_bad_load(&p->conn); // the first output: the start
}

static void process_exit(struct process *p) {
	wl_signal_emit_mutable(&p->conn.events.destroy, &p->conn);
	wl_list_remove(&p->state_change.link);
	lg_mode_list_finish(&p->conn.known_bad);
}

static bool skipped(struct process *p) {
	return lg_mode_list_find(&p->conn.known_bad, &uhd60) >= 0;
}

/* The sink leaves and comes back: the output is created again. */
static void replug(struct process *p) {
	known_bad_forget(&p->conn);
	known_bad_load(&p->conn);
}

/*
 * What a start brings, for the mode 4K60 that the compositor requests:
 * G the cable holds it, B it does not, R it does not, and after a replug
 * in the same process again not, X the cable holds it and the user
 * retries at once, Y the cable does not and the user retries at once (a
 * retry tries a skipped mode; one that is tried anyway fails or holds as
 * G or B).
 */
static const char outcomes[] = "GBRXY";

/* The model: what the store should know of 4K60. */
struct model {
	unsigned failed, skipped; // failed 0: no entry
};

static bool model_start(struct model *m) {
	unsigned skips = m->failed >= 2 ? m->failed - 1 : 0;
	if (skips > STORE_RETRY_WITHIN - 1) {
		skips = STORE_RETRY_WITHIN - 1;
	}
	if (m->skipped < skips) {
		m->skipped++;
		return true;
	}
	return false;
}

static void model_tried(struct model *m, bool holds) {
	if (holds) {
		*m = (struct model){0};
	} else {
		m->failed++;
		m->skipped = 0;
	}
}

/* The history so far, for a failing check's message. */
static char history[32];

#define check_run(cond) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "  after starts %s\n", history); \
		} \
		check(cond); \
	} while (0)

/*
 * Runs one sequence of starts against one state directory and checks each
 * start against the model and the property the store exists for: a mode
 * is never skipped at more than STORE_RETRY_WITHIN - 1 starts in a row
 * after it last failed, and a success clears it.
 */
static void run_sequence(const char *seq, struct model m) {
	const struct model m0 = m;
	unsigned skipped_in_a_row = m.skipped, failed_once = m.failed;
	int64_t t0 = time(NULL);
	struct store_entries stored;
	store_entries_init(&stored);
	if (m.failed > 0) {
		struct store_entry e = entry(&uhd60, m.failed, t0, m.skipped);
		e.link = hbr2x4;
		add(&stored, e);
		check(store_save(dir, "DP-1", monitor, &stored));
	}
	for (size_t i = 0; seq[i] != '\0'; i++) {
		snprintf(history, sizeof(history), "%u/%u %.*s", m0.failed,
			m0.skipped, (int)i + 1, seq);
		struct process p;
		process_start(&p, dir);
		bool want_skip = model_start(&m);
		check_run(skipped(&p) == want_skip);
		if (skipped(&p)) {
			skipped_in_a_row++;
			// Skipped: announced to clients with when it last failed.
			check_run(known_bad_last_failed(&p.conn, &uhd60) >= t0);
		} else {
			skipped_in_a_row = 0;
		}
		check_run(skipped_in_a_row <= STORE_RETRY_WITHIN - 1);
		// One bad start is no verdict.
		check_run(!(skipped(&p) && failed_once == 1));

		char what = seq[i];
		bool retry = what == 'X' || what == 'Y';
		bool tried = !skipped(&p) || retry;
		bool holds = what == 'G' || what == 'X';
		if (tried) {
			int changes = p.changes;
			if (holds) {
				known_bad_held(&p.conn, &uhd60);
				check_run(!skipped(&p));
			} else {
				known_bad_add(&p.conn, &uhd60, &hbr2x4);
				check_run(skipped(&p)); // until replug
				check_run(known_bad_last_failed(&p.conn, &uhd60) >= t0);
				if (what == 'R') {
					replug(&p);
					check_run(!skipped(&p)); // a replug tries it
					known_bad_add(&p.conn, &uhd60, &hbr2x4);
					check_run(skipped(&p));
				}
			}
			// Clients hear of it when the skipped list changed.
			check_run((p.changes > changes) == (holds ? m.failed > 0 : true));
			model_tried(&m, holds);
			failed_once = holds ? 0 : failed_once + 1;
			skipped_in_a_row = 0; // counted from the last failure

		}
		process_exit(&p);

		store_entries_finish(&stored);
		check_run(store_load(dir, "DP-1", monitor, &stored));
		struct store_entry *e = store_entries_find(&stored, &uhd60, &hbr2x4);
		check_run((e != NULL) == (m.failed > 0)); // a success clears it
		if (e != NULL) {
			check_run(e->failed_starts == m.failed);
			check_run(e->skipped_starts == m.skipped);
			check_run(e->last_failed >= t0 && e->last_failed <= time(NULL));
		}
	}
	store_entries_finish(&stored);
	char path[128];
	file_path(path, sizeof(path));
	unlink(path);
}

/*
 * Every sequence of length starts over the first n outcomes, after the
 * store already holds initial for 4K60.
 */
static void run_every_sequence(size_t starts, size_t n, struct model initial) {
	char seq[16] = {0};
	size_t total = 1;
	for (size_t i = 0; i < starts; i++) {
		total *= n;
	}
	int before = test_failures;
	for (size_t k = 0; k < total && test_failures - before < 10; k++) {
		for (size_t i = 0, v = k; i < starts; i++, v /= n) {
			seq[i] = outcomes[v % n];
		}
		run_sequence(seq, initial);
	}
}

static void test_every_fail_hold_pattern_over_8_starts(void) {
	fresh_dir();
	run_every_sequence(8, 2, (struct model){0});
	remove_dir();
}

/*
 * From every history the store can hold (failed at up to 6 starts in a
 * row, skipped at up to 3 since, past the schedule too, as a file edited
 * or written by another version may say), every fail/hold pattern over 6
 * starts.
 */
static void test_every_history_then_every_pattern_over_6_starts(void) {
	fresh_dir();
	for (unsigned failed = 1; failed <= 6; failed++) {
		for (unsigned skipped = 0; skipped <= 3; skipped++) {
			run_every_sequence(6, 2, (struct model){ failed, skipped });
		}
	}
	remove_dir();
}

static void test_every_start_with_replugs_and_retries_over_5_starts(void) {
	fresh_dir();
	run_every_sequence(5, strlen(outcomes), (struct model){0});
	remove_dir();
}

/*
 * The schedule spelled out: two bad starts, then skipped at 1, 2, 3, 3...
 * starts between tries while the cable stays bad.
 */
static void test_interval_grows_to_the_bound(void) {
	fresh_dir();
	const char *want = "TTSTSSTSSSTSSSTSSST"; // T tried (and failed), S skipped
	char got[32] = {0};
	for (size_t i = 0; i < strlen(want); i++) {
		struct process p;
		process_start(&p, dir);
		got[i] = skipped(&p) ? 'S' : 'T';
		if (!skipped(&p)) {
			known_bad_add(&p.conn, &uhd60, &hbr2x4);
		}
		process_exit(&p);
	}
	check(strcmp(got, want) == 0);
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "  got %s\n", got);
	}
	remove_dir();
}

/*
 * A mode is skipped at the link it failed at: after two bad starts at
 * HBR2 x4 the next start skips 4K60 there, not at HBR3 x2 (a dock's two
 * lanes), where it never failed. A mode of a v2 file, whose link is not
 * known, is skipped at every link.
 */
static void test_skipped_at_the_link_it_failed_at(void) {
	fresh_dir();
	for (int start = 0; start < 2; start++) {
		struct process p;
		process_start(&p, dir);
		check(!skipped(&p));
		known_bad_add(&p.conn, &uhd60, &hbr2x4);
		check(known_bad_skipped_at(&p.conn, &uhd60, &hbr2x4) == false); // this start's own
		process_exit(&p);
	}
	struct process p;
	process_start(&p, dir);
	check(skipped(&p));
	check(known_bad_skipped_at(&p.conn, &uhd60, &hbr2x4));
	check(!known_bad_skipped_at(&p.conn, &uhd60, &hbr3x2));
	check(!known_bad_skipped_at(&p.conn, &uhd30, &hbr2x4));
	// Failed at HBR3 x2 too: a failure of its own there, the HBR2 x4
	// record stays.
	known_bad_add(&p.conn, &uhd60, &hbr3x2);
	check(known_bad_skipped_at(&p.conn, &uhd60, &hbr2x4));
	// It held (at some link): no record at any link is left.
	known_bad_held(&p.conn, &uhd60);
	check(!skipped(&p));
	check(!known_bad_skipped_at(&p.conn, &uhd60, &hbr2x4));
	process_exit(&p);
	struct store_entries stored;
	store_entries_init(&stored);
	check_int_eq(load("DP-1", monitor, &stored), 0);

	write_file("# linkguard known-bad modes v2\n"
		"DP-1 4k60 3840x2160@60000/533250 2 1700000000 0\n");
	process_start(&p, dir);
	check(skipped(&p));
	check(known_bad_skipped_at(&p.conn, &uhd60, &hbr2x4));
	check(known_bad_skipped_at(&p.conn, &uhd60, &hbr3x2));
	process_exit(&p);
	store_entries_finish(&stored);
	remove_dir();
}

/*
 * Without a state directory the modes are kept for the process only;
 * another monitor on the connector has its own start, and the first one
 * back is not a new start.
 */
static void test_memory_only_and_another_monitor(void) {
	struct process p;
	process_start(&p, NULL);
	known_bad_add(&p.conn, &uhd60, &any_link);
	check(skipped(&p));
	check(known_bad_last_failed(&p.conn, &uhd60) > 0);
	monitor = "1440p144";
	lg_mode_list_clear(&p.conn.known_bad); // as connector.c does for a new sink
	known_bad_load(&p.conn);
	check(!skipped(&p));
	check_int_eq(known_bad_last_failed(&p.conn, &uhd60), 0);
	monitor = "4k60";
	known_bad_load(&p.conn);
	check(!skipped(&p));
	check(known_bad_last_failed(&p.conn, &uhd60) > 0); // the same monitor
	process_exit(&p);

	process_start(&p, NULL); // a new process knows nothing
	check(!skipped(&p));
	check_int_eq(known_bad_last_failed(&p.conn, &uhd60), 0);
	process_exit(&p);
}

int main(void) {
	lg_log_init(LG_SILENT, NULL);
	run_test(test_round_trip);
	run_test(test_other_entries_kept);
	run_test(test_v1_file_is_migrated);
	run_test(test_v2_file_counts_at_any_link);
	run_test(test_skipped_at_the_link_it_failed_at);
	run_test(test_bad_files_are_ignored);
	run_test(test_missing_parents_are_created);
	run_test(test_concurrent_writer);
	run_test(test_every_fail_hold_pattern_over_8_starts);
	run_test(test_every_history_then_every_pattern_over_6_starts);
	run_test(test_every_start_with_replugs_and_retries_over_5_starts);
	run_test(test_interval_grows_to_the_bound);
	run_test(test_memory_only_and_another_monitor);
	return test_result();
}
