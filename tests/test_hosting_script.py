"""deploy/install.sh, the hosting guide's script, run as an ordinary user into a temporary root
(--root, which prints instead of running what would change the system outside it): the files
a new host gets, a second run that changes nothing, and an upgrade that migrates an SQLite
database and keeps its rows.

Run by root (a container), the script runs as ``nobody`` in a folder that user owns, so the
owners it sets are checked against a user other than the one running the tests; the upgrade,
which runs the course's Python, runs as the user running the tests (a container's Python may
live where ``nobody`` cannot read it).
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shlex
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import pytest

from nccl_course.cli import build_parser
from nccl_course.store.db import head_revision

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "deploy" / "install.sh"
DOMAIN = "course.test.org"
GIT = "https://git.example.org/nccl-course.git"
OLD_REVISION = "0005"

PREPARE_DATA = """
import sys
from pathlib import Path
from sqlalchemy import text
from nccl_course.issuing.credentials import CredentialDesk
from nccl_course.server.settings import Settings
from nccl_course.store.db import Database

settings = Settings(data_dir=Path(sys.argv[1]), public_url="https://course.test.org")
db = Database(settings.resolved_database_url())
db.upgrade(sys.argv[2])
with db.write() as session:
    session.execute(text(
        "INSERT INTO learners (public_id, name, email, token_hash, created_at) "
        "VALUES ('l1', 'Ada', 'ada@example.org', 'h1', '2026-01-01 00:00:00')"
    ))
settings.resolved_admin_token()
CredentialDesk(settings, db, create_keys=True)
db.dispose()
"""


class Host:
    """A temporary root and the unprivileged user the script runs as."""

    def __init__(self, root: Path, user: str, prefix: list[str]):
        self.root = root
        self.user = user
        self.uid = pwd.getpwnam(user).pw_uid
        self.prefix = prefix

    def path(self, live: str) -> Path:
        return self.root / live.lstrip("/")

    def run(self, *args: str, check: bool = True, root: bool = True, **env: str):
        argv = [str(SCRIPT), *(["--root", str(self.root)] if root else []), *args]
        environ = {"PATH": os.environ["PATH"], "HOME": str(self.root), **env}
        done = subprocess.run(
            [*self.prefix, *argv], capture_output=True, text=True, env=environ, timeout=120
        )
        if check and done.returncode != 0:
            pytest.fail(f"install.sh {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
        return done

    def append(self, path: Path, line: str) -> None:
        """Add a line to a file as the host's user (as an administrator editing it would)."""
        subprocess.run(
            [*self.prefix, "sh", "-c", 'printf "%s\\n" "$1" >> "$2"', "sh", line, str(path)],
            check=True,
            timeout=60,
        )

    def setup(self, *options: str):
        return self.run("--domain", DOMAIN, "--user", self.user, "--repo", GIT, *options, "all")


def this_user() -> str:
    return pwd.getpwuid(os.getuid()).pw_name


@pytest.fixture
def python_host(tmp_path):
    """A root for the script run by the user running the tests."""
    return Host(tmp_path, this_user(), [])


@pytest.fixture
def host(tmp_path):
    """A root for the script run by an unprivileged user."""
    if os.geteuid() != 0:
        yield Host(tmp_path, this_user(), [])
        return
    nobody = pwd.getpwnam("nobody")
    root = Path(tempfile.mkdtemp(prefix="nccl-course-host-"))
    os.chown(root, nobody.pw_uid, nobody.pw_gid)
    prefix = [
        "setpriv",
        f"--reuid={nobody.pw_uid}",
        f"--regid={nobody.pw_gid}",
        "--clear-groups",
    ]
    try:
        yield Host(root, "nobody", prefix)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def snapshot(root: Path) -> dict:
    """Every path under ``root``: its mode, owner, modification time and content."""
    out = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        if path.is_symlink():
            body = os.readlink(path)
        elif path.is_file():
            body = path.read_bytes()
        else:
            body = None
        out[str(path.relative_to(root))] = (info.st_mode, info.st_uid, info.st_mtime_ns, body)
    return out


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def unit_value(text: str, key: str) -> str:
    match = re.search(rf"^{key}=(.*)$", text, re.M)
    assert match, f"no {key}= line"
    return match.group(1)


