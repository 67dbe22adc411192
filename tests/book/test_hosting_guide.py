"""The hosting guide (book/practice/06-hosting.md) and deploy/ tell the truth.

Every ``nccl-course ...`` command line the guide shows in a ``console`` or ``bash`` block, and
the systemd unit's ``ExecStart``, parses with the real command-line parser (the subcommands and
flags exist, and the values fit them); every deploy file is included in the page; the proxies
send to the port the unit's server listens on; and every server path the guide names is served.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from nccl_course.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "book" / "practice" / "06-hosting.md"
DEPLOY = ROOT / "deploy"
UNIT = DEPLOY / "nccl-course.service"
FENCE = re.compile(r"^```(console|bash)\n(.*?)^```", re.M | re.S)


def command_lines(text: str) -> list[str]:
    """Each shell line of the guide's console/bash blocks, continuations joined, prompts and
    comments removed."""
    lines = []
    for _, body in FENCE.findall(text):
        for line in body.replace("\\\n", " ").splitlines():
            line = line.split(" #", 1)[0].strip()
            if line.startswith("$ "):
                line = line[2:]
            if line and not line.startswith("#"):
                lines.append(line)
    return lines


def nccl_course_argv(line: str) -> list[str] | None:
    """The arguments of ``nccl-course`` when a shell line runs it (directly, by a path, or
    through ``sudo [-u USER]``), else None."""
    words = shlex.split(line)
    if words[:1] == ["sudo"]:
        words = words[1:]
        while words and words[0].startswith("-"):
            words = words[2:] if words[0] in ("-u", "-g") else words[1:]
    if words and (words[0] == "nccl-course" or words[0].endswith("/nccl-course")):
        return words[1:]
    return None


def unit_exec_start() -> str:
    match = re.search(r"^ExecStart=(.*)$", UNIT.read_text(), re.M)
    assert match, "the unit has no ExecStart"
    return match.group(1)


def guide_commands() -> list[list[str]]:
    found = [nccl_course_argv(line) for line in command_lines(GUIDE.read_text())]
    return [argv for argv in found if argv is not None]


def test_the_guide_shows_the_commands_it_is_about():
    subcommands = {
        tuple(argv[:2]) if argv[0] == "cert" else (argv[0],) for argv in guide_commands()
    }
    assert {("backup",), ("restore",), ("serve",), ("cert", "rotate"), ("cert", "issuers")} <= (
        subcommands
    )


@pytest.mark.parametrize(
    "argv",
    [*guide_commands(), nccl_course_argv(unit_exec_start())],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_every_command_line_parses(argv):
    parser = build_parser()
    errors = io.StringIO()
    try:
        with contextlib.redirect_stderr(errors):
            args = parser.parse_args(argv)
    except SystemExit as exc:
        pytest.fail(f"nccl-course {' '.join(argv)}: {errors.getvalue().strip()} ({exc.code})")
    assert callable(args.func)


def test_every_deploy_file_is_shown_in_the_guide():
    text = GUIDE.read_text()
    included = set(re.findall(r"^```\{literalinclude\} \.\./\.\./deploy/(\S+)$", text, re.M))
    assert included == {p.name for p in DEPLOY.iterdir() if p.is_file()}


def test_the_proxies_reach_the_port_the_unit_listens_on():
    serve = build_parser().parse_args(nccl_course_argv(unit_exec_start()))
    assert (serve.host, serve.port) == ("127.0.0.1", 8000)
    upstream = f"{serve.host}:{serve.port}"
    assert re.search(
        rf"^\s*reverse_proxy {re.escape(upstream)}$", (DEPLOY / "Caddyfile").read_text(), re.M
    )
    nginx = (DEPLOY / "nginx.conf").read_text()
    assert re.search(rf"^\s*proxy_pass http://{re.escape(upstream)};$", nginx, re.M)
    # Both proxies serve the unit's public host at the domain root (did:web needs it there).
    host = serve.public_url.removeprefix("https://")
    assert serve.production and serve.public_url == f"https://{host}"
    assert re.search(rf"^{re.escape(host)} \{{$", (DEPLOY / "Caddyfile").read_text(), re.M)
    assert nginx.count(f"server_name {host};") == 2 and "location / {" in nginx
    assert "X-Forwarded-For $proxy_add_x_forwarded_for" in nginx
    assert serve.trust_proxy == ["127.0.0.1"]
    assert re.search(r"^StateDirectory=nccl-course$", UNIT.read_text(), re.M)
    assert serve.data_dir == Path("/var/lib/nccl-course")  # where StateDirectory= puts it


def test_every_server_path_in_the_guide_is_served(tmp_path):
    from fastapi.testclient import TestClient

    from nccl_course.server.app import create_app
    from nccl_course.server.settings import Settings
    from tests.exam.conftest import write_quizzes

    quizzes_dir = write_quizzes(tmp_path / "quizzes")

    paths = set(re.findall(r"`(/(?:exam|\.well-known|credentials)[^`\s]*)`", GUIDE.read_text()))
    assert {"/.well-known/did.json", "/exam/api/health", "/exam/api/ready"} <= paths
    settings = Settings(data_dir=tmp_path / "data", quizzes_dir=quizzes_dir, book_dir=tmp_path)
    app = create_app(settings)
    try:
        with TestClient(app) as client:
            for path in sorted(paths):
                concrete = path.replace("/N", "/1")
                response = client.get(concrete)
                assert response.status_code == 200, f"{path}: GET gave {response.status_code}"
    finally:
        app.state.db.dispose()
