"""A real deployment on loopback: nginx (Debian's package) in front of Streamlit replicas on one PostgreSQL.

`deployment(workdir, study, pg_url, replicas=3)` makes a fresh database on the PostgreSQL server of
`pg_url` (dropped on stop), starts the replicas (`streamlit run streamlit_app.py`, simulations/browser.py
`start_server`, each with INFACT_DB = that database) and nginx from `deploy/nginx.conf`, its placeholders
filled in: a prefix in `workdir` for its pid, logs and temp files, a free loopback port, one `server` line
per replica, and a proxy secret made for the run: the replicas get it as INFACT_PROXY_SECRET, nginx reads its
`set $infact_proxy_secret` line from an anonymous in-memory file (memfd, /proc/self/fd/N): never on disk.
nginx runs as the current user (`-p PREFIX -c FILE -e LOG`, checked with `-t` first), in the
foreground, and is stopped with the replicas. Used by tests/test_nginx_replicas.py and bench/replicas.py.
"""

from __future__ import annotations

import getpass
import os
import secrets
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from simulations.browser import REPO, AppServer, free_port, start_server, stop_server

TEMPLATE = REPO / "deploy" / "nginx.conf"


def nginx_binary() -> str | None:
    """Debian's nginx: on PATH, or in /usr/sbin (not on every user's PATH)."""
    return shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)


def nginx_config(prefix: Path, port: int, replica_ports: list[int], secret_conf: str) -> str:
    servers = "\n        ".join(f"server 127.0.0.1:{p} max_fails=1 fail_timeout=10s;" for p in replica_ports)
    values = {"prefix": str(prefix), "listen": f"127.0.0.1:{port}", "servers": servers}
    values["proxy_secret_conf"] = secret_conf
    lines = []
    for line in TEMPLATE.read_text(encoding="utf-8").splitlines():
        if not line.lstrip().startswith("#"):  # the header's comments name the placeholders
            for name, value in values.items():
                line = line.replace("{{" + name + "}}", value)
            assert "{{" not in line, f"deploy/nginx.conf has a placeholder the test does not fill: {line}"
        lines.append(line)
    text = "\n".join(lines) + "\n"
    if os.geteuid() == 0:  # nginx started by root would run its workers as `nobody`: keep them ours
        text = f"user {getpass.getuser()};\n" + text
    return text


@contextmanager
def fresh_database(pg_url: str):
    """A new, empty database on the server of `pg_url`; its URL, dropped afterwards."""
    import psycopg

    name = f"infact_deploy_{uuid.uuid4().hex[:10]}"
    admin = psycopg.connect(pg_url, autocommit=True)
    try:
        admin.execute(f'CREATE DATABASE "{name}"')
        parts = urlsplit(pg_url)
        yield urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


@dataclass
class Deployment:
    url: str  # nginx, e.g. http://127.0.0.1:PORT
    store_url: str
    replicas: list[AppServer]
    nginx: subprocess.Popen
    prefix: Path
    proxy_secret: str = ""  # what nginx sends in X-Infact-Proxy-Secret (a test acting as a trusted proxy)
    killed: list[int] = field(default_factory=list)

    def kill(self, i: int) -> None:
        """SIGKILL replica `i`: no clean-up, as a crashed machine."""
        self.replicas[i].proc.send_signal(signal.SIGKILL)
        self.replicas[i].proc.wait(timeout=15)
        self.killed.append(i)

    def storage(self):
        from infact.stores.sql.store import SQLStorage

        return SQLStorage(self.store_url)

    def nginx_log(self, n: int = 30) -> str:
        path = self.prefix / "error.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:]) if path.exists() else "(no log)"


def secret_memfd(secret: str) -> int:
    """An anonymous in-memory file holding nginx's `set $infact_proxy_secret` line (the secret is never on
    disk); nginx, given the descriptor, includes it as /proc/self/fd/N."""
    fd = os.memfd_create("infact-proxy-secret")
    os.write(fd, f'set $infact_proxy_secret "{secret}";\n'.encode())
    return fd


def start_nginx(prefix: Path, replica_ports: list[int], secret: str) -> tuple[subprocess.Popen, str]:
    binary = nginx_binary()
    assert binary, "nginx is not installed: apt-get install nginx (scripts/test.sh does)"
    prefix.mkdir(parents=True, exist_ok=True)
    port = free_port()
    conf = prefix / "nginx.conf"
    fd = secret_memfd(secret)
    try:
        conf.write_text(nginx_config(prefix, port, replica_ports, f"/proc/self/fd/{fd}"), encoding="utf-8")
        args = [binary, "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "error.log")]
        check = subprocess.run([*args, "-t"], capture_output=True, text=True, timeout=30, pass_fds=(fd,))
        assert check.returncode == 0, f"nginx -t refused {conf}:\n{check.stderr}"
        proc = subprocess.Popen(
            [*args, "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, pass_fds=(fd,)
        )
    finally:
        os.close(fd)  # nginx has read it at start (a reload, SIGHUP, would not find it: restart instead)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"nginx exited: {proc.stderr.read().decode(errors='replace')}"
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    return proc, url
        except (urllib.error.URLError, OSError):
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("nginx did not answer within 30 s")


@contextmanager
def environment(**values: str):
    """These environment variables while the block runs (the replicas started in it inherit them)."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextmanager
def deployment(workdir: Path, study_dir: Path, pg_url: str, replicas: int = 3):
    """nginx in front of `replicas` app processes on one fresh PostgreSQL database (see the module docstring)."""
    with fresh_database(pg_url) as store_url:
        servers: list[AppServer] = []
        nginx = None
        try:
            # Every simulated participant reaches the replicas from one loopback source through nginx: past the
            # per-source bucket (200 at once, then 30 a minute, infact/participation/visits.py) bench/replicas.py's
            # 300 would wait for their places; the replicas run without it (the process-wide bucket stays).
            # The proxy secret reaches the replicas in their environment only (infact/access/source.py).
            secret = secrets.token_hex(32)
            with environment(INFACT_CONSENTS_PER_SOURCE="0", INFACT_PROXY_SECRET=secret):
                for i in range(replicas):
                    servers.append(start_server(workdir / f"replica-{i}", study_dir, store=store_url))
            ports = [int(s.url.rsplit(":", 1)[1]) for s in servers]
            nginx, url = start_nginx(workdir / "nginx", ports, secret)
            yield Deployment(url, store_url, servers, nginx, workdir / "nginx", proxy_secret=secret)
        finally:
            if nginx is not None:
                nginx.send_signal(signal.SIGQUIT)  # graceful: finishes open requests, then exits
                try:
                    nginx.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    nginx.kill()
                    nginx.wait(timeout=15)
            for server in servers:
                stop_server(server)
