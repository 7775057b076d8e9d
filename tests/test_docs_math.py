"""The documentation's formulas are mathematics (MyST dollarmath, numpydoc math)."""

import ast
from pathlib import Path

import pytest

from sklearn_plc.correction import correct_labels, next_threshold
from sklearn_plc.noise import pmd_tau

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _conf_value(name):
    tree = ast.parse((DOCS / "conf.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and node.targets[0].id == name:
            return ast.literal_eval(node.value)
    raise KeyError(name)


@pytest.fixture(scope="module")
def user_guide_math():
    pytest.importorskip("myst_parser")
    from docutils.core import publish_doctree
    from myst_parser.parsers.docutils_ import Parser

    doctree = publish_doctree(
        (DOCS / "user_guide.md").read_text(),
        parser=Parser(),
        settings_overrides={
            "myst_enable_extensions": _conf_value("myst_enable_extensions"),
            "report_level": 5,
        },
    )
    return [
        node.astext()
        for node in doctree.findall(lambda n: n.tagname in ("math", "math_block"))
    ]


def test_the_pmd_functions_are_typeset(user_guide_math):
    assert any(r"-\tfrac12 g^2 + \tfrac12" in m for m in user_guide_math)
    assert any(r"\tfrac13 (g^3 + g^2 + g)" in m for m in user_guide_math)
    assert any(r"\frac{1 - \tau(g)}{F}" in m for m in user_guide_math)


def test_the_correction_rule_and_the_schedule_are_typeset(user_guide_math):
    assert any(r"\frac{f_y(x)}{\max_j f_j(x)} < \delta" in m for m in user_guide_math)
    assert any(r"\min(\delta + \beta" in m for m in user_guide_math)


def test_the_site_serves_mathjax_itself():
    assert "sphinx-mathjax-offline" in _conf_value("extensions")


@pytest.mark.parametrize("function", [correct_labels, next_threshold, pmd_tau])
def test_the_formula_docstrings_carry_a_math_block(function):
    assert ".. math::" in function.__doc__
