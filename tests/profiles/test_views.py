"""The dashboard's pages through Django's test client: content, actions, and query counts (N+1 guards)."""

import pytest
from django.test import Client
from django.urls import reverse

from profiles.models import Profile, Waiver
from profiles.services import ProfileInput, profile_create, profile_update
from tests.conftest import SEED_COMMAND

pytestmark = pytest.mark.django_db

PLAIN = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192"


@pytest.fixture
def client_user(client, user, team):
    client.force_login(user)
    return client


@pytest.fixture
def client_staff(client, staff, team):
    client.force_login(staff)
    return client


def make(actor, team, name="chat", command=PLAIN, kind="serving", version="0.32.0"):
    data = ProfileInput.from_mapping(
        {"name": name, "kind": kind, "vllm_version": version, "command": command}
    )
    return profile_create(actor=actor, team=team, data=data)[0]


@pytest.fixture
def mixed(user, team):
    return make(user, team, name="teacher", command=SEED_COMMAND, kind="collection")


def test_pages_need_login(client):
    response = client.get("/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_login_page_and_header(client, user, team):
    assert client.get("/accounts/login/").status_code == 200
    response = client.post("/accounts/login/", {"username": "ada", "password": "pw"}, follow=True)
    body = response.content.decode()
    assert "ada" in body and "ml-platform" in body and "fleet vLLM" in body
    for link in ("/rulesets/", "/releases/", "/alerts/", "/static/vendor/htmx-2.0.11.min.js"):
        assert link in body


def test_htmx_is_served_by_the_app(client):
    response = client.get("/static/vendor/htmx-2.0.11.min.js")
    assert response.status_code == 200
    assert b"htmx" in b"".join(response.streaming_content)


def test_list_shows_profiles_with_state_and_filters(client_user, user, team, mixed):
    make(user, team, name="chat")
    body = client_user.get("/").content.decode()
    assert "teacher" in body and "chat" in body and "ml-platform/" in body
    assert "?state=invalid" in body  # summary strip links to the filtered list
    body = client_user.get("/", {"kind": "collection"}).content.decode()
    assert "teacher" in body and ">chat<" not in body
    body = client_user.get("/", {"q": "chat"}).content.decode()
    assert ">chat<" in body and "teacher" not in body


def test_list_filters_by_rule_and_release(client_user, user, team, mixed):
    make(user, team, name="chat", version="")
    rule = mixed.verdict.rule_ids[0] if mixed.verdict.rule_ids else None
    if rule:
        body = client_user.get("/", {"rule": rule}).content.decode()
        assert "teacher" in body and ">chat<" not in body
    body = client_user.get("/", {"release": "fleet"}).content.decode()
    assert ">chat<" in body and "teacher" not in body


def test_list_htmx_returns_the_results_fragment(client_user, mixed):
    response = client_user.get("/", {"q": "teach"}, headers={"HX-Request": "true"})
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="results"') and "<html" not in body


def test_list_pagination_without_count_query(client_user, user, team):
    for i in range(30):
        make(user, team, name=f"p{i:02d}")
    body = client_user.get("/", {"size": 25}).content.decode()
    assert "page 1 of 2" in body and "p24" in body and "p25" not in body
    body = client_user.get("/", {"size": 25, "page": 2}).content.decode()
    assert "p25" in body and "26–30 of 30" in body


def test_list_keeps_the_profiles_a_user_owns_in_a_team_they_left(client, user, staff, team):
    """Owners see their profiles in teams they no longer belong to: listed, counted and searchable."""
    from profiles.models import TeamMembership
    from profiles.services import team_add_member, team_create

    research = team_create(actor=staff, slug="research", name="Research")
    team_add_member(actor=staff, team=research, user=user, role=TeamMembership.Role.EDITOR)
    make(user, research, name="left-behind")
    make(user, team, name="chat")
    TeamMembership.objects.filter(team=research, user=user).delete()
    client.force_login(user)
    body = client.get("/").content.decode()
    assert "research/</span>left-behind" in body and "ml-platform/</span>chat" in body
    assert "1–2 of 2" in body
    body = client.get("/", {"q": "left"}).content.decode()
    assert "left-behind" in body and ">chat<" not in body and "1–1 of 1" in body


def _listed_names(body: str) -> list[str]:
    import re

    return re.findall(r'<span class="muted">[^<]*/</span>([^<]+)</a>', body)


def test_list_pages_are_the_same_whichever_way_the_page_is_found(client_user, user, team, monkeypatch):
    """A page of a few matches is cut from the matches sorted; of many, by walking the ordering's index:
    both give the same profiles in the same order, page after page, in every sort order."""
    from profiles import selectors

    for i in range(28):
        make(user, team, name=f"p{(i * 11) % 28:02d}", command=SEED_COMMAND if i % 3 else PLAIN, version="")
    make(user, team, name="other")

    def pages(sort):
        query = {"q": "p", "sort": sort, "size": 25}
        return [_listed_names(client_user.get("/", {**query, "page": n}).content.decode()) for n in (1, 2)]

    sorts = ["team", "name", "-updated", "updated", "-errors"]
    sorted_matches = {sort: pages(sort) for sort in sorts}
    monkeypatch.setattr(selectors, "SORT_MATCHES_UP_TO", -1)
    walked = {sort: pages(sort) for sort in sorts}
    assert sorted_matches == walked
    assert walked["name"] == [[f"p{i:02d}" for i in range(25)], [f"p{i:02d}" for i in range(25, 28)]]
    assert sorted(sum(walked["-errors"], [])) == [f"p{i:02d}" for i in range(28)]


def test_outsider_sees_nothing(client, outsider, mixed):
    client.force_login(outsider)
    assert "teacher" not in client.get("/").content.decode()
    assert client.get(reverse("profiles:detail", args=[mixed.pk])).status_code == 404


def test_detail_shows_arguments_command_findings_and_history(client_user, user, mixed):
    profile_update(
        actor=user,
        profile=mixed,
        data=ProfileInput.from_mapping({"command": SEED_COMMAND + " --max-model-len 4096"}),
    )
    body = client_user.get(reverse("profiles:detail", args=[mixed.pk])).content.decode()
    assert "--return-sampling-mask" in body and "vllm serve" in body and "Copy command" in body
    assert "History of states" in body and "Revision 2" in body and "args.max_model_len" in body
    assert "Split into serving + collection" in body


def test_live_validation_renders_findings_without_saving(client_user):
    response = client_user.post(
        reverse("profiles:validate"),
        {"kind": "collection", "vllm_version": "0.31.0", "name": "x", "source": SEED_COMMAND},
    )
    body = response.content.decode()
    assert "sampling distribution replay does not support speculative decoding" in body
    assert 'data-state="invalid"' in body and 'data-arg="speculative_config"' in body
    assert not Profile.objects.exists()


def test_live_validation_reports_parse_errors(client_user):
    body = client_user.post(reverse("profiles:validate"), {"source": "vllm serve m --tensor-parallel-size"})
    assert "cannot parse" in body.content.decode()


def test_create_by_pasting_a_command(client_user, team):
    response = client_user.post(
        reverse("profiles:create"),
        {"team": team.slug, "name": "chat", "kind": "serving", "vllm_version": "0.32.0", "source": PLAIN},
    )
    profile = Profile.objects.get(name="chat")
    assert response.status_code == 302 and response["Location"] == reverse(
        "profiles:detail", args=[profile.pk]
    )
    assert profile.engine_args == {"max_model_len": 8192}


def test_create_from_yaml(client_user, team):
    yaml = "model: meta-llama/Llama-3.1-8B-Instruct\nmax_model_len: 4096\n"
    client_user.post(
        reverse("profiles:create"), {"team": team.slug, "name": "y", "kind": "serving", "source": yaml}
    )
    assert Profile.objects.get(name="y").engine_args == {"max_model_len": 4096}


def test_create_refused_with_findings_and_nothing_saved(client_user, team):
    response = client_user.post(
        reverse("profiles:create"),
        {
            "team": team.slug,
            "name": "t",
            "kind": "collection",
            "vllm_version": "0.31.0",
            "source": SEED_COMMAND,
        },
    )
    body = response.content.decode()
    assert response.status_code == 200 and "Not saved" in body
    assert "sampling distribution replay does not support speculative decoding" in body
    assert not Profile.objects.exists()


def test_edit_conflict_is_shown_not_overwritten(client_user, user, staff, team):
    profile = make(user, team)
    form = {"name": "chat", "kind": "serving", "vllm_version": "0.32.0", "revision": 1}
    profile_update(
        actor=staff,
        profile=Profile.objects.get(pk=profile.pk),
        data=ProfileInput.from_mapping({"command": PLAIN.replace("8192", "2048")}),
    )
    response = client_user.post(
        reverse("profiles:edit", args=[profile.pk]), {**form, "source": PLAIN.replace("8192", "1024")}
    )
    body = response.content.decode()
    assert response.status_code == 200 and "Someone else changed this profile" in body and "sam" in body
    assert Profile.objects.get(pk=profile.pk).engine_args == {"max_model_len": 2048}
    assert 'name="revision" value="2"' in body  # a second save is a deliberate overwrite of revision 2


def test_edit_saves_a_revision(client_user, user, team):
    profile = make(user, team)
    form = {"name": "chat", "kind": "serving", "vllm_version": "0.32.0", "revision": 1}
    response = client_user.post(
        reverse("profiles:edit", args=[profile.pk]), {**form, "source": PLAIN.replace("8192", "1024")}
    )
    assert response.status_code == 302
    profile.refresh_from_db()
    assert profile.revision == 2 and profile.engine_args == {"max_model_len": 1024}


def test_split_creates_both_profiles(client_user, mixed):
    page = client_user.get(reverse("profiles:split", args=[mixed.pk])).content.decode()
    assert "teacher-serving" in page and "teacher-collection" in page
    response = client_user.post(reverse("profiles:split", args=[mixed.pk]))
    assert response.status_code == 302
    serving = Profile.objects.get(name="teacher-serving")
    collection = Profile.objects.get(name="teacher-collection")
    assert "return_sampling_mask" not in serving.engine_args and "speculative_config" in serving.engine_args
    assert collection.engine_args["return_sampling_mask"] is True
    assert collection.engine_args["logprobs_mode"] == "processed_logprobs"
    assert "speculative_config" not in collection.engine_args
    assert serving.env == collection.env == {"VLLM_USE_V2_MODEL_RUNNER": "1"}


def test_split_saves_nothing_when_either_part_is_invalid(client_user, mixed, monkeypatch):
    make(mixed.owner, mixed.team, name="teacher-collection")  # the name is taken: the second create fails
    response = client_user.post(reverse("profiles:split", args=[mixed.pk]))
    assert response.status_code == 200
    assert not Profile.objects.filter(name="teacher-serving").exists()


def test_waiver_requested_by_an_editor_is_approved_by_a_team_admin_on_the_page(user, staff, mixed):
    editor, admin = Client(), Client()
    editor.force_login(user)
    admin.force_login(staff)
    rule = next(f["rule"] for f in mixed.verdict.findings if f["severity"] != "info")
    response = editor.post(
        reverse("profiles:waiver-create", args=[mixed.pk]),
        {"rule_id": rule, "reason": "accepted risk", "expires_at": "2099-01-01"},
    )
    waiver = Waiver.objects.get(profile=mixed, rule_id=rule)
    assert response.status_code == 302 and waiver.pending and waiver.requested_by == user
    # the requester sees no approve button and cannot approve by posting
    page = editor.get(reverse("profiles:detail", args=[mixed.pk])).content.decode()
    assert "pending approval" in page and "Approve</button>" not in page
    denied = editor.post(reverse("profiles:waiver-decide", args=[mixed.pk, waiver.pk, "approve"]))
    assert denied.status_code == 403
    assert Waiver.objects.get(pk=waiver.pk).pending
    # staff (admin of the team, not the requester) sees the button and approves
    assert "Approve</button>" in admin.get(reverse("profiles:detail", args=[mixed.pk])).content.decode()
    admin.post(reverse("profiles:waiver-decide", args=[mixed.pk, waiver.pk, "approve"]))
    waiver.refresh_from_db()
    assert not waiver.pending and waiver.granted_by == staff


def test_requester_cannot_approve_their_own_waiver_even_as_staff(client_staff, mixed):
    rule = next(f["rule"] for f in mixed.verdict.findings if f["severity"] != "info")
    client_staff.post(
        reverse("profiles:waiver-create", args=[mixed.pk]),
        {"rule_id": rule, "reason": "mine", "expires_at": "2099-01-01"},
    )
    waiver = Waiver.objects.get(profile=mixed)
    response = client_staff.post(reverse("profiles:waiver-decide", args=[mixed.pk, waiver.pk, "approve"]))
    assert response.status_code == 403 and Waiver.objects.get(pk=waiver.pk).pending


# --- query counts: a page's queries must not grow with the number of rows ---------------------------------


@pytest.fixture
def many(user, team):
    for i in range(12):
        make(user, team, name=f"bulk-{i:02d}")


def test_list_query_count(client_user, many, django_assert_max_num_queries):
    with django_assert_max_num_queries(12):
        assert client_user.get("/").status_code == 200
    with django_assert_max_num_queries(12):
        assert client_user.get("/", {"state": "valid", "q": "bulk", "rule": "x"}).status_code == 200


def test_detail_query_count(client_user, user, mixed, django_assert_max_num_queries):
    for n in range(5):
        profile_update(
            actor=user,
            profile=Profile.objects.get(pk=mixed.pk),
            data=ProfileInput.from_mapping({"command": SEED_COMMAND + f" --max-model-len {4096 + n}"}),
        )
    with django_assert_max_num_queries(20):
        assert client_user.get(reverse("profiles:detail", args=[mixed.pk])).status_code == 200


def test_form_pages_query_count(client_user, mixed, django_assert_max_num_queries):
    with django_assert_max_num_queries(15):
        assert client_user.get(reverse("profiles:create")).status_code == 200
    with django_assert_max_num_queries(20):
        assert client_user.get(reverse("profiles:edit", args=[mixed.pk])).status_code == 200
    with django_assert_max_num_queries(15):
        client_user.post(reverse("profiles:validate"), {"kind": "serving", "source": PLAIN})
    with django_assert_max_num_queries(20):
        assert client_user.get(reverse("profiles:split", args=[mixed.pk])).status_code == 200


# --- fixes and profiles that turn invalid ------------------------------------------------------------------


@pytest.fixture
def turned_invalid(user, staff, team):
    """A mixed profile following the fleet on 0.32.0, then the fleet moves back to 0.31.0 (which refuses it)."""
    from profiles.services.rechecks import recheck_run_inline
    from validation.selectors import release_get
    from validation.services.fleet import fleet_set_release

    fleet_set_release(release=release_get("0.32.0"), actor=staff)
    profile = make(user, team, name="teacher", command=SEED_COMMAND, kind="collection", version="")
    recheck = fleet_set_release(release=release_get("0.31.0"), actor=staff)
    recheck_run_inline(recheck.pk)
    return Profile.objects.get(pk=profile.pk)


def test_profile_turned_invalid_shows_fix_and_applies_it(client_user, turned_invalid):
    assert turned_invalid.verdict.state == "invalid"
    url = reverse("profiles:detail", args=[turned_invalid.pk])
    body = client_user.get(url).content.decode()
    fix_url = reverse("profiles:fix", args=[turned_invalid.pk, "sampling-replay-no-speculative"])
    assert fix_url in body and "vLLM release changed" in body
    preview = client_user.get(fix_url).content.decode()
    assert "speculative_config" in preview and "removed" in preview
    response = client_user.post(fix_url, {"revision": turned_invalid.revision})
    assert response.status_code == 302
    turned_invalid.refresh_from_db()
    assert "speculative_config" not in turned_invalid.engine_args and turned_invalid.revision == 2
    assert turned_invalid.verdict.state != "invalid"


def test_a_lone_word_is_refused_as_a_command_with_an_explanation(client_user, team):
    for word in ("hello", "42"):
        response = client_user.post(
            reverse("profiles:create"),
            {"team": team.slug, "name": "lone", "kind": "serving", "vllm_version": "0.32.0", "source": word},
        )
        body = response.content.decode()
        assert response.status_code == 200 and "Not saved" not in body  # the form again, with the error
        assert f"not a vLLM command line: &#x27;{word}&#x27; is not `vllm serve`" in body
    assert not Profile.objects.filter(name="lone").exists()


def test_live_validation_warns_of_a_repeated_flag_naming_both_positions(client_user):
    body = client_user.post(
        reverse("profiles:validate"),
        {
            "kind": "serving",
            "name": "x",
            "vllm_version": "0.32.0",
            "source": "vllm serve m --max-num-seqs 8 --max-num-seqs 16",
        },
    ).content.decode()
    assert "max_num_seqs is given more than once (token 3 &#x27;--max-num-seqs&#x27; and token 5" in body


def test_unverifiable_infos_are_folded_away_unless_asked(client_user):
    """A Llama profile without its config.json: "could not verify ... diffusion models" is noise; it stays
    in the page, folded in a closed <details>, while errors and other infos show."""
    body = client_user.post(
        reverse("profiles:validate"),
        {
            "kind": "collection",
            "name": "x",
            "vllm_version": "0.32.0",
            "source": "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve meta-llama/Llama-3.1-8B-Instruct --return-sampling-mask",
        },
    ).content.decode()
    folded = body[body.index('<details class="unverifiable">') :]
    assert "could not verify: sampling distribution replay does not support diffusion models" in folded
    shown = body[: body.index('<details class="unverifiable">')]
    assert "could not verify" not in shown.split('class="findings-group')[-1]
