"""Re-checks, history and alerts through the services, run inline on PostgreSQL (no worker needed here;
tests/tasks/ runs the same pipeline with a real Celery worker on Redis)."""

import smtplib
import socket
from datetime import timedelta

import pytest
from aiosmtpd.controller import Controller
from django.utils import timezone

from profiles.models import Alert, Profile, Recheck, TeamMembership, Verdict, VerdictChange, Waiver
from profiles.services import ProfileInput, alerts, profile_create, team_add_member
from profiles.services.rechecks import (
    lagging_verdicts,
    recheck_batch,
    recheck_run_inline,
    recheck_start,
    sweep,
)
from tests.conftest import SEED_COMMAND, SEED_MESSAGE_031
from validation.selectors import release_get
from validation.services import rulesets
from validation.services.fleet import fleet_set_release

pytestmark = pytest.mark.django_db


@pytest.fixture
def fleet_032(staff):
    fleet_set_release(release=release_get("0.32.0"), actor=staff)
    Recheck.objects.all().delete()


def make(user, team, name, command=SEED_COMMAND, kind="collection", version=""):
    profile, _ = profile_create(
        actor=user,
        team=team,
        data=ProfileInput.from_mapping(
            {"name": name, "kind": kind, "command": command, "vllm_version": version}
        ),
    )
    return profile


def move_fleet(version, staff):
    recheck = fleet_set_release(release=release_get(version), actor=staff)
    recheck_run_inline(recheck.pk)
    recheck.refresh_from_db()
    return recheck


def test_seed_scenario_fleet_moves_make_profile_invalid_then_valid_with_history_and_one_alert(
    user, staff, team, fleet_032, mailoutbox
):
    profile = make(user, team, "teacher")
    assert profile.verdict.state in ("valid", "warning")

    recheck = move_fleet("0.31.0", staff)
    assert (recheck.state, recheck.total, recheck.done, recheck.newly_invalid) == ("done", 1, 1, 1)
    verdict = Verdict.objects.get(profile=profile)
    assert verdict.state == "invalid" and verdict.release.version == "0.31.0"
    assert SEED_MESSAGE_031 in [f["message"] for f in verdict.findings]

    # The owner and the team's watcher (staff created the team) each get one digest.
    assert alerts.pending_recipients(recheck.pk) == sorted([user.pk, staff.pk])
    for recipient_id in alerts.pending_recipients(recheck.pk):
        assert alerts.alerts_send_digest(recipient_id=recipient_id, recheck_id=recheck.pk) == 1
    assert sorted(m.to[0] for m in mailoutbox) == sorted([user.email, staff.email])
    mail = next(m for m in mailoutbox if m.to == [user.email])
    assert "teacher" in mail.subject
    assert SEED_MESSAGE_031 in mail.body and f"/profiles/{profile.pk}/" in mail.body
    html = mail.alternatives[0][0]
    assert SEED_MESSAGE_031 in html
    # A retried or redelivered send finds nothing left to send.
    assert alerts.alerts_send_digest(recipient_id=user.pk, recheck_id=recheck.pk) == 0

    back = move_fleet("0.32.0", staff)
    assert back.newly_valid == 1 and back.newly_invalid == 0
    assert Verdict.objects.get(profile=profile).state in ("valid", "warning")
    assert alerts.pending_digests() == []
    assert len(mailoutbox) == 2

    history = list(VerdictChange.objects.filter(profile=profile).order_by("created_at", "id"))
    assert [(h.cause, h.to_state) for h in history][1:] == [
        ("release", "invalid"),
        ("release", history[2].to_state),
    ]
    assert (
        history[1].cause_detail == "vLLM release 0.31.0" and history[2].cause_detail == "vLLM release 0.32.0"
    )
    assert SEED_MESSAGE_031 in [f["message"] for f in history[1].appeared]
    assert SEED_MESSAGE_031 in [f["message"] for f in history[2].disappeared]


