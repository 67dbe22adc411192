"""TeX math as terminal text: the macros the banks use, and every math span in the banks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nccl_course.quiz import load_banks
from nccl_course.quiz.latex_text import latex_to_text, math_as_text

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"2 \cdot 15/16", "2·15/16"),
        (r"\frac{p-1}{p}", "(p-1)/p"),
        (r"T = \frac{n}{B}", "T = n/B"),
        (r"2(p-1)\alpha + 2\frac{p-1}{p}n\beta", "2(p-1)α + 2((p-1)/p)nβ"),
        (r"n\log_2 p\,\beta", "n log₂ p β"),
        (r"\lceil \log_2 p \rceil", "⌈log₂ p⌉"),
        (r"10^9 \times 2^{30}", "10⁹ × 2³⁰"),
        (r"x^{(1)} + t_{ring}", "x⁽¹⁾ + t_ring"),
        (r"\sqrt{p} \ge \left(\frac{n}{p}\right)", "√p ≥ (n/p)"),
        (r"\text{busbw} \approx 0.8\,B", "busbw ≈ 0.8 B"),
        (r"\gamma, \mu s, 100\%", "γ, μ s, 100%"),
    ],
)
def test_latex_to_text(tex, text):
    assert latex_to_text(tex) == text


def test_math_as_text_keeps_the_prose():
    assert math_as_text("Each sends $\\frac{n}{p}$ bytes; $$2 \\cdot 3$$ in all.") == (
        "Each sends n/p bytes; 2·3 in all."
    )


def test_every_math_span_in_the_banks_converts():
    spans = []
    for bank in load_banks(REPO / "quizzes").values():
        for q in bank.questions:
            inst = q.instantiate(0)
            texts = [inst.prompt, q.explanation or ""]
            texts += [c.text for c in inst.choices] + [c.feedback for c in inst.choices]
            texts += list(inst.items) + list(inst.left) + list(inst.right)
            for text in texts:
                spans += re.findall(r"\$\$(.+?)\$\$|\$([^$\n]+)\$", text, flags=re.S)
    assert len(spans) > 100
    for display, inline in spans:
        text = latex_to_text(display or inline)
        assert not re.search(r"[\\{}]", text), (display or inline, text)
