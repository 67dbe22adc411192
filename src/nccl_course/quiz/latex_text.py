"""TeX math as plain Unicode text, for renderers without MathJax (the terminal quiz).

Covers the macros the question banks use (``tests/quiz/test_latex_text.py`` checks that every
math span in ``quizzes/`` converts without a backslash left): Greek letters, ``\\frac``,
``\\sqrt``, ``\\lceil``/``\\rceil``, ``\\log``, operators, ``\\text``, sub- and superscripts.
Examples: ``2 \\cdot 15/16`` -> ``2·15/16``, ``\\frac{p-1}{p}`` -> ``(p-1)/p``,
``\\log_2 p`` -> ``log₂ p``, ``10^9`` -> ``10⁹``.
"""

from __future__ import annotations

import re

SYMBOLS = {
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "mu": "μ",
    "pi": "π",
    "sigma": "σ",
    "times": "×",
    "approx": "≈",
    "ge": "≥",
    "geq": "≥",
    "le": "≤",
    "leq": "≤",
    "ne": "≠",
    "neq": "≠",
    "to": "→",
    "rightarrow": "→",
    "dots": "…",
    "ldots": "…",
    "cdots": "⋯",
    "infty": "∞",
    "lceil": "⌈",
    "rceil": "⌉",
    "lfloor": "⌊",
    "rfloor": "⌋",
}
# Operator names, written as words and kept apart from what precedes them (n\log p: n log p).
WORDS = ("log", "ln", "exp", "max", "min", "lim")
# Macros that only size or space things.
DROPPED = ("left", "right", "displaystyle", "big", "Big")

_SUB = str.maketrans("0123456789+-=()aeoxhklmnpstijruv", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜᵢⱼᵣᵤᵥ")
_SUP = str.maketrans("0123456789+-=()ni", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ")
_SUB_CHARS = set("0123456789+-=()aeoxhklmnpstijruv")
_SUP_CHARS = set("0123456789+-=()ni")
# Macros after a fraction that are not a factor multiplying it.
_NOT_FACTORS = (*DROPPED, "rceil", "rfloor", "cdot", "times", "approx", "ge", "le", ",", ";", " ")
_MACRO = re.compile(r"\\([a-zA-Z]+|.)")
_SIMPLE = re.compile(r"[A-Za-z0-9.]+|[^\s]")


def _group(tex: str, i: int) -> tuple[str, int]:
    """The argument starting at ``tex[i]`` (``{...}`` with nesting, a macro, or one character)
    and the index after it."""
    while i < len(tex) and tex[i] == " ":
        i += 1
    if i >= len(tex):
        return "", i
    if tex[i] == "{":
        depth = 0
        for j in range(i, len(tex)):
            depth += {"{": 1, "}": -1}.get(tex[j], 0)
            if depth == 0:
                return tex[i + 1 : j], j + 1
        return tex[i + 1 :], len(tex)
    match = _MACRO.match(tex, i)
    if match:
        return match.group(0), match.end()
    return tex[i], i + 1


def _wrapped(text: str) -> str:
    """``text`` in parentheses unless it is a single number, name or symbol."""
    text = text.strip()
    return text if _SIMPLE.fullmatch(text) else f"({text})"


def _script(text: str, table, allowed: set[str], mark: str) -> str:
    if text and set(text) <= allowed:
        return text.translate(table)
    return f"{mark}{_wrapped(text)}"


def latex_to_text(tex: str) -> str:
    """TeX math (without the ``$`` delimiters) as plain text."""
    out: list[str] = []
    i = 0
    while i < len(tex):
        ch = tex[i]
        if ch == "\\":
            match = _MACRO.match(tex, i)
            name, i = match.group(1), match.end()
            if name == "frac":
                top, i = _group(tex, i)
                bottom, i = _group(tex, i)
                fraction = f"{_wrapped(latex_to_text(top))}/{_wrapped(latex_to_text(bottom))}"
                # 2\frac{p-1}{p}n: a factor beside it would read as part of the slash's operands
                after = _MACRO.match(tex, i)
                beside = (
                    (out and out[-1][-1:].isalnum())
                    or tex[i : i + 1].isalnum()
                    or (after is not None and after.group(1) not in _NOT_FACTORS)
                )
                out.append(f"({fraction})" if beside else fraction)
            elif name == "sqrt":
                arg, i = _group(tex, i)
                out.append("√" + _wrapped(latex_to_text(arg)))
            elif name in ("text", "mathrm", "mathbf", "mathit", "operatorname"):
                arg, i = _group(tex, i)
                out.append(arg)
            elif name == "cdot":
                while out and out[-1].endswith(" "):
                    out[-1] = out[-1].rstrip()
                out.append("·")
                while i < len(tex) and tex[i] == " ":
                    i += 1
            elif name in WORDS:
                if out and out[-1][-1:].isalnum():
                    out.append(" ")
                out.append(name)
            elif name in DROPPED:
                pass
            elif name in (",", ";", ":", " ", "quad"):
                out.append(" ")
            elif name in SYMBOLS:
                out.append(SYMBOLS[name])
            else:  # \% \{ \} \_ \$ and any macro not listed: its name
                out.append(name)
        elif ch in "_^":
            arg, i = _group(tex, i + 1)
            text = latex_to_text(arg)
            if ch == "_":
                out.append(_script(text, _SUB, _SUB_CHARS, "_"))
            else:
                out.append(_script(text, _SUP, _SUP_CHARS, "^"))
        elif ch in "{}":
            i += 1
        else:
            out.append(ch)
            i += 1
    text = re.sub(r" {2,}", " ", "".join(out))
    return re.sub(r"([⌈⌊]) | ([⌉⌋])", r"\1\2", text).strip()


_MATH = re.compile(r"\$\$(.+?)\$\$|\$([^$\n]+)\$", re.S)


def math_as_text(markdown: str) -> str:
    """``markdown`` with every ``$...$`` and ``$$...$$`` span replaced by its plain text."""
    return _MATH.sub(lambda m: latex_to_text(m.group(1) or m.group(2)), markdown)
