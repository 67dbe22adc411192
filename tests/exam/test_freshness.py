"""Fresh exam questions are never printed in the practice pages, and looking answers up in the
pages stays below the pass mark in every attempt, not only on average.

The pages print, for each parameterised question, the variants ``printed_seeds`` gives, with
their keys; these tests recompute what they give away straight from that rule (not through the
index ``PrintedVariants`` keeps) and check 2,000 attempts of the repository's exam against it.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from docutils import nodes

from nccl_course.exam import blueprint as bp_module
from nccl_course.exam.blueprint import (
    Blueprint,
    Zone,
    draw_questions,
    fit_to_banks,
    instance_seed,
    load_blueprint,
    lookup_share,
)
from nccl_course.quiz import Bank, grade_key, load_banks
from nccl_course.quiz import printed as printed_module
from nccl_course.quiz.printed import (
    PRINTED_VARIANTS,
    PrintedVariants,
    params_fingerprint,
    printed_seeds,
    printed_variants,
)
from nccl_course.quiz.sphinx_directive import DEFAULT_VARIANTS, QuizDirective, _variants_option

REPO = Path(__file__).resolve().parents[2]
ATTEMPTS = 2000


@pytest.fixture(scope="module")
def banks():
    return load_banks(REPO / "quizzes")


@pytest.fixture(scope="module")
def blueprint(banks):
    fitted = fit_to_banks(load_blueprint(REPO / "quizzes" / "exam" / "blueprint.yml"), banks)
    assert fitted.problems == []
    return fitted


@pytest.fixture(scope="module")
def draws(blueprint, banks):
    return {seed: draw_questions(blueprint, banks, seed) for seed in range(ATTEMPTS)}


class PageRule:
    """What the pages give away, recomputed from the directive's rule by brute force: for a
    parameterised question, a printed variant of it with the same numbers or prompt, or whose
    answer (exact or as displayed) is graded right; or a printed variant of another question
    with the same numbers whose answer is graded right."""

    def __init__(self, banks):
        self.same_question = defaultdict(list)
        self.same_numbers = defaultdict(list)
        for bank in banks.values():
            for q in bank.questions:
                if q.parameterized:
                    assert q.type in ("numeric", "single"), "extend PageRule to this question type"
                    for seed in printed_seeds(q):
                        inst = q.instantiate(seed)
                        if q.type == "numeric":
                            copied = (inst.answer, inst.key()["display"])
                        else:  # a choose question: the text of the option marked right
                            copied = frozenset(c.text for c in inst.choices if c.correct)
                        row = (q.uid, q.type, inst.params, inst.prompt, copied)
                        self.same_question[q.uid].append(row)
                        self.same_numbers[params_fingerprint(inst.params)].append(row)

    def gives_away(self, inst) -> bool:
        if not inst.question.parameterized:
            return True
        key = None
        rows = (
            self.same_question[inst.question.uid]
            + self.same_numbers[params_fingerprint(inst.params)]
        )
        for uid, kind, params, prompt, copied in rows:
            if uid == inst.question.uid and (params == inst.params or prompt == inst.prompt):
                return True
            if kind != inst.type:
                continue  # a copied number answers no choice, a copied choice no number
            if kind == "single":  # the choices that bear the copied text
                copied = [i for i, c in enumerate(inst.choices) if c.text in copied]
            key = key or inst.key()
            if any(grade_key(key, answer).score > 0 for answer in copied):
                return True
        return False


@pytest.fixture(scope="module")
def page_rule(banks):
    return PageRule(banks)


@pytest.fixture(scope="module")
def given_away(draws, page_rule):
    """For each attempt, whether the pages give away each of its questions."""
    return {
        seed: [page_rule.gives_away(d.instance) for d in drawn] for seed, drawn in draws.items()
    }


def test_pages_print_exactly_the_printed_seeds(banks):
    """The directive prints, per question, the seeds ``printed_seeds`` gives (the function the
    exam uses), never more than PRINTED_VARIANTS of them."""
    seen = []

    class Recorder(QuizDirective):
        language = "en"  # no Sphinx environment here to read the page's language from

        def _raw(self, parent, markup):
            pass

        def _variant(self, parent, inst, index):
            seen.append((inst.question.uid, inst.seed))

    directive = object.__new__(Recorder)
    for bank in banks.values():
        directive.render_bank(nodes.container(), bank, DEFAULT_VARIANTS, None)
    expected = [(q.uid, s) for b in banks.values() for q in b.questions for s in printed_seeds(q)]
    assert seen == expected and DEFAULT_VARIANTS == PRINTED_VARIANTS
    parameterized = {q.uid for b in banks.values() for q in b.questions if q.parameterized}
    assert {(v.uid, v.seed) for v in printed_variants(banks).variants} == {
        (uid, s) for uid, s in expected if uid in parameterized
    }
    assert _variants_option("3") == 3
    with pytest.raises(ValueError, match=f"at most {PRINTED_VARIANTS}"):
        _variants_option(str(PRINTED_VARIANTS + 1))


def test_no_fresh_instance_coincides_with_a_printed_variant(draws, blueprint, given_away):
    fresh = redrawn = 0
    for seed, drawn in draws.items():
        for d, away in zip(drawn, given_away[seed], strict=True):
            if not d.instance.question.parameterized:
                assert d.lookup
                continue
            fresh += 1
            redrawn += d.instance_seed != instance_seed(seed, d.position)
            assert not d.lookup, (seed, d.position, d.instance.question.uid)
            assert not away, (seed, d.position, d.question_id)
            if seed < 200:  # the server can rebuild what the learner saw from the stored seed
                rebuilt = d.instance.question.instantiate(d.instance_seed)
                assert rebuilt.params == d.instance.params
    print(f"\n{fresh} fresh instances in {ATTEMPTS} attempts, {redrawn} redrawn, none printed")
    assert fresh >= ATTEMPTS * blueprint.fresh_count and redrawn > 0


def test_lookup_share_stays_below_the_pass_mark_in_every_attempt(draws, blueprint, given_away):
    """The share of an attempt's points that the pages give away, counted question by question
    (fixed ones, and fresh ones that would coincide: none), never reaches the pass mark."""
    shares = []
    for seed, drawn in draws.items():
        shares.append(sum(given_away[seed]) / len(drawn))
        assert lookup_share(drawn) == shares[-1]
    worst = max(shares)
    print(
        f"\nlook-up share over {ATTEMPTS} attempts: max {worst:.1%}, "
        f"ceiling {blueprint.lookup_ceiling:.1%}, pass mark {blueprint.pass_score:.0%}"
    )
    assert worst <= blueprint.lookup_ceiling < blueprint.pass_score


def test_the_old_draw_gave_fresh_questions_away(draws, blueprint, page_rule):
    """Before the redraw, question ``position`` of an attempt was drawn with
    ``instance_seed(attempt, position)`` whatever numbers that gave: in attempt 0 already one
    fresh question had exactly the numbers of a printed variant (its key in the page), and some
    attempts could be passed by looking answers up alone. The draw now redraws those."""

    def printed_params(question):
        return {params_fingerprint(question.instantiate(s).params) for s in printed_seeds(question)}

    collided = [
        d
        for d in draws[0]
        if d.instance.question.parameterized
        and params_fingerprint(d.instance.question.instantiate(instance_seed(0, d.position)).params)
        in printed_params(d.instance.question)
    ]
    assert collided, "attempt 0 of the old draw had a fresh question printed in the pages"
    for d in collided:
        assert d.instance_seed != instance_seed(0, d.position)
        assert params_fingerprint(d.instance.params) not in printed_params(d.instance.question)
    old_worst = max(
        sum(
            page_rule.gives_away(d.instance.question.instantiate(instance_seed(seed, d.position)))
            for d in draws[seed]
        )
        / len(draws[seed])
        for seed in range(300)
    )
    print(
        f"\nold draw, attempt 0: {[d.instance.question.uid for d in collided]} printed; "
        f"max look-up share over 300 attempts {old_worst:.1%}"
    )
    assert old_worst >= blueprint.pass_score


def test_instance_seed_without_redraw_is_unchanged():
    import hashlib

    digest = hashlib.sha256(b"nccl-course-exam:7:3").digest()
    assert instance_seed(7, 3) == instance_seed(7, 3, 0) == int.from_bytes(digest[:8], "big") >> 1
    assert instance_seed(7, 3, 1) != instance_seed(7, 3) and 0 <= instance_seed(7, 3, 1) < 2**63


def test_the_same_computation_in_another_chapter_counts_as_printed(banks):
    """send-recv/p2p-algbw and intro/algbw-from-size-time ask the same computation in other
    words: numbers printed under one give the other's answer away."""
    printed = printed_variants(banks)
    p2p = banks["send-recv"].question("p2p-algbw")
    intro = banks["intro"].question("algbw-from-size-time")
    intro_params = {params_fingerprint(intro.instantiate(s).params) for s in printed_seeds(intro)}
    own = {params_fingerprint(p2p.instantiate(s).params) for s in printed_seeds(p2p)}
    seed = next(
        s
        for s in range(PRINTED_VARIANTS, 2000)
        if params_fingerprint(p2p.instantiate(s).params) in intro_params - own
    )
    assert printed.coincides(p2p.instantiate(seed))
    for q in (p2p, intro):
        assert all(printed.coincides(q.instantiate(s)) for s in printed_seeds(q))


