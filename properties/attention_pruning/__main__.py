"""``python -m properties.attention_pruning [--out DIR] [--quick] [--impl MODULE] [--skip-real-model]``: an alias of
``python -m properties experiment attention_pruning`` (see :mod:`properties.attention_pruning.experiments`)."""

import sys

from .experiments import main

sys.exit(main(prog="python -m properties.attention_pruning"))
