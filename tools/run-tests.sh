#!/usr/bin/env bash
# Lint, then run the unit and the functional test suites with stestr.
#
# It first installs pool and its test requirements into .venv and creates
# the openstack_citest user and database on PostgreSQL and MariaDB (root
# and trust access on 127.0.0.1, as a fresh machine has them): the
# functional tests need those, and RabbitMQ with guest/guest. With POOL_TEST_REQUIRE_DB=1 a database that cannot be reached
# fails the tests instead of skipping them.
#
# Usage: tools/run-tests.sh [lint|unit|functional|faults|fuzz|docs]...
# (default: all but faults, which restarts the services and runs only when
# named)
#
# Prints "N passed, N failed, N skipped" last; exits non-zero on any lint
# error or failed test.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

CITEST=openstack_citest
export PIP_DISABLE_PIP_VERSION_CHECK=1

# The user, password and database oslo.db's opportunistic fixtures use. The
# user creates and drops a randomly named database for each test.
create_databases() {
    printf '\n==> test databases and users\n'
    psql -h 127.0.0.1 -U postgres -d postgres -v ON_ERROR_STOP=1 -q \
        <<EOF || return 1
DO \$\$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$CITEST') THEN
        CREATE ROLE $CITEST LOGIN CREATEDB PASSWORD '$CITEST';
    ELSE
        ALTER ROLE $CITEST LOGIN CREATEDB PASSWORD '$CITEST';
    END IF;
END
\$\$;
SELECT 'CREATE DATABASE $CITEST OWNER $CITEST'
    WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$CITEST')
\gexec
ALTER DATABASE $CITEST OWNER TO $CITEST;
EOF
    echo "PostgreSQL: user and database $CITEST"

    # MariaDB runs with skip-name-resolve: 'localhost' matches the socket
    # only, '%' the TCP connections.
    mariadb --protocol=tcp -h 127.0.0.1 -P 3306 -u root <<EOF || return 1
CREATE USER IF NOT EXISTS '$CITEST'@'%' IDENTIFIED BY '$CITEST';
CREATE USER IF NOT EXISTS '$CITEST'@'localhost' IDENTIFIED BY '$CITEST';
ALTER USER '$CITEST'@'%' IDENTIFIED BY '$CITEST';
ALTER USER '$CITEST'@'localhost' IDENTIFIED BY '$CITEST';
GRANT ALL PRIVILEGES ON *.* TO '$CITEST'@'%' WITH GRANT OPTION;
GRANT ALL PRIVILEGES ON *.* TO '$CITEST'@'localhost' WITH GRANT OPTION;
CREATE DATABASE IF NOT EXISTS $CITEST;
FLUSH PRIVILEGES;
EOF
    echo "MariaDB: user and database $CITEST"
}

install_pool() {
    printf '\n==> virtualenv .venv\n'
    if [ ! -x .venv/bin/python ]; then
        python3 -m venv .venv || exit 1
    fi
    # pbr takes the version from git; a work tree without a commit has none.
    if ! git rev-parse --verify -q HEAD >/dev/null 2>&1; then
        export PBR_VERSION=0.0.1
    fi
    local extra=()
    # The functional suites drive MariaDB through a C driver, built here:
    # lint, unit, fuzz and docs need no compiler and no MariaDB headers.
    if [[ " ${suites[*]} " =~ \ (functional|faults)\  ]]; then
        extra=(-r functional-requirements.txt)
    fi
    .venv/bin/python -m pip install -q -r requirements.txt \
        -r test-requirements.txt "${extra[@]}" || exit 1
    .venv/bin/python -m pip install -q --no-deps -e . || exit 1
}



passed=0
failed=0
skipped=0
status=0
# The ids of the tests that failed, printed again just before the summary.
failures=()
# What stestr kept of the failed tests (their tracebacks and output).
details=$(mktemp)
fuzz_log=
trap 'rm -f "$details" $fuzz_log' EXIT

# The number of runs recorded in the stestr repository: a suite that could
# not even be loaded (an import error) records none.
run_count() {
    # Without a repository stestr prints a message, not a run.
    if [ ! -d .stestr ]; then
        echo 0
        return
    fi
    stestr history list -f value -c 'Run ID' 2>/dev/null | wc -l
}

