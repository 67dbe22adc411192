"""Admin commands for a running course server (they go through its token-protected API).

    python -m nccl_course.server.admin revoke CREDENTIAL_ID --reason "..." \\
        [--server http://127.0.0.1:8000] [--token TOKEN | --data-dir .data]

The token comes from --token, else ``NCCL_COURSE_ADMIN_TOKEN``, else the file the server
generated in its data folder (``DATA_DIR/admin-token``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from nccl_course.store.data_dir import ADMIN_TOKEN_FILE


def admin_token(token: str | None, data_dir: Path) -> str | None:
    if token:
        return token
    if os.environ.get("NCCL_COURSE_ADMIN_TOKEN"):
        return os.environ["NCCL_COURSE_ADMIN_TOKEN"]
    path = Path(data_dir) / ADMIN_TOKEN_FILE
    return path.read_text(encoding="utf-8").strip() if path.exists() else None


def revoke(server: str, token: str, credential_id: str, reason: str = "") -> dict:
    """Revoke one credential; returns the server's answer or raises RuntimeError."""
    import httpx

    response = httpx.post(
        f"{server.rstrip('/')}/exam/api/admin/revoke",
        json={"credential_id": credential_id, "reason": reason},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    body = response.json()
    if response.status_code != 200:
        raise RuntimeError(body.get("detail") or f"HTTP {response.status_code}")
    return body


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nccl_course.server.admin")
    sub = parser.add_subparsers(dest="command", required=True)
    rev = sub.add_parser("revoke", help="revoke a credential issued by the server")
    rev.add_argument("credential_id", help="the credential's id (urn:uuid:...)")
    rev.add_argument("--reason", default="", help="why (kept in the server's database)")
    rev.add_argument("--server", default="http://127.0.0.1:8000", help="the server's URL")
    rev.add_argument("--token", default=None, help="admin token (default: env or data folder)")
    rev.add_argument("--data-dir", type=Path, default=Path(".data"), help="server data folder")
    args = parser.parse_args(argv)
    token = admin_token(args.token, args.data_dir)
    if not token:
        print(
            "error: no admin token: pass --token, set NCCL_COURSE_ADMIN_TOKEN, or --data-dir",
            file=sys.stderr,
        )
        return 2
    try:
        body = revoke(args.server, token, args.credential_id, args.reason)
    except Exception as exc:  # network errors and refusals alike end in one line
        print(f"error: revoke failed: {exc}", file=sys.stderr)
        return 1
    print(f"revoked {body['credential_id']} at {body['revoked_at']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
