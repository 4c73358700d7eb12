#ifndef KMS_READER_H
#define KMS_READER_H

/*
 * A sink's DPCD read with a deadline. The kernel's AUX character device
 * (drm_dp_aux_dev.c) has no poll and ignores O_NONBLOCK: a read blocks
 * through each of its 16-byte AUX transactions, each bounded only by the
 * driver's timeouts and retries, which a dock that stopped answering
 * stretches to minutes (fwupd met one of two). The read runs in a thread
 * of its own while the caller waits for it, up to the deadline. The event
 * loop stays blocked while a read lasts, as it did for a plain read, so no
 * commit starts meanwhile (AUX traffic while the link trains makes some
 * docks fail their training); past the deadline the read is cancelled (the
 * kernel acts on it between two transactions) and left to end on its own,
 * and every read is refused until it has: a hung device costs one deadline.
 */

#include <stdint.h>
#include <kms/aux.h>

struct aux_read;

struct aux_reader {
	uint32_t timeout_ms;
	struct aux_read *hung; // past its deadline, not ended yet; or NULL
};

/* A read of fd through impl into out: 0 or a negative errno. */
typedef int (*aux_read_fn)(const struct aux_impl *impl, void *data, int fd,
	void *out);

void aux_reader_init(struct aux_reader *reader, uint32_t timeout_ms);
/*
 * fn, reading size bytes into out, within the reader's deadline. Returns
 * fn's result, -ETIMEDOUT when the deadline passed first, -EBUSY while a
 * read that timed out has not ended, or another negative errno (no
 * thread). out is written only when fn ended in time.
 */
int aux_reader_run(struct aux_reader *reader, const struct aux_impl *impl,
	void *impl_data, int fd, aux_read_fn fn, void *out, size_t size);
/* aux_read() within the deadline. */
int aux_reader_read(struct aux_reader *reader, const struct aux_impl *impl,
	void *impl_data, int fd, struct dpcd_regs *regs);
/* aux_read_caps() within the deadline. */
int aux_reader_read_caps(struct aux_reader *reader, const struct aux_impl *impl,
	void *impl_data, int fd, struct dpcd_caps_regs *caps);
/* Waits for a read that timed out to end (it was cancelled). */
void aux_reader_finish(struct aux_reader *reader);

#endif