def test_one_digest_lists_every_profile_that_broke_in_a_constant_number_of_queries(
    user, staff, team, fleet_032, mailoutbox
):
    """A re-check that breaks many of one owner's profiles mails one digest listing them all, read in the same
    few queries whatever their number (a digest of a thousand is built from a thousand alerts)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def digest_queries(names):
        profiles = [make(user, team, name) for name in names]
        recheck = move_fleet("0.31.0", staff)
        with CaptureQueriesContext(connection) as queries:
            assert alerts.alerts_send_digest(recipient_id=user.pk, recheck_id=recheck.pk) == len(names)
        mail = mailoutbox[-1]
        for profile in profiles:
            assert f"{team.slug}/{profile.name}" in mail.body and f"/profiles/{profile.pk}/" in mail.body
            assert f"{team.slug}/{profile.name}" in mail.alternatives[0][0]
        assert mail.body.count(SEED_MESSAGE_031) == len(names)
        assert "vLLM release 0.31.0" in mail.body and "collection" in mail.body
        move_fleet("0.32.0", staff)
        Profile.objects.all().delete()
        return len(queries)

    one = digest_queries(["teacher"])
    assert mailoutbox[-1].subject.endswith(f"{team.slug}/teacher became invalid")
    assert digest_queries(["teacher-a", "teacher-b", "teacher-c"]) == one
    assert mailoutbox[-1].subject.endswith("3 profiles became invalid")


def test_pinned_profiles_do_not_move_with_the_fleet(user, staff, team, fleet_032):
    pinned = make(user, team, "pinned", version="0.32.0")
    recheck = move_fleet("0.31.0", staff)
    assert recheck.total == 0
    assert Verdict.objects.get(profile=pinned).release.version == "0.32.0"


def test_a_repeated_batch_changes_nothing_twice(user, staff, team, fleet_032):
    profile = make(user, team, "teacher")
    recheck = fleet_set_release(release=release_get("0.31.0"), actor=staff)
    first = recheck_batch(recheck.pk, [profile.pk])
    second = recheck_batch(recheck.pk, [profile.pk])
    assert (first.checked, first.newly_invalid) == (1, 1)
    assert (second.checked, second.newly_invalid) == (0, 0)
    recheck.refresh_from_db()
    assert (recheck.done, recheck.newly_invalid, recheck.state) == (1, 1, "done")
    assert VerdictChange.objects.filter(profile=profile, cause="release").count() == 1
    # One alert per recipient (the owner and the team's watcher), not one per batch run.
    assert sorted(Alert.objects.filter(profile=profile).values_list("recipient__username", flat=True)) == [
        "ada",
        "sam",
    ]


def test_owner_and_watchers_get_alerts_unless_they_turned_them_off(user, staff, team, fleet_032, outsider):
    team_add_member(actor=staff, team=team, user=outsider, role=TeamMembership.Role.VIEWER, watch=True)
    alerts.alert_preference_set(user=outsider, email_alerts=False)
    make(user, team, "teacher")
    recheck = move_fleet("0.31.0", staff)
    states = dict(Alert.objects.filter(recheck=recheck).values_list("recipient__username", "state"))
    # staff created the team (admin, watching), the owner, and a watcher who turned alerts off.
    assert states == {"ada": "pending", "sam": "pending", "eve": "suppressed"}


def test_an_unreachable_smtp_server_keeps_alerts_pending_however_many_attempts(
    user, staff, team, fleet_032, settings
):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 1, 1
    make(user, team, "teacher")
    recheck = move_fleet("0.31.0", staff)
    for attempt in range(1, alerts.MAX_ATTEMPTS + 3):
        with pytest.raises(OSError):
            alerts.alerts_send_digest(recipient_id=user.pk, recheck_id=recheck.pk)
        alert = Alert.objects.get(recipient=user)
        assert (alert.attempts, alert.state) == (attempt, "pending")
    assert "Connection refused" in alert.last_error or "Errno" in alert.last_error


class RefusesRecipients:
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        return "550 5.1.1 no such mailbox"


def test_a_server_refusing_the_recipient_marks_alerts_failed_after_the_last_attempt(
    user, staff, team, fleet_032, settings
):
    with socket.socket() as probe:  # a free port (aiosmtpd's readiness check cannot use port 0)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(RefusesRecipients(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
        make(user, team, "teacher")
        recheck = move_fleet("0.31.0", staff)
        for attempt in range(1, alerts.MAX_ATTEMPTS + 1):
            with pytest.raises(smtplib.SMTPRecipientsRefused):
                alerts.alerts_send_digest(recipient_id=user.pk, recheck_id=recheck.pk)
            alert = Alert.objects.get(recipient=user)
            assert alert.attempts == attempt and "no such mailbox" in alert.last_error
    finally:
        controller.stop()
    assert alert.state == "failed"


def test_publishing_a_rule_set_rechecks_and_breaks_exactly_the_matching_profiles(
    user, staff, team, fleet_032
):
    for i in range(20):
        make(user, team, f"plain-{i}", command=f"vllm serve org/model-{i}", kind="serving")
    for i in range(3):
        make(user, team, f"eager-{i}", command="vllm serve org/big --enforce-eager", kind="serving")
    draft = rulesets.ruleset_draft_create(actor=staff)
    rulesets.rule_save(
        ruleset=draft,
        data={
            "id": "org-no-enforce-eager",
            "category": "policy",
            "severity": "error",
            "message": "production profiles must not disable CUDA graphs (--enforce-eager)",
            "when": "has(args.enforce_eager) && args.enforce_eager == true",
        },
    )
    recheck = rulesets.ruleset_publish(ruleset=draft, actor=staff)
    recheck_run_inline(recheck.pk)
    recheck.refresh_from_db()
    assert (recheck.total, recheck.done, recheck.newly_invalid) == (23, 23, 3)
    invalid = set(Verdict.objects.filter(state="invalid").values_list("profile__name", flat=True))
    assert invalid == {"eager-0", "eager-1", "eager-2"}
    assert set(Alert.objects.values_list("profile__name", flat=True)) == invalid
    # Every verdict now records the new rule set, so the sweep finds nothing lagging.
    assert not lagging_verdicts().exists()
    assert sweep()["lagging"] == 0


def _verdict_row_version(profile_id: int) -> str:
    """Where the verdict row (findings and all) is stored: an UPDATE writes a new version elsewhere."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT ctid::text FROM validation_verdict WHERE profile_id = %s", [profile_id])
        return cursor.fetchone()[0]


