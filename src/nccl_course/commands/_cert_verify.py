"""``nccl-course cert verify``: who issued a credential, and whether it holds, checked against
the issuers you trust (``--issuer``, ``--trust-file`` or the data folder's issuers).

Its exit status: 0 valid, 1 not valid, 2 usage error, 3 could not check. Kept apart from
``cert``'s key and issuing commands because a verifier needs none of them. (The leading
underscore keeps the command discovery of ``nccl_course.cli`` from taking it for a command.)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

# Exit status of `cert verify`.
EXIT_VALID, EXIT_NOT_VALID, EXIT_USAGE, EXIT_CANNOT_CHECK = 0, 1, 2, 3


def _fail(message: str, code: int = 2) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


def _data_dir(args) -> Path:
    from nccl_course.certs import default_data_dir

    return args.data_dir or default_data_dir()


def add_verify_parser(sub) -> None:
    """The ``verify`` subcommand of ``nccl-course cert``."""
    p = sub.add_parser(
        "verify",
        help="verify a credential: who issued it, its signature, dates and revocation",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Verify a credential file and say who issued it. Checks: issuer (one you trust), "
            "schema, key (in the issuer's DID document), signature (eddsa-rdfc-2022), dates, "
            "status (revocation). Each is 'ok', 'failed' or 'not checked'; 'VALID' needs all "
            "of them ok."
        ),
        epilog=(
            "trusted issuers: --issuer DID (repeatable) and --trust-file FILE; without them,\n"
            "  the issuers in the data folder (--data-dir, $NCCL_COURSE_DATA, or\n"
            "  ~/.local/share/nccl-course); with none of these the issuer is 'not checked'.\n"
            "network: without --offline, a did:web DID document or a status list that was not\n"
            "  given as a file is fetched over HTTPS, or plain HTTP from this machine (a course\n"
            "  server at 127.0.0.1 or localhost), with a 5 s timeout and a size cap; --offline\n"
            "  never fetches.\n"
            "exit status: 0 VALID, 1 NOT VALID (or a malformed credential), 2 usage error\n"
            "  (bad option, unreadable file), 3 CANNOT CHECK (nothing failed, but something\n"
            "  could not be checked: revocation, the issuer's key, or who the issuer is)."
        ),
    )
    p.add_argument(
        "file",
        type=Path,
        metavar="FILE",
        help="the credential: its JSON file, or a PNG with the credential baked in (the "
        "course's PNG certificate, Open Badges 3.0)",
    )
    p.add_argument(
        "--issuer",
        dest="trusted",
        action="append",
        default=[],
        metavar="DID",
        help="an issuer DID you trust (repeatable); a credential from any other is NOT VALID",
    )
    p.add_argument(
        "--trust-file",
        type=Path,
        metavar="FILE",
        help="trusted issuer DIDs: one per line ('#' comments), or a JSON list, or a JSON "
        'object {"issuers": [...]}',
    )
    p.add_argument(
        "--data-dir",
        type=Path,
        help="data folder whose issuers are trusted when neither --issuer nor --trust-file "
        "is given (default: $NCCL_COURSE_DATA or ~/.local/share/nccl-course)",
    )
    p.add_argument(
        "--status-list",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="the BitstringStatusListCredential (JSON) to check revocation against "
        "(repeatable; without it revocation is fetched, or 'not checked' with --offline)",
    )
    p.add_argument(
        "--did-document",
        type=Path,
        metavar="FILE",
        help="the issuer's DID document (did:web issuers; without it, it is fetched, or the "
        "key is 'not checked' with --offline)",
    )
    p.add_argument(
        "--contexts",
        type=Path,
        metavar="DIR",
        help="folder of extra JSON-LD contexts (index.json or URL-named files)",
    )
    p.add_argument(
        "--offline", action="store_true", help="never use the network (nothing is fetched)"
    )
    p.add_argument("--now", help="verify as of this ISO 8601 date-time (default: now)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run_verify)


def _read_limited(path: Path, what: str, limits=None):
    """Parse a JSON file within the verifier's limits (ValueError for a usage problem)."""
    from nccl_course.certs.credential import DEFAULT_LIMITS, parse_json

    limits = limits or DEFAULT_LIMITS
    try:
        with open(path, "rb") as handle:
            data = handle.read(limits.max_bytes + 1)
    except FileNotFoundError:
        raise ValueError(f"{path} does not exist") from None
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    return parse_json(data, limits, what=what)


def _read_credential(path: Path):
    """The credential of a JSON file or of a baked PNG, parsed within the verifier's limits:
    the limit on a credential's size applies to the JSON, not to the image that carries it.
    ValueError for a file that cannot be read (a usage problem), CredentialFormatError for a
    credential outside the limits."""
    from nccl_course.certs.baking import BakedPngError, read_credential_file
    from nccl_course.certs.credential import DEFAULT_LIMITS, CredentialFormatError, parse_json

    try:
        data, baked = read_credential_file(path, DEFAULT_LIMITS.max_bytes)
    except FileNotFoundError:
        raise ValueError(f"{path} does not exist") from None
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    except BakedPngError as exc:
        raise ValueError(f"{path}: {exc}") from None
    if not baked and len(data) > DEFAULT_LIMITS.max_bytes:
        # Only the first bytes were read: say what is known, not a made-up size.
        raise CredentialFormatError(
            f"{path} has more than {DEFAULT_LIMITS.max_bytes:,} bytes, the limit for a "
            "credential: give the credential's .json file or the PNG with it baked in"
        )
    return parse_json(data, DEFAULT_LIMITS, what="credential")


