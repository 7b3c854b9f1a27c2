"""An in-memory stand-in for Prolific's API, written from its public reference (docs.prolific.com).

It keeps studies, submissions, bulk bonuses and messages in memory, logs every call
(`stub.log`: method, path, status, body; never the Authorization header), and can inject faults:
`fail` (an HTTP status such as 401/404/429/500, optionally with Retry-After or a raw, malformed body;
`after=True`: the call is carried out first, as a server that fails after doing the work),
`delay` (seconds before answering; `after=True`: after carrying the call out, so a client that gives up
still had it done) and `kill` (SIGKILL a client process when a call arrives, before
or after the call is carried out: a crash between calls); `fail_after` / `slow_after` (the same as `fail` / `delay`
with `after=True`) and `echo_token` (an error body echoing the Authorization header) are the ways real servers
misbehave that a client must survive. Only what INFACT uses is served.

Tests start it in a thread (`with ProlificStub(token) as stub: stub.url`); the demo and the browser
test run it as a process: `python -m simulations.prolific_stub --port 8765 --token T`. Routes under
`/_stub/` (no token) let another process add submissions, change their status and read the log.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import threading
import time
import uuid
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PREFIX = "/api/v1"


@dataclass
class Fault:
    method: str
    pattern: re.Pattern
    times: int
    status: int | None = None
    retry_after: str | None = None
    raw: str | None = None
    delay: float = 0.0
    kill: str | None = None  # "before" / "after" the call is carried out
    pid: int | None = None
    after: bool = False  # carry the call out first, then answer `status` / wait `delay` (the work is done)
    echo: str | None = None  # answer `status` with a body echoing the Authorization header: "json" / "text"
    echo_prefix: str = ""  # text before the echoed header (places the token at a cut's edge)


class ProlificStub:
    def __init__(self, token: str = "stub-token", host: str = "127.0.0.1", port: int = 0):
        self.token = token
        self.studies: dict[str, dict] = {}
        self.submissions: dict[str, dict] = {}
        self.bonuses: dict[str, dict] = {}
        self.messages: list[dict] = []
        self.log: list[dict] = []
        self.faults: list[Fault] = []
        self.victim: int | None = None  # the pid `kill` faults stop when they name none
        self.strict_bonus_ids = True  # a bulk bonus for IDs that did not take part is refused (400), as on Prolific
        self.lock = threading.RLock()
        self._server = ThreadingHTTPServer((host, port), _handler(self))
        self._thread: threading.Thread | None = None

    # -- running --------------------------------------------------------------
    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> ProlificStub:
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True, name="prolific-stub")
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> ProlificStub:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- faults ---------------------------------------------------------------
    def fail(
        self, method: str, path: str, status: int, *, times: int = 1, retry_after=None, raw=None, after: bool = False
    ) -> None:
        """The next `times` calls matching (method, path regex) answer `status` (or `raw` text, unparsed);
        `after=True`: each is carried out first (a 500 after the work was done)."""
        self.faults.append(Fault(method, re.compile(path), times, status, retry_after, raw, after=after))

    def delay(self, method: str, path: str, seconds: float, *, times: int = 1, after: bool = False) -> None:
        """Wait `seconds` before answering; `after=True`: the call is carried out before the wait."""
        self.faults.append(Fault(method, re.compile(path), times, delay=seconds, after=after))

    def fail_after(self, method: str, path: str, status: int, *, times: int = 1) -> None:
        """The next `times` matching calls are carried out, then answered `status` (a 5xx after doing the work)."""
        self.faults.append(Fault(method, re.compile(path), times, status, after=True))

    def slow_after(self, method: str, path: str, seconds: float, *, times: int = 1) -> None:
        """The next `times` matching calls are carried out at once, then answered `seconds` later (a slow answer)."""
        self.faults.append(Fault(method, re.compile(path), times, delay=seconds, after=True))

    def echo_token(self, method: str, path: str, status: int, *, form: str = "json", prefix: str = "", times=1) -> None:
        """Answer `status` with a body that echoes the request's Authorization header after `prefix`: as
        `{"error": {"detail": …}}` (`form="json"`) or as plain text (`"text"`), as a misbehaving proxy might."""
        assert form in ("json", "text")
        self.faults.append(Fault(method, re.compile(path), times, status, echo=form, echo_prefix=prefix))

    def kill(self, method: str, path: str, when: str = "before", *, pid: int | None = None, times: int = 1) -> None:
        """SIGKILL `pid` (default: `victim`) when a matching call arrives, `before` or `after` carrying it out."""
        assert when in ("before", "after")
        self.faults.append(Fault(method, re.compile(path), times, kill=when, pid=pid))

    def _fault(self, method: str, path: str) -> Fault | None:
        with self.lock:
            for f in self.faults:
                if f.times > 0 and f.method == method and f.pattern.search(path):
                    f.times -= 1
                    return f
        return None

    def _kill(self, fault: Fault) -> None:
        deadline = time.monotonic() + 10
        while (fault.pid or self.victim) is None and time.monotonic() < deadline:
            time.sleep(0.02)  # the test sets `victim` right after starting the process
        pid = fault.pid or self.victim
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            time.sleep(0.2)  # let the kill land before anything else is answered

    # -- seeding and reading (tests, demo) --------------------------------------
    def add_submission(self, study_id: str, participant_id: str, status: str = "AWAITING REVIEW", **extra) -> dict:
        with self.lock:
            sid = extra.pop("id", None) or uuid.uuid4().hex[:24]
            sub = {
                "id": sid,
                "study_id": study_id,
                "participant_id": participant_id,
                "status": status,
                "started_at": extra.pop("started_at", _now()),
                "completed_at": extra.pop("completed_at", None if status in ("ACTIVE", "RESERVED") else _now()),
                "bonus_payments": [],
                "return_requested": None,
                **extra,
            }
            self.submissions[sid] = sub
            return sub

    def calls(self, method: str | None = None, path: str = "") -> list[dict]:
        with self.lock:
            return [c for c in self.log if (method is None or c["method"] == method) and re.search(path, c["path"])]

    def pay_calls(self, bonus_id: str | None = None) -> list[dict]:
        pattern = rf"/bulk-bonus-payments/{bonus_id or '[^/]+'}/pay/$"
        return [c for c in self.calls("POST", pattern) if c.get("carried_out")]

    # -- the API --------------------------------------------------------------
    def handle(self, method: str, path: str, body: Any, auth: str | None) -> tuple[int, Any, dict]:
        if path.startswith("/_stub/"):
            return self._control(method, path, body)
        if auth != f"Token {self.token}":
            return 401, {"error": {"detail": "Invalid token."}}, {}
        route = path[len(PREFIX) :] if path.startswith(PREFIX) else path
        with self.lock:
            return self._route(method, route.split("?")[0], body)

    def _route(self, method: str, route: str, body: Any) -> tuple[int, Any, dict]:
        body = body if isinstance(body, dict) else {}
        parts = [p for p in route.split("/") if p]
        if method == "GET" and parts == ["users", "me"]:
            return 200, {"id": "researcher1", "name": "Stub Researcher"}, {}
        if parts[:1] == ["studies"]:
            return self._studies(method, parts[1:], body)
        if parts[:1] == ["submissions"]:
            return self._submissions(method, parts[1:], body)
        if method == "POST" and len(parts) == 3 and parts[0] == "bulk-bonus-payments" and parts[2] == "pay":
            bonus = self.bonuses.get(parts[1])
            if bonus is None:
                return 404, {"error": {"detail": "Not found."}}, {}
            bonus["pay_calls"] += 1  # not idempotent: every call pays again (Prolific's warning)
            for pid, amount in bonus["rows"]:
                for sub in self.submissions.values():
                    if sub["participant_id"] == pid and sub["study_id"] == bonus["study"]:
                        sub["bonus_payments"].append(round(amount * 100))
            return 202, None, {}
        if method == "POST" and parts == ["messages"]:
            return self._message([body.get("recipient_id")], body)
        if method == "POST" and parts == ["messages", "bulk"]:
            return self._message(list(body.get("ids") or []), body)
        return 404, {"error": {"detail": f"no route {method} {route}"}}, {}

    def _studies(self, method: str, rest: list[str], body: dict) -> tuple[int, Any, dict]:
        if not rest:
            if method == "POST":
                missing = [k for k in ("name", "external_study_url", "completion_codes") if not body.get(k)]
                if missing:
                    return 400, {"error": {"detail": f"missing {missing}"}}, {}
                sid = uuid.uuid4().hex[:24]
                self.studies[sid] = {**body, "id": sid, "status": "UNPUBLISHED"}
                return 201, self.studies[sid], {}
            return 200, {"results": list(self.studies.values())}, {}
        study = self.studies.get(rest[0])
        if study is None:
            return 404, {"error": {"detail": "Not found."}}, {}
        if rest[1:] == [] and method == "GET":
            return 200, study, {}
        if rest[1:] == ["transition"] and method == "POST":
            if body.get("action") == "PUBLISH" and study["status"] != "UNPUBLISHED":
                return 400, {"error": {"detail": f"study is {study['status']}, cannot PUBLISH"}}, {}
            study["status"] = {"PUBLISH": "ACTIVE", "PAUSE": "PAUSED", "START": "ACTIVE", "STOP": "COMPLETED"}.get(
                body.get("action"), study["status"]
            )
            return 200, study, {}
        if rest[1:] == ["submissions"] and method == "GET":
            subs = [s for s in self.submissions.values() if s["study_id"] == rest[0]]
            return 200, {"results": subs, "meta": {"count": len(subs)}, "_links": {"next": {"href": None}}}, {}
        return 404, {"error": {"detail": "no such route"}}, {}

    def _submissions(self, method: str, rest: list[str], body: dict) -> tuple[int, Any, dict]:
        if rest == ["bulk-approve"] and method == "POST":
            if "submission_ids" in body and ("study_id" in body or "participant_ids" in body):
                return 400, {"error": {"detail": "give either submission_ids or study_id + participant_ids"}}, {}
            ids = body.get("submission_ids") or []
            unknown = [i for i in ids if i not in self.submissions]
            if unknown:
                return 400, {"error": {"detail": f"unknown submissions {unknown}"}}, {}
            for i in ids:
                if self.submissions[i]["status"] == "AWAITING REVIEW":
                    self.submissions[i]["status"] = "APPROVED"
            return 200, "The request to bulk approve has been handled successfully", {}
        if rest == ["bonus-payments"] and method == "POST":
            return self._bonus(body)
        sub = self.submissions.get(rest[0]) if rest else None
        if sub is None:
            return 404, {"error": {"detail": "Not found."}}, {}
        if rest[1:] == ["transition"] and method == "POST":
            action = body.get("action")
            target = {"APPROVE": "APPROVED", "REJECT": "REJECTED"}.get(action)
            if target is None:
                return 400, {"error": {"detail": f"unknown action {action}"}}, {}
            if sub["status"] == target:
                return 200, sub, {}  # idempotent
            if sub["status"] != "AWAITING REVIEW":
                return 400, {"error": {"detail": f"submission is {sub['status']}"}}, {}
            if action == "REJECT" and (len(body.get("message") or "") < 100 or not body.get("rejection_category")):
                return 400, {"error": {"detail": "a rejection needs a category and a message of 100+ characters"}}, {}
            sub["status"] = target
            sub["rejection"] = (
                {k: body.get(k) for k in ("message", "rejection_category")} if target == "REJECTED" else None
            )
            return 200, sub, {}
        if rest[1:] == ["request-return"] and method == "POST":
            reasons = body.get("request_return_reasons")
            if not reasons:
                return 400, {"error": {"detail": "request_return_reasons is required"}}, {}
            sub["return_requested"] = list(reasons)
            return 200, sub, {}
        if rest[1:] == [] and method == "GET":
            return 200, sub, {}
        return 404, {"error": {"detail": "no such route"}}, {}

    def _bonus(self, body: dict) -> tuple[int, Any, dict]:
        study = body.get("study_id")
        if study not in self.studies:
            return 404, {"error": {"detail": "study not found"}}, {}
        rows = []
        for line in str(body.get("csv_bonuses") or "").strip().splitlines():
            pid, _, amount = line.partition(",")
            try:
                rows.append((pid.strip(), float(amount)))
            except ValueError:
                return 400, {"error": {"detail": f"bad csv line {line!r}"}}, {}
        if not rows:
            return 400, {"error": {"detail": "csv_bonuses is empty"}}, {}
        # Like Prolific: every ID must have taken part in the study (a participant or a submission id).
        took_part = {s["participant_id"] for s in self.submissions.values() if s["study_id"] == study}
        took_part |= {s["id"] for s in self.submissions.values() if s["study_id"] == study}
        strangers = [pid for pid, _ in rows if pid not in took_part]
        if strangers and self.strict_bonus_ids:
            return 400, {"error": {"detail": f"these IDs did not take part in the study: {strangers}"}}, {}
        amount = round(sum(a for _, a in rows) * 100)
        fees = round(amount * 0.333)
        bid = uuid.uuid4().hex[:24]
        self.bonuses[bid] = {
            "id": bid,
            "study": study,
            "amount": amount,
            "fees": fees,
            "total_amount": amount + fees,
            "rows": rows,
            "pay_calls": 0,
        }
        shown = {k: v for k, v in self.bonuses[bid].items() if k not in ("rows", "pay_calls")}
        return 201, {**shown, "csv_bonuses": body["csv_bonuses"]}, {}

    def _message(self, recipients: list, body: dict) -> tuple[int, Any, dict]:
        if not recipients or not all(recipients) or not body.get("body") or not body.get("study_id"):
            return 400, {"error": {"detail": "recipient, study_id and body are required"}}, {}
        for r in recipients:
            self.messages.append({"recipient_id": r, "study_id": body["study_id"], "body": body["body"]})
        return 201, None, {}

    def _control(self, method: str, path: str, body: Any) -> tuple[int, Any, dict]:
        parts = [p for p in path.split("/") if p][1:]
        with self.lock:
            if method == "POST" and parts == ["submissions"]:
                return 201, self.add_submission(**body), {}
            if method == "POST" and parts[:1] == ["submissions"] and len(parts) == 2:
                self.submissions[parts[1]].update(body)
                return 200, self.submissions[parts[1]], {}
            if method == "GET" and parts == ["state"]:
                return 200, {"studies": self.studies, "submissions": self.submissions, "log": self.log}, {}
        return 404, {"error": "no such control route"}, {}


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())


def _handler(stub: ProlificStub):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # the stub's own `log` instead of stderr
            pass

        def _serve(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            path = self.path
            entry = {"method": method, "path": path.split("?")[0], "body": body, "at": time.time()}
            fault = None if path.startswith("/_stub/") else stub._fault(method, path.split("?")[0])
            if fault and fault.after:
                return self._after(fault, method, path, body, entry)
            if fault and fault.echo:
                echoed = fault.echo_prefix + (self.headers.get("Authorization") or "")
                stub.log.append({**entry, "status": fault.status, "carried_out": False, "injected": True})
                if fault.echo == "text":
                    return self._reply(fault.status, None, {}, raw=echoed)
                return self._reply(fault.status, {"error": {"detail": echoed}}, {})
            if fault and fault.delay:
                time.sleep(fault.delay)
            if fault and fault.kill == "before":
                stub.log.append({**entry, "status": None, "carried_out": False, "killed": "before"})
                stub._kill(fault)
                return self._reply(599, {"error": "client killed"}, {})
            if fault and fault.status is not None:
                headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
                stub.log.append({**entry, "status": fault.status, "carried_out": False, "injected": True})
                if fault.raw is not None:
                    return self._reply(fault.status, None, headers, raw=fault.raw)
                return self._reply(fault.status, {"error": {"detail": "injected fault"}}, headers)
            status, answer, headers = stub.handle(method, path, body, self.headers.get("Authorization"))
            stub.log.append({**entry, "status": status, "carried_out": status < 400})
            if fault and fault.kill == "after":
                stub.log[-1]["killed"] = "after"
                stub._kill(fault)
            self._reply(status, answer, headers)

        def _after(self, fault: Fault, method: str, path: str, body: Any, entry: dict) -> None:
            """Carry the call out, then answer late (`delay`) or with the fault's status instead of the real one."""
            status, answer, headers = stub.handle(method, path, body, self.headers.get("Authorization"))
            stub.log.append({**entry, "status": fault.status or status, "carried_out": status < 400, "injected": True})
            if fault.delay:
                time.sleep(fault.delay)
            if fault.status is not None:
                return self._reply(fault.status, {"error": {"detail": "injected fault after the work"}}, {})
            return self._reply(status, answer, headers)

        def _reply(self, status: int, answer: Any, headers: dict, raw: str | None = None) -> None:
            data = raw.encode() if raw is not None else (b"" if answer is None else json.dumps(answer).encode())
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client was killed

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve the Prolific API stub (tests, demo).")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--token", default="stub-token")
    args = parser.parse_args()
    stub = ProlificStub(args.token, port=args.port)
    print(stub.url, flush=True)
    try:
        stub._server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
