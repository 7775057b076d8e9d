"""Sphinx configuration for sklearn-plc's documentation (offline build)."""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # benchmarks.nets is used by an example
os.environ.setdefault("MPLBACKEND", "Agg")

import sklearn_plc  # noqa: E402

project = "sklearn-plc"
author = "sklearn-plc developers"
copyright = "2026, sklearn-plc developers"
release = sklearn_plc.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "sphinx.ext.mathjax",
    # MathJax served from the site itself: the formulas render offline too
    "sphinx-mathjax-offline",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "README.md"]
myst_heading_anchors = 3
# $...$ and $$...$$ in Markdown pages, \begin{align} blocks: typeset by MathJax
myst_enable_extensions = ["dollarmath", "amsmath"]

autosummary_generate = True
# sklearn's generated set_*_request methods and skorch's callback hooks belong to
# those libraries' documentation, not ours.
_FOREIGN_MEMBERS = [
    *(
        f"set_{method}_request"
        for method in ("fit", "score", "predict", "predict_proba", "partial_fit")
    ),
    "score",
    *(
        f"on_{event}"
        for event in (
            "train_begin",
            "train_end",
            "epoch_begin",
            "epoch_end",
            "batch_begin",
            "batch_end",
            "grad_computed",
        )
    ),
    "initialize",
]
autodoc_default_options = {
    "members": True,
    "inherited-members": False,
    "exclude-members": ", ".join(_FOREIGN_MEMBERS),
}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
# Every public function and class documents its parameters.
numpydoc_validation_checks = {"PR01", "PR02"}
numpydoc_validation_exclude = {r"\.__init__$", r"\.set_.*_request$"}

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "show_memory": False,
    "plot_gallery": "True",
}

templates_path = ["_templates"]
html_theme = "furo"
html_title = f"sklearn-plc {release}"