def test_a_recheck_that_changes_nothing_confirms_each_verdict_without_rewriting_it(
    user, staff, team, fleet_032
):
    from django.test import Client

    kept = make(user, team, "teacher")
    eager = make(user, team, "eager", command="vllm serve org/big --enforce-eager", kind="serving")
    before = {v.profile_id: (v.state, v.findings) for v in Verdict.objects.all()}
    digest = Verdict.objects.get(profile=eager).findings_sha256
    Verdict.objects.filter(profile=eager).update(findings_sha256="")  # as stored before digests
    stored = _verdict_row_version(kept.pk)
    draft = rulesets.ruleset_draft_create(actor=staff)
    rulesets.rule_save(  # a rule no profile breaks
        ruleset=draft,
        data={
            "id": "org-no-huge-batches",
            "category": "policy",
            "severity": "error",
            "message": "max_num_seqs must stay below 100000",
            "when": "has(args.max_num_seqs) && args.max_num_seqs >= 100000",
        },
    )
    recheck = rulesets.ruleset_publish(ruleset=draft, actor=staff)
    recheck_run_inline(recheck.pk)
    recheck.refresh_from_db()
    assert (recheck.state, recheck.total, recheck.done, recheck.newly_invalid) == ("done", 2, 2, 0)
    assert {v.profile_id: (v.state, v.findings) for v in Verdict.objects.all()} == before
    assert not VerdictChange.objects.filter(recheck=recheck).exists()
    assert _verdict_row_version(kept.pk) == stored  # the findings were not written again
    # the verdict without a digest was compared by its findings, found equal, and given its digest
    assert Verdict.objects.get(profile=eager).findings_sha256 == digest
    # ... yet every verdict records the rule set it was checked against, which its page names
    assert {v.ruleset.number for v in Verdict.objects.all()} == {draft.number}
    assert not lagging_verdicts().exists()
    client = Client()
    client.force_login(user)
    for profile in (kept, eager):
        page = client.get(f"/profiles/{profile.pk}/").content.decode()
        assert f"against rule set {draft.number}" in page


def test_lagging_verdicts_are_found_by_the_sweep(user, staff, team, fleet_032):
    make(user, team, "teacher")
    draft = rulesets.ruleset_draft_create(actor=staff)
    # Published without its re-check reaching a worker (e.g. the broker was down): rows are marked, not run.
    recheck = rulesets.ruleset_publish(ruleset=draft, actor=staff)
    Recheck.objects.filter(pk=recheck.pk).update(created_at=timezone.now() - timedelta(minutes=5))
    assert sweep()["revived"] == 1
    recheck_run_inline(recheck.pk)
    assert not lagging_verdicts().exists()


