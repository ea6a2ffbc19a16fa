"""Solvers of paper 000 (attention-weight pruning; spec attention_pruning.md and pruning_baselines.md):
the mask optimisation (Algorithm 1 and its momentum variant, binarisation) and the baselines (Wanda,
SparseGPT, fused-W magnitude).  JAX, float64, jit."""

from ._baselines import SparseGPTResult as SparseGPTResult
from ._baselines import count_pruned as count_pruned
from ._baselines import magnitude as magnitude
from ._baselines import prune_qk as prune_qk
from ._baselines import sparsegpt as sparsegpt
from ._baselines import sparsegpt_flops as sparsegpt_flops
from ._baselines import wanda as wanda
from ._gd import GDResult as GDResult
from ._gd import binarize as binarize
from ._gd import binarize_count as binarize_count
from ._gd import gd_trace as gd_trace
from ._gd import gradient as gradient
from ._gd import iteration_flops as iteration_flops
from ._gd import local_lipschitz as local_lipschitz
from ._gd import loss as loss
from ._gd import prune as prune
from ._gd import relative_error as relative_error
from ._gd import run_gd as run_gd
from ._gd import theorem_lipschitz as theorem_lipschitz

__all__ = [
    "GDResult", "SparseGPTResult", "binarize", "binarize_count", "count_pruned", "gd_trace", "gradient", "iteration_flops",
    "local_lipschitz", "loss", "magnitude", "prune", "prune_qk", "relative_error", "run_gd", "sparsegpt",
    "sparsegpt_flops", "theorem_lipschitz", "wanda",
]
