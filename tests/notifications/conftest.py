import pytest

from .receiver import Receiver


@pytest.fixture
def receiver(tmp_path, settings):
    server = Receiver(tmp_path)
    settings.NOTIFY_ALLOWED_HOSTS = ["127.0.0.1"]  # the operator's allow-list: this test's receiver only
    settings.NOTIFY_CA_BUNDLE = str(server.cert)
    yield server
    server.close()
