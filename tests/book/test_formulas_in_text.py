"""Every formula that part 1 of the book states is checked against the course's code.

Part 1's pages (book/start/01-*, book/collectives/, book/algorithms/) state formulas in labelled
``{math}`` directives. This test reads each one *from the page text*, turns its right-hand side into
a sympy expression, and compares it with what the package computes:

- ``time``: the closed form in ``nccl_course.cost.closed_form_time``; the alpha coefficient must
  also equal the simulator's number of steps, and (where the bandwidth term is the bytes through
  the busiest rank's link) the beta coefficient the simulator's most bytes sent or received;
- ``bytes`` / ``root_bytes`` / ``steps``: the simulator's schedule (``nccl_course.sim``);
- ``factor``: ``nccl_course.cost.busbw_factor``;
- ``custom``: an explicit check written below (identities, optima, crossovers).

Every labelled equation must have a check here and every check must find its equation, and
display math without a label is not allowed in those pages: a formula cannot enter the text
unchecked, and editing a formula into a wrong one fails this test.

The fixed numeric answers of part 1's quiz banks (and the named mistakes they diagnose) are
recomputed from the same code at the end of this file.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import sympy
from sympy.parsing.sympy_parser import (
    implicit_multiplication_application,
    parse_expr,
    standard_transformations,
)

from nccl_course.cost import CLOSED_FORMS, algbw, busbw, busbw_factor, closed_form_time
from nccl_course.intmath import ceil_log2
from nccl_course.sim import build_schedule, verify_schedule

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(
    [
        *ROOT.glob("book/start/01-*.md"),
        *ROOT.glob("book/collectives/*.md"),
        *ROOT.glob("book/algorithms/*.md"),
    ]
)

MATH_RE = re.compile(r"^```\{math\}\n:label: (\S+)\n(.*?)\n```", re.M | re.S)

# Parameters the checks sweep. Non-powers of two only where the formula writes a ceiling.
POW2 = (2, 4, 8, 16, 64, 256)
NON_POW2 = (3, 5, 6, 12, 100)
SIZES = (1_000.0, 1_048_576.0, 3.0e9)
ALPHA, BETA, GAMMA = 2.7e-6, 1 / 46e9, 1 / 900e9


# ------------------------------------------------------------------ LaTeX -> sympy


def _braced(s: str, i: int) -> tuple[str, int]:
    """The content of the {...} group starting at s[i] == '{', and the index after it."""
    assert s[i] == "{", s[i:]
    depth = 0
    for j in range(i, len(s)):
        depth += {"{": 1, "}": -1}.get(s[j], 0)
        if depth == 0:
            return s[i + 1 : j], j + 1
    raise ValueError(f"unbalanced braces in {s!r}")


def _to_python(tex: str) -> str:
    out, i = [], 0
    while i < len(tex):
        if tex.startswith(r"\frac", i):
            num, i = _braced(tex, i + 5)
            den, i = _braced(tex, i)
            out.append(f"(({_to_python(num)})/({_to_python(den)}))")
        elif tex.startswith(r"\sqrt", i):
            arg, i = _braced(tex, i + 5)
            out.append(f"sqrt({_to_python(arg)})")
        elif tex[i] == "{":
            arg, i = _braced(tex, i)
            out.append(f"({_to_python(arg)})")
        else:
            out.append(tex[i])
            i += 1
    return "".join(out)


def latex_rhs(tex: str) -> str:
    """The right-hand side of a one-line equation (after the last '=')."""
    return tex.split("=")[-1].strip()


def parse_latex(tex: str) -> sympy.Expr:
    s = tex
    for pat, rep in [
        ("f(p)", " f "),  # a busbw factor written as a function of p
        (r"\left", ""),
        (r"\right", ""),
        (r"\,", " "),
        (r"\;", " "),
        (r"\lceil\log_2 p\rceil", " lg "),
        (r"\log_2 p", " lg "),
        (r"\alpha", " alpha "),
        (r"\beta", " beta "),
        (r"\gamma", " gamma "),
        (r"\cdot", "*"),
        (r"\times", "*"),
    ]:
        s = s.replace(pat, rep)
    s = re.sub(r"\\text\{[^}]*\}", "", s)
    leftover = re.findall(r"\\(?!frac|sqrt)[A-Za-z]+", s)
    assert not leftover, f"unsupported LaTeX {leftover} in {tex!r}"
    s = _to_python(s).replace("^", "**")
    names = ("n", "p", "k", "m", "alpha", "beta", "gamma", "lg", "S", "t", "f")
    local = {name: sympy.Symbol(name) for name in names}
    local["sqrt"] = sympy.sqrt
    return parse_expr(
        s,
        local_dict=local,
        transformations=standard_transformations + (implicit_multiplication_application,),
    )


def evaluate(expr: sympy.Expr, **values: float) -> float:
    subs = {sympy.Symbol(k): v for k, v in values.items()}
    if "p" in values and "lg" not in values:
        subs[sympy.Symbol("lg")] = ceil_log2(int(values["p"]))
    result = expr.subs(subs)
    free = result.free_symbols
    assert not free, f"formula has symbols the check does not know: {free}"
    return float(result)


# ------------------------------------------------------------------ the page equations


def page_equations() -> dict[str, tuple[str, str]]:
    """label -> (page name, LaTeX body) for every labelled {math} directive in part 1."""
    found: dict[str, tuple[str, str]] = {}
    for page in PAGES:
        for label, body in MATH_RE.findall(page.read_text()):
            assert label not in found, f"equation label {label} twice ({page.name})"
            found[label] = (page.name, body.strip())
    return found


EQUATIONS = page_equations()


def _ps(tex: str) -> tuple[int, ...]:
    return POW2 + NON_POW2 if r"\lceil" in tex else POW2


def close(a: float, b: float, rel: float = 1e-9) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-15)


# ------------------------------------------------------------------ kinds of check


def check_time(tex, collective, algorithm, *, bytes_on_path=True, chunks=(1,)):
    expr = parse_latex(latex_rhs(tex))
    for p in _ps(tex):
        for n in SIZES:
            for k in chunks:
                want = closed_form_time(collective, algorithm, n, p, ALPHA, BETA, GAMMA, k=k)
                got = evaluate(expr, n=n, p=p, k=k, alpha=ALPHA, beta=BETA, gamma=GAMMA)
                assert close(got, want), (collective, algorithm, p, n, k, got, want)
        if p > 256:
            continue
        for k in chunks:
            s = build_schedule(collective, algorithm, p, chunks=k)
            steps = evaluate(expr, n=1.0, p=p, k=k, alpha=1.0, beta=0.0, gamma=0.0)
            assert close(steps, s.num_steps), (
                f"{collective}/{algorithm} p={p} k={k}: alpha coefficient {steps}, "
                f"simulator steps {s.num_steps}"
            )
            if bytes_on_path:
                n = float(p * 2**20)
                bw = evaluate(expr, n=n, p=p, k=k, alpha=0.0, beta=1.0, gamma=0.0)
                # the busiest rank's link: most bytes sent, or received (a reduce's root)
                busiest = max(*s.bytes_sent_per_rank(n), *s.bytes_received_per_rank(n))
                assert close(bw, busiest, 1e-6), (collective, algorithm, p, bw, busiest)


def check_bytes(tex, collective, algorithm):
    expr = parse_latex(latex_rhs(tex))
    for p in _ps(tex):
        s = build_schedule(collective, algorithm, p)
        assert verify_schedule(s)
        for n in (float(p * 2**20), float(p * 3 * 2**22)):
            got = evaluate(expr, n=n, p=p)
            assert close(got, max(s.bytes_sent_per_rank(n)), 1e-6), (collective, algorithm, p)


def check_root_bytes(tex, collective, algorithms):
    expr = parse_latex(latex_rhs(tex))
    for algorithm in algorithms:
        for p in POW2 + NON_POW2:
            s = build_schedule(collective, algorithm, p)
            n = float(p * 2**20)
            moved = s.bytes_received_per_rank(n) if collective == "gather" else None
            moved = moved if moved is not None else s.bytes_sent_per_rank(n)
            assert close(evaluate(expr, n=n, p=p), moved[s.root], 1e-6), (collective, algorithm)


def check_steps(tex, collective, algorithm, *, chunks=1):
    expr = parse_latex(latex_rhs(tex))
    for p in _ps(tex):
        got = evaluate(expr, p=p, k=chunks)
        assert close(got, build_schedule(collective, algorithm, p, chunks=chunks).num_steps)


def check_factor(tex, collective):
    expr = parse_latex(latex_rhs(tex))
    for p in range(1, 300):
        assert close(evaluate(expr, p=p), busbw_factor(collective, p)), (collective, p)


# ------------------------------------------------------------------ custom checks


def custom_rs_plus_ag(tex):
    expr = parse_latex(latex_rhs(tex))
    for p in POW2 + NON_POW2:
        for n in SIZES:
            v = dict(n=n, p=p, alpha=ALPHA, beta=BETA, gamma=GAMMA)
            rs = closed_form_time("reduce_scatter", "ring", n, p, ALPHA, BETA, GAMMA)
            ag = closed_form_time("all_gather", "ring", n, p, ALPHA, BETA, GAMMA)
            ar = closed_form_time("all_reduce", "ring", n, p, ALPHA, BETA, GAMMA)
            assert close(evaluate(expr, **v), rs + ag) and close(rs + ag, ar)


def custom_message(tex, var="n"):
    expr = parse_latex(latex_rhs(tex))
    for n in SIZES:
        # One message between two ranks = a one-chunk chain broadcast on p = 2.
        want = closed_form_time("broadcast", "ring", n, 2, ALPHA, BETA, k=1)
        assert close(evaluate(expr, **{var: n, "alpha": ALPHA, "beta": BETA}), want)
    s = build_schedule("send_recv", "direct", 2)
    assert s.num_steps == 1 and verify_schedule(s)


def custom_kopt(tex):
    expr = parse_latex(latex_rhs(tex))
    for p in (4, 8, 64, 512):
        for n in (2.0**24, 2.0**30):
            k = evaluate(expr, n=n, p=p, alpha=ALPHA, beta=BETA)

            def t(kk, p=p, n=n):
                return closed_form_time("broadcast", "ring", n, p, ALPHA, BETA, k=kk)

            assert t(k) < t(k * 1.05) and t(k) < t(k / 1.05), (p, n, k)
            # the best whole chunk count is next to k*
            whole = min(range(1, int(4 * k) + 2), key=t)
            assert abs(whole - k) <= 1, (p, n, k, whole)


def custom_tmin(tex):
    expr = parse_latex(latex_rhs(tex))
    for p in (4, 8, 64, 512):
        for n in (2.0**24, 2.0**30):
            k = math.sqrt((p - 2) * n * BETA / ALPHA)
            want = closed_form_time("broadcast", "ring", n, p, ALPHA, BETA, k=k)
            assert close(evaluate(expr, n=n, p=p, alpha=ALPHA, beta=BETA), want)


def custom_rd_crossover(tex):
    expr = parse_latex(latex_rhs(tex))
    for p in (4, 8, 16, 64, 256):
        n_star = evaluate(expr, p=p, alpha=ALPHA, beta=BETA)
        ring = closed_form_time("all_reduce", "ring", n_star, p, ALPHA, BETA)
        rd = closed_form_time("all_reduce", "recursive_doubling", n_star, p, ALPHA, BETA)
        assert close(ring, rd, 1e-9), (p, ring, rd)
        small, large = n_star / 2, n_star * 2
        assert closed_form_time("all_reduce", "recursive_doubling", small, p, ALPHA, BETA) < (
            closed_form_time("all_reduce", "ring", small, p, ALPHA, BETA)
        )
        assert closed_form_time("all_reduce", "ring", large, p, ALPHA, BETA) < (
            closed_form_time("all_reduce", "recursive_doubling", large, p, ALPHA, BETA)
        )


def custom_ring_balance(tex):
    expr = parse_latex(latex_rhs(tex))
    for p in POW2 + NON_POW2:
        n = evaluate(expr, p=p, alpha=ALPHA, beta=BETA)
        latency = closed_form_time("all_reduce", "ring", n, p, ALPHA, 0.0)
        bandwidth = closed_form_time("all_reduce", "ring", n, p, 0.0, BETA)
        assert close(latency, bandwidth), (p, latency, bandwidth)


def custom_general_form(tex):
    # T = a(p) alpha + b(p) n beta + c(p) n gamma: every closed form is linear in alpha, beta,
    # gamma separately, and its beta and gamma parts are proportional to n.
    assert "a(p)" in tex and "b(p)" in tex and "c(p)" in tex
    for (coll, algo), _form in CLOSED_FORMS.items():
        for p in (2, 8, 64):
            for n in SIZES:

                def t(a, b, g, n=n, p=p, coll=coll, algo=algo):
                    return closed_form_time(coll, algo, n, p, a, b, g, k=3)

                parts = t(ALPHA, 0, 0) + t(0, BETA, 0) + t(0, 0, GAMMA)
                assert close(t(ALPHA, BETA, GAMMA), parts), (coll, algo)
                t2 = closed_form_time(coll, algo, 2 * n, p, 0, BETA, GAMMA, k=3)
                assert close(t2, 2 * t(0, BETA, GAMMA)), (coll, algo)


def custom_algbw(tex):
    expr = parse_latex(latex_rhs(tex))
    for size, seconds in ((2**30, 0.0029), (8, 1.8e-5)):
        assert close(evaluate(expr, S=size, t=seconds) / 1e9, algbw(size, seconds))


def custom_busbw(tex):
    expr = parse_latex(latex_rhs(tex))
    for coll in ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast"):
        for p in (2, 8, 16):
            got = evaluate(expr, S=2**30, t=0.004, f=busbw_factor(coll, p))
            assert close(got / 1e9, busbw(coll, 2**30, 0.004, p))


def custom_a2a_bruck_bytes(tex):
    check_bytes(tex, "all_to_all", "bruck")


def custom_tuner_time(tex):
    # NCCL's time for one call: the cell's latency (us) plus bytes over 1000 x its bandwidth
    # (GB/s); checked against the package's tuner table where NCCL applies no correction.
    assert r"\mathrm{lat}(a, p)" in tex and r"\frac{n}{1000\cdot \mathrm{bw}(a, p)}" in tex
    from nccl_course.cost.nccl import tables as T
    from nccl_course.cost.nccl.estimate import table_for

    table = table_for("h200-nvls", 8)
    f = T.FUNCTIONS.index("AllReduce")
    for algorithm, protocol in (("Ring", "LL"), ("Ring", "Simple"), ("NVLS", "Simple")):
        a, pr = T.ALGORITHMS.index(algorithm), T.PROTOCOLS.index(protocol)
        lat, bw = table.latency_us[f][a][pr], table.bandwidth_GBps[f][a][pr]
        for n in SIZES:
            want = lat + n / (1000 * bw)
            assert close(table.time_us("AllReduce", algorithm, protocol, int(n)), want)


CHECKS = {
    # start/01-processes-ranks.md states no formulas in display math.
    # collectives/01-broadcast.md
    "eq-bcast-busbw": lambda t: check_factor(t, "broadcast"),
    "eq-bcast-binomial-time": lambda t: check_time(t, "broadcast", "binomial_tree"),
    "eq-bcast-chain-time": lambda t: check_time(
        t, "broadcast", "ring", bytes_on_path=False, chunks=(1, 2, 7, 64)
    ),
    # collectives/02-reduce.md
    "eq-reduce-busbw": lambda t: check_factor(t, "reduce"),
    "eq-reduce-binomial-time": lambda t: check_time(t, "reduce", "binomial_tree"),
    # collectives/03-all-reduce.md
    "eq-ar-ring-bytes": lambda t: check_bytes(t, "all_reduce", "ring"),
    "eq-ar-busbw": lambda t: check_factor(t, "all_reduce"),
    "eq-ar-ring-time": lambda t: check_time(t, "all_reduce", "ring"),
    # collectives/04-all-gather.md
    "eq-ag-ring-steps": lambda t: check_steps(t, "all_gather", "ring"),
    "eq-ag-ring-bytes": lambda t: check_bytes(t, "all_gather", "ring"),
    "eq-ag-busbw": lambda t: check_factor(t, "all_gather"),
    "eq-ag-ring-time": lambda t: check_time(t, "all_gather", "ring"),
    # collectives/05-reduce-scatter.md
    "eq-rs-ring-bytes": lambda t: check_bytes(t, "reduce_scatter", "ring"),
    "eq-rs-busbw": lambda t: check_factor(t, "reduce_scatter"),
    "eq-rs-ring-time": lambda t: check_time(t, "reduce_scatter", "ring"),
    "eq-rs-plus-ag": custom_rs_plus_ag,
    # collectives/06-all-to-all.md
    "eq-a2a-bytes": lambda t: check_bytes(t, "all_to_all", "pairwise"),
    "eq-a2a-busbw": lambda t: check_factor(t, "all_to_all"),
    "eq-a2a-pairwise-time": lambda t: check_time(t, "all_to_all", "pairwise"),
    "eq-a2a-bruck-time": lambda t: check_time(t, "all_to_all", "bruck"),
    # collectives/07-gather-scatter.md
    "eq-gather-root-bytes": lambda t: (
        check_root_bytes(t, "gather", ("direct", "binomial_tree")),
        check_root_bytes(t, "scatter", ("direct", "binomial_tree")),
    ),
    "eq-gather-busbw": lambda t: check_factor(t, "gather"),
    # collectives/08-send-recv-barrier.md
    "eq-p2p-time": custom_message,
    "eq-p2p-busbw": lambda t: check_factor(t, "send_recv"),
    # algorithms/01-ring.md
    "eq-ring-ag-steps": lambda t: check_steps(t, "all_gather", "ring"),
    "eq-ring-ag-time": lambda t: check_time(t, "all_gather", "ring"),
    "eq-ring-ar-steps": lambda t: check_steps(t, "all_reduce", "ring"),
    "eq-ring-ar-time": lambda t: check_time(t, "all_reduce", "ring"),
    "eq-ring-bcast-pipelined": lambda t: check_time(
        t, "broadcast", "ring", bytes_on_path=False, chunks=(1, 3, 16, 100)
    ),
    "eq-ring-kopt": custom_kopt,
    "eq-ring-tmin": custom_tmin,
    # algorithms/02-trees.md
    "eq-tree-binomial-steps": lambda t: check_steps(t, "broadcast", "binomial_tree"),
    "eq-tree-binomial-bcast": lambda t: check_time(t, "broadcast", "binomial_tree"),
    # algorithms/03-recursive-doubling-halving.md
    "eq-rd-ar-time": lambda t: check_time(t, "all_reduce", "recursive_doubling"),
    "eq-rd-crossover": custom_rd_crossover,
    "eq-rh-rs-time": lambda t: check_time(t, "reduce_scatter", "recursive_halving"),
    "eq-rab-ar-time": lambda t: check_time(t, "all_reduce", "rabenseifner"),
    # algorithms/04-bruck-pairwise.md
    "eq-bruck-ag-steps": lambda t: check_steps(t, "all_gather", "bruck"),
    "eq-bruck-ag-time": lambda t: check_time(t, "all_gather", "bruck"),
    "eq-pairwise-a2a-time": lambda t: check_time(t, "all_to_all", "pairwise"),
    "eq-bruck-a2a-bytes": custom_a2a_bruck_bytes,
    # algorithms/05-cost-model.md
    "eq-cm-message": lambda t: custom_message(t, var="m"),
    "eq-cm-general": custom_general_form,
    "eq-cm-ring-balance": custom_ring_balance,
    # algorithms/06-measuring.md
    "eq-meas-algbw": custom_algbw,
    "eq-meas-busbw": custom_busbw,
    # algorithms/07-how-nccl-chooses.md
    "eq-tuner-time": custom_tuner_time,
}


def test_every_equation_has_a_check_and_every_check_its_equation():
    assert sorted(set(EQUATIONS) - set(CHECKS)) == [], "equations in the text without a check"
    assert sorted(set(CHECKS) - set(EQUATIONS)) == [], "checks whose equation is not in the text"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_unlabelled_display_math(page: Path):
    text = page.read_text()
    code = re.sub(r"^```\{code-cell\}.*?^```", "", text, flags=re.M | re.S)
    assert "$$" not in code, f"{page.name}: display math must be a labelled {{math}} directive"
    bare = re.findall(r"^```\{math\}\n(?!:label:)", text, re.M)
    assert not bare, f"{page.name}: a {{math}} directive without :label:"


@pytest.mark.parametrize("label", sorted(CHECKS))
def test_formula_in_text_matches_the_code(label: str):
    if label not in EQUATIONS:
        pytest.fail(f"equation {label} is not in the text")
    page, tex = EQUATIONS[label]
    CHECKS[label](tex)


def test_parser_catches_a_wrong_formula():
    """The checks can fail: a ring all-gather written with p instead of p-1 latencies is caught."""
    with pytest.raises(AssertionError):
        check_time(r"T = p\alpha + \frac{p-1}{p} n\beta", "all_gather", "ring")
    with pytest.raises(AssertionError):
        check_factor(r"f = \frac{2(p+1)}{p}", "all_reduce")
    with pytest.raises(AssertionError):
        check_bytes(r"B = n", "all_gather", "ring")


# ------------------------------------------------------------------ part 1's quiz answers

MiB, GiB = 2**20, 2**30


def _steps(collective, algorithm, p, **kw):
    return build_schedule(collective, algorithm, p, **kw).num_steps


def _ms(collective, algorithm, n, p, alpha, link, k=1):
    return closed_form_time(collective, algorithm, n, p, alpha, 1 / link, k=k) * 1e3


# (bank, question id) -> the answer computed from the package, in the question's unit
QUIZ_ANSWERS = {
    ("broadcast", "bcast-busbw-factor"): lambda: busbw_factor("broadcast", 8),
    ("broadcast", "bcast-chain-steps"): lambda: _steps("broadcast", "ring", 8, chunks=16),
    ("broadcast", "bcast-binomial-rounds"): lambda: _steps("broadcast", "binomial_tree", 100),
    ("broadcast", "bcast-binomial-time"): lambda: _ms(
        "broadcast", "binomial_tree", 256 * MiB, 16, 10e-6, 200e9
    ),
    ("reduce", "reduce-busbw-factor"): lambda: busbw_factor("reduce", 16),
    ("reduce", "reduce-binomial-rounds"): lambda: _steps("reduce", "binomial_tree", 32),
    ("reduce", "reduce-binomial-time"): lambda: _ms(
        "reduce", "binomial_tree", 64 * MiB, 16, 5e-6, 100e9
    ),
    ("all-reduce", "ar-busbw-factor-16"): lambda: busbw_factor("all_reduce", 16),
    ("all-gather", "ag-ring-steps-8"): lambda: _steps("all_gather", "ring", 8),
    ("all-gather", "ag-bruck-steps-8"): lambda: _steps("all_gather", "bruck", 8),
    ("all-gather", "ag-ring-time"): lambda: _ms("all_gather", "ring", GiB, 16, 5e-6, 100e9),
    # one chunk of the one-chunk-per-rank ring schedule: each rank's output block
    ("reduce-scatter", "rs-output-size"): lambda: (
        build_schedule("reduce_scatter", "ring", 8).chunk_bytes(GiB) / MiB
    ),
    ("reduce-scatter", "rs-ring-time"): lambda: _ms("reduce_scatter", "ring", GiB, 8, 5e-6, 100e9),
    ("all-to-all", "a2a-bytes-leaving"): lambda: (
        max(build_schedule("all_to_all", "pairwise", 8).bytes_sent_per_rank(64 * MiB)) / MiB
    ),
    ("all-to-all", "a2a-pairwise-steps"): lambda: _steps("all_to_all", "pairwise", 16),
    ("all-to-all", "a2a-bruck-steps"): lambda: _steps("all_to_all", "bruck", 16),
    ("all-to-all", "a2a-pairwise-vs-bruck"): lambda: _ms(
        "all_to_all", "bruck", 64 * MiB, 8, 5e-6, 50e9
    ),
    ("all-to-all", "a2a-busbw-factor"): lambda: busbw_factor("all_to_all", 4),
    ("gather-scatter", "gather-root-bytes"): lambda: (
        build_schedule("gather", "direct", 16).bytes_received_per_rank(GiB)[0] / MiB
    ),
    ("gather-scatter", "gather-time-link"): lambda: (
        build_schedule("gather", "direct", 64).bytes_received_per_rank(14e9)[0] / 46e9
    ),
    ("gather-scatter", "gather-busbw-factor"): lambda: busbw_factor("gather", 4),
    ("gather-scatter", "gather-steps-binomial"): lambda: _steps("gather", "binomial_tree", 8),
    ("send-recv", "p2p-time"): lambda: _ms("broadcast", "ring", MiB, 2, 10e-6, 25e9) * 1e3,
    ("send-recv", "p2p-half-size"): lambda: 5e-6 * 50e9 / 1e3,
    ("send-recv", "p2p-busbw"): lambda: busbw_factor("send_recv", 2),
    ("algorithms", "alg-best-chunks"): lambda: min(
        (k / 100 for k in range(100, 40_000)),
        key=lambda k: closed_form_time("broadcast", "ring", GiB, 10, 5e-6, 1 / 100e9, k=k),
    ),
    ("algorithms", "alg-rd-crossover"): lambda: _crossover_mb(8, 2e-6, 100e9),
    ("algorithms", "alg-ring-balance"): lambda: _balance_mb(16, 5e-6, 50e9),
}
# Mistakes that name a specific wrong computation, recomputed the wrong way.
QUIZ_MISTAKES = {
    ("broadcast", "bcast-binomial-time", 1.3522): lambda: _ms(
        "broadcast", "ring", 256 * MiB, 2, 10e-6, 200e9
    ),
    ("reduce", "reduce-binomial-time", 0.6761): lambda: _ms(
        "broadcast", "ring", 64 * MiB, 2, 5e-6, 100e9
    ),
    ("all-gather", "ag-ring-time", 10.812): lambda: (15 * 5e-6 + GiB / 100e9) * 1e3,
    ("all-to-all", "a2a-pairwise-vs-bruck", 1.2094): lambda: _ms(
        "all_to_all", "pairwise", 64 * MiB, 8, 5e-6, 50e9
    ),
    ("gather-scatter", "gather-time-link", 0.30435): lambda: 14e9 / 46e9,
    ("send-recv", "p2p-time", 41.943): lambda: MiB / 25e9 * 1e6,
}


def _bisect(f, lo, hi):
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return lo


def _crossover_mb(p, alpha, link):
    """Where ring and recursive-doubling all-reduce take equal time, found numerically."""

    def diff(n):
        ring = closed_form_time("all_reduce", "ring", n, p, alpha, 1 / link)
        rd = closed_form_time("all_reduce", "recursive_doubling", n, p, alpha, 1 / link)
        return rd - ring

    return _bisect(diff, 1.0, 1e12) / 1e6


def _balance_mb(p, alpha, link):
    """Where the ring all-reduce's latency and bandwidth terms are equal, found numerically."""

    def diff(n):
        bandwidth = closed_form_time("all_reduce", "ring", n, p, 0.0, 1 / link)
        latency = closed_form_time("all_reduce", "ring", n, p, alpha, 0.0)
        return bandwidth - latency

    return _bisect(diff, 1.0, 1e12) / 1e6


