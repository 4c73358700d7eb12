#ifndef CORE_NAMES_H
#define CORE_NAMES_H

/*
 * src/names.c: the names of the machine's values for the log, beside those
 * of include/linkguard/.
 */

#include <core/machine.h>

const char *lg_machine_event_name(enum lg_machine_event_type type);
const char *lg_failure_name(enum lg_failure failure);

#endif
