"""The *choose* kind: single-choice questions whose options and answer come from the course's
models. For many seeds, the option marked right is what an independent brute force over every
layout (or algorithm) finds best, every other option is at least the stated tolerance slower or
cannot be used, and the numbers in the feedback are the model's."""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path

import pytest

from nccl_course.cost import algorithms_for, sweep_times
from nccl_course.cost.layouts import Cluster, Layout, StepTime, group_preset, step_time
from nccl_course.cost.nccl import predict
from nccl_course.cost.presets import one_gpu_per_node
from nccl_course.cost.training import GPT3_SHAPES
from nccl_course.quiz import GENERATORS, grade, load_bank, load_banks
from nccl_course.quiz.choose import ChoiceDraw, GeneratedChoiceQuestion
from nccl_course.quiz.choose_generators import GPT3_13B
from nccl_course.quiz.parsing import validate_bank
from nccl_course.quiz.printed import printed_variants

REPO = Path(__file__).resolve().parents[2]
SEEDS = range(60)
NUMBER = r"(\d[\d.]*)"

# What the prompt states, mapped back to the hardware the model prices.
NODE_PRESET = {"H100": "h100-nvlink", "A100": "a100-nvlink"}
NET_PRESET = {
    ("H100", 2): "ib-ndr-2node",
    ("H100", 4): "ib-ndr-4node",
    ("A100", 2): "a100-ib-hdr-2node",
}
SHAPE_BY_LAYERS = {s.layers: s for s in (*GPT3_SHAPES[:2], GPT3_13B)}


def sig3(x: float) -> float:
    return float(f"{x:.3g}")


def scenario(params: dict):
    gpu, nodes = params["gpu"], params["nodes"]
    cluster = Cluster(
        f"{nodes}x8 {gpu}",
        nodes,
        8,
        NODE_PRESET[gpu],
        NET_PRESET[(gpu, nodes)],
        params["tflops"] * 1e12,
    )
    return cluster, SHAPE_BY_LAYERS[params["layers"]], params["batch"], params["budget"] * 1e9


def brute_force_layouts(cluster, shape, batch, pp_sizes=None) -> list[StepTime]:
    """Every split of the cluster into dp x tp x pp, DDP and FSDP, that the model accepts."""
    found = []
    for tp, pp in itertools.product(range(1, cluster.gpus_per_node + 1), range(1, 9)):
        if cluster.gpus % (tp * pp) or (pp_sizes and pp not in pp_sizes):
            continue
        if tp & (tp - 1) or pp & (pp - 1):  # the layouts the course offers: powers of two
            continue
        dp = cluster.gpus // (tp * pp)
        for fsdp in (False, True) if dp > 1 else (False,):
            try:
                found.append(step_time(Layout(dp, tp, pp, fsdp), cluster, shape, batch))
            except ValueError:
                continue
    return found


def layout_of(option) -> Layout:
    p = option.params
    return Layout(p["dp"], p["tp"], p["pp"], p["mode"] == "FSDP")


@pytest.mark.parametrize("pp_sizes", [None, [1]])
def test_the_layout_marked_right_is_the_brute_force_best_within_tolerance(pp_sizes):
    gen = GENERATORS["choose_parallel_layout"]
    answers = set()
    for seed in SEEDS:
        options = {"pp_sizes": pp_sizes} if pp_sizes else {}
        draw = gen(random.Random(seed), **options)
        assert isinstance(draw, ChoiceDraw)
        tol = draw.params["tol"] / 100
        cluster, shape, batch, budget = scenario(draw.params)
        every = brute_force_layouts(cluster, shape, batch, pp_sizes)
        fitting = [t for t in every if t.state_bytes <= budget]
        best = min(t.total_s for t in fitting)
        (right,) = [o for o in draw.options if o.correct]
        assert step_time(layout_of(right), cluster, shape, batch).total_s == best, seed
        answers.add(layout_of(right))
        for option in draw.options:
            t = step_time(layout_of(option), cluster, shape, batch)
            if pp_sizes:
                assert t.layout.pp == 1
            if not option.correct:
                assert t.state_bytes > budget or t.total_s >= best * (1 + tol), (seed, option)
        assert len({layout_of(o) for o in draw.options}) == len(draw.options) == 4
    assert len(answers) >= 5  # the answer depends on the situation, not one layout for all