def test_a_new_host_gets_every_file_with_its_owner_and_mode(host):
    done = host.setup()
    env = host.path("/etc/nccl-course/env")
    assert mode(env) == 0o600 and env.stat().st_uid == host.uid
    assert mode(env.parent) == 0o750
    assert "NCCL_COURSE_SMTP_HOST" in env.read_text()  # the settings to fill in, commented
    for folder in ("/var/lib/nccl-course", "/var/backups/nccl-course"):
        assert mode(host.path(folder)) == 0o700 and host.path(folder).stat().st_uid == host.uid

    unit = host.path("/etc/systemd/system/nccl-course.service").read_text()
    assert unit_value(unit, "User") == host.user
    serve = build_parser().parse_args(shlex.split(unit_value(unit, "ExecStart"))[1:])
    assert serve.public_url == f"https://{DOMAIN}" and serve.production
    assert serve.workers == 1  # SQLite: one process
    assert serve.data_dir == Path("/var/lib/nccl-course")
    assert unit_value(unit, "ExecStart").startswith("/srv/nccl-course/current/.venv/bin/")
    assert os.readlink(host.path("/srv/nccl-course/current")) == str(REPO)

    caddy = host.path("/etc/caddy/Caddyfile").read_text()
    assert re.search(rf"^{re.escape(DOMAIN)} \{{$", caddy, re.M)
    assert "course.example.org" not in caddy + unit

    backup = host.path("/etc/systemd/system/nccl-course-backup.service").read_text()
    args = build_parser().parse_args(shlex.split(unit_value(backup, "ExecStart"))[1:])
    assert Path(args.data_dir) == Path("/var/lib/nccl-course")
    assert Path(args.output) == Path("/var/backups/nccl-course")
    assert unit_value(backup, "User") == host.user
    timer = host.path("/etc/systemd/system/nccl-course-backup.timer").read_text()
    assert unit_value(timer, "OnCalendar") and unit_value(timer, "Persistent") == "true"

    rules = host.path("/etc/nftables.d/nccl-course.nft").read_text()
    assert "policy drop;" in rules and "tcp dport { 22, 80, 443 } accept" in rules
    assert 'include "/etc/nftables.d/*.nft"' in host.path("/etc/nftables.conf").read_text()

    # nothing outside the root was touched: every system command was only printed
    for command in (
        "apt-get install",
        "make -C " + str(REPO) + " setup book",
        "systemctl enable nccl-course",
        "systemctl enable --now nccl-course-backup.timer",
        "nft -c -f /etc/nftables.conf",
        "nft -f /etc/nftables.d/nccl-course.nft",
        "caddy validate",
    ):
        assert f"would run: {command}" in done.stdout, command
    # --production needs a mail server: the run says what to fill in
    assert (
        "the server will not start until /etc/nccl-course/env names an SMTP server" in done.stdout
    )
    settings = host.path("/etc/nccl-course/install.conf").read_text()
    assert f"domain={DOMAIN}" in settings and "proxy=caddy" in settings


def test_a_second_run_changes_nothing(host):
    host.setup()
    before = snapshot(host.root)
    again = host.run("all")  # the saved settings: no option needed
    assert snapshot(host.root) == before
    assert not re.search(r"^==> (wrote|created|current release)", again.stdout, re.M), again.stdout


def test_postgresql_keeps_the_env_file_private_and_its_other_lines(host):
    host.setup()
    env = host.path("/etc/nccl-course/env")
    host.append(env, "NCCL_COURSE_SMTP_HOST=smtp.test.org")
    done = host.run("--database", "postgresql", "--workers", "3", "postgres", "service")
    text = env.read_text()
    assert f"DATABASE_URL=postgresql://{host.user}@/nccl_course" in text.splitlines()
    assert "NCCL_COURSE_SMTP_HOST=smtp.test.org" in text.splitlines()
    assert mode(env) == 0o600 and env.stat().st_uid == host.uid
    assert f"would run: runuser -u postgres -- createuser {host.user}" in done.stdout
    assert "will not start until" not in done.stdout
    assert "would run: systemctl daemon-reload" in done.stdout
    unit = host.path("/etc/systemd/system/nccl-course.service").read_text()
    assert build_parser().parse_args(shlex.split(unit_value(unit, "ExecStart"))[1:]).workers == 3
    before = snapshot(host.root)
    host.run("postgres", "service")
    assert snapshot(host.root) == before


def test_nginx_and_ufw(host):
    refused = host.run(
        "--domain", DOMAIN, "--user", host.user, "--proxy", "nginx", "proxy", check=False
    )
    assert refused.returncode == 2 and "nginx needs --email" in refused.stderr
    done = host.setup("--proxy", "nginx", "--email", "admin@test.org", "--firewall", "ufw")
    conf = host.path("/etc/nginx/conf.d/nccl-course.conf").read_text()
    assert f"server_name {DOMAIN};" in conf and "course.example.org" not in conf
    assert (
        f"certbot certonly --standalone --non-interactive --agree-tos -m admin@test.org -d {DOMAIN}"
        in (done.stdout)
    )
    assert "would run: nginx -t" in done.stdout
    assert "would run: ufw allow 443/tcp" in done.stdout
    assert not host.path("/etc/nftables.d/nccl-course.nft").exists()


