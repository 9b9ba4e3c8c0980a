"""Generate the API reference from the ``__all__`` of every public widefs package.

Nothing in the reference is listed by hand: each public subpackage or module of ``widefs``
(a name without a leading underscore) gets one page, and that page lists exactly the names in
its ``__all__``. ``conf.py`` writes the pages before Sphinx reads the sources and, once the HTML
is written, checks that every public name has its own page with its anchor
(:func:`missing_from_html`), so a name added to ``__all__`` can never be missing from the site.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

__all__ = ["missing_from_html", "public_api", "write_api_pages"]

# One line under each package's title; the module docstring follows it on the page.
ORDER = (
    "stats",
    "univariate",
    "scm",
    "rules",
    "search",
    "ensemble",
    "model_selection",
    "stumps",
    "datasets",
    "plotting",
    "utils",
    "exceptions",
    "cli",
)


def _public_names(module) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        # A module without __all__ (widefs.exceptions): the public names it defines itself.
        names = [
            name
            for name, obj in vars(module).items()
            if not name.startswith("_")
            and (inspect.isclass(obj) or inspect.isfunction(obj))
            and obj.__module__ == module.__name__
        ]
    return sorted(names, key=lambda n: (n.lower(), n))


def public_api() -> dict[str, list[str]]:
    """Map each public module of widefs (``"widefs.stats"``, ...) to its public names."""
    import widefs

    found = {
        f"widefs.{info.name}"
        for info in pkgutil.iter_modules(widefs.__path__)
        if not info.name.startswith("_")
    }
    rank = {f"widefs.{name}": i for i, name in enumerate(ORDER)}
    api = {}
    for modname in sorted(found, key=lambda m: (rank.get(m, len(rank)), m)):
        api[modname] = _public_names(importlib.import_module(modname))
    return api


def _first_line(module) -> str:
    doc = inspect.getdoc(module) or ""
    return doc.strip().splitlines()[0].rstrip(".") if doc.strip() else ""


def write_api_pages(outdir: Path) -> list[Path]:
    """Write ``index.rst`` and one page per public module into ``outdir``; return the files.

    Pages whose content did not change are left untouched, so Sphinx does not re-read them.
    """
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    api = public_api()
    pages = {}
    toc = []
    for modname, names in api.items():
        short = modname.split(".", 1)[1]
        toc.append(f"   {short}")
        title = f"``{modname}``"
        lines = [
            f".. _api-{short}:",
            "",
            title,
            "=" * len(title),
            "",
            f".. automodule:: {modname}",
            "   :no-members:",
            "",
            f".. currentmodule:: {modname}",
            "",
        ]
        if names:
            lines += [".. autosummary::", "   :toctree: generated/", "   :nosignatures:", ""]
            lines += [f"   {name}" for name in names]
        else:
            lines.append("This module has no public names.")
        pages[outdir / f"{short}.rst"] = "\n".join(lines) + "\n"
    rows = []
    for modname in api:
        summary = _first_line(importlib.import_module(modname))
        rows += [f"   * - :ref:`{modname} <api-{modname.split('.', 1)[1]}>`", f"     - {summary}"]
    index = [
        ".. _api:",
        "",
        "API reference",
        "=============",
        "",
        "Every public name of every public package, generated from the packages' ``__all__``.",
        "Import names from the package (``from widefs.univariate import DiscriminativeSelector``),",
        "never from its private modules.",
        "",
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 30 70",
        "",
        "   * - package",
        "     - what it holds",
        *rows,
        "",
        ".. toctree::",
        "   :hidden:",
        "   :maxdepth: 1",
        "",
        *toc,
        "",
    ]
    pages[outdir / "index.rst"] = "\n".join(index)
    for path, text in pages.items():
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    # Pages of modules that no longer exist would otherwise linger and break the toctree.
    for stale in set(outdir.glob("*.rst")) - set(pages):
        stale.unlink()
    return sorted(pages)


def missing_from_html(html_dir: Path) -> list[str]:
    """Public names without their own generated page (with the name's anchor) in ``html_dir``."""
    html_dir = Path(html_dir)
    missing = []
    for modname, names in public_api().items():
        for name in names:
            full = f"{modname}.{name}"
            page = html_dir / "api" / "generated" / f"{full}.html"
            if not page.is_file() or f'id="{full}"' not in page.read_text(encoding="utf-8"):
                missing.append(full)
    return missing
