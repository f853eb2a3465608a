#!/usr/bin/env bash
# The django-oscar proving ground in one command: setup, truth checks, a default
# `dustpan audit`, `dustpan export`, the score, and `dustpan learn` over the truth's
# URL list. DUSTPAN=/path/to/dustpan picks the binary (default: target/release/dustpan).
#
#   bash scripts/oscar/run.sh [--no-setup] [--no-learn] [--state DIR] [-- AUDIT_OPTIONS...]
#
# See scripts/grounds/run.sh and docs/proving-grounds.md.
exec bash "$(cd "$(dirname "$0")" && pwd)/../grounds/run.sh" oscar "$@"
