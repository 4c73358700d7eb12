#ifndef CORE_STORE_H
#define CORE_STORE_H

/*
 * The known-bad-mode store: the modes a monitor did not hold on a
 * connector, kept across restarts in one text file, DIR/known-bad (DIR and
 * every missing directory above it are created 0700 on the first write):
 *
 *   # linkguard known-bad modes v3
 *   <connector> <identity> <width>x<height>@<mHz>/<kHz> <link> <failed> <last> <skipped>
 *
 * one mode and link per line: <link> is where the mode failed, the lane's
 * rate in Mbit/s and the lane count ("5400x4"), or "any" where the backend
 * could not tell (the mode counts at every link); <failed> is how many
 * starts in a row the mode failed at there (1 or more), <last> when it
 * last failed (wall clock, seconds since the epoch), <skipped> how many
 * starts have skipped it since. A mode may have a line per link.
 *
 * The store never hides a mode for good. A start is a compositor's first
 * look at the monitor on the connector in a process (src/known_bad.c).
 * At each start an entry's mode is
 *   - tried when it failed at one start only: one bad start is no verdict;
 *   - skipped when it failed at k >= 2 starts in a row, at the next
 *     min(k - 1, STORE_RETRY_WITHIN - 1) starts (1, 2, then 3: the interval
 *     grows), and tried at the start after: so it is tried again at the
 *     latest on the STORE_RETRY_WITHIN-th start after it last failed,
 *     whatever its history (a cable replaced while the compositor was off
 *     gets its chance).
 * A failure at a start that tried the mode counts once for that start,
 * however often it fails there; a success (the link held it) removes the
 * entry.
 *
 * Files written by version 1 (header "... v1", lines without the three
 * counts) are read as one failure at the file's modification time, those
 * of version 2 (no link) as failures at any link; both are written back as
 * v3 at the next write. Whatever cannot be read (a missing,
 * unreadable, oversized file, one of an unknown version, a bad line) is
 * logged and skipped, and gone after the next write: the store only ever
 * makes a start better. Writes
 * replace the file atomically (a temporary file in DIR, fsync, rename), so
 * a reader sees the old or the new file, never half of one; of two
 * processes writing at once, the last rename wins.
 */

#include <stdbool.h>
#include <stdint.h>
#include <linkguard/link.h>
#include <linkguard/mode.h>

/* The file is read whole; past this it is not ours, or not sane. */
#define STORE_MAX_BYTES (256 * 1024)

/* A mode that failed is tried again at the latest on this start after. */
#define STORE_RETRY_WITHIN 4

/* What the store knows of one mode of one monitor on one connector, at a link. */
struct store_entry {
	struct lg_mode mode;
	struct lg_link_params link; // where it failed; zero: not known, any link
	uint32_t failed_starts; // starts in a row at which the mode failed
	int64_t last_failed; // seconds since the epoch
	uint32_t skipped_starts; // starts that skipped it since
};

struct store_entries {
	struct store_entry *entries;
	size_t len, cap;
};

void store_entries_init(struct store_entries *entries);
void store_entries_finish(struct store_entries *entries);
/* The entry of mode (lg_mode_equal) at link, or NULL; a NULL link: at any. */
struct store_entry *store_entries_find(const struct store_entries *entries,
	const struct lg_mode *mode, const struct lg_link_params *link);
/*
 * The entry of mode at link (zero: not known), added with no failure yet
 * if missing; NULL out of memory.
 */
struct store_entry *store_entries_get(struct store_entries *entries,
	const struct lg_mode *mode, const struct lg_link_params *link);
void store_entries_remove(struct store_entries *entries, struct store_entry *entry);

/* A start: whether it skips entry's mode (then counted as skipped). */
bool store_entry_start(struct store_entry *entry);
/*
 * entry's mode failed at now. first: the first failure of the start, the
 * only one that counts towards failed_starts.
 */
void store_entry_failed(struct store_entry *entry, int64_t now, bool first);

/* Adds to entries what DIR holds for (connector, identity), if not there yet. */
bool store_load(const char *dir, const char *connector, const char *identity,
	struct store_entries *entries);
/* Replaces what DIR holds for (connector, identity) with entries. */
bool store_save(const char *dir, const char *connector, const char *identity,
	const struct store_entries *entries);

#endif
