# Sourced by the benchmark scripts: the release binaries and the generated fixture site.
#
#   bench_binaries                  sets $bin: $BENCH_BIN, or the release build of
#                                   dustpan and dustpan-fixture (built here)
#   bench_fixture PAGES TMP [ARG..] starts dustpan-fixture --generated PAGES on a free
#                                   loopback port with its CA in TMP/ca.pem; sets $port
#                                   and $fixture_pid; stopped and TMP removed at exit

bench_binaries() {
    if [[ -n ${BENCH_BIN:-} ]]; then
        bin=$BENCH_BIN
        return
    fi
    echo "==> cargo build --release (dustpan, dustpan-fixture)" >&2
    cargo build --release --locked -p dustpan -p fixture --bin dustpan --bin dustpan-fixture >&2
    local target_dir
    target_dir=$(cargo metadata --format-version 1 --no-deps --locked |
        sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
    bin="${target_dir:-target}/release"
}

bench_fixture() {
    local pages=$1
    bench_tmp=$2
    shift 2
    fixture_pid=
    trap bench_cleanup EXIT
    # Port 0: the fixture picks a free port and prints it.
    "$bin/dustpan-fixture" --generated "$pages" --port 0 --ca-out "$bench_tmp/ca.pem" "$@" \
        >"$bench_tmp/fixture.log" 2>&1 &
    fixture_pid=$!
    port=
    for _ in $(seq 1 600); do
        port=$(sed -n 's/^dustpan-fixture listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$bench_tmp/fixture.log")
        [[ -n $port ]] && break
        if ! kill -0 "$fixture_pid" 2>/dev/null; then
            cat "$bench_tmp/fixture.log" >&2
            echo "dustpan-fixture exited" >&2
            exit 1
        fi
        sleep 0.1
    done
    if [[ -z $port ]]; then
        echo "dustpan-fixture did not start" >&2
        exit 1
    fi
    # Wait until it accepts connections.
    for _ in $(seq 1 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            break
        fi
        sleep 0.1
    done
}

bench_cleanup() {
    if [[ -n ${fixture_pid:-} ]]; then
        kill "$fixture_pid" 2>/dev/null || true
        wait "$fixture_pid" 2>/dev/null || true
    fi
    rm -rf "$bench_tmp"
}
