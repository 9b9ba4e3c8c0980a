"""Sphinx configuration of the widefs documentation.

Build (offline; warnings are errors; the gallery in ``examples/`` runs while it builds)::

    pip install -e ".[docs]"
    sphinx-build -W --keep-going -b html docs docs/_build/html
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import widefs

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS))

from _apigen import missing_from_html, write_api_pages  # noqa: E402

from widefs.cli._cite import bibtex  # noqa: E402

project = "widefs"
author = "widefs developers"
copyright = "2026, widefs developers"
version = release = widefs.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "_templates", "_generated"]

# The API reference is written from the packages' __all__ before Sphinx reads the sources,
# and the citing page shows what `widefs cite` prints, so neither can drift from the code.
write_api_pages(DOCS / "api")
_generated = DOCS / "_generated"
_generated.mkdir(exist_ok=True)
(_generated / "widefs-cite.bib").write_text(bibtex())
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"member-order": "groupwise"}
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True

# The existing markdown pages (method guides, choosing, scaling, reproductions) are used as
# they are, so the links the README uses keep working on GitHub and here.
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath", "colon_fence"]

sphinx_gallery_conf = {
    "examples_dirs": ["../examples"],
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"/_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "doc_module": ("widefs",),
    "backreferences_dir": "api/backreferences",
    "reference_url": {"widefs": None},
    "min_reported_time": 1,
    "matplotlib_animations": False,
    "within_subsection_order": "FileNameSortKey",
    # Every example must run: a failing example fails the build.
    "only_warn_on_example_error": False,
    "abort_on_example_error": True,
    "show_memory": False,
}

html_theme = "pydata_sphinx_theme"
html_title = f"widefs {release}"
html_static_path: list[str] = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "getting_started": [], "citing": [], "changelog": []}
html_show_sourcelink = False
html_copy_source = False

# Pages render without network access: no intersphinx, no remote images.
warnings.filterwarnings("ignore", message="Matplotlib is currently using agg")


def _check_api(app, exception):
    """Fail the build when a public name has no page of its own in the API reference."""
    if exception is not None or app.builder.format != "html":
        return
    missing = missing_from_html(Path(app.outdir))
    if missing:
        raise RuntimeError(
            f"{len(missing)} public names have no page in the API reference: {', '.join(missing)}"
        )


def _skip_member(app, what, name, obj, skip, options):
    """Leave out scikit-learn's generated metadata-routing setters (``set_fit_request``, ...).

    scikit-learn attaches them to every estimator class; their docstrings point into
    scikit-learn's own documentation and say nothing about widefs.
    """
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)
    app.connect("build-finished", _check_api)
