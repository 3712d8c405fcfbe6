import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from profiles.models import TeamMembership
from profiles.services import team_add_member, team_create
from tests import vllm_sources
from vllmcheck import modelhub

# In CI a skipped test fails the run unless tests/allowed_skips.txt lists it with a reason; pytester tests that.
pytest_plugins = ["tests.skip_policy", "pytester"]

SEED_COMMAND = (
    "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve meta-llama/Llama-3.1-8B-Instruct --return-sampling-mask "
    "--logprobs-mode processed_logprobs "
    '--speculative-config \'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}\''
)
SEED_MESSAGE_031 = "sampling distribution replay does not support speculative decoding"
MRV2_MESSAGE = "sampling distribution replay requires Model Runner V2"


@pytest.fixture(scope="session")
def _empty_hf_home(tmp_path_factory):
    return tmp_path_factory.mktemp("hf-home")


@pytest.fixture(autouse=True)
def _offline_hugging_face(monkeypatch, _empty_hf_home):
    """No test reaches the real Hugging Face Hub: offline, with an empty cache unless the test builds one."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(_empty_hf_home))
    for name in ("HF_HUB_CACHE", "HF_ENDPOINT", "HF_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    modelhub.forget_unreachable()  # a Hub one test made unreachable is asked again by the next


@pytest.fixture
def staff(db):
    return get_user_model().objects.create_user("sam", "sam@example.com", "pw", is_staff=True)


@pytest.fixture
def user(db):
    return get_user_model().objects.create_user("ada", "ada@example.com", "pw")


@pytest.fixture
def outsider(db):
    return get_user_model().objects.create_user("eve", "eve@example.com", "pw")


@pytest.fixture
def team(staff, user):
    team = team_create(actor=staff, slug="ml-platform", name="ML platform")
    team_add_member(actor=staff, team=team, user=user, role=TeamMembership.Role.EDITOR)
    return team


@pytest.fixture
def api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def staff_api(staff):
    client = APIClient()
    client.force_authenticate(staff)
    return client


# ---- vLLM's release sources (tests/vllm_sources.py: pip download into a cache keyed by version, once)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "vllm_sources: reads vLLM's release wheels (fetched with pip on first use)"
    )


def pytest_collection_modifyitems(items):
    for item in items:
        if {"vllm_release_sources", "vllm_wheel"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.vllm_sources)


@pytest.fixture(scope="session")
def vllm_release_sources() -> dict:
    """``{release: directory holding its vllm/ package}`` for every release with a shipped catalog."""
    return vllm_sources.sources(vllm_sources.RELEASES)


@pytest.fixture(scope="session")
def vllm_wheel():
    """``vllm_wheel("0.33.0")``: the path of that release's wheel."""
    return vllm_sources.wheel


# ---- a real HTTPS Git server on the loopback (tests/gitserver.py), trusted through GIT_SSL_CA_INFO


@pytest.fixture(scope="session")
def git_tls(tmp_path_factory):
    from tests.gitserver import make_certificate

    return make_certificate(tmp_path_factory.mktemp("git-tls"))


@pytest.fixture
def git_server(tmp_path, git_tls, settings, monkeypatch):
    """Serves the repositories under ``tmp_path`` over https (``git_server.url("deployments")``) and records
    every request; the product trusts its certificate (the setting, and the environment for worker processes)."""
    from tests.gitserver import start

    cert, key = git_tls
    server, httpd = start(tmp_path, cert, key)
    settings.GIT_SSL_CA_INFO = str(cert)
    monkeypatch.setenv("GIT_SSL_CA_INFO", str(cert))
    yield server
    httpd.shutdown()
    httpd.server_close()


# ---- a real OpenID Connect provider (tests/oidc_provider.py): one node process per session


@pytest.fixture(scope="session")
def oidc_provider(tmp_path_factory):
    from tests.oidc_provider import Provider

    provider = Provider(tmp_path_factory.mktemp("oidc"))
    yield provider
    provider.stop()


@pytest.fixture
def sso(oidc_provider, settings):
    """Single sign-on configured against the session's provider; no user at the provider until the test adds
    them (``sso.set_users``)."""
    oidc_provider.set_users({})
    for name, value in oidc_provider.settings().items():
        setattr(settings, name, value)
    return oidc_provider
