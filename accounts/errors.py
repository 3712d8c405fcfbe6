"""DomainError: what a user caused and can fix, naming the field; the API turns it into a 400 (403 for
``code="permission"``, 409 for ``code="conflict"``). Re-exported by ``validation.errors``."""

from __future__ import annotations


class DomainError(Exception):
    """An error a user caused and can fix; the API turns it into a 400 naming ``field``."""

    def __init__(self, message: str, *, field: str | None = None, code: str = "invalid"):
        self.message = message
        self.field = field
        self.code = code
        super().__init__(message)