def test_a_verdict_stored_without_what_it_was_checked_against_is_rechecked_by_the_sweep(
    user, staff, team, fleet_032
):
    from profiles.models import VerdictCheck

    profile = make(user, team, "teacher")
    VerdictCheck.objects.filter(pk=profile.pk).delete()  # as a bulk load that wrote verdicts alone would
    assert Verdict.objects.get(profile=profile).ruleset is None
    assert sweep()["lagging"] == 1
    recheck_run_inline(Recheck.objects.filter(cause="sweep").latest("created_at").pk)
    verdict = Verdict.objects.get(profile=profile)
    assert (verdict.ruleset.status, verdict.release.version) == ("published", "0.32.0")
    assert not lagging_verdicts().exists()


def test_waiver_is_honoured_shown_and_its_expiry_is_a_state_change(user, staff, team, fleet_032):
    profile = make(user, team, "teacher")
    move_fleet("0.31.0", staff)
    rule_id = next(
        f["rule"] for f in Verdict.objects.get(profile=profile).findings if f["message"] == SEED_MESSAGE_031
    )
    from profiles.services.waivers import waiver_approve, waiver_request

    waiver = waiver_request(
        actor=user,
        profile=profile,
        rule_id=rule_id,
        reason="known, fixed in the next rollout",
        expires_at=timezone.now() + timedelta(days=1),
    )
    with pytest.raises(Exception, match="admins or staff"):
        waiver_approve(actor=user, waiver=waiver)  # an editor, not an admin of the team
    # pending: it waives nothing yet
    assert not Recheck.objects.filter(cause="waiver").exists()
    waiver = waiver_approve(actor=staff, waiver=waiver)
    # The waiver's re-check runs after commit; run the marked verdict now as the worker would.
    recheck = Recheck.objects.filter(cause="waiver").latest("created_at")
    recheck_run_inline(recheck.pk)
    verdict = Verdict.objects.get(profile=profile)
    waived = [f for f in verdict.findings if f["rule"] == rule_id]
    assert waived and waived[0]["waived"] is True
    assert verdict.state != "invalid"

    Waiver.objects.filter(pk=waiver.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert sweep()["waiver_rechecks"] == 1
    recheck_run_inline(Recheck.objects.filter(cause="waiver").latest("created_at").pk)
    assert Verdict.objects.get(profile=profile).state == "invalid"
    last = VerdictChange.objects.filter(profile=profile).latest("created_at")
    assert last.cause == "waiver" and last.to_state == "invalid"


def test_deleting_a_profile_during_a_recheck_does_not_stall_it(user, staff, team, fleet_032):
    a = make(user, team, "a")
    make(user, team, "b")
    recheck = fleet_set_release(release=release_get("0.31.0"), actor=staff)
    Profile.objects.filter(pk=a.pk).delete()
    recheck_run_inline(recheck.pk)
    recheck.refresh_from_db()
    assert recheck.state == "done"


def test_recheck_start_covers_every_profile_by_default(user, staff, team, fleet_032):
    make(user, team, "a")
    make(user, team, "b", version="0.32.0")
    recheck = recheck_start(cause="manual")
    assert recheck.total == 2


def test_the_fan_out_hands_every_marked_profile_to_exactly_one_batch_copies_of_a_configuration_together(
    user, staff, team, fleet_032, monkeypatch
):
    from profiles.services import rechecks

    eager = "vllm serve org/big --enforce-eager"
    copies = {make(user, team, f"copy-{i}", command=eager, kind="serving").pk for i in range(4)}
    others = {make(user, team, f"seed-{i}").pk for i in range(3)}
    recheck = recheck_start(cause="manual")
    sent = []
    monkeypatch.setattr(rechecks, "BATCH_SIZE", 2)
    monkeypatch.setattr(rechecks, "enqueue", lambda name, *args, **kwargs: sent.append((name, *args)))
    assert rechecks.recheck_fan_out(recheck.pk) == 4
    assert [name for name, *_ in sent] == ["recheck_batch_task"] * 4
    batches = [batch for _, recheck_id, batch in sent if recheck_id == recheck.pk]
    assert [len(batch) for batch in batches] == [2, 2, 2, 1]
    assert sorted(pk for batch in batches for pk in batch) == sorted(copies | others)
    # Ordered by document: the four copies fill two batches of their own.
    assert sum(set(batch) <= copies for batch in batches) == 2
    for batch in batches:
        recheck_batch(recheck.pk, batch)
    recheck.refresh_from_db()
    assert (recheck.state, recheck.done) == ("done", 7)


def test_upgrade_preview_predicts_exactly_what_the_fleet_change_does(user, staff, team, fleet_032):
    """A profile pinned to another release is not moved by a fleet change: the preview lists it apart as not
    affected, and its "would become invalid" set is the set the real change makes invalid."""
    from profiles.services.previews import preview

    follower = make(user, team, "follower")
    pinned = make(user, team, "pinned", version="0.32.0")
    assert {p.verdict.state for p in (follower, pinned)} <= {"valid", "warning"}

    predicted = preview(release=release_get("0.31.0"))
    assert predicted["counts"]["would_become_invalid"] == 1
    assert [p["id"] for p in predicted["would_become_invalid"]] == [follower.pk]
    assert predicted["counts"]["not_affected"] == 1
    assert predicted["not_affected"] == [
        {"id": pinned.pk, "team": team.slug, "name": "pinned", "pinned": "0.32.0"}
    ]

    recheck = move_fleet("0.31.0", staff)
    became_invalid = set(
        VerdictChange.objects.filter(recheck=recheck, to_state="invalid").values_list("profile_id", flat=True)
    )
    assert recheck.newly_invalid == predicted["counts"]["would_become_invalid"]
    assert became_invalid == {p["id"] for p in predicted["would_become_invalid"]}
    assert Verdict.objects.get(profile=pinned).state in ("valid", "warning")


def test_alert_mail_words_follow_the_rule_category(user, staff, team, fleet_032, mailoutbox):
    """A profile broken by a policy rule is not one vLLM would refuse: the mail says whose rule it breaks;
    one broken by vLLM's own check says vLLM would refuse to start it. The re-check page names both."""
    from django.test import Client

    policy_broken = make(user, team, "eager", command="vllm serve org/big --enforce-eager", kind="serving")
    draft = rulesets.ruleset_draft_create(actor=staff)
    rulesets.rule_save(
        ruleset=draft,
        data={
            "id": "org-no-enforce-eager",
            "category": "policy",
            "severity": "error",
            "message": "production profiles must not disable CUDA graphs (--enforce-eager)",
            "when": "has(args.enforce_eager) && args.enforce_eager == true",
        },
    )
    recheck = rulesets.ruleset_publish(ruleset=draft, actor=staff)
    recheck_run_inline(recheck.pk)
    assert alerts.alerts_send_digest(recipient_id=user.pk, recheck_id=recheck.pk) == 1
    policy_mail = mailoutbox[-1]
    assert "breaks a policy rule of your organisation (vLLM 0.32.0 itself would start it)" in policy_mail.body
    assert "would refuse" not in policy_mail.body
    assert "policy: production profiles must not disable CUDA graphs" in policy_mail.body
    assert "breaks a policy rule" in policy_mail.alternatives[0][0]

    vllm_broken = make(user, team, "teacher")
    moved = move_fleet("0.31.0", staff)
    assert alerts.alerts_send_digest(recipient_id=user.pk, recheck_id=moved.pk) == 1
    vllm_mail = mailoutbox[-1]
    assert "became invalid: vLLM 0.31.0 would refuse to start it." in vllm_mail.body
    assert "policy rule" not in vllm_mail.body

    client = Client()
    client.force_login(user)
    page = client.get(f"/rechecks/{moved.pk}/").content.decode()
    assert f'href="/profiles/{vllm_broken.pk}/"' in page and "ml-platform/teacher" in page
    assert f'href="/profiles/{policy_broken.pk}/"' not in page  # already invalid: not among the newly invalid


def assert_each_verdict_is_the_plain_check():
    """Every stored verdict equals its profile checked on its own (no shared outcome, no cache)."""
    from profiles.selectors import waived_rule_ids_by_profile
    from profiles.services.verdicts import profile_check

    for profile in Profile.objects.select_related("verdict"):
        waived = waived_rule_ids_by_profile([profile.pk]).get(profile.pk, ())
        verdict, release = profile_check(profile, waived=waived)
        stored = profile.verdict
        assert (stored.state, stored.release_id) == (verdict.state, release.pk), profile.name
        assert stored.findings == [f.as_dict() for f in verdict.findings], profile.name
        assert stored.pending_recheck_id is None


def test_copies_of_one_configuration_share_an_outcome_that_equals_each_plain_check(
    user, staff, team, fleet_032
):
    from hub.models import NodeType
    from profiles.services.waivers import waiver_approve, waiver_request

    eager = "vllm serve org/big --enforce-eager"
    copies = [
        make(user, team, f"copy-{i}", command=eager, kind="serving", version=version)
        for i, version in enumerate(["", "", "", "0.32.0", "0.31.0"])
    ]
    seeds = [make(user, team, f"seed-{i}") for i in range(3)]
    small = NodeType.objects.create(name="small", gpu="L4", gpus_per_node=1, gpu_memory_gb=24)
    Profile.objects.filter(pk=copies[2].pk).update(node_type=small)
    draft = rulesets.ruleset_draft_create(actor=staff)
    for rule in (
        {"id": "org-no-enforce-eager", "message": "no --enforce-eager", "kinds": ["serving"]},
        {
            "id": "org-big-nodes",
            "message": "serve on 8-GPU nodes",
            "kinds": ["serving"],
            "severity": "warning",
        },
    ):
        when = (
            "has(args.enforce_eager) && args.enforce_eager == true"
            if rule["id"] == "org-no-enforce-eager"
            else "has(hardware.gpus_per_node) && hardware.gpus_per_node < 8"
        )
        rulesets.rule_save(
            ruleset=draft, data={"category": "policy", "severity": "error", **rule, "when": when}
        )
    recheck = rulesets.ruleset_publish(ruleset=draft, actor=staff)
    recheck_run_inline(recheck.pk)
    recheck.refresh_from_db()
    count = len(copies) + len(seeds)
    assert (recheck.state, recheck.total, recheck.done, recheck.newly_invalid) == ("done", count, count, 5)
    assert_each_verdict_is_the_plain_check()
    # the node type is part of the shared outcome's key: only the copy on the small node is warned
    warned = set(
        Verdict.objects.filter(rule_ids__contains=["org-big-nodes"]).values_list("profile_id", flat=True)
    )
    assert warned == {copies[2].pk}
    # each newly invalid profile: one history entry and one alert per recipient (the owner), once
    assert VerdictChange.objects.filter(recheck=recheck).count() == 5
    sent = sorted(Alert.objects.filter(recheck=recheck).values_list("profile_id", "recipient_id"))
    expected = sorted((p.pk, u.pk) for p in copies for u in alerts.alert_recipients(p))
    assert sent == expected and len(set(sent)) == len(sent)

    # a waiver on one copy: it no longer shares its twin's outcome
    waiver = waiver_request(
        actor=user,
        profile=copies[1],
        rule_id="org-no-enforce-eager",
        reason="benchmark node",
        expires_at=timezone.now() + timedelta(days=1),
    )
    waiver_approve(actor=staff, waiver=waiver)
    recheck_run_inline(Recheck.objects.filter(cause="waiver").latest("created_at").pk)
    assert Verdict.objects.get(profile=copies[1]).state != "invalid"
    assert Verdict.objects.get(profile=copies[0]).state == "invalid"

    # the outcomes kept from the last rule set and release are not reused under another release
    moved = move_fleet("0.31.0", staff)
    assert moved.done == moved.total == 7  # those following the fleet, and the one pinned to 0.31.0
    assert_each_verdict_is_the_plain_check()
    assert set(Verdict.objects.filter(state="invalid").values_list("profile_id", flat=True)) >= {
        s.pk for s in seeds
    }
    assert sweep()["lagging"] == 0


def test_a_worker_keeps_the_outcomes_of_the_current_rule_set_only(user, staff, team, fleet_032):
    # A worker process keeps outcomes across batches; once a new rule set is current, the old one's outcomes
    # can never be read again, and keeping them would grow the worker by a fleet's worth per publish.
    from profiles.services import rechecks

    for i in range(4):
        make(user, team, f"plain-{i}", command=f"vllm serve org/model-{i}", kind="serving")
    published = []
    for n in range(2):
        draft = rulesets.ruleset_draft_create(actor=staff)
        rulesets.rule_save(
            ruleset=draft,
            data={
                "id": f"org-rule-{n}",
                "category": "policy",
                "severity": "warning",
                "message": f"rule {n}",
                "when": "has(args.enforce_eager) && args.enforce_eager == true",
            },
        )
        recheck = rulesets.ruleset_publish(ruleset=draft, actor=staff)
        recheck_run_inline(recheck.pk)
        recheck.refresh_from_db()
        assert (recheck.state, recheck.done) == ("done", 4)
        published.append(draft.pk)
        assert {key[0] for key in rechecks._outcomes} == {draft.pk}
        assert len(rechecks._outcomes) == 4  # one per distinct document
    assert published[0] != published[1]
