#!/bin/sh
# An engine wrapper for the token tests (tests/integration/tournament_tokens.rs):
#
#     wrap.sh [--gate FIFO] ENGINE [ARGS...]
#
# It logs what every local user can see of the engine, its command line (from /proc), and what
# only its owner can, the token in its environment; then, with --gate, waits until the test
# opens and closes the FIFO (the test's cue that it is ready); then becomes ENGINE ARGS (exec
# keeps the process, so the logged command line is the engine's own).
echo "cmdline: $(tr '\0' ' ' < /proc/$$/cmdline)"
echo "token: ${ANQI_TOKEN:-}"
if [ "$1" = --gate ]; then
    read -r _ < "$2" || true
    shift 2
fi
exec "$@"
