#!/usr/bin/env bash
# Sets up, upgrades and checks a Debian host (13, trixie) serving the nccl-course server behind
# Caddy or nginx, under systemd, on SQLite or PostgreSQL, with nightly backups. The hosting
# guide (book/practice/06-hosting.md) shows each step from this file.
#
#   sudo deploy/install.sh --domain course.example.org [OPTIONS] all
#   sudo deploy/install.sh upgrade v1.3.0
#
# Run it from the release it should install: /srv/nccl-course/releases/TAG/deploy/install.sh.
# The options given are saved in /etc/nccl-course/install.conf, so later runs (an upgrade, a
# single step again) need none. Every step can run again: it changes only what differs.
#
# --root DIR (or NCCL_COURSE_ROOT) writes every file under DIR instead of /, and implies
# --dry-run, which prints the commands that would change the system outside it (apt-get, useradd, systemctl,
# nft, certbot, git, make) instead of running them: that is how the tests run it, as an
# ordinary user. The course's own commands (the migration, the backup before an upgrade) still
# run, on the data under DIR; NCCL_COURSE_PYTHON names the Python that has the course
# installed when the release has no .venv of its own (a dry run builds nothing).
set -euo pipefail

DEPLOY_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P) # the release itself, not current/
SOURCE_DIR=$(dirname "$DEPLOY_DIR")

usage() {
	cat <<'EOF'
usage: install.sh [OPTIONS] STEP... | all | upgrade TAG | rollback

Steps (a new host: all, which runs them in this order):
  packages        install the Debian packages the host needs
  user            create the service user
  build           make setup book in this release; /srv/nccl-course/current points at it
  config          /etc/nccl-course/env (mode 0600) and the data and backup folders
  postgres        a PostgreSQL role and database, and DATABASE_URL (--database postgresql)
  firewall        let in SSH, HTTP and HTTPS only (nftables or ufw)
  proxy           Caddy or nginx for DOMAIN, with its TLS certificate
  backups         install the nightly backup timer
  service         install and start the systemd unit, and wait until it is ready
  check           DNS, the local health probe and the public readiness probe
  all             every step above
  upgrade TAG     fetch and build release TAG, back up, migrate, switch, restart
  rollback        back to the release before the last upgrade (the schema stays)

Options (saved in /etc/nccl-course/install.conf for later runs):
  --domain NAME           the course's public host name (the server's --public-url)
  --proxy caddy|nginx     the TLS reverse proxy (default caddy)
  --firewall nftables|ufw (default nftables)
  --database sqlite|postgresql  (default sqlite)
  --workers N             server processes, PostgreSQL only (default 4)
  --email ADDRESS         the certificate account's e-mail (nginx: certbot)
  --repo URL              the course's git repository (default: this release's origin)
  --ssh-port N            the port SSH listens on, kept open by the firewall (default 22)
  --user NAME             the service user (default nccl-course)
Not saved:
  --root DIR              write every file under DIR (also NCCL_COURSE_ROOT); implies --dry-run
  --dry-run               write the files, but print instead of running the commands that
                          change the system (apt-get, useradd, systemctl, nft, certbot, git, make)
EOF
}

# ---- options and saved settings ------------------------------------------------------------
ROOT=${NCCL_COURSE_ROOT:-}
DRY_RUN=0
declare -A GIVEN=()
WORDS=()
while [ $# -gt 0 ]; do
	case $1 in
	--root) ROOT=${2:?--root needs a folder}; DRY_RUN=1; shift 2 ;;
	--dry-run) DRY_RUN=1; shift ;;
	--domain | --proxy | --firewall | --database | --workers | --email | --repo | --ssh-port | --user)
		key=${1#--}
		GIVEN[${key//-/_}]=${2:?$1 needs a value}
		shift 2
		;;
	-h | --help) usage; exit 0 ;;
	-*) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	*) WORDS+=("$1"); shift ;;
	esac
