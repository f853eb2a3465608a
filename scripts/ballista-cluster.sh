#!/usr/bin/env bash
# A local Apache Ballista cluster for `dustpan analyse --engine ballista`: one scheduler
# and two executors, each its own process bound to 127.0.0.1, built from the published
# Ballista crates (`dustpan-ballista`, in crates/dataflow).
#
#   bash scripts/ballista-cluster.sh start DIR [PORT]   # scheduler on PORT (default 50050)
#   bash scripts/ballista-cluster.sh stop DIR
#
# DIR holds the executors' work folders, the logs and the processes' ids. Then:
#   dustpan analyse --engine ballista --scheduler 127.0.0.1:PORT --work DIR/work ...
# BALLISTA_BIN=PATH uses an already built dustpan-ballista (no build).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    echo "usage: bash scripts/ballista-cluster.sh start DIR [PORT] | stop DIR" >&2
    exit 2
}
(($# >= 2)) || usage
cmd=$1
dir=$2
port=${3:-50050}

case $cmd in
start)
    if [[ -n ${BALLISTA_BIN:-} ]]; then
        bin=$BALLISTA_BIN
    else
        echo "==> cargo build --release -p dataflow --features ballista --bin dustpan-ballista" >&2
        cargo build --release --locked -p dataflow --features ballista --bin dustpan-ballista >&2
        target_dir=$(cargo metadata --format-version 1 --no-deps --locked |
            sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
        bin="${target_dir:-target}/release/dustpan-ballista"
    fi
    mkdir -p "$dir"
    : >"$dir/pids"
    "$bin" scheduler "$port" >"$dir/scheduler.log" 2>&1 &
    echo $! >>"$dir/pids"
    for _ in $(seq 1 300); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
        sleep 0.1
    done
    for k in 1 2; do
        mkdir -p "$dir/executor-$k"
        "$bin" executor "$port" $((port + 2 * k - 1)) $((port + 2 * k)) "$dir/executor-$k" \
            "${BALLISTA_TASKS:-1}" >"$dir/executor-$k.log" 2>&1 &
        echo $! >>"$dir/pids"
    done
    for k in 1 2; do
        for _ in $(seq 1 300); do
            (exec 3<>"/dev/tcp/127.0.0.1/$((port + 2 * k - 1))") 2>/dev/null && break
            sleep 0.1
        done
    done
    echo "scheduler 127.0.0.1:$port, executors 127.0.0.1:$((port + 1)) and 127.0.0.1:$((port + 3)); pids in $dir/pids"
    ;;
stop)
    [[ -f $dir/pids ]] || exit 0
    while read -r pid; do
        kill "$pid" 2>/dev/null || true
    done <"$dir/pids"
    while read -r pid; do
        while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    done <"$dir/pids"
    rm -f "$dir/pids"
    ;;
*) usage ;;
esac
