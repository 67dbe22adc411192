"""Reading one bank: parse a chapter's YAML file into a ``Bank`` and validate it.

Validation collects every problem it finds and names the file and the question id in each
message, so a bank author can fix them all at once; it also draws every question (several seeds
when parameterized) to check that its placeholders and answers work. Where the bank's folder has
an objectives file (``nccl_course.quiz.objectives``), every question must name one of its
objectives, and any skill it names must be one of its skills. The format is specified in
quizzes/README.md.
"""

from __future__ import annotations

import difflib
import math
from pathlib import Path

from nccl_course import yaml_text
from nccl_course.quiz import choose_generators  # noqa: F401  (registers the choose generators)
from nccl_course.quiz import generators as _generators
from nccl_course.quiz.choose import GeneratedChoiceQuestion, drawn_choice_errors, misplaced_keys
from nccl_course.quiz.exhibits import parse_exhibit
from nccl_course.quiz.model import (
    ID_RE,
    TYPES,
    Bank,
    BankError,
    Choice,
    Mistake,
    Question,
)
from nccl_course.quiz.objectives import Objectives, folder_objectives, objectives_path
from nccl_course.quiz.units import tolerance, unit_family

# Seeds the validator draws for each parameterized question.
VALIDATION_SEEDS = range(8)

_COMMON_KEYS = {
    "id",
    "type",
    "prompt",
    "difficulty",
    "tags",
    "explanation",
    "objective",
    "skill",
    "exhibit",
}
_TYPE_KEYS = {
    "single": {"choices", "shuffle", "generator", "options"},
    "multiple": {"choices", "shuffle"},
    "numeric": {
        "answer",
        "unit",
        "tolerance",
        "sig_figs",
        "feedback",
        "mistakes",
        "generator",
        "options",
    },
    "ordering": {"items", "feedback"},
    "matching": {"pairs", "distractors", "feedback"},
    "text": {"answers", "mistakes", "feedback"},
}


def parse_bank(path: Path, objectives: Objectives | None = None) -> tuple[Bank | None, list[str]]:
    """Parse and check a bank file; returns (bank or None, errors). The bank holds only the
    questions without errors. ``objectives``: those the questions may name; None reads the
    objectives file beside the bank, if there is one."""
    path = Path(path)
    where = _display_path(path)
    errors: list[str] = []
    if objectives is None:
        objectives, objective_errors = folder_objectives(path.parent)
        if objective_errors:
            return None, [f"{where}: {e}" for e in objective_errors]
    try:
        raw = yaml_text.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, [f"{where}: file not found"]
    except yaml_text.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        return None, [f"{where}: not valid YAML{at}: {problem}"]
    if not isinstance(raw, dict):
        return None, [f"{where}: the top level must be a mapping with chapter, title, questions"]
    unknown = set(raw) - {"chapter", "title", "questions"}
    if unknown:
        errors.append(f"{where}: unknown top-level keys {sorted(unknown)}")
    chapter = raw.get("chapter")
    if chapter != path.stem:
        errors.append(f"{where}: chapter {chapter!r} must equal the file name {path.stem!r}")
        chapter = path.stem
    title = raw.get("title")
    if not isinstance(title, str) or not title.strip():
        errors.append(f"{where}: 'title' must be a non-empty string")
        title = chapter
    raw_questions = raw.get("questions")
    if not isinstance(raw_questions, list) or not raw_questions:
        errors.append(f"{where}: 'questions' must be a non-empty list")
        raw_questions = []
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for index, rq in enumerate(raw_questions):
        qid = rq.get("id") if isinstance(rq, dict) else None
        label = f"question {qid!r}" if isinstance(qid, str) else f"question #{index + 1} (no id)"
        prefix = f"{where}: {label}"
        if isinstance(qid, str):
            if qid in seen:
                errors.append(f"{prefix}: duplicate id (also question #{seen[qid] + 1})")
            seen.setdefault(qid, index)
        q_errors: list[str] = []
        question = _parse_question(rq, chapter, q_errors)
        if question is not None:
            q_errors.extend(_objective_errors(question, objectives, path))
        errors.extend(f"{prefix}: {e}" for e in q_errors)
        if question is not None and not q_errors:
            draw_errors = _check_draws(question)
            errors.extend(f"{prefix}: {e}" for e in draw_errors)
            if not draw_errors:
                questions.append(question)
    bank = Bank(chapter=chapter, title=title, questions=tuple(questions), path=path)
    return bank, errors


