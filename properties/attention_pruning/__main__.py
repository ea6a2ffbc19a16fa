"""``python -m properties.attention_pruning [--out DIR] [--quick] [--impl MODULE]``: Figure 2 of paper 000
(see :mod:`properties.attention_pruning.experiments`)."""

import sys

from .experiments import main

sys.exit(main())