def test_the_layout_feedback_gives_the_model_numbers():
    gen = GENERATORS["choose_parallel_layout"]
    kinds = set()
    for seed in SEEDS:
        draw = gen(random.Random(seed))
        cluster, shape, batch, budget = scenario(draw.params)
        (right,) = [o for o in draw.options if o.correct]
        best = step_time(layout_of(right), cluster, shape, batch)
        for option in draw.options:
            t = step_time(layout_of(option), cluster, shape, batch)
            p = option.params
            assert p["ms"] == sig3(t.total_s * 1e3)
            assert p["compute_ms"] == sig3(t.compute_s * 1e3)
            assert p["bubble_ms"] == sig3(t.bubble_s * 1e3)
            assert p["comm_ms"] == sig3((t.tp_s + t.pp_s + t.dp_s) * 1e3)
            assert (p["tp_ms"], p["pp_ms"], p["dp_ms"]) == tuple(
                sig3(x * 1e3) for x in (t.tp_s, t.pp_s, t.dp_s)
            )
            assert p["gb"] == sig3(t.state_bytes / 1e9)
            assert p["micro"] == batch // t.layout.dp
            if option.correct:
                kinds.add("best")
            elif t.state_bytes > budget:
                kinds.add("too big")
                assert "does not fit" in option.feedback
            else:
                kinds.add("slow")
                assert p["slower"] == round(100 * (t.total_s / best.total_s - 1))
                # the reason named is the term that grew most against the answer's
                growth = {
                    "the pipeline bubble": t.bubble_s - best.bubble_s,
                    "tensor-parallel communication": t.tp_s - best.tp_s,
                    "pipeline communication": t.pp_s - best.pp_s,
                    "data-parallel communication": t.dp_s - best.dp_s,
                }
                assert p["why"] == max(growth, key=growth.get)
    assert kinds == {"best", "too big", "slow"}


def test_step_time_terms():
    """The step's terms as the module docstring states them, for one layout by hand."""
    cluster = Cluster("2x8 H100", 2, 8, "h100-nvlink", "ib-ndr-2node", 400e12)
    shape = GPT3_SHAPES[1]
    t = step_time(Layout(4, 2, 2, False), cluster, shape, 64)
    params = shape.parameters()
    assert t.micro_batches == 16
    assert t.compute_s == pytest.approx(6 * params * 64 * 2048 / 16 / 400e12)
    assert t.bubble_s == pytest.approx(t.compute_s / 16)
    assert t.state_bytes == 16 * (params // 4)
    fsdp = step_time(Layout(4, 2, 2, True), cluster, shape, 64)
    assert fsdp.state_bytes == pytest.approx(t.state_bytes / 4)
    assert fsdp.dp_s > t.dp_s  # the all-gathers again for every micro-batch
    # a data-parallel group at stride 2 spans both nodes with 4 GPUs in each
    preset, ranks = group_preset(cluster, 8, 2)
    assert (ranks, preset.ranks_per_node, preset.nccl.gpus_per_node) == (8, 4, 4)
    assert group_preset(cluster, 2, 8)[0] == one_gpu_per_node("ib-ndr-2node", 2)
    assert group_preset(cluster, 4, 2)[0].name == "h100-nvlink"
    with pytest.raises(ValueError, match="uses 8 GPUs, not 16"):
        step_time(Layout(2, 2, 2), cluster, shape, 64)


def test_the_nccl_choice_is_the_cheapest_entry_of_its_cost_table():
    gen = GENERATORS["choose_nccl_algorithm"]
    descriptions = {}
    from nccl_course.cost import PRESETS

    descriptions = {p.description: name for name, p in PRESETS.items()}
    for seed in SEEDS:
        draw = gen(random.Random(seed))
        tol = draw.params["tol"] / 100
        preset = descriptions[draw.params["description"]]
        assert draw.params["preset"] == preset
        size = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30}
        number, unit = draw.params["size"].split()
        nbytes = int(number) * size[unit]
        table = predict("all_reduce", nbytes, preset).candidates
        best = min((us, name) for name, us in table.items() if us >= 0)
        (right,) = [o for o in draw.options if o.correct]
        assert right.params["algo"] == best[1], seed
        assert right.params["us"] == sig3(best[0])
        for option in draw.options:
            us = table[option.params["algo"]]
            if not option.correct:
                assert us < 0 or us >= best[0] * (1 + tol), (seed, option.params)
                if us >= 0:
                    assert option.params["us"] == sig3(us)


def test_the_textbook_choice_is_the_fastest_algorithm():
    gen = GENERATORS["choose_textbook_algorithm"]
    from nccl_course.cost import PRESETS

    descriptions = {p.description: name for name, p in PRESETS.items()}
    seen = set()
    for seed in SEEDS:
        draw = gen(random.Random(seed))
        tol = draw.params["tol"] / 100
        preset = descriptions[draw.params["description"]]
        number, unit = draw.params["size"].split()
        nbytes = int(number) * {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30}[unit]
        times = {
            a: float(sweep_times("all_reduce", a, [nbytes], preset)[0][0])
            for a in algorithms_for("all_reduce", preset)
        }
        best = min(times, key=times.get)
        (right,) = [o for o in draw.options if o.correct]
        assert right.params["algo"] == best, seed
        seen.add(best)
        for option in draw.options:
            if not option.correct:
                assert times[option.params["algo"]] >= times[best] * (1 + tol)
                assert option.params["us"] == sig3(times[option.params["algo"]] * 1e6)
    assert len(seen) >= 3


