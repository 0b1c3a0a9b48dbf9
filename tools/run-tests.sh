#!/usr/bin/env bash
# Lint, then run the unit and the functional test suites with stestr.
#
# The functional tests need PostgreSQL and MariaDB with the openstack_citest
# user and database, and RabbitMQ with guest/guest, all on 127.0.0.1 (see
# .ci/run). With POOL_TEST_REQUIRE_DB=1 a database that cannot be reached
# fails the tests instead of skipping them.
#
# Usage: tools/run-tests.sh [unit|functional|lint]...   (default: all three)
#
# Prints "N passed, N failed, N skipped" last; exits non-zero on any lint
# error or failed test.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ -z "${VIRTUAL_ENV:-}" ] && [ -x .venv/bin/python ]; then
    export PATH="$PWD/.venv/bin:$PATH"
fi

passed=0
failed=0
skipped=0
status=0

# The number of runs recorded in the stestr repository: a suite that could
# not even be loaded (an import error) records none.
run_count() {
    stestr history list -f value -c 'Run ID' 2>/dev/null | wc -l
}

# stat_of NAME STATS: the number on the "NAME tests:" line of subunit-stats.
stat_of() {
    awk -v key="$1 tests:" 'index($0, key) == 1 {print $NF}' <<<"$2"
}

run_suite() {
    local name=$1
    shift
    local before after rc stats
    printf '\n==> %s tests\n' "$name"
    before=$(run_count)
    stestr "$@" run
    rc=$?
    after=$(run_count)
    if [ "$after" = "$before" ]; then
        echo "$name tests: stestr recorded no run (exit code $rc)" >&2
        failed=$((failed + 1))
        status=1
        return
    fi
    stats=$(stestr last --subunit | subunit-stats --no-passthrough)
    passed=$((passed + $(stat_of Passed "$stats")))
    failed=$((failed + $(stat_of Failed "$stats")))
    skipped=$((skipped + $(stat_of Skipped "$stats")))
    if [ "$rc" -ne 0 ]; then
        status=1
    fi
}

lint() {
    printf '\n==> ruff\n'
    if ! ruff check .; then
        echo "ruff found problems" >&2
        status=1
    fi
}

suites=("$@")
if [ ${#suites[@]} -eq 0 ]; then
    suites=(lint unit functional)
fi

for suite in "${suites[@]}"; do
    case "$suite" in
        lint) lint ;;
        unit) run_suite unit --test-path ./tests/unit ;;
        functional) run_suite functional --test-path ./tests/functional ;;
        *)
            echo "unknown suite: $suite (lint, unit or functional)" >&2
            exit 2
            ;;
    esac
done

if [ "$failed" -ne 0 ]; then
    status=1
fi
echo
echo "$passed passed, $failed failed, $skipped skipped"
exit "$status"
