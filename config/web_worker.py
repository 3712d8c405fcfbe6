"""gunicorn's threaded worker, with one change for clients that send requests one after another on a
kept-alive connection (a CI job linting a directory through the API, the Kubernetes API server's admission
calls, a GitOps loop): the thread that has just answered waits a moment on that connection for the next
request and serves it itself.

In gunicorn's ``gthread`` worker every request on a kept-alive connection takes three hand-offs: the answering
thread hands the connection back to the main thread through a pipe, the main thread puts it in its poller, and
when the next request arrives the main thread submits the connection to the thread pool, where an idle thread
wakes up for it. Each hand-off wakes a sleeping thread (on a virtual machine an idle CPU is slow to wake) and
runs Python on the main thread; a lingering thread is woken once, by the request itself.

The thread lingers only while no other connection is waiting for a thread (so that with many clients every
connection is still served in turn, as gthread serves them), for at most ``linger`` seconds, and not while the
worker stops. A client that does not send within that time goes back to the poller as before.

A response's head (status line and headers) goes out in one write with the first bytes of its body
(:class:`OneWriteResponse`): gunicorn writes the two separately, and on a kept-alive connection each write
is a TCP segment the kernel delivers and a wake-up of the client. In a 1-client validate run, a third of
py-spy's samples of the worker were in the write of the head: kernel time, which instruction counts do not
show. One write per response: 3.08 -> 2.07 ``sendto`` calls per validate request (strace -c).

The worker also reads its settings through :class:`SettledConfig`: gunicorn reads a dozen and more per
request (body limits, forwarded-header policy, hooks), each through ``Config.__getattr__``, which a failed
attribute lookup (a formatted ``AttributeError``) reaches first; a worker's settings never change.
"""

from __future__ import annotations

import os
import select

from gunicorn import util
from gunicorn.http import wsgi
from gunicorn.workers.gthread import ThreadWorker

# Long enough for a client that sends its next request as soon as it has read an answer (a loop over files, a
# benchmark), short enough that a thread waiting for a client that has gone quiet is soon free again.
# WEB_LINGER_MS sets it (0: never wait, as gthread).
LINGER_SECONDS = float(os.environ.get("WEB_LINGER_MS", "2")) / 1000


class SettledConfig:
    """A worker's gunicorn ``Config``, each setting kept as a plain attribute once it has been read.

    A worker never changes its settings (a reload starts new workers with new ones), so a value read once
    stands for the worker's life; methods and properties are read through to the ``Config`` the same way."""

    def __init__(self, cfg):
        self._cfg = cfg

    def __getattr__(self, name):  # only for a name not read before
        value = getattr(self._cfg, name)
        self.__dict__[name] = value
        return value


class OneWriteResponse(wsgi.Response):
    """gunicorn's HTTP/1 response, whose head, when the application's first body bytes cause it to be sent
    (``write``), goes out in the same write as those bytes. The head is held only within ``write``: when
    no body bytes go out there (a HEAD request, a 204 or 304, an empty or chunked body), it is sent alone at
    the end of that ``write``, as gunicorn sends it; ``close`` and ``sendfile`` send it as gunicorn does."""

    _hold_head = False
    _head = b""

    def write(self, arg):
        self._hold_head = True
        try:
            super().write(arg)
        finally:
            self._hold_head = False
            self._send_head()

    def send_headers(self):
        if not self._hold_head or self.headers_sent:
            return super().send_headers()
        # gunicorn's head, kept for _emit_body instead of written
        tosend = self.default_headers()
        tosend.extend([f"{k}: {v}\r\n" for k, v in self.headers])
        self._head = util.to_bytestring("".join(tosend) + "\r\n", "latin-1")
        self.headers_sent = True

    def _emit_body(self, data):
        head, self._head = self._head, b""
        if head and not self.chunked:
            util.write(self.sock, head + data)
            return
        if head:
            util.write(self.sock, head)
        super()._emit_body(data)

    def _send_head(self):
        head, self._head = self._head, b""
        if head:
            util.write(self.sock, head)


class LingeringThreadWorker(ThreadWorker):
    """``gthread`` whose threads serve a kept-alive connection's next request if it comes at once."""

    linger = LINGER_SECONDS

    def init_process(self):
        self.cfg = SettledConfig(self.cfg)
        # gthread makes each HTTP/1 response with wsgi.create(), which takes the module's Response when not
        # given a class (HTTP/2 passes its own): this worker process's responses are OneWriteResponse.
        wsgi.Response = OneWriteResponse
        super().init_process()

    def handle(self, conn):
        keep = super().handle(conn)
        while keep is True and self.linger > 0 and self.alive and self._no_connection_waiting():
            if not (self._buffered(conn) or self._readable_within(conn, self.linger)):
                break
            keep = super().handle(conn)
        return keep

    def _no_connection_waiting(self) -> bool:
        # Connections the main thread has submitted and no thread has taken yet.
        return self.tpool._work_queue.empty()

    @staticmethod
    def _buffered(conn) -> bool:
        """The client has sent its next request already and the parser has read it ahead (pipelining)."""
        return bool(conn.parser.unreader.buf.getvalue())

    @staticmethod
    def _readable_within(conn, seconds: float) -> bool:
        poller = select.poll()
        poller.register(conn.sock, select.POLLIN)
        return bool(poller.poll(seconds * 1000))