done
[ ${#WORDS[@]} -gt 0 ] || { usage >&2; exit 2; }
ROOT=${ROOT%/}
[ -z "$ROOT" ] || DRY_RUN=1
if [ -z "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then
	echo "install.sh: run it as root (sudo), or with --root DIR to try it" >&2
	exit 1
fi

# Every path below is the live system's; P puts one under --root for reading and writing.
P() { printf '%s%s' "$ROOT" "$1"; }
CONF=/etc/nccl-course/install.conf
ENV_FILE=/etc/nccl-course/env
SRV=/srv/nccl-course
DATA_DIR=/var/lib/nccl-course
BACKUP_DIR=/var/backups/nccl-course
UNIT_DIR=/etc/systemd/system

domain="" proxy=caddy firewall=nftables database=sqlite workers=4 email="" repo="" ssh_port=22
user=nccl-course
# shellcheck source=/dev/null
[ -f "$(P $CONF)" ] && . "$(P $CONF)"
for key in "${!GIVEN[@]}"; do printf -v "$key" '%s' "${GIVEN[$key]}"; done

case $proxy in caddy | nginx) ;; *) echo "install.sh: --proxy caddy or nginx, not $proxy" >&2; exit 2 ;; esac
case $firewall in nftables | ufw) ;; *) echo "install.sh: --firewall nftables or ufw, not $firewall" >&2; exit 2 ;; esac
case $database in sqlite | postgresql) ;; *) echo "install.sh: --database sqlite or postgresql, not $database" >&2; exit 2 ;; esac
[[ $workers =~ ^[1-9][0-9]*$ ]] || { echo "install.sh: --workers takes a whole number, not $workers" >&2; exit 2; }
[[ $ssh_port =~ ^[1-9][0-9]*$ ]] || { echo "install.sh: --ssh-port takes a port number, not $ssh_port" >&2; exit 2; }
[[ $domain =~ ^([A-Za-z0-9-]+\.)+[A-Za-z0-9-]+$|^$ ]] ||
	{ echo "install.sh: --domain takes a host name such as course.example.org, not $domain" >&2; exit 2; }
[[ $user =~ ^[a-z_][a-z0-9_-]*$ ]] || { echo "install.sh: --user takes a user name, not $user" >&2; exit 2; }

# ---- helpers -------------------------------------------------------------------------------
say() { printf '==> %s\n' "$*"; }

# A command that changes the system outside --root: printed in a dry run.
run() {
	if [ "$DRY_RUN" = 1 ]; then
		printf 'would run:'; printf ' %q' "$@"; printf '\n'
	else
		"$@"
	fi
}

need_domain() {
	[ -n "$domain" ] || { echo "install.sh: give --domain (the course's public host name, e.g. course.example.org)" >&2; exit 2; }
}

group_of() { id -gn "$1"; }

# chown only as root; an ordinary user (a --root trial) owns everything it writes.
own() { if [ "$(id -u)" -eq 0 ]; then chown "$1" "$2"; fi; }

# ensure_dir PATH MODE OWNER:GROUP
ensure_dir() {
	local path
	path=$(P "$1")
	if [ ! -d "$path" ]; then mkdir -p "$path"; say "created $1"; fi
	chmod "$2" "$path"
	own "$3" "$path"
}

# put_file PATH MODE OWNER:GROUP < content: written only when the content differs, through a
# private temporary file in the same folder (never readable by others, even for a moment).
CHANGED=0
put_file() {
	local path new tmp
	path=$(P "$1")
	new=$(cat; printf x) # the x keeps the content's final newlines
	new=${new%x}
	if [ ! -f "$path" ] || ! printf '%s' "$new" | cmp -s - "$path"; then
		mkdir -p "$(dirname "$path")"
		tmp=$(umask 077 && mktemp "$path.XXXXXX")
		printf '%s' "$new" >"$tmp"
		chmod "$2" "$tmp"
		own "$3" "$tmp"
		mv -f "$tmp" "$path"
		say "wrote $1"
		CHANGED=1
	fi
	chmod "$2" "$path"
	own "$3" "$path"
}

