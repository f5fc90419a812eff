#!/bin/sh
# Every example is kept in the canonical form `tdsl fmt` prints, so a
# newcomer's first files already look the way the formatter wants.
status=0
for f in examples/*.tdsl; do
    "$TDSL" fmt --check "$f" || status=1
done
exit $status
