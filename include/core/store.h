#ifndef CORE_STORE_H
#define CORE_STORE_H

/*
 * The known-bad-mode store: the modes a monitor did not hold on a
 * connector, kept across restarts in one text file, DIR/known-bad:
 *
 *   # linkguard known-bad modes v1
 *   <connector> <identity> <width>x<height>@<refresh mHz>/<clock kHz>
 *
 * one mode per line. Whatever cannot be read (a missing, unreadable,
 * oversized or corrupt file, a bad line) is logged and skipped: the store
 * only ever makes a boot better. Writes replace the file atomically (a
 * temporary file in DIR, fsync, rename), so a reader sees the old or the
 * new file, never half of one; of two processes writing at once, the last
 * rename wins.
 */

#include <stdbool.h>
#include <linkguard/mode.h>

/* The file is read whole; past this it is not ours, or not sane. */
#define STORE_MAX_BYTES (256 * 1024)

/* Appends to modes what DIR remembers for (connector, identity). */
bool store_load(const char *dir, const char *connector, const char *identity,
	struct lg_mode_list *modes);
/* Replaces what DIR remembers for (connector, identity) with modes. */
bool store_save(const char *dir, const char *connector, const char *identity,
	const struct lg_mode_list *modes);

#endif