def test_an_upgrade_backs_up_migrates_and_switches(python_host):
    host = python_host
    host.setup()
    data = host.path("/var/lib/nccl-course")
    subprocess.run([sys.executable, "-c", PREPARE_DATA, str(data), OLD_REVISION], check=True)
    done = host.run("upgrade", "v2.0.0", NCCL_COURSE_PYTHON=sys.executable)
    assert f"would run: git clone --quiet --depth 1 --branch v2.0.0 {GIT}" in done.stdout
    assert "would run: make -C /srv/nccl-course/releases/v2.0.0 setup book" in done.stdout
    assert f"schema {OLD_REVISION} -> {head_revision()}" in done.stdout
    assert "would run: systemctl restart nccl-course" in done.stdout

    import sqlite3

    with sqlite3.connect(data / "course.db") as db:
        assert db.execute("SELECT name, email FROM learners").fetchall() == [
            ("Ada", "ada@example.org")
        ]
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [
            (head_revision(),)
        ]
    (archive,) = host.path("/var/backups/nccl-course").glob("nccl-course-backup-*.tar.gz")
    assert mode(archive) == 0o600 and archive.stat().st_uid == host.uid
    with tarfile.open(archive) as tar:  # made before the migration
        manifest = json.load(tar.extractfile("manifest.json"))
    assert manifest["database"]["schema_revision"] == OLD_REVISION
    current = host.path("/srv/nccl-course/current")
    assert os.readlink(current) == "/srv/nccl-course/releases/v2.0.0"
    assert os.readlink(host.path("/srv/nccl-course/previous")) == str(REPO)

    host.run("rollback")
    assert os.readlink(current) == str(REPO)


def test_refusals_say_what_to_do(host):
    bare = host.run("--domain", DOMAIN, "config", check=False, root=False)
    assert bare.returncode == 1 and "run it as root (sudo)" in bare.stderr
    wrong = host.run("--proxy", "apache", "proxy", check=False)
    assert wrong.returncode == 2 and "--proxy caddy or nginx, not apache" in wrong.stderr
    nodomain = host.run("--user", host.user, "config", check=False)
    assert nodomain.returncode == 2 and "give --domain" in nodomain.stderr
    odd = host.run("--domain", "x.org/evil", "config", check=False)
    assert odd.returncode == 2 and "--domain takes a host name" in odd.stderr
    notag = host.run("upgrade", check=False)
    assert notag.returncode == 2 and "upgrade needs the release tag" in notag.stderr


# What an upgrade's migration may do while hosts with the previous release still serve on the
# same database (the guide's rolling upgrade): add tables, indexes and columns that old code
# can leave out.
ADDITIVE = {"create_table", "create_index", "add_column", "get_bind"}


def migration_problems(source: str) -> list[str]:
    """What in a migration's upgrade() the previous release could not run on."""
    import ast

    tree = ast.parse(source)
    (upgrade,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "upgrade"]
    created = set()
    problems = []
    for call in ast.walk(upgrade):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
            continue
        if not (isinstance(call.func.value, ast.Name) and call.func.value.id == "op"):
            continue
        name = call.func.attr
        first = call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) else None
        keywords = {k.arg: k.value for k in call.keywords}
        if name not in ADDITIVE:
            problems.append(f"op.{name}")
        elif name == "create_table":
            created.add(first)
        elif name == "create_index":
            table = call.args[1].value if len(call.args) > 1 else None
            unique = keywords.get("unique")
            if isinstance(unique, ast.Constant) and unique.value and table not in created:
                problems.append(f"a unique index on the existing table {table}")
        elif name == "add_column":
            column = {k.arg: k.value for k in call.args[1].keywords}
            required = isinstance(column.get("nullable"), ast.Constant) and not (
                column["nullable"].value
            )
            if required and "server_default" not in column:
                problems.append(f"a required column without a server default on {first}")
    return problems


def test_the_rule_finds_what_old_code_cannot_run_on():
    source = """
def upgrade():
    op.create_table("t", sa.Column("id", sa.Integer))
    op.create_index("i", "t", ["id"], unique=True)
    op.add_column("a", sa.Column("x", sa.String, nullable=False, server_default="en"))
    op.add_column("a", sa.Column("y", sa.String))
    op.add_column("a", sa.Column("z", sa.String, nullable=False))
    op.create_index("j", "a", ["y"], unique=True)
    op.drop_column("a", "w")
    op.alter_column("a", "v", new_column_name="u")
"""
    assert migration_problems(source) == [
        "a required column without a server default on a",
        "a unique index on the existing table a",
        "op.drop_column",
        "op.alter_column",
    ]


def test_every_migration_lets_the_previous_release_run_on_its_schema():
    from nccl_course.store.db import MIGRATIONS

    found = {
        path.name: migration_problems(path.read_text())
        for path in sorted((MIGRATIONS / "versions").glob("[0-9]*.py"))
    }
    assert len(found) >= 6
    assert not {name: p for name, p in found.items() if p}, (
        "a migration the previous release cannot run on: the hosting guide's rolling upgrade "
        "(book/practice/06-hosting.md) needs every host stopped for it; say so in the guide "
        f"and the release notes: {found}"
    )
