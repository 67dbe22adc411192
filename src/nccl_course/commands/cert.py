"""``nccl-course cert``: issuer keys, issuing by hand, revocation, status lists, verification.

Private keys live in the data folder (``--data-dir``, else ``$NCCL_COURSE_DATA``, else
``~/.local/share/nccl-course``), never in the repository. ``verify`` works offline.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DEFAULT_ISSUER = "did:web:127.0.0.1%3A8000"
DEFAULT_NAME = "nccl-course"
DEFAULT_VERIFY_URL = "http://127.0.0.1:8000/verify"


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "cert",
        help="issue, revoke and verify Open Badges 3.0 credentials (offline verification)",
        description=(
            "Manage the issuer's Ed25519 keys, issue and revoke credentials, publish the DID "
            "document and status list, and verify a credential offline."
        ),
    )
    sub = parser.add_subparsers(dest="cert_command", metavar="ACTION")
    sub.required = True

    def issuer_options(p, create: bool = False) -> None:
        p.add_argument(
            "--data-dir",
            type=Path,
            help="data folder (default: $NCCL_COURSE_DATA or ~/.local/share/nccl-course)",
        )
        p.add_argument(
            "--issuer",
            help=f"issuer DID (did:web:... or 'did:key'){' (default ' + DEFAULT_ISSUER + ')' if create else ''}",
        )
        if create:
            p.add_argument("--name", default=DEFAULT_NAME, help="issuer name shown in credentials")
            p.add_argument(
                "--verify-url",
                default=DEFAULT_VERIFY_URL,
                help="the server's verify page (its origin also locates status lists)",
            )

    p = sub.add_parser("keygen", help="create the issuer and its first key (once)")
    issuer_options(p, create=True)
    p.set_defaults(func=run_keygen)

    p = sub.add_parser("rotate", help="sign with a new key from now on (old keys stay valid)")
    issuer_options(p)
    p.set_defaults(func=run_rotate)

    p = sub.add_parser("revoke", help="revoke a credential (its id, or a credential file)")
    issuer_options(p)
    p.add_argument("credential", metavar="CREDENTIAL_ID", help="urn:uuid:... or a .json file")
    p.set_defaults(func=run_revoke)

    p = sub.add_parser("status-list", help="print the signed BitstringStatusListCredential")
    issuer_options(p)
    p.add_argument("--list", type=int, default=1, help="status list number (default 1)")
    p.add_argument("-o", "--output", type=Path, help="write to this file instead of stdout")
    p.set_defaults(func=run_status_list)

    p = sub.add_parser("did-document", help="print the issuer's public DID document")
    issuer_options(p)
    p.add_argument("-o", "--output", type=Path, help="write to this file instead of stdout")
    p.set_defaults(func=run_did_document)

    p = sub.add_parser("issue", help="issue a credential by hand (for testing)")
    issuer_options(p)
    p.add_argument("--learner-name", required=True)
    p.add_argument("--learner-email", required=True)
    p.add_argument("--exam-id", required=True)
    p.add_argument("--score", type=float, required=True, help="fraction in [0, 1], e.g. 0.85")
    p.add_argument("--passed-at", help="ISO 8601 date-time (default: now)")
    p.add_argument("-o", "--output", type=Path, help="write the credential JSON here")
    p.add_argument("--pdf", type=Path, help="also draw the printable certificate (PDF)")
    p.add_argument("--png", type=Path, help="also draw the printable certificate (PNG)")
    p.set_defaults(func=run_issue)

    p = sub.add_parser("verify", help="verify a credential file offline")
    p.add_argument("file", type=Path, metavar="FILE")
    p.add_argument(
        "--status-list",
        type=Path,
        metavar="FILE",
        help="the BitstringStatusListCredential (JSON) to check revocation against",
    )
    p.add_argument(
        "--contexts",
        type=Path,
        metavar="DIR",
        help="folder of extra JSON-LD contexts (index.json or URL-named files)",
    )
    p.add_argument(
        "--did-document",
        type=Path,
        metavar="FILE",
        help="the issuer's DID document (needed for did:web issuers)",
    )
    p.add_argument("--now", help="verify as of this ISO 8601 date-time (default: now)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run_verify)

    p = sub.add_parser("render", help="draw the printable certificate of a credential file")
    p.add_argument("file", type=Path, metavar="FILE")
    p.add_argument("-o", "--output", type=Path, required=True, help=".pdf or .png")
    p.add_argument("--verify-url", default=DEFAULT_VERIFY_URL, help="the server's verify page")
    p.set_defaults(func=run_render)


def _fail(message: str, code: int = 2) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


def _data_dir(args) -> Path:
    from nccl_course.certs import default_data_dir

    return args.data_dir or default_data_dir()


def _open_issuer(args):
    from nccl_course.certs import Issuer

    return Issuer.open_existing(_data_dir(args), args.issuer)


def _read_json(path: Path) -> dict:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not JSON: {exc}") from None


def _emit(data: dict, output: Path | None) -> None:
    text = json.dumps(data, indent=2) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        Path(output).write_text(text, encoding="utf-8")
        print(f"wrote {output}", file=sys.stderr)


def run_keygen(args) -> int:
    from nccl_course.certs import Issuer

    try:
        issuer = Issuer.load_or_create(
            _data_dir(args), args.issuer or DEFAULT_ISSUER, args.name, args.verify_url
        )
    except (ValueError, OSError) as exc:
        return _fail(str(exc))
    print(f"issuer:       {issuer.issuer_id}")
    print(f"signing key:  {issuer.verification_method()}")
    print(f"keys folder:  {issuer.folder / 'keys'} (private; files mode 0600)")
    if issuer.did_document_url:
        print(f"DID document: serve 'nccl-course cert did-document' at {issuer.did_document_url}")
    print(f"status list:  serve 'nccl-course cert status-list' at {issuer.status_list_url(1)}")
    return 0


def run_rotate(args) -> int:
    try:
        issuer = _open_issuer(args)
        old = issuer.verification_method()
        issuer.rotate()
    except (LookupError, ValueError, OSError) as exc:
        return _fail(str(exc))
    print(f"rotated: new credentials are signed by {issuer.verification_method()}")
    print(f"{old} stays in the DID document, so credentials it signed still verify")
    return 0


def run_revoke(args) -> int:
    target = args.credential
    try:
        if target.endswith(".json") and Path(target).exists():
            target = _read_json(Path(target))
        issuer = _open_issuer(args)
        issuer.revoke(target)
    except (LookupError, ValueError, OSError) as exc:
        return _fail(str(exc))
    cid = target if isinstance(target, str) else target.get("id")
    print(f"revoked {cid}; publish the new status list ('nccl-course cert status-list')")
    return 0


def run_status_list(args) -> int:
    try:
        _emit(_open_issuer(args).status_list_credential(args.list), args.output)
    except (LookupError, OSError) as exc:
        return _fail(str(exc))
    return 0


def run_did_document(args) -> int:
    try:
        _emit(_open_issuer(args).did_document(), args.output)
    except (LookupError, OSError) as exc:
        return _fail(str(exc))
    return 0


def run_issue(args) -> int:
    from datetime import datetime, timezone

    from nccl_course.certs import render_certificate
    from nccl_course.certs.credential import parse_datetime

    try:
        issuer = _open_issuer(args)
        passed_at = parse_datetime(args.passed_at) if args.passed_at else datetime.now(timezone.utc)
        credential = issuer.issue(
            learner_name=args.learner_name,
            learner_email=args.learner_email,
            exam_id=args.exam_id,
            score=args.score,
            passed_at=passed_at,
        )
    except (LookupError, ValueError, OSError) as exc:
        return _fail(str(exc))
    _emit(credential, args.output)
    for path in (args.pdf, args.png):
        if path is not None:
            render_certificate(credential, path, issuer.verify_url)
            print(f"wrote {path}", file=sys.stderr)
    return 0


def run_verify(args) -> int:
    from nccl_course.certs import verify
    from nccl_course.certs.credential import parse_datetime

    try:
        credential = _read_json(args.file)
        status_list = _read_json(args.status_list) if args.status_list else None
        did_document = _read_json(args.did_document) if args.did_document else None
        now = parse_datetime(args.now) if args.now else None
    except ValueError as exc:
        return _fail(str(exc))
    result = verify(
        credential,
        did_document=did_document,
        status_list=status_list,
        extra_contexts=args.contexts,
        now=now,
    )
    if args.json:
        print(json.dumps(result.as_dict(), indent=2))
    else:
        for name, passed, detail in result.checks:
            print(f"{'PASS' if passed else 'FAIL'}  {name:<9} {detail}")
        print(("VALID: " if result.ok else "INVALID: ") + result.reason)
    if result.ok and status_list is None and credential.get("credentialStatus"):
        print(
            "warning: revocation not checked; pass --status-list FILE to check it",
            file=sys.stderr,
        )
    return 0 if result.ok else 1


def run_render(args) -> int:
    from nccl_course.certs import render_certificate

    try:
        credential = _read_json(args.file)
        render_certificate(credential, args.output, args.verify_url)
    except (ValueError, KeyError) as exc:
        return _fail(str(exc))
    print(f"wrote {args.output}")
    return 0
