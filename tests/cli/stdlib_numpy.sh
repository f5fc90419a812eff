#!/bin/sh
# stdlib_numpy.sh - the std.nn and std.math kernels against numpy:
# tests/stdlib/gen_fixtures.py writes inputs and expected outputs into
# $TMP and runs the tests/stdlib/numpy/*.tdsl scripts that load them.
# Skipped (77) when /usr/bin/python3 has no numpy.

/usr/bin/python3 -c 'import numpy' 2>/dev/null || exit 77
exec /usr/bin/python3 tests/stdlib/gen_fixtures.py "$TDSL" "${TMP:-$(mktemp -d)}"