CHOOSE = [
    ("training", "choose-layout"),
    ("parallelism-practice", "choose-tp-dp-split"),
    ("nccl-tuner", "choose-nccl-algorithm"),
    ("cost-model", "choose-textbook-algorithm"),
]


@pytest.fixture(scope="module")
def banks():
    return load_banks(REPO / "quizzes")


@pytest.mark.parametrize(("chapter", "qid"), CHOOSE)
def test_choose_questions_grade_and_explain_each_option(banks, chapter, qid):
    q = banks[chapter].question(qid)
    assert isinstance(q, GeneratedChoiceQuestion) and q.parameterized and q.skill
    for seed in range(12):
        inst = q.instantiate(seed)
        key = inst.key()
        assert len(key["correct"]) == 1 and key["n_choices"] == len(inst.choices) == 4
        assert "{{" not in inst.prompt and all("{{" not in c.feedback for c in inst.choices)
        right = key["correct"][0]
        assert grade(inst, right).score == 1
        for i, choice in enumerate(inst.choices):
            if i != right:
                g = grade(inst, i)
                assert g.score == 0 and choice.feedback in g.feedback
        public = inst.public()
        assert public["type"] == "single" and public["choices"] == [c.text for c in inst.choices]
        assert q.instantiate(seed).choices == inst.choices  # a seed draws the same again


@pytest.mark.parametrize(("chapter", "qid"), CHOOSE)
def test_choose_questions_can_be_drawn_fresh(banks, chapter, qid):
    """The exam draws them with situations no practice page prints."""
    assert printed_variants(banks).can_be_fresh(banks[chapter].question(qid))


def test_the_turkish_draw_has_the_same_answer_and_turkish_numbers(banks):
    from nccl_course.quiz.translation import translate_bank

    tr = translate_bank(banks["training"], "tr", REPO / "locales")
    commas = 0
    for seed in range(6):
        en = banks["training"].question("choose-layout").instantiate(seed)
        tk = tr.question("choose-layout").instantiate(seed)
        assert en.key()["correct"] == tk.key()["correct"]
        assert [c.text for c in en.choices] == [c.text for c in tk.choices]  # DP = 4, ...
        feedback = tk.choices[tk.key()["correct"][0]].feedback
        assert feedback.startswith("Doğru") and " ms" in feedback
        # decimals with a comma; a dot only groups thousands (17.800 ms)
        assert not re.search(r"\d\.\d{1,2}(?!\d)", feedback), feedback
        commas += bool(re.search(r"\d,\d", feedback))
    assert commas


def write_bank(tmp_path, body: str) -> Path:
    path = tmp_path / "demo.yml"
    path.write_text(
        "chapter: demo\ntitle: Demo\nquestions:\n"
        + "\n".join("  " + line for line in body.strip().splitlines())
        + "\n"
    )
    return path


def test_the_parser_names_what_is_wrong_with_a_choose_question(tmp_path):
    both = write_bank(
        tmp_path,
        """
- id: q
  type: single
  generator: choose_nccl_algorithm
  prompt: Which?
  difficulty: 1
  tags: [x]
  choices:
    - {text: a, correct: true, feedback: yes}
    - {text: b, correct: false, feedback: no}
""",
    )
    assert any("either 'choices' or a 'generator'" in e for e in validate_bank(both))
    numeric = write_bank(
        tmp_path,
        """
- id: q
  type: single
  generator: algbw_from_time
  prompt: Which?
  difficulty: 1
  tags: [x]
""",
    )
    errors = validate_bank(numeric)
    assert any("draws a Draw; a single-choice question needs" in e for e in errors), errors
    ordering = write_bank(
        tmp_path,
        """
- id: q
  type: ordering
  generator: choose_nccl_algorithm
  prompt: Which?
  difficulty: 1
  tags: [x]
  items: [a, b, c]
  feedback: {correct: yes, incorrect: no}
""",
    )
    assert any("take a 'generator'" in e for e in validate_bank(ordering))
    good = write_bank(
        tmp_path,
        """
- id: q
  type: single
  generator: choose_textbook_algorithm
  options: {tolerance: 0.2, distractors: 2}
  prompt: "{{collective}} of {{size}} on {{ranks}} GPUs: which algorithm? ({{tol}} %)"
  difficulty: 1
  tags: [x]
""",
    )
    bank = load_bank(good)
    inst = bank.questions[0].instantiate(1)
    assert len(inst.choices) == 3 and "(20 %)" in inst.prompt
