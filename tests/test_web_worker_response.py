"""The web worker's responses (config/web_worker.OneWriteResponse): the bytes gunicorn's own response puts on
the wire, in the same order, with a response's head sent in one write with the first bytes of its body."""

from __future__ import annotations

import pytest
from gunicorn import util
from gunicorn.config import Config
from gunicorn.http import wsgi
from gunicorn.http.parser import RequestParser

from config.web_worker import OneWriteResponse


class Wire:
    """A socket that keeps what each write sent."""

    def __init__(self):
        self.writes: list[bytes] = []

    def sendall(self, data):
        self.writes.append(bytes(data))

    def send(self, data):
        self.writes.append(bytes(data))
        return len(data)

    def sendfile(self, file, offset=0, count=None):
        file.seek(offset)
        self.writes.append(file.read(count))

    def getsockname(self):
        return ("127.0.0.1", 8000)


def _serve(response_class, request: bytes, status: str, headers: list, body: list[bytes], *, file=None):
    cfg = Config()
    req = next(RequestParser(cfg, iter([request]), ("127.0.0.1", 5000)))
    wire = Wire()
    resp, environ = wsgi.create(req, wire, ("127.0.0.1", 5000), ("127.0.0.1", 8000), cfg, response_class)
    resp.start_response(status, headers)
    if file is not None:
        resp.write_file(wsgi.FileWrapper(file))
    for chunk in body:
        resp.write(chunk)
    resp.close()
    return wire.writes


GET = b"GET /api/v1/validate/ HTTP/1.1\r\nHost: x\r\n\r\n"
HEAD = b"HEAD /api/v1/validate/ HTTP/1.1\r\nHost: x\r\n\r\n"
JSON = [("Content-Type", "application/json"), ("Content-Length", "12")]
CASES = {
    "a body of a length": (GET, "200 OK", JSON, [b'{"ok": true', b"}"]),
    "HEAD": (HEAD, "200 OK", JSON, [b'{"ok": true}']),
    "304": (GET, "304 Not Modified", [("ETag", '"x"')], [b""]),
    "no body written": (GET, "204 No Content", [], []),
    "chunked": (GET, "200 OK", [("Content-Type", "text/plain")], [b"one", b"", b"two"]),
    "more than the length": (GET, "200 OK", [("Content-Length", "3")], [b"abcdef", b"gh"]),
}


@pytest.fixture(autouse=True)
def _fixed_date(monkeypatch):
    monkeypatch.setattr(util, "http_date", lambda timestamp=None: "Thu, 03 Dec 2026 17:00:00 GMT")


@pytest.mark.parametrize("case", CASES)
def test_the_same_bytes_as_gunicorn_in_the_same_order(case):
    request, status, headers, body = CASES[case]
    assert b"".join(_serve(OneWriteResponse, request, status, headers, body)) == b"".join(
        _serve(wsgi.Response, request, status, headers, body)
    )


def test_the_head_goes_out_with_the_first_body_bytes():
    request, status, headers, body = CASES["a body of a length"]
    writes = _serve(OneWriteResponse, request, status, headers, body)
    assert len(writes) == 2
    assert writes[0].startswith(b"HTTP/1.1 200 OK\r\n") and writes[0].endswith(b'\r\n\r\n{"ok": true')
    assert writes[1] == b"}"


def test_a_head_without_body_bytes_goes_out_alone():
    for case in ("HEAD", "304", "no body written"):
        request, status, headers, body = CASES[case]
        writes = _serve(OneWriteResponse, request, status, headers, body)
        assert len(writes) == 1 and writes[0].endswith(b"\r\n\r\n"), case


@pytest.mark.parametrize("length", [[("Content-Length", "5000")], []])
def test_a_file_sent_with_sendfile_follows_its_head(tmp_path, length):
    """Written as gunicorn writes it: the head, then the file (sendfile), chunked when it has no length."""
    path = tmp_path / "file"
    path.write_bytes(b"x" * 5000)
    with path.open("rb") as ours_file, path.open("rb") as theirs_file:
        ours = _serve(OneWriteResponse, GET, "200 OK", length, [], file=ours_file)
        theirs = _serve(wsgi.Response, GET, "200 OK", length, [], file=theirs_file)
    assert ours == theirs
    assert ours[0].endswith(b"\r\n\r\n") and b"x" * 5000 in ours