# set_env KEY VALUE: one line KEY=VALUE in the env file; its other lines are kept.
set_env() {
	local file
	file=$(P $ENV_FILE)
	if grep -qxF "$1=$2" "$file"; then return 0; fi
	put_file $ENV_FILE 0600 "$user:$(group_of "$user")" \
		< <(grep -v "^$1=" "$file" || true; printf '%s=%s\n' "$1" "$2")
}

# The env file's settings as arguments for env(1): the course's commands see what the server
# sees (DATABASE_URL above all).
env_args() {
	local line
	ENV_ARGS=()
	[ -r "$(P $ENV_FILE)" ] || return 0
	while IFS= read -r line; do
		case $line in [A-Za-z_]*=*) ENV_ARGS+=("$line") ;; esac
	done <"$(P $ENV_FILE)"
}

# The course's command line in a release, run as the service user with the server's settings.
course() {
	local release=$1 python
	shift
	python=${NCCL_COURSE_PYTHON:-$release/.venv/bin/python}
	as_user "$python" -m nccl_course "$@"
}

# A command as the service user, with the env file's settings, from a folder it can read.
as_user() {
	env_args
	if [ "$(id -un)" = "$user" ]; then
		(cd / && env "${ENV_ARGS[@]}" "$@")
	else
		(cd / && runuser -u "$user" -- env "${ENV_ARGS[@]}" "$@")
	fi
}

# A deploy/ file with this host's settings: its domain, user and worker count.
render() {
	local workers_flag="--workers $workers"
	[ "$database" = postgresql ] || workers_flag=""
	sed -e "s/course\.example\.org/$domain/g" \
		-e "s/^User=nccl-course$/User=$user/" -e "s/^Group=nccl-course$/Group=$(group_of "$user")/" \
		-e "s/ --workers [0-9]*/${workers_flag:+ $workers_flag}/" \
		"$DEPLOY_DIR/$1"
}

# The options of this run, kept for the next (an upgrade needs none).
save_settings() {
	put_file $CONF 0644 root:root <<EOF
# deploy/install.sh's settings for this host (its options, kept for later runs)
domain=$(printf '%q' "$domain")
proxy=$proxy
firewall=$firewall
database=$database
workers=$workers
email=$(printf '%q' "$email")
repo=$(printf '%q' "$repo")
ssh_port=$ssh_port
user=$(printf '%q' "$user")
EOF
}

# ---- steps ---------------------------------------------------------------------------------
# [packages]
step_packages() {
	local packages=(git make python3 python3-venv python3-dev build-essential nodejs npm curl)
	if [ "$proxy" = caddy ]; then packages+=(caddy); else packages+=(nginx certbot); fi
	if [ "$firewall" = nftables ]; then packages+=(nftables); else packages+=(ufw); fi
	if [ "$database" = postgresql ]; then packages+=(postgresql); fi
	run apt-get update
	run apt-get install -y --no-install-recommends "${packages[@]}"
}
# [/packages]

# [user]
step_user() {
	if getent passwd "$user" >/dev/null; then
		say "user $user exists"
	else
		run useradd --system --user-group --home-dir $DATA_DIR --shell /usr/sbin/nologin "$user"
	fi
}
# [/user]

# [build]
step_build() {
	build_release "$SOURCE_DIR"
	activate "$SOURCE_DIR"
	# `nccl-course` on every administrator's PATH, always the running release's
	if [ "$(readlink "$(P /usr/local/bin/nccl-course)" 2>/dev/null)" != $SRV/current/.venv/bin/nccl-course ]; then
		mkdir -p "$(P /usr/local/bin)"
		ln -sfn $SRV/current/.venv/bin/nccl-course "$(P /usr/local/bin/nccl-course)"
		say "linked /usr/local/bin/nccl-course"
	fi
}

build_release() {
	# Everything the server reads (the .venv, the built book) is made here, before a restart.
	run make -C "$1" setup book
}

