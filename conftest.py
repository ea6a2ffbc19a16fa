"""pytest configuration: Hypothesis profiles, JAX float64, markers.

The Hypothesis profile comes from ``--hypothesis-profile`` (Hypothesis's own pytest option); the
default here is ``ci``.  JAX runs in float64 with rank promotion raising, as in the solvers.
"""

import os

import jax

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_numpy_rank_promotion", "raise")

from hypothesis import settings  # noqa: E402

import properties.profiles  # noqa: E402,F401  (registers ci, dev, thorough)

settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser):
    parser.addoption("--ledger-profile", default=None,
                     help="profile for the per-claim ledger tests (default: the Hypothesis profile, else ci)")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long-running checks")
    config.addinivalue_line("markers", "gpu: needs an accelerator")