def read_trust_file(path: Path) -> list[str]:
    """The DIDs of a trust file: JSON (a list, or {"issuers": [...]}) or one DID per line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"trust file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read trust file {path}: {exc}") from None
    stripped = text.strip()
    if stripped.startswith(("[", "{")):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise ValueError(f"trust file {path} is not valid JSON: {exc}") from None
        items = data.get("issuers") if isinstance(data, dict) else data
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise ValueError(f'trust file {path} must hold a list of DIDs or {{"issuers": [...]}}')
    else:
        items = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    dids = [i.strip() for i in items if i.strip()]
    bad = [d for d in dids if not d.startswith(("did:", "https://", "http://"))]
    if bad:
        raise ValueError(f"trust file {path}: {bad[0]!r} is not a DID")
    return dids


def course_issuer_dids(data_dir: Path) -> list[str]:
    """The issuer DIDs kept in a data folder (public settings and public keys only)."""
    from nccl_course.certs.did import did_key_from_public
    from nccl_course.certs.multibase import decode_ed25519_public

    found: list[str] = []
    for settings_path in sorted((Path(data_dir) / "certs").glob("*/issuer.json")):
        try:
            issuer_id = json.loads(settings_path.read_text(encoding="utf-8"))["issuer_id"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if not isinstance(issuer_id, str):
            continue
        if issuer_id.startswith("did:key"):
            # The identifier is the key: read the public half of each key file.
            for key_path in sorted((settings_path.parent / "keys").glob("key-*.json")):
                try:
                    public = json.loads(key_path.read_text(encoding="utf-8"))["publicKeyMultibase"]
                    found.append(did_key_from_public(decode_ed25519_public(public)))
                except (OSError, ValueError, KeyError, TypeError):
                    continue
        else:
            found.append(issuer_id)
    return sorted(set(found))


def _trusted_issuers(args) -> tuple[list[str] | None, str]:
    """(trusted DIDs or None, where they came from)."""
    from nccl_course.certs import default_data_dir

    trusted = list(args.trusted)
    sources = []
    if args.trusted:
        sources.append("--issuer")
    if args.trust_file is not None:
        trusted += read_trust_file(args.trust_file)
        sources.append(f"--trust-file {args.trust_file}")
    if sources:
        return sorted(set(trusted)), " and ".join(sources)
    data_dir = args.data_dir or default_data_dir()
    known = course_issuer_dids(data_dir)
    if known:
        return known, f"the issuers in the data folder {data_dir}"
    return None, "none: pass --issuer DID or --trust-file FILE"


HINTS = {
    "issuer": "pin the issuer with --issuer DID or --trust-file FILE",
    "key": "pass the issuer's DID document with --did-document FILE",
    "status": "pass the current status list with --status-list FILE",
}


def run_verify(args) -> int:
    from nccl_course.certs.credential import STATUS_LIST_LIMITS, parse_datetime
    from nccl_course.certs.verify import (
        CANNOT_CHECK,
        NOT_CHECKED,
        VALID,
        CredentialFormatError,
        fetch_json,
        verify,
    )

    try:
        trusted, trust_source = _trusted_issuers(args)
        status_lists = [
            _read_limited(path, "status list", STATUS_LIST_LIMITS) for path in args.status_list
        ]
        did_document = (
            _read_limited(args.did_document, "DID document") if args.did_document else None
        )
        now = parse_datetime(args.now) if args.now else None
    except CredentialFormatError as exc:
        return _fail(str(exc).replace("malformed credential: ", "", 1))
    except ValueError as exc:
        return _fail(str(exc))
    try:
        credential = _read_credential(args.file)
        result = verify(
            credential,
            trusted_issuers=trusted,
            did_document=did_document,
            status_list=status_lists or None,
            extra_contexts=args.contexts,
            now=now,
            fetch=None if args.offline else fetch_json,
        )
    except CredentialFormatError as exc:
        if args.json:
            print(json.dumps({"verdict": "NOT VALID", "ok": False, "reason": str(exc)}, indent=2))
        else:
            print(f"NOT VALID: {exc}")
        return EXIT_NOT_VALID
    except ValueError as exc:  # the file could not be read
        return _fail(str(exc))
    if args.json:
        report = result.as_dict()
        report["trust_source"] = trust_source
        report["offline"] = bool(args.offline)
        print(json.dumps(report, indent=2))
    else:
        name = f" ({result.issuer_name!r})" if result.issuer_name else ""
        print(f"Issued by:  {result.issuer or '(no issuer)'}{name}")
        if result.signer and result.signer != result.issuer:
            print(f"Signed by:  {result.signer}")
        print(f"Trusted:    {', '.join(trusted) if trusted else '(none)'} [{trust_source}]")
        if result.credential_id:
            print(f"Credential: {result.credential_id}")
        for check in result.checks:
            print(f"  {check.status:<11}  {check.name:<9}  {check.detail}")
        print(f"{result.verdict}: {result.reason}")
        hints = [
            HINTS[c.name]
            for c in result.checks
            if c.status == NOT_CHECKED
            and c.name in HINTS
            and not c.detail.startswith("an earlier")
            # The key check waits on a DID document, or on a binding no file can give.
            and (c.name != "key" or "DID document" in c.detail)
        ]
        for hint in hints:
            print(f"hint: {hint}", file=sys.stderr)
    if result.verdict == VALID:
        return EXIT_VALID
    if result.verdict == CANNOT_CHECK:
        return EXIT_CANNOT_CHECK
    return EXIT_NOT_VALID
