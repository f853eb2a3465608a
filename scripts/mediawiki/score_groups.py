#!/usr/bin/env python3
"""Scores equivalence groups of a URL list against the MediaWiki proving ground's truth.

    score_groups.py --list URLS.txt --groups GROUPS.tsv [--state DIR] [--json]

The scorer is scripts/grounds/score_groups.py with this ground's truth.py.
"""

import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "grounds"))
import score_groups  # noqa: E402

if __name__ == "__main__":
    sys.exit(score_groups.main(truth_path=os.path.join(HERE, "truth.py"), default_state="/tmp/dustpan-mediawiki"))