# /srv/nccl-course/current names the running release; the unit starts the server from it.
activate() {
	local link target
	link=$(P $SRV/current)
	target=$1
	if [ "$(readlink "$link" 2>/dev/null)" = "$target" ]; then return 0; fi
	mkdir -p "$(P $SRV)"
	if [ -L "$link" ]; then ln -sfn "$(readlink "$link")" "$(P $SRV/previous)"; fi
	# a new link renamed over the old one: the switch is atomic
	ln -sfn "$target" "$link.new"
	mv -Tf "$link.new" "$link"
	say "current release: $target"
	CHANGED=1
}
# [/build]

# [config]
step_config() {
	need_domain
	local group
	group=$(group_of "$user")
	# The folder and the file: created here, never through a shell redirection, which would
	# fail on a missing folder and leave the file readable by everyone.
	ensure_dir /etc/nccl-course 0750 "root:$group"
	if [ ! -f "$(P $ENV_FILE)" ]; then
		put_file $ENV_FILE 0600 "$user:$group" <<'EOF'
# The course server's environment (deploy/nccl-course.service and its backups read it).
# Mode 0600: it may hold a database password. Fill in the mail server learners' confirmation
# links go through (nccl-course serve --help), or set NCCL_COURSE_EMAIL_CONFIRMATION=off for a
# closed class:
# NCCL_COURSE_SMTP_HOST=smtp.example.org
# NCCL_COURSE_SMTP_PORT=587
# NCCL_COURSE_SMTP_SECURITY=starttls
# NCCL_COURSE_SMTP_USERNAME=course@example.org
# NCCL_COURSE_SMTP_PASSWORD_FILE=/etc/nccl-course/smtp-password
# NCCL_COURSE_MAIL_FROM=nccl-course <course@example.org>
EOF
	fi
	chmod 0600 "$(P $ENV_FILE)"
	own "$user:$group" "$(P $ENV_FILE)"
	# systemd makes the data folder (StateDirectory=) with the same owner and mode.
	ensure_dir $DATA_DIR 0700 "$user:$group"
	ensure_dir $BACKUP_DIR 0700 "$user:$group"
	mail_configured || say "$NO_MAIL"
}

# --production (the unit's) refuses to start without a mail server while learners confirm
# their addresses.
NO_MAIL="the server will not start until $ENV_FILE names an SMTP server (NCCL_COURSE_SMTP_HOST=...) or sets NCCL_COURSE_EMAIL_CONFIRMATION=off: edit it with sudoedit, then run: install.sh service check"
mail_configured() {
	grep -Eq '^(NCCL_COURSE_SMTP_HOST=.|NCCL_COURSE_EMAIL_CONFIRMATION=off)' "$(P $ENV_FILE)" 2>/dev/null
}
# [/config]

