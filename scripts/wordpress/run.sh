#!/usr/bin/env bash
# The WordPress proving ground in one command: build (or keep) and serve the site on
# 127.0.0.1:8710, audit it with dustpan, export and score the audit against WordPress's
# own data, then `dustpan learn` over the truth's URL list. See scripts/grounds/run.sh
# for the options and what each run writes, and scripts/wordpress/README.md.
#
#   bash scripts/wordpress/run.sh [--no-setup] [--no-learn] [--state DIR] [-- AUDIT_OPTIONS...]
exec bash "$(cd "$(dirname "$0")/.." && pwd)/grounds/run.sh" wordpress "$@"
