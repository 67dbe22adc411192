"""``nccl-course exam``: administer a running course server (revoke a credential) and read
its exam's item statistics (``stats``: ``nccl_course.commands._exam_stats``)."""

from __future__ import annotations

from pathlib import Path

from nccl_course.commands import _exam_stats


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "exam",
        help="administer a running course server (revoke a credential, item statistics)",
        description=(
            "Talk to a running course server ('nccl-course serve') through its token-protected "
            "admin API. The token comes from --token, else NCCL_COURSE_ADMIN_TOKEN, else the "
            "file the server generated in its data folder (DATA_DIR/admin-token). 'stats' "
            "reads the server's database instead (no token, the server need not run)."
        ),
    )
    sub = parser.add_subparsers(dest="exam_command", metavar="ACTION", required=True)
    revoke = sub.add_parser("revoke", help="revoke a credential the server issued")
    revoke.add_argument("credential_id", help="the credential's id (urn:uuid:...)")
    revoke.add_argument("--reason", default="", help="why (kept in the server's database)")
    revoke.add_argument("--server", default="http://127.0.0.1:8000", help="the server's URL")
    revoke.add_argument("--token", default=None, help="admin token (default: env or data folder)")
    revoke.add_argument(
        "--data-dir", type=Path, default=Path(".data"), help="the server's data folder (.data)"
    )
    revoke.set_defaults(func=run_revoke)
    _exam_stats.register(sub)


def run_revoke(args) -> int:
    from nccl_course.server import admin

    argv = ["revoke", args.credential_id, "--reason", args.reason, "--server", args.server]
    argv += ["--data-dir", str(args.data_dir)]
    if args.token:
        argv += ["--token", args.token]
    return admin.main(argv)
