"""What a benchmark needs beyond goldset itself, said in one line before it starts.

The peers a benchmark runs side by side (pytrec_eval, ranx, ir_measures, krippendorff...) and
numpy come with the ``bench`` extra, not with goldset: without them a script would stop on an
ImportError's traceback halfway through. ``require`` checks first and exits with status 2 and one
line naming the extra, as goldset's own commands do with bad input.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def require(*modules: str) -> None:
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        script = Path(sys.argv[0]).name
        print(
            f"bench/{script} needs the bench extra (missing: {', '.join(missing)}): "
            "pip install -e '.[bench]' from the checkout",
            file=sys.stderr,
        )
        sys.exit(2)