# stat_of NAME STATS: the number on the "NAME tests:" line of subunit-stats.
stat_of() {
    awk -v key="$1 tests:" 'index($0, key) == 1 {print $NF}' <<<"$2"
}

# run_suite NAME TEST_PATH [ARGUMENTS OF stestr run...]
run_suite() {
    local name=$1 path=$2
    shift 2
    local before after rc stats
    printf '\n==> %s tests\n' "$name"
    before=$(run_count)
    stestr --test-path "$path" run "$@"
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
        mapfile -t -O "${#failures[@]}" failures < <(stestr failing --list 2>/dev/null)
        stestr failing >>"$details" 2>&1
    fi
}

# schemathesis against a pool-server and its OpenAPI document (tools/fuzz.py).
fuzz() {
    printf '\n==> fuzz\n'
    timeout 900 python tools/fuzz.py
    fuzz_outcome $?
}

# The same in the background (fuzz_start), its output kept until fuzz_end
# waits for it.
fuzz_start() {
    fuzz_log=$(mktemp)
    timeout 900 python tools/fuzz.py >"$fuzz_log" 2>&1 &
    fuzz_pid=$!
}

fuzz_end() {
    local rc=0
    wait "$fuzz_pid" || rc=$?
    printf '\n==> fuzz (it ran beside the faults suite)\n'
    cat "$fuzz_log"
    fuzz_outcome "$rc"
}

fuzz_outcome() {
    if [ "$1" -eq 0 ]; then
        passed=$((passed + 1))
    else
        echo "schemathesis found problems (or could not run)" >&2
        failed=$((failed + 1))
        status=1
    fi
}

# The documentation (doc/source) with Sphinx, warnings as errors.
docs() {
    printf '\n==> docs\n'
    if ! .venv/bin/python -m pip install -q -r doc/requirements.txt; then
        echo "could not install doc/requirements.txt" >&2
        failed=$((failed + 1))
        status=1
        return
    fi
    rm -rf doc/build/html
    if sphinx-build -q -W -b html doc/source doc/build/html; then
        passed=$((passed + 1))
    else
        echo "the documentation does not build" >&2
        failed=$((failed + 1))
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
    # The faults suite restarts the machine's services: only when named.
    suites=(lint unit functional fuzz docs)
fi

named() {
    [[ " ${suites[*]} " == *" $1 "* ]]
}

# The functional tests wait on their servers and databases much of the
# time: two workers a core keep the cores busy.
FUNCTIONAL_CONCURRENCY="${FUNCTIONAL_CONCURRENCY:-$((2 * $(nproc)))}"

install_pool
export PATH="$PWD/.venv/bin:$PATH"
export VIRTUAL_ENV="$PWD/.venv"
if ! create_databases; then
    echo "could not create the test databases and users: the tests that" \
        "need PostgreSQL or MariaDB will be skipped (failed in CI)" >&2
fi

for suite in "${suites[@]}"; do
    case "$suite" in
        lint) lint ;;
        # With the faults suite, the fuzz runs beside it (below).
        fuzz) named faults || fuzz ;;
        docs) docs ;;
        unit) run_suite unit ./tests/unit ;;
        functional)
            run_suite functional ./tests/functional \
                --concurrency "$FUNCTIONAL_CONCURRENCY" \
                --exclude-regex '^tests\.functional\.faults\.'
            ;;
        # They restart RabbitMQ and PostgreSQL: one at a time, with no
        # other test on those services. They mostly wait for takeovers and
        # restarts; the fuzz, whose pool-server needs neither service,
        # uses the cores meanwhile.
        faults)
            named fuzz && fuzz_start
            run_suite faults ./tests/functional --concurrency 1 \
                '^tests\.functional\.faults\.'
            named fuzz && fuzz_end
            ;;
        *)
            echo "unknown suite: $suite (lint, unit, functional, faults," \
                "fuzz or docs)" >&2
            exit 2
            ;;
    esac
done

if [ "$failed" -ne 0 ]; then
    status=1
fi
echo
if [ -s "$details" ]; then
    # Last, where a truncated log still shows why.
    echo "the failed tests, the last 120 lines of their details:"
    tail -n 120 "$details"
    echo
fi
if [ ${#failures[@]} -ne 0 ]; then
    echo "failed:"
    printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
exit "$status"
