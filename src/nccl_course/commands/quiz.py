"""``nccl-course quiz``: list, validate and take the practice quizzes in quizzes/."""

from __future__ import annotations

import sys
from pathlib import Path


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "quiz",
        help="list, validate or take the practice quizzes",
        description="Practice quizzes from quizzes/*.yml (format: quizzes/README.md).",
    )
    parser.add_argument(
        "--bank-dir",
        default=None,
        help="folder of question banks (default: ./quizzes, else the course's quizzes/)",
    )
    sub = parser.add_subparsers(dest="quiz_command", metavar="ACTION")
    sub.add_parser("list", help="list the banks: chapter id, questions, title")
    validate = sub.add_parser(
        "validate", help="check banks against the format; exit 1 and list every problem"
    )
    validate.add_argument("files", nargs="*", help="bank files (default: every bank)")
    validate.add_argument(
        "--locales",
        default=None,
        help="folder of the translation catalogs (default: locales/ beside the banks); every "
        "question must have a current translation in each language there",
    )
    take = sub.add_parser("take", help="take a chapter's quiz in the terminal")
    take.add_argument("chapter", help="chapter id, e.g. all-reduce (see 'nccl-course quiz list')")
    take.add_argument("--seed", type=int, default=None, help="draw parameters with this seed")
    take.add_argument(
        "--lang",
        choices=["en", "tr"],
        default="en",
        help="the quiz's language: en (default) or tr, Turkish (answers accept 1,5)",
    )
    sub.add_parser("generators", help="list the built-in generators of parameterized questions")
    parser.set_defaults(func=run, quiz_parser=parser)


def _translation_errors(path: Path, locale_dir: Path) -> list[str]:
    """One line per question of the bank at ``path`` without a current translation in a
    language that has catalogs under ``locale_dir``, naming the file and the question id."""
    from nccl_course.quiz import load_bank
    from nccl_course.quiz.translation import bank_problems

    if not locale_dir.is_dir():
        return []
    bank = load_bank(path)
    errors = []
    for language in sorted(p.name for p in locale_dir.iterdir() if p.is_dir()):
        for problem in bank_problems(bank, language, locale_dir):
            qid = (problem.context or "").removesuffix(" (generated)") or "(the bank)"
            text = problem.msgid if len(problem.msgid) <= 70 else problem.msgid[:67] + "..."
            errors.append(
                f"{path}: question {qid}: no current {language} text ({problem.kind}) for "
                f"{text!r} in {problem.catalog}"
            )
    return errors


def run(args) -> int:
    from nccl_course.quiz import BankError, bank_paths, load_bank, load_banks, validate_bank
    from nccl_course.quiz.banks import find_bank_dir

    bank_dir = Path(args.bank_dir) if args.bank_dir else find_bank_dir()
    action = args.quiz_command
    if action is None:
        args.quiz_parser.print_help()
        return 2
    if action == "generators":
        from nccl_course.quiz.generators import GENERATORS

        for name, fn in sorted(GENERATORS.items()):
            doc = (fn.__doc__ or "").strip().splitlines()[0]
            print(f"{name:28s} {doc}")
        return 0
    if action == "validate":
        files = [Path(f) for f in args.files] if args.files else bank_paths(bank_dir)
        if not files:
            print(f"error: no banks (*.yml) in {bank_dir}", file=sys.stderr)
            return 1
        problems = 0
        locale_dir = Path(args.locales) if args.locales else bank_dir.parent / "locales"
        for path in files:
            errors = validate_bank(path) or _translation_errors(path, locale_dir)
            problems += len(errors)
            for error in errors:
                print(error, file=sys.stderr)
            if not errors:
                print(f"{path}: ok ({len(load_bank(path).questions)} questions)")
        if problems:
            print(f"{problems} problem(s); the format is in quizzes/README.md", file=sys.stderr)
            return 1
        return 0
    try:
        if action == "list":
            for chapter, bank in load_banks(bank_dir).items():
                n_param = sum(q.parameterized for q in bank.questions)
                print(
                    f"{chapter:20s} {len(bank.questions):3d} questions "
                    f"({n_param} parameterized)  {bank.title}"
                )
            return 0
        if action == "take":
            import random

            from nccl_course.i18n.interface import N_, translator
            from nccl_course.i18n.languages import ENDONYMS
            from nccl_course.quiz.terminal import take

            # What the learner reads is in the quiz's language, its errors too.
            tr = translator(args.lang)
            path = bank_dir / f"{args.chapter}.yml"
            if not path.exists():
                known = ", ".join(p.stem for p in bank_paths(bank_dir))
                message = tr(
                    N_("error: no quiz '{chapter}'; known: {known}"),
                    chapter=args.chapter,
                    known=known,
                )
                print(message, file=sys.stderr)
                return 1
            seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
            bank = load_bank(path)
            if args.lang != "en":
                from nccl_course.quiz.translation import MissingTranslation, translate_bank

                try:
                    bank = translate_bank(bank, args.lang, bank_dir.parent / "locales")
                except MissingTranslation as exc:
                    message = tr(
                        N_(
                            "error: the '{chapter}' quiz has no {language} translation yet; "
                            "take it in English (--lang en)"
                        ),
                        chapter=args.chapter,
                        language=ENDONYMS[args.lang],
                    )
                    print(f"{exc}\n{message}", file=sys.stderr)
                    return 1
            take(bank, seed)
            return 0
    except BankError as exc:
        print(f"{exc}\nerror: fix the bank(s) above (nccl-course quiz validate)", file=sys.stderr)
        return 1
    return 2
