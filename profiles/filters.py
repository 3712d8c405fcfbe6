"""The one filter of profiles, shared by the API (``/api/v1/profiles/?...``) and the dashboard's list page.

Text search matches the name or the model (both have trigram indexes, so it stays fast over the whole
table); ``search`` is the API's older name of ``q``.
"""

from __future__ import annotations

import django_filters
from django import forms
from django.db.models import Q, QuerySet

from validation.models import VllmRelease
from validation.selectors import fleet_release

from .models import Profile, Team, Verdict, VerdictRule

FOLLOWS_FLEET = "fleet"


def _ids(queryset) -> list[int]:
    """Primary keys looked up first (a tiny indexed query), so the filter on profiles is a plain
    ``column IN (ids)`` that its covering indexes serve without a join."""
    return list(queryset.values_list("pk", flat=True))


class ProfileFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="filter_text", label="Search", help_text="text in the name or model")
    search = django_filters.CharFilter(method="filter_text", label="Search (the same as q)")
    kind = django_filters.ChoiceFilter(label="Kind", choices=Profile.Kind.choices, empty_label="any kind")
    team = django_filters.CharFilter(method="filter_team", label="Team", help_text="the team's slug")
    state = django_filters.ChoiceFilter(label="State", choices=Verdict.State.choices, empty_label="any state")
    release = django_filters.CharFilter(
        method="filter_release",
        label="vLLM release",
        help_text="profiles that run this version (pinned, or following the fleet when the fleet runs it); "
        f"`{FOLLOWS_FLEET}`: profiles that follow the fleet",
    )
    owner = django_filters.CharFilter(field_name="owner__username", label="Owner")
    rule = django_filters.CharFilter(
        method="filter_rule", label="Rule", help_text="profiles with an active finding of this rule (its id)"
    )

    class Meta:
        model = Profile
        fields = ["q", "search", "kind", "team", "state", "release", "owner", "rule"]

    def __init__(self, data=None, queryset=None, *, teams=None, releases=None, **kwargs):
        """``teams`` and ``releases`` (slugs, versions) make those filters drop-down lists (the page)."""
        super().__init__(data, queryset, **kwargs)
        if teams is not None:
            choices = [("", "any team"), *((slug, slug) for slug in teams)]
            self.filters["team"].extra["widget"] = forms.Select(choices=choices)
        if releases is not None:
            choices = [("", "any release"), (FOLLOWS_FLEET, "follows the fleet")]
            choices += [(version, f"targets {version}") for version in releases]
            self.filters["release"].extra["widget"] = forms.Select(choices=choices)

    def filter_text(self, queryset, name, value):
        value = value.strip()
        if not value:
            return queryset
        return queryset.filter(Q(name__icontains=value) | Q(model_name__icontains=value))

    def filter_team(self, queryset, name, value):
        return queryset.filter(team_id__in=_ids(Team.objects.filter(slug=value.strip())))

    def filter_release(self, queryset, name, value):
        value = value.strip()
        if value == FOLLOWS_FLEET:
            return queryset.filter(vllm_release__isnull=True)
        pinned = Q(vllm_release_id__in=_ids(VllmRelease.objects.filter(version=value)))
        if fleet_release().version == value:
            return queryset.filter(pinned | Q(vllm_release__isnull=True))
        return queryset.filter(pinned)

    def filter_rule(self, queryset, name, value):
        value = value.strip()
        if not value:
            return queryset
        return queryset.filter(pk__in=VerdictRule.objects.filter(rule_id=value).values("profile_id"))

    def queryset_without(self, excluded: str) -> QuerySet[Profile]:
        """The queryset under every valid filter but ``excluded`` (the page counts states under the rest)."""
        queryset = self.queryset.all()
        for name, value in self._cleaned().items():
            if name != excluded:
                queryset = self.filters[name].filter(queryset, value)
        return queryset

    def value(self, name: str):
        """The cleaned value of one filter (None if absent or invalid)."""
        return self._cleaned().get(name) or None

    def _cleaned(self) -> dict:
        """The values of the valid filters (none when nothing was asked)."""
        if not self.is_bound:
            return {}
        self.form.is_valid()
        return self.form.cleaned_data
