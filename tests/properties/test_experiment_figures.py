"""The experiment's figures read at a glance: every title and the legend lie inside the
canvas, the legend covers no panel, and each method has its own colour, marker and dash, so lines that
coincide (ours (|M∘W|) and magnitude on MiniLM) stay distinguishable."""

import itertools

import pytest

pytest.importorskip("matplotlib")

import matplotlib.pyplot as plt  # noqa: E402

from properties.attention_pruning import experiments, real_model  # noqa: E402


def _texts_inside_and_legend_apart(fig):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    texts = [fig._suptitle] + [ax.title for ax in fig.axes] + fig.legends
    for t in texts:
        ext = t.get_window_extent(renderer)
        assert (ext.x0 >= box.x0 - 0.5 and ext.x1 <= box.x1 + 0.5 and ext.y0 >= box.y0 - 0.5
                and ext.y1 <= box.y1 + 0.5), f"{t!r} at {ext.bounds} leaves the canvas {box.bounds}"
    (legend,) = fig.legends
    for ax in fig.axes:
        assert not legend.get_window_extent(renderer).overlaps(ax.get_window_extent(renderer)), "legend over a panel"


def _rows(values):
    return [(v, {m: (0.1 * (i + k + 1), 0.05 * (i + k + 1), 0.2 * (i + k + 1)) for k, m in enumerate(experiments.METHODS)})
            for i, v in enumerate(values)]


@pytest.mark.parametrize("grid", [experiments.QUICK, experiments.FULL], ids=["quick", "full"])
@pytest.mark.parametrize("variant", ["a", "b"])
def test_figure2_titles_fit_and_the_legend_covers_no_panel(grid, variant):
    axes = {"lambda": _rows(grid.lams), "n": _rows(grid.ns), "rho": _rows(grid.rhos)}
    fig = experiments.figure2_figure(variant, axes, grid)
    try:
        _texts_inside_and_legend_apart(fig)
    finally:
        plt.close(fig)


@pytest.mark.parametrize("rhos", [real_model.QUICK_RHOS, real_model.RHOS], ids=["quick", "full"])
def test_minilm_title_fits_and_the_legend_covers_no_panel(rhos):
    """The quick run's single panel had its title cut off on both sides."""
    res = {"setup": {"rhos": rhos, "layers": 6, "steps": real_model.QUICK_STEPS},
           "layers": {(m, r): [0.1 + 0.01 * (k + layer) for layer in range(6)]
                      for k, m in enumerate(real_model.METHODS) for r in rhos}}
    fig = real_model.figure(res)
    try:
        _texts_inside_and_legend_apart(fig)
    finally:
        plt.close(fig)


def test_every_method_has_its_own_colour_marker_and_dash():
    assert set(experiments.STYLES) == set(experiments.METHODS) == set(real_model.METHODS)
    for a, b in itertools.combinations(experiments.METHODS, 2):
        sa, sb = experiments.STYLES[a], experiments.STYLES[b]
        for key in ("color", "marker", "linestyle"):
            assert sa[key] != sb[key], f"{a} and {b} share {key}={sa[key]!r}"