def _bank(name):
    from nccl_course import yaml_text

    return {
        q["id"]: q
        for q in yaml_text.safe_load((ROOT / "quizzes" / f"{name}.yml").read_text())["questions"]
    }


def _accepts(question, value):
    tol = question.get("tolerance", {})
    allowed = max(tol.get("abs", 0.0), tol.get("rel", 0.0) * abs(question["answer"]))
    return abs(value - question["answer"]) <= max(allowed, 1e-12)


@pytest.mark.parametrize("key", sorted(QUIZ_ANSWERS), ids=lambda k: f"{k[0]}/{k[1]}")
def test_quiz_answer_matches_the_code(key):
    bank, qid = key
    question = _bank(bank)[qid]
    value = QUIZ_ANSWERS[key]()
    assert _accepts(question, value), f"{bank}/{qid}: key {question['answer']}, code {value}"


@pytest.mark.parametrize("key", sorted(QUIZ_MISTAKES), ids=lambda k: f"{k[0]}/{k[1]}/{k[2]}")
def test_quiz_mistake_matches_its_wrong_computation(key):
    bank, qid, mistake = key
    question = _bank(bank)[qid]
    assert mistake in [m["answer"] for m in question.get("mistakes", [])]
    assert math.isclose(QUIZ_MISTAKES[key](), mistake, rel_tol=2e-4), (key, QUIZ_MISTAKES[key]())


def test_every_fixed_numeric_answer_in_part_1_banks_is_recomputed():
    banks = ("broadcast", "reduce", "all-reduce", "all-gather", "reduce-scatter", "all-to-all")
    banks += ("gather-scatter", "send-recv", "algorithms")
    fixed = {
        (b, q["id"])
        for b in banks
        for q in _bank(b).values()
        if q["type"] == "numeric" and "generator" not in q
    }
    assert fixed - set(QUIZ_ANSWERS) == set(), "fixed numeric answers without a check"
