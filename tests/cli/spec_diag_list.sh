# spec_diag_list.sh - the list of diagnostics in lang/SPEC.md is up to
# date: regenerating it with lang/gen-diag-list.sh changes nothing.
# When this fails, run `sh lang/gen-diag-list.sh` and review the diff.

command -v python3 >/dev/null 2>&1 || exit 77
cp lang/SPEC.md "$TMP/SPEC.md" || exit 1
sh lang/gen-diag-list.sh "$TMP/SPEC.md" || exit 1
if ! diff -u --label lang/SPEC.md --label regenerated \
        lang/SPEC.md "$TMP/SPEC.md"; then
    echo "lang/SPEC.md: the diagnostics section is stale;" \
         "run 'sh lang/gen-diag-list.sh'"
    exit 1
fi
