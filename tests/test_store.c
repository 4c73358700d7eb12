/* The known-bad-mode store (src/store.c): round trips and bad files. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <core/store.h>
#include <linkguard/log.h>
#include "test.h"

static const struct lg_mode uhd60 = { 3840, 2160, 60000, 533250, true, false };
static const struct lg_mode uhd30 = { 3840, 2160, 30000, 297000, false, false };

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

static void write_file(const char *text) {
	char path[128];
	snprintf(path, sizeof(path), "%s/known-bad", dir);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static size_t load(const char *connector, const char *identity,
		struct lg_mode_list *modes) {
	lg_mode_list_clear(modes);
	check(store_load(dir, connector, identity, modes));
	return modes->len;
}

static void test_round_trip(void) {
	fresh_dir();
	struct lg_mode_list modes, out;
	lg_mode_list_init(&modes);
	lg_mode_list_init(&out);
	lg_mode_list_append(&modes, &uhd60);
	lg_mode_list_append(&modes, &uhd30);
	check(store_save(dir, "DP-1", "DEL-A0B1-ABC", &modes));
	check_int_eq(load("DP-1", "DEL-A0B1-ABC", &out), 2);
	check(out.len == 2 && lg_mode_equal(&out.modes[0], &uhd60) &&
		lg_mode_equal(&out.modes[1], &uhd30));
	// Another monitor, or the same one on another connector: nothing.
	check_int_eq(load("DP-1", "DEL-A0B1-XYZ", &out), 0);
	check_int_eq(load("DP-2", "DEL-A0B1-ABC", &out), 0);
	lg_mode_list_finish(&modes);
	lg_mode_list_finish(&out);
	remove_dir();
}

static void test_other_entries_kept(void) {
	fresh_dir();
	struct lg_mode_list one, none, out;
	lg_mode_list_init(&one);
	lg_mode_list_init(&none);
	lg_mode_list_init(&out);
	lg_mode_list_append(&one, &uhd60);
	check(store_save(dir, "DP-1", "A", &one));
	check(store_save(dir, "DP-2", "B", &one));
	check(store_save(dir, "DP-1", "A", &none));
	check_int_eq(load("DP-1", "A", &out), 0);
	check_int_eq(load("DP-2", "B", &out), 1);
	// No temporary file is left behind.
	DIR *d = opendir(dir);
	int files = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		files += e->d_name[0] != '.';
	}
	closedir(d);
	check_int_eq(files, 1);
	lg_mode_list_finish(&one);
	lg_mode_list_finish(&none);
	lg_mode_list_finish(&out);
	remove_dir();
}

static void test_bad_files_are_ignored(void) {
	fresh_dir();
	struct lg_mode_list out;
	lg_mode_list_init(&out);
	check_int_eq(load("DP-1", "A", &out), 0); // no file yet

	write_file("# linkguard known-bad modes v1\n"
		"garbage\n"
		"DP-1 A 3840x2160@60000/533250 extra\n"
		"DP-1 A 3840x2160@0/1\n"
		"DP-1 A -5x2160@60000/1\n"
		"DP-1 A 3840x2160@30000/297000\n"
		"DP-1 A 3840x21"); // truncated mid-write by something else
	check_int_eq(load("DP-1", "A", &out), 1);
	check(out.len == 1 && lg_mode_equal(&out.modes[0], &uhd30));

	char *big = malloc(STORE_MAX_BYTES + 2);
	memset(big, '#', STORE_MAX_BYTES + 1);
	big[STORE_MAX_BYTES + 1] = '\0';
	write_file(big);
	free(big);
	check_int_eq(load("DP-1", "A", &out), 0);

	char path[128];
	snprintf(path, sizeof(path), "%s/known-bad", dir);
	unlink(path);
	check(mkdir(path, 0700) == 0); // unreadable: a directory
	check_int_eq(load("DP-1", "A", &out), 0);
	struct lg_mode_list one;
	lg_mode_list_init(&one);
	lg_mode_list_append(&one, &uhd60);
	check(!store_save(dir, "DP-1", "A", &one)); // cannot replace a directory
	check(!store_save(dir, "DP 1", "A", &one)); // a key that would split
	lg_mode_list_finish(&one);
	lg_mode_list_finish(&out);
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
	struct lg_mode_list one, out;
	lg_mode_list_init(&one);
	lg_mode_list_init(&out);
	lg_mode_list_append(&one, &uhd60);
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
	snprintf(through_file, sizeof(through_file), "%s/home/.local/state/linkguard/known-bad/x", dir);
	check(!store_save(through_file, "DP-1", "A", &one));
	lg_mode_list_finish(&one);
	lg_mode_list_finish(&out);
	remove_dir();
}

/* A writer replacing the file all the time: every read sees a whole file. */
static void test_concurrent_writer(void) {
	fresh_dir();
	struct lg_mode_list one, two, out;
	lg_mode_list_init(&one);
	lg_mode_list_init(&two);
	lg_mode_list_init(&out);
	lg_mode_list_append(&one, &uhd60);
	lg_mode_list_append(&two, &uhd60);
	lg_mode_list_append(&two, &uhd30);
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
	lg_mode_list_finish(&one);
	lg_mode_list_finish(&two);
	lg_mode_list_finish(&out);
	remove_dir();
}

int main(void) {
	lg_log_init(LG_SILENT, NULL);
	run_test(test_round_trip);
	run_test(test_other_entries_kept);
	run_test(test_bad_files_are_ignored);
	run_test(test_missing_parents_are_created);
	run_test(test_concurrent_writer);
	return test_failures == 0 ? 0 : 1;
}
