#!/bin/sh
# Runs a generated search with the run's fresh seed: LINKGUARD_FRESH_SEED
# (scripts/test draws one unless given, and prints it first) becomes its
# LINKGUARD_SEED; without one, the search draws its own. The same search
# runs with the fixed seed as another test, so that a run judges the commit
# on known ground and looks at new ground too.
#
#   fresh-seed.sh PROGRAM [ARGS...]
if [ -n "${LINKGUARD_FRESH_SEED:-}" ]; then
	LINKGUARD_SEED=$LINKGUARD_FRESH_SEED
	export LINKGUARD_SEED
else
	unset LINKGUARD_SEED
fi
exec "$@"
