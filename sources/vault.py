"""Git credentials at rest: encrypted with Fernet (the ``cryptography`` library) under a key that is never in
the database: ``GIT_CREDENTIALS_KEY`` (one or more keys, comma separated: the first encrypts, all decrypt),
else a key file made once with mode 0600 (``GIT_CREDENTIALS_KEY_FILE``, default ``var/secrets/``).

A database dump alone therefore reveals no token; the key file or variable is what an operator backs up and
protects separately (docs/security.md).
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings


class VaultError(RuntimeError):
    pass


def _key_file(path: Path) -> bytes:
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:  # O_EXCL: two processes starting at once agree on one key
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "wb") as out:
                out.write(Fernet.generate_key())
    return path.read_bytes().strip()


@cache
def _fernet(keys: str, key_file: str) -> MultiFernet:
    raw = [k.strip().encode() for k in keys.split(",") if k.strip()] or [_key_file(Path(key_file))]
    try:
        return MultiFernet([Fernet(k) for k in raw])
    except ValueError as exc:
        raise VaultError(
            "GIT_CREDENTIALS_KEY is not a Fernet key (32 url-safe base64-encoded bytes)"
        ) from exc


def _current() -> MultiFernet:
    return _fernet(settings.GIT_CREDENTIALS_KEY, settings.GIT_CREDENTIALS_KEY_FILE)


def encrypt(secret: str) -> str:
    return _current().encrypt(secret.encode()).decode()


def decrypt(token: str) -> str:
    try:
        return _current().decrypt(token.encode()).decode()
    except InvalidToken as exc:
        raise VaultError(
            "the credential cannot be decrypted with this GIT_CREDENTIALS_KEY (was the key changed?)"
        ) from exc
