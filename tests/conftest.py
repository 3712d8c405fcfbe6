import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from profiles.models import TeamMembership
from profiles.services import team_add_member, team_create

SEED_COMMAND = (
    "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve meta-llama/Llama-3.1-8B-Instruct --return-sampling-mask "
    "--logprobs-mode processed_logprobs "
    '--speculative-config \'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}\''
)
SEED_MESSAGE_031 = "sampling distribution replay does not support speculative decoding"
MRV2_MESSAGE = "sampling distribution replay requires Model Runner V2"


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
    team_add_member(actor=staff, team=team, user=user, role=TeamMembership.Role.MEMBER)
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