def test_numeric_shortcut_grades_like_grade_key(banks):
    printed = printed_variants(banks)
    for bank in banks.values():
        for q in bank.questions:
            if not q.parameterized or q.type != "numeric":
                continue
            others = [v for v in printed.variants if v.uid == q.uid] + printed.variants[::7]
            for seed in range(PRINTED_VARIANTS, PRINTED_VARIANTS + 10):
                inst = q.instantiate(seed)
                scores = printed_module._numeric_scorer(inst)
                key = inst.key()
                for v in others:
                    for r in (*v.copied, "12 parsecs", f"{inst.answer} {q.unit}"):
                        assert scores(r) == (grade_key(key, r).score > 0), (q.uid, seed, r)


def _small_exam(banks):
    question = banks["training"].question("ddp-bucket-count")  # 8 possible draws, 5 printed
    fixed = next(q for q in banks["training"].questions if not q.parameterized)
    small = {"t": Bank(chapter="t", title="T", questions=(question, fixed))}
    blueprint = Blueprint(
        exam_id="e", title="T", time_limit_s=60, max_attempts=1, pass_score=0.7,
        zones=[Zone(chapter="t", draw=2, fresh=1)],
    )  # fmt: skip
    return question, small, blueprint


def test_witness_seed_when_every_redraw_is_printed(banks, monkeypatch):
    question, small, blueprint = _small_exam(banks)
    monkeypatch.setattr(bp_module, "MAX_REDRAWS", 0)
    witness = printed_variants(small).witness_seed(question)
    assert witness is not None and witness >= PRINTED_VARIANTS
    for seed in range(50):
        drawn = {d.question_id: d for d in draw_questions(blueprint, small, seed)}
        assert drawn[question.id].instance_seed == witness and not drawn[question.id].lookup
        assert lookup_share(list(drawn.values())) == 0.5


def test_a_question_without_unprinted_draws_is_never_a_fresh_pick(banks, monkeypatch):
    """If the pages printed every draw of a question, the exam must not count it as fresh."""
    question, small, blueprint = _small_exam(banks)
    monkeypatch.setattr(printed_module, "PRINTED_VARIANTS", 200)  # prints all 8 draws
    monkeypatch.setattr(printed_module, "WITNESS_SCAN", 300)
    printed = PrintedVariants(small.values())
    assert not printed.can_be_fresh(question)
    assert printed_variants(small).witness_seed(question) is None
    fitted = fit_to_banks(blueprint, small)
    assert fitted.zones[0].fresh == 0 and fitted.lookup_ceiling == 1.0
    assert any("never a fresh pick" in p for p in fitted.problems)
    assert any("looking answers up" in p for p in fitted.problems)
    with pytest.raises(ValueError):
        draw_questions(blueprint, small, 0)  # the unfitted blueprint's fresh pick cannot be met
    for seed in range(20):
        assert lookup_share(draw_questions(fitted, small, seed)) == 1.0
