"""The methods compared by paper 000's experiments and their look in every figure (the synthetic Figure 2
of :mod:`properties.attention_pruning.experiments` and the MiniLM one of
:mod:`properties.attention_pruning.real_model`): one home, so the two figures draw a method alike."""

__all__ = ["METHODS", "STYLES"]

METHODS = ("ours (M)", "ours (|M∘W|)", "Wanda", "SparseGPT", "magnitude")

STYLES = {  # one look per method in every figure: colour, marker and dash differ, so lines that coincide stay visible
    "ours (M)": dict(color="C0", marker="o", linestyle="-", zorder=5),
    "ours (|M∘W|)": dict(color="C1", marker="s", linestyle="--", linewidth=2.4, markerfacecolor="none", markersize=9,
                         zorder=6),
    "Wanda": dict(color="C2", marker="^", linestyle="-.", zorder=4),
    "SparseGPT": dict(color="C3", marker="D", linestyle=(0, (3, 1, 1, 1, 1, 1)), markerfacecolor="none", markersize=8,
                      markeredgewidth=1.5, zorder=5),
    "magnitude": dict(color="C4", marker="v", linestyle=":", linewidth=1.4, markersize=5, zorder=7),
}
"""Line styles of :data:`METHODS` in the figures of this experiment and of the real-model one."""