def _objective_errors(q: Question, objectives: Objectives | None, path: Path) -> list[str]:
    """What is wrong with the question's ``objective`` and ``skill`` against ``objectives``."""
    file = objectives_path(Path(path).parent).name
    if objectives is None:
        named = [f"{k} {v!r}" for k, v in (("objective", q.objective), ("skill", q.skill)) if v]
        if named:
            return [f"names {' and '.join(named)}, but the bank's folder has no {file}"]
        return []
    errors = []
    if q.objective is None:
        errors.append(
            f"'objective' is missing: name the learning objective it tests, one of the ids in "
            f"{file} (for example {next(iter(objectives.objectives), 'CHAPTER/SLUG')!r})"
        )
    elif q.objective not in objectives:
        close = difflib.get_close_matches(q.objective, list(objectives.objectives), n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        errors.append(f"unknown objective {q.objective!r}: it is not an id in {file}{hint}")
    if q.skill is not None and q.skill not in objectives.skills:
        errors.append(
            f"unknown skill {q.skill!r}: it is not one of the 'skills' in {file} "
            f"({', '.join(sorted(objectives.skills))})"
        )
    return errors


def _display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _text(raw: dict, key: str, errors: list[str], required: bool = True, where: str = "") -> str:
    value = raw.get(key)
    name = f"{where}{key}"
    if value is None:
        if required:
            errors.append(f"'{name}' is missing")
        return ""
    if isinstance(value, bool):
        errors.append(f'\'{name}\': YAML read this as {value}; quote the text ("yes", "no")')
        return ""
    if isinstance(value, int | float):
        return str(value)
    if not isinstance(value, str) or (required and not value.strip()):
        errors.append(f"'{name}' must be a non-empty string (markdown)")
        return ""
    return value.strip()


def _feedback_pair(raw: dict, errors: list[str]) -> tuple[str, str]:
    fb = raw.get("feedback")
    if not isinstance(fb, dict):
        errors.append("'feedback' must be a mapping with 'correct' and 'incorrect' (markdown)")
        return "", ""
    unknown = set(fb) - {"correct", "incorrect"}
    if unknown:
        errors.append(f"'feedback' has unknown keys {sorted(unknown)}")
    return (
        _text(fb, "correct", errors, where="feedback."),
        _text(fb, "incorrect", errors, where="feedback."),
    )


def _number(value, name: str, errors: list[str], minimum: float | None = 0.0) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        errors.append(f"'{name}' must be a number, got {value!r}")
        return None
    if minimum is not None and value < minimum:
        errors.append(f"'{name}' must be >= {minimum:g}, got {value!r}")
        return None
    return float(value)


def _parse_question(rq, chapter: str, errors: list[str]) -> Question | None:
    if not isinstance(rq, dict):
        errors.append("must be a mapping")
        return None
    qid = rq.get("id")
    if not isinstance(qid, str) or not ID_RE.match(qid):
        errors.append(
            f"'id' must be lower-case letters, digits and '-', starting with a letter or digit; "
            f"got {qid!r}"
        )
        qid = str(qid)
    qtype = rq.get("type")
    if qtype not in TYPES:
        errors.append(f"'type' is {qtype!r}, not one of {', '.join(TYPES)}")
        return None
    unknown = set(rq) - _COMMON_KEYS - _TYPE_KEYS[qtype]
    if unknown:
        errors.append(f"unknown keys for type {qtype}: {sorted(unknown)}")
    prompt = _text(rq, "prompt", errors)
    difficulty = rq.get("difficulty")
    if difficulty not in (1, 2, 3) or isinstance(difficulty, bool):
        errors.append(f"'difficulty' must be 1, 2 or 3, got {difficulty!r}")
        difficulty = 1
    tags = rq.get("tags")
    if (
        not isinstance(tags, list)
        or not tags
        or not all(isinstance(t, str) and t.strip() for t in tags)
    ):
        errors.append("'tags' must be a non-empty list of strings")
        tags = []
    explanation = _text(rq, "explanation", errors, required=False)
    references = {}
    for key in ("objective", "skill"):
        value = rq.get(key)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            errors.append(f"'{key}' must be an id from the objectives file, got {value!r}")
            value = None
        references[key] = value.strip() if isinstance(value, str) else None
    fields: dict = {}
    generated_choices = qtype == "single" and "generator" in rq
    if generated_choices:
        errors.extend(misplaced_keys(rq))
        fields = _generator_fields(rq, errors)
    elif qtype in ("single", "multiple"):
        fields = _parse_choices(rq, qtype, errors)
    elif qtype == "numeric":
        fields = _parse_numeric(rq, errors)
    elif qtype == "ordering":
        items = rq.get("items")
        if not isinstance(items, list) or len(items) < 3:
            errors.append("'items' must list at least 3 items, in the correct order")
            items = []
        elif not all(isinstance(i, str | int | float) for i in items):
            errors.append("every entry of 'items' must be text")
        elif len({str(i) for i in items}) != len(items):
            errors.append("'items' has duplicates: the order would be ambiguous")
        fields["items"] = tuple(str(i) for i in items)
        fields["feedback_correct"], fields["feedback_incorrect"] = _feedback_pair(rq, errors)
    elif qtype == "matching":
        fields = _parse_matching(rq, errors)
    elif qtype == "text":
        answers = rq.get("answers")
        if not isinstance(answers, list) or not answers:
            errors.append("'answers' must list at least one accepted answer")
            answers = []
        fields["answers"] = tuple(str(a) for a in answers)
        fields["mistakes"] = _parse_mistakes(rq, errors, numeric=False)
        fields["feedback_correct"], fields["feedback_incorrect"] = _feedback_pair(rq, errors)
        from nccl_course.quiz.grading import normalize_text

        accepted = {normalize_text(a) for a in fields["answers"]}
        if "" in accepted:
            errors.append("an accepted answer is empty after normalization")
        for m in fields["mistakes"]:
            if normalize_text(str(m.answer)) in accepted:
                errors.append(f"mistake {m.answer!r} is also an accepted answer")
    if "generator" in rq and qtype not in ("numeric", "single"):
        errors.append("only numeric and single-choice questions take a 'generator'")
    if "exhibit" in rq:
        fields["exhibit"] = parse_exhibit(rq["exhibit"], errors)
    return (GeneratedChoiceQuestion if generated_choices else Question)(
        chapter=chapter,
        id=qid,
        type=qtype,
        prompt=prompt,
        difficulty=int(difficulty),
        tags=tuple(tags),
        explanation=explanation,
        **references,
        **fields,
    )


def _parse_choices(rq: dict, qtype: str, errors: list[str]) -> dict:
    choices = rq.get("choices")
    if not isinstance(choices, list) or not 2 <= len(choices) <= 8:
        errors.append("'choices' must be a list of 2 to 8 choices")
        return {}
    parsed = []
    for i, c in enumerate(choices):
        where = f"choices[{i}]."
        if not isinstance(c, dict):
            errors.append(f"choice #{i + 1} must be a mapping with text, feedback, correct")
            continue
        unknown = set(c) - {"text", "correct", "feedback"}
        if unknown:
            errors.append(f"choice #{i + 1} has unknown keys {sorted(unknown)}")
        correct = c.get("correct", False)
        if not isinstance(correct, bool):
            errors.append(f"choice #{i + 1}: 'correct' must be true or false, got {correct!r}")
            correct = False
        text = _text(c, "text", errors, where=where)
        feedback = _text(c, "feedback", errors, where=where)
        parsed.append(Choice(text, correct, feedback))
    n_correct = sum(c.correct for c in parsed)
    if qtype == "single" and n_correct != 1:
        if n_correct == 0:
            errors.append("no correct choice: mark exactly one with 'correct: true'")
        else:
            errors.append(
                f"{n_correct} choices are marked correct; a single-choice has exactly one"
            )
    if qtype == "multiple":
        if n_correct == 0:
            errors.append("no correct choice: mark at least one with 'correct: true'")
        if n_correct == len(parsed):
            errors.append("every choice is correct; add at least one incorrect choice")
    texts = [c.text for c in parsed]
    if len(set(texts)) != len(texts):
        errors.append("two choices have the same text")
    shuffle = rq.get("shuffle", True)
    if not isinstance(shuffle, bool):
        errors.append(f"'shuffle' must be true or false, got {shuffle!r}")
        shuffle = True
    return {"choices": tuple(parsed), "shuffle": shuffle}


def _generator_fields(rq: dict, errors: list[str]) -> dict:
    """``generator`` (a registered name) and its ``options`` (keyword arguments)."""
    fields: dict = {}
    generator = rq.get("generator")
    if not isinstance(generator, str):
        errors.append(f"'generator' must be a name, got {generator!r}")
    else:
        try:
            _generators.resolve(generator)
            fields["generator"] = generator
        except LookupError as exc:
            errors.append(str(exc))
    options = rq.get("options", {})
    if not isinstance(options, dict):
        errors.append("'options' must be a mapping of keyword arguments")
        options = {}
    fields["options"] = dict(options)
    return fields


def _parse_mistakes(rq: dict, errors: list[str], numeric: bool) -> tuple[Mistake, ...]:
    raw = rq.get("mistakes", [])
    if not isinstance(raw, list):
        errors.append("'mistakes' must be a list of {answer, feedback}")
        return ()
    out = []
    for i, m in enumerate(raw):
        if not isinstance(m, dict) or "answer" not in m:
            errors.append(f"mistake #{i + 1} must be a mapping with answer and feedback")
            continue
        feedback = _text(m, "feedback", errors, where=f"mistakes[{i}].")
        answer = m["answer"]
        if numeric:
            answer = _number(answer, f"mistakes[{i}].answer", errors, minimum=None)
        out.append(Mistake(answer, feedback))
    return tuple(out)


def _parse_numeric(rq: dict, errors: list[str]) -> dict:
    fields: dict = {}
    unit = rq.get("unit", "")
    if unit is None:
        unit = ""
    try:
        unit_family(unit)
    except (ValueError, TypeError) as exc:
        errors.append(f"'unit': {exc}")
        unit = ""
    fields["unit"] = unit
    if rq.get("generator") is not None:
        fields.update(_generator_fields(rq, errors))
        if "answer" in rq:
            errors.append("give either 'answer' or 'generator', not both")
    else:
        if "options" in rq:
            errors.append("'options' only goes with a 'generator'")
        if "answer" not in rq:
            errors.append("numeric question needs 'answer' (or a 'generator')")
        else:
            fields["answer"] = _number(rq["answer"], "answer", errors, minimum=None)
    tol = rq.get("tolerance", {})
    if not isinstance(tol, dict):
        errors.append("'tolerance' must be a mapping {rel, abs}")
        tol = {}
    unknown = set(tol) - {"rel", "abs"}
    if unknown:
        errors.append(f"'tolerance' has unknown keys {sorted(unknown)}; use rel and abs")
    rel = _number(tol.get("rel", 0.0), "tolerance.rel", errors) or 0.0
    abs_tol = _number(tol.get("abs", 0.0), "tolerance.abs", errors) or 0.0
    if rel >= 1:
        errors.append(f"'tolerance.rel' is a fraction (0.02 = 2%), got {rel!r}")
    sig = rq.get("sig_figs")
    if sig is not None and (
        isinstance(sig, bool) or not isinstance(sig, int) or not 1 <= sig <= 10
    ):
        errors.append(f"'sig_figs' must be a whole number from 1 to 10, got {sig!r}")
        sig = None
    if rel == 0 and abs_tol == 0 and sig is None:
        errors.append("no tolerance: give tolerance.rel, tolerance.abs or sig_figs")
    fields.update(rel=rel, abs=abs_tol, sig_figs=sig)
    fields["mistakes"] = _parse_mistakes(rq, errors, numeric=True)
    fields["feedback_correct"], fields["feedback_incorrect"] = _feedback_pair(rq, errors)
    return fields


def _parse_matching(rq: dict, errors: list[str]) -> dict:
    pairs = rq.get("pairs")
    parsed: list[tuple[str, str]] = []
    if not isinstance(pairs, list) or len(pairs) < 2:
        errors.append("'pairs' must list at least 2 {left, right} pairs")
    else:
        for i, p in enumerate(pairs):
            if not isinstance(p, dict) or set(p) != {"left", "right"}:
                errors.append(f"pair #{i + 1} must be a mapping with exactly 'left' and 'right'")
                continue
            parsed.append((str(p["left"]), str(p["right"])))
    distractors = rq.get("distractors", [])
    if not isinstance(distractors, list):
        errors.append("'distractors' must be a list of right-hand options")
        distractors = []
    distractors = [str(d) for d in distractors]
    rights = [r for _, r in parsed] + distractors
    if len(set(rights)) != len(rights):
        errors.append("right-hand options (pairs and distractors) must all differ")
    lefts = [left for left, _ in parsed]
    if len(set(lefts)) != len(lefts):
        errors.append("left-hand items must all differ")
    fb_correct, fb_incorrect = _feedback_pair(rq, errors)
    return {
        "pairs": tuple(parsed),
        "distractors": tuple(distractors),
        "feedback_correct": fb_correct,
        "feedback_incorrect": fb_incorrect,
    }


def _check_draws(q: Question) -> list[str]:
    """Instantiate a question (several seeds if parameterized): placeholders and answers must work."""
    errors: list[str] = []
    seeds = VALIDATION_SEEDS if q.parameterized else [0]
    for seed in seeds:
        try:
            inst = q.instantiate(seed)
        except KeyError as exc:
            errors.append(f"placeholder {{{{{exc.args[0]}}}}} has no value from the generator")
            break
        except Exception as exc:  # a generator's bug must surface as a bank error
            errors.append(f"instantiate(seed={seed}) failed: {type(exc).__name__}: {exc}")
            break
        if isinstance(q, GeneratedChoiceQuestion):
            errors.extend(f"seed {seed}: {e}" for e in drawn_choice_errors(inst))
        if q.type == "numeric":
            if inst.answer is None or not math.isfinite(inst.answer):
                errors.append(f"seed {seed}: the answer is {inst.answer!r}, not a finite number")
                break
            tol = tolerance(inst.answer, q.rel, q.abs, q.sig_figs)
            for value, _ in inst.mistakes:
                if abs(value - inst.answer) <= tol:
                    errors.append(
                        f"seed {seed}: mistake value {value:g} is within the tolerance of the "
                        f"answer {inst.answer:g}, so it would be graded correct"
                    )
    return errors


def validate_bank(path, objectives: Objectives | None = None) -> list[str]:
    """Every problem in the bank at ``path``, each naming the file and (where it applies) the
    question id; an empty list when the bank is valid. ``objectives`` as for ``parse_bank``."""
    _, errors = parse_bank(Path(path), objectives)
    return errors


def load_bank(path, objectives: Objectives | None = None) -> Bank:
    """Load and validate a bank; raises BankError listing every problem. ``objectives`` as
    for ``parse_bank``."""
    bank, errors = parse_bank(Path(path), objectives)
    if errors or bank is None:
        raise BankError(errors)
    return bank
