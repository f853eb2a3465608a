#!/usr/bin/env python3
"""Scores a Dustpan audit of the MediaWiki proving ground against the wiki's truth.

    score.py --state STATE_DIR --export EXPORT_DIR [--json] [--top N]

The scorer is scripts/grounds/score.py with this ground's truth.py (see its help).
"""

import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "grounds"))
import score  # noqa: E402

if __name__ == "__main__":
    sys.exit(score.main(truth_path=os.path.join(HERE, "truth.py"), default_state="/tmp/dustpan-mediawiki"))
