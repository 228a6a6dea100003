"""A loopback server speaking the part of the Hugging Face Hub's HTTP API that ``snapshot_download`` uses.

One dataset repository at one commit (also reachable as branch ``main``): ``GET /api/datasets/<repo>/revision/<rev>``
(repo info), ``GET /api/datasets/<repo>/tree/<rev>`` (the recursive file listing with git blob ids), and
``HEAD``/``GET /datasets/<repo>/resolve/<rev>/<path>`` (metadata headers, then the bytes, honouring ``Range``).
Unknown revisions and paths answer 404 with the Hub's ``X-Error-Code``. The real ``huggingface_hub`` client
is pointed at it with ``HF_ENDPOINT``.

Faults on demand: ``corrupt`` paths are served with one byte changed (same size, so only a checksum notices);
``cut_once`` paths are cut after that many bytes on their first download (the client resumes with ``Range``).
"""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

__all__ = ["HubServer", "git_blob_id"]


def git_blob_id(data: bytes) -> str:
    """The git object id of a file's bytes (what the Hub lists as ``oid`` for a non-LFS file)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class HubServer:
    """``with HubServer("org/name", folder) as hub:`` then ``HF_ENDPOINT=hub.endpoint``. ``requests`` records
    (method, path, Range header) of every request."""

    def __init__(self, repo_id: str, folder: Path, *, commit: str = "c0ffee" * 6 + "c0de",
                 corrupt: set[str] | None = None, cut_once: dict[str, int] | None = None) -> None:
        self.repo_id, self.commit = repo_id, commit
        self.files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
        self.corrupt = set(corrupt or ())
        self.cut_once = dict(cut_once or {})
        self.requests: list[tuple[str, str, str | None]] = []
        outer = self

        class _H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_HEAD(self) -> None:
                outer._handle(self, head=True)

            def do_GET(self) -> None:
                outer._handle(self, head=False)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _H)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> HubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # ---- requests -----------------------------------------------------------------------------------------
    def _resolve(self, rev: str) -> str | None:
        return self.commit if unquote(rev) in (self.commit, "main") else None

    def _handle(self, h: BaseHTTPRequestHandler, *, head: bool) -> None:
        path = urlsplit(h.path).path
        self.requests.append((h.command, path, h.headers.get("Range")))
        info = f"/api/datasets/{self.repo_id}/revision/"
        tree = f"/api/datasets/{self.repo_id}/tree/"
        resolve = f"/datasets/{self.repo_id}/resolve/"
        if path.startswith(info):
            if self._resolve(path[len(info):]) is None:
                return self._error(h, 404, "RevisionNotFound", f"Invalid rev id: {path[len(info):]}", head)
            body = {"id": self.repo_id, "sha": self.commit, "private": False,
                    "siblings": [{"rfilename": p} for p in self.files]}
            return self._send(h, 200, json.dumps(body).encode(), head)
        if path.startswith(tree):
            if self._resolve(path[len(tree):].split("/", 1)[0]) is None:
                return self._error(h, 404, "RevisionNotFound", "Invalid rev id", head)
            listing = [{"type": "file", "oid": git_blob_id(data), "size": len(data), "path": p}
                       for p, data in self.files.items()]
            return self._send(h, 200, json.dumps(listing).encode(), head)
        if path.startswith(resolve):
            rev, _, name = path[len(resolve):].partition("/")
            name = unquote(name)
            if self._resolve(rev) is None:
                return self._error(h, 404, "RevisionNotFound", "Invalid rev id", head)
            if name not in self.files:
                return self._error(h, 404, "EntryNotFound", f"{name} does not exist", head)
            return self._file(h, name, head)
        return self._error(h, 404, "RepoNotFound", "Repository not found", head)

    def _file(self, h: BaseHTTPRequestHandler, name: str, head: bool) -> None:
        data = self.files[name]
        etag = git_blob_id(data)
        if name in self.corrupt:
            data = bytes([data[0] ^ 0x01]) + data[1:]
        extra = {"X-Repo-Commit": self.commit, "ETag": f'"{etag}"', "Accept-Ranges": "bytes"}
        if head:
            return self._send(h, 200, data, True, extra)
        start = 0
        rng = h.headers.get("Range")
        if rng and rng.startswith("bytes=") and rng[6:].endswith("-"):
            start = int(rng[6:-1])
        body = data[start:]
        status = 206 if start else 200
        if start:
            extra["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
        cut = self.cut_once.pop(name, None)
        if cut is not None:  # promise the whole body, send part of it, and drop the connection
            h.send_response(status)
            for k, v in {**extra, "Content-Length": str(len(body))}.items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(body[:cut])
            h.wfile.flush()
            h.close_connection = True
            h.connection.shutdown(2)
            return
        self._send(h, status, body, False, extra)

    @staticmethod
    def _error(h: BaseHTTPRequestHandler, status: int, code: str, message: str, head: bool) -> None:
        HubServer._send(h, status, json.dumps({"error": message}).encode(), head,
                        {"X-Error-Code": code, "X-Error-Message": message})

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, body: bytes, head: bool,
              headers: dict[str, str] | None = None) -> None:
        h.send_response(status)
        h.send_header("Content-Type", "application/json" if not headers or "ETag" not in headers else "application/octet-stream")
        h.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        if not head:
            h.wfile.write(body)
