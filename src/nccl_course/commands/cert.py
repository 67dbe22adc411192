"""``nccl-course cert``: issuer keys, issuing by hand, revocation, status lists, verification.

Private keys live in the data folder (``--data-dir``, else ``$NCCL_COURSE_DATA``, else
``~/.local/share/nccl-course``), never in the repository. ``verify`` says who issued a
credential and checks it against the issuers you trust; with ``--offline`` it never uses the
network. Its exit status: 0 valid, 1 not valid, 2 usage error, 3 could not check.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from nccl_course.commands._cert_verify import (
    _data_dir,
    _fail,
    _read_limited,
    add_verify_parser,
    course_issuer_dids,  # noqa: F401 (part of this command's interface; tests use it)
)

DEFAULT_ISSUER = "did:web:127.0.0.1%3A8000"
DEFAULT_NAME = "nccl-course"
DEFAULT_VERIFY_URL = "http://127.0.0.1:8000/exam/verify"


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "cert",
        help="issue, revoke and verify Open Badges 3.0 credentials",
        description=(
            "Manage the issuer's Ed25519 keys, issue and revoke credentials, publish the DID "
            "document and status list, and verify a credential: who issued it, and whether "
            "its signature, dates and revocation status hold."
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

    p = sub.add_parser(
        "issuers",
        help="the issuer history: each DID, when first used, its keys, which is current",
        description=(
            "List the issuers of the data folder, oldest first: each DID (one per public URL "
            "the server has had), when it was first and last used, whose keys it took over, "
            "its key ids (retired: superseded by 'cert rotate'; kept so earlier credentials "
            "verify) and which issuer is current (the one used last). Reads public keys only."
        ),
    )
    p.add_argument(
        "--data-dir",
        type=Path,
        help="data folder (default: $NCCL_COURSE_DATA or ~/.local/share/nccl-course)",
    )
    p.add_argument("--json", action="store_true", help="print the history as JSON")
    p.set_defaults(func=run_issuers)

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

    add_verify_parser(sub)

    p = sub.add_parser("render", help="draw the printable certificate of a credential file")
    p.add_argument("file", type=Path, metavar="FILE")
    p.add_argument("-o", "--output", type=Path, required=True, help=".pdf or .png")
    p.add_argument("--verify-url", default=DEFAULT_VERIFY_URL, help="the server's verify page")
    p.set_defaults(func=run_render)


def _open_issuer(args, *, status: bool = False):
    """The issuer of the data folder. ``status``: the command reads or changes revocation,
    which a course server keeps in its database once it has taken the issuer over."""
    from nccl_course.certs import Issuer
    from nccl_course.certs.issuer import REGISTRY_FILE

    issuer = Issuer.open_existing(_data_dir(args), args.issuer)
    if status and (issuer.folder / f"{REGISTRY_FILE}.imported").exists():
        raise ValueError(
            f"{issuer.issuer_id}'s revocation registry lives in the course server's database "
            "(this data folder belongs to a server): revoke with 'nccl-course exam revoke ID' "
            "and read the status list from the server (/credentials/status/N)"
        )
    return issuer


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


def run_issuers(args) -> int:
    from nccl_course.certs.history import issuer_history

    data_dir = _data_dir(args)
    try:
        history = issuer_history(data_dir)
    except OSError as exc:
        return _fail(str(exc))
    if args.json:
        print(json.dumps({"data_dir": str(data_dir), "issuers": history}, indent=2))
        return 0
    if not history:
        print(f"no issuer in {data_dir}: the server creates one on its first start")
        return 0
    for entry in history:
        mark = "  [current]" if entry["current"] else ""
        print(f"{entry['issuer_id']}{mark}")
        print(f"  first used: {entry['first_used'] or '(unknown)'}")
        print(f"  last used:  {entry['last_used']}")
        if entry["keys_from"]:
            print(f"  keys from:  {entry['keys_from']} (the same keys, not new ones)")
        if not entry["keys"]:
            print("  keys:       (none readable)")
        for key in entry["keys"]:
            state = "retired" if key["retired"] else "signing"
            print(f"  key:        {key['id']}  {state}  created {key['created']}")
    return 0


def run_revoke(args) -> int:
    target = args.credential
    try:
        if target.endswith(".json") and Path(target).exists():
            target = _read_json(Path(target))
        issuer = _open_issuer(args, status=True)
        issuer.revoke(target)
    except (LookupError, ValueError, OSError) as exc:
        return _fail(str(exc))
    cid = target if isinstance(target, str) else target.get("id")
    print(f"revoked {cid}; publish the new status list ('nccl-course cert status-list')")
    return 0


def run_status_list(args) -> int:
    try:
        _emit(_open_issuer(args, status=True).status_list_credential(args.list), args.output)
    except (LookupError, ValueError, OSError) as exc:
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
        issuer = _open_issuer(args, status=True)
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


def run_render(args) -> int:
    from nccl_course.certs import render_certificate

    try:
        credential = _read_limited(args.file, "credential")
        render_certificate(credential, args.output, args.verify_url)
    except (ValueError, OSError) as exc:
        return _fail(str(exc))
    print(f"wrote {args.output}")
    return 0
