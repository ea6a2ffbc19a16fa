"""Solvers of paper 000 (attention-weight pruning; spec attention_pruning.md and pruning_baselines.md):
the mask optimisation (Algorithm 1 and its momentum variant, binarisation) and the baselines (Wanda,
SparseGPT, fused-W magnitude).  JAX, float64, jit.  For the real-model experiment: a BERT encoder
(MiniLM-L6) with its WordPiece tokenizer, and the pruning loss over several padded sequences."""

from ._baselines import SparseGPTResult as SparseGPTResult
from ._baselines import count_pruned as count_pruned
from ._baselines import magnitude as magnitude
from ._baselines import prune_qk as prune_qk
from ._baselines import pruned_weight as pruned_weight
from ._baselines import sparsegpt as sparsegpt
from ._baselines import sparsegpt_flops as sparsegpt_flops
from ._baselines import wanda as wanda
from ._batch import batch_relative_error as batch_relative_error
from ._batch import prune_batch as prune_batch
from ._encoder import Bert as Bert
from ._encoder import bert_bilinear as bert_bilinear
from ._encoder import bert_forward as bert_forward
from ._encoder import load_bert as load_bert
from ._encoder import pad_batch as pad_batch
from ._gd import GDResult as GDResult
from ._gd import binarize as binarize
from ._gd import binarize_count as binarize_count
from ._gd import final_iterate as final_iterate
from ._gd import gd_trace as gd_trace
from ._gd import gradient as gradient
from ._gd import iteration_flops as iteration_flops
from ._gd import local_lipschitz as local_lipschitz
from ._gd import loss as loss
from ._gd import prune as prune
from ._gd import relative_error as relative_error
from ._gd import run_gd as run_gd
from ._gd import theorem_lipschitz as theorem_lipschitz
from ._wordpiece import WordPiece as WordPiece

__all__ = [
    "Bert", "GDResult", "SparseGPTResult", "WordPiece", "batch_relative_error", "bert_bilinear", "bert_forward",
    "binarize", "binarize_count", "count_pruned", "final_iterate", "gd_trace", "gradient", "iteration_flops", "load_bert",
    "local_lipschitz", "loss", "magnitude", "pad_batch", "prune", "prune_batch", "prune_qk", "pruned_weight",
    "relative_error", "run_gd",
    "sparsegpt", "sparsegpt_flops", "theorem_lipschitz", "wanda",
]