# [postgres]
step_postgres() {
	[ "$database" = postgresql ] || { say "SQLite in $DATA_DIR: no PostgreSQL to set up"; return 0; }
	local role_exists="" db_exists=""
	if [ "$DRY_RUN" = 0 ]; then
		role_exists=$(runuser -u postgres -- psql -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$user'")
		db_exists=$(runuser -u postgres -- psql -tAc "SELECT 1 FROM pg_database WHERE datname = 'nccl_course'")
	fi
	[ -n "$role_exists" ] || run runuser -u postgres -- createuser "$user"
	[ -n "$db_exists" ] || run runuser -u postgres -- createdb --owner "$user" nccl_course
	# No password: the server connects over the local socket as the system user of the same
	# name (PostgreSQL's peer authentication).
	set_env DATABASE_URL "postgresql://$user@/nccl_course"
}
# [/postgres]

# [firewall]
step_firewall() {
	if [ "$firewall" = ufw ]; then
		run ufw allow "$ssh_port/tcp"
		run ufw allow 80/tcp
		run ufw allow 443/tcp
		run ufw allow 443/udp
		run ufw --force enable
		return 0
	fi
	put_file /etc/nftables.d/nccl-course.nft 0644 root:root <<EOF
# Written by deploy/install.sh: only SSH, HTTP and HTTPS (and HTTP/3) come in.
table inet nccl_course
delete table inet nccl_course
table inet nccl_course {
	chain input {
		type filter hook input priority filter; policy drop;
		ct state established,related accept
		ct state invalid drop
		iif "lo" accept
		meta l4proto { icmp, ipv6-icmp } accept
		tcp dport { $ssh_port, 80, 443 } accept
		udp dport 443 accept
	}
}
EOF
	local main
	main=$(P /etc/nftables.conf)
	if ! grep -qs '^include "/etc/nftables.d/\*.nft"' "$main"; then
		put_file /etc/nftables.conf 0755 root:root \
			< <(cat "$main" 2>/dev/null || printf '#!/usr/sbin/nft -f\n'; printf 'include "/etc/nftables.d/*.nft"\n')
	fi
	run nft -c -f /etc/nftables.conf
	run systemctl enable nftables
	# only this table now; the whole file at the next boot
	run nft -f /etc/nftables.d/nccl-course.nft
}
# [/firewall]

# [proxy]
step_proxy() {
	need_domain
	CHANGED=0
	if [ "$proxy" = caddy ]; then
		put_file /etc/caddy/Caddyfile 0644 root:root < <(render Caddyfile)
		run caddy validate --config /etc/caddy/Caddyfile --adapter caddyfile
		[ "$CHANGED" = 0 ] || run systemctl reload-or-restart caddy
		return 0
	fi
	if [ ! -e "$(P "/etc/letsencrypt/live/$domain/fullchain.pem")" ]; then
		[ -n "$email" ] || { echo "install.sh: nginx needs --email for the Let's Encrypt account" >&2; exit 2; }
		# certbot answers the challenge on port 80 itself, nginx stopped for a few seconds;
		# the hooks are kept for every renewal (certbot's timer).
		run certbot certonly --standalone --non-interactive --agree-tos -m "$email" -d "$domain" \
			--pre-hook "systemctl stop nginx" --post-hook "systemctl start nginx"
	fi
	put_file /etc/nginx/conf.d/nccl-course.conf 0644 root:root < <(render nginx.conf)
	run nginx -t
	[ "$CHANGED" = 0 ] || run systemctl reload nginx
}
# [/proxy]

# [service]
step_service() {
	need_domain
	CHANGED=0
	put_file $UNIT_DIR/nccl-course.service 0644 root:root < <(render nccl-course.service)
	[ "$CHANGED" = 0 ] || run systemctl daemon-reload
	if ! mail_configured; then
		[ "$DRY_RUN" = 1 ] || { echo "install.sh: $NO_MAIL" >&2; exit 1; }
		say "$NO_MAIL"
	fi
	run systemctl enable nccl-course
	if [ "$CHANGED" = 1 ]; then run systemctl restart nccl-course; else run systemctl start nccl-course; fi
	wait_ready
}

# Until the server answers its readiness probe (the database too), for at most 60 s.
wait_ready() {
	local started=$SECONDS
	[ "$DRY_RUN" = 0 ] || return 0
	until curl -fsS --max-time 2 http://127.0.0.1:8000/exam/api/ready >/dev/null 2>&1; do
		if [ $((SECONDS - started)) -ge 60 ]; then
			echo "install.sh: the server is not ready after 60 s: see journalctl -u nccl-course" >&2
			exit 1
		fi
		sleep 1
	done
	say "the server is ready ($((SECONDS - started)) s after the start)"
}
# [/service]

# [backups]
step_backups() {
	CHANGED=0
	put_file $UNIT_DIR/nccl-course-backup.service 0644 root:root < <(render nccl-course-backup.service)
	put_file $UNIT_DIR/nccl-course-backup.timer 0644 root:root < <(render nccl-course-backup.timer)
	[ "$CHANGED" = 0 ] || run systemctl daemon-reload
	run systemctl enable --now nccl-course-backup.timer
}
# [/backups]

# [check]
step_check() {
	need_domain
	local want have
	want=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -v '^$' | sort -u || true)
	have=$(getent ahosts "$domain" | awk '{print $1}' | sort -u || true)
	if [ -z "$have" ]; then
		say "DNS: $domain does not resolve; add an A (and AAAA) record for this host: ${want//$'\n'/ }"
	elif [ -z "$(comm -12 <(echo "$want") <(echo "$have"))" ]; then
		say "DNS: $domain resolves to ${have//$'\n'/ }, not to this host (${want//$'\n'/ }): behind a NAT or load balancer that is expected"
	else
		say "DNS: $domain resolves to this host"
	fi
	run curl -fsS --max-time 5 http://127.0.0.1:8000/exam/api/health
	run curl -fsS --max-time 10 "https://$domain/exam/api/ready"
}
# [/check]

# [upgrade]
step_upgrade() {
	local tag=$1 release
	[ -n "$tag" ] || { echo "install.sh: upgrade needs the release tag, e.g. upgrade v1.3.0" >&2; exit 2; }
	release=$SRV/releases/$tag
	# 1. the new release beside the running one: the server keeps serving meanwhile
	if [ ! -d "$(P "$release")" ]; then
		[ -n "$repo" ] || repo=$(git -C "$(P $SRV/current)" remote get-url origin 2>/dev/null) ||
			{ echo "install.sh: give --repo URL (the course's git repository)" >&2; exit 2; }
		run git clone --quiet --depth 1 --branch "$tag" "$repo" "$release"
	fi
	build_release "$release"
	# 2. a backup, then the schema: migrations only add (tables, columns with defaults), so
	#    servers still running the old release go on working on the new schema
	if has_database; then
		course "$(P "$release")" backup --data-dir "$(P $DATA_DIR)" --output "$(P $BACKUP_DIR)/"
		migrate "$(P "$release")"
	else
		say "no database yet: the server creates it at its first start"
	fi
	# 3. the switch, and one restart: in-flight requests finish (SIGTERM), and the exam page
	#    retries an answer that fails meanwhile for about 15 s (0.5 + 1 + 2 + 4 + 8 s)
	activate "$release"
	restart_and_wait
}

has_database() { [ "$database" = postgresql ] || [ -e "$(P $DATA_DIR)/course.db" ]; }

migrate() {
	# The migration the server runs at every start, run once here before the switch: on
	# PostgreSQL under an advisory lock, so the first host migrates and the others find it done.
	as_user "${NCCL_COURSE_PYTHON:-$1/.venv/bin/python}" -c '
import sys
from pathlib import Path
from nccl_course.server.settings import Settings
from nccl_course.store.db import Database, current_revision, head_revision
db = Database(Settings.from_env(data_dir=Path(sys.argv[1])).resolved_database_url())
try:
    before = current_revision(db.engine) or "empty"
    db.upgrade()
    print(f"==> schema {before} -> {current_revision(db.engine)} (head {head_revision()})")
finally:
    db.dispose()
' "$(P $DATA_DIR)"
}

restart_and_wait() {
	run systemctl restart nccl-course
	wait_ready
}

step_rollback() {
	local previous
	previous=$(readlink "$(P $SRV/previous)" 2>/dev/null) || { echo "install.sh: no previous release to go back to" >&2; exit 1; }
	activate "$previous"
	restart_and_wait
}
# [/upgrade]

[ ${#GIVEN[@]} -eq 0 ] || save_settings
STEPS=(packages user build config postgres firewall proxy backups service check)
case ${WORDS[0]} in
upgrade)
	[ ${#WORDS[@]} -le 2 ] || { echo "install.sh: upgrade takes one release tag" >&2; exit 2; }
	step_upgrade "${WORDS[1]:-}"
	;;
rollback) step_rollback ;;
*)
	[ "${WORDS[*]}" != all ] || WORDS=("${STEPS[@]}")
	for step in "${WORDS[@]}"; do
		[[ " ${STEPS[*]} " == *" $step "* ]] ||
			{ echo "install.sh: unknown command $step (see --help)" >&2; exit 2; }
	done
	for step in "${WORDS[@]}"; do
		say "step $step"
		"step_$step"
	done
	;;
esac
